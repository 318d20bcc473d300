"""Recall: the prompt is the query; knowledge + the scope's memory, under one split budget.

From a UserPromptSubmit event:

1. identity (:mod:`okfpro.io.identity`) — refused (multi-user without identity, a session
   whose identity changed) means no recall at all, and the reason says why;
2. the query is the prompt's content words (our own recall blocks stripped first);
3. knowledge — ``knowledge_search(query, limit)`` returning rows with ``id`` / ``title`` /
   ``snippet`` / ``date`` (and optionally ``trust``, ``bundle``); by default the ranked engine
   over the workspace bundle and the registered bundles ``[knowledge] bundles`` lists (one
   ranking; such a block's source is ``bundle:@slug``; nothing is written into their trees);
4. memory — ``store.read(scope, query)``: the scope's applicable tiers, most specific
   first; superseded, expired and archived memories hidden (policy);
5. every line redacted again, then assembled under ``[memory] budget_tokens`` split
   ``knowledge_share`` / ``memory_share`` with spill-over (:mod:`okfpro.core.budget`),
   each block labelled with source, tier, date and age, framed as data.

:func:`recall_for_prompt` never raises: a failing surface degrades to less context and
the reason says so in one line.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the prompt hook's path
    from typing import Any, Callable, Sequence

    from okfpro.core.event import Event
    from okfpro.memory.door import MemoryDoor

    KnowledgeSearch = Callable[[str, int], Sequence[Mapping[str, Any]]]

KNOWLEDGE_LIMIT = 8
MEMORY_LIMIT = 12
MAX_MEMORY_LINES = 20
MAX_QUERY_TERMS = 16


class RecallResult(Value):
    """What the prompt hook adds (``text``), why, and which surfaces answered or failed."""

    __slots__ = ("text", "reason", "knowledge", "memory", "degraded")
    _fields = __slots__
    text: str  # the additionalContext ("" = nothing to add)
    reason: str  # one line: what was recalled, or why nothing was
    knowledge: list[str]
    memory: list[str]
    degraded: list[str]  # surfaces that failed

    def __init__(self, text: str, reason: str, knowledge: list[str] | None = None, memory: list[str] | None = None,
                 degraded: list[str] | None = None) -> None:
        from okfpro.memory.capture import one_line

        self.text = text
        self.reason = one_line(reason)
        self.knowledge = [] if knowledge is None else knowledge
        self.memory = [] if memory is None else memory
        self.degraded = [] if degraded is None else degraded

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "reason": self.reason, "knowledge": self.knowledge, "memory": self.memory,
                "degraded": self.degraded}


def query_of(prompt: str) -> str:
    """The prompt's content words, in order, deduplicated (at most 16); a month it names with
    its year is its ``YYYY-MM`` term, first (:mod:`okfpro.core.querytime`: "May 2024 and June
    2024" asks for two months, though the year is one word)."""
    from okfpro.core.mempolicy import _TOKEN, STOPWORDS
    from okfpro.core.querytime import month_terms
    from okfpro.core.redact import strip_recall

    text, seen = month_terms(strip_recall(prompt))
    seen = seen[:MAX_QUERY_TERMS]
    for tok in _TOKEN.findall(text):
        low = tok.casefold()
        if len(low) < 3 or low in STOPWORDS or low in seen:
            continue
        seen.append(low)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return " ".join(seen)


def bundle_search(workspace: str | os.PathLike[str], cfg: Any, degraded: list[str] | None = None) -> KnowledgeSearch | None:
    """The default knowledge surface: the ranked engine over the workspace bundle — and, when
    ``[knowledge] bundles`` lists registered bundles (``@slug``, ``@group``, ``@all``), over those
    too, as one corpus with one ranking (:mod:`okfpro.io.across`); their rows carry ``bundle``
    (the slug).  A listed bundle that cannot be read is left out and named in ``degraded``."""
    raw = cfg.get("bundle", "path", ".okf")
    root = os.path.join(workspace, raw) if isinstance(raw, str) and raw.strip() else None  # a string: no pathlib
    if root is not None and not os.path.isdir(root):
        root = None
    refs = cfg.get("knowledge", "bundles", [])
    refs = [r for r in refs if isinstance(r, str) and r.startswith("@")] if isinstance(refs, list) else []
    if root is None and not refs:
        return None
    notes = degraded if degraded is not None else []

    def search(query: str, limit: int) -> list[dict[str, Any]]:
        if root is not None and not refs:  # the bundle's index answers alone when it is provably fresh
            from okfpro.io.fts import answer_fresh

            fresh = answer_fresh(root, query, limit)
            if fresh is not None:
                return fresh
        from okfpro.io.bundle import load

        own = load(root) if root is not None else None
        sources = _registered_sources(workspace, refs, root, notes)
        if not sources:
            if own is None:
                return []
            from okfpro.io.fts import rank_bundle

            return _dated(rank_bundle(root, own, query, limit), {None: own})  # type: ignore[arg-type]  # own is loaded only from a root
        from okfpro.io import across

        if own is not None:
            from pathlib import Path  # the index answered no: the bundle is read, pathlib is the least of it

            sources.insert(0, across.Source("", Path(root), own))  # type: ignore[arg-type]  # own is loaded only from a root
        rows = across.rank_sources(sources, query, limit)
        for row in rows:
            row["bundle"] = row.pop("slug") or None
        return _dated(rows, {s.slug or None: s.bundle for s in sources})

    return search


def _registered_sources(workspace: str | os.PathLike[str], refs: list[str], own_root: str | None,
                        notes: list[str]) -> list[Any]:
    """The listed registered bundles, resolved through the registry the workspace sees (its own
    ``.okf.json`` if it has one, else the global registry); the workspace's own bundle once; a
    listed bundle that cannot be had costs only itself (:func:`okfpro.io.search.sources`)."""
    if not refs:
        return []
    from okfpro.io import registry, search
    from okfpro.io.bundle import load

    try:
        return search.sources(refs, lambda line: notes.append("knowledge " + line.removeprefix("note: ")), load,
                              cwd=workspace, skip={os.path.realpath(own_root)} if own_root is not None else set(),
                              lenient=True)[1]
    except registry.RegistryError:
        notes.append("knowledge registry (unreadable)")
        return []


def _dated(rows: list[dict[str, Any]], bundles: Mapping[str | None, Any]) -> list[dict[str, Any]]:
    """Each row gets its concept's ``date`` (updated, generated_at, else created) and ``trust``."""
    from okfpro.core.concept import concept_day

    for row in rows:
        bundle = bundles.get(row.get("bundle"))
        concept = bundle.by_id.get(str(row.get("id"))) if bundle is not None else None
        if concept is None:
            continue
        row["date"] = concept_day(concept)
        row["trust"] = concept.trust
    return rows


def _memory_blocks(door: MemoryDoor, scope: Any, query: str, today: Any, include_hidden: bool,
                   degraded: list[str], clean: Callable[[list[str]], tuple[str, ...]]) -> list[Any]:
    """The memory side of prompt recall: the scope's ranked hits as budget blocks."""
    from okfpro.core import budget as _budget

    mblocks: list[_budget.Block] = []
    store = door.store
    if store is None:
        degraded.append("memory (store unavailable)")
        return mblocks
    try:
        from okfpro.core import mempolicy as _mempolicy
        from okfpro.memory.index import recall as index_recall

        hits, _diags = index_recall(store, scope, query, today.isoformat(), include_hidden, MEMORY_LIMIT)
        for passage, rec, status in [(h.passage(query), h.record, h.status) for h in hits]:
            entry = passage.entry
            lines = [ln for ln in (rec.text if rec.explicit else entry.text).splitlines() if ln.strip()]
            label = None if status == "active" else status
            if _mempolicy.review_due(rec, today) and label is None:
                label = "review due"
            title = f"{rec.kind} memory ({rec.source}, {rec.confidence} confidence)" if rec.explicit else ""
            mblocks.append(_budget.Block("memory", f"memory:{entry.tier}", entry.id, title,
                                         clean(lines[:MAX_MEMORY_LINES]), tier=entry.tier, date=entry.date,
                                         status=label))
    except Exception as exc:  # noqa: BLE001 - degrade to knowledge only
        degraded.append(f"memory ({exc.__class__.__name__})")
    return mblocks


def recall_for_prompt(
    event: Event | Mapping[str, Any],
    start: str | os.PathLike[str],
    knowledge_search: KnowledgeSearch | None = None,
    *,
    include_hidden: bool = False,
) -> RecallResult:
    """The additionalContext for a UserPromptSubmit event, from the memory of the workspace
    holding ``start`` (the event's ``cwd``).  Never raises."""
    begun = time.perf_counter()
    try:
        from okfpro.core.event import as_event
        from okfpro.memory.door import DoorError, open_door

        prompt = as_event(event).prompt
        if not prompt.strip():
            return RecallResult("", "no prompt to recall for")
        try:
            door = open_door(start, event)
        except DoorError as exc:
            return RecallResult("", f"recall skipped: {exc}")
        return _recall(door, prompt, knowledge_search, include_hidden, begun)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail the agent
        return RecallResult("", f"recall failed ({exc.__class__.__name__}); no context added")


def _recall(door: MemoryDoor, prompt: str, knowledge_search: KnowledgeSearch | None, include_hidden: bool,
            start: float) -> RecallResult:
    from okfpro.core import budget as _budget
    from okfpro.core.redact import redact
    from okfpro.io import clock
    from okfpro.io.identity import identity_hash

    workspace, cfg = door.workspace, door.config
    ident = door.identity
    if not ident.recall_allowed:
        return RecallResult("", f"recall refused: {ident.reason}")
    scope = ident.scope
    assert scope is not None
    query = query_of(prompt)
    if not query:
        return RecallResult("", "the prompt has no content words to recall for")
    today = clock.today()
    degraded: list[str] = []

    def clean(lines: list[str]) -> tuple[str, ...]:
        return tuple(redact(line).text for line in lines)

    # knowledge: searched on another thread while the memory is ranked when a core is idle (each is
    # mostly SQLite, which runs without the GIL, on its own connection); its notes come first in
    # `degraded`, as before
    kblocks: list[_budget.Block] = []
    search = knowledge_search if knowledge_search is not None else bundle_search(workspace, cfg, degraded)
    from okfpro.io.threads import overlap

    knowledge = overlap(lambda: list(search(query, KNOWLEDGE_LIMIT) or [])) if search is not None else None
    mdegraded: list[str] = []
    mblocks = _memory_blocks(door, scope, query, today, include_hidden, mdegraded, clean)
    if knowledge is not None:
        try:
            rows = knowledge()[:KNOWLEDGE_LIMIT]
            for row in rows:
                if not isinstance(row, Mapping) or not row.get("id"):
                    continue
                snippet = str(row.get("snippet") or "")
                kblocks.append(
                    _budget.Block(
                        "knowledge",
                        f"bundle:@{row['bundle']}" if row.get("bundle") else "bundle",
                        str(row["id"]),
                        redact(str(row.get("title") or "")).text,
                        clean(snippet.splitlines()),
                        tier=str(row.get("trust") or row.get("tier") or "") or None,
                        date=str(row.get("date"))[:10] if row.get("date") else None,
                    )
                )
        except Exception as exc:  # noqa: BLE001 - degrade to memory only
            degraded.append(f"knowledge ({exc.__class__.__name__})")
    degraded += mdegraded
    store = door.store

    budget_tokens = cfg.get("memory", "budget_tokens", _budget.DEFAULT_BUDGET)
    k_share = cfg.get("memory", "knowledge_share", _budget.DEFAULT_SHARES[0])
    m_share = cfg.get("memory", "memory_share", _budget.DEFAULT_SHARES[1])
    try:
        _budget.check_shares(float(k_share), float(m_share))
        k_share, m_share = float(k_share), float(m_share)
    except (_budget.BudgetError, TypeError, ValueError):
        degraded.append("budget shares (defaults used)")
        k_share, m_share = _budget.DEFAULT_SHARES
    if not isinstance(budget_tokens, int) or isinstance(budget_tokens, bool):
        budget_tokens = _budget.DEFAULT_BUDGET
    out = _budget.assemble(kblocks, mblocks, budget_tokens, k_share, m_share, today=today)

    if store is not None:
        from okfpro.memory import telemetry

        telemetry.record(store.base, "recall", identity_hash=identity_hash(scope), outcome="ok" if out.text else "empty",
                     knowledge_count=len(out.knowledge), memory_count=len(out.memory),
                     candidate_count=len(kblocks) + len(mblocks), truncated_count=out.truncated, tokens=out.tokens,
                     chars=len(out.text), latency_ms=(time.perf_counter() - start) * 1000, mode=ident.mode,
                     policy_version="1")
    tail = f"; degraded: {', '.join(degraded)}" if degraded else ""
    if not out.text:
        return RecallResult("", f"nothing recalled{tail}", degraded=degraded)
    return RecallResult(out.text, f"recalled {len(out.knowledge)} knowledge and {len(out.memory)} memory block(s){tail}",
                        out.knowledge, out.memory, degraded)
