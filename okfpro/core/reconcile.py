"""Rule 1 — writing is reconciliation: which existing concepts share a new concept's words?

Pure.  Given the parsed bundle and the bundle-relative path of a concept that was
just *created* (a Write, not an Edit), take the filename's terms (split on ``-``,
stop words dropped, the first four), search the bundle for each, drop the new
concept itself and structural files, keep the top five per term, and render one
block the agent has to read.  A deprecated hit is annotated, never hidden: it
shows the collision was settled before.

The search goes through the kernel's scan engine (``okfpro.core.search.scan``);
:func:`scan` here is a stand-in with the same field weights, used only when that
module cannot be imported.
"""

from __future__ import annotations

from typing import Any, Callable

STOP_WORDS = frozenset("the a an of and or for to in on with my is not".split())
NO_RECONCILE = frozenset({"index.md", "log.md", "board.md", "CLAUDE.md", "README.md"})
MAX_TERMS = 4
MAX_HITS = 5
DEPRECATED_NOTE = "[deprecated — this collision was already settled]"
HEADER = (
    "RULE 1 — reconciliation. This new concept shares vocabulary with concepts already in the bundle. "
    "Read them before moving on: is it a contradiction, a supersession or a duplicate? Deprecate the "
    "loser now, or put a dated Resolve: line in the board's Inbox. Carrying on without looking is the "
    "one wrong answer."
)

# field -> weight, the scan engine's weights
_WEIGHTS = (("title", 5), ("id", 4), ("tags", 3), ("type", 2), ("description", 2), ("sources", 1), ("body", 1))


def applies(tool_name: str, rel: str) -> bool:
    """Write only; not the journal; not a structural file."""
    if tool_name != "Write":
        return False
    if rel.startswith("journal/"):
        return False
    return rel.rsplit("/", 1)[-1] not in NO_RECONCILE


def terms_of(rel: str) -> list[str]:
    stem = rel.rsplit("/", 1)[-1]
    if stem.endswith(".md"):
        stem = stem[:-3]
    out = [t for t in stem.split("-") if t and t.lower() not in STOP_WORDS]
    return out[:MAX_TERMS]


def _fields(concept: Any) -> dict[str, str]:
    sources = []
    for s in getattr(concept, "sources", []) or []:
        if isinstance(s, dict):
            sources.extend(str(v) for v in s.values() if isinstance(v, (str, int, float)))
    return {
        "title": concept.title,
        "id": concept.id,
        "tags": " ".join(concept.tags),
        "type": concept.type,
        "description": concept.description,
        "sources": " ".join(sources),
        "body": concept.body,
    }


def _snippet(concept: Any, term: str, width: int = 100) -> str:
    needle = term.lower()
    for text in (concept.description, concept.body, concept.title):
        if not text:
            continue
        flat = " ".join(text.split())
        at = flat.lower().find(needle)
        if at < 0:
            continue
        start = max(0, at - width // 3)
        piece = flat[start : start + width]
        return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")
    flat = " ".join((concept.description or concept.body or "").split())
    return flat[:width] + ("…" if len(flat) > width else "")


def scan(bundle: Any, term: str) -> list[dict[str, Any]]:
    """Stand-in for the scan engine: weighted case-insensitive substring, score desc then id."""
    needle = term.lower()
    rows = []
    for concept in bundle.concepts:
        score = 0
        for name, weight in _WEIGHTS:
            if needle in _fields(concept)[name].lower():
                score += weight
        if score:
            rows.append(
                {
                    "id": concept.id,
                    "type": concept.type,
                    "title": concept.title,
                    "snippet": _snippet(concept, term),
                    "status": concept.status,
                    "score": score,
                    "path": concept.path,
                }
            )
    rows.sort(key=lambda r: (-r["score"], r["id"]))
    return rows


def _search_function() -> Callable[[Any, str], list[dict[str, Any]]]:
    """The kernel's scan engine when present (``okfpro.core.search.scan``), else the stand-in."""
    try:
        from okfpro.core import search as _search
    except ImportError:
        return scan
    engine = getattr(_search, "scan", None)
    if engine is None:
        return scan

    def through_engine(bundle: Any, term: str) -> list[dict[str, Any]]:
        return [dict(row) for row in engine(bundle, [term])]

    return through_engine


def _basename_of(bundle: Any, row: dict[str, Any]) -> str:
    path = row.get("path")
    if not path:
        concept = bundle.by_id.get(row.get("id"))
        path = concept.path if concept is not None else f"{row.get('id')}.md"
    return str(path).rsplit("/", 1)[-1]


def _status_of(bundle: Any, row: dict[str, Any]) -> str:
    concept = bundle.by_id.get(row.get("id"))
    if concept is not None:
        return concept.status
    return str(row.get("status") or "stable").lower()


def hits(bundle: Any, rel: str, search: Callable[[Any, str], list[dict[str, Any]]] | None = None) -> list[tuple[str, list[dict[str, Any]]]]:
    """``[(term, [row…])]`` for the terms that found something."""
    find = search or _search_function()
    concept = bundle.by_path.get(rel) if hasattr(bundle, "by_path") else None
    self_ids = {rel[:-3] if rel.endswith(".md") else rel}
    if concept is not None:
        self_ids.add(concept.id)
    out = []
    for term in terms_of(rel):
        rows = []
        for row in find(bundle, term):
            if row.get("id") in self_ids or row.get("path") == rel:
                continue
            if _basename_of(bundle, row) in NO_RECONCILE:
                continue
            row = dict(row)
            row["status"] = _status_of(bundle, row)
            if not row.get("snippet"):
                c = bundle.by_id.get(row.get("id"))
                row["snippet"] = _snippet(c, term) if c is not None else ""
            rows.append(row)
            if len(rows) == MAX_HITS:
                break
        if rows:
            out.append((term, rows))
    return out


def render(found: list[tuple[str, list[dict[str, Any]]]]) -> str | None:
    if not found:
        return None
    lines = [HEADER]
    for term, rows in found:
        lines.append(f"— '{term}':")
        for row in rows:
            note = f"  {DEPRECATED_NOTE}" if row.get("status") == "deprecated" else ""
            lines.append(f"    {row.get('id')}{note}  ·  {row.get('type') or '(no type)'}  ·  {row.get('title') or '(no title)'}")
            snippet = " ".join(str(row.get("snippet") or "").split())
            if snippet:
                lines.append(f"      {snippet}")
    return "\n".join(lines)


def reconcile(bundle: Any, tool_name: str, rel: str, search: Callable[[Any, str], list[dict[str, Any]]] | None = None) -> str | None:
    """The reconciliation message for a newly written concept, or None."""
    if not applies(tool_name, rel):
        return None
    return render(hits(bundle, rel, search))
