"""Memory policy for explicit memories: the record, its vocabulary, the write decision, status.  Pure.

An explicit memory is one entry of the scoped store whose text starts with a small
frontmatter block (the store quotes it on disk, so it is never document structure)::

    ---
    memory: m-1c4e0f9a2b3d
    kind: decision
    status: active
    confidence: high
    visibility: private
    source: user
    created: 2026-11-30
    valid_until: 2027-03-31
    review_at: 2027-01-15
    supersedes: [m-77aa01bc22de]
    policy_version: "1"
    ---
    We ship on Fridays.

The store is append-only, and so is the policy: a memory is never rewritten or deleted
by a decision.  Superseding appends a new record naming the old one (``supersedes``);
archiving or expiring appends a *change* record (``change: archive``, ``target: m-…``).
:func:`fold` replays the records in order and derives every memory's effective status
and ``superseded_by``.  A captured exchange (no frontmatter) is an ``event`` memory from
the ``capture`` source, active.

:func:`decide_write` compares a new memory with the scope's memories by vocabulary overlap
and returns a deterministic decision — ``reject`` (invalid), ``skip`` (exact duplicate),
``create``, ``supersede`` (only when asked), ``conflict`` (a declared contradiction, or an
agent-inferred memory trying to supersede a user-confirmed one) — with its reason and
evidence.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata

from hashlib import sha256
from okfpro.core.record import Frozen, replace, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the memory verbs' path
    from typing import Any, Iterable

# YAML is imported by render and parse, when a record is written or read from its day file:
# recall reads records from the memory index (JSON) and never needs it (tests/test_import_diet.py).

POLICY_VERSION = "1"
KINDS = ("profile", "preference", "project", "decision", "event", "experience", "workflow")
STATUSES = ("candidate", "active", "superseded", "conflicted", "expired", "archived")
HIDDEN = ("superseded", "expired", "archived")
EXPIRING = ("active", "candidate", "conflicted")  # the statuses a passed valid_until turns into "expired"
CONFIDENCE = ("low", "medium", "high")
VISIBILITY = ("private", "workspace", "department", "tenant", "global")
CONFIRMED_SOURCES = ("user", "user-confirmed", "admin")
INFERRED_SOURCES = ("agent", "agent-inferred", "capture")
SOURCES = CONFIRMED_SOURCES + INFERRED_SOURCES + ("file", "command", "test")
CHANGES = ("archive", "expire", "confirm")
DECISIONS = ("skip", "create", "merge", "supersede", "conflict", "reject")

RELATED_AT = 0.3  # vocabulary overlap (Jaccard) from which two memories are "about the same thing"
_ID_RE = re.compile(r"^m-[0-9a-f]{12}$")
_TOKEN = re.compile(r"[^\W_][\w\-.]*[^\W_]|[^\W_]", re.UNICODE)
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in into is it its
    let me my no not of on or our please remember say says should so that the their them then there these they
    this to too us was we were what when where which who why will with would you your yes ok okay also just
    about all any note keep""".split()
)


class PolicyError(ValueError):
    pass


