"""A fast path for the frontmatter most bundles actually hold.

PyYAML builds Python objects in Python even with libyaml underneath, and at
10,000 concepts that dominates a cold read.  Nearly all frontmatter is a small
block of ``key: scalar`` lines, one-level nested mappings, block lists (of
scalars or small mappings) and simple flow lists.  :func:`load` parses exactly
that subset and returns ``None`` for anything else, so the caller falls back to
the full safe loader.  Scalars are resolved with PyYAML's own implicit-resolver
table, so ``no`` is still ``False`` and ``0.2`` still a float; a test compares
this path with the full loader on every frontmatter in the conformance corpus.
"""

from __future__ import annotations

import datetime as _dt
import re


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, NoReturn

# PyYAML's implicit-resolver table and booleans, read by the first load(): a process served by
# the parse cache parses no frontmatter and never imports PyYAML (a prompt hook's import path).
_RESOLVERS: dict[str, list[tuple[str, Any]]] = {}
_BOOLS: dict[str, bool] = {}

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?\Z")
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?\Z")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_BAD_FIRST = set("\0\t\r\n\x85\u2028\u2029-?:,[]{}#&*!|>'\"%@`")
_FLOW_BAD = set(",[]{}")


_MAX_INDENT = 40  # deeper frontmatter goes to the full loader, which bounds nesting depth


class _Bail(Exception):
    pass


def _scalar(text: str, flow: bool = False) -> object:
    v = text.strip()
    if v == "" or v == "~":
        return None if not flow or v == "~" else _bail()
    first = v[0]
    if first == '"':
        if len(v) < 2 or not v.endswith('"') or "\\" in v or '"' in v[1:-1]:
            _bail()
        return v[1:-1]
    if first == "'":
        if len(v) < 2 or not v.endswith("'") or "'" in v[1:-1]:
            _bail()
        return v[1:-1]
    if first in _BAD_FIRST:
        _bail()
    if ": " in v or v.endswith(":") or " #" in v or "\t" in v:
        _bail()
    if flow and any(ch in _FLOW_BAD for ch in v):
        _bail()
    for tag, regexp in _RESOLVERS.get(first, ()):
        if regexp.match(v):
            return _construct(tag, v)
    return v


def _construct(tag: str, v: str) -> object:
    kind = tag.rsplit(":", 1)[-1]
    if kind == "null":
        return None
    if kind == "bool":
        return _BOOLS[v.lower()]
    if kind == "int":
        if len(v) > 4000:  # near the interpreter's int <-> str limit: the full loader decides
            _bail()
        if _INT.match(v) and not v.lstrip("+-").startswith("0") or v.lstrip("+-") == "0":
            return int(v.replace("_", ""))
        _bail()
    if kind == "float":
        if _FLOAT.match(v) and any(ch.isdigit() for ch in v):
            return float(v.replace("_", ""))
        _bail()
    if kind == "timestamp":
        m = _DATE.match(v)
        if not m:
            _bail()
        try:
            return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return v
    _bail()
    return None


def _bail() -> NoReturn:
    raise _Bail


def _flow_list(v: str) -> list[object]:
    inner = v[1:-1].strip()
    if not inner:
        return []
    items = inner.split(",")
    if items[-1].strip() == "":
        items = items[:-1]
    out = []
    for item in items:
        if not item.strip():
            _bail()
        out.append(_scalar(item, flow=True))
    return out


def _value(v: str) -> object:
    s = v.strip()
    if s.startswith("["):
        if not s.endswith("]") or s.count("[") != 1 or s.count("]") != 1 or "{" in s or '"' in s or "'" in s:
            _bail()
        return _flow_list(s)
    if s.startswith("{"):
        _bail()
    return _scalar(s)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str], i: int, indent: int) -> tuple[object, int]:
    """Parse the block starting at lines[i] with exactly ``indent`` spaces."""
    line = lines[i]
    body = line[indent:]
    if body.startswith("- ") or body == "-":
        return _seq(lines, i, indent)
    return _map(lines, i, indent)


def _map(lines: list[str], i: int, indent: int) -> tuple[dict[str, object], int]:
    out: dict[str, object] = {}
    n = len(lines)
    while i < n:
        line = lines[i]
        ind = _indent(line)
        if ind < indent:
            break
        if ind > indent:
            _bail()
        m = _KEY_LINE.match(line[indent:])
        if not m:
            _bail()
        key, rest = m.group(1), m.group(2)
        if rest is not None and rest.strip():
            out[key] = _value(rest)
            i += 1
            continue
        i += 1
        if i < n:
            child = _indent(lines[i])
            body = lines[i][child:]
            if child > indent or (child == indent and (body.startswith("- ") or body == "-")):
                value, i = _block(lines, i, child)
                out[key] = value
                continue
        out[key] = None
    return out, i


def _seq(lines: list[str], i: int, indent: int) -> tuple[list[object], int]:
    out: list[object] = []
    n = len(lines)
    while i < n:
        line = lines[i]
        ind = _indent(line)
        if ind != indent:
            if ind < indent:
                break
            _bail()
        body = line[indent:]
        if not (body.startswith("- ") or body == "-"):
            break
        item = body[2:] if body.startswith("- ") else ""
        if not item.strip():
            _bail()
        km = _KEY_LINE.match(item)
        if km:
            # a mapping item: "- k: v" then continuation lines at indent + 2
            inner = indent + 2
            sub = [" " * inner + item] + []
            j = i + 1
            while j < n and _indent(lines[j]) > indent:
                sub.append(lines[j])
                j += 1
            value, k = _map(sub, 0, inner)
            if k != len(sub):
                _bail()
            out.append(value)
            i = j
            continue
        if item.lstrip().startswith("- "):
            _bail()
        out.append(_value(item))
        i += 1
        if i < n and _indent(lines[i]) > indent:
            _bail()
    return out, i


def _tables() -> None:
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    _BOOLS.update(SafeConstructor.bool_values)
    _RESOLVERS.update(Resolver.yaml_implicit_resolvers)


def load(text: str) -> dict[str, object] | None:
    """The parsed mapping, or None when the text is outside the fast subset."""
    if not _RESOLVERS:
        _tables()
    if "\t" in text or "\r" in text or "&" in text or "*" in text or "!" in text or "|" in text or ">" in text:
        return None
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#") or stripped.startswith("---") or stripped.startswith("..."):
            return None
        lines.append(line.rstrip(" "))
    if not lines:
        return None
    if _indent(lines[0]) != 0 or max(_indent(line) for line in lines) > _MAX_INDENT:
        return None
    try:
        value, i = _map(lines, 0, 0)
    except (_Bail, RecursionError, KeyError):
        return None
    if i != len(lines):
        return None
    return value
