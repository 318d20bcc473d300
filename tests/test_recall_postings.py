"""Recall ranks from the index's postings in Python (okfpro/core/postings.py, okfpro/memory/postings.py):
every answer, unrounded scores included, is the one SQLite FTS5's own ``bm25()`` gives over the same
tokens (each document padded to one length: recall does not normalise by length, which is FTS5's
expression at ``D == avgdl``) -- an FTS5 table built here from the index's entries, the policy joined row by row,
:func:`okfpro.memory.ranking.with_neighbours`, :func:`order_key`, the limit -- for hidden,
superseded and expired memories, titles and bodies, prefixes that begin several terms, repeated
query words, entries written in one batch, appended later and written into past days; and the
index-free scan answers the same, unrounded scores included.  A torn or hand-edited index never answers wrong
text: recall falls back to the files."""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.core import postings as core_postings
from okfpro.core.scope import Scope
from okfpro.memory import index as memindex
from okfpro.memory import postings
from okfpro.memory.policy import change, remember
from okfpro.core.bm25 import PREFIX_MIN
from okfpro.memory.ranking import LENGTH_B, WEIGHTS, entry_fields, order_key, recall_terms, with_neighbours
from okfpro.memory.store import MemoryStore
from tests.helpers import examples

ALICE = Scope(tenant="acme", user="alice")
TODAY = dt.date(2026, 6, 1)
T0 = dt.datetime(2026, 5, 20, 9, 0, 0, tzinfo=dt.timezone.utc)
# how often each word is drawn: very common, common, rare, very rare; "note", "notebook" and "notes"
# share the prefix "note" (one phrase, several terms); "zoë" is not ASCII
COMMON, OFTEN, RARE, SELDOM = "common", ["often", "usual", "note"], ["rare", "notebook", "zoë"], ["seldom", "notes"]
WORDS = [COMMON, *OFTEN, *RARE, *SELDOM]
# FTS5 as the index held it until schema 7: each okfpro token is one token of this tokenizer
TOKENIZER = "ascii tokenchars '._-/:@#+_'"
PAD = "zzpad"  # a token no query phrase matches (what pads the oracle's documents to one length)


def entry_text(draw, i: int) -> str:
    words = [COMMON] if draw(st.integers(0, 9)) else []
    words += [w for w in OFTEN if draw(st.integers(0, 2)) == 0]
    words += [w for w in RARE if draw(st.integers(0, 12)) == 0]
    words += [w for w in SELDOM if draw(st.integers(0, 40)) == 0]
    if draw(st.integers(0, 5)) == 0:  # a long entry: the same words, the same score (recall does not normalise by length)
        words.append("filler " * draw(st.integers(5, 60)))
    if draw(st.integers(0, 7)) == 0:  # repetition: a higher one
        words = words * 3
    text = (" ".join(words) or "nothing") + f" item{i}"
    if draw(st.integers(0, 4)) == 0:  # a title line of its own: the title's words weigh more
        text = f"{draw(st.sampled_from(WORDS))} heading\n\n{text}"
    return text


@st.composite
def corpora(draw):
    n = draw(st.integers(8, 90))
    days = draw(st.integers(1, 4))
    rows = [(entry_text(draw, i), T0 + dt.timedelta(days=i % days, minutes=i)) for i in range(n)]
    later = [(entry_text(draw, n + i), T0 + dt.timedelta(days=draw(st.integers(-2, 5)), minutes=n + i))
             for i in range(draw(st.integers(0, 6)))]
    changes = draw(st.lists(st.tuples(st.sampled_from(["archive", "expire"]), st.integers(0, n - 1)), max_size=4))
    supersede = draw(st.lists(st.sampled_from([f"{COMMON} {RARE[0]} {OFTEN[0]} superseding",
                                               f"{SELDOM[0]} {COMMON} fresh"]), max_size=2))
    query = " ".join(draw(st.lists(st.sampled_from([*WORDS, "absent", "not", "no"]), min_size=2, max_size=5)))
    return rows, later, changes, supersede, query


