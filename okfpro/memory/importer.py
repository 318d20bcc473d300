"""``okfpro memory import``: bulk memory from JSON lines or Claude Code transcripts.

Two shapes, told apart line by line:

* our JSON lines — ``{"text": …, "time"?: ISO 8601, "tier"?: …, "kind"?: …, "source"?: …,
  "id"?: …}``: each becomes an explicit memory through the same safety layer and policy
  as ``okfpro memory remember`` (secrets redacted, credential files and shell output
  refused, an identical live memory skipped).  ``id`` is the import key: a memory
  imported under an id is never imported twice, whatever its text;
* Claude Code transcript lines (``~/.claude/projects/**/*.jsonl``: ``type`` user /
  assistant with a ``message``): each user prompt and the last assistant text before the
  next prompt become one captured exchange, exactly as the Stop hook captures a turn
  (tool results, meta and host-only lines are not prompts; injected recall and
  ``<system-reminder>`` blocks are stripped).

Everything is read and checked before anything is written: a malformed line is a clear
error naming it, and nothing is imported.  The scope comes from the identity (never from
the file).  Each (tier, scope) gets its entries appended by :meth:`MemoryStore.write_many`
(one write per day file, the index updated, one history commit), so an import of N
entries costs one commit per tier, and re-running an interrupted import adds nothing
twice (the memory index answers "already there?" for each entry).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import time
from typing import Any, Iterable

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.record import replace
from okfpro.core.record import Value
from okfpro.core.scope import TIERS, Scope, write_problem

FIELDS = ("text", "time", "tier", "kind", "source", "id")
# The phases of an import and their measured shares of its time (.okf/design/long-work.md):
# `memory import`'s one bar (okfpro.io.progress)
PHASES = (("reading", 0.03), ("checking entries", 0.16), ("the safety layer", 0.28), ("writing day files", 0.13),
          ("updating the index", 0.16), ("folding the records", 0.20), ("recording the history", 0.04))


class BadImport(ValueError):
    """A line that cannot be imported (the message names it); nothing was written."""


class Item(Value):
    _fields = ("line", "text", "when", "tier", "kind", "source", "key", "plain", "agent")
    line: int
    text: str  # a captured exchange: the user's side ("" for none)
    when: _dt.datetime | None
    tier: str
    kind: str
    source: str
    key: str | None
    plain: bool  # a captured exchange (transcript), not an explicit memory
    agent: str | None  # a captured exchange: the agent's side

    def __init__(self, line: int, text: str, when: _dt.datetime | None, tier: str, kind: str, source: str,
                 key: str | None, plain: bool, agent: str | None = None) -> None:
        self.line = line
        self.text = text
        self.when = when
        self.tier = tier
        self.kind = kind
        self.source = source
        self.key = key
        self.plain = plain
        self.agent = agent


class ImportResult(Value):
    _fields = ("read", "imported", "skipped", "refused", "redacted", "commits", "errors")
    read: int
    imported: int
    skipped: int  # already present (same text, or same import id)
    refused: int  # the safety layer refused it
    redacted: int
    commits: dict[str, str]  # tier -> commit
    errors: list[str]

    def __init__(self, read: int = 0, imported: int = 0, skipped: int = 0, refused: int = 0, redacted: int = 0,
                 commits: dict[str, str] | None = None, errors: list[str] | None = None) -> None:
        self.read = read
        self.imported = imported
        self.skipped = skipped
        self.refused = refused
        self.redacted = redacted
        self.commits = {} if commits is None else commits
        self.errors = [] if errors is None else errors

    def to_json(self) -> dict[str, Any]:
        return {"read": self.read, "imported": self.imported, "skipped": self.skipped, "refused": self.refused,
                "redacted": self.redacted, "commits": dict(self.commits), "errors": list(self.errors)}


# ---------------------------------------------------------------------------- reading


def iso_time(text: str) -> _dt.datetime:
    """An ISO 8601 date-time (``Z`` accepted, naive = UTC) in UTC; raises ValueError."""
    text = text.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    when = _dt.datetime.fromisoformat(text)
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    try:
        return when.astimezone(_dt.timezone.utc)
    except OverflowError as exc:  # 9999-12-31T23:59-12:00 is past the last representable instant
        raise ValueError("outside the years 1 to 9999 in UTC") from exc


def _time(value: Any, line: int, field: str = "time") -> _dt.datetime | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadImport(f"line {line}: {field!r} must be an ISO 8601 date-time string")
    try:
        return iso_time(value)
    except ValueError as exc:
        raise BadImport(f"line {line}: {field!r} {value[:64]!r} is not an ISO 8601 date-time ({exc})") from exc


def _load(raw: bytes, n: int) -> dict:
    """One input line as a JSON object whose every string is valid Unicode; raises BadImport
    naming the line (not JSON, nested past what the parser takes, a lone surrogate, no object)."""
    try:
        obj = json.loads(raw)
    except RecursionError as exc:
        raise BadImport(f"line {n}: JSON nested too deeply") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadImport(f"line {n}: not JSON ({str(exc)[:200]})") from exc
    if not isinstance(obj, dict):
        raise BadImport(f"line {n}: not a JSON object")
    try:  # JSON's \ud800 escapes decode to lone surrogates, which no file can hold
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except RecursionError as exc:
        raise BadImport(f"line {n}: JSON nested too deeply") from exc
    except UnicodeEncodeError as exc:
        raise BadImport(f"line {n}: a string holds a lone surrogate (\\u{ord(exc.object[exc.start]):04x}), "
                        "not valid Unicode") from exc
    return obj


def parse(lines: Iterable[bytes], *, tier: str = "user", kind: str = "event", source: str = "user") -> list[Item]:
    """Every importable item of the input, oldest line first; raises BadImport naming the
    first bad line (nothing is imported then)."""
    from okfpro.memory.capture import _clean_host, _HOST_ONLY, _is_tool_result, _text_of

    from okfpro.io.progress import bar

    items: list[Item] = []
    turn: dict[str, Any] | None = None
    lines = lines if isinstance(lines, list) else list(lines)
    reading = bar(len(lines), "reading")

    def flush() -> None:
        nonlocal turn
        if turn is not None and (turn["user"] or turn["agent"]):
            items.append(Item(turn["line"], turn["user"] or "", turn["when"], tier, "event", "capture", None, True,
                              turn["agent"]))
        turn = None

    for n, raw in enumerate(lines, start=1):
        reading.tick(n)
        if not raw.strip():
            continue
        obj = _load(raw, n)
        if "text" in obj and "message" not in obj:
            unknown = sorted(set(obj) - set(FIELDS))
            if unknown:
                raise BadImport(f"line {n}: unknown field(s) {', '.join(unknown)} (known: {', '.join(FIELDS)})")
            text = obj["text"]
            if not isinstance(text, str) or not text.strip():
                raise BadImport(f"line {n}: 'text' must be a non-empty string")
            t = obj.get("tier", tier)
            if t not in TIERS:
                raise BadImport(f"line {n}: tier {t!r} is not one of {', '.join(TIERS)}")
            k = obj.get("kind", kind)
            if k not in _mempolicy.KINDS:
                raise BadImport(f"line {n}: kind {k!r} is not one of {', '.join(_mempolicy.KINDS)}")
            s = obj.get("source", source)
            if s not in _mempolicy.SOURCES:
                raise BadImport(f"line {n}: source {s!r} is not one of {', '.join(_mempolicy.SOURCES)}")
            key = obj.get("id")
            if key is not None and (not isinstance(key, (str, int)) or isinstance(key, bool) or str(key) == ""):
                raise BadImport(f"line {n}: 'id' must be a non-empty string or a number")
            items.append(Item(n, text, _time(obj.get("time"), n), t, k, s, None if key is None else str(key), False))
            continue
        # a Claude Code transcript line
        kind_of = obj.get("type")
        message = obj.get("message") if isinstance(obj.get("message"), dict) else None
        if kind_of not in ("user", "assistant") or message is None:
            continue  # summaries, system lines, snapshots: not turns
        if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isSidechain"):
            continue
        content = message.get("content")
        when = _time(obj.get("timestamp"), n, "timestamp")
        if kind_of == "user" and message.get("role", "user") == "user":
            if _is_tool_result(content):
                continue
            text = _clean_host(_text_of(content))
            if not text or not text.strip() or text.lstrip().startswith(_HOST_ONLY):
                continue
            flush()
            turn = {"line": n, "user": text, "agent": None, "when": when}
        elif kind_of == "assistant":
            text = _clean_host(_text_of(content))
            if text and text.strip():
                if turn is None:
                    turn = {"line": n, "user": None, "agent": None, "when": when}
                turn["agent"] = text
    flush()
    return items


# ---------------------------------------------------------------------------- writing


def import_key_id(key: str) -> str:
    """The memory id of an entry imported under ``key`` (stable across re-runs)."""
    return "m-" + hashlib.sha256(f"import\n{key}".encode("utf-8")).hexdigest()[:12]


def run(store: Any, scope: Scope, items: list[Item], *, actor: str | None = None, today: _dt.date | None = None,
        audit_root: Any = None, progress: bool = True) -> ImportResult:
    """Import ``items`` into ``scope``: safety layer, duplicate check against the index and
    the batch itself, then one :meth:`write_many` (one commit) per tier."""
    from okfpro.core.sanitise import sanitise
    from okfpro.io.progress import bar as progress_bar
    from okfpro.memory.capture import safe_exchange
    from okfpro.memory.index import opened
    from okfpro.memory.ranking import norm_digest

    start = time.perf_counter()
    result = ImportResult(read=len(items))
    from okfpro.io import clock

    today = today or clock.today()
    now = clock.utcnow()
    by_tier: dict[str, list[Item]] = {}
    for item in items:
        by_tier.setdefault(item.tier, []).append(item)
    bar = progress_bar(len(items) if progress else 0, "checking entries")
    done = 0
    for tier, group in by_tier.items():  # every tier checked before any is written: nothing half-imported
        problem = write_problem(tier, scope) or (None if tier in store.tiers else
                                                 f"no memory is configured for the {tier} tier")
        if problem:
            result.errors.append(f"line {group[0].line}: {problem}; nothing was imported")
            result.refused = len(items)
            return result
    for tier, group in by_tier.items():
        rows: list[tuple[str, _dt.datetime]] = []
        seen_ids: set[str] = set()
        seen_norms: set[tuple[str, str]] = set()
        with opened(store, tier, scope) as idx:
            for item in group:
                done += 1
                bar.tick(done)
                if item.plain:
                    entry, found, refused = safe_exchange(item.text or None, item.agent)
                    if refused or entry is None:
                        result.refused += bool(refused)
                        result.skipped += not refused
                        continue
                    result.redacted += sum(found.values())
                    text = rendered = entry
                    rec_id, rec_kind = None, "event"
                else:
                    clean = sanitise(item.text)
                    if clean.refused:
                        result.refused += 1
                        continue
                    result.redacted += sum(n for _, n in clean.findings)
                    created = (item.when or now).date()
                    try:
                        rec = _mempolicy.make(clean.text, kind=item.kind, source=item.source, created=created)
                    except _mempolicy.PolicyError:
                        result.refused += 1
                        continue
                    if item.key is not None:
                        rec = replace(rec, id=import_key_id(item.key))
                    if _mempolicy.validate(rec):
                        result.refused += 1
                        continue
                    text, rec_id, rec_kind, rendered = rec.text, rec.id, rec.kind, _mempolicy.render(rec)
                norm = (rec_kind, norm_digest(text))
                if rec_id is not None and rec_id in seen_ids or norm in seen_norms:
                    result.skipped += 1
                    continue
                if _present(store, scope, tier, idx, text, rec_kind, rec_id, item.key is not None):
                    result.skipped += 1
                    continue
                if rec_id is not None:
                    seen_ids.add(rec_id)
                seen_norms.add(norm)
                rows.append((rendered, item.when or now))
        if not rows:
            continue
        ids, commit, error = store.write_many(scope, rows, tier, actor=actor, what=f"import {len(rows)} entries")
        result.imported += len(ids)
        if commit:
            result.commits[tier] = commit
        if error:
            result.errors.append(error)
    bar.close()
    if audit_root is not None:
        from okfpro.io.identity import identity_hash
        from okfpro.memory import telemetry

        telemetry.record(audit_root, "write", identity_hash=identity_hash(scope), outcome="ok" if not result.errors else "error",
                     reason_code="import", candidate_count=result.read, accepted_count=result.imported,
                     dropped_count=result.skipped + result.refused, redaction_count=result.redacted,
                     latency_ms=(time.perf_counter() - start) * 1000, policy_version=_mempolicy.POLICY_VERSION)
    return result


def _present(store: Any, scope: Scope, tier: str, idx: Any, text: str, kind: str, rec_id: str | None,
             keyed: bool) -> bool:
    """Is this entry already in the tier?  A keyed entry: its id is; otherwise any record
    (live or not) with the same kind and normalised text."""
    if idx is None:
        from okfpro.memory.policy import load_records

        records = load_records(store, scope, tier).values()
        if keyed:
            return any(r.id == rec_id for r in records)
        norm = _mempolicy.normalise(text)
        return any(r.kind == kind and _mempolicy.normalise(r.text) == norm for r in records)
    if keyed:
        return idx.record(rec_id) is not None
    return idx.has_text(text, kind)
