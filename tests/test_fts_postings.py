"""The bundle index's postings (okfpro/io/ftsquery.py, okfpro/core/bundlepostings.py).

What they must be after any run of edits is what a fresh build of the same bundle writes (a sync
only rewrites the arrays of the terms an edited concept held or holds); what they rank is what the
pure engine ranks (tests/test_fts_tokens.py draws bundles for that); a torn row is rebuilt, never
an error; and the pure helpers keep their bounds.
"""

from __future__ import annotations

import sqlite3
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.core import bm25, bundlepostings
from okfpro.core.postings import merge_codes
from okfpro.io import cache, fts, ftsquery
from tests.helpers import examples

pytestmark = pytest.mark.skipif(not fts.available(), reason="SQLite without FTS5")

_WORDS = ["cache", "caching", "cached", "ledger", "release", "zebra", "tenant_id", "straße", "x"]


def _postings_by_path(con: sqlite3.Connection) -> dict[str, list[tuple[str, int]]]:
    """term -> sorted (path, code): the postings with each rowid read as the file it indexes."""
    paths = dict(con.execute("SELECT rid, path FROM files"))
    out: dict[str, list[tuple[str, int]]] = {}
    for term, chunk, rids, codes in con.execute("SELECT term, chunk, rids, codes FROM postings"):  # chunks, joined
        a, c = ftsquery._arrays(rids, codes)
        assert a and {r >> ftsquery.CHUNK_BITS for r in a} == {chunk}, (term, chunk, list(a))  # each in its own chunk
        out.setdefault(term, []).extend((paths[r], k) for r, k in zip(a, c))
    return {term: sorted(postings) for term, postings in out.items()}


def test_many_new_concepts_in_one_sync_split_into_chunks_and_leave_them_one_by_one(tmp_path, monkeypatch):
    """Ten concepts indexed at once with chunks of two row ids, then each rewritten or deleted in
    turn: every row keeps only its own chunk's row ids, and the postings are a fresh build's."""
    monkeypatch.setattr(ftsquery, "CHUNK_BITS", 1)
    root, _ = _indexed(tmp_path, monkeypatch, n=10)
    for i in range(10):
        if i % 3:
            (root / f"n{i}.md").write_text(_note(["ledger", "zebra", f"edit{i}"]))
        else:
            (root / f"n{i}.md").unlink()
        bundle = cache.load_bundle(root)
        assert fts.rank_bundle(root, bundle, "ledger zebra", 10) == bm25.rank_docs(bundle, "ledger zebra", 10)
        con = sqlite3.connect(fts.db_path(root))
        assert _postings_by_path(con) == _fresh_build(root), i
        con.close()


def _fresh_build(root: Path) -> dict[str, list[tuple[str, int]]]:
    bundle = cache.load_bundle(root)
    con = fts._connect(None)
    fts._ensure(con, "/fresh")
    fts._sync(con, [fts._search._View(c) for c in bundle.concepts], [c.path for c in bundle.concepts])
    got = _postings_by_path(con)
    con.close()
    return got


def _note(words: list[str]) -> str:
    title = " ".join(words[:2]) or "untitled"
    return f"---\ntitle: {title}\ndescription: {' '.join(words[2:4])}\n---\n\n{' '.join(words)}\n"


_op = st.tuples(st.sampled_from(["write", "write", "delete", "rename"]), st.integers(0, 7),
                st.lists(st.sampled_from(_WORDS), max_size=12))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])
@given(st.lists(_op, min_size=1, max_size=12), st.sampled_from([ftsquery.CHUNK_BITS, 0, 1, 2]))
def test_after_any_run_of_edits_the_postings_are_what_a_fresh_build_writes(tmp_path_factory, monkeypatch, ops, bits):
    """Files written, rewritten (the same text too), deleted and renamed, the index synced after
    each step: its postings equal a fresh build's, read by path, and its answers the pure engine's
    — with a term's postings in chunks of 4,096 row ids and in chunks of 1, 2 and 4 (many per term)."""
    monkeypatch.setattr(cache, "RACY_NS", -1)
    monkeypatch.setattr(ftsquery, "CHUNK_BITS", bits)
    ws = tmp_path_factory.mktemp("postings")
    (ws / "okfpro.toml").write_text("")
    root = ws / ".okf"
    root.mkdir()
    (root / "seed.md").write_text(_note(["cache", "ledger"]))
    for kind, k, words in ops:
        path = root / f"n{k}.md"
        if kind == "write":
            path.write_text(_note(words))
        elif kind == "delete" and path.exists():
            path.unlink()
        elif kind == "rename" and path.exists():
            path.rename(root / f"n{(k + 3) % 8}.md")
        bundle = cache.load_bundle(root)
        for query in ("cach", "ledger zebra", "x"):
            assert fts.rank_bundle(root, bundle, query, 5) == bm25.rank_docs(bundle, query, 5), (ops, query)
        con = sqlite3.connect(fts.db_path(root))
        assert _postings_by_path(con) == _fresh_build(root), ops
        con.close()


