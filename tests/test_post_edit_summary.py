"""Post-edit's answer on a bundle with many findings elsewhere: your edit's findings whole, the rest
summarised (their number per check, the first few in a full run's order), Rule 1's block still
shown, the answer under the host's cap — through the real hook door, incremental and in full."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.hooks import post_edit  # noqa: E402
from okfpro.hooks.protocol import OUTPUT_CAP  # noqa: E402

MANY = 150  # concepts with a broken link and no index entry: 150 validate warnings, 300 lint findings


@pytest.fixture
def crowded(tmp_path) -> Path:
    ws = tmp_path / "ws"
    root = ws / ".okf"
    (root / "learnings").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Root\n\n* [Learnings](learnings/index.md)\n')
    (root / "learnings" / "index.md").write_text("# Learnings\n\n")
    for i in range(MANY):
        (root / "learnings" / f"ledger-note-{i:03d}.md").write_text(
            f"---\ntype: Learning\ntitle: Ledger note {i}\ndescription: A note.\n---\n\nSee [gone](/nowhere/gone-{i}.md).\n")
    return ws


def _post(ws: Path, rel: str, **env) -> subprocess.CompletedProcess:
    path = ws / ".okf" / rel
    event = {"cwd": str(ws), "hook_event_name": "PostToolUse", "tool_name": "Write",
             "tool_input": {"file_path": str(path), "content": path.read_text()}}
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", "post-tool-use"], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env(env), cwd=str(ws), timeout=180)


@pytest.mark.parametrize("full", [False, True])
def test_many_findings_elsewhere_are_summarised_and_rule1_is_still_shown(crowded, full):
    rel = "learnings/ledger-cache.md"
    (crowded / ".okf" / rel).write_text("---\ntype: Learning\ntitle: Ledger cache\ndescription: Mine.\n---\n\nSee [x](/nowhere/mine.md).\n")
    env = {"OKFPRO_NO_CACHE": "1"} if full else {}
    if not full:
        _post(crowded, rel)  # builds the state: the next answer is incremental
    proc = _post(crowded, rel, **env)
    err = hookkit.err_text(proc)
    assert proc.returncode == 2 and "ran in full" not in err and "truncated by okfpro" not in err
    assert len(err) < OUTPUT_CAP
    lines = err.splitlines()
    # your edit's findings: every one, before the others of its section
    warn = lines.index(next(x for x in lines if x.startswith("okfpro validate accepted the bundle with")))
    assert f"with {MANY + 1} warning(s) — " in lines[warn]
    assert lines[warn + 1].startswith(f"  {rel}: link target does not exist: /nowhere/mine.md")
    others = lines[warn + 2: warn + 2 + post_edit.SHOWN]
    assert [x.split(":")[0].strip() for x in others] == [f"learnings/ledger-note-{i:03d}.md" for i in range(post_edit.SHOWN)]
    assert lines[warn + 2 + post_edit.SHOWN] == (f"  … and {MANY - post_edit.SHOWN:,} more elsewhere — {MANY:,} in all: "
                                                 f"broken_link {MANY:,} (okfpro validate lists them all)")
    mine = lines.index("okfpro lint flagged your edit:")
    assert {x.rsplit("(", 1)[1] for x in lines[mine + 1: mine + 3]} == {"orphan)", "not_in_index)"}
    head = next(x for x in lines if x.startswith("okfpro lint findings elsewhere"))
    at = lines.index(head)
    assert len([x for x in lines[at + 1:] if x.startswith("  learnings/ledger-note-")]) == post_edit.SHOWN
    assert lines[at + 1 + post_edit.SHOWN] == (f"  … and {2 * MANY - post_edit.SHOWN:,} more elsewhere — {2 * MANY:,} in all: "
                                               f"not_in_index {MANY:,}, orphan {MANY:,} (okfpro lint lists them all)")
    assert "RULE 1" in err and "ledger-note-" in err.split("RULE 1", 1)[1]


def test_the_summary_matches_a_full_run_line_for_line(crowded):
    rel = "learnings/ledger-cache.md"
    (crowded / ".okf" / rel).write_text("---\ntype: Learning\ntitle: Ledger cache\ndescription: Mine.\n---\n\nSee [x](/nowhere/mine.md).\n")
    _post(crowded, rel)
    (crowded / ".okf" / "learnings" / "ledger-note-004.md").unlink()  # a change no hook saw
    inc, full = _post(crowded, rel), _post(crowded, rel, OKFPRO_NO_CACHE="1")
    assert "ran in full" not in hookkit.err_text(inc)
    assert hookkit.err_text(inc) == hookkit.err_text(full)
    assert "ledger-note-004" not in hookkit.err_text(inc) and "ledger-note-008" in hookkit.err_text(inc)
