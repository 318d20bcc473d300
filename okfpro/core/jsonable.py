"""The ``default`` okfpro's JSON answers use for values JSON has no form of."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def jsonable(value: Any) -> Any:
    """The ``default`` every okfpro JSON answer uses (the CLI's ``--json``, the MCP server): dates as
    ISO text, sets and tuples as lists, anything else as its ``str``."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
