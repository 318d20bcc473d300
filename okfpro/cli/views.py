"""Reader verbs: search and the read views of a bundle — thin click wrappers.

The data of every view is built by a pure function of the bundle in
:mod:`okfpro.core.views` (shapes documented there and in README); this module
only finds the bundle, reads it, prints text or JSON and sets the exit code.

Every verb takes the bundle as ``[DIR]`` (as validate, lint and the reference
do; ``DIR/.okf`` when that holds ``index.md``, else ``DIR`` itself — a directory
without ``index.md`` is read as a bundle when named), or ``--bundle DIR`` (kept
as an alias), default the bundle enclosing the working directory.  Text by
default, compact JSON with ``--json``, indented with ``--pretty``.  List views
take ``--fields a,b`` / ``--except a,b``.  Exit codes: 0 ok (an empty answer
included), 2 usage / could not run.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import click

from okfpro.cli.common import Opened, emit, fail, json_options, load, locate, note_skipped, open_bundle, projection
from okfpro.core import views as _views
from okfpro.core.concept import Bundle

# --------------------------------------------------------------------------- shared plumbing


class Listed:
    """A list view's answer: the bundle it read, its rows before projection, and the printed data."""

    def __init__(self, opened: Opened, rows: list[dict[str, Any]], data: dict[str, Any]) -> None:
        self.opened, self.rows, self.data = opened, rows, data


def list_view(dir_arg: str | None, bundle_opt: str | None, fields: str | None, exclude: str | None,
              key: str, known: tuple[str, ...], build: Callable[[Opened], dict[str, Any]]) -> Listed:
    """Every list view's one path: the projection checked before anything is read, the bundle
    opened, ``build`` (a call of a pure builder of :mod:`okfpro.core.views`) run on it, and the rows
    under ``key`` projected into the envelope."""
    project = projection(fields, exclude, known)
    opened = open_bundle(dir_arg, bundle_opt)
    payload = build(opened)
    rows = payload[key]
    return Listed(opened, rows, {**opened.head(), **payload, key: [project(r) for r in rows]})


def output_options(list_view: bool = False, positional: bool = True) -> Callable:
    def decorate(func: Callable) -> Callable:
        func = json_options(func)
        if list_view:
            func = click.option("--except", "exclude", metavar="FIELDS", help="Drop these row fields.")(func)
            func = click.option("--fields", metavar="FIELDS", help="Keep only these row fields (comma-separated).")(func)
        func = click.option("--bundle", "bundle_opt", metavar="DIR", help="The bundle (same as DIR).")(func)
        if positional:
            func = click.argument("dir_arg", metavar="[DIR]", required=False)(func)
        return func

    return decorate


def filter_options(*names: str) -> Callable:
    """The reference's row filters, each view taking the ones orthogonal to it."""
    helps = {"type": "Only concepts of this type (case-insensitive).",
             "dir": "Only concepts in this directory and below ('root' = the root alone).",
             "tag": "Only concepts carrying this tag (case-insensitive).",
             "status": "Only concepts of this effective status.", "trust": "Only concepts of this trust tier."}

    def decorate(func: Callable) -> Callable:
        for name in reversed(("type", "dir", "tag", "status", "trust")):
            if name in names:
                func = click.option(f"--{name}", f"f_{name}", metavar=name.upper(), help=helps[name])(func)
        return func

    return decorate


def _where(bundle: Bundle, kw: dict[str, Any]):
    return _views.row_filter(bundle, kw.get("f_type"), kw.get("f_dir"), kw.get("f_tag"), kw.get("f_status"),
                        kw.get("f_trust"))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _each(rows: list[dict[str, Any]], line: Callable[[dict[str, Any]], Any]) -> None:
    """One printed line per row (the text form of a list view)."""
    for r in rows:
        click.echo(line(r))


def _label(d: str, slash: bool = False) -> str:
    if d in (".", "(root)"):
        return "(root)"
    return f"{d}/" if slash else d


# --------------------------------------------------------------------------- search

RANKED_DEFAULT_LIMIT = 20


