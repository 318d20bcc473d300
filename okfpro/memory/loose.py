"""The memory history's common commit written without libgit2: loose objects and one
compare-and-swap ref update (why: ``.okf/design/history-fast-commit.md``).

A remember or a Stop capture commits one or a few day files onto the scope's ref.  That
takes reading the tip commit and the few trees down to the scope's directory, writing a
blob per file, the trees back up and the commit (each a zlib-compressed loose object
named by the SHA-1 of its content), then moving the ref.  Loading pygit2 for it costs
more than everything else the command does, so this module does it with the standard
library, producing exactly the objects and the ref libgit2 would (pinned by
``tests/test_history_loose.py``).

Anything out of the ordinary raises :class:`Unusual` before a ref is touched, and the
caller (:meth:`okfpro.memory.history.History.record_files`) does the commit with pygit2
instead: a repository format other than version 0 without extensions, a config this
module does not read (includes, shared permissions, ref logging), a ref that is only in
``packed-refs`` or is symbolic, an object that is not loose (packed by a purge or a
sync's fetch), an odd tree entry or commit header, a name libgit2 would rewrite.

Durability is libgit2's with fsync on: each object file is fsync'd before it is renamed
into place (all of a commit's at once), the directories that received one are fsync'd
(at once), and only then is the ref
moved: ``<ref>.lock`` created exclusively, the expected old value checked under it,
the new id written and fsync'd, renamed over the ref, the directory fsync'd.
"""

from __future__ import annotations

import os
import zlib

from hashlib import sha1
from okfpro.io.atomic import fsync_dir

OBJECT_MODE = 0o444  # git's and libgit2's mode for loose object files
_TREE = b"40000"
_MODES = frozenset((b"100644", b"100755", _TREE, b"120000", b"160000"))
_CRUD = frozenset(b".,:;<>\"\\'")  # and every byte <= 32: what libgit2 trims off a name's ends
_HEX = frozenset("0123456789abcdef")
_NAME = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class Unusual(Exception):
    """The repository or the data is something this module leaves to pygit2."""


class Moved(Exception):
    """The ref is not what it was when read (or is being updated): nothing was changed."""


def plain_name(name: str) -> bool:
    """Whether libgit2 would store ``name`` in a signature exactly as given."""
    raw = name.encode("utf-8")
    if not raw or b"<" in raw or b">" in raw or any(c < 32 for c in raw):
        return False
    return not (raw[0] <= 32 or raw[0] in _CRUD or raw[-1] <= 32 or raw[-1] in _CRUD)


def plain_file(name: bytes) -> bool:
    """Whether ``name`` is a tree entry name no Git would refuse or treat specially."""
    return bool(name) and name[0] != ord(".") and _NAME.issuperset(name)


def _oid(text: str) -> str:
    if len(text) != 40 or not _HEX.issuperset(text):
        raise Unusual(f"not an object id: {text[:60]!r}")
    return text


def fsync_all(fds: list[int]) -> None:
    """fsync every descriptor, concurrently; each is durable when this returns, as if they
    were fsync'd one after another, and the first error is raised.  A journaling file system
    commits concurrent fsyncs together: the dozen of one commit (six objects, their
    directories) cost ~3-6 ms on a busy disk instead of 6-40 ms one by one (measured here,
    .okf/design/history-fast-commit.md)."""
    if len(fds) < 2:
        for fd in fds:
            os.fsync(fd)
        return
    import _thread  # the C module: threading's import is not needed to wait for a few fsyncs

    errors: list[BaseException] = []
    guard, done = _thread.allocate_lock(), _thread.allocate_lock()
    left = [len(fds)]
    done.acquire()

    def one(fd: int) -> None:
        try:
            os.fsync(fd)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            errors.append(exc)
        finally:
            with guard:
                left[0] -= 1
                if left[0] == 0:
                    done.release()

    for fd in fds[1:]:
        try:
            _thread.start_new_thread(one, (fd,))
        except RuntimeError:  # no thread to be had: this one does it
            one(fd)
    one(fds[0])
    done.acquire()
    if errors:
        raise errors[0]


def _drop(fd: int, tmp: str) -> None:
    """Close ``fd`` if still open and remove ``tmp`` if still there."""
    try:
        os.close(fd)
    except OSError:
        pass
    try:
        os.unlink(tmp)
    except OSError:
        pass


