"""The read views of a bundle, as pure functions of a :class:`Bundle`.

One function per view; each returns the view's JSON payload *without* the
``bundle`` head (the shell adds that, since only it knows how the caller named
the bundle).  The shapes are the reference's (okf 2.2.0) exactly — pinned by
``tests/test_conformance_views.py`` against 100 bundles x 12 views:

==================  ==========================================================
``catalog``         ``{count, concepts: [row]}``, rows sorted by id
``files``           ``{count, files: [{path, id, dir, type, title, description}]}``
``tags``            ``{count, tags: [{tag, count, concepts}]}``; ``--by``:
                    ``{count, by, groups: [{<by>, count, tags: [...]}]}``
``types``           ``{count, types: [{type, count, concepts}]}``
``stats``           concepts, dirs, top_dirs, concept_types, cross_links,
                    distinct_tags, by_type, by_dir, by_top_dir
``dirs``            ``{count, total, dirs: [{dir, ancestor, count, subtree, subdirs}]}``
``index``           ``{count, directories: [{dir, ancestor, index_path, present,
                    synthesized, count, types, tags, subdirs, body, listing}]}``
``graph``           ``{nodes, edges}``; minimal adds ``types`` / ``tags`` indexes
``hubs``            ``{count, hubs: [{id, top_dir, inbound, by_top_dir}]}``
``loose``           ``{count, loose: [{id, title, dir}]}``
``references``      ``{count, references: [...], dangling: [...]}``
==================  ==========================================================

Keys okfpro adds beyond the reference: none in these payloads (the ``--limit``
of ``graph --hubs`` only shortens the list).  Titles follow the reference: a
blank ``title`` reads as the id's last segment.
"""

from __future__ import annotations

import datetime as _dt
import posixpath

from okfpro.core.concept import Bundle, Concept, ParseError, split
from okfpro.core.fence import FRONTMATTER
from okfpro.core.graph import Graph, build as build_graph, node_type, top_dir
from okfpro.core.yamlsafe import ZULU, is_blank, to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Callable, Iterable

# The row fields each list view's --fields/--except is checked against.
CATALOG_ROW = ("id", "title", "type", "description", "tags", "generated_at", "generated_by", "generated", "trust",
               "status", "stale_after", "sources", "backlog_ref", "dir", "top_dir", "links_out", "links_in")
FILES_ROW = ("path", "id", "dir", "type", "title", "description")
LOOSE_ROW = ("id", "title", "dir")
DIRS_ROW = ("dir", "ancestor", "count", "subtree", "subdirs")
INDEX_ROW = ("dir", "ancestor", "index_path", "present", "synthesized", "count", "types", "tags", "subdirs", "body",
             "listing")
REFERENCE_ROW = ("path", "dir", "kind", "referenced_by")
REFERENCES_DIR = "references"


# --------------------------------------------------------------------------- small rules


def title_of(c: Concept) -> str:
    """The reference's display title: ``title``, else the id's last segment."""
    return c.title if c.title.strip() else c.basename


def type_text(c: Concept) -> str:
    """The ``type`` the row views print: as the reference keeps it — a type that is only spaces stays
    those spaces (the graph and the type index read it as blank: Untyped)."""
    raw = c.frontmatter.get("type")
    if isinstance(raw, str) and not raw.strip():
        return raw
    return c.type


def tag_list(c: Concept) -> list[str]:
    """Tags as the catalog and the index listing read them: a lone scalar is a one-tag list
    (the graph's tag index, like the reference's, counts only a real list)."""
    raw = c.frontmatter.get("tags")
    if raw is None or isinstance(raw, (list, dict)):
        return list(c.tags)
    return [to_text(raw)]


def dir_of(cid: str) -> str:
    return posixpath.dirname(f"{cid}.md") or "."


def iso(value: Any) -> str | None:
    """A temporal frontmatter value as ISO 8601 text (strings pass through)."""
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        # as the reference prints it (Ruby's Time#iso8601): seconds, no fraction; a stamp
        # written with Z ends in Z, an explicit offset (+00:00 too) is kept; a zoneless one is
        # a UTC moment shown in the process's local zone (TZ), as an offset
        at = moment(value)
        head = at.strftime("%Y-%m-%dT%H:%M:%S")
        if at.tzinfo is ZULU:
            return head + "Z"
        return head + _offset(at, ":")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return to_text(value)


