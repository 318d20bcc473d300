"""The persistent memory index: one SQLite file per (tier, scope), rebuilt from the day files.

Where: ``<memory root>/.okf-index/<sha256(scope key)[:32]>.sqlite`` (the memory root's
``.gitignore`` is ``*``, so no repository ever tracks it).  Never the source of truth:

* every read compares the scope's day files (name, size, mtime, inode) with what the
  index last saw; a missing, stale, foreign (another scope key, another schema) or
  corrupt index is rebuilt from the files, silently, under the scope's lock;
* every row carries the scope key and every query filters on it; the passages a
  search returns are read back from their day files (byte offsets kept per entry) and
  compared before they are shown, so a hand-edited index can hide a memory at worst,
  never show text the scope's own files do not hold;
* the store updates it on every append (under the scope lock, after the fsync'd
  write) and deletes it on forget and purge; an update that cannot apply (the file
  changed behind the index) clears the fingerprint and the next reader rebuilds.

What it holds, per entry: the parsed section (clock, text, title, byte span), the
record the memory policy parses from it, and the postings of its search terms
(:func:`okfpro.core.bm25.stemmed_terms`; :mod:`okfpro.memory.postings`, ranked by
:mod:`okfpro.core.postings`); per memory id: the effective record after the
policy's fold (:func:`okfpro.core.mempolicy.fold_step`), its status and validity, a
digest of its normalised text (duplicates) and its vocabulary (the write decision's
candidates).

Ranking is defined once (:mod:`okfpro.memory.ranking`) and this index answers what
its index-free :func:`~okfpro.memory.ranking.scan_tier` answers over the files; the day
files are read through :mod:`okfpro.memory.entries`.  The index never imports the store:
it is handed one (``store.root``, ``scope_dir``, ``_scope_lock``, ``_link_problem``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import stat

from okfpro.core import bm25
from okfpro.core import mempolicy as _mempolicy
from okfpro.core.dayfile import DAY_RE, MalformedConcept, sections, title
from okfpro.core.scope import Scope, applicable_tiers, scope_key
from okfpro.memory.entries import Diagnostic, Section, StoredEntry, day_listing, file_sections, \
    fingerprint
from okfpro.memory.indexfiles import index_files, index_path, remove
from okfpro.core import postings as _postings
from okfpro.core.facets import asked_speakers, speaker_terms
from okfpro.memory import postings
from okfpro.memory.layout import read_day_file
from okfpro.memory.ranking import LENGTH_B, NEIGHBOUR, SPEAKER, WEIGHTS, Hit, entry_fields, norm_digest, record_json, record_of, \
    recall_terms, scan_tier, visible_status

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Any, Iterable, Iterator, Sequence

SCHEMA = f"okfpro-memory-index/8-{postings.BYTE_ORDER}"  # 2: stemmed terms (okfpro.core.stem); 3: records.nwords;
# 4: entries_place; 5: records_size (the write decision's candidates that share only common words); 6: rid =
# place(day, seq), records_status; 7: postings and docmap instead of FTS5 (recall ranks in Python: core/postings);
# 8: the speaker facet's terms (core/facets)
COMMON_AT = 64  # a word in this many memories is "common": the candidates are not found through it
HIDDEN_SQL = ", ".join(f"'{s}'" for s in _mempolicy.HIDDEN)
EXPIRING_SQL = ", ".join(f"'{s}'" for s in _mempolicy.EXPIRING)


def place(day: str, seq: int) -> int:
    """An entry's row id: its day and its place in the day file, so that ids order as (day, seq)
    and an entry's neighbours in its day file are the ids just before and after it."""
    if not 0 < seq < 1 << 32:
        raise ValueError(f"section {seq} of {day} is out of the index's range")
    return int(day[:4] + day[5:7] + day[8:10]) << 32 | seq


class IndexUnavailable(RuntimeError):
    """The index cannot be used (the caller falls back to the files)."""


class NothingStored(IndexUnavailable):
    """The scope holds no day file and has no index: every answer is empty."""


