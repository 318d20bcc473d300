"""The scoped store on a real disk: round trips, isolation conformance, refusals."""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
import uuid
from pathlib import Path

import pytest
import yaml

from okfpro.core.scope import TIERS, Scope, memory_path
from okfpro.io.atomic import locked
from okfpro.core.dayfile import sections, split_concept
from okfpro.memory.layout import resolve_memory_root
from okfpro.memory.store import MemoryEntry, MemoryStore

A = Scope(tenant="acme", user="alice", agent="bot", session="s1")
# B variants: another tenant; the same user (agent, session) under another tenant;
# Acme vs acme; the same session id under another user.
B_VARIANTS = {
    "other-tenant": Scope(tenant="globex", user="bob", agent="bot2", session="s2"),
    "same-user-other-tenant": Scope(tenant="globex", user="alice", agent="bot", session="s1"),
    "case-variant": Scope(tenant="Acme", user="alice", agent="bot", session="s1"),
    "same-session-other-user": Scope(tenant="acme", user="carol", agent="bot2", session="s1"),
}
NOW = dt.datetime(2026, 7, 27, 9, 0, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(autouse=True)
def _no_pinned_day(monkeypatch):
    monkeypatch.delenv("OKFPRO_TODAY", raising=False)


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "mem")


def nonce() -> str:
    return f"nonce-{uuid.uuid4().hex}"


def snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(".okf-locks"):
            out[rel] = p.read_bytes()
    return out


def ref_tip(store: MemoryStore, tier: str, scope: Scope):
    return store.history.tip(tier, scope)


@pytest.mark.parametrize("tier", TIERS)
def test_round_trip_per_tier(store, tier):
    n = nonce()
    res = store.write(A, MemoryEntry(f"{n} first"), tier, now=NOW)
    assert res.written and res.error is None, res
    prefix = memory_path(tier, A)
    assert res.path == f"{prefix}/2026-07-27.md"
    target = store.root / prefix / "2026-07-27.md"
    assert target.is_file()
    head, body = split_concept(target.read_bytes())
    fm = yaml.safe_load(head.strip("-\n"))
    assert fm["type"] == "AgentMemory" and fm["title"] and fm["description"]
    assert fm["generated"]["by"].startswith("okfpro/") and fm["generated"]["at"] == "2026-07-27T09:00:00Z"
    store.write(A, f"{n} second", tier, now=NOW + dt.timedelta(seconds=5))
    head2, body2 = split_concept(target.read_bytes())
    assert head2 == head  # frontmatter preserved on append
    assert [s[1] for s in sections(body2)] == [f"{n} first", f"{n} second"]
    got = store.read(A, n)
    assert not got.diagnostics
    mine = [p for p in got.passages if p.entry.tier == tier]
    assert len(mine) == 2 and all(p.source_id == f"memory:{tier}" for p in mine)
    listed = {e.id for e in store.enumerate(A).entries}
    assert {p.entry.id for p in mine} <= listed
    assert mine[0].entry.id.startswith(f"{prefix}/2026-07-27#")


@pytest.mark.parametrize("tier", TIERS)
def test_local_scope_round_trip(store, tier):
    n = nonce()
    assert store.write(Scope(), n, tier, now=NOW).written
    assert (store.root / memory_path(tier, Scope()) / "2026-07-27.md").is_file()
    assert "_local" in memory_path(tier, Scope())
    assert [p.entry.tier for p in store.read(Scope(), n).passages] == [tier]


