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

from okfpro.core import rx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Small patterns, scanned by hand between them: compiling one pattern for a whole line cost ~8 M
# instructions per process (re's compiler is Python), more than the rest of the read.
_BARE = rx.compile(r"[A-Za-z0-9_-]+")
_NUMBER = rx.compile(r"[-+]?(?:0|[1-9][0-9]*)(\.[0-9]+)?")
_STRING = rx.compile(r'"[^"\\\x00-\x08\x0a-\x1f\x7f]*"')
_END = rx.compile(r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")  # what may close a line: spaces, a comment


class _Declined(Exception):
    pass


def _space(line: str, i: int) -> int:
    while i < len(line) and line[i] in " \t":
        i += 1
    return i


def _scalar(line: str, i: int) -> tuple[Any, int]:
    """The scalar at ``i`` and where it ends."""
    if line.startswith('"', i):
        m = _STRING.match(line, i)
        if m is None:
            raise _Declined
        return m.group()[1:-1], m.end()
    for word, value in (("true", True), ("false", False)):
        if line.startswith(word, i):
            return value, i + len(word)
    m = _NUMBER.match(line, i)
    if m is None:
        raise _Declined
    return (float(m.group()) if m.group(1) else int(m.group())), m.end()


def _value(line: str, i: int) -> tuple[Any, int]:
    """The value (a scalar or a one-line array of scalars) at ``i`` and where it ends."""
    if not line.startswith("[", i):
        return _scalar(line, i)
    items: list[Any] = []
    i = _space(line, i + 1)
    while not line.startswith("]", i):
        item, i = _scalar(line, i)
        items.append(item)
        i = _space(line, i)
        if line.startswith(",", i):
            i = _space(line, i + 1)
        elif not line.startswith("]", i):
            raise _Declined
    return items, i + 1


def load(text: str) -> dict[str, Any] | None:
    """The data of ``text`` when it is plain TOML (see the module), else ``None``."""
    if "\r" in text:
        return None  # CRLF is TOML too, but a lone CR is an error: leave both to tomllib
    root: dict[str, Any] = {}
    table = root
    try:
        for line in text.split("\n"):
            i = _space(line, 0)
            if line.startswith("[", i):  # a table: [name]
                m = _BARE.match(line, _space(line, i + 1))
                if m is None:
                    return None
                i = _space(line, m.end())
                if not line.startswith("]", i) or m.group() in root:
                    return None  # not a plain header; or a table defined twice, or over a key
                table = root[m.group()] = {}
                i += 1
            elif (m := _BARE.match(line, i)) is not None:  # a key: name = value
                i = _space(line, m.end())
                if not line.startswith("=", i) or m.group() in table:
                    return None  # not a plain key line; or a duplicate key
                table[m.group()], i = _value(line, _space(line, i + 1))
            if _END.fullmatch(line, i) is None:
                return None
    except _Declined:
        return None
    return root
