"""A long-running server's parsed bundle, never stale: revalidated on every call.

The MCP server keeps one parsed :class:`~okfpro.core.concept.Bundle` in memory (that is
what makes a warm search fast).  Before each call it asks :meth:`Warm.bundle`, which
answers the kept bundle only if nothing that can change it changed since it was read:

* **watched** (Linux): okfpro's one file watcher, :class:`okfpro.io.watch.WatchSet`, watches
  the bundle's directories and files.  The call drains its queue *synchronously and without blocking* and asks what changed since the token
  taken before the kept bundle was read.  The kernel queues an event inside the write,
  rename or unlink system call, so an edit that returned before the call arrived is
  always seen — there is no watcher thread and no race window.  "Unknown" (an overflow,
  a root moved, too long a change log) means re-read, never "clean"; a symlink is
  reported changed on every call (its target is not watched).
* **fallback** (no inotify, a network or FUSE file system, the user's watches ran
  out): every call re-reads through :func:`okfpro.io.bundle.load`, whose parse cache
  re-parses only the files whose ``(size, mtime, ctime, inode)`` changed — correct,
  slower on large bundles.

A re-read goes through the same door as every verb (``io.bundle.load``), so the
server never answers from a second parser.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from okfpro.core.concept import Bundle


def relevant(path: str) -> bool:
    """Can a change at ``path`` (a watcher path: root-relative, ``dir/`` for a directory) change the
    bundle the reader loads?  Anything but the git state and hidden names: the reader lists no hidden
    name, and a listed file's content changes only through its own (watched) inode."""
    from okfpro.io.watch import GIT

    return path != GIT and not any(part.startswith(".") for part in path.split("/") if part)


class Warm:
    """The kept bundle of one root, with its change detector."""

    def __init__(self, root: Path, *, watch: bool = True) -> None:
        self.root = Path(root)
        self._bundle: Bundle | None = None
        self._token: str | None = None
        self._dirty = True
        self._lock = threading.Lock()
        self._watch: Any = None  # okfpro.io.watch.WatchSet
        self.mode = "reload-per-call"
        self.why = ""  # why the fallback, when it is used
        self.reloads = 0
        if watch:
            self._start_watch()

    def _start_watch(self) -> None:
        from okfpro.io.watch import WatchSet

        watch = WatchSet()
        watch.add(self.root)
        state, why = watch.status(self.root)
        if state != "watched":
            self.why = why or state
            watch.close()
            return
        self._watch, self.mode = watch, "inotify"

    def _fresh(self) -> bool:
        """Is the kept bundle the one on disk now?  (Drains the watcher first.)"""
        watch = self._watch
        if watch is None or self._dirty or self._bundle is None:
            return False
        watch.drain()
        changed = watch.changes_since(self.root, self._token)
        return changed is not None and not any(map(relevant, changed))

    # ------------------------------------------------------------------ the door
    def bundle(self) -> Bundle:
        """The parsed bundle as it is on disk now."""
        with self._lock:
            if self._fresh():
                assert self._bundle is not None
                return self._bundle
            token = None
            watch = self._watch
            if watch is not None:
                watch.drain()
                watch.add(self.root)  # a root replaced or overflowed is watched again (a no-op otherwise)
                token = watch.token(self.root)  # before the read: what changes during it is after the token
            from okfpro.io.bundle import load

            self._bundle = load(self.root)
            self._token, self._dirty = token, token is None
            self.reloads += 1
            return self._bundle

    def invalidate(self) -> None:
        """Our own writes: the next call re-reads (the watcher would say so too; this is belt and braces)."""
        with self._lock:
            self._dirty = True

    def close(self) -> None:
        with self._lock:
            if self._watch is not None:
                self._watch.close()
            self._watch, self.mode = None, "reload-per-call"

