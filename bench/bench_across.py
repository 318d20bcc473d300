#!/usr/bin/env python3
"""Knowledge from several bundles (issue #16): the merged ranking and recall drawing on registered bundles.

    python bench/bench_across.py [--size 2000] [--runs 7]

Generates two workspaces of ``--size`` concepts each (bench/gen_bundle.py, seeds 7 and 8) and
reports, in-process (CPU seconds, median of ``--runs``, parse cache warm):

* the workspace's own knowledge search (FTS5 index, as recall runs it without registered bundles);
* the same query over the workspace plus one registered bundle (``okfpro/io/across.py``: one
  in-memory index over both, built per call);

then, as fresh processes next to ``python3 -c pass``: ``search @a @b TERM --engine ranked``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen_bundle import generate  # noqa: E402
from harness import baseline, measure, okfpro, report  # noqa: E402

QUERY = "deploy policy budget"


def _cpu(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="okfpro-bench-across-"))
    os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
    os.environ["OKFPRO_HOME"] = str(tmp / "home")
    a, b = generate(tmp / "a", args.size, seed=7), generate(tmp / "b", args.size, seed=8)

    from okfpro.io import across
    from okfpro.io.bundle import load
    from okfpro.io.fts import rank_bundle

    ra, rb = a, b  # generate() returns the bundle root
    ba = load(ra)
    rank_bundle(ra, ba, QUERY, 8)  # warm the index
    own = _cpu(lambda: rank_bundle(ra, load(ra), QUERY, 8), args.runs)
    merged = _cpu(lambda: across.rank_sources([across.Source("", ra, load(ra)), across.Source("b", rb, load(rb))],
                                        QUERY, 8), args.runs)
    print(f"knowledge search, {args.size} concepts, own bundle (FTS5):      {own * 1000:7.1f} ms CPU")
    print(f"knowledge search, {args.size}+{args.size} concepts, merged (in-memory): {merged * 1000:7.1f} ms CPU")
    os.chdir(tmp)
    for d, slug in ((a.parent, "a"), (b.parent, "b")):
        subprocess.run(okfpro("registry", "set", str(d), "--as", slug), check=True, capture_output=True)
    base = baseline(args.runs)
    t = measure(okfpro("search", "@a", "@b", *QUERY.split(), "--engine", "ranked", "--json"), runs=args.runs)
    report("search @a @b --engine ranked", [t], base)
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
