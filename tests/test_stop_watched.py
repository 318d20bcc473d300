"""The Stop gate with a resident watch view: a clean ``git status`` remembered at a token answers a
later Stop only when nothing that can change it changed since; its answer always equals git's.

Real git, a real WatchSet (real inotify), the gate's own :class:`GitStatus`; and real ``okfpro hook
stop`` requests in forked children that detach from the descriptor, as the server's will."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import okfpro.resident as resident
from okfpro.hooks.stop import GitStatus
from okfpro.io.cachedir import path_key, user_cache_dir
from okfpro.resident.watch import WatchSet
from tests.helpers import quick

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402
import watchkit  # noqa: E402


@pytest.fixture
def ws():
    yield from watchkit.watchset()


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    watchkit.plain_git(tmp_path / "home", monkeypatch)
    return hookkit.make_workspace(tmp_path)


def truth(root: str) -> bool:
    """git's own answer, with no view."""
    assert resident.SERVED is None
    dirty, failed = GitStatus(root).result()
    assert failed is None
    return dirty


def question(asked: list[list[str]]) -> tuple[str, list[str]]:
    """The last question the gate put to git: ``status`` or ``ls-tree`` (HEAD's blobs, asked with
    ``hash-object``), and the pathspecs it named."""
    argv = next(a for a in reversed(asked) if "status" in a or "ls-tree" in a)
    return ("status" if "status" in argv else "ls-tree"), argv[argv.index("--") + 1:]


def as_git(dirty: bool, root: str) -> bool:
    """``dirty`` is git's answer — or dirty where git's stat check cannot see a change its content
    shows (a file rewritten at the same size with its times put back): HEAD's blobs compared
    (okfpro.io.headblobs) see it, and saying dirty then only runs the checks."""
    return dirty == truth(root) or (dirty and watchkit.content_dirty(root))


def gated(ws: WatchSet, root: str, between=None) -> tuple[bool, bool]:
    """(dirty, answered without git) through a view drained now; then the server's part of what the
    request told it (a kept answer settled).  ``between``: run after the view's token was taken and
    before git runs."""
    with watchkit.served(ws) as box:
        if between is not None:
            between()
        status = GitStatus(root)
        skipped = status.how == "kept"
        dirty, failed = status.result()
    for message in box.told:
        if message[0] == "settled":
            ws.settle(*message[1:])
    assert failed is None
    return dirty, skipped


def test_a_clean_stop_is_remembered_and_any_doubt_runs_git(ws, workspace):
    root = str(workspace / ".okf")
    with watchkit.served(ws) as box:
        assert GitStatus(root).result() == (False, None)
        assert box.told == [("watch", os.path.realpath(root))]  # no token yet: the server is asked
    ws.add(root)
    assert gated(ws, root) == (False, False)  # git runs, its clean answer is kept
    assert gated(ws, root) == (False, True)  # nothing changed: no git
    (workspace / ".tmp" / "scratch.txt").write_text("outside the bundle\n")
    (workspace / ".okf" / "notes.txt").write_text("not Markdown\n")
    assert gated(ws, root) == (False, True)
    concept = workspace / ".okf" / "learnings" / "search-ranking.md"
    concept.write_text(concept.read_text() + "more\n")
    assert gated(ws, root) == (True, False)
    assert gated(ws, root) == (True, True)  # the dirty lines are kept: untouched since, still dirty
    (workspace / ".okf" / "learnings" / "other.md").write_text("# Other\n")
    assert gated(ws, root) == (True, True)  # another file changed: the kept line is still untouched
    (workspace / ".okf" / "learnings" / "other.md").unlink()
    hookkit.git(workspace, "commit", "-qam", "x")
    assert gated(ws, root) == (False, False)  # the git state changed
    assert gated(ws, root) == (False, True)
    other = WatchSet()  # another server instance: its tokens are foreign
    other.add(root)
    try:
        assert gated(other, root) == (False, False)
    finally:
        other.close()


