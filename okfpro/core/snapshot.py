"""The Snapshot line: twelve counters, one rendering, a field-by-field check.

Pure.  The caller supplies what needs the disk (the board's text, the number of
unverified briefings, the number of empty open projects); this module counts,
renders byte-identically to the reference, parses a logged line, and verifies
one against the other.  It never writes: a writer and a checker that shared a
code path would agree trivially.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import board as _board


# The writer that appends the computed line (``okfpro log-snapshot``): every refusal names it.
WRITER = "okfpro log-snapshot"

KEYS: tuple[str, ...] = (
    "inbox",
    "oldest",
    "in flight",
    "cap",
    "waiting",
    "past chase",
    "backlog",
    "to read",
    "unverified briefings",
    "conflicts open",
    "deadlines within 7d not in flight",
    "projects with 0 concepts",
)

PATTERNS: dict[str, re.Pattern[str]] = {
    "inbox": re.compile(r"inbox ([0-9]+)"),
    "oldest": re.compile(r"oldest (-?[0-9]+)d"),
    "in flight": re.compile(r"in flight ([0-9]+)/[0-9]+"),
    "cap": re.compile(r"in flight [0-9]+/([0-9]+)"),
    "waiting": re.compile(r"waiting ([0-9]+)"),
    "past chase": re.compile(r"\(([0-9]+) past chase\)"),
    "backlog": re.compile(r"backlog ([0-9]+)"),
    "to read": re.compile(r"to read ([0-9]+)"),
    "unverified briefings": re.compile(r"unverified briefings ([0-9]+)"),
    "conflicts open": re.compile(r"conflicts open ([0-9]+)"),
    "deadlines within 7d not in flight": re.compile(r"deadlines within 7d not in flight ([0-9]+)"),
    "projects with 0 concepts": re.compile(r"projects with 0 concepts ([0-9]+)"),
}


def counters(
    board_text: str | _board.Board,
    today: _dt.date,
    unverified_briefings: int,
    empty_projects: int,
) -> dict[str, int]:
    """The twelve counters, in rendering order."""
    b = _board.parse(board_text) if isinstance(board_text, str) else board_text
    c = _board.counters(b, today)
    return {
        "inbox": c["inbox"],
        "oldest": c["oldest"],
        "in flight": c["in flight"],
        "cap": c["cap"] or 0,
        "waiting": c["waiting"],
        "past chase": c["past chase"],
        "backlog": c["backlog"],
        "to read": c["to read"],
        "unverified briefings": int(unverified_briefings),
        "conflicts open": c["conflicts open"],
        "deadlines within 7d not in flight": len(_board.deadlines_at_risk(b, today)),
        "projects with 0 concepts": int(empty_projects),
    }


def render(c: dict[str, int]) -> str:
    """The mechanical line, byte for byte as the reference renders it."""
    return (
        f"* **Snapshot**: inbox {c['inbox']} (oldest {c['oldest']}d)"
        f" · in flight {c['in flight']}/{c['cap']}"
        f" · waiting {c['waiting']} ({c['past chase']} past chase)"
        f" · backlog {c['backlog']}"
        f" · to read {c['to read']}"
        f" · unverified briefings {c['unverified briefings']}"
        f" · conflicts open {c['conflicts open']}"
        f" · deadlines within 7d not in flight {c['deadlines within 7d not in flight']}"
        f" · projects with 0 concepts {c['projects with 0 concepts']}"
    )


def parse(line: str) -> dict[str, int | None]:
    """Read each counter from a logged line by its own anchor; a missing field is None."""
    out: dict[str, int | None] = {}
    for key in KEYS:
        m = PATTERNS[key].search(line)
        out[key] = int(m.group(1)) if m else None
    return out


def disagreements(want: dict[str, int], line: str) -> list[tuple[str, int, int | None]]:
    """(key, recomputed value, logged value or None) for every field that differs."""
    got = parse(line)
    return [(k, want[k], got[k]) for k in KEYS if got[k] != want[k]]


def verify(want: dict[str, int], line: str) -> str | None:
    """None when the logged line agrees with the counters; else one message naming
    every disagreement and carrying the recomputed line to paste."""
    diffs = disagreements(want, line)
    if not diffs:
        return None
    parts = [f"{k} is {w}, the line says {'nothing' if g is None else g}" for k, w, g in diffs]
    return (
        "— the Snapshot line does not match the bundle it summarises: "
        + "; ".join(parts)
        + f".\n  `{WRITER}` appends the mechanical line, recomputed:\n  "
        + render(want)
    )