class _Empty:
    """The index of a scope that holds nothing (no file is created for it)."""

    key = ""
    path = os.devnull

    def search(self, *a: Any, **k: Any) -> list:
        return []

    def candidates(self, *a: Any, **k: Any) -> list:
        return []

    def record(self, memory: str) -> None:
        return None

    def has_text(self, text: str, kind: str) -> bool:
        return False

    def last_entry(self) -> None:
        return None

    def problems(self) -> list:
        return []


# ---------------------------------------------------------------------------- the index


_DDL = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
    "CREATE TABLE files (name TEXT PRIMARY KEY, scope TEXT NOT NULL, fp TEXT NOT NULL, sections INTEGER NOT NULL,"
    " error TEXT)",
    "CREATE TABLE entries (rid INTEGER PRIMARY KEY, scope TEXT NOT NULL, name TEXT NOT NULL, date TEXT NOT NULL,"
    " seq INTEGER NOT NULL, clock TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, start INTEGER NOT NULL,"
    " end INTEGER NOT NULL, memory TEXT NOT NULL, change INTEGER NOT NULL, rec TEXT NOT NULL, ord INTEGER)",
    "CREATE INDEX entries_memory ON entries (memory)",
    "CREATE TABLE records (memory TEXT PRIMARY KEY, scope TEXT NOT NULL, status TEXT NOT NULL, valid_until TEXT,"
    " kind TEXT NOT NULL, norm TEXT NOT NULL, rec TEXT NOT NULL, nwords INTEGER NOT NULL)",
    "CREATE INDEX records_norm ON records (norm)",
    "CREATE INDEX records_size ON records (nwords)",
    "CREATE INDEX records_status ON records (status, valid_until)",  # the hidden memories, without a scan
    "CREATE TABLE vocab (word TEXT NOT NULL, memory TEXT NOT NULL, PRIMARY KEY (word, memory)) WITHOUT ROWID",
    *postings.DDL,
)


