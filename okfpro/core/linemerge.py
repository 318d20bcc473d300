"""A three-way merge of line lists that keeps every line of both sides.

Pure.  Lines are compared as given (the caller removes line endings).  Each side's change
against the base is a list of edits (a base range replaced by new lines; an insertion is an
empty range).  Edits of the two sides that do not touch the same base line, or the same gap
between base lines, both apply.  Where they meet:

* the same edit on both sides applies once;
* two insertions at the same gap are united (:func:`union`): lines both sides added are kept
  once, the rest interleaved by the caller's ``order`` key, each side's own order kept;
* two deletions (no new text on either side) delete the union of what they name;
* both sides deleting the same *disposable* lines (a template placeholder whose only purpose is
  to be deleted) and writing something in their place: both writings are united;
* anything else — the same line edited two ways, a deletion against an edit, an insertion
  inside a range the other side rewrote — is a :class:`Conflict` carrying the base, ours and
  theirs of the smallest span that holds it.

The result does not depend on which side is "ours" except inside a conflict (the two sides
of it swap): the union puts the two groups in a canonical order, never "ours first".
"""

from __future__ import annotations

import difflib
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from okfpro.core.record import Frozen, set_field

OrderKey = Callable[[str], Optional[tuple[Any, ...]]]


class Conflict(Frozen):
    __slots__ = _fields = ("base", "ours", "theirs")
    base: tuple[str, ...]
    ours: tuple[str, ...]
    theirs: tuple[str, ...]

    def __init__(self, base: tuple[str, ...], ours: tuple[str, ...], theirs: tuple[str, ...]) -> None:
        set_field(self, "base", base)
        set_field(self, "ours", ours)
        set_field(self, "theirs", theirs)


Piece = Union[str, Conflict]


class Edit(Frozen):
    """``base[start:end]`` becomes ``lines`` (``start == end``: an insertion before ``base[start]``)."""

    __slots__ = _fields = ("start", "end", "lines", "side")
    start: int
    end: int
    lines: tuple[str, ...]
    side: int  # 0 ours, 1 theirs

    def __init__(self, start: int, end: int, lines: tuple[str, ...], side: int = 0) -> None:
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "lines", lines)
        set_field(self, "side", side)

    @property
    def span(self) -> tuple[int, int]:
        """The edit on a doubled axis: gap k is point 2k, base line k is point 2k+1.  Two edits
        meet exactly when their spans intersect."""
        if self.start == self.end:
            return (2 * self.start, 2 * self.start)
        return (2 * self.start + 1, 2 * self.end - 1)


def _big(a: Sequence[str], b: Sequence[str]) -> bool:
    """Past this size difflib skips lines that make up over 1% of a side (blank lines, mostly) as
    anchors: the alignment may be less tight, the time stays near linear instead of quadratic."""
    return len(a) * len(b) > 4_000_000


