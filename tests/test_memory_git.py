"""Per-scope Git history: concurrency, commit shape, erasure proof, crash safety."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest

from okfpro.core.scope import Scope, history_ref, memory_path
from okfpro.memory.history import HISTORY_DIR, HistoryError
from okfpro.core.dayfile import APPENDING, interrupted_at, sections, split_concept
from okfpro.memory.store import MemoryStore
from tests.helpers import invoke

NOW = dt.datetime(2026, 7, 27, 9, 0, 0, tzinfo=dt.timezone.utc)
A = Scope(tenant="acme", user="alice", agent="bot", session="s1")


@pytest.fixture(autouse=True)
def _no_pinned_day(monkeypatch):
    monkeypatch.delenv("OKFPRO_TODAY", raising=False)


def git(gitdir: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], input=input, capture_output=True, check=True
    ).stdout


def all_objects(gitdir: Path) -> bytes:
    return git(gitdir, "cat-file", "--batch-all-objects", "--batch")


def workspace_state(ws: Path) -> tuple:
    head = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, check=True).stdout
    branch = subprocess.run(["git", "-C", str(ws), "symbolic-ref", "HEAD"], capture_output=True).stdout
    status = subprocess.run(
        ["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"], capture_output=True, check=True
    ).stdout
    index = hashlib.sha256((ws / ".git" / "index").read_bytes()).hexdigest()
    refs = subprocess.run(["git", "-C", str(ws), "for-each-ref"], capture_output=True, check=True).stdout
    return head, branch, status, index, refs


def make_workspace(tmp_path: Path, ignore_memory: bool = True) -> Path:
    """A committed workspace; like `okfpro init`'s, its .gitignore names .okf-memory/."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "okfpro.toml").write_text("[memory]\n")
    if ignore_memory:
        (ws / ".gitignore").write_text(".tmp/*\n.okf-memory/\n")
    (ws / ".okf").mkdir()
    (ws / ".okf" / "index.md").write_text("# Index\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run(["git", "-C", str(ws), "add", "."], check=True)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init"], check=True, env=env)
    return ws


WORKER = r"""
import sys
from okfpro.core.scope import Scope
from okfpro.memory.store import MemoryStore
root, proc, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = MemoryStore(root)
scope = Scope(tenant="acme", user="alice")
for i in range(count):
    res = store.write(scope, f"worker-{proc}-entry-{i}", "user", actor=f"w{proc}")
    if not res.written or res.error:
        print("FAILED", res, flush=True)
        sys.exit(3)
"""


@pytest.mark.slow
def test_parallel_processes_lose_nothing_and_workspace_untouched(tmp_path):
    ws = make_workspace(tmp_path)
    root = ws / ".okf-memory"
    before = workspace_state(ws)
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(root), str(p), "50"], stdout=subprocess.PIPE)
        for p in range(8)
    ]
    samples = 0
    while any(p.poll() is None for p in procs):  # checked throughout, not only at the end
        assert workspace_state(ws) == before
        samples += 1
    outs = [(p.wait(timeout=300), p.stdout.read()) for p in procs]
    assert all(rc == 0 for rc, _ in outs), outs
    assert workspace_state(ws) == before
    assert samples > 0

    scope = Scope(tenant="acme", user="alice")
    days = sorted((root / memory_path("user", scope)).glob("*.md"))
    texts = []
    for day in days:
        _, body = split_concept(day.read_bytes())
        texts += [t for _, t in sections(body)]
    assert len(texts) == 400
    assert sorted(texts) == sorted(f"worker-{p}-entry-{i}" for p in range(8) for i in range(50))

    repo = pygit2.Repository(str(root / HISTORY_DIR))
    tip = repo.references[history_ref("user", scope)].target
    chain = list(repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL))
    assert len(chain) == 400
    assert all(len(c.parents) <= 1 for c in chain)  # linear
    assert sum(1 for c in chain if not c.parents) == 1
    counts = [int(c.message.split("Entries: ")[1].split("\n")[0]) for c in chain]
    assert counts == list(range(400, 0, -1))  # each commit added exactly one entry
    # only that scope's subtree in every tree, and no refs but its own
    assert [e.name for e in repo[tip].tree] == ["memory-user"]
    assert list(repo.references) == [history_ref("user", scope)]
    assert repo.head_is_unborn  # the memory repo's HEAD is never set either


