"""A long-running server's parsed bundle, never stale: revalidated on every call.

The MCP server keeps one parsed :class:`~okfpro.core.concept.Bundle` in memory (that is
what makes a warm search fast).  Before each call it asks :meth:`Warm.bundle`, which
answers the kept bundle only if nothing that can change it changed since it was read:

* **watched** (Linux): okfpro's one file watcher, :class:`okfpro.io.watch.WatchSet`, watches
  the bundle's directories and files.  The call drains its queue *synchronously and without blocking* and asks what changed since the token
  taken before the kept bundle was read.  The kernel queues an event inside the write,
  rename or unlink system call, so an edit that returned before the call arrived is
  always seen — there is no watcher thread and no race window.  A symlink is reported
  changed on every call (its target is not watched).
* **unknown** (the watcher's answer after a queue overflow — a read of every file of a
  bundle of more than a quarter of ``max_queued_events`` files, okfpro's own first read
  included, queues more events than that — a root moved, too long a change log), and every call of the
  **fallback** (no inotify, a network or FUSE file system, the user's watches ran out):
  never "clean" on trust, but never a re-read on doubt alone either.  The bundle's files
  are listed and ``lstat``-ed again and compared with the identities the parse cache
  vouched for when the kept bundle was read (:func:`unchanged`: ``(size, mtime_ns,
  ctime_ns, inode)`` of every file, taken before the file was read, none written within
  the cache's racy window); the kept bundle is answered only when every one is the same
  and no file was added or removed.  Otherwise :func:`okfpro.io.bundle.load` re-reads,
  re-parsing only the files whose identity changed.

A re-read goes through the same door as every verb (``io.bundle.load``), so the
server never answers from a second parser.
"""

from __future__ import annotations

import os
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


def unchanged(root: str | os.PathLike, bundle: Bundle) -> bool:
    """Are the files of ``root`` the very ones ``bundle`` was read from?  True only when the bundle
    carries the identity of every file it read as the parse cache vouched for it (none for a symlink,
    a file inside the racy window, a read without the cache: then False) and the walk lists exactly
    those files now, each with the same ``(size, mtime_ns, ctime_ns, inode)`` — the listing the
    search indexes vouch with (:mod:`okfpro.io.listing`)."""
    from okfpro.io.listing import on_disk, vouched

    stamps = bundle.__dict__.get("_okfpro_stat")  # set by okfpro.io.cache.load_bundle
    said = vouched(bundle, stamps if isinstance(stamps, dict) else None)
    return said is not None and on_disk(os.path.realpath(os.fspath(root))) == said.partition(" ")[0]


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
        self.reloads = 0  # reads through io.bundle.load
        self.checks = 0  # "unknown" answered by comparing the files' identities (:func:`unchanged`)
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

    def _changed(self) -> bool | None:
        """Did anything that can change the kept bundle change?  None: unknown.  (Drains the
        watcher first.)"""
        watch = self._watch
        if watch is None or self._dirty or self._bundle is None:
            return None
        watch.drain()
        changed = watch.changes_since(self.root, self._token)
        return None if changed is None else any(map(relevant, changed))

    # ------------------------------------------------------------------ the door
    def bundle(self) -> Bundle:
        """The parsed bundle as it is on disk now."""
        with self._lock:
            changed = self._changed()
            kept = self._bundle
            if changed is False and kept is not None:
                return kept
            token = None
            watch = self._watch
            if watch is not None:
                watch.drain()
                watch.add(self.root)  # a root replaced or overflowed is watched again (a no-op otherwise)
                token = watch.token(self.root)  # before the read: what changes during it is after the token
            if changed is None and kept is not None and not self._dirty:
                self.checks += 1
                if unchanged(self.root, kept):  # listed and stat'ed after the token
                    self._token = token
                    return kept
            from okfpro.io.bundle import load

            self._bundle = load(self.root)
            self._token, self._dirty = token, False
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

