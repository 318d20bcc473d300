"""The MCP tools: one table of name, description, input schema and handler.

Every handler calls the function the matching CLI verb calls (the view builders, the
kernel, the writers in :mod:`okfpro.io.workwriters`, the memory store and policy) and
answers the same JSON rows — there is no second read path and no second write path.
What MCP adds is only what a model needs: limits, ``offset`` paging and truncation
markers (``truncated``, ``total``, ``next_offset``) so one call never floods a context —
the plumbing of :mod:`okfpro.mcp.toolkit`, as are the :class:`~okfpro.mcp.toolkit.Tool` row
and the :class:`~okfpro.mcp.toolkit.Host`.

Scope: memory tools take no identity argument at all.  The scope is resolved by the
server (:meth:`okfpro.mcp.toolkit.Host.scope`) from the host, okfpro.toml and the environment — or, over
HTTP, from the bearer token — never from tool arguments or text.  A schema with
``additionalProperties: false`` makes an argument that claims a user, tenant or
session a JSON-RPC error rather than something silently ignored.
"""

from __future__ import annotations

from typing import Any, Callable

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.scope import TIERS
from okfpro.mcp.toolkit import (
    ARRAY, BOOL, CONCEPTS_LIMIT, DEFAULT_ROWS, FILTERS, INDEX_BODY_CHARS, INT, LIMIT, LIST_CUT, MARKS,
    MAX_MEMORY_TEXT, MAX_QUERY, MAX_READ_CHARS, MAX_ROWS, OBJECT, OFFSET, PASSAGE_CHARS, READ_CHARS, ROWS, STRING,
    STRINGS,
    cut_lists, except_arg, fields_arg, findings_page, Host, id_arg, input_schema, InvalidArgument, limit_arg,
    object_schema, page, paged_schema, project_rows, row_filter_of, text_arg, today_or_fail, Tool, ToolFailure
)

# --------------------------------------------------------------------------- read tools


