"""okfpro.io.roots: which bundle a directory or a file belongs to, on real directory trees.

Each rule of the module's docstring is one test: the three root kinds, ``.okf`` probed before
its level, the first strong or anchored root winning, the outermost weak one inside the Git
fence, only the starting level outside a repository (and the nearest weak root for a file),
and a file never claimed by a sibling ``.okf``.  Answers are strings; spellings a caller may
pass (relative, trailing separator, a ``Path``) get the same answer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from okfpro.io import roots

STRONG = "---\nokf_version: 0.2\ntitle: T\n---\n\n# T\n"
PLAIN = "# Index\n"


def bundle(d: Path, kind: str) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "index.md").write_text(STRONG if kind == "strong" else PLAIN)
    if kind == "weak":
        (d / "board.md").write_text("# Board\n")
    return d


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    return r


def test_the_three_kinds(tmp_path):
    assert roots.root_kind(bundle(tmp_path / "s", "strong")) == "strong"
    assert roots.root_kind(bundle(tmp_path / "w", "weak")) == "weak"
    assert roots.root_kind(bundle(tmp_path / "a" / ".okf", "weak")) == "anchored"
    assert roots.root_kind(str(tmp_path / "a" / ".okf") + os.sep) == "anchored"
    assert roots.root_kind(bundle(tmp_path / "bare", "plain")) is None  # index.md alone
    assert roots.root_kind(tmp_path / "missing") is None
    late = tmp_path / "late"
    late.mkdir()
    (late / "index.md").write_text("---\n" + "x: 1\n" * 101 + "okf_version: 0.2\n---\n")
    assert roots.root_kind(late) is None  # the fence must close within the first 101 lines
    unclosed = tmp_path / "unclosed"
    unclosed.mkdir()
    (unclosed / "index.md").write_text("---\nokf_version: 0.2\n")
    assert roots.root_kind(unclosed) is None


def test_enclosing_probes_dot_okf_before_the_level_and_stops_at_the_first_strong(repo):
    bundle(repo, "strong")
    nested = bundle(repo / "docs" / ".okf", "weak")
    assert roots.enclosing(repo / "docs") == str(nested)  # anchored: wins at once
    assert roots.enclosing(repo / "docs" / "deep") == str(nested)  # each level's .okf is probed on the way up
    assert roots.enclosing(repo / "other") == str(repo)
    assert roots.enclosing(repo) == str(repo)
    assert isinstance(roots.enclosing(repo), str)
    inner = bundle(repo / ".okf", "weak")  # the level's .okf before the level itself
    assert roots.enclosing(repo) == str(inner)


def test_enclosing_takes_the_outermost_weak_inside_the_fence(repo):
    bundle(repo / "a", "weak")
    bundle(repo / "a" / "b", "weak")
    (repo / "a" / "b" / "c").mkdir()
    assert roots.enclosing(repo / "a" / "b" / "c") == str(repo / "a")
    bundle(repo.parent / "outside", "weak")
    assert roots.enclosing(repo / "a" / "b" / "c") == str(repo / "a")  # nothing beyond the fence


def test_outside_a_repository_only_the_starting_level(tmp_path):
    top = bundle(tmp_path / "top", "strong")
    (top / "sub").mkdir()
    assert roots.enclosing(top / "sub") is None
    assert roots.enclosing(top) == str(top)
    assert roots.enclosing(tmp_path / "x" / "..") is None


def test_containing_never_probes_a_sibling_dot_okf_and_outside_a_repository_the_nearest_weak(repo, tmp_path):
    bundle(repo / ".okf", "weak")
    assert roots.containing(repo / "README.md") is None
    assert roots.containing(repo / ".okf" / "learnings" / "x.md") == str(repo / ".okf")
    outer = bundle(tmp_path / "loose", "weak")
    inner = bundle(outer / "inner", "weak")
    assert roots.containing(inner / "x.md") == str(inner)  # unfenced: nearest weak
    bundle(repo / "w1", "weak")
    bundle(repo / "w1" / "w2", "weak")
    assert roots.containing(repo / "w1" / "w2" / "x.md") == str(repo / "w1")  # fenced: outermost weak


def test_spellings_agree(repo, monkeypatch):
    bundle(repo / ".okf", "weak")
    monkeypatch.chdir(repo)
    want = str(repo / ".okf")
    for spelling in (".", "./", str(repo), str(repo) + os.sep, repo, Path(".")):
        assert roots.enclosing(spelling) == want, spelling
    assert Path(roots.resolve(".")) == Path(".okf")
    assert Path(roots.resolve(str(repo) + os.sep)) == repo / ".okf"
    assert roots.resolve(repo / "nothing") is None


def test_git_fence_and_repo_of(repo, tmp_path):
    (repo / "a" / "b").mkdir(parents=True)
    assert roots.git_fence(repo / "a" / "b") == str(repo)
    (repo / "a" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's or submodule's .git file
    assert roots.git_fence(repo / "a" / "b") == str(repo / "a")
    assert roots.git_fence(tmp_path) is None or not str(tmp_path).startswith(roots.git_fence(tmp_path) + "x")
    assert roots.repo_of(repo / ".okf") == str(repo)
    assert roots.repo_of(str(repo / ".okf") + os.sep) == str(repo)
    assert roots.repo_of(repo / "docs") == str(repo / "docs")
    assert roots.repo_of(".okf") == "." and roots.repo_of(Path(".okf")) == "."  # as Path(".okf").parent


@pytest.mark.parametrize(("path", "base", "inside"), [
    ("/a/b", "/a/b", True),
    ("/a/b/c", "/a/b", True),
    ("/a/b/c", "/a/b/", True),
    ("/a/bc", "/a/b", False),  # a sibling sharing the prefix is not inside
    ("/a", "/a/b", False),
    ("/anything", "/", True),
    ("/", "/", True),
])
def test_within_compares_components_not_prefixes(path, base, inside):
    assert roots.within(path, base) is inside
    assert Path(path).is_relative_to(base) is inside  # what it stands in for
