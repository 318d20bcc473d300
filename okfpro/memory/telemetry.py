"""Content-free audit events for memory: one JSON line per extraction, write, recall, merge,
conflict, expire, delete or purge.

An event carries its type, the identity *hash* (never a raw id), tier, kind, counts,
redaction rule ids with counts, latency, outcome and policy version — never prompt text,
memory content, secrets or tool output.  :func:`event` enforces that with a whitelist:
unknown keys are dropped, strings must be short identifiers, so free text cannot slip in.

Events are appended under a lock (:func:`okfpro.io.atomic.append_line`) to
``<memory root>/.audit/events.jsonl``.  :func:`summarise` and :func:`render` back
``okfpro memory audit``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter, defaultdict


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Any, Iterable

AUDIT_DIR = ".audit"
AUDIT_FILE = "events.jsonl"
EVENT_TYPES = ("extraction", "write", "recall", "merge", "conflict", "expire", "delete", "purge")
OUTCOMES = ("ok", "empty", "skipped", "refused", "error")

_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")
_INT_FIELDS = (
    "candidate_count",
    "accepted_count",
    "dropped_count",
    "knowledge_count",
    "memory_count",
    "redaction_count",
    "truncated_count",
    "tokens",
    "chars",
)
_ID_FIELDS = ("identity_hash", "session_hash", "tier", "kind", "outcome", "reason_code", "mode", "policy_version",
              "decision", "surface")


def audit_path(memory_root: str | os.PathLike) -> str:
    return os.path.join(memory_root, AUDIT_DIR, AUDIT_FILE)


def _now() -> str:
    from okfpro.io.clock import utcnow

    return utcnow().strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"


def event(event_type: str, **fields: Any) -> dict[str, Any]:
    """A content-free event record (unknown or free-text fields are dropped)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown audit event type {event_type!r}")
    out: dict[str, Any] = {"ts": fields.pop("ts", None) or _now(), "event": event_type}
    for key in _ID_FIELDS:
        value = fields.get(key)
        if isinstance(value, str) and _ID.match(value):
            out[key] = value
        elif isinstance(value, int) and not isinstance(value, bool) and key == "policy_version":
            out[key] = str(value)
    for key in _INT_FIELDS:
        value = fields.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    latency = fields.get("latency_ms")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool) and math.isfinite(latency) and latency >= 0:
        out["latency_ms"] = round(float(latency), 2)
    redactions = fields.get("redactions")
    if redactions:
        pairs = redactions.items() if isinstance(redactions, dict) else redactions
        clean = {str(rule): int(n) for rule, n in pairs if isinstance(rule, str) and _ID.match(rule) and int(n) > 0}
        if clean:
            out["redactions"] = dict(sorted(clean.items()))
    return out


def record(memory_root: str | os.PathLike, event_type: str, **fields: Any) -> bool:
    """Append one event; never raises (an audit failure must not break the hook)."""
    from okfpro.io.atomic import append_line
    from okfpro.memory.layout import link_problem

    try:
        line = json.dumps(event(event_type, **fields), sort_keys=True, separators=(",", ":"))
        root = os.path.abspath(memory_root)
        path = audit_path(root)
        if link_problem(root, path):  # .audit/ or the file leads outside the memory root
            return False
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if link_problem(root, path):
            return False
        append_line(path, line)
        return True
    except (OSError, ValueError, TypeError):
        return False