def test_memory_root_hides_itself_from_a_workspace_that_does_not_ignore_it(tmp_path):
    ws = make_workspace(tmp_path, ignore_memory=False)
    before = workspace_state(ws)
    # the very first file in the root (here without any history) is already hidden
    assert MemoryStore(ws / ".okf-memory", history=False).write(Scope(user="x"), "no history", "user").written
    assert workspace_state(ws) == before
    env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    env.update(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    for args in (["remember", "hello"], ["forget", "--yes"], ["remember", "again"], ["forget", "--purge", "--yes"]):
        proc = invoke("memory", *args, cwd=ws, base_env=env)  # the verb in this process; Git's own children are real
        assert proc.returncode == 0, proc.stderr
        assert workspace_state(ws) == before
    assert (ws / ".okf-memory" / HISTORY_DIR).is_dir()


def test_commit_shape_message_and_author(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    res = store.write(A, "hello", "session", now=NOW, actor="alice")
    repo = pygit2.Repository(str(store.root / HISTORY_DIR))
    commit = repo[res.commit]
    first, _, rest = commit.message.partition("\n")
    assert first == f"memory session {memory_path('session', A)}: remember 2026-07-27#1 (1 entry)"
    assert "Entries: 1" in rest and "s1" not in commit.message and "Agent: bot" in rest
    assert "alice" in commit.author.name and "okfpro/" in commit.author.name
    assert commit.committer.name.startswith("okfpro/")
    # tree = exactly memory-session/<T>/<U>/<S>/2026-07-27.md
    files = []

    def walk(tree, prefix=""):
        for e in tree:
            if e.type_str == "tree":
                walk(repo[e.id], f"{prefix}{e.name}/")
            else:
                files.append(prefix + e.name)

    walk(commit.tree)
    assert files == [f"{memory_path('session', A)}/2026-07-27.md"]
    assert repo[commit.tree[files[0]].id].data == (store.root / files[0]).read_bytes()


@pytest.mark.slow
def test_commit_cost_does_not_grow_with_history_or_other_scopes(tmp_path):
    """Objects written per commit stay constant (no full-tree rebuilds)."""
    store = MemoryStore(tmp_path / "mem")
    scope = Scope(tenant="acme", user="alice")
    objects = store.root / HISTORY_DIR / "objects"

    def loose() -> int:
        return sum(len(files) for d, _, files in os.walk(objects) if Path(d).name not in ("info", "pack"))

    store.write(scope, "warm-up", "user", now=NOW)
    deltas = []
    for round_ in range(3):
        before = loose()
        store.write(scope, f"probe {round_}", "user", now=NOW)
        deltas.append(loose() - before)
        for i in range(60):  # more history on the scope, and many other scopes
            store.write(scope, f"filler {round_} {i}", "user", now=NOW + dt.timedelta(days=i))
            store.write(Scope(tenant="acme", user=f"u{round_}x{i}"), "other", "user", now=NOW)
    assert deltas == [deltas[0]] * 3 and deltas[0] <= 7


def test_cas_refuses_a_moved_ref(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    scope = Scope(tenant="acme", user="alice")
    store.write(scope, "one", "user", now=NOW)
    hist = store.history
    repo = hist.repo()
    name = history_ref("user", scope)
    stale = repo.references.get(name)
    parent = repo[stale.target]
    store.write(scope, "two", "user", now=NOW)  # the ref moves on
    with pytest.raises(HistoryError):
        hist._commit(repo, name, stale, parent, parent.tree.id, "x\n", "t", NOW)
    with pytest.raises(HistoryError):
        hist._commit(repo, name, None, None, parent.tree.id, "x\n", "t", NOW)
    assert len(store.log(scope, "user").entries) == 2


def test_stale_ref_lock_from_a_killed_writer_is_recovered(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    scope = Scope(tenant="acme", user="alice")
    store.write(scope, "one", "user", now=NOW)
    lock = store.root / HISTORY_DIR / (history_ref("user", scope) + ".lock")
    lock.write_text("garbage")
    res = store.write(scope, "two", "user", now=NOW)
    assert res.written and res.error is None
    assert len(store.log(scope, "user").entries) == 2


def test_forget_keeps_history_for_audit(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    n = f"nonce-{os.urandom(8).hex()}"
    store.write(A, n, "user", now=NOW)
    res = store.delete_scope(A, "user")
    assert res.error is None and "user" in res.commits
    log = store.log(A, "user").entries
    assert [e.summary.split(": ", 1)[1] for e in log] == ["forget 1 entry (0 entries)", "remember 2026-07-27#1 (1 entry)"]
    assert n.encode() in all_objects(store.root / HISTORY_DIR)  # history kept
    assert store.enumerate(A).entries == [] or all(e.tier != "user" for e in store.enumerate(A).entries)


@pytest.mark.slow
def test_purge_proof_via_cli(tmp_path):
    ws = make_workspace(tmp_path)
    root = ws / ".okf-memory"
    gitdir = root / HISTORY_DIR
    before = workspace_state(ws)
    nonce_a = f"nonce-A-{os.urandom(8).hex()}"
    nonce_b = f"nonce-B-{os.urandom(8).hex()}"
    env_a = {**os.environ, "OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_SESSION": "s1"}
    env_b = {**os.environ, "OKFPRO_TENANT": "acme", "OKFPRO_USER": "bob"}
    for k in ("OKFPRO_AGENT", "OKFPRO_TODAY"):
        env_a.pop(k, None)
        env_b.pop(k, None)

    def cli(env, *args, stdin=None):
        return invoke("memory", *args, cwd=ws, base_env=env, stdin=stdin, text=False)

    for i in range(3):
        assert cli(env_a, "remember", f"{nonce_a} user {i}").returncode == 0
        assert cli(env_a, "remember", f"{nonce_a} session {i}", "--tier", "session").returncode == 0
        assert cli(env_b, "remember", f"{nonce_b} {i}").returncode == 0
    # a plain forget first: the text is now only in history
    assert cli(env_a, "forget", "--tier", "user", "--yes").returncode == 0
    assert all_objects(gitdir).count(nonce_a.encode()) > 0
    b_log_before = cli(env_b, "log").stdout
    b_files_before = {p: p.read_bytes() for p in (root / memory_path("user", Scope(tenant="acme", user="bob"))).iterdir()}

    proc = cli(env_a, "forget", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert b"verified" in proc.stdout

    dump = all_objects(gitdir)
    assert nonce_a.encode() not in dump
    assert nonce_a[8:].encode() not in dump
    assert nonce_b.encode() in dump
    for p in root.rglob("*"):
        if p.is_file() and HISTORY_DIR not in p.parts:
            assert nonce_a.encode() not in p.read_bytes()
    refs = git(gitdir, "for-each-ref", "--format=%(refname)").decode().split()
    # what is left: bob's history, and alice's erasure records (content-free tombstones: ids, a time)
    assert [r for r in refs if not r.startswith("refs/okfpro/tombstone/")] == [
        history_ref("user", Scope(tenant="acme", user="bob"))]
    assert {r.split("/")[3] for r in refs if r.startswith("refs/okfpro/tombstone/")} == {"user", "session"}
    assert not (gitdir / "logs").exists() or not any(
        nonce_a.encode() in p.read_bytes() for p in (gitdir / "logs").rglob("*") if p.is_file()
    )
    # other scope intact: same files, same history, still readable, still fsck-clean
    assert cli(env_b, "log").stdout == b_log_before
    assert {p: p.read_bytes() for p in b_files_before} == b_files_before
    assert nonce_b.encode() in cli(env_b, "recall", nonce_b).stdout
    git(gitdir, "fsck", "--full", "--strict")
    assert cli(env_a, "list").stdout == b""
    assert workspace_state(ws) == before


CRASH_WRITER = r"""
import sys
from okfpro.core.scope import Scope
from okfpro.memory.store import MemoryStore
root, lane, trial = sys.argv[1], sys.argv[2], sys.argv[3]
store = MemoryStore(root)
scope = Scope(tenant="acme", user=f"lane{lane}")
store.write(scope, f"crash-{trial}-first " + "x" * 3000, "user")
print("ready", flush=True)  # one write landed; the kill falls somewhere in the next ones
i = 0
while True:
    store.write(scope, f"crash-{trial}-{i} " + "x" * 3000, "user")
    i += 1
"""


def _check_scope(store: MemoryStore, scope: Scope) -> int:
    """Every file parses, every section is whole, the ref reaches only present objects."""
    directory = store.root / memory_path("user", scope)
    count = 0
    for day in directory.glob("*.md"):
        raw = day.read_bytes()
        cut = interrupted_at(raw)  # a kill mid-append leaves its in-progress mark: readers stop there
        assert APPENDING not in raw or cut is not None, str(day)  # and no other NUL
        _, body = split_concept(raw if cut is None else raw[:cut])  # raises on a torn file
        for _, text in sections(body):
            head, _, tail = text.partition(" ")
            assert head.startswith("crash-") and tail == "x" * 3000, (len(text), text[:40], text[-200:], str(day))
            count += 1
    assert store.history.check("user", scope) is None
    return count


@pytest.mark.slow
def test_crash_safety_writer_killed_at_random_points(tmp_path):
    root = tmp_path / "mem"
    store = MemoryStore(root)
    store.history.repo()
    rng = random.Random(20261130)
    lanes = 4
    trials = 100
    done = 0
    while done < trials:
        batch = []
        for lane in range(min(lanes, trials - done)):
            p = subprocess.Popen(
                [sys.executable, "-c", CRASH_WRITER, str(root), str(lane), str(done + lane)],
                stdout=subprocess.PIPE,
            )
            batch.append((lane, p))
        for lane, p in batch:
            assert p.stdout.readline() == b"ready\n"
        for lane, p in batch:
            time.sleep(rng.uniform(0.0, 0.03))
            p.send_signal(signal.SIGKILL)
        for lane, p in batch:
            p.wait()
            p.stdout.close()
        for lane, _ in batch:
            _check_scope(MemoryStore(root), Scope(tenant="acme", user=f"lane{lane}"))
        done += len(batch)
    # the history is whole, and every lane can still write
    git(root / HISTORY_DIR, "fsck", "--connectivity-only")
    total = 0
    for lane in range(lanes):
        scope = Scope(tenant="acme", user=f"lane{lane}")
        res = MemoryStore(root).write(scope, "crash-after-0 " + "x" * 3000, "user")
        assert res.written and res.error is None, res
        total += _check_scope(MemoryStore(root), scope)
    assert total >= trials + lanes  # every trial wrote before it was killed


def test_purge_reports_text_it_could_not_erase(tmp_path):
    """The library's own proof can fail: the same stored text under another scope is found."""
    store = MemoryStore(tmp_path / "mem")
    a, b = Scope(tenant="acme", user="alice"), Scope(tenant="acme", user="bob")
    text = f"shared-{os.urandom(6).hex()}"
    store.write(a, text, "user", now=NOW)
    store.write(b, text, "user", now=NOW)  # byte-identical section, kept by b
    own = f"own-{os.urandom(6).hex()}"
    store.write(a, own, "user", now=NOW + dt.timedelta(seconds=1))
    res = store.delete_scope(a, "user", purge=True)
    assert not res.verified and res.residual and res.shared == res.residual and res.error is None
    dump = all_objects(store.root / HISTORY_DIR)
    assert own.encode() not in dump and text.encode() in dump
    assert store.read(b, text).passages


def test_purge_proof_is_not_fooled_by_a_longer_entry_elsewhere(tmp_path):
    store = MemoryStore(tmp_path / "mem")
    a, b = Scope(tenant="acme", user="alice"), Scope(tenant="acme", user="bob")
    base = f"prefix-{os.urandom(6).hex()}"
    store.write(a, base, "user", now=NOW)
    store.write(b, base + " and more", "user", now=NOW)
    res = store.delete_scope(a, "user", purge=True)
    assert res.verified and res.error is None and res.residual == []
    assert store.read(b, base).passages
