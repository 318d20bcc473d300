"""Retrieval evaluation: the gold format, the metrics, and a plain BM25 baseline.  Pure.

Gold file (JSON)::

    {
      "memories": [{"key": "k1", "text": "...", "time": "2025-03-01T10:00:00Z"}, ...],
      "queries":  [{"query": "...", "keys": ["k1"], "category": "temporal"}, ...]
    }

``key`` is any string unique among the memories; ``time`` (ISO 8601, optional) is when
the memory was made; ``keys`` are the memories that answer the query (at least one);
``category`` (optional, default ``all``) groups the numbers.

Optional, for conversations (``examples/conversations-a.json``): a memory's ``speaker``
(the turn is stored as ``"<speaker>: <text>"``, for both systems) and ``source`` (one of
the memory policy's sources, default ``user``); ``scope`` on memories and queries (default
``eval``): each scope is its own user, its memories ranked apart from the others', and a
query is asked in its scope (its keys must be memories of that scope) — a set of
conversations is evaluated conversation by conversation, as public benchmarks do.

Metrics per query, from the ranked keys: recall@k (share of the answering keys in the
top k), hit@k (1 when any is), reciprocal rank of the first answering key (0 when none
is in the ranking), nDCG@10 with binary gains.  Reported as means per category and
overall.

The baseline is Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - n + 0.5) / (n + 0.5)))
over lower-cased ``\\w+`` tokens of the whole text — no stop words, no stemming, no field
weights, no prefixes: what a plain BM25 library answers on the same memories.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Iterable, Sequence

from okfpro.core.record import Frozen, Value, set_field

KS = (1, 5, 10)
_WORD = re.compile(r"\w+")


class GoldError(ValueError):
    """The gold file is not in the documented shape (the message says where)."""


class Memory(Frozen):
    __slots__ = _fields = ("key", "text", "time", "speaker", "source", "scope")
    key: str
    text: str
    time: str | None
    speaker: str | None
    source: str
    scope: str

    def __init__(self, key: str, text: str, time: str | None = None, speaker: str | None = None,
                 source: str = "user", scope: str = "eval") -> None:
        set_field(self, "key", key)
        set_field(self, "text", text)
        set_field(self, "time", time)
        set_field(self, "speaker", speaker)
        set_field(self, "source", source)
        set_field(self, "scope", scope)

    @property
    def entry(self) -> str:
        """The text as stored (and as the baseline reads it)."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


class Query(Frozen):
    __slots__ = _fields = ("query", "keys", "category", "scope")
    query: str
    keys: tuple[str, ...]
    category: str
    scope: str

    def __init__(self, query: str, keys: tuple[str, ...], category: str = "all", scope: str = "eval") -> None:
        set_field(self, "query", query)
        set_field(self, "keys", keys)
        set_field(self, "category", category)
        set_field(self, "scope", scope)


class Gold(Frozen):
    __slots__ = _fields = ("memories", "queries")
    memories: tuple[Memory, ...]
    queries: tuple[Query, ...]

    def __init__(self, memories: tuple[Memory, ...], queries: tuple[Query, ...]) -> None:
        set_field(self, "memories", memories)
        set_field(self, "queries", queries)


