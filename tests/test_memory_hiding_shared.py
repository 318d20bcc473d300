"""A member cannot hide someone else's shared entry from recall (issue 37, item 5, the policy half):
an ``archive`` / ``expire`` change record, a ``supersedes`` list, a record born hidden or one that claims
a memory id its text does not derive is an addition by bytes and a deletion in effect.  The server hook
refuses every such record from a pusher who is not a maintainer, whatever it targets (the server cannot
trust who wrote an entry: its section carries no authenticated author, so a member's *own* shared entry
is not archivable by the member either — a maintainer does it).  Identity is the name the server
authenticated.  Every variant runs against the real loopback Git server: refused for bob (a member),
also force-pushed; the same bytes from carol (a maintainer) are accepted and really do hide the entry
for alice."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from okfpro.core import mempolicy
from okfpro.core.dayfile import frontmatter, render_section
from okfpro.memory.policy import load_records
from tests.synckit import Clone, Server, git
from tests.test_memory_erasure_shared import PUSHERS, REF, T0, commit, day_file, push, scratch, server_texts

DECISION = "alice: we ship the tenant release on Fridays only"
NOTE = "alice: the staging database restores from the 02:00 snapshot"
TODAY = "2026-12-01"


def remember(clone: Clone, *args: str) -> dict:
    done = clone.okfpro("memory", "remember", "--tier", "tenant", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def visible(clone: Clone) -> set[str]:
    """The texts recall shows of the tenant tier (the policy's fold, as recall applies it)."""
    records = load_records(clone.store(), clone.scope, "tenant")
    return {r.text for r in records.values() if mempolicy.visible(r, dt.date(2026, 12, 2))}


@pytest.fixture
def shared(tmp_path, monkeypatch):
    monkeypatch.setenv("OKFPRO_TODAY", TODAY)
    srv = Server(tmp_path, PUSHERS)
    alice = Clone(tmp_path, "a", "alice", srv.url("alice"))
    bob = Clone(tmp_path, "b", "bob", srv.url("bob"))
    alice.write(NOTE, T0, tier="tenant")
    mid = remember(alice, "--kind", "decision", DECISION)["id"]
    assert alice.okfpro("memory", "sync").returncode == 0
    assert bob.okfpro("memory", "sync").returncode == 0
    assert {NOTE, DECISION} <= visible(bob)
    note_id = next(e.id for e in alice.store().enumerate(alice.scope).entries if e.text == NOTE)
    yield srv, alice, bob, tmp_path, mid, note_id
    srv.close()


def append(work: Path, *texts: str, day: str | None = None) -> None:
    """Sections holding ``texts`` at the end of the day file of ``day`` (a new file when there is none)."""
    existing = day_file(work)
    path = existing.with_name(f"{day}.md") if day else existing
    at = dt.datetime(2026, 11, 29, 23, 0, 0, tzinfo=dt.timezone.utc)
    sections = "\n".join(render_section(t, at) for t in texts)
    if path.exists():
        path.write_text(path.read_text() + "\n" + sections)
    else:
        path.write_text(frontmatter(path.stem, at, "okfpro/0") + "\n" + sections)


def message(work: Path) -> str:
    """A commit message of the scope's own (``memory tenant <key>: …``), as the client's sync wants."""
    return git("log", "-1", "--format=%s", cwd=work).stdout.partition(": ")[0] + ": remember"


def change(what: str, target: str) -> str:
    return mempolicy.render(mempolicy.change_record(what, target, created=TODAY))


def superseding(*targets: str) -> str:
    rec = mempolicy.make("bob: we ship on Mondays", kind="decision", created=TODAY)
    return mempolicy.render(mempolicy.replace(rec, supersedes=targets))


def archive_in_the_same_day(work, mid, note_id):
    append(work, change("archive", mid))


def expire_in_the_same_day(work, mid, note_id):
    append(work, change("expire", mid))


def archive_in_a_new_earlier_day(work, mid, note_id):
    """Folded before its target, so inert today; refused all the same (the order is not the hook's to judge)."""
    append(work, change("archive", mid), day="2026-11-01")


def archive_in_a_new_later_day(work, mid, note_id):
    append(work, change("archive", mid), day="2026-12-24")


def archive_of_a_captured_entry_by_entry_id(work, mid, note_id):
    append(work, change("archive", note_id))


def supersede(work, mid, note_id):
    append(work, superseding(mid))


def several_at_once(work, mid, note_id):
    append(work, "bob: an ordinary note", superseding(mid, note_id), change("expire", note_id))


def flow_style_yaml(work, mid, note_id):
    append(work, "---\n{memory: m-00000000beef, change: archive, target: " + mid + "}\n---")


def unknown_change_word(work, mid, note_id):
    """Not a change recall applies today; refused all the same (a word it may learn later)."""
    append(work, change("archive", mid).replace("change: archive", "change: retire"))


def born_hidden_duplicate(work, mid, note_id):
    """The same memory (its id derives) filed as archived on an earlier day: the first record stands."""
    rec = mempolicy.make(DECISION, kind="decision", created="2026-11-01", status="archived")
    append(work, mempolicy.render(rec), day="2026-11-01")


def forged_id_shadow(work, mid, note_id):
    """Another text claiming alice's memory id, on an earlier day: recall keeps it, not hers."""
    rec = mempolicy.make("bob: nothing to see", kind="decision", created="2026-11-01")
    append(work, mempolicy.render(mempolicy.replace(rec, id=mid)), day="2026-11-01")


def expiring_duplicate(work, mid, note_id):
    """The same memory (its id derives) on an earlier day with an end of validity already passed."""
    rec = mempolicy.make(DECISION, kind="decision", created="2026-11-01", valid_until="2026-11-15")
    append(work, mempolicy.render(rec), day="2026-11-01")


def merged_side_archives(work, mid, note_id):
    env = {"GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": "b@x"}
    git("checkout", "-q", "-b", "side", cwd=work)
    append(work, change("archive", mid), day="2026-12-24")
    commit(work, message(work))
    git("checkout", "-q", "tenant", cwd=work)
    append(work, "bob: a new note", day="2026-11-03")
    commit(work, message(work))
    git("merge", "-q", "-m", message(work), "side", cwd=work, env=env)


VARIANTS = [archive_in_the_same_day, expire_in_the_same_day, archive_in_a_new_earlier_day, archive_in_a_new_later_day,
            archive_of_a_captured_entry_by_entry_id, supersede, several_at_once, flow_style_yaml, unknown_change_word,
            born_hidden_duplicate, expiring_duplicate, forged_id_shadow, merged_side_archives]
HIDES = {archive_of_a_captured_entry_by_entry_id: NOTE, several_at_once: NOTE}  # else: DECISION
INERT = {unknown_change_word, archive_in_a_new_earlier_day}  # refused without hiding anything today


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.__name__ for v in VARIANTS])
def test_a_member_cannot_hide_a_shared_entry_with_a_policy_record(shared, variant) -> None:
    srv, alice, _bob, tmp, mid, note_id = shared
    before = srv.refs()[REF]
    work = scratch(srv, tmp)
    variant(work, mid, note_id)
    if git("status", "--porcelain", cwd=work).stdout.strip():
        commit(work, message(work), author="carol")
    pushed = push(srv, work)
    assert pushed.returncode != 0 and "maintainer may hide" in pushed.stderr, pushed.stderr
    assert srv.refs()[REF] == before
    forced = push(srv, work, force=True)
    assert forced.returncode != 0 and srv.refs()[REF] == before
    assert alice.okfpro("memory", "sync").returncode == 0
    assert {NOTE, DECISION} <= visible(alice)
    # the same bytes from carol, a maintainer, are accepted, and they do take the entry out of recall
    assert push(srv, work, who="carol").returncode == 0
    assert alice.okfpro("memory", "sync").returncode == 0
    gone = HIDES.get(variant, DECISION)
    assert (gone in visible(alice)) is (variant in INERT)


