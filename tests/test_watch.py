"""okfpro.io.watch (the MCP server's file watcher): real inotify on real trees and real git repositories.

Every answer must be "unknown" (None) or a superset of what truly changed: a path is covered when it
is in the answer, or a directory at or above it is (``dir/``, the root as ``/``)."""

from __future__ import annotations

import hashlib
import mmap
import os
import random
import shutil
import stat
import struct
import subprocess
import sys

import pytest

from okfpro.io import watch as watchmod
from okfpro.io.watch import GIT, WatchSet
from tests.helpers import quick

GITENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(cwd, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GITENV
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def ws():
    w = WatchSet()
    assert w.fileno() is not None, w.unavailable
    yield w
    w.close()


@pytest.fixture
def repo(tmp_path):
    """A work tree with a git repository, its bundle in ``.okf`` (two concepts, one subdirectory)."""
    top = tmp_path / "ws"
    (top / ".okf" / "sub").mkdir(parents=True)
    (top / ".okf" / "a.md").write_text("a\n")
    (top / ".okf" / "sub" / "b.md").write_text("b\n")
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "init")
    return top


def since(ws: WatchSet, root, token):
    ws.drain()
    return ws.changes_since(root, token)


def covered(path: str, answer: set[str]) -> bool:
    if path in answer or "/" in answer:
        return True
    parts = path.split("/")
    return any("/".join(parts[:i]) + "/" in answer for i in range(1, len(parts) + 1))


# ---------------------------------------------------------------------- the basics
def test_unwatched_then_watched_then_a_write(ws, repo):
    root = str(repo / ".okf")
    assert ws.token(root) is None and ws.changes_since(root, "x:1") is None
    ws.add(root)
    assert ws.status(root) == ("watched", "") and ws.roots() == [os.path.realpath(root)]
    t = ws.token(root)
    assert since(ws, root, t) == set()
    (repo / ".okf" / "a.md").write_text("a2\n")
    assert since(ws, root, t) == {"a.md"}
    t2 = ws.token(root)
    assert since(ws, root, t2) == set() and since(ws, root, t) == {"a.md"}
    ws.add(root)  # idempotent: the token stays good
    assert ws.changes_since(root, t2) == set()


def test_foreign_malformed_and_future_tokens_are_unknown(ws, repo):
    root = str(repo / ".okf")
    ws.add(root)
    other = WatchSet()
    other.add(root)
    try:
        assert ws.changes_since(root, other.token(root)) is None
    finally:
        other.close()
    t = ws.token(root)
    instance, gen = t.split(":")
    for bad in ("", "junk", f"{instance}:", f"{instance}:-1", f"{instance}:{int(gen) + 5}", f"{instance}:x"):
        assert ws.changes_since(root, bad) is None, bad


def test_touch_chmod_truncate_and_same_size_rewrite(ws, repo):
    root = str(repo / ".okf")
    a = repo / ".okf" / "a.md"
    ws.add(root)
    for act in (lambda: os.utime(a, (1, 1)), lambda: os.chmod(a, 0o600), lambda: os.truncate(a, 0),
                lambda: a.write_text("zz\n"), lambda: os.utime(a, ns=(5, 5))):
        t = ws.token(root)
        act()
        assert since(ws, root, t) == {"a.md"}


def test_renames_within_into_and_out_of_the_tree(ws, repo, tmp_path):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    os.rename(repo / ".okf" / "a.md", repo / ".okf" / "sub" / "c.md")
    assert {"a.md", "sub/c.md"} <= since(ws, root, t)
    t = ws.token(root)
    (tmp_path / "out.md").write_text("o\n")
    os.rename(tmp_path / "out.md", repo / ".okf" / "in.md")
    assert "in.md" in since(ws, root, t)
    t = ws.token(root)
    os.rename(repo / ".okf" / "in.md", tmp_path / "gone.md")
    assert "in.md" in since(ws, root, t)
    t = ws.token(root)
    (tmp_path / "gone.md").write_text("written outside after it left\n")  # no longer ours
    assert since(ws, root, t) == set()


