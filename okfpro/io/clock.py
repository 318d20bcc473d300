"""The one place okfpro asks what day and time it is.

``OKFPRO_TODAY=YYYY-MM-DD`` pins the date for reproducible runs and tests.  Otherwise
:func:`today` is the local calendar date, as the reference implementation reads it (the
board, the journal, the log), and :func:`utc_day` the UTC date of a moment (memory's day
files are UTC days).
"""

from __future__ import annotations

import datetime as _dt
import os


class ClockError(ValueError):
    pass


def today() -> _dt.date:
    pinned = os.environ.get("OKFPRO_TODAY", "").strip()
    if pinned:
        try:
            return _dt.date.fromisoformat(pinned)
        except ValueError as exc:
            raise ClockError(f"OKFPRO_TODAY={pinned!r} is not a YYYY-MM-DD date") from exc
    return _dt.date.today()


def utcnow() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc)


def utc_day(now: _dt.datetime) -> str:
    """The memory day (``YYYY-MM-DD``) of the moment ``now``: its UTC date, unless pinned."""
    pinned = os.environ.get("OKFPRO_TODAY", "").strip()
    if pinned:
        return today().isoformat()
    return now.astimezone(_dt.timezone.utc).date().isoformat()
