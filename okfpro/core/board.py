"""The board: ``board.md`` read as the one page of work state.

Pure.  Everything here takes the board's text (and, where a date matters, the
day to measure from) and returns plain values.  The grammar is shared with the
reference implementation and must not drift:

* budget header ``In flight: k/CAP`` (optional bold), anywhere in visible text;
* six sections with exact headings, in this order: ``## In flight``,
  ``## Backlog``, ``## Waiting``, ``## Inbox``, ``## To read``, ``## Deadlines``;
* a *board line* is a line starting ``- `` at column 0 inside a section;
* Inbox and Deadlines lines carry a leading ``YYYY-MM-DD`` (calendar-valid);
  Waiting lines carry ``chase YYYY-MM-DD``;
* one-line ``<!-- ... -->`` comments are stripped, anywhere on a line, until
  nothing changes; an unclosed ``<!--`` hides nothing;
* link targets are bundle-absolute (``/...``) in ``](/path)`` or ``[/path]``
  form, with any ``#fragment`` dropped;
* a conflict line is any visible ``- `` line containing ``Resolve:``.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any

SECTIONS: tuple[str, ...] = ("In flight", "Backlog", "Waiting", "Inbox", "To read", "Deadlines")
DATED_SECTIONS = ("Inbox", "Deadlines")

# [[:blank:]] as the reference's regex engine reads it for UTF-8 text: tab and
# the Unicode space separators (never a newline).
BLANK = "[\\t \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]"

HEADER = re.compile(r"^\*{0,2}[Ii]n [Ff]light:\*{0,2}[^\S\n]*([0-9]+)[^\S\n]*/[^\S\n]*([0-9]+)", re.M | re.A)
LEADING_DATE = re.compile(r"\A-\s+([0-9]{4}-[0-9]{2}-[0-9]{2})", re.A)
CHASE = re.compile(r"\bchase\s+([0-9]{4}-[0-9]{2}-[0-9]{2})", re.A)
MD_TARGET = re.compile(r"\]\((/[^)\s]*)")
BARE_TARGET = re.compile(r"\[(/[^\]\s]*)\](?!\()")
COMMENT = re.compile(r"<!--.*?-->")
STRAY_BULLET = re.compile(rf"\A(?:[*+]{BLANK}|{BLANK}+[-*+]{BLANK})")
CONFLICT_MARK = "Resolve:"
PROJECT_TARGET = re.compile(r"\A/projects/([^/#?]+)")


def chomp(line: str) -> str:
    """Drop one line ending (``\\r\\n``, ``\\n`` or ``\\r``), nothing else."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n") or line.endswith("\r"):
        return line[:-1]
    return line


def split_lines(text: str) -> list[str]:
    """The text's lines with their endings kept (``\\n`` is the only separator)."""
    if not text:
        return []
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def parse_day(text: str | None) -> _dt.date | None:
    if not text:
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        return None


# --- comments -----------------------------------------------------------------


def strip_comments(line: str) -> tuple[str, int]:
    """Strip one-line comments to a fixpoint; return (visible text, passes that changed it)."""
    passes = 0
    while True:
        stripped = COMMENT.sub("", line)
        if stripped == line:
            return line, passes
        passes += 1
        line = stripped


# --- rows ---------------------------------------------------------------------


class Row(Value):
    """One board line: where it is, what it says once comments are gone."""

    _fields = ("section", "text", "raw", "index", "date", "chase", "targets")
    section: str
    text: str  # visible text, line ending removed (comments stripped, nothing else)
    raw: str  # the line as written, line ending removed
    index: int  # 0-based line number in the file
    date: str | None
    chase: str | None
    targets: list[str]

    def __init__(self, section: str, text: str, raw: str, index: int, date: str | None = None,
                 chase: str | None = None, targets: list[str] | None = None) -> None:
        self.section = section
        self.text = text
        self.raw = raw
        self.index = index
        self.date = date
        self.chase = chase
        self.targets = [] if targets is None else targets

    @property
    def has_comment(self) -> bool:
        return self.text != self.raw

    def age(self, today: _dt.date) -> int | None:
        day = parse_day(self.date)
        return None if day is None else (today - day).days

    def as_json(self, today: _dt.date) -> dict[str, Any]:
        return {
            "section": self.section,
            "text": self.text,
            "date": self.date,
            "age": self.age(today),
            "chase": self.chase,
            "targets": list(self.targets),
        }


