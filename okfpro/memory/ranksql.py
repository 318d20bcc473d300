"""Memory recall's ranking in SQL over one scope's index (:class:`okfpro.memory.index.ScopeIndex`
holds the connection, the scope key and the pruning that chooses ``essential`` and ``narrow``)."""

from __future__ import annotations

from okfpro.core import mempolicy as _mempolicy
from okfpro.memory import ranking
from okfpro.memory.ranking import WEIGHTS

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    import sqlite3
    from typing import Any, Callable, Sequence

HIDDEN_SQL = ", ".join(f"'{s}'" for s in _mempolicy.HIDDEN)
EXPIRING_SQL = "'active', 'candidate', 'conflicted'"


# What the index's tokenizer (``ascii``, index._TOKENIZER) keeps whole as one token, unchanged:
# lower-case ASCII letters and digits, its token characters, and every non-ASCII character.
_KEPT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-/:@#+_")


def counted(con: sqlite3.Connection, tokens: Sequence[str], phrases: Sequence[str]) -> tuple[list[str], list[int]]:
    """``phrases`` (:func:`okfpro.memory.ranking.match_phrases` of ``tokens``) with the count of
    entries holding each; a prefix phrase whose prefix begins exactly one indexed term becomes that
    term's own phrase.  Exact: it matches the same entries at the same positions, so FTS5 scores
    it to the same bit; only FTS5's prefix work (the matched terms' position lists merged into a
    new one, in each statement and again for ``bm25``'s idf) is saved (~12.7M instructions of a
    recall of ``kilo note 4242`` at 10,000 entries).  The terms from FTS5's own vocabulary
    (``fts5vocab``: the first two terms from the prefix on, in the index's byte order; the
    entries holding one are counted as ``count(*)`` counts them); any other phrase is counted by
    its ``MATCH``."""
    con.execute("PRAGMA temp_store = MEMORY")  # never a file (the erasure proof scans the index files)
    con.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.docs_terms USING fts5vocab(main, docs, row)")
    out: list[str] = []
    counts: list[int] = []
    for tok, phrase in zip(tokens, phrases):
        after = _successor(tok[-1]) if tok and phrase.endswith("*") and all(c in _KEPT or c >= "\x80" for c in tok) \
            else None
        if after is not None:
            # the terms that begin with tok are those from tok up to (not including) tok with its last
            # character's successor: UTF-8 orders as code points do, and FTS5 orders terms by their bytes
            held = con.execute("SELECT term, doc FROM temp.docs_terms WHERE term >= ? AND term < ? LIMIT 2",
                               (tok, tok[:-1] + after)).fetchall()
            if len(held) < 2 and all(term.startswith(tok) for term, _n in held):  # none, or one term
                out.append('"' + held[0][0].replace('"', '""') + '"' if held else phrase)
                counts.append(held[0][1] if held else 0)
                continue
        out.append(phrase)
        counts.append(con.execute("SELECT count(*) FROM docs WHERE docs MATCH ?", (phrase,)).fetchone()[0])
    return out, counts


def _successor(char: str) -> str | None:
    """The character after ``char`` in code point order, or None (the last one; a surrogate)."""
    code = ord(char) + 1
    return None if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF else chr(code)


SPLIT_AT = 2000  # matched rows (the phrases' counts summed) from which the scoring is split over two threads


