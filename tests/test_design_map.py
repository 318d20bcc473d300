"""The design notes are the map: every source file under okfpro/ is named by exactly one note.

A note names its files in a ``## Files`` section, one bullet per file (``- `okfpro/x/y.py` — ...``).
A new module without a line in a note, a file named twice, or a line naming a file that is gone
fails here, so the map cannot drift from the tree.
"""

from __future__ import annotations

import re

from tests.helpers import REPO

DESIGN = REPO / ".okf" / "design"
BULLET = re.compile(r"^- `(okfpro/[^`]+\.py)`")


def _named() -> dict[str, list[str]]:
    named: dict[str, list[str]] = {}
    for note in sorted(DESIGN.glob("*.md")):
        in_files = False
        for line in note.read_text(encoding="utf-8").splitlines():
            if line.startswith("## "):
                in_files = line.strip() == "## Files"
                continue
            m = BULLET.match(line) if in_files else None
            if m:
                named.setdefault(m.group(1), []).append(note.name)
    return named


def test_every_source_file_is_named_by_exactly_one_design_note() -> None:
    sources = {p.relative_to(REPO).as_posix() for p in (REPO / "okfpro").rglob("*.py") if "__pycache__" not in p.parts}
    named = _named()
    missing = sorted(sources - set(named))
    twice = {f: notes for f, notes in named.items() if len(notes) > 1}
    gone = sorted(set(named) - sources)
    assert not missing, f"source files no design note names (add a line under '## Files' in .okf/design/map-*.md): {missing}"
    assert not twice, f"source files named by more than one note: {twice}"
    assert not gone, f"design notes name files that do not exist: {gone}"


PATHS = DESIGN / "map-paths.md"
PATH_SECTIONS = ("Doors", "Reading", "Gates", "Writers", "Memory", "Sync", "Merge")


def test_the_request_path_map_follows_every_verb_through_files_that_exist() -> None:
    """map-paths.md: the seven request paths in order, every verb of ``COMMANDS`` and every hook
    event on one, and every file it names present (a renamed or moved module fails here)."""
    from okfpro.cli import COMMANDS

    text = PATHS.read_text(encoding="utf-8")
    sections = [line[3:].split(" (")[0] for line in text.splitlines() if line.startswith("## ")]
    assert tuple(sections) == PATH_SECTIONS, sections
    named = set(re.findall(r"`(okfpro/[^`]+\.py)`", text))
    gone = sorted(f for f in named if not (REPO / f).is_file())
    assert not gone, f"map-paths.md names files that do not exist: {gone}"
    spans = set(re.findall(r"`([a-z][a-z -]*)`", text))  # `search`, `memory sync`, `merge-file`
    missing = sorted(v for v in COMMANDS if not any(w == v or w.startswith(v + " ") for w in spans))
    assert not missing, f"verbs no request path in map-paths.md follows: {missing}"
    events = ("PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit")
    assert all(e in text for e in events)
