"""The persistent memory index (okfpro/memory/index.py): index ≡ files, isolation, erasure,
reconciliation from candidates, appends in place."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.core import bm25
from okfpro.core import mempolicy as _mempolicy
from okfpro.core.record import replace
from okfpro.core.scope import Scope
from okfpro.memory import index as memindex
from okfpro.memory import indexfiles
from okfpro.memory.entries import records_by_entry
from okfpro.memory.policy import change, load_records, remember
from okfpro.memory.store import MemoryStore

ALICE = Scope(tenant="acme", user="alice")
BOB = Scope(tenant="acme", user="bob")
TODAY = dt.date(2026, 6, 1)
T0 = dt.datetime(2026, 5, 20, 9, 0, 0, tzinfo=dt.timezone.utc)
WORDS = "deploy staging cluster friday tuesday postgres backup nightly review coffee tabs spaces vim emacs".split()
QUERIES = ["deploy staging", "postgres backup nightly", "coffee", "tabs spaces vim", "friday review cluster",
           "emacs", "nothing-matches-this", "dep sta", "memory"]


def shown(hits):
    return [(h.entry.id, h.status, round(h.score, 4), h.record.id, h.entry.text) for h in hits]


def assert_same(store, scope, today=TODAY.isoformat()):
    """Every recall through the index equals the index-free run over the files."""
    for q in QUERIES:
        for hidden in (False, True):
            for limit in (None, 3):
                got, _ = memindex.recall(store, scope, q, today, hidden, limit)
                want, _ = memindex.scan_recall(store, scope, q, today, hidden, limit)
                assert shown(got) == shown(want), (q, hidden, limit)


def decide_both(store, scope, text, kind, source, supersede):
    """The write decision from index candidates equals the one from the whole tier."""
    new = _mempolicy.make(text, kind=kind, source=source, created=TODAY)
    wanted = [supersede] if isinstance(supersede, str) else []
    with memindex.opened(store, "user", scope) as idx:
        cands = idx.candidates(new, TODAY.isoformat(), wanted) if idx is not None else None
    full = list(load_records(store, scope, "user").values())
    if cands is not None:
        a = _mempolicy.decide_write(new, cands, supersede=supersede, today=TODAY)
        b = _mempolicy.decide_write(new, full, supersede=supersede, today=TODAY)
        assert a == b


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
ops = st.one_of(
    st.tuples(st.just("remember"), texts, st.sampled_from(["event", "preference", "decision"]),
              st.sampled_from(["user", "agent"]), st.booleans()),
    st.tuples(st.just("capture"), texts),
    st.tuples(st.just("past"), texts, st.integers(min_value=1, max_value=30)),
    # a record written into an earlier day: the index replays it at the end only when that folds the same
    st.tuples(st.just("past-record"), texts, st.integers(min_value=1, max_value=30),
              st.sampled_from(["plain", "supersede", "change", "forward"]), st.integers(0, 20)),
    st.tuples(st.just("change"), st.sampled_from(["archive", "expire", "confirm"]), st.integers(0, 20)),
    st.tuples(st.just("expiring"), texts),
    st.tuples(st.just("crash"), texts),
    st.tuples(st.just("drop-index")),
    st.tuples(st.just("corrupt-index")),
    st.tuples(st.just("forget")),
    st.tuples(st.just("purge")),
    st.tuples(st.just("other"), texts),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, min_size=1, max_size=14))
def test_index_equals_files(steps):
    base = Path(tempfile.mkdtemp(prefix="okfpro-index-prop-"))
    try:
        store = MemoryStore(base / "mem", history=False)
        clock = [T0]

        def now():
            clock[0] += dt.timedelta(seconds=7)
            return clock[0]

        ids: list[str] = []
        for step in steps:
            kind = step[0]
            if kind == "remember":
                _, text, mkind, source, sup = step
                decide_both(store, ALICE, text, mkind, source, sup)
                res = remember(store, ALICE, text, kind=mkind, source=source, supersede=sup, today=TODAY)
                if res.id:
                    ids.append(res.id)
            elif kind == "capture":
                store.write(ALICE, f"**User:**\n> {step[1]}\n\n**Agent:**\n> ok", "user", now=now())
            elif kind == "past":
                store.write(ALICE, step[1], "user", now=T0 - dt.timedelta(days=step[2]))
            elif kind == "past-record":
                _, text, days, how, k = step
                when = T0 - dt.timedelta(days=days)
                rec = _mempolicy.make(text, created=when.date())
                if how == "supersede" and ids:
                    rec = replace(rec, supersedes=(ids[k % len(ids)],))
                elif how == "change" and ids:
                    rec = _mempolicy.change_record("archive", ids[k % len(ids)], created=when.date())
                elif how == "forward":  # a record of today names the one the past write makes
                    ahead = replace(_mempolicy.make(text + " later", created=TODAY), supersedes=(rec.id,))
                    store.write(ALICE, _mempolicy.render(ahead), "user", now=now())
                store.write(ALICE, _mempolicy.render(rec), "user", now=when)
            elif kind == "change":
                if ids:
                    change(store, ALICE, step[1], ids[step[2] % len(ids)], today=TODAY)
            elif kind == "expiring":
                remember(store, ALICE, step[1], valid_until="2026-05-25", today=dt.date(2026, 5, 1))
            elif kind == "crash":
                # the file got the entry, the index did not (a kill between the two)
                os.environ["OKFPRO_MEMORY_INDEX"] = "off"
                try:
                    store.write(ALICE, step[1], "user", now=now())
                finally:
                    del os.environ["OKFPRO_MEMORY_INDEX"]
            elif kind == "drop-index":
                indexfiles.remove(indexfiles.index_path(store.root, "user", ALICE))
            elif kind == "corrupt-index":
                path = Path(indexfiles.index_path(store.root, "user", ALICE))
                if path.exists():
                    data = bytearray(path.read_bytes())
                    data[100:4000] = os.urandom(min(3900, max(0, len(data) - 100)))
                    path.write_bytes(bytes(data))
            elif kind == "forget":
                store.delete_scope(ALICE, "user")
            elif kind == "purge":
                store.delete_scope(ALICE, "user", purge=True)
            elif kind == "other":
                remember(store, BOB, step[1], today=TODAY)
            assert_same(store, ALICE)
            for q in QUERIES[:3]:
                got, _ = memindex.recall(store, ALICE, q, TODAY.isoformat())
                assert all(h.entry.id.startswith("memory-user/") and "/alice-" in h.entry.id for h in got)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture()
def store(tmp_path):
    return MemoryStore(tmp_path / "mem")


def _index(store, scope):
    return Path(indexfiles.index_path(store.root, "user", scope))


def test_index_lives_under_the_memory_root_ignored_and_keyed(store):
    remember(store, ALICE, "deploy on fridays is forbidden", today=TODAY)
    path = _index(store, ALICE)
    assert path.is_file() and path.parent == store.root / ".okf-index"
    assert (store.root / ".gitignore").read_text().splitlines()[-1] == "*"
    con = sqlite3.connect(path)
    for table in ("files", "entries", "records"):
        keys = {k for (k,) in con.execute(f"SELECT DISTINCT scope FROM {table}")}
        assert keys == {"memory-user/" + Path(store.scope_dir("user", ALICE)).relative_to(store.root / "memory-user").as_posix()}


def test_another_scopes_index_copied_in_is_never_read(store):
    remember(store, ALICE, "alice likes tabs", today=TODAY)
    remember(store, BOB, "bob secret nightly postgres backup", today=TODAY)
    memindex.recall(store, BOB, "postgres", TODAY.isoformat())
    shutil.copyfile(_index(store, BOB), _index(store, ALICE))
    hits, _ = memindex.recall(store, ALICE, "postgres backup nightly", TODAY.isoformat())
    assert hits == []
    hits, _ = memindex.recall(store, ALICE, "tabs", TODAY.isoformat())
    assert [h.record.text for h in hits] == ["alice likes tabs"]


def test_hand_edited_rows_never_show_text_the_files_do_not_hold(store):
    remember(store, ALICE, "alice likes tabs", today=TODAY)
    remember(store, BOB, "bob secret nightly postgres backup", today=TODAY)
    con = sqlite3.connect(_index(store, ALICE))
    # rewrite alice's entry text and tokens to bob's words, keeping alice's scope key
    con.execute("UPDATE entries SET text = 'bob secret nightly postgres backup'")
    for term in bm25.stemmed_terms("postgres backup"):  # and alice's postings say her entry holds them
        con.execute("INSERT INTO postings (term, code, ords) SELECT ?, code, ords FROM postings WHERE term = 'alic'",
                    (term,))
    con.commit()
    con.close()
    hits, _ = memindex.recall(store, ALICE, "postgres backup", TODAY.isoformat())
    assert all("bob" not in h.entry.text for h in hits)
    # a row moved to another scope key is never returned either
    con = sqlite3.connect(_index(store, ALICE))
    con.execute("UPDATE entries SET scope = 'memory-user/elsewhere'")
    con.commit()
    con.close()
    hits, _ = memindex.recall(store, ALICE, "tabs", TODAY.isoformat())
    assert hits == []  # hidden at worst, never shown under another key
    indexfiles.remove(_index(store, ALICE))  # deleting the index is always safe: rebuilt from the files
    hits, _ = memindex.recall(store, ALICE, "tabs", TODAY.isoformat())
    assert [h.record.text for h in hits] == ["alice likes tabs"]


def test_purge_erases_the_index_and_any_stale_copy(store):
    nonce = f"nonce-{os.urandom(6).hex()}"
    remember(store, ALICE, f"the vault code is {nonce}", today=TODAY)
    memindex.recall(store, ALICE, "vault", TODAY.isoformat())
    stale = store.root / ".okf-index" / "0123456789abcdef0123456789abcdef.sqlite"
    shutil.copyfile(_index(store, ALICE), stale)
    Path(str(stale) + "-journal").write_bytes(b"junk " + nonce.encode() + b" junk")
    res = store.delete_scope(ALICE, "user", purge=True)
    assert res.error is None and res.verified
    for p in store.root.rglob("*"):
        if p.is_file() and ".okf-history.git" not in p.parts:
            assert nonce.encode() not in p.read_bytes(), p
    assert memindex.recall(store, ALICE, "vault", TODAY.isoformat())[0] == []


def test_forget_removes_the_index(store):
    remember(store, ALICE, "forget me please deploy", today=TODAY)
    assert _index(store, ALICE).exists()
    store.delete_scope(ALICE, "user")
    assert not _index(store, ALICE).exists()
    assert memindex.recall(store, ALICE, "deploy", TODAY.isoformat())[0] == []


@pytest.mark.parametrize("common_at", [64, 3, 1])
def test_candidates_hold_every_record_that_can_reach_the_overlap_bound(store, monkeypatch, common_at):
    """The SQL prefilter (k >= RELATED_AT * a and k >= RELATED_AT * (a + b - k)) never drops a
    record whose overlap with the new text reaches RELATED_AT, at the boundary included
    (3 of 10 = 0.3 exactly), and drops those below it (so few records are decoded) -- with
    every word rare, some common (found through the rare ones and records_size), all common."""
    monkeypatch.setattr(memindex, "COMMON_AT", common_at)
    words = [f"w{chr(97 + i)}{chr(97 + j)}" for i in range(8) for j in range(8)]
    new_words = words[:5]
    texts = []
    for k in range(1, 6):  # shared words
        for extra in range(0, 12):  # words of the stored record the new one lacks
            texts.append(" ".join(new_words[:k] + words[20 + 3 * k + extra: 20 + 3 * k + extra + extra]))
    ids = {}
    for text in dict.fromkeys(texts):
        res = remember(store, ALICE, text, today=TODAY)
        assert res.written, res
        ids[res.id] = text
    new = _mempolicy.make(" ".join(new_words), kind="event", source="user", created=TODAY)
    with memindex.opened(store, "user", ALICE) as idx:
        got = {r.id for r in idx.candidates(new, TODAY.isoformat())}
    new_vocab = _mempolicy.vocabulary(new.text)
    reach = {mid for mid, text in ids.items()
             if _mempolicy.overlap(new_vocab, _mempolicy.vocabulary(text)) >= _mempolicy.RELATED_AT}
    assert any(_mempolicy.overlap(new_vocab, _mempolicy.vocabulary(t)) == 0.3 for t in ids.values())
    assert reach <= got, sorted(ids[m] for m in reach - got)
    assert len(got) < len(ids) / 2, (len(got), len(ids))


@pytest.mark.parametrize("common_at", [64, 4, 1])
def test_candidates_through_common_words_match_a_scan(store, monkeypatch, common_at):
    """Records built from a small vocabulary (so some words are in many of them), short
    ones among them: for every new text, each record whose overlap reaches RELATED_AT is a
    candidate, found through the rare words or, sharing only common ones, through its size."""
    import random

    monkeypatch.setattr(memindex, "COMMON_AT", common_at)
    rnd = random.Random(7)
    vocab = [f"word{i:02d}" for i in range(14)]
    texts = {" ".join(rnd.sample(vocab[: 6 + i % 8], 1 + i % 6)) for i in range(60)}
    for text in sorted(texts):
        assert remember(store, ALICE, text, today=TODAY).written
    records = load_records(store, ALICE, "user")
    for n in range(25):
        new = _mempolicy.make(" ".join(rnd.sample(vocab, 1 + n % 7)), kind="fact", source="user", created=TODAY)
        words = _mempolicy.vocabulary(new.text)
        reach = {r.id for r in records.values() if _mempolicy.overlap(words, _mempolicy.vocabulary(r.text))
                 >= _mempolicy.RELATED_AT}
        with memindex.opened(store, "user", ALICE) as idx:
            got = {r.id for r in idx.candidates(new, TODAY.isoformat())}
        assert reach <= got, (new.text, sorted(records[m].text for m in reach - got))


def test_remember_reconciles_from_the_index_without_reading_the_scope(store, monkeypatch):
    first = remember(store, ALICE, "we deploy the staging cluster on tuesday", kind="decision", today=TODAY)
    memindex.recall(store, ALICE, "deploy", TODAY.isoformat())  # index in line with the files

    def no_scan(*a, **k):
        raise AssertionError("the scope was scanned")

    monkeypatch.setattr(MemoryStore, "_tier_entries", no_scan)
    monkeypatch.setattr(MemoryStore, "enumerate", no_scan)
    dup = remember(store, ALICE, "We deploy the staging cluster on Tuesday!", kind="decision", today=TODAY)
    assert dup.decision.decision == "skip"
    sup = remember(store, ALICE, "we deploy the staging cluster on friday", kind="decision", supersede=True, today=TODAY)
    assert sup.decision.decision == "supersede" and sup.decision.target_id == first.id
    hits, _ = memindex.recall(store, ALICE, "deploy staging", TODAY.isoformat())
    assert [h.record.text for h in hits] == ["we deploy the staging cluster on friday"]
    assert change(store, ALICE, "archive", sup.id, today=TODAY).written
    assert memindex.recall(store, ALICE, "deploy staging", TODAY.isoformat())[0] == []


def test_policy_applies_before_the_limit(store):
    for i in range(5):
        r = remember(store, ALICE, f"coffee order number {i} espresso", today=TODAY)
        change(store, ALICE, "archive", r.id, today=TODAY)
    remember(store, ALICE, "coffee is best black", today=TODAY)
    hits, _ = memindex.recall(store, ALICE, "coffee espresso", TODAY.isoformat(), limit=1)
    assert [h.record.text for h in hits] == ["coffee is best black"]


def test_appends_in_place(store):
    store.write(ALICE, "first entry", "user", now=T0)
    day = Path(store.scope_dir("user", ALICE)) / "2026-05-20.md"
    ino = day.stat().st_ino
    res = store.write(ALICE, "second entry", "user", now=T0 + dt.timedelta(seconds=1))
    assert res.id.endswith("#2") and day.stat().st_ino == ino
    assert day.read_text().endswith("## 09:00:00 UTC\n\n> first entry\n\n## 09:00:01 UTC\n\n> second entry\n")


def test_write_many_is_one_commit(store):
    items = [(f"bulk entry {i}", T0 + dt.timedelta(days=i % 3, seconds=i)) for i in range(30)]
    ids, commit, error = store.write_many(ALICE, items, "user", what="import 30 entries")
    assert error is None and len(ids) == 30 and commit
    log = store.log(ALICE, "user").entries
    assert len(log) == 1 and "import 30 entries" in log[0].summary
    assert_same(store, ALICE)


def test_inflections_meet_through_the_stem(store):
    remember(store, ALICE, "we deployed the billing service after the certificates were renewed", today=TODAY)
    for q in ("deployment", "certificate renewal", "deploying"):
        hits, _ = memindex.recall(store, ALICE, q, TODAY.isoformat())
        assert len(hits) == 1, q
        assert shown(hits) == shown(memindex.scan_recall(store, ALICE, q, TODAY.isoformat())[0])


def test_rare_and_very_common_words_answer_what_the_files_answer(store):
    """A query mixing rare and very common words, over one day file of neighbouring entries,
    answers exactly what the files answer at every limit, hidden memories included (the index
    scores every matched entry: a rank depends on the neighbours' full scores)."""
    rows = []
    for i in range(240):
        words = ["common"]  # in every entry
        if i % 3 == 0:
            words.append("often")  # in a third
        if i % 40 == 0:
            # in six long entries, below the title line: they score below short entries holding
            # only a commoner word, so a wrong bound at a coverage tie shows
            words.append("entry\nrare " + " ".join(f"filler{k}" for k in range(300)))
        if i % 7 == 0:
            words.append("seldom")
        rows.append((" ".join(words) + f" entry {i}", T0 + dt.timedelta(minutes=i)))
    for i in range(3):  # short and repetitive: outscores a long entry holding a rarer word
        rows.append((("often " * (5 + i)).strip(), T0 + dt.timedelta(hours=9, minutes=i)))
    ids, _c, err = store.write_many(ALICE, rows, "user", actor="t", what="skewed")
    assert err is None and len(ids) == 243
    assert remember(store, ALICE, "rare often common superseding note", supersede=True, today=TODAY).written
    for q in ("rare common", "rare often common", "seldom common", "rare seldom often common", "often common",
              "rare often", "seldom often common", "entry common rare"):
        for hidden in (False, True):
            for limit in (1, 3, 6, 10, 25, None):
                got, _ = memindex.recall(store, ALICE, q, TODAY.isoformat(), hidden, limit)
                want, _ = memindex.scan_recall(store, ALICE, q, TODAY.isoformat(), hidden, limit)
                assert got and shown(got) == shown(want), (q, hidden, limit)


@pytest.mark.parametrize("how", ["plain", "forward", "twin", "supersede", "change"])
def test_a_write_into_an_earlier_day_folds_as_if_replayed_in_place(tmp_path, how):
    """A record written into a past day is replayed at the end only when that cannot change the
    fold (``ScopeIndex._commute``); a later record naming it, a twin of it (the same id), a
    supersede or a change record make the index replay the scope in order."""
    store = MemoryStore(tmp_path / "mem", history=False)
    earlier = _mempolicy.make("nightly postgres backup", created=T0.date())
    store.write(ALICE, _mempolicy.render(earlier), "user", now=T0)
    past = T0 - dt.timedelta(days=3)
    rec = _mempolicy.make("deploy staging cluster", created=past.date())
    if how == "forward":  # written first, today: it supersedes the memory the past write makes
        ahead = replace(_mempolicy.make("deploy staging cluster on friday", created=T0.date()), supersedes=(rec.id,))
        store.write(ALICE, _mempolicy.render(ahead), "user", now=T0 + dt.timedelta(seconds=5))
    elif how == "twin":  # the same memory, written today first: the earlier one stands once replayed
        store.write(ALICE, _mempolicy.render(replace(rec, confidence="high", created=T0.date())), "user",
                    now=T0 + dt.timedelta(seconds=5))
    elif how == "supersede":
        rec = replace(rec, supersedes=(earlier.id,))
    elif how == "change":
        rec = _mempolicy.change_record("archive", earlier.id, created=past.date())
    assert_same(store, ALICE)  # the index exists and is fresh
    store.write(ALICE, _mempolicy.render(rec), "user", now=past)
    with memindex.opened(store, "user", ALICE) as idx:
        assert idx is not None
        folded = _mempolicy.fold(rec for _e, rec in records_by_entry(store.enumerate(ALICE).entries))  # the files
        assert rec.id in folded or rec.change
        for mid, want in folded.items():
            assert idx.record(mid) == want, mid
    assert_same(store, ALICE)


def test_a_same_size_edit_with_its_times_put_back_is_seen(store):
    """A day file's fingerprint holds its ctime: an edit at the same size with its mtime put back
    (``touch -r``, a copy that keeps times) still changes what the index answers."""
    remember(store, ALICE, "alice likes tabs", today=TODAY)
    assert [h.record.text for h in memindex.recall(store, ALICE, "tabs", TODAY.isoformat())[0]] == ["alice likes tabs"]
    day = next(Path(store.scope_dir("user", ALICE)).glob("*.md"))
    st = os.stat(day)
    day.write_bytes(day.read_bytes().replace(b"tabs", b"vims"))
    os.utime(day, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(day).st_size == st.st_size
    got, _ = memindex.recall(store, ALICE, "vims", TODAY.isoformat())
    want, _ = memindex.scan_recall(store, ALICE, "vims", TODAY.isoformat())
    assert shown(got) == shown(want) and [h.record.text for h in got] == ["alice likes vims"]


def test_a_hand_edited_speaker_facet_never_shows_another_scope_nor_breaks_recall(store):
    """The speaker facet's postings (schema 8) edited by hand: ordinals out of range, negative, every
    document, a row id of another scope -- recall answers this scope's memories or falls back to the
    files, never another scope's."""
    from array import array

    remember(store, ALICE, "Ana: alice likes tabs", today=TODAY)
    remember(store, ALICE, "Ben: tabs or spaces", today=TODAY)
    remember(store, BOB, "Ana: bob secret nightly postgres backup", today=TODAY)
    memindex.recall(store, ALICE, "ana tabs", TODAY.isoformat())
    con = sqlite3.connect(_index(store, ALICE))
    assert con.execute("SELECT count(*) FROM postings WHERE code = 0 AND term = '@s:ana'").fetchone()[0] == 1
    con.execute("UPDATE postings SET ords = ? WHERE code = 0", (array("i", [-5, 0, 1, 2, 99, 2**31 - 1]).tobytes(),))
    con.execute("INSERT INTO postings VALUES ('@s:tab', 0, ?)", (array("i", [0, 1, 7]).tobytes(),))
    con.execute("UPDATE entries SET scope = 'memory-user/elsewhere' WHERE text LIKE '%spaces%'")
    con.commit()
    con.close()
    for q in ("ana tabs", "ben tabs", "tabs", "postgres ana"):
        hits, _ = memindex.recall(store, ALICE, q, TODAY.isoformat())
        assert all("bob" not in h.entry.text and "spaces" not in h.entry.text for h in hits), q
    hits, _ = memindex.recall(store, ALICE, "ana tabs", TODAY.isoformat())
    assert [h.record.text for h in hits] == ["Ana: alice likes tabs"]