def read_events(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """(events, unreadable line count)."""
    events: list[dict[str, Any]] = []
    bad = 0
    try:
        fd = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return [], 0
    if os.path.islink(os.path.dirname(os.path.abspath(path))):
        os.close(fd)
        raise OSError(f"{os.path.dirname(path)} is a symbolic link; refusing to read the audit trail through it")
    handle = os.fdopen(fd, encoding="utf-8", errors="replace")
    with handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(data, dict) and data.get("event") in EVENT_TYPES:
                events.append(data)
            else:
                bad += 1
    return events, bad


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return round(ordered[idx], 2)


def summarise(path: str | os.PathLike) -> dict[str, Any]:
    """Counts by event, outcome, tier, kind and redaction rule; latency p50/p95 per event."""
    events, bad = read_events(path)
    return summarise_events(events, bad)


def summarise_events(events: Iterable[dict[str, Any]], bad: int = 0) -> dict[str, Any]:
    events = list(events)
    by_event: Counter[str] = Counter()
    by_outcome: dict[str, Counter[str]] = defaultdict(Counter)
    tiers: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    latency: dict[str, list[float]] = defaultdict(list)
    identities: set[str] = set()
    policy: Counter[str] = Counter()
    for ev in events:
        kind = ev["event"]
        by_event[kind] += 1
        by_outcome[kind][str(ev.get("outcome", "ok"))] += 1
        if ev.get("tier"):
            tiers[ev["tier"]] += 1
        if ev.get("kind"):
            kinds[ev["kind"]] += 1
        if ev.get("reason_code"):
            reasons[ev["reason_code"]] += 1
        for rule, n in (ev.get("redactions") or {}).items():
            rules[rule] += int(n)
        if isinstance(ev.get("latency_ms"), (int, float)):
            latency[kind].append(float(ev["latency_ms"]))
        if ev.get("identity_hash"):
            identities.add(ev["identity_hash"])
        if ev.get("policy_version"):
            policy[ev["policy_version"]] += 1
    stamps = sorted(str(ev.get("ts", "")) for ev in events if ev.get("ts"))
    return {
        "events": len(events),
        "unreadable_lines": bad,
        "first": stamps[0] if stamps else None,
        "last": stamps[-1] if stamps else None,
        "by_event": dict(sorted(by_event.items())),
        "outcomes": {k: dict(sorted(v.items())) for k, v in sorted(by_outcome.items())},
        "tiers": dict(sorted(tiers.items())),
        "kinds": dict(sorted(kinds.items())),
        "reasons": dict(sorted(reasons.items())),
        "redactions": dict(sorted(rules.items())),
        "identities": len(identities),
        "policy_versions": dict(sorted(policy.items())),
        "latency_ms": {k: {"p50": _pct(v, 0.5), "p95": _pct(v, 0.95), "n": len(v)} for k, v in sorted(latency.items())},
    }


def render(summary: dict[str, Any]) -> str:
    """The human summary for ``okfpro memory audit``."""
    if not summary.get("events"):
        tail = f" ({summary['unreadable_lines']} unreadable line(s))" if summary.get("unreadable_lines") else ""
        return f"no memory audit events yet{tail}"
    lines = [
        f"{summary['events']} event(s) from {summary['first']} to {summary['last']}, "
        f"{summary['identities']} distinct identity hash(es)"
    ]
    for name, count in summary["by_event"].items():
        outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].get(name, {}).items())
        lat = summary["latency_ms"].get(name)
        timing = f"; p50 {lat['p50']} ms, p95 {lat['p95']} ms" if lat and lat.get("p50") is not None else ""
        lines.append(f"  {name:<11} {count:>6}  ({outcomes}){timing}")
    if summary["redactions"]:
        lines.append("  redactions: " + ", ".join(f"{k} {v}" for k, v in summary["redactions"].items()))
    if summary["reasons"]:
        lines.append("  reasons: " + ", ".join(f"{k} {v}" for k, v in summary["reasons"].items()))
    if summary["tiers"]:
        lines.append("  tiers: " + ", ".join(f"{k} {v}" for k, v in summary["tiers"].items()))
    if summary["kinds"]:
        lines.append("  kinds: " + ", ".join(f"{k} {v}" for k, v in summary["kinds"].items()))
    if summary.get("unreadable_lines"):
        lines.append(f"  {summary['unreadable_lines']} unreadable line(s) skipped")
    return "\n".join(lines)
