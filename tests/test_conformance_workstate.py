"""Every conformance bundle: okfpro's Snapshot line, ``state --json`` and ``board --json``
equal the reference's goldens.  The library answers for all bundles; the real CLI
(``python -m okfpro`` with OKFPRO_TODAY pinned) answers for a sample."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from okfpro.io import workstate as ws
from tests.helpers import invoke, shared_dir

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
    snap = invoke("snapshot", str(bundle_dir), env=env)
    assert snap.returncode == data["snapshot"]["rc"] == 0, snap.stderr
    assert snap.stdout == data["snapshot"]["line"] + "\n"  # byte for byte
    st = invoke("state", str(bundle_dir), "--json", env=env)
    assert st.returncode == data["state"]["rc"], st.stderr
    got = json.loads(st.stdout)
    assert Path(got.pop("root")).resolve() == root.resolve()
    want = dict(data["state"]["json"])
    want.pop("root")
    assert got == want
    bd = invoke("board", str(bundle_dir), "--json", env=env)
    assert bd.returncode == data["board"]["rc"], bd.stderr
    assert json.loads(bd.stdout) == data["board"]["json"]
    sj = invoke("snapshot", str(bundle_dir), "--pretty", env=env)
    payload = json.loads(sj.stdout)
    assert payload["line"] == data["snapshot"]["line"]
    assert list(payload["counters"]) == list(ws.snapshot_payload(root, today)["counters"])


# --- reader usage and exit codes (real processes) ------------------------------------------

def test_reader_usage_and_exit_codes(tmp_path):
    name = CASES[0]
    data, root, today = golden(name)
    env = {"OKFPRO_TODAY": today.isoformat()}
    ws_dir = str(root.parent)
    assert invoke("state", "@work", env=env).returncode == 2
    two = invoke("state", ws_dir, ws_dir, env=env)
    assert two.returncode == 2 and "one DIR" in two.stderr
    assert invoke("state", str(tmp_path), env=env).returncode == 2  # no bundle
    assert invoke("snapshot", "--write", ws_dir, env=env).returncode == 2  # no such flag, by design
    assert invoke("board", ws_dir, "--section", "Someday", env=env).returncode == 2
    inbox = invoke("board", ws_dir, "--section", "inbox", "--pretty", env=env)
    assert inbox.returncode == 0
    assert json.loads(inbox.stdout) == [r for r in data["board"]["json"] if r["section"] == "Inbox"]
    assert inbox.stdout.startswith("[\n  ") or inbox.stdout == "[]\n"
    human = invoke("state", ws_dir, env=env)
    assert human.returncode == 0 and human.stdout.startswith("Board — in flight ")
    # a bundle without board.md: state, board and snapshot refuse (as the reference's state and snapshot do)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "index.md").write_text('---\nokf_version: "0.2"\n---\n')
    assert invoke("state", str(bare), env=env).returncode == 2
    assert invoke("board", str(bare), env=env).returncode == 2
    snap = invoke("snapshot", str(bare), env=env)
    assert snap.returncode == 2 and snap.stdout == "" and "no board.md" in snap.stderr
