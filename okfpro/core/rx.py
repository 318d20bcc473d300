"""Regular expressions for the per-event paths, without importing :mod:`re`.

``import re`` costs ~26 M instructions (callgrind; ``python -c pass`` is 38 M), most of it ``enum``
for ``re.RegexFlag``, and ``re.compile`` runs the stdlib's parser and compiler in Python: a
``memory remember`` compiled 45 patterns for another ~18 M.  Together about a third of what
okfpro itself does in such a process (.okf/design/precompiled-patterns.md).

The matcher is the C module ``_sre``.  ``_sre.compile`` builds a pattern from what the stdlib's
compiler hands it (the pattern's code words, its group count and group names), so that *recipe*
can be kept: the shell (:mod:`okfpro.io.rxcache`) gives this module the recipes an earlier process
recorded, before any module compiles its patterns, and :func:`compile` then builds each pattern
with ``_sre`` alone.  A pattern without a recipe is compiled by :mod:`re` (imported then, not
before); :func:`recipe` captures what the stdlib's compiler passed to ``_sre`` and keeps it only if
the pattern it builds compares equal to ``re.compile``'s (CPython compares patterns by their
string, flags and code words).

The patterns are the very objects ``re.compile`` returns: matching, ``split``, ``finditer`` and
``sub`` with a function or a literal replacement run in C.  A replacement template with a
backslash and ``Match.expand`` make ``_sre`` import :mod:`re`; the hot paths use neither.

Only literal patterns of okfpro's code belong here: a pattern built from user text (a search
term) is compiled with ``remember=False``, so that no recipe of it is kept.
"""

from __future__ import annotations

import _sre

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and re are what this module keeps off the hot paths
    import re
    from typing import Any, Iterator

    Key = tuple[str | bytes, int]  # (pattern, flags)
    Recipe = tuple[Any, ...]  # what _sre.compile takes after the pattern

# re.RegexFlag's values (the ints _sre takes): stable across CPython versions
I = IGNORECASE = 2
M = MULTILINE = 8
S = DOTALL = 16
U = UNICODE = 32
X = VERBOSE = 64
A = ASCII = 256

_recipes: dict[Key, Recipe] = {}  # what rxcache loaded: key -> the arguments _sre.compile takes after the pattern
_live: dict[Key, re.Pattern[Any]] = {}  # this process's compiled patterns
_missed: set[Key] = set()  # compiled by re: their recipes are worth keeping


def use(recipes: dict[Key, Recipe]) -> None:
    """Take the recipes the shell loaded (called before the core modules compile anything)."""
    _recipes.update(recipes)


def missed() -> list[Key]:
    """The literal patterns this process compiled with :mod:`re` (no recipe was given)."""
    return sorted(_missed, key=repr)


def recipes() -> dict[Key, Recipe]:
    return dict(_recipes)


def used() -> list[Key]:
    """The literal patterns this process compiled (from a recipe or with :mod:`re`)."""
    return list(_live)


def compile(pattern: str | bytes, flags: int = 0, remember: bool = True) -> re.Pattern[Any]:
    """``re.compile(pattern, flags)``, built from a recipe when there is one."""
    key = (pattern, flags)
    got: re.Pattern[Any] | None = _live.get(key)
    if got is not None:
        return got
    args = _recipes.get(key)
    if args is not None:
        try:
            got = _sre.compile(pattern, *args)
        except Exception:  # noqa: BLE001 - a recipe this interpreter refuses: the stdlib compiles it
            got = None
    if got is None:
        import re

        got = re.compile(pattern, flags)
        if remember:
            _missed.add(key)
    if remember:
        _live[key] = got
    return got


def recipe(pattern: str | bytes, flags: int = 0) -> Recipe | None:
    """The arguments the stdlib's compiler passes to ``_sre.compile`` after ``pattern``, or None
    when they cannot be captured or do not rebuild the same pattern."""
    import re
    from re import _compiler  # type: ignore[attr-defined]  # the stdlib's own compiler (3.11+), not in the stubs

    seen: list[tuple[Any, ...]] = []
    real = _compiler._sre

    class Spy:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        @staticmethod
        def compile(*args: Any) -> Any:
            seen.append(args)
            return real.compile(*args)

    _compiler._sre = Spy()
    try:
        _compiler.compile(pattern, flags)
    except Exception:  # noqa: BLE001 - not a pattern we can keep
        return None
    finally:
        _compiler._sre = real
    if len(seen) != 1 or type(seen[0][0]) is not type(pattern) or seen[0][0] != pattern:
        return None
    try:  # plain ints, dicts and tuples (the compiler's opcodes are int subclasses): what marshal keeps
        flags_, code, groups, groupindex, indexgroup = seen[0][1:]
        args = (int(flags_), [int(word) for word in code], int(groups),
                {str(name): int(at) for name, at in dict(groupindex).items()}, tuple(indexgroup))
    except (TypeError, ValueError):
        return None
    try:
        if real.compile(pattern, *args) != re.compile(pattern, flags):
            return None
    except Exception:  # noqa: BLE001
        return None
    return args


# The same call shapes as the re module's functions, through this module's patterns.
def search(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return compile(pattern, flags).search(string)


def match(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return compile(pattern, flags).match(string)


def fullmatch(pattern: str, string: str, flags: int = 0) -> re.Match[str] | None:
    return compile(pattern, flags).fullmatch(string)


def sub(pattern: str, repl: Any, string: str, count: int = 0, flags: int = 0) -> str:
    out: str = compile(pattern, flags).sub(repl, string, count)
    return out


def split(pattern: str, string: str, maxsplit: int = 0, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).split(string, maxsplit)


def findall(pattern: str, string: str, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).findall(string)


def finditer(pattern: str, string: str, flags: int = 0) -> Iterator[re.Match[str]]:
    return compile(pattern, flags).finditer(string)


_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: str) -> str:
    """``re.escape`` for text (the same characters escaped; pinned by tests/test_rx.py)."""
    return text.translate(_SPECIAL)
