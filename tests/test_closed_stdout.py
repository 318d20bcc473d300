"""A reader that goes away (``okfpro memory recall kilo | head -1``): every door ends quietly, as
click ends a command whose output hits EPIPE -- exit 1, nothing on stderr (no traceback, no
"internal error").  Real processes on a real pipe."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest

from okfpro.core.scope import Scope
from okfpro.memory.store import MemoryStore
from tests.helpers import memory_workspace, scoped_env

CLICK_DOOR = "import sys; from okfpro.cli.app import run; sys.exit(run(sys.argv[1:]))"
START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory):
    """A workspace whose user scope holds 600 entries that all match ``note`` (~200 KB of recall output:
    more than a pipe holds, so the writer meets the closed pipe mid-answer)."""
    ws = memory_workspace(tmp_path_factory.mktemp("closed"))
    rows = [(f"entry {i}: the deploy note number {i} " + "padding " * 20, START + dt.timedelta(days=i // 20, seconds=i % 20))
            for i in range(600)]
    ids, _commit, error = MemoryStore(ws / ".okf-memory").write_many(
        Scope(tenant="acme", user="alice"), rows, "user", actor="test", what="fill")
    assert not error and len(ids) == 600
    return ws


def _run(ws, argv: list[str], first_line: bool, buffered: bool, env: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Run ``argv`` with stdout on a pipe whose reader is gone: closed before the process starts, or
    (``first_line``) after it read the first line, as ``head -1`` does; ``buffered``: without
    ``PYTHONUNBUFFERED`` (a user's shell: what is printed last is written at exit).  ``env``: the
    environment (default: this one, alice's scope).  (exit code, stderr)."""
    if env is None:
        env = scoped_env("_OKFPRO_COMPLETE", OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30")
    env = {k: v for k, v in env.items() if k != "PYTHONUNBUFFERED"} | ({} if buffered else {"PYTHONUNBUFFERED": "1"})
    read_end, write_end = os.pipe()
    if not first_line:
        os.close(read_end)
    try:
        proc = subprocess.Popen([sys.executable, *argv], cwd=ws, env=env, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    if first_line:
        with os.fdopen(read_end, "rb") as reader:
            assert reader.readline()
    _out, err = proc.communicate(timeout=120)
    return proc.returncode, err


RECALL = ["memory", "recall", "note", "--limit", "600"]


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("first_line", [False, True], ids=["closed-before", "head-1"])
@pytest.mark.parametrize("argv", [
    ["-m", "okfpro", *RECALL],  # the click-free door (okfpro/cli/memverbs.py)
    ["-m", "okfpro", *RECALL, "--json"],
    ["-c", CLICK_DOOR, *RECALL],  # click's door of the same verb
    ["-m", "okfpro", "memory", "list"],  # a click verb that prints a lot
    ["-m", "okfpro", "--version"],  # a line printed before any door
], ids=["recall", "recall-json", "recall-click", "list", "version"])
def test_a_closed_stdout_ends_quietly(filled, argv, first_line, buffered):
    if first_line and argv[-1] in ("--version", "--json"):
        pytest.skip("one line: head reads the whole answer")
    code, err = _run(filled, argv, first_line, buffered)
    assert (code, err) == (1, b""), err.decode(errors="replace")
