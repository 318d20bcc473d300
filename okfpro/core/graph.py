"""The concept graph of a bundle: nodes, directed edges, and the views built on them.

Pure.  Built once per bundle with :func:`build` and read by lint, the search
views and anything else that needs reachability.

* Nodes are concepts, keyed by id.
* Edges are directed and untyped.  They come from two places: every link in a
  concept's body (inline and reference-style) and every ``sources[].resource``
  value (native list, or the legacy ``# Citations`` fallback).  Each target is
  resolved as a path (§6), mapped to the concept living at that path, and kept
  only when such a concept exists.  Self edges are dropped; a (source, target)
  pair is kept once.
* ``type_index`` / ``tag_index`` are inverted indexes (blank type -> ``Untyped``,
  tags only from a real list).
* ``unlinked`` = concepts with no edge in or out; ``hubs`` = concepts ranked by
  inbound degree; ``components`` = undirected connected components.
"""

from __future__ import annotations

from functools import lru_cache

from okfpro.core import links as _links
from okfpro.core.concept import Bundle, Concept, cached_property
from okfpro.core.record import Value
from okfpro.core.yamlsafe import to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any

UNTYPED = "Untyped"


def node_type(concept: Concept) -> str:
    """A concept's type as the graph buckets it: blank folds to ``Untyped``."""
    return concept.type if concept.type.strip() else UNTYPED


def link_targets(concept: Concept) -> list[str]:
    """Raw body link targets, line by line (the reference's edge order)."""
    return concept.links.targets_by_line()


def source_targets(concept: Concept) -> list[str]:
    """Raw ``resource`` values of the concept's sources (native, else legacy citations)."""
    out: list[str] = []
    for entry in concept.sources:
        value = entry.get("resource")
        if value is None or isinstance(value, (list, dict)):
            continue
        text = to_text(value)
        if text.strip():
            out.append(text)
    return out