def leading_date(text: str) -> str | None:
    m = LEADING_DATE.match(text)
    if m is None or parse_day(m.group(1)) is None:
        return None
    return m.group(1)


def chase_date(text: str) -> str | None:
    m = CHASE.search(text)
    if m is None or parse_day(m.group(1)) is None:
        return None
    return m.group(1)


def targets(text: str) -> list[str]:
    """Bundle-absolute link targets on a line, fragments removed, in reading order."""
    found: list[tuple[int, str]] = []
    for m in MD_TARGET.finditer(text):
        found.append((m.start(1), m.group(1)))
    for m in BARE_TARGET.finditer(text):
        found.append((m.start(1), m.group(1)))
    found.sort()
    out: list[str] = []
    for _, target in found:
        target = target.split("#", 1)[0]
        if target.startswith("/") and target not in out:
            out.append(target)
    return out


def project_slugs(target_list: list[str]) -> set[str]:
    out = set()
    for t in target_list:
        m = PROJECT_TARGET.match(t)
        if m:
            out.add(m.group(1))
    return out


# --- the parsed board ---------------------------------------------------------


class Board(Value):
    """A parsed board.  ``lines`` are the raw lines, endings removed."""

    _fields = ("text", "lines", "visible", "passes", "rows", "headings", "first_heading", "header_index", "declared",
               "cap")
    text: str
    lines: list[str]
    visible: list[str]
    passes: list[int]
    rows: list[Row]
    headings: dict[str, list[int]]  # canonical section -> heading line indexes
    first_heading: int | None  # first ``## `` line, or None
    header_index: int | None
    declared: int | None
    cap: int | None

    def __init__(self, text: str, lines: list[str], visible: list[str], passes: list[int], rows: list[Row],
                 headings: dict[str, list[int]], first_heading: int | None, header_index: int | None,
                 declared: int | None, cap: int | None) -> None:
        self.text = text
        self.lines = lines
        self.visible = visible
        self.passes = passes
        self.rows = rows
        self.headings = headings
        self.first_heading = first_heading
        self.header_index = header_index
        self.declared = declared
        self.cap = cap

    def section(self, name: str) -> list[Row]:
        return [r for r in self.rows if r.section == name]

    def count(self, name: str) -> int:
        return sum(1 for r in self.rows if r.section == name)

    @property
    def conflict_lines(self) -> list[str]:
        return [v for v in self.visible if v.startswith("- ") and CONFLICT_MARK in v]


def parse(text: str) -> Board:
    raw_lines = [chomp(line) for line in split_lines(text)]
    visible: list[str] = []
    passes: list[int] = []
    for line in raw_lines:
        v, n = strip_comments(line)
        visible.append(v)
        passes.append(n)
    header_index = declared = cap = None
    for i, v in enumerate(visible):
        m = HEADER.match(v)
        if m:
            header_index, declared, cap = i, int(m.group(1)), int(m.group(2))
            break
    rows: list[Row] = []
    headings: dict[str, list[int]] = {}
    first_heading = None
    current: str | None = None
    for i, v in enumerate(visible):
        if v.startswith("## "):
            if first_heading is None:
                first_heading = i
            name = v.rstrip()[3:]
            current = name if name in SECTIONS else None
            if current is not None:
                headings.setdefault(current, []).append(i)
            continue
        if current is None or not v.startswith("- "):
            continue
        row = Row(section=current, text=v, raw=raw_lines[i], index=i, targets=targets(v))
        if current in DATED_SECTIONS:
            row.date = leading_date(v)
        elif current == "Waiting":
            row.chase = chase_date(v)
        rows.append(row)
    return Board(text, raw_lines, visible, passes, rows, headings, first_heading, header_index, declared, cap)


def count_rows(lines: list[str], name: str) -> int:
    """``parse(text).count(name)`` for lines already split (endings removed), without reading
    dates and links: the merge driver counts In flight on every side of a large board."""
    current: str | None = None
    n = 0
    for line in lines:
        v = strip_comments(line)[0] if "<!--" in line else line
        if v.startswith("## "):
            current = v.rstrip()[3:]
        elif current == name and v.startswith("- "):
            n += 1
    return n


