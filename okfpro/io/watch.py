"""okfpro's file watcher: one inotify descriptor for every tree it was asked to watch, answering
"what changed under this root since token T" — or "unknown", never "clean" in doubt.

Its one user is the MCP server's kept bundle (:mod:`okfpro.mcp.watch`), a long-lived process a host
starts: it calls :meth:`WatchSet.drain` right before each answer (the kernel queues an event inside
the write, rename or unlink system call, so a drain at request time sees every edit that returned
before the call arrived), then :meth:`WatchSet.token` and :meth:`WatchSet.changes_since`.  No hook
and no gate answers from it.

What is watched, per root (design: ``.okf/design/file-watcher.md``):

* every directory of the tree (its entries, and its children's writes through paths in it), and
  every other file's inode (so a write through a hard link from outside the tree, and an open
  file description — a writable ``mmap`` writes without any event — are seen: a file opened and not
  yet closed is reported changed until it is closed; a mapping made before the watch began, its
  descriptor closed since, writes unseen — which is why no gate answers from this watcher);
* the repository's git directory (its top level, ``info/``, ``refs/`` recursively, and the common
  directory's for a linked worktree) and the directories from the root up to the work tree's top
  (their ``.gitignore``): a change there is reported as the marker :data:`GIT`, not as a path.

What is not watched is reported as changed every time ("blind"): a symlink (its target can change
with no event here), a directory on another device, a nested ``.git``, a directory that cannot be
watched or listed.  A root on a network or FUSE file system (other clients' writes make no event),
or one that runs the user out of watches, is refused: its token is None.

A reported path is root-relative; one ending in ``/`` is a directory and means everything at or
under it.  A queue overflow, a root deleted, moved or replaced, or a change log longer than
:data:`LOG_MAX` makes every older token unknown (None).
"""

from __future__ import annotations

import errno
import os
import secrets
import struct
import sys
from bisect import bisect_right

GIT = "\x00git"  # the marker for "the repository's git state changed" (no path holds a NUL)
LOG_MAX = 8192  # changes kept per root; an older token answers None

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x2, 0x4, 0x8, 0x10, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x2000, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x1000000, 0x2000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000

_CONTENT = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE
_READS = IN_OPEN | IN_CLOSE_NOWRITE
# A directory's watch asks for its entries' opens and closes too, though it logs none of them: the
# kernel merges an event into the one queued last when the two are identical (same watch, mask and
# name), and every file event followed by its parent's (another watch: never identical) leaves no two
# of one file's opens or closes adjacent in the queue, so its open count is exact.
DIR_MASK = (_CONTENT | _READS | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF
            | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
FILE_MASK = _CONTENT | _READS | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW

# statfs f_type of file systems whose other clients' writes make no inotify event here
REMOTE_FS = {
    0x6969: "nfs", 0x517B: "smb", 0xFE534D42: "smb2", 0xFF534D42: "cifs", 0x65735546: "fuse",
    0x01021997: "9p", 0x73757245: "coda", 0x5346414F: "afs", 0x00C36400: "ceph", 0x7461636F: "ocfs2",
    0x01161970: "gfs2", 0x564C: "ncp", 0x0BD00BD0: "lustre", 0x786F4256: "vboxsf", 0x13661366: "orangefs",
    0x47504653: "gpfs", 0x6B414653: "kafs", 0x19830326: "fhgfs",
}

_EVENT = struct.Struct("iIII")
# below a git directory: its own subdirectories that hold what ``git status`` reads (``r``: recursively)
_GIT_SUBDIRS = (("info", "g"), ("refs", "r"), ("reftable", "r"))
_BUF = 1 << 16


class _Libc:
    """inotify and statfs through ctypes (loaded only by a process that watches)."""

    def __init__(self) -> None:
        import ctypes
        import ctypes.util

        self.ctypes = ctypes
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        self.init1 = lib.inotify_init1
        self.init1.argtypes, self.init1.restype = [ctypes.c_int], ctypes.c_int
        self.add = lib.inotify_add_watch
        self.add.argtypes, self.add.restype = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32], ctypes.c_int
        self.rm = lib.inotify_rm_watch
        self.rm.argtypes, self.rm.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        self.statfs = lib.statfs
        self.statfs.argtypes, self.statfs.restype = [ctypes.c_char_p, ctypes.c_void_p], ctypes.c_int

    def fs_type(self, path: str) -> int | None:
        buf = self.ctypes.create_string_buffer(256)  # struct statfs is 120 bytes on 64-bit Linux
        if self.statfs(os.fsencode(path), buf) != 0:
            return None
        return int.from_bytes(buf.raw[:self.ctypes.sizeof(self.ctypes.c_long)], sys.byteorder) & 0xFFFFFFFF


