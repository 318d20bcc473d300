"""A ranked query against a bundle's FTS5 index (:mod:`okfpro.io.fts`): the MATCH expression it is
written as, and its first rows ranked without scoring the rows only common phrases match.

:func:`common_pruned` answers :func:`okfpro.io.fts.answer_fresh`'s ranking at a fraction of the
cost when some of the query's phrases are in half the bundle's concepts or more (the bench's
prompt: three of four): see ``.okf/design/prompt-knowledge.md``.
"""

from __future__ import annotations

from okfpro.core import bm25, rx
from okfpro.core import search as _search

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the prompt hook's path
    from typing import Any, Sequence

_COLS = _search.FIELDS  # the index's columns (okfpro.io.fts), in weight order


def match_expression(tokens: Sequence[str], fields: Sequence[str]) -> str:
    phrases = []
    for tok in tokens:
        quoted = '"' + tok.replace('"', '""') + '"'
        phrases.append(quoted + "*" if len(tok) >= bm25.PREFIX_MIN else quoted)
    expr = " OR ".join(phrases)
    if tuple(fields) != tuple(_COLS):
        expr = "{" + " ".join(fields) + "} : (" + expr + ")"
    return expr


# FTS5's bm25() (fts5_aux.c): a phrase in n of the table's N rows has idf log((N - n + 0.5) / (n + 0.5)),
# replaced by 1e-6 when that is <= 0 (n >= N / 2); a row's score sums, per phrase, idf * f * (k1 + 1) /
# (f + k1 * (1 - b + b * D / avgdl)) with k1 = 1.2, b = 0.75, f > 0 the column-weighted count of the
# phrase's instances in the row.  The fraction is below k1 + 1, so such a common phrase adds less than
# this to any row's score:
_COMMON_SHARE = 1e-6 * (1.2 + 1.0)
_FLOAT_SLACK = 1e-9  # the same terms summed in another order (FTS5's own doubles: ~1e-15 of a score)
_PROBES = 24  # single-row probes for the common run before its rows are fetched whole


# Text the index's ``ascii`` tokenizer splits at its spaces only: lower-case ASCII letters, digits, the
# declared token characters (okfpro.io.fts's _TOKENIZER) and any non-ASCII character (a token character to it, never
# folded); a term of the same characters, space excluded, is one FTS5 token.
_PLAIN = rx.compile("[a-z0-9._\\-/:@#+ \u0080-\U0010ffff]*")


def row_matches(con: Any, rid: int, phrases: Sequence[str]) -> bool | None:
    """Does row ``rid`` match a phrase of ``phrases`` (a prefix phrase from :data:`bm25.PREFIX_MIN`
    characters, as :func:`match_expression` writes them), read from its stored text; None when that
    text or a phrase is not plain (:data:`_PLAIN`), and only FTS5 can say."""
    got = con.execute(f"SELECT {', '.join(_COLS)} FROM docs WHERE rowid = ?", (rid,)).fetchone()
    if got is None:
        return False  # not in the index: it matches nothing (the probe said so too)
    text = " ".join(got)
    if not all(isinstance(p, str) and p and " " not in p and _PLAIN.fullmatch(p) for p in phrases) \
            or not _PLAIN.fullmatch(text):
        return None
    terms = set(text.split(" "))
    prefixes = tuple(p for p in phrases if len(p) >= bm25.PREFIX_MIN)
    return any(p in terms for p in phrases if len(p) < bm25.PREFIX_MIN) \
        or (bool(prefixes) and any(t.startswith(prefixes) for t in terms))


def common_share(common: int) -> float:
    """More than ``common`` common phrases can add to a row's score (with the float slack)."""
    return common * _COMMON_SHARE + _FLOAT_SLACK


def rounds_as(part: float, share: float) -> float | None:
    """What a score rounds to (4 places) that is ``part`` plus less than ``share`` (and the float
    slack either way), or None when a rounding boundary lies in that span."""
    shown = round(part - _FLOAT_SLACK, 4)
    return shown if shown == round(part + share, 4) else None


