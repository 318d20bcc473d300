"""Crash-safe file writes and cross-process locks.

Every file okfpro rewrites goes through :func:`atomic_write`: the new content is
written to a temporary file in the same directory, flushed to disk, then moved
over the target with ``os.replace`` — a reader sees the old bytes or the new
bytes, never a torn file.  :func:`locked` serialises writers across processes
with ``fcntl.flock`` on a sidecar lock file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path
from typing import Iterator


def atomic_write(path: str | os.PathLike, data: bytes | str, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + fsync + os.replace).

    ``mode`` sets the permission bits of the new file; when omitted an existing
    file keeps its bits and a new one gets 0o644.
    """
    target = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if mode is None:
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(str(directory), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(lock_path: str | os.PathLike, *, shared: bool = False) -> Iterator[None]:
    """Hold a cross-process lock on ``lock_path`` (created if missing): exclusive by
    default, shared (many holders, no exclusive one) with ``shared=True``."""
    lock = Path(lock_path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(lock), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append one line to ``path`` under an exclusive lock (O_APPEND, single write)."""
    target = Path(path)
    payload = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(str(target), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            os.write(fd, payload)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
