"""What every check of one event shares: the event, today, the bundles it touches.

Everything is computed lazily and at most once per event: the edited file's
bundle (``target``), the session's bundle (``enclosing``), one bundle read per
root, today's date.  (The memory checks find their workspace through the memory door.)
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    import datetime as _dt
    from typing import Any

from okfpro.core.event import Event


class Ctx:
    """What every check of one event shares: the event, today, one bundle read per root."""

    def __init__(self, event: Event, today: _dt.date | None = None) -> None:
        self.event = event
        self._today = today  # read lazily: a check that needs no date never imports datetime
        self._bundles: dict[str, Any] = {}
        self._target: Any = ...
        self._enclosing: Any = ...
        self.notes: list[str] = []  # stderr notes (a feedback check that crashed and was skipped)
        self.memo: dict[Any, Any] = {}  # what several checks of this event share (post-edit's analysis)

    @property
    def today(self) -> _dt.date:
        if self._today is None:
            from okfpro.io.clock import today as _today

            self._today = _today()
        return self._today

    @property
    def today_s(self) -> str:
        return self.today.isoformat()

    # the edited file's bundle ------------------------------------------
    def targets(self) -> list[tuple[str, str]]:
        """Every ``(root, rel)`` the edited file is, as Markdown inside a bundle: the real file first.

        A guard decides on the file the write lands in, not on the spelling of its path:
        the path is read against the event's ``cwd``, then resolved (symlinked files and
        directories, ``..``, doubled slashes).  The spelled path is kept as a second
        candidate when it names a different bundle file (a link inside the bundle that
        points out of it).  ``rel`` keeps the file's spelling; the guards match it
        case-insensitively, so a case variant on a case-insensitive disk meets them too.
        """
        if self._target is ...:
            self._target = self._find_targets()
        return self._target

    def target(self) -> tuple[str, str] | None:
        """The real file's ``(root, rel)`` when it is Markdown inside a bundle, else the spelled one, else None."""
        found = self.targets()
        return found[0] if found else None

    def _find_targets(self) -> list[tuple[str, str]]:
        path = self.event.file_path
        if not path:
            return []
        out: list[tuple[str, str]] = []
        for spelling in (os.path.realpath(path), os.path.normpath(path)):
            found = _bundle_file(spelling)
            if found is not None and found not in out:
                out.append(found)
        if not out:
            out.extend(self._hard_links(path))
        return out

    def _hard_links(self, path: str) -> list[tuple[str, str]]:
        """A file outside every bundle that shares its inode with a file of the session's bundle is that file."""
        try:
            st = os.stat(path)
        except OSError:
            return []
        if st.st_nlink < 2:
            return []
        root = self.enclosing()
        if root is None:
            return []
        out = []
        for base, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                full = os.path.join(base, name)
                try:
                    other = os.lstat(full)
                except OSError:
                    continue
                if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                    found = _bundle_file(full)
                    if found is not None:
                        out.append(found)
        return out

    # the session's bundle ----------------------------------------------
    def enclosing(self) -> str | None:
        if self._enclosing is ...:
            from okfpro.io.roots import enclosing

            root = enclosing(self.event.cwd)
            self._enclosing = os.fspath(root) if root is not None else None
        return self._enclosing

    def memory_door(self) -> Any:
        """The memory door of the event's workspace (:func:`okfpro.memory.door.open_door` from
        ``cwd``), opened once per event; an unreadable ``okfpro.toml`` raises ``DoorError`` each time."""
        if "memory-door" not in self.memo:
            from okfpro.memory.door import DoorError, open_door

            try:
                self.memo["memory-door"] = open_door(self.event.cwd, self.event)
            except DoorError as exc:
                self.memo["memory-door"] = exc
        door = self.memo["memory-door"]
        if isinstance(door, BaseException):
            raise door
        return door

    def bundle(self, root: str) -> Any:
        if root not in self._bundles:
            from okfpro.io.bundle import load

            self._bundles[root] = load(root)
        return self._bundles[root]


def _bundle_file(path: str) -> tuple[str, str] | None:
    """``(root, rel)`` when ``path`` is a Markdown file (any case) in a bundle's visible tree."""
    from okfpro.io.roots import containing

    root = containing(path)
    if root is None:
        return None
    root_s = os.fspath(root)
    rel = os.path.relpath(path, root_s)
    if rel.startswith("..") or os.path.isabs(rel):
        return None
    rel = rel.replace(os.sep, "/")
    if not rel.lower().endswith(".md"):
        return None
    if any(seg.startswith(".") for seg in rel.split("/")):
        return None
    return root_s, rel
