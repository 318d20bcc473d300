"""Memory sync under attack: other users' refs, lookalike pushers, ``..`` in ref names, symlinks,
forged tombstones and hostile remote commits.  Real git, real server processes, loopback only."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pygit2
import pytest

from okfpro.core.dayfile import frontmatter
from okfpro.core.scope import Scope, history_ref
from okfpro.io.identity import identity_hash
from okfpro.memory.remote import Target
from okfpro.memory.tombstone import make
from tests.helpers import quick, run_okfpro
from tests.synckit import Clone, Server, git


T0 = dt.datetime(2026, 11, 30, 9, 0, 0, tzinfo=dt.timezone.utc)
PUSHERS = {
    "alice": {"tenant": "acme", "user": "alice"},
    "bob": {"tenant": "acme", "user": "bob"},
    "carol": {"tenant": "acme", "user": "carol", "maintainer": True},
}
ZERO = "0" * 40
ALICE = Scope(tenant="acme", user="alice")


def hook(lines: list[str], env: dict[str, str], tmp_path, config: str | None = None) -> subprocess.CompletedProcess:
    """Run ``okfpro memory server-hook`` as Git would: stdin lines, the server's environment."""
    path = tmp_path / "okfpro-server.toml"
    path.write_text(config if config is not None else (
        '[pushers.alice]\ntenant = "acme"\nuser = "alice"\nagents = ["claude"]\n'
        '[pushers.carol]\ntenant = "acme"\nuser = "carol"\nmaintainer = true\n'))
    full = {k: v for k, v in os.environ.items()
            if k not in ("REMOTE_USER", "GL_USERNAME", "GITEA_PUSHER_NAME") and not k.startswith("GIT_")}
    full.update(env)
    repo = tmp_path / "hooked.git"  # Git runs the hook in the repository
    if not repo.exists():
        git("init", "-q", "--bare", str(repo))
    # Git's real process in the full run; the inner loop (quick mode) runs the same entry point in
    # this process (tests/helpers.invoke); the pushes through a real server below always start it
    return run_okfpro("memory", "server-hook", "--config", str(path), stdin="".join(x + "\n" for x in lines),
                      base_env=full, cwd=repo, process=not quick())


