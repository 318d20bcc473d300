"""The memory day file: one OKF concept per (tier, scope, UTC day), its sections the entries.

Pure (no disk, no clock: the caller passes the time).  Layout of a day file::

    ---
    type: AgentMemory
    title: Agent memory 2026-11-30
    description: Scoped memory entries recorded on 2026-11-30 (UTC).
    generated:
      by: okfpro/0.1.0
      at: '2026-11-30T09:00:00Z'
    ---

    ## 09:00:00 UTC

    > the entry's text, every line quoted (:func:`quote`)

Written by :mod:`okfpro.memory.store`, read back by the store and the memory index.
"""

from __future__ import annotations

import datetime as _dt
import re


CONCEPT_TYPE = "AgentMemory"
SECTION_RE = re.compile(r"^## (\d\d:\d\d:\d\d) UTC$")
DAY_RE = re.compile(r"^(\d{4}-\d\d-\d\d)\.md$")
# The frontmatter as frontmatter() writes it (any day, time and okfpro version): valid without
# a YAML parser, so appending to a day file needs none (tests/test_yaml_shortcuts.py).
_OWN_HEAD = re.compile(
    r"type: AgentMemory\ntitle: Agent memory \d{4}-\d\d-\d\d\n"
    r"description: Scoped memory entries recorded on \d{4}-\d\d-\d\d \(UTC\)\.\n"
    r"generated:\n  by: okfpro/[0-9A-Za-z][0-9A-Za-z.+_\-]*\n  at: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ'\n",
    re.ASCII,
)


def frontmatter(day: str, now: _dt.datetime, tool: str) -> str:
    """The frontmatter block of a new day file (``tool`` names the writer, e.g. ``okfpro/0.1.0``)."""
    at = now.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        "---\n"
        f"type: {CONCEPT_TYPE}\n"
        f"title: Agent memory {day}\n"
        f"description: Scoped memory entries recorded on {day} (UTC).\n"
        "generated:\n"
        f"  by: {tool}\n"
        f"  at: '{at}'\n"
        "---\n"
    )


def quote(text: str) -> str:
    """The one quoting rule: every line of ``text`` becomes ``> line`` (an empty one ``>``), so no
    entry text can ever become structure (a heading, a fence, frontmatter).  Carriage returns
    become newlines, NUL a replacement character; a trailing newline adds no quoted line."""
    text = text.replace("\x00", "\ufffd").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "\n".join(f"> {ln}" if ln else ">" for ln in lines)


# An append in progress: a writer puts its sections after the file with their first byte (always the
# newline that separates them from what is there) written as NUL, then that byte (store._append_day).
# A writer killed in between leaves the NUL, and what follows it may be cut anywhere: that tail was
# never written as far as anyone was told, and readers and the next writer stop before it.  No entry
# holds a NUL (quote writes it as U+FFFD), so the mark is never text.
APPENDING = b"\x00"
_APPEND_STARTS = (b"## ", b"\n## ")  # what a rendered append holds after its first byte


def interrupted_at(raw: bytes) -> int | None:
    """Where an append that never finished begins in a day file's bytes (:data:`APPENDING`), or
    None.  Only a single NUL followed by what an append writes (or a cut of it) is one: any other
    NUL leaves the file malformed, as it was."""
    at = raw.find(APPENDING)
    if at < 0 or raw.find(APPENDING, at + 1) >= 0:
        return None
    rest = raw[at + 1 : at + 5]
    if any(rest.startswith(s) or s.startswith(rest) for s in _APPEND_STARTS):
        return at
    return None


def render_section(text: str, now: _dt.datetime) -> str:
    clock = now.astimezone(_dt.timezone.utc).strftime("%H:%M:%S")
    return f"## {clock} UTC\n\n{quote(text)}\n"


class MalformedConcept(ValueError):
    pass


def split_concept(raw: bytes) -> tuple[str, str]:
    """(frontmatter block including fences, body) of a day concept; raises MalformedConcept."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedConcept(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    if text.startswith("\ufeff"):
        raise MalformedConcept("starts with a byte-order mark")
    if "\x00" in text:
        raise MalformedConcept("contains a NUL character")
    if not text.startswith("---\n"):
        raise MalformedConcept("does not start with a '---' frontmatter line")
    end = text.find("\n---\n", 3)
    if end < 0:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise MalformedConcept("frontmatter is not closed by a '---' line")
    head = text[: end + 5]
    body = text[end + 5 :]
    if _OWN_HEAD.fullmatch(text, 4, end + 1):
        return head, body  # exactly what frontmatter() writes: a mapping with the three strings
    from okfpro.core import yamlsafe  # here, not at import: a recall answered by the index parses no day file

    try:
        data = yamlsafe.load(text[4 : end + 1])
    except yamlsafe.YamlError as exc:
        raise MalformedConcept(f"frontmatter is not valid YAML ({exc})") from exc
    if not isinstance(data, dict):
        raise MalformedConcept("frontmatter is not a mapping")
    for key in ("type", "title", "description"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise MalformedConcept(f"frontmatter has no non-empty {key!r}")
    return head, body


def sections(body: str) -> list[tuple[str, str]]:
    """(HH:MM:SS, text) for each ``## HH:MM:SS UTC`` section of a day concept body."""
    out: list[tuple[str, list[str]]] = []
    for line in body.split("\n"):
        m = SECTION_RE.match(line) if line.startswith("## ") else None
        if m:
            out.append((m.group(1), []))
        elif out:
            if line.startswith("> "):
                out[-1][1].append(line[2:])
            elif line == ">":
                out[-1][1].append("")
    return [(clock, "\n".join(lines)) for clock, lines in out]


def stored_sections(text: str) -> list[str]:
    """Each section of a day concept exactly as stored (heading + quoted lines + the
    newline that ends it, so one entry's text is never mistaken for a prefix of another)."""
    chunks: list[str] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        if SECTION_RE.match(line):
            if current is not None:
                chunks.append("\n".join(current).rstrip("\n"))
            current = [line]
        elif current is not None:
            current.append(line)
    if current is not None:
        chunks.append("\n".join(current).rstrip("\n"))
    return [c + "\n" for c in chunks]


def title(text: str) -> str:
    """The entry's first line of content — after a leading metadata block (``---`` … ``---``)
    such as the memory policy's record header — clipped to 80 characters."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                lines = lines[i + 1:]
                break
    for line in lines:
        line = line.strip()
        if line:
            return line if len(line) <= 80 else line[:79] + "…"
    return "(empty)"