def common_pruned(con: Any, tokens: Sequence[str], limit: int, ordered: list[int], rank: dict[int, int],
                   weights: str) -> list[tuple[int, float]] | None:
    """The first ``limit`` (rowid, score) of ``tokens`` over the index in the engine's order (score
    rounded to 4 places, descending, then ``rank``) without scoring the rows only common phrases
    match; None when it cannot say, and the caller ranks every matching row.

    A phrase whose exact term (no prefix) alone is in half the rows or more is common: its idf is
    FTS5's floor, and all the common phrases together add less than ``len(common) * _COMMON_SHARE``
    (well below 0.00005) to a row.  So a row that only common phrases match scores 0 once rounded,
    and ties with every such row: their order is ``rank``.  The rows the other (rare) phrases match
    are scored by FTS5 over the rare phrases alone (the same idf, sizes and weights: each rare term
    of the full score, less the common ones); each such score rounds as the full one does unless it
    lies within the common phrases' share of a rounding boundary (then None).  The rows ranked above
    0 come first; the rest are the lowest-``rank`` rows that match at all, found by a probe of the
    common phrases' exact terms per row (a row the exact terms miss may still match a longer term
    through a prefix: then the common phrases' rows are fetched once).  At the bench's prompt (three
    phrases each in ~85 % of 2,008 concepts, one in a single concept) this is one scored row and a
    few probes instead of 1,996 rows scored, sorted and read into Python."""
    if limit <= 0 or len(rank) != len(ordered):  # a rowid twice in the tie order: as the full ranking orders it
        return None
    rows = con.execute("SELECT count(*) FROM docs_docsize").fetchone()[0]  # FTS5's N: a row per document
    if rows != len(ordered):
        return None

    def exact(tok: str) -> str:
        return '"' + tok.replace('"', '""') + '"'

    counts = con.execute("SELECT " + ", ".join(["(SELECT count(*) FROM docs WHERE docs MATCH ?)"] * len(tokens)),
                         tuple(map(exact, tokens))).fetchone()
    common = [t for t, n in zip(tokens, counts) if 2 * n >= rows]
    share = common_share(len(common))
    if not common or share >= 0.00004:  # nothing to leave unscored, or too many common phrases to bound
        return None
    rare = [t for t in tokens if t not in common]
    head: list[tuple[int, float]] = []  # rare rows that rank above 0
    zero: set[int] = set()  # rare rows that round to 0 (tie with the common run)
    if rare:
        for rid, score in con.execute(f"SELECT rowid, -bm25(docs, {weights}) FROM docs WHERE docs MATCH ?",
                                      (match_expression(rare, _COLS),)):
            shown = rounds_as(score, share)
            if shown is None:
                return None  # the common phrases could carry it over a rounding boundary
            if rid not in rank:
                continue
            if shown > 0:
                head.append((rid, score))
            else:
                zero.add(rid)
    head.sort(key=lambda t: (-round(t[1], 4), rank[t[0]]))
    if len(head) >= limit:
        return head[:limit]
    need = limit - len(head)
    above = {rid for rid, _ in head}
    probe = "SELECT 1 FROM docs WHERE docs MATCH ? AND rowid = ?"
    exacts = " OR ".join(map(exact, common))
    definite = all(len(t) < bm25.PREFIX_MIN for t in common)  # no prefix: a missed probe is no match
    matching: set[int] | None = None
    probes = 0
    run: list[tuple[int, float]] = []
    for rid in ordered:
        if rid in above:
            continue
        if rid in zero:
            hit: bool | None = True
        elif matching is not None:
            hit = rid in matching
        else:
            probes += 1
            hit = con.execute(probe, (exacts, rid)).fetchone() is not None
            if not hit and not definite:  # a longer term may begin with a common prefix: the row's own terms
                hit = row_matches(con, rid, common)
            if hit is None or probes > _PROBES:
                matching = {r for (r,) in con.execute("SELECT rowid FROM docs WHERE docs MATCH ?",
                                                      (match_expression(common, _COLS),))}
                hit = rid in matching
        if hit:
            run.append((rid, 0.0))  # below 0.00005: shown as 0, as the full score is
            if len(run) == need:
                break
    return head + run