class MemoryRecord(Frozen):
    """One memory as the policy sees it (frozen).  A plain class, not a dataclass:
    :mod:`okfpro.core.record` says why."""

    __slots__ = ("id", "text", "kind", "status", "confidence", "visibility", "source", "created", "valid_until",
                 "review_at", "supersedes", "superseded_by", "related", "policy_version", "change", "target",
                 "explicit")
    _fields = __slots__
    id: str
    text: str
    kind: str
    status: str
    confidence: str
    visibility: str
    source: str
    created: str | None  # YYYY-MM-DD
    valid_until: str | None
    review_at: str | None
    supersedes: tuple[str, ...]
    superseded_by: str | None  # derived by fold(), never stored
    related: tuple[str, ...]
    policy_version: str
    change: str | None  # a change record: archive / expire / confirm …
    target: str | None  # … of this memory id
    explicit: bool  # False for a plain captured exchange

    def __init__(self, id: str, text: str, kind: str = "event", status: str = "active", confidence: str = "medium",
                 visibility: str = "private", source: str = "capture", created: str | None = None,
                 valid_until: str | None = None, review_at: str | None = None, supersedes: tuple[str, ...] = (),
                 superseded_by: str | None = None, related: tuple[str, ...] = (),
                 policy_version: str = POLICY_VERSION, change: str | None = None, target: str | None = None,
                 explicit: bool = True) -> None:
        set_field(self, "id", id)
        set_field(self, "text", text)
        set_field(self, "kind", kind)
        set_field(self, "status", status)
        set_field(self, "confidence", confidence)
        set_field(self, "visibility", visibility)
        set_field(self, "source", source)
        set_field(self, "created", created)
        set_field(self, "valid_until", valid_until)
        set_field(self, "review_at", review_at)
        set_field(self, "supersedes", supersedes)
        set_field(self, "superseded_by", superseded_by)
        set_field(self, "related", related)
        set_field(self, "policy_version", policy_version)
        set_field(self, "change", change)
        set_field(self, "target", target)
        set_field(self, "explicit", explicit)

    @property
    def confirmed(self) -> bool:
        return self.source in CONFIRMED_SOURCES

    @property
    def inferred(self) -> bool:
        return self.source in INFERRED_SOURCES


class Decision(Frozen):
    """What the policy decided for a new memory (frozen)."""

    __slots__ = ("decision", "reason", "target_id", "evidence", "policy_version")
    _fields = __slots__
    decision: str
    reason: str
    target_id: str | None
    evidence: tuple[tuple[str, float], ...]  # (memory id, overlap) best first
    policy_version: str

    def __init__(self, decision: str, reason: str, target_id: str | None = None,
                 evidence: tuple[tuple[str, float], ...] = (), policy_version: str = POLICY_VERSION) -> None:
        set_field(self, "decision", decision)
        set_field(self, "reason", reason)
        set_field(self, "target_id", target_id)
        set_field(self, "evidence", evidence)
        set_field(self, "policy_version", policy_version)

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "target_id": self.target_id,
            "reason": self.reason,
            "evidence": [{"id": i, "overlap": s} for i, s in self.evidence],
            "policy_version": self.policy_version,
        }


# ------------------------------------------------------------------------------ text


