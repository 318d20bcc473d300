"""Pure transforms behind the writers: text in, text out, plus the declared delta.

Every function here returns an :class:`Edit` (the new text and the lines it
adds, removes and moves) or raises :class:`~okfpro.core.refused.Refused` with the reason.  The disk
side (``okfpro.io.workstate``) runs the conservation guard on the declared
delta before it writes anything.

Selectors are keyed, never positional: a link target first (``/path`` as given,
or ``/projects/<sel>`` for a bare word), else a case-insensitive substring of
the line.  No match and more than one match are both refusals.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import board as _board
from okfpro.core import log as _log
from okfpro.core.board import HEADER, Row, chomp, split_lines
from okfpro.core.pairing import MARKER, links_target, marker_ok
from okfpro.core.record import Value
from okfpro.core.refused import Refused

EM = "\u2014"

#: The sentence the seeded ``journal/index.md`` carries until the first entry.
#: ``journal open`` removes exactly this line; the template must use it verbatim.
JOURNAL_PLACEHOLDER = (
    "Nothing recorded yet. The first entry is written by `okfpro journal open` "
    "on the first day of work, not by the template."
)

#: The line a new journal entry carries until its author writes the day (also a template line
#: two merged sides may both have replaced: okfpro/core/filemerge.py).
JOURNAL_DAY_PLACEHOLDER = "<!-- What happened, what it meant, what was decided. Delete this line. -->"

HEADING_LINE = re.compile(r"\A#{1,6}\s+\S")
FENCE_LINE = re.compile(r"\A---[ \t]*\Z")


class Edit(Value):
    _fields = ("before", "after", "added", "removed", "moved", "note")
    before: str
    after: str
    added: list[str]
    removed: list[str]
    moved: list[str]
    note: str

    def __init__(self, before: str, after: str, added: list[str] | None = None, removed: list[str] | None = None,
                 moved: list[str] | None = None, note: str = "") -> None:
        self.before = before
        self.after = after
        self.added = [] if added is None else added
        self.removed = [] if removed is None else removed
        self.moved = [] if moved is None else moved
        self.note = note

    @property
    def changed(self) -> bool:
        return self.before != self.after


# --- line helpers ---------------------------------------------------------------


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _lines(text: str) -> list[str]:
    raw = split_lines(text)
    if raw and not raw[-1].endswith("\n"):
        raw[-1] += _eol(text)
    return raw


def _section_end(b: _board.Board, name: str) -> int:
    """Index at which a new line for ``name`` goes: after its last board line, or
    right after its (first) heading."""
    start = b.headings[name][0]
    last = start
    for i in range(start + 1, len(b.visible)):
        if b.visible[i].startswith("## "):
            break
        if b.visible[i].startswith("- "):
            last = i
    return last + 1


def _need_section(b: _board.Board, name: str) -> None:
    if name not in b.headings:
        raise Refused(f"board.md has no '## {name}' section to write to; restore the heading first.")


# --- capture ------------------------------------------------------------------------


def capture_line(today: _dt.date, text: str) -> str:
    return f"- {today.isoformat()} {EM} {text.strip()}"


def capture(board_text: str, today: _dt.date, text: str) -> Edit:
    if "\n" in text or "\r" in text:
        raise Refused("capture text must be one line; a line break could smuggle structure into the board.")
    if not text.strip():
        raise Refused("capture needs some text to capture.")
    b = _board.parse(board_text)
    _need_section(b, "Inbox")
    line = capture_line(today, text)
    raw = _lines(board_text)
    raw.insert(_section_end(b, "Inbox"), line + _eol(board_text))
    after = "".join(raw)
    # Only a '<!--' in the text can add a comment finding (unclosed, or respliced once stripped).
    if "<!--" in text and len(_board.grammar(after)) > len(_board.grammar(board_text)):
        raise Refused(
            "the text holds a '<!--' that would not close as one comment on its line, so the board would "
            "carry a grammar finding that audit and the Stop gate refuse. Capture it without '<!--', "
            "or close the comment on the same line ('<!-- note -->')."
        )
    return Edit(board_text, after, added=[line])


# --- selectors ----------------------------------------------------------------------


def select(b: _board.Board, selector: str, sections: tuple[str, ...]) -> Row:
    sel = selector.strip()
    if not sel or sel.rstrip("/") in ("", "/projects"):
        raise Refused(
            f"'{selector}' names no single line; name the line by its project slug, "
            "a link target, or a distinctive piece of its text."
        )
    candidates = [r for r in b.rows if r.section in sections]
    prefix = sel if sel.startswith("/") else f"/projects/{sel}"
    hits = [r for r in candidates if links_target(r.targets, prefix)]
    if not hits:
        low = sel.lower()
        hits = [r for r in candidates if low in r.text.lower()]
    where = " or ".join(sections)
    if not hits:
        raise Refused(f"no board line under {where} matches '{selector}'.")
    if len(hits) > 1:
        listing = "\n".join(f"  {r.text}" for r in hits)
        raise Refused(
            f"'{selector}' matches {len(hits)} board lines, and moving one of them would move a commitment "
            f"nobody named. Use a selector that picks one:\n{listing}"
        )
    row = hits[0]
    if row.has_comment:
        raise Refused(
            f"the matching line carries an HTML comment, which a verb cannot move without changing it; "
            f"move it by hand: {row.raw}"
        )
    return row


def _splice_header(b: _board.Board, raw: list[str], new_declared: int) -> tuple[str, str]:
    """Rewrite the header's declared count in ``raw`` in place; return (old, new) line."""
    i = b.header_index
    assert i is not None
    old = b.lines[i]
    m = HEADER.match(old)
    if m is None:
        raise Refused("the 'In flight: k/CAP' header line carries a comment; fix the header by hand first.")
    new = old[: m.start(1)] + str(new_declared) + old[m.end(1) :]
    raw[i] = new + raw[i][len(old) :]
    return old, new


