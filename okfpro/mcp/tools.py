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
READ_CHARS = 10_000
DEFAULT_ANSWER_CHARS = 12_000  # what any default answer stays under (tests/test_mcp_tools.py holds every tool to it)
PASSAGE_CHARS = 1_000  # a recalled memory's text, by default
INDEX_BODY_CHARS = 1_500  # an authored index.md's prose per directory, by default
LIST_CUT = 10  # concept ids listed per tag/type/directory row, by default
MAX_READ_CHARS = 100_000
MAX_RESULT_CHARS = 200_000  # the server's last guard on one answer (server.py)
MAX_TEXT = 4_000  # a board line or a selector
MAX_MEMORY_TEXT = 32_000
MAX_QUERY = 1_000


class ToolFailure(Exception):
    """A refusal or a could-not-run: reported to the model as a tool error (``isError``), text only."""


class InvalidArgument(Exception):
    """Arguments the schema lets through that do not go together: a JSON-RPC invalid-params error."""


class Tool(Value):
    _fields = ("name", "title", "description", "schema", "run", "writes", "memory", "output")
    name: str
    title: str
    description: str
    schema: dict[str, Any]
    run: Callable[["Host", dict[str, Any]], dict[str, Any]]
    writes: bool
    memory: bool
    output: dict[str, Any]  # the answer's JSON Schema (tools/list outputSchema; the SDK client checks it)

    def __init__(self, name: str, title: str, description: str, schema: dict[str, Any],
                 run: Callable[["Host", dict[str, Any]], dict[str, Any]], writes: bool = False, memory: bool = False,
                 output: dict[str, Any] | None = None) -> None:
        self.name = name
        self.title = title
        self.description = description
        self.schema = schema
        self.run = run
        self.writes = writes
        self.memory = memory
        self.output = {"type": "object"} if output is None else output


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
    """``fields`` keeps only those row fields, ``except`` drops those (the CLI's --fields/--except)."""
    fields, dropped = args.get("fields"), args.get("except")
    if fields and dropped:
        raise InvalidArgument("fields and except are mutually exclusive")
    if fields:
        return [{f: r.get(f) for f in fields} for r in rows]
    if dropped:
        return [{k: v for k, v in r.items() if k not in dropped} for r in rows]
    return rows


def _cut(rows: list[dict[str, Any]], key: str, n: int) -> None:
    """At most ``n`` items of each row's list ``key``; ``<key>_truncated`` says how many were left out."""
    for r in rows:
        items = r.get(key)
        if isinstance(items, list) and len(items) > n:
            r[key] = items[:n]
            r[f"{key}_truncated"] = len(items) - n


def _where(host: Host, args: dict[str, Any]):
    """The CLI's row filters (type, dir, tag, status, trust) over catalog rows (okfpro.core.views.row_filter)."""
    from okfpro.core import views as _views

    return _views.row_filter(host.bundle(), *(args.get(k) for k in ("type", "dir", "tag", "status", "trust")))


def _props(**extra: Any) -> dict[str, Any]:
    return extra


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


LIMIT = {"type": "integer", "minimum": 0, "maximum": MAX_ROWS,
         "description": f"At most this many rows (default {DEFAULT_ROWS}; 0 = up to {MAX_ROWS})."}


def _limit(default: int) -> dict[str, Any]:
    return {**LIMIT, "description": f"At most this many rows (default {default}; 0 = up to {MAX_ROWS})."}


OFFSET = {"type": "integer", "minimum": 0, "description": "Skip this many rows first (use next_offset of the previous answer)."}


def _str(desc: str, max_len: int = MAX_TEXT) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len, "description": desc}


def _id(desc: str) -> dict[str, Any]:
    """A concept id or path: no NUL, no backslash (an argument error, not a refusal)."""
    return {**_str(desc, 1000), "pattern": "^[^\\x00\\\\]*$"}


def _fields(known: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "enum": list(known)}, "maxItems": len(known),
            "description": "Keep only these row fields."}


