"""Crash-safe file writes and cross-process locks.

Every file okfpro rewrites goes through :func:`atomic_write`: the new content is
written to a temporary file, flushed to disk, then moved over the target with
``os.replace`` — a reader sees the old bytes or the new bytes, never a torn file.
The temporary file lives in ``scratch`` when the caller names one on the same
filesystem (the bundle writers use the Git directory, so a writer killed mid-write
leaves nothing inside the bundle for ``git add -A``), else beside the target; its
name carries the writer's pid, and :func:`sweep` removes the ones whose writer died.

:func:`locked` serialises writers across processes with ``fcntl.flock`` on a lock
file or a directory.  After the lock is granted it checks that the path still names
the locked file: a lock file deleted (a cleanup of ``.tmp/``, ``git clean -fX``)
while a writer waited for it is dropped and the lock taken again on what the path
names now.  A lock file removed while *held* cannot be noticed by the next writer,
so a lock must live where no cleanup reaches: the bundle writers lock the bundle
directory itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Iterator


_TEMP_MARK = ".okfpro-"


def parent_of(path: str) -> str:
    """The directory holding ``path`` (``.`` for a bare name), as ``Path(path).parent`` says it."""
    return os.path.dirname(path.rstrip("/") or "/") or "."


def _temp_dir(target: str, scratch: str | os.PathLike | None) -> str:
    """``scratch`` when it is a writable directory on the target's filesystem, else the target's."""
    if scratch is not None:
        try:
            os.makedirs(scratch, exist_ok=True)
            if os.stat(scratch).st_dev == os.stat(parent_of(target)).st_dev and os.access(scratch, os.W_OK | os.X_OK):
                return os.fspath(scratch)
        except OSError:
            pass
    return parent_of(target)


def sweep(directory: str | os.PathLike) -> int:
    """Remove temp files of ours in ``directory`` whose writer process is gone; the count removed."""
    removed = 0
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    for name in names:
        if _TEMP_MARK not in name or not name.endswith(".tmp"):
            continue
        pid_text = name.rsplit(_TEMP_MARK, 1)[1].split(".", 1)[0]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, name))
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def atomic_write(path: str | os.PathLike, data: bytes | str, mode: int | None = None,
                 scratch: str | os.PathLike | None = None, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + fsync + os.replace).

    ``mode`` sets the permission bits of the new file; when omitted an existing
    file keeps its bits and a new one gets 0o644.  ``scratch``: where the temp file
    should live (used only when on the target's filesystem).  ``durable=False``: no fsync
    (a cache its reader checks and can do without: readers still see the old file or the
    new one, never a part; after a power cut, maybe neither) — an fsync costs 1–12 ms.
    """
    target = os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if mode is None:
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    name = os.path.basename(target.rstrip("/"))
    fd, tmp = _create_temp(_temp_dir(target, scratch), f".{name}{_TEMP_MARK}{os.getpid()}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(parent_of(target))


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _create_temp(directory: str, prefix: str, suffix: str) -> tuple[int, str]:
    """A new file of ours, created exclusively (0o600, never through a link): what
    ``tempfile.mkstemp`` does, without importing tempfile (and shutil, random, bz2, lzma
    with it: ~7 ms of a Stop hook's imports, .okf/design/lean-memory-verbs.md)."""
    for _ in range(100):
        path = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(path, _TEMP_FLAGS, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def fsync_dir(directory: str | os.PathLike, *, strict: bool = False) -> None:
    """Flush ``directory``'s entries (a rename or a create in it) to disk.  ``strict``: an
    error is raised (what must be durable before a ref moves); else quietly nothing where
    the directory cannot be opened or synced."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        if strict:
            raise
        return
    try:
        os.fsync(fd)
    except OSError:
        if strict:
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(lock_path: str | os.PathLike, *, shared: bool = False) -> Iterator[None]:
    """Hold a cross-process lock on ``lock_path``: exclusive by default, shared (many holders,
    no exclusive one) with ``shared=True``.  A directory is locked as it is; any other path
    is a lock file, created if missing.  The lock is granted only on the file the path names
    once the lock is held (see the module notes)."""
    lock = os.fspath(lock_path)
    directory = os.path.isdir(lock)
    if not directory:
        os.makedirs(parent_of(lock), exist_ok=True)
    for _ in range(1000):
        fd = os.open(lock, os.O_RDONLY | os.O_DIRECTORY) if directory else os.open(
            lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(lock)
            except FileNotFoundError:
                now = None
        except BaseException:
            os.close(fd)
            raise
        if now is None or (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
            os.close(fd)  # removed or replaced while we waited: lock what the path names now
            if directory and now is None:
                raise FileNotFoundError(f"{lock} disappeared")
            continue
        try:
            yield
        finally:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        return
    raise OSError(f"could not hold the lock {lock}: it kept being replaced")


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append one line to ``path`` under an exclusive lock (O_APPEND, single write).  A last line
    left without its newline (a writer killed mid-write: Linux stops a write at a page boundary
    when a fatal signal is pending) is ended first, so it stays one unreadable line and this one
    is whole, not glued to it."""
    payload = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                payload = b"\n" + payload
            os.write(fd, payload)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