def test_what_git_reads_outside_the_tree_is_part_of_the_answer(ws, workspace, monkeypatch, tmp_path):
    root = str(workspace / ".okf")
    ws.add(root)
    (workspace / ".okf" / "untracked.md").write_text("new\n")
    hookkit.git(workspace, "add", "-A")
    hookkit.git(workspace, "commit", "-qm", "x")
    excludes = tmp_path / "excludes"
    excludes.write_text("")
    (tmp_path / "home" / ".gitconfig").write_text(f"[core]\n\texcludesFile = {excludes}\n")
    (workspace / ".okf" / "ignored-by-global.md").write_text("x\n")
    excludes.write_text("ignored-by-global.md\n")
    assert gated(ws, root) == (False, False)
    assert gated(ws, root) == (False, True)
    excludes.write_text("")  # the user's excludes file, outside every watch
    assert gated(ws, root) == (True, False) and truth(root)
    excludes.write_text("ignored-by-global.md\n")
    assert gated(ws, root) == (False, False)
    (tmp_path / "included").write_text(f"[core]\n\texcludesFile = {excludes}\n")
    (tmp_path / "home" / ".gitconfig").write_text(f"[include]\n\tpath = {tmp_path / 'included'}\n")
    assert gated(ws, root)[1] is False and gated(ws, root)[1] is False  # an include: never remembered
    (tmp_path / "home" / ".gitconfig").write_text("")
    for name, value in (("GIT_DIR", str(workspace / ".git")), ("GIT_INDEX_FILE", str(tmp_path / "other-index")),
                        ("GIT_CONFIG_GLOBAL", str(tmp_path / "included")), ("GIT_ICASE_PATHSPECS", "1")):
        monkeypatch.setenv(name, value)
        assert gated(ws, root)[1] is False, name  # git may not answer from what is watched: never remembered
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_SSL_CAINFO", "/nonexistent")  # transport only: still remembered
    assert gated(ws, root) == (True, False)  # the global ignore is gone: git says dirty
    hookkit.git(workspace, "add", "-A")
    hookkit.git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "y")
    assert gated(ws, root) == (False, False)
    assert gated(ws, root) == (False, True)


def random_edit(rng: random.Random, ws_dir: Path, n: int) -> None:
    okf = ws_dir / ".okf"
    mds = sorted(p for p in okf.rglob("*.md") if p.is_file())
    g = lambda *a: subprocess.run(["git", "-C", str(ws_dir), *a], capture_output=True)  # noqa: E731
    op = rng.randrange(23)
    target = rng.choice(mds)
    if op == 0:
        target.write_text(target.read_text() + f"edit {n}\n")
    elif op == 1:
        (okf / f"new-{n}.md").write_text(f"new {n}\n")
    elif op == 2:
        target.unlink()
    elif op == 3:
        g("add", "-A")
    elif op == 4:
        g("add", "-A")
        g("commit", "-qm", f"c{n}")
    elif op == 5:
        g("checkout", "--", ".")
    elif op == 6:
        g("stash", "-u")
    elif op == 7:
        g("stash", "pop")
    elif op == 8:
        os.utime(target, ns=(n, n))
    elif op == 9:
        target.rename(target.with_suffix(".txt"))
    elif op == 10:
        (okf / f"plain-{n}.txt").write_text("x")
    elif op == 11:
        (ws_dir / ".gitignore").write_text(rng.choice([".tmp/*\n!.tmp/.gitkeep\n", ".tmp/*\n*.md\n"]))
    elif op == 12:
        g("reset", "-q", "--hard", rng.choice(["HEAD", "HEAD~1"]))
    elif op == 13:
        (okf / f"dir-{n}").mkdir()
        (okf / f"dir-{n}" / "x.md").write_text("x")
    elif op == 14:
        text = target.read_text()
        st = os.stat(target)
        target.write_text(text.replace("a", "e", 1) if "a" in text else "q" + text[1:])
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, mtime put back
    elif op == 15:  # a directory of concepts moved out of the tree
        dirs = sorted(p for p in okf.iterdir() if p.is_dir() and not p.name.startswith("."))
        if dirs:
            rng.choice(dirs).rename(ws_dir.parent / f"away-{n}")
    elif op == 17:  # a staged rename: a line with two paths
        g("mv", str(target), str(target.with_name(f"moved-{n}.md")))
    elif op == 18:  # a case variant of a tracked name
        target.with_name(target.stem.upper() + ".MD").write_text(f"case {n}\n")
    elif op == 19:
        link = okf / f"link-{n}.md"
        link.symlink_to(target)
    elif op == 20:  # a directory made and removed
        (okf / f"brief-{n}").mkdir()
        (okf / f"brief-{n}" / "x.md").write_text("x")
        shutil.rmtree(okf / f"brief-{n}")
    elif op == 21:  # a file made and removed
        (okf / f"flash-{n}.md").write_text("x")
        (okf / f"flash-{n}.md").unlink()
    elif op == 22 and target.is_file():  # back as committed
        g("checkout", "--", str(target))
    else:
        pass  # a Stop with nothing done


