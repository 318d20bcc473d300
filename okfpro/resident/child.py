"""What a child of the resident server does to become its client's process, and answer as it.

A child is forked before its request (:func:`standby`: ahead of any request, or the moment one comes)
and is the server until it has made itself the client: its own process group, death with its server
(``PR_SET_PDEATHSIG``) and Python's default signal handling before the request; then the client's
descriptors 0-2 and working directory, its umask, its environment (and the time zone it names),
``sys.argv`` and ``sys.path``, standard streams with the client's encodings.  Then it runs
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

from okfpro.resident import wire


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


def standby(sock: socket.socket, tell_w: int, server: int, prctl: Any, watches: Any,
            let_go: Callable[[], None], prefault: Callable[[], None] | None = None) -> None:
    """The life of a child forked before its request (:class:`okfpro.resident.server.Spare`); never
    returns.  It does ahead what no request decides — its own process group, death with its server
    (``PR_SET_PDEATHSIG``), closing what belongs to the server (``let_go``), Python's default signal
    handling, ``prefault`` — then waits on ``sock`` for its request: the request, then its
    descriptors (0-2 as present, the working directory, the client's connection) and, once the
    server has this child in hand and has told the client, one byte ``g``.  The end of ``sock``
    before that byte (the server died, or sent it away unused) ends it having run nothing."""
    try:
        os.setpgid(0, 0)
        if prctl is not None:
            prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != server:
            os._exit(70)  # the server is gone already
        let_go()
        os.set_blocking(tell_w, False)
        _fresh_signals()
        if prefault is not None:
            prefault()
        got = wire.receive(sock, extra=1)
        if got is None:
            os._exit(0)  # sent away unused
        request, fds = got
        conn = socket.socket(fileno=fds.pop())
        conn.setblocking(True)  # the child says its own exit status on it (Served.answered)
        # the request's work begins: a second getppid() (bench/served_child.py zeroes its counts here)
        if sock.recv(1) != b"g" or os.getppid() != server:
            os._exit(70)  # the server did not take this request after all: nothing ran
        sock.close()
        _become(request, fds, conn, tell_w, watches)
    finally:
        os._exit(70)


def _become(request: tuple, fds: list[int], conn: socket.socket, tell_w: int, watches: Any) -> None:
    """Become the client of ``request`` (descriptors ``fds``: 0-2 as present, then the working
    directory) and answer it; ends through ``os._exit``."""
    code: object
    _proto, args, env, argv, path, present, streams, mask, _cwd = request
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
