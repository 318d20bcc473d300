#!/usr/bin/env python3
"""``okfpro render`` on 2k (and 10k) concept workspaces, next to ``python3 -c pass`` in the same run.

    python bench/bench_render.py [--sizes 2000,10000] [--runs N] [--work DIR]

Each row: the p50 wall time of a fresh ``okfpro render WS -o FILE`` process (warm parse
cache, and ``OKFPRO_NO_CACHE=1``), the page's size, and the ratio to ``python3 -c pass``.
The page is one self-contained HTML file (graph layout computed in Python, drawn by the
page's inline script on a canvas).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from harness import PYTHON, baseline, measure, okfpro, report  # noqa: E402

ENV = {"PYTHONPATH": str(REPO)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="okfpro-bench-render-"))
    base = baseline()
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        ws = work / f"b{n}"
        if not (ws / ".okf" / "index.md").exists():
            subprocess.run([PYTHON, str(HERE / "gen_bundle.py"), str(ws), str(n), "--seed", "7"], check=True,
                           stdout=subprocess.DEVNULL)
        out = work / f"b{n}.html"
        rows.append(measure(okfpro("render", str(ws), "-o", str(out)), runs=args.runs, env=ENV, expect=(0,),
                            label=f"render {n} concepts (warm parse cache)"))
        rows.append(measure(okfpro("render", str(ws), "-o", str(out)), runs=args.runs,
                            env={**ENV, "OKFPRO_NO_CACHE": "1"}, expect=(0,), label=f"render {n} concepts (no cache)"))
        print(f"page for {n} concepts: {out.stat().st_size / 1e6:.2f} MB", flush=True)
    report("okfpro render", rows, base)


if __name__ == "__main__":
    main()
