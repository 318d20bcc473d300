"""The Stop gate yields on ``stop_hook_active`` (the host's advice), so at the agent door "cannot stop
without a Snapshot line" is one reminder; audit — and so the pre-commit door — refuses the same thing.

The Stop hook runs as a real process; init, audit and snapshot in the test's process (tests.helpers.invoke:
the same entry point, exit code and output; audit at the real pre-commit door is tests/test_precommit.py's)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import invoke

TODAY = "2026-11-30"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return invoke(*args, cwd=cwd, env={"OKFPRO_TODAY": TODAY})


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


def test_audit_refuses_what_the_stop_gate_asks_for(tmp_path):
    ws = tmp_path / "w"
    assert run("init", str(ws), cwd=tmp_path).returncode == 0
    assert run("audit", cwd=ws).returncode == 0  # the scaffold's first commit is not held to it
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "init")
    note = ws / ".okf" / "learnings" / "ship.md"
    note.write_text("---\ntype: Learning\ntitle: Ship on Fridays\ndescription: We ship on Fridays, after the review.\n---\n\n"
                    "# Ship on Fridays\n\nSee the [board](/board.md).\n")
    index = ws / ".okf" / "learnings" / "index.md"
    index.write_text(index.read_text() + "\n* [Ship on Fridays](ship.md) - when we ship.\n")
    stop = subprocess.run([sys.executable, "-m", "okfpro", "hook", "stop"], input=f'{{"cwd": "{ws}"}}', text=True,
                          capture_output=True, env={**os.environ, "OKFPRO_TODAY": TODAY})
    assert stop.returncode == 2 and "no Snapshot line" in stop.stderr
    audit = run("audit", cwd=ws)
    assert audit.returncode == 1 and "no Snapshot line" in audit.stdout, audit.stdout
    line = run("snapshot", cwd=ws).stdout.strip()
    log = ws / ".okf" / "log.md"
    log.write_text(log.read_text() + f"\n## {TODAY}\n\n* Wrote the shipping learning.\n{line}\n")
    audit = run("audit", cwd=ws)
    assert audit.returncode == 0, audit.stdout
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "work")
    assert run("audit", cwd=ws).returncode == 0  # a clean checkout (CI) has nothing to answer for
