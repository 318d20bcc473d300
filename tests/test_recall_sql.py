"""Recall ranks in one SQL statement (okfpro/memory/index.py ``ScopeIndex._ranked``): the answer,
unrounded scores included, is the one the Python ranking gives over the same FTS5 scores -- the
policy joined row by row, :func:`okfpro.memory.ranking.with_neighbours`, :func:`order_key`, the
limit -- for hidden, superseded and expired memories, several days, limits 1-25 and none, with
the common-word pruning on (its own exactness: tests/test_recall_pruning.py).  And the row ids
that make the neighbours ``rid +- 1`` (:func:`okfpro.memory.index.place`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.memory import index as memindex
from okfpro.memory.policy import change, remember
from okfpro.memory.ranking import WEIGHTS, match_phrases, order_key, recall_terms, with_neighbours
from okfpro.memory.store import MemoryStore
from tests.helpers import examples
from tests.test_recall_pruning import ALICE, TODAY, corpora, corpus_store


def python_ranking(idx, query: str, today: str, include_hidden: bool, limit: int | None) -> list[tuple[str, float]]:
    """The ranking as it was computed before the one statement: every matched row's FTS5 score
    joined with its entry and record (the policy per row), neighbours and order in Python."""
    tokens = recall_terms(query)
    if not tokens:
        return []
    where = "" if include_hidden else f"AND {idx._visible_sql()}"
    own, place = {}, {}
    for rid, score, date, seq in idx.con.execute(
            f"SELECT docs.rowid, -bm25(docs, {WEIGHTS[0]!r}, {WEIGHTS[1]!r}), e.date, e.seq FROM docs "
            "JOIN entries e ON e.rid = docs.rowid JOIN records r ON r.memory = e.memory AND r.scope = e.scope "
            f"WHERE docs MATCH ? AND e.scope = ? AND e.change = 0 {where}",
            [" OR ".join(match_phrases(tokens)), idx.key] + ([] if include_hidden else [today])):
        own[rid], place[rid] = score, (date, seq)
    final = with_neighbours(own, place)
    ranked = sorted(final, key=lambda rid: order_key(final[rid], *place[rid]), reverse=True)
    return [(f"{idx.key}/{place[rid][0]}#{place[rid][1]}", final[rid]) for rid in ranked[:limit]]


def assert_one_statement_is_the_python_ranking(store, query, limits):
    today = TODAY.isoformat()
    for hidden in (False, True):
        for limit in limits:
            with memindex.opened(store, "user", ALICE) as idx:
                assert idx is not None
                want = python_ranking(idx, query, today, hidden, limit)
                got = [(h.entry.id, h.score) for h in idx.search(query, today, hidden, limit)]
            assert got == want, (query, hidden, limit)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora(), limits=st.lists(st.one_of(st.none(), st.integers(1, 25)), min_size=1, max_size=4,
                                         unique=True))
def test_the_statement_ranks_as_python_did(corpus, limits):
    with corpus_store(corpus) as store:
        assert_one_statement_is_the_python_ranking(store, corpus[3], limits)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora(), limits=st.lists(st.integers(1, 25), min_size=1, max_size=4, unique=True))
def test_two_spans_of_days_scored_at_once_rank_as_python_did(corpus, limits):
    """Every search split over two connections at a day (``ranksql.SPLIT_AT`` 0): the same answer,
    unrounded scores included; the split did happen whenever the corpus spans two days."""
    from okfpro.io import threads
    from okfpro.memory import ranksql

    with pytest.MonkeyPatch.context() as m, corpus_store(corpus) as store:
        m.setattr(ranksql, "SPLIT_AT", 0)
        m.setattr(threads, "spare_core", lambda: True)
        cuts = []
        real = ranksql._cut
        m.setattr(ranksql, "_cut", lambda con: cuts.append(real(con)) or cuts[-1])
        assert_one_statement_is_the_python_ranking(store, corpus[3], limits)
        with memindex.opened(store, "user", ALICE) as idx:
            assert idx is not None
            days = idx.con.execute("SELECT count(DISTINCT date) FROM entries").fetchone()[0]
        assert all((c is not None) == (days > 1) for c in cuts), (cuts, days)  # none: nothing matched


def test_a_search_over_several_days_is_split(tmp_path, monkeypatch):
    """With a limit, enough matched rows and a spare core the ranking is scored in two spans (the
    second connection is opened); without a spare core, or without a limit, in one."""
    import datetime as dt

    from okfpro.io import threads
    from okfpro.memory import ranksql

    store = MemoryStore(tmp_path / "mem", history=False)
    t0 = dt.datetime(2026, 5, 20, 9, tzinfo=dt.timezone.utc)
    rows = [(f"same words here {'rare' if i % 7 == 3 else 'plain'}", t0 + dt.timedelta(days=i // 6, minutes=i))
            for i in range(40)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="days")[2] is None
    monkeypatch.setattr(ranksql, "SPLIT_AT", 30)
    for spare, limit, split in ((True, 5, True), (False, 5, False), (True, None, False)):
        monkeypatch.setattr(threads, "spare_core", lambda: spare)  # noqa: B023 - used in this round
        with memindex.opened(store, "user", ALICE) as idx:
            assert idx is not None
            hits = idx.search("same words", TODAY.isoformat(), False, limit)
            assert (idx.twin is not None) == split and len(hits) == (limit or 40)
    assert_one_statement_is_the_python_ranking(store, "same words", (1, 5, 12))


def test_the_split_is_between_whole_days():
    """_cut: a row id at a day's start, above the first day and at or below the last one."""
    import sqlite3

    from okfpro.memory import ranksql

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE entries (rid INTEGER PRIMARY KEY)")
    assert ranksql._cut(con) is None
    con.executemany("INSERT INTO entries VALUES (?)", [(memindex.place("2026-01-09", s),) for s in (1, 2, 3)])
    assert ranksql._cut(con) is None  # one day
    for last in ("2026-01-10", "2026-01-11", "2026-03-01", "2027-01-01"):
        con.execute("INSERT OR REPLACE INTO entries VALUES (?)", (memindex.place(last, 7),))
        cut = ranksql._cut(con)
        assert cut is not None and cut & 0xFFFFFFFF == 0
        assert memindex.place("2026-01-09", 3) < cut <= memindex.place(last, 1), last
        con.execute("DELETE FROM entries WHERE rid = ?", (memindex.place(last, 7),))
    con.execute("DELETE FROM entries")  # the middle entry's day: 30 entries on 2026-02-01, 10 before, 10 after
    con.executemany("INSERT INTO entries VALUES (?)", [(memindex.place(d, s),) for d, n in (
        ("2025-01-01", 10), ("2026-02-01", 30), ("2026-11-30", 10)) for s in range(1, n + 1)])
    assert ranksql._cut(con) == memindex.place("2026-02-01", 1) - 1


