"""``okfpro records``: the commit door, on real Git repositories with real staged changes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import invoke

TODAY = "2026-11-30"
PAST = "2026-11-20"
ENTRY = "---\ntype: Journal Entry\ntitle: \"{d}\"\ndescription: What happened on {d}.\n---\n\n# {d}\n\nWork.\n"


def git(ws: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def records(ws: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return invoke("records", *extra, str(ws), env={"OKFPRO_TODAY": TODAY, **(env or {})})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A workspace made by ``okfpro init`` with a past day and today's entry committed."""
    ws = tmp_path / "w"
    assert invoke("init", str(ws)).returncode == 0
    journal = ws / ".okf" / "journal"
    for day in (PAST, TODAY):
        (journal / f"{day}.md").write_text(ENTRY.format(d=day))
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "start")
    return ws


def test_nothing_staged_is_append_only(repo: Path) -> None:
    proc = records(repo)
    assert (proc.returncode, proc.stdout.strip()) == (0, "okfpro records — append-only.")


def test_modifying_a_past_day_is_refused(repo: Path) -> None:
    path = repo / f".okf/journal/{PAST}.md"
    path.write_text(path.read_text() + "\nA correction.\n")
    git(repo, "add", str(path))
    proc = records(repo)
    assert proc.returncode == 1
    assert f"this commit modifies .okf/journal/{PAST}.md, a past day" in proc.stdout
    assert proc.stdout.lstrip().startswith("records")


def test_deleting_a_past_day_is_refused(repo: Path) -> None:
    git(repo, "rm", "-q", f".okf/journal/{PAST}.md")
    proc = records(repo)
    assert proc.returncode == 1
    assert f"deletes .okf/journal/{PAST}.md" in proc.stdout


def test_renaming_a_past_day_is_refused(repo: Path) -> None:
    git(repo, "mv", f".okf/journal/{PAST}.md", ".okf/journal/earlier.md")
    proc = records(repo)
    assert proc.returncode == 1
    assert f"modifies .okf/journal/{PAST}.md" in proc.stdout


def test_typechange_of_a_past_day_is_refused(repo: Path) -> None:
    path = repo / f".okf/journal/{PAST}.md"
    path.unlink()
    os.symlink(f"{TODAY}.md", path)
    git(repo, "add", str(path))
    proc = records(repo)
    assert proc.returncode == 1
    assert f"replaces .okf/journal/{PAST}.md" in proc.stdout


def test_additions_and_today_pass(repo: Path) -> None:
    journal = repo / ".okf/journal"
    (journal / "2026-11-21.md").write_text(ENTRY.format(d="2026-11-21"))  # a new past day: an addition
    (journal / f"{TODAY}.md").write_text(ENTRY.format(d=TODAY) + "\nMore today.\n")
    (journal / "2026-12-01.md").write_text(ENTRY.format(d="2026-12-01"))
    (repo / ".okf/board.md").write_text((repo / ".okf/board.md").read_text() + "\n")
    git(repo, "add", "-A")
    proc = records(repo)
    assert proc.returncode == 0, proc.stdout


def test_an_unstaged_edit_is_not_the_commit(repo: Path) -> None:
    path = repo / f".okf/journal/{PAST}.md"
    path.write_text("rewritten, but not staged\n")
    assert records(repo).returncode == 0


def test_the_day_is_relative_to_today(repo: Path) -> None:
    path = repo / f".okf/journal/{PAST}.md"
    path.write_text(path.read_text() + "\nSame day, later.\n")
    git(repo, "add", str(path))
    assert records(repo, env={"OKFPRO_TODAY": PAST}).returncode == 0
    assert records(repo, env={"OKFPRO_TODAY": "2026-11-21"}).returncode == 1


def test_every_offending_path_is_listed(repo: Path) -> None:
    second = "2026-11-19"
    (repo / f".okf/journal/{second}.md").write_text(ENTRY.format(d=second))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "another day")
    git(repo, "rm", "-q", f".okf/journal/{second}.md")
    past = repo / f".okf/journal/{PAST}.md"
    past.write_text("changed\n")
    git(repo, "add", str(past))
    proc = records(repo)
    assert proc.returncode == 1
    assert len([l for l in proc.stdout.splitlines() if l.strip().startswith("records")]) == 2


def test_git_that_cannot_answer_is_a_refusal(tmp_path: Path, repo: Path) -> None:
    loose = tmp_path / "not-a-repo"
    shutil.copytree(repo / ".okf", loose / ".okf")
    env = {"GIT_CEILING_DIRECTORIES": str(tmp_path)}
    proc = records(loose, env=env)
    assert proc.returncode == 1
    assert "could not read the staged change" in proc.stdout


def test_no_bundle_is_usage(tmp_path: Path) -> None:
    assert records(tmp_path).returncode == 2
    assert invoke("records", str(tmp_path / "missing")).returncode == 2


def test_the_pre_commit_index_is_honoured(repo: Path) -> None:
    """A hook sees the commit's index through GIT_INDEX_FILE (e.g. `git commit -a` or a partial commit)."""
    path = repo / f".okf/journal/{PAST}.md"
    path.write_text("changed in the work tree\n")
    index = repo / ".git" / "alt-index"
    env = {"GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "-C", str(repo), "read-tree", "HEAD"], env={**os.environ, **env}, check=True)
    subprocess.run(["git", "-C", str(repo), "add", str(path)], env={**os.environ, **env}, check=True)
    assert records(repo).returncode == 0  # the default index has nothing staged
    assert records(repo, env=env).returncode == 1