def test_a_directory_renamed_reports_both_names_and_follows_the_new_one(ws, repo):
    root = str(repo / ".okf")
    (repo / ".okf" / "sub" / "deep").mkdir()
    (repo / ".okf" / "sub" / "deep" / "d.md").write_text("d\n")
    ws.add(root)
    t = ws.token(root)
    os.rename(repo / ".okf" / "sub", repo / ".okf" / "moved")
    answer = since(ws, root, t)
    for path in ("sub/b.md", "sub/deep/d.md", "moved/b.md", "moved/deep/d.md"):
        assert covered(path, answer), (path, answer)
    t = ws.token(root)
    (repo / ".okf" / "moved" / "deep" / "d.md").write_text("d2\n")
    assert since(ws, root, t) == {"moved/deep/d.md"}
    t = ws.token(root)
    (repo / ".okf" / "sub").mkdir()  # the old name again: a new directory, watched
    (repo / ".okf" / "sub" / "n.md").write_text("n\n")
    assert covered("sub/n.md", since(ws, root, t))
    t = ws.token(root)
    (repo / ".okf" / "sub" / "n.md").write_text("n2\n")
    assert since(ws, root, t) == {"sub/n.md"}


def test_a_new_tree_filled_before_the_drain_is_reported_and_watched(ws, repo, tmp_path):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    deep = repo / ".okf" / "n1" / "n2" / "n3"
    deep.mkdir(parents=True)
    (deep / "x.md").write_text("x\n")
    answer = since(ws, root, t)
    assert covered("n1/n2/n3/x.md", answer)
    t = ws.token(root)
    (deep / "x.md").write_text("x2\n")
    assert since(ws, root, t) == {"n1/n2/n3/x.md"}
    outside = tmp_path / "bring" / "in"
    outside.mkdir(parents=True)
    (outside / "y.md").write_text("y\n")
    t = ws.token(root)
    os.rename(tmp_path / "bring", repo / ".okf" / "brought")
    assert covered("brought/in/y.md", since(ws, root, t))
    t = ws.token(root)
    (repo / ".okf" / "brought" / "in" / "y.md").write_text("y2\n")
    assert since(ws, root, t) == {"brought/in/y.md"}


def test_a_directory_moved_out_is_forgotten(ws, repo, tmp_path):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    os.rename(repo / ".okf" / "sub", tmp_path / "away")
    assert covered("sub/b.md", since(ws, root, t))
    t = ws.token(root)
    (tmp_path / "away" / "b.md").write_text("elsewhere now\n")
    assert since(ws, root, t) == set()
    assert not any(path.startswith("sub") for path in ws._roots[os.path.realpath(root)].dirs)


def test_symlinks_are_never_vouched_for(ws, repo, tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "t.md").write_text("t\n")
    (repo / ".okf" / "linked").symlink_to(target)
    (repo / ".okf" / "l.md").symlink_to(tmp_path / "target" / "t.md")
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    assert {"linked", "l.md"} <= since(ws, root, t)
    (target / "t.md").write_text("changed behind the link\n")
    assert covered("linked/t.md", since(ws, root, t)) or "linked" in since(ws, root, t)
    os.unlink(repo / ".okf" / "l.md")
    os.unlink(repo / ".okf" / "linked")
    ws.drain()
    t = ws.token(root)
    assert since(ws, root, t) == set()
    (repo / ".okf" / "new").symlink_to(target)
    assert "new" in since(ws, root, t)
    assert "new" in since(ws, root, ws.token(root))  # still, at every later token


def test_a_hard_link_written_from_outside(ws, repo, tmp_path):
    early = tmp_path / "early-link"
    os.link(repo / ".okf" / "a.md", early)  # linked before the watch began
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    with open(early, "a") as fh:
        fh.write("through the other name\n")
    assert since(ws, root, t) == {"a.md"}
    late = tmp_path / "late-link"
    os.link(repo / ".okf" / "sub" / "b.md", late)  # linked after
    ws.drain()
    t = ws.token(root)
    with open(late, "r+") as fh:
        fh.write("B")  # same size, in place
    assert since(ws, root, t) == {"sub/b.md"}
    os.link(repo / ".okf" / "a.md", repo / ".okf" / "twin.md")  # two names inside the tree
    ws.drain()
    t = ws.token(root)
    with open(early, "a") as fh:
        fh.write("x")
    assert since(ws, root, t) == {"a.md", "twin.md"}


