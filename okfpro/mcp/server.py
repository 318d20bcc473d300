"""``okfpro mcp``: the workspace and its scoped memory over the Model Context Protocol.

Built on the official SDK's low-level :class:`mcp.server.lowlevel.Server`: the tool
list, the argument checks and the resource listing are ours (hand-written schemas and
descriptions for a model to choose well; paged resources for 50,000 concepts), the
protocol — framing, JSON-RPC errors, the stdio and streamable-HTTP transports, bearer
authentication — is the SDK's.

One process serves one bundle and keeps it parsed (:class:`okfpro.mcp.watch.Warm`),
revalidated on every call.  Calls run one at a time in a worker thread, so a slow
call never stalls the protocol loop (pings, cancellations) and two calls never
interleave their reads and writes.

Errors: an unknown tool, arguments that fail the tool's schema (an unknown argument
included) or arguments over :data:`MAX_ARGUMENT_BYTES` are JSON-RPC errors
(``-32602``); a refusal (a writer's guard, a memory call without an identity) is a
tool result with ``isError`` and one line saying why; a crash in a tool is reported
the same way and the server keeps serving.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from typing import Any, Callable
from urllib.parse import quote, unquote

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from okfpro import __version__
from okfpro.core.jsonable import jsonable  # the CLI's JSON default: dates as ISO text
from okfpro.core.frames import neutralise, neutralise_json
from okfpro.core.record import replace
from okfpro.mcp import toolkit as _toolkit
from okfpro.mcp import tools as _tools

MAX_ARGUMENT_BYTES = 256 * 1024
RESOURCE_PAGE = 500
FIXED = ("board", "log")  # resources by name; the concepts of the same ids are not listed again
_CURSOR = re.compile(r"(?:0|[1-9][0-9]{0,8})")
INSTRUCTIONS = (
    "okfpro: this workspace's knowledge base (an OKF bundle of Markdown concepts), its work board and the "
    "agent's scoped memory. Start with `state` to see what is in flight; `search` then `read` to use what is "
    "known; `capture` to note a task; memory_recall / memory_remember for what should outlive this session. "
    "Every answer is sized: when `truncated` is true, call again with offset = next_offset."
)


class Session:
    """What one server process serves: the bundle (kept warm) and how a call's scope is found."""

    def __init__(self, host: _toolkit.Host, scope_for_request: Callable[[Any], Callable[[], tuple[Any, str | None]]] | None = None):
        self.host = host
        self.scope_for_request = scope_for_request
        self._serial = threading.Lock()
        from jsonschema import Draft202012Validator

        self.validators = {t.name: Draft202012Validator(t.schema) for t in _tools.TOOLS}

    # ------------------------------------------------------------------ tools
    def check(self, name: str, arguments: dict[str, Any] | None) -> tuple[_toolkit.Tool, dict[str, Any]]:
        tool = _tools.BY_NAME.get(name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool: {name[:100]!r} (tools/list names the {len(_tools.TOOLS)} tools)")
        args = arguments or {}
        size = len(json.dumps(args, ensure_ascii=False).encode("utf-8"))
        if size > MAX_ARGUMENT_BYTES:
            raise MCPError(types.INVALID_PARAMS, f"arguments of {size} bytes exceed the {MAX_ARGUMENT_BYTES}-byte limit")
        errors = sorted(self.validators[name].iter_errors(args), key=lambda e: list(e.path))
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(arguments)"
            message = first.message if len(first.message) <= 300 else first.message[:300] + "…"
            raise MCPError(types.INVALID_PARAMS, f"invalid arguments for {name}: {where}: {message}")
        return tool, args

    def run(self, tool: _toolkit.Tool, args: dict[str, Any], host: _toolkit.Host) -> types.CallToolResult:
        with self._serial:
            try:
                data = neutralise_json(tool.run(host, args))  # stored text framed as the hooks frame it
            except _toolkit.InvalidArgument as exc:
                raise MCPError(types.INVALID_PARAMS, f"invalid arguments for {tool.name}: {exc}") from None
            except _toolkit.ToolFailure as exc:
                return _error(str(exc))
            except Exception as exc:  # noqa: BLE001 - a bug in one call must not take the server down
                import traceback

                traceback.print_exc(file=sys.stderr)
                return _error(f"{tool.name} could not run: an internal error ({type(exc).__name__}); the server "
                              "is still up — please report it with the arguments you passed")
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=jsonable)
        if len(text) > _toolkit.MAX_RESULT_CHARS:
            return _error(f"the answer is {len(text)} characters, over the {_toolkit.MAX_RESULT_CHARS} limit of one call; "
                          "narrow it (limit, fields, a filter) and call again")
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=json.loads(text))

    def host_for(self, request: Any) -> _toolkit.Host:
        if self.scope_for_request is None:
            return self.host
        return replace(self.host, scope_source=self.scope_for_request(request))

    # ------------------------------------------------------------------ resources
    def uri(self, rest: str) -> str:
        return f"okf://{quote(self.host.name, safe='')}/{quote(rest, safe='/')}"

    def resources(self, cursor: str | None) -> tuple[list[types.Resource], str | None]:
        bundle = self.host.bundle()
        fixed = [
            types.Resource(name="board", uri=self.uri("board"), mime_type="text/markdown",
                           description="The work board (board.md): In flight, Backlog, Waiting, Inbox, To read, Deadlines."),
            types.Resource(name="log", uri=self.uri("log"), mime_type="text/markdown",
                           description="The log (log.md): dated entries and Snapshot lines."),
        ]
        # board.md and log.md are concepts too: listed once, as the fixed resources above
        concepts = sorted((c for c in bundle.concepts if c.id not in FIXED), key=lambda c: c.id)
        total = len(fixed) + len(concepts)
        start = _cursor(cursor, total)
        rows = []
        for i in range(start, min(start + RESOURCE_PAGE, total)):
            if i < len(fixed):
                rows.append(fixed[i])
                continue
            c = concepts[i - len(fixed)]
            rows.append(types.Resource(name=neutralise(c.id), title=neutralise(c.display_title), uri=self.uri(c.id),
                                       mime_type="text/markdown", description=neutralise(c.description) or None))
        end = start + len(rows)
        return rows, (str(end) if end < total else None)

    def read(self, uri: str) -> str:
        prefix = f"okf://{quote(self.host.name, safe='')}/"
        if not uri.startswith(prefix):
            raise MCPError(types.INVALID_PARAMS, f"not a resource of this server (they start with {prefix})")
        try:
            rest = unquote(uri[len(prefix):], errors="strict")
        except UnicodeDecodeError:
            raise MCPError(types.INVALID_PARAMS, "the resource URI's %-escapes are not UTF-8") from None
        if rest in FIXED:
            rel = f"{rest}.md"
            try:
                text = _tools.state_file(self.host, rel)
            except _toolkit.ToolFailure as exc:
                raise MCPError(types.INVALID_PARAMS, str(exc)) from None
            if text is None:
                raise MCPError(types.INVALID_PARAMS, f"the bundle has no {rel}")
            return neutralise(text)
        try:
            data = _tools.BY_NAME["read"].run(self.host, {"id": rest, "max_chars": _toolkit.MAX_READ_CHARS})
        except _toolkit.ToolFailure as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        text = data["content"]
        if data["truncated"]:
            text += f"\n\n[truncated at {len(text)} of {data['chars']} characters: use the read tool with offset]"
        return text


