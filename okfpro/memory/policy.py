"""Memory policy over the scoped store: remember through the write decision, and recall filtering.

The decisions are pure (:mod:`okfpro.core.mempolicy`); this module reads the scope's
records from the store, appends the record a decision calls for (the store is
append-only: nothing is ever overwritten or deleted by a decision), and writes one
content-free audit event per decision.

Explicit memories pass the capture safety layer too (secrets redacted, credential files
and shell output refused) before anything touches disk.
"""

from __future__ import annotations

import time

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.record import Value
from okfpro.core.scope import Scope
from okfpro.io import clock
from okfpro.memory.entries import records_by_entry

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the memory verbs' path
    import datetime as _dt
    from typing import Any, Iterable

__all__ = ["RememberResult", "load_records", "candidates", "find_record", "remember", "change",
           "records_by_entry"]


class RememberResult(Value):
    """What ``remember`` did: the decision, whether a record was written, and its ids."""

    __slots__ = ("decision", "written", "id", "entry_id", "error", "redactions")
    _fields = __slots__
    decision: _mempolicy.Decision
    written: bool
    id: str | None  # the memory id (m-…)
    entry_id: str | None  # the store's entry id
    error: str | None
    redactions: list[tuple[str, int]]

    def __init__(self, decision: _mempolicy.Decision, written: bool = False, id: str | None = None,
                 entry_id: str | None = None, error: str | None = None,
                 redactions: list[tuple[str, int]] | None = None) -> None:
        self.decision = decision
        self.written = written
        self.id = id
        self.entry_id = entry_id
        self.error = error
        self.redactions = [] if redactions is None else redactions

    def to_json(self) -> dict[str, Any]:
        out = self.decision.to_json()
        out.update(written=self.written, id=self.id, entry_id=self.entry_id, error=self.error,
                   redactions=dict(self.redactions))
        return out


def load_records(store: Any, scope: Scope, tier: str | None = None) -> dict[str, _mempolicy.MemoryRecord]:
    """The folded records of ``scope`` (one tier, or every applicable tier)."""
    listing = store.enumerate(scope)
    entries = [e for e in listing.entries if tier is None or e.tier == tier]
    return _mempolicy.fold(rec for _, rec in records_by_entry(entries))


def candidates(store: Any, scope: Scope, tier: str, new: _mempolicy.MemoryRecord, today: _dt.date,
               wanted: Iterable[str] = ()) -> list[_mempolicy.MemoryRecord]:
    """The records the write decision may act on for ``new``: from the memory index (same
    normalised text, enough shared vocabulary, the ids named), never a scan of the scope;
    the whole tier only when there is no index to ask."""
    from okfpro.memory.index import opened

    with opened(store, tier, scope) as idx:
        if idx is not None:
            return idx.candidates(new, today.isoformat(), wanted)
    return list(load_records(store, scope, tier).values())


def find_record(store: Any, scope: Scope, tier: str, memory: str) -> _mempolicy.MemoryRecord | None:
    """The effective record of ``memory`` in the tier (from the index when there is one)."""
    from okfpro.memory.index import opened

    with opened(store, tier, scope) as idx:
        if idx is not None:
            return idx.record(memory)
    return load_records(store, scope, tier).get(memory)


def _audit(audit_root: Any, event: str, scope: Scope, **fields: Any) -> None:
    if audit_root is None:
        return
    from okfpro.io.identity import identity_hash
    from okfpro.memory import telemetry

    telemetry.record(audit_root, event, identity_hash=identity_hash(scope), policy_version=_mempolicy.POLICY_VERSION, **fields)


def remember(
    store: Any,
    scope: Scope,
    text: str,
    *,
    tier: str = "user",
    kind: str = "event",
    source: str = "user",
    confidence: str = "medium",
    visibility: str = "private",
    valid_until: str | None = None,
    review_at: str | None = None,
    supersede: bool | str = False,
    contradicts: bool | str = False,
    today: _dt.date | None = None,
    audit_root: Any = None,
    actor: str | None = None,
) -> RememberResult:
    """Reconcile ``text`` with the scope's memories in ``tier`` and append what the decision says."""
    from okfpro.core.sanitise import sanitise

    start = time.perf_counter()
    today = today or clock.today()
    clean = sanitise(text)
    if clean.refused:
        decision = _mempolicy.Decision("reject", f"refused by the capture safety layer ({clean.refused})")
        _audit(audit_root, "write", scope, tier=tier, kind=kind, outcome="refused", reason_code=clean.refused,
               dropped_count=1)
        return RememberResult(decision)
    try:
        new = _mempolicy.make(clean.text, kind=kind, source=source, confidence=confidence, visibility=visibility,
                     created=today, valid_until=valid_until, review_at=review_at)
    except _mempolicy.PolicyError as exc:
        return RememberResult(_mempolicy.Decision("reject", str(exc)))
    wanted = [x for x in (supersede, contradicts) if isinstance(x, str)]
    existing = candidates(store, scope, tier, new, today, wanted)
    decision = _mempolicy.decide_write(new, existing, supersede=supersede, contradicts=contradicts, today=today)
    result = RememberResult(decision, redactions=clean.findings, id=new.id)
    record = _mempolicy.apply(decision, new)
    outcome = "skipped" if decision.decision == "skip" else ("refused" if decision.decision == "reject" else "ok")
    if record is not None:
        wrote = store.write(scope, _mempolicy.render(record), tier, actor=actor)
        result.written = bool(wrote.written)
        result.entry_id = wrote.id
        result.error = wrote.error
        if not wrote.written:
            outcome = "error"
    event = {"supersede": "merge", "conflict": "conflict"}.get(decision.decision, "write")
    _audit(audit_root, event, scope, tier=tier, kind=kind, outcome=outcome, decision=decision.decision,
           accepted_count=int(result.written), candidate_count=1, redaction_count=sum(n for _, n in clean.findings),
           redactions=dict(clean.findings), latency_ms=(time.perf_counter() - start) * 1000)
    return result


def change(
    store: Any,
    scope: Scope,
    what: str,
    target: str,
    *,
    tier: str = "user",
    source: str = "user",
    today: _dt.date | None = None,
    audit_root: Any = None,
) -> RememberResult:
    """Archive / expire / confirm a memory by appending a change record (nothing is rewritten)."""
    today = today or clock.today()
    rec = _mempolicy.change_record(what, target, source=source, created=today)
    problems = _mempolicy.validate(rec)
    if problems:
        return RememberResult(_mempolicy.Decision("reject", "; ".join(problems)))
    if find_record(store, scope, tier, target) is None:
        return RememberResult(_mempolicy.Decision("reject", f"no memory {target} in this scope's {tier} tier"))
    wrote = store.write(scope, _mempolicy.render(rec), tier)
    event = {"expire": "expire", "archive": "expire"}.get(what, "write")
    _audit(audit_root, event, scope, tier=tier, outcome="ok" if wrote.written else "error", decision=what)
    return RememberResult(_mempolicy.Decision(what, f"{what} {target}", target), bool(wrote.written), rec.id, wrote.id, wrote.error)