@pytest.mark.parametrize("seed", range(2 if quick() else 5))
def test_the_gate_with_a_view_always_says_what_git_says(ws, workspace, seed):
    rng = random.Random(seed)
    root = str(workspace / ".okf")
    ws.add(root)
    skipped = 0
    for n in range(30 if quick() else 60):
        random_edit(rng, workspace, n)
        dirty, was_skipped = gated(ws, root)
        assert as_git(dirty, root), n
        skipped += was_skipped
        if rng.random() < 0.4:  # a second Stop with nothing in between
            dirty, was_skipped = gated(ws, root)
            assert as_git(dirty, root), n
            skipped += was_skipped
    assert skipped  # the view saved git runs


def _stop(ws: WatchSet, workspace: Path) -> tuple[int, str]:
    event = {"hook_event_name": "Stop", "session_id": "s", "cwd": str(workspace), "stop_hook_active": False}
    code, _out, err = watchkit.forked(ws, ["hook", "stop"], json.dumps(event).encode(), str(workspace), hookkit.env())
    return code, err


def test_real_stop_requests_in_forked_children(ws, workspace):
    root = str(workspace / ".okf")
    ws.add(root)
    kept = None
    for _ in range(2):
        code, err = _stop(ws, workspace)
        assert code == 0, err
        records = [p for d in (workspace / ".tmp" / "okfpro-cache", Path(user_cache_dir()))
                   for p in d.glob(f"watched-gitclean-{path_key(root)}")]
        assert len(records) == 1
        st = os.stat(records[0])
        if kept is None:
            kept = (st.st_ino, st.st_mtime_ns)
        else:
            assert (st.st_ino, st.st_mtime_ns) == kept  # the second Stop did not run git (nothing re-kept)
    concept = workspace / ".okf" / "learnings" / "search-ranking.md"
    concept.write_text(concept.read_text() + "more\n")
    code, err = _stop(ws, workspace)
    assert code == 2 and "Snapshot" in err, err
    hookkit.git(workspace, "checkout", "--", ".")
    code, err = _stop(ws, workspace)
    assert code == 0, err
    assert ws.fileno() is not None  # the parent's descriptor is its own


def test_after_a_clean_stop_git_is_asked_about_the_changed_markdown_alone(ws, workspace, monkeypatch, tmp_path):
    root = str(workspace / ".okf")
    ws.add(root)
    assert gated(ws, root) == (False, False)  # clean, kept
    asked: list[list[str]] = []
    import okfpro.io.spawn as spawn

    real = spawn.Child.__init__

    def spy(self, argv):
        asked.append(list(argv))
        real(self, argv)

    monkeypatch.setattr(spawn.Child, "__init__", spy)
    concept = workspace / ".okf" / "learnings" / "search-ranking.md"
    before = concept.read_text()
    concept.write_text(before + "more\n")
    assert gated(ws, root) == (True, False)
    assert question(asked) == ("ls-tree", [":(literal)learnings/search-ranking.md"])  # HEAD's blob, no index read
    concept.write_text(before)  # back as committed: clean again, asked about that file alone
    assert gated(ws, root) == (False, False)
    assert question(asked) == ("ls-tree", [":(literal)learnings/search-ranking.md"])
    assert gated(ws, root) == (False, True)
    (workspace / ".okf" / "learnings" / "new-note.md").write_text("# New\n")  # untracked: dirty
    assert gated(ws, root) == (True, False)
    assert question(asked) == ("status", [":(literal)learnings/new-note.md"])  # HEAD lacks it
    assert truth(root) is True
    (workspace / ".okf" / ".gitignore").write_text("new-note.md\n")  # may change any file's status
    assert gated(ws, root) == (truth(root), False)
    assert question(asked) == ("status", ["*.md"])