class _Full(Exception):
    """The user's inotify watches ran out (ENOSPC)."""


class _Root:
    """One watched tree: its identity, its watches by path, its change log."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.state = "new"  # new | watched | unwatchable | gone
        self.why = ""
        self.ident: tuple[int, int] | None = None
        self.floor = 0  # a token below this generation is unknown
        self.gens: list[int] = []  # the change log: gens[i] is when paths[i] changed
        self.paths: list[str] = []
        self.dirs: dict[str, int] = {}  # tree directory rel -> wd
        self.files: dict[str, int] = {}  # tree file rel -> wd
        self.blind: dict[str, str] = {}  # rel -> why it cannot be watched (always reported)
        self.git: dict[str, int] = {}  # git-state directory (absolute) -> wd
        self.gitdir: str | None = None
        self.common: str | None = None


class WatchSet:
    """Every watched tree of one process, on one inotify descriptor."""

    def __init__(self) -> None:
        self.instance = secrets.token_hex(8)
        self.gen = 1
        self._roots: dict[str, _Root] = {}
        self._wd: dict[int, list[tuple[_Root, str, str]]] = {}  # wd -> (root, rel or abs, kind d|f|g|r|a)
        self._opens: dict[int, int] = {}  # file wd -> open file descriptions seen opened, not yet closed (> 0)
        self._fd: int | None = None
        self._lib: _Libc | None = None
        self.unavailable = ""
        try:
            lib = _Libc()
            fd = lib.init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                raise OSError(lib.ctypes.get_errno(), "inotify_init1")
        except (OSError, AttributeError) as exc:
            self.unavailable = f"inotify unavailable ({exc})"
            return
        self._lib, self._fd = lib, fd

    def fileno(self) -> int | None:
        return self._fd

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
        for root in self._roots.values():
            root.state = "gone"

    def add(self, root: str | os.PathLike) -> None:
        """Watch the tree at ``root`` (idempotent; a root gone or overflowed is watched again)."""
        if self._fd is None:
            return
        real = os.path.realpath(os.fspath(root))
        r = self._roots.get(real)
        if r is not None and r.state in ("watched", "unwatchable"):
            return
        if r is None:
            r = self._roots[real] = _Root(real)
        self._rebuild(r)

    def status(self, root: str | os.PathLike) -> tuple[str, str]:
        """(``watched`` | ``unwatchable`` | ``gone`` | ``unwatched``, why)."""
        r = self._roots.get(os.path.realpath(os.fspath(root)))
        if self._fd is None:
            return "unwatchable", self.unavailable
        return ("unwatched", "") if r is None else (r.state, r.why)

    def roots(self) -> list[str]:
        """The roots watched now (their real paths)."""
        return [path for path, r in self._roots.items() if r.state == "watched"]

    def drain(self) -> None:
        """Read every queued event without blocking."""
        fd = self._fd
        if fd is None:
            return
        events: list[tuple[int, int, int, str]] = []
        while True:
            try:
                data = os.read(fd, _BUF)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            if not data:
                break
            at = 0
            end = len(data)
            unpack = _EVENT.unpack_from
            while at + 16 <= end:
                wd, mask, cookie, size = unpack(data, at)
                # no name: a watched file's own event (most are reads: its open and its close)
                name = os.fsdecode(data[at + 16:at + 16 + size].split(b"\x00", 1)[0]) if size else ""
                events.append((wd, mask, cookie, name))
                at += 16 + size
        if events:
            self.gen += 1
            self._apply(events)

    # ------------------------------------------------------------------ what changed
    def _live(self, root: str | os.PathLike) -> _Root | None:
        real = os.path.realpath(os.fspath(root))
        r = self._roots.get(real)
        if r is None or r.state != "watched":
            return None
        try:
            st = os.stat(real)
        except OSError:
            return None
        return r if (st.st_dev, st.st_ino) == r.ident else None

    def token(self, root: str | os.PathLike) -> str | None:
        """This view's point in time for ``root``, or None when the root is not (fully) watched."""
        return None if self._live(root) is None else f"{self.instance}:{self.gen}"

    def changes_since(self, root: str | os.PathLike, token: str | None) -> set[str] | None:
        """The root-relative paths changed since ``token`` (a directory as ``dir/``: everything
        under it; :data:`GIT` for the repository's git state), or None: unknown."""
        r = self._live(root)
        if r is None or not token:
            return None
        instance, _, gen_s = token.partition(":")
        if instance != self.instance or not gen_s.isdigit():
            return None
        gen = int(gen_s)
        if gen < r.floor or gen > self.gen:
            return None
        out = set(r.paths[bisect_right(r.gens, gen):])
        out.update(r.blind)
        # files open now (a writable mapping writes without events): by the few open, never by every
        # file (a loop over every file of a large root costs milliseconds per call)
        for wd in self._opens:
            out.update(rel for held, rel, kind in self._wd.get(wd, ()) if held is r and kind == "f")
        return out

    # ------------------------------------------------------------------ building the watches
    def _watch(self, path: str, mask: int) -> int:
        lib = self._lib
        assert lib is not None and self._fd is not None
        wd = lib.add(self._fd, os.fsencode(path), mask)
        if wd < 0:
            err = lib.ctypes.get_errno()
            if err == errno.ENOSPC:
                raise _Full(f"the user's inotify watches ran out at {path} (fs.inotify.max_user_watches)")
            raise OSError(err, os.strerror(err), path)
        return wd

    def _hold(self, wd: int, r: _Root, rel: str, kind: str) -> None:
        self._wd.setdefault(wd, []).append((r, rel, kind))

    def _let_go(self, wd: int, r: _Root, rel: str, kind: str) -> None:
        held = self._wd.get(wd)
        if held is None:
            return
        try:
            held.remove((r, rel, kind))
        except ValueError:
            return
        if not held:
            del self._wd[wd]
            self._opens.pop(wd, None)
            lib = self._lib
            if lib is not None and self._fd is not None:
                lib.rm(self._fd, wd)

    def _forget(self, r: _Root) -> None:
        old = (r.dirs, r.files, r.git)
        r.dirs, r.files, r.git, r.blind = {}, {}, {}, {}
        self._release(r, *old)

    def _rebuild(self, r: _Root) -> None:
        """(Re)watch a whole root; every token older than now becomes unknown.

        The watches it holds are kept while it is walked again (adding a watch to an inode watched
        already answers the same descriptor, and queues nothing) and only those it no longer finds are
        removed after: removing every watch first would queue one ``IN_IGNORED`` per file, which over a
        root of more files than ``max_queued_events`` overflows the queue again — a rebuild that
        schedules the next one, every call."""
        old = (r.dirs, r.files, r.git)
        r.dirs, r.files, r.git, r.blind = {}, {}, {}, {}
        try:
            self._arm(r)
        finally:
            self._release(r, *old)

    def _release(self, r: _Root, dirs: dict[str, int], files: dict[str, int], git: dict[str, int]) -> None:
        """Let go of the holds of an earlier walk of ``r`` (a watch held again since stays)."""
        for rel, wd in dirs.items():
            self._let_go(wd, r, rel, "d")
        for rel, wd in files.items():
            self._let_go(wd, r, rel, "f")
        for path, wd in git.items():
            for kind in "gra":
                self._let_go(wd, r, path, kind)

    def _arm(self, r: _Root) -> None:
        r.floor = self.gen + 1
        self.gen += 1
        r.gens, r.paths = [], []
        r.state, r.why = "new", ""
        try:
            st = os.stat(r.path)
        except OSError as exc:
            r.state, r.why = "gone", f"{r.path}: {exc.strerror}"
            return
        lib = self._lib
        assert lib is not None
        kind = lib.fs_type(r.path)
        if kind in REMOTE_FS:
            self._refuse(r, f"{r.path} is on {REMOTE_FS[kind]}: other clients' writes make no inotify event")
            return
        r.ident = (st.st_dev, st.st_ino)
        r.gitdir = r.common = self._find_git(r)
        try:
            if not self._scan(r, "", report=False):
                self._refuse(r, f"{r.path} could not be watched")
                return
            self._watch_git(r)
        except _Full as exc:
            self._refuse(r, str(exc))
            return
        r.state = "watched"

    def _refuse(self, r: _Root, why: str) -> None:
        self._forget(r)
        r.state, r.why = "unwatchable", why
        print(f"okfpro: not watching {r.path}: {why}", file=sys.stderr)

    def _scan(self, r: _Root, top: str, report: bool) -> bool:
        """Watch the directory ``top`` (rel) and everything below it; with ``report``, log every
        path found as changed.  False when ``top`` itself is gone."""
        stack = [top]
        first = True
        while stack:
            rel = stack.pop()
            full = os.path.join(r.path, rel) if rel else r.path
            try:
                st = os.lstat(full)
            except OSError:
                if first:
                    return False
                continue
            first = False
            if not _isdir(st.st_mode):
                self._file(r, rel, report)
                continue
            if rel and (st.st_dev != r.ident[0] if r.ident else False):
                self._blind(r, rel + "/", "another file system is mounted here")
                continue
            if rel and os.path.basename(rel) == ".git":
                if os.path.realpath(full) != r.gitdir:
                    self._blind(r, rel + "/", "a nested repository's git directory")
                continue
            try:
                wd = self._watch(full, DIR_MASK)
            except OSError as exc:
                if not rel:
                    return False
                if exc.errno == errno.ENOENT:
                    continue  # deleted mid-walk: its parent's DELETE is queued
                self._blind(r, rel + "/" if rel else "/", f"cannot be watched ({exc.strerror})")
                continue
            self._rehold(r, r.dirs, rel, wd, "d")
            if report and rel != top:
                self._log(r, rel + "/")
            try:
                with os.scandir(full) as it:
                    names = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
            except OSError as exc:
                if exc.errno != errno.ENOENT:
                    self._blind(r, rel + "/" if rel else "/", f"cannot be listed ({exc.strerror})")
                continue
            for name, is_dir in names:
                child = f"{rel}/{name}" if rel else name
                if is_dir:
                    stack.append(child)
                else:
                    self._file(r, child, report)
        if report:
            self._log(r, top + "/" if top else "/")
        return True

    def _file(self, r: _Root, rel: str, report: bool) -> None:
        full = os.path.join(r.path, rel)
        if report:
            self._log(r, rel)
        try:
            st = os.lstat(full)
        except OSError:
            return
        if _islink(st.st_mode):
            self._blind(r, rel, "a symlink (its target is not watched)")
            return
        if _isdir(st.st_mode):  # replaced by a directory since it was listed
            self._scan(r, rel, True)
            return
        if os.path.basename(rel) == ".git":
            self._blind(r, rel, "a git link file (a nested worktree or submodule)")
            return
        try:
            wd = self._watch(full, FILE_MASK)
        except OSError:
            if os.path.lexists(full):
                self._blind(r, rel, "cannot be watched")
            return
        self._rehold(r, r.files, rel, wd, "f")

    def _rehold(self, r: _Root, table: dict[str, int], rel: str, wd: int, kind: str) -> None:
        """``rel`` (a directory "d" or a file "f" of ``r``) is watched by ``wd`` now: hold it there,
        letting go of the watch it had, if another."""
        old = table.get(rel)
        if old != wd:
            if old is not None:
                self._let_go(old, r, rel, kind)
            self._hold(wd, r, rel, kind)
            table[rel] = wd

    def _blind(self, r: _Root, rel: str, why: str) -> None:
        r.blind[rel] = why
        self._log(r, rel)

    @staticmethod
    def _find_git(r: _Root) -> str | None:
        """The root's repository's git directory (real), or None (none, or unreadable: blind)."""
        from okfpro.io.roots import git_fence

        top = git_fence(r.path)
        if top is None:
            return None
        dotgit = os.path.join(top, ".git")
        gitdir = _gitdir(dotgit)
        if gitdir is None:
            r.blind[GIT] = f"{dotgit} does not name a git directory"
        return gitdir

    def _watch_git(self, r: _Root) -> None:
        """Watch what makes ``git status`` under the root answer differently, outside the tree."""
        from okfpro.io.roots import git_fence

        top = git_fence(r.path)
        gitdir = r.gitdir
        if top is None or gitdir is None:
            return
        common = gitdir
        try:
            with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as fh:
                common = os.path.realpath(os.path.join(gitdir, fh.read().strip()))
        except OSError:
            pass
        r.common = common
        spots = [(gitdir, "g")] + [(os.path.join(gitdir, sub), kind) for sub, kind in _GIT_SUBDIRS]
        if common != gitdir:
            spots += [(common, "g")] + [(os.path.join(common, sub), kind) for sub, kind in _GIT_SUBDIRS]
        level = os.path.dirname(r.path)
        real_top = os.path.realpath(top)
        while r.path != real_top and len(level) >= len(real_top):
            spots.append((level, "a"))
            if level == real_top:
                break
            level = os.path.dirname(level)
        for path, kind in spots:
            self._git_dir(r, path, kind)

    def _git_dir(self, r: _Root, path: str, kind: str) -> None:
        try:
            wd = self._watch(path, DIR_MASK)
        except OSError as exc:
            if exc.errno != errno.ENOENT or path == r.gitdir:
                r.blind[GIT] = f"{path} cannot be watched ({exc.strerror})"
            return
        if path not in r.git:
            self._hold(wd, r, path, kind)
            r.git[path] = wd
        if kind == "r":
            try:
                subdirs = [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
            except OSError:
                return
            for sub in subdirs:
                self._git_dir(r, sub, "r")

    # ------------------------------------------------------------------ the events
    def _log(self, r: _Root, rel: str) -> None:
        r.gens.append(self.gen)
        r.paths.append(rel)
        if len(r.gens) > LOG_MAX:
            cut = len(r.gens) - LOG_MAX // 2
            r.floor = max(r.floor, r.gens[cut - 1] + 1)
            del r.gens[:cut], r.paths[:cut]

    def _apply(self, events: list[tuple[int, int, int, str]]) -> None:
        rebuild: set[_Root] = set()
        for wd, mask, _cookie, name in events:
            if mask & IN_Q_OVERFLOW:
                rebuild.update(r for r in self._roots.values() if r.state == "watched")
                self._opens.clear()
                continue
            held = self._wd.get(wd)
            if not held:
                continue
            if not name and held[0][2] == "f":  # a file's own watch: its open count
                if mask & IN_OPEN:
                    self._opens[wd] = self._opens.get(wd, 0) + 1
                if mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE) and wd in self._opens:
                    self._opens[wd] -= 1
                    if not self._opens[wd]:
                        del self._opens[wd]
            if mask & ~IN_ISDIR in (IN_OPEN, IN_CLOSE_NOWRITE):
                # a read's open or close (a file's own, or its directory's echo of it, or a listing):
                # no holder logs one (:meth:`_event`), so the open count is all it changes; a read of
                # every file of a large bundle queues four of these per file
                continue
            for r, rel, kind in list(held):
                if r.state != "watched" or r in rebuild:
                    continue
                try:
                    self._event(r, rel, kind, wd, mask, name, rebuild)
                except _Full as exc:  # a new directory or file ran the user out of watches
                    self._refuse(r, str(exc))
        for r in rebuild:
            self._rebuild(r)

    def _event(self, r: _Root, rel: str, kind: str, wd: int, mask: int, name: str, rebuild: set[_Root]) -> None:
        """One event as one holder of its watch sees it (``kind``: f file, d tree directory, else git state)."""
        if kind == "f":
            if mask & (_CONTENT | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT):
                self._log(r, rel)
            if mask & IN_IGNORED:
                self._let_go(wd, r, rel, "f")
                if r.files.get(rel) == wd:
                    del r.files[rel]
        elif kind == "d":
            self._dir_event(r, rel, mask, name, wd, rebuild)
        else:
            self._git_event(r, rel, kind, mask, name, wd)

    def _dir_event(self, r: _Root, rel: str, mask: int, name: str, wd: int, rebuild: set[_Root]) -> None:
        if not name:  # the directory itself
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED):
                if not rel:
                    self._forget(r)
                    r.state, r.why = "gone", "the root was deleted, moved or unmounted"
                    return
                self._log(r, rel + "/")
                if mask & IN_IGNORED:
                    self._let_go(wd, r, rel, "d")
                    if r.dirs.get(rel) == wd:
                        del r.dirs[rel]
            elif mask & _CONTENT:
                if not rel:
                    rebuild.add(r)  # the root's own attributes (a chmod can hide everything)
                else:
                    self._log(r, rel + "/")
            return
        child = f"{rel}/{name}" if rel else name
        if mask & (IN_DELETE | IN_MOVED_FROM):
            self._drop(r, child)
        if mask & (IN_CREATE | IN_MOVED_TO):
            if mask & IN_ISDIR:
                self._drop(r, child)
                self._scan(r, child, report=True)
            else:
                r.blind.pop(child, None)
                self._file(r, child, report=True)
        if mask & _CONTENT:
            self._log(r, child + "/" if mask & IN_ISDIR else child)

    def _drop(self, r: _Root, rel: str) -> None:
        """``rel`` left the tree (deleted, moved out, or renamed): forget it and all below it."""
        prefix = rel + "/"
        self._log(r, rel)
        self._log(r, prefix)
        wd = r.files.pop(rel, None)
        if wd is not None:
            self._let_go(wd, r, rel, "f")
        for table, kind in ((r.dirs, "d"), (r.files, "f")):
            gone = [k for k in table if k == rel or k.startswith(prefix)]
            for k in gone:
                self._let_go(table.pop(k), r, k, kind)
        for k in [k for k in r.blind if k in (rel, prefix) or k.startswith(prefix)]:
            del r.blind[k]

    def _git_event(self, r: _Root, path: str, kind: str, mask: int, name: str, wd: int) -> None:
        if kind == "a":
            if name in (".gitignore", ".gitattributes") or not name:
                self._log(r, GIT)
            if not name and mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT):
                r.blind[GIT] = f"{path} was deleted or moved"
            return
        self._log(r, GIT)
        if not name and mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT):
            self._let_go(wd, r, path, kind)
            r.git.pop(path, None)
            if kind == "g":
                r.blind[GIT] = f"{path} was deleted or moved"
        elif mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
            if kind == "r":
                self._git_dir(r, os.path.join(path, name), "r")
            else:
                sub = dict(_GIT_SUBDIRS).get(name)
                if sub is not None:
                    self._git_dir(r, os.path.join(path, name), sub)


def _isdir(mode: int) -> bool:
    return mode & 0o170000 == 0o040000


def _islink(mode: int) -> bool:
    return mode & 0o170000 == 0o120000


def _gitdir(dotgit: str) -> str | None:
    """The git directory a work tree's ``.git`` names (a directory, or a ``gitdir:`` file), real."""
    if os.path.isdir(dotgit):
        return os.path.realpath(dotgit)
    try:
        with open(dotgit, encoding="utf-8") as fh:
            line = fh.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    target = os.path.join(os.path.dirname(dotgit), line[len("gitdir:"):].strip())
    return os.path.realpath(target) if os.path.isdir(target) else None

