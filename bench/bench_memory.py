"""Scoped memory: ``okfpro memory remember`` / ``recall`` as fresh processes.

    python bench/bench_memory.py [--runs N] [--keep DIR]

Builds a workspace whose memory root holds:

* scopes with 10, 1,000 and 10,000 prior commits (one entry each, spread 20 per
  UTC day, written through the library — the same code path as the CLI);
* 1,000 other scopes with one commit each;

plus a second, fresh workspace holding one scope with 10 prior commits and nothing
else.  Then times ``okfpro memory remember`` in each scope (a commit per run: the
figures must stay flat as history and other scopes grow) and ``okfpro memory
recall`` in the 10,000-entry scope, next to ``python3 -c pass``.
"""

from __future__ import annotations

import argparse
import datetime as dt
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


def populate(store: MemoryStore, scope: Scope, n: int, tag: str) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        when = START + dt.timedelta(days=i // 20, seconds=i % 20)
        text = f"{tag} entry {i}: {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} note number {i}"
        res = store.write(scope, text, "user", now=when, actor="bench")
        if not res.written or res.error:
            raise SystemExit(f"populate failed: {res}")
    return time.perf_counter() - t0


def workspace(base: Path, name: str) -> Path:
    ws = base / name
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    return ws


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--keep", type=Path, default=None, help="build under DIR and keep it")
    args = ap.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="okfpro-bench-memory-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        fresh = workspace(base, "fresh")
        busy = workspace(base, "busy")
        fresh_store = MemoryStore(fresh / ".okf-memory")
        busy_store = MemoryStore(busy / ".okf-memory")

        print("building …", flush=True)
        # Population only: skip fsync of Git objects (the timed CLI runs below keep it).
        import pygit2

        from okfpro.memory import history as history_mod

        history_mod._fsync_enabled = True
        pygit2.settings.enable_fsync_gitdir(False)
        sizes = (10, 1_000, 10_000)
        secs = populate(fresh_store, Scope(tenant="bench", user="u10"), 10, "fresh")
        build: dict[str, float] = {}
        for n in sizes:
            build[f"u{n}"] = populate(busy_store, Scope(tenant="bench", user=f"u{n}"), n, f"u{n}")
        t0 = time.perf_counter()
        for k in range(1_000):
            populate(busy_store, Scope(tenant=f"other{k % 50}", user=f"user{k}"), 1, "other")
        build["1000 other scopes"] = time.perf_counter() - t0
        pygit2.settings.enable_fsync_gitdir(True)  # back to what okfpro does
        writes = 10 + sum(sizes) + 1_000
        total = secs + sum(build.values())
        print(f"built {writes} commits via the library in {total:.1f} s "
              f"({total / writes * 1000:.2f} ms per write+commit, in-process, no Git fsync)")
        for label, s in build.items():
            print(f"  {label}: {s:.1f} s")

        base_t = baseline()
        timings = []

        def env_for(user: str) -> dict[str, str]:
            return {"OKFPRO_TENANT": "bench", "OKFPRO_USER": user, "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}

        timings.append(measure(okfpro("memory", "remember", "benchmark note fresh"), runs=args.runs, cwd=str(fresh),
                               env=env_for("u10"), expect=(0,),
                               label="remember: 10 prior commits, no other scope"))
        for n in sizes:
            timings.append(measure(okfpro("memory", "remember", f"benchmark note u{n}"), runs=args.runs, cwd=str(busy),
                                   env=env_for(f"u{n}"), expect=(0,),
                                   label=f"remember: {n:,} prior commits, 1,000 other scopes"))
        timings.append(measure(okfpro("memory", "recall", "kilo note 4242"), runs=args.runs, cwd=str(busy),
                               env=env_for("u10000"), expect=(0,),
                               label="recall: scope with 10,000 entries (500 day files)"))
        timings.append(measure(okfpro("memory", "recall", "kilo note 4242", "--limit", "5"), runs=args.runs,
                               cwd=str(busy), env=env_for("u10000"), expect=(0,),
                               label="recall --limit 5: scope with 10,000 entries"))
        timings.append(measure(okfpro("memory", "list", "--json"), runs=args.runs, cwd=str(busy),
                               env=env_for("u10000"), expect=(0,),
                               label="list --json: scope with 10,000 entries"))
        timings.append(measure(okfpro("memory", "log", "--limit", "20"), runs=args.runs, cwd=str(busy),
                               env=env_for("u10000"), expect=(0,),
                               label="log --limit 20: scope with 10,000 commits"))
        report("okfpro memory (fresh process each run)", timings, base_t)

        print("\n== in-process (library) write + commit, 50 writes each, p50 ==")
        for label, st, user in (("10 prior commits, no other scope", fresh_store, "u10"),
                                ("10 prior commits, 1,000 other scopes", busy_store, "u10"),
                                ("1,000 prior commits, 1,000 other scopes", busy_store, "u1000"),
                                ("10,000 prior commits, 1,000 other scopes", busy_store, "u10000")):
            scope = Scope(tenant="bench", user=user)
            samples = []
            for i in range(50):
                t0 = time.perf_counter()
                res = st.write(scope, f"{user} in-process {i}", "user", actor="bench")
                samples.append(time.perf_counter() - t0)
                assert res.written and not res.error, res
            samples.sort()
            print(f"  {label:<44} {samples[len(samples) // 2] * 1000:7.2f} ms")

        print("\n== hard erasure (library, one run each) ==")
        for user in ("u1000", "u10"):
            scope = Scope(tenant="bench", user=user)
            t0 = time.perf_counter()
            res = busy_store.delete_scope(scope, "user", purge=True)
            took = time.perf_counter() - t0
            print(f"  purge {user} (repository of ~{writes} commits): {took:.2f} s, verified={res.verified}, "
                  f"error={res.error}")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    os.environ.pop("OKFPRO_TODAY", None)
    main()
