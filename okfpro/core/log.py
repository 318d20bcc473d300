"""``log.md``: day headings, day blocks, Snapshot lines, and entry insertion.

Pure.  Grammar (shared with the reference):

* a day heading is ``## YYYY-MM-DD`` (trailing blanks tolerated) naming a real
  calendar date; a heading that starts like one (``## `` then a digit) but is
  not one is *malformed* and nothing will ever check under it;
* a day block runs from its heading to the next ``## `` line;
* a Snapshot line is a bullet (``*``, ``+`` or ``-``), optional bold
  ``Snapshot``, then a colon: ``* **Snapshot**: ...``;
* within a block the last Snapshot line wins (corrections are appended); for a
  day that appears twice the first block in file order wins (newest first).
"""

from __future__ import annotations

import re

from okfpro.core.board import BLANK, chomp, parse_day, split_lines
from okfpro.core.record import Value

DAY_HEADING = re.compile(rf"\A## ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})(?:{BLANK}|\r)*\Z")
DAYISH = re.compile(rf"\A## {BLANK}*[0-9]")
SNAPSHOT_LINE = re.compile(rf"\A{BLANK}*[*+-]{BLANK}+\*{{0,2}}Snapshot\*{{0,2}}{BLANK}*:")


class Block(Value):
    _fields = ("day", "heading", "end", "snapshot", "snapshot_index")
    day: str  # YYYY-MM-DD
    heading: int  # line index of the heading
    end: int  # index one past the block's last line
    snapshot: str | None  # the winning (last) Snapshot line, ending removed
    snapshot_index: int | None

    def __init__(self, day: str, heading: int, end: int, snapshot: str | None = None,
                 snapshot_index: int | None = None) -> None:
        self.day = day
        self.heading = heading
        self.end = end
        self.snapshot = snapshot
        self.snapshot_index = snapshot_index


class Log(Value):
    _fields = ("lines", "blocks", "malformed")
    lines: list[str]  # endings removed
    blocks: list[Block]  # every valid-day block, file order
    malformed: list[tuple[int, str]]  # (index, heading)

    def __init__(self, lines: list[str], blocks: list[Block] | None = None,
                 malformed: list[tuple[int, str]] | None = None) -> None:
        self.lines = lines
        self.blocks = [] if blocks is None else blocks
        self.malformed = [] if malformed is None else malformed

    def block(self, day: str) -> Block | None:
        """The first block for ``day`` (the one that counts)."""
        for b in self.blocks:
            if b.day == day:
                return b
        return None

    @property
    def days(self) -> list[str]:
        seen: list[str] = []
        for b in self.blocks:
            if b.day not in seen:
                seen.append(b.day)
        return seen

    @property
    def newest_day(self) -> str | None:
        return max(self.days) if self.blocks else None

    def snapshot_line(self, day: str) -> str | None:
        b = self.block(day)
        return None if b is None else b.snapshot

    def latest_snapshot(self) -> tuple[str, str] | None:
        """(day, line) for the greatest day whose (first) block holds a Snapshot line."""
        best: tuple[str, str] | None = None
        for day in self.days:
            b = self.block(day)
            if b is not None and b.snapshot is not None and (best is None or day > best[0]):
                best = (day, b.snapshot)
        return best


def is_snapshot_line(line: str) -> bool:
    return SNAPSHOT_LINE.match(line) is not None


def day_of(line: str) -> str | None:
    m = DAY_HEADING.match(line)
    if m and parse_day(m.group(1)) is not None:
        return m.group(1)
    return None


def parse(text: str) -> Log:
    lines = [chomp(x) for x in split_lines(text)]
    log = Log(lines)
    current: Block | None = None
    for i, line in enumerate(lines):
        if line.startswith("## "):
            if current is not None:
                current.end = i
                current = None
            day = day_of(line)
            if day is not None:
                current = Block(day, i, len(lines))
                log.blocks.append(current)
            elif DAYISH.match(line):
                log.malformed.append((i, line))
            continue
        if current is not None and is_snapshot_line(line):
            current.snapshot = line
            current.snapshot_index = i
    return log


def malformed_headings(text: str | Log) -> list[str]:
    log = parse(text) if isinstance(text, str) else text
    return [
        f"log.md line {i + 1}: '{h.strip()}' is not a calendar date, so nothing will ever be checked under it."
        for i, h in log.malformed
    ]


def add_entry(text: str, day: str, line: str) -> str:
    """Insert ``line`` under ``## day``: after the day's last non-blank line if the
    day exists, else as a new day heading above the first day heading (newest
    first), else appended at the end after a blank line.  Everything else is kept byte for byte."""
    raw = split_lines(text)
    if raw and not raw[-1].endswith("\n"):
        raw[-1] = raw[-1] + "\n"
    log = parse(text)
    block = log.block(day)
    entry = line + "\n"
    if block is not None:
        last = block.heading
        for i in range(block.heading + 1, block.end):
            if log.lines[i].strip():
                last = i
        raw.insert(last + 1, entry)
    else:
        first = next((i for i, x in enumerate(log.lines) if day_of(x) or DAYISH.match(x)), None)
        if first is not None:
            raw[first:first] = [f"## {day}\n", "\n", entry, "\n"]
        else:
            if raw and raw[-1].strip():
                raw.append("\n")
            raw.extend([f"## {day}\n", "\n", entry])
    return "".join(raw)
