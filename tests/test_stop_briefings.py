"""The Stop gate's pairing reads only the briefings, and gets the answer the whole bundle gives.

A Stop on a dirty tree used to parse the whole bundle for pairing (at 50,000 concepts most of its
1.8 s) although pairing looks only at the briefings under ``reference/``.  It now parses
``reference/`` once (``workstate.reference_concepts``) for both the Snapshot's counter and pairing.
These tests build briefings in every state pairing distinguishes, plus the walk's edge cases
(hidden names, nested directories, a linked directory, a file linked out of the bundle, a
``reference`` that is itself a link), and compare the facts and the counter with those the loaded
bundle gives; then a real ``okfpro hook stop`` answers as ``okfpro audit`` does.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.io import workstate  # noqa: E402
from okfpro.io.bundle import load  # noqa: E402

GENERATED = "generated:\n  by: claude/opus-5\n  at: 2026-11-20\n"
HUMAN = "verified:\n  - by: \"human:ana\"\n    at: 2026-11-21\n"
MACHINE = "verified:\n  - by: ci\n    at: 2026-11-21\n"


def concept(path: Path, title: str, extra: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntype: Briefing\ntitle: {title}\ndescription: About {title}.\n{extra}---\n\n# {title}\n")


def briefings_everywhere(root: Path, outside: Path) -> None:
    ref = root / "reference"
    concept(ref / "owed.md", "Owed", GENERATED)                       # unverified: owes a read
    concept(ref / "read.md", "Read", GENERATED + HUMAN)               # verified by a human
    concept(ref / "machine.md", "Machine", GENERATED + MACHINE)       # machine-confirmed: still owed
    concept(ref / "plain.md", "Plain")                                # not generated: owes nothing
    concept(ref / "deep" / "er" / "nested.md", "Nested", GENERATED)   # nested directories
    concept(ref / ".hidden" / "h.md", "Hidden", GENERATED)            # hidden directory: outside the bundle
    concept(ref / ".h.md", "Hidden file", GENERATED)                  # hidden file: outside the bundle
    (ref / "broken.md").write_text("---\ntitle: [unclosed\n---\n")     # unparseable: not a concept
    concept(outside / "far" / "away.md", "Away", GENERATED)
    (ref / "linked-dir").symlink_to(outside / "far", target_is_directory=True)  # a linked directory is not entered
    (ref / "escape.md").symlink_to(outside / "far" / "away.md")       # a file linked out of the bundle
    (ref / "inside.md").symlink_to(root / "reference" / "owed.md")    # a link that stays inside


def facts_both_ways(root: Path) -> tuple:
    bundle = load(root)
    briefings = workstate.reference_concepts(root)
    by_bundle = workstate.pairing_facts(root, bundle.concepts)
    by_briefings = workstate.pairing_facts(root, briefings)
    count_bundle = sum(1 for c in bundle.concepts if workstate.is_briefing(c) and c.awaiting_read)
    return by_bundle, by_briefings, count_bundle, workstate.unverified_briefing_count(root, briefings)


def test_briefings_alone_give_the_facts_and_the_counter_the_whole_bundle_gives(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    root = ws / ".okf"
    briefings_everywhere(root, tmp_path / "outside")
    by_bundle, by_briefings, count_bundle, count = facts_both_ways(root)
    assert by_briefings == by_bundle
    assert count == count_bundle == workstate.unverified_briefing_count(root)
    assert {"reference/owed", "reference/machine", "reference/deep/er/nested"} <= set(by_bundle.unverified_briefings)
    assert by_bundle.verified_briefings == ["reference/read"]


def test_a_reference_directory_that_is_a_link_is_not_read_through(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    root = ws / ".okf"
    outside = tmp_path / "elsewhere"
    concept(outside / "owed.md", "Owed elsewhere", GENERATED)
    for p in sorted((root / "reference").rglob("*"), reverse=True):
        p.unlink() if not p.is_dir() else p.rmdir()
    (root / "reference").rmdir()
    (root / "reference").symlink_to(outside, target_is_directory=True)
    by_bundle, by_briefings, count_bundle, count = facts_both_ways(root)
    assert by_briefings == by_bundle and by_bundle.unverified_briefings == []
    assert count == count_bundle == 0


def test_the_hook_refuses_as_audit_does_on_a_dirty_tree_with_briefings(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    root = ws / ".okf"
    briefings_everywhere(root, tmp_path / "outside")
    today = dt.date.fromisoformat(hookkit.TODAY)
    from okfpro.core import board as _board
    from okfpro.core import pairing as _pairing

    rows = _board.parse((root / "board.md").read_text()).rows
    expected = _pairing.failures(rows, workstate.pairing_facts(root, load(root).concepts))
    assert any("reference/owed.md" in m for m in expected)  # the case is not vacuous
    event = {"hook_event_name": "Stop", "session_id": "s", "cwd": str(ws), "stop_hook_active": False}
    proc = hookkit.hook("stop", event=event, extra_env={"OKFPRO_TODAY": today.isoformat()})
    assert proc.returncode == 2
    said = hookkit.err_text(proc)
    for message in expected:
        assert message in said, message
    assert os.path.islink(root / "reference" / "escape.md")


def test_a_bundle_owing_thousands_of_reads_gets_the_answer_the_whole_list_would_give(tmp_path):
    """Pairing stops building messages once they pass what the answer can show (the hosts cut every
    output at 10,000 characters): the capped answer is the one the whole list gives, cut."""
    ws = hookkit.make_workspace(tmp_path)
    root = ws / ".okf"
    for i in range(400):  # owed reads nobody put on the board: ~80,000 characters of messages
        concept(root / "reference" / f"brief-{i:03d}.md", f"Brief {i}", GENERATED)
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "briefings")
    (root / "learnings" / "search-ranking.md").write_text((root / "learnings" / "search-ranking.md").read_text() + "x\n")
    from okfpro.core import board as _board
    from okfpro.core import pairing as _pairing
    from okfpro.hooks.protocol import OUTPUT_CAP, _cap

    rows = _board.parse((root / "board.md").read_text()).rows
    facts = workstate.pairing_facts(root, load(root).concepts)
    whole = _pairing.failures(rows, facts)
    cut = _pairing.failures(rows, facts, chars=OUTPUT_CAP)
    assert len(whole) >= 400 and len(cut) < len(whole) and whole[:len(cut)] == cut
    for head in ([], ["RULE 2 — before stopping:"], ["x" * 5000]):
        assert _cap("\n".join(head + cut)) == _cap("\n".join(head + whole))
    event = {"hook_event_name": "Stop", "session_id": "s", "cwd": str(ws), "stop_hook_active": False}
    proc = hookkit.hook("stop", event=event, extra_env={"OKFPRO_TODAY": hookkit.TODAY})
    said = hookkit.err_text(proc)
    assert proc.returncode == 2 and said.rstrip().endswith("limit]") and whole[0] in said
