"""``okfpro eval``: measure retrieval quality on your own gold set.

Exit codes: 0 measured, 2 the gold file could not be read or is not in the documented
shape (:mod:`okfpro.core.evalmetrics`).
"""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.group("eval")
def eval_cmd() -> None:
    """Retrieval quality on a gold set, next to a plain BM25 computed in the same run."""


@eval_cmd.command("recall")
@click.argument("gold", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The report as JSON (with the per-query rankings).")
def recall_cmd(gold: Path, as_json: bool) -> None:
    """Memory recall on GOLD: recall@k, hit@k, MRR, nDCG@10 per category and overall, p50
    latency, and the same for a plain BM25 baseline (format: okfpro/core/evalmetrics.py,
    example: examples/recall-gold.json)."""
    from okfpro.core.evalmetrics import GoldError, parse_gold
    from okfpro.memory.evaluate import evaluate_recall, render

    try:
        data = json.loads(gold.read_bytes())
    except OSError as exc:
        click.echo(f"okfpro eval: cannot read {gold}: {exc.strerror or exc}", err=True)
        raise SystemExit(2)
    except ValueError as exc:
        click.echo(f"okfpro eval: {gold} is not JSON ({exc})", err=True)
        raise SystemExit(2)
    try:
        report = evaluate_recall(parse_gold(data))
    except GoldError as exc:
        click.echo(f"okfpro eval: {gold}: {exc}", err=True)
        raise SystemExit(2)
    click.echo(json.dumps(report, ensure_ascii=False) if as_json else render(report))
    raise SystemExit(0)