def _move(board_text: str, b: _board.Board, row: Row, to: str, new_declared: int | None) -> Edit:
    _need_section(b, to)
    raw = _lines(board_text)
    header = None
    if new_declared is not None and b.header_index is not None:
        header = _splice_header(b, raw, new_declared)
    dest = _section_end(b, to)
    moving = raw[row.index]
    raw.insert(dest, moving)
    del raw[row.index + (1 if dest <= row.index else 0)]
    edit = Edit(board_text, "".join(raw), moved=[row.raw])
    if header is not None and header[0] != header[1]:
        edit.removed.append(header[0])
        edit.added.append(header[1])
    return edit


def promote(board_text: str, selector: str) -> Edit:
    b = _board.parse(board_text)
    row = select(b, selector, ("Inbox", "Backlog"))
    if b.header_index is None:
        raise Refused(
            "board.md has no 'In flight: k/CAP' header, so the cap cannot be checked. Restore it on its own "
            f"line above the sections, e.g. '**In flight: {b.count('In flight')}/5**' (k = the lines under "
            "'## In flight', CAP = your cap), then promote again."
        )
    count, cap = b.count("In flight"), b.cap or 0
    if count + 1 > cap:
        raise Refused(
            f"RULE 3: {count} in flight against a cap of {cap}, so promoting makes {count + 1}. "
            "Demote something first (`okfpro demote`), or renegotiate the cap in the open: "
            "that is journal-worthy, and the owner's call."
        )
    edit = _move(board_text, b, row, "In flight", count + 1)
    edit.note = row.text
    return edit


def demote(board_text: str, selector: str) -> Edit:
    b = _board.parse(board_text)
    row = select(b, selector, ("In flight",))
    declared = b.count("In flight") - 1 if b.header_index is not None else None
    edit = _move(board_text, b, row, "Backlog", declared)
    edit.note = row.text
    return edit


# --- close -------------------------------------------------------------------------


SLUG_BAD = re.compile(r"[/\\]")


def close_slug(arg: str) -> str:
    """Accept ``slug``, ``/projects/slug/`` or ``/projects/slug/index.md``; return the slug."""
    s = arg.strip()
    for prefix in ("/projects/", "projects/"):
        if s.startswith(prefix):
            s = s[len(prefix) :]
            if s.endswith("/index.md"):
                s = s[: -len("/index.md")]
            s = s.rstrip("/")
            break
    if not s or SLUG_BAD.search(s) or s in (".", "..") or s.startswith(".") or "\x00" in s:
        raise Refused(f"'{arg}' is not one project name (a single path segment under projects/).")
    return s


