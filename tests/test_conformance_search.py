"""Search agrees with the reference on the conformance corpus: ids, order, scores, matched fields, snippets.

Every ``search`` golden of every ``expected/sNNNN.json`` is replayed in-process through
the scan engine; a sample is replayed through the real command line as well.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from okfpro.core.search import scan
from okfpro.io.reader import read_bundle
from tests.helpers import invoke


def _shared() -> Path:
    here = Path(__file__).resolve().parents[2] / "shared"
    return here if (here / "conformance").is_dir() else Path("/work/shared")


SHARED = _shared()
EXPECTED = sorted((SHARED / "conformance" / "expected").glob("s*.json"))
pytestmark = pytest.mark.skipif(not EXPECTED, reason="conformance corpus not available")


def _cases():
    for path in EXPECTED:
        data = json.loads(path.read_text(encoding="utf-8"))
        for term, answer in sorted(data.get("search", {}).items()):
            yield pytest.param(path.stem, data.get("bundle", ".okf"), term, answer, id=f"{path.stem}-{term}")


@pytest.fixture(scope="module")
def bundles():
    cache: dict[str, object] = {}

    def get(sid: str, rel: str):
        if sid not in cache:
            cache[sid] = read_bundle(SHARED / "conformance" / "bundles" / sid / rel)
        return cache[sid]

    return get


@pytest.mark.parametrize("sid,rel,term,answer", list(_cases()))
def test_scan_matches_reference(bundles, sid, rel, term, answer):
    assert answer["rc"] == 0
    want = answer["json"]["matches"]
    got = scan(bundles(sid, rel), [term])
    assert [r["id"] for r in got] == [r["id"] for r in want]
    assert [(r["score"], r["matched"]) for r in got] == [(r["score"], r["matched"]) for r in want]
    assert got == want  # every key, snippets byte for byte


def _cli_sample():
    for path in EXPECTED[::12]:
        data = json.loads(path.read_text(encoding="utf-8"))
        for term, answer in sorted(data.get("search", {}).items()):
            yield pytest.param(path.stem, term, answer, id=f"cli-{path.stem}-{term}")


@pytest.mark.parametrize("sid,term,answer", list(_cli_sample()))
def test_cli_envelope_matches_reference(sid, term, answer):
    proc = invoke("search", term, "--json", cwd=SHARED / "conformance" / "bundles" / sid)
    assert proc.returncode == answer["rc"], proc.stderr
    assert json.loads(proc.stdout) == answer["json"]
