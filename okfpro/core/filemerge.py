"""The three-way merge of the files okfpro's writers append to: board, log, journal, indexes.

Pure.  Text in (base, ours, theirs, the file's path), merged text and a conflict count out —
or a :class:`Fallback` naming why the file is outside the grammar this merge relies on (the
shell then runs Git's own text merge).  See ``.okf/design/workspace-merge.md``.

The file is read as its grammar reads it: a head (frontmatter, title, the board's budget
header) and ``## `` sections, each keyed by its heading.  The sections of both sides are put
in the grammar's order (the board's six in their fixed order, the log's days newest first,
any other heading where the two sides place it), and each section's lines are merged by
:mod:`okfpro.core.linemerge`: every line of both sides kept, what both added kept once, a
line changed two different ways a conflict.  Inside a section the lines both sides added at
one place are interleaved by date (Inbox captures, journal index entries), and a log day's
Snapshot lines stay last.

The board's ``In flight: k/CAP`` header is a count, not text: when each side kept it equal
to its own In flight lines, the merged header is set to the merged count (a promote on each
side is not a conflict).  Line endings, a byte-order mark and the final newline are merged
like one more line: a side that changed them wins; a file both sides added with different ones
gets LF, a final newline and no BOM.
"""

from __future__ import annotations

import re

from typing import Any, Optional, TypeVar

from okfpro.core import cardmoves, linemerge
from okfpro.core.board import HEADER, SECTIONS, count_rows, parse_day
from okfpro.core.board_edit import JOURNAL_DAY_PLACEHOLDER, JOURNAL_PLACEHOLDER
from okfpro.core.log import DAYISH, day_of, is_snapshot_line
from okfpro.core.record import Value

#: Lines of the workspace template that exist to be deleted: two sides replacing one of them
#: with their own first entry are not a conflict.
PLACEHOLDERS = frozenset(
    {
        JOURNAL_PLACEHOLDER,
        JOURNAL_DAY_PLACEHOLDER,
        "Nothing started yet.",
        "Nothing defined yet.",
        "Nothing learned yet.",
        "Nothing filed yet.",
    }
)

DATE = re.compile(r"(?<![0-9])([0-9]{4}-[0-9]{2}-[0-9]{2})(?![0-9])")
BULLET = re.compile(r"\A[*+-][ \t]")
FENCE = re.compile(r"\A(```|~~~)")
MARKER_LINE = re.compile(r"\A(<{7,}|>{7,})(?: |\Z)")
T = TypeVar("T")
Key = tuple[str, int]  # a section: (heading line, n-th heading of that text); ("", 0) is the head
COUNT = "\x00in-flight\x00"  # stands for the header's count while the board merges (NUL is refused in input)


class Result(Value):
    _fields = ("text", "conflicts")
    text: str
    conflicts: int

    def __init__(self, text: str, conflicts: int) -> None:
        self.text = text
        self.conflicts = conflicts


class Fallback(Value):
    """This file cannot be merged by its grammar; ``reason`` says which side and why."""

    _fields = ("reason",)
    reason: str

    def __init__(self, reason: str) -> None:
        self.reason = reason


# --- the file's surface: BOM, line endings, final newline ------------------------------------------


class Surface(Value):
    _fields = ("bom", "eol", "final_newline", "lines")
    bom: bool
    eol: str
    final_newline: bool
    lines: list[str]

    def __init__(self, bom: bool, eol: str, final_newline: bool, lines: list[str]) -> None:
        self.bom = bom
        self.eol = eol
        self.final_newline = final_newline
        self.lines = lines


def surface(text: str) -> Surface:
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    eol = "\r\n" if "\r\n" in text else "\n"
    final = text == "" or text.endswith("\n")
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return Surface(bom, eol, final, [p[:-1] if p.endswith("\r") else p for p in parts])


def _pick(base: T, ours: T, theirs: T, base_known: bool, plain: T) -> T:
    """One attribute merged three ways: a side that changed it wins.  Two values only, so both sides
    changing it means the same change — except in a file both sides added (no base), where the sides
    may differ: then ``plain`` (LF, a final newline, no BOM), so A<-B and B<-A give the same bytes."""
    if ours == theirs:
        return ours
    if not base_known:
        return plain
    return theirs if ours == base else ours


# --- the kinds of file ------------------------------------------------------------------------