def _search(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import search

    terms = [t for t in args["terms"]]
    engine = args.get("engine")
    fuzzy = bool(args.get("fuzzy"))
    if fuzzy and args.get("regexp"):
        raise InvalidArgument("regexp and fuzzy are mutually exclusive (a pattern is matched literally, not by edit distance)")
    if fuzzy and engine == "scan":
        raise InvalidArgument("the scan engine does not support fuzzy (omit engine, or use ranked)")
    engine = engine or ("ranked" if fuzzy else "scan")
    bundle = host.bundle()
    if engine == "ranked" and args.get("regexp"):
        raise InvalidArgument("regexp works with the scan engine only")
    limit = args.get("limit")
    limit = DEFAULT_ROWS if limit is None else (limit or MAX_ROWS)
    cap = int(args.get("offset") or 0) + limit + 1  # one more than shown: says whether more exist
    q = search.Query(terms, engine, bool(args.get("regexp")), fuzzy, fields=",".join(args["in"]) if args.get("in") else None,
                     filters={k: args.get(k) for k in ("type", "dir", "tag", "status", "trust")}, limit=cap)
    try:
        rows = search.one(host.root, bundle, q)
    except search.SearchError as exc:
        raise ToolFailure(str(exc)) from None
    shown, marks = page(rows, {**args, "limit": limit})
    marks["total_is_lower_bound"] = len(rows) >= cap  # the engines stop at the cap: more may match
    return {"query": terms, "engine": engine, "count": len(shown), **marks,
            "matches": project_rows(shown, args, search.ROW)}


def _read(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import reader

    ident = args["id"]
    why = reader.unsafe_id(ident)
    if why:
        raise ToolFailure(f"refusing id {ident!r}: it holds {why}")
    try:
        found = reader.read_concept(host.root, host.bundle(), ident)
    except OSError as exc:
        raise ToolFailure(f"cannot read {exc.filename}: {exc.strerror or exc}") from None
    if found is None:
        raise ToolFailure(f"no concept {ident!r} in the bundle (search or catalog lists the ids)")
    cid, rel, content = found
    from okfpro.core.frames import neutralise

    content = neutralise(content)  # framed whole, then paged: a tag cut by a page edge stays inert
    offset = int(args.get("offset") or 0)
    size = int(args.get("max_chars") or READ_CHARS)
    part = content[offset:offset + size]
    out: dict[str, Any] = {"id": cid, "path": rel, "content": part, "chars": len(content),
                           "offset": offset, "truncated": offset + len(part) < len(content)}
    if out["truncated"]:
        out["next_offset"] = offset + len(part)
    return out


def _catalog(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    rows = _views.catalog(host.bundle(), row_filter_of(host, args))["concepts"]
    shown, marks = page(rows, args)
    return {"count": len(shown), **marks, "concepts": project_rows(shown, args, _views.CATALOG_ROW)}


def _index(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    bundle = host.bundle()
    base = args.get("dir")
    known = _views.directory_set(bundle)
    if base is not None and _views.fold_dir(base, known) not in {_views.fold(d) for d in known}:
        raise ToolFailure(f"no such directory in the bundle: {base} (index without dir lists the top level)")
    rows = _views.index(bundle, [base] if base else None, args.get("depth", 1), True, body=True)["directories"]
    cut_lists(rows, "listing", int(args.get("listing_limit") or LIST_CUT))
    body_chars = args.get("body_chars", INDEX_BODY_CHARS)
    for r in rows:
        body = r.get("body")
        if isinstance(body, str) and len(body) > body_chars:
            r["body"] = body[:body_chars]
            r["body_truncated"] = len(body) - body_chars  # read the directory's index.md for the rest
    shown, marks = page(rows, args, default=10)
    return {"count": len(shown), **marks, "directories": shown}


def _graph(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    graph = _views.graph_of(host.bundle())
    ident = args.get("id")
    if ident:
        if ident not in graph.concepts:
            raise ToolFailure(f"no concept {ident!r} in the bundle")
        out_links = sorted({t for s, t in graph.edges if s == ident})
        in_links = sorted({s for s, t in graph.edges if t == ident})
        a, ma = page(out_links, args, default=100)
        b, mb = page(in_links, args, default=100)
        return {"id": ident, "links_out": a, "links_in": b, "links_out_total": ma["total"], "links_in_total": mb["total"],
                "truncated": ma["truncated"] or mb["truncated"]}
    rows = graph.hubs(None)
    shown, marks = page(rows, args)
    return {"count": len(shown), **marks, "hubs": shown}


def _references(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views
    from okfpro.io.reader import reference_files

    result = _views.references(host.bundle(), reference_files(host.root))
    shown, marks = page(result["references"], args)
    dangling, dmarks = page(result["dangling"], {"limit": args.get("limit")})
    return {"count": len(shown), **marks, "references": shown, "dangling": dangling,
            "dangling_total": dmarks["total"]}


def _stats(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    data = _views.stats(host.bundle())
    cut = int(args.get("limit") or 50)
    for key in ("by_type", "by_dir", "by_top_dir"):
        items = list(data[key].items())
        if len(items) > cut:
            data[key] = dict(items[:cut])
            data[f"{key}_truncated"] = len(items) - cut
    return data


def _needs_board(host: Host) -> None:
    if not (host.root / "board.md").is_file():
        raise ToolFailure(f"the bundle at {host.root} has no board.md, so there is no work state to read")


def _state(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    _needs_board(host)
    return ws.state_payload(host.root, today_or_fail(), full=bool(args.get("full")))


SECTIONS = ("In flight", "Backlog", "Waiting", "Inbox", "To read", "Deadlines")


def _board(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import board as _b
    from okfpro.io import workstate as ws

    _needs_board(host)
    b = _b.parse(ws.board_text(host.root) or "")
    section = args.get("section")
    if section is not None:
        match = [n for n in SECTIONS if n.lower() == section.strip().lower()]
        if not match:
            raise ToolFailure(f"no section named {section!r}; the six are: {', '.join(SECTIONS)}")
        section = match[0]
        if section not in b.headings:
            raise ToolFailure(f"board.md has no '## {section}' heading")
    rows = _b.rows_json(b, today_or_fail(), section)
    shown, marks = page(rows, args, default=50)
    return {"count": len(shown), **marks, "rows": shown}


def _snapshot(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    return ws.snapshot_payload(host.root, today_or_fail())


def _validate(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core.validate import validate

    report = validate(host.bundle())
    out = findings_page(report, "errors", args)
    return findings_page(out, "warnings", args)


def _lint(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core.lint import UnknownCheck, lint

    try:
        report = lint(host.bundle(), today=today_or_fail(), only=",".join(args["only"]) if args.get("only") else None,
                      except_=",".join(args["except"]) if args.get("except") else None,
                      min_body=args.get("min_body", 50), stale_after=args.get("stale_after"))
    except (UnknownCheck, ValueError) as exc:
        raise ToolFailure(str(exc)) from None
    return findings_page(report, "findings", args, default=25)


def _audit(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import audit

    start = host.root.parent if host.root.name == ".okf" else host.root
    findings = [{"category": c, "message": m} for c, m in audit.findings(start, today_or_fail())]
    shown, marks = page(findings, args, default=50)
    return {"clean": not findings, "count": len(shown), **marks, "findings": shown}


def _inverted_view(host: Host, args: dict[str, Any], key: str) -> dict[str, Any]:
    from okfpro.core import views as _views

    bundle = host.bundle()
    if key == "tags" and args.get("by"):
        data = _views.tag_groups(bundle, args["by"], row_filter_of(host, args))
        groups = data["groups"]
        for g in groups:
            cut_lists(g["tags"], "concepts", int(args.get("concepts_limit") or LIST_CUT))
        shown, marks = page(groups, args)
        return {"by": args["by"], "count": len(shown), **marks, "groups": shown}
    rows = (_views.tags if key == "tags" else _views.types)(bundle, row_filter_of(host, args))[key]
    cut_lists(rows, "concepts", int(args.get("concepts_limit") or LIST_CUT))
    shown, marks = page(rows, args)
    return {"count": len(shown), **marks, key: shown}


def _tags(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    return _inverted_view(host, args, "tags")


def _types(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    return _inverted_view(host, args, "types")


def _dirs(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    bundle = host.bundle()
    base = args.get("dir")
    if base is not None:
        known = _views.directory_set(bundle)
        if not any(_views.under_dir(k, _views.fold_dir(base, known)) for k in known):
            raise ToolFailure(f"no such directory in the bundle: {base} (dirs without dir lists them all)")
    data = _views.dirs(bundle, [base] if base else None, args.get("depth"), args.get("ancestors", True))
    cut_lists(data["dirs"], "subdirs", LIST_CUT)
    shown, marks = page(data["dirs"], args, default=50)
    return {"concepts": data["total"], "count": len(shown), **marks, "dirs": shown}


def state_file(host: Host, name: str) -> str | None:
    """board.md or log.md as text (None when absent); refused when it resolves outside the bundle."""
    from okfpro.io import workstate as ws

    if any(m.startswith(name + " ") for m in ws.escaping_state_files(host.root)):
        raise ToolFailure(f"{name} resolves outside the bundle; it is not read through")
    return ws.read_optional(host.root / name)


def _log(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import log as _logmod

    text = state_file(host, "log.md")
    if text is None:
        raise ToolFailure(f"the bundle at {host.root} has no log.md")
    parsed = _logmod.parse(text)
    since = args.get("since")
    days: list[dict[str, Any]] = []
    for b in parsed.blocks:
        if since and b.day < since:
            continue
        lines = [x for x in parsed.lines[b.heading + 1:b.end] if x.strip()]
        days.append({"day": b.day, "snapshot": b.snapshot, "lines": lines})
    days.sort(key=lambda d: str(d["day"]), reverse=True)  # newest first
    cut_lists(days, "lines", int(args.get("lines_limit") or 40))
    shown, marks = page(days, args, default=5)
    return {"newest_day": parsed.newest_day, "malformed_headings": [h for _, h in parsed.malformed][:20],
            "count": len(shown), **marks, "days": shown}


def _bundles(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import registry as _reg

    served = {"name": host.name, "root": str(host.root), "workspace": str(host.workspace)}
    try:
        r = _reg.Registry.open(cwd=host.workspace)
    except (_reg.RegistryError, OSError) as exc:
        return {"served": served, "registry": None, "problem": str(exc), "count": 0, "total": 0, "offset": 0,
                "truncated": False, "bundles": [], "groups": []}
    data = r.payload()
    rows = [{k: x.get(k) for k in ("slug", "title", "dir", "default", "missing")} for x in data["bundles"]]
    shown, marks = page(rows, args, default=50)
    groups = [{"slug": g["slug"], "members": g["members"][:LIST_CUT]} for g in data["groups"][:50]]
    return {"served": served, "registry": data["registry"], "count": len(shown), **marks, "bundles": shown,
            "groups": groups}


# --------------------------------------------------------------------------- writers


def _write(host: Host, verb: str, do: Callable[[], Any]) -> Any:
    from okfpro.io import workwriters as ww

    try:
        return do()
    except ww.Refused as exc:
        path = getattr(exc, "path", None)
        raise ToolFailure(f"{verb} refused, and {path + ' is untouched' if path else 'nothing was touched'}: {exc}") from None
    finally:
        host.warm.invalidate()


def _capture(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workwriters as ww

    line = _write(host, "capture", lambda: ww.do_capture(host.root, today_or_fail(), args["text"]))
    return {"written": True, "section": "Inbox", "line": line}


def _move(verb: str) -> Callable[[Host, dict[str, Any]], dict[str, Any]]:
    def run(host: Host, args: dict[str, Any]) -> dict[str, Any]:
        from okfpro.io import workwriters as ww

        edit, b = _write(host, verb, lambda: ww.do_move(host.root, verb, args["selector"]))
        header = b.lines[b.header_index] if b.header_index is not None else None
        return {"written": True, "moved_to": "In flight" if verb == "promote" else "Backlog",
                "line": edit.note.rstrip(), "header": header}

    return run


def _journal_open(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workwriters as ww

    res = _write(host, "journal open", lambda: ww.do_journal_open(host.root, today_or_fail()))
    return {"written": res.created_entry or res.linked, "entry": f"journal/{res.day}.md",
            "created_entry": res.created_entry, "linked": res.linked}


def _close(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workwriters as ww

    res = _write(host, "close", lambda: ww.do_close(host.root, today_or_fail(), args["slug"]))
    return {"written": True, "project": f"projects/{res.slug}", "marked": res.marked, "board_lines_removed": res.removed,
            "header": res.header, "log_line": res.log_line, "owes_snapshot": res.owes_snapshot}


# --------------------------------------------------------------------------- memory


def _store(host: Host):
    from okfpro.memory.door import DoorError, open_door

    try:
        door = open_door(workspace=host.workspace, bind=False)
    except DoorError as exc:
        raise ToolFailure(f"memory unavailable: {exc}") from None
    if door.store is None:
        raise ToolFailure(f"memory unavailable: {door.problem}")
    return door.store


def _actor(scope) -> str:
    return scope.user or "local"


def _remember(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.memory.policy import remember

    scope = host.scope()
    store = _store(host)
    sup = args.get("supersede")
    con = args.get("contradicts")
    result = remember(
        store, scope, args["text"], tier=args.get("tier", "user"), kind=args.get("kind", "event"),
        source="agent", confidence=args.get("confidence", "medium"), visibility="private",
        valid_until=args.get("valid_until"), review_at=args.get("review_at"),
        supersede=(True if sup == "auto" else sup or False), contradicts=(True if con == "auto" else con or False),
        today=today_or_fail(), audit_root=store.base, actor=_actor(scope),
    )
    out = result.to_json()
    if result.decision.decision == "reject":
        raise ToolFailure(f"not remembered: {result.decision.reason}")
    if result.error and not result.written and result.decision.decision != "skip":
        raise ToolFailure(f"not remembered: {result.error}")
    return out


def _recall(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.memory.views import recall_payload

    scope = host.scope()
    limit = args.get("limit", 10)
    payload, _, _ = recall_payload(_store(host), scope, args["query"], limit=limit or MAX_ROWS,
                                   include_hidden=bool(args.get("include_hidden")), today=today_or_fail())
    cut = args.get("text_chars", PASSAGE_CHARS)
    for p in payload["passages"]:
        for key in ("text", "excerpt"):
            text = p.get(key)
            if isinstance(text, str) and len(text) > cut:
                p[key] = text[:cut]
                p[f"{key}_truncated"] = len(text) - cut
    return payload


def _list(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.memory.views import list_payload

    payload, _ = list_payload(_store(host), host.scope())
    shown, marks = page(payload["entries"], args, default=50)
    payload["entries"] = shown
    payload["count"] = len(shown)
    payload.update(marks)
    return payload


def _forget(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("confirm") is not True:
        raise ToolFailure("forget needs confirm: true (it deletes this scope's memory; history is kept)")
    purge = bool(args.get("purge"))
    if purge and not host.allow_purge:
        raise ToolFailure("purge is not allowed over MCP here (set [mcp] allow_purge = true in okfpro.toml); "
                          "forget without purge keeps the history, and `okfpro memory forget --purge` erases it")
    from okfpro.io import config as config_mod

    scope = host.scope()
    try:
        cfg = config_mod.load(host.workspace)
    except (config_mod.ConfigError, OSError) as exc:
        raise ToolFailure(str(exc)) from None
    # the CLI's erasure policy: what the caller owns; a shared tier only for a named maintainer
    result = _store(host).forget(scope, cfg, args.get("tier"), purge=purge, actor=_actor(scope))
    if result.error:
        raise ToolFailure(result.error)
    return {"forgotten_tiers": result.tiers_deleted, "purged": purge,
            "commits": {t: c for t, c in (result.commits or {}).items()},
            "verified": getattr(result, "verified", None) if purge else None}


# --------------------------------------------------------------------------- the table

from okfpro.core.search import ROW as _SEARCH_ROW  # noqa: E402  (schemas name the row fields)
from okfpro.core.views import CATALOG_ROW as _CATALOG_ROW  # noqa: E402

_SEARCH_FIELDS = ("title", "id", "tags", "type", "description", "sources", "body")

TOOLS: list[Tool] = [
    Tool("search", "Search the knowledge base",
         "Find concepts (Markdown notes) in the workspace's OKF bundle. Use this first when you need what the team "
         "already knows: decisions, glossary terms, learnings, project notes. engine 'scan' (default) ANDs the terms "
         "as case-insensitive substrings and scores by field (title 5, id 4, tags 3, type 2, description 2, sources "
         "1, body 1); engine 'ranked' is BM25 over any of the words (better for a natural-language question); "
         "fuzzy tolerates typos. The CLI's filters: type, dir, tag, status, trust, in, regexp, fuzzy. "
         "Rows carry id, title, type, dir, tags, matched fields, score and a snippet; call `read` with an id for "
         "the full text. Same rows as `okfpro search --json`.",
         input_schema({"terms": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200},
                            "minItems": 1, "maxItems": 32, "description": "Words or phrases to find."},
                  "engine": {"type": "string", "enum": ["scan", "ranked"],
                             "description": "scan (default) or ranked (BM25); fuzzy implies ranked."},
                  "in": {"type": "array", "items": {"type": "string", "enum": list(_SEARCH_FIELDS)},
                         "description": "Search only these fields."},
                  **FILTERS,
                  "regexp": {"type": "boolean", "description": "Terms are regular expressions (scan only)."},
                  "fuzzy": {"type": "boolean", "description": "Tolerate typos: each term matches a word exactly, as a "
                            "prefix or within edit distance 0.2 x its length (implies engine ranked)."},
                  "fields": fields_arg(_SEARCH_ROW), "except": except_arg(_SEARCH_ROW), "limit": LIMIT, "offset": OFFSET},
                 ("terms",)),
         _search, output=paged_schema("matches", query=STRINGS, engine=STRING, total_is_lower_bound=BOOL)),
    Tool("read", "Read one concept",
         "Return the full Markdown source (frontmatter and body) of one concept by its id (or its bundle-relative "
         "path). Long files come in pieces: when truncated is true, call again with offset = next_offset.",
         input_schema({"id": id_arg("The concept id, e.g. 'glossary/okf' (from search or catalog)."),
                  "offset": OFFSET,
                  "max_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS,
                                "description": f"At most this many characters (default {READ_CHARS})."}}, ("id",)),
         _read, output=object_schema({"id": STRING, "path": STRING, "content": STRING, "chars": INT, "offset": INT,
                             "truncated": BOOL, "next_offset": INT}, ("id", "path", "content", "chars", "truncated"))),
    Tool("catalog", "List concepts with metadata",
         "Every concept with its metadata (type, description, tags, trust, status, link counts), sorted by id, "
         "optionally filtered by type, directory, tag, status or trust (the CLI's filters). Use it to browse; use "
         "search to find. Same rows as `okfpro catalog --json`.",
         input_schema({**FILTERS, "fields": fields_arg(_CATALOG_ROW), "except": except_arg(_CATALOG_ROW),
                  "limit": LIMIT, "offset": OFFSET}),
         _catalog, output=paged_schema("concepts")),
    Tool("index", "Map of the bundle",
         "The bundle's map per directory (§8): its concepts, subdirectories, types and tags — the authored index.md "
         "text where one exists, a synthesized listing otherwise. Start at the root with depth 1, then descend "
         "with dir. Sized for a context: 10 directories, 10 concepts and 1,500 characters of prose each by default.",
         input_schema({"dir": text_arg("Start at this directory (default: the root).", 500),
                  "depth": {"type": "integer", "minimum": 0, "maximum": 64, "default": 1,
                            "description": "Levels below the start (default 1)."},
                  "listing_limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                                    "description": f"At most this many concepts listed per directory (default {LIST_CUT})."},
                  "body_chars": {"type": "integer", "minimum": 0, "maximum": MAX_READ_CHARS,
                                 "description": f"At most this much of each authored index.md's prose (default "
                                                f"{INDEX_BODY_CHARS}; body_truncated counts the rest)."},
                  "limit": {**LIMIT, "description": "At most this many directories (default 10; 0 = up to 500)."},
                  "offset": OFFSET}),
         _index, output=paged_schema("directories")),
    Tool("graph", "Links between concepts",
         "Without id: the hubs — concepts ranked by inbound links (what everything points at). With id: that "
         "concept's outbound and inbound links. Hub rows are those of `okfpro graph --hubs --json`.",
         input_schema({"id": id_arg("A concept id: list its links instead of the hubs."), "limit": LIMIT,
                  "offset": OFFSET}),
         _graph, output=object_schema({"id": STRING, "links_out": ARRAY, "links_in": ARRAY, "links_out_total": INT,
                              "links_in_total": INT, "hubs": ROWS, **MARKS}, ("truncated",))),
    Tool("references", "Files under references/",
         "Files kept under references/ and which concepts cite them, plus dangling pointers into references/ "
         "(with a hint when a leading slash is missing).",
         input_schema({"limit": LIMIT, "offset": OFFSET}), _references,
         output=paged_schema("references", dangling=ARRAY, dangling_total=INT)),
    Tool("stats", "Bundle statistics",
         "Counts: concepts, directories, types, cross-links, tags; per type, directory and top directory.",
         input_schema({"limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                            "description": "At most this many entries per breakdown (default 50)."}}), _stats,
         output=object_schema({k: INT for k in ("concepts", "dirs", "top_dirs", "concept_types", "cross_links", "distinct_tags")}
                     | {k: OBJECT for k in ("by_type", "by_dir", "by_top_dir")},
                     ("concepts", "dirs", "by_type", "by_dir", "by_top_dir"))),
    Tool("state", "Work state (the board)",
         "The work state in one call: board counters (in flight vs cap, backlog, waiting, inbox, deadlines), "
         "deadlines at risk, the log's newest day, open projects, the last snapshot. Call it at the start of a task "
         "to know what is in flight. full: also pairing and the unverified list (parses the bundle). Same JSON as "
         "`okfpro state --json`.",
         input_schema({"full": {"type": "boolean", "default": False}}), _state),
    Tool("board", "Board lines",
         "One row per board line (section, text, date, age, chase, link targets), optionally one section: "
         "In flight, Backlog, Waiting, Inbox, To read, Deadlines.",
         input_schema({"section": text_arg("Only this section.", 50), "limit": limit_arg(50), "offset": OFFSET}), _board,
         output=paged_schema("rows")),
    Tool("snapshot", "Today's Snapshot line",
         "Compute today's mechanical Snapshot line and its counters from the bundle (reads only; it never writes "
         "the log).", input_schema({}), _snapshot),
    Tool("validate", "OKF conformance",
         "Check the bundle against OKF v0.2: errors (non-conformant) and warnings, with check ids. Same report as "
         "`okfpro validate --json`, errors and warnings paged.",
         input_schema({"limit": limit_arg(50), "offset": OFFSET}), _validate,
         output=object_schema({"errors": ROWS, "warnings": ROWS, "errors_total": INT, "warnings_total": INT, **MARKS},
                     ("errors", "warnings", "errors_total", "warnings_total"))),
    Tool("lint", "Curation report",
         "The 26 curation checks (orphans, stubs, stale, missing targets, ...) with the reference's ids and "
         "severities; only/except select checks by id. Same report as `okfpro lint --json`, findings paged.",
         input_schema({"only": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "except": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "min_body": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                  "stale_after": text_arg("Flag generated_at older than this (90d, 12w, or an ISO date).", 40),
                  "limit": limit_arg(25), "offset": OFFSET}), _lint,
         output=object_schema({"findings": ROWS, "findings_total": INT, **MARKS}, ("findings", "findings_total"))),
    Tool("audit", "Every invariant at once",
         "What CI runs: layout, closed core, validate, lint warnings, snapshot, budget, board grammar, pairing. "
         "clean: true means nothing to fix.", input_schema({"limit": limit_arg(50), "offset": OFFSET}), _audit,
         output=paged_schema("findings", clean=BOOL)),
    Tool("tags", "Tags and their concepts",
         "Every tag with its count and concepts (by count), optionally regrouped by type or directory (by), and "
         "filtered by type, dir, status or trust. Same rows as `okfpro tags --json`; concept lists cut at "
         "concepts_limit.",
         input_schema({"by": {"type": "string", "enum": ["type", "dir"], "description": "Regroup the tags per type or dir."},
                  **{k: FILTERS[k] for k in ("type", "dir", "status", "trust")}, "concepts_limit": CONCEPTS_LIMIT,
                  "limit": LIMIT, "offset": OFFSET}),
         _tags, output=paged_schema("tags", by=STRING, groups=ROWS, required=())),
    Tool("types", "Concept types",
         "Every concept type with its count and concepts (a blank type counts as Untyped), filtered by dir, tag, "
         "status or trust. Same rows as `okfpro types --json`; concept lists cut at concepts_limit.",
         input_schema({**{k: FILTERS[k] for k in ("dir", "tag", "status", "trust")}, "concepts_limit": CONCEPTS_LIMIT,
                  "limit": LIMIT, "offset": OFFSET}),
         _types, output=paged_schema("types")),
    Tool("dirs", "Directories",
         "Directories with the concepts directly inside (count) and at or below (subtree), optionally from one "
         "directory down to a depth. Same rows as `okfpro dirs --json`.",
         input_schema({"dir": text_arg("Only this directory and those below it.", 500),
                  "depth": {"type": "integer", "minimum": 0, "maximum": 64, "description": "Levels below the start."},
                  "ancestors": {"type": "boolean", "default": True,
                                "description": "With dir: also the chain up to the root."},
                  "limit": limit_arg(50), "offset": OFFSET}),
         _dirs, output=paged_schema("dirs", concepts=INT)),
    Tool("log", "The log: what changed, by day",
         "The bundle's log.md, newest day first: each day's entries and its Snapshot line. Check it to see what "
         "changed recently before trusting or adding knowledge. Default: the 5 newest days.",
         input_schema({"since": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                            "description": "Only days from this one on (YYYY-MM-DD)."},
                  "lines_limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                                  "description": "At most this many lines per day (default 40)."},
                  "limit": {**LIMIT, "description": "At most this many days (default 5; 0 = up to 500)."},
                  "offset": OFFSET}),
         _log, output=paged_schema("days", newest_day={"type": ["string", "null"]}, malformed_headings=ARRAY)),
    Tool("bundles", "Registered bundles",
         "The bundle this server serves, and the bundles named in okfpro's registry (`okfpro registry list`): "
         "slug, title, directory, whether it is the default and whether it is missing.",
         input_schema({"limit": limit_arg(50), "offset": OFFSET}),
         _bundles, output=paged_schema("bundles", served=OBJECT, registry={"type": ["string", "null"]}, groups=ROWS)),
    # writers
    Tool("capture", "Add a line to the board's Inbox",
         "Append '- <today> — TEXT' to the board's Inbox: the way to note a task, a follow-up or an idea without "
         "deciding on it now. One line of text; refused (nothing written) if it spans lines. Same writer as "
         "`okfpro capture`.",
         input_schema({"text": text_arg("The line to capture (one line).")}, ("text",)), _capture, writes=True,
         output=object_schema({"written": BOOL, "section": STRING, "line": STRING}, ("written", "line"))),
    Tool("promote", "Start work on a board line",
         "Move one Inbox or Backlog line to In flight and update the 'In flight: k/CAP' header; refused past the "
         "cap. selector: a project slug, a /path link on the line, or a unique piece of its text.",
         input_schema({"selector": text_arg("Which line: slug, /link or unique text.")}, ("selector",)), _move("promote"),
         writes=True),
    Tool("demote", "Park a board line",
         "Move one In flight line back to Backlog and update the header. selector as for promote.",
         input_schema({"selector": text_arg("Which line: slug, /link or unique text.")}, ("selector",)), _move("demote"),
         writes=True),
    Tool("journal_open", "Open today's journal entry",
         "Create today's journal entry (journal/YYYY-MM-DD.md) if missing and link it from journal/index.md. "
         "Idempotent.", input_schema({}), _journal_open, writes=True),
    Tool("close", "Close a project",
         "Close projects/SLUG: mark its index '— closed <date>', remove its board lines and log it.",
         input_schema({"slug": text_arg("The project's directory name under projects/.", 200)}, ("slug",)), _close,
         writes=True),
    # memory
    Tool("memory_remember", "Remember something (scoped memory)",
         "Store one memory in the current scope (decided by the server: host, okfpro.toml, environment — you cannot "
         "choose or name a user, tenant or session). Secrets are redacted before anything is written; an exact "
         "duplicate is skipped; every write is a Git commit; it is filed as agent-inferred (a memory the user confirmed is never superseded by it). Use for facts, preferences and decisions worth "
         "recalling in a later session.",
         input_schema({"text": text_arg("What to remember.", MAX_MEMORY_TEXT),
                  "tier": {"type": "string", "enum": list(TIERS), "default": "user",
                           "description": "Which tier of the current scope."},
                  "kind": {"type": "string", "enum": list(_mempolicy.KINDS), "default": "event"},
                  "confidence": {"type": "string", "enum": list(_mempolicy.CONFIDENCE), "default": "medium"},
                  "valid_until": text_arg("YYYY-MM-DD: hidden from recall from this day on.", 10),
                  "review_at": text_arg("YYYY-MM-DD: flag for review from this day on.", 10),
                  "supersede": text_arg("A memory id to replace, or 'auto' for the closest overlapping one.", 200),
                  "contradicts": text_arg("A memory id this contradicts, or 'auto'.", 200)}, ("text",)),
         _remember, writes=True, memory=True),
    Tool("memory_recall", "Recall memories",
         "Memories of the current scope matching the query, most specific tier first; superseded, expired and "
         "archived ones are hidden unless include_hidden. Same passages as `okfpro memory recall --json`.",
         input_schema({"query": text_arg("What to look for.", MAX_QUERY),
                  "limit": {**LIMIT, "description": "At most this many passages (default 10; 0 = up to 500)."},
                  "text_chars": {"type": "integer", "minimum": 1, "maximum": MAX_MEMORY_TEXT,
                                 "description": f"At most this much of each memory's text and excerpt (default "
                                                f"{PASSAGE_CHARS}; text_truncated counts the rest)."},
                  "include_hidden": {"type": "boolean", "default": False}}, ("query",)),
         _recall, memory=True, output=object_schema({"passages": ROWS}, ("passages",))),
    Tool("memory_list", "List memories",
         "Every entry stored for the current scope (tier, id, title, date), paged.",
         input_schema({"limit": limit_arg(50), "offset": OFFSET}), _list, memory=True, output=paged_schema("entries", scope=OBJECT)),
    Tool("memory_forget", "Forget this scope's memory",
         "Delete the current scope's memory (all tiers, or one): a commit, history kept. Needs confirm: true. "
         "purge (erase history too) only where the server is configured to allow it.",
         input_schema({"tier": {"type": "string", "enum": list(TIERS)}, "confirm": {"type": "boolean"},
                  "purge": {"type": "boolean", "default": False}}, ("confirm",)),
         _forget, writes=True, memory=True),
]

BY_NAME = {t.name: t for t in TOOLS}