def normalise(text: str) -> str:
    """Case-, width- and whitespace-insensitive form used for duplicate detection."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def vocabulary(text: str) -> frozenset[str]:
    """Content words: folded tokens of 3+ characters that are not stop words."""
    words = (t.casefold() for t in _TOKEN.findall(unicodedata.normalize("NFKC", text)))
    return frozenset(w for w in words if len(w) >= 3 and w not in STOPWORDS)


def overlap(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return round(len(sa & sb) / len(sa | sb), 4)


def memory_id(kind: str, text: str) -> str:
    return "m-" + sha256(f"{kind}\n{normalise(text)}".encode("utf-8")).hexdigest()[:12]


# ------------------------------------------------------------------------------ records


def _day(value: Any, name: str) -> str | None:
    if value in (None, ""):
        return None
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    try:
        return _dt.date.fromisoformat(str(value)[:10]).isoformat()
    except ValueError as exc:
        raise PolicyError(f"{name} must be a YYYY-MM-DD date, not {value!r}") from exc


def validate(rec: MemoryRecord) -> list[str]:
    problems: list[str] = []
    if rec.change is None and not rec.text.strip():
        problems.append("the memory text is empty")
    for name, value, allowed in (
        ("kind", rec.kind, KINDS),
        ("status", rec.status, STATUSES),
        ("confidence", rec.confidence, CONFIDENCE),
        ("visibility", rec.visibility, VISIBILITY),
        ("source", rec.source, SOURCES),
    ):
        if value not in allowed:
            problems.append(f"{name} must be one of {', '.join(allowed)} (got {value!r})")
    if rec.change is not None and rec.change not in CHANGES:
        problems.append(f"change must be one of {', '.join(CHANGES)} (got {rec.change!r})")
    if rec.change is not None and not rec.target:
        problems.append("a change record needs a target memory id")
    for ref in rec.supersedes + rec.related + ((rec.target,) if rec.target else ()):
        if not _ID_RE.match(ref) and "#" not in ref:
            problems.append(f"{ref!r} is not a memory id")
    if rec.valid_until and rec.created and rec.valid_until < rec.created:
        problems.append("valid_until is before the memory was created")
    return problems


def make(
    text: str,
    *,
    kind: str = "event",
    source: str = "user",
    confidence: str = "medium",
    visibility: str = "private",
    status: str = "active",
    created: _dt.date | str | None = None,
    valid_until: _dt.date | str | None = None,
    review_at: _dt.date | str | None = None,
) -> MemoryRecord:
    """A new explicit memory (id derived from kind + normalised text)."""
    return MemoryRecord(
        id=memory_id(kind, text),
        text=text.strip("\n"),
        kind=kind,
        status=status,
        confidence=confidence,
        visibility=visibility,
        source=source,
        created=_day(created, "created"),
        valid_until=_day(valid_until, "valid_until"),
        review_at=_day(review_at, "review_at"),
    )


def change_record(change: str, target: str, *, source: str = "user", created: _dt.date | str | None = None) -> MemoryRecord:
    rid = "m-" + sha256(f"change\n{change}\n{target}\n{created}".encode()).hexdigest()[:12]
    return MemoryRecord(id=rid, text="", kind="event", source=source, change=change, target=target,
                        created=_day(created, "created"))


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
_QUOTED = re.compile(r"[0-9]+|[0-9]{4}-[0-9]{2}-[0-9]{2}")  # would read back as a number or a date
_WORDS = frozenset("yes no true false on off null".split())  # YAML 1.1 booleans and null, any case


def plain_yaml(data: dict[str, Any]) -> str | None:
    """``data`` as :func:`render`'s ``yaml.dump`` writes it (block style, insertion order), when
    every key and value is a word, digits or a date, or a list of those; else None.
    ``tests/test_yaml_shortcuts.py`` holds it to PyYAML's output."""
    def scalar(value: object) -> str | None:
        if not isinstance(value, str):
            return None
        if _PLAIN.fullmatch(value) and value.lower() not in _WORDS:
            return value
        return f"'{value}'" if _QUOTED.fullmatch(value) else None

    lines = []
    for key, value in data.items():
        if scalar(key) != key:
            return None
        if isinstance(value, list):
            items = [scalar(v) for v in value]
            if not items or None in items:
                return None
            lines.append(f"{key}:")
            lines.extend(f"- {v}" for v in items)
            continue
        text = scalar(value)
        if text is None:
            return None
        lines.append(f"{key}: {text}")
    return "\n".join(lines)


def plain_load(text: str) -> dict[str, Any] | None:
    """What ``yamlsafe.load`` reads from a text :func:`plain_yaml` could have written (lines
    ``key: value`` and ``key:`` + ``- value``, the values as :func:`plain_yaml` writes them);
    None for any other text, which the parser then reads."""
    def scalar(token: str) -> str | None:
        if _PLAIN.fullmatch(token) and token.lower() not in _WORDS:
            return token
        if len(token) > 2 and token[0] == token[-1] == "'" and _QUOTED.fullmatch(token, 1, len(token) - 1):
            return token[1:-1]
        return None

    out: dict[str, Any] = {}
    items: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith("- ") and items is not None:
            value = scalar(line[2:])
            if value is None:
                return None
            items.append(value)
            continue
        if items is not None and not items:
            return None  # "key:" with no items is a null, not a list
        key, sep, rest = line.partition(":")
        if not sep or scalar(key) != key or key in out:
            return None
        if rest == "":
            items = out[key] = []
            continue
        items = None
        value = scalar(rest[1:]) if rest.startswith(" ") else None
        if value is None:
            return None
        out[key] = value
    if items is not None and not items or not out:
        return None
    return out


