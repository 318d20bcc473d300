"""Memory recall's ranking over stored postings: SQLite FTS5's ``bm25()`` to the bit, in Python.  Pure.

A scope's documents (its memory entries; change records are not documents) are numbered in the
order they were indexed: their *ordinals*.  A term's postings are grouped by *code*: the term's
count in the title, its count in the body and the document's length in tokens over both fields
(:func:`code`), each group the ordinals of the documents holding the term with that code.  One
posting's share of a score depends on its code and the phrase's idf alone, so a phrase's shares
are computed once per group (a few dozen) and the ranking is one Python loop per posting plus a
few passes over the documents.  Why Python and not FTS5's ``bm25()``: design note
``.okf/design/memory-index.md`` (FTS5's auxiliary-function call per scored row costs more than this loop).

The score is FTS5's (``fts5_aux.c``, ``fts5Bm25Function``), operation for operation::

    avgdl = tokens / rows
    idf(p) = log((rows - n(p) + 0.5) / (n(p) + 0.5)), or 1e-6 when that is <= 0
    F = the weights of p's instances (title x weights[0], body x weights[1])
    score = 0.0; score += idf(p) * ((F * (k1 + 1.0)) / (F + k1 * (1 - b + b * D / avgdl))), phrase by phrase

FTS5's ``b`` is 0.75; memory recall ranks at ``b = 0`` (:data:`okfpro.memory.ranking.LENGTH_B`:
no length normalisation), which is FTS5's score over documents of one length (``D / avgdl`` is then
1.0 and ``1 - 0.75 + 0.75 * 1.0`` is 1.0, as ``1 - 0 + 0 * x`` is): the test pads FTS5's documents.

``rows`` and ``n(p)`` count every document, hidden ones included (FTS5 counts its rows); ``F`` is
summed as integers times the weights (exact for integral weights, which
:data:`okfpro.core.search.WEIGHTS` are).  The policy hides documents before the neighbours:
a hidden document scores nothing and lends nothing.  Then each matched, shown document gains
``neighbour x`` the scores of the documents just before and after it in its day file (most often
the ordinals just before and after it; the others are recorded: ``prev`` / ``nxt``), and the
order is that sum, then the newest (highest row id) first; the limit last.
``tests/test_recall_postings.py`` compares every answer, unrounded scores included, with FTS5's
own ``bm25`` over the same tokens.
"""

from __future__ import annotations

from heapq import nlargest
from itertools import compress, repeat
from operator import ge, gt

from okfpro.core.bm25 import PREFIX_MIN, fts5_idf, phrase_score

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Callable, Iterable, Sequence

FIELD_BITS = 21
FIELD_MAX = (1 << FIELD_BITS) - 1  # a count or a length above this cannot be coded (2,097,151 tokens)
_TF_MASK = ~FIELD_MAX  # a code less its length: the two counts, which add across the terms of one phrase


def code(title_tf: int, body_tf: int, length: int) -> int:
    """One posting's code: ``title_tf``, ``body_tf`` and the document's ``length``, 21 bits each
    (a signed 64-bit array holds it).  ValueError past :data:`FIELD_MAX` (the caller reads files)."""
    if length > FIELD_MAX or title_tf > FIELD_MAX or body_tf > FIELD_MAX:
        raise ValueError(f"a memory of {length:,} tokens is past the index's {FIELD_MAX:,}")
    return title_tf << (2 * FIELD_BITS) | body_tf << FIELD_BITS | length


def document(title_terms: Sequence[str], body_terms: Sequence[str]) -> tuple[int, dict[str, int]]:
    """A document's length and each of its terms' code."""
    length = len(title_terms) + len(body_terms)
    code(0, 0, length)  # every count is at most the length: one check covers them all
    codes: dict[str, int] = {}
    get = codes.get
    for terms, one in ((body_terms, 1 << FIELD_BITS), (title_terms, 1 << (2 * FIELD_BITS))):
        for term in terms:  # a code starts as the length and counts up in its field
            codes[term] = get(term, length) + one
    return length, codes


def merge_codes(postings: Iterable[tuple[int, int]], count_mask: int) -> dict[int, int]:
    """Per document, the code of a phrase whose terms' ``postings`` ``(document, code)`` it holds
    (a prefix that begins several terms): the counts (``code & count_mask``) add, the length is
    the document's own.  Memory's postings and the bundle's (:mod:`okfpro.core.bundlepostings`)."""
    acc: dict[int, int] = {}
    get = acc.get
    for o, c in postings:
        had = get(o)
        acc[o] = c if had is None else had + (c & count_mask)
    return acc


def merged(groups: Sequence[tuple[str, int, Sequence[int]]]) -> list[tuple[int, Sequence[int]]]:
    """One phrase's postings ``[(code, ordinals)]`` from its terms' groups ``(term, code,
    ordinals)`` (:func:`merge_codes`), grouped by code again."""
    acc = merge_codes(((o, c) for _term, c, ords in groups for o in ords), _TF_MASK)
    out: dict[int, list[int]] = {}  # the merged codes' groups
    for o, c in acc.items():
        cell = out.get(c)
        if cell is None:
            out[c] = [o]
        else:
            cell.append(o)
    return [(c, ords) for c, ords in out.items()]


def share(idf: float, posting: int, avgdl: float, weights: Sequence[float], b: float) -> float:
    """One phrase's share of one document's score (FTS5's expression, in its order)."""
    f = weights[0] * (posting >> (2 * FIELD_BITS)) + weights[1] * ((posting >> FIELD_BITS) & FIELD_MAX)
    return phrase_score(idf, f, posting & FIELD_MAX, avgdl, b)