def _regexp_budget() -> float | None:
    """``OKFPRO_REGEXP_BUDGET`` seconds for one regexp search (default: the engine's)."""
    raw = os.environ.get("OKFPRO_REGEXP_BUDGET", "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        fail(f"OKFPRO_REGEXP_BUDGET must be a number of seconds in (0, 3600], not {raw!r}")
    return value


def _search_bar(engine: str):
    """One progress bar over a ranked search's phases (reading, comparing, indexing, writing)."""
    import contextlib

    if engine != "ranked":
        return contextlib.nullcontext()
    from okfpro.io.fts import PHASES
    from okfpro.io.progress import work

    return work("ranked search", PHASES)


@click.command("search")
@click.argument("terms", nargs=-1, required=True, metavar="[DIR|@SLUG...|@all] TERM...")
@output_options(list_view=True, positional=False)
@click.option("--in", "in_fields", metavar="FIELDS", help="Search only these fields: title,id,tags,type,description,sources,body.")
@click.option("--type", "type_", metavar="T", help="Only concepts of this type (case-insensitive).")
@click.option("--dir", "dir_", metavar="D", help="Only concepts in D and below ('.' or 'root' = the root only).")
@click.option("--tag", metavar="G", help="Only concepts carrying this tag (case-insensitive).")
@click.option("--status", metavar="S", help="Only concepts whose effective status is S.")
@click.option("--trust", metavar="T", help="Only concepts of this trust tier.")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help=f"At most N rows (scan: all by default; ranked: {RANKED_DEFAULT_LIMIT} by default).")
@click.option("-e", "--regexp", is_flag=True, help="Terms are regular expressions.")
@click.option("--fuzzy", is_flag=True,
              help="Tolerate typos: terms ANDed, each matching a word exactly, as a prefix or within edit distance "
                   "0.2 x its length (the reference's definition); implies --engine ranked.")
@click.option("--engine", type=click.Choice(["scan", "ranked"]), default=None,
              help="scan (default): the reference's AND of literal terms; ranked: BM25 over OR-joined words.")
def search_cmd(terms, bundle_opt, fields, exclude, as_json, pretty, in_fields, type_, dir_, tag, status, trust,
               limit, regexp, fuzzy, engine) -> int:
    """Find concepts: every TERM must hit title, id, tags, type, description, sources or body.

    The bundle: a leading DIR (as the reference: a directory holding index.md or .okf/, or a
    path with a '/'), leading @slugs or @all (several registered bundles, rows labelled by
    slug), --bundle DIR, else the bundle enclosing the working directory."""
    from okfpro.io import search

    args = list(terms)
    refs: list[str] = []
    dir_arg = None
    while args and args[0].startswith("@"):
        refs.append(args.pop(0))
    if not refs and len(args) >= 2 and bundle_opt is None and search.names_a_bundle(args[0]):
        dir_arg = args.pop(0)
    if not args:
        fail("give at least one TERM after the bundle")
    stray = next((t for t in args if t.startswith("@")), None)
    if stray:
        click.echo(f"note: '{stray}' searches as a literal term — an @slug or @all must lead", err=True)
    if regexp and fuzzy:
        fail("--regexp and --fuzzy are mutually exclusive (a pattern is matched literally, not by edit distance)")
    if fuzzy:
        if engine == "scan":
            fail("--engine scan does not support --fuzzy (try --engine ranked)")
        engine = "ranked"
    engine = engine or "scan"
    if regexp and engine == "ranked":
        fail("--regexp works with the scan engine only")
    project = projection(fields, exclude, search.ROW)
    if engine == "ranked" and limit is None:
        limit = RANKED_DEFAULT_LIMIT
    q = search.Query(args, engine, regexp, fuzzy, in_fields,
                     {"type": type_, "dir": dir_, "tag": tag, "status": status, "trust": trust}, limit,
                     _regexp_budget() if regexp else None)

    if refs:
        from okfpro.io.registry import RegistryError

        try:
            entries, found = search.sources(refs, lambda line: click.echo(line, err=True), load)
        except RegistryError as exc:
            fail(str(exc))
        for source in found:
            note_skipped(source.bundle)
        try:
            merged = search.many(found, q)
        except search.SearchError as exc:
            fail(str(exc))
        rows = [{"slug": r["slug"], **project(r)} for r in merged]
        data: dict[str, Any] = {"bundles": [{"slug": e.slug, "dir": e.dir} for e in entries], "query": args,
                                "count": len(rows), "matches": rows}
        head = " ".join(f"@{e.slug}" for e in entries)
    else:
        at = locate(dir_arg, bundle_opt)
        try:
            early = search.unread(at.root, q)  # a stored index answers without reading the bundle
        except search.SearchError as exc:
            fail(str(exc))
        if early is not None:
            note_skipped(early[1])
            ranked_or_scanned = early[0]
        else:
            with _search_bar(engine):
                opened = open_bundle(dir_arg, bundle_opt, at)
                try:
                    ranked_or_scanned = search.one(opened.root, opened.bundle, q)
                except search.SearchError as exc:
                    fail(str(exc))
        try:
            rows = [project(r) for r in ranked_or_scanned]
        except search.SearchError as exc:
            fail(str(exc))
        data = {**at.head(), "query": args, "count": len(rows), "matches": rows}
        head = ""

    def text() -> None:
        if not rows:
            click.echo(f"no matches for {' '.join(args)}")
            return
        for r in rows:
            label = f"@{r['slug']}  " if head else ""
            line = f"{_text(r.get('score')):>6}  {label}{r.get('id', '')}"
            if r.get("title") and r.get("title") != r.get("id"):
                line += f"  — {r['title']}"
            if r.get("matched"):
                line += f"  [{','.join(r['matched'])}]"
            click.echo(line)
            if r.get("snippet"):
                click.echo(f"        {r['snippet']}")

    emit(data, as_json, pretty, text)
    return 0