def test_ties_and_expiry_rank_as_python_did(tmp_path):
    """Equal scores (same words, same length) order newest first; an entry whose validity ended
    before today is hidden, and so is its share of its neighbours' scores."""
    import datetime as dt

    store = MemoryStore(tmp_path / "mem", history=False)
    t0 = dt.datetime(2026, 5, 20, 9, tzinfo=dt.timezone.utc)
    rows = [(f"same words here {'rare' if i % 7 == 3 else 'plain'}", t0 + dt.timedelta(days=i // 6, minutes=i))
            for i in range(40)]
    ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="ties")
    assert err is None
    remember(store, ALICE, "rare words expire soon", valid_until="2026-05-30", today=dt.date(2026, 5, 1))
    change(store, ALICE, "archive", ids[10], today=TODAY)
    for query in ("same words", "rare words", "plain rare", "expire"):
        assert_one_statement_is_the_python_ranking(store, query, (None, 1, 3, 10))


def test_row_ids_order_as_day_and_place():
    days = ["1999-12-31", "2026-01-09", "2026-01-10", "2026-10-01"]
    keys = [(d, s) for d in days for s in (1, 2, 3, 99, (1 << 32) - 1)]
    assert sorted(keys, key=lambda k: memindex.place(*k)) == sorted(keys)
    assert memindex.place("2026-01-09", 5) + 1 == memindex.place("2026-01-09", 6)
    for seq in (0, 1 << 32):
        with pytest.raises(ValueError):
            memindex.place("2026-01-09", seq)


def test_a_prefix_that_begins_one_term_is_scored_as_that_term(tmp_path, monkeypatch):
    """ranksql.counted: a prefix phrase whose prefix begins exactly one indexed term becomes that
    term's phrase (FTS5's prefix merge saved); one that begins two stays a prefix; one that begins
    none counts 0.  Every count is the prefix phrase's own ``count(*)``, and the answer, unrounded
    scores included, is the one the prefix phrases give."""
    import datetime as dt

    from okfpro.memory import ranksql

    store = MemoryStore(tmp_path / "mem", history=False)
    t0 = dt.datetime(2026, 5, 20, 9, tzinfo=dt.timezone.utc)
    words = ["notebook ledger", "notebooks note", "note cache", "ledger cache", "cache only", "zebra note ledger"]
    rows = [(f"{words[i % 6]} entry {i}", t0 + dt.timedelta(days=i // 5, minutes=i)) for i in range(60)]
    _ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="prefixes")
    assert err is None
    today = TODAY.isoformat()
    with memindex.opened(store, "user", ALICE) as idx:
        assert idx is not None
        tokens = recall_terms("cach note notebook ledg zzz")
        phrases = match_phrases(tokens)
        got, counts = ranksql.counted(idx.con, tokens, phrases)
        assert counts == [idx.con.execute("SELECT count(*) FROM docs WHERE docs MATCH ?", (p,)).fetchone()[0]
                          for p in phrases]
        by = dict(zip(tokens, got))
        assert by["cach"] == '"cach"' and by["ledg"] == '"ledger"'  # one term each: exact
        assert by["note"] == '"note"*'  # note and notebook: stays a prefix
        assert by["zzz"] == '"zzz"*' and counts[tokens.index("zzz")] == 0
        for query in ("cach", "ledg zebra", "note cach", "notebook ledg", "cach note notebook ledg zzz"):
            for limit in (None, 1, 3, 10):
                want = [(h.entry.id, h.score) for h in idx.search(query, today, False, limit)]
                with monkeypatch.context() as m:  # every phrase counted and scored as a prefix, as before
                    m.setattr(ranksql, "_successor", lambda char: None)
                    before = [(h.entry.id, h.score) for h in idx.search(query, today, False, limit)]
                assert want == before, (query, limit)
    assert ranksql._successor("\U0010ffff") is None and ranksql._successor("\ud7ff") is None
    assert ranksql._successor("a") == "b"
