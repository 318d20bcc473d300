"""Board cards moved between sections, seen by the three-way merge of ``board.md``.

Pure.  The board merges section by section (:mod:`okfpro.core.filemerge`), and a section merge
sees a move as a deletion in one section and an insertion in another.  Taken alone, a card
promoted on one side (Inbox -> In flight) and moved by hand to Waiting on the other would come
out twice.  This module looks at the whole board first and decides, per card a side moved:

* the other side left the card where it was: the move is taken (the section merges already do
  that: a deletion against nothing, an insertion against nothing);
* the other side made the same move (same section to same section): the card lands once;
* the other side edited the card in place (one card line replaced by one card line, nothing
  else in that change): the move is taken with the other side's text — as Git carries a change
  to a file the other side renamed;
* the other side moved it elsewhere, deleted it (done), or changed it together with other
  lines: a conflict over that card only.  The mover's copy is taken out of its destination and
  written there as a conflict hunk (that side's card against nothing); the origin merges as
  before (both removed it: gone; a deletion against an edit: the section merge's own conflict).
  Taking one side of every hunk then leaves the card exactly where that side put it.

A card is a ``- `` line of a board section, compared as written.  A card moved and edited on the
same side is a deletion and a new line: it is not seen as a move.
"""

from __future__ import annotations

import re

from collections import Counter
from typing import Any, Callable, Sequence

from okfpro.core import linemerge
from okfpro.core.record import Frozen, Value, set_field

Sections = dict[Any, list[str]]  # section key -> its lines (the heading first)


def is_card(line: str) -> bool:
    return line.startswith("- ")


class Plan(Value):
    """The sides to merge section by section, and what to do with the result."""

    _fields = ("sides", "held", "agreed")
    sides: list[Sections]  # base, ours, theirs, adjusted (cards that left taken out, held cards out, edits carried)
    held: dict[Any, list[tuple[int, str]]]  # destination -> (side, card)
    agreed: dict[Any, list[str]]  # destination -> cards both moved there

    def __init__(self, sides: list[Sections], held: dict[Any, list[tuple[int, str]]] | None = None,
                 agreed: dict[Any, list[str]] | None = None) -> None:
        self.sides = sides
        self.held = {} if held is None else held
        self.agreed = {} if agreed is None else agreed


def _cards(lines: list[str]) -> Counter[str]:
    return Counter(x for x in lines[1:] if is_card(x))


LEAD = re.compile(r"\A-\s+(?:[0-9]{4}-[0-9]{2}-[0-9]{2}\s*(?:\u2014|-)?\s*)?")


def _words(line: str) -> set[str]:
    return set(LEAD.sub("", line).lower().split())


def alike(old: str, new: str) -> bool:
    """One card reworded: the words of the shorter (past the bullet and a leading date) are, but for
    one in five, words of the longer.  Used only to pair a card one side removed from one section
    with a line the same side added to another, as Git pairs a removed and an added file."""
    a, b = _words(old), _words(new)
    return bool(a and b) and len(a & b) * 5 >= 4 * min(len(a), len(b))


class Move(Frozen):
    __slots__ = _fields = ("origin", "dest", "old", "new")
    origin: Any
    dest: Any
    old: str  # the card as the base has it
    new: str  # the card as the side wrote it at its destination

    def __init__(self, origin: Any, dest: Any, old: str, new: str) -> None:
        set_field(self, "origin", origin)
        set_field(self, "dest", dest)
        set_field(self, "old", old)
        set_field(self, "new", new)


def _moves(keys: list[Any], base: dict[Any, Counter[str]], side: dict[Any, Counter[str]]) -> list[Move]:
    """One side's moves: a card a section lost paired with a card another section gained, the same
    text first, then a reworded one (:func:`alike`), in board order."""
    lost: list[tuple[Any, str]] = []
    gained: list[tuple[Any, str]] = []
    for k in keys:
        o, s = base.get(k, Counter()), side.get(k, Counter())
        for line in sorted(o.keys() | s.keys()):
            d = s[line] - o[line]
            (lost if d < 0 else gained).extend([(k, line)] * abs(d))
    out: list[Move] = []
    for match in (lambda x, y: x == y, alike):
        for origin, old in list(lost):
            hit = next(((k, new) for k, new in gained if k != origin and match(old, new)), None)
            if hit is not None:
                lost.remove((origin, old))
                gained.remove(hit)
                out.append(Move(origin, hit[0], old, hit[1]))
    return out


def _reorders(keys: list[Any], base: Sections, side: Sections) -> list[Move]:
    """Cards one side moved within their section: taken out at one place and put back, as written,
    at another."""
    out: list[Move] = []
    for k in keys:
        if k not in base or k not in side:
            continue
        gone: list[tuple[int, str]] = []
        put: list[tuple[int, str]] = []
        for n, e in enumerate(linemerge.edits(base[k], side[k])):
            gone.extend((n, x) for x in base[k][e.start : e.end] if is_card(x))
            put.extend((n, x) for x in e.lines if is_card(x))
        for g in list(gone):  # as written only: a reworded one is an edit where it stands
            hit = next((p for p in put if p[1] == g[1]), None)
            if hit is not None:
                gone.remove(g)
                put.remove(hit)
                out.append(Move(k, k, g[1], hit[1]))
    return out