def render(rec: MemoryRecord) -> str:
    """The entry text for the store: a frontmatter block, then the memory text."""
    data: dict[str, Any] = {"memory": rec.id}
    if rec.change:
        data.update(change=rec.change, target=rec.target)
    else:
        data.update(kind=rec.kind, status=rec.status, confidence=rec.confidence, visibility=rec.visibility)
    data["source"] = rec.source
    for name in ("created", "valid_until", "review_at"):
        if getattr(rec, name):
            data[name] = getattr(rec, name)
    if rec.supersedes:
        data["supersedes"] = list(rec.supersedes)
    if rec.related:
        data["related"] = list(rec.related)
    data["policy_version"] = rec.policy_version
    head = plain_yaml(data)  # the usual record: no PyYAML to import (a fresh process per remember)
    if head is None:
        import yaml

        # libyaml's emitter when PyYAML has it (same documents, ~10x faster on a bulk import)
        head = yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False,
                         default_flow_style=False, allow_unicode=True, width=1000).strip("\n")
    body = rec.text.strip("\n")
    return f"---\n{head}\n---\n{body}" if body else f"---\n{head}\n---"


def parse(text: str, entry_id: str, date: str | None = None) -> MemoryRecord:
    """The record of one stored entry; plain text is a captured ``event``."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end > 0 and text[end + 4 : end + 5] in ("", "\n"):
            data: object = plain_load(text[4:end])  # what render() writes for the usual record
            if data is None:
                from okfpro.core import yamlsafe

                try:
                    data = yamlsafe.load(text[4:end])  # the one parser: every scalar survives
                except yamlsafe.YamlError:
                    data = None
            if isinstance(data, dict) and isinstance(data.get("memory"), str):
                body = text[end + 5 :] if len(text) > end + 4 else ""

                def tup(value: Any) -> tuple[str, ...]:
                    if value is None:
                        return ()
                    if isinstance(value, str):
                        return (value,)
                    return tuple(str(v) for v in value) if isinstance(value, list) else ()

                def day(name: str) -> str | None:
                    try:
                        return _day(data.get(name), name)
                    except PolicyError:
                        return None

                return MemoryRecord(
                    id=data["memory"],
                    text=body.strip("\n"),
                    kind=str(data.get("kind", "event")),
                    status=str(data.get("status", "active")),
                    confidence=str(data.get("confidence", "medium")),
                    visibility=str(data.get("visibility", "private")),
                    source=str(data.get("source", "user")),
                    created=day("created") or date,
                    valid_until=day("valid_until"),
                    review_at=day("review_at"),
                    supersedes=tup(data.get("supersedes")),
                    related=tup(data.get("related")),
                    policy_version=str(data.get("policy_version", POLICY_VERSION)),
                    change=str(data["change"]) if data.get("change") else None,
                    target=str(data["target"]) if data.get("target") else None,
                )
    return MemoryRecord(id=entry_id, text=text, kind="event", source="capture", created=date, explicit=False)


# ------------------------------------------------------------------------------ status


def fold(records: Iterable[MemoryRecord]) -> dict[str, MemoryRecord]:
    """Replay records oldest first: the effective record of every memory id.

    A later ``supersedes`` marks its targets superseded (``superseded_by`` set) — unless
    the newcomer is agent-inferred and the target user-confirmed, which the policy never
    allows (the target stays as it was).  Change records archive, expire or confirm.
    """
    out: dict[str, MemoryRecord] = {}
    for rec in records:
        fold_step(out, rec)
    return out


def fold_touches(rec: MemoryRecord) -> tuple[str, ...]:
    """The memory ids whose effective record :func:`fold_step` may read or change for ``rec``."""
    if rec.change:
        return (rec.target,) if rec.target else ()
    return (rec.id, *rec.supersedes)


def fold_step(out: dict[str, MemoryRecord], rec: MemoryRecord) -> None:
    """Apply one record to the effective records ``out`` (in place).  Only the ids of
    :func:`fold_touches` are read, so an index can replay one new record against the
    few effective records it touches."""
    if rec.change:
        old = out.get(rec.target or "")
        if old is None:
            return
        if rec.change == "archive":
            out[old.id] = replace(old, status="archived")
        elif rec.change == "expire":
            out[old.id] = replace(old, status="expired")
        elif rec.change == "confirm" and old.status in ("candidate", "conflicted"):
            out[old.id] = replace(old, status="active", source="user-confirmed" if rec.confirmed else old.source)
        return
    if rec.id in out:
        return  # the same memory written twice: the first stands
    out[rec.id] = rec
    for target in rec.supersedes:
        old = out.get(target)
        if old is None or (rec.inferred and old.confirmed):
            continue
        out[target] = replace(old, status="superseded", superseded_by=rec.id)


def effective_status(rec: MemoryRecord, today: _dt.date) -> str:
    if rec.status in EXPIRING and rec.valid_until:
        if rec.valid_until < today.isoformat():
            return "expired"
    return rec.status


def review_due(rec: MemoryRecord, today: _dt.date) -> bool:
    return rec.review_at is not None and bool(rec.review_at) and rec.review_at <= today.isoformat()


def visible(rec: MemoryRecord, today: _dt.date, include_hidden: bool = False) -> bool:
    """Recall shows active, candidate and conflicted memories; superseded, expired and
    archived ones only on request."""
    if rec.change:
        return False
    return include_hidden or effective_status(rec, today) not in HIDDEN


# ------------------------------------------------------------------------- decide_write


def decide_write(
    new: MemoryRecord,
    existing: Iterable[MemoryRecord],
    *,
    supersede: bool | str = False,
    contradicts: bool | str = False,
    today: _dt.date | None = None,
) -> Decision:
    """The deterministic decision for writing ``new`` next to ``existing`` (one scope)."""
    problems = validate(new)
    if problems:
        return Decision("reject", "; ".join(problems))
    live = [r for r in existing if not r.change and (today is None or visible(r, today))]
    live = [r for r in live if r.status not in HIDDEN]
    target_norm = normalise(new.text)
    for rec in live:
        if rec.kind == new.kind and normalise(rec.text) == target_norm:
            return Decision("skip", f"an identical {rec.kind} memory already exists", rec.id, ((rec.id, 1.0),))
    words = vocabulary(new.text)
    scored = sorted(
        ((r.id, overlap(words, vocabulary(r.text))) for r in live),
        key=lambda pair: (-pair[1], pair[0]),
    )
    evidence = tuple((i, s) for i, s in scored if s >= RELATED_AT)[:5]
    by_id = {r.id: r for r in live}

    def pick(wanted: bool | str, same_kind: bool = True) -> MemoryRecord | None:
        if isinstance(wanted, str):
            return by_id.get(wanted)
        for rid, score in scored:
            if score < RELATED_AT:
                break
            if not same_kind or by_id[rid].kind == new.kind:
                return by_id[rid]
        return None

    if contradicts:
        target = pick(contradicts, same_kind=False)
        if target is None:
            return Decision("create", "a contradiction was declared but no matching memory was found", None, evidence)
        return Decision("conflict", f"declared to contradict {target.id}; both are kept and marked", target.id, evidence)
    if supersede:
        target = pick(supersede)
        if target is None:
            why = f"no memory {supersede!r} in this scope" if isinstance(supersede, str) else (
                f"no {new.kind} memory overlaps enough to supersede")
            return Decision("create", why, None, evidence)
        if new.inferred and target.confirmed:
            return Decision(
                "conflict",
                f"an agent-inferred memory cannot supersede the user-confirmed {target.id}; both are kept",
                target.id,
                evidence,
            )
        return Decision("supersede", f"replaces {target.id} (overlap {dict(scored).get(target.id, 0.0)})",
                        target.id, evidence)
    if evidence:
        return Decision("create", f"new memory; related to {', '.join(i for i, _ in evidence)}", None, evidence)
    return Decision("create", "new memory", None, evidence)


def apply(decision: Decision, new: MemoryRecord) -> MemoryRecord | None:
    """The record to append for ``decision`` (None for skip / reject).  Never touches others."""
    if decision.decision in ("skip", "reject"):
        return None
    if decision.decision == "supersede" and decision.target_id:
        return replace(new, supersedes=tuple(dict.fromkeys(new.supersedes + (decision.target_id,))))
    if decision.decision == "conflict" and decision.target_id:
        return replace(new, status="conflicted", related=tuple(dict.fromkeys(new.related + (decision.target_id,))))
    return new
