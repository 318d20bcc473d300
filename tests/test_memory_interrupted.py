"""A memory write killed half-way (a host's hook timeout sends SIGKILL) never leaves a torn entry.

The writer marks its append as in progress (its first byte, the separating newline, goes in as
NUL and is set last: okfpro/core/dayfile.APPENDING).  Whatever a kill leaves — the mark alone, any
cut of the sections after it, or the whole append still marked — readers stop before it and the
next writer truncates it away.  Linux stops a large write(2) at a page boundary when a fatal
signal is pending, which is how tests/test_memory_git.py's random kills once read an entry cut
to 2,560 of its 3,000 characters.
"""

from __future__ import annotations

import datetime as dt
import os

import pytest

from okfpro.core.dayfile import APPENDING, interrupted_at, render_section, split_concept
from okfpro.core.scope import Scope, memory_path
from okfpro.io.clock import utc_day, utcnow
from okfpro.memory import index as memindex
from okfpro.memory.store import MemoryStore

ALICE = Scope(tenant="acme", user="alice")


def _day_file(store: MemoryStore) -> str:
    directory = store.root / memory_path("user", ALICE)
    (name,) = [n for n in os.listdir(directory) if n.endswith(".md")]
    return str(directory / name)


def _texts(store: MemoryStore) -> list[str]:
    return [e.text for e in store.enumerate(ALICE).entries]


def _what_a_writer_appends(raw: bytes, texts: list[str]) -> bytes:
    """The bytes store._append_day puts after ``raw`` for ``texts``, first byte marked."""
    when = dt.datetime(2026, 12, 3, 9, 0, tzinfo=dt.timezone.utc)
    payload = b"".join((b"\n" if raw.endswith(b"\n") or i else b"\n\n") + render_section(t, when).encode()
                       for i, t in enumerate(texts))
    assert payload[:1] == b"\n"
    return APPENDING + payload[1:]


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    s = MemoryStore(tmp_path / "mem")
    for text in ("first entry about the ledger", "second entry about the cache\nwith a second line"):
        assert s.write(ALICE, text, "user").written
    return s


def test_every_cut_of_an_interrupted_append_reads_as_no_write_and_the_next_write_removes_it(store):
    path = _day_file(store)
    good = open(path, "rb").read()
    before = _texts(store)
    marked = _what_a_writer_appends(good, ["torn entry " + "x" * 300 + "\nline two", "another torn one"])
    today = utc_day(utcnow())
    for k in sorted({1, 2, 3, 4, 5, 17, 200, len(marked) // 2, len(marked) - 1, len(marked)}):
        with open(path, "wb") as fh:
            fh.write(good + marked[:k])
        entries = store.enumerate(ALICE)
        assert [e.text for e in entries.entries] == before and not entries.diagnostics, k
        hits, diags = memindex.recall(store, ALICE, "torn entry ledger", today)
        assert all("torn" not in h.entry.text for h in hits) and not diags, k
        assert [h.entry.id for h in hits] == [h.entry.id for h in memindex.scan_recall(store, ALICE, "torn entry ledger",
                                                                                      today)[0]], k
    res = store.write(ALICE, "third entry after the kill", "user")
    assert res.written and res.error is None, res
    raw = open(path, "rb").read()
    assert APPENDING not in raw and raw.startswith(good)
    split_concept(raw)
    assert _texts(store) == before + ["third entry after the kill"]
    assert store.history.check("user", ALICE) is None


def test_a_file_with_another_nul_stays_malformed_and_is_not_cut(store):
    """A NUL the writer did not put there (a damaged or foreign file) is not an interrupted append:
    the file is reported, and a write refuses to touch it, as before."""
    path = _day_file(store)
    good = open(path, "rb").read()
    for bad in (good[:40] + b"\x00" + good[40:], good + b"\x00garbage", good + b"\x00\n## x\x00"):
        with open(path, "wb") as fh:
            fh.write(bad)
        assert interrupted_at(bad) is None
        diags = store.enumerate(ALICE).diagnostics
        assert diags and "NUL" in diags[0].message
        res = store.write(ALICE, "refused", "user")
        assert not res.written and "malformed" in (res.error or "")
        assert open(path, "rb").read() == bad  # left untouched


def test_the_mark_is_found_only_where_an_append_begins():
    head = b"---\ntype: x\n---\n\n## 09:00:00 UTC\n\n> a\n"
    assert interrupted_at(head) is None
    assert interrupted_at(head + b"\x00") == len(head)
    assert interrupted_at(head + b"\x00## 09:") == len(head)
    assert interrupted_at(head + b"\x00\n## 09:00:00 UTC\n\n> b") == len(head)
    assert interrupted_at(head + b"\x00\n#") == len(head)
    assert interrupted_at(head + b"\x00> b") is None  # not what an append writes after its first byte
    assert interrupted_at(head + b"\x00\n\n") is None
    assert interrupted_at(head[:10] + b"\x00" + head[11:]) is None


def test_a_text_holding_nul_is_stored_without_one(store):
    """The mark is never text: an entry's NUL is written as U+FFFD (dayfile.quote)."""
    assert store.write(ALICE, "nul \x00 inside", "user").written
    raw = open(_day_file(store), "rb").read()
    assert APPENDING not in raw and "nul \ufffd inside" in _texts(store)


def test_a_writer_stopped_between_its_two_writes_leaves_no_entry(store, monkeypatch):
    """The writer's own mark: stopped after the sections are down but before their first byte is
    set (as a kill would stop it), the write is not there for readers; the next write removes it."""
    before = _texts(store)
    real = os.pwrite
    calls = []

    def stopped(fd, data, offset):
        calls.append(bytes(data[:1]))
        if len(calls) == 2:
            raise KeyboardInterrupt  # not an OSError: nothing is rolled back, as after SIGKILL
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", stopped)
    with pytest.raises(KeyboardInterrupt):
        store.write(ALICE, "never acknowledged", "user")
    monkeypatch.setattr(os, "pwrite", real)
    assert calls == [APPENDING, b"\n"]
    assert APPENDING in open(_day_file(store), "rb").read()
    assert _texts(store) == before
    assert store.write(ALICE, "after", "user").written
    assert _texts(store) == before + ["after"]