def test_a_writable_mapping_is_changed_until_it_is_closed(ws, repo):
    root = str(repo / ".okf")
    ws.add(root)
    fd = os.open(repo / ".okf" / "a.md", os.O_RDWR)
    mapped = mmap.mmap(fd, 0)
    os.close(fd)
    ws.drain()
    t = ws.token(root)
    mapped[0:1] = b"Z"  # no event at all: the open file description is what says "changing"
    assert since(ws, root, t) == {"a.md"}
    mapped.close()
    assert since(ws, root, t) == {"a.md"}
    assert since(ws, root, ws.token(root)) == set()
    assert (repo / ".okf" / "a.md").read_bytes().startswith(b"Z")


def test_a_mapping_opened_right_before_a_read_is_still_open_after_the_reads_close(ws, repo):
    """The kernel merges an event into the one queued last when the two are identical: a read's open
    queued right behind a mapping's would arrive as one open, and the read's close would leave the
    count at zero while the mapping still writes.  The directory's echo of each open (DIR_MASK)
    keeps them apart."""
    root = str(repo / ".okf")
    ws.add(root)
    ws.drain()
    t = ws.token(root)
    fd = os.open(repo / ".okf" / "a.md", os.O_RDWR)
    mapped = mmap.mmap(fd, 0)
    os.close(fd)  # the mapping holds the file open: no close yet
    with open(repo / ".okf" / "a.md", "rb") as fh:  # its open queued right behind the mapping's
        fh.read()
    try:
        mapped[0:1] = b"Z"
        assert since(ws, root, t) == {"a.md"}
        assert since(ws, root, ws.token(root)) == {"a.md"}  # still open: changing at every token
    finally:
        mapped.close()
    ws.drain()  # its close: a change (IN_CLOSE_WRITE), then closed
    assert since(ws, root, ws.token(root)) == set()


def test_two_closes_back_to_back_leave_a_file_closed(ws, repo):
    """The other side of the merge: opens apart, closes adjacent.  Merged, the count would stay one
    too high, and the file would read as changed at every later token."""
    root = str(repo / ".okf")
    ws.add(root)
    ws.drain()
    first = open(repo / ".okf" / "a.md", "rb")
    (repo / ".okf" / "sub" / "b.md").read_bytes()  # something between the two opens
    second = open(repo / ".okf" / "a.md", "rb")
    second.close()
    first.close()
    ws.drain()
    assert since(ws, root, ws.token(root)) == set()


def test_the_root_deleted_moved_or_replaced_is_unknown(ws, repo, tmp_path):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    os.rename(repo, tmp_path / "elsewhere")  # an ancestor moves: no event on the root's own watch
    assert since(ws, root, t) is None and ws.token(root) is None
    os.rename(tmp_path / "elsewhere", repo)
    (tmp_path / "twin").mkdir()
    t = ws.token(root)
    assert t is not None  # the same directory again (moved back): nothing was missed under it
    shutil.rmtree(repo / ".okf")
    (repo / ".okf").mkdir()
    assert since(ws, root, t) is None and ws.token(root) is None
    assert ws.status(root)[0] == "gone"
    ws.add(root)  # watched again on request
    assert ws.changes_since(root, t) is None
    assert since(ws, root, ws.token(root)) == set()


def test_a_replaced_root_is_unknown(ws, repo, tmp_path):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    (tmp_path / "other").mkdir()
    shutil.rmtree(repo / ".okf")
    os.rename(tmp_path / "other", repo / ".okf")
    assert since(ws, root, t) is None