def test_a_markdown_file_made_and_removed_since_a_clean_stop_is_asked_about_alone(ws, workspace, monkeypatch):
    root = str(workspace / ".okf")
    ws.add(root)
    assert gated(ws, root) == (False, False)
    asked: list[list[str]] = []
    import okfpro.io.spawn as spawn

    real = spawn.Child.__init__
    monkeypatch.setattr(spawn.Child, "__init__", lambda self, argv: (asked.append(list(argv)), real(self, argv))[1])
    gone = workspace / ".okf" / "learnings" / "for-a-moment.md"
    gone.write_text("# Here and gone\n")
    gone.unlink()
    assert gated(ws, root) == (False, True)  # made after git's answer and gone again: as git saw it
    (workspace / ".okf" / "learnings" / "search-ranking.md").rename(gone)  # a rename onto the name
    (workspace / ".okf" / "learnings" / "other.md").write_text("x")
    gone.rename(workspace / ".okf" / "learnings" / "search-ranking.md")
    (workspace / ".okf" / "learnings" / "other.md").unlink()
    assert gated(ws, root) == (False, False)  # a rename is not a creation; the moved file changed: asked
    assert question(asked) == ("ls-tree", [":(literal)learnings/search-ranking.md"])
    gone.mkdir()  # a directory at the name now: everything under it, so the whole tree is asked
    (gone / "inside.md").write_text("# Inside\n")
    assert gated(ws, root) == (truth(root), False) == (True, False)
    assert question(asked) == ("status", ["*.md"])


def test_a_kept_dirty_answer_says_dirty_only_while_a_line_of_it_is_untouched(ws, workspace, monkeypatch):
    """git's dirty lines are kept with the token: a later Stop is dirty without git while one of them
    is untouched since (its file, the index, the ignore rules unchanged); when every one was touched,
    git is asked about them and the changed files alone, and its answer is the whole tree's."""
    root = str(workspace / ".okf")
    ws.add(root)
    asked: list[list[str]] = []
    import okfpro.io.spawn as spawn

    real = spawn.Child.__init__
    monkeypatch.setattr(spawn.Child, "__init__", lambda self, argv: (asked.append(list(argv)), real(self, argv))[1])
    a = workspace / ".okf" / "learnings" / "search-ranking.md"
    before = a.read_text()
    a.write_text(before + "edit\n")
    assert gated(ws, root) == (True, False)  # full: no answer kept yet
    b = workspace / ".okf" / "learnings" / "b.md"
    b.write_text("# B\n")  # untracked, and the kept line (a) untouched: dirty, no git
    assert gated(ws, root) == (True, True)
    a.write_text(before)  # the kept line touched: git asked about it and b alone
    assert gated(ws, root) == (True, False)
    assert sorted(asked[-1][asked[-1].index("--") + 1:]) == [":(literal)learnings/b.md",
                                                            ":(literal)learnings/search-ranking.md"]
    assert truth(root)
    b.unlink()  # the only dirty line (b) touched: asked about b alone (a was clean) -> clean
    assert gated(ws, root) == (False, False)
    assert asked[-1][-1] == ":(literal)learnings/b.md" and asked[-1][-2] == "--"
    assert not truth(root)
    assert gated(ws, root) == (False, True)
    a.write_text(before + "again\n")
    assert gated(ws, root) == (True, False)
    variant = a.with_name("SEARCH-RANKING.md")  # a case variant: a kept line of its own
    variant.write_text("x")
    assert gated(ws, root) == (True, False)
    variant.unlink()  # it touches both kept lines (case folded): git asked about both, still dirty
    assert gated(ws, root) == (True, False) and truth(root)
    hookkit.git(workspace, "add", "-A")  # the index changed: a kept line proves nothing
    assert gated(ws, root) == (True, False) and truth(root)
    hookkit.git(workspace, "commit", "-qm", "c")
    assert gated(ws, root) == (False, False) and not truth(root)
    a.write_text(before)
    assert gated(ws, root) == (True, False)
    (workspace / ".okf" / ".gitignore").write_text("search-ranking.md\n")  # an ignore file: no shortcut
    assert gated(ws, root) == (truth(root), False)
    assert question(asked) == ("status", ["*.md"])


