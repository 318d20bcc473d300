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


@contextlib.contextmanager
def read_again(repo: str) -> Iterator[dict[str, str]]:
    """An environment for git commands in the repository ``repo`` (any directory in it) whose index
    is a copy in which every entry is racily clean (the copy dated second 1), so that git compares
    every tracked file's content: a file rewritten at the same size with its times put back — which
    git's stat check misses, ctime being compared to the second — counts as changed."""
    import shutil
    import subprocess

    gitdir = subprocess.run(["git", "-C", repo, "rev-parse", "--absolute-git-dir"], capture_output=True,
                            text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "index")
        shutil.copyfile(os.path.join(gitdir, "index"), copy)
        os.utime(copy, (1, 1))
        yield {**os.environ, "GIT_INDEX_FILE": copy}


def content_dirty(root: str) -> bool:
    """``git status --porcelain -- '*.md'`` under ``root`` non-empty, every file's content compared
    (:func:`read_again`)."""
    import subprocess

    with read_again(root) as env:
        out = subprocess.run(["git", "-C", root, "--no-optional-locks", "status", "--porcelain", "-z", "--", "*.md"],
                             capture_output=True, env=env, check=True).stdout
    return bool(out)


def plain_git(home: Any, monkeypatch: Any) -> None:
    """git as a fresh user runs it: no ``GIT_*`` variable, ``HOME`` at ``home`` (made, holding only
    a name and an address), no ``XDG_CONFIG_HOME``."""
    for name in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, ".gitconfig"), "w", encoding="utf-8") as fh:
        fh.write("[user]\n\tname = t\n\temail = t@t\n")
