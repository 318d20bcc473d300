"""Reader verbs: search and the read views of a bundle.

``search``, ``catalog``, ``files``, ``index``, ``graph``, ``references``, ``stats``,
``tags``, ``types``, ``dirs``, ``loose``, ``read``.  Every verb reads the bundle
through :func:`okfpro.io.bundle.load` (the parse cache), takes ``--bundle DIR``
(default: the bundle enclosing the working directory), prints text by default,
compact single-line JSON with ``--json`` and indented JSON with ``--pretty``.
List views take ``--fields a,b`` / ``--except a,b`` (an unknown field is a usage
error, exit 2).  Exit codes: 0 ok (zero matches included), 2 usage / could not run.
The JSON shapes are documented in ``docs/json.md``.
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import click

from okfpro.core.concept import Bundle, Concept

# --------------------------------------------------------------------------- shared plumbing


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"okfpro: {message}", err=True)
    raise SystemExit(code)


def find_bundle(option: str | None) -> Path:
    from okfpro.io import roots

    if option:
        base = Path(option)
        if not base.is_dir():
            _fail(f"no such directory: {option}")
        found = roots.resolve(base)
        if found is None:
            _fail(f"no bundle at {option} (no index.md there or in {option}/.okf)")
        return found  # type: ignore[return-value]
    found = roots.enclosing(os.getcwd())
    if found is None:
        _fail("no bundle encloses the current directory (pass --bundle DIR)")
    return found  # type: ignore[return-value]


def shown_dir(root: Path) -> str:
    """The bundle as the envelope names it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(root, os.getcwd())
    except ValueError:
        return str(root)
    return str(root) if rel.startswith("..") else rel


def load_bundle(root: Path) -> Bundle:
    import gc

    from okfpro.io.bundle import load

    # a one-shot reader process allocates many acyclic objects and exits soon:
    # the cyclic collector only costs time here (reference counting still frees)
    gc.disable()
    return load(root)


def emit(data: Any, as_json: bool, pretty: bool, text: Callable[[], None]) -> None:
    if pretty:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=_jsonable))
    elif as_json:
        click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=_jsonable))
    else:
        text()


