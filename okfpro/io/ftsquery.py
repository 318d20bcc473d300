"""The bundle index's postings (:mod:`okfpro.io.fts`): kept in step with its rows, and ranked from.

``postings``: per term (in chunks of row ids, :data:`CHUNK_BITS`), the row ids of the concepts
holding it (``int32``) and one code each (``int64``: :func:`okfpro.core.bundlepostings.code`, the
term's weighted count over every field and the concept's length), arrays in the machine's byte
order (the index's schema names it).  :mod:`okfpro.core.bundlepostings` ranks them as the pure engine ranks (Lucene's idf:
``.okf/design/search-quality.md``).  A search of some fields only (``--in``) counts each
field's instances with FTS5's own vocabulary of the ``docs`` table instead (``fts5vocab``).

Why arrays per term and not a row per term and concept, or FTS5's ``bm25()``: measured in the
design note ("How it landed"); the prompt bench's three common words, ~5,500 postings at 2,000
concepts, rank in ~1.3 ms from arrays against ~4.5 ms from rows.  An edit rewrites the chunks of the terms
the concept held and holds (:func:`update`), in the sync's transaction.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left

from okfpro.core import bundlepostings
from okfpro.core import search as _search
from okfpro.core.postings import merge_codes, term_range

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the prompt hook's path
    from typing import Any, Iterable, Sequence

_COLS = _search.FIELDS  # the index's columns (okfpro.io.fts), in weight order
WEIGHTS = tuple(_search.WEIGHTS[c] for c in _COLS)
BYTE_ORDER = sys.byteorder  # part of the index's schema
# A term's postings are kept in rows of row ids that share their high bits (``rid >> CHUNK_BITS``):
# an edit takes its old row id out of one chunk and puts the new one (the highest) in the last, so it
# rewrites two chunks of a term, not all of its postings (at 50,000 concepts: ~7.5 MB of arrays an
# edit as one row per term, ~0.6 MB in chunks of 4,096).  Below 4,096 concepts a term is one row.
CHUNK_BITS = 12
DDL = ("CREATE TABLE postings (term TEXT NOT NULL, chunk INTEGER NOT NULL, rids BLOB NOT NULL, "
       "codes BLOB NOT NULL, PRIMARY KEY (term, chunk))",)


def _arrays(rids: bytes, codes: bytes) -> tuple[array, array]:
    a, c = array("i"), array("q")
    a.frombytes(rids)
    c.frombytes(codes)
    if len(a) != len(c):
        raise ValueError("a posting row of the index is torn")
    return a, c


def document(columns: Sequence[Sequence[str]]) -> tuple[int, dict[str, int]]:
    """A concept's length and its terms' codes (``columns``: each column's terms, in order)."""
    return bundlepostings.document(columns, WEIGHTS)


def stored_terms(columns: Sequence[str]) -> set[str]:
    """The terms of a row as the ``docs`` table holds it (each column's terms joined by spaces;
    a term holds no space)."""
    terms = set(" ".join(columns).split(" "))
    terms.discard("")
    return terms


def add(added: dict[str, tuple[list[int], list[int]]], rid: int, codes: dict[str, int]) -> None:
    """Gather row ``rid``'s term ``codes`` into ``added`` (term -> rids, codes) for :func:`update`."""
    get = added.get
    for term, c in codes.items():
        cell = get(term)
        if cell is None:
            added[term] = ([rid], [c])
        else:
            cell[0].append(rid)
            cell[1].append(c)


def _chunks(rids: list[int], codes: list[int]) -> Iterable[tuple[int, list[int], list[int]]]:
    """``(chunk, rids, codes)`` of ascending ``rids`` split where their chunk changes."""
    first, last = rids[0] >> CHUNK_BITS, rids[-1] >> CHUNK_BITS
    if first == last:
        yield first, rids, codes
        return
    start = 0
    for chunk in range(first, last + 1):
        end = bisect_left(rids, (chunk + 1) << CHUNK_BITS, start)
        if end > start:
            yield chunk, rids[start:end], codes[start:end]
        start = end


def update(con: Any, removed: dict[str, set[int]], added: dict[str, tuple[list[int], list[int]]],
           fresh: bool) -> None:
    """Take the row ids ``removed`` out of their terms' postings and put the ``added`` ones in
    (:func:`add`: ascending row ids), one read and one write per chunk touched; ``fresh``: the
    table is empty (a new index), nothing is read."""
    out_of: dict[tuple[str, int], set[int]] = {}
    for term, stale in removed.items():
        for rid in stale:
            out_of.setdefault((term, rid >> CHUNK_BITS), set()).add(rid)
    into: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for term, (new_rids, new_codes) in added.items():
        for chunk, r, c in _chunks(new_rids, new_codes):
            into[(term, chunk)] = (r, c)
    rows: list[tuple[str, int, bytes, bytes]] = []
    gone: list[tuple[str, int]] = []
    for key in (out_of.keys() | into.keys()) if out_of else into:
        rids, codes = array("i"), array("q")
        if not fresh:
            got = con.execute("SELECT rids, codes FROM postings WHERE term = ? AND chunk = ?", key).fetchone()
            if got is not None:
                rids, codes = _arrays(*got)
        out = out_of.get(key)
        if out and rids:
            if len(out) == 1:
                try:
                    i = rids.index(next(iter(out)))
                except ValueError:  # not there: nothing to take out
                    pass
                else:
                    del rids[i], codes[i]
            else:
                keep = [i for i, rid in enumerate(rids) if rid not in out]
                rids, codes = array("i", map(rids.__getitem__, keep)), array("q", map(codes.__getitem__, keep))
        cell = into.get(key)
        if cell is not None:
            rids.extend(cell[0])
            codes.extend(cell[1])
        if rids:
            rows.append((*key, rids.tobytes(), codes.tobytes()))
        elif not fresh:
            gone.append(key)
    con.executemany("DELETE FROM postings WHERE term = ? AND chunk = ?", gone)
    con.executemany("INSERT OR REPLACE INTO postings VALUES (?, ?, ?, ?)", rows)


def rebuild(con: Any) -> None:
    """Every row's postings again, from the ``docs`` table's text (its columns' terms joined by
    spaces): when a stale row's text is missing and what it held cannot be taken out."""
    added: dict[str, tuple[list[int], list[int]]] = {}
    for rid, *columns in con.execute(f"SELECT rowid, {', '.join(_COLS)} FROM docs ORDER BY rowid"):
        add(added, rid, document([c.split(" ") if c else [] for c in columns])[1])
    con.execute("DELETE FROM postings")
    update(con, {}, added, fresh=True)


def ranked(con: Any, tokens: Sequence[str], searched: Sequence[str], limit: int | None, rank: dict[int, int],
           stats: list[Any] | None = None) -> list[tuple[int, float]]:
    """The first ``limit`` (rid, score) of the query ``tokens`` over the ``searched`` fields of the
    index behind ``con`` (in a read transaction: one snapshot), among the rows ``rank`` orders (rid
    -> place in the engine's tie order), in the engine's order.  ``stats`` (a list, given): gets
    what the scores were computed from besides each row's own codes — the rows indexed, their
    lengths summed, and each token's number of rows holding it (:func:`okfpro.io.fts.vouch`)."""
    rows, total = con.execute("SELECT count(*), coalesce(sum(len), 0) FROM files").fetchone()
    if tuple(searched) == _COLS:
        phrases: list[tuple[int, Iterable[tuple[int, int]]]] = [_phrase(con, tok) for tok in tokens]
    else:
        phrases = _in_fields(con, tokens, searched)
    if stats is not None:
        stats[:] = [rows, total, [held for held, _postings in phrases]]
    return bundlepostings.first(bundlepostings.scores(phrases, rows, total), limit, rank)


def _phrase(con: Any, tok: str) -> tuple[int, Iterable[tuple[int, int]]]:
    """One query token's postings over every field: (concepts holding it, their (rid, code)).  A
    term's chunks are joined (a row id is in one of them); a prefix's terms are merged."""
    where, args = term_range(tok)
    terms: dict[str, tuple[array, array]] = {}
    for term, rid_bytes, code_bytes in con.execute(
            f"SELECT term, rids, codes FROM postings WHERE {where} ORDER BY term, chunk", args):
        rids, codes = _arrays(rid_bytes, code_bytes)
        had = terms.get(term)
        if had is None:
            terms[term] = (rids, codes)
        else:
            had[0].extend(rids)
            had[1].extend(codes)
    if len(terms) == 1:
        ((rids, codes),) = terms.values()
        return len(rids), zip(rids, codes)
    merged = merge_codes((pair for rids, codes in terms.values() for pair in zip(rids, codes)),
                         bundlepostings.COUNT_MASK)
    return len(merged), merged.items()


def _in_fields(con: Any, tokens: Sequence[str], searched: Sequence[str]
               ) -> list[tuple[int, Iterable[tuple[int, int]]]]:
    """Each query token's postings over the ``searched`` fields only: each field's instances
    counted from FTS5's vocabulary of ``docs`` (weighted, summed per concept), each concept's
    length from ``files``; a concept holding the token in no searched field does not hold it."""
    con.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.okfpro_vocab USING fts5vocab(main, docs, instance)")
    weight = {c: _search.WEIGHTS[c] for c in searched}
    lengths: dict[int, int] | None = None
    out: list[tuple[int, Iterable[tuple[int, int]]]] = []
    for tok in tokens:
        where, args = term_range(tok)
        counts: dict[int, int] = {}
        for rid, col, n in con.execute(f"SELECT doc, col, count(*) FROM temp.okfpro_vocab WHERE {where} "
                                       "GROUP BY doc, col", args):
            w = weight.get(col)
            if w:
                counts[rid] = counts.get(rid, 0) + w * n
        if counts and lengths is None:
            lengths = dict(con.execute("SELECT rid, len FROM files"))
        out.append((len(counts), [(rid, bundlepostings.code(f, lengths[rid])) for rid, f in counts.items()
                                  if lengths is not None and rid in lengths]))
    return out
