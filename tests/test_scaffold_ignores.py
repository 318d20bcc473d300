"""Init into an existing repository completes its ``.gitignore``, and the doors refuse machine-local files (issue 38.3).

A new user's repository already has a ``.gitignore``; before, init staged the template beside it and a plain
``git add -A`` committed this machine's interpreter pin and init's ``*.okfpro-*`` copies, so every teammate's
hooks ran a path that does not exist on their machine.  Now init appends okfpro's lines (the owner's kept,
byte for byte, in their order; a re-run adds nothing), and ``audit`` — the pre-commit door — refuses a
commit whose index holds a machine-local file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke

OWNER = "# mine\nnode_modules/\n*.log\n!keep.log"  # no final newline: kept as it is, then ours after a newline


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "repo (existing)"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / ".gitignore").write_text(OWNER)
    (ws / "app.py").write_text("print('hi')\n")
    assert invoke("init", str(ws)).returncode == 0
    return ws


def test_init_adds_okfpros_lines_and_keeps_the_owners(ws: Path) -> None:
    text = (ws / ".gitignore").read_text()
    assert text.startswith(OWNER + "\n")
    template = (REPO / "template/seed/gitignore").read_text().splitlines()
    added = text[len(OWNER) + 1:].splitlines()
    assert [l for l in added if l and not l.startswith("#")] == [l for l in template if l and not l.startswith("#")]
    assert not (ws / ".gitignore.okfpro-new").exists()
    assert invoke("init", str(ws)).returncode == 0 and (ws / ".gitignore").read_text() == text  # idempotent
    assert invoke("upgrade", str(ws)).returncode == 0 and (ws / ".gitignore").read_text() == text


def test_upgrade_completes_a_gitignore_that_lost_a_line(ws: Path) -> None:
    gi = ws / ".gitignore"
    gi.write_text(gi.read_text().replace(".claude/hooks/okfpro-python\n", ""))
    assert invoke("upgrade", str(ws)).returncode == 0
    assert ".claude/hooks/okfpro-python" in gi.read_text().splitlines()


def test_git_add_all_leaves_the_machine_local_files_out(ws: Path) -> None:
    (ws / "app.py.okfpro-backup").write_text("x\n")
    (ws / ".tmp/scratch.txt").write_text("x\n")
    git(ws, "add", "-A")
    staged = git(ws, "diff", "--cached", "--name-only").splitlines()
    assert ".claude/hooks/okfpro-python" not in staged and "app.py.okfpro-backup" not in staged
    assert not any(p.startswith(".tmp/") and p != ".tmp/.gitkeep" for p in staged)
    assert invoke("audit", str(ws)).returncode == 0


@pytest.mark.parametrize("path", [".claude/hooks/okfpro-python", "app.py.okfpro-backup", ".gitignore.okfpro-backup.1",
                                  "sub/settings.json.okfpro-new", ".tmp/scratch.txt"])
def test_the_door_refuses_a_commit_that_adds_a_machine_local_file(ws: Path, path: str) -> None:
    target = ws / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("x\n")
    git(ws, "add", "-A")
    git(ws, "add", "-f", "--", path)  # forced past the ignore lines, as a hand-made `git add` would
    proc = invoke("audit", str(ws))
    assert proc.returncode == 1 and path in proc.stdout and "machine-local" in proc.stdout, proc.stdout
    assert f"git rm --cached -- '{path}'" in proc.stdout
    git(ws, "rm", "-q", "--cached", "--", path)
    assert invoke("audit", str(ws)).returncode == 0
