"""``okfpro eval recall GOLD``: okfpro's memory ranking against a plain BM25, on your data.

The gold memories are imported into a throw-away store (a temporary directory, history
off) through ``memory import``'s door — safety layer, policy record, time, tier, source,
one scope per gold ``scope`` — and the same append and index as every write;
each gold query then goes through the hook's path — the prompt's content words
(:func:`okfpro.memory.recall.query_of`), then :func:`okfpro.memory.index.recall` — and
through :class:`okfpro.core.evalmetrics.PlainBM25` over the same texts of the same scope,
in the same run, and through the previous ranking (:data:`PREVIOUS_SPEAKER`: okfpro's path with the last
measured change turned off).  Nothing of the workspace is read or written.
"""

from __future__ import annotations

import datetime as _dt
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from okfpro.core import evalmetrics as _evalmetrics

# The ranking before the last measured change, shown beside okfpro's: the same path with the change
# turned off (index.recall's speaker boost at 0.0), so a user sees what the change did on their data.
PREVIOUS_SPEAKER = 0.0
PREVIOUS_NAME = "okfpro without the speaker facet (issue 40)"
BASE_TIME = _dt.datetime(2025, 1, 1, 0, 0, 0, tzinfo=_dt.timezone.utc)


def _when(value: str | None, i: int) -> _dt.datetime:
    from okfpro.memory.importer import iso_time

    if value:
        try:
            return iso_time(value)
        except ValueError as exc:
            raise _evalmetrics.GoldError(f"memory time {value!r} is not ISO 8601") from exc
    return BASE_TIME + _dt.timedelta(seconds=i)


def _load(store: Any, gold: _evalmetrics.Gold) -> tuple[dict[str, Any], dict[tuple[str, str], str]]:
    """Every gold memory imported as a real one — ``memory import``'s door (safety layer,
    policy record, time, tier, source; one write per scope) — into its scope's user; returns
    the scopes and (scope label, memory id) -> key."""
    from okfpro.core import mempolicy
    from okfpro.core.scope import Scope
    from okfpro.memory import importer

    scopes: dict[str, Any] = {}
    key_of: dict[tuple[str, str], str] = {}
    groups: dict[str, list[tuple[int, _evalmetrics.Memory]]] = {}
    for i, m in enumerate(gold.memories):
        groups.setdefault(m.scope, []).append((i, m))
    for label, members in groups.items():
        try:
            scope = Scope(user=label)
        except ValueError as exc:
            raise _evalmetrics.GoldError(f"scope {label!r}: {exc}") from exc
        items = []
        for i, m in members:
            if m.source not in mempolicy.SOURCES:
                raise _evalmetrics.GoldError(f"memory {m.key!r}: source {m.source!r} is not one of "
                                             f"{', '.join(mempolicy.SOURCES)}")
            items.append(importer.Item(i + 1, m.entry, _when(m.time, i), "user", "event", m.source, m.key, False))
            key_of[(label, importer.import_key_id(m.key))] = m.key
        result = importer.run(store, scope, items, today=max(it.when for it in items if it.when).date(), progress=False)
        if result.errors or result.imported != len(items):
            raise _evalmetrics.GoldError(f"scope {label!r}: {result.imported} of {len(items)} memories could be "
                                         f"stored ({result.skipped} duplicates, {result.refused} refused"
                                         + (f"; {'; '.join(result.errors)}" if result.errors else "") + ")")
        scopes[label] = scope
    return scopes, key_of