def ranked(con: sqlite3.Connection, key: str, phrases: Sequence[str], today: str, include_hidden: bool,
           limit: int | None, essential: str | None = None, narrow: tuple[str | None, float] | None = None,
           twin: Callable[[], sqlite3.Connection] | None = None) -> Any:
    """The ranked rows ``(rid, name, date, seq, clock, title, text, start, end, score, 0, rec)``,
    in SQL: :mod:`okfpro.memory.ranking`'s order over FTS5's scores of ``phrases`` (OR-ed), the
    policy first (the hidden memories' rows, from ``records_status``, are never scored), each
    matched entry plus ranking.NEIGHBOUR x its matched, shown neighbours' scores (ids +- 1:
    :func:`okfpro.memory.index.place`), ordered by that score then newest (the same order as :func:`order_key`: rounding is
    monotone), the limit applied in SQLite.  With ``essential`` (a MATCH expression) only the
    entries it matches and the ids within one place of them are ranked, those within two are
    scored (the neighbours' own neighbours: every rank is exact).

    ``narrow = (rare, ceiling)``: score only the ids within one place of an essential entry and
    within two of a ``rare`` one (a MATCH expression, or None), rank exactly the essential
    entries and the ids within one place of a rare one (all their neighbours are scored), and
    order every other scored row by an upper bound of its rank: its neighbours left unscored
    count as ``ceiling``, more than an entry holding no essential phrase can score (an unscored
    id inside the zone holds no match, or a hidden one: 0).  When the ``limit`` first rows of
    that order are all exactly ranked, they are the ``limit`` best of the zone, in order;
    otherwise None (the caller scores two places around every essential entry).

    ``twin``: a second connection to the same index (opened on first use).  With a limit and a
    scope of more than one day, the rows are then scored and ordered in two spans of days at
    once, the older on another thread (:func:`okfpro.io.threads.background`): an entry's
    neighbours are in its own day (``rid >> 32``), so each span's scores, neighbour sums and
    order keys are those of the whole, and the ``limit`` first of the two spans' ``limit`` first
    are the whole's.  ``tests/test_recall_sql.py`` compares it with that order computed in Python."""
    if narrow is None:
        near = "r AS MATERIALIZED (SELECT rowid AS rid FROM docs WHERE docs MATCH :essential{span})" if essential else ""
        within = [f"rid + {o} FROM r" for o in (0, -1, 1, -2, 2)] if essential else []
        ranks = " UNION ALL SELECT ".join(within[:3]) if essential else ""
    else:
        rare, _ceiling = narrow
        near = "r AS MATERIALIZED (SELECT rowid AS rid FROM docs WHERE docs MATCH :essential{span})" + (
            ", q AS MATERIALIZED (SELECT rowid AS rid FROM docs WHERE docs MATCH :rare{span})" if rare else "")
        within = ["rid FROM r", "rid - 1 FROM r", "rid + 1 FROM r"] + (
            ["rid - 2 FROM q", "rid + 2 FROM q"] if rare else [])
        ranks = "rid FROM r" + (" UNION ALL SELECT rid - 1 FROM q UNION ALL SELECT rid + 1 FROM q" if rare else "")
    params: dict[str, Any] = {
        "essential": essential, "query": " OR ".join(phrases), "key": key, "today": today,
        "limit": -1 if limit is None else limit, "rare": narrow[0] if narrow else None,
        "ceiling": narrow[1] if narrow else None}
    # the hidden memories' rows are never scored; when the scope hides none (one probe of
    # records_status) the condition is left out: a NOT IN over an empty set holds for every row,
    # and its probe cost ~1.1K instructions a matched row
    hiding = f"c.scope = :key AND (c.status IN ({HIDDEN_SQL}) OR (c.status IN ({EXPIRING_SQL}) AND c.valid_until < :today))"
    hidden = "" if include_hidden or con.execute(f"SELECT 1 FROM records c WHERE {hiding} LIMIT 1", params).fetchone() \
        is None else f" AND +rowid NOT IN (SELECT e.rid FROM records c JOIN entries e ON e.memory = c.memory WHERE {hiding})"
    # the scores land in a temporary table keyed by rid (memory only, never a file): the neighbours
    # are then two primary-key probes a row (a materialised CTE needs two automatic indexes)
    scoring = (f"INSERT INTO temp.scored WITH {near or 'x AS (SELECT 1)'} SELECT rowid, -bm25(docs, "
               f"{WEIGHTS[0]!r}, {WEIGHTS[1]!r}), " + (f"+rowid IN (SELECT {ranks})" if essential else "1")
               + " FROM docs WHERE docs MATCH :query{span}"
               + (f" AND +rowid IN (SELECT {' UNION ALL SELECT '.join(within)})" if essential else "") + hidden)
    final = f"m.score + {ranking.NEIGHBOUR!r} * (coalesce(a.score, 0.0) + coalesce(b.score, 0.0))"
    joined = ("temp.scored m LEFT JOIN temp.scored a ON a.rid = m.rid - 1 "
              "LEFT JOIN temp.scored b ON b.rid = m.rid + 1")
    if narrow is None:  # (rid, score, ranked exactly, order key)
        order = (f"SELECT m.rid, {final} AS final, 1, {final} FROM {joined} WHERE m.ranked "
                 "ORDER BY final DESC, m.rid DESC LIMIT :limit")
    else:
        bound = f"m.score + {ranking.NEIGHBOUR!r} * (coalesce(a.score, :ceiling) + coalesce(b.score, :ceiling))"
        order = (f"SELECT m.rid, {final}, m.ranked, CASE WHEN m.ranked THEN {final} ELSE {bound} END AS k "
                 f"FROM {joined} ORDER BY k DESC, m.rid DESC LIMIT :limit")
    cut = _cut(con) if twin is not None and limit is not None else None
    if twin is None or cut is None:
        got = _scored(con, scoring.replace("{span}", ""), order, params)
    else:
        from okfpro.io.threads import background

        span, second = " AND rowid >= :lo AND rowid < :hi", twin
        older = background(lambda: _scored(second(), scoring.replace("{span}", span), order,
                                           {**params, "lo": -1 << 63, "hi": cut}))
        got = _scored(con, scoring.replace("{span}", span), order, {**params, "lo": cut, "hi": (1 << 63) - 1})
        got = sorted(got + older(), key=lambda row: (row[3], row[0]), reverse=True)[:limit]
    if narrow is not None and (limit is None or len(got) < limit or not all(ok for _rid, _score, ok, _k in got)):
        return None
    top = [(rid, score) for rid, score, _ok, _k in got]
    details: dict[int, tuple] = {}
    for at in range(0, len(top), 500):
        rids = [rid for rid, _score in top[at:at + 500]]
        details.update((row[0], row) for row in con.execute(
            "SELECT e.rid, e.name, e.date, e.seq, e.clock, e.title, e.text, e.start, e.end, r.rec FROM entries e "
            "JOIN records r ON r.memory = e.memory AND r.scope = e.scope "
            f"WHERE e.scope = ? AND e.change = 0 AND e.rid IN ({','.join('?' * len(rids))})", (key, *rids)))
    return [(*details[rid][:9], score, 0, details[rid][9]) for rid, score in top if rid in details]


def _scored(con: sqlite3.Connection, scoring: str, order: str, params: dict[str, Any]) -> list[tuple]:
    """The rows ``scoring`` scores into ``temp.scored``, ranked by ``order`` (its ``limit`` first)."""
    con.execute("PRAGMA temp_store = MEMORY")
    con.execute("CREATE TEMP TABLE IF NOT EXISTS scored (rid INTEGER PRIMARY KEY, score REAL, ranked INTEGER)")
    con.execute("DELETE FROM temp.scored")
    con.execute(scoring, params)
    return con.execute(order, params).fetchall()


def _cut(con: sqlite3.Connection) -> int | None:
    """A row id at the start of a day (``place``'s high half), at or below the middle entry's and
    above the first entry's, or None (one day): the rows below it and those from it on are two
    spans of whole days, about half of the entries each (a middle by date would put the busy days
    in one span)."""
    low, high, middle = con.execute(
        "SELECT min(rid), max(rid), (SELECT rid FROM entries ORDER BY rid LIMIT 1 OFFSET "
        "(SELECT count(*) / 2 FROM entries)) FROM entries").fetchone()
    if low is None or low >> 32 == high >> 32:
        return None
    return max(middle >> 32, (low >> 32) + 1) << 32
