"""A resident server's parsed bundle, never stale: revalidated on every call.

The server keeps one parsed :class:`~okfpro.core.concept.Bundle` in memory (that is
what makes a warm search fast).  Before each call it asks :meth:`Warm.bundle`, which
answers the kept bundle only if nothing under the bundle root changed since it was
read:

* **inotify** (Linux, through ``inotify_simple``, a thin ctypes wrapper): every
  directory of the bundle is watched; the call drains the queue *synchronously and
  without blocking*.  The kernel queues an event inside the write / rename / unlink
  system call, so an edit that returned before the call arrived is always seen —
  there is no watcher thread and no race window.  A queue overflow, a new directory
  or an unwatchable one marks the bundle dirty (re-read), never "clean".
* **fallback** (no inotify, or the watch limit reached): every call re-reads through
  :func:`okfpro.io.bundle.load`, whose parse cache re-parses only the files whose
  ``(size, mtime, ctime, inode)`` changed — correct, slower on large bundles.

A re-read goes through the same door as every verb (``io.bundle.load``), so the
server never answers from a second parser.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Protocol

from okfpro.core.concept import Bundle

# what changes an answer: content, names, deletions, attributes (a chmod can make a file unreadable)
_EVENTS = (
    "MODIFY", "ATTRIB", "CLOSE_WRITE", "MOVED_FROM", "MOVED_TO", "CREATE", "DELETE", "DELETE_SELF", "MOVE_SELF",
)


class _Inotify(Protocol):
    """What we use of ``inotify_simple.INotify`` (the library ships no type information)."""

    def add_watch(self, path: str, mask: int) -> int: ...
    def read(self, timeout: int | None = None) -> list[Any]: ...
    def close(self) -> None: ...


class Warm:
    """The kept bundle of one root, with its change detector."""

    def __init__(self, root: Path, *, watch: bool = True) -> None:
        self.root = Path(root)
        self._bundle: Bundle | None = None
        self._dirty = True
        self._lock = threading.Lock()
        self._inotify: _Inotify | None = None
        self._flags = 0
        self.mode = "reload-per-call"
        self.reloads = 0
        if watch:
            self._start_watch()

    # ------------------------------------------------------------------ inotify
    def _start_watch(self) -> None:
        try:
            from inotify_simple import INotify, flags
        except Exception:  # noqa: BLE001 - not Linux, or the library is absent: the fallback is correct
            return
        try:
            self._inotify = INotify(nonblocking=True)
        except OSError:
            self._inotify = None
            return
        self._flags = 0
        for name in _EVENTS:
            self._flags |= getattr(flags, name)
        self._flags |= flags.DONT_FOLLOW | flags.ONLYDIR
        self._dir_flag = flags.ISDIR
        self._overflow = flags.Q_OVERFLOW
        self._ignored = flags.IGNORED
        self._create = flags.CREATE | flags.MOVED_TO
        if not self._watch_tree(os.path.realpath(self.root)):
            self._stop_watch()
            return
        self.mode = "inotify"

    def _watch_tree(self, top: str) -> bool:
        """Watch ``top`` and every non-hidden directory below it, as the reader walks them (a
        dot-directory is outside the bundle — and ``.tmp/``, where the parse cache and the search
        index live, would otherwise wake us on our own reads).  False when a watch cannot be added."""
        inotify = self._inotify
        if inotify is None:
            return False
        try:
            inotify.add_watch(top, self._flags)
        except OSError:
            return False
        for dirpath, dirnames, _ in os.walk(top):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for d in dirnames:
                try:
                    inotify.add_watch(os.path.join(dirpath, d), self._flags)
                except OSError:
                    return False
        return True

    def _stop_watch(self) -> None:
        if self._inotify is not None:
            try:
                self._inotify.close()
            except OSError:
                pass
        self._inotify = None
        self.mode = "reload-per-call"

    def _drain(self) -> None:
        """Read every queued event without blocking; any event marks the bundle dirty."""
        inotify = self._inotify
        if inotify is None:
            return
        try:
            events = inotify.read(timeout=0)
        except OSError:
            self._stop_watch()
            self._dirty = True
            return
        for ev in events:
            if ev.mask & self._overflow:
                self._dirty = True
                continue
            if ev.name.startswith(".") or ev.mask & self._ignored and not ev.name:
                continue  # outside the bundle (the reader skips dot-names), or a watch going away
            self._dirty = True
            if ev.mask & self._dir_flag and ev.mask & self._create:
                # a new directory: watch it (and what was already created inside before the watch landed)
                parent = self._wd_paths().get(ev.wd)
                if parent is not None and not self._watch_tree(os.path.join(parent, ev.name)):
                    self._stop_watch()
                    return

    def _wd_paths(self) -> dict[int, str]:
        # inotify_simple keeps no wd -> path map; rebuild ours lazily (directory creations are rare)
        out: dict[int, str] = {}
        inotify = self._inotify
        if inotify is None:
            return out
        for dirpath, dirnames, _ in os.walk(os.path.realpath(self.root)):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for p in [dirpath] + [os.path.join(dirpath, d) for d in dirnames]:
                try:
                    out[inotify.add_watch(p, self._flags)] = p  # re-adding returns the existing wd
                except OSError:
                    pass
        return out

    # ------------------------------------------------------------------ the door
    def bundle(self) -> Bundle:
        """The parsed bundle as it is on disk now."""
        with self._lock:
            if self._inotify is not None:
                self._drain()
            else:
                self._dirty = True
            if self._dirty or self._bundle is None:
                from okfpro.io.bundle import load

                self._dirty = False  # events that land during the read mark it dirty again
                self._bundle = load(self.root)
                self.reloads += 1
            return self._bundle

    def invalidate(self) -> None:
        """Our own writes: the next call re-reads (inotify would say so too; this is belt and braces)."""
        with self._lock:
            self._dirty = True

    def close(self) -> None:
        with self._lock:
            self._stop_watch()