def term_range(token: str) -> tuple[str, tuple[object, ...]]:
    """The SQL condition on a ``term`` column that finds exactly the terms a query ``token``
    matches, and its arguments: the term itself, or (from :data:`okfpro.core.bm25.PREFIX_MIN`
    characters on, as a prefix) every term it begins.  SQLite orders TEXT by its UTF-8 bytes, which
    order as code points do, so those terms run from ``token`` up to ``token`` with its last
    character's successor; after U+10FFFF there is none, and the range (open above) is narrowed by
    the prefix itself (``substr`` counts characters, as ``len`` does)."""
    if len(token) < PREFIX_MIN:
        return "term = ?", (token,)
    after = ord(token[-1]) + 1
    if after > 0x10FFFF:
        return "term >= ? AND substr(term, 1, ?) = ?", (token, len(token), token)
    if 0xD800 <= after <= 0xDFFF:  # past the surrogates: the next character that is one
        after = 0xE000
    return "term >= ? AND term < ?", (token, token[:-1] + chr(after))


SPARSE = 2  # fewer postings than documents / SPARSE: the neighbours are summed per match, else per document
# (per match is cheaper while postings are few; per document once they approach one a document)


def ranked(rows: int, tokens: int, phrases: Sequence[list[tuple[int, Sequence[int]]]], prev: dict[int, int],
           nxt: dict[int, int], rids: Sequence[int], hidden: Iterable[int], limit: int | None,
           weights: Sequence[float], neighbour: float, b: float, boosted: Iterable[int] = (),
           boost: float = 0.0) -> list[tuple[int, float]]:
    """``(ordinal, score)`` of the best ``limit`` matched, shown documents (every one without a
    limit), best first, ties newest first.  ``phrases``: each query phrase's postings, in the
    query's order, grouped by code; ``prev`` / ``nxt``: the neighbours that are not the ordinals
    just before / after (-1: none); ``rids``: each document's row id (the tie order); ``hidden``:
    the ordinals the policy hides; ``b``: the length normalisation (FTS5's is 0.75); ``boosted``: the
    ordinals that gain ``boost`` when matched (the speaker a query names:
    :func:`okfpro.memory.ranking.speaker_boost`), before the policy and the neighbours."""
    if not rows:
        return []
    avgdl = tokens / rows
    held = [groups for groups in phrases if groups]  # a phrase no document holds adds 0.0 to each
    own = [0.0] * (rows + 1)  # the last slot is "no neighbour" (ordinal -1 and ordinal rows): 0.0
    matched = 0
    for groups in held:
        df = sum(len(ords) for _c, ords in groups)
        matched += df
        weight = fts5_idf(rows, df)
        for c, ords in groups:
            x = share(weight, c, avgdl, weights, b)
            for o in ords:
                own[o] += x
    if boost:
        for o in set(boosted):
            if 0 <= o < rows and own[o] > 0.0:
                own[o] += boost
    for o in hidden:
        own[o] = 0.0  # hidden before the neighbours: it scores nothing and lends nothing
    if matched * SPARSE < rows:
        before, after = prev.get, nxt.get
        live = [o for o in {o for groups in held for _c, ords in groups for o in ords} if own[o] > 0.0]
        found = {o: own[o] + neighbour * (own[before(o, o - 1)] + own[after(o, o + 1)]) for o in live}
        return best(live, found.__getitem__, rids, limit)
    left = own[-1:] + own[:rows - 1]  # own[o - 1] (the first: none), then the recorded exceptions
    for o, p in prev.items():
        left[o] = own[p]
    right = own[1:]  # own[o + 1] (the last: none)
    for o, n in nxt.items():
        right[o] = own[n]
    final = [a + neighbour * (b + c) if a else -1.0 for a, b, c in zip(own, left, right)]
    if limit is None or rows - final.count(-1.0) <= limit:
        return best(list(compress(range(rows), map(gt, final, repeat(0.0)))), final.__getitem__, rids, None)
    return _cut(range(rows), final, final.__getitem__, rids, limit)


def best(live: list[int], score: Callable[[int], float], rids: Sequence[int], limit: int | None
         ) -> list[tuple[int, float]]:
    """``(ordinal, score)`` of the ``limit`` best of ``live`` (all without a limit), by score then
    row id, both descending."""
    if limit is None or len(live) <= limit:
        live.sort(key=lambda o: (score(o), rids[o]), reverse=True)
        return [(o, score(o)) for o in live]
    return _cut(live, list(map(score, live)), score, rids, limit)


def _cut(live: Iterable[int], scores: list[float], score: Callable[[int], float], rids: Sequence[int],
         limit: int) -> list[tuple[int, float]]:
    """The ``limit`` best of ``live`` (``scores``: theirs, in order): the limit-th best score; the
    rows above it in full order, then the newest of those tied with it."""
    theta = nlargest(limit, scores)[-1]
    near = list(compress(live, map(ge, scores, repeat(theta))))  # one pass in C; the few found split here
    above = [o for o in near if score(o) > theta]
    above.sort(key=lambda o: (score(o), rids[o]), reverse=True)
    tied = [o for o in near if score(o) == theta]
    tied.sort(key=rids.__getitem__, reverse=True)
    return [(o, score(o)) for o in above + tied[:limit - len(above)]]
