"""An exact pruning bound for memory recall's ranking (MaxScore, with neighbours).  Pure.

Recall ranks a memory by its FTS5 ``bm25`` score plus ``neighbour`` x the scores of its matched,
shown neighbours (the entries just before and after it in its day file), and returns the best
``limit``.  A query mixing a rare word with a very common one (``kilo note 4242``: ``note`` is in
every entry) would score every entry holding the common word.  Most of them cannot make the cut:

* FTS5 scores each query phrase ``idf x F x (k1 + 1) / (F + K)`` with ``K > 0``, so one phrase
  adds less than ``(k1 + 1) x idf`` to any entry -- its :func:`ceiling`, known from the count of
  entries it matches (``idf`` grows with the row count, so an upper estimate of it is safe);
* split the phrases into *essential* ones (the rarest, with the highest ceilings) and the rest.
  An entry that holds no essential phrase, next to neighbours that hold none either, scores at
  most ``(1 + 2 x neighbour) x`` the sum of the other phrases' ceilings -- :func:`bound`;
* so rank exactly the entries holding an essential phrase and their neighbours (their scores need
  the neighbours' neighbours); when the ``limit``-th of them beats the bound by more than a
  4-place rounding step (:func:`beats`), no entry left out can tie with it or pass it, and the
  answer is byte for byte the unpruned one.  Otherwise widen the essential set, or rank all.

:func:`essential` picks the split; the SQL lives in :mod:`okfpro.memory.index`.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Sequence

K1 = 1.2  # FTS5's bm25 constants (fts5_aux.c): k1 = 1.2, b = 0.75
IDF_FLOOR = 1e-6  # FTS5 replaces an idf <= 0 (a phrase in over half the rows) by this
STEP = 1e-4  # recall orders by the score rounded to 4 places: a margin of one step keeps ties out
_SLACK = 1e-9  # relative: the C and Python sums may round differently in the last bits


def ceiling(rows: int, hits: int) -> float:
    """More than a phrase matched by ``hits`` of ``rows`` (or fewer) documents can add to any
    document's FTS5 bm25 score."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5)) if rows >= hits else 0.0
    return (K1 + 1.0) * max(idf, IDF_FLOOR) * (1.0 + _SLACK)


def rest(counts: Sequence[int], rows: int, head: Sequence[int]) -> list[float]:
    """The ceilings of the phrases outside ``head`` that some document holds."""
    return [ceiling(rows, n) for i, n in enumerate(counts) if n > 0 and i not in head]


def single(ceilings: Sequence[float]) -> float:
    """The most an entry holding none of the essential phrases scores on its own: ``ceilings``
    are the other phrases'."""
    return math.fsum(ceilings) * (1.0 + _SLACK)


def bound(ceilings: Sequence[float], neighbour: float) -> float:
    """The most an entry can rank with when neither it nor a neighbour holds an essential phrase."""
    return (1.0 + 2.0 * neighbour) * single(ceilings) * (1.0 + _SLACK)


def beats(theta: float, limit_bound: float) -> bool:
    """Does a ``limit``-th score ``theta`` rank strictly before every score up to the bound,
    after both are rounded to 4 places?"""
    return theta > limit_bound + STEP


def essential(counts: Sequence[int], rows: int, limit: int, neighbour: float,
              theta: float | None = None) -> list[int] | None:
    """The phrases to rank exactly (their indexes), rarest first, or None when pruning cannot pay.

    Without ``theta``: the rarest phrases until they match ``limit`` entries.  With ``theta`` (a ``limit``-th score
    already ranked exactly over a smaller essential set): the fewest rarest phrases whose rest
    ``theta`` beats.  Phrases no document holds are left out of both sides."""
    live = sorted((i for i, n in enumerate(counts) if n > 0), key=lambda i: (counts[i], i))
    if len(live) < 2:
        return None
    caps = {i: ceiling(rows, counts[i]) for i in live}
    for k in range(1, len(live)):
        head, tail = live[:k], live[k:]
        limit_bound = bound([caps[i] for i in tail], neighbour)
        if theta is not None:
            if beats(theta, limit_bound):
                return head
        elif sum(counts[i] for i in head) >= limit:
            return head
    return None


def first(counts: Sequence[int], rows: int, limit: int, neighbour: float) -> list[int] | None:
    """The essential phrases of a first try, or None when pruning cannot pay: :func:`essential`'s
    when it is :func:`worth` a try, else the fewest rarest phrases that are, as long as the entries
    within one place of theirs can be fewer than the query matches (a guess, like worth's)."""
    head = essential(counts, rows, limit, neighbour)
    if head is None or worth(counts, rows, head, neighbour):
        return head
    live = sorted((i for i, n in enumerate(counts) if n > 0), key=lambda i: (counts[i], i))
    for k in range(len(head) + 1, len(live)):
        if 3 * sum(counts[i] for i in live[:k]) >= sum(counts):
            return None
        if worth(counts, rows, live[:k], neighbour):
            return live[:k]
    return None


def worth(counts: Sequence[int], rows: int, head: Sequence[int], neighbour: float) -> bool:
    """Is a first try with ``head`` likely to pay: do its own ceilings outweigh the bound of the
    rest?  (A guess that only saves a wasted query: exactness rests on :func:`beats`.)"""
    return math.fsum(ceiling(rows, counts[i]) for i in head) > bound(rest(counts, rows, head), neighbour)