@pytest.mark.parametrize("verb", ["archive", "expire", "supersede"])
def test_the_cli_route_is_refused_too(shared, verb) -> None:
    """bob's own client writes the record (`memory change`, `remember --supersede`); his sync is declined."""
    srv, alice, bob, _tmp, mid, _note = shared
    if verb == "supersede":
        remember(bob, "--kind", "decision", "--supersede", mid, "bob: we ship on Mondays")
    else:
        done = bob.okfpro("memory", "change", verb, mid, "--tier", "tenant")
        assert done.returncode == 0, done.stderr
    assert DECISION not in visible(bob)
    synced = bob.okfpro("memory", "sync", "--json")
    assert synced.returncode != 0 and "maintainer may hide" in synced.stderr, (synced.stdout, synced.stderr)
    assert b"m-" in server_texts(srv)
    assert alice.okfpro("memory", "sync").returncode == 0
    assert DECISION in visible(alice)


def test_a_member_cannot_archive_even_an_entry_of_his_own(shared) -> None:
    """Who wrote a section is text a client wrote: bob's own entry is his by no proof the server holds."""
    srv, alice, bob, _tmp, _mid, _note = shared
    own = remember(bob, "--kind", "decision", "bob: the VPN config lives in the wiki")["id"]
    assert bob.okfpro("memory", "sync").returncode == 0
    assert bob.okfpro("memory", "change", "archive", own, "--tier", "tenant").returncode == 0
    synced = bob.okfpro("memory", "sync")
    assert synced.returncode != 0 and "maintainer may hide" in synced.stderr
    assert alice.okfpro("memory", "sync").returncode == 0
    assert "bob: the VPN config lives in the wiki" in visible(alice)


def test_members_still_add_memories_and_confirm(shared) -> None:
    """The control: a member's explicit memories (a kind, a validity, a declared contradiction) and a
    confirm are additions that hide nothing."""
    srv, alice, bob, _tmp, mid, _note = shared
    remember(bob, "--kind", "decision", "--valid-until", "2027-06-30", "bob: freeze the API until June")
    remember(bob, "--kind", "decision", "--contradicts", mid, "bob: we also ship on Tuesdays")
    synced = bob.okfpro("memory", "sync")
    assert synced.returncode == 0, synced.stderr
    assert alice.okfpro("memory", "sync").returncode == 0
    assert {DECISION, NOTE, "bob: freeze the API until June"} <= visible(alice)
