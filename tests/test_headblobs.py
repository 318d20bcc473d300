"""HEAD's blobs answer for the few files changed in a tree git said clean (:mod:`okfpro.io.headblobs`):
whenever they answer, the answer is ``git status``'s; where they cannot — attributes, line-ending
settings, assume-unchanged and skip-worktree entries, untracked names, mode and type changes — they
say so and git is asked.  Real git repositories, real ``git status`` as the truth."""

from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from okfpro.io import headblobs
from tests.helpers import quick

sys.path.insert(0, str(Path(__file__).resolve().parent))
import watchkit  # noqa: E402

NAMES = ["a.md", "sub/b.md", "sub/deeper/c.md", "x.md", "new.md", "sub/new.md"]


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, check=check)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    watchkit.plain_git(tmp_path / "home", monkeypatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    top = tmp_path / "my repo"
    root = top / "bundle"  # the bundle a level down: paths carry the prefix in HEAD
    (root / "sub" / "deeper").mkdir(parents=True)
    git(top.parent, "init", "-q", str(top))
    for name in NAMES[:4]:
        (root / name).write_text(f"# {name}\n\nline\n")
    os.chmod(root / "x.md", 0o755)
    (top / "outside.md").write_text("outside\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "c")
    return top, root


def dirty_names(top: Path, root: Path, read_again: bool = False) -> list[str] | None:
    """git's answer for the Markdown files under ``root`` (root-relative), or None when the index
    does not hold HEAD's blob for every one of them (what the caller guarantees is not so).
    ``read_again``: every file's content compared (watchkit.read_again), not only what git's stat
    check lets through."""
    if git(root, "diff", "--cached", "--quiet", "--", "*.md", check=False).returncode != 0:
        return None
    argv = ["git", "-C", str(root), "--no-optional-locks", "status", "--porcelain", "-z", "--", "*.md"]
    with watchkit.read_again(str(root)) if read_again else contextlib.nullcontext(None) as env:
        out = subprocess.run(argv, capture_output=True, env=env, check=True).stdout.decode()
    return sorted({field[3:].removeprefix("bundle/") for field in out.split("\0") if field})


def asked(top: Path, root: Path) -> list[str] | None:
    return headblobs.dirty_now(str(root), [str(top / ".git")], NAMES)


def test_edits_restores_and_deletions_are_answered_as_git_answers(repo):
    top, root = repo
    a = root / "a.md"
    assert asked(top, root) == [] == dirty_names(top, root)
    a.write_text(a.read_text() + "more\n")
    assert asked(top, root) == ["a.md"] == dirty_names(top, root)
    git(top, "checkout", "--", ".")
    os.utime(a, ns=(1, 1))  # same content, another time: clean
    assert asked(top, root) == [] == dirty_names(top, root)
    (root / "sub" / "b.md").unlink()
    assert asked(top, root) == ["sub/b.md"] == dirty_names(top, root)
    git(top, "checkout", "--", ".")
    text = a.read_text()
    st = os.stat(a)
    a.write_text(text.replace("line", "lime"))  # same size, times put back: git's stat check may miss it
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert asked(top, root) == ["a.md"] == dirty_names(top, root, read_again=True)


@pytest.mark.parametrize("how", ["untracked", "mode", "link", "attributes", "top attributes", "info attributes",
                                 "autocrlf", "include", "assume-unchanged", "skip-worktree", "directory"])
def test_what_needs_the_index_or_the_rules_is_left_to_git(repo, how):
    top, root = repo
    a = root / "a.md"
    assert asked(top, root) == []  # answers, and keeps the index's plainness
    if how == "untracked":
        (root / "new.md").write_text("x")
    elif how == "mode":
        os.chmod(a, 0o755)
    elif how == "link":
        a.unlink()
        a.symlink_to("sub/b.md")
    elif how == "attributes":
        (root / "sub" / ".gitattributes").write_text("*.md text eol=crlf\n")
    elif how == "top attributes":
        (top / ".gitattributes").write_text("*.md filter=x\n")
    elif how == "info attributes":
        (top / ".git" / "info").mkdir(exist_ok=True)
        (top / ".git" / "info" / "attributes").write_text("*.md -text\n")
    elif how == "autocrlf":
        git(top, "config", "core.autocrlf", "input")
    elif how == "include":
        git(top, "config", "include.path", "elsewhere")
    elif how == "assume-unchanged":
        git(top, "update-index", "--assume-unchanged", "bundle/a.md")
        a.write_text("changed, and git does not look\n")
        assert dirty_names(top, root) == []
    elif how == "skip-worktree":
        git(top, "update-index", "--skip-worktree", "bundle/a.md")
        a.write_text("changed, and git does not look\n")
        assert dirty_names(top, root) == []
    elif how == "directory":
        (root / "new.md").mkdir()
    assert asked(top, root) is None


def _step(rng: random.Random, top: Path, root: Path, n: int) -> None:
    name = rng.choice(NAMES)
    path = root / name
    op = rng.randrange(16)
    if op >= 14:  # back to a clean tree: the state the gate's kept answer starts from
        for tracked in NAMES:
            git(top, "update-index", "--no-assume-unchanged", "--no-skip-worktree", f"bundle/{tracked}", check=False)
        git(top, "config", "--unset", "core.autocrlf", check=False)
        (root / "sub" / ".gitattributes").unlink(missing_ok=True)
        first = git(top, "rev-list", "--max-parents=0", "HEAD").stdout.decode().split()[0]
        git(top, "reset", "-q", "--hard", first)  # what later commits brought (links, attributes) gone too
        git(top, "clean", "-qfd")
    elif op == 0 and path.is_file():
        path.write_text(path.read_text() + f"edit {n}\n")
    elif op == 1:
        git(top, "checkout", "--", ".", check=False)
    elif op == 2 and path.is_file():
        path.unlink()
    elif op == 3:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text(f"made {n}\n")
    elif op == 4 and path.is_file():
        os.chmod(path, 0o755 if rng.random() < 0.5 else 0o644)
    elif op == 5 and path.is_file():
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    elif op == 6:
        (root / "sub" / ".gitattributes").write_text("*.md text\n") if rng.random() < 0.5 else \
            (root / "sub" / ".gitattributes").unlink(missing_ok=True)
    elif op == 7:
        git(top, "config", "core.autocrlf", "true") if rng.random() < 0.5 else \
            git(top, "config", "--unset", "core.autocrlf", check=False)
    elif op == 8 and path.is_file():
        flag = rng.choice(["--assume-unchanged", "--no-assume-unchanged", "--skip-worktree", "--no-skip-worktree"])
        git(top, "update-index", flag, f"bundle/{name}", check=False)
    elif op == 9:
        git(top, "add", "-A")
        if rng.random() < 0.7:
            git(top, "commit", "-qm", f"c{n}", check=False)
    elif op == 10:
        git(top, "reset", "-q", check=False)
    elif op == 11 and path.is_file():
        text = path.read_text()
        st = os.stat(path)
        path.write_text(text.replace("e", "a", 1) if "e" in text else "q" + text[1:])
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, mtime put back
    elif op == 12 and path.is_file():
        path.unlink()
        path.symlink_to(os.path.relpath(root / "a.md", path.parent))
    elif op == 13 and path.exists():
        data = path.read_bytes() if path.is_file() else b"x"
        path.unlink()
        path.write_bytes(data)  # the same bytes again, a new file


@pytest.mark.parametrize("seed", range(2 if quick() else 6))
def test_every_answer_is_gits_over_random_edits(repo, seed):
    top, root = repo
    rng = random.Random(seed)
    answered = 0
    for n in range(40 if quick() else 60):
        _step(rng, top, root, n)
        truth = dirty_names(top, root)
        if truth is None:
            continue  # the index is not HEAD's: the gate never asks then
        got = asked(top, root)
        if got is not None:
            # git's answer, or more where its stat check misses a rewrite at the same size with the
            # times put back: exactly the files whose content is not HEAD's
            assert got == dirty_names(top, root, read_again=True) and set(truth) <= set(got), n
            answered += 1
    assert answered


def test_the_index_is_asked_again_when_it_changed(repo):
    top, root = repo
    a = root / "a.md"
    a.write_text("edited\n")
    assert asked(top, root) == ["a.md"]  # plain: kept
    git(top, "update-index", "--assume-unchanged", "bundle/a.md")  # a new index: asked again
    assert dirty_names(top, root) == [] and asked(top, root) is None
    git(top, "update-index", "--no-assume-unchanged", "bundle/a.md")
    assert asked(top, root) == ["a.md"] == dirty_names(top, root)
