#!/usr/bin/env python3
"""Kernel benchmarks: ``okfpro --version`` startup, ``validate`` and ``lint`` at 1k and 10k concepts.

    python bench/bench_kernel.py [--sizes 1000,10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_bundle import generate  # noqa: E402
from harness import baseline, measure, okfpro, report  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    base = baseline()
    timings = [measure(okfpro("--version"), runs=args.runs * 2, label="okfpro --version")]
    env = {"OKFPRO_TODAY": "2026-11-30"}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            ws = Path(tmp) / f"b{n}"
            root = generate(ws, n)
            for verb in (["validate"], ["lint"], ["lint", "--today", "2026-11-30"]):
                label = f"okfpro {' '.join(verb)} ({n} concepts, cold)"
                # cold: no parse cache
                timings.append(measure([*okfpro(*verb, str(root)), ], runs=args.runs, env={**env, "OKFPRO_NO_CACHE": "1"},
                                       label=label, expect=(0, 1)))
                timings.append(measure(okfpro(*verb, str(root)), runs=args.runs, env=env,
                                       label=label.replace("cold", "warm cache"), expect=(0, 1)))
    report("kernel", timings, base)


if __name__ == "__main__":
    main()
