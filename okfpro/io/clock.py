"""The one place okfpro asks what day it is.

``OKFPRO_TODAY=YYYY-MM-DD`` pins the date for reproducible runs and tests; otherwise
"today" is the local calendar date, as the reference implementation reads it.
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
