"""Pairing: the board and the corpus must point at each other.

Pure.  The closure marker grammar decides whether a project is closed (read
from the first three lines of ``projects/<slug>/index.md``), and
:func:`failures` checks the five invariants:

1. every open project has a board line linking ``/projects/<slug>``;
2. every unverified briefing (``reference/...``, generated, not read by a
   human) has a board line linking ``/<id>.md``;
3. every board link target exists in the bundle (case-insensitively);
4. no board line links a closed project;
5. no To-read line links a briefing a human has already verified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from okfpro.core.board import Row

MARKER = re.compile(r"\bclosed\b(?!-)[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000*(\u2014\u2013:-]*[0-9]{4}-[0-9]{2}-[0-9]{2}", re.I | re.A)
NEGATED = re.compile(r"\b(?:not|never|no longer|isn['\u2019]?t|wasn['\u2019]?t|hasn['\u2019]?t)[\W_]*closed\b", re.I | re.A)
MARKER_LINES = 3


def head(text: str, n: int = MARKER_LINES) -> str:
    return "\n".join(text.split("\n")[:n])


def is_closed(index_text: str) -> bool:
    """Does a project index carry a valid closure marker in its first three lines?"""
    top = head(index_text)
    return MARKER.search(top) is not None and NEGATED.search(top) is None


def marker_ok(line: str) -> bool:
    return MARKER.search(line) is not None and NEGATED.search(line) is None


def links_target(row_targets: Iterable[str], prefix: str) -> bool:
    """The selector rule: a target equals ``prefix`` or lies below it (case-insensitive)."""
    p = prefix.rstrip("/").lower()
    for t in row_targets:
        low = t.lower()
        if low == p or low.startswith(p + "/"):
            return True
    return False


@dataclass
class Facts:
    """What the pairing check needs, gathered by the caller."""

    open_projects: list[str] = field(default_factory=list)
    closed_projects: list[str] = field(default_factory=list)
    unverified_briefings: list[str] = field(default_factory=list)  # ids, e.g. reference/x
    verified_briefings: list[str] = field(default_factory=list)  # ids a human has read
    entries: set[str] = field(default_factory=set)  # bundle-relative paths of files and dirs


def failures(rows: list[Row], facts: Facts) -> list[str]:
    out: list[str] = []
    for slug in facts.open_projects:
        if not any(links_target(r.targets, f"/projects/{slug}") for r in rows):
            out.append(
                f"— pairing: projects/{slug} is open but no board line links it, and it carries no closed marker. "
                f"Put it on the board (`okfpro capture -- \"[/projects/{slug}/](/projects/{slug}/index.md) <next action>\"`) "
                f"or close it (`okfpro close {slug}`)."
            )
    for bid in facts.unverified_briefings:
        want = f"/{bid}.md".lower()
        if not any(t.lower() == want for r in rows for t in r.targets):
            out.append(
                f"— pairing: unverified briefing {bid}.md has no board line owing its read; "
                "it has dropped out of sight. Owe the read on the board, e.g. under '## To read': "
                f"`- [/{bid}.md](/{bid}.md) — read and confirm`."
            )
    entries = {e.strip("/").lower() for e in facts.entries}
    seen: set[str] = set()
    for r in rows:
        for t in r.targets:
            key = t.strip("/").lower()
            if key and key not in entries and t not in seen:
                seen.add(t)
                out.append(f"— pairing: a board line links {t}, which is not in the bundle; fix the link or drop the line.")
    for slug in facts.closed_projects:
        if any(links_target(r.targets, f"/projects/{slug}") for r in rows):
            out.append(
                f"— pairing: a board line still links projects/{slug}, which is closed; "
                "closing a project removes its board lines."
            )
    verified = {f"/{v}.md".lower() for v in facts.verified_briefings}
    for r in rows:
        if r.section != "To read":
            continue
        for t in r.targets:
            if t.lower() in verified:
                out.append(
                    f"— pairing: a To-read line links {t}, which a human has already verified; "
                    "the reading happened, so the line goes."
                )
    return out