# --- findings -----------------------------------------------------------------


def grammar(board: Board | str) -> list[str]:
    """Every grammar finding, in line order per kind (the reference's seven kinds)."""
    b = parse(board) if isinstance(board, str) else board
    out: list[str] = []
    for i, v in enumerate(b.visible):
        if "<!--" in v:
            out.append(
                f"line {i + 1}: '<!--' is never closed on its line; it hides nothing, "
                "and a reader may think it does. Close it on the same line or remove it."
            )
    for i, n in enumerate(b.passes):
        if n > 1:
            out.append(
                f"line {i + 1}: removing one comment joins text into another comment "
                "(it needs more than one pass to strip); write comments that close where they open."
            )
    for name in SECTIONS:
        if name not in b.headings:
            out.append(
                f"board has no '## {name}' section; the counters read that exact heading, "
                "so anything meant for it is invisible."
            )
    if b.first_heading is not None:
        for i in range(b.first_heading + 1, len(b.visible)):
            if STRAY_BULLET.match(b.visible[i]):
                out.append(
                    f"line {i + 1}: '{b.visible[i].strip()}' is a bullet that does not start with '- ' "
                    "at column zero, so no counter counts it."
                )
    for row in b.rows:
        if row.section in DATED_SECTIONS and row.date is None:
            out.append(
                f"line {row.index + 1}: {row.section} line has no leading calendar date "
                f"('- YYYY-MM-DD — ...'): '{row.text.strip()}'"
            )
        elif row.section == "Waiting" and row.chase is None:
            out.append(
                f"line {row.index + 1}: Waiting line has no 'chase YYYY-MM-DD' date, "
                f"so nobody is reminded to chase it: '{row.text.strip()}'"
            )
    return out


def cap_check(board: Board | str) -> list[str]:
    """The budget face: header present, count within cap, header equal to count."""
    b = parse(board) if isinstance(board, str) else board
    if b.header_index is None:
        return [
            "board.md has no 'In flight: k/CAP' header line, so the budget has no face; "
            "put it back (e.g. '**In flight: 2/5**')."
        ]
    out: list[str] = []
    count = b.count("In flight")
    if count > (b.cap or 0):
        out.append(
            f"RULE 3 — {count} lines in flight against a cap of {b.cap}. Demote one to make room, "
            "or renegotiate the cap openly (that is journal-worthy)."
        )
    if b.declared != count:
        out.append(
            f"The header says {b.declared} in flight, but the section holds {count}. "
            "Correct the header: a wrong budget is worse than none."
        )
    return out


# --- counters ----------------------------------------------------------------


def counters(b: Board, today: _dt.date) -> dict[str, Any]:
    """The board-side values ``state`` shows (the ``board`` object of its JSON)."""
    inbox = b.section("Inbox")
    ages = [age for r in inbox if r.date is not None and (age := r.age(today)) is not None]
    waiting = b.section("Waiting")
    past = sum(1 for r in waiting if r.chase is not None and (chase := parse_day(r.chase)) is not None and chase < today)
    return {
        "in flight": b.count("In flight"),
        "cap": b.cap,
        "declared": b.declared,
        "backlog": b.count("Backlog"),
        "waiting": len(waiting),
        "past chase": past,
        "inbox": len(inbox),
        "oldest": max(ages) if ages else 0,
        "to read": b.count("To read"),
        "deadlines": b.count("Deadlines"),
        "conflicts open": len(b.conflict_lines),
    }


def deadlines_at_risk(b: Board, today: _dt.date, window: int = 7) -> list[Row]:
    """Deadlines dated on or before today+7 with no In flight line on the same project."""
    limit = today + _dt.timedelta(days=window)
    in_flight = set()
    for r in b.section("In flight"):
        in_flight |= project_slugs(r.targets)
    out = []
    for r in b.section("Deadlines"):
        day = parse_day(r.date)
        if day is None or day > limit:
            continue
        if project_slugs(r.targets) & in_flight:
            continue
        out.append(r)
    return out


def rows_json(b: Board, today: _dt.date, section: str | None = None) -> list[dict[str, Any]]:
    return [r.as_json(today) for r in b.rows if section is None or r.section == section]
