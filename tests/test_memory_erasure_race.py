"""The erasure race, for real: a stale clone that listed the remote before a purge and pushes
after it must not put the erased text back on the server (issue #15).  Real server
(git http-backend behind basic auth, the okfpro pre-receive hook), real clones, real git.

The stale sync is run in this process so the purge can happen exactly between its listing
and its push (the window of the race); everything it talks to is the real server."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess

import pytest

from okfpro.core.scope import Scope, history_ref
from okfpro.memory import sync as sync_mod
from tests.synckit import Clone, Server, git, objects_hold

PUSHERS = {"alice": {"tenant": "acme", "user": "alice"}, "bob": {"tenant": "acme", "user": "bob"}}
SECRET = b"my passport number is QX-991-Z"
ALICE = Scope(tenant="acme", user="alice")
USER_REF = history_ref("user", ALICE)
TOMB_REF = USER_REF.replace("/memory/", "/tombstone/")
WHO = {"GIT_AUTHOR_NAME": "x", "GIT_AUTHOR_EMAIL": "x@x", "GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "x@x"}


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path, PUSHERS)
    yield srv
    srv.close()


def reachable_hold(gitdir, needle: bytes) -> bool:
    """Whether an object reachable from any ref of ``gitdir`` holds ``needle``."""
    listed = git("--git-dir", str(gitdir), "rev-list", "--objects", "--all").stdout
    ids = "".join(line.split(" ")[0] + "\n" for line in listed.splitlines() if line)
    if not ids:
        return False
    proc = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch"], input=ids.encode(),
                          capture_output=True, check=True)
    return needle in proc.stdout


def past(minutes: int) -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=minutes)


def stale_pair(server, tmp_path) -> tuple[Clone, Clone]:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    b = Clone(tmp_path, "b", "alice", server.url("alice"))
    a.write(SECRET.decode(), past(30))
    assert a.okfpro("memory", "sync").returncode == 0
    assert b.okfpro("memory", "sync").returncode == 0
    assert SECRET.decode() in b.texts()
    return a, b


def purge_between_list_and_push(monkeypatch, a: Clone) -> list:
    """Make the next in-process sync run A's purge right before its first push."""
    real = sync_mod.Remote.push
    done: list = []

    def push(self, updates, force=()):
        if not done:
            proc = a.okfpro("memory", "forget", "--purge", "--yes", process=True)  # another process: push is patched here
            assert proc.returncode == 0, proc.stderr
            done.append(proc)
        return real(self, updates, force)

    monkeypatch.setattr(sync_mod.Remote, "push", push)
    return done


def test_a_stale_sync_racing_a_purge_puts_nothing_back(server, tmp_path, monkeypatch) -> None:
    a, b = stale_pair(server, tmp_path)
    b.write("B wrote this before it heard of the erasure", past(5))  # B is ahead: it will push
    purged = purge_between_list_and_push(monkeypatch, a)
    report = sync_mod.sync(b.store(), b.scope, server.url("alice"))
    assert purged, "the purge ran inside the sync's window"
    assert report.ok, report.to_json()
    assert report.tombstones and report.tombstones[0]["verified"]  # B applied the tombstone it raced
    assert not report.pushed  # nothing of the erased scope went back
    refs = server.refs()
    assert USER_REF not in refs and TOMB_REF in refs
    assert not reachable_hold(server.repo, SECRET)
    assert not reachable_hold(server.repo, b"B wrote this before")  # older than the erasure: erased too
    assert b.texts() == [] and not b.objects_hold(SECRET)
    server.gc()
    assert not objects_hold(server.repo, SECRET)


def test_entries_written_after_the_erasure_survive_the_race_as_a_new_root(server, tmp_path, monkeypatch) -> None:
    a, b = stale_pair(server, tmp_path)
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)
    b.write("B's note from after the erasure", later)
    purge_between_list_and_push(monkeypatch, a)
    report = sync_mod.sync(b.store(), b.scope, server.url("alice"))
    assert report.ok and report.pushed, report.to_json()  # the fresh root went through the hook
    assert b.texts() == ["B's note from after the erasure"]
    tip = server.refs()[USER_REF]
    assert git("--git-dir", str(server.repo), "rev-list", "--max-parents=0", tip).stdout.strip() == tip  # one root
    assert not reachable_hold(server.repo, SECRET)
    monkeypatch.undo()
    assert a.okfpro("memory", "sync").returncode == 0
    assert a.texts() == ["B's note from after the erasure"] and not a.objects_hold(SECRET)
    server.gc()
    assert not objects_hold(server.repo, SECRET)


