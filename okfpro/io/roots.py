"""Finding the bundle a command, a shell or a file belongs to.

Three questions, three functions (the reference's ``BundleRoot``):

* :func:`resolve` — a verb was given DIR: ``DIR/.okf`` if it holds ``index.md``,
  else ``DIR`` if it does, else nothing.
* :func:`enclosing` — which bundle is the session in?  Walk up from the working
  directory to the Git repository's root, probing ``<level>/.okf`` before the
  level itself.  A *strong* or *anchored* root wins at once; otherwise the
  outermost *weak* one inside the fence.  Outside a repository only the starting
  level is looked at.
* :func:`containing` — which bundle holds this file?  The same walk from the
  file's directory, never probing a sibling ``.okf`` (a root that does not
  contain the file is not its root); outside a repository the nearest weak
  root wins.

Root kinds: *strong* — ``index.md`` opens with a complete frontmatter block
(closing fence within its first 101 lines) holding an ``okf_version:`` line;
*weak* — ``index.md`` plus ``board.md`` or ``log.md``; a weak root in a directory
named ``.okf`` is *anchored*.
"""

from __future__ import annotations

import os
import re


_FENCE = re.compile(r"\A---[ \t]*\Z")
_VERSION_LINE = re.compile(r"\Aokf_version[ \t]*:")

# Paths are strings here (``os.path``): every hook asks this module first, and ``pathlib``
# imports ``urllib.parse`` and ``ipaddress``, which a PreToolUse process has no other use for.
# Callers that want a ``Path`` wrap the answer.


def root_kind(directory: str | os.PathLike) -> str | None:
    """``"strong"``, ``"anchored"``, ``"weak"`` or None for a directory."""
    d = os.fspath(directory)
    index = os.path.join(d, "index.md")
    if not os.path.isfile(index):
        return None
    if _declares_version(index):
        return "strong"
    if os.path.isfile(os.path.join(d, "board.md")) or os.path.isfile(os.path.join(d, "log.md")):
        return "anchored" if os.path.basename(d.rstrip(os.sep)) == ".okf" else "weak"
    return None


def _declares_version(index: str) -> bool:
    try:
        with open(index, "rb") as handle:
            head = handle.read(64 * 1024)
    except OSError:
        return False
    lines = head.decode("utf-8", errors="replace").split("\n")
    if not lines or not _FENCE.match(lines[0]):
        return False
    has_version = False
    for line in lines[1:102]:
        if _FENCE.match(line):
            return has_version
        if _VERSION_LINE.match(line):
            has_version = True
    return False


def resolve(start: str | os.PathLike) -> str | None:
    base = os.fspath(start)
    nested = os.path.join(base, ".okf")
    if os.path.isfile(os.path.join(nested, "index.md")):
        return nested
    if os.path.isfile(os.path.join(base, "index.md")):
        return base
    return None


def _levels(start: str) -> list[str]:
    """``start`` and its ancestors, nearest first (``start`` is absolute and normalised)."""
    out = [start]
    while True:
        parent = os.path.dirname(out[-1])
        if parent == out[-1]:
            return out
        out.append(parent)


def git_fence(start: str | os.PathLike) -> str | None:
    """The first ancestor (inclusive) of ``start`` holding a ``.git`` file or directory (absolute)."""
    for level in _levels(os.path.abspath(start)):
        if os.path.exists(os.path.join(level, ".git")):
            return level
    return None


def _walk(start: str, probe_nested: bool) -> str | None:
    fence = git_fence(start)
    if fence is None:
        levels = [start] if probe_nested else _levels(start)
    else:
        levels = []
        for level in _levels(start):
            levels.append(level)
            if level == fence:
                break
    outermost_weak: str | None = None
    for level in levels:
        candidates = [os.path.join(level, ".okf"), level] if probe_nested else [level]
        for cand in candidates:
            kind = root_kind(cand)
            if kind in ("strong", "anchored"):
                return cand
            if kind == "weak":
                if fence is None and not probe_nested:
                    return cand  # unfenced file walk: nearest weak wins
                outermost_weak = cand
    return outermost_weak


def enclosing(cwd: str | os.PathLike) -> str | None:
    return _walk(os.path.abspath(cwd), probe_nested=True)


def containing(file_path: str | os.PathLike) -> str | None:
    return _walk(os.path.dirname(os.path.abspath(file_path)), probe_nested=False)


def within(path: str, base: str) -> bool:
    """Is ``path`` ``base`` or below it?  Both spelled alike (both real, or both absolute and
    normalised): a string comparison, component-wise (``/a/bc`` is not below ``/a/b``)."""
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def repo_of(bundle_root: str | os.PathLike) -> str:
    """The workspace a bundle belongs to: the parent of ``.okf``, else the root itself."""
    root = os.fspath(bundle_root).rstrip(os.sep) or os.sep
    return (os.path.dirname(root) or ".") if os.path.basename(root) == ".okf" else root