def test_hook_fails_closed_and_matches_names_exactly(tmp_path) -> None:
    mine = history_ref("user", ALICE)
    new = "1" * 40
    upd = f"{ZERO} {new} {mine}"
    assert hook([upd], {"REMOTE_USER": "alice"}, tmp_path).returncode == 0
    assert hook([upd], {"GL_USERNAME": "alice"}, tmp_path).returncode == 0
    assert hook([upd], {"GITEA_PUSHER_NAME": "alice"}, tmp_path).returncode == 0
    assert hook([upd], {"PUSHER": "alice"}, tmp_path,
                '[server]\npusher_env = "PUSHER"\n[pushers.alice]\ntenant = "acme"\nuser = "alice"\n').returncode == 0
    # no pusher, an unmapped pusher, lookalikes (case, Cyrillic a, trailing space, zero-width space)
    for env in ({}, {"REMOTE_USER": "mallory"}, {"REMOTE_USER": "Alice"}, {"REMOTE_USER": "\u0430lice"},
                {"REMOTE_USER": "alice "}, {"REMOTE_USER": "alice\u200b"}):
        proc = hook([upd], env, tmp_path)
        assert proc.returncode == 1 and "refused" in proc.stderr, (env, proc.stderr)
    # ... while refs outside refs/okfpro/ are not the hook's business
    assert hook([f"{ZERO} {new} refs/heads/main"], {}, tmp_path).returncode == 0
    # an unreadable config refuses memory refs
    bad = hook([upd], {"REMOTE_USER": "alice"}, tmp_path, "[pushers.alice\n")
    assert bad.returncode == 1 and "cannot read" in bad.stderr
    # other spellings of alice's ref, other users, made-up namespaces
    base = mine.rsplit("/", 1)[0]
    bob = history_ref("user", Scope(tenant="acme", user="bob"))
    for ref in (mine + "/x", mine + ".lock", f"{base}/../{mine.rsplit('/', 1)[1]}", mine.upper(), bob,
                bob.replace("/memory/", "/tombstone/"), "refs/okfpro/memory/user/x", "refs/okfpro/other",
                history_ref("session", Scope("acme", "alice", None, "s")).rsplit("/", 1)[0] + "/s-xyz",
                history_ref("agent", Scope("acme", None, "codex"))):
        proc = hook([f"{ZERO} {new} {ref}"], {"REMOTE_USER": "alice"}, tmp_path)
        assert proc.returncode == 1, ref
    # one bad line refuses the whole push
    assert hook([upd, f"{ZERO} {new} {bob}"], {"REMOTE_USER": "alice"}, tmp_path).returncode == 1
    # her sessions and the agent tier she is given are hers to write
    session = history_ref("session", Scope("acme", "alice", None, "abc"))
    agent = history_ref("agent", Scope("acme", None, "claude"))
    empty = git("commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "memory agent x: new",  # the empty tree
                cwd=tmp_path / "hooked.git").stdout.strip()  # a shared tier's new tip is read (serverhook.hides)
    assert hook([f"{ZERO} {new} {session}", f"{ZERO} {empty} {agent}"], {"REMOTE_USER": "alice"}, tmp_path).returncode == 0
    # a shared tier: no delete, no tombstone, unless a maintainer
    tenant = history_ref("tenant", ALICE)
    sub = Target("tenant", "memory-tenant/x", "memory-tenant/x", tenant)
    real = make(pygit2.Repository(str(tmp_path / "hooked.git")), sub, T0, "carol")  # a tombstone is a real one
    for line in (f"{new} {ZERO} {tenant}", f"{ZERO} {real} {tenant.replace('/memory/', '/tombstone/')}"):
        assert hook([line], {"REMOTE_USER": "alice"}, tmp_path).returncode == 1
        assert hook([line], {"REMOTE_USER": "carol"}, tmp_path).returncode == 0
    # a tombstone is never deleted
    assert hook([f"{new} {ZERO} {mine.replace('/memory/', '/tombstone/')}"], {"REMOTE_USER": "alice"},
                tmp_path).returncode == 1


@pytest.fixture
def server(tmp_path):
    srv = Server(tmp_path, PUSHERS)
    yield srv
    srv.close()


