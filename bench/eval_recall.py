#!/usr/bin/env python3
"""Memory recall quality on the conversation sets: okfpro against plain BM25, same run.

    python bench/eval_recall.py [GOLD ...] [--json]

Default: ``examples/conversations-a.json`` and ``-b.json`` (``bench/gen_conversations.py``) and
``examples/conversations-plays.json`` (public-domain plays, questions by rule: ``bench/gen_plays.py``).
Prints, per set and category, recall@10, MRR and nDCG@10 of okfpro's recall path
(``okfpro eval recall``: imported memories, the index, the hook's query words) and of the
plain BM25 baseline over the same turns, and the recall@10 ratio (issue 40's target: 1.45), with
okfpro's previous ranking (``okfpro.memory.evaluate.PREVIOUS_NAME``) beside it.  Also the in-process CPU time of the okfpro queries.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from okfpro.core.evalmetrics import parse_gold  # noqa: E402
from okfpro.memory.evaluate import evaluate_recall  # noqa: E402

SETS = [HERE.parent / "examples" / name for name in ("conversations-a.json", "conversations-b.json",
                                                      "conversations-plays.json")]


def table(name: str, rep: dict) -> list[str]:
    lines = [f"{name}: {rep['memories']} turns, {rep['queries']} questions, {rep['scopes']} conversations",
             f"  {'category':<12} {'n':>4} {'R@10 ok':>8} {'prev':>6} {'R@10 bm25':>9} {'ratio':>6} {'R@5 ok':>7} "
             f"{'prev':>6} {'MRR ok':>7} {'prev':>6} {'MRR bm25':>8} {'nDCG ok':>8} {'nDCG bm25':>9}"]
    for cat in list(rep["okfpro"]["by_category"]) + ["overall"]:
        o = rep["okfpro"]["overall"] if cat == "overall" else rep["okfpro"]["by_category"][cat]
        b = rep["baseline"]["overall"] if cat == "overall" else rep["baseline"]["by_category"][cat]
        p = rep["previous"]["overall"] if cat == "overall" else rep["previous"]["by_category"][cat]
        ratio = o["recall@10"] / b["recall@10"] if b["recall@10"] else float("inf")
        lines.append(f"  {cat:<12} {rep['counts'][cat]:>4} {o['recall@10']:>8.3f} {p['recall@10']:>6.3f} "
                     f"{b['recall@10']:>9.3f} {ratio:>6.2f} {o['recall@5']:>7.3f} {p['recall@5']:>6.3f} {o['mrr']:>7.3f} "
                     f"{p['mrr']:>6.3f} {b['mrr']:>8.3f} {o['ndcg@10']:>8.3f} {b['ndcg@10']:>9.3f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gold", nargs="*", type=Path, default=SETS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = {}
    for path in args.gold:
        gold = parse_gold(json.loads(path.read_bytes()))
        cpu = time.process_time()
        rep = evaluate_recall(gold)
        rep["cpu_s"] = round(time.process_time() - cpu, 3)
        out[path.name] = rep
        if not args.json:
            print("\n".join(table(path.name, rep)) + f"\n  (eval CPU {rep['cpu_s']} s, okfpro p50 {rep['okfpro']['p50_ms']} ms)")
    if args.json:
        print(json.dumps({k: {n: v for n, v in r.items() if n != "per_query"} for k, r in out.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
