"""The Stop gate names a failing git (issue #10 item 7) instead of blaming a missing Snapshot line.

Real ``okfpro hook stop`` processes on a workspace whose bundle has an unsummarised edit; git is
made to fail three ways: ``GIT_DIR`` pointing at garbage, a repository owned by another OS user
("dubious ownership", as root via chown), and no git on ``PATH``.  The gate refuses (exit 2) and
its message says what git said; a working git on the same tree still gets the Snapshot message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402


@pytest.fixture
def dirty(tmp_path) -> Path:
    ws = hookkit.make_workspace(tmp_path)
    concept = ws / ".okf" / "learnings" / "search-ranking.md"
    concept.write_text(concept.read_text() + "\nOne more line, never summarised.\n")
    return ws


def stop(ws: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    event = {"hook_event_name": "Stop", "session_id": "s", "cwd": str(ws), "stop_hook_active": False}
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", "stop"], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env(extra), cwd=str(ws), timeout=60)


def test_a_working_git_gets_the_snapshot_message(dirty):
    proc = stop(dirty)
    assert proc.returncode == 2 and "no Snapshot line" in hookkit.err_text(proc)


def _assert_names_git(proc: subprocess.CompletedProcess, said: str) -> None:
    err = hookkit.err_text(proc)
    assert proc.returncode == 2, err
    assert "no Snapshot line" not in err, err
    assert "could not ask git" in err and said in err, err


def test_git_dir_pointing_at_garbage_is_named(dirty, tmp_path):
    garbage = tmp_path / "garbage"
    garbage.write_text("not a repository\n")
    _assert_names_git(stop(dirty, {"GIT_DIR": str(garbage)}), "invalid gitfile format")
    _assert_names_git(stop(dirty, {"GIT_DIR": str(tmp_path / "missing")}), "not a git repository")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another uid needs root")
def test_a_repository_owned_by_another_user_is_named(dirty):
    for path in [dirty, *dirty.rglob("*")]:
        os.lchown(path, 65534, 65534)
    env = {"HOME": str(dirty.parent), "GIT_CONFIG_NOSYSTEM": "1"}  # no safe.directory from the machine's config
    _assert_names_git(stop(dirty, env), "dubious ownership")


def test_no_git_on_path_is_named(dirty, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(sys.executable)
    assert shutil.which("git", path=str(bindir)) is None
    _assert_names_git(stop(dirty, {"PATH": str(bindir)}), "git could not be run")


def test_a_git_that_hangs_is_killed_at_the_deadline_and_named(dirty, tmp_path, monkeypatch):
    from okfpro.hooks import stop as gate

    bindir = tmp_path / "hang"
    bindir.mkdir()
    fake = bindir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(gate, "GIT_TIMEOUT", 0.5)
    import time

    t0 = time.monotonic()
    status = gate.GitStatus(str(dirty / ".okf"))
    assert status.proc is not None
    dirty_, why = status.result()
    assert time.monotonic() - t0 < 10
    assert dirty_ is True and why == "git status did not answer within 0.5 s"
    pid = status.proc.pid
    assert not os.path.exists(f"/proc/{pid}")  # killed and reaped, not left running or a zombie