@contextlib.contextmanager
def corpus_store(corpus):
    """A throwaway store holding a drawn corpus: one batch, entries appended one by one (some
    into past days), its changes and superseding memories."""
    rows, later, changes, supersede, _query = corpus
    base = Path(tempfile.mkdtemp(prefix="okfpro-postings-prop-"))
    try:
        store = MemoryStore(base / "mem", history=False)
        ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="corpus")
        assert err is None
        memindex.recall(store, ALICE, "common", TODAY.isoformat())  # the index exists: what follows appends
        for text, when in later:
            assert store.write_many(ALICE, [(text, when)], "user", actor="t", what="later")[2] is None
        for what, k in changes:
            change(store, ALICE, what, f"{ids[k]}", today=TODAY)
        for text in supersede:
            remember(store, ALICE, text, supersede=True, today=TODAY)
        yield store
    finally:
        shutil.rmtree(base, ignore_errors=True)


def match_phrases(tokens):
    """One FTS5 phrase per query token, a prefix query from ``PREFIX_MIN`` characters on (OR-ed)."""
    return [f'"{tok}"' + ("*" if len(tok) >= PREFIX_MIN else "") for tok in tokens]


def fts5_ranking(idx, query: str, today: str, include_hidden: bool, limit: int | None) -> list[tuple[str, float]]:
    """The ranking FTS5 gives: every entry's tokens in an FTS5 table (in memory), its ``bm25``
    scores of the query's phrases OR-ed, joined with the entries and records (the policy per row),
    neighbours and order in Python."""
    tokens = recall_terms(query)
    if not tokens:
        return []
    con = idx.con
    con.execute("PRAGMA temp_store = MEMORY")
    con.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.oracle USING fts5(title, body, tokenize=\"{TOKENIZER}\")")
    con.execute("DELETE FROM temp.oracle")
    docs = []
    for rid, title, text in con.execute("SELECT rid, title, text FROM entries WHERE change = 0").fetchall():
        fields = entry_fields(title, text)
        docs.append((rid, *idx._doc_terms(fields["title"], text)[:2]))
    # recall ranks without length normalisation (LENGTH_B = 0), FTS5 with b = 0.75: every document
    # padded to one length makes D / avgdl exactly 1.0, where both expressions are the same bits
    longest = max((len(t) + len(b) for _rid, t, b in docs), default=0) if LENGTH_B == 0.0 else 0
    for rid, title_terms, body_terms in docs:
        pad = [PAD] * max(0, longest - len(title_terms) - len(body_terms))
        con.execute("INSERT INTO temp.oracle (rowid, title, body) VALUES (?, ?, ?)",
                    (rid, " ".join(title_terms), " ".join(body_terms + pad)))
    where = "" if include_hidden else f"AND {idx._visible_sql()}"
    own, place = {}, {}
    for rid, score, date, seq in con.execute(
            f"SELECT oracle.rowid, -bm25(oracle, {WEIGHTS[0]!r}, {WEIGHTS[1]!r}), e.date, e.seq FROM temp.oracle "
            "JOIN entries e ON e.rid = oracle.rowid JOIN records r ON r.memory = e.memory AND r.scope = e.scope "
            f"WHERE oracle MATCH ? AND e.scope = ? AND e.change = 0 {where}",
            [" OR ".join(match_phrases(tokens)), idx.key] + ([] if include_hidden else [today])):
        own[rid], place[rid] = score, (date, seq)
    final = with_neighbours(own, place)
    ranked = sorted(final, key=lambda rid: order_key(final[rid], *place[rid]), reverse=True)
    return [(f"{idx.key}/{place[rid][0]}#{place[rid][1]}", final[rid]) for rid in ranked[:limit]]


def assert_ranks_as_fts5(store, query, limits):
    today = TODAY.isoformat()
    for hidden in (False, True):
        for limit in limits:
            with memindex.opened(store, "user", ALICE) as idx:
                assert idx is not None
                want = fts5_ranking(idx, query, today, hidden, limit)
                got = [(h.entry.id, h.score) for h in idx.search(query, today, hidden, limit)]
            assert got == want, (query, hidden, limit)
            files, _ = memindex.scan_recall(store, ALICE, query, today, hidden, limit)
            # the files' engine sums the same FTS5 terms (bm25.phrase_score) in the same order: the same bits
            assert [(h.entry.id, h.score) for h in files] == got, (query, hidden, limit)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=corpora(), limits=st.lists(st.one_of(st.none(), st.integers(1, 25)), min_size=1, max_size=4,
                                         unique=True))
def test_the_postings_rank_as_fts5_does(corpus, limits):
    with corpus_store(corpus) as store:
        assert_ranks_as_fts5(store, corpus[4], limits)