def close_marker(index_text: str, today: _dt.date) -> Edit:
    raw = _lines(index_text)
    if not raw:
        raise Refused("the project's index.md is empty; its first line must be a heading to carry the closed marker.")
    first = chomp(raw[0])
    if FENCE_LINE.match(first):
        raise Refused(
            "the project's index.md opens with a '---' frontmatter fence, but the closed marker belongs on its "
            "first line, the project's Markdown heading (a project index carries no frontmatter, and the marker "
            "is read from the first three lines only). Remove the frontmatter so the heading comes first, then "
            "run close again."
        )
    if not HEADING_LINE.match(first):
        raise Refused(
            "the project's index.md does not open with a Markdown heading, so there is no line to mark closed. "
            "Put the project's heading ('# <Project>') on the first line, then run close again."
        )
    new = first.rstrip() + f" {EM} closed {today.isoformat()}"
    if not marker_ok(new) or MARKER.search(new) is None:
        raise Refused(f"the heading would not read as closed once marked ('{new}'); reword it by hand.")
    raw[0] = new + raw[0][len(first) :]
    return Edit(index_text, "".join(raw), added=[new], removed=[first])


def close_board(board_text: str, slug: str) -> tuple[Edit, int, bool]:
    """Remove every board line linking the project; returns (edit, lines removed, touched In flight)."""
    b = _board.parse(board_text)
    prefix = f"/projects/{slug}"
    gone = [r for r in b.rows if links_target(r.targets, prefix)]
    raw = _lines(board_text)
    edit = Edit(board_text, board_text)
    flight_hit = any(r.section == "In flight" for r in gone)
    if flight_hit and b.header_index is not None:
        new_count = b.count("In flight") - sum(1 for r in gone if r.section == "In flight")
        old, new = _splice_header(b, raw, new_count)
        if old != new:
            edit.removed.append(old)
            edit.added.append(new)
    for r in sorted(gone, key=lambda r: r.index, reverse=True):
        del raw[r.index]
        edit.removed.append(r.raw)
    edit.after = "".join(raw)
    return edit, len(gone), flight_hit


def close_log_line(slug: str, removed: int) -> str:
    return f"* Closed [/projects/{slug}/](/projects/{slug}/index.md) {EM} {removed} board line(s) removed."


def log_entry(log_text: str, day: _dt.date, line: str) -> Edit:
    after = _log.add_entry(log_text, day.isoformat(), line)
    added = [line]
    if _log.parse(log_text).block(day.isoformat()) is None:
        added = [f"## {day.isoformat()}", "", line]
        before_lines = [chomp(x) for x in split_lines(log_text)]
        if not any(_log.day_of(x) or _log.DAYISH.match(x) for x in before_lines):
            if before_lines and before_lines[-1].strip():
                added.insert(0, "")
        else:
            added.append("")
    return Edit(log_text, after, added=added)


# --- journal -------------------------------------------------------------------------


def journal_entry_text(day: _dt.date) -> str:
    d = day.isoformat()
    return (
        "---\n"
        "type: Journal Entry\n"
        f'title: "{d}"\n'
        f"description: What happened on {d}, what it meant, and what was decided.\n"
        "---\n"
        "\n"
        f"# {d}\n"
        "\n"
        f"{JOURNAL_DAY_PLACEHOLDER}\n"
    )


def journal_index_line(day: _dt.date) -> str:
    d = day.isoformat()
    return f"* [{d}]({d}.md) - the day's record."


def journal_index(index_text: str, day: _dt.date) -> Edit:
    """Link today's entry from the journal index (no-op when it is already linked)."""
    d = day.isoformat()
    if f"({d}.md)" in index_text:
        return Edit(index_text, index_text)
    raw = _lines(index_text)
    edit = Edit(index_text, index_text)
    kept = []
    for line in raw:
        if chomp(line).strip() == JOURNAL_PLACEHOLDER:
            edit.removed.append(chomp(line))
            continue
        kept.append(line)
    eol = _eol(index_text)
    entry = journal_index_line(day)
    last = chomp(kept[-1]) if kept else ""
    if kept and last.strip() and not last.startswith("*"):
        kept.append(eol)
        edit.added.append("")
    kept.append(entry + eol)
    edit.added.append(entry)
    edit.after = "".join(kept)
    return edit