def _fate(base: list[str], side: list[str], card: str) -> tuple[str, Any]:
    """What ``side`` did with the (last) base line ``card``: ("kept", None) — still in the section —, ("gone", None) — deleted,
    or replaced by lines none of which is the card reworded —, ("edited", (index in side, new line))
    — that one line replaced by one card line alike it —, or ("changed", None)."""
    if side.count(card) >= base.count(card):
        return "kept", None  # in place, or moved within its section
    at = len(base) - 1 - base[::-1].index(card)
    shift = 0
    for e in linemerge.edits(base, side):
        if e.start <= at < e.end:
            kin = [x for x in e.lines if is_card(x) and alike(card, x)]
            if not kin:
                return "gone", None
            if e.end - e.start == 1 and len(e.lines) == 1:
                return "edited", (e.start + shift, e.lines[0])
            return "changed", None
        shift += len(e.lines) - (e.end - e.start)
    return "kept", None


def _replace_last(lines: list[str], card: str, new: list[str]) -> list[str]:
    i = len(lines) - 1 - lines[::-1].index(card)
    return lines[:i] + new + lines[i + 1 :]


def _drop(sections: Sections, key: Any, card: str) -> None:
    """The last copy of ``card`` out of one section, if it is there."""
    if card in sections.get(key, []):
        sections[key] = _replace_last(sections[key], card, [])


def plan(base: Sections, ours: Sections, theirs: Sections, rank: Callable[[Any], Any]) -> Plan:
    """Decide every cross-section move of both sides (see the module doc).  A card that leaves its
    section on the merged board is taken out of the base (and of a side that left it in place)
    before the sections merge, so its removal never joins a neighbour's change into one conflict."""
    keys = sorted((set(base) | set(ours) | set(theirs)) - {("", 0)}, key=rank)
    counts = [{k: _cards(x[k]) for k in x if k in keys} for x in (base, ours, theirs)]
    moves = [_moves(keys, counts[0], counts[1]) + _reorders(keys, base, ours),
             _moves(keys, counts[0], counts[2]) + _reorders(keys, base, theirs)]
    sides = [dict(base), dict(ours), dict(theirs)]
    out = Plan(sides)
    # What each side did with a card is read with that side's own moved-in cards lifted out, so a
    # card put next to another one is never read as part of that one's change; read once, before
    # any section below is adjusted, so the two sides' decisions do not depend on their order.
    lifted = [dict(ours), dict(theirs)]
    for s in (0, 1):
        for m in moves[s]:
            if m.origin != m.dest:
                _drop(lifted[s], m.dest, m.new)
    fates = [[_fate(base[m.origin], lifted[1 - s].get(m.origin, []), m.old) for m in moves[s]] for s in (0, 1)]
    leaves: list[Counter[tuple[Any, str]]] = [Counter(), Counter()]  # per mover: (origin, card) -> copies that leave
    stays: set[tuple[Any, str]] = set()  # (origin, card) the other side rewrote: stays for a conflict
    for s in (0, 1):
        t = 1 - s
        pending = list(moves[t])
        for m, (fate, edit) in zip(moves[s], fates[s]):
            within = m.origin == m.dest
            if m in pending:  # the same move on both sides: the card lands once
                pending.remove(m)
                for side in sides[1:]:
                    _drop(side, m.dest, m.new)  # lifted from both, put back once after the merge
                if s == 0:
                    out.agreed.setdefault(m.dest, []).append(m.new)
                leaves[s][(m.origin, m.old)] += not within
                continue
            if fate == "kept":  # the other side left the card in its section: the move stands
                _drop(sides[t + 1], m.origin, m.old)
                leaves[s][(m.origin, m.old)] += 1
                continue
            if within and m.old == m.new and any(x.origin == m.origin and x.old == m.old and x.dest != x.origin
                                                 for x in moves[t]):
                continue  # the other side moved it out of the section: that move stands, this copy goes
            if fate == "edited" and m.old == m.new and not any(x.origin == m.origin and x.old == m.old for x in moves[t]):
                new = edit[1]
                _drop(sides[t + 1], m.origin, new)  # the edit travels with the move...
                sides[s + 1][m.dest] = _replace_last(sides[s + 1][m.dest], m.new, [new])  # ...to its new place
                leaves[s][(m.origin, m.old)] += 1
                continue
            _drop(sides[s + 1], m.dest, m.new)
            if within and fate == "gone" and m.old == m.new:  # done on the other side: a reorder does not bring it back
                leaves[s][(m.origin, m.old)] += 1
                continue
            out.held.setdefault(m.dest, []).append((s, m.new))
            if fate == "gone":
                leaves[s][(m.origin, m.old)] += 1
            else:
                stays.add((m.origin, m.old))
    for (origin, card), n in (leaves[0] | leaves[1]).items():
        if (origin, card) not in stays:
            for _ in range(n):
                _drop(sides[0], origin, card)
    return out


def settle(key: Any, pieces: Sequence[linemerge.Piece], p: Plan) -> list[linemerge.Piece]:
    """One merged section with the plan applied: a card both sides moved here kept once, cards
    whose move conflicts written as one conflict hunk after the section's last line."""
    out = list(pieces)
    at = len(out)
    while at > 0 and isinstance(out[at - 1], str) and not str(out[at - 1]).strip():
        at -= 1
    out[at:at] = sorted(p.agreed.get(key, []))
    at += len(p.agreed.get(key, []))
    held = p.held.get(key)
    if held:
        hunk = linemerge.Conflict((), tuple(c for s, c in held if s == 0), tuple(c for s, c in held if s == 1))
        out.insert(at, hunk)
    return out
