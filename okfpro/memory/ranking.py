"""How memory is ranked, defined once for the index and for the index-free scan.

Within a tier: BM25 over (title ×5, body ×1) with corpus statistics over every memory
entry of the tier (change records are not documents), terms stemmed by
:mod:`okfpro.core.stem`; the policy hides superseded, expired and archived memories
*before* the order and the limit; order = distinct query terms matched, then the score
rounded to 4 places, then newest first.  :func:`scan_tier` is that definition over a list
of entries; :mod:`okfpro.memory.index` answers the same from SQLite FTS5 and is tested
equal to it.  Also here: the record (de)serialisation and the normalised-text digest both
sides use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Sequence

from okfpro.core import bm25
from okfpro.core import mempolicy as _mempolicy
from okfpro.core import search as _search
from okfpro.memory.entries import Passage, excerpt, records_by_entry

FIELDS = ("title", "body")
WEIGHTS = (_search.WEIGHTS["title"], _search.WEIGHTS["body"])


def entry_fields(title: str, text: str) -> dict[str, str]:
    """The searched fields of one entry (the pure engine and the index read the same)."""
    return {"id": "", "title": title, "body": text}


_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(_mempolicy.MemoryRecord))


def record_json(rec: _mempolicy.MemoryRecord) -> str:
    return json.dumps({name: getattr(rec, name) for name in _RECORD_FIELDS}, ensure_ascii=False,
                      separators=(",", ":"))


_TUPLES = tuple(f.name for f in dataclasses.fields(_mempolicy.MemoryRecord) if str(f.type).startswith("tuple"))


def record_of(raw: str) -> _mempolicy.MemoryRecord:
    data = json.loads(raw)
    for name in _TUPLES:
        data[name] = tuple(data.get(name) or ())
    return _mempolicy.MemoryRecord(**data)


def norm_digest(text: str) -> str:
    return hashlib.blake2b(_mempolicy.normalise(text).encode("utf-8"), digest_size=12).hexdigest()


def visible_status(rec: _mempolicy.MemoryRecord, today: str, include_hidden: bool) -> str | None:
    """The status recall shows ``rec`` with, or None when the policy hides it."""
    if rec.change:
        return None
    status = rec.status
    if status in ("active", "candidate", "conflicted") and rec.valid_until and rec.valid_until < today:
        status = "expired"
    if status in _mempolicy.HIDDEN and not include_hidden:
        return None
    return status


def order_key(coverage: int, score: float, date: str, seq: int) -> tuple:
    return (coverage, round(score, 4), date, seq)


@dataclass(frozen=True)
class Hit:
    entry: Any  # okfpro.memory.store.StoredEntry
    score: float
    record: _mempolicy.MemoryRecord
    status: str

    def passage(self, query: str) -> Any:
        return Passage(self.entry, round(self.score, 4), excerpt(self.entry.text, query))


def scan_tier(
    query: str,
    entries: Sequence[Any],
    today: str,
    include_hidden: bool = False,
    limit: int | None = None,
) -> list[Hit]:
    """The index-free ranking of one tier's entries (oldest first): what the index answers."""
    tokens = bm25.stemmed_query(query)
    if not entries or not tokens:
        return []
    pairs = records_by_entry(entries)
    folded = _mempolicy.fold(rec for _, rec in pairs)
    docs = [(e, rec) for e, rec in pairs if not rec.change]
    if not docs:
        return []
    index = bm25.RankedIndex([_search.Doc(e.id, entry_fields(e.title, e.text)) for e, _ in docs], fields=FIELDS,
                          tokenizer=bm25.stemmed_terms)
    scores, _matched, _hits = index.scores(tokens)
    covered: dict[int, int] = {}
    for qt in tokens:
        seen: set[int] = set()
        for tok in index.expand(qt):
            seen.update(index.postings[tok])
        for i in seen:
            covered[i] = covered.get(i, 0) + 1
    ranked = []
    for i, score in scores.items():
        entry, rec = docs[i]
        effective = folded.get(rec.id, rec)
        status = visible_status(effective, today, include_hidden)
        if status is None:
            continue
        ranked.append((order_key(covered.get(i, 0), score, entry.date, entry.seq), Hit(entry, score, effective, status)))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    hits = [h for _, h in ranked]
    return hits if limit is None else hits[:limit]


def match_expression(tokens: Sequence[str]) -> str:
    phrases = []
    for tok in tokens:
        quoted = '"' + tok.replace('"', '""') + '"'
        phrases.append(quoted + "*" if len(tok) >= bm25.PREFIX_MIN else quoted)
    return " OR ".join(phrases)
