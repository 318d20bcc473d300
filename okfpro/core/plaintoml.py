"""The plain ``okfpro.toml`` read without ``tomllib``, or declined.

Every hook event and every memory verb is a fresh process that reads the workspace's
``okfpro.toml``; ``import tomllib`` costs ~36 M instructions there (its parser, and the ``typing``
module it imports: ``.okf/design/lean-memory-verbs.md``), about a quarter of a ``remember``.
The file ``okfpro init`` writes, and most hand-edited ones, use a small part of TOML: ``[table]``
headers and ``key = value`` lines whose value is a basic string without escapes, a decimal
integer or float, a boolean, or a one-line array of those, with comments.  :func:`load` reads
exactly that part and returns ``None`` for anything else — another construct, a duplicate key or
table, a control character, a lone CR — which the caller hands to ``tomllib`` (whose answer, or
error, is then the answer).  ``tests/test_plaintoml.py`` holds it to ``tomllib``: whatever it
accepts, ``tomllib.loads`` gives the same data.

Pure: text in, data out.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEY = r"[A-Za-z0-9_-]+"
_COMMENT = r"(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
_STRING = r'"[^"\\\x00-\x08\x0a-\x1f\x7f]*"'
_INT = r"[-+]?(?:0|[1-9][0-9]*)"
_FLOAT = r"[-+]?(?:0|[1-9][0-9]*)\.[0-9]+"
_SCALAR = rf"(?:{_STRING}|{_FLOAT}|{_INT}|true|false)"
_WS = r"[ \t]*"
_ARRAY = rf"\[{_WS}(?:{_SCALAR}{_WS}(?:,{_WS}{_SCALAR}{_WS})*(?:,{_WS})?)?\]"
_TABLE_LINE = re.compile(rf"{_WS}\[{_WS}({_KEY}){_WS}\]{_WS}{_COMMENT}")
_KEY_LINE = re.compile(rf"{_WS}({_KEY}){_WS}={_WS}({_SCALAR}|{_ARRAY}){_WS}{_COMMENT}")
_BLANK_LINE = re.compile(rf"{_WS}{_COMMENT}")
_ITEM = re.compile(rf"{_WS}({_SCALAR}){_WS},?")


def _scalar(text: str) -> Any:
    if text[0] == '"':
        return text[1:-1]
    if text == "true":
        return True
    if text == "false":
        return False
    if "." in text:
        return float(text)
    return int(text)


def _value(text: str) -> Any:
    if text[0] != "[":
        return _scalar(text)
    return [_scalar(m.group(1)) for m in _ITEM.finditer(text, 1, len(text) - 1)]


def load(text: str) -> dict[str, Any] | None:
    """The data of ``text`` when it is plain TOML (see the module), else ``None``."""
    if "\r" in text:
        return None  # CRLF is TOML too, but a lone CR is an error: leave both to tomllib
    root: dict[str, Any] = {}
    table = root
    for line in text.split("\n"):
        m = _KEY_LINE.fullmatch(line)
        if m is not None:
            key = m.group(1)
            if key in table:
                return None  # a duplicate key: tomllib refuses it
            table[key] = _value(m.group(2))
            continue
        m = _TABLE_LINE.fullmatch(line)
        if m is not None:
            name = m.group(1)
            if name in root:
                return None  # a table defined twice, or over a key: tomllib refuses it
            table = root[name] = {}
            continue
        if _BLANK_LINE.fullmatch(line) is None:
            return None
    return root