def test_plain_git_as_bob_neither_lists_nor_fetches_alices_scope(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    a.write("alice only 51c", T0)
    assert a.okfpro("memory", "sync").returncode == 0
    mine = history_ref("user", ALICE)
    assert mine in git("ls-remote", server.url("alice")).stdout
    assert mine not in git("ls-remote", server.url("bob")).stdout
    work = tmp_path / "w"
    git("init", "-q", "--bare", str(work))
    proc = git("--git-dir", str(work), "fetch", server.url("bob"), f"{mine}:refs/x", check=False)
    assert proc.returncode != 0
    proc = git("--git-dir", str(work), "fetch", server.url("bob"), "refs/okfpro/*:refs/y/*", check=False)
    assert "alice only 51c" not in git("--git-dir", str(work), "cat-file", "--batch-all-objects", "--batch-check").stdout
    assert git("--git-dir", str(work), "for-each-ref").stdout == ""


def test_symlinked_scope_directory_is_refused_and_outside_untouched(server, tmp_path) -> None:
    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    b = Clone(tmp_path, "b", "alice", server.url("alice"))
    a.write("from a", T0)
    assert a.okfpro("memory", "sync").returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    scope_dir = Path(b.store().scope_dir("user", b.scope))
    scope_dir.parent.mkdir(parents=True)
    scope_dir.symlink_to(outside, target_is_directory=True)
    proc = b.okfpro("memory", "sync", "--json")
    assert proc.returncode == 1, proc.stderr
    assert "symbolic link" in json.loads(proc.stdout)["refused"][0]["why"]
    assert list(outside.iterdir()) == []


def _file_remote(tmp_path):
    bare = tmp_path / "plain.git"  # a server without the hook: what the client alone must withstand
    git("init", "-q", "--bare", str(bare))
    return bare


def test_forged_tombstone_is_not_honoured(tmp_path) -> None:
    bare = _file_remote(tmp_path)
    a = Clone(tmp_path, "a", "alice", str(bare))
    a.write("keep me 88", T0)
    assert a.okfpro("memory", "sync").returncode == 0
    # bob (no hook stops him here) writes a tombstone for alice's scope: his identity, or the wrong scope
    sub = a.store().subtree("user", ALICE)
    target = Target("user", sub.prefix, sub.key, sub.ref)
    repo = pygit2.init_repository(str(tmp_path / "forge.git"), bare=True)
    for ident, key in ((identity_hash(Scope(tenant="acme", user="bob")), sub.key), (identity_hash(ALICE), "memory-user/x")):
        forged = make(repo, Target("user", sub.prefix, key, sub.ref), dt.datetime.now(dt.timezone.utc), ident)
        git("--git-dir", str(tmp_path / "forge.git"), "push", "-q", "--force", str(bare),
            f"{forged}:{target.tombstone}")
        proc = a.okfpro("memory", "sync", "--json")
        assert proc.returncode == 1
        assert "tombstone not honoured" in json.loads(proc.stdout)["refused"][0]["why"]
        assert a.texts() == ["keep me 88"]


def test_hostile_remote_commit_is_refused(tmp_path) -> None:
    bare = _file_remote(tmp_path)
    a = Clone(tmp_path, "a", "alice", str(bare))
    sub = a.store().subtree("user", ALICE)
    repo = pygit2.init_repository(str(tmp_path / "evil.git"), bare=True)
    sig = pygit2.Signature("x", "x@x", 0, 0)

    def wrap(inner, parts):
        oid = inner
        for name in reversed(parts):
            tb = repo.TreeBuilder()
            tb.insert(name, oid, pygit2.enums.FileMode.TREE)
            oid = tb.write()
        return oid

    cases = []
    tb = repo.TreeBuilder()
    tb.insert("2026-11-30.md", repo.create_blob(b"/etc/passwd"), pygit2.enums.FileMode.LINK)  # a symlink
    cases.append((wrap(tb.write(), sub.prefix.split("/")), f"memory user {sub.key}: x"))
    tb = repo.TreeBuilder()
    tb.insert("2026-11-30.md", repo.create_blob(b"---\n"), pygit2.enums.FileMode.BLOB)
    cases.append((wrap(tb.write(), ["memory-user", "elsewhere"]), f"memory user {sub.key}: x"))  # outside the prefix
    cases.append((wrap(tb.write(), sub.prefix.split("/")), "memory user memory-user/other: x"))  # another scope
    for tree, msg in cases:
        commit = repo.create_commit(None, sig, sig, msg, tree, [])
        git("--git-dir", str(tmp_path / "evil.git"), "push", "-q", "--force", str(bare), f"{commit}:{sub.ref}")
        proc = a.okfpro("memory", "sync", "--json")
        assert proc.returncode == 1, proc.stdout
        assert json.loads(proc.stdout)["refused"]
        assert a.texts() == [] and a.store().history.tip("user", ALICE) is None


def _hostile_day_file(tmp_path, a: Clone, bare, data: bytes) -> None:
    """Force onto ``bare`` a commit of alice's scope whose one day file is ``data``."""
    sub = a.store().subtree("user", ALICE)
    evil = tmp_path / "huge.git"
    repo = pygit2.Repository(str(evil)) if evil.exists() else pygit2.init_repository(str(evil), bare=True)
    sig = pygit2.Signature("x", "x@x", 0, 0)
    tb = repo.TreeBuilder()
    tb.insert("2026-11-30.md", repo.create_blob(data), pygit2.enums.FileMode.BLOB)
    oid = tb.write()
    for name in reversed(sub.prefix.split("/")):
        tb = repo.TreeBuilder()
        tb.insert(name, oid, pygit2.enums.FileMode.TREE)
        oid = tb.write()
    commit = repo.create_commit(None, sig, sig, f"memory user {sub.key}: remember 1 (1 entry)\n", oid, [])
    git("--git-dir", str(evil), "push", "-q", "--force", str(bare), f"{commit}:{sub.ref}")


def test_a_huge_remote_day_file_is_refused_before_it_is_read(tmp_path) -> None:
    bare = _file_remote(tmp_path)
    a = Clone(tmp_path, "a", "alice", str(bare))
    a.write("keep me 31", T0)
    assert a.okfpro("memory", "sync").returncode == 0
    before, tip = a.files(), a.store().history.tip("user", ALICE)
    head = (frontmatter("2026-11-30", T0, "x") + "\n## 09:00:01 UTC\n\n").encode()  # a valid day file, only big
    for data, cap in ((head + b"> " + b"x" * (40 << 20) + b"\n", "sync_max_bytes"),  # 40 MiB: over the 32 MiB default
                      (head + b">\n" * 600_000, "sync_max_lines")):  # 1.2 MB, 600,000 lines: over 500,000
        _hostile_day_file(tmp_path, a, bare, data)
        proc = a.okfpro("memory", "sync", "--json")
        assert proc.returncode == 1, proc.stderr
        why = json.loads(proc.stdout)["refused"][0]["why"]
        assert why.startswith(a.store().subtree("user", ALICE).ref) and cap in why, why  # names the ref and the knob
        assert a.files() == before and a.store().history.tip("user", ALICE) == tip  # nothing lost or changed here
        assert a.texts() == ["keep me 31"]
    # the caps are configurable: a small one refuses even an ordinary remote commit; a bad one is a usage error
    b = Clone(tmp_path, "b", "alice", str(bare))
    with open(b.dir / "okfpro.toml", "a") as handle:
        handle.write("sync_max_bytes = 100\n")
    proc = b.okfpro("memory", "sync", "--json")
    assert proc.returncode == 1 and "sync_max_bytes" in proc.stdout and b.texts() == []
    (b.dir / "okfpro.toml").write_text((b.dir / "okfpro.toml").read_text().replace("= 100", "= -1"))
    assert b.okfpro("memory", "sync").returncode == 2


def test_the_installed_http_backend_hides_other_users_refs_on_every_service(server, tmp_path) -> None:
    import base64
    import urllib.request

    a = Clone(tmp_path, "a", "alice", server.url("alice"))
    a.write("alice only 7d2", T0)
    assert a.okfpro("memory", "sync").returncode == 0
    assert (server.repo / "okfpro-http-backend").is_file()  # written by `server-hook install`, used by the server
    mine = history_ref("user", ALICE)
    tip = server.refs()[mine]
    # the push service's advertisement shows bob none of alice's ref names either
    for user, shown in (("alice", True), ("bob", False)):
        req = urllib.request.Request(f"http://127.0.0.1:{server.port}/memory.git/info/refs?service=git-receive-pack")
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:pw-{user}".encode()).decode())
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = resp.read().decode("utf-8", "replace")
        assert (mine in body) is shown and (tip in body) is shown, (user, body[:300])
    # knowing the id is not enough: bob asks for alice's tip by id, under protocol v2 and v0
    work = tmp_path / "steal.git"
    git("init", "-q", "--bare", str(work))
    for version in ("2", "0"):
        proc = git("--git-dir", str(work), "-c", f"protocol.version={version}", "fetch", server.url("bob"), tip,
                   check=False)
        assert proc.returncode != 0, (version, proc.stderr)
    assert "alice only 7d2" not in git("--git-dir", str(work), "cat-file", "--batch-all-objects", "--batch").stdout


def test_hook_in_process_refuses_on_the_current_stderr(tmp_path) -> None:
    """Called in a process whose stderr was replaced after import (a test runner, an embedding
    server), the refusal goes to that stream: the default is looked up per call."""
    import contextlib
    import io

    from okfpro.memory.serverhook import run_hook

    seen = io.StringIO()
    with contextlib.redirect_stderr(seen):
        code = run_hook(io.StringIO("only two\n"), {}, tmp_path / "absent.toml")
    assert code == 1 and "unexpected pre-receive input" in seen.getvalue()
