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

from okfpro.core.board import Row
from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Iterable, Iterator

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


class Facts(Value):
    """What the pairing check needs, gathered by the caller."""

    _fields = ("open_projects", "closed_projects", "unverified_briefings", "verified_briefings", "entries")
    open_projects: list[str]
    closed_projects: list[str]
    unverified_briefings: list[str]  # ids, e.g. reference/x
    verified_briefings: list[str]  # ids a human has read
    entries: set[str]  # bundle-relative paths of files and dirs

    def __init__(self, open_projects: list[str] | None = None, closed_projects: list[str] | None = None,
                 unverified_briefings: list[str] | None = None, verified_briefings: list[str] | None = None,
                 entries: set[str] | None = None) -> None:
        self.open_projects = [] if open_projects is None else open_projects
        self.closed_projects = [] if closed_projects is None else closed_projects
        self.unverified_briefings = [] if unverified_briefings is None else unverified_briefings
        self.verified_briefings = [] if verified_briefings is None else verified_briefings
        self.entries = set() if entries is None else entries


def failures(rows: list[Row], facts: Facts, chars: int | None = None) -> list[str]:
    """The messages of every invariant broken, in order.  ``chars``: stop once they total more
    than ``chars`` characters (one more for each line break): what follows could not be shown
    where the answer is cut there (a bundle can owe thousands of reads)."""
    found = _failures(rows, facts)
    if chars is None:
        return list(found)
    out: list[str] = []
    total = 0
    for message in found:
        out.append(message)
        total += len(message) + 1
        if total > chars:
            break
    return out


def _failures(rows: list[Row], facts: Facts) -> Iterator[str]:
    every = [t for r in rows for t in r.targets]  # once: any row's target is a link of the board's
    for slug in facts.open_projects:
        if not links_target(every, f"/projects/{slug}"):
            yield (
                f"— pairing: projects/{slug} is open but no board line links it, and it carries no closed marker. "
                f"Put it on the board (`okfpro capture -- \"[/projects/{slug}/](/projects/{slug}/index.md) <next action>\"`) "
                f"or close it (`okfpro close {slug}`)."
            )
    linked = {t.lower() for r in rows for t in r.targets}  # once: a bundle's briefings number thousands
    for bid in facts.unverified_briefings:
        want = f"/{bid}.md".lower()
        if want not in linked:
            yield (
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
                yield f"— pairing: a board line links {t}, which is not in the bundle; fix the link or drop the line."
    for slug in facts.closed_projects:
        if links_target(every, f"/projects/{slug}"):
            yield (
                f"— pairing: a board line still links projects/{slug}, which is closed; "
                "closing a project removes its board lines."
            )
    verified = {f"/{v}.md".lower() for v in facts.verified_briefings}
    for r in rows:
        if r.section != "To read":
            continue
        for t in r.targets:
            if t.lower() in verified:
                yield (
                    f"— pairing: a To-read line links {t}, which a human has already verified; "
                    "the reading happened, so the line goes."
                )
