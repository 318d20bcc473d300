#!/usr/bin/env python3
"""`okfpro mcp`: warm tool calls against a resident server vs the CLI's cold process, same bundle.

    python bench/bench_mcp.py [--sizes 10000,50000] [--work DIR] [--calls N] [--cli-runs N]

For each size (a bundle from ``bench/gen_bundle.py``, seed 7, in a git workspace):

* **server start to first answer**: spawn ``okfpro mcp`` through the official SDK client
  (stdio), time to the first ``state`` answer (the bundle is not parsed for it), then to
  the first ``search`` answer (the first parse, through the parse cache);
* **warm tool calls**, N each after one warm-up, p50 and p99 as the client sees them (the
  whole JSON-RPC round trip): ``search`` (scan, one term), ``search`` ranked, ``state``,
  ``memory_recall`` (over 200 memories remembered through the server first);
* **the CLI, cold process** on the same bundle: ``okfpro search``, ``okfpro state``,
  ``okfpro memory recall`` (parse cache warm, as a user's second run), p50;
* ``python3 -c pass`` in the same run, so figures from other machines compare as ratios.

Goal (issue 14): warm search on 50k concepts <= 50 ms p50.
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

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from harness import PYTHON, baseline, measure, okfpro  # noqa: E402

ENV = {"OKFPRO_USER": "bench", "OKFPRO_TODAY": "2026-11-30", "PYTHONPATH": str(REPO)}
TERM = "ledger"


def generate(work: Path, n: int) -> Path:
    out = work / f"ws-{n}"
    if not (out / ".okf" / "index.md").is_file():
        subprocess.run([PYTHON, str(HERE / "gen_bundle.py"), str(out), str(n), "--seed", "7", "--git"], check=True,
                       stdout=subprocess.DEVNULL)
    return out


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


async def server_run(ws: Path, calls: int) -> dict[str, object]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, **ENV}
    params = StdioServerParameters(command=PYTHON, args=["-m", "okfpro", "mcp", "--bundle", str(ws / ".okf")], env=env)
    out: dict[str, object] = {}
    t0 = time.perf_counter()
    async with Client(params, cache=None, read_timeout_seconds=600) as c:
        r = await c.call_tool("state", {})
        assert not r.is_error, r.content
        out["start_to_state"] = time.perf_counter() - t0
        r = await c.call_tool("search", {"terms": [TERM], "limit": 20})
        assert not r.is_error, r.content
        out["start_to_search"] = time.perf_counter() - t0
        for i in range(200):
            await c.call_tool("memory_remember", {"text": f"bench memory {i}: the {TERM} {i % 17} rotates weekly"})
        cases = {
            "search scan": ("search", {"terms": [TERM], "limit": 20}),
            "search ranked": ("search", {"terms": [TERM, "latency"], "engine": "ranked", "limit": 20}),
            "state": ("state", {}),
            "memory_recall": ("memory_recall", {"query": f"{TERM} rotates", "limit": 20}),
        }
        for label, (name, args) in cases.items():
            await c.call_tool(name, args)  # warm-up (first ranked call builds / syncs the FTS index)
            samples = []
            for _ in range(calls):
                t = time.perf_counter()
                r = await c.call_tool(name, args)
                samples.append(time.perf_counter() - t)
                assert not r.is_error, r.content
            out[label] = (statistics.median(samples), pct(samples, 0.99))
    return out


def main() -> None:
    import anyio

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--cli-runs", type=int, default=5)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="okfpro-bench-mcp-"))
    base = baseline()
    print(f"python3 -c pass: p50 {base.p50 * 1000:.1f} ms")
    for n in [int(s) for s in args.sizes.split(",") if s]:
        ws = generate(work, n)
        okf = str(ws / ".okf")
        res = anyio.run(server_run, ws, args.calls)
        cli = {
            "search": measure(okfpro("search", TERM, "--bundle", okf, "--limit", "20", "--json"), runs=args.cli_runs,
                              env=ENV, label="cli search", expect=(0,)),
            "state": measure(okfpro("state", okf, "--json"), runs=args.cli_runs, env=ENV, label="cli state", expect=(0,)),
            "recall": measure(okfpro("memory", "--workspace", str(ws), "recall", TERM, "rotates", "--json"),
                              runs=args.cli_runs, env=ENV, label="cli recall", expect=(0,)),
        }
        print(f"\n== {n} concepts ({ws}) ==")
        print(f"server start -> first state answer   {res['start_to_state'] * 1000:9.1f} ms")
        print(f"server start -> first search answer  {res['start_to_search'] * 1000:9.1f} ms")
        print(f"{'warm tool call':<22} {'p50 ms':>9} {'p99 ms':>9}   {'CLI cold p50 ms':>16}  {'x pass':>7}")
        pairs = (("search scan", "search"), ("search ranked", None), ("state", "state"), ("memory_recall", "recall"))
        for label, cli_key in pairs:
            p50, p99 = res[label]
            c = cli.get(cli_key) if cli_key else None
            cold = f"{c.p50 * 1000:16.1f}  {c.p50 / base.p50:7.1f}" if c else f"{'-':>16}  {'-':>7}"
            print(f"{label:<22} {p50 * 1000:9.2f} {p99 * 1000:9.2f}   {cold}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