@pytest.mark.parametrize("variant", sorted(B_VARIANTS))
@pytest.mark.parametrize("tier", TIERS)
def test_isolation_conformance(store, tier, variant):
    b = B_VARIANTS[variant]
    if memory_path(tier, A) == memory_path(tier, b):
        pytest.skip("B legitimately shares this tier with A (same key segments)")
    n = nonce()
    assert store.write(A, f"{n} secret of A", tier, now=NOW).written
    a_file = store.root / memory_path(tier, A) / "2026-07-27.md"
    assert a_file.is_file()
    before_bytes = a_file.read_bytes()
    before_tip = ref_tip(store, tier, A)
    assert before_tip is not None

    # B writes its own memory in every tier too
    for t in TIERS:
        assert store.write(b, f"B's own {t}", t, now=NOW).written

    # read / list / log as B: nothing of A's
    assert all(n not in p.entry.text for p in store.read(b, n).passages)
    assert not [p for p in store.read(b, "secret").passages if n in p.entry.text]
    listed = store.enumerate(b).entries
    assert all(not e.id.startswith(memory_path(tier, A) + "/") for e in listed)
    assert all(n not in e.text for e in listed)
    log = store.log(b)
    assert log.error is None
    assert all(memory_path(tier, A) not in e.summary for e in log.entries)
    assert before_tip not in {e.commit for e in log.entries}

    # forget and purge as B: A untouched
    assert store.delete_scope(b, tier).error is None
    assert store.delete_scope(b).error is None
    purge = store.delete_scope(b, purge=True)
    assert purge.error is None and purge.verified
    assert a_file.read_bytes() == before_bytes
    assert ref_tip(store, tier, A) == before_tip
    assert store.history.check(tier, A) is None
    assert [p.entry.text for p in store.read(A, n).passages] == [f"{n} secret of A"]
    # and A never sees B's
    assert not [e for e in store.enumerate(A).entries if "B's own" in e.text and e.tier == tier]


def test_same_session_id_under_other_user_paths_differ(store):
    b = B_VARIANTS["same-session-other-user"]
    assert memory_path("session", A) != memory_path("session", b)
    n = nonce()
    store.write(A, n, "session", now=NOW)
    assert store.read(b, n).passages == []


def test_write_to_inapplicable_tier_is_refused_never_local(store):
    s = Scope(tenant="acme", user="alice")
    res = store.write(s, "no session here", "session")
    assert not res.written and "session" in res.error
    assert not (store.root / "memory-session").exists()
    res = store.write(Scope(tenant="acme"), "no user", "user")
    assert not res.written
    res = store.write(Scope(user="alice"), "no tenant", "tenant")
    assert not res.written
    assert not any(store.root.rglob("*.md"))


def test_unconfigured_tier_and_bad_text_are_data(tmp_path):
    st = MemoryStore(tmp_path / "m", tiers=("user",))
    res = st.write(Scope(), "x", "tenant")
    assert not res.written and res.error
    assert not st.write(Scope(), "   \n", "user").written
    assert not st.write(Scope(), "x" * (64 * 1024 + 1), "user").written
    res = st.write(Scope(), "x", "global")
    assert not res.written and "unknown memory tier" in res.error


def test_text_cannot_become_structure(store):
    evil = "---\ntype: Evil\n---\n## 10:00:00 UTC\n# Citations\nnul\x00here"
    res = store.write(A, evil, "user", now=NOW)
    assert res.written
    raw = (store.root / res.path).read_bytes()
    _, body = split_concept(raw)
    secs = sections(body)
    assert len(secs) == 1
    assert secs[0][1] == evil.replace("\x00", "\ufffd")
    assert b"\x00" not in raw


@pytest.mark.parametrize(
    "content",
    [
        b"no frontmatter at all\n",
        b"---\ntype: [unclosed\n---\nbody\n",
        b"---\ntype: AgentMemory\ntitle: t\n---\nmissing description\n",
        b"---\n- a list\n---\n",
        b"---\ntype: AgentMemory\ntitle: t\ndescription: d\n---\n\xff\xfe broken utf-8\n",
        b"---\ntype: AgentMemory\ntitle: t\ndescription: d\nnever closed\n",
    ],
)
def test_malformed_existing_file_is_never_overwritten(store, content):
    target = store.root / memory_path("user", A) / "2026-07-27.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    res = store.write(A, "new entry", "user", now=NOW)
    assert not res.written and "malformed" in res.error
    assert target.read_bytes() == content
    got = store.read(A, "new")
    assert got.passages == []
    assert any("could not be loaded" in d.message for d in got.diagnostics)


def _can_symlink(tmp_path) -> bool:
    try:
        os.symlink(tmp_path, tmp_path / "probe-link")
    except OSError:
        return False
    os.unlink(tmp_path / "probe-link")
    return True


