"""Who may take entries out of a shared tier (issue 37, item 5): on the server, the tenant and agent
tiers change only by additions from their members and by deletions from their maintainers.  The
pre-receive hook judges what a push does to the content (entries removed or rewritten) and who pushes
it (the name the server authenticated, never text in the commit).  Every attack runs against the real
loopback Git server, as bob, a member who is not a maintainer."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from okfpro.core.scope import history_ref
from tests.synckit import Clone, Server, git


T0 = dt.datetime(2026, 11, 30, 9, 0, 0, tzinfo=dt.timezone.utc)
PUSHERS = {
    "alice": {"tenant": "acme", "user": "alice"},
    "bob": {"tenant": "acme", "user": "bob"},
    "carol": {"tenant": "acme", "user": "carol", "maintainer": True},
}
NOTE = "alice: the staging database restores from the 02:00 snapshot"


@pytest.fixture
def shared(tmp_path):
    srv = Server(tmp_path, PUSHERS)
    alice = Clone(tmp_path, "a", "alice", srv.url("alice"))
    bob = Clone(tmp_path, "b", "bob", srv.url("bob"))
    alice.write(NOTE, T0, tier="tenant")
    alice.write("alice: second tenant note", T0 + dt.timedelta(seconds=1), tier="tenant")
    assert alice.okfpro("memory", "sync").returncode == 0
    assert bob.okfpro("memory", "sync").returncode == 0
    assert NOTE in bob.texts("tenant")
    yield srv, alice, bob, tmp_path
    srv.close()


REF = history_ref("tenant", Clone.__init__.__globals__["Scope"](tenant="acme", user="alice"))


def server_texts(srv: Server) -> bytes:
    tip = srv.refs().get(REF)
    assert tip, "the tenant tier is gone from the server"
    return git("--git-dir", str(srv.repo), "archive", "--format=tar", tip).stdout.encode()


def scratch(srv: Server, tmp: Path, who: str = "bob") -> Path:
    """A plain Git checkout of the tenant tier, as ``who`` (no okfpro involved)."""
    work = tmp / f"scratch-{who}"
    git("init", "-q", str(work))
    git("fetch", "-q", srv.url(who), f"{REF}:refs/heads/tenant", cwd=work)
    git("checkout", "-q", "tenant", cwd=work)
    return work


def commit(work: Path, message: str = "okfpro: forget", author: str = "carol") -> None:
    env = {"GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": f"{author}@acme", "GIT_COMMITTER_NAME": author,
           "GIT_COMMITTER_EMAIL": f"{author}@acme"}
    git("add", "-A", cwd=work, env=env)
    git("commit", "-q", "--allow-empty", "-m", message, cwd=work, env=env)


def day_file(work: Path) -> Path:
    return next(p for p in work.rglob("*.md") if ".git" not in p.parts)


def push(srv: Server, work: Path, who: str = "bob", force: bool = False):
    return git("push", *(["--force"] if force else []), srv.url(who), f"HEAD:{REF}", cwd=work, check=False)


def drop_first_section(path: Path) -> None:
    text = path.read_text()
    head, _, body = text.partition("\n## ")
    rest = body.partition("\n## ")[2]
    path.write_text(head + ("\n## " + rest if rest else "\n"))


def emptied(work: Path, srv: Server) -> None:
    day_file(work).unlink()
    commit(work)


def one_dropped(work: Path, srv: Server) -> None:
    drop_first_section(day_file(work))
    commit(work, "okfpro: remember 1 entry")


def rewritten(work: Path, srv: Server) -> None:
    path = day_file(work)
    path.write_text(path.read_text().replace("02:00 snapshot", "03:00 snapshot"))
    commit(work, "okfpro: remember")


def renamed(work: Path, srv: Server) -> None:
    path = day_file(work)
    git("mv", str(path), str(path.with_name("2026-11-29.md")), cwd=work)
    commit(work, "okfpro: remember")


def symlinked(work: Path, srv: Server) -> None:
    path = day_file(work)
    target = path.with_name("2026-11-29.md")
    path.rename(target)
    os.symlink(target.name, path)
    commit(work)


def merged_dropping(work: Path, srv: Server) -> None:
    git("checkout", "-q", "-b", "side", cwd=work)
    drop_first_section(day_file(work))
    commit(work, "side")
    git("checkout", "-q", "tenant", cwd=work)
    path = day_file(work)
    path.write_text(path.read_text() + "\n## 23:00:00 UTC\n\n> bob: a new note\n")
    commit(work, "okfpro: remember")
    env = {"GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": "b@x"}
    git("merge", "-q", "--no-edit", "-s", "ours", "side", cwd=work, env=env)
    drop_first_section(day_file(work))
    git("commit", "-q", "--amend", "-a", "--no-edit", cwd=work, env=env)


def reverted_forward(work: Path, srv: Server) -> None:
    """An older state of the tier as a new commit on top (a fast-forward by graph)."""
    first = git("rev-list", "--max-parents=0", "HEAD", cwd=work).stdout.split()[0]
    git("read-tree", "-u", "--reset", first, cwd=work)
    drop_first_section(day_file(work))
    commit(work)


ATTACKS = [emptied, one_dropped, rewritten, renamed, symlinked, merged_dropping, reverted_forward]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.__name__ for a in ATTACKS])
def test_a_member_cannot_take_entries_out_of_the_shared_tier_with_a_hand_made_push(shared, attack) -> None:
    srv, alice, _bob, tmp = shared
    before = srv.refs()[REF]
    work = scratch(srv, tmp)
    attack(work, srv)
    pushed = push(srv, work)
    assert pushed.returncode != 0 and "maintainer" in pushed.stderr, pushed.stderr
    assert srv.refs()[REF] == before and NOTE.encode() in server_texts(srv)
    forced = push(srv, work, force=True)
    assert forced.returncode != 0 and srv.refs()[REF] == before
    assert alice.okfpro("memory", "sync").returncode == 0
    assert NOTE in alice.texts("tenant")
    # the same bytes from carol, a maintainer, are her call to make
    assert push(srv, work, who="carol").returncode == 0


def test_a_force_push_of_an_older_history_is_refused(shared) -> None:
    srv, alice, bob, tmp = shared
    alice.write("alice: third", T0 + dt.timedelta(seconds=5), tier="tenant")
    assert alice.okfpro("memory", "sync").returncode == 0
    work = scratch(srv, tmp)
    git("reset", "-q", "--hard", "HEAD~1", cwd=work)
    assert push(srv, work, force=True).returncode != 0
    assert "alice: third" in alice.texts("tenant") and b"alice: third" in server_texts(srv)


def test_a_local_mode_forget_of_the_tenant_tier_does_not_reach_the_server(shared) -> None:
    """bob's clone calls itself a single-user workspace (so bob maintains its shared tiers locally):
    the server does not care what the clone believes."""
    srv, alice, bob, tmp = shared
    forgot = bob.okfpro("memory", "forget", "--tier", "tenant", "--yes")
    assert forgot.returncode == 0, forgot.stderr
    assert NOTE not in bob.texts("tenant")
    synced = bob.okfpro("memory", "sync", "--json")
    assert synced.returncode != 0 and "maintainer" in synced.stderr, (synced.stdout, synced.stderr)
    assert NOTE.encode() in server_texts(srv)
    assert alice.okfpro("memory", "sync").returncode == 0
    assert NOTE in alice.texts("tenant")


def test_members_still_add_and_a_maintainer_still_forgets(shared) -> None:
    srv, alice, bob, tmp = shared
    bob.write("bob: the VPN config lives in the wiki", T0 + dt.timedelta(seconds=9), tier="tenant")
    report = bob.okfpro("memory", "sync", "--json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["pushed"]
    assert alice.okfpro("memory", "sync").returncode == 0
    assert "bob: the VPN config lives in the wiki" in alice.texts("tenant") and NOTE in alice.texts("tenant")
    carol = Clone(tmp, "c", "carol", srv.url("carol"))
    (carol.dir / "okfpro.toml").write_text(carol.dir.joinpath("okfpro.toml").read_text()
                                           + '\n[memory.maintainers]\ntenant = ["acme/carol"]\n')
    assert carol.okfpro("memory", "sync").returncode == 0
    forgot = carol.okfpro("memory", "forget", "--tier", "tenant", "--yes")
    assert forgot.returncode == 0, forgot.stderr
    synced = carol.okfpro("memory", "sync")
    assert synced.returncode == 0, synced.stderr
    assert alice.okfpro("memory", "sync").returncode == 0
    assert NOTE not in alice.texts("tenant")


def test_a_member_cannot_delete_the_tier_or_write_or_edit_its_tombstone(shared) -> None:
    srv, alice, bob, tmp = shared
    before = srv.refs()[REF]
    work = scratch(srv, tmp)
    deleted = git("push", srv.url("bob"), f":{REF}", cwd=work, check=False)
    assert deleted.returncode != 0 and srv.refs()[REF] == before
    tomb = REF.replace("refs/okfpro/memory/", "refs/okfpro/tombstone/")
    tree = git("mktree", cwd=work).stdout.strip()
    at = int(dt.datetime.now(dt.timezone.utc).timestamp())
    body = (f"okfpro tombstone tenant x\n\nScope: x\nErased: "
            f"{dt.datetime.fromtimestamp(at, dt.timezone.utc):%Y-%m-%dT%H:%M:%SZ}\nIdentity: 0\nPurged: {before}\n")
    forged = git("commit-tree", tree, "-m", body, cwd=work).stdout.strip()
    pushed = git("push", srv.url("bob"), f"{forged}:{tomb}", cwd=work, check=False)
    assert pushed.returncode != 0 and "maintainer" in pushed.stderr and tomb not in srv.refs()
    # carol's real tombstone, then bob's edit of it (a shrunk or re-timed copy)
    assert git("push", srv.url("carol"), f"{forged}:{tomb}", cwd=work, check=False).returncode == 0
    edited = git("commit-tree", tree, "-m", body.replace(f"Purged: {before}\n", ""), cwd=work).stdout.strip()
    pushed = git("push", "--force", srv.url("bob"), f"{edited}:{tomb}", cwd=work, check=False)
    assert pushed.returncode != 0 and srv.refs()[tomb] == forged