def test_plain_git_push_of_a_stale_copy_is_refused_on_every_ref(server, tmp_path) -> None:
    a, b = stale_pair(server, tmp_path)
    stale = tmp_path / "stale.git"  # B's history as it was before the purge, pushed with git alone
    shutil.copytree(b.root / ".okf-history.git", stale)
    b.write("one more before the purge", past(4))
    shutil.rmtree(stale)
    shutil.copytree(b.root / ".okf-history.git", stale)
    assert a.okfpro("memory", "forget", "--purge", "--yes").returncode == 0
    tip = git("--git-dir", str(stale), "rev-parse", USER_REF).stdout.strip()
    parent = git("--git-dir", str(stale), "rev-parse", USER_REF + "~1").stdout.strip()
    for spec in (f"+{tip}:{USER_REF}", f"+{parent}:{USER_REF}", f"{tip}:refs/heads/smuggled",
                 f"{parent}:refs/tags/smuggled"):
        proc = git("--git-dir", str(stale), "push", server.url("alice"), spec, check=False)
        assert proc.returncode != 0 and "erased history" in proc.stderr, (spec, proc.stderr)
    assert not reachable_hold(server.repo, SECRET)
    server.gc()
    assert not objects_hold(server.repo, SECRET)
    # a history begun before the erasure that the eraser never saw (new ids, old root): refused by its date
    other = tmp_path / "other.git"
    git("init", "-q", "--bare", str(other))
    env = {**WHO, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    tree = git("--git-dir", str(other), "mktree").stdout.strip()
    old_root = git("--git-dir", str(other), "commit-tree", tree, "-m", "memory user x: old", env=env).stdout.strip()
    proc = git("--git-dir", str(other), "push", server.url("alice"), f"{old_root}:{USER_REF}", check=False)
    assert proc.returncode != 0 and "starts before this scope's erasure" in proc.stderr, proc.stderr
    # the owner may start afresh: a new root after the erasure goes through
    fresh = git("--git-dir", str(other), "commit-tree", tree, "-m", "memory user x: new", env=WHO).stdout.strip()
    proc = git("--git-dir", str(other), "push", server.url("alice"), f"{fresh}:{USER_REF}", check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_tombstone_only_grows(server, tmp_path) -> None:
    a, _b = stale_pair(server, tmp_path)
    assert a.okfpro("memory", "forget", "--purge", "--yes").returncode == 0
    first = server.refs()[TOMB_REF]
    body = git("--git-dir", str(server.repo), "cat-file", "commit", first).stdout
    assert "Purged: " in body and "QX" not in body  # ids, no text
    ids = body.split("Purged: ", 1)[1].split()
    assert len(ids) >= 1
    # a second purge of the same scope keeps the first one's ids
    a.write("again", past(1))
    assert a.okfpro("memory", "sync").returncode == 0
    assert a.okfpro("memory", "forget", "--purge", "--yes").returncode == 0
    second = git("--git-dir", str(server.repo), "cat-file", "commit", server.refs()[TOMB_REF]).stdout
    assert set(ids) < set(second.split("Purged: ", 1)[1].split())
    # a tombstone that drops ids (pushed with plain git, by the owner) is refused
    work = tmp_path / "forge.git"
    git("init", "-q", "--bare", str(work))
    tree = git("--git-dir", str(work), "mktree").stdout.strip()
    head = second.split("\n\n", 1)[1].split("Purged: ")[0]
    shrunk = git("--git-dir", str(work), "commit-tree", tree, "-m", head.strip(), env=WHO).stdout.strip()
    proc = git("--git-dir", str(work), "push", "--force", server.url("alice"), f"{shrunk}:{TOMB_REF}", check=False)
    assert proc.returncode != 0 and "only grows" in proc.stderr, proc.stderr


def test_session_entries_written_after_an_erasure_are_kept(server, tmp_path) -> None:
    a, b = stale_pair(server, tmp_path)
    session = Scope(tenant="acme", user="alice", session="sess-42")
    store = b.store()
    assert store.write(session, "session note older than the purge 5d1", "session", now=past(3)).written
    assert b.okfpro("memory", "sync").returncode == 0  # the session is on the server: the purge erases it there
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    assert store.write(session, "session note after the purge 9e4", "session", now=later).written
    assert a.okfpro("memory", "forget", "--purge", "--yes").returncode == 0
    report = sync_mod.sync(b.store(), b.scope, server.url("alice"))
    assert report.ok, report.to_json()
    kept = {t["scope"]: t["kept_newer"] for t in report.tombstones}
    assert sorted(kept.values()) == [0, 1], kept  # the user tier: nothing newer; the session: one entry
    texts = [e.text for e in b.store().enumerate(session).entries if e.tier == "session"]
    assert texts == ["session note after the purge 9e4"]
    assert not b.objects_hold(b"older than the purge 5d1") and not b.objects_hold(SECRET)
    # ... and it went back to the server as a new root the hook accepts; A gets it
    assert any(k.startswith("memory-session/") for k in report.pushed), report.to_json()
    sessions = [r for r in server.refs() if r.startswith("refs/okfpro/memory/session/")]
    assert len(sessions) == 1
    server.gc()
    assert not objects_hold(server.repo, b"older than the purge 5d1")
    assert objects_hold(server.repo, b"after the purge 9e4")