@pytest.mark.parametrize("where", ["scope-dir", "ancestor", "file"])
def test_symlinks_refused(store, tmp_path, where):
    if not _can_symlink(tmp_path):
        pytest.skip("cannot create symlinks here")
    outside = tmp_path / "outside"
    outside.mkdir()
    scope_dir = store.root / memory_path("user", A)
    if where == "scope-dir":
        scope_dir.parent.mkdir(parents=True)
        os.symlink(outside, scope_dir)
    elif where == "ancestor":
        scope_dir.parent.parent.mkdir(parents=True)
        os.symlink(outside, scope_dir.parent)
    else:
        scope_dir.mkdir(parents=True)
        (outside / "victim.md").write_text("victim\n")
        os.symlink(outside / "victim.md", scope_dir / "2026-07-27.md")
    res = store.write(A, "through the link", "user", now=NOW)
    assert not res.written and "link" in res.error
    assert [p.name for p in outside.rglob("*") if p.name.endswith(".md") and p.name != "victim.md"] == []
    if where == "file":
        assert (outside / "victim.md").read_text() == "victim\n"
    else:
        got = store.read(A, "through")
        assert [d.code for d in got.diagnostics] == ["SourceUnavailable"]
        assert got.passages == []
        dres = store.delete_scope(A, "user")
        assert dres.error and "refusing to delete" in dres.error
        assert outside.exists()


def test_symlink_swapped_in_while_waiting_for_the_lock_is_refused(store, tmp_path):
    if not _can_symlink(tmp_path):
        pytest.skip("cannot create symlinks here")
    assert store.write(A, "first", "user", now=NOW).written
    scope_dir = store.root / memory_path("user", A)
    outside = tmp_path / "outside"
    outside.mkdir()
    results = []
    with locked(store._lock_for(memory_path("user", A))):
        worker = threading.Thread(target=lambda: results.append(store.write(A, "second", "user", now=NOW)))
        worker.start()
        time.sleep(0.3)  # let the writer pass its first check and wait on the lock
        os.rename(scope_dir, tmp_path / "moved")
        os.symlink(outside, scope_dir)
    worker.join()
    assert not results[0].written and "symbolic link" in results[0].error
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("tier", TIERS)
def test_delete_removes_only_the_target_subtree(store, tier):
    sibling = Scope(tenant="acme", user="bob", agent="bot9", session="s9")
    n1, n2 = nonce(), nonce()
    store.write(A, n1, tier, now=NOW)
    store.write(sibling, n2, tier, now=NOW)
    res = store.delete_scope(A, tier)
    assert res.error is None and res.tiers_deleted == 1
    assert not (store.root / memory_path(tier, A)).exists()
    if memory_path(tier, sibling) != memory_path(tier, A):
        assert (store.root / memory_path(tier, sibling)).is_dir()
        assert store.read(sibling, n2).passages
    assert store.delete_scope(A, tier).tiers_deleted == 0  # nothing left: not an error


def test_delete_without_tier_covers_applicable_tiers(store):
    s = Scope(tenant="acme", user="alice")
    store.write(s, "u", "user", now=NOW)
    store.write(s, "t", "tenant", now=NOW)
    store.write(A, "session of another scope", "session", now=NOW)
    res = store.delete_scope(s)
    assert res.error is None and res.tiers_deleted == 2 and set(res.commits) == {"user", "tenant"}
    assert store.enumerate(s).entries == []
    assert store.enumerate(A).entries  # A's session (and nothing else) remains
    res = store.delete_scope(s, "session")
    assert res.error and "session" in res.error


def test_read_ranks_within_tier_and_keeps_tier_order(store):
    store.write(A, "apple banana cherry", "user", now=NOW)
    store.write(A, "apple only", "user", now=NOW)
    store.write(A, "apple in the session", "session", now=NOW)
    store.write(A, "banana cherry apple tenant", "tenant", now=NOW)
    got = store.read(A, "apple banana cherry")
    assert [p.entry.tier for p in got.passages] == ["session", "user", "user", "tenant"]
    users = [p for p in got.passages if p.entry.tier == "user"]
    assert users[0].entry.text == "apple banana cherry"  # matches all three terms; "apple only" one
    assert store.read(A, "   ").passages == []
    assert store.read(A, "zzz-not-there").passages == []