# --------------------------------------------------------------------------- catalog / files


@click.command("catalog")
@output_options(list_view=True)
@filter_options("type", "dir", "tag", "status", "trust")
def catalog_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, **kw) -> int:
    """Every concept with its metadata, trust, status and link counts (sorted by id)."""
    data = list_view(dir_arg, bundle_opt, fields, exclude, "concepts", _views.CATALOG_ROW,
                     lambda o: _views.catalog(o.bundle, _where(o.bundle, kw))).data

    def text() -> None:
        for r in data["concepts"]:
            bits = [r.get("id", "")]
            for key in ("type", "trust", "status"):
                if r.get(key):
                    bits.append(f"{key}={r[key]}")
            click.echo("  ".join(str(b) for b in bits))

    emit(data, as_json, pretty, text)
    return 0


@click.command("files")
@output_options(list_view=True)
@filter_options("type", "dir", "tag", "status", "trust")
def files_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, **kw) -> int:
    """Concept files: path, id, dir, type, title, description (by id)."""
    data = list_view(dir_arg, bundle_opt, fields, exclude, "files", _views.FILES_ROW,
                     lambda o: _views.files(o.bundle, _where(o.bundle, kw))).data
    emit(data, as_json, pretty, lambda: _each(data["files"], lambda r: f"{r.get('path', '')}  {r.get('title', '')}"))
    return 0


# --------------------------------------------------------------------------- tags / types / dirs / stats


@click.command("tags")
@output_options(list_view=True)
@click.option("--by", type=click.Choice(["type", "dir"]), help="Group the tag counts by type or by directory.")
@filter_options("type", "dir", "status", "trust")
def tags_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, by, **kw) -> int:
    """Tags with their concepts, by count (optionally within each type or dir)."""
    if by is None:
        data = list_view(dir_arg, bundle_opt, fields, exclude, "tags", ("tag", "count", "concepts"),
                         lambda o: _views.tags(o.bundle, _where(o.bundle, kw))).data
        emit(data, as_json, pretty,
             lambda: _each(data["tags"], lambda r: f"{r.get('count', ''):>6}  {r.get('tag', '')}"))
        return 0
    if fields or exclude:
        fail("--fields/--except do not apply to tags --by (the rows are nested in groups)")
    opened = open_bundle(dir_arg, bundle_opt)
    bundle = opened.bundle
    data = {**opened.head(), **_views.tag_groups(bundle, by, _where(bundle, kw))}

    def text() -> None:
        for g in data["groups"]:
            click.echo(_label(g[by], slash=by == "dir") if by == "dir" else g[by])
            for r in g["tags"]:
                cell = str(r["count"]) if r["count"] == r["total"] else f"{r['count']}/{r['total']}"
                click.echo(f"  {cell:>6}  {r['tag']}")

    emit(data, as_json, pretty, text)
    return 0


@click.command("types")
@output_options(list_view=True)
@filter_options("dir", "tag", "status", "trust")
def types_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, **kw) -> int:
    """Concept types with their concepts, by count (a blank type counts as Untyped)."""
    data = list_view(dir_arg, bundle_opt, fields, exclude, "types", ("type", "count", "concepts"),
                     lambda o: _views.types(o.bundle, _where(o.bundle, kw))).data
    emit(data, as_json, pretty,
         lambda: _each(data["types"], lambda r: f"{r.get('count', ''):>6}  {r.get('type', '')}"))
    return 0