class Graph(Value):
    """Nodes (concept ids, bundle order), deduplicated directed edges, adjacency and indexes."""

    _fields = ("ids", "concepts", "edges", "out_edges", "in_edges")
    ids: list[str]
    concepts: dict[str, Concept]
    edges: list[tuple[str, str]]
    out_edges: dict[str, list[str]]
    in_edges: dict[str, list[str]]

    def __init__(self, ids: list[str], concepts: dict[str, Concept], edges: list[tuple[str, str]],
                 out_edges: dict[str, list[str]] | None = None, in_edges: dict[str, list[str]] | None = None) -> None:
        self.ids = ids
        self.concepts = concepts
        self.edges = edges
        self.out_edges = {} if out_edges is None else out_edges
        self.in_edges = {} if in_edges is None else in_edges

    # --- degrees ------------------------------------------------------------
    def in_degree(self, cid: str) -> int:
        return len(self.in_edges.get(cid, ()))

    def out_degree(self, cid: str) -> int:
        return len(self.out_edges.get(cid, ()))

    def degree(self, cid: str) -> int:
        return self.in_degree(cid) + self.out_degree(cid)

    # --- nodes --------------------------------------------------------------
    def node(self, cid: str, *, minimal: bool = False, body: bool = True) -> dict[str, Any]:
        c = self.concepts[cid]
        title = c.title or c.basename
        if minimal:
            return {"id": cid, "title": title}
        out: dict[str, Any] = {
            "id": cid,
            "type": node_type(c),
            "title": title,
            "description": c.description,
            "tags": list(c.tags),
        }
        if body:
            out["body"] = c.body
        return out

    def nodes(self, *, minimal: bool = False, body: bool = True) -> list[dict[str, Any]]:
        return [self.node(cid, minimal=minimal, body=body) for cid in self.ids]

    # --- indexes --------------------------------------------------------------
    @cached_property
    def type_index(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for cid in self.ids:
            out.setdefault(node_type(self.concepts[cid]), []).append(cid)
        return out

    @cached_property
    def tag_index(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for cid in self.ids:
            for tag in dict.fromkeys(self.concepts[cid].tags):
                out.setdefault(tag, []).append(cid)
        return out

    # --- structure -------------------------------------------------------------
    @cached_property
    def unlinked(self) -> list[str]:
        """Ids with degree 0 (an index listing is not an edge)."""
        return [cid for cid in self.ids if not self.out_edges.get(cid) and not self.in_edges.get(cid)]

    def hubs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Concepts with at least one inbound edge, by inbound count (desc) then id.

        Each row: ``{id, top_dir, inbound, by_top_dir}`` where ``by_top_dir`` counts
        the inbound edges per top-level directory of their source.
        """
        ranked = sorted((cid for cid, sources in self.in_edges.items() if sources),
                        key=lambda cid: (-len(self.in_edges[cid]), cid))
        if limit is not None:
            ranked = ranked[:limit]
        rows: list[dict[str, Any]] = []
        for cid in ranked:
            sources = self.in_edges[cid]
            per_dir: dict[str, int] = {}
            for src in sources:
                top = top_dir(src)
                per_dir[top] = per_dir.get(top, 0) + 1
            ordered = dict(sorted(per_dir.items(), key=lambda kv: (-kv[1], kv[0])))
            rows.append({"id": cid, "top_dir": top_dir(cid), "inbound": len(sources), "by_top_dir": ordered})
        return rows

    @cached_property
    def components(self) -> list[list[str]]:
        """Undirected connected components (singletons included), largest first, then by first id.

        Members are sorted by id.
        """
        neighbours: dict[str, set[str]] = {cid: set() for cid in self.ids}
        for src, dst in self.edges:
            neighbours[src].add(dst)
            neighbours[dst].add(src)
        seen: set[str] = set()
        out: list[list[str]] = []
        for start in self.ids:
            if start in seen:
                continue
            seen.add(start)
            stack = [start]
            members = []
            while stack:
                cur = stack.pop()
                members.append(cur)
                for nxt in neighbours[cur]:
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
            members.sort()
            out.append(members)
        out.sort(key=lambda m: (-len(m), m[0]))
        return out


def top_dir(cid: str) -> str:
    return cid.split("/", 1)[0] if "/" in cid else "(root)"


@lru_cache(maxsize=1 << 16)
def _resolve_from_dir(raw: str, base: str) -> str | None:
    return _links.resolve(raw, f"{base}/_" if base else "_")


def resolve_to_path(raw: str, from_path: str) -> str | None:
    """Resolve a link or a ``resource`` value to a bundle path (``.md`` targets only).

    Same answer as :func:`okfpro.core.links.resolve`, memoised by (target, source
    directory): large bundles repeat the same links from the same folders.
    """
    if not isinstance(raw, str):
        return _links.resolve(raw, from_path)
    return _resolve_from_dir(raw, from_path.rpartition("/")[0])


def resolved_links(concept: Concept) -> list[tuple[str, str | None]]:
    """Body link targets as (raw, resolved bundle path or None), computed once per concept."""
    memo = concept.__dict__.get("_okfpro_resolved_links")
    if memo is None:
        memo = [(raw, resolve_to_path(raw, concept.path)) for raw in link_targets(concept)]
        concept.__dict__["_okfpro_resolved_links"] = memo
    return memo


def resolved_sources(concept: Concept) -> list[tuple[str, str | None]]:
    """Source ``resource`` values as (raw, resolved bundle path or None), computed once per concept."""
    memo = concept.__dict__.get("_okfpro_resolved_sources")
    if memo is None:
        memo = [(raw, resolve_to_path(raw, concept.path)) for raw in source_targets(concept)]
        concept.__dict__["_okfpro_resolved_sources"] = memo
    return memo


def build(bundle: Bundle) -> Graph:
    """Build the graph of ``bundle``'s concepts (unparseable and reserved files are not nodes)."""
    by_path: dict[str, Concept] = {}
    concepts: dict[str, Concept] = {}
    ids: list[str] = []
    for c in bundle.concepts:
        by_path[c.path] = c
        if c.id not in concepts:
            ids.append(c.id)
        concepts[c.id] = c  # a duplicate id: the later concept wins, as the reference has it
    edges: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    out_edges: dict[str, list[str]] = {}
    in_edges: dict[str, list[str]] = {}
    for c in bundle.concepts:
        src = c.id
        for _, resolved in (*resolved_links(c), *resolved_sources(c)):
            if resolved is None:
                continue
            target = by_path.get(resolved)
            if target is None:
                continue
            dst = target.id
            if dst == src or (src, dst) in seen:
                continue
            seen.add((src, dst))
            edges.append((src, dst))
            out_edges.setdefault(src, []).append(dst)
            in_edges.setdefault(dst, []).append(src)
    return Graph(ids=ids, concepts=concepts, edges=edges, out_edges=out_edges, in_edges=in_edges)

