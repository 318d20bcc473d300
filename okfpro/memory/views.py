"""The JSON answers of memory recall and list, shared by ``okfpro memory`` and the MCP server.

Pure over what the store returned: the caller resolved the scope (never from the text)
and opened the store; these functions only fold the store's answer into rows.
"""

from __future__ import annotations

import datetime as _dt

from okfpro.core.scope import Scope

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any


def recall_payload(store: Any, scope: Scope, query: str, *, limit: int | None, include_hidden: bool,
                   today: _dt.date) -> tuple[dict[str, Any], list[tuple[Any, Any, str]], list[Any]]:
    """``okfpro memory recall --json``: (payload, the shown (passage, record, status) triples, diagnostics)."""
    from okfpro.memory.index import recall

    hits, diagnostics = recall(store, scope, query, today.isoformat(), include_hidden, limit or None)
    shown = [(h.passage(query), h.record, h.status) for h in hits]
    passages = []
    for passage, rec, status in shown:
        row = passage.to_json()
        row.update(text=rec.text, memory=rec.id, kind=rec.kind, status=status, source=rec.source)
        passages.append(row)
    payload = {
        "scope": scope.parts(),
        "query": query,
        "passages": passages,
        "diagnostics": [d.to_json() for d in diagnostics],
    }
    return payload, shown, list(diagnostics)


def list_payload(store: Any, scope: Scope, session: str | None = None) -> tuple[dict[str, Any], Any]:
    """``okfpro memory list --json``: (payload, the store's enumeration) — every scope the
    identity may read (all sessions of the user, its user tier, the applicable shared tiers),
    or one session of the user only (``session``)."""
    result = store.enumerate_readable(scope, session)
    payload = {
        "scope": scope.parts(),
        "entries": [e.to_json() for e in result.entries],
        "diagnostics": [d.to_json() for d in result.diagnostics],
    }
    return payload, result
