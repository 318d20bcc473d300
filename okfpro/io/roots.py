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
from pathlib import Path

_FENCE = re.compile(r"\A---[ \t]*\Z")
_VERSION_LINE = re.compile(r"\Aokf_version[ \t]*:")


def root_kind(directory: str | os.PathLike) -> str | None:
    """``"strong"``, ``"anchored"``, ``"weak"`` or None for a directory."""
    d = Path(directory)
    index = d / "index.md"
    if not index.is_file():
        return None
    if _declares_version(index):
        return "strong"
    if (d / "board.md").is_file() or (d / "log.md").is_file():
        return "anchored" if d.name == ".okf" else "weak"
    return None


def _declares_version(index: Path) -> bool:
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


def resolve(start: str | os.PathLike) -> Path | None:
    base = Path(start)
    nested = base / ".okf"
    if (nested / "index.md").is_file():
        return nested
    if (base / "index.md").is_file():
        return base
    return None


def git_fence(start: Path) -> Path | None:
    """The first ancestor (inclusive) holding a ``.git`` file or directory."""
    for level in (start, *start.parents):
        if (level / ".git").exists():
            return level
    return None


def _walk(start: Path, probe_nested: bool) -> Path | None:
    fence = git_fence(start)
    if fence is None:
        levels = [start] if probe_nested else [start, *start.parents]
    else:
        levels = []
        for level in (start, *start.parents):
            levels.append(level)
            if level == fence:
                break
    outermost_weak: Path | None = None
    for level in levels:
        candidates = [level / ".okf", level] if probe_nested else [level]
        for cand in candidates:
            kind = root_kind(cand)
            if kind in ("strong", "anchored"):
                return cand
            if kind == "weak":
                if fence is None and not probe_nested:
                    return cand  # unfenced file walk: nearest weak wins
                outermost_weak = cand
    return outermost_weak


def enclosing(cwd: str | os.PathLike) -> Path | None:
    start = Path(os.path.abspath(cwd))
    return _walk(start, probe_nested=True)


def containing(file_path: str | os.PathLike) -> Path | None:
    start = Path(os.path.abspath(file_path)).parent
    return _walk(start, probe_nested=False)


def repo_of(bundle_root: Path) -> Path:
    """The workspace a bundle belongs to: the parent of ``.okf``, else the root itself."""
    return bundle_root.parent if bundle_root.name == ".okf" else bundle_root