def _indexed(tmp_path: Path, monkeypatch, n: int = 6) -> tuple[Path, object]:
    monkeypatch.setattr(cache, "RACY_NS", -1)
    (tmp_path / "okfpro.toml").write_text("")
    root = tmp_path / ".okf"
    root.mkdir()
    for i in range(n):
        (root / f"n{i}.md").write_text(_note(["cache", "ledger", f"word{i}"] + ["zebra"] * (i % 3)))
    bundle = cache.load_bundle(root)
    fts.rank_bundle(root, bundle, "cache", 3)
    return root, bundle


def test_a_stale_row_whose_text_is_gone_has_its_postings_rebuilt(tmp_path, monkeypatch):
    """The sync takes an edited concept's postings out by the terms of its stored text; with that
    text deleted by hand it cannot, and builds every posting again from the rows left."""
    root, _ = _indexed(tmp_path, monkeypatch)
    con = sqlite3.connect(fts.db_path(root))
    rid = con.execute("SELECT rid FROM files WHERE path = 'n2.md'").fetchone()[0]
    con.execute("DELETE FROM docs WHERE rowid = ?", (rid,))
    con.commit()
    con.close()
    (root / "n2.md").write_text(_note(["release", "zebra"]))
    bundle = cache.load_bundle(root)
    assert fts.rank_bundle(root, bundle, "zebra", 10) == bm25.rank_docs(bundle, "zebra", 10)
    con = sqlite3.connect(fts.db_path(root))
    assert _postings_by_path(con) == _fresh_build(root)
    con.close()


@pytest.mark.parametrize("tear", ["short", "garbage"])
def test_a_torn_posting_row_answers_from_the_pure_engine_and_is_rebuilt(tmp_path, monkeypatch, tear):
    root, bundle = _indexed(tmp_path, monkeypatch)
    con = sqlite3.connect(fts.db_path(root))
    rids, codes = con.execute("SELECT rids, codes FROM postings WHERE term = 'cach'").fetchone()
    torn = (rids[:-4], codes) if tear == "short" else (b"\x01\x02\x03", b"\x00" * 5)
    con.execute("UPDATE postings SET rids = ?, codes = ? WHERE term = 'cach'", torn)
    con.commit()
    con.close()
    assert fts.answer_fresh(root, "ledger", 4) is not None  # the index is fresh; this phrase's row is whole
    assert fts.answer_fresh(root, "cache ledger", 4) is None  # the prompt hook reads the bundle instead
    fresh = cache.load_bundle(root)
    want = bm25.rank_docs(fresh, "cache ledger", 4)
    assert fts.rank_bundle(root, fresh, "cache ledger", 4) == want
    assert fts.answer_fresh(root, "cache ledger", 4) is None  # no index now: the hook reads the bundle
    again = cache.load_bundle(root)
    assert fts.rank_bundle(root, again, "cache ledger", 4) == want  # rebuilt
    con = sqlite3.connect(fts.db_path(root))
    assert _postings_by_path(con) == _fresh_build(root)
    con.close()


def test_a_removed_posting_that_is_not_there_is_passed_over(tmp_path, monkeypatch):
    """update() asked to take out a rowid its term does not hold (an index out of step) leaves the rest."""
    root, _ = _indexed(tmp_path, monkeypatch)
    con = fts._connect(fts.db_path(root))
    before = _postings_by_path(con)
    con.execute("BEGIN IMMEDIATE")
    ftsquery.update(con, {"cach": {99999}, "ledger": {99998, 99997}}, {}, fresh=False)
    con.execute("COMMIT")
    assert _postings_by_path(con) == before
    con.close()


