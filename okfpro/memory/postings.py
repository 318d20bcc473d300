"""The memory index's postings: what recall ranks from (:mod:`okfpro.core.postings` ranks them).

Two tables of the scope's index (:mod:`okfpro.memory.index`):

* ``postings``: one row per term and code (:func:`okfpro.core.postings.code`), the ordinals of the
  documents holding the term with that code (``int32``, ascending), an array in the machine's byte
  order (the index is this machine's alone: the schema names the byte order, so a copied file is
  rebuilt).  Grouped by code, a phrase's share is looked up once per group, not per posting;
* facet terms (:mod:`okfpro.core.facets`: ``@s:<word>``, the speaker) in the same table with code 0:
  no query word spells them (:func:`boosted` reads them by name);
* ``docmap``: one row, per ordinal the document's row id; the neighbours in its day file that are
  not the ordinals just before and after it (-1: none), as (ordinal, neighbour) pairs -- day
  boundaries and writes into past days, a few per day; and the sum of the documents' lengths.

A write appends (the new documents take the next ordinals; a group's array grows by a blob
concatenation in SQLite, never read back into Python); anything else rebuilds the index.  The
terms are the search tokens of :func:`okfpro.core.bm25.stemmed_terms`, as FTS5 held them before
(the erasure proof scans these files like any other index file).
"""

from __future__ import annotations

import sys
from array import array

from okfpro.core import postings as _postings

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    import sqlite3
    from typing import Sequence

DDL = (
    "CREATE TABLE postings (term TEXT NOT NULL, code INTEGER NOT NULL, ords BLOB NOT NULL, UNIQUE (term, code))",
    "CREATE TABLE docmap (id INTEGER PRIMARY KEY CHECK (id = 0), rids BLOB NOT NULL, prev BLOB NOT NULL,"
    " next BLOB NOT NULL, tokens INTEGER NOT NULL)",
)
BYTE_ORDER = sys.byteorder  # part of the index's schema name


def _array(kind: str, blob: bytes = b"") -> array:
    out = array(kind)
    out.frombytes(blob)
    return out


def _pairs(blob: bytes) -> dict[int, int]:
    flat = _array("q", blob)
    if len(flat) % 2:
        raise ValueError("the index's document map is torn")
    return dict(zip(flat[::2], flat[1::2]))


def _blob(pairs: dict[int, int]) -> bytes:
    return array("q", [v for pair in sorted(pairs.items()) for v in pair]).tobytes()


def write(con: sqlite3.Connection, docs: Sequence[tuple[int, Sequence[str], Sequence[str], Sequence[str]]],
          first: int) -> None:
    """Index ``docs`` (row id, title terms, body terms, facet terms), ordinals ``first``, ``first + 1``, ...;
    their entries rows (with their ordinals) are already written.  ``first`` 0: a new index."""
    rids, prev, nxt, tokens = docmap(con) if first else (array("q"), {}, {}, 0)
    if len(rids) != first:
        raise ValueError("the index's documents do not match its entries")
    groups: dict[tuple[str, int], array] = {}
    for o, (rid, title_terms, body_terms, facet_terms) in enumerate(docs, start=first):
        length, codes = _postings.document(title_terms, body_terms)
        tokens += length
        rids.append(rid)
        codes.update(dict.fromkeys(facet_terms, 0))
        for term, c in codes.items():
            cell = groups.get((term, c))
            if cell is None:
                cell = groups[(term, c)] = array("i")
            cell.append(o)
    # neighbours: the documents at row id +- 1 (their entries rows hold their ordinals)
    new = {rid: o for o, (rid, *_terms) in enumerate(docs, start=first)}
    for rid, o in new.items():
        for other, here, there, step in ((rid - 1, prev, nxt, -1), (rid + 1, nxt, prev, 1)):
            found = new.get(other)
            if found is None and first:
                hit = con.execute("SELECT ord FROM entries WHERE rid = ? AND ord IS NOT NULL", (other,)).fetchone()
                found = hit[0] if hit else None
            _link(here, o, -1 if found is None else found, step)
            if found is not None:
                _link(there, found, o, -step)
    con.execute("INSERT OR REPLACE INTO docmap VALUES (0, ?, ?, ?, ?)",
                (rids.tobytes(), _blob(prev), _blob(nxt), tokens))
    con.executemany(
        "INSERT INTO postings VALUES (?, ?, ?) ON CONFLICT (term, code) DO UPDATE SET "
        "ords = CAST(ords || excluded.ords AS BLOB)",
        ((term, c, ords.tobytes()) for (term, c), ords in groups.items()))


def _link(side: dict[int, int], o: int, other: int, step: int) -> None:
    """Record ``other`` as ``o``'s neighbour on one side: kept only when it is not ``o + step``
    (the ordinal next to it), which every document's neighbour is unless recorded."""
    if other == o + step:
        side.pop(o, None)
    else:
        side[o] = other


def phrase(con: sqlite3.Connection, token: str) -> list[tuple[int, Sequence[int]]]:
    """One query token's postings, grouped by code: ``[(code, ordinals)]``: those of every term it
    matches (:func:`okfpro.core.postings.term_range`), merged when a prefix begins several
    (:func:`okfpro.core.postings.merged`)."""
    where, args = _postings.term_range(token)
    rows = con.execute(f"SELECT term, code, ords FROM postings WHERE {where}", args).fetchall()
    groups = [(term, code, _array("i", ords)) for term, code, ords in rows]
    if len({term for term, _c, _o in groups}) > 1:
        return _postings.merged(groups)
    return [(code, ords) for _term, code, ords in groups]


def boosted(con: sqlite3.Connection, terms: Sequence[str]) -> list[int]:
    """The ordinals of the documents holding any of the facet ``terms`` (exact terms, code 0)."""
    out: list[int] = []
    wanted = list(dict.fromkeys(terms))
    for at in range(0, len(wanted), 500):  # SQLite's bound on parameters, whatever the query's length
        chunk = wanted[at:at + 500]
        for (ords,) in con.execute(f"SELECT ords FROM postings WHERE code = 0 AND term IN ({','.join('?' * len(chunk))})",
                                   chunk):
            out.extend(_array("i", ords))
    return out


def docmap(con: sqlite3.Connection) -> tuple[array, dict[int, int], dict[int, int], int]:
    """(row ids per ordinal, the previous and the next neighbours that are not the ordinals
    just before and after, tokens)."""
    row = con.execute("SELECT rids, prev, next, tokens FROM docmap WHERE id = 0").fetchone()
    if row is None:
        raise ValueError("the index has no document map")
    rids, prev, nxt = _array("q", row[0]), _pairs(row[1]), _pairs(row[2])
    rows = len(rids)
    if any(not 0 <= o < rows or not -1 <= n < rows for side in (prev, nxt) for o, n in side.items()):
        raise ValueError("the index's document map is torn")
    return rids, prev, nxt, row[3]
