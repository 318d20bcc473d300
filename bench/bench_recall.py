#!/usr/bin/env python3
"""Memory at scale (issues #13 and #18): recall, remember and import against the memory index.

    python bench/bench_recall.py [--runs N] [--entries 10000] [--others 1000] [--per-other 100]

Builds one workspace whose memory root holds (through ``MemoryStore.write_many``, the
import door, history on — one commit per scope):

* ``u10``: 10 entries; ``big``: ``--entries`` entries (20 per UTC day);
* ``--others`` other users with ``--per-other`` entries each;

then times fresh processes next to ``python3 -c pass``: ``memory recall`` in ``big``
(then again with the other users present: the figure must stay flat), ``memory remember``
with 10 and with ``--entries`` prior entries (within 20 %), and ``memory import`` of 5,000
JSON lines with history on (entries per second).  Targets: recall ≤ 3×, remember ≤ 4×,
import ≥ 2,000 entries/s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import baseline, measure, okfpro, report  # noqa: E402

from okfpro.core.scope import Scope  # noqa: E402
from okfpro.memory.store import MemoryStore  # noqa: E402

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


def fill(store: MemoryStore, scope: Scope, n: int, tag: str) -> None:
    rows = [(f"{tag} entry {i}: {WORDS[i % 13]} {WORDS[(i * 7) % 13]} note number {i}",
             START + dt.timedelta(days=i // 20, seconds=i % 20)) for i in range(n)]
    ids, _commit, error = store.write_many(scope, rows, "user", actor="bench", what=f"bench {n}")
    if error or len(ids) != n:
        raise SystemExit(f"fill failed: {error}")


def env_for(user: str) -> dict[str, str]:
    return {"OKFPRO_TENANT": "bench", "OKFPRO_USER": user, "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--others", type=int, default=1_000)
    ap.add_argument("--per-other", type=int, default=100)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="okfpro-bench-recall-"))
    try:
        ws = base / "ws"
        (ws / ".okf").mkdir(parents=True)
        (ws / "okfpro.toml").write_text("[memory]\n")
        store = MemoryStore(ws / ".okf-memory")
        t0 = time.perf_counter()
        fill(store, Scope(tenant="bench", user="u10"), 10, "u10")
        fill(store, Scope(tenant="bench", user="big"), args.entries, "big")
        print(f"built u10 + big ({args.entries:,} entries) in {time.perf_counter() - t0:.1f} s", flush=True)
        base_t = baseline()
        rows = []
        query = ("memory", "recall", "kilo", "note", "4242", "--limit", "10")
        rows.append(measure(okfpro(*query), runs=args.runs, cwd=str(ws), env=env_for("big"), expect=(0,),
                            label=f"recall: {args.entries:,} entries, no other user"))
        rows.append(measure(okfpro("memory", "recall", "lima", "juliet", "--limit", "10"), runs=args.runs, cwd=str(ws),
                            env=env_for("big"), expect=(0,), label=f"recall (2 common words): {args.entries:,} entries"))
        t0 = time.perf_counter()
        for k in range(args.others):
            fill(store, Scope(tenant="bench", user=f"other{k}"), args.per_other, f"other{k}")
        print(f"built {args.others:,} other users x {args.per_other} in {time.perf_counter() - t0:.1f} s", flush=True)
        rows.append(measure(okfpro(*query), runs=args.runs, cwd=str(ws), env=env_for("big"), expect=(0,),
                            label=f"recall: {args.entries:,} entries, {args.others:,} other users"))
        rows.append(measure(okfpro("memory", "remember", "benchmark note about lima"), runs=args.runs, cwd=str(ws),
                            env=env_for("u10"), expect=(0,), label="remember: 10 prior entries"))
        rows.append(measure(okfpro("memory", "remember", "benchmark note about lima"), runs=args.runs, cwd=str(ws),
                            env=env_for("big"), expect=(0,), label=f"remember: {args.entries:,} prior entries"))
        report("memory at scale (fresh process each run)", rows, base_t)

        src = base / "import.jsonl"
        with src.open("w") as f:
            for i in range(5_000):
                f.write(json.dumps({"text": f"imported memo {i}: {WORDS[i % 13]} {WORDS[(i * 5) % 13]} {i * 7}",
                                    "time": (START + dt.timedelta(minutes=i)).isoformat(), "id": f"i{i}"}) + "\n")
        import subprocess

        t0 = time.perf_counter()
        proc = subprocess.run(okfpro("memory", "import", str(src), "--json"), cwd=str(ws),
                              env={**os.environ, **env_for("importer")}, capture_output=True)
        took = time.perf_counter() - t0
        out = json.loads(proc.stdout or b"{}")
        print(f"\nimport 5,000 JSON lines, history on (one commit): {took:.2f} s -> {out.get('imported', 0) / took:,.0f} "
              f"entries/s (imported {out.get('imported')}, commits {len(out.get('commits', {}))})")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