def _except(known: tuple[str, ...]) -> dict[str, Any]:
    return {**_fields(known), "description": "Drop these row fields (not with fields)."}


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

    rows = _views.catalog(host.bundle(), _where(host, args))["concepts"]
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
    _cut(rows, "listing", int(args.get("listing_limit") or LIST_CUT))
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
    shown, marks = page(rows, args, default=50)
    return {"count": len(shown), **marks, "rows": shown}


def _snapshot(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workstate as ws

    return ws.snapshot_payload(host.root, _today())


def _findings_page(report: dict[str, Any], key: str, args: dict[str, Any], default: int = 50) -> dict[str, Any]:
    rows, marks = page(report[key], args, default=default)
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
    return _findings_page(report, "findings", args, default=25)


def _audit(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import audit

    start = host.root.parent if host.root.name == ".okf" else host.root
    findings = [{"category": c, "message": m} for c, m in audit.findings(start, _today())]
    shown, marks = page(findings, args, default=50)
    return {"clean": not findings, "count": len(shown), **marks, "findings": shown}


def _inverted_view(host: Host, args: dict[str, Any], key: str) -> dict[str, Any]:
    from okfpro.core import views as _views

    bundle = host.bundle()
    if key == "tags" and args.get("by"):
        data = _views.tag_groups(bundle, args["by"], _where(host, args))
        groups = data["groups"]
        for g in groups:
            _cut(g["tags"], "concepts", int(args.get("concepts_limit") or LIST_CUT))
        shown, marks = page(groups, args)
        return {"by": args["by"], "count": len(shown), **marks, "groups": shown}
    rows = (_views.tags if key == "tags" else _views.types)(bundle, _where(host, args))[key]
    _cut(rows, "concepts", int(args.get("concepts_limit") or LIST_CUT))
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
    _cut(data["dirs"], "subdirs", LIST_CUT)
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
    _cut(days, "lines", int(args.get("lines_limit") or 40))
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

    line = _write(host, "capture", lambda: ww.do_capture(host.root, _today(), args["text"]))
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

    res = _write(host, "journal open", lambda: ww.do_journal_open(host.root, _today()))
    return {"written": res.created_entry or res.linked, "entry": f"journal/{res.day}.md",
            "created_entry": res.created_entry, "linked": res.linked}


def _close(host: Host, args: dict[str, Any]) -> dict[str, Any]:
    from okfpro.io import workwriters as ww

    res = _write(host, "close", lambda: ww.do_close(host.root, _today(), args["slug"]))
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
    limit = args.get("limit", 10)
    payload, _, _ = recall_payload(_store(host), scope, args["query"], limit=limit or MAX_ROWS,
                                   include_hidden=bool(args.get("include_hidden")), today=_today())
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
_FILTERS = {
    "type": _str("Only concepts of this type (case-insensitive), e.g. 'Decision'.", 200),
    "dir": _str("Only concepts in this directory and below ('.' = the root only).", 500),
    "tag": _str("Only concepts carrying this tag (case-insensitive).", 200),
    "status": _str("Only concepts whose effective status is this.", 100),
    "trust": _str("Only concepts of this trust tier.", 100),
}

_CONCEPTS_LIMIT = {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                   "description": f"At most this many concept ids per row (default {LIST_CUT})."}

# output schemas: the top-level keys and their types; rows stay open objects (fields/except project them)
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_STRING = {"type": "string"}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_ARRAY = {"type": "array"}
_ROWS = {"type": "array", "items": {"type": "object"}}
_OBJECT = {"type": "object"}
_MARKS = {"count": _INT, "total": _INT, "offset": _INT, "truncated": _BOOL, "next_offset": _INT}


def _obj(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def _out(rows: str, required: tuple[str, ...] | None = None, **extra: Any) -> dict[str, Any]:
    """A paged answer: the markers, the rows under ``rows``, and ``extra`` top-level keys."""
    need = ("count", "total", "offset", "truncated", rows) if required is None else required
    return _obj({**_MARKS, rows: _ROWS, **extra}, need)


TOOLS: list[Tool] = [
    Tool("search", "Search the knowledge base",
         "Find concepts (Markdown notes) in the workspace's OKF bundle. Use this first when you need what the team "
         "already knows: decisions, glossary terms, learnings, project notes. engine 'scan' (default) ANDs the terms "
         "as case-insensitive substrings and scores by field (title 5, id 4, tags 3, type 2, description 2, sources "
         "1, body 1); engine 'ranked' is BM25 over any of the words (better for a natural-language question); "
         "fuzzy tolerates typos. The CLI's filters: type, dir, tag, status, trust, in, regexp, fuzzy. "
         "Rows carry id, title, type, dir, tags, matched fields, score and a snippet; call `read` with an id for "
         "the full text. Same rows as `okfpro search --json`.",
         _schema({"terms": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200},
                            "minItems": 1, "maxItems": 32, "description": "Words or phrases to find."},
                  "engine": {"type": "string", "enum": ["scan", "ranked"],
                             "description": "scan (default) or ranked (BM25); fuzzy implies ranked."},
                  "in": {"type": "array", "items": {"type": "string", "enum": list(_SEARCH_FIELDS)},
                         "description": "Search only these fields."},
                  **_FILTERS,
                  "regexp": {"type": "boolean", "description": "Terms are regular expressions (scan only)."},
                  "fuzzy": {"type": "boolean", "description": "Tolerate typos: each term matches a word exactly, as a "
                            "prefix or within edit distance 0.2 x its length (implies engine ranked)."},
                  "fields": _fields(_SEARCH_ROW), "except": _except(_SEARCH_ROW), "limit": LIMIT, "offset": OFFSET},
                 ("terms",)),
         _search, output=_out("matches", query=_STRINGS, engine=_STRING, total_is_lower_bound=_BOOL)),
    Tool("read", "Read one concept",
         "Return the full Markdown source (frontmatter and body) of one concept by its id (or its bundle-relative "
         "path). Long files come in pieces: when truncated is true, call again with offset = next_offset.",
         _schema({"id": _id("The concept id, e.g. 'glossary/okf' (from search or catalog)."),
                  "offset": OFFSET,
                  "max_chars": {"type": "integer", "minimum": 1, "maximum": MAX_READ_CHARS,
                                "description": f"At most this many characters (default {READ_CHARS})."}}, ("id",)),
         _read, output=_obj({"id": _STRING, "path": _STRING, "content": _STRING, "chars": _INT, "offset": _INT,
                             "truncated": _BOOL, "next_offset": _INT}, ("id", "path", "content", "chars", "truncated"))),
    Tool("catalog", "List concepts with metadata",
         "Every concept with its metadata (type, description, tags, trust, status, link counts), sorted by id, "
         "optionally filtered by type, directory, tag, status or trust (the CLI's filters). Use it to browse; use "
         "search to find. Same rows as `okfpro catalog --json`.",
         _schema({**_FILTERS, "fields": _fields(_CATALOG_ROW), "except": _except(_CATALOG_ROW),
                  "limit": LIMIT, "offset": OFFSET}),
         _catalog, output=_out("concepts")),
    Tool("index", "Map of the bundle",
         "The bundle's map per directory (§8): its concepts, subdirectories, types and tags — the authored index.md "
         "text where one exists, a synthesized listing otherwise. Start at the root with depth 1, then descend "
         "with dir. Sized for a context: 10 directories, 10 concepts and 1,500 characters of prose each by default.",
         _schema({"dir": _str("Start at this directory (default: the root).", 500),
                  "depth": {"type": "integer", "minimum": 0, "maximum": 64, "default": 1,
                            "description": "Levels below the start (default 1)."},
                  "listing_limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                                    "description": f"At most this many concepts listed per directory (default {LIST_CUT})."},
                  "body_chars": {"type": "integer", "minimum": 0, "maximum": MAX_READ_CHARS,
                                 "description": f"At most this much of each authored index.md's prose (default "
                                                f"{INDEX_BODY_CHARS}; body_truncated counts the rest)."},
                  "limit": {**LIMIT, "description": "At most this many directories (default 10; 0 = up to 500)."},
                  "offset": OFFSET}),
         _index, output=_out("directories")),
    Tool("graph", "Links between concepts",
         "Without id: the hubs — concepts ranked by inbound links (what everything points at). With id: that "
         "concept's outbound and inbound links. Hub rows are those of `okfpro graph --hubs --json`.",
         _schema({"id": _id("A concept id: list its links instead of the hubs."), "limit": LIMIT,
                  "offset": OFFSET}),
         _graph, output=_obj({"id": _STRING, "links_out": _ARRAY, "links_in": _ARRAY, "links_out_total": _INT,
                              "links_in_total": _INT, "hubs": _ROWS, **_MARKS}, ("truncated",))),
    Tool("references", "Files under references/",
         "Files kept under references/ and which concepts cite them, plus dangling pointers into references/ "
         "(with a hint when a leading slash is missing).",
         _schema({"limit": LIMIT, "offset": OFFSET}), _references,
         output=_out("references", dangling=_ARRAY, dangling_total=_INT)),
    Tool("stats", "Bundle statistics",
         "Counts: concepts, directories, types, cross-links, tags; per type, directory and top directory.",
         _schema({"limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                            "description": "At most this many entries per breakdown (default 50)."}}), _stats,
         output=_obj({k: _INT for k in ("concepts", "dirs", "top_dirs", "concept_types", "cross_links", "distinct_tags")}
                     | {k: _OBJECT for k in ("by_type", "by_dir", "by_top_dir")},
                     ("concepts", "dirs", "by_type", "by_dir", "by_top_dir"))),
    Tool("state", "Work state (the board)",
         "The work state in one call: board counters (in flight vs cap, backlog, waiting, inbox, deadlines), "
         "deadlines at risk, the log's newest day, open projects, the last snapshot. Call it at the start of a task "
         "to know what is in flight. full: also pairing and the unverified list (parses the bundle). Same JSON as "
         "`okfpro state --json`.",
         _schema({"full": {"type": "boolean", "default": False}}), _state),
    Tool("board", "Board lines",
         "One row per board line (section, text, date, age, chase, link targets), optionally one section: "
         "In flight, Backlog, Waiting, Inbox, To read, Deadlines.",
         _schema({"section": _str("Only this section.", 50), "limit": _limit(50), "offset": OFFSET}), _board,
         output=_out("rows")),
    Tool("snapshot", "Today's Snapshot line",
         "Compute today's mechanical Snapshot line and its counters from the bundle (reads only; it never writes "
         "the log).", _schema({}), _snapshot),
    Tool("validate", "OKF conformance",
         "Check the bundle against OKF v0.2: errors (non-conformant) and warnings, with check ids. Same report as "
         "`okfpro validate --json`, errors and warnings paged.",
         _schema({"limit": _limit(50), "offset": OFFSET}), _validate,
         output=_obj({"errors": _ROWS, "warnings": _ROWS, "errors_total": _INT, "warnings_total": _INT, **_MARKS},
                     ("errors", "warnings", "errors_total", "warnings_total"))),
    Tool("lint", "Curation report",
         "The 26 curation checks (orphans, stubs, stale, missing targets, ...) with the reference's ids and "
         "severities; only/except select checks by id. Same report as `okfpro lint --json`, findings paged.",
         _schema({"only": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "except": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64},
                  "min_body": {"type": "integer", "minimum": 0, "maximum": 1_000_000},
                  "stale_after": _str("Flag generated_at older than this (90d, 12w, or an ISO date).", 40),
                  "limit": _limit(25), "offset": OFFSET}), _lint,
         output=_obj({"findings": _ROWS, "findings_total": _INT, **_MARKS}, ("findings", "findings_total"))),
    Tool("audit", "Every invariant at once",
         "What CI runs: layout, closed core, validate, lint warnings, snapshot, budget, board grammar, pairing. "
         "clean: true means nothing to fix.", _schema({"limit": _limit(50), "offset": OFFSET}), _audit,
         output=_out("findings", clean=_BOOL)),
    Tool("tags", "Tags and their concepts",
         "Every tag with its count and concepts (by count), optionally regrouped by type or directory (by), and "
         "filtered by type, dir, status or trust. Same rows as `okfpro tags --json`; concept lists cut at "
         "concepts_limit.",
         _schema({"by": {"type": "string", "enum": ["type", "dir"], "description": "Regroup the tags per type or dir."},
                  **{k: _FILTERS[k] for k in ("type", "dir", "status", "trust")}, "concepts_limit": _CONCEPTS_LIMIT,
                  "limit": LIMIT, "offset": OFFSET}),
         _tags, output=_out("tags", by=_STRING, groups=_ROWS, required=())),
    Tool("types", "Concept types",
         "Every concept type with its count and concepts (a blank type counts as Untyped), filtered by dir, tag, "
         "status or trust. Same rows as `okfpro types --json`; concept lists cut at concepts_limit.",
         _schema({**{k: _FILTERS[k] for k in ("dir", "tag", "status", "trust")}, "concepts_limit": _CONCEPTS_LIMIT,
                  "limit": LIMIT, "offset": OFFSET}),
         _types, output=_out("types")),
    Tool("dirs", "Directories",
         "Directories with the concepts directly inside (count) and at or below (subtree), optionally from one "
         "directory down to a depth. Same rows as `okfpro dirs --json`.",
         _schema({"dir": _str("Only this directory and those below it.", 500),
                  "depth": {"type": "integer", "minimum": 0, "maximum": 64, "description": "Levels below the start."},
                  "ancestors": {"type": "boolean", "default": True,
                                "description": "With dir: also the chain up to the root."},
                  "limit": _limit(50), "offset": OFFSET}),
         _dirs, output=_out("dirs", concepts=_INT)),
    Tool("log", "The log: what changed, by day",
         "The bundle's log.md, newest day first: each day's entries and its Snapshot line. Check it to see what "
         "changed recently before trusting or adding knowledge. Default: the 5 newest days.",
         _schema({"since": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                            "description": "Only days from this one on (YYYY-MM-DD)."},
                  "lines_limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                                  "description": "At most this many lines per day (default 40)."},
                  "limit": {**LIMIT, "description": "At most this many days (default 5; 0 = up to 500)."},
                  "offset": OFFSET}),
         _log, output=_out("days", newest_day={"type": ["string", "null"]}, malformed_headings=_ARRAY)),
    Tool("bundles", "Registered bundles",
         "The bundle this server serves, and the bundles named in okfpro's registry (`okfpro registry list`): "
         "slug, title, directory, whether it is the default and whether it is missing.",
         _schema({"limit": _limit(50), "offset": OFFSET}),
         _bundles, output=_out("bundles", served=_OBJECT, registry={"type": ["string", "null"]}, groups=_ROWS)),
    # writers
    Tool("capture", "Add a line to the board's Inbox",
         "Append '- <today> — TEXT' to the board's Inbox: the way to note a task, a follow-up or an idea without "
         "deciding on it now. One line of text; refused (nothing written) if it spans lines. Same writer as "
         "`okfpro capture`.",
         _schema({"text": _str("The line to capture (one line).")}, ("text",)), _capture, writes=True,
         output=_obj({"written": _BOOL, "section": _STRING, "line": _STRING}, ("written", "line"))),
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
         _schema({"query": _str("What to look for.", MAX_QUERY),
                  "limit": {**LIMIT, "description": "At most this many passages (default 10; 0 = up to 500)."},
                  "text_chars": {"type": "integer", "minimum": 1, "maximum": MAX_MEMORY_TEXT,
                                 "description": f"At most this much of each memory's text and excerpt (default "
                                                f"{PASSAGE_CHARS}; text_truncated counts the rest)."},
                  "include_hidden": {"type": "boolean", "default": False}}, ("query",)),
         _recall, memory=True, output=_obj({"passages": _ROWS}, ("passages",))),
    Tool("memory_list", "List memories",
         "Every entry stored for the current scope (tier, id, title, date), paged.",
         _schema({"limit": _limit(50), "offset": OFFSET}), _list, memory=True, output=_out("entries", scope=_OBJECT)),
    Tool("memory_forget", "Forget this scope's memory",
         "Delete the current scope's memory (all tiers, or one): a commit, history kept. Needs confirm: true. "
         "purge (erase history too) only where the server is configured to allow it.",
         _schema({"tier": {"type": "string", "enum": list(TIERS)}, "confirm": {"type": "boolean"},
                  "purge": {"type": "boolean", "default": False}}, ("confirm",)),
         _forget, writes=True, memory=True),
]

BY_NAME = {t.name: t for t in TOOLS}
