"""The ranked engine's FTS5 index trusts the parse cache's file identities (okfpro/io/fts.py
``_sync`` stamps): an unchanged file is not digested again, an edited one is re-indexed, and the
rows are the pure engine's either way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from okfpro.core import bm25
from okfpro.io import cache, fts
from okfpro.io.reader import read_bundle

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel".split()


@pytest.fixture()
def tree(tmp_path, monkeypatch):
    if not fts.available():
        pytest.skip("SQLite without FTS5")
    monkeypatch.setattr(cache, "RACY_NS", -1)  # every file counts as settled: its identity is vouched
    (tmp_path / "okfpro.toml").write_text("")
    root = tmp_path / ".okf"
    root.mkdir()
    (root / "index.md").write_text("# Root\n")
    for i in range(30):
        (root / f"n{i:02d}.md").write_text(f"---\ntype: Note\ntitle: Note {WORDS[i % 8]} {i}\n---\n\n"
                                           f"{WORDS[(i * 3) % 8]} {WORDS[(i * 5) % 8]} body {i}\n")
    return root


def digests(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = fts._digest

    def spy(view):
        seen.append(view.id)
        return real(view)

    monkeypatch.setattr(fts, "_digest", spy)
    return seen


def ranked(root: Path, bundle, query: str = "alpha echo body"):
    return fts.rank_indexed(root, bundle, query, 10)


def test_unchanged_files_are_not_digested_again(tree, monkeypatch):
    first = ranked(tree, cache.load_bundle(tree))
    seen = digests(monkeypatch)
    bundle = cache.load_bundle(tree)
    again = ranked(tree, bundle)
    assert seen == [] and again == first == bm25.rank_docs(bundle, "alpha echo body", 10)


def test_an_edited_file_is_digested_and_reindexed(tree, monkeypatch):
    ranked(tree, cache.load_bundle(tree))
    seen = digests(monkeypatch)
    path = tree / "n03.md"
    st = path.stat()
    text = path.read_text()
    path.write_text(text.replace("title: Note delta 3", "title: Note alpha 3"))  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime: the ctime still moves
    bundle = cache.load_bundle(tree)
    got = ranked(tree, bundle)
    assert seen == ["n03"]
    assert got == bm25.rank_docs(bundle, "alpha echo body", 10)
    assert "n03" in [row["id"] for row in ranked(tree, bundle, "alpha")]


def test_a_bundle_the_cache_did_not_vouch_for_is_digested_whole(tree, monkeypatch):
    ranked(tree, cache.load_bundle(tree))
    seen = digests(monkeypatch)
    bundle = read_bundle(tree)  # no parse cache: no identities
    assert ranked(tree, bundle) == bm25.rank_docs(bundle, "alpha echo body", 10)
    assert len(seen) == len(bundle.concepts)


def test_a_racy_file_is_never_trusted_by_its_identity(tree, monkeypatch):
    monkeypatch.setattr(cache, "RACY_NS", 10**19)  # every file just written: nothing vouched
    ranked(tree, cache.load_bundle(tree))
    seen = digests(monkeypatch)
    bundle = cache.load_bundle(tree)
    assert ranked(tree, bundle) == bm25.rank_docs(bundle, "alpha echo body", 10)
    assert len(seen) == len(bundle.concepts)


def test_a_touched_file_is_digested_once_then_trusted_again(tree, monkeypatch):
    ranked(tree, cache.load_bundle(tree))
    seen = digests(monkeypatch)
    os.utime(tree / "n05.md")  # same text, a new identity
    ranked(tree, cache.load_bundle(tree))
    assert seen == ["n05"]  # same digest: the row stays, its identity is renewed
    ranked(tree, cache.load_bundle(tree))
    assert seen == ["n05"]