def kind_of(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name == "board.md":
        return "board"
    if name == "log.md":
        return "log"
    return "markdown"


def _dated(line: str) -> Optional[tuple[Any, ...]]:
    """A list line carrying a calendar date orders by its first one; other lines follow the line above."""
    if not BULLET.match(line):
        return None
    for m in DATE.finditer(line):
        if parse_day(m.group(1)) is not None:
            return (m.group(1),)
    return None


def _log_order(line: str) -> Optional[tuple[Any, ...]]:
    """A log day has no clock: its entries keep their order, its Snapshot lines come last."""
    if not line.strip():
        return None
    return (1,) if is_snapshot_line(line) else (0,)


class Section(Value):
    _fields = ("key", "lines")
    key: Key  # (heading text, n-th such heading) or ("", 0) for the head
    lines: list[str]  # the heading line first, then its body

    def __init__(self, key: Key, lines: list[str]) -> None:
        self.key = key
        self.lines = lines


def _split(lines: list[str], fenced: bool) -> list[Section]:
    """Head (before the first ``## `` heading; frontmatter included) and the ``## `` sections."""
    out = [Section(("", 0), [])]
    seen: dict[str, int] = {}
    fence = False
    i = 0
    if lines and lines[0].rstrip() == "---":  # frontmatter belongs to the head, whatever it holds
        i = 1
        while i < len(lines) and lines[i].rstrip() not in ("---", "..."):
            i += 1
        out[0].lines.extend(lines[: i + 1])
        i += 1
    for line in lines[i:]:
        if fenced and FENCE.match(line):
            fence = not fence
        if not fence and line.startswith("## "):
            name = line.rstrip()
            n = seen.get(name, 0)
            seen[name] = n + 1
            out.append(Section((name, n), [line]))
        else:
            out[-1].lines.append(line)
    return out


def _grammar_problem(kind: str, sections: list[Section]) -> str | None:
    keys = [s.key for s in sections[1:]]
    if kind == "board":
        doubled = sorted({k[0] for k in keys if k[1] > 0 and k[0][3:] in SECTIONS})
        if doubled:
            return f"the board has '{doubled[0]}' twice, so a line cannot be placed in one section"
    if kind == "log":
        days = []
        for s in sections[1:]:
            day = day_of(s.lines[0])
            if day is None and DAYISH.match(s.lines[0]):
                return f"log.md has the heading '{s.lines[0].strip()}', which is not a calendar date"
            if day is not None:
                days.append(day)
        if len(set(days)) != len(days):
            return "log.md has a day heading twice"
    return None


def _rank(kind: str, key: Key) -> tuple[Any, ...]:
    name = key[0]
    if kind == "board" and name[3:] in SECTIONS:
        return (SECTIONS.index(name[3:]), key)
    if kind == "log":
        day = day_of(name)
        if day is not None:
            return (0, -int(day.replace("-", "")), key)  # newest first
        return (1, key)
    return (len(SECTIONS), key)


def _order(kind: str, sides: list[list[Key]], keys: set[Key]) -> list[Key] | None:
    """The merged order of section keys: each side's order kept, free choices by the grammar's
    rank.  When the sides order two sections in opposite ways, the board's and the log's grammar
    decide alone (fixed sections, days newest first); elsewhere None."""
    after: dict[Key, set[Key]] = {k: set() for k in keys}
    before_count: dict[Key, int] = {k: 0 for k in keys}
    for seq in sides:
        present = [k for k in seq if k in keys]
        for x, y in zip(present, present[1:]):
            if y not in after[x]:
                after[x].add(y)
                before_count[y] += 1
    ready = sorted((k for k in keys if before_count[k] == 0), key=lambda k: _rank(kind, k))
    out: list[Key] = []
    while ready:
        k = ready.pop(0)
        out.append(k)
        for y in after[k]:
            before_count[y] -= 1
            if before_count[y] == 0:
                ready.append(y)
        ready.sort(key=lambda k: _rank(kind, k))
    if len(out) == len(keys):
        return out
    if kind in ("board", "log"):  # the sides disagree; the grammar has an order of its own
        return sorted(keys, key=lambda k: _rank(kind, k))
    return None


# --- the board's header ---------------------------------------------------------------------


def _in_flight(lines: list[str]) -> int:
    return count_rows(lines, "In flight")


def _header_at(lines: list[str]) -> int | None:
    from okfpro.core.board import strip_comments

    for i, line in enumerate(lines):
        if HEADER.match(strip_comments(line)[0] if "<!--" in line else line):
            return i
    return None


def _count_free(lines: list[str]) -> list[str] | None:
    """The board with its header's count replaced by a stand-in, when the header states the
    count truly (else None: the header then merges as plain text)."""
    i = _header_at(lines)
    if i is None:
        return None
    m = HEADER.match(lines[i])
    if m is None or int(m.group(1)) != _in_flight(lines):
        return None
    out = list(lines)
    out[i] = lines[i][: m.start(1)] + COUNT + lines[i][m.end(1) :]
    return out


# --- the merge ------------------------------------------------------------------------------


def _problem(label: str, text: str) -> str | None:
    if "\x00" in text:
        return f"{label} holds a NUL byte (not text)"
    for line in text.split("\n"):
        if MARKER_LINE.match(line):
            return f"{label} already holds conflict markers"
    return None


def _merge_lines(kind: str, base: list[str], ours: list[str], theirs: list[str]) -> list[linemerge.Piece] | Fallback:
    split = [_split(x, fenced=kind == "markdown") for x in (base, ours, theirs)]
    for label, sections in zip(("the base", "ours", "theirs"), split):
        problem = _grammar_problem(kind, sections)
        if problem is not None:
            return Fallback(f"{label}: {problem}")
    by_key = [{s.key: s.lines for s in sections} for sections in split]
    o, a, b = by_key
    order_key = _log_order if kind == "log" else _dated
    keys: set[Key] = set()
    for k in set(a) | set(b):
        if k[0] == "" or (k in a and k in b) or k not in o:
            keys.add(k)
        elif (k in a and a[k] != o[k]) or (k in b and b[k] != o[k]):
            keys.add(k)  # one side dropped the section, the other changed it: a conflict below
    order = _order(kind, [[s.key for s in sections] for sections in split[1:]], keys - {("", 0)})
    if order is None:
        return Fallback("the two sides put the same sections in different orders")
    moves = cardmoves.plan(o, a, b, lambda k: _rank(kind, k)) if kind == "board" else None
    if moves is not None:  # cards moved between sections: decided on the whole board first
        o, a, b = moves.sides
    pieces: list[linemerge.Piece] = []
    for k in [("", 0)] + order:
        if k[0] and (k not in a or k not in b) and k in o:  # dropped on one side, changed on the other
            pieces.append(linemerge.Conflict(tuple(o[k]), tuple(a.get(k, [])), tuple(b.get(k, []))))
            continue
        body = linemerge.merge(o.get(k, []), a.get(k, []), b.get(k, []), order_key, PLACEHOLDERS)
        pieces.extend(cardmoves.settle(k, body, moves) if moves is not None else body)
    return pieces


def _render(pieces: list[linemerge.Piece], size: int, labels: tuple[str, ...]) -> tuple[list[str], int]:
    """Lines with Git's markers around each conflict; a third label (the base's) asks for the diff3
    style, the base's lines between ``|||||||`` and ``=======`` (``merge.conflictStyle=diff3``)."""
    out: list[str] = []
    n = 0
    for p in pieces:
        if isinstance(p, linemerge.Conflict):
            n += 1
            out.append("<" * size + f" {labels[0]}")
            out.extend(p.ours)
            if len(labels) > 2:
                out.append("|" * size + f" {labels[2]}")
                out.extend(p.base)
            out.append("=" * size)
            out.extend(p.theirs)
            out.append(">" * size + f" {labels[1]}")
        else:
            out.append(p)
    return out, n


def merge(
    base: str,
    ours: str,
    theirs: str,
    path: str = "",
    marker_size: int = 7,
    labels: tuple[str, ...] = ("ours", "theirs"),
) -> Result | Fallback:
    """Merge one writer-owned file.  ``base`` is empty for a file both sides added.  ``labels``: ours,
    theirs and, for the diff3 style, the base's."""
    for label, text in (("the base", base), ("ours", ours), ("theirs", theirs)):
        problem = _problem(label, text)
        if problem is not None:
            return Fallback(problem)
    kind = kind_of(path)
    s = [surface(x) for x in (base, ours, theirs)]
    lines = [x.lines for x in s]
    counted = None
    if kind == "board":
        free = [_count_free(x) for x in lines]
        if all(f is not None for f in free[1:]) and (free[0] is not None or not base):
            counted = [free[0] or [], free[1], free[2]]
    pieces = _merge_lines(kind, *(counted or lines))
    if isinstance(pieces, Fallback):
        return pieces
    if counted is not None:
        if linemerge.conflicts(pieces):
            pieces = _merge_lines(kind, *lines)  # a conflict shows each side's own header
            if isinstance(pieces, Fallback):
                return pieces
        else:
            plain = [p for p in pieces if isinstance(p, str)]
            count = str(_in_flight([p.replace(COUNT, "0") for p in plain]))
            pieces = [p.replace(COUNT, count) for p in plain]
    out, n = _render(pieces, max(1, marker_size), labels)
    known = bool(base)
    eol = _pick(s[0].eol, s[1].eol, s[2].eol, known, "\n")
    final = _pick(s[0].final_newline, s[1].final_newline, s[2].final_newline, known, True)
    bom = _pick(s[0].bom, s[1].bom, s[2].bom, known, False)
    text = eol.join(out)
    if out and (final or isinstance(pieces[-1], linemerge.Conflict)):
        text += eol
    return Result(("\ufeff" if bom else "") + text, n)
