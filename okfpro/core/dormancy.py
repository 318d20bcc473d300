"""Rule 3's second half: in-flight work that the journal has stopped mentioning.

Pure.  ``DORMANCY_DAYS`` is fixed (not tunable) and the agent skill states the
same number.  The window starts where, walking back from today, five weekdays
(Monday to Friday) have been counted.  With no journal, or a journal younger
than the window, nothing is asked: new is not dormant.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core.board import Board, Row, deadlines_at_risk, project_slugs

DORMANCY_DAYS = 5
JOURNAL_FILE = re.compile(r"\A([0-9]{4}-[0-9]{2}-[0-9]{2})\.md\Z")


def window_start(today: _dt.date, days: int = DORMANCY_DAYS) -> _dt.date:
    counted = 0
    day = today
    while True:
        if day.weekday() < 5:
            counted += 1
            if counted >= days:
                return day
        day -= _dt.timedelta(days=1)


def dormant_rows(in_flight: list[Row], today: _dt.date, journal: dict[str, str]) -> tuple[list[tuple[Row, list[str]]], int | None]:
    """(rows whose projects no recent entry links, with their slugs) and the count of
    in-flight rows that carry no ``/projects/`` link at all -- None when the journal
    is absent or younger than the window (then dormancy stays quiet).

    ``journal`` maps ``YYYY-MM-DD`` (entry day) to the entry's text.
    """
    unlinked = sum(1 for r in in_flight if not project_slugs(r.targets))
    days = sorted(d for d in journal if _valid(d))
    if not days:
        return [], None
    start = window_start(today)
    if _dt.date.fromisoformat(days[0]) > start:
        return [], None
    recent = "\n".join(journal[d] for d in days if _dt.date.fromisoformat(d) >= start).lower()
    out = []
    for r in in_flight:
        slugs = sorted(project_slugs(r.targets))
        if slugs and not any(f"/projects/{s}".lower() in recent for s in slugs):
            out.append((r, slugs))
    return out, unlinked


def questions(board: Board, today: _dt.date, journal: dict[str, str]) -> list[str]:
    """The banner's dormancy lines: one question per dormant line, then the confession."""
    rows, unlinked = dormant_rows(board.section("In flight"), today, journal)
    out = [
        f"Rule 3, dormancy — no journal entry has linked /projects/{slugs[0]}/ in {DORMANCY_DAYS} "
        "working days: is it still in flight, or backlog in disguise?"
        for _, slugs in rows
    ]
    if unlinked:
        out.append(
            f"Note: {unlinked} in-flight line(s) link no /projects/ page, so dormancy cannot watch them."
        )
    return out


def at_risk(board: Board, today: _dt.date) -> list[str]:
    """Deadline lines due within 7 days (or past) with nothing in flight against them."""
    return [r.text.strip() for r in deadlines_at_risk(board, today)]


def _valid(day: str) -> bool:
    try:
        _dt.date.fromisoformat(day)
        return True
    except ValueError:
        return False