def _cursor(cursor: str | None, total: int) -> int:
    """Where a page starts: only a cursor this server handed out (a decimal offset inside the list)."""
    if cursor is None:
        return 0
    if not _CURSOR.fullmatch(cursor) or int(cursor) >= total:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor[:40]!r}: pass the nextCursor of the previous "
                                             "page, or none for the first")
    return int(cursor)


def _one_page(params: Any) -> None:
    """A list of one page takes no cursor: any cursor is one this server never handed out."""
    cursor = getattr(params, "cursor", None) if params is not None else None
    if cursor is not None:
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {str(cursor)[:40]!r}: this list has one page")


def _answering(handler: Callable[..., Any]) -> Callable[..., Any]:
    """A handler whose every failure is a JSON-RPC error with a code: ours as raised (-32602 for a bad
    argument), a bug as -32603 with one line (the traceback goes to stderr, never to the client)."""
    import functools

    @functools.wraps(handler)
    async def answer(ctx: Any, params: Any) -> Any:
        try:
            return await handler(ctx, params)
        except MCPError:
            raise
        except Exception as exc:  # noqa: BLE001 - the SDK would answer code 0 with the exception's text
            import traceback

            traceback.print_exc(file=sys.stderr)
            raise MCPError(types.INTERNAL_ERROR, f"internal error ({type(exc).__name__}); the server is still up") from None

    return answer


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=neutralise(message))], is_error=True)


