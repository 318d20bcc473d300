"""Recall's common-word pruning (okfpro/core/maxscore.py, ScopeIndex._pruned) answers byte for byte
what the unpruned ranking and the index-free scan answer: hidden and superseded memories, limits
1-25, ties, neighbours holding only common words."""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from okfpro.core import maxscore
from okfpro.core.scope import Scope
from okfpro.memory import index as memindex
from okfpro.memory.policy import change, remember
from okfpro.memory.store import MemoryStore
from tests.helpers import examples

ALICE = Scope(tenant="acme", user="alice")
TODAY = dt.date(2026, 6, 1)
T0 = dt.datetime(2026, 5, 20, 9, 0, 0, tzinfo=dt.timezone.utc)
# how often each word is drawn: very common, common, rare, very rare
COMMON, OFTEN, RARE, SELDOM = "common", ["often", "usual"], ["rare", "scarce"], ["seldom", "unique"]


def shown(hits):
    return [(h.entry.id, h.status, round(h.score, 4), h.score, h.record.id, h.entry.text) for h in hits]


def unpruned(store, scope, q, hidden, limit, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(memindex.ScopeIndex, "_pruned", lambda *a, **k: None)
        return memindex.recall(store, scope, q, TODAY.isoformat(), hidden, limit)[0]


class Spy:
    """Counts the pruned answers that were returned (the bound held) and the tries."""

    def __init__(self, m, always_try: bool) -> None:
        self.kept = self.tried = 0
        real = maxscore.beats

        def beats(theta, bound):
            self.tried += 1
            ok = real(theta, bound)
            self.kept += ok
            return ok

        m.setattr(maxscore, "beats", beats)
        if always_try:  # the guess of worth() only saves a query: exactness must not rest on it
            m.setattr(maxscore, "worth", lambda *a: True)


def entry_text(draw, i: int) -> str:
    words = [COMMON] if draw(st.integers(0, 9)) else []
    words += [w for w in OFTEN if draw(st.integers(0, 2)) == 0]
    words += [w for w in RARE if draw(st.integers(0, 12)) == 0]
    words += [w for w in SELDOM if draw(st.integers(0, 40)) == 0]
    if draw(st.integers(0, 5)) == 0:  # a long entry: a lower score for the same words
        words.append("filler " * draw(st.integers(5, 60)))
    if draw(st.integers(0, 7)) == 0:  # repetition: a higher one
        words = words * 3
    return (" ".join(words) or "nothing") + f" item{i}"


@st.composite
def corpora(draw):
    n = draw(st.integers(8, 90))
    days = draw(st.integers(1, 4))
    rows = [(entry_text(draw, i), T0 + dt.timedelta(days=i % days, minutes=i)) for i in range(n)]
    changes = draw(st.lists(st.tuples(st.sampled_from(["archive", "expire"]), st.integers(0, n - 1)), max_size=4))
    supersede = draw(st.lists(st.sampled_from([f"{COMMON} {RARE[0]} {OFTEN[0]} superseding",
                                               f"{SELDOM[0]} {COMMON} fresh"]), max_size=2))
    query = " ".join(draw(st.lists(st.sampled_from([COMMON, *OFTEN, *RARE, *SELDOM, "absent"]), min_size=2,
                                   max_size=5, unique=True)))
    return rows, changes, supersede, query


@contextlib.contextmanager
def corpus_store(corpus):
    """A throwaway store holding a drawn corpus: its entries, changes and superseding memories."""
    rows, changes, supersede, _query = corpus
    base = Path(tempfile.mkdtemp(prefix="okfpro-prune-prop-"))
    try:
        store = MemoryStore(base / "mem", history=False)
        ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="corpus")
        assert err is None
        for what, k in changes:
            change(store, ALICE, what, f"{ids[k]}", today=TODAY)
        for text in supersede:
            remember(store, ALICE, text, supersede=True, today=TODAY)
        yield store
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("always_try,split", [(False, False), (True, False), (True, True)])
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(corpus=corpora(), limits=st.lists(st.integers(1, 25), min_size=1, max_size=4, unique=True))
def test_pruned_equals_unpruned_equals_files(monkeypatch, always_try, split, corpus, limits):
    """``split``: every ranking scored in two spans of days at once (ranksql.SPLIT_AT 0)."""
    from okfpro.io import threads
    from okfpro.memory import ranksql

    query = corpus[3]
    with corpus_store(corpus) as store:
        for hidden in (False, True):
            for limit in limits:
                with monkeypatch.context() as m:
                    if split:
                        m.setattr(ranksql, "SPLIT_AT", 0)
                        m.setattr(threads, "spare_core", lambda: True)
                    spy = Spy(m, always_try)
                    got, _ = memindex.recall(store, ALICE, query, TODAY.isoformat(), hidden, limit)
                event(f"pruned answer kept: {bool(spy.kept)}")
                full = unpruned(store, ALICE, query, hidden, limit, monkeypatch)
                files, _ = memindex.scan_recall(store, ALICE, query, TODAY.isoformat(), hidden, limit)
                assert shown(got) == shown(full), (query, hidden, limit)
                assert [h[:3] for h in shown(got)] == [h[:3] for h in shown(files)], (query, hidden, limit)