def moment(value: _dt.datetime) -> _dt.datetime:
    """A frontmatter timestamp as the reference holds it: a zoneless one is a UTC moment in the
    process's local zone; one with a zone is kept as written (``Z`` stays :data:`ZULU`)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=_dt.timezone.utc).astimezone()
    return value


def _offset(value: _dt.datetime, sep: str) -> str:
    minutes = int((value.utcoffset() or _dt.timedelta(0)).total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}{sep}{abs(minutes) % 60:02d}"


def ruby_text(value: Any) -> str:
    """A temporal value as the reference's ``to_s`` prints it (lint's stale metric): a moment
    ``2026-11-20 10:00:00 +0200`` (``UTC`` for one written with Z), a day ``2026-11-20``, text as is."""
    if isinstance(value, _dt.datetime):
        at = moment(value)
        head = at.strftime("%Y-%m-%d %H:%M:%S")
        return f"{head} UTC" if at.tzinfo is ZULU else f"{head} {_offset(at, '')}"
    if isinstance(value, _dt.date):
        return value.isoformat()
    return to_text(value)


def tally(values: Iterable[str]) -> dict[str, int]:
    """``{value: count}`` ordered by count (desc) then value."""
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def graph_of(bundle: Bundle) -> Graph:
    """The bundle's graph, built once per Bundle object."""
    memo = bundle.__dict__.get("_okfpro_graph")
    if memo is None:
        memo = build_graph(bundle)
        bundle.__dict__["_okfpro_graph"] = memo
    return memo


def by_id_sorted(concepts: Iterable[Concept]) -> list[Concept]:
    return sorted(concepts, key=lambda c: (c.id, c.path))


# --------------------------------------------------------------------------- catalog / files


def catalog_rows(bundle: Bundle) -> list[dict[str, Any]]:
    """Every concept with its metadata and link degrees, sorted by id."""
    graph = graph_of(bundle)
    rows = []
    for c in by_id_sorted(bundle.concepts):
        fm = c.frontmatter
        generated = fm.get("generated")
        by = generated.get("by") if isinstance(generated, dict) else None
        status = fm.get("status")
        backlog = fm.get("backlog_ref")
        rows.append({
            "id": c.id,
            "title": title_of(c),
            "type": type_text(c),
            "description": c.description,
            "tags": tag_list(c),
            "generated_at": iso(c.generated_at),
            "generated_by": None if by is None else to_text(by),
            "generated": c.declared_generated,
            "trust": c.trust,
            "status": None if status is None else to_text(status),
            "stale_after": iso(fm.get("stale_after")),
            "sources": len(c.sources),
            "backlog_ref": None if backlog is None else to_text(backlog),
            "dir": dir_of(c.id),
            "top_dir": top_dir(c.id),
            "links_out": graph.out_degree(c.id),
            "links_in": graph.in_degree(c.id),
        })
    return rows


