"""Memory policy: records, reconciliation decisions, append-only status, and audit events."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.scope import Scope
from okfpro.memory import telemetry as _telemetry
from okfpro.memory.policy import change, load_records, remember
from okfpro.memory.store import MemoryStore

TODAY = dt.date(2026, 11, 30)


def rec(text, **kw):
    return _mempolicy.make(text, created=TODAY, **kw)


# ----------------------------------------------------------------------------------- pure


def test_render_parse_round_trip():
    r = rec("We ship on Fridays.", kind="decision", source="user", confidence="high", valid_until="2027-03-31",
            review_at="2027-01-15")
    text = _mempolicy.render(r)
    assert text.startswith("---\nmemory: m-") and text.endswith("We ship on Fridays.")
    back = _mempolicy.parse(text, "store#1", "2026-11-30")
    assert back == r
    plain = _mempolicy.parse("**User:**\n> hello", "k/2026-11-30#2", "2026-11-30")
    assert plain.kind == "event" and plain.source == "capture" and not plain.explicit and plain.id == "k/2026-11-30#2"


def test_validation_rejects_unknown_vocabulary():
    bad = _mempolicy.MemoryRecord(id="m-000000000000", text="x", kind="gossip", status="maybe", confidence="huge",
                         visibility="everyone", source="rumour")
    problems = _mempolicy.validate(bad)
    assert len(problems) == 5
    assert _mempolicy.decide_write(bad, []).decision == "reject"
    with pytest.raises(_mempolicy.PolicyError):
        _mempolicy.make("x", valid_until="next week")


def test_exact_duplicate_is_skipped():
    old = rec("We ship on Fridays", kind="decision")
    d = _mempolicy.decide_write(rec("we ship on  fridays!", kind="decision"), [old])
    assert d.decision == "skip" and d.target_id == old.id
    # same text, other kind: a different memory
    assert _mempolicy.decide_write(rec("We ship on Fridays", kind="preference"), [old]).decision == "create"


def test_create_reports_related_memories_without_touching_them():
    old = rec("the deploy window is Friday afternoon", kind="decision")
    new = rec("the deploy window is Friday morning", kind="decision")
    d = _mempolicy.decide_write(new, [old])
    assert d.decision == "create" and d.evidence and d.evidence[0][0] == old.id
    assert _mempolicy.apply(d, new) == new


def test_supersede_only_when_asked():
    old = rec("the deploy window is Friday afternoon", kind="decision")
    new = rec("the deploy window is Friday morning", kind="decision")
    d = _mempolicy.decide_write(new, [old], supersede=True)
    assert d.decision == "supersede" and d.target_id == old.id
    written = _mempolicy.apply(d, new)
    assert written.supersedes == (old.id,)
    folded = _mempolicy.fold([old, written])
    assert folded[old.id].status == "superseded" and folded[old.id].superseded_by == new.id
    assert folded[new.id].status == "active"
    # by id, too; an unknown id creates instead of guessing
    assert _mempolicy.decide_write(new, [old], supersede=old.id).decision == "supersede"
    assert _mempolicy.decide_write(new, [old], supersede="m-ffffffffffff").decision == "create"


def test_agent_inferred_never_supersedes_user_confirmed():
    old = rec("the deploy window is Friday afternoon", kind="decision", source="user-confirmed")
    guess = rec("the deploy window is Friday morning", kind="decision", source="agent-inferred")
    d = _mempolicy.decide_write(guess, [old], supersede=True)
    assert d.decision == "conflict" and "cannot supersede" in d.reason
    written = _mempolicy.apply(d, guess)
    assert written.status == "conflicted" and written.related == (old.id,)
    # even a hand-made record claiming to supersede is ignored by fold
    forged = _mempolicy.MemoryRecord(**{**{f: getattr(guess, f) for f in guess._fields}, "supersedes": (old.id,)})
    assert _mempolicy.fold([old, forged])[old.id].status == "active"


def test_declared_contradiction_is_a_conflict_and_keeps_both():
    old = rec("staging uses postgres 15", kind="project")
    new = rec("staging uses postgres 16", kind="project")
    d = _mempolicy.decide_write(new, [old], contradicts=True)
    assert d.decision == "conflict" and d.target_id == old.id
    folded = _mempolicy.fold([old, _mempolicy.apply(d, new)])
    assert folded[old.id].status == "active" and folded[new.id].status == "conflicted"
    assert _mempolicy.visible(folded[new.id], TODAY)  # shown, labelled


def test_expiry_archive_and_visibility():
    old = rec("the freeze lasts until the 1st", kind="event", valid_until="2026-11-29")
    assert _mempolicy.effective_status(old, TODAY) == "expired" and not _mempolicy.visible(old, TODAY)
    assert _mempolicy.visible(old, TODAY, include_hidden=True)
    keep = rec("we ship on Fridays", kind="decision")
    archived = _mempolicy.fold([keep, _mempolicy.change_record("archive", keep.id, created=TODAY)])[keep.id]
    assert archived.status == "archived" and not _mempolicy.visible(archived, TODAY)
    assert _mempolicy.review_due(rec("x", review_at="2026-11-01"), TODAY)


def test_decisions_are_deterministic():
    pool = [rec(f"service {i} deploys on day {i % 5}", kind="decision") for i in range(20)]
    new = rec("service 3 deploys on day 3 at noon", kind="decision")
    assert len({_mempolicy.decide_write(new, pool, supersede=True) for _ in range(5)}) == 1
    assert _mempolicy.decide_write(new, list(reversed(pool)), supersede=True) == _mempolicy.decide_write(new, pool, supersede=True)


# ----------------------------------------------------------------------------------- with the real store


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "mem")


def test_remember_through_the_store_is_append_only(store, tmp_path):
    scope = Scope("acme", "alice")
    a = remember(store, scope, "the deploy window is Friday afternoon", kind="decision", today=TODAY,
                 audit_root=store.root)
    assert a.written and a.decision.decision == "create"
    dup = remember(store, scope, "The deploy window is Friday afternoon.", kind="decision", today=TODAY,
                   audit_root=store.root)
    assert dup.decision.decision == "skip" and not dup.written
    b = remember(store, scope, "the deploy window is Friday morning", kind="decision", supersede=True, today=TODAY,
                 audit_root=store.root)
    assert b.decision.decision == "supersede" and b.decision.target_id == a.id
    recs = load_records(store, scope)
    assert recs[a.id].status == "superseded" and recs[a.id].superseded_by == b.id
    # nothing was rewritten: both texts are still on disk, in order
    day = next(store.root.glob("memory-user/*/*/*.md")).read_text()
    assert day.index("Friday afternoon") < day.index("Friday morning")
    # another scope is reconciled on its own
    other = remember(store, Scope("acme", "bob"), "the deploy window is Friday afternoon", kind="decision", today=TODAY)
    assert other.decision.decision == "create"


def test_remember_redacts_and_refuses(store):
    scope = Scope("acme", "alice")
    r = remember(store, scope, "the staging password is Sup3r-s3cret!", kind="project", today=TODAY)  # okfpro:allow-secret
    assert r.written and r.redactions == [("generic-password", 1)]
    assert "Sup3r-s3cret" not in next(store.root.glob("memory-user/*/*/*.md")).read_text()
    key = "PRIVATE" + " KEY"
    refused = remember(store, scope, f"-----BEGIN OPENSSH {key}-----\nabc\n-----END OPENSSH {key}-----",
                       today=TODAY)
    assert refused.decision.decision == "reject" and not refused.written


def test_change_records_archive_without_deleting(store):
    scope = Scope("acme", "alice")
    a = remember(store, scope, "use the blue deploy pipeline", kind="workflow", today=TODAY)
    res = change(store, scope, "archive", a.id, today=TODAY, audit_root=store.root)
    assert res.written
    assert load_records(store, scope)[a.id].status == "archived"
    assert "use the blue deploy pipeline" in next(store.root.glob("memory-user/*/*/*.md")).read_text()
    assert change(store, scope, "archive", "m-000000000000", today=TODAY).decision.decision == "reject"


# ----------------------------------------------------------------------------------- audit


def test_audit_events_are_content_free_and_summarised(store):
    scope = Scope("acme", "alice")
    remember(store, scope, "alice's token is ghp_" + "a1B2c3D4e5" * 3 + "abcdef", kind="profile", today=TODAY,
             audit_root=store.root)
    remember(store, scope, "we ship on Fridays", kind="decision", today=TODAY, audit_root=store.root)
    remember(store, scope, "we ship on Fridays", kind="decision", today=TODAY, audit_root=store.root)
    path = Path(_telemetry.audit_path(store.root))
    raw = path.read_text()
    for needle in ("alice", "acme", "Fridays", "ghp_", "token"):
        assert needle not in raw
    summary = _telemetry.summarise(path)
    assert summary["events"] == 3 and summary["by_event"] == {"write": 3}
    assert summary["outcomes"]["write"] == {"ok": 2, "skipped": 1}
    assert summary["redactions"] == {"github-pat": 1}
    assert summary["identities"] == 1 and summary["policy_versions"] == {"1": 3}
    text = _telemetry.render(summary)
    assert "3 event(s)" in text and "github-pat 1" in text
    assert _telemetry.render(_telemetry.summarise(store.root / "nope.jsonl")) == "no memory audit events yet"


def test_audit_whitelist_drops_free_text():
    ev = _telemetry.event("recall", identity_hash="abc123", reason_code="see the prompt: we ship on Fridays", tier="user",
                 prompt="secret stuff", memory_count=2, latency_ms=1.234, redactions={"jwt": 1, "a b": 2})
    assert ev["event"] == "recall" and ev["tier"] == "user" and ev["memory_count"] == 2
    assert "reason_code" not in ev and "prompt" not in ev and ev["redactions"] == {"jwt": 1}
    with pytest.raises(ValueError):
        _telemetry.event("gossip")
    assert json.dumps(ev)
