"""Where memory lives on disk, and the guards every reader and writer of it shares.

The memory root (``[memory] root`` in okfpro.toml, default ``.okf-memory``, outside the
bundle) holds ``memory-<tier>/<scope segments>/<day>.md`` (:mod:`okfpro.core.dayfile`),
the per-scope history ``.okf-history.git`` (:mod:`okfpro.memory.history`), the lock files
``.okf-locks`` and the memory index ``.okf-index`` (:mod:`okfpro.memory.index`).

Both the store and the history import from here, so neither imports the other's module
to learn the layout (that was a cycle).  Paths are strings (``os.path``) on every writer's
path: ``pathlib`` was a tenth of a capturing Stop (.okf/design/lean-memory-verbs.md).
"""

from __future__ import annotations

import contextlib
import os
import stat

from okfpro import __version__
from okfpro.core.dayfile import MalformedConcept, interrupted_at
from okfpro.io.atomic import locked
from okfpro.io.roots import within

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Iterator

TOOL = f"okfpro/{__version__}"
LOCK_DIR = ".okf-locks"
HISTORY_DIR = ".okf-history.git"  # the per-scope history (okfpro/memory/history.py)
_IGNORE = b"# okfpro memory root (history: .okf-history.git); no enclosing repository tracks it\n*\n"


def ensure_ignored(root: str | os.PathLike) -> None:
    """Create ``root`` with a ``.gitignore`` of ``*`` before anything else goes in it.

    A workspace repository around the memory root then never lists it, even when the
    workspace's own .gitignore does not name it.  An empty directory is invisible to
    Git, and the file is created exclusively and filled by one write.
    """
    os.makedirs(root, exist_ok=True)
    try:
        fd = os.open(os.path.join(root, ".gitignore"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    try:
        os.write(fd, _IGNORE)
    finally:
        os.close(fd)

def link_problem(root: str | os.PathLike, target: str | os.PathLike) -> str | None:
    """Why ``target`` is not safely inside ``root``: a symbolic link on the way down, a
    regular file with other hard links (its content is shared with a place outside the
    scope), or an entry we cannot inspect.  ``None`` when it is fine or does not exist.
    ValueError when ``target`` is not below ``root`` at all (a caller's mistake)."""
    here = os.path.abspath(root)
    full = os.path.abspath(target)
    if not within(full, here):
        raise ValueError(f"{full} is not inside {here}")
    for part in full[len(here):].split(os.sep):
        if not part:
            continue
        here = os.path.join(here, part)
        try:
            st = os.lstat(here)
        except (FileNotFoundError, NotADirectoryError):
            return None  # not created yet: nothing below it exists either
        except OSError as exc:
            return f"cannot inspect {here} ({exc.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return f"{here} is a symbolic link"
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            return f"{here} has {st.st_nlink - 1} other hard link(s)"
    return None


class ContainmentError(OSError):
    """A path inside the memory root leads outside it (symlink or hard link)."""


@contextlib.contextmanager
def contained_lock(root: str | os.PathLike, path: str | os.PathLike, shared: bool = False) -> Iterator[None]:
    """:func:`locked` on ``path`` under ``root``, refused (:class:`ContainmentError`) when
    a component of it is a link: before taking it, and again once held."""
    problem = link_problem(root, path)
    if problem:
        raise ContainmentError(f"refusing to lock: {problem}")
    with locked(path, shared=shared):
        problem = link_problem(root, path)
        if problem:
            raise ContainmentError(f"refusing to lock: {problem}")
        yield


def resolve_memory_root(workspace: str | os.PathLike, config=None) -> tuple[str | None, str | None]:
    """The memory root of ``workspace`` and, when unusable, why (``(None, message)``).

    ``[memory] root`` in okfpro.toml (default ``.okf-memory``), relative to the
    workspace.  It must not be, contain, or lie inside the knowledge bundle directory
    (``[bundle] path``), nor contain the workspace itself.
    """
    from okfpro.io import config as config_mod

    ws = os.path.realpath(workspace)
    try:
        cfg = config if config is not None else config_mod.load(ws)
    except (config_mod.ConfigError, OSError) as exc:
        return None, str(exc)
    raw_root = cfg.get("memory", "root", ".okf-memory")
    raw_bundle = cfg.get("bundle", "path", ".okf")
    if not isinstance(raw_root, str) or not raw_root.strip():
        return None, "okfpro.toml: [memory] root must be a non-empty path"
    if not isinstance(raw_bundle, str) or not raw_bundle.strip():
        return None, "okfpro.toml: [bundle] path must be a non-empty path"
    root = os.path.realpath(os.path.join(ws, os.path.expanduser(raw_root)))
    bundle = os.path.realpath(os.path.join(ws, os.path.expanduser(raw_bundle)))
    if within(root, bundle) or within(bundle, root):
        return None, (
            f"memory root {root} overlaps the knowledge bundle {bundle}: memory must live "
            f"outside the bundle (set [memory] root in {os.path.join(ws, 'okfpro.toml')})"
        )
    if within(ws, root):
        return None, f"memory root {root} contains the workspace {ws}: choose a directory of its own"
    return root, None


def read_day_file(path: str | os.PathLike) -> tuple[bytes, os.stat_result]:
    """A day file's bytes and the stat of what was read: never through a symbolic link, never a
    FIFO or device (opened non-blocking), never a file with other hard links (its content is
    shared with a place outside the scope).  An append that never finished is left out
    (:func:`okfpro.core.dayfile.interrupted_at`).  Raises OSError or MalformedConcept."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise MalformedConcept("not a regular file; refusing to read it")
        if st.st_nlink > 1:
            raise MalformedConcept(f"it has {st.st_nlink - 1} other hard link(s) (its content is "
                                   "shared with a file outside this scope); refusing to read it")
        raw = handle.read()
    cut = interrupted_at(raw)  # an append killed half-way: not written, as far as anyone was told
    return (raw if cut is None else raw[:cut]), st