def _dir_options(func: Callable) -> Callable:
    func = click.option("--ancestors/--no-ancestors", default=True,
                        help="With --dir, also list the chain up to the root (default: yes).")(func)
    func = click.option("--depth", type=click.IntRange(min=0), metavar="N",
                        help="At most N levels below the start.")(func)
    func = click.option("--dir", "dirs_", metavar="D", multiple=True,
                        help="Only D and the directories below it (repeatable; 'root' = the root).")(func)
    return func


def _note_unknown_dirs(bundle: Bundle, wanted) -> None:
    """An empty answer to a typo reads like a real one: name it on stderr (the JSON stays the reference's)."""
    known = _views.directory_set(bundle)
    for d in wanted:
        base = _views.fold_dir(d, known)
        if not any(_views.under_dir(k, base) for k in known):
            click.echo(f"note: no directory {d!r} in the bundle (okfpro dirs lists them)", err=True)


@click.command("dirs")
@output_options(list_view=True)
@_dir_options
def dirs_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, dirs_, depth, ancestors) -> int:
    """Directories: concepts directly inside (count) and at or below (subtree)."""
    listed = list_view(dir_arg, bundle_opt, fields, exclude, "dirs", _views.DIRS_ROW,
                       lambda o: _views.dirs(o.bundle, list(dirs_) or None, depth, ancestors))
    _note_unknown_dirs(listed.opened.bundle, dirs_)
    rows, data = listed.rows, listed.data

    def text() -> None:
        click.echo(f"{'dir':<40} {'count':>7} {'subtree':>8}")
        for r in rows:
            label = ("↑ " if r["ancestor"] else "") + _label(r["dir"])
            click.echo(f"{label:<40} {r['count']:>7} {r['subtree']:>8}")
        click.echo(f"{len(rows)} dir(s) · {data['total']} concept(s)")

    emit(data, as_json, pretty, text)
    return 0


@click.command("stats")
@output_options()
def stats_cmd(dir_arg, bundle_opt, as_json, pretty) -> int:
    """Counts: concepts, dirs, types, cross-links, tags; per type, dir and top dir."""
    opened = open_bundle(dir_arg, bundle_opt)
    bundle = opened.bundle
    stats = _views.stats(bundle)
    data = {**opened.head(), **stats}

    def text() -> None:
        for key in ("concepts", "dirs", "top_dirs", "concept_types", "cross_links", "distinct_tags"):
            click.echo(f"{key:<14} {stats[key]}")
        for key in ("by_type", "by_dir"):
            click.echo(f"{key}:")
            for k, v in stats[key].items():
                click.echo(f"  {v:>6}  {k}")

    emit(data, as_json, pretty, text)
    return 0


# --------------------------------------------------------------------------- graph / loose


@click.command("graph")
@output_options()
@click.option("--hubs", is_flag=True, help="Only the hubs: concepts ranked by inbound links.")
@click.option("--minimal", is_flag=True, help="Nodes carry id and title only; adds the type and tag indexes.")
@click.option("--body/--no-body", default=True, help="Nodes with their body text (default: yes).")
@click.option("--limit", type=click.IntRange(min=0), metavar="N", help="At most N hubs.")
def graph_cmd(dir_arg, bundle_opt, as_json, pretty, hubs, minimal, body, limit) -> int:
    """The concept graph: nodes and edges (body links and source resources)."""
    opened = open_bundle(dir_arg, bundle_opt)
    bundle = opened.bundle
    if hubs:
        payload = _views.hubs(bundle, limit)
        rows = payload["hubs"]
        data: dict[str, Any] = {**opened.head(), **payload}

        def hubs_text() -> None:
            if not rows:
                click.echo("no hubs: no concept has an inbound link yet")
                return
            click.echo(f"{'inbound':>7}  id  (inbound links by source top dir)")
            for r in rows:
                click.echo(f"{r['inbound']:>7}  {r['id']}  " + ", ".join(f"{k}:{v}" for k, v in r["by_top_dir"].items()))

        emit(data, as_json, pretty, hubs_text)
        return 0
    payload = _views.graph(bundle, minimal=minimal, body=body)
    data = {**opened.head(), **payload}

    def text() -> None:
        click.echo(f"{len(payload['nodes'])} nodes, {len(payload['edges'])} edges")
        for e in payload["edges"]:
            click.echo(f"{e['source']} -> {e['target']}")

    emit(data, as_json, pretty, text)
    return 0


