"""Recall ranking on conversations (okfpro/memory/ranking.py): neighbouring turns, stop
words, policy before the neighbours, the speaker a question names — through the index and the
index-free scan alike, which agree to the bit on drawn conversations."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.core.scope import Scope
from okfpro.memory import importer
from okfpro.memory import index as memindex
from okfpro.memory import ranking
from okfpro.memory.policy import change
from okfpro.memory.store import MemoryStore
from tests.helpers import examples

ANA = Scope(tenant="acme", user="ana")
TODAY = "2026-06-30"
DAY1 = dt.datetime(2026, 6, 1, 18, 0, tzinfo=dt.timezone.utc)
DAY2 = dt.datetime(2026, 6, 2, 18, 0, tzinfo=dt.timezone.utc)


def load(tmp_path, turns):
    """Turns ``(key, text, time)`` imported as memory import does; returns (store, key of memory id)."""
    store = MemoryStore(tmp_path / "memory", tiers=("user",), history=False)
    items = [importer.Item(i + 1, text, when, "user", "event", "user", key, False) for i, (key, text, when) in enumerate(turns)]
    res = importer.run(store, ANA, items, today=dt.date(2026, 6, 30), progress=False)
    assert res.imported == len(turns), res.to_json()
    return store, {importer.import_key_id(k): k for k, _, _ in turns}


def ranked(store, keys, query, engine):
    run = memindex.recall if engine == "index" else memindex.scan_recall
    hits, _ = run(store, ANA, query, TODAY, False, 10)
    return [keys[h.record.id] for h in hits]


def conversation(first_day_of_reply=DAY1):
    t = [DAY1 + dt.timedelta(minutes=i) for i in range(10)]
    return [
        ("weather", "Ana: The weather has been so gloomy.", t[0]),
        ("puppy", "Ana: We adopted a puppy from the shelter and named it Max.", t[1]),
        ("reply", "Ben: A dog! That is adorable, send me pictures.", first_day_of_reply + dt.timedelta(minutes=2)),
        ("plan", "Ben: Sounds like a plan.", t[4]),
        ("tired", "Ana: Honestly, I am totally drained.", t[5]),
        ("coffee", "Ana: I need more coffee.", t[6]),
    ]


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_a_turn_gains_from_its_neighbour_and_outranks_turns_matching_as_much(tmp_path, engine, monkeypatch):
    store, keys = load(tmp_path, conversation())
    got = ranked(store, keys, "ana dog", engine)
    assert got[:2] == ["reply", "puppy"], got
    assert set(got) == {"reply", "puppy", "weather", "tired", "coffee"}  # not "plan": no query word
    # without the neighbours the puppy turn is one more "ana" turn and the newer ones win the tie
    monkeypatch.setattr(ranking, "NEIGHBOUR", 0.0)
    monkeypatch.setattr(memindex, "NEIGHBOUR", 0.0)
    assert ranked(store, keys, "ana dog", engine)[:2] == ["reply", "coffee"]


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_a_turn_no_query_word_matches_is_never_returned(tmp_path, engine):
    store, keys = load(tmp_path, conversation())
    assert ranked(store, keys, "dog", engine) == ["reply"]


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_neighbours_are_turns_of_the_same_day_file(tmp_path, engine, monkeypatch):
    turns = conversation(first_day_of_reply=DAY2)  # the reply is the first turn of the next day
    store, keys = load(tmp_path, turns)
    monkeypatch.setattr(ranking, "SPEAKER", 0.0)  # neighbours alone: every Ana turn would lend her boost
    monkeypatch.setattr(memindex, "SPEAKER", 0.0)
    run = memindex.recall if engine == "index" else memindex.scan_recall
    got = [(keys[h.record.id], round(h.score, 4)) for h in run(store, ANA, "ana dog", TODAY, False, 10)[0]]
    monkeypatch.setattr(ranking, "NEIGHBOUR", 0.0)
    monkeypatch.setattr(memindex, "NEIGHBOUR", 0.0)
    alone = [(keys[h.record.id], round(h.score, 4)) for h in run(store, ANA, "ana dog", TODAY, False, 10)[0]]
    assert got == alone and got[0][0] == "reply", got  # the puppy turn gained nothing from the next day


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_a_hidden_neighbour_lends_nothing(tmp_path, engine):
    store, keys = load(tmp_path, conversation())
    reply_id = next(mid for mid, k in keys.items() if k == "reply")
    change(store, ANA, "archive", reply_id, today=dt.date(2026, 6, 30))
    got = ranked(store, keys, "ana dog", engine)
    assert "reply" not in got and got[0] == "coffee" and got.index("puppy") > got.index("tired"), got


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_a_short_turn_is_not_preferred_for_its_shortness(tmp_path, engine, monkeypatch):
    t = [DAY1 + dt.timedelta(minutes=i) for i in range(3)]
    store, keys = load(tmp_path, [
        ("smalltalk", "Ana: Ha, classic.", t[0]),
        ("evidence", "Ana: The house plants are coming along, a monstera in every corner of the flat.", t[1]),
        ("later", "Ben: Talk soon.", t[2]),
    ])
    # both Ana turns share one word with the question, once: the same score, the newest first
    assert ranked(store, keys, "what did ana mention about the greenery", engine) == ["evidence", "smalltalk"]
    # with BM25's length normalisation (FTS5's b = 0.75) the shortest turn came first
    monkeypatch.setattr(ranking, "LENGTH_B", 0.75)
    monkeypatch.setattr(memindex, "LENGTH_B", 0.75)
    assert ranked(store, keys, "what did ana mention about the greenery", engine) == ["smalltalk", "evidence"]


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_a_month_named_with_its_year_finds_that_months_turns(tmp_path, engine):
    may, june = dt.datetime(2026, 5, 20, 9, tzinfo=dt.timezone.utc), dt.datetime(2026, 6, 11, 9, tzinfo=dt.timezone.utc)
    store, keys = load(tmp_path, [
        ("may", "Ana: The garden is finally done.", may),
        ("june", "Ana: The garden looks great now.", june),
        ("june-named", "Ben: June is the month of the marathon.", june + dt.timedelta(days=4)),
        ("later", "Ana: The garden needs rain.", dt.datetime(2026, 6, 28, 9, tzinfo=dt.timezone.utc)),
    ])
    # without the month the newest garden turn comes first; with it, May's
    assert ranked(store, keys, "what did ana say about the garden", engine)[0] == "later"
    assert ranked(store, keys, "what did ana say about the garden in May 2026", engine)[0] == "may"
    # June's two garden turns first (the newest first); the turn saying "June" only as June's turns
    # do, by its date: the month's name is not a word of the query
    assert ranked(store, keys, "the garden in june of 2026", engine) == ["later", "june", "may", "june-named"]


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_conversational_stop_words_do_not_rank(tmp_path, engine):
    store, keys = load(tmp_path, conversation() + [("her", "Ben: Her sister told her she said so.", DAY2)])
    assert ranked(store, keys, "what did she tell about her dog", engine) == ["reply"]
    assert ranked(store, keys, "her", engine) == ["her"]  # nothing else left: the words count


def test_index_and_scan_agree_on_a_long_conversation(tmp_path):
    turns = []
    words = "dog puppy race marathon pottery bowl trip lisbon weather coffee ana ben".split()
    for i in range(120):
        when = DAY1 + dt.timedelta(days=i // 15, minutes=i)
        speaker = "Ana" if i % 2 else "Ben"
        turns.append((f"t{i}", f"{speaker}: {words[i % 12]} {words[(i * 5) % 12]} {words[(i * 7) % 11]} turn {i}", when))
    store, keys = load(tmp_path, turns)
    for q in ("ana dog", "marathon trip", "coffee weather ben", "turn", "lisbon"):
        for limit in (None, 3, 10):
            a, _ = memindex.recall(store, ANA, q, TODAY, False, limit)
            b, _ = memindex.scan_recall(store, ANA, q, TODAY, False, limit)
            assert [(h.entry.id, round(h.score, 4)) for h in a] == [(h.entry.id, round(h.score, 4)) for h in b], (q, limit)


@pytest.mark.parametrize("engine", ["index", "scan"])
def test_the_speaker_a_question_names_ranks_first(tmp_path, engine, monkeypatch):
    t = [DAY1 + dt.timedelta(minutes=i) for i in range(12)]
    filler = [(f"f{i}", f"{'Cal' if i % 2 else 'Dee'}: The {w} was nice.", t[i])
              for i, w in enumerate("tea cake walk film rain park book song".split())]
    store, keys = load(tmp_path, filler[:4] + [("bens", "Ben: I ran the race in two hours.", t[8])] + filler[4:]
                       + [("gap", "Cal: Hm.", t[9]), ("anas", "Ana: Ben, the race on TV was fun to watch.", t[10])])
    assert ranked(store, keys, "what did ben say about the race", engine)[0] == "bens"
    assert ranked(store, keys, "what did ana say about the race", engine)[0] == "anas"
    # without the speaker's facet both turns hold "ben" and "race": the newest, Ana's, came first
    monkeypatch.setattr(ranking, "SPEAKER", 0.0)
    monkeypatch.setattr(memindex, "SPEAKER", 0.0)
    assert ranked(store, keys, "what did ben say about the race", engine)[0] == "anas"


SPEAKERS = ["Ana", "Ben", "Duke Vincentio", "Zoë", "decision"]
TALK = "race dog puppy ana ben duke zoë decision garden coffee lisbon".split()


@st.composite
def conversations(draw):
    n = draw(st.integers(4, 40))
    turns = []
    for i in range(n):
        who = draw(st.sampled_from(SPEAKERS))
        words = draw(st.lists(st.sampled_from(TALK), min_size=0, max_size=5))
        when = DAY1 + dt.timedelta(days=draw(st.integers(0, 3)), minutes=i)
        turns.append((f"t{i}", f"{who}: {' '.join(words)} turn{i}", when))
    later = [(f"l{i}", f"{draw(st.sampled_from(SPEAKERS))}: {draw(st.sampled_from(TALK))} later{i}",
              DAY1 + dt.timedelta(days=draw(st.integers(0, 5)), hours=20, minutes=i))
             for i in range(draw(st.integers(0, 4)))]
    queries = draw(st.lists(st.lists(st.sampled_from([*TALK, "vincentio", "what", "say"]), min_size=1, max_size=4)
                            .map(" ".join), min_size=1, max_size=4))
    archived = draw(st.lists(st.integers(0, n - 1), max_size=3))
    return turns, later, queries, archived


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                            HealthCheck.function_scoped_fixture])
@given(conv=conversations())
def test_the_fused_ranking_of_the_index_equals_the_index_free_run(tmp_path_factory, conv):
    """Speakers (one word, two words, not ASCII, a lower-case "speaker" that is none), neighbours,
    hidden memories and appended turns: the index answers the scan's ranking, unrounded scores
    included, at every limit."""
    turns, later, queries, archived = conv
    store, keys = load(tmp_path_factory.mktemp("conv"), turns)
    memindex.recall(store, ANA, "warm", TODAY)  # the index exists: what follows appends
    for key, text, when in later:
        assert store.write_many(ANA, [(text, when)], "user", actor="t", what="later")[2] is None
    ids = {k: mid for mid, k in keys.items()}
    for k in archived:
        change(store, ANA, "archive", ids[f"t{k}"], today=dt.date(2026, 6, 30))
    for q in queries:
        for hidden in (False, True):
            for limit in (None, 1, 5):
                a, _ = memindex.recall(store, ANA, q, TODAY, hidden, limit)
                b, _ = memindex.scan_recall(store, ANA, q, TODAY, hidden, limit)
                assert [(h.entry.id, h.score) for h in a] == [(h.entry.id, h.score) for h in b], (q, hidden, limit)


def test_a_query_of_thousands_of_words_still_ranks_by_speaker(tmp_path):
    store, keys = load(tmp_path, conversation())
    query = "ana " + " ".join(f"w{i}" for i in range(3000))
    a, _ = memindex.recall(store, ANA, query, TODAY, False, 3)
    b, _ = memindex.scan_recall(store, ANA, query, TODAY, False, 3)
    assert [h.entry.id for h in a] == [h.entry.id for h in b] and a