def _jsonable(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def parse_projection(fields: str | None, exclude: str | None, known: Iterable[str]) -> Callable[[dict], dict]:
    """``--fields`` / ``--except`` as a row function; unknown names exit 2."""
    known = list(known)
    if fields and exclude:
        _fail("--fields and --except cannot be combined")
    spec = fields or exclude
    if not spec:
        return lambda row: row
    names = [n.strip() for n in spec.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        _fail(f"unknown field(s): {', '.join(unknown) or '(none given)'} (known: {', '.join(known)})")
    if fields:
        return lambda row: {n: row.get(n) for n in names}
    drop = set(names)
    return lambda row: {k: v for k, v in row.items() if k not in drop}


def output_options(list_view: bool = False) -> Callable:
    def decorate(func: Callable) -> Callable:
        func = click.option("--pretty", is_flag=True, help="Indented JSON.")(func)
        func = click.option("--json", "as_json", is_flag=True, help="Compact single-line JSON.")(func)
        if list_view:
            func = click.option("--except", "exclude", metavar="FIELDS", help="Drop these row fields.")(func)
            func = click.option("--fields", metavar="FIELDS", help="Keep only these row fields (comma-separated).")(func)
        func = click.option("--bundle", "bundle_dir", metavar="DIR", help="The bundle (default: the one enclosing cwd).")(func)
        return func

    return decorate


def _text(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


# --------------------------------------------------------------------------- search

RANKED_DEFAULT_LIMIT = 20
SEARCH_ROW = ("id", "title", "type", "dir", "top_dir", "tags", "matched", "score", "snippet")


@click.command("search")
@click.argument("terms", nargs=-1, required=True)
@output_options(list_view=True)
@click.option("--in", "in_fields", metavar="FIELDS", help="Search only these fields: title,id,tags,type,description,sources,body.")
@click.option("--type", "type_", metavar="T", help="Only concepts of this type (case-insensitive).")
@click.option("--dir", "dir_", metavar="D", help="Only concepts in D and below ('.' or 'root' = the root only).")
@click.option("--tag", metavar="G", help="Only concepts carrying this tag (case-insensitive).")
@click.option("--status", metavar="S", help="Only concepts whose effective status is S.")
@click.option("--trust", metavar="T", help="Only concepts of this trust tier.")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help=f"At most N rows (scan: all by default; ranked: {RANKED_DEFAULT_LIMIT} by default).")
@click.option("-e", "--regexp", is_flag=True, help="Terms are regular expressions.")
@click.option("--engine", type=click.Choice(["scan", "ranked"]), default="scan", show_default=True,
              help="scan: the reference's AND of literal terms; ranked: BM25 over OR-joined words.")
def search_cmd(terms, bundle_dir, fields, exclude, as_json, pretty, in_fields, type_, dir_, tag, status, trust,
               limit, regexp, engine) -> None:
    """Find concepts: every TERM must hit title, id, tags, type, description, sources or body."""
    from okfpro.core import search as engine_mod

    project = parse_projection(fields, exclude, SEARCH_ROW)
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    where = engine_mod.RowFilter(type_, dir_, tag, status, trust)
    try:
        if engine == "ranked":
            if regexp:
                _fail("--regexp works with the scan engine only")
            from okfpro.io.fts import bundle_ranked

            rows = bundle_ranked(root, bundle, list(terms), RANKED_DEFAULT_LIMIT if limit is None else limit,
                                 fields=in_fields, where=where)
        else:
            rows = engine_mod.scan(bundle, list(terms), regexp=regexp, fields=in_fields, where=where, limit=limit)
    except engine_mod.SearchError as exc:
        _fail(str(exc))
        return
    rows = [project(r) for r in rows]
    data = {"bundle": shown_dir(root), "query": list(terms), "count": len(rows), "matches": rows}

    def text() -> None:
        if not rows:
            click.echo(f"no matches for {' '.join(terms)}")
            return
        for r in rows:
            head = f"{_text(r.get('score')):>6}  {r.get('id', '')}"
            if r.get("title") and r.get("title") != r.get("id"):
                head += f"  — {r['title']}"
            if r.get("matched"):
                head += f"  [{','.join(r['matched'])}]"
            click.echo(head)
            if r.get("snippet"):
                click.echo(f"        {r['snippet']}")

    emit(data, as_json, pretty, text)


# --------------------------------------------------------------------------- catalog / files

CATALOG_ROW = ("id", "title", "type", "description", "tags", "generated_at", "generated_by", "generated", "trust",
               "status", "stale_after", "sources", "backlog_ref", "dir", "top_dir", "links_out", "links_in")


def _graph(bundle: Bundle):
    from okfpro.core.graph import build

    return build(bundle)


def catalog_rows(bundle: Bundle) -> list[dict[str, Any]]:
    graph = _graph(bundle)
    rows = []
    for c in sorted(bundle.concepts, key=lambda c: (c.id, c.path)):
        status = c.frontmatter.get("status")
        backlog = c.frontmatter.get("backlog_ref")
        rows.append({
            "id": c.id,
            "title": c.display_title,
            "type": c.type,
            "description": c.description,
            "tags": list(c.tags),
            "generated_at": _text(c.generated_at) or None,
            "generated_by": c.generated_by,
            "generated": c.declared_generated,
            "trust": c.trust,
            "status": None if status is None else _text(status),
            "stale_after": _text(c.stale_after) or None,
            "sources": len(c.sources),
            "backlog_ref": None if backlog is None else _text(backlog),
            "dir": c.dir,
            "top_dir": c.top_dir,
            "links_out": graph.out_degree(c.id),
            "links_in": graph.in_degree(c.id),
        })
    return rows


@click.command("catalog")
@output_options(list_view=True)
def catalog_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Every concept with its metadata, trust, status and link counts (sorted by id)."""
    project = parse_projection(fields, exclude, CATALOG_ROW)
    root = find_bundle(bundle_dir)
    rows = [project(r) for r in catalog_rows(load_bundle(root))]
    data = {"bundle": shown_dir(root), "count": len(rows), "concepts": rows}

    def text() -> None:
        for r in rows:
            bits = [r.get("id", "")]
            for key in ("type", "trust", "status"):
                if r.get(key):
                    bits.append(f"{key}={r[key]}")
            click.echo("  ".join(str(b) for b in bits))

    emit(data, as_json, pretty, text)


FILES_ROW = ("path", "id", "dir", "type", "title", "description")


@click.command("files")
@output_options(list_view=True)
def files_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Concept files by path: path, id, physical dir, type, title, description."""
    project = parse_projection(fields, exclude, FILES_ROW)
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    rows = [project({"path": c.path, "id": c.id, "dir": posixpath.dirname(c.path) or ".", "type": c.type,
                     "title": c.display_title, "description": c.description})
            for c in sorted(bundle.concepts, key=lambda c: c.path)]
    data = {"bundle": shown_dir(root), "count": len(rows), "files": rows}
    emit(data, as_json, pretty, lambda: [click.echo(f"{r.get('path', '')}  {r.get('id', '')}") for r in rows])


# --------------------------------------------------------------------------- tags / types / dirs / stats


def _untyped(c: Concept) -> str:
    return c.type if c.type.strip() else "Untyped"


def _count_rows(counts: dict[str, int], key: str) -> list[dict[str, Any]]:
    return [{key: k, "count": v} for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


@click.command("tags")
@output_options(list_view=True)
@click.option("--by", type=click.Choice(["type", "dir"]), help="Group the tag counts by type or by directory.")
def tags_cmd(bundle_dir, fields, exclude, as_json, pretty, by) -> None:
    """Tags by how many concepts carry them (optionally within each type or dir)."""
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    if by is None:
        project = parse_projection(fields, exclude, ("tag", "count"))
        counts: dict[str, int] = {}
        for c in bundle.concepts:
            for t in dict.fromkeys(c.tags):
                counts[t] = counts.get(t, 0) + 1
        rows = [project(r) for r in _count_rows(counts, "tag")]
        data = {"bundle": shown_dir(root), "count": len(rows), "tags": rows}
        emit(data, as_json, pretty, lambda: [click.echo(f"{r.get('count', ''):>6}  {r.get('tag', '')}") for r in rows])
        return
    project = parse_projection(fields, exclude, (by, "tag", "count", "total"))
    groups: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    for c in bundle.concepts:
        g = _untyped(c) if by == "type" else c.dir
        totals[g] = totals.get(g, 0) + 1
        bucket = groups.setdefault(g, {})
        for t in dict.fromkeys(c.tags):
            bucket[t] = bucket.get(t, 0) + 1
    rows = []
    for g in sorted(groups):
        for r in _count_rows(groups[g], "tag"):
            rows.append(project({by: g, "tag": r["tag"], "count": r["count"], "total": totals[g]}))
    data = {"bundle": shown_dir(root), "by": by, "count": len(rows), "tags": rows}
    emit(data, as_json, pretty,
         lambda: [click.echo(f"{r.get(by, '')}  {r.get('count', '')}/{r.get('total', '')}  {r.get('tag', '')}") for r in rows])


@click.command("types")
@output_options(list_view=True)
def types_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Concept types by count (a blank type counts as Untyped)."""
    project = parse_projection(fields, exclude, ("type", "count", "ids"))
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    index: dict[str, list[str]] = {}
    for c in sorted(bundle.concepts, key=lambda c: c.id):
        index.setdefault(_untyped(c), []).append(c.id)
    rows = [project({"type": t, "count": len(ids), "ids": ids})
            for t, ids in sorted(index.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    data = {"bundle": shown_dir(root), "count": len(rows), "types": rows}
    emit(data, as_json, pretty, lambda: [click.echo(f"{r.get('count', ''):>6}  {r.get('type', '')}") for r in rows])


def physical_dirs(bundle: Bundle) -> dict[str, dict[str, int]]:
    """Every directory holding a concept (and its ancestors): direct ``count`` and ``subtree``."""
    out: dict[str, dict[str, int]] = {}
    for c in bundle.concepts:
        d = posixpath.dirname(c.path) or "."
        out.setdefault(d, {"count": 0, "subtree": 0})["count"] += 1
        cur = d
        while True:
            out.setdefault(cur, {"count": 0, "subtree": 0})["subtree"] += 1
            if cur == ".":
                break
            cur = posixpath.dirname(cur) or "."
    return dict(sorted(out.items(), key=lambda kv: ("" if kv[0] == "." else kv[0])))


@click.command("dirs")
@output_options(list_view=True)
def dirs_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Directories by path: concepts directly inside (count) and below (subtree)."""
    project = parse_projection(fields, exclude, ("dir", "count", "subtree"))
    root = find_bundle(bundle_dir)
    rows = [project({"dir": d, **v}) for d, v in physical_dirs(load_bundle(root)).items()]
    data = {"bundle": shown_dir(root), "count": len(rows), "dirs": rows}
    def text() -> None:
        click.echo(f"{'count':>6} {'subtree':>7}  dir")
        for r in rows:
            click.echo(f"{r.get('count', ''):>6} {r.get('subtree', ''):>7}  {r.get('dir', '')}")

    emit(data, as_json, pretty, text)


def stats_data(bundle: Bundle) -> dict[str, Any]:
    graph = _graph(bundle)
    by_type: dict[str, int] = {}
    by_dir: dict[str, int] = {}
    by_top: dict[str, int] = {}
    tags: set[str] = set()
    for c in bundle.concepts:
        by_type[_untyped(c)] = by_type.get(_untyped(c), 0) + 1
        by_dir[c.dir] = by_dir.get(c.dir, 0) + 1
        by_top[c.top_dir] = by_top.get(c.top_dir, 0) + 1
        tags.update(c.tags)

    def ordered(d: dict[str, int]) -> dict[str, int]:
        return dict(sorted(d.items(), key=lambda kv: (-kv[1], kv[0])))

    return {
        "concepts": len(bundle.concepts),
        "dirs": len(by_dir),
        "top_dirs": len(by_top),
        "concept_types": len(by_type),
        "cross_links": len(graph.edges),
        "distinct_tags": len(tags),
        "by_type": ordered(by_type),
        "by_dir": ordered(by_dir),
        "by_top_dir": ordered(by_top),
    }


@click.command("stats")
@output_options()
def stats_cmd(bundle_dir, as_json, pretty) -> None:
    """Counts: concepts, dirs, types, cross-links, tags; per type, dir and top dir."""
    root = find_bundle(bundle_dir)
    stats = stats_data(load_bundle(root))
    data = {"bundle": shown_dir(root), **stats}

    def text() -> None:
        for key in ("concepts", "dirs", "top_dirs", "concept_types", "cross_links", "distinct_tags"):
            click.echo(f"{key:<14} {stats[key]}")
        for key in ("by_type", "by_top_dir"):
            click.echo(f"{key}:")
            for k, v in stats[key].items():
                click.echo(f"  {v:>6}  {k}")

    emit(data, as_json, pretty, text)


# --------------------------------------------------------------------------- graph / loose


@click.command("graph")
@output_options()
@click.option("--hubs", is_flag=True, help="Only the hubs: concepts ranked by inbound links.")
@click.option("--minimal", is_flag=True, help="Nodes carry id and title only.")
@click.option("--no-body", is_flag=True, help="Nodes without their body text.")
@click.option("--limit", type=click.IntRange(min=0), metavar="N", help="At most N hubs.")
def graph_cmd(bundle_dir, as_json, pretty, hubs, minimal, no_body, limit) -> None:
    """The concept graph: nodes, edges (body links and source resources), type and tag indexes."""
    root = find_bundle(bundle_dir)
    graph = _graph(load_bundle(root))
    if hubs:
        rows = graph.hubs(limit)
        data: dict[str, Any] = {"bundle": shown_dir(root), "count": len(rows), "hubs": rows}
        def hubs_text() -> None:
            if not rows:
                click.echo("no hubs: no concept has an inbound link yet")
                return
            click.echo(f"{'inbound':>7}  id  (inbound links by source top dir)")
            for r in rows:
                click.echo(f"{r['inbound']:>7}  {r['id']}  " + ", ".join(f"{k}:{v}" for k, v in r["by_top_dir"].items()))

        emit(data, as_json, pretty, hubs_text)
        return
    data = {
        "bundle": shown_dir(root),
        "nodes": graph.nodes(minimal=minimal, body=not no_body),
        "edges": [{"source": s, "target": t} for s, t in graph.edges],
        "type_index": graph.type_index,
        "tag_index": graph.tag_index,
        "unlinked": graph.unlinked,
    }
    if minimal:
        del data["type_index"], data["tag_index"]

    def text() -> None:
        click.echo(f"{len(graph.ids)} nodes, {len(graph.edges)} edges, {len(graph.unlinked)} unlinked")
        for s, t in graph.edges:
            click.echo(f"{s} -> {t}")

    emit(data, as_json, pretty, text)


LOOSE_ROW = ("id", "title", "type", "dir", "top_dir")


@click.command("loose")
@output_options(list_view=True)
def loose_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Concepts with no link in or out (an index listing is not a link)."""
    project = parse_projection(fields, exclude, LOOSE_ROW)
    root = find_bundle(bundle_dir)
    graph = _graph(load_bundle(root))
    rows = []
    for cid in sorted(graph.unlinked):
        c = graph.concepts[cid]
        rows.append(project({"id": cid, "title": c.display_title, "type": c.type, "dir": c.dir, "top_dir": c.top_dir}))
    data = {"bundle": shown_dir(root), "count": len(rows), "loose": rows}
    emit(data, as_json, pretty, lambda: [click.echo(r.get("id", "")) for r in rows])


# --------------------------------------------------------------------------- references

REFERENCES_DIR = "references"
REFERENCE_ROW = ("path", "dir", "kind", "referenced_by")


def path_pointers(c: Concept) -> list[tuple[str, str]]:
    """(field, raw) for every §6.2 path-valued field of a concept."""
    fm = c.frontmatter
    out: list[tuple[str, str]] = []

    def take(field: str, value: Any) -> None:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
            out.append((field, str(value)))

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


def references_data(bundle: Bundle, files: list[str], exists: Callable[[str], bool]) -> dict[str, Any]:
    """Pure: the inventory of ``files`` (bundle-relative, under references/) and the dangling pointers."""
    from okfpro.core import links

    inventory = {p: {"path": p, "dir": posixpath.dirname(p), "kind": "concept" if p in bundle.by_path else "file",
                     "referenced_by": []} for p in sorted(files)}
    dangling = []
    prefix = REFERENCES_DIR + "/"
    for c in sorted(bundle.concepts, key=lambda c: (c.id, c.path)):
        for field, raw in path_pointers(c):
            if links.is_external(raw):
                continue
            resolved = links.resolve_path(raw, c.path)
            if resolved is None:
                continue
            bare = raw.strip().split("#", 1)[0]
            while bare.startswith("./"):
                bare = bare[2:]
            if resolved in inventory:
                inventory[resolved]["referenced_by"].append({"id": c.id, "field": field})
                continue
            if resolved.startswith(prefix) or bare.startswith(prefix):
                if exists(resolved):
                    continue
                hint = None
                if not raw.strip().startswith("/") and bare.startswith(prefix) and exists(bare):
                    hint = f"/{bare} exists — missing leading slash?"
                dangling.append({"id": c.id, "field": field, "raw": raw, "resolved": resolved, "hint": hint})
    return {"references": list(inventory.values()), "dangling": dangling}


def _reference_files(root: Path) -> list[str]:
    base = root / REFERENCES_DIR
    out: list[str] = []
    if not base.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith("."):
                continue
            out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


@click.command("references")
@output_options(list_view=True)
def references_cmd(bundle_dir, fields, exclude, as_json, pretty) -> None:
    """Files under references/ and who cites them; pointers into references/ that resolve to nothing."""
    project = parse_projection(fields, exclude, REFERENCE_ROW)
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    result = references_data(bundle, _reference_files(root), lambda rel: (root / rel).is_file())
    rows = [project(r) for r in result["references"]]
    data = {"bundle": shown_dir(root), "count": len(rows), "references": rows, "dangling": result["dangling"]}

    def text() -> None:
        if not rows and not result["dangling"]:
            click.echo("references/: no files, and no pointer into it")
            return
        for r in rows:
            cited = ", ".join(f"{x['id']} ({x['field']})" for x in r.get("referenced_by") or [])
            click.echo(f"{r.get('path', '')}  [{r.get('kind', '')}]  {cited or 'not cited'}")
        for d in result["dangling"]:
            line = f"dangling: {d['id']} {d['field']} -> {d['raw']}"
            if d["hint"]:
                line += f"  ({d['hint']})"
            click.echo(line)

    emit(data, as_json, pretty, text)


# --------------------------------------------------------------------------- index (the §8 map)


def _index_body(content: str) -> str:
    from okfpro.core.concept import FRONTMATTER

    m = FRONTMATTER.match(content)
    body = content[m.end():] if m else content
    return body.strip("\n")


def index_data(bundle: Bundle, want_dir: str | None, depth: int | None) -> list[dict[str, Any]]:
    """Pure: per physical directory, the authored index (if any) or a synthesized map."""
    dirs = physical_dirs(bundle)
    indexes = {posixpath.dirname(e.path) or ".": e for e in bundle.indexes}
    for d in indexes:
        cur = d
        while cur not in dirs:
            dirs[cur] = {"count": 0, "subtree": 0}
            if cur == ".":
                break
            cur = posixpath.dirname(cur) or "."
    by_dir: dict[str, list[Concept]] = {}
    for c in bundle.concepts:
        by_dir.setdefault(posixpath.dirname(c.path) or ".", []).append(c)
    all_dirs = sorted(dirs, key=lambda d: "" if d == "." else d)

    def parent(d: str) -> str | None:
        return None if d == "." else (posixpath.dirname(d) or ".")

    def level(d: str) -> int:
        return 0 if d == "." else d.count("/") + 1

    target = "." if want_dir is None else _norm_dir(want_dir)
    if target not in dirs:
        raise KeyError(target)
    chosen: list[tuple[str, bool]] = []
    anc = parent(target)
    ancestors = []
    while anc is not None:
        ancestors.append(anc)
        anc = parent(anc)
    chosen.extend((a, True) for a in reversed(ancestors))
    for d in all_dirs:
        inside = target == "." or d == target or d.startswith(target + "/")
        if not inside:
            continue
        if depth is not None and level(d) - level(target) > depth:
            continue
        chosen.append((d, False))
    rows = []
    for d, is_ancestor in chosen:
        members = sorted(by_dir.get(d, []), key=lambda c: c.path)
        types: dict[str, int] = {}
        tags: dict[str, int] = {}
        for c in members:
            types[_untyped(c)] = types.get(_untyped(c), 0) + 1
            for t in dict.fromkeys(c.tags):
                tags[t] = tags.get(t, 0) + 1
        entry = indexes.get(d)
        subdirs = [s for s in all_dirs if parent(s) == d and s != d]
        rows.append({
            "dir": d,
            "ancestor": is_ancestor,
            "present": entry is not None,
            "synthesized": entry is None,
            "authored": _index_body(entry.content) if entry is not None else None,
            "count": dirs[d]["count"],
            "subtree": dirs[d]["subtree"],
            "types": dict(sorted(types.items(), key=lambda kv: (-kv[1], kv[0]))),
            "tags": dict(sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))),
            "subdirs": [{"dir": s, "subtree": dirs[s]["subtree"]} for s in subdirs],
            "listing": [{"id": c.id, "path": c.path, "title": c.display_title, "description": c.description}
                        for c in members],
        })
    return rows


def _norm_dir(d: str) -> str:
    from okfpro.core.search import normalize_dir

    return normalize_dir(d)


def render_index(rows: list[dict[str, Any]]) -> str:
    """The §8 shape: a heading per directory, bullets for concepts and subdirectories."""
    lines: list[str] = []
    for r in rows:
        name = "(root)" if r["dir"] == "." else r["dir"]
        mark = " ↑" if r["ancestor"] else ""
        state = "authored" if r["present"] else "synthesized"
        lines.append(f"# {name}{mark}  ({r['count']} here, {r['subtree']} below; {state})")
        if r["ancestor"]:
            lines.append("")
            continue
        if r["types"]:
            lines.append("types: " + ", ".join(f"{k} {v}" for k, v in r["types"].items()))
        if r["tags"]:
            lines.append("tags: " + ", ".join(f"{k} {v}" for k, v in list(r["tags"].items())[:12]))
        if r["present"]:
            lines.append("")
            lines.append(r["authored"] or "")
            lines.append("")
            continue
        base = "" if r["dir"] == "." else r["dir"] + "/"
        for item in r["listing"]:
            rel = item["path"][len(base):] if item["path"].startswith(base) else item["path"]
            line = f"* [{item['title']}]({rel})"
            if item["description"]:
                line += f" - {item['description']}"
            lines.append(line)
        for sub in r["subdirs"]:
            rel = sub["dir"][len(base):] if sub["dir"].startswith(base) else sub["dir"]
            lines.append(f"* [{rel}]({rel}/) - {sub['subtree']} concepts")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


@click.command("index")
@output_options()
@click.option("--dir", "dir_", metavar="D", help="Start at directory D (its ancestors are shown marked ↑).")
@click.option("--depth", type=click.IntRange(min=0), metavar="N", help="At most N levels below the start.")
def index_cmd(bundle_dir, as_json, pretty, dir_, depth) -> None:
    """The bundle map (§8): per directory, its concepts, subdirectories, types and tags."""
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    try:
        rows = index_data(bundle, dir_, depth)
    except KeyError:
        _fail(f"no such directory in the bundle: {dir_}")
        return
    data = {"bundle": shown_dir(root), "count": len(rows), "dirs": rows}
    emit(data, as_json, pretty, lambda: click.echo(render_index(rows)))


# --------------------------------------------------------------------------- read


def locate(bundle: Bundle, ident: str) -> str | None:
    """The bundle-relative path of a concept id (or a file path / id ``.md``-less)."""
    c = bundle.by_id.get(ident)
    if c is not None:
        return c.path
    for candidate in (ident, f"{ident}.md"):
        if candidate in bundle.all_paths:
            return candidate
    return None


def unsafe_id(ident: str) -> str | None:
    if not ident.strip():
        return "an empty id"
    if "\x00" in ident or "\\" in ident:
        return "a NUL byte or a backslash"
    if ident.startswith("/") or os.path.isabs(ident):
        return "an absolute path"
    if any(seg == ".." for seg in ident.split("/")):
        return "a '..' segment"
    return None


@click.command("read")
@click.argument("ident", metavar="ID")
@output_options()
def read_cmd(ident, bundle_dir, as_json, pretty) -> None:
    """Print a concept's source file (contained to the bundle)."""
    from okfpro.io.reader import read_bytes

    why = unsafe_id(ident)
    if why:
        _fail(f"refusing id {ident!r}: it holds {why}")
    root = find_bundle(bundle_dir)
    bundle = load_bundle(root)
    rel = locate(bundle, ident)
    if rel is None:
        _fail(f"no concept {ident!r} in {shown_dir(root)}")
        return
    try:
        raw = read_bytes(os.path.realpath(root), rel)
    except OSError as exc:
        _fail(f"cannot read {rel}: {exc.strerror or exc}")
        return
    content = raw.decode("utf-8", errors="replace")
    c = bundle.by_path.get(rel)
    data = {"bundle": shown_dir(root), "id": c.id if c else ident, "path": rel, "content": content}
    if as_json or pretty:
        emit(data, as_json, pretty, lambda: None)
    else:
        sys.stdout.write(content)
        sys.stdout.flush()