def edits(base: list[str], side: list[str], which: int = 0) -> list[Edit]:
    """The side's change against ``base``: disjoint, non-adjacent edits in base order.

    The common head and tail are matched first (an append-only side is then one insertion,
    whatever the file's size); difflib aligns what remains."""
    n, m = len(base), len(side)
    head = 0
    while head < n and head < m and base[head] == side[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and base[n - 1 - tail] == side[m - 1 - tail]:
        tail += 1
    mid_base, mid_side = base[head : n - tail], side[head : m - tail]
    if not mid_base and not mid_side:
        return []
    if not mid_base or not mid_side:
        return [Edit(head, n - tail, tuple(mid_side), which)]
    out: list[Edit] = []
    matcher = difflib.SequenceMatcher(None, mid_base, mid_side, autojunk=_big(mid_base, mid_side))
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        e = Edit(head + i1, head + i2, tuple(mid_side[j1:j2]), which)
        if out and out[-1].end == e.start:  # contiguous changes are one edit
            last = out.pop()
            e = Edit(last.start, e.end, last.lines + e.lines, which)
        out.append(e)
    return out


def _keyed(lines: tuple[str, ...], order: OrderKey | None) -> list[tuple[Any, ...]]:
    """Each line's order key; a line without one takes the key of the line above it."""
    out: list[tuple[Any, ...]] = []
    current: tuple[Any, ...] = ()
    for line in lines:
        k = order(line) if order is not None else None
        if k is not None:
            current = k
        out.append(current)
    return out


def _interleave(x: tuple[str, ...], y: tuple[str, ...], order: OrderKey | None) -> list[str]:
    """Two runs merged by key, each run's own order kept; ties go to ``x``."""
    kx, ky = _keyed(x, order), _keyed(y, order)
    out: list[str] = []
    i = j = 0
    while i < len(x) and j < len(y):
        if ky[j] < kx[i]:
            out.append(y[j])
            j += 1
        else:
            out.append(x[i])
            i += 1
    out.extend(x[i:])
    out.extend(y[j:])
    return out


def union(a: Iterable[str], b: Iterable[str], order: OrderKey | None = None) -> list[str]:
    """Two runs of new lines added at the same place, united: what both added is kept once
    (matched in order), the rest interleaved by ``order``.  Symmetric: union(a, b) == union(b, a)."""
    x, y = tuple(a), tuple(b)
    if x == y:
        return list(x)
    if y < x:
        x, y = y, x
    if not x or not y:
        return list(x or y)
    out: list[str] = []
    i = j = 0
    for bi, bj, size in difflib.SequenceMatcher(None, x, y, autojunk=_big(x, y)).get_matching_blocks():
        out.extend(_interleave(x[i:bi], y[j:bj], order))
        out.extend(x[bi : bi + size])
        i, j = bi + size, bj + size
    return out


def _clusters(all_edits: list[Edit]) -> list[list[Edit]]:
    """Edits grouped where their spans meet (transitively), in base order."""
    ordered = sorted(all_edits, key=lambda e: (e.span, e.side))
    groups: list[list[Edit]] = []
    reach = -1
    for e in ordered:
        lo, hi = e.span
        if groups and lo <= reach:
            groups[-1].append(e)
            reach = max(reach, hi)
        else:
            groups.append([e])
            reach = hi
    return groups


def _apply(base: list[str], start: int, end: int, mine: list[Edit]) -> tuple[str, ...]:
    """``base[start:end]`` with one side's edits applied."""
    out: list[str] = []
    at = start
    for e in mine:
        out.extend(base[at : e.start])
        out.extend(e.lines)
        at = e.end
    out.extend(base[at:end])
    return tuple(out)


def _resolve(base: list[str], group: list[Edit], order: OrderKey | None, disposable: frozenset[str]) -> Sequence[Piece]:
    ours = [e for e in group if e.side == 0]
    theirs = [e for e in group if e.side == 1]
    start = min(e.start for e in group)
    end = max(e.end for e in group)
    if not ours or not theirs:
        return list(_apply(base, start, end, group))
    a, b = _apply(base, start, end, ours), _apply(base, start, end, theirs)
    if [(e.start, e.end, e.lines) for e in ours] == [(e.start, e.end, e.lines) for e in theirs]:
        return list(a)
    if start == end:  # both inserted at the same gap
        return union(a, b, order)
    if all(not e.lines for e in group):  # deletions only: delete what either named
        return []

    def deletes_all(mine: list[Edit]) -> bool:
        covered: set[int] = set()
        for e in mine:
            covered.update(range(e.start, e.end))
        return covered == set(range(start, end))

    if all(base[k] in disposable for k in range(start, end)) and deletes_all(ours) and deletes_all(theirs):
        return union(a, b, order)
    return [Conflict(tuple(base[start:end]), a, b)]


def merge(
    base: list[str],
    ours: list[str],
    theirs: list[str],
    order: OrderKey | None = None,
    disposable: Iterable[str] = (),
) -> list[Piece]:
    """The merged lines, with a :class:`Conflict` wherever the two sides changed the same lines
    differently.  ``order`` keys the interleaving of united insertions (``None``: a line follows
    the key of the line above it); ``disposable`` names base lines two sides may both replace."""
    if ours == theirs:
        return list(ours)
    if ours == base:
        return list(theirs)
    if theirs == base:
        return list(ours)
    gone = frozenset(disposable)
    out: list[Piece] = []
    at = 0
    for group in _clusters(edits(base, ours, 0) + edits(base, theirs, 1)):
        start = min(e.start for e in group)
        out.extend(base[at:start])
        out.extend(_resolve(base, group, order, gone))
        at = max(e.end for e in group)
    out.extend(base[at:])
    return out


def conflicts(pieces: Iterable[Piece]) -> int:
    return sum(1 for p in pieces if isinstance(p, Conflict))
