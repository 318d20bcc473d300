"""Readers never write into a tree they were only asked to read.

Every reading verb is run as a real process on (a) a plain directory holding a bundle (no
okfpro workspace: no ``okfpro.toml``) and (b) a read-only copy of one, and the tree must hold
exactly the same paths afterwards — no ``.tmp/``, no cache, no index, no lock.  The caches
still work: outside a workspace they land in the user's cache directory, keyed by the
bundle's real path; inside a workspace (``okfpro.toml``) you work in (it encloses the working
directory) in its ``.tmp/okfpro-cache`` — read from elsewhere, as a registered bundle is, it gets none.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from okfpro.io import cache
from tests.helpers import invoke

READERS = (
    ("validate",), ("lint",), ("search", "alpha", "--bundle"), ("search", "alpha", "--engine", "ranked", "--bundle"),
    ("catalog",), ("files",), ("index",), ("graph",), ("graph", "--hubs"), ("stats",), ("tags",), ("types",),
    ("dirs",), ("loose",), ("references",), ("read", "notes/alpha", "--bundle"), ("state",), ("board",),
)


def _tree(root: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, name), root))
    return out


def _bundle(base: Path) -> Path:
    okf = base / ".okf"
    (okf / "notes").mkdir(parents=True)
    (okf / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n\n* [alpha](notes/alpha.md) - a.\n')
    (okf / "board.md").write_text("# Board\n\n## In flight (0/3)\n\n## Inbox\n\n## Backlog\n")
    (okf / "notes" / "alpha.md").write_text("---\ntype: Note\ntitle: Alpha\ndescription: a.\n---\n\nAlpha body.\n")
    (okf / "notes" / "bad.md").write_text("---\nbroken: [\n---\n")
    return base


def _run_all(where: Path, cache_home: Path) -> None:
    env = {"XDG_CACHE_HOME": str(cache_home)}
    for args in READERS:
        proc = invoke(*args, str(where), env=env, cwd=where)
        assert proc.returncode in (0, 1), (args, proc.stderr)
    # and with no DIR, from inside the tree
    for args in (("catalog",), ("search", "alpha"), ("lint",)):
        assert invoke(*args, env=env, cwd=where).returncode in (0, 1), args


def test_a_plain_directory_gets_no_new_file(tmp_path):
    base = _bundle(tmp_path / "plain")
    before = _tree(base)
    home = tmp_path / "cache-home"
    _run_all(base, home)
    assert _tree(base) == before
    # the caches went to the user's cache directory instead, keyed by the bundle's real path
    assert cache.cache_path(base / ".okf").name in {p.name for p in (home / "okfpro").iterdir()}


def test_a_read_only_copy_gets_no_new_file_and_still_answers(tmp_path):
    base = _bundle(tmp_path / "ro")
    (base / "okfpro.toml").write_text("")  # even a workspace's tree, when it is read-only
    for dirpath, dirnames, filenames in os.walk(base):
        for name in filenames + dirnames:
            p = os.path.join(dirpath, name)
            os.chmod(p, os.stat(p).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    os.chmod(base, 0o555)
    try:
        before = _tree(base)
        _run_all(base, tmp_path / "cache-home")
        assert _tree(base) == before
    finally:
        for dirpath, dirnames, _ in os.walk(base):
            os.chmod(dirpath, 0o755)


def test_a_workspace_keeps_its_cache_in_its_own_tmp(tmp_path, monkeypatch):
    base = _bundle(tmp_path / "ws")
    (base / "okfpro.toml").write_text("")
    home = tmp_path / "cache-home"
    # read from elsewhere (a path, as a registered @slug is read): the workspace is only read
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = _tree(base)
    proc = invoke("catalog", str(base), "--json", env={"XDG_CACHE_HOME": str(home)}, cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert _tree(base) == before and home.exists()
    # worked in: its caches live in its own .tmp/
    proc = invoke("catalog", str(base), "--json", env={"XDG_CACHE_HOME": str(home)}, cwd=base)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.chdir(base)
    assert cache.cache_dir(base / ".okf") == str(base / ".tmp" / "okfpro-cache")
    assert (base / ".tmp" / "okfpro-cache").is_dir()


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_a_blank_or_relative_cache_home_falls_back_to_the_home_cache(monkeypatch, value):
    monkeypatch.setenv("XDG_CACHE_HOME", value)
    assert cache.user_cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "okfpro")
