"""okfpro memory sync against a real Git HTTP server on 127.0.0.1 (git http-backend, basic auth,
the okfpro pre-receive hook): merge without loss, ownership, erasure that follows the data."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.helpers import full
from tests.synckit import Clone, Server, git, objects_hold


T0 = dt.datetime(2026, 11, 30, 9, 0, 0, tzinfo=dt.timezone.utc)
PUSHERS = {
    "alice": {"tenant": "acme", "user": "alice"},
    "bob": {"tenant": "acme", "user": "bob"},
}


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path, PUSHERS)
    yield srv
    srv.close()


def sync(clone: Clone) -> dict:
    proc = clone.okfpro("memory", "sync", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def concurrent_then_sync(tmp_path, first: str) -> dict[str, bytes]:
    srv = Server(tmp_path, PUSHERS)
    try:
        a = Clone(tmp_path, "a", "alice", srv.url("alice"))
        b = Clone(tmp_path, "b", "alice", srv.url("alice"))
        a.write("shared start", at(0))
        sync(a)
        sync(b)
        a.write("from A one", at(5))
        b.write("from B one", at(6))
        a.write("from A two", at(7))
        b.write("from B two", at(7))
        a.write("written on both", at(8))  # the same entry at the same second on both: one entry
        b.write("written on both", at(8))
        x, y = (a, b) if first == "a" else (b, a)
        first_report = sync(x)
        assert first_report["pushed"]
        second = sync(y)
        assert second["merged"] and second["pushed"]
        third = sync(x)
        assert third["fast_forwarded"] and not third["merged"]
        assert a.files() == b.files()
        texts = sorted(a.texts())
        assert texts == sorted(["shared start", "from A one", "from B one", "from A two", "from B two",
                                "written on both"])
        assert sorted(b.texts()) == texts
        ref = srv.refs()
        assert len([r for r in ref if r.startswith("refs/okfpro/memory/user/")]) == 1
        return a.files()
    finally:
        srv.close()


def test_concurrent_writes_merge_to_the_same_bytes_in_either_order(tmp_path) -> None:
    one = concurrent_then_sync(tmp_path / "ab", "a") if (tmp_path / "ab").mkdir() is None else None
    two = concurrent_then_sync(tmp_path / "ba", "b") if (tmp_path / "ba").mkdir() is None else None
    assert one == two


def test_nothing_new_is_a_no_op_and_recall_sees_merged_entries(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    b = Clone(tmp_path, "b", "alice", server.url("alice"))
    a.okfpro("memory", "remember", "--", "the deploy key rotates monthly", check=True)
    sync(a)
    got = sync(b)
    assert got["fetched"] and got["fast_forwarded"]
    again = sync(b)
    assert not any(again[k] for k in ("fetched", "merged", "pushed", "fast_forwarded"))
    found = b.okfpro("memory", "recall", "deploy", "key", "--json", check=True)
    assert "rotates monthly" in found.stdout
    log = b.okfpro("memory", "log", "--json", check=True)
    assert "remember" in log.stdout


def test_bob_never_fetches_alice_and_the_server_refuses_his_push_to_her_ref(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    bob = Clone(tmp_path, "bob", "bob", server.url("bob"))
    a.write("alice's private note 7f3a", at(1))
    a.write("the team ships on Fridays", at(2), tier="tenant")
    sync(a)
    report = sync(bob)
    assert bob.texts("tenant") == ["the team ships on Fridays"]  # the shared tier travels
    assert bob.texts("user") == []
    assert not bob.objects_hold(b"private note 7f3a")  # not one of alice's objects came over
    alice_ref = a.store().history.repo().references.get(
        "refs/okfpro/memory/user/" + a.store().subtree("user", a.scope).prefix)
    assert alice_ref is not None
    assert report["ok"]
    # a crafted push with plain git: bob's commit onto alice's ref is refused by the server hook
    work = tmp_path / "craft"
    git("init", "-q", str(work))
    (work / "x.md").write_text("bob was here\n")
    git("-C", str(work), "add", "x.md")
    git("-C", str(work), "-c", "user.name=bob", "-c", "user.email=b@x", "commit", "-qm", "x")
    before = server.refs()
    for ref in (alice_ref.name, alice_ref.name.replace("/memory/", "/tombstone/"), "refs/okfpro/evil"):
        proc = git("-C", str(work), "push", server.url("bob"), f"+HEAD:{ref}", check=False)
        assert proc.returncode != 0 and "okfpro: refused" in proc.stderr, proc.stderr
        assert server.refs() == before  # alice's ref untouched, nothing created
    # ... and a delete of alice's ref
    proc = git("-C", str(work), "push", server.url("bob"), f":{alice_ref.name}", check=False)
    assert proc.returncode != 0 and alice_ref.name in server.refs()
    # the same push as alice herself goes through the hook (ownership, not a blanket refusal)
    proc = git("-C", str(work), "push", server.url("alice"), "HEAD:refs/heads/main", check=False)
    assert proc.returncode == 0, proc.stderr


def test_purge_follows_the_data_to_a_stale_clone_and_the_server(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    b = Clone(tmp_path, "b", "alice", server.url("alice"))
    a.write("my passport number is QX-991-Z", at(1))
    sync(a)
    sync(b)
    assert "my passport number is QX-991-Z" in b.texts()
    b.write("written on B before it heard of the erasure", dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1))
    proc = a.okfpro("memory", "forget", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "removed 1 ref(s)" in proc.stdout and "tombstone" in proc.stdout and "gc" in proc.stdout
    refs = server.refs()
    assert not [r for r in refs if r.startswith("refs/okfpro/memory/user/")]
    assert [r for r in refs if r.startswith("refs/okfpro/tombstone/user/")]
    report = sync(b)
    assert report["tombstones"] and report["tombstones"][0]["verified"], report
    assert b.texts() == ["written on B before it heard of the erasure"]  # newer than the erasure: kept
    assert not any(b"QX-991-Z" in data for data in b.files().values())
    assert not b.objects_hold(b"QX-991-Z")
    server.gc()
    assert not objects_hold(server.repo, b"QX-991-Z")
    # nothing comes back: a second sync of A gets B's later entry, never the erased one
    sync(a)
    assert a.texts() == ["written on B before it heard of the erasure"]
    assert not a.objects_hold(b"QX-991-Z")


# The drill's size: clones racing, writes each, a sync after every EVERY-th write.  Measured
# (counting the sync rounds): 4 x 20 / 5 gives 16 syncs racing on one server, with pushes refused as
# non-fast-forward and retried, pushes the server declines on its ref lock, and 13-14 merges (58 s of
# CPU for 8 x 50 / 10, 20 s for this); OKFPRO_TESTS=full runs the size it was written with.
CLONES, WRITES, EVERY = (8, 50, 10) if full() else (4, 20, 5)


@pytest.mark.slow
def test_many_clones_with_interleaved_writes_and_syncs_lose_nothing(server, tmp_path) -> None:
    import threading

    from okfpro.memory.sync import sync as sync_in_process

    clones = [Clone(tmp_path, f"c{i}", "alice", server.url("alice")) for i in range(CLONES)]
    problems: list = []
    merged: list = []

    def work(i: int, clone: Clone) -> None:
        store = clone.store()
        for n in range(WRITES):
            result = store.write(clone.scope, f"clone {i} entry {n}", "user", now=at(i * 100 + n))
            if not result.written:
                problems.append(result.error)
            if n % EVERY == EVERY - 1:
                report = sync_in_process(store, clone.scope, server.url("alice"))
                merged.extend(report.merged)
                if report.error:
                    problems.append(report.error)

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(clones)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not problems, problems
    assert merged  # the clones' histories diverged and were merged while the others kept pushing
    for _ in range(2):  # two quiet passes: everyone has everything
        for clone in clones:
            report = sync_in_process(clone.store(), clone.scope, server.url("alice"))
            assert report.ok, report.to_json()
    want = sorted(f"clone {i} entry {n}" for i in range(CLONES) for n in range(WRITES))
    first = clones[0].files()
    for clone in clones:
        assert sorted(clone.texts()) == want  # every entry, once
        assert clone.files() == first


def test_progress_on_stderr_and_the_json_summary(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    a.write("user tier entry", at(1))
    a.write("tenant tier entry", at(2), tier="tenant")
    session = a.store().write(a.scope.__class__(tenant="acme", user="alice", session="sess-1"), "in a session",
                              "session", now=at(3))
    assert session.written
    proc = a.okfpro("memory", "sync", "--json", "--progress")
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("okfpro memory sync: scopes ")]
    assert lines and lines[-1].endswith("3/3"), proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= {"fetched", "merged", "pushed", "fast_forwarded", "tombstones", "refused", "ok"}
    assert len(data["pushed"]) == 3 and any(k.startswith("memory-session/") for k in data["pushed"])
    quiet = a.okfpro("memory", "sync", "--no-progress")
    assert quiet.returncode == 0 and quiet.stderr == ""
    # another clone of alice gets all three, the session included
    b = Clone(tmp_path, "b", "alice", server.url("alice"))
    got = sync(b)
    assert len(got["fast_forwarded"]) == 3