def test_the_dense_and_the_sparse_neighbour_sums_agree(monkeypatch, tmp_path):
    """core/postings sums the neighbours per match when few documents match and per document
    when many do: either way, the same answer (each forced in turn)."""
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [(f"entry {i}: {'kilo' if i % 10 == 3 else 'lima'} note number {i}",
             T0 + dt.timedelta(days=i // 20, seconds=i)) for i in range(300)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="bench")[2] is None
    for sparse in (1 << 30, 0):
        monkeypatch.setattr(core_postings, "SPARSE", sparse)
        for q in ("kilo note 42", "note kilo", "number 13 note", "lima"):
            assert_ranks_as_fts5(store, q, (None, 1, 3, 10))


def test_entries_appended_one_by_one_link_to_their_neighbours(tmp_path):
    """Each write appends to the index: a new entry's neighbour already indexed (the one before it
    in its day file, or after it when the write lands in a past day) gains it as a neighbour too."""
    store = MemoryStore(tmp_path / "mem", history=False)
    assert store.write_many(ALICE, [("seed kilo", T0)], "user", actor="t", what="seed")[2] is None
    memindex.recall(store, ALICE, "kilo", TODAY.isoformat())  # the index exists from here on
    for i in range(1, 24):
        when = T0 + dt.timedelta(days=(i * 5) % 3 - 1, minutes=i)  # today, yesterday, tomorrow
        text = f"{'kilo' if i % 4 == 0 else 'lima'} note {'long ' * (i % 5)}item{i}"
        assert store.write_many(ALICE, [(text, when)], "user", actor="t", what="one")[2] is None
    with memindex.opened(store, "user", ALICE) as idx:
        assert idx is not None
        rids, prev, nxt, _tokens = postings.docmap(idx.con)
        before = [prev.get(o, o - 1) for o in range(len(rids))]
        after = [nxt.get(o, o + 1 if o + 1 < len(rids) else -1) for o in range(len(rids))]
        assert sorted((p, o) for o, p in enumerate(before) if p >= 0) == sorted(
            (o, n) for o, n in enumerate(after) if n >= 0)  # each link seen from both sides
        assert sum(1 for p in before if p >= 0) > 15
        assert all(rids[p] == rids[o] - 1 for o, p in enumerate(before) if p >= 0)
    for query in ("kilo", "kilo note", "lima long"):
        assert_ranks_as_fts5(store, query, (None, 1, 3))


def test_ties_and_expiry_rank_as_fts5_does(tmp_path):
    """Equal scores (same words, same length) order newest first; an entry whose validity ended
    before today is hidden, and so is its share of its neighbours' scores."""
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [(f"same words here {'rare' if i % 7 == 3 else 'plain'}", T0 + dt.timedelta(days=i // 6, minutes=i))
            for i in range(40)]
    ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="ties")
    assert err is None
    remember(store, ALICE, "rare words expire soon", valid_until="2026-05-30", today=dt.date(2026, 5, 1))
    change(store, ALICE, "archive", ids[10], today=TODAY)
    for query in ("same words", "rare words", "plain rare", "expire", "same same words"):
        assert_ranks_as_fts5(store, query, (None, 1, 3, 10))


def test_a_prefix_that_begins_several_terms_counts_them_all(tmp_path):
    """``note`` begins ``note``, ``notebook`` and ``notebooks``: one phrase whose instances are
    all of theirs (a document holding two of them counts both), its idf from the documents
    holding any; ``zzz`` begins none; ``ledg`` one."""
    store = MemoryStore(tmp_path / "mem", history=False)
    words = ["notebook ledger", "notebooks note", "note cache", "ledger cache", "cache only", "zebra note ledger"]
    rows = [(f"{words[i % 6]} entry {i}", T0 + dt.timedelta(days=i // 5, minutes=i)) for i in range(60)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="prefixes")[2] is None
    for query in ("cach", "ledg zebra", "note cach", "notebook ledg", "cach note notebook ledg zzz", "zzz"):
        assert_ranks_as_fts5(store, query, (None, 1, 3, 10))
    with memindex.opened(store, "user", ALICE) as idx:
        ords = [o for _code, group in postings.phrase(idx.con, "note") for o in group]
        assert len(ords) == len(set(ords)) == 40
        assert postings.phrase(idx.con, "zzz") == []
        assert sum(len(group) for _code, group in postings.phrase(idx.con, "ledg")) == 30


_EDGE_CHARS = "ab\u00e9\ud7ff\ue000\uffff\U00010000\U0010fffe\U0010ffff"


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text(_EDGE_CHARS, min_size=1, max_size=5), min_size=1, max_size=25),
       st.text(_EDGE_CHARS, min_size=1, max_size=4))
def test_a_term_range_finds_exactly_the_terms_a_token_matches(terms, token):
    """The SQL condition of :func:`okfpro.core.postings.term_range` (shared by memory's and the
    bundle's postings) over a real SQLite table: the token itself below PREFIX_MIN characters,
    else every term it begins — with characters next to the surrogates and at the last code
    point, where the upper bound moves or goes."""
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (term TEXT PRIMARY KEY) WITHOUT ROWID")
    con.executemany("INSERT OR IGNORE INTO t VALUES (?)", [(t,) for t in terms])
    where, args = core_postings.term_range(token)
    got = {t for (t,) in con.execute(f"SELECT term FROM t WHERE {where}", args)}
    if len(token) < PREFIX_MIN:
        assert got == {t for t in terms if t == token}
    else:  # open above (after U+10FFFF) too: narrowed by the prefix in SQL
        assert got == {t for t in terms if t.startswith(token)}
    con.close()


def test_a_prefix_ending_in_the_last_code_point_is_still_found(tmp_path):
    """No successor: the range is open above and the terms are filtered by their prefix."""
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [("x\U0010ffff\U0010ffff tail", T0), ("x\U0010ffff other", T0 + dt.timedelta(minutes=1)),
            ("y plain", T0 + dt.timedelta(minutes=2))]
    assert store.write_many(ALICE, rows, "user", actor="t", what="edge")[2] is None
    got, _ = memindex.recall(store, ALICE, "x\U0010ffff", TODAY.isoformat())
    files, _ = memindex.scan_recall(store, ALICE, "x\U0010ffff", TODAY.isoformat())
    assert [h.entry.id for h in got] == [h.entry.id for h in files] and len(got) == 2


def test_row_ids_order_as_day_and_place():
    days = ["1999-12-31", "2026-01-09", "2026-01-10", "2026-10-01"]
    keys = [(d, s) for d in days for s in (1, 2, 3, 99, (1 << 32) - 1)]
    assert sorted(keys, key=lambda k: memindex.place(*k)) == sorted(keys)
    assert memindex.place("2026-01-09", 5) + 1 == memindex.place("2026-01-09", 6)
    for seq in (0, 1 << 32):
        with pytest.raises(ValueError):
            memindex.place("2026-01-09", seq)


def test_a_code_holds_its_fields_and_refuses_what_it_cannot():
    c = core_postings.code(3, 7, 2_000_000)
    assert (c >> 42, (c >> 21) & core_postings.FIELD_MAX, c & core_postings.FIELD_MAX) == (3, 7, 2_000_000)
    with pytest.raises(ValueError):
        core_postings.code(0, 1, core_postings.FIELD_MAX + 1)
    length, codes = core_postings.document(["a", "b"], ["a", "a", "c"])
    assert length == 5 and codes == {"a": core_postings.code(1, 2, 5), "b": core_postings.code(1, 0, 5),
                                     "c": core_postings.code(0, 1, 5)}


@pytest.mark.parametrize("damage", [
    "UPDATE docmap SET rids = substr(rids, 1, 8)",  # torn: fewer row ids than neighbours
    "UPDATE postings SET ords = x'ffffff7f' || substr(ords, 5)",  # an ordinal past the documents
    "UPDATE docmap SET prev = x'0100000000000000'",  # half a pair
    "UPDATE docmap SET next = x'0100000000000000ff00000000000000'",  # a neighbour past the documents
    "UPDATE docmap SET prev = x'ff'",
    "DELETE FROM docmap",
])
def test_a_damaged_postings_table_falls_back_to_the_files(tmp_path, damage):
    """A hand-edited or torn index is not trusted: the answer is the files' (the index is dropped
    and rebuilt by the next reader)."""
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [(f"entry {i} about {'kilo' if i % 3 else 'lima'}", T0 + dt.timedelta(minutes=i)) for i in range(30)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="damage")[2] is None
    want, _ = memindex.scan_recall(store, ALICE, "kilo lima", TODAY.isoformat(), limit=10)
    with memindex.opened(store, "user", ALICE) as idx:
        assert idx is not None
        path = idx.path
    con = sqlite3.connect(path)
    con.execute(damage)
    con.commit()
    con.close()
    got, _ = memindex.recall(store, ALICE, "kilo lima", TODAY.isoformat(), limit=10)
    assert [(h.entry.id, round(h.score, 4)) for h in got] == [(h.entry.id, round(h.score, 4)) for h in want]
