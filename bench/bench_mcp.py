#!/usr/bin/env python3
"""`okfpro mcp`: warm tool calls against a long-running MCP server vs the CLI's cold process, same bundle.

    python bench/bench_mcp.py [--sizes 1000,10000,50000] [--work DIR] [--calls N] [--cli-runs N] [--check]

For each size (a bundle from ``bench/gen_bundle.py``, seed 7, in a git workspace):

* **server start**: spawn ``okfpro mcp`` through the official SDK client (stdio); time to the
  first ``state`` answer (the bundle is not read for it: start does not grow with the bundle),
  then to the first ``search`` answer (the bundle read through the parse cache, the word index
  built or loaded from its store).  Two servers in a row: the second is a restart, which finds
  the stored index of the first;
* **warm tool calls**, N each after one warm-up, p50 and p99 as the client sees them (the
  whole JSON-RPC round trip): ``search`` (scan, one term), ``search`` (scan, two terms),
  ``search`` ranked, ``state``, ``memory_recall`` (over 200 memories remembered first);
* **in-process** (library calls in this process, CPU time — what the machine's load does not
  inflate): bundle read, word index build and store load, warm scan and ranked p50;
* **the CLI, cold process** on the same bundle: ``okfpro search``, ``okfpro state``,
  ``okfpro memory recall`` (parse cache warm, as a user's second run), p50;
* ``python3 -c pass`` and the load average (``/proc/loadavg``) in the same run.

Goal (issue 14): warm search on 50k concepts <= 50 ms p50.  ``--check`` exits 1 when a target
is missed at the largest size measured: warm scan search p50 <= 50 ms through MCP, and server
start to first answer not growing with the bundle (largest <= 2x smallest, + 0.5 s).
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


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


CASES = {
    "search scan": ("search", {"terms": [TERM], "limit": 20}),
    "search scan 2 terms": ("search", {"terms": [TERM, "latency"], "limit": 20}),
    "search ranked": ("search", {"terms": [TERM, "latency"], "engine": "ranked", "limit": 20}),
    "search ranked rare": ("search", {"terms": ["ledger", "4711"], "engine": "ranked", "limit": 20}),
    "state": ("state", {}),
    "memory_recall": ("memory_recall", {"query": f"{TERM} rotates", "limit": 20}),
}


async def server_run(ws: Path, calls: int, warm_calls: bool = True) -> dict[str, object]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, **ENV}
    params = StdioServerParameters(command=PYTHON, args=["-m", "okfpro", "mcp", "--bundle", str(ws / ".okf")], env=env)
    out: dict[str, object] = {}
    t0 = time.perf_counter()
    async with Client(params, cache=None, read_timeout_seconds=900) as c:
        r = await c.call_tool("state", {})
        assert not r.is_error, r.content
        out["start_to_state"] = time.perf_counter() - t0
        r = await c.call_tool("search", {"terms": [TERM], "limit": 20})
        assert not r.is_error, r.content
        out["start_to_search"] = time.perf_counter() - t0
        if not warm_calls:
            return out
        for i in range(200):
            await c.call_tool("memory_remember", {"text": f"bench memory {i}: the {TERM} {i % 17} rotates weekly"})
        for label, (name, args) in CASES.items():
            await c.call_tool(name, args)  # warm-up (first ranked call builds / syncs the FTS index)
            samples = []
            for _ in range(calls):
                t = time.perf_counter()
                r = await c.call_tool(name, args)
                samples.append(time.perf_counter() - t)
                assert not r.is_error, r.content
            out[label] = (statistics.median(samples), pct(samples, 0.99))
    return out


def in_process(ws: Path, calls: int) -> dict[str, float]:
    """CPU seconds of the library calls behind the tools, in this process."""
    from okfpro.core import search
    from okfpro.io import cache, fts
    from okfpro.io.bundle import load

    root = ws / ".okf"
    out: dict[str, float] = {}
    c = time.process_time()
    bundle = load(root)
    out["bundle read (parse cache warm)"] = time.process_time() - c
    c = time.process_time()
    search.word_index(bundle)
    out["word index build"] = time.process_time() - c
    again = load(root)
    c = time.process_time()
    cache.attach_scan(root, again, persist_at=0)
    out["word index from its store"] = time.process_time() - c
    for label, (_, args) in CASES.items():
        if not label.startswith("search"):
            continue
        if args.get("engine") == "ranked":
            def call() -> object:
                return fts.rank_bundle(root, bundle, args["terms"], 21)
        else:
            def call() -> object:
                return search.scan(bundle, args["terms"], limit=21)
        call()
        samples = []
        for _ in range(calls):
            c = time.process_time()
            call()
            samples.append(time.process_time() - c)
        out[f"warm {label}"] = statistics.median(samples)
    return out


def main() -> int:
    import anyio

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--cli-runs", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="okfpro-bench-mcp-"))
    base = baseline()
    print(f"python3 -c pass: p50 {base.p50 * 1000:.1f} ms   load average {loadavg()}")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    results: dict[int, dict[str, object]] = {}
    for n in sizes:
        ws = generate(work, n)
        okf = str(ws / ".okf")
        res = anyio.run(server_run, ws, args.calls)
        restart = anyio.run(server_run, ws, args.calls, False)
        res["restart_to_state"], res["restart_to_search"] = restart["start_to_state"], restart["start_to_search"]
        res["load"] = loadavg()
        inproc = in_process(ws, args.calls)
        results[n] = res
        cli = {
            "search scan": measure(okfpro("search", TERM, "--bundle", okf, "--limit", "20", "--json"), runs=args.cli_runs,
                                   env=ENV, label="cli search", expect=(0,)),
            "state": measure(okfpro("state", okf, "--json"), runs=args.cli_runs, env=ENV, label="cli state", expect=(0,)),
            "memory_recall": measure(okfpro("memory", "--workspace", str(ws), "recall", TERM, "rotates", "--json"),
                                     runs=args.cli_runs, env=ENV, label="cli recall", expect=(0,)),
        }
        print(f"\n== {n} concepts ({ws}); load average {res['load']} ==")
        for key, label in (("start_to_state", "server start -> first state answer"),
                           ("start_to_search", "server start -> first search answer"),
                           ("restart_to_state", "restart -> first state answer"),
                           ("restart_to_search", "restart -> first search answer (stored index)")):
            print(f"{label:<48} {res[key] * 1000:9.1f} ms")
        print(f"{'warm tool call (MCP client)':<28} {'p50 ms':>9} {'p99 ms':>9}   {'CLI cold p50 ms':>16}  {'x pass':>7}")
        for label in CASES:
            p50, p99 = res[label]
            c = cli.get(label)
            cold = f"{c.p50 * 1000:16.1f}  {c.ratio(base.p50):7.1f}" if c else f"{'-':>16}  {'-':>7}"
            print(f"{label:<28} {p50 * 1000:9.2f} {p99 * 1000:9.2f}   {cold}")
        print("in-process CPU:")
        for label, sec in inproc.items():
            print(f"  {label:<40} {sec * 1000:9.2f} ms")
        sys.stdout.flush()
    if not args.check:
        return 0
    big, small = max(sizes), min(sizes)
    missed = []
    scan50 = results[big]["search scan"][0]
    if scan50 > 0.050:
        missed.append(f"warm search (scan) p50 at {big}: {scan50 * 1000:.1f} ms > 50 ms")
    start_big, start_small = results[big]["start_to_state"], results[small]["start_to_state"]
    if start_big > 2 * start_small + 0.5:
        missed.append(f"server start to first answer grows with the bundle: {start_small:.2f} s at {small}, "
                      f"{start_big:.2f} s at {big}")
    for line in missed:
        print(f"MISSED: {line}")
    print("check:", "missed" if missed else "all targets met", f"(load average {loadavg()})")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