def test_a_name_made_before_git_answered_is_asked_about(ws, workspace, monkeypatch):
    """The race a kept clean answer must not lose: its token is taken when the request starts, git
    answers later.  A tracked file absent at the token and restored before git ran makes git say
    clean; deleted after, the tree is dirty — "absent at the token, absent now" would say clean.
    Only a name made after the answer was settled (the server drained after the request ended)
    and absent now is taken as git saw it."""
    root = str(workspace / ".okf")
    ws.add(root)
    concept = workspace / ".okf" / "learnings" / "search-ranking.md"
    text = concept.read_text()
    assert gated(ws, root) == (False, False)  # clean, kept
    concept.unlink()  # deleted (dirty) when the next request's token is taken, restored before its git runs
    assert gated(ws, root, between=lambda: concept.write_text(text)) == (False, False)
    concept.unlink()  # its first change since the token was its creation, but before git answered
    assert gated(ws, root) == (True, False) and truth(root)
    concept.write_text(text)
    assert gated(ws, root) == (False, False)
    # made after the answer settled, gone now: each kind of name is as git saw it, or asked about
    flash = workspace / ".okf" / "learnings" / "flash.md"
    flash.write_text("x")
    flash.unlink()
    assert gated(ws, root) == (False, True)
    flash.symlink_to(concept)  # a symlink made and removed
    flash.unlink()
    assert gated(ws, root) == (False, True)
    flash.write_text("x")  # made and still there: untracked, dirty
    assert gated(ws, root) == (True, False) and truth(root)
    flash.unlink()
    assert gated(ws, root) == (False, False)  # it existed when git answered: asked
    box = workspace / ".okf" / "learnings" / "box"
    box.mkdir()  # a directory made and removed: everything under it, the whole tree asked
    (box / "in.md").write_text("x")
    (box / "in.md").unlink()
    box.rmdir()
    asked: list[list[str]] = []
    import okfpro.io.spawn as spawn

    real = spawn.Child.__init__
    monkeypatch.setattr(spawn.Child, "__init__", lambda self, argv: (asked.append(list(argv)), real(self, argv))[1])
    assert gated(ws, root) == (False, False) and question(asked) == ("status", ["*.md"])
    upper = workspace / ".okf" / "learnings" / "SEARCH-RANKING.md"  # a case variant made and removed
    upper.write_text("x")
    upper.unlink()
    assert gated(ws, root) == (False, True)
    flash.write_text("x")
    flash.rename(workspace / ".okf" / "learnings" / "moved-away.md")  # made, then renamed: the new name stays
    assert gated(ws, root) == (True, False) and truth(root)
    (workspace / ".okf" / "learnings" / "moved-away.md").unlink()
    assert gated(ws, root) == (False, False)
    concept.unlink()  # a tracked file deleted, made again, deleted: its first change was no creation
    concept.write_text(text)
    concept.unlink()
    assert gated(ws, root) == (True, False) and truth(root)
    concept.write_text(text)
    assert gated(ws, root) == (False, False)
    flash.write_text("x")
    flash.rename(concept)  # a rename over a tracked file (a move is no creation), then that file deleted
    concept.unlink()
    assert gated(ws, root) == (True, False) and truth(root)