def _annotations(tool: _toolkit.Tool) -> types.ToolAnnotations:
    return types.ToolAnnotations(title=tool.title, read_only_hint=not tool.writes,
                                 destructive_hint=tool.name == "memory_forget",
                                 idempotent_hint=tool.name in ("journal_open",) or not tool.writes,
                                 open_world_hint=False)


def build(session: Session) -> Server:
    """The SDK server with our handlers."""

    @_answering
    async def list_tools(ctx, params) -> types.ListToolsResult:
        _one_page(params)
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.schema,
                       output_schema=t.output, annotations=_annotations(t))
            for t in _tools.TOOLS
        ])

    @_answering
    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool, args = session.check(params.name, params.arguments)
        host = session.host_for(getattr(ctx, "request", None))
        return await anyio.to_thread.run_sync(session.run, tool, args, host)

    @_answering
    async def list_resources(ctx, params) -> types.ListResourcesResult:
        cursor = getattr(params, "cursor", None) if params is not None else None
        rows, nxt = await anyio.to_thread.run_sync(session.resources, cursor)
        return types.ListResourcesResult(resources=rows, next_cursor=nxt)

    @_answering
    async def list_templates(ctx, params) -> types.ListResourceTemplatesResult:
        _one_page(params)
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(name="concept", uri_template=session.uri("") + "{+id}", mime_type="text/markdown",
                                   description="One concept's Markdown source by id (e.g. glossary/okf)."),
        ])

    @_answering
    async def read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = await anyio.to_thread.run_sync(session.read, uri)
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)])

    return Server(
        "okfpro", version=__version__, title="okfpro workspace", instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: _tools.BY_NAME[name].schema if name in _tools.BY_NAME else None,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_list_resource_templates=list_templates, on_read_resource=read_resource,
    )


async def serve_stdio(session: Session) -> None:
    from mcp.server.stdio import stdio_server

    server = build(session)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(_answering_garbage(read_stream, write_stream), write_stream,
                         server.create_initialization_options())


class _answering_garbage:  # noqa: N801 - a stream, named for what it adds
    """The SDK's stdio reader hands on a line it cannot parse as an exception, which the server
    loop only logs: the peer would wait forever.  This relay answers such a line with a JSON-RPC
    error (-32700 for text that is not JSON, -32600 for JSON that is not a valid message; ``id``
    null, as the spec says when the id cannot be read) and passes everything else through."""

    def __init__(self, inner, writer) -> None:
        self.inner = inner
        self.writer = writer

    def __aiter__(self):
        return self

    async def __anext__(self):
        return await self._next(self.inner.__anext__)

    async def receive(self):
        return await self._next(self.inner.receive)

    async def _next(self, get):
        while True:
            item = await get()
            if not isinstance(item, Exception):
                return item
            await self._answer(item)

    async def _answer(self, exc: Exception) -> None:
        from mcp.shared.message import SessionMessage

        text = str(exc)
        code = types.PARSE_ERROR if "json_invalid" in text or "Invalid JSON" in text else types.INVALID_REQUEST
        message = "Parse error: not JSON" if code == types.PARSE_ERROR else "Invalid Request: not a JSON-RPC 2.0 message"
        await self.writer.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None,
                                                                 error=types.ErrorData(code=code, message=message))))

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    async def __aenter__(self):
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)
