"""The bundle index's ranking from its postings: :func:`okfpro.core.bm25.rank_docs`'s score to the bit.  Pure.

A term's postings are two arrays (:mod:`okfpro.io.ftsquery` stores them, in chunks of row ids): the
row ids of the concepts holding it, and for each a *code*, the term's field-weighted count ``F``
(:data:`okfpro.core.search.WEIGHTS`, integers) and the concept's length ``D`` in tokens over every
field (:func:`code`).  A prefix that begins several terms merges their postings per concept: the
counts add, the length is the concept's own (:func:`okfpro.core.postings.merge_codes`).

The score is the pure engine's (:class:`okfpro.core.bm25.RankedIndex` with
:func:`okfpro.core.bm25.lucene_idf`), operation for operation: per query phrase in the query's
order, ``idf`` from the concepts holding it, and each one's score ``+= phrase_score(idf, F, D,
avgD)``, summed from 0.0 (``F`` is an integer: the weighted counts add exactly in any order).  One
phrase's share is computed once per code.  The rows are then ordered as the engine orders them:
score rounded to 4 places, descending, then the tie order (:func:`first`).
"""

from __future__ import annotations

from collections import Counter
from heapq import nlargest

from okfpro.core.bm25 import B, PREFIX_MIN, lucene_idf, phrase_score

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the prompt hook's path
    from typing import Iterable, Sequence

LEN_BITS = 32
LEN_MASK = (1 << LEN_BITS) - 1
COUNT_MASK = ~LEN_MASK  # a code less its length: the weighted count, which adds across a prefix's terms
F_MAX = (1 << 31) - 1  # a signed 64-bit array holds the code


def code(f: int, length: int) -> int:
    """One posting's code: the weighted count ``f`` over the concept's ``length``.  ValueError
    past the bounds (an 8 MiB concept is far inside them)."""
    if not (0 <= f <= F_MAX and 0 <= length <= LEN_MASK):
        raise ValueError(f"a posting of count {f:,} in {length:,} tokens is past the index's bounds")
    return f << LEN_BITS | length


def document(columns: Sequence[Sequence[str]], weights: Sequence[int]) -> tuple[int, dict[str, int]]:
    """A concept's length and each of its terms' code; ``columns``: each field's terms, in the
    order of ``weights``."""
    length = sum(map(len, columns))
    code(0, length)  # a count is at most the length times the heaviest weight: checked below once
    counts: dict[str, int] = {}
    get = counts.get
    for terms, weight in zip(columns, weights):
        for term, n in Counter(terms).items():  # counted in C: a body repeats its words
            counts[term] = get(term, 0) + weight * n
    if length * max(weights, default=0) > F_MAX:
        for f in counts.values():
            code(f, length)
    return length, {term: f << LEN_BITS | length for term, f in counts.items()}


def scores(phrases: Iterable[tuple[int, Iterable[tuple[int, int]]]], rows: int, tokens: int, b: float = B
           ) -> dict[int, float]:
    """Each matched concept's score (``rid -> score``); ``phrases``: per query phrase in the
    query's order, the number of concepts holding it and their ``(rid, code)``; ``rows``: the
    concepts indexed, ``tokens``: their lengths summed."""
    avg = (tokens / rows if rows else 1.0) or 1.0
    acc: dict[int, float] = {}
    get = acc.get
    for held, postings in phrases:
        if not held:
            continue
        idf = lucene_idf(rows, held)
        shares: dict[int, float] = {}
        for rid, c in postings:
            x = shares.get(c)
            if x is None:
                x = shares[c] = phrase_score(idf, float(c >> LEN_BITS), c & LEN_MASK, avg, b)
            acc[rid] = get(rid, 0.0) + x
    return acc


def token_codes(codes: dict[str, int], length: int, tokens: Sequence[str]) -> list[int]:
    """One concept's code for each query token (0: it holds no term the token matches), from its
    own terms' ``codes`` (:func:`document`; their counts only: ``length`` is the concept's) as the
    index's postings give it: the token itself, or
    (from :data:`okfpro.core.bm25.PREFIX_MIN` characters on) every term it begins, counts added."""
    out = []
    for tok in tokens:
        if len(tok) < PREFIX_MIN:
            f = codes.get(tok, 0) >> LEN_BITS
        else:
            f = sum(c >> LEN_BITS for term, c in codes.items() if term.startswith(tok))
        out.append(f << LEN_BITS | length if f else 0)
    return out


def score_of(codes: Sequence[int], held: Sequence[int], rows: int, tokens: int) -> float | None:
    """The score :func:`scores` gives one concept holding ``codes`` (:func:`token_codes`), each
    phrase held by ``held`` concepts: the same operations in the same order, so the same bits;
    None when it holds no phrase."""
    return scores([(h, [(0, c)] if c else ()) for h, c in zip(held, codes)], rows, tokens).get(0)


def first(found: dict[int, float], limit: int | None, rank: dict[int, int]) -> list[tuple[int, float]]:
    """The first ``limit`` (every one without a limit) ``(rid, score)`` of ``found`` among the rows
    ``rank`` orders (rid -> place in the tie order), in the engine's order: score rounded to 4
    places, descending, then ``rank``."""
    if limit == 0:
        return []
    live = [rid for rid in found if rid in rank]
    if limit is not None and len(live) > limit:
        # more than 0.0001 under the limit-th best score, a score rounds (4 places) below it
        edge = nlargest(limit, map(found.__getitem__, live))[-1] - 0.0002
        live = [rid for rid in live if found[rid] >= edge]
    live.sort(key=lambda rid: (-round(found[rid], 4), rank[rid]))
    return [(rid, found[rid]) for rid in (live if limit is None else live[:limit])]
