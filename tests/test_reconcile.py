"""Rule 1 reconciliation (okfpro.core.reconcile) on a real bundle read from disk."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.core import reconcile as _reconcile  # noqa: E402
from okfpro.io.reader import read_bundle  # noqa: E402


def test_terms_drop_stop_words_and_keep_the_first_four():
    assert _reconcile.terms_of("learnings/the-state-of-search-and-cache-ranking-notes.md") == ["state", "search", "cache", "ranking"]
    assert _reconcile.terms_of("glossary/A-an-THE.md") == []
    assert _reconcile.terms_of("x--y.md") == ["x", "y"]


def test_applies_only_to_a_written_concept_outside_journal_and_structure():
    assert _reconcile.applies("Write", "learnings/search.md")
    assert not _reconcile.applies("Edit", "learnings/search.md")
    assert not _reconcile.applies("MultiEdit", "learnings/search.md")
    assert not _reconcile.applies("Write", "journal/2026-11-30.md")
    for name in ("index.md", "log.md", "board.md", "CLAUDE.md", "README.md"):
        assert not _reconcile.applies("Write", f"learnings/{name}")


def test_hits_exclude_self_and_structural_files_and_annotate_deprecated(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    new = ws / ".okf" / "learnings" / "search-board.md"
    new.write_text("---\ntype: Learning\ntitle: Search the board\ndescription: search board lines.\n---\n\nsearch\n")
    bundle = read_bundle(ws / ".okf")
    found = dict(_reconcile.hits(bundle, "learnings/search-board.md"))
    ids = [row["id"] for row in found["search"]]
    assert "learnings/search-board" not in ids
    assert len(ids) <= _reconcile.MAX_HITS
    assert all(not i.endswith(("index", "board", "log")) for rows in found.values() for i in (r["id"] for r in rows))
    text = _reconcile.reconcile(bundle, "Write", "learnings/search-board.md")
    assert text.startswith("RULE 1 — reconciliation.")
    assert "learnings/search-cache  [deprecated — this collision was already settled]  ·  Learning  ·  Search cache" in text
    assert _reconcile.reconcile(bundle, "Edit", "learnings/search-board.md") is None
