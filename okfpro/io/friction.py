"""The friction log on disk: JSON lines at ``<repo>/.tmp/okfpro-friction.log``.

Telemetry must not lie: :func:`record` never raises, and when it cannot write it
leaves an *unavailable* marker beside the log so the count reads "unknown", not
zero.  Lines that cannot be parsed are counted, not dropped.  Appends go through
:func:`okfpro.io.atomic.append_line` (``O_APPEND`` + ``flock``), so concurrent
hook processes lose nothing.
"""

from __future__ import annotations

import json
import os


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any

LOG_NAME = "okfpro-friction.log"
MARKER_NAME = "okfpro-friction.unavailable"


def paths(bundle_root: str | os.PathLike) -> tuple[str, str]:
    """The log and the unavailable marker, in ``<repo>/.tmp/`` (paths as strings: the banner
    reads them on every SessionStart, which imports no ``pathlib``)."""
    from okfpro.io.roots import repo_of

    tmp = os.path.join(repo_of(bundle_root), ".tmp")
    return os.path.join(tmp, LOG_NAME), os.path.join(tmp, MARKER_NAME)


def record(bundle_root: str | os.PathLike, event: dict[str, Any]) -> bool:
    """Append one event; on any failure leave the unavailable marker.  Never raises."""
    try:
        log, marker = paths(bundle_root)
        from okfpro.io.atomic import append_line

        if not os.path.isdir(os.path.dirname(log)):
            os.makedirs(os.path.dirname(log), exist_ok=True)
        append_line(log, json.dumps(event, ensure_ascii=False, sort_keys=True))
        return True
    except Exception:  # noqa: BLE001 - telemetry must never break a hook
        _mark(bundle_root, event)
        return False


def _mark(bundle_root: str | os.PathLike, event: dict[str, Any]) -> None:
    try:
        _, marker = paths(bundle_root)
        with open(marker, "a", encoding="utf-8") as handle:
            handle.write(f"{event.get('at', '?')}\n")
    except Exception:  # noqa: BLE001
        pass


def available(bundle_root: str | os.PathLike) -> bool:
    log, marker = paths(bundle_root)
    tmp = os.path.dirname(log)
    try:
        if os.path.exists(marker):
            return False
        if os.path.exists(tmp):
            return os.path.isdir(tmp) and os.access(tmp, os.W_OK | os.X_OK)
        return os.access(os.path.dirname(tmp), os.W_OK | os.X_OK)
    except OSError:
        return False


def report(bundle_root: str | os.PathLike) -> dict[str, Any]:
    """``{"available", "events", "unreadable", "log"}`` — never raises."""
    log, _ = paths(bundle_root)
    events: list[dict[str, Any]] = []
    unreadable = 0
    try:
        with open(log, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        data = b""
    except OSError:
        return {"available": False, "events": [], "unreadable": 0, "log": str(log)}
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            unreadable += 1
            continue
        if isinstance(value, dict):
            events.append(value)
        else:
            unreadable += 1
    return {"available": available(bundle_root), "events": events, "unreadable": unreadable, "log": str(log)}


def summary(bundle_root: str | os.PathLike) -> dict[str, Any]:
    """``okfpro friction``'s payload: ``{available, recorded, unreadable, by}`` (``by``: the
    events counted per what and how, :func:`okfpro.core.friction.summarize`) — never raises."""
    from okfpro.core.friction import summarize

    rep = report(bundle_root)
    return {
        "available": rep["available"],
        "recorded": len(rep["events"]),
        "unreadable": rep["unreadable"],
        "by": summarize(rep["events"]),
    }


def clear(bundle_root: str | os.PathLike) -> list[str]:
    """Delete the log and the marker; returns what was removed."""
    removed = []
    for p in paths(bundle_root):
        try:
            os.unlink(p)
            removed.append(p)
        except FileNotFoundError:
            pass
    return removed
