"""Read the tail of a file the host names, without trusting the name.

A path that arrives in a hook event (``transcript_path``) may name anything: a FIFO
that never answers, ``/dev/zero`` or ``/dev/urandom`` that never end, a directory,
another OS user's file, or a symlink to any of those.  ``tail`` reads only a regular
file owned by the invoking user: it looks before it opens (so no device is ever
opened), opens non-blocking, checks the opened file again with ``fstat`` (the file it
looked at must be the file it opened), and reads at most ``limit`` bytes from the end.
Anything else is :class:`Unreadable` with a one-line reason.
"""

from __future__ import annotations

import os
import stat


class Unreadable(Exception):
    """The file was not read; ``str(exc)`` says why in one line."""


class Missing(Unreadable):
    """There is no file by that name (nothing hostile: nothing to read)."""


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _check(st: os.stat_result, path: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(f"{path} is {_kind(st.st_mode)}, not a regular file")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise Unreadable(f"{path} belongs to another user (uid {st.st_uid})")


def tail(path: str | os.PathLike, limit: int) -> bytes:
    """At most the last ``limit`` bytes of a regular file owned by the caller (symlinks are judged by their target)."""
    name = os.fspath(path)
    try:
        before = os.stat(name)
    except FileNotFoundError:
        raise Missing(f"{name} does not exist") from None
    except OSError as exc:
        raise Unreadable(f"{name} cannot be read ({exc.strerror or type(exc).__name__})") from None
    _check(before, name)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(name, flags)
    except OSError as exc:
        raise Unreadable(f"{name} cannot be opened ({exc.strerror or type(exc).__name__})") from None
    try:
        now = os.fstat(fd)
        _check(now, name)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise Unreadable(f"{name} changed between the look and the open")
        start = max(0, now.st_size - limit)
        chunks: list[bytes] = []
        got = 0
        while got < limit:
            chunk = os.pread(fd, min(1 << 20, limit - got), start + got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise Unreadable(f"{name} could not be read ({exc.strerror or type(exc).__name__})") from None
    finally:
        os.close(fd)