@click.command("loose")
@output_options(list_view=True)
def loose_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty) -> int:
    """Concepts with no link in or out (an index listing is not a link)."""
    data = list_view(dir_arg, bundle_opt, fields, exclude, "loose", _views.LOOSE_ROW,
                     lambda o: _views.loose(o.bundle)).data
    emit(data, as_json, pretty, lambda: _each(data["loose"], lambda r: r.get("id", "")))
    return 0


# --------------------------------------------------------------------------- references


@click.command("references")
@output_options(list_view=True)
def references_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty) -> int:
    """Files under references/ and who cites them; pointers into references/ that resolve to nothing."""
    data = list_view(dir_arg, bundle_opt, fields, exclude, "references", _views.REFERENCE_ROW,
                     lambda o: _views.references(o.bundle, o.reference_files())).data
    dangling = data["dangling"]

    def text() -> None:
        rows = data["references"]
        if not rows and not dangling:
            click.echo("references/: no files, and no pointer into it")
            return
        for r in rows:
            cited = ", ".join(f"{x['id']} ({x['field']})" for x in r.get("referenced_by") or [])
            click.echo(f"{r.get('path', '')}  [{r.get('kind', '')}]  {cited or 'not cited'}")
        for d in dangling:
            line = f"dangling: {d['id']} {d['field']} -> {d['raw']}"
            if d["hint"]:
                line += f"  ({d['hint']})"
            click.echo(line)

    emit(data, as_json, pretty, text)
    return 0


# --------------------------------------------------------------------------- index (the §8 map)


def render_index(rows: list[dict[str, Any]]) -> str:
    """The §8 shape as text: a heading per directory, then its authored body or a synthesized listing."""
    lines: list[str] = []
    for r in rows:
        mark = "↑ " if r["ancestor"] else ""
        state = "" if r["present"] else "  (no index.md)"
        types = ", ".join(f"{k or 'Untyped'} {v}" for k, v in r["types"].items())
        lines.append(f"# {mark}{_label(r['dir'], slash=True)}{state}  · {r['count']} concept(s)"
                     + (f" · {types}" if types else ""))
        if r["subdirs"]:
            lines.append("  → " + "  ".join(s.rsplit("/", 1)[-1] + "/" for s in r["subdirs"]))
        if r["present"]:
            body = (r.get("body") or "").strip("\n")
            if body:
                lines.append(body)
        else:
            for item in r["listing"]:
                line = f"* {item['title']}"
                if item["description"]:
                    line += f" — {item['description']}"
                lines.append(line)
        lines.append("")
    return "\n".join(lines).rstrip("\n")


@click.command("index")
@output_options(list_view=True)
@_dir_options
@click.option("--body/--no-body", default=True, help="Include each authored index's prose (default: yes).")
def index_cmd(dir_arg, bundle_opt, fields, exclude, as_json, pretty, dirs_, depth, ancestors, body) -> int:
    """The bundle map (§8): per directory, its index.md or a synthesized listing, types and tags."""
    if not body and fields and "body" in [f.strip().lower() for f in fields.split(",")]:
        projection(fields, exclude, _views.INDEX_ROW)  # an unknown field is named first
        fail("--no-body and --fields body contradict each other: drop one")
    listed = list_view(dir_arg, bundle_opt, fields, exclude, "directories", _views.INDEX_ROW,
                       lambda o: _views.index(o.bundle, list(dirs_) or None, depth, ancestors, body=body))
    _note_unknown_dirs(listed.opened.bundle, dirs_)
    emit(listed.data, as_json, pretty, lambda: click.echo(render_index(listed.data["directories"])))
    return 0


# --------------------------------------------------------------------------- read


@click.command("read")
@click.argument("ident", metavar="ID")
@output_options(positional=False)
def read_cmd(ident, bundle_opt, as_json, pretty) -> int:
    """Print a concept's source file (contained to the bundle)."""
    from okfpro.io import reader

    why = reader.unsafe_id(ident)
    if why:
        fail(f"refusing id {ident!r}: it holds {why}")
    opened = open_bundle(None, bundle_opt)
    try:
        found = reader.read_concept(opened.root, opened.bundle, ident)
    except OSError as exc:
        fail(f"cannot read {exc.filename}: {exc.strerror or exc}")
    if found is None:
        fail(f"no concept {ident!r} in {opened.name}")
    cid, rel, content = found
    data = {"bundle": opened.name, "id": cid, "path": rel, "content": content}
    if as_json or pretty:
        emit(data, as_json, pretty, lambda: None)
    else:
        sys.stdout.write(content)
        sys.stdout.flush()
    return 0
