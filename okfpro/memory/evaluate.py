"""``okfpro eval recall GOLD``: okfpro's memory ranking against a plain BM25, on your data.

The gold memories are written as captured entries into a throw-away store (a temporary
directory, history off, one scope), through the same append and index as every write;
each gold query then goes through the hook's path — the prompt's content words
(:func:`okfpro.memory.recall.query_of`), then :func:`okfpro.memory.index.recall` — and
through :class:`okfpro.core.evalmetrics.PlainBM25` over the same texts, in the same
run.  Nothing of the workspace is read or written.
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

BASE_TIME = _dt.datetime(2025, 1, 1, 0, 0, 0, tzinfo=_dt.timezone.utc)


def _when(value: str | None, i: int) -> _dt.datetime:
    from okfpro.memory.importer import iso_time

    if value:
        try:
            return iso_time(value)
        except ValueError as exc:
            raise _evalmetrics.GoldError(f"memory time {value!r} is not ISO 8601") from exc
    return BASE_TIME + _dt.timedelta(seconds=i)


def evaluate_recall(gold: _evalmetrics.Gold, ks: Sequence[int] = _evalmetrics.KS) -> dict[str, Any]:
    from okfpro.core.scope import Scope
    from okfpro.memory.index import recall
    from okfpro.memory.recall import query_of
    from okfpro.memory.store import MemoryStore

    depth = max(max(ks), 10)
    tmp = Path(tempfile.mkdtemp(prefix="okfpro-eval-"))
    try:
        store = MemoryStore(tmp / "memory", tiers=("user",), history=False)
        scope = Scope(user="eval")
        rows = [(m.text, _when(m.time, i)) for i, m in enumerate(gold.memories)]
        ids, _commit, error = store.write_many(scope, rows, "user", what="eval")
        if error or len(ids) != len(rows):
            raise _evalmetrics.GoldError(f"could not store the gold memories: {error}")
        key_of = {entry_id: m.key for entry_id, m in zip(ids, gold.memories)}
        today = max(r[1] for r in rows).date().isoformat()
        bm25 = _evalmetrics.PlainBM25([m.text for m in gold.memories])
        ours: list[tuple[str, dict[str, float]]] = []
        base: list[tuple[str, dict[str, float]]] = []
        lat_ours: list[float] = []
        lat_base: list[float] = []
        per_query: list[dict[str, Any]] = []
        recall(store, scope, "warm up", today, limit=1)
        for q in gold.queries:
            t0 = time.perf_counter()
            hits, _ = recall(store, scope, query_of(q.query) or q.query, today, limit=depth)
            lat_ours.append((time.perf_counter() - t0) * 1000)
            ranked = [key_of.get(h.entry.id, "") for h in hits]
            t0 = time.perf_counter()
            order = bm25.rank(q.query, depth)
            lat_base.append((time.perf_counter() - t0) * 1000)
            branked = [gold.memories[i].key for i in order]
            m_ours = _evalmetrics.query_metrics(ranked, q.keys, ks)
            m_base = _evalmetrics.query_metrics(branked, q.keys, ks)
            ours.append((q.category, m_ours))
            base.append((q.category, m_base))
            per_query.append({"query": q.query, "category": q.category, "keys": list(q.keys), "okfpro": ranked,
                              "baseline": branked})
        s_ours, s_base = _evalmetrics.summarise(ours), _evalmetrics.summarise(base)
        return {
            "memories": len(gold.memories),
            "queries": len(gold.queries),
            "ks": list(ks),
            "okfpro": {"overall": s_ours.overall, "by_category": s_ours.by_category,
                       "p50_ms": round(statistics.median(lat_ours), 3)},
            "baseline": {"name": "plain BM25 (k1=1.2, b=0.75, lower-cased \\w+ tokens)", "overall": s_base.overall,
                         "by_category": s_base.by_category, "p50_ms": round(statistics.median(lat_base), 3)},
            "counts": s_ours.counts,
            "per_query": per_query,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def render(report: dict[str, Any]) -> str:
    ks = report["ks"]
    names = [f"recall@{k}" for k in ks] + [f"hit@{k}" for k in ks] + ["mrr", "ndcg@10"]
    lines = [f"{report['memories']} memories, {report['queries']} queries; "
             f"p50 latency okfpro {report['okfpro']['p50_ms']} ms, baseline {report['baseline']['p50_ms']} ms",
             f"{'category':<16} {'n':>4}  {'engine':<8} " + " ".join(f"{n:>9}" for n in names)]
    cats = list(report["okfpro"]["by_category"]) + ["overall"]
    for cat in cats:
        for engine in ("okfpro", "baseline"):
            vals = report[engine]["overall"] if cat == "overall" else report[engine]["by_category"][cat]
            lines.append(f"{cat:<16} {report['counts'][cat]:>4}  {engine:<8} "
                         + " ".join(f"{vals[n]:>9.3f}" for n in names))
    return "\n".join(lines)
