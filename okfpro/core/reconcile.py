"""Rule 1 — writing is reconciliation: which existing concepts share a new concept's words?

Pure.  Given the parsed bundle and the bundle-relative path of a concept that was
just *created* (a Write, not an Edit), take the filename's terms (split on ``-``,
stop words dropped, the first four), search the bundle for each, drop the new
concept itself and structural files, keep the top five per term, and render one
block the agent has to read.  A deprecated hit is annotated, never hidden: it
shows the collision was settled before.

The search is the kernel's scan engine (``okfpro.core.search.scan``): weighted,
case-insensitive substring over title, id, tags, type, description, sources and
body, score descending then id.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
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


def _kernel_scan(bundle: Any, term: str) -> list[dict[str, Any]]:
    from okfpro.core.search import scan

    return scan(bundle, [term])


def _basename_of(bundle: Any, row: dict[str, Any]) -> str:
    path = row.get("path")
    if not path:
        concept = bundle.by_id.get(row.get("id"))
        path = concept.path if concept is not None else f"{row.get('id')}.md"
    return str(path).rsplit("/", 1)[-1]


def _status_of(bundle: Any, row: dict[str, Any]) -> str:
    concept = bundle.by_id.get(row.get("id"))
    if concept is not None:
        return str(concept.status)
    return str(row.get("status") or "stable").lower()


def hits(bundle: Any, rel: str, search: Callable[[Any, str], list[dict[str, Any]]] | None = None) -> list[tuple[str, list[dict[str, Any]]]]:
    """``[(term, [row…])]`` for the terms that found something."""
    find = search or _kernel_scan
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
            if not row.get("snippet"):  # only id/type matched: show what the concept is about
                c = bundle.by_id.get(row.get("id"))
                row["snippet"] = (c.description or "")[:120] if c is not None else ""
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
