#!/usr/bin/env python3
"""Bundle search quality: okfpro's ranked engine against a plain BM25 on the same notes.

    python bench/eval_search.py [examples/search-gold.json] [--json] [--show-misses]
    python bench/eval_search.py examples/design-questions.json --bundle .okf

The second form asks questions of a real bundle on disk (this project's own design notes, 30
long concepts): the questions file holds only ``queries``, the notes are read from ``--bundle``
(its concepts' type, title, description, tags and body), so the figures follow the bundle as it
is when you run it (``.okf/design/recall-quality.md`` gives them with the commit they were read at).

The gold file (``examples/search-gold.json``) holds the notes (id, type, title, description,
tags, body) and natural-language questions with the ids that answer them.  Each system ranks
every note for every question; the figures are recall@1/5/10, MRR and nDCG@10
(``okfpro/core/evalmetrics.py``), per category and overall:

* **plain BM25**: Okapi BM25 (k1 1.2, b 0.75) over each note's whole text (title, description,
  tags, body) as lower-cased ``\\w+`` words, idf ``ln(1 + (N - n + 0.5) / (n + 0.5))``, no stop
  words, no stemming, no fields — the baseline the issue compares with;
* **ranked**: ``okfpro search --engine ranked`` (``okfpro.core.bm25.rank_docs``, the pure engine;
  the FTS5 backend answers the same rows).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from okfpro.core import evalmetrics  # noqa: E402
from okfpro.core import bm25  # noqa: E402
from okfpro.core.concept import Bundle, parse_entry  # noqa: E402


def bundle_of(concepts: list[dict]) -> Bundle:
    b = Bundle(root="(gold)")
    for c in concepts:
        tags = ", ".join(json.dumps(t) for t in c.get("tags", []))
        text = (f"---\ntype: {json.dumps(c['type'])}\ntitle: {json.dumps(c['title'])}\n"
                f"description: {json.dumps(c['description'])}\ntags: [{tags}]\n---\n\n{c['body']}\n")
        b.concepts.append(parse_entry(f"{c['id']}.md", text.encode("utf-8")))
    return b


def plain_text(c: dict) -> str:
    return " ".join([c["title"], c["description"], " ".join(c.get("tags", [])), c["body"]])


def evaluate(gold: dict) -> dict[str, object]:
    concepts = gold["concepts"]
    bundle = bundle_of(concepts)
    ids = [c["id"] for c in concepts]
    plain = evalmetrics.PlainBM25([plain_text(c) for c in concepts])
    systems = {
        "plain BM25": lambda q: [ids[i] for i in plain.rank(q, 10)],
        "ranked": lambda q: [r["id"] for r in bm25.rank_docs(bundle, q, 10)],
    }
    out: dict[str, object] = {}
    for name, run in systems.items():
        rows, per = [], []
        for item in gold["queries"]:
            got = run(item["q"])
            m = evalmetrics.query_metrics(got, item["relevant"])
            rows.append((item["category"], m))
            per.append({"q": item["q"], "relevant": item["relevant"], "top3": got[:3], "mrr": m["mrr"]})
        s = evalmetrics.summarise(rows)
        out[name] = {"overall": s.overall, "by_category": s.by_category, "counts": s.counts, "queries": per}
    return out


def concepts_of(root: str) -> list[dict]:
    """A bundle's concepts as the gold format holds notes."""
    from okfpro.io.reader import read_bundle

    out = []
    for c in read_bundle(root).concepts:
        fm = c.frontmatter
        tags = fm.get("tags") if isinstance(fm.get("tags"), list) else []
        out.append({"id": c.id, "type": str(fm.get("type") or ""), "title": str(fm.get("title") or ""),
                    "description": str(fm.get("description") or ""), "tags": [str(t) for t in tags], "body": c.body})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", nargs="?", default=str(HERE.parent / "examples" / "search-gold.json"))
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show-misses", action="store_true", help="print the questions a system does not answer first")
    ap.add_argument("--bundle", help="read the notes from this bundle directory (the gold file then holds only queries)")
    args = ap.parse_args()
    gold = json.loads(Path(args.gold).read_text(encoding="utf-8"))
    if args.bundle:
        gold = {**gold, "concepts": concepts_of(args.bundle)}
        known = {c["id"] for c in gold["concepts"]}
        stale = sorted({r for q in gold["queries"] for r in q["relevant"] if r not in known})
        if stale:
            print(f"eval_search: {args.bundle} has no concept {', '.join(stale)} (a question's answer)", file=sys.stderr)
            return 2
    res = evaluate(gold)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    cols = ("recall@1", "recall@5", "recall@10", "mrr", "ndcg@10")
    print(f"{len(gold['concepts'])} notes, {len(gold['queries'])} questions ({args.gold})")
    print(f"{'system':<12} {'category':<12} {'n':>3} " + " ".join(f"{c:>9}" for c in cols))
    for name, r in res.items():
        for cat, m in [("overall", r["overall"]), *r["by_category"].items()]:
            print(f"{name:<12} {cat:<12} {r['counts'][cat]:>3} " + " ".join(f"{m[c]:9.3f}" for c in cols))
    if args.show_misses:
        for name, r in res.items():
            for q in r["queries"]:
                if q["mrr"] < 1:
                    print(f"[{name}] mrr {q['mrr']:.2f}  {q['q']!r} -> {q['top3']} (want {q['relevant']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
