"""What the resident server does around a request, done by a test: a real WatchSet drained before
the request, :data:`okfpro.resident.SERVED` set to a view of it, and (``forked``) the request run in
a forked child that detaches from the descriptor, as the server's children will."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import Any, Iterator

import okfpro.resident as resident
from okfpro.resident.watch import WatchSet


def watchset() -> Iterator[WatchSet]:
    """A real WatchSet (inotify), closed afterwards: the body of each test module's ``ws`` fixture."""
    w = WatchSet()
    assert w.fileno() is not None, w.unavailable
    yield w
    w.close()


class Served:
    """What the server sets as ``okfpro.resident.SERVED`` in a child: its view and a ``tell``."""

    def __init__(self, ws: WatchSet) -> None:
        self.watches = ws
        self.told: list[tuple[Any, ...]] = []

    def tell(self, message: tuple[Any, ...]) -> None:
        self.told.append(message)


@contextlib.contextmanager
def served(ws: WatchSet) -> Iterator[Served]:
    """In this process: drain (the server's pre-fork drain), then serve the view."""
    ws.drain()
    before = resident.SERVED
    resident.SERVED = box = Served(ws)
    try:
        yield box
    finally:
        resident.SERVED = before


def forked(ws: WatchSet, argv: list[str], stdin: bytes, cwd: str, env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``okfpro.__main__.main(argv)`` in a forked child with the view, as the server will:
    (exit code, stdout, stderr)."""
    ws.drain()
    files = [tempfile.TemporaryFile() for _ in range(3)]
    files[0].write(stdin)
    files[0].seek(0)
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            ws.detach()
            for fd, fh in enumerate(files):
                os.dup2(fh.fileno(), fd)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the child's own, until os._exit
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            resident.SERVED = Served(ws)
            from okfpro.__main__ import main

            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the child reports through its exit code
            import traceback

            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    out = []
    for fh in files[1:]:
        fh.seek(0)
        out.append(fh.read().decode("utf-8", "replace"))
        fh.close()
    files[0].close()
    return os.waitstatus_to_exitcode(status), out[0], out[1]
