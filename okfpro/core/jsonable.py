"""How okfpro spells its JSON answers (the CLI's ``--json``, the MCP server, ``serve``'s routes): one
spelling, and the ``default`` for values JSON has no form of."""

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


def dumps(data: Any, pretty: bool = False) -> str:
    """The one JSON spelling: compact on one line, or indented by two; UTF-8 kept as is."""
    import json

    if pretty:
        return json.dumps(data, ensure_ascii=False, indent=2, default=jsonable)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=jsonable)