def parse_gold(data: Any) -> Gold:
    if not isinstance(data, dict):
        raise GoldError("the gold file must be a JSON object with 'memories' and 'queries'")
    mems = data.get("memories")
    qs = data.get("queries")
    if not isinstance(mems, list) or not mems:
        raise GoldError("'memories' must be a non-empty list")
    if not isinstance(qs, list) or not qs:
        raise GoldError("'queries' must be a non-empty list")
    memories: list[Memory] = []
    seen: set[str] = set()
    scope_of: dict[str, str] = {}
    for i, m in enumerate(mems):
        if not isinstance(m, dict) or not isinstance(m.get("key"), (str, int)) or isinstance(m.get("key"), bool):
            raise GoldError(f"memories[{i}]: needs a 'key' (string)")
        key = str(m["key"])
        if key in seen:
            raise GoldError(f"memories[{i}]: key {key!r} is used twice")
        seen.add(key)
        text = m.get("text")
        if not isinstance(text, str) or not text.strip():
            raise GoldError(f"memories[{i}]: needs a non-empty 'text'")
        time = m.get("time")
        if time is not None and not isinstance(time, str):
            raise GoldError(f"memories[{i}]: 'time' must be an ISO 8601 string")
        extra = {name: m[name] for name in ("speaker", "source", "scope") if m.get(name) is not None}
        for name, value in extra.items():
            if not isinstance(value, str) or not value.strip():
                raise GoldError(f"memories[{i}]: '{name}' must be a non-empty string")
        memories.append(Memory(key, text, time, **extra))
        scope_of[key] = memories[-1].scope
    queries: list[Query] = []
    for i, q in enumerate(qs):
        if not isinstance(q, dict) or not isinstance(q.get("query"), str) or not q["query"].strip():
            raise GoldError(f"queries[{i}]: needs a non-empty 'query'")
        keys = q.get("keys")
        if not isinstance(keys, list) or not keys:
            raise GoldError(f"queries[{i}]: 'keys' must be a non-empty list of memory keys")
        keys_s = tuple(str(k) for k in keys)
        unknown = [k for k in keys_s if k not in seen]
        if unknown:
            raise GoldError(f"queries[{i}]: unknown memory key(s) {', '.join(map(repr, unknown))}")
        cat = q.get("category", "all")
        scope = q.get("scope", "eval")
        if not isinstance(scope, str) or not scope.strip():
            raise GoldError(f"queries[{i}]: 'scope' must be a non-empty string")
        foreign = [k for k in keys_s if scope_of[k] != scope]
        if foreign:
            raise GoldError(f"queries[{i}]: key(s) {', '.join(map(repr, foreign))} are not in scope {scope!r}")
        queries.append(Query(q["query"], keys_s, str(cat) if cat is not None else "all", scope))
    return Gold(tuple(memories), tuple(queries))


# ---------------------------------------------------------------------------- metrics


def query_metrics(ranked: Sequence[str], relevant: Iterable[str], ks: Sequence[int] = KS) -> dict[str, float]:
    rel = set(relevant)
    out: dict[str, float] = {}
    for k in ks:
        top = ranked[:k]
        found = len(rel.intersection(top))
        out[f"recall@{k}"] = found / len(rel) if rel else 0.0
        out[f"hit@{k}"] = 1.0 if found else 0.0
    rr = 0.0
    for i, key in enumerate(ranked, start=1):
        if key in rel:
            rr = 1.0 / i
            break
    out["mrr"] = rr
    dcg = sum(1.0 / math.log2(i + 1) for i, key in enumerate(ranked[:10], start=1) if key in rel)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(rel), 10) + 1))
    out["ndcg@10"] = dcg / ideal if ideal else 0.0
    return out


class Summary(Value):
    _fields = ("by_category", "overall", "counts")
    by_category: dict[str, dict[str, float]]
    overall: dict[str, float]
    counts: dict[str, int]

    def __init__(self, by_category: dict[str, dict[str, float]] | None = None,
                 overall: dict[str, float] | None = None, counts: dict[str, int] | None = None) -> None:
        self.by_category = {} if by_category is None else by_category
        self.overall = {} if overall is None else overall
        self.counts = {} if counts is None else counts


def summarise(rows: Sequence[tuple[str, dict[str, float]]]) -> Summary:
    """Means of per-query metrics, per category and overall."""
    out = Summary()
    groups: dict[str, list[dict[str, float]]] = {}
    for cat, m in rows:
        groups.setdefault(cat, []).append(m)
    for cat, ms in sorted(groups.items()):
        out.by_category[cat] = _mean(ms)
        out.counts[cat] = len(ms)
    out.overall = _mean([m for _, m in rows])
    out.counts["overall"] = len(rows)
    return out


def _mean(ms: Sequence[dict[str, float]]) -> dict[str, float]:
    if not ms:
        return {}
    return {name: round(sum(m[name] for m in ms) / len(ms), 4) for name in ms[0]}


# ---------------------------------------------------------------------------- baseline


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class PlainBM25:
    """Okapi BM25 over whole texts (the baseline; see the module docstring)."""

    def __init__(self, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tfs = [Counter(words(t)) for t in texts]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.n = len(texts)
        self.avg = (sum(self.lens) / self.n) if self.n else 1.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        self.idf = {w: math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self.tfs):
            for w in tf:
                self.postings.setdefault(w, []).append(i)

    def rank(self, query: str, limit: int | None = None) -> list[int]:
        scores: dict[int, float] = {}
        for w in set(words(query)):
            idf = self.idf.get(w)
            if idf is None:
                continue
            for i in self.postings[w]:
                tf = self.tfs[i][w]
                denom = tf + self.k1 * (1 - self.b + self.b * self.lens[i] / (self.avg or 1.0))
                scores[i] = scores.get(i, 0.0) + idf * tf * (self.k1 + 1) / denom
        order = sorted(scores, key=lambda i: (-scores[i], i))
        return order if limit is None else order[:limit]