def test_a_rare_word_next_to_common_ones_is_pruned_and_exact(tmp_path, monkeypatch):
    """The bench's shape: one rare word, a word in a tenth of the entries, a word in all; the
    pruned answer is returned (the bound held), and it is the unpruned one at every limit."""
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [(f"entry {i}: {'kilo' if i % 10 == 3 else 'lima'} note number {i}",
             T0 + dt.timedelta(days=i // 20, seconds=i)) for i in range(600)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="bench")[2] is None
    spy = Spy(monkeypatch, always_try=False)  # undone at the end of the test
    for limit in (1, 2, 3, 10, 25):
        for q in ("kilo note 421", "note kilo", "number 13 note"):
            got, _ = memindex.recall(store, ALICE, q, TODAY.isoformat(), False, limit)
            assert shown(got) == shown(unpruned(store, ALICE, q, False, limit, monkeypatch)), (q, limit)
    assert spy.kept >= 10, (spy.kept, spy.tried)


def test_the_bound_covers_a_neighbour_holding_only_common_words():
    """Arithmetic of the bound: an entry holding only non-essential phrases, between two such,
    ranks at most (1 + 2 x 0.5) x their ceilings; one rounding step more is needed to beat it."""
    caps = [maxscore.ceiling(1000, 900), maxscore.ceiling(1000, 40)]
    assert maxscore.bound(caps, 0.5) >= 2 * sum(caps)
    b = maxscore.bound(caps, 0.5)
    assert not maxscore.beats(b + maxscore.STEP, b) and maxscore.beats(b + 2 * maxscore.STEP, b)
    # an idf below zero is FTS5's floor, never less
    assert maxscore.ceiling(10, 10) == pytest.approx(2.2e-6)
    # the ceiling is above any real score of one phrase: k1 + 1 times the idf
    assert maxscore.ceiling(1000, 10) > 2.2 * 4.5


def test_a_row_at_the_edge_of_the_narrow_zone_is_not_ranked_without_its_outer_neighbour(tmp_path, monkeypatch):
    """The narrow zone scores one place around each essential entry: the plain ``note`` entry
    just before ``kilo`` is scored, its own other neighbour (``note`` four times) is not.  That
    neighbour's share puts it second, above a longer ``kilo`` entry; ordered as if the unscored
    neighbour scored 0 it would fall below that entry and the answer would be wrong.  Counted at
    the ceiling of the non-essential phrases it stays in the first rows, so the zone of two places
    answers (and the pruned answer is still the unpruned one)."""
    texts = ["note note note note", "note", "kilo", "plain words", "plain words", "kilo " + "filler " * 9,
             "plain words", "kilo " + "filler " * 40]
    texts += [f"note item{i}" if i % 5 < 2 else f"other item{i}" for i in range(190)]
    store = MemoryStore(tmp_path / "mem", history=False)
    rows = [(t, T0 + dt.timedelta(minutes=i)) for i, t in enumerate(texts)]
    assert store.write_many(ALICE, rows, "user", actor="t", what="edge")[2] is None
    real, narrow = memindex.ScopeIndex._ranked, []

    def ranked(self, *a, **k):
        got = real(self, *a, **k)
        if len(a) > 5 or "narrow" in k:
            narrow.append(got is not None)
        return got

    spy = Spy(monkeypatch, always_try=False)
    monkeypatch.setattr(memindex.ScopeIndex, "_ranked", ranked)
    got, _ = memindex.recall(store, ALICE, "kilo note", TODAY.isoformat(), False, 2)
    assert [h.entry.text for h in got] == ["kilo", "note"]
    assert narrow == [False] and spy.kept == 1  # the narrow zone gave way; the pruned answer was kept
    files, _ = memindex.scan_recall(store, ALICE, "kilo note", TODAY.isoformat(), False, 2)
    assert shown(got) == shown(unpruned(store, ALICE, "kilo note", False, 2, monkeypatch))
    assert [h[:3] for h in shown(got)] == [h[:3] for h in shown(files)]


def test_a_first_try_widens_until_it_is_worth_it():
    """The prompt hook's shape: the rarest phrase alone reaches the limit but its ceiling is below
    the bound of the others, so the next rarest joins it; a head whose zone (one place around each
    of its entries) could cover all the query matches is not tried."""
    rows, counts = 10302, [2801, 301, 1250, 2500]
    assert maxscore.essential(counts, rows, 12, 0.5) == [1]
    assert not maxscore.worth(counts, rows, [1], 0.5)
    assert maxscore.first(counts, rows, 12, 0.5) == [1, 2]
    assert maxscore.first([2801, 301, 2600, 2500], rows, 12, 0.5) is None  # 3 x (301 + 2500) >= 8202
    assert maxscore.first([9000, 3], rows, 2, 0.5) == [1]  # worth it at once: as essential() picks
