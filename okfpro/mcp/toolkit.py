"""The MCP tools' plumbing: what every tool of :mod:`okfpro.mcp.tools` is built from.

* Sizing — the default and maximum rows, characters and text lengths one answer may carry.
* :class:`Tool` (a row of the table) and :class:`Host` (what the server knows that a tool argument
  may not change: the bundle, the workspace, the scope), and the two failures a tool raises:
  :class:`ToolFailure` (a tool error the model reads) and :class:`InvalidArgument` (a JSON-RPC
  invalid-params error).
* Arguments and paging — :func:`page` (``offset``/``limit`` and the ``truncated``, ``total``,
  ``next_offset`` markers), :func:`findings_page`, :func:`project_rows` (``fields``/``except``),
  :func:`cut_lists`, :func:`row_filter_of` (the CLI's row filters).
* Schemas — the input schema's pieces (:func:`input_schema` with ``additionalProperties: false``,
  :data:`LIMIT`, :data:`OFFSET`, :func:`text_arg`, :func:`id_arg`, …) and the output schema's
  (:func:`paged_schema`, :func:`object_schema`, the JSON types).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from okfpro.core.record import Value

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


def today_or_fail():
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


def project_rows(rows: list[dict[str, Any]], args: dict[str, Any], known: tuple[str, ...]) -> list[dict[str, Any]]:
    """``fields`` keeps only those row fields, ``except`` drops those (the CLI's --fields/--except)."""
    fields, dropped = args.get("fields"), args.get("except")
    if fields and dropped:
        raise InvalidArgument("fields and except are mutually exclusive")
    if fields:
        return [{f: r.get(f) for f in fields} for r in rows]
    if dropped:
        return [{k: v for k, v in r.items() if k not in dropped} for r in rows]
    return rows


def cut_lists(rows: list[dict[str, Any]], key: str, n: int) -> None:
    """At most ``n`` items of each row's list ``key``; ``<key>_truncated`` says how many were left out."""
    for r in rows:
        items = r.get(key)
        if isinstance(items, list) and len(items) > n:
            r[key] = items[:n]
            r[f"{key}_truncated"] = len(items) - n


def row_filter_of(host: Host, args: dict[str, Any]):
    """The CLI's row filters (type, dir, tag, status, trust) over catalog rows (okfpro.core.views.row_filter)."""
    from okfpro.core import views as _views

    return _views.row_filter(host.bundle(), *(args.get(k) for k in ("type", "dir", "tag", "status", "trust")))


def input_schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


LIMIT = {"type": "integer", "minimum": 0, "maximum": MAX_ROWS,
         "description": f"At most this many rows (default {DEFAULT_ROWS}; 0 = up to {MAX_ROWS})."}


def limit_arg(default: int) -> dict[str, Any]:
    return {**LIMIT, "description": f"At most this many rows (default {default}; 0 = up to {MAX_ROWS})."}


OFFSET = {"type": "integer", "minimum": 0, "description": "Skip this many rows first (use next_offset of the previous answer)."}


def text_arg(desc: str, max_len: int = MAX_TEXT) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_len, "description": desc}


def id_arg(desc: str) -> dict[str, Any]:
    """A concept id or path: no NUL, no backslash (an argument error, not a refusal)."""
    return {**text_arg(desc, 1000), "pattern": "^[^\\x00\\\\]*$"}


def fields_arg(known: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "enum": list(known)}, "maxItems": len(known),
            "description": "Keep only these row fields."}


def except_arg(known: tuple[str, ...]) -> dict[str, Any]:
    return {**fields_arg(known), "description": "Drop these row fields (not with fields)."}


# the CLI's row filters as arguments (row_filter_of applies them)
FILTERS = {
    "type": text_arg("Only concepts of this type (case-insensitive), e.g. 'Decision'.", 200),
    "dir": text_arg("Only concepts in this directory and below ('.' = the root only).", 500),
    "tag": text_arg("Only concepts carrying this tag (case-insensitive).", 200),
    "status": text_arg("Only concepts whose effective status is this.", 100),
    "trust": text_arg("Only concepts of this trust tier.", 100),
}

CONCEPTS_LIMIT = {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                   "description": f"At most this many concept ids per row (default {LIST_CUT})."}


def findings_page(report: dict[str, Any], key: str, args: dict[str, Any], default: int = 50) -> dict[str, Any]:
    rows, marks = page(report[key], args, default=default)
    out = dict(report)
    out[key] = rows
    out[f"{key}_total"] = marks["total"]
    out["truncated"] = out.get("truncated", False) or marks["truncated"]
    if marks["truncated"]:
        out["next_offset"] = marks.get("next_offset")
    return out


# output schemas: the top-level keys and their types; rows stay open objects (fields/except project them)
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
STRING = {"type": "string"}
STRINGS = {"type": "array", "items": {"type": "string"}}
ARRAY = {"type": "array"}
ROWS = {"type": "array", "items": {"type": "object"}}
OBJECT = {"type": "object"}
MARKS = {"count": INT, "total": INT, "offset": INT, "truncated": BOOL, "next_offset": INT}


def object_schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def paged_schema(rows: str, required: tuple[str, ...] | None = None, **extra: Any) -> dict[str, Any]:
    """A paged answer: the markers, the rows under ``rows``, and ``extra`` top-level keys."""
    need = ("count", "total", "offset", "truncated", rows) if required is None else required
    return object_schema({**MARKS, rows: ROWS, **extra}, need)