def evaluate_recall(gold: _evalmetrics.Gold, ks: Sequence[int] = _evalmetrics.KS) -> dict[str, Any]:
    from okfpro.memory.index import recall
    from okfpro.memory.recall import query_of
    from okfpro.memory.store import MemoryStore

    depth = max(max(ks), 10)
    tmp = Path(tempfile.mkdtemp(prefix="okfpro-eval-"))
    try:
        store = MemoryStore(tmp / "memory", tiers=("user",), history=False)
        scopes, key_of = _load(store, gold)
        today = max(_when(m.time, i) for i, m in enumerate(gold.memories)).date().isoformat()
        members: dict[str, list[_evalmetrics.Memory]] = {}
        for m in gold.memories:
            members.setdefault(m.scope, []).append(m)
        baselines = {label: _evalmetrics.PlainBM25([m.entry for m in ms]) for label, ms in members.items()}
        ours: list[tuple[str, dict[str, float]]] = []
        prev: list[tuple[str, dict[str, float]]] = []
        base: list[tuple[str, dict[str, float]]] = []
        lat_ours: list[float] = []
        lat_base: list[float] = []
        per_query: list[dict[str, Any]] = []
        for label, scope in scopes.items():
            recall(store, scope, "warm up", today, limit=1)
        for q in gold.queries:
            if q.scope not in scopes:
                raise _evalmetrics.GoldError(f"query {q.query!r}: no memory is in scope {q.scope!r}")
            t0 = time.perf_counter()
            hits, _ = recall(store, scopes[q.scope], query_of(q.query) or q.query, today, limit=depth)
            lat_ours.append((time.perf_counter() - t0) * 1000)
            ranked = [key_of.get((q.scope, h.record.id), "") for h in hits]
            before, _ = recall(store, scopes[q.scope], query_of(q.query) or q.query, today, limit=depth,
                               speaker=PREVIOUS_SPEAKER)
            pranked = [key_of.get((q.scope, h.record.id), "") for h in before]
            t0 = time.perf_counter()
            order = baselines[q.scope].rank(q.query, depth)
            lat_base.append((time.perf_counter() - t0) * 1000)
            branked = [members[q.scope][i].key for i in order]
            m_ours = _evalmetrics.query_metrics(ranked, q.keys, ks)
            m_base = _evalmetrics.query_metrics(branked, q.keys, ks)
            ours.append((q.category, m_ours))
            prev.append((q.category, _evalmetrics.query_metrics(pranked, q.keys, ks)))
            base.append((q.category, m_base))
            per_query.append({"query": q.query, "category": q.category, "scope": q.scope, "keys": list(q.keys),
                              "okfpro": ranked, "previous": pranked, "baseline": branked})
        s_ours, s_prev, s_base = (_evalmetrics.summarise(ours), _evalmetrics.summarise(prev),
                                  _evalmetrics.summarise(base))
        return {
            "memories": len(gold.memories),
            "queries": len(gold.queries),
            "scopes": len(scopes),
            "ks": list(ks),
            "okfpro": {"overall": s_ours.overall, "by_category": s_ours.by_category,
                       "p50_ms": round(statistics.median(lat_ours), 3)},
            "previous": {"name": PREVIOUS_NAME, "overall": s_prev.overall, "by_category": s_prev.by_category},
            "baseline": {"name": "plain BM25 (k1=1.2, b=0.75, lower-cased \\w+ tokens)", "overall": s_base.overall,
                         "by_category": s_base.by_category, "p50_ms": round(statistics.median(lat_base), 3)},
            "counts": s_ours.counts,
            "per_query": per_query,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def evaluate_gold(data: Any) -> dict[str, Any]:
    """:func:`evaluate_recall` on gold data as read from its JSON file (the documented shape is
    checked first: :class:`okfpro.core.evalmetrics.GoldError` says what is wrong)."""
    return evaluate_recall(_evalmetrics.parse_gold(data))


ENGINES = ("okfpro", "previous", "baseline")


def render(report: dict[str, Any]) -> str:
    ks = report["ks"]
    names = [f"recall@{k}" for k in ks] + [f"hit@{k}" for k in ks] + ["mrr", "ndcg@10"]
    lines = [f"{report['memories']} memories, {report['queries']} queries; "
             f"p50 latency okfpro {report['okfpro']['p50_ms']} ms, baseline {report['baseline']['p50_ms']} ms",
             f"previous: {report['previous']['name']}; baseline: {report['baseline']['name']}",
             f"{'category':<16} {'n':>4}  {'engine':<8} " + " ".join(f"{n:>9}" for n in names)]
    cats = list(report["okfpro"]["by_category"]) + ["overall"]
    for cat in cats:
        for engine in ENGINES:
            vals = report[engine]["overall"] if cat == "overall" else report[engine]["by_category"][cat]
            lines.append(f"{cat:<16} {report['counts'][cat]:>4}  {engine:<8} "
                         + " ".join(f"{vals[n]:>9.3f}" for n in names))
    return "\n".join(lines)
