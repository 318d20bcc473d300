"""What a child of the resident server does to become its client's process, and answer as it.

A forked child is the server until :func:`run` has made it the client: the client's descriptors 0-2
and working directory, its umask, its environment (and the time zone it names), ``sys.argv`` and
``sys.path``, standard streams with the client's encodings, Python's default signal handling, its
own process group, and death with its server (``PR_SET_PDEATHSIG``).  Then it runs
``okfpro.__main__.main`` as a fresh interpreter would and ends through ``exit_now``, which says its
exit status to the client (:meth:`Served.answered`).  Nothing it does returns into the server's code:
every way out is ``os._exit``.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any, Callable


class Served:
    """What a child sees of its server (:data:`okfpro.resident.SERVED`)."""

    def __init__(self, watches: Any, tell_fd: int, conn: socket.socket) -> None:
        self.watches = watches
        self._fd = tell_fd
        self._conn = conn

    def answered(self, status: int) -> None:
        """Tell the client this child's exit status (its output is flushed): the client need not wait
        for the server to reap it.  The server hears it first, so that the client's hanging up next is
        not taken for a host that gave up (which would kill the child)."""
        self.tell(("answered", status))
        try:
            self._conn.sendall(f"X exit {status}\n".encode())
        except OSError:
            pass

    def tell(self, message: tuple) -> None:
        import marshal

        try:
            data = marshal.dumps(message)
            os.write(self._fd, len(data).to_bytes(4, "little") + data)
        except (OSError, ValueError):  # the server is gone or the pipe is full: it was a hint
            pass


def run(request: tuple, fds: list[int], conn: socket.socket, tell_w: int, go: int, server: int,
        prctl: Any, watches: Any, let_go: Callable[[], None]) -> None:
    """Become the client of ``request`` (descriptors ``fds``: 0-2 as present, then the working
    directory) and answer it; never returns.  ``go``: a pipe the server writes one byte to once it
    has this child in hand (else the child ends having run nothing); ``let_go``: closes what belongs
    to the server."""
    code: object = 70
    try:
        _proto, args, env, argv, path, present, streams, mask, _cwd = request
        os.setpgid(0, 0)
        if prctl is not None:
            prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != server or os.read(go, 1) != b"g":
            os._exit(70)  # the server is gone, or did not take this request: nothing ran
        os.close(go)
        let_go()
        os.set_blocking(tell_w, False)
        given = iter(fds[:-1])
        for target, has in zip((0, 1, 2), present):
            if has:
                os.dup2(next(given), target)
            else:
                try:
                    os.close(target)
                except OSError:
                    pass
        os.fchdir(fds[-1])
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.umask(mask)
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        sys.argv[:] = argv
        sys.path[:] = path
        _fresh_signals()
        sys.stdin, sys.stdout, sys.stderr = (_stream(fd, mode, spec) if has and spec else None
                                             for fd, mode, has, spec in zip((0, 1, 2), "rww", present, streams))
        for name in ("stdin", "stdout", "stderr"):
            setattr(sys, f"__{name}__", getattr(sys, name))
        import okfpro.resident

        okfpro.resident.SERVED = Served(watches, tell_w, conn)
        from okfpro.__main__ import exit_now, main

        warm = set(sys.modules)
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code
        except BaseException:  # noqa: BLE001 - as an uncaught exception in a fresh process
            import traceback

            traceback.print_exc()
            code = 1
        missing = [name for name in sys.modules if name not in warm]
        if missing:  # the server imports them for the next child
            okfpro.resident.tell_parent("imported", missing)
        exit_now(code)
    finally:
        os._exit(70)


def _stream(fd: int, mode: str, spec: tuple) -> Any:
    """A standard stream on ``fd`` as a fresh interpreter builds it, with the client's encoding."""
    import io

    encoding, errors, line_buffering, write_through = spec
    raw = io.FileIO(fd, mode, closefd=False)
    buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",
                            line_buffering=line_buffering, write_through=write_through)


def _fresh_signals() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("SIGTERM", "SIGHUP", "SIGCHLD", "SIGALRM"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    for name in ("SIGPIPE", "SIGXFSZ"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
