#!/usr/bin/env python3
"""Search at 1k / 10k / 50k concepts, next to ``python3 -c pass`` in the same run.

    python bench/bench_search.py [--sizes 1000,10000,50000] [--work DIR] [--runs N] [--quick]

For each size (bundles made by ``bench/gen_bundle.py``, seed 7):

Every command row is sampled interleaved with ``python3 -c pass`` (run, pass, run,
pass, ...) and printed with the p50 of both, so the machine's load drift hits both.

* ``okfpro search TERM`` (scan engine) in a fresh process: **cold** (no parse
  cache: the cache directory is deleted before every run, so each run parses every
  file and writes the cache), **warm** (cache present), and ``OKFPRO_NO_CACHE=1``;
* ``okfpro search --engine ranked`` cold (no cache, no FTS index) and warm;
* the ranked backends in-process: pure inverted index build + query vs SQLite
  FTS5 build + query, and the import cost of each in a fresh process.

Then ranked-engine quality on the hand-made gold set (``bench/gold_search.py``):
recall@5 and MRR for the ranked engine, next to the scan engine (terms ANDed, as
the reference) and a scan-OR baseline (any query word, by scan score).
Targets (issue 5): warm search at 10k <= 10 x python3 -c pass; cold <= 3 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from harness import PYTHON, Run, Timing, baseline, interleaved, measure, okfpro, report  # noqa: E402,F401

ENV = {"PYTHONPATH": str(REPO)}
REFERENCE = "/work/shared/reference-impl/run-okf"  # the reference (Ruby): its scan search, beside ours


def generate(work: Path, n: int) -> Path:
    out = work / f"b{n}"
    if not (out / ".okf" / "index.md").exists():
        subprocess.run([PYTHON, str(HERE / "gen_bundle.py"), str(out), str(n), "--seed", "7"], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def row(t: Timing) -> str:
    """A row against the ``python3 -c pass`` run just before each of its runs (``t.base``)."""
    assert t.base is not None
    return f"{t.label:<52} p50 {t.p50 * 1000:8.1f} ms   pass {t.base.p50 * 1000:6.1f} ms   {t.ratio(0.0):6.1f} x"


def backends(ws: Path) -> list[str]:
    """In-process: the pure inverted index vs SQLite FTS5 (in memory), build + one query."""
    from okfpro.core import bm25
    from okfpro.io import fts
    from okfpro.io.bundle import load

    bundle = load(ws / ".okf")
    query = "how does the ledger cache handle tenant churn"
    t0 = time.perf_counter()
    index = bm25.RankedIndex(bundle)
    t1 = time.perf_counter()
    index.query(query, 10)
    t2 = time.perf_counter()
    fts.rank_indexed(ws / ".okf", bundle, query, 10, persist=False)
    t3 = time.perf_counter()
    return [f"pure inverted index: build {1000 * (t1 - t0):.0f} ms, query {1000 * (t2 - t1):.1f} ms",
            f"SQLite FTS5 in memory: build + query {1000 * (t3 - t2):.0f} ms"]


def import_costs(runs: int) -> list[Timing]:
    return [
        measure([PYTHON, "-c", "import sqlite3"], runs=runs, label="python3 -c 'import sqlite3'"),
        measure([PYTHON, "-c", "import okfpro.core.search"], runs=runs, env=ENV,
                label="python3 -c 'import okfpro.core.search'"),
        measure([PYTHON, "-c", "import okfpro.io.fts"], runs=runs, env=ENV,
                label="python3 -c 'import okfpro.io.fts' (+ sqlite3 on use)"),
    ]


def quality(work: Path) -> list[str]:
    import gold_search
    from okfpro.core import bm25, search
    from okfpro.io.reader import read_bundle

    root = work / "gold" / ".okf"
    if not root.exists():
        gold_search.write_bundle(root)
    bundle = read_bundle(root)

    def scan_or(q: str) -> list[dict]:
        best: dict[str, dict] = {}
        for word in bm25.query_tokens(q):
            for row in search.scan(bundle, [word]):
                cur = best.get(row["id"])
                if cur is None:
                    best[row["id"]] = dict(row)
                else:
                    cur["score"] += row["score"]
        return sorted(best.values(), key=lambda r: (-r["score"], r["id"]))

    engines = {
        "ranked (BM25, OR, prefix)": lambda q: bm25.rank_docs(bundle, q, 10),
        "scan (reference: AND)": lambda q: search.scan(bundle, q.split()),
        "scan-OR baseline": scan_or,
    }
    lines = []
    for name, run in engines.items():
        hits5 = 0
        rr = 0.0
        for q, want in gold_search.QUERIES:
            ids = [r["id"] for r in run(q)]
            if want in ids[:5]:
                hits5 += 1
            if want in ids[:10]:
                rr += 1.0 / (ids.index(want) + 1)
        n = len(gold_search.QUERIES)
        lines.append(f"{name:<28} recall@5 {hits5 / n:.3f}   MRR@10 {rr / n:.3f}   ({n} questions)")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--work", help="where bundles are generated (kept); default: a temp dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--term", default="ridership", help="a common word (the generator's vocabulary is small)")
    ap.add_argument("--rare", default="cache-tenant", help="a selective term (a slug fragment)")
    ap.add_argument("--quick", action="store_true", help="3 runs, no 50k")
    ap.add_argument("--warm-only", action="store_true",
                    help="only the warm rows (caches and indexes built first, untimed), a selective word and "
                         "the reference's scan beside them")
    ap.add_argument("--word", default="4821", help="a selective word (--warm-only; a number of the generator)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    runs = args.runs
    if args.quick:
        runs = 3
        sizes = [s for s in sizes if s <= 10000]
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="okfpro-bench-search-"))
    work.mkdir(parents=True, exist_ok=True)
    base = baseline()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, work dir {work}")
    report("import cost (fresh process)", import_costs(runs), base)
    ranked_q = ["how", "does", "the", "ledger", "cache", "handle", "tenant", "churn"]
    for n in sizes:
        start = time.perf_counter()
        ws = generate(work, n)
        gen = time.perf_counter() - start
        r = max(3, runs if n <= 10000 else 3)

        def drop_cache(ws: Path = ws) -> None:
            shutil.rmtree(ws / ".tmp" / "okfpro-cache", ignore_errors=True)

        q = ["search", args.term, "--json"]
        rare = ["search", args.rare, "--json"]
        ranked = ["search", *ranked_q, "--engine", "ranked", "--json"]
        cases = [
            (f"{n:>6}: search {args.term} cold (no cache)", q, {}, drop_cache, 0),
            (f"{n:>6}: search {args.term} warm (cache)", q, {}, None, 1),
            (f"{n:>6}: search {args.rare} warm (cache)", rare, {}, None, 1),
            (f"{n:>6}: search {args.term} OKFPRO_NO_CACHE=1", q, {"OKFPRO_NO_CACHE": "1"}, None, 0),
            (f"{n:>6}: search --engine ranked cold (no cache/index)", ranked, {}, drop_cache, 0),
            (f"{n:>6}: search --engine ranked warm", ranked, {}, None, 1),
        ]
        if args.warm_only:
            for argv in (q, ranked):  # the caches and indexes, built untimed
                subprocess.run(okfpro(*argv), cwd=str(ws), env={**os.environ, **ENV}, stdout=subprocess.DEVNULL)
            word = ["search", args.word, "--json"]
            cases = [(f"{n:>6}: search {args.word} warm (cache)", word, {}, None, 1), cases[2], cases[1], cases[5]]
            ref = Run([REFERENCE, "search", ".okf", args.rare, "--json"], cwd=str(ws), expect=(0,),
                      label=f"{n:>6}: reference search {args.rare}")
            timings = interleaved([Run(okfpro(*argv), cwd=str(ws), env={**ENV, **env}, label=label, expect=(0,))
                                   for label, argv, env, _b, _w in cases] + [ref], runs=r, warmup=1, paired=True)
            print(f"\n== {n} concepts warm (interleaved: each row after python3 -c pass, rows in turn) ==")
            for t in timings:
                ref_t = timings[-1]
                print(row(t) + f"   CPU {1000 * (t.cpu or 0):7.1f} ms   reference x {t.p50 / ref_t.p50:5.2f} wall, "
                      f"{(t.cpu or 0) / (ref_t.cpu or 1):5.2f} CPU")
            sys.stdout.flush()
            continue
        print(f"\n== {n} concepts (generated in {gen:.1f} s; each row interleaved with python3 -c pass) ==")
        for label, argv, env, before, warm in cases:
            t, = interleaved([Run(okfpro(*argv), cwd=str(ws), env={**ENV, **env}, label=label, before=before,
                                  expect=(0,))], runs=r, warmup=warm, paired=True)
            print(row(t))
            sys.stdout.flush()
        if n <= 10000:
            for line in backends(ws):
                print(f"{n:>6}: {line}")
    if args.warm_only:
        return
    print("\n== ranked-engine quality (bench/gold_search.py) ==")
    for line in quality(work):
        print(line)


if __name__ == "__main__":
    main()
