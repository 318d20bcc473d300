"""Rule 1 reconciliation (okfpro.core.reconcile) on a real bundle read from disk."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit as k  # noqa: E402

from okfpro.core import reconcile as R  # noqa: E402
from okfpro.io.reader import read_bundle  # noqa: E402


def test_terms_drop_stop_words_and_keep_the_first_four():
    assert R.terms_of("learnings/the-state-of-search-and-cache-ranking-notes.md") == ["state", "search", "cache", "ranking"]
    assert R.terms_of("glossary/A-an-THE.md") == []
    assert R.terms_of("x--y.md") == ["x", "y"]


def test_applies_only_to_a_written_concept_outside_journal_and_structure():
    assert R.applies("Write", "learnings/search.md")
    assert not R.applies("Edit", "learnings/search.md")
    assert not R.applies("MultiEdit", "learnings/search.md")
    assert not R.applies("Write", "journal/2026-11-30.md")
    for name in ("index.md", "log.md", "board.md", "CLAUDE.md", "README.md"):
        assert not R.applies("Write", f"learnings/{name}")


def test_hits_exclude_self_and_structural_files_and_annotate_deprecated(tmp_path):
    ws = k.make_workspace(tmp_path)
    new = ws / ".okf" / "learnings" / "search-board.md"
    new.write_text("---\ntype: Learning\ntitle: Search the board\ndescription: search board lines.\n---\n\nsearch\n")
    bundle = read_bundle(ws / ".okf")
    found = dict(R.hits(bundle, "learnings/search-board.md"))
    ids = [row["id"] for row in found["search"]]
    assert "learnings/search-board" not in ids
    assert len(ids) <= R.MAX_HITS
    assert all(not i.endswith(("index", "board", "log")) for rows in found.values() for i in (r["id"] for r in rows))
    text = R.reconcile(bundle, "Write", "learnings/search-board.md")
    assert text.startswith("RULE 1 — reconciliation.")
    assert "learnings/search-cache  [deprecated — this collision was already settled]  ·  Learning  ·  Search cache" in text
    assert R.reconcile(bundle, "Edit", "learnings/search-board.md") is None