def test_codes_hold_the_weighted_count_and_the_length():
    length, codes = bundlepostings.document([["cache", "ledger"], [], ["cache"], [], [], [], ["cache"] * 3],
                                            ftsquery.WEIGHTS)
    w = ftsquery.WEIGHTS
    assert length == 6
    assert codes["cache"] == bundlepostings.code(w[0] + w[2] + 3 * w[6], 6)
    assert codes["ledger"] >> bundlepostings.LEN_BITS == w[0] and codes["ledger"] & bundlepostings.LEN_MASK == 6
    assert bundlepostings.code(bundlepostings.F_MAX, bundlepostings.LEN_MASK) > 0
    for bad in ((bundlepostings.F_MAX + 1, 1), (1, bundlepostings.LEN_MASK + 1), (-1, 1)):
        with pytest.raises(ValueError):
            bundlepostings.code(*bad)


def test_a_prefix_merges_its_terms_counts_per_concept():
    c = bundlepostings.code
    merged = merge_codes([(1, c(5, 10)), (2, c(1, 7)), (1, c(2, 10)), (3, c(4, 3)), (2, c(3, 7))],
                         bundlepostings.COUNT_MASK)
    assert merged == {1: c(7, 10), 2: c(4, 7), 3: c(4, 3)}


def test_first_orders_by_the_rounded_score_then_the_tie_order():
    found = {10: 1.00004, 11: 1.0, 12: 0.99996, 13: 2.0, 14: 0.5, 15: 3.0}
    rank = {10: 4, 11: 2, 12: 3, 13: 9, 14: 0}  # 15: a row of another reading, never shown
    assert bundlepostings.first(found, None, rank) == [(13, 2.0), (11, 1.0), (12, 0.99996), (10, 1.00004), (14, 0.5)]
    assert bundlepostings.first(found, 2, rank) == [(13, 2.0), (11, 1.0)]
    assert bundlepostings.first(found, 3, rank) == [(13, 2.0), (11, 1.0), (12, 0.99996)]
    assert bundlepostings.first(found, 0, rank) == []
    assert bundlepostings.first({}, 3, rank) == []


def test_the_arrays_are_read_in_the_byte_order_the_schema_names():
    assert fts._schema().endswith("/" + ftsquery.BYTE_ORDER)
    rids, codes = ftsquery._arrays(array("i", [1, 2]).tobytes(), array("q", [3, 4]).tobytes())
    assert list(rids) == [1, 2] and list(codes) == [3, 4]
    with pytest.raises(ValueError):
        ftsquery._arrays(array("i", [1, 2]).tobytes(), array("q", [3]).tobytes())


def test_processes_syncing_at_once_after_edits_leave_the_postings_a_fresh_build_writes(tmp_path, monkeypatch):
    """Four real `okfpro search --engine ranked` processes at once, after each round of edits
    (rewrites, a deletion, a new file): one sync wins the write lock, the others wait or answer from
    memory; every answer is the pure engine's, and the postings end as a fresh build's."""
    import os
    import subprocess
    import sys

    root, _ = _indexed(tmp_path, monkeypatch, n=40)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    env.pop("OKFPRO_RANKED", None)
    cmd = [sys.executable, "-m", "okfpro", "search", "--engine", "ranked", "--json", "--limit", "7",
           "--bundle", str(root), "cache", "zebra", "release"]
    for r in range(3):
        for i in range(r, 40, 7):
            (root / f"n{i}.md").write_text(_note(["release", f"round{r}"] + ["zebra"] * ((i + r) % 4) + ["cache"] * (i % 2)))
        (root / f"n{r * 11}.md").unlink(missing_ok=True)
        (root / f"new{r}.md").write_text(_note(["cache", "release", "release"]))
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(4)]
        outs = [p.communicate() for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
        pure = subprocess.run(cmd, capture_output=True, env={**env, "OKFPRO_RANKED": "pure"}, check=True).stdout
        assert {o for o, _ in outs} == {pure}, r
    con = sqlite3.connect(fts.db_path(root))
    assert _postings_by_path(con) == _fresh_build(root)
    con.close()
