#!/usr/bin/env python3
"""Work-state benchmarks: ``state``, ``snapshot``, ``board`` (and ``state --full`` for
contrast) on a 10k-concept bundle with a 300-line board.

    python bench/bench_workstate.py [--size 10000] [--board-lines 300] [--runs 7]

``state`` and ``board`` read no concept; ``snapshot`` parses only ``reference/``
(its ``unverified briefings`` counter); ``state --full`` parses the whole bundle.
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
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--board-lines", type=int, default=300)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    env = {"OKFPRO_TODAY": "2026-11-30"}
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "ws", args.size, board_lines=args.board_lines)
        n_board = sum(1 for line in (root / "board.md").read_text().splitlines() if line.startswith("- "))
        n_ref = sum(1 for _ in (root / "reference").rglob("*.md"))
        tag = f"{args.size} concepts, {n_board}-line board"
        base = baseline()
        timings = [
            measure(okfpro("state", str(root)), runs=args.runs, env=env, label=f"okfpro state ({tag})", expect=(0,)),
            measure(okfpro("state", str(root), "--json"), runs=args.runs, env=env, label=f"okfpro state --json ({tag})", expect=(0,)),
            measure(okfpro("board", str(root), "--json"), runs=args.runs, env=env, label=f"okfpro board --json ({tag})", expect=(0,)),
            measure(okfpro("snapshot", str(root)), runs=args.runs, env=env,
                    label=f"okfpro snapshot ({tag}; parses {n_ref} reference/ files)", expect=(0,)),
            measure(okfpro("state", str(root), "--full"), runs=max(3, args.runs // 2), env={**env, "OKFPRO_NO_CACHE": "1"},
                    label=f"okfpro state --full ({tag}; whole parse, no cache)", expect=(0,)),
        ]
        report("work state", timings, base)


if __name__ == "__main__":
    main()
