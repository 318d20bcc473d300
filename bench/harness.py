"""Timing whole commands the way a user (or an agent host) runs them.

Every figure is the median (p50) wall time of fresh processes, printed next to
``python3 -c pass`` measured in the same run, so numbers from different machines
compare as ratios.  Used by every ``bench/bench_*.py`` script.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

PYTHON = sys.executable


@dataclass
class Timing:
    label: str
    p50: float
    runs: int

    def row(self, baseline: float) -> str:
        ratio = self.p50 / baseline if baseline > 0 else float("nan")
        return f"{self.label:<58} p50 {self.p50 * 1000:8.1f} ms   {ratio:6.1f} x python3 -c pass"


def measure(cmd: list[str], *, runs: int = 7, stdin: bytes | None = None, env: dict[str, str] | None = None,
            cwd: str | None = None, label: str | None = None, warmup: int = 1, expect: tuple[int, ...] | None = None) -> Timing:
    """Run ``cmd`` ``warmup + runs`` times; return the p50 of the timed runs."""
    full_env = {**os.environ, **(env or {})}
    samples: list[float] = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, input=stdin, env=full_env, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if expect is not None and proc.returncode not in expect:
            raise RuntimeError(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-500:]}")
        if i >= warmup:
            samples.append(elapsed)
    return Timing(label or " ".join(cmd), statistics.median(samples), runs)


def baseline(runs: int = 15) -> Timing:
    return measure([PYTHON, "-c", "pass"], runs=runs, label="python3 -c pass")


def report(title: str, timings: list[Timing], base: Timing) -> None:
    print(f"\n== {title} ==")
    print(base.row(base.p50))
    for t in timings:
        print(t.row(base.p50))
    sys.stdout.flush()


def okfpro(*args: str) -> list[str]:
    return [PYTHON, "-m", "okfpro", *args]
