"""A purge holds against every remote the scope was ever synced with (issue 37, item 6): a remote named
only on the command line, a second remote, a remote that was down during the purge, a purge told to
touch no remote.  The clone remembers where it synced; its local erasure record is carried to a remote
before any fetch, so the erased history never comes back.  Real Git servers on loopback."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.synckit import Clone, Server, git, objects_hold


PUSHERS = {"alice": {"tenant": "acme", "user": "alice"}}
SECRET = "alice: the vault unseal phrase is lobster-42"
NOW = dt.datetime.now(dt.timezone.utc)


def no_remote(clone: Clone) -> Clone:
    """The clone's okfpro.toml without [memory] remote: remotes come from the command line only."""
    (clone.dir / "okfpro.toml").write_text('[identity]\ntenant = "acme"\nuser = "alice"\n\n[memory]\n'
                                           'tiers = ["session", "user", "tenant"]\n')
    return clone


@pytest.fixture
def servers(tmp_path):
    one = Server(tmp_path / "one" if (tmp_path / "one").mkdir() is None else None, PUSHERS)
    two = Server(tmp_path / "two" if (tmp_path / "two").mkdir() is None else None, PUSHERS)
    yield one, two
    one.close()
    two.close()


def server_holds(srv: Server, needle: bytes) -> bool:
    return any(r.startswith("refs/okfpro/memory/") for r in srv.refs()) and objects_hold_reachable(srv, needle)


def objects_hold_reachable(srv: Server, needle: bytes) -> bool:
    for ref, sha in srv.refs().items():
        if ref.startswith("refs/okfpro/memory/"):
            tar = git("--git-dir", str(srv.repo), "archive", "--format=tar", sha).stdout.encode()
            if needle in tar:
                return True
    return False


def test_a_remote_named_on_the_command_line_does_not_undo_a_purge(servers, tmp_path) -> None:
    one, _ = servers
    a = no_remote(Clone(tmp_path, "a", "alice", "unused"))
    assert a.okfpro("memory", "remember", SECRET).returncode == 0
    assert a.okfpro("memory", "sync", one.url("alice")).returncode == 0
    assert server_holds(one, b"lobster-42")
    other = no_remote(Clone(tmp_path, "b", "alice", "unused"))  # a second machine that synced before the purge
    assert other.okfpro("memory", "sync", one.url("alice")).returncode == 0
    assert any(SECRET in t for t in other.texts())
    purge = a.okfpro("memory", "forget", "--purge", "--yes")
    assert purge.returncode == 0, purge.stderr
    assert "tombstone" in purge.stdout  # the remembered remote was erased too
    assert not server_holds(one, b"lobster-42")
    again = a.okfpro("memory", "sync", one.url("alice"), "--json")
    assert again.returncode == 0, again.stderr
    assert a.texts() == [] and not a.objects_hold(b"lobster-42")
    recall = json.loads(a.okfpro("memory", "recall", "lobster", "--json").stdout)
    assert recall["passages"] == []
    assert other.okfpro("memory", "sync", one.url("alice")).returncode == 0
    assert not any(SECRET in t for t in other.texts()) and not other.objects_hold(b"lobster-42")


@pytest.mark.parametrize("how", ["this-clone-only", "remote-down"])
def test_the_local_erasure_record_is_carried_by_the_next_sync(servers, tmp_path, how) -> None:
    one, _ = servers
    a = no_remote(Clone(tmp_path, "a", "alice", "unused"))
    assert a.okfpro("memory", "remember", SECRET).returncode == 0
    assert a.okfpro("memory", "sync", one.url("alice")).returncode == 0
    if how == "this-clone-only":
        purge = a.okfpro("memory", "forget", "--purge", "--yes", "--remote", "")
        assert purge.returncode == 0, purge.stderr
    else:  # the server cannot be reached during the purge (its repository is away)
        aside = one.repo.with_name("away.git")
        one.repo.rename(aside)
        purge = a.okfpro("memory", "forget", "--purge", "--yes")
        aside.rename(one.repo)
        assert purge.returncode != 0 and "next sync" in purge.stderr, purge.stderr
    assert a.texts() == [] and not a.objects_hold(b"lobster-42")
    assert server_holds(one, b"lobster-42")  # not told yet
    again = a.okfpro("memory", "sync", one.url("alice"), "--json")
    assert again.returncode == 0, again.stderr
    assert a.texts() == [] and not a.objects_hold(b"lobster-42")
    assert not server_holds(one, b"lobster-42")
    one.gc()
    assert not objects_hold(one.repo, b"lobster-42")


def test_a_purge_erases_on_every_remote_ever_synced(servers, tmp_path) -> None:
    one, two = servers
    a = no_remote(Clone(tmp_path, "a", "alice", "unused"))
    assert a.okfpro("memory", "remember", SECRET).returncode == 0
    assert a.okfpro("memory", "sync", one.url("alice")).returncode == 0
    assert a.okfpro("memory", "sync", two.url("alice")).returncode == 0
    assert server_holds(one, b"lobster-42") and server_holds(two, b"lobster-42")
    purge = a.okfpro("memory", "forget", "--purge", "--yes")
    assert purge.returncode == 0, purge.stderr
    assert not server_holds(one, b"lobster-42") and not server_holds(two, b"lobster-42")
    for srv in (one, two):
        assert a.okfpro("memory", "sync", srv.url("alice")).returncode == 0
    assert a.texts() == [] and not a.objects_hold(b"lobster-42")
    # and writing again afterwards travels normally
    assert a.okfpro("memory", "remember", "alice: a fresh start").returncode == 0
    assert a.okfpro("memory", "sync", one.url("alice")).returncode == 0
    assert server_holds(one, b"a fresh start")


def test_a_remote_without_the_hook_that_took_the_old_history_back_does_not_bring_it_here(tmp_path) -> None:
    """A plain bare repository (no server hook): a stale clone pushes the erased history back with
    plain git after the purge; the eraser's next sync refuses that history instead of merging it."""
    bare = tmp_path / "plain.git"
    git("init", "-q", "--bare", str(bare))
    a = no_remote(Clone(tmp_path, "a", "alice", "unused"))
    stale = no_remote(Clone(tmp_path, "b", "alice", "unused"))
    assert a.okfpro("memory", "remember", SECRET).returncode == 0
    assert a.okfpro("memory", "sync", str(bare)).returncode == 0
    assert stale.okfpro("memory", "sync", str(bare)).returncode == 0
    assert a.okfpro("memory", "forget", "--purge", "--yes").returncode == 0
    ref = next(r for r in git("--git-dir", str(stale.root / ".okf-history.git"), "for-each-ref",
                              "--format=%(refname)", "refs/okfpro/memory/").stdout.split())
    git("--git-dir", str(stale.root / ".okf-history.git"), "push", "-q", "--force", str(bare), f"{ref}:{ref}")
    again = a.okfpro("memory", "sync", str(bare), "--json")
    assert again.returncode == 1 and "erased here" in again.stderr, (again.stdout, again.stderr)
    assert a.texts() == []
    assert json.loads(a.okfpro("memory", "recall", "lobster", "--json").stdout)["passages"] == []