class ScopeIndex:
    """The index of one (tier, scope), opened fresh: call :meth:`open`."""

    def __init__(self, store: Any, tier: str, scope: Scope) -> None:
        self.store = store
        self.tier = tier
        self.scope = scope
        self.key = scope_key(tier, scope)
        self.path = index_path(store.base, tier, scope)
        self.directory = store.scope_dir(tier, scope)
        self.con: sqlite3.Connection | None = None

    # -- connection -------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        con = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        con.execute("PRAGMA secure_delete = ON")  # a deleted row's text is overwritten in place
        con.execute("PRAGMA synchronous = OFF")  # rebuildable: the day files are the truth
        return con

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
        self.con = None

    def __enter__(self) -> "ScopeIndex":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _meta_ok(self, con: sqlite3.Connection) -> bool:
        try:
            rows = dict(con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            return False
        return rows.get("schema") == SCHEMA and rows.get("scope") == self.key

    def _stored_listing(self, con: sqlite3.Connection) -> dict[str, str]:
        return {n: fp for n, fp in con.execute("SELECT name, fp FROM files WHERE scope = ?", (self.key,))}

    @classmethod
    def open(cls, store: Any, tier: str, scope: Scope, *, held: bool = False, create: bool = False) -> "ScopeIndex":
        """The index, in line with the day files (rebuilt when it is not).  ``held``: the
        caller holds the scope's lock.  A scope with no day file and no index gets none
        unless ``create``.  Raises IndexUnavailable when there is none to use (the caller
        reads the files)."""
        self = cls(store, tier, scope)
        for path in (self.directory, *index_files(self.path)):  # never through a link out of the root
            problem = store._link_problem(path)
            if problem:
                raise IndexUnavailable(problem)
        if held and create and os.path.exists(self.path):
            # the writer, under the lock: the files it appends to are checked one by one
            # (note_appends); any other drift is found by the next reader's full check
            try:
                self.con = self._connect()
                if self._meta_ok(self.con):
                    return self
            except sqlite3.DatabaseError:
                pass
            self.close()
        listing = day_listing(self.directory)
        if not listing and not create and not os.path.exists(self.path):
            raise NothingStored("nothing stored in this scope")
        for attempt in (1, 2):
            try:
                self.con = self._connect()
                if self._meta_ok(self.con) and self._stored_listing(self.con) == listing:
                    return self
                self._rebuild_locked(held)
                return self
            except (sqlite3.DatabaseError, OSError, ValueError, KeyError, TypeError) as exc:
                self.close()
                if attempt == 2:
                    raise IndexUnavailable(f"memory index {os.path.basename(self.path)}: {exc}") from exc
                remove(self.path)
                listing = day_listing(self.directory)
        raise IndexUnavailable("unreachable")  # pragma: no cover

    # -- rebuild ----------------------------------------------------------------------

    def _rebuild_locked(self, held: bool) -> None:
        with contextlib.nullcontext() if held else self.store._scope_lock(self.tier, self.scope):
            self.close()
            self.con = self._connect()  # the file another process may have rebuilt while we waited
            if self._meta_ok(self.con) and self._stored_listing(self.con) == day_listing(self.directory):
                return
            self.close()
            remove(self.path)  # a new file: nothing of the old one (or of a foreign one) survives
            self.con = self._connect()
            self._rebuild()

    def _rebuild(self) -> None:
        con = self.con
        assert con is not None
        listing = day_listing(self.directory)
        con.execute("BEGIN IMMEDIATE")
        try:
            for ddl in _DDL:
                con.execute(ddl)
            con.executemany("INSERT INTO meta VALUES (?, ?)", (("schema", SCHEMA), ("scope", self.key)))
            entries: list[tuple] = []
            docs: list[tuple[int, list[str], list[str], list[str]]] = []
            files: list[tuple] = []
            recs: list[_mempolicy.MemoryRecord] = []
            for name in sorted(listing):
                fp = listing[name]
                day = DAY_RE.match(name).group(1)  # type: ignore[union-attr]  # day_listing names match DAY_RE
                try:
                    raw, st = read_day_file(os.path.join(self.directory, name))
                    fp = fingerprint(st)
                    secs = file_sections(raw)
                except (OSError, MalformedConcept) as exc:
                    why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    files.append((name, self.key, fp, -1, why))
                    continue
                files.append((name, self.key, fp, len(secs), None))
                for seq, sec in enumerate(secs, start=1):
                    row, rec = self._entry_row(name, day, seq, sec, len(docs))
                    entries.append(row)
                    recs.append(rec)
                    if not rec.change:
                        docs.append((row[0], *self._doc_terms(row[6], sec.text)))
            con.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)", files)
            con.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
            postings.write(con, docs, 0)
            folded = _mempolicy.fold(recs)
            con.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [self._record_row(r) for r in folded.values()])
            con.executemany("INSERT OR IGNORE INTO vocab VALUES (?, ?)",
                            [(w, r.id) for r in folded.values() for w in _mempolicy.vocabulary(r.text)])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _entry_row(self, name: str, day: str, seq: int, sec: Section, ordinal: int
                   ) -> tuple[tuple, _mempolicy.MemoryRecord]:
        """The entries row of one section; ``ordinal``: its document's, when it is one (not a change record)."""
        entry_id = f"{self.key}/{day}#{seq}"
        rec = _mempolicy.parse(sec.text, entry_id, day)
        row = (place(day, seq), self.key, name, day, seq, sec.clock, title(sec.text), sec.text, sec.start, sec.end, rec.id,
               int(bool(rec.change)), record_json(rec), None if rec.change else ordinal)
        return row, rec

    @staticmethod
    def _doc_terms(title: str, text: str) -> tuple[list[str], list[str], list[str]]:
        """The search terms of one entry's title and body, and its facet terms (what the postings hold)."""
        fields = entry_fields(title, text)
        return bm25.stemmed_terms(fields["title"]), bm25.stemmed_terms(fields["body"]), speaker_terms(title)

    def _record_row(self, rec: _mempolicy.MemoryRecord) -> tuple:
        return (rec.id, self.key, rec.status, rec.valid_until or None, rec.kind, norm_digest(rec.text),
                record_json(rec), len(_mempolicy.vocabulary(rec.text)))

    # -- incremental update (the store calls this under the scope lock) ---------------

    def note_appends(self, files: Sequence[tuple[str, str | None, str, int, Sequence[Section]]]) -> bool:
        """Add the sections just appended: ``(name, fingerprint before (None: a new file),
        fingerprint after, sections before, [appended sections])`` per file, oldest day
        first.  False (and the fingerprints cleared, so the next reader rebuilds) when the
        index did not match a file before the append."""
        con = self.con
        assert con is not None
        con.execute("BEGIN IMMEDIATE")
        try:
            ok = self._meta_ok(con)
            for name, before, _after, count, _secs in files:
                row = con.execute("SELECT fp, sections FROM files WHERE name = ? AND scope = ?",
                                  (name, self.key)).fetchone()
                if (tuple(row) if row is not None else None) != ((before, count) if before is not None else None):
                    ok = False
            if not ok:
                con.execute("DELETE FROM files")
                con.execute("COMMIT")
                return False
            newest = con.execute("SELECT max(name) FROM files WHERE scope = ?", (self.key,)).fetchone()[0]
            first = con.execute("SELECT length(rids) / 8 FROM docmap WHERE id = 0").fetchone()[0]
            from okfpro.io.progress import bar

            rows = []
            docs: list[tuple[int, list[str], list[str], list[str]]] = []
            progress = bar(len(files), "updating the index")
            for n, (name, _before, after, count, secs) in enumerate(files, 1):
                progress.tick(n)
                day = DAY_RE.match(name).group(1)  # type: ignore[union-attr]  # day_listing names match DAY_RE
                made = []
                for seq, sec in enumerate(secs, start=count + 1):
                    entry, rec = self._entry_row(name, day, seq, sec, first + len(docs))
                    made.append((entry, rec))
                    if not rec.change:
                        docs.append((entry[0], *self._doc_terms(entry[6], sec.text)))
                rows.append((name, after, count, secs, made))
            added = [rec for *_, made in rows for _entry, rec in made]
            in_order = newest is None or min(f[0] for f in files) >= newest or self._commute(added)
            for name, after, count, secs, made in rows:
                con.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                [entry for entry, _rec in made])
                con.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, NULL)",
                            (name, self.key, after, count + len(secs)))
            bar(0, "folding the records")
            postings.write(con, docs, first)
            if in_order:
                self._fold_in(added)
            else:
                self._refold()  # written into an earlier day, before records it may change places with
            con.execute("COMMIT")
            return True
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _commute(self, added: Sequence[_mempolicy.MemoryRecord]) -> bool:
        """Does replaying ``added`` (written into an earlier day than the newest indexed one)
        after every indexed record fold to what replaying them in their place does?  Yes when
        none is a change record nor supersedes another (:func:`~okfpro.core.mempolicy.fold_step`
        then only sets its own id) and no indexed record carries or names one of their ids (no
        record after it reads that id, and no earlier twin stands instead).  Otherwise the
        scope is replayed whole (~1 s at 10,000 entries); this keeps a write into a past day
        (a pinned or skewed clock, a dated import) as cheap as one into today."""
        if any(rec.change or rec.supersedes for rec in added):
            return False
        con = self.con
        assert con is not None
        for mid in {rec.id for rec in added}:
            # as record_json spells it: a twin carries it as its own "id", a later record names it
            quoted = json.dumps(mid, ensure_ascii=False)
            if con.execute("SELECT 1 FROM entries WHERE scope = ? AND instr(rec, ?) LIMIT 1",
                           (self.key, quoted)).fetchone():
                return False
        return True

    def _fold_in(self, added: Sequence[_mempolicy.MemoryRecord]) -> None:
        """Replay ``added`` (written after every indexed record) against the effective records
        they touch (:func:`~okfpro.core.mempolicy.fold_touches`), read once each, and write back
        those that changed: one statement for the records and one for the new ids' vocabulary."""
        con = self.con
        assert con is not None
        out: dict[str, _mempolicy.MemoryRecord] = {}
        seen: set[str] = set()
        for rec in added:
            wanted = [i for i in _mempolicy.fold_touches(rec) if i and i not in seen]
            for at in range(0, len(wanted), 500):
                chunk = wanted[at:at + 500]
                for raw in con.execute(f"SELECT rec FROM records WHERE scope = ? AND memory IN ({','.join('?' * len(chunk))})",
                                       (self.key, *chunk)):
                    r = record_of(raw[0])
                    out[r.id] = r
            seen.update(wanted)
        before = dict(out)
        for rec in added:
            _mempolicy.fold_step(out, rec)
        changed = [r for rid, r in out.items() if before.get(rid) != r]
        con.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [self._record_row(r) for r in changed])
        con.executemany("INSERT OR IGNORE INTO vocab VALUES (?, ?)",
                        [(w, r.id) for r in changed if r.id not in before for w in _mempolicy.vocabulary(r.text)])

    def _refold(self) -> None:
        con = self.con
        assert con is not None
        recs = [record_of(raw) for (raw,) in con.execute(
            "SELECT rec FROM entries WHERE scope = ? ORDER BY rid", (self.key,))]
        folded = _mempolicy.fold(recs)
        con.execute("DELETE FROM records")
        con.execute("DELETE FROM vocab")
        con.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [self._record_row(r) for r in folded.values()])
        con.executemany("INSERT OR IGNORE INTO vocab VALUES (?, ?)",
                        [(w, r.id) for r in folded.values() for w in _mempolicy.vocabulary(r.text)])

    def sections_of(self, name: str, fp: str) -> int | None:
        """How many sections ``name`` holds, when the index saw it with fingerprint ``fp``."""
        assert self.con is not None
        row = self.con.execute("SELECT fp, sections FROM files WHERE name = ? AND scope = ?", (name, self.key)).fetchone()
        return row[1] if row is not None and row[0] == fp and row[1] >= 0 else None

    # -- reading ----------------------------------------------------------------------

    def problems(self) -> list[tuple[str, str]]:
        """(file name, why) for each day file that could not be loaded."""
        assert self.con is not None
        return list(self.con.execute("SELECT name, error FROM files WHERE scope = ? AND sections < 0 ORDER BY name",
                                     (self.key,)))

    def record(self, memory: str) -> _mempolicy.MemoryRecord | None:
        assert self.con is not None
        row = self.con.execute("SELECT rec FROM records WHERE scope = ? AND memory = ?", (self.key, memory)).fetchone()
        return record_of(row[0]) if row else None

    def has_text(self, text: str, kind: str) -> bool:
        """Does any record (live or not) of ``kind`` hold this normalised text?"""
        assert self.con is not None
        norm = _mempolicy.normalise(text)
        for (raw,) in self.con.execute("SELECT rec FROM records WHERE scope = ? AND norm = ? AND kind = ?",
                                       (self.key, norm_digest(text), kind)):
            if _mempolicy.normalise(record_of(raw).text) == norm:
                return True
        return False

    def _visible_sql(self, alias: str = "r") -> str:
        return (f"{alias}.status NOT IN ({HIDDEN_SQL}) AND NOT ({alias}.status IN ({EXPIRING_SQL}) "
                f"AND {alias}.valid_until IS NOT NULL AND {alias}.valid_until < ?)")

    def candidates(self, new: _mempolicy.MemoryRecord, today: str, wanted: Iterable[str] = ()) -> list[_mempolicy.MemoryRecord]:
        """Every live record :func:`okfpro.core.mempolicy.decide_write` could act on for ``new``:
        the same normalised text, a vocabulary overlap that can reach ``RELATED_AT``, or
        an id named by the caller.  Never a scan of the scope."""
        con = self.con
        assert con is not None
        out: dict[str, _mempolicy.MemoryRecord] = {}
        visible = self._visible_sql()
        for (raw,) in con.execute(f"SELECT r.rec FROM records r WHERE r.scope = ? AND r.norm = ? AND {visible}",
                                  (self.key, norm_digest(new.text), today)):
            rec = record_of(raw)
            out[rec.id] = rec
        words = sorted(_mempolicy.vocabulary(new.text))
        if words:
            for raw in self._overlapping(con, words, visible, today):
                rec = record_of(raw)
                out[rec.id] = rec
        for memory in wanted:
            named = self.record(memory)
            if named is not None:
                out[named.id] = named
        return list(out.values())

    def _overlapping(self, con: sqlite3.Connection, words: list[str], visible: str, today: str) -> list[str]:
        """The stored records (JSON) whose vocabulary overlap with ``words`` can reach RELATED_AT.

        Jaccard k / (a + b - k) >= RELATED_AT (a, b: the two vocabularies' sizes, k: shared
        words) needs k >= RELATED_AT * a (b >= k) and k >= RELATED_AT * (a + b - k): both bounds
        in SQL, with the threshold lowered by the 4-place rounding of the score, so only
        records that can reach it are decoded.  And never by reading a common word's whole
        posting list (``note`` in 10,000 memories): a record sharing one of the new text's
        rare words is found through those; one sharing only common words (k <= len(common))
        has b <= k * (1 + t) / t - a, so it is found through the size index, among the
        records that small -- none at all when that bound is below one word; when many
        records are that small, through the common postings (the cost of old, no worse)."""
        at = _mempolicy.RELATED_AT - 0.0001
        a = len(words)
        need = max(1, math.ceil(a * at))
        common = [w for w in words if con.execute(
            "SELECT count(*) FROM (SELECT 1 FROM vocab WHERE word = ? LIMIT ?)", (w, COMMON_AT)).fetchone()[0] >= COMMON_AT]
        rare = [w for w in words if w not in common]
        rmarks, cmarks = ",".join("?" * len(rare)) or "NULL", ",".join("?" * len(common)) or "NULL"
        fits = f"k >= ? AND k >= ? * (? + r.nwords - k) AND r.scope = ? AND {visible}"
        out: list[str] = []
        if rare:  # every record sharing a rare word: their postings, then a probe per common word
            out += [raw for (raw,) in con.execute(
                f"SELECT r.rec FROM (SELECT memory, count(*) + (SELECT count(*) FROM vocab c WHERE c.word IN ({cmarks}) "
                f"AND c.memory = x.memory) AS k FROM vocab x WHERE x.word IN ({rmarks}) GROUP BY memory) g "
                f"JOIN records r ON r.memory = g.memory WHERE {fits}",
                (*common, *rare, need, at, a, self.key, today))]
        bound = math.floor(len(common) * (1 + at) / at - a)
        if common and bound >= 1:  # records sharing common words only, each at most `bound` words long
            cap = COMMON_AT * len(common)
            small = con.execute("SELECT count(*) FROM (SELECT 1 FROM records WHERE nwords <= ? LIMIT ?)",
                                (bound, cap)).fetchone()[0]
            if small < cap:  # few records are that small: through records_size
                found = (f"SELECT memory, (SELECT count(*) FROM vocab c WHERE c.word IN ({cmarks}) "
                         f"AND c.memory = s.memory) AS k FROM records s WHERE s.nwords <= ?")
            else:  # many are: the common postings after all (what every query cost before)
                found = (f"SELECT memory, count(*) AS k FROM vocab c WHERE c.word IN ({cmarks}) GROUP BY memory "
                         f"HAVING count(*) >= {need:d}")
            out += [raw for (raw,) in con.execute(
                f"SELECT r.rec FROM ({found}) g JOIN records r ON r.memory = g.memory WHERE r.nwords <= ? AND NOT "
                f"EXISTS (SELECT 1 FROM vocab x WHERE x.word IN ({rmarks}) AND x.memory = r.memory) AND {fits}",
                (*common, *((bound,) if small < cap else ()), bound, *rare, need, at, a, self.key, today))]
        return out

    def last_entry(self) -> Any | None:
        assert self.con is not None
        row = self.con.execute(
            "SELECT rid, name, date, seq, clock, title, text, start, end FROM entries WHERE scope = ? "
            "ORDER BY rid DESC LIMIT 1", (self.key,)).fetchone()
        return self._stored(row) if row else None

    def _stored(self, row: Sequence[Any]) -> Any:
        _rid, name, date, seq, clock, title, text = row[:7]
        return StoredEntry(tier=self.tier, id=f"{self.key}/{date}#{seq}", concept_id=f"{self.key}/{date}", date=date,
                           time=clock, title=title, text=text, path=f"{self.key}/{name}", seq=seq)

    def search(self, query: str, today: str, include_hidden: bool = False, limit: int | None = None,
               speaker: float | None = None) -> list[Hit]:
        """What :func:`scan_tier` answers over the files, from the index (every matched document
        scored from the postings: :mod:`okfpro.core.postings`); every hit is checked against its
        day file before it is returned."""
        con = self.con
        assert con is not None
        tokens = recall_terms(query)
        if not tokens:
            return []
        try:
            rids, prev, nxt, total = postings.docmap(con)
            phrases = [postings.phrase(con, tok) for tok in tokens]
            boost = SPEAKER if speaker is None else speaker
            boosted = postings.boosted(con, asked_speakers(tokens)) if boost else []
            top = _postings.ranked(len(rids), total, phrases, prev, nxt, rids, self._hidden(today, include_hidden),
                                   limit, WEIGHTS, NEIGHBOUR, LENGTH_B, boosted, boost)
            top = [(rids[o], score) for o, score in top]
        except (ValueError, IndexError, OverflowError) as exc:  # a torn or hand-edited index
            raise IndexUnavailable(f"memory index {os.path.basename(self.path)}: {exc}") from exc
        details: dict[int, tuple] = {}
        for at in range(0, len(top), 500):
            chunk = [rid for rid, _score in top[at:at + 500]]
            details.update((row[0], row) for row in con.execute(
                "SELECT e.rid, e.name, e.date, e.seq, e.clock, e.title, e.text, e.start, e.end, r.rec FROM entries e "
                "JOIN records r ON r.memory = e.memory AND r.scope = e.scope "
                f"WHERE e.scope = ? AND e.change = 0 AND e.rid IN ({','.join('?' * len(chunk))})", (self.key, *chunk)))
        rows: list[tuple] = []
        hits: list[Hit] = []
        for rid, score in top:
            row = details.get(rid)  # None: a row id of another scope (a hand-edited index) is never shown
            if row is None:
                continue
            rows.append(row)
            rec = record_of(row[9])
            status = visible_status(rec, today, include_hidden)
            if status is None:
                continue
            hits.append(Hit(self._stored(row), score, rec, status))
        self._verify(rows)
        return hits

    def _hidden(self, today: str, include_hidden: bool) -> list[int]:
        """The ordinals of the documents the policy hides (none with ``include_hidden``)."""
        con = self.con
        assert con is not None
        if include_hidden:
            return []
        return [o for (o,) in con.execute(
            f"SELECT e.ord FROM records c JOIN entries e ON e.memory = c.memory WHERE c.scope = ? AND e.ord IS NOT NULL "
            f"AND (c.status IN ({HIDDEN_SQL}) OR (c.status IN ({EXPIRING_SQL}) AND c.valid_until < ?))",
            (self.key, today))]

    def _verify(self, rows: Sequence[Sequence[Any]]) -> None:
        """Each returned entry is read back from its day file: same section, same text."""
        by_file: dict[str, list[Sequence[Any]]] = {}
        for row in rows:
            by_file.setdefault(row[1], []).append(row)
        for name, items in by_file.items():
            try:
                fd = os.open(os.path.join(self.directory, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError as exc:
                raise IndexUnavailable(f"{name}: {exc.strerror}") from exc
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
                    raise IndexUnavailable(f"{name}: not a regular file of this scope alone")
                for row in items:
                    start, end = int(row[7]), int(row[8])
                    if start < 0 or end <= start or end - start > 16 * 1024 * 1024:
                        raise IndexUnavailable("an entry span is out of range")
                    chunk = os.pread(fd, end - start, start)
                    try:
                        parsed = sections(chunk.decode("utf-8"))
                    except UnicodeDecodeError as exc:
                        raise IndexUnavailable("an entry span is not text") from exc
                    if len(parsed) != 1 or parsed[0] != (row[4], row[6]):
                        raise IndexUnavailable(f"{name}: the index does not match the file")
            finally:
                os.close(fd)


# ---------------------------------------------------------------------------- the doors


@contextlib.contextmanager
def opened(store: Any, tier: str, scope: Scope) -> Iterator[ScopeIndex | None]:
    """The fresh index of (tier, scope), or None when it cannot be had (read the files).
    ``OKFPRO_MEMORY_INDEX=off`` turns it off (the index-free reference path)."""
    if os.environ.get("OKFPRO_MEMORY_INDEX") == "off":
        yield None
        return
    try:
        idx = ScopeIndex.open(store, tier, scope)
    except NothingStored:
        yield _Empty()  # type: ignore[misc]  # answers as an index that holds nothing
        return
    except IndexUnavailable:
        yield None
        return
    try:
        yield idx
    finally:
        idx.close()


def last_entry(store: Any, tier: str, scope: Scope) -> Any | None:
    """The newest entry of (tier, scope), from the index, else from the files."""
    with opened(store, tier, scope) as idx:
        if idx is not None:
            return idx.last_entry()
    entries = store._tier_entries(tier, scope, [])
    return entries[-1] if entries else None


def search_tier(store: Any, tier: str, scope: Scope, query: str, today: str, include_hidden: bool,
                limit: int | None, diags: list, speaker: float | None = None) -> list[Hit]:
    """One tier's hits: from the index, else (or when the index disagrees with a file
    twice) from the files."""
    for _attempt in (1, 2):
        with opened(store, tier, scope) as idx:
            if idx is None:
                break
            try:
                hits = idx.search(query, today, include_hidden, limit, speaker)
            except IndexUnavailable:
                remove(idx.path)
                continue
            except sqlite3.DatabaseError:
                remove(idx.path)
                continue
            source = f"memory:{tier}"
            for name, why in idx.problems():
                diags.append(Diagnostic("SourceUnavailable", source, f"{idx.key}/{name} could not be loaded: {why}"))
            return hits
    entries = store._tier_entries(tier, scope, diags)
    return scan_tier(query, entries, today, include_hidden, limit, speaker)


def recall(store: Any, scope: Scope, query: str, today: str, include_hidden: bool = False,
           limit: int | None = None, tiers: Sequence[str] | None = None, speaker: float | None = None
           ) -> tuple[list[Hit], list]:
    """The scope's applicable tiers, most specific first, each ranked on its own with the
    policy applied before the order and the limit; ``(hits, diagnostics)``.  ``speaker``: the
    speaker boost (:data:`okfpro.memory.ranking.SPEAKER` by default; ``okfpro eval recall`` shows
    the ranking without it at 0.0)."""
    diags: list = []
    hits: list[Hit] = []
    if not isinstance(query, str) or not query.strip():
        return hits, diags
    for tier in tiers if tiers is not None else applicable_tiers(scope, store.tiers):
        room = None if limit is None else limit - len(hits)
        if room is not None and room <= 0:
            break
        hits.extend(search_tier(store, tier, scope, query, today, include_hidden, room, diags, speaker))
    return hits, diags


def scan_recall(store: Any, scope: Scope, query: str, today: str, include_hidden: bool = False,
                limit: int | None = None) -> tuple[list[Hit], list]:
    """:func:`recall` without any index (the reference the tests compare against)."""
    diags: list = []
    hits: list[Hit] = []
    if not isinstance(query, str) or not query.strip():
        return hits, diags
    for tier in applicable_tiers(scope, store.tiers):
        room = None if limit is None else limit - len(hits)
        if room is not None and room <= 0:
            break
        entries = store._tier_entries(tier, scope, diags)
        hits.extend(scan_tier(query, entries, today, include_hidden, room))
    return hits, diags
