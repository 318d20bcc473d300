"""``okfpro eval``: measure retrieval quality on your own gold set.

Exit codes: 0 measured, 2 the gold file could not be read or is not in the documented
shape (:mod:`okfpro.core.evalmetrics`).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from okfpro.cli.common import emit, fail


@click.group("eval")
def eval_cmd() -> None:
    """Retrieval quality on a gold set, next to a plain BM25 computed in the same run."""


@eval_cmd.command("recall")
@click.argument("gold", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The report as JSON (with the per-query rankings).")
def recall_cmd(gold: Path, as_json: bool) -> int:
    """Memory recall on GOLD: recall@k, hit@k, MRR, nDCG@10 per category and overall, p50
    latency, and the same for okfpro's previous ranking and a plain BM25 baseline, side by side
    (format: okfpro/core/evalmetrics.py,
    example: examples/recall-gold.json)."""
    from okfpro.core.evalmetrics import GoldError
    from okfpro.memory.evaluate import evaluate_gold, render

    try:
        data = json.loads(gold.read_bytes())
    except OSError as exc:
        fail(f"cannot read {gold}: {exc.strerror or exc}")
    except ValueError as exc:
        fail(f"{gold} is not JSON ({exc})")
    try:
        report = evaluate_gold(data)
    except GoldError as exc:
        fail(f"{gold}: {exc}")
    return emit(report, as_json, False, lambda: click.echo(render(report)))
