"""A short child process on a per-turn path, without importing :mod:`subprocess`.

``import subprocess`` brings ``signal``'s enums, ``threading``, ``selectors`` and ``locale`` into
a Stop hook process that needs one ``git status`` (what that costs: .okf/design/lean-memory-verbs.md).
:class:`Child` starts the program with :func:`os.posix_spawnp` (the same ``vfork``+``exec`` that
``subprocess`` uses on Linux), stdin from ``/dev/null``, stdout and stderr on pipes, and
:meth:`Child.communicate` drains both under one deadline with ``poll`` — what
``Popen.communicate(timeout=...)`` does, with the same results:

* a program that cannot be started raises :class:`OSError` from the constructor (``ENOENT`` when
  it is not on ``PATH``), as ``Popen`` does;
* a child that outlasts the deadline is killed (``SIGKILL``), reaped, and :class:`TimedOut` is
  raised, its partial output attached;
* otherwise ``(returncode, stdout, stderr)``, a negative return code for a signal.

The child gets every signal at its default disposition (Python ignores ``SIGPIPE``; a host may
have ignored others, as ``nohup`` and a background job do; ``subprocess`` resets ``SIGPIPE`` and
``SIGXFSZ`` only, so ``git`` started through it inherits the rest) and no descriptor of ours but
the three it is given (the inheritable ones this process holds, from its
own parent, are closed in the child, as ``close_fds`` does).  Where :func:`os.posix_spawnp` is
missing (not POSIX), the same class runs on :mod:`subprocess`.  Used by the Stop gate's
``git status`` (:mod:`okfpro.hooks.stop`); long-running or interactive children keep
:mod:`subprocess`.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_CHUNK = 1 << 16


class TimedOut(Exception):
    """The child did not finish within the deadline; it was killed and reaped."""

    def __init__(self, timeout: float, stdout: bytes, stderr: bytes) -> None:
        super().__init__(f"did not finish within {timeout:g} s")
        self.timeout, self.stdout, self.stderr = timeout, stdout, stderr


def _inheritable_fds() -> list[int]:
    """This process's descriptors above 2 that a child would inherit (``subprocess`` closes
    them: ``close_fds``) — a host may start the hook with some of its own open."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(listing)
        except OSError:
            continue
        fds = []
        for name in names:
            fd = int(name)
            try:
                if fd > 2 and os.get_inheritable(fd):
                    fds.append(fd)
            except OSError:  # the listing's own descriptor, closed since
                continue
        return fds
    raise OSError("cannot list this process's open descriptors (no /proc/self/fd or /dev/fd)")


class Child:
    """``argv`` started now; :meth:`communicate` collects it later (it runs meanwhile)."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.started = time.monotonic()
        self._proc = None
        if not hasattr(os, "posix_spawnp"):  # pragma: no cover - Windows
            import subprocess

            self._proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE)
            return
        import _signal  # the constants without ``signal``'s enum classes

        inherited = _inheritable_fds()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        null = -1
        try:
            null = os.open(os.devnull, os.O_RDONLY)
            self.pid = os.posix_spawnp(
                argv[0], list(argv), os.environ,
                file_actions=[(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, out_w, 1),
                              (os.POSIX_SPAWN_DUP2, err_w, 2), *((os.POSIX_SPAWN_CLOSE, fd) for fd in inherited)],
                setsigdef=[n for n in _signal.valid_signals() if n not in (_signal.SIGKILL, _signal.SIGSTOP)],
            )
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            for fd in (null, out_w, err_w):
                if fd >= 0:
                    os.close(fd)
        self._out, self._err = out_r, err_r

    def communicate(self, timeout: float) -> tuple[int, bytes, bytes]:
        """``(returncode, stdout, stderr)`` once the child has exited and closed both pipes,
        within ``timeout`` seconds of its start — or :class:`TimedOut`."""
        deadline = self.started + timeout
        if self._proc is not None:  # pragma: no cover - Windows
            import subprocess

            try:
                out, err = self._proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._proc.kill()
                out, err = self._proc.communicate()
                raise TimedOut(timeout, out or b"", err or b"") from None
            return self._proc.returncode, out, err
        import select

        chunks: dict[int, list[bytes]] = {self._out: [], self._err: []}
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        open_fds = set(chunks)
        try:
            while open_fds:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                for fd, _events in poller.poll(max(1, int(left * 1000))):
                    data = os.read(fd, _CHUNK)
                    if data:
                        chunks[fd].append(data)
                    else:
                        poller.unregister(fd)
                        open_fds.discard(fd)
            status = self._reap(deadline) if not open_fds else None
        finally:
            os.close(self._out)
            os.close(self._err)
        out, err = b"".join(chunks[self._out]), b"".join(chunks[self._err])
        if status is None:
            import _signal

            try:
                os.kill(self.pid, _signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - exited between the deadline and the kill
                pass
            os.waitpid(self.pid, 0)
            raise TimedOut(timeout, out, err)
        return os.waitstatus_to_exitcode(status), out, err

    def _reap(self, deadline: float) -> int | None:
        """The child's wait status once it exits before ``deadline``; None when it does not
        (a child that closed its pipes but keeps running)."""
        pause = 0.0005
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            if time.monotonic() >= deadline:
                return None
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
