"""The walk the prompt hook's freshness check remembers (okfpro/io/listing.py ``walked``): a bundle's
directories are listed again only when one of them is not the directory the remembered walk
listed (its device, inode, mtime or ctime moved), and a directory is remembered only when it is
older than the timestamps' granularity could hide.  Real files; every kind of change answers the
walk of the disk as it is now."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from okfpro.io import listing
from okfpro.io.reader import walk


@pytest.fixture()
def tree(tmp_path):
    root = tmp_path / ".okf"
    for sub in ("", "a", "a/deep", "b"):
        (root / sub).mkdir(parents=True, exist_ok=True)
        for i in range(3):
            (root / sub / f"n{i}.md").write_text(f"note {sub} {i}\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.md").write_text("hidden\n")
    return root


@pytest.fixture()
def settled(monkeypatch):
    """Every directory counts as old enough to remember; each test then waits out the timestamps'
    granularity before it changes anything (what the real window of two seconds guarantees)."""
    monkeypatch.setattr(listing, "WALK_RACY_NS", -1)


def remembered(root: Path, memo: str) -> list[str]:
    rels = listing.walked(str(root), memo)
    assert os.path.exists(memo)
    time.sleep(0.05)  # past a coarse clock tick: a change now gets a later mtime
    return rels


def test_a_remembered_walk_is_answered_without_listing(tree, tmp_path, settled):
    memo = str(tmp_path / "memo")
    assert remembered(tree, memo) == walk(tree)
    # what the memo says is what is answered while the directories are the same (a forged memo is
    # trusted as the parse cache is: only shape is checked)
    with open(memo, encoding="utf-8") as fh:
        parts = fh.read().split("\x00")
    forged = parts[:3 + 5 * int(parts[1])] + ["planted.md"] * int(parts[2])
    with open(memo, "w", encoding="utf-8") as fh:
        fh.write("\x00".join(forged))
    assert listing.walked(str(tree), memo) == ["planted.md"] * len(walk(tree))


def _utime_back(path: Path, st: os.stat_result) -> None:
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("change", ["add", "add-root", "delete", "rename-file", "rename-dir", "new-dir", "dir-to-symlink",
                                    "unreadable-dir", "hidden-to-visible", "same-mtime", "md-to-dir"])
def test_every_change_is_walked_again(tree, tmp_path, settled, change):
    memo = str(tmp_path / "memo")
    remembered(tree, memo)
    deep = tree / "a" / "deep"
    if change == "add":
        (deep / "new.md").write_text("new\n")
    elif change == "add-root":
        (tree / "new.md").write_text("new\n")
    elif change == "delete":
        (deep / "n1.md").unlink()
    elif change == "rename-file":
        (deep / "n1.md").rename(deep / "m1.md")
    elif change == "rename-dir":
        (tree / "a").rename(tree / "c")
    elif change == "new-dir":
        (tree / "b" / "fresh").mkdir()
        (tree / "b" / "fresh" / "f.md").write_text("f\n")
    elif change == "dir-to-symlink":  # the same files, reached through a link the walk never follows
        (tree / "b").rename(tmp_path / "b-elsewhere")
        (tree / "b").symlink_to(tmp_path / "b-elsewhere")
    elif change == "unreadable-dir":
        if os.geteuid() == 0:
            pytest.skip("root reads any directory")
        deep.chmod(0o000)
    elif change == "hidden-to-visible":
        (tree / ".hidden").rename(tree / "visible")
    elif change == "same-mtime":  # a file added and the directory's mtime put back: its ctime still moves
        st = deep.stat()
        (deep / "new.md").write_text("new\n")
        _utime_back(deep, st)
        assert deep.stat().st_mtime_ns == st.st_mtime_ns
    elif change == "md-to-dir":
        (deep / "n2.md").unlink()
        (deep / "n2.md").mkdir()
        (deep / "n2.md" / "inner.md").write_text("inner\n")
    try:
        assert listing.walked(str(tree), memo) == walk(tree)
        assert listing.walked(str(tree), memo) == walk(tree)  # and remembered again
    finally:
        deep.chmod(0o755) if deep.exists() else None


def test_a_directory_that_cannot_be_listed_is_not_remembered(tree, tmp_path, settled):
    if os.geteuid() == 0:
        pytest.skip("root lists any directory")
    memo = str(tmp_path / "memo")
    (tree / "b").chmod(0o000)
    try:
        assert listing.walked(str(tree), memo) == walk(tree)
        assert not os.path.exists(memo)  # else its files would stay missing after it is readable again
    finally:
        (tree / "b").chmod(0o755)
    assert listing.walked(str(tree), memo) == walk(tree)
    assert "b/n0.md" in walk(tree)


def test_a_young_directory_is_not_remembered(tree, tmp_path):
    memo = str(tmp_path / "memo")
    assert listing.walked(str(tree), memo) == walk(tree)  # just written: within the window
    assert not os.path.exists(memo)


@pytest.mark.parametrize("garbage", ["", "okfpro-walk-1", "okfpro-walk-1\x00x\x002", "okfpro-walk-1\x009\x001\x00a",
                                     "something else\x001\x000\x00\x001\x002\x003\x004"])
def test_a_memo_that_does_not_read_is_walked_over(tree, tmp_path, settled, garbage):
    memo = str(tmp_path / "memo")
    with open(memo, "w", encoding="utf-8") as fh:
        fh.write(garbage)
    assert listing.walked(str(tree), memo) == walk(tree)


def test_no_memo_or_an_unwritable_place_is_only_a_walk(tree, tmp_path, settled):
    assert listing.walked(str(tree), None) == walk(tree)
    assert listing.walked(str(tree), str(tmp_path / "missing-dir" / "memo")) == walk(tree)
    assert not (tmp_path / "missing-dir").exists()
