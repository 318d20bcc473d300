"""The MCP tools: one table of name, description, input schema and handler.

Every handler calls the function the matching CLI verb calls (the view builders, the
kernel, the writers in :mod:`okfpro.io.workstate`, the memory store and policy) and
answers the same JSON rows — there is no second read path and no second write path.
What MCP adds is only what a model needs: limits, ``offset`` paging and truncation
markers (``truncated``, ``total``, ``next_offset``) so one call never floods a context.

Scope: memory tools take no identity argument at all.  The scope is resolved by the
server (:class:`Host.scope`) from the host, okfpro.toml and the environment — or, over
HTTP, from the bearer token — never from tool arguments or text.  A schema with
``additionalProperties: false`` makes an argument that claims a user, tenant or
session a JSON-RPC error rather than something silently ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.record import Value
from okfpro.core.scope import TIERS

# result sizing -----------------------------------------------------------------------
DEFAULT_ROWS = 20
MAX_ROWS = 500
READ_CHARS = 20_000
MAX_READ_CHARS = 100_000
MAX_RESULT_CHARS = 200_000  # the server's last guard on one answer (server.py)
MAX_TEXT = 4_000  # a board line or a selector
MAX_MEMORY_TEXT = 32_000
MAX_QUERY = 1_000


class ToolFailure(Exception):
    """A refusal or a could-not-run: reported to the model as a tool error (``isError``), text only."""


class Tool(Value):
    _fields = ("name", "title", "description", "schema", "run", "writes", "memory")
    name: str
    title: str
    description: str
    schema: dict[str, Any]
    run: Callable[["Host", dict[str, Any]], dict[str, Any]]
    writes: bool
    memory: bool

    def __init__(self, name: str, title: str, description: str, schema: dict[str, Any],
                 run: Callable[["Host", dict[str, Any]], dict[str, Any]], writes: bool = False, memory: bool = False) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.schema = schema
        self.run = run
        self.writes = writes
        self.memory = memory


class Host(Value):
    """What the server knows that a tool argument may not change: the bundle, the workspace, the scope."""

    _fields = ("root", "workspace", "name", "warm", "scope_source", "allow_purge", "extras")
    root: Path
    workspace: Path
    name: str
    warm: Any  # okfpro.mcp.watch.Warm
    scope_source: Callable[[], tuple[Any, str | None]]  # () -> (Scope | None, reason)
    allow_purge: bool
    extras: dict[str, Any]

    def __init__(self, root: Path, workspace: Path, name: str, warm: Any,
                 scope_source: Callable[[], tuple[Any, str | None]], allow_purge: bool = False,
                 extras: dict[str, Any] | None = None) -> None:
        self.root = root
        self.workspace = workspace
        self.name = name
        self.warm = warm
        self.scope_source = scope_source
        self.allow_purge = allow_purge
        self.extras = {} if extras is None else extras

    def bundle(self):
        return self.warm.bundle()

    def scope(self):
        scope, reason = self.scope_source()
        if scope is None:
            raise ToolFailure(f"memory refused: {reason or 'no identity resolved'}")
        return scope


# --------------------------------------------------------------------------- helpers


def _today():
    from okfpro.io.clock import ClockError, today

    try:
        return today()
    except ClockError as exc:
        raise ToolFailure(str(exc)) from None


def page(rows: list[Any], args: dict[str, Any], default: int = DEFAULT_ROWS) -> tuple[list[Any], dict[str, Any]]:
    """Cut ``rows`` to ``offset``/``limit``; the markers say what was left out."""
    offset = int(args.get("offset") or 0)
    limit = args.get("limit")
    limit = default if limit is None else int(limit)
    total = len(rows)
    shown = rows[offset:offset + limit] if limit else rows[offset:offset + MAX_ROWS]
    end = offset + len(shown)
    marks: dict[str, Any] = {"total": total, "offset": offset, "truncated": end < total}
    if end < total:
        marks["next_offset"] = end
    return shown, marks


def _project(rows: list[dict[str, Any]], args: dict[str, Any], known: tuple[str, ...]) -> list[dict[str, Any]]:
    fields = args.get("fields")
    if not fields:
        return rows
    unknown = [f for f in fields if f not in known]
    if unknown:
        raise ToolFailure(f"unknown field(s): {', '.join(unknown)} (known: {', '.join(known)})")
    return [{f: r.get(f) for f in fields} for r in rows]


def _props(**extra: Any) -> dict[str, Any]:
    return extra


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


LIMIT = {"type": "integer", "minimum": 0, "maximum": MAX_ROWS,
         "description": f"At most this many rows (default {DEFAULT_ROWS}; 0 = up to {MAX_ROWS})."}
OFFSET = {"type": "integer", "minimum": 0, "description": "Skip this many rows first (use next_offset of the previous answer)."}


def _str(desc: str, max_len: int = MAX_TEXT) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len, "description": desc}


def _id(desc: str) -> dict[str, Any]:
    """A concept id or path: no NUL, no backslash (an argument error, not a refusal)."""
    return {**_str(desc, 1000), "pattern": "^[^\\x00\\\\]*$"}


def _fields(known: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "enum": list(known)}, "maxItems": len(known),
            "description": "Keep only these row fields."}


# --------------------------------------------------------------------------- read tools


def _search(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import search

    terms = [t for t in args["terms"]]
    engine = args.get("engine", "scan")
    bundle = host.bundle()
    if engine == "ranked" and args.get("regexp"):
        raise ToolFailure("regexp works with the scan engine only")
    limit = args.get("limit")
    limit = DEFAULT_ROWS if limit is None else (limit or MAX_ROWS)
    cap = int(args.get("offset") or 0) + limit + 1  # one more than shown: says whether more exist
    q = search.Query(terms, engine, bool(args.get("regexp")), fields=",".join(args["in"]) if args.get("in") else None,
                     filters={k: args.get(k) for k in ("type", "dir", "tag", "status", "trust")}, limit=cap)
    try:
        rows = search.one(host.root, bundle, q)
    except search.SearchError as exc:
        raise ToolFailure(str(exc)) from None
    shown, marks = page(rows, {**args, "limit": limit})
    marks["total_is_lower_bound"] = len(rows) >= cap  # the engines stop at the cap: more may match
    return {"query": terms, "engine": engine, "count": len(shown), **marks,
            "matches": _project(shown, args, search.ROW)}


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
    from okfpro.core.search import dir_matches

    want_type = (args.get("type") or "").lower()
    want_dir = args.get("dir")

    def where(r: dict[str, Any]) -> bool:
        return ((not want_type or (r["type"] or "").lower() == want_type)
                and (not want_dir or dir_matches(r["dir"], want_dir)))

    rows = _views.catalog(host.bundle(), where if (want_type or want_dir) else None)["concepts"]
    shown, marks = page(rows, args)
    return {"count": len(shown), **marks, "concepts": _project(shown, args, _views.CATALOG_ROW)}


def _index(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core import views as _views

    bundle = host.bundle()
    base = args.get("dir")
    known = _views.directory_set(bundle)
    if base is not None and _views.fold_dir(base, known) not in {_views.fold(d) for d in known}:
        raise ToolFailure(f"no such directory in the bundle: {base} (index without dir lists the top level)")
    rows = _views.index(bundle, [base] if base else None, args.get("depth", 1), True, body=True)["directories"]
    cut = int(args.get("listing_limit") or 50)
    for r in rows:
        listing = r["listing"]
        if len(listing) > cut:
            r["listing"] = listing[:cut]
            r["listing_truncated"] = len(listing) - cut
    shown, marks = page(rows, args)
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
    from okfpro.cli.views import reference_files
    from okfpro.core import views as _views

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
    return ws.state_payload(host.root, _today(), full=bool(args.get("full")))


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
    rows = _b.rows_json(b, _today(), section)
    shown, marks = page(rows, args, default=100)
    return {"count": len(shown), **marks, "rows": shown}


def _snapshot(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    return ws.snapshot_payload(host.root, _today())


def _findings_page(report: dict[str, Any], key: str, args: dict[str, Any]) -> dict[str, Any]:
    rows, marks = page(report[key], args, default=50)
    out = dict(report)
    out[key] = rows
    out[f"{key}_total"] = marks["total"]
    out["truncated"] = out.get("truncated", False) or marks["truncated"]
    if marks["truncated"]:
        out["next_offset"] = marks.get("next_offset")
    return out


def _validate(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core.validate import validate

    report = validate(host.bundle())
    out = _findings_page(report, "errors", args)
    return _findings_page(out, "warnings", args)


def _lint(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.core.lint import UnknownCheck, lint

    try:
        report = lint(host.bundle(), today=_today(), only=",".join(args["only"]) if args.get("only") else None,
                      except_=",".join(args["except"]) if args.get("except") else None,
                      min_body=args.get("min_body", 50), stale_after=args.get("stale_after"))
    except (UnknownCheck, ValueError) as exc:
        raise ToolFailure(str(exc)) from None
    return _findings_page(report, "findings", args)


def _audit(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import audit

    start = host.root.parent if host.root.name == ".okf" else host.root
    findings = [{"category": c, "message": m} for c, m in audit.findings(start, _today())]
    shown, marks = page(findings, args, default=50)
    return {"clean": not findings, "count": len(shown), **marks, "findings": shown}


# --------------------------------------------------------------------------- writers


def _write(host: Host, verb: str, do: Callable[[], Any]) -> Any:
    from okfpro.io import workstate as ws

    try:
        return do()
    except ws.Refused as exc:
        path = getattr(exc, "path", None)
        raise ToolFailure(f"{verb} refused, and {path + ' is untouched' if path else 'nothing was touched'}: {exc}") from None
    finally:
        host.warm.invalidate()


def _capture(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    line = _write(host, "capture", lambda: ws.do_capture(host.root, _today(), args["text"]))
    return {"written": True, "section": "Inbox", "line": line}


def _move(verb: str) -> Callable[[Host, dict[str, Any]], dict[str, Any]]:
    def run(host: Host, args: dict[str, Any]) -> dict[str, Any]:
        from okfpro.io import workstate as ws

        edit, b = _write(host, verb, lambda: ws.do_move(host.root, verb, args["selector"]))
        header = b.lines[b.header_index] if b.header_index is not None else None
        return {"written": True, "moved_to": "In flight" if verb == "promote" else "Backlog",
                "line": edit.note.rstrip(), "header": header}

    return run


def _journal_open(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    res = _write(host, "journal open", lambda: ws.do_journal_open(host.root, _today()))
    return {"written": res.created_entry or res.linked, "entry": f"journal/{res.day}.md",
            "created_entry": res.created_entry, "linked": res.linked}


def _close(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    res = _write(host, "close", lambda: ws.do_close(host.root, _today(), args["slug"]))
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
        today=_today(), audit_root=store.base, actor=_actor(scope),
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
    limit = args.get("limit", DEFAULT_ROWS)
    payload, _, _ = recall_payload(_store(host), scope, args["query"], limit=limit or MAX_ROWS,
                                   include_hidden=bool(args.get("include_hidden")), today=_today())
    return payload


def _list(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.memory.views import list_payload

    payload, _ = list_payload(_store(host), host.scope())
    shown, marks = page(payload["entries"], args, default=50)
    payload["entries"] = shown
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
_FILTERS = {
    "type": _str("Only concepts of this type (case-insensitive), e.g. 'Decision'.", 200),
    "dir": _str("Only concepts in this directory and below ('.' = the root only).", 500),
    "tag": _str("Only concepts carrying this tag (case-insensitive).", 200),
    "status": _str("Only concepts whose effective status is this.", 100),
    "trust": _str("Only concepts of this trust tier.", 100),
}

TOOLS: list[Tool] = [
    Tool("search", "Search the knowledge base",
         "Find concepts (Markdown notes) in the workspace's OKF bundle. Use this first when you need what the team "
         "already knows: decisions, glossary terms, learnings, project notes. engine 'scan' (default) ANDs the terms "
         "as case-insensitive substrings and scores by field (title 5, id 4, tags 3, type 2, description 2, sources "
         "1, body 1); engine 'ranked' is BM25 over any of the words (better for a natural-language question). "
         "Rows carry id, title, type, dir, tags, matched fields, score and a snippet; call `read` with an id for "
         "the full text. Same rows as `okfpro search --json`.",
         _schema({"terms": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200},
                            "minItems": 1, "maxItems": 32, "description": "Words or phrases to find."},
                  "engine": {"type": "string", "enum": ["scan", "ranked"], "default": "scan"},
                  "in": {"type": "array", "items": {"type": "string", "enum": list(_SEARCH_FIELDS)},
                         "description": "Search only these fields."},
                  **_FILTERS,
                  "regexp": {"type": "boolean", "description": "Terms are regular expressions (scan only)."},
                  "fields": _fields(_SEARCH_ROW), "limit": LIMIT, "offset": OFFSET}, ("terms",)),
         _search),
    Tool("read", "Read one concept",
         "Return the full Markdown source (frontmatter and body) of one concept by its id (or its bundle-relative "
         "path). Long files come in pieces: when truncated is true, call again with offset = next_offset.",
         _schema({"id": _id("The concept id, e.g. 'glossary/okf' (from search or catalog)."),
                  "offset": OFFSET,
                  "max_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS,
                                "description": f"At most this many characters (default {READ_CHARS})."}}, ("id",)),
         _read),
    Tool("catalog", "List concepts with metadata",
         "Every concept with its metadata (type, description, tags, trust, status, link counts), sorted by id, "
         "optionally only one type or directory. Use it to browse; use search to find. Same rows as "
         "`okfpro catalog --json`.",
         _schema({"type": _FILTERS["type"], "dir": _FILTERS["dir"], "fields": _fields(_CATALOG_ROW),
                  "limit": LIMIT, "offset": OFFSET}),
         _catalog),
    Tool("index", "Map of the bundle",
         "The bundle's map per directory (§8): its concepts, subdirectories, types and tags — the authored index.md "
         "text where one exists, a synthesized listing otherwise. Start at the root with depth 1, then descend "
         "with dir.",
         _schema({"dir": _str("Start at this directory (default: the root).", 500),
                  "depth": {"type": "integer", "minimum": 0, "maximum": 64, "default": 1,
                            "description": "Levels below the start (default 1)."},
                  "listing_limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                                    "description": "At most this many concepts listed per directory (default 50)."},
                  "limit": LIMIT, "offset": OFFSET}),
         _index),
    Tool("graph", "Links between concepts",
         "Without id: the hubs — concepts ranked by inbound links (what everything points at). With id: that "
         "concept's outbound and inbound links. Hub rows are those of `okfpro graph --hubs --json`.",
         _schema({"id": _id("A concept id: list its links instead of the hubs."), "limit": LIMIT,
                  "offset": OFFSET}),
         _graph),
    Tool("references", "Files under references/",
         "Files kept under references/ and which concepts cite them, plus dangling pointers into references/ "
         "(with a hint when a leading slash is missing).",
         _schema({"limit": LIMIT, "offset": OFFSET}), _references),
    Tool("stats", "Bundle statistics",
         "Counts: concepts, directories, types, cross-links, tags; per type, directory and top directory.",
         _schema({"limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                            "description": "At most this many entries per breakdown (default 50)."}}), _stats),
    Tool("state", "Work state (the board)",
         "The work state in one call: board counters (in flight vs cap, backlog, waiting, inbox, deadlines), "
         "deadlines at risk, the log's newest day, open projects, the last snapshot. Call it at the start of a task "
         "to know what is in flight. full: also pairing and the unverified list (parses the bundle). Same JSON as "
         "`okfpro state --json`.",
         _schema({"full": {"type": "boolean", "default": False}}), _state),
    Tool("board", "Board lines",
         "One row per board line (section, text, date, age, chase, link targets), optionally one section: "
         "In flight, Backlog, Waiting, Inbox, To read, Deadlines.",
         _schema({"section": _str("Only this section.", 50), "limit": LIMIT, "offset": OFFSET}), _board),
    Tool("snapshot", "Today's Snapshot line",
         "Compute today's mechanical Snapshot line and its counters from the bundle (reads only; it never writes "
         "the log).", _schema({}), _snapshot),
    Tool("validate", "OKF conformance",
         "Check the bundle against OKF v0.2: errors (non-conformant) and warnings, with check ids. Same report as "
         "`okfpro validate --json`, errors and warnings paged.",
         _schema({"limit": LIMIT, "offset": OFFSET}), _validate),
    Tool("lint", "Curation report",
         "The 26 curation checks (orphans, stubs, stale, missing targets, ...) with the reference's ids and "
         "severities; only/except select checks by id. Same report as `okfpro lint --json`, findings paged.",
         _schema({"only": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "except": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "min_body": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                  "stale_after": _str("Flag generated_at older than this (90d, 12w, or an ISO date).", 40),
                  "limit": LIMIT, "offset": OFFSET}), _lint),
    Tool("audit", "Every invariant at once",
         "What CI runs: layout, closed core, validate, lint warnings, snapshot, budget, board grammar, pairing. "
         "clean: true means nothing to fix.", _schema({"limit": LIMIT, "offset": OFFSET}), _audit),
    # writers
    Tool("capture", "Add a line to the board's Inbox",
         "Append '- <today> — TEXT' to the board's Inbox: the way to note a task, a follow-up or an idea without "
         "deciding on it now. One line of text; refused (nothing written) if it spans lines. Same writer as "
         "`okfpro capture`.",
         _schema({"text": _str("The line to capture (one line).")}, ("text",)), _capture, writes=True),
    Tool("promote", "Start work on a board line",
         "Move one Inbox or Backlog line to In flight and update the 'In flight: k/CAP' header; refused past the "
         "cap. selector: a project slug, a /path link on the line, or a unique piece of its text.",
         _schema({"selector": _str("Which line: slug, /link or unique text.")}, ("selector",)), _move("promote"),
         writes=True),
    Tool("demote", "Park a board line",
         "Move one In flight line back to Backlog and update the header. selector as for promote.",
         _schema({"selector": _str("Which line: slug, /link or unique text.")}, ("selector",)), _move("demote"),
         writes=True),
    Tool("journal_open", "Open today's journal entry",
         "Create today's journal entry (journal/YYYY-MM-DD.md) if missing and link it from journal/index.md. "
         "Idempotent.", _schema({}), _journal_open, writes=True),
    Tool("close", "Close a project",
         "Close projects/SLUG: mark its index '— closed <date>', remove its board lines and log it.",
         _schema({"slug": _str("The project's directory name under projects/.", 200)}, ("slug",)), _close,
         writes=True),
    # memory
    Tool("memory_remember", "Remember something (scoped memory)",
         "Store one memory in the current scope (decided by the server: host, okfpro.toml, environment — you cannot "
         "choose or name a user, tenant or session). Secrets are redacted before anything is written; an exact "
         "duplicate is skipped; every write is a Git commit; it is filed as agent-inferred (a memory the user confirmed is never superseded by it). Use for facts, preferences and decisions worth "
         "recalling in a later session.",
         _schema({"text": _str("What to remember.", MAX_MEMORY_TEXT),
                  "tier": {"type": "string", "enum": list(TIERS), "default": "user",
                           "description": "Which tier of the current scope."},
                  "kind": {"type": "string", "enum": list(_mempolicy.KINDS), "default": "event"},
                  "confidence": {"type": "string", "enum": list(_mempolicy.CONFIDENCE), "default": "medium"},
                  "valid_until": _str("YYYY-MM-DD: hidden from recall from this day on.", 10),
                  "review_at": _str("YYYY-MM-DD: flag for review from this day on.", 10),
                  "supersede": _str("A memory id to replace, or 'auto' for the closest overlapping one.", 200),
                  "contradicts": _str("A memory id this contradicts, or 'auto'.", 200)}, ("text",)),
         _remember, writes=True, memory=True),
    Tool("memory_recall", "Recall memories",
         "Memories of the current scope matching the query, most specific tier first; superseded, expired and "
         "archived ones are hidden unless include_hidden. Same passages as `okfpro memory recall --json`.",
         _schema({"query": _str("What to look for.", MAX_QUERY), "limit": LIMIT,
                  "include_hidden": {"type": "boolean", "default": False}}, ("query",)),
         _recall, memory=True),
    Tool("memory_list", "List memories",
         "Every entry stored for the current scope (tier, id, title, date), paged.",
         _schema({"limit": LIMIT, "offset": OFFSET}), _list, memory=True),
    Tool("memory_forget", "Forget this scope's memory",
         "Delete the current scope's memory (all tiers, or one): a commit, history kept. Needs confirm: true. "
         "purge (erase history too) only where the server is configured to allow it.",
         _schema({"tier": {"type": "string", "enum": list(TIERS)}, "confirm": {"type": "boolean"},
                  "purge": {"type": "boolean", "default": False}}, ("confirm",)),
         _forget, writes=True, memory=True),
]

BY_NAME = {t.name: t for t in TOOLS}
