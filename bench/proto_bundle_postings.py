#!/usr/bin/env python3
"""A cost prototype, not the engine: bundle postings grouped by (weighted count, length), ranked in
Python with Lucene's idf (``.okf/design/search-quality.md``, "Tried on a branch").

    python bench/proto_bundle_postings.py [--sizes 2000,50000] [--work DIR]

Builds, in memory, each term's postings of a ``bench/gen_bundle.py`` bundle grouped by (the term's
field-weighted count, the document's length), then ranks two queries (the prompt bench's and three
rarer words) as the ranked engine would with Lucene's idf: a prefix's terms merged per document, one
share computed per group, ``heapq.nlargest`` for the limit of 5.  Prints the in-process CPU (p50 of 7)
next to the FTS5 index's answer today (``fts.rank_indexed``), to size the route that would let the
bundle's ranked search take Lucene's idf without scoring every matched row with FTS5's ``bm25()``.
The arithmetic is plain (not summed in FTS5's order): it measures cost, not answers.
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from okfpro.core import bm25  # noqa: E402
from okfpro.core.search import FIELDS, WEIGHTS, _as_text, _View  # noqa: E402
from okfpro.io import fts  # noqa: E402
from okfpro.io.reader import read_bundle  # noqa: E402

QUERIES = ("when does the next release ship, and what did we decide about the ledger cache?", "tenant churn zebra")


def build(bundle) -> tuple[dict[str, dict[tuple[int, int], list[int]]], list[str], list[int]]:
    post: dict[str, dict[tuple[int, int], list[int]]] = {}
    lens: list[int] = []
    for o, view in enumerate(_View(c) for c in bundle.concepts):
        counts: dict[str, int] = {}
        length = 0
        for name in FIELDS:
            toks = bm25.stemmed_terms(_as_text(view.field(name)))
            length += len(toks)
            for t in toks:
                counts[t] = counts.get(t, 0) + WEIGHTS[name]
        lens.append(length)
        for t, f in counts.items():
            post.setdefault(t, {}).setdefault((f, length), []).append(o)
    return post, sorted(post), lens


def rank(post, vocab: list[str], lens: list[int], tokens: list[str], limit: int) -> list[int]:
    rows = len(lens)
    avg = sum(lens) / rows
    score = [0.0] * rows
    for tok in tokens:
        terms = []
        if len(tok) >= bm25.PREFIX_MIN:
            i = bisect.bisect_left(vocab, tok)
            while i < len(vocab) and vocab[i].startswith(tok):
                terms.append(vocab[i])
                i += 1
        elif tok in post:
            terms = [tok]
        merged: dict[int, int] = {}
        for t in terms:
            for (f, _length), ords in post[t].items():
                for o in ords:
                    merged[o] = merged.get(o, 0) + f
        if not merged:
            continue
        n = len(merged)
        idf = math.log(1 + (rows - n + 0.5) / (n + 0.5))
        groups: dict[tuple[int, int], list[int]] = {}
        for o, f in merged.items():
            groups.setdefault((f, lens[o]), []).append(o)
        for (f, length), ords in groups.items():
            share = bm25.phrase_score(idf, f, length, avg)
            for o in ords:
                score[o] += share
    return heapq.nlargest(limit, range(rows), key=score.__getitem__)


def cpu_ms(fn) -> float:
    fn()
    samples = []
    for _ in range(7):
        t0 = time.process_time()
        fn()
        samples.append(time.process_time() - t0)
    return statistics.median(samples) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,50000")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "okfpro-proto-postings")
    args = ap.parse_args()
    for n in (int(x) for x in args.sizes.split(",")):
        ws = args.work / f"b{n}"
        if not (ws / ".okf" / "index.md").exists():
            subprocess.run([sys.executable, str(HERE / "gen_bundle.py"), str(ws), str(n), "--seed", "7"], check=True,
                           stdout=subprocess.DEVNULL)
        bundle = read_bundle(ws / ".okf")
        t0 = time.perf_counter()
        post, vocab, lens = build(bundle)
        built = time.perf_counter() - t0
        for q in QUERIES:
            toks = bm25.bundle_query(q)
            proto = cpu_ms(lambda: rank(post, vocab, lens, toks, 5))  # noqa: B023 - timed here
            today = cpu_ms(lambda: fts.rank_indexed(ws / ".okf", bundle, q, 5))  # noqa: B023 - timed here
            print(f"{n:>6} concepts (postings built in {built:.1f} s)  {q[:30]!r:34} grouped postings {proto:7.1f} ms"
                  f"   fts.rank_indexed today {today:7.1f} ms")


if __name__ == "__main__":
    main()
