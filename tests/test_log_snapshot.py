"""``okfpro log-snapshot`` (issue 38.1): the writer beside the ``snapshot`` reader, and every refusal naming it.

Rule 2 stays the reference's: a change to the bundle owes today's Snapshot line.  What changes is that
paying it is one command, through the writers' guards (conservation, containment, the write lock), and
that every door that refuses — the Stop gate, ``audit``, the pre-commit door — names that command.  The
commit door is driven the way a new user meets it: a fresh HOME with no Git identity, ``pre-commit
install``, a real ``git commit`` (issue 38.5: before the first commit too).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke, run_okfpro

TODAY = "2026-11-30"
ENV = {"OKFPRO_TODAY": TODAY}


def ok(*args: str, cwd: Path) -> str:
    proc = invoke(*args, cwd=cwd, env=ENV)
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "w"
    ok("init", str(ws), cwd=tmp_path)
    return ws


def snapshot_lines(ws: Path) -> list[str]:
    return [line for line in (ws / ".okf/log.md").read_text().splitlines() if line.startswith("* **Snapshot**")]


def test_appends_the_computed_line_once_and_a_correction_after_a_change(ws: Path) -> None:
    ok("capture", "call the landlord", cwd=ws)
    log = ws / ".okf/log.md"
    before = log.read_text()
    out = ok("log-snapshot", cwd=ws)
    line = ok("snapshot", cwd=ws).strip()
    assert line in out and log.read_text() == before + f"\n## {TODAY}\n\n{line}\n"
    # twice the same day: the day already ends with an agreeing line, nothing is written
    out = ok("log-snapshot", cwd=ws)
    assert "nothing written" in out and log.read_text() == before + f"\n## {TODAY}\n\n{line}\n"
    # after a change, the recomputed line is appended under the old one (the last in the day wins)
    ok("capture", "renew the insurance", cwd=ws)
    ok("log-snapshot", cwd=ws)
    second = ok("snapshot", cwd=ws).strip()
    assert snapshot_lines(ws) == [line, second] and "inbox 2" in second
    # and again: nothing (the day ends with an agreeing line)
    ok("log-snapshot", cwd=ws)
    assert snapshot_lines(ws) == [line, second]


def test_a_line_that_is_not_the_days_last_entry_is_appended_again(ws: Path) -> None:
    ok("log-snapshot", cwd=ws)
    log = ws / ".okf/log.md"
    log.write_text(log.read_text() + "* Talked to the landlord.\n")
    ok("log-snapshot", cwd=ws)
    lines = log.read_text().splitlines()
    assert lines[-1].startswith("* **Snapshot**") and lines[-2] == "* Talked to the landlord."


def test_snapshot_still_never_writes(ws: Path) -> None:
    ok("capture", "x", cwd=ws)
    before = (ws / ".okf/log.md").read_bytes()
    ok("snapshot", cwd=ws)
    ok("snapshot", "--json", cwd=ws)
    assert (ws / ".okf/log.md").read_bytes() == before


def test_refused_like_every_writer_and_nothing_touched(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Log\n")
    log = ws / ".okf/log.md"
    log.unlink()
    log.symlink_to(outside)
    proc = invoke("log-snapshot", cwd=ws, env=ENV)
    assert proc.returncode == 2 and "outside the bundle" in proc.stderr
    assert outside.read_text() == "# Log\n"
    log.unlink()
    proc = invoke("log-snapshot", cwd=ws, env=ENV)
    assert proc.returncode == 2 and "log.md is missing" in proc.stderr and not log.exists()
    log.write_text("# Log\n")
    assert invoke("log-snapshot", "extra", cwd=ws, env=ENV).returncode == 2
    assert invoke("log-snapshot", "--write", cwd=ws, env=ENV).returncode == 2
    assert log.read_text() == "# Log\n"


def test_the_stop_gate_and_audit_name_the_command(ws: Path) -> None:
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "init"], cwd=ws,
                   check=True)
    ok("capture", "call the landlord", cwd=ws)
    stop = run_okfpro("hook", "stop", stdin=f'{{"cwd": "{ws}"}}', env=ENV)
    assert stop.returncode == 2 and "`okfpro log-snapshot`" in stop.stderr, stop.stderr
    audit = invoke("audit", cwd=ws, env=ENV)
    assert audit.returncode == 1 and "`okfpro log-snapshot`" in audit.stdout, audit.stdout
    assert "before stopping" not in audit.stdout and "git add .okf/log.md" in audit.stdout
    # a stale line: the refusal names the same command
    ok("log-snapshot", cwd=ws)
    ok("capture", "another", cwd=ws)
    audit = invoke("audit", cwd=ws, env=ENV)
    assert audit.returncode == 1 and "no longer matches" in audit.stdout and "`okfpro log-snapshot`" in audit.stdout
    stop = run_okfpro("hook", "stop", stdin=f'{{"cwd": "{ws}"}}', env=ENV)
    assert stop.returncode == 2 and "`okfpro log-snapshot`" in stop.stderr, stop.stderr
    ok("log-snapshot", cwd=ws)
    assert invoke("audit", cwd=ws, env=ENV).returncode == 0


def test_audit_before_the_first_commit_holds_the_bundle_to_the_rule(ws: Path) -> None:
    """Issue 38.5: a fresh scaffold is clean; a bundle changed before the first commit is not."""
    assert invoke("audit", cwd=ws, env=ENV).returncode == 0
    (ws / ".okf/learnings/ship.md").write_text(
        "---\ntype: Learning\ntitle: Ship on Fridays\ndescription: We ship on Fridays.\n---\n\n# Ship\n\nSee the [board](/board.md).\n")
    index = ws / ".okf/learnings/index.md"
    index.write_text(index.read_text() + "\n* [Ship on Fridays](ship.md) - when we ship.\n")
    audit = invoke("audit", cwd=ws, env=ENV)
    assert audit.returncode == 1 and "`okfpro log-snapshot`" in audit.stdout, audit.stdout
    ok("log-snapshot", cwd=ws)
    assert invoke("audit", cwd=ws, env=ENV).returncode == 0


def test_init_next_and_the_readme_tour_name_it(tmp_path: Path) -> None:
    out = ok("init", str(tmp_path / "n"), cwd=tmp_path)
    assert "okfpro log-snapshot" in out.split("Next", 1)[1]
    tour = (REPO / "README.md").read_text().split("## A two-minute tour", 1)[1].split("```", 2)[1]
    assert "okfpro log-snapshot" in tour


@pytest.mark.slow
def test_a_new_user_commits_through_the_door_in_one_step(tmp_path: Path) -> None:
    """No Git identity, a fresh HOME: init, pre-commit install, capture, commit (refused in a human's
    words, naming the command), log-snapshot, commit (lands)."""
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "okfpro").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m okfpro "$@"\n')
    (bin_dir / "okfpro").chmod(0o755)
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(REPO),
               GIT_CONFIG_NOSYSTEM="1", PRE_COMMIT_HOME=str(tmp_path / "pc"), OKFPRO_TODAY=TODAY)
    ws = tmp_path / "w"

    def sh(*args: str, identity: bool = False) -> subprocess.CompletedProcess:
        extra = {"GIT_AUTHOR_NAME": "N", "GIT_AUTHOR_EMAIL": "n@example.org", "GIT_COMMITTER_NAME": "N",
                 "GIT_COMMITTER_EMAIL": "n@example.org"} if identity else {}
        return subprocess.run(list(args), cwd=ws if ws.exists() else tmp_path, env={**env, **extra},
                              capture_output=True, text=True, timeout=600)

    assert sh("okfpro", "init", str(ws)).returncode == 0
    assert sh(sys.executable, "-m", "pre_commit", "install").returncode == 0
    assert sh("okfpro", "capture", "call the landlord").returncode == 0
    assert sh("git", "add", "-A").returncode == 0
    refused = sh("git", "commit", "-qm", "first", identity=True)
    said = refused.stdout + refused.stderr
    assert refused.returncode == 1 and "`okfpro log-snapshot`" in said and "before stopping" not in said, said
    assert sh("okfpro", "log-snapshot").returncode == 0
    assert sh("git", "add", ".okf/log.md").returncode == 0
    landed = sh("git", "commit", "-qm", "first", identity=True)
    assert landed.returncode == 0, landed.stdout + landed.stderr