def test_a_queue_overflow_makes_every_older_token_unknown(ws, repo):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    with open("/proc/sys/fs/inotify/max_queued_events") as fh:
        limit = int(fh.read())
    a, b = repo / ".okf" / "a.md", repo / ".okf" / "sub" / "b.md"
    for i in range(limit // 2 + 10):  # alternate: identical consecutive events are merged
        os.utime(a, ns=(i, i))
        os.utime(b, ns=(i, i))
    assert since(ws, root, t) is None
    t = ws.token(root)
    assert since(ws, root, t) == set()
    a.write_text("after\n")
    assert since(ws, root, t) == {"a.md"}


def overflow_by_reading(paths, limit: int) -> None:
    """Fill the queue past ``limit`` with reads alone (an open and a close, and the directory's echo
    of each, per read): nothing changes."""
    for i in range(limit // 4 + 64):
        with open(paths[i % len(paths)], "rb") as fh:
            fh.read(1)


def test_a_rebuild_keeps_its_watches_and_queues_nothing(ws, repo):
    """After an overflow the root is walked again without dropping its watches first: removing one
    queues an ``IN_IGNORED``, and a root of more files than the queue holds overflowed it again —
    every call, for ever (the 50,000-concept bundle)."""
    root = str(repo / ".okf")
    ws.add(root)
    r = ws._roots[os.path.realpath(root)]
    before = dict(r.files), dict(r.dirs), dict(r.git)
    overflow_by_reading([repo / ".okf" / "a.md", repo / ".okf" / "sub" / "b.md"], queue_limit())
    old = ws.token(root)
    ws.drain()
    assert ws.changes_since(root, old) is None  # the overflow: unknown
    assert (r.files, r.dirs, r.git) == before
    queued = []  # what the rebuild queued: its listings' opens and closes, never a watch removed
    data = os.read(ws.fileno(), 1 << 16)
    while data:
        _wd, mask, _cookie, size = struct.unpack_from("iIII", data)
        queued.append(mask)
        data = data[16 + size:]
    assert queued and not [m for m in queued if m & ~watchmod.IN_ISDIR not in (watchmod.IN_OPEN, watchmod.IN_CLOSE_NOWRITE)]
    t = ws.token(root)
    assert since(ws, root, t) == set()
    (repo / ".okf" / "sub" / "b.md").unlink()
    (repo / ".okf" / "sub" / "c.md").write_text("c")
    (repo / ".okf" / "a.md").write_text("again")
    assert {"sub/b.md", "sub/c.md", "a.md"} <= since(ws, root, t)


@pytest.mark.skipif(quick(), reason="builds a tree larger than the kernel's event queue")
def test_a_tree_larger_than_the_queue_recovers_from_an_overflow(ws, tmp_path):
    """The bug at its size, without a bundle: more files than ``max_queued_events``, overflowed once
    by reading them; the token taken after the rebuild must stay good while nothing changes."""
    root = tmp_path / "big"
    n = queue_limit() + 256
    paths = []
    for d in range(n // 500 + 1):
        (root / f"d{d}").mkdir(parents=True)
        for i in range(min(500, n - d * 500)):
            p = root / f"d{d}" / f"f{i}.md"
            p.write_bytes(b"x")
            paths.append(p)
    ws.add(str(root))
    overflow_by_reading(paths, queue_limit())
    old = ws.token(str(root))
    ws.drain()
    assert ws.changes_since(str(root), old) is None
    t = ws.token(str(root))
    assert since(ws, str(root), t) == set()
    assert since(ws, str(root), t) == set()
    paths[-1].write_bytes(b"y")
    assert since(ws, str(root), t) == {os.path.relpath(paths[-1], root)}


def queue_limit() -> int:
    with open("/proc/sys/fs/inotify/max_queued_events") as fh:
        return int(fh.read())


def test_the_change_log_is_bounded(ws, repo, monkeypatch):
    monkeypatch.setattr(watchmod, "LOG_MAX", 16)
    root = str(repo / ".okf")
    ws.add(root)
    old = ws.token(root)
    for i in range(40):
        (repo / ".okf" / f"f{i}.md").write_text("x")
        ws.drain()
    assert ws.changes_since(root, old) is None
    recent = ws.token(root)
    (repo / ".okf" / "a.md").write_text("y")
    assert since(ws, root, recent) == {"a.md"}


def test_git_state_changes_are_marked_and_a_reader_leaves_none(ws, repo):
    root = str(repo / ".okf")
    ws.add(root)
    t = ws.token(root)
    git(repo, "--no-optional-locks", "status", "--porcelain")
    assert since(ws, root, t) == set()
    for step in (("add", "-A"), ("commit", "-qm", "x", "--allow-empty"), ("checkout", "-qb", "other"),
                 ("stash", "list"), ("tag", "v1"), ("pack-refs", "--all")):
        t = ws.token(root)
        git(repo, *step)
        answer = since(ws, root, t)
        if step[0] != "stash":
            assert GIT in answer, step
    t = ws.token(root)
    (repo / ".gitignore").write_text("*.md\n")  # an ancestor's ignore rules
    assert GIT in since(ws, root, t)
    t = ws.token(root)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    ws.drain()
    t = ws.token(root)
    (repo / ".git" / "info" / "exclude").write_text("sub/\n")
    assert GIT in since(ws, root, t)


def test_a_linked_worktree_watches_its_own_and_the_common_git_state(ws, repo, tmp_path):
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    root = str(tmp_path / "wt" / ".okf")
    ws.add(root)
    t = ws.token(root)
    git(tmp_path / "wt", "add", "-A")
    assert GIT in since(ws, root, t)
    t = ws.token(root)
    git(repo, "branch", "another")  # a ref in the common directory
    assert GIT in since(ws, root, t)


def test_nested_git_dirs_and_the_bundle_at_the_work_tree_top(ws, repo):
    (repo / ".okf" / "vendored").mkdir()
    git(repo / ".okf" / "vendored", "init", "-q")
    ws.add(str(repo))  # the root is the work tree's top: its .git is watched as git state
    t = ws.token(str(repo))
    answer = since(ws, str(repo), t)
    assert answer == {".okf/vendored/.git/"}
    git(repo, "add", ".okf/a.md")
    assert GIT in since(ws, str(repo), t)


def test_a_file_system_without_remote_events_is_refused(ws, repo, monkeypatch, capsys):
    lib = watchmod._Libc()
    here = lib.fs_type(str(repo))
    assert here is not None
    monkeypatch.setitem(watchmod.REMOTE_FS, here, "a network file system (as this test declares)")
    root = str(repo / ".okf")
    ws.add(root)
    assert ws.status(root)[0] == "unwatchable" and "network" in ws.status(root)[1]
    assert ws.token(root) is None and not ws._wd
    assert "not watching" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_an_unreadable_directory_is_blind(ws, repo):
    locked = repo / ".okf" / "locked"
    locked.mkdir()
    (locked / "x.md").write_text("x")
    locked.chmod(0)
    try:
        root = str(repo / ".okf")
        ws.add(root)
        t = ws.token(root)
        assert covered("locked/x.md", since(ws, root, t))
    finally:
        locked.chmod(0o700)


def test_without_inotify_nothing_is_watched_and_everything_is_unknown(repo):
    code = (
        "import resource, os, sys\n"
        "from okfpro.io.watch import WatchSet, _Libc\n"
        "_Libc()\n"  # libc loaded first: only the inotify descriptor is refused
        "used = len(os.listdir('/proc/self/fd')) - 1\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (used, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
        "ws = WatchSet()\n"
        f"ws.add({str(repo / '.okf')!r}); ws.drain()\n"
        f"print(ws.fileno(), ws.token({str(repo / '.okf')!r}), ws.status({str(repo / '.okf')!r})[0], bool(ws.unavailable))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None", "None", "unwatchable", "True"]


# ---------------------------------------------------------------------- random operations
def snapshot(root: str) -> dict[str, tuple]:
    """path -> what a reader could see of it (a directory's times left out: they follow its entries)."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if rel == ".git" or rel.startswith(".git/"):
                continue
            try:  # a concurrent writer may remove it meanwhile: left out (its removal came after the token)
                st = os.lstat(full)
                if stat.S_ISLNK(st.st_mode):
                    out[rel] = ("l", os.readlink(full))
                elif stat.S_ISDIR(st.st_mode):
                    out[rel] = ("d", st.st_mode)
                else:
                    with open(full, "rb") as fh:
                        digest = hashlib.blake2b(fh.read()).hexdigest()
                    out[rel] = ("f", st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink, digest)
            except OSError:
                continue
    return out


def truly_changed(before: dict[str, tuple], after: dict[str, tuple]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def _files(root: str) -> list[str]:
    return sorted(p for p, v in snapshot(root).items() if v[0] == "f")


def _dirs(root: str) -> list[str]:
    return sorted(p for p, v in snapshot(root).items() if v[0] == "d")


def random_step(rng: random.Random, root: str, outside: str, n: int) -> None:
    files, dirs = _files(root), [""] + _dirs(root)
    pick_dir = os.path.join(root, rng.choice(dirs))
    new = os.path.join(pick_dir, f"n{n}.md")
    op = rng.randrange(17)
    if op == 0 or not files:
        with open(new, "w") as fh:
            fh.write(f"new {n}\n")
        return
    f = os.path.join(root, rng.choice(files))
    if op == 1:
        with open(f, "a") as fh:
            fh.write("more\n")
    elif op == 2:  # same size, mtime put back
        st = os.stat(f)
        with open(f, "r+b") as fh:
            first = fh.read(1)
            fh.seek(0)
            fh.write(b"Q" if first != b"Q" else b"R")
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif op == 3:
        os.rename(f, new)
    elif op == 4 and len(dirs) > 1:
        d = os.path.join(root, rng.choice(dirs[1:]))
        dest = os.path.join(pick_dir, f"d{n}")
        if not (dest + "/").startswith(d + "/"):
            os.rename(d, dest)
    elif op == 5:
        os.makedirs(os.path.join(pick_dir, f"d{n}", "inner"))
        with open(os.path.join(pick_dir, f"d{n}", "inner", "x.md"), "w") as fh:
            fh.write("x\n")
    elif op == 6 and len(dirs) > 1:
        shutil.rmtree(os.path.join(root, rng.choice(dirs[1:])))
    elif op == 7:
        os.unlink(f)
    elif op == 8:
        os.symlink(rng.choice([f, outside, "/nonexistent"]), os.path.join(pick_dir, f"s{n}"))
    elif op == 9:
        os.chmod(f, rng.choice([0o600, 0o644, 0o400]))
    elif op == 10:
        os.utime(f, ns=(n, n * 1000))
    elif op == 11:
        os.link(f, new)
    elif op == 12:  # a hard link outside, written through
        link = os.path.join(outside, f"h{n}")
        os.link(f, link)
        with open(link, "a") as fh:
            fh.write("outside\n")
    elif op == 13:  # in from outside: a file, or a filled directory
        src = os.path.join(outside, f"in{n}")
        if rng.random() < 0.5:
            with open(src, "w") as fh:
                fh.write("in\n")
        else:
            os.makedirs(os.path.join(src, "sub"))
            with open(os.path.join(src, "sub", "y.md"), "w") as fh:
                fh.write("y\n")
        os.rename(src, os.path.join(pick_dir, f"in{n}"))
    elif op == 14:
        os.rename(f, os.path.join(outside, f"out{n}"))
    elif op == 15:
        os.truncate(f, rng.randrange(3))
    else:  # written through a shared mapping, unmapped before the drain or not
        if os.path.getsize(f) == 0:
            with open(f, "w") as fh:
                fh.write("m")
        fd = os.open(f, os.O_RDWR)
        mapped = mmap.mmap(fd, 0)
        os.close(fd)
        mapped[0:1] = b"M" if mapped[0:1] != b"M" else b"N"
        if rng.random() < 0.7:
            mapped.close()
        else:
            OPEN_MAPS.append(mapped)


OPEN_MAPS: list[mmap.mmap] = []


@pytest.mark.parametrize("seed", range(4 if quick() else 8))
def test_random_operations_never_answer_clean_for_a_change(ws, tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "tree"
    (root / "a" / "b").mkdir(parents=True)
    for rel in ("x.md", "a/y.md", "a/b/z.md"):
        (root / rel).write_text(rel)
    outside = tmp_path / "outside"
    outside.mkdir()
    ws.add(str(root))
    tokens: list[tuple[str, dict]] = [(ws.token(str(root)), snapshot(str(root)))]
    unknown = 0
    try:
        reads = random.Random(-1 - seed)  # its own: the steps' sequence stays what each seed always drew
        for n in range(40 if quick() else 80):
            random_step(rng, str(root), str(outside), n)
            # reads between the steps and the drains, mapped files too (a read's open right behind a
            # mapping's: test_a_mapping_opened_right_before_a_read_is_still_open_after_the_reads_close)
            readable = sorted(os.path.join(d, name) for d, _dirs, names in os.walk(root) for name in names
                              if stat.S_ISREG(os.lstat(os.path.join(d, name)).st_mode))
            for path in reads.sample(readable, min(2, len(readable))):
                try:
                    with open(path, "rb") as fh:  # a read: no change to hear of
                        fh.read()
                except OSError:  # a file made unreadable
                    pass
            if rng.random() < 0.4:
                ws.drain()
                if rng.random() < 0.5:
                    for mapped in OPEN_MAPS:
                        mapped[0:1] = b"W"  # a write through a mapping still open
            if rng.random() < 0.3:
                ws.drain()
                tokens.append((ws.token(str(root)), snapshot(str(root))))
            ws.drain()
            now = snapshot(str(root))
            answers = {}
            for token, then in tokens:
                answer = answers[token] = ws.changes_since(str(root), token)
                if answer is None:
                    unknown += 1
                    continue
                missed = [p for p in truly_changed(then, now) if not covered(p, answer)]
                assert not missed, (n, token, missed, answer)
    finally:
        while OPEN_MAPS:
            OPEN_MAPS.pop().close()
    assert unknown < len(tokens) * 40  # the watcher answers, not just "unknown"


WRITER = r"""
import os, random, sys, time
root, seed, until = sys.argv[1], int(sys.argv[2]), time.time() + float(sys.argv[3])
rng = random.Random(seed)
n = 0
while time.time() < until:
    n += 1
    time.sleep(0.0005)  # a busy agent, not a flood: the change log stays within its bound
    d = os.path.join(root, rng.choice(["", "a", "a/b", "c"]))
    try:
        names = os.listdir(d) if os.path.isdir(d) else []
        op = rng.randrange(6)
        if op == 0 or not names:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"w{n}.md"), "w") as fh:
                fh.write(str(n))
        else:
            victim = os.path.join(d, rng.choice(names))
            if os.path.isdir(victim):
                if op == 1:
                    os.rename(victim, os.path.join(root, f"moved{n}"))
                continue
            if op == 1:
                with open(victim, "a") as fh:
                    fh.write("x")
            elif op == 2:
                os.rename(victim, os.path.join(d, f"r{n}.md"))
            elif op == 3:
                os.unlink(victim)
            elif op == 4:
                os.utime(victim, ns=(n, n))
            else:
                os.makedirs(os.path.join(root, "c", f"sub{n}"), exist_ok=True)
                with open(os.path.join(root, "c", f"sub{n}", "y.md"), "w") as fh:
                    fh.write("y")
    except OSError:
        pass
"""


@pytest.mark.parametrize("seed", range(2 if quick() else 3))
def test_a_concurrent_writer_is_never_answered_clean(ws, tmp_path, seed):
    """A writer process creating, appending, renaming, deleting and moving directories while the
    watch is added (files deleted mid-walk) and while tokens are taken: every token's answer covers
    every path that differs between its snapshot (taken after it) and the end."""
    root = tmp_path / "tree"
    (root / "a" / "b").mkdir(parents=True)
    for i in range(200):
        (root / ("a" if i % 2 else "a/b") / f"f{i}.md").write_text(str(i))
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(root), str(seed), "2.0"])
    try:
        ws.add(str(root))  # while the writer runs
        assert ws.status(str(root))[0] == "watched"
        tokens = []
        while writer.poll() is None:
            ws.drain()
            token = ws.token(str(root))
            tokens.append((token, snapshot(str(root))))
    finally:
        writer.wait(timeout=30)
    ws.drain()
    end = snapshot(str(root))
    answered = 0
    for token, then in tokens:
        answer = ws.changes_since(str(root), token)
        if answer is None:
            continue
        answered += 1
        missed = [p for p in truly_changed(then, end) if not covered(p, answer)]
        assert not missed, (token, missed)
    assert answered
