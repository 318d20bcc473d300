"""The memory history's commit without libgit2 (okfpro/memory/loose.py) against pygit2's.

Every write sequence is replayed into two memory roots, one committing through the loose
path and one through pygit2: every object and every ref must be the same bytes, and
``git fsck --strict`` clean.  Where the loose path must step aside (packed objects or
refs, a repository format it does not know, a name libgit2 would rewrite) pygit2 does the
commit; a ref that moves between read and update is refused with nothing changed.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import zlib
from pathlib import Path

import pytest

from okfpro.core.scope import Scope, history_ref
from okfpro.memory import loose
from okfpro.memory.history import HISTORY_DIR, History, HistoryError
from okfpro.memory.store import MemoryStore

T0 = dt.datetime(2026, 7, 27, 9, 0, 0, tzinfo=dt.timezone.utc)
ALICE = Scope(tenant="acme", user="alice", agent="bot", session="s1")
BOB = Scope(tenant="acme", user="bob")


def git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, check=True).stdout


def snapshot(root: Path) -> tuple[bytes, bytes]:
    gitdir = root / HISTORY_DIR
    return (git(gitdir, "for-each-ref", "--format=%(refname) %(objectname)"),
            git(gitdir, "cat-file", "--batch-all-objects", "--batch"))


class Paths:
    """Counts which path made each commit (the real methods run)."""

    def __init__(self, monkeypatch, libgit2_only: bool = False) -> None:
        self.loose = self.libgit2 = 0
        real_loose, real_libgit2 = History._record_loose, History._record_libgit2

        def fast(hist, *a, **k):
            if libgit2_only:
                raise loose.Unusual("this root commits through pygit2")
            out = real_loose(hist, *a, **k)
            self.loose += 1
            return out

        def slow(hist, *a, **k):
            self.libgit2 += 1
            return real_libgit2(hist, *a, **k)

        monkeypatch.setattr(History, "_record_loose", fast)
        monkeypatch.setattr(History, "_record_libgit2", slow)


def replay(root: Path, actor: str = "alice") -> None:
    store = MemoryStore(root)
    for i in range(3):  # a new ref, then appends to one day file
        assert store.write(ALICE, f"note {i} about lima", "session", now=T0 + dt.timedelta(minutes=i), actor=actor).written
    assert store.write(ALICE, "a new day", "session", now=T0 + dt.timedelta(days=1), actor=actor).written
    assert store.write(ALICE, "user tier", "user", now=T0, actor=actor).written
    rows = [(f"bulk {i}", T0 + dt.timedelta(days=i % 4, seconds=i)) for i in range(9)]
    ids, commit, error = store.write_many(BOB, rows, "user", actor=actor)  # (with what=: the time is now)
    assert commit and not error and len(ids) == 9
    assert store.delete_scope(BOB, "user", now=T0 + dt.timedelta(days=4)).error is None  # pygit2 writes it
    assert store.write(BOB, "after the forget", "user", now=T0 + dt.timedelta(days=5), actor=actor).written
    assert store.write(BOB, "ünïcode ✓ text", "user", now=T0 + dt.timedelta(days=5, hours=1), actor=actor).written


def test_loose_commits_are_the_objects_and_refs_pygit2_makes(tmp_path, monkeypatch):
    with monkeypatch.context() as m:
        paths = Paths(m, libgit2_only=True)
        replay(tmp_path / "slow")
        assert paths.loose == 0 and paths.libgit2 == 8
    paths = Paths(monkeypatch)
    replay(tmp_path / "fast")
    assert paths.loose == 7 and paths.libgit2 == 1  # the very first commit creates the repository
    fast = snapshot(tmp_path / "fast")
    assert fast == snapshot(tmp_path / "slow")
    assert fast[0].count(b"\n") == 3
    git(tmp_path / "fast" / HISTORY_DIR, "fsck", "--strict", "--no-dangling")
    gitdir = tmp_path / "fast" / HISTORY_DIR
    assert not [p for p in gitdir.rglob("*") if p.name.startswith("tmp_obj_") or p.name.endswith(".lock")]
    modes = {oct(p.stat().st_mode & 0o777) for p in (gitdir / "objects").rglob("*") if p.is_file()}
    assert modes == {"0o444"}


@pytest.mark.parametrize("actor,loose_ok", [(" padded", False), ("'quoted'", False), ("x<y>", False),
                                            ("tab\there", False), ("bob.", True), ("o'brien", True),
                                            ("zoë", True)])
def test_names_libgit2_would_rewrite_go_through_pygit2(tmp_path, monkeypatch, actor, loose_ok):
    with monkeypatch.context() as m:
        Paths(m, libgit2_only=True)
        store = MemoryStore(tmp_path / "slow")
        store.write(BOB, "first", "user", now=T0)
        slow = store.write(BOB, "second", "user", now=T0, actor=actor)
    paths = Paths(monkeypatch)
    store = MemoryStore(tmp_path / "fast")
    store.write(BOB, "first", "user", now=T0)
    fast = store.write(BOB, "second", "user", now=T0, actor=actor)
    assert (paths.libgit2, paths.loose) == ((1, 1) if loose_ok else (2, 0))
    assert (fast.commit, fast.error) == (slow.commit, slow.error)
    assert snapshot(tmp_path / "fast") == snapshot(tmp_path / "slow")


@pytest.mark.parametrize("how", [("gc", "--quiet"), ("repack", "-a", "-d", "-q"), ("pack-refs", "--all")])
def test_packed_objects_or_refs_fall_back_then_go_loose_again(tmp_path, monkeypatch, how):
    roots = {}
    for kind in ("slow", "fast"):
        with monkeypatch.context() as m:
            paths = Paths(m, libgit2_only=kind == "slow")
            store = MemoryStore(tmp_path / kind)
            for i in range(3):
                store.write(ALICE, f"before {i}", "user", now=T0 + dt.timedelta(minutes=i))
            git(store.root / HISTORY_DIR, *how)
            before = (paths.loose, paths.libgit2)
            store.write(ALICE, "after the pack", "user", now=T0 + dt.timedelta(hours=1))
            after_pack = (paths.loose - before[0], paths.libgit2 - before[1])
            store.write(ALICE, "and once more", "user", now=T0 + dt.timedelta(hours=2))
            roots[kind] = (paths.loose, paths.libgit2)
        if kind == "fast":
            assert after_pack == (0, 1)  # pygit2 read the packed tip
            assert roots["fast"] == (3, 2)  # ... and the next write is loose again
    ref = history_ref("user", ALICE)
    for kind in ("slow", "fast"):
        assert git(tmp_path / kind / HISTORY_DIR, "rev-parse", ref) == git(tmp_path / "slow" / HISTORY_DIR, "rev-parse", ref)
    git(tmp_path / "fast" / HISTORY_DIR, "fsck", "--strict", "--no-dangling")
    assert len(MemoryStore(tmp_path / "fast").log(ALICE, "user").entries) == 5


@pytest.mark.parametrize("config", [
    "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tnoop = true\n",
    "[include]\n\tpath = other.cfg\n",
    "[core]\n\tsharedRepository = group\n",
    "[core]\n\tlogAllRefUpdates = always\n",
    "[core]\n\trepositoryFormatVersion = 1\n",
])
def test_a_repository_it_does_not_know_is_left_to_pygit2(tmp_path, config):
    store = MemoryStore(tmp_path / "mem")
    store.write(BOB, "first", "user", now=T0)
    cfg = store.root / HISTORY_DIR / "config"
    cfg.write_text(cfg.read_text() + config)
    with pytest.raises(loose.Unusual):
        store.history._record_loose("user", BOB, {"2026-07-28.md": b"x"}, "probe", 1, None, T0)


def test_a_ref_moved_between_read_and_update_is_refused_and_kept(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path / "mem")
    first = store.write(BOB, "first", "user", now=T0)
    other = store.write(BOB, "second", "user", now=T0).commit
    ref = store.root / HISTORY_DIR / history_ref("user", BOB)
    hist = store.history
    real = History._clear_stale_ref_lock

    def meddle(self, name):  # runs after the tip was read, before the ref is updated
        real(self, name)
        ref.write_text(first.commit + "\n")

    monkeypatch.setattr(History, "_clear_stale_ref_lock", meddle)
    ref.write_text(other + "\n")
    with pytest.raises(HistoryError, match="changed under us"):
        hist._record_loose("user", BOB, {"2026-07-28.md": b"x"}, "probe", 1, None, T0)
    assert ref.read_text() == first.commit + "\n"
    assert not Path(str(ref) + ".lock").exists()


def test_a_ref_that_appears_meanwhile_is_not_overwritten(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path / "mem")
    made = store.write(ALICE, "first", "user", now=T0).commit  # the repository exists
    ref = store.root / HISTORY_DIR / history_ref("user", BOB)
    real = History._clear_stale_ref_lock

    def meddle(self, name):
        real(self, name)
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(made + "\n")

    monkeypatch.setattr(History, "_clear_stale_ref_lock", meddle)
    with pytest.raises(HistoryError, match="changed under us"):
        store.history._record_loose("user", BOB, {"2026-07-28.md": b"x"}, "probe", 1, None, T0)
    assert ref.read_text() == made + "\n"


def test_a_held_ref_lock_refuses_the_update(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    store.write(BOB, "first", "user", now=T0)
    repo = loose.LooseRepo(store.root / HISTORY_DIR)
    name = history_ref("user", BOB)
    tip = repo.ref(name)
    lock = store.root / HISTORY_DIR / (name + ".lock")
    lock.write_text("another writer")
    with pytest.raises(loose.Moved):
        repo.set_ref(name, "0" * 40, tip)
    assert lock.read_text() == "another writer" and repo.ref(name) == tip


def test_a_corrupt_or_foreign_tip_is_left_to_pygit2(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    tip = store.write(BOB, "first", "user", now=T0).commit
    gitdir = store.root / HISTORY_DIR
    obj = gitdir / "objects" / tip[:2] / tip[2:]
    obj.chmod(0o644)
    whole = obj.read_bytes()
    obj.write_bytes(whole[:-3])  # torn
    with pytest.raises(loose.Unusual):
        store.history._record_loose("user", BOB, {"2026-07-28.md": b"x"}, "probe", 1, None, T0)
    swapped = zlib.decompress(whole).replace(b"Entries: 1", b"Entries: 7")
    obj.write_bytes(zlib.compress(swapped))  # well-formed, but not the object its name says
    with pytest.raises(loose.Unusual, match="does not hash"):
        store.history._record_loose("user", BOB, {"2026-07-28.md": b"x"}, "probe", 1, None, T0)
    ref = gitdir / history_ref("user", BOB)
    ref.write_text("ref: refs/heads/main\n")
    with pytest.raises(loose.Unusual):
        loose.LooseRepo(gitdir).ref(history_ref("user", BOB))


def _objects(gitdir: Path) -> set[str]:
    return {str(p.relative_to(gitdir / "objects")) for p in (gitdir / "objects").rglob("*") if p.is_file()}


def test_an_unusual_name_after_a_blob_leaves_no_object_and_no_temporary_file(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    store.write(BOB, "first", "user", now=T0)
    gitdir = store.root / HISTORY_DIR
    before = _objects(gitdir)
    with pytest.raises(loose.Unusual, match="file name"):  # the first file's blob is written, then this
        store.history._record_loose("user", BOB, {"2026-07-28.md": b"new text", "bad name!": b"x"}, "probe", 1,
                                    None, T0)
    assert _objects(gitdir) == before


def test_objects_are_placed_only_by_flush(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    store.write(BOB, "first", "user", now=T0)
    gitdir = store.root / HISTORY_DIR
    repo = loose.LooseRepo(gitdir)
    oid = repo.write(b"blob", b"placed later\n")
    assert repo.write(b"blob", b"placed later\n") == oid  # once, however often it is written
    path = gitdir / "objects" / oid[:2] / oid[2:]
    assert not path.exists() and [p.name for p in path.parent.iterdir() if p.name.startswith("tmp_obj_")]
    repo.flush()
    assert path.exists() and not [p for p in path.parent.iterdir() if p.name.startswith("tmp_obj_")]
    assert git(gitdir, "cat-file", "blob", oid) == b"placed later\n"


def test_fsync_all_waits_for_every_descriptor_at_once_and_raises_the_first_error(tmp_path, monkeypatch):
    import os
    import time

    files = [os.open(tmp_path / f"f{i}", os.O_WRONLY | os.O_CREAT) for i in range(6)]
    seen: list[int] = []
    real = os.fsync

    def slow(fd: int) -> None:
        time.sleep(0.2)
        seen.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", slow)
    t0 = time.monotonic()
    loose.fsync_all(files)
    assert sorted(seen) == sorted(files)  # every one done when it returns
    assert time.monotonic() - t0 < 0.2 * len(files) / 2  # together, not one after another
    monkeypatch.setattr(os, "fsync", real)
    r, w = os.pipe()
    for fds in ([r], [files[0], r, files[1]]):  # fsync on a pipe: EINVAL, one alone or among others
        with pytest.raises(OSError):
            loose.fsync_all(fds)
    for fd in (*files, r, w):
        os.close(fd)
