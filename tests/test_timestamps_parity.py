"""Timestamps are printed as the reference prints them — a format scripts parse.

A stamp written with ``Z`` prints ``Z``; an explicit offset (``+00:00`` too) prints as written; a
zoneless one is a UTC moment shown in the process's local zone (``TZ``); fractions are dropped;
a day stays a day; quoted text stays text.  The catalog's ``generated_at`` (every view printing a
moment goes through the same function) and lint's ``stale`` metric (the reference's ``Time#to_s``)
are compared with the runnable reference under three zones, fresh and through the parse cache.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from okfpro.core import views as _views
from okfpro.io.reader import read_bundle
from tests.helpers import invoke
from tests.test_reference_parity import RUN_OKF, needs_reference

SPELLINGS = ["2026-11-20T10:00:00Z", "2026-11-20T10:00:00+00:00", "2026-11-20T10:00:00", "2026-11-20 10:00:00",
             "2026-11-20T10:00:00.123Z", "2026-11-20T10:00:00+02:00", "2026-11-20T10:00:00-05:30", "2026-11-20",
             "'2026-11-20T10:00:00Z'", "2026-11-20t10:00:00z"]
ZONES = ["UTC", "Europe/Berlin", "Asia/Kolkata"]


@pytest.fixture
def stamped(tmp_path: Path) -> Path:
    b = tmp_path / "b"
    b.mkdir()
    (b / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    for i, at in enumerate(SPELLINGS):
        (b / f"t{i}.md").write_text(f"---\ntype: Note\ntitle: T{i}\ngenerated:\n  at: {at}\n  by: x\n---\nbody\n")
    return b


def _generated(stdout: str) -> dict[str, str]:
    return {c["id"]: c["generated_at"] for c in json.loads(stdout)["concepts"]}


def test_z_and_offsets_keep_their_spelling_and_zoneless_follows_tz(stamped, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    import time

    time.tzset()
    try:
        got = {c.id: _views.iso(c.generated_at) for c in read_bundle(stamped).concepts}
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert got["t0"] == got["t4"] == "2026-11-20T10:00:00Z"
    assert got["t1"] == "2026-11-20T10:00:00+00:00"
    assert got["t2"] == got["t3"] == "2026-11-20T15:30:00+05:30"  # 10:00 UTC, shown in Kolkata
    assert got["t8"] == "2026-11-20T10:00:00Z" and got["t7"] == "2026-11-20"
    # and through the parse cache (a second read is served from it)
    for _ in range(2):
        proc = invoke("catalog", str(stamped), "--json", env={"TZ": "UTC"})
        assert _generated(proc.stdout)["t0"] == "2026-11-20T10:00:00Z"
        assert _generated(proc.stdout)["t1"] == "2026-11-20T10:00:00+00:00"


def _ref(args: list[str], tz: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TZ": tz}
    return subprocess.run([str(RUN_OKF), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@needs_reference
@pytest.mark.parametrize("tz", ZONES)
def test_catalog_timestamps_equal_the_reference(stamped, tz):
    ref = _ref(["catalog", str(stamped), "--json"], tz, stamped.parent)
    assert ref.returncode == 0, ref.stderr
    for _ in range(2):  # fresh, then from the parse cache
        ours = invoke("catalog", str(stamped), "--json", env={"TZ": tz})
        assert ours.returncode == 0, ours.stderr
        assert _generated(ours.stdout) == _generated(ref.stdout)


@needs_reference
@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize("cutoff", ["2026-12-01", "2026-11-21T09:00:00Z"])
def test_lint_stale_metric_equals_the_reference(stamped, tz, cutoff):
    def metrics(stdout: str) -> dict[str, dict]:
        return {f["path"]: f["metric"] for f in json.loads(stdout)["findings"] if f["check"] == "stale"}

    ref = _ref(["lint", str(stamped), "--json", "--stale-after", cutoff], tz, stamped.parent)
    ours = invoke("lint", str(stamped), "--json", "--stale-after", cutoff, env={"TZ": tz})
    assert ours.returncode == ref.returncode == 0, (ours.stderr, ref.stderr)
    assert metrics(ours.stdout) == metrics(ref.stdout) and metrics(ref.stdout)
