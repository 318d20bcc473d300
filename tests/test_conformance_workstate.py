"""Every conformance bundle: okfpro's Snapshot line, ``state --json`` and ``board --json``
equal the reference's goldens.  The library answers for all bundles; the real CLI
(``python -m okfpro`` with OKFPRO_TODAY pinned) answers for a sample."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from okfpro.io import workstate as ws
from tests.helpers import run_okfpro, shared_dir

CONF = shared_dir() / "conformance"
CASES = sorted(p.stem for p in (CONF / "expected").glob("*.json"))
CLI_SAMPLE = CASES[::9]  # every ninth bundle, through the real process


def golden(name: str) -> tuple[dict, Path, dt.date]:
    data = json.loads((CONF / "expected" / f"{name}.json").read_text(encoding="utf-8"))
    root = CONF / "bundles" / name / data["bundle"]
    return data, root, dt.date.fromisoformat(data["today"])


def test_corpus_is_present():
    assert len(CASES) >= 100, f"conformance corpus missing or short at {CONF}"


@pytest.mark.parametrize("name", CASES)
def test_library_matches_golden(name: str):
    data, root, today = golden(name)
    assert ws.snapshot_payload(root, today)["line"] == data["snapshot"]["line"]
    want_state = dict(data["state"]["json"])
    want_state["root"] = str(root)
    assert ws.state_payload(root, today) == want_state
    assert ws.board_rows(root, today) == data["board"]["json"]


@pytest.mark.parametrize("name", CLI_SAMPLE)
def test_cli_matches_golden(name: str):
    data, root, today = golden(name)
    env = {"OKFPRO_TODAY": today.isoformat()}
    bundle_dir = root.parent  # the workspace; DIR resolution finds .okf inside it
    snap = run_okfpro("snapshot", str(bundle_dir), env=env)
    assert snap.returncode == data["snapshot"]["rc"] == 0, snap.stderr
    assert snap.stdout == data["snapshot"]["line"] + "\n"  # byte for byte
    st = run_okfpro("state", str(bundle_dir), "--json", env=env)
    assert st.returncode == data["state"]["rc"], st.stderr
    got = json.loads(st.stdout)
    assert Path(got.pop("root")).resolve() == root.resolve()
    want = dict(data["state"]["json"])
    want.pop("root")
    assert got == want
    bd = run_okfpro("board", str(bundle_dir), "--json", env=env)
    assert bd.returncode == data["board"]["rc"], bd.stderr
    assert json.loads(bd.stdout) == data["board"]["json"]
    sj = run_okfpro("snapshot", str(bundle_dir), "--pretty", env=env)
    payload = json.loads(sj.stdout)
    assert payload["line"] == data["snapshot"]["line"]
    assert list(payload["counters"]) == list(ws.snapshot_payload(root, today)["counters"])