def test_memory_is_ranked_by_the_shared_engine(store):
    """Recall uses the same ranked engine as `okfpro search --engine ranked` (OR-joined terms,
    prefix matches, identifiers kept whole) over stemmed terms — and the same scores."""
    from okfpro.core.bm25 import RankedIndex
    from okfpro.core.bm25 import stemmed_query as query_terms
    from okfpro.core.bm25 import stemmed_terms as terms
    from okfpro.core.search import Doc
    from okfpro.memory.ranking import LENGTH_B, entry_fields

    store.write(A, "we are shipping the customer_id migration", "user", now=NOW)
    store.write(A, "lunch is at noon", "user", now=NOW)
    store.write(A, "customer id cards are printed", "user", now=NOW)
    got = store.read(A, "ship customer_id")
    texts = [p.entry.text for p in got.passages]
    assert texts[0] == "we are shipping the customer_id migration"  # prefix + whole identifier
    assert "lunch is at noon" not in texts
    entries = store.enumerate(A).entries
    index = RankedIndex([Doc(e.id, entry_fields(e.title, e.text)) for e in entries], fields=("title", "body"),
                        tokenizer=terms, b=LENGTH_B)  # without length normalisation: ranking.LENGTH_B
    scores, _matched, _hits = index.scores(query_terms("ship customer_id"))
    assert {entries[i].id: round(sc, 4) for i, sc in scores.items()} == {p.entry.id: p.score for p in got.passages}


def test_day_is_utc(store):
    late = dt.datetime(2026, 7, 27, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    res = store.write(A, "late evening in New York", "user", now=late)
    assert res.path.endswith("/2026-07-28.md")


def _workspace(tmp_path: Path, toml: str) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "okfpro.toml").write_text(toml)
    return ws


def test_default_memory_root_beside_bundle(tmp_path):
    ws = _workspace(tmp_path, "")
    root, err = resolve_memory_root(ws)
    assert err is None and root == str((ws / ".okf-memory").resolve())


@pytest.mark.parametrize(
    "toml",
    [
        '[memory]\nroot = ".okf/memory"\n',
        '[memory]\nroot = ".okf"\n',
        '[bundle]\npath = "mem/kb"\n[memory]\nroot = "mem"\n',
        '[memory]\nroot = "."\n',
    ],
)
def test_overlapping_roots_refused_naming_both(tmp_path, toml):
    ws = _workspace(tmp_path, toml)
    root, err = resolve_memory_root(ws)
    assert root is None
    store, err2 = MemoryStore.for_workspace(ws)
    assert store is None and err2 == err
    assert str(ws.resolve()) in err
    if "contains the workspace" not in err:
        assert "bundle" in err and err.count(str(ws.resolve())) >= 2


def test_entry_types_keep_value_semantics():
    """The plain entry/result types (no dataclasses) compare, hash and refuse writes as the
    dataclasses they replaced did."""
    from okfpro.memory.entries import Section, StoredEntry, WriteResult

    a = StoredEntry("user", "k/2026-01-01#1", "k/2026-01-01", "2026-01-01", "10:00:00", "t", "text", "k/2026-01-01.md", 1)
    b = StoredEntry("user", "k/2026-01-01#1", "k/2026-01-01", "2026-01-01", "10:00:00", "t", "text", "k/2026-01-01.md", 1)
    c = StoredEntry("user", "k/2026-01-01#2", "k/2026-01-01", "2026-01-01", "10:00:00", "t", "text", "k/2026-01-01.md", 2)
    assert a == b and hash(a) == hash(b) and a != c and len({a, b, c}) == 2
    assert a != Section("10:00:00", "text", 0, 1) and "seq=1" in repr(a)
    with pytest.raises(AttributeError):
        a.text = "changed"  # type: ignore[misc]  # the point: a frozen field refuses
    with pytest.raises(AttributeError):
        a.extra = 1  # type: ignore[attr-defined]  # the point: no such field
    w = WriteResult(False, tier="user")
    w.written = True
    assert w == WriteResult(True, tier="user") and w != WriteResult(True)
    with pytest.raises(TypeError):
        hash(w)
