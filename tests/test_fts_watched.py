"""The prompt hook's freshness check with a resident watch view: the bundle's listing remembered at
a token is answered without a ``lstat`` per file only while nothing the walk sees changed, and is
always the listing the disk gives.  Real inotify, real files, the real FTS5 index."""

from __future__ import annotations

import os
import random

import pytest

from okfpro.io import fts
from okfpro.resident.watch import WatchSet
from tests import watchkit
from tests.helpers import quick
from tests.test_fts_fresh import fresh_reading, tree  # noqa: F401 - the fixture
from tests.test_watch import random_step


@pytest.fixture
def ws():
    yield from watchkit.watchset()


@pytest.fixture
def walks(monkeypatch):
    """How many times the listing was taken from the disk (the real walk, counted)."""
    count = [0]
    real = fts._stat_walk

    def counted(root_real, memo):
        count[0] += 1
        return real(root_real, memo)

    monkeypatch.setattr(fts, "_stat_walk", counted)
    return count


def fresh(ws: WatchSet, root, query: str = "delta"):
    with watchkit.served(ws):
        return fts.answer_fresh(root, query, 8)


@pytest.mark.parametrize("change", ["edit-text", "touch", "chmod", "add", "delete", "symlink", "rename",
                                    "hard-link-written-outside", "new-dir", "hidden", "not-markdown"])
def test_a_remembered_listing_answers_until_something_the_walk_sees_changes(tree, ws, walks, change, tmp_path):  # noqa: F811
    outside = tmp_path / "outside-link"
    os.link(tree / "n05.md", outside)  # before the reading: a new link moves the file's ctime
    want = fresh_reading(tree, "delta")
    ws.add(str(tree))
    assert fresh(ws, tree) == want and walks[0] == 1
    assert fresh(ws, tree) == want and walks[0] == 1  # nothing changed: no walk
    path = tree / "n03.md"
    if change == "edit-text":
        path.write_text(path.read_text().replace("body 3", "body 3 alpha"))
    elif change == "touch":
        os.utime(path)
    elif change == "chmod":
        os.chmod(path, 0o600)
    elif change == "add":
        (tree / "sub" / "new.md").write_text("---\ntitle: New alpha\n---\n\nalpha\n")
    elif change == "delete":
        path.unlink()
    elif change == "symlink":
        (tree / "link.md").symlink_to(path)
    elif change == "rename":
        path.rename(tree / "sub" / "n03.md")
    elif change == "hard-link-written-outside":
        with open(outside, "a") as fh:
            fh.write("delta from outside\n")
    elif change == "new-dir":
        (tree / "fresh").mkdir()
        (tree / "fresh" / "x.md").write_text("---\ntitle: X\n---\n\ndelta\n")
    elif change == "hidden":
        (tree / ".hidden.md").write_text("not the bundle's")
    elif change == "not-markdown":
        (tree / "notes.txt").write_text("not the bundle's")
    if change in ("hidden", "not-markdown"):
        assert fresh(ws, tree) == want and walks[0] == 1  # the walk does not see them
        return
    assert fresh(ws, tree) is None and walks[0] == 2
    want = fresh_reading(tree, "delta")
    got = fresh(ws, tree)
    assert got == (None if change == "symlink" else want)


@pytest.mark.parametrize("seed", range(2 if quick() else 6))
def test_the_listing_with_a_view_is_the_listing_on_disk(ws, tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "tree"
    (root / "a" / "b").mkdir(parents=True)
    for rel in ("x.md", "a/y.md", "a/b/z.md", ".hid/w.md", "a/plain.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    outside = tmp_path / "outside"
    outside.mkdir()
    ws.add(str(root))
    real = os.path.realpath(root)
    saved = 0
    for n in range(40 if quick() else 80):
        random_step(rng, str(root), str(outside), n)
        for _ in range(rng.randrange(1, 3)):
            with watchkit.served(ws):
                token = ws.token(real)
                got = fts._on_disk(real)
                saved += ws.changes_since(real, token) == set()
            assert got == fts._stat_walk(real, None), n
    assert saved
