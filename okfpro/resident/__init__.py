"""A resident okfpro: a long-lived process per user and installation that keeps okfpro's modules
imported and answers each hook event or memory call in a child forked for it.

This module is what the rest of okfpro sees of it, and imports nothing: in a fresh process
:data:`SERVED` is None and every function here answers "no resident process".  In a child forked by
the server (:mod:`okfpro.resident.server`), :data:`SERVED` is set before the request runs.

* :func:`watches` — the server's file watches as they stood when this request's child was forked
  (:mod:`okfpro.resident.watch`), or None.  A reader that gets None does its full work, as a fresh
  process does; one that gets a view may skip work the view proves unchanged, and must treat any
  "unknown" answer as a change.
* :func:`tell_parent` — ask the server something for later requests (``("watch", root)``: start
  watching a tree).  A no-op in a fresh process; best effort in a child (the server may be gone).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # no typing at run time: this module is imported on every per-event path
    from typing import Any

# Set by the server in each child it forks (an object with ``watches`` and ``tell``); None otherwise.
SERVED: Any = None


def watches() -> Any:
    """The server's watch view for this request, or None (a fresh process, or no watcher)."""
    served = SERVED
    return None if served is None else served.watches


def tell_parent(*message: Any) -> None:
    """Send ``message`` (a tuple of str/int/bytes/None) to the server; nothing in a fresh process."""
    served = SERVED
    if served is not None:
        served.tell(message)