class LooseRepo:
    """A bare repository's loose objects and loose refs (``gitdir``: its directory)."""

    def __init__(self, gitdir: str | os.PathLike) -> None:
        self.gitdir = os.fspath(gitdir)
        self.objects = os.path.join(self.gitdir, "objects")
        self._dirty: set[str] = set()  # directories that received a file: fsync'd by flush()
        self._pending: dict[str, tuple[int, str, str]] = {}  # oid -> (fd, temp file, path): flush() places them
        self._check_config()

    def _check_config(self) -> None:
        """Version 0, no extensions or includes, nothing in [core] this module does not
        honour (shared permissions, ref logs); else Unusual."""
        try:
            with open(os.path.join(self.gitdir, "config"), "rb") as f:
                text = f.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Unusual(f"config: {exc}") from exc
        section = ""
        for line in text.splitlines():
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line[1:].split("]", 1)[0].strip().lower()
                if section.split(" ", 1)[0].split(".", 1)[0] in ("extensions", "include", "includeif"):
                    raise Unusual(f"config section [{section}]")
                rest = line.split("]", 1)[1].strip() if "]" in line else "x"
                if rest and rest[0] not in "#;":
                    raise Unusual("config: a value on a section line")
                continue
            key, _, value = line.partition("=")
            key, value = key.strip().lower(), value.strip().lower()
            if section == "core":
                if key == "repositoryformatversion" and value != "0":
                    raise Unusual(f"repository format version {value}")
                if key == "logallrefupdates" and value not in ("false", "no", "off", "0"):
                    raise Unusual("ref logging is on")
                if key in ("sharedrepository", "precomposeunicode", "ignorecase", "protectntfs", "protecthfs"):
                    raise Unusual(f"core.{key} is set")

    # -- objects ----------------------------------------------------------------------

    def _path(self, oid: str) -> str:
        return os.path.join(self.objects, oid[:2], oid[2:])

    def read(self, oid: str, kind: bytes) -> bytes:
        """The content of the loose object ``oid``, which must be a ``kind``; Unusual when it
        is not loose (packed, alternate, missing) or does not hash to its name."""
        try:
            with open(self._path(_oid(oid)), "rb") as f:
                raw = zlib.decompress(f.read())
        except (OSError, zlib.error) as exc:
            raise Unusual(f"object {oid}: {exc}") from exc
        if sha1(raw).hexdigest() != oid:
            raise Unusual(f"object {oid} does not hash to its name")
        head, _, data = raw.partition(b"\0")
        if head != kind + b" " + str(len(data)).encode():
            raise Unusual(f"object {oid} is not a {kind.decode()}")
        return data

    def write(self, kind: bytes, data: bytes) -> str:
        """Store an object (if not there yet); its id.  Written to a temporary file now; in
        place and durable after :meth:`flush`."""
        raw = kind + b" " + str(len(data)).encode() + b"\0" + data
        oid = sha1(raw).hexdigest()
        path = self._path(oid)
        if oid in self._pending or os.path.exists(path):
            return oid
        fan = os.path.dirname(path)
        if not os.path.isdir(fan):
            os.makedirs(fan, exist_ok=True)
            self._dirty.add(self.objects)
        tmp = os.path.join(fan, f"tmp_obj_{os.getpid()}_{oid[:12]}")  # git's own prefix: fsck and prune know it
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, OBJECT_MODE)
        try:
            body = zlib.compress(raw)
            if os.write(fd, body) != len(body):
                raise OSError(28, "short write (disk full?)")
        except BaseException:
            _drop(fd, tmp)
            raise
        self._pending[oid] = (fd, tmp, path)
        return oid

    def flush(self) -> None:
        """Place every object written since the last flush, durably, before a ref may name
        one: their files fsync'd, renamed into place, then the directories that received one
        fsync'd (each group at once, :func:`fsync_all`)."""
        pending = list(self._pending.values())
        self._pending.clear()
        try:
            fsync_all([fd for fd, _tmp, _path in pending])
            for fd, tmp, path in pending:
                os.replace(tmp, path)
                self._dirty.add(os.path.dirname(path))
        except BaseException:
            for fd, tmp, _path in pending:
                _drop(fd, tmp)
            raise
        for fd, _tmp, _path in pending:
            os.close(fd)
        fds: list[int] = []
        try:
            for d in self._dirty:
                fds.append(os.open(d, os.O_RDONLY))
            fsync_all(fds)
            self._dirty.clear()
        finally:
            for fd in fds:
                os.close(fd)

    def discard(self) -> None:
        """Forget the objects written since the last flush (their temporary files removed)."""
        for fd, tmp, _path in self._pending.values():
            _drop(fd, tmp)
        self._pending.clear()

    # -- commits and trees ------------------------------------------------------------

    def commit(self, oid: str) -> tuple[str, list[str], str]:
        """(tree id, parent ids, message) of a commit."""
        data = self.read(oid, b"commit")
        head, sep, message = data.partition(b"\n\n")
        if not sep:
            raise Unusual(f"commit {oid} has no message")
        tree, parents = None, []
        for line in head.split(b"\n"):
            key, _, value = line.partition(b" ")
            if key == b"tree" and tree is None:
                tree = value.decode("ascii")
            elif key == b"parent":
                parents.append(_oid(value.decode("ascii")))
            elif key not in (b"author", b"committer"):
                raise Unusual(f"commit {oid} has a {key[:20]!r} header")
        if tree is None:
            raise Unusual(f"commit {oid} has no tree")
        try:
            return _oid(tree), parents, message.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Unusual(f"commit {oid}: message is not UTF-8") from exc

    def tree(self, oid: str) -> list[tuple[bytes, bytes, bytes]]:
        """(mode, name, 20-byte id) of each entry of a tree, as stored."""
        data = self.read(oid, b"tree")
        out, pos = [], 0
        while pos < len(data):
            space = data.find(b" ", pos)
            nul = data.find(b"\0", space + 1)
            if space < 0 or nul < 0 or nul + 21 > len(data):
                raise Unusual(f"tree {oid} is malformed")
            mode, name = data[pos:space], data[space + 1 : nul]
            if mode not in _MODES or not name or b"/" in name:
                raise Unusual(f"tree {oid} has an entry this module does not rewrite")
            out.append((mode, name, data[nul + 1 : nul + 21]))
            pos = nul + 21
        return out

    def subtree(self, tree: str, path: str) -> list[tuple[bytes, bytes, bytes]] | None:
        """The entries of the tree at ``path`` below ``tree``; None when there is no tree there."""
        entries = self.tree(tree)
        for part in path.split("/"):
            want = part.encode("utf-8")
            found = [(mode, raw) for mode, name, raw in entries if name == want]
            if not found:
                return None
            mode, raw = found[0]
            if mode != _TREE:
                return None
            entries = self.tree(raw.hex())
        return entries

    def write_tree(self, entries: list[tuple[bytes, bytes, bytes]]) -> str:
        """A tree of ``entries`` in Git's order (a tree's name sorts as if it ended in '/')."""
        names = [name for _, name, _ in entries]
        if len(set(names)) != len(names):
            raise Unusual("two tree entries of one name")
        ordered = sorted(entries, key=lambda e: e[1] + b"/" if e[0] == _TREE else e[1])
        return self.write(b"tree", b"".join(mode + b" " + name + b"\0" + raw for mode, name, raw in ordered))

    def wrap(self, path: str, inner: str) -> str:
        """The tree holding only ``path`` leading down to the tree ``inner``."""
        oid = inner
        for name in reversed(path.split("/")):
            oid = self.write_tree([(_TREE, name.encode("utf-8"), bytes.fromhex(oid))])
        return oid

    # -- refs -------------------------------------------------------------------------

    def _packed(self, name: str) -> bool:
        try:
            with open(os.path.join(self.gitdir, "packed-refs"), "rb") as f:
                want = b" " + name.encode("utf-8")
                return any(line.rstrip(b"\r\n").endswith(want) for line in f)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise Unusual(f"packed-refs: {exc}") from exc

    def ref(self, name: str) -> str | None:
        """The id a loose ref names, None when there is no such ref at all; Unusual when it
        is symbolic, malformed or only packed."""
        try:
            with open(os.path.join(self.gitdir, name), "rb") as f:
                text = f.read().decode("ascii")
        except FileNotFoundError:
            if self._packed(name):
                raise Unusual(f"{name} is a packed ref") from None
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise Unusual(f"{name}: {exc}") from exc
        if not text.endswith("\n"):
            raise Unusual(f"{name} is not a plain ref")
        return _oid(text[:-1])

    def set_ref(self, name: str, new: str, old: str | None) -> None:
        """Point ``name`` at ``new`` if it still names ``old`` (None: if it does not exist);
        else :class:`Moved`, with nothing changed."""
        path = os.path.join(self.gitdir, name)
        parent = os.path.dirname(path)
        created = []
        here = parent
        while not os.path.isdir(here):
            created.append(here)
            here = os.path.dirname(here)
        if created:
            os.makedirs(parent, exist_ok=True)
        lock = path + ".lock"
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        except FileExistsError:
            raise Moved(f"{name} is being updated by another writer") from None
        try:
            try:
                current = self.ref(name)
            except Unusual as exc:
                raise Moved(str(exc)) from None
            if current != old:
                raise Moved(f"{name} is at {current}, not {old}")
            body = (new + "\n").encode("ascii")
            os.write(fd, body)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(lock)
            raise
        os.close(fd)
        os.replace(lock, path)
        fsync_dir(parent, strict=True)
        for d in created:  # new directories: their entries in their parents are durable too
            fsync_dir(os.path.dirname(d), strict=True)