def catalog(bundle: Bundle, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    rows = [r for r in catalog_rows(bundle) if where is None or where(r)]
    return {"count": len(rows), "concepts": rows}


def files(bundle: Bundle, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    rows = [{"path": f"{r['id']}.md", "id": r["id"], "dir": r["dir"], "type": r["type"], "title": r["title"],
             "description": r["description"]}
            for r in catalog_rows(bundle) if where is None or where(r)]
    return {"count": len(rows), "files": rows}


# --------------------------------------------------------------------------- tags / types


def _inverted(index: dict[str, list[str]], key: str, keep: set[str] | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for value, ids in index.items():
        if keep is not None:
            ids = [i for i in ids if i in keep]
        if ids:
            rows.append({key: value, "count": len(ids), "concepts": list(ids)})
    rows.sort(key=lambda r: (-r["count"], r[key]))
    return rows


def _kept(bundle: Bundle, where: Callable[[dict[str, Any]], bool] | None) -> set[str] | None:
    if where is None:
        return None
    return {r["id"] for r in catalog_rows(bundle) if where(r)}


def tags(bundle: Bundle, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    rows = _inverted(graph_of(bundle).tag_index, "tag", _kept(bundle, where))
    return {"count": len(rows), "tags": rows}


def types(bundle: Bundle, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    rows = _inverted(graph_of(bundle).type_index, "type", _kept(bundle, where))
    return {"count": len(rows), "types": rows}


def tag_groups(bundle: Bundle, by: str, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """The tag index re-cut per type (blank = Untyped) or per directory (``.`` = root)."""
    entries = {r["id"]: r for r in catalog_rows(bundle) if where is None or where(r)}
    groups: dict[str, dict[str, list[str]]] = {}
    totals: dict[str, int] = {}
    for tag, ids in graph_of(bundle).tag_index.items():
        for cid in ids:
            row = entries.get(cid)
            if row is None:
                continue
            if by == "type":
                key = row["type"] if row["type"].strip() else "Untyped"
            else:
                key = row["dir"]
            groups.setdefault(key, {}).setdefault(tag, []).append(cid)
            totals[tag] = totals.get(tag, 0) + 1
    out: list[dict[str, Any]] = []
    for key in sorted(groups):
        rows: list[dict[str, Any]] = [{"tag": t, "count": len(ids), "total": totals[t], "concepts": ids} for t, ids in groups[key].items()]
        rows.sort(key=lambda r: (-r["count"], r["tag"]))
        out.append({by: key, "count": len(rows), "tags": rows})
    distinct = len({r["tag"] for g in out for r in g["tags"]})
    return {"count": distinct, "by": by, "groups": out}


# --------------------------------------------------------------------------- directories


def directory_set(bundle: Bundle) -> list[str]:
    """Every directory holding a concept, an index.md or a log.md, plus their ancestors; ``.`` first."""
    seed = [posixpath.dirname(c.path) or "." for c in bundle.concepts]
    seed += [posixpath.dirname(e.path) or "." for e in bundle.reserved
             if e.path.rsplit("/", 1)[-1] in ("index.md", "log.md")]
    found: dict[str, bool] = {}
    for d in seed:
        cur = d
        while cur not in found:
            found[cur] = True
            if cur == ".":
                break
            cur = posixpath.dirname(cur) or "."
    return sorted(found, key=lambda d: "" if d == "." else d)


def _strip_frontmatter(content: str) -> str:
    if FRONTMATTER.match(content) is None:
        return content
    try:
        return split(content)[1]
    except ParseError:
        return content


def directory_index(bundle: Bundle) -> list[dict[str, Any]]:
    """The §8 map: one entry per directory (see :func:`directory_set`), ``.`` first."""
    by_dir: dict[str, list[Concept]] = {}
    for c in bundle.concepts:
        by_dir.setdefault(posixpath.dirname(c.path) or ".", []).append(c)
    dirs = directory_set(bundle)
    indexes = {e.path: e for e in bundle.reserved if e.path.rsplit("/", 1)[-1] == "index.md"}
    children: dict[str, list[str]] = {}
    for d in dirs:
        if d != ".":
            children.setdefault(posixpath.dirname(d) or ".", []).append(d)
    out = []
    for d in dirs:
        here = sorted(by_dir.get(d, []), key=lambda c: c.id)
        index_path = "index.md" if d == "." else f"{d}/index.md"
        entry = indexes.get(index_path)
        out.append({
            "dir": d,
            "index_path": index_path,
            "present": entry is not None,
            "synthesized": entry is None,
            "body": _strip_frontmatter(entry.content) if entry is not None else None,
            "count": len(here),
            "types": tally(type_text(c) for c in here),
            "tags": tally(t for c in here for t in tag_list(c)),
            "subdirs": children.get(d, []),
            "listing": [{"id": c.id, "title": title_of(c), "description": c.description, "type": type_text(c),
                         "tags": tag_list(c)} for c in here],
        })
    return out


def fold(value: Any) -> str:
    return str(value if value is not None else "").lower()


def fold_dir(value: str, known: Iterable[str]) -> str:
    """A user's ``--dir``: case folded, trailing slash trimmed; ``root`` is ``.`` unless a ``root/`` exists."""
    folded = fold(value).rstrip("/")
    if not folded:
        return "."
    if folded == "root" and not any(fold(d) == "root" or fold(d).startswith("root/") for d in known):
        return "."
    return folded


def under_dir(entry_dir: str, base: str) -> bool:
    entry, path = fold(entry_dir), fold(base)
    return entry == path or entry.startswith(path + "/")


def depth_of(d: str) -> int:
    return 0 if d == "." else d.count("/") + 1


def _parent(d: str) -> str | None:
    if d == ".":
        return None
    head, sep, _ = d.rpartition("/")
    return head if sep else "."


def select_dirs(all_dirs: list[str], bases: list[str] | None, depth: int | None, ancestors: bool = True
                ) -> tuple[set[str], list[str]]:
    """(wanted, ancestor chain) for ``--dir`` (repeatable) / ``--depth`` / ``--[no-]ancestors``."""
    folded_bases = [fold_dir(b, all_dirs) for b in bases or []]
    if not folded_bases and depth is None:
        wanted = set(all_dirs)
    elif not folded_bases:
        wanted = {d for d in all_dirs if depth_of(d) <= depth}  # type: ignore[operator]  # depth is set here
    else:
        wanted = {d for d in all_dirs for b in folded_bases
                  if under_dir(d, b) and (depth is None or depth_of(d) - depth_of(b) <= depth)}
    chain: list[str] = []
    if ancestors:
        stored = {fold(d): d for d in all_dirs}
        for b in folded_bases:
            if b not in stored:
                continue
            cur = _parent(b)
            while cur is not None:
                name = stored.get(cur, cur)
                if name not in chain:
                    chain.append(name)
                cur = _parent(cur)
    chain = [d for d in chain if d not in wanted]
    return wanted, chain


def dirs(bundle: Bundle, bases: list[str] | None = None, depth: int | None = None, ancestors: bool = True
         ) -> dict[str, Any]:
    entries = directory_index(bundle)
    names = [e["dir"] for e in entries]
    subtree = {e["dir"]: sum(o["count"] for o in entries if under_dir(o["dir"], fold(e["dir"]))) for e in entries}
    wanted, chain = select_dirs(names, bases, depth, ancestors)
    rows = [{"dir": e["dir"], "ancestor": e["dir"] in chain, "count": e["count"], "subtree": subtree[e["dir"]],
             "subdirs": e["subdirs"]}
            for e in entries if e["dir"] in wanted or e["dir"] in chain]
    total = sum(r["count"] for r in rows if not r["ancestor"])
    return {"count": len(rows), "total": total, "dirs": rows}


def index(bundle: Bundle, bases: list[str] | None = None, depth: int | None = None, ancestors: bool = True,
          body: bool = True) -> dict[str, Any]:
    entries = directory_index(bundle)
    if bases or depth is not None:
        wanted, chain = select_dirs([e["dir"] for e in entries], bases, depth, ancestors)
        entries = [e for e in entries if e["dir"] in wanted or e["dir"] in chain]
    else:
        chain = []
    rows = []
    for e in entries:
        row = {"dir": e["dir"], "ancestor": e["dir"] in chain, "index_path": e["index_path"],
               "present": e["present"], "synthesized": e["synthesized"], "count": e["count"], "types": e["types"],
               "tags": e["tags"], "subdirs": e["subdirs"], "body": e["body"], "listing": e["listing"]}
        if not body:
            del row["body"]
        rows.append(row)
    return {"count": len(rows), "directories": rows}


# --------------------------------------------------------------------------- stats


def stats(bundle: Bundle) -> dict[str, Any]:
    graph = graph_of(bundle)
    rows = catalog_rows(bundle)
    by_type = dict(sorted(((t, len(ids)) for t, ids in graph.type_index.items()), key=lambda kv: -kv[1]))
    by_top: dict[str, int] = {}
    for r in rows:
        by_top[r["top_dir"]] = by_top.get(r["top_dir"], 0) + 1
    by_top = dict(sorted(by_top.items(), key=lambda kv: -kv[1]))
    by_dir = dict(sorted(((e["dir"], e["count"]) for e in directory_index(bundle)), key=lambda kv: (-kv[1], kv[0])))
    return {
        "concepts": len(rows),
        "dirs": len(by_dir),
        "top_dirs": len(by_top),
        "concept_types": len(by_type),
        "cross_links": len(graph.edges),
        "distinct_tags": len(graph.tag_index),
        "by_type": by_type,
        "by_dir": by_dir,
        "by_top_dir": by_top,
    }


# --------------------------------------------------------------------------- graph / hubs / loose


def graph(bundle: Bundle, minimal: bool = False, body: bool = True) -> dict[str, Any]:
    g = graph_of(bundle)
    nodes = []
    for c in bundle.concepts:
        if minimal:
            nodes.append({"id": c.id, "title": title_of(c)})
            continue
        node: dict[str, Any] = {"id": c.id, "type": node_type(c), "title": title_of(c), "description": c.description,
                                "tags": list(c.tags)}
        if body:
            node["body"] = c.body.strip()
        nodes.append(node)
    out: dict[str, Any] = {"nodes": nodes, "edges": [{"source": s, "target": t} for s, t in g.edges]}
    if minimal:
        out["types"] = g.type_index
        out["tags"] = g.tag_index
    return out


def hubs(bundle: Bundle, limit: int | None = None) -> dict[str, Any]:
    rows = graph_of(bundle).hubs(limit)
    return {"count": len(rows), "hubs": rows}


def loose(bundle: Bundle) -> dict[str, Any]:
    g = graph_of(bundle)
    rows = sorted(({"id": cid, "title": title_of(g.concepts[cid]), "dir": dir_of(cid)} for cid in g.unlinked),
                  key=lambda r: r["id"])
    return {"count": len(rows), "loose": rows}


# --------------------------------------------------------------------------- references


def path_pointers(c: Concept) -> list[tuple[str, str]]:
    """(field, raw) for every §6.2 path-valued field of a concept, blank ones left out."""
    fm = c.frontmatter
    out: list[tuple[str, str]] = []

    def take(field: str, value: Any) -> None:
        if value is None or isinstance(value, (list, dict)) or is_blank(value):
            return
        out.append((field, to_text(value)))

    take("resource", fm.get("resource"))
    take("computation", fm.get("computation"))
    for key in ("executor", "attester"):
        value = fm.get(key)
        if isinstance(value, dict):
            take(f"{key}.resource", value.get("resource"))
    for i, src in enumerate(c.sources):
        if isinstance(src, dict):
            take(f"sources[{i}].resource", src.get("resource"))
    return out


def references(bundle: Bundle, files: Iterable[str]) -> dict[str, Any]:
    """The §6.3 inventory of ``files`` (bundle-relative paths under references/, listed by the shell)
    with their citers, and the pointers into references/ that resolve to no listed file."""
    from okfpro.core import links

    listed = sorted(set(files))
    existing = set(listed)
    cited: dict[str, list[dict[str, str]]] = {}
    dangling = []
    prefix = REFERENCES_DIR + "/"
    for c in by_id_sorted(bundle.concepts):
        for field, raw in path_pointers(c):
            if links.is_external(raw):
                continue
            target = links.resolve_path(raw, c.path)
            if target is None:
                continue
            bare = raw.split("#", 1)[0]
            if target in existing:
                cited.setdefault(target, []).append({"id": c.id, "field": field})
            elif target.startswith(prefix) or bare.startswith(prefix):
                hint = None
                if not bare.startswith("/") and bare != target and bare in existing:
                    hint = f"/{bare} exists — missing leading slash?"
                dangling.append({"id": c.id, "field": field, "raw": raw, "resolved": target, "hint": hint})
    rows = [{"path": p, "dir": posixpath.dirname(p) or ".", "kind": "concept" if p in bundle.by_path else "file",
             "referenced_by": cited.get(p, [])} for p in listed]
    return {"count": len(rows), "references": rows, "dangling": dangling}


# --------------------------------------------------------------------------- read


# --------------------------------------------------------------------------- filters


def row_filter(bundle: Bundle, type_: str | None = None, dir_: str | None = None, tag: str | None = None,
               status: str | None = None, trust: str | None = None) -> Callable[[dict[str, Any]], bool] | None:
    """The reference's ``--type/--dir/--tag/--status/--trust`` over catalog rows, or None when none is
    given.  type and tag: exact, case-insensitive; dir: that directory and everything below it (``root``
    or ``.`` = the root alone, unless a ``root/`` exists); status: the effective status (blank =
    ``stable``); trust: the tier, ``_`` read as ``-``."""
    if all(v is None for v in (type_, dir_, tag, status, trust)):
        return None
    base = fold_dir(dir_, directory_set(bundle)) if dir_ is not None else None
    want_status = None if status is None else str(status).strip().lower()
    want_trust = None if trust is None else str(trust).lower().replace("_", "-")

    def keep(row: dict[str, Any]) -> bool:
        if type_ is not None and fold(row["type"]) != fold(type_):
            return False
        if base is not None and not under_dir(row["dir"], base):
            return False
        if tag is not None and not any(fold(t) == fold(tag) for t in row["tags"]):
            return False
        if want_status is not None:
            declared = "" if row["status"] is None else row["status"].strip().lower()
            if (declared or "stable") != want_status:
                return False
        if want_trust is not None and fold(row["trust"]) != want_trust:
            return False
        return True

    return keep
