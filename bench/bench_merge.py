#!/usr/bin/env python3
"""Merge driver benchmark: ``okfpro merge-file`` on a 1,000-line board and log, next to ``python3 -c pass``.

    python bench/bench_merge.py [--lines 1000] [--runs 15]

Git starts the driver once per file both sides changed, so its cost is one interpreter start plus
the merge.  Each side adds a few lines (captures; a log entry and a Snapshot line under today) to
a base of LINES lines; OURS is restored before every timed run (outside the timing).  Also printed:
the in-process CPU time of the pure merge (okfpro.core.filemerge.merge), the figure to trust on a
loaded machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
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
from harness import PYTHON, Run, baseline, interleaved  # noqa: E402
from okfpro.core import board_edit as be  # noqa: E402
from okfpro.core import filemerge  # noqa: E402
TEMPLATE = REPO / "template" / "seed" / ".okf"


def board_of(lines: int) -> str:
    text = (TEMPLATE / "board.md").read_text(encoding="utf-8")
    per = lines // 3
    backlog = "".join(f"- backlog item {i} [/projects/p{i % 40}/](/projects/p{i % 40}/index.md)\n" for i in range(per))
    inbox = "".join(f"- 2026-{1 + i % 11:02d}-{1 + i % 28:02d} — captured thing {i}\n" for i in range(per))
    deadlines = "".join(f"- 2027-{1 + i % 12:02d}-{1 + i % 28:02d} — due {i}\n" for i in range(lines - 2 * per))
    return (text.replace("## Backlog\n", "## Backlog\n" + backlog).replace("## Inbox\n", "## Inbox\n" + inbox)
            .replace("## Deadlines\n", "## Deadlines\n" + deadlines))


def log_of(lines: int) -> str:
    text = (TEMPLATE / "log.md").read_text(encoding="utf-8") + "\n"
    day = dt.date(2026, 11, 30)
    while text.count("\n") < lines:
        text += f"## {day.isoformat()}\n\n" + "".join(f"* entry {day} {k}\n" for k in range(6)) + "\n"
        day -= dt.timedelta(days=1)
    return text


def sides(kind: str, lines: int) -> tuple[str, str, str]:
    today = dt.date(2026, 12, 1)
    if kind == "board":
        base = board_of(lines)
        a = be.capture(be.capture(base, today, "mine one").after, today, "mine two").after
        b = be.capture(base, today, "theirs").after
        return base, a, b
    base = log_of(lines)
    a = be.log_entry(be.log_entry(base, today, "* mine").after, today, "* **Snapshot**: inbox 1").after
    b = be.log_entry(be.log_entry(base, today, "* theirs").after, today, "* **Snapshot**: inbox 2").after
    return base, a, b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(REPO / "okfpro")], check=True)
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(REPO) + (os.pathsep + env_path if env_path else "")
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    base = baseline(args.runs)
    print(f"{'python3 -c pass':<44} p50 {base.p50 * 1000:7.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        for kind, path in (("board", ".okf/board.md"), ("log", ".okf/log.md")):
            o, a, b = sides(kind, args.lines)
            for name, text in (("o", o), ("b", b)):
                Path(tmp, name).write_text(text, encoding="utf-8")

            def restore(a=a) -> None:
                Path(tmp, "a").write_text(a, encoding="utf-8")

            restore()
            check = subprocess.run([PYTHON, "-m", "okfpro", "merge-file", "o", "a", "b", path], cwd=tmp)
            assert check.returncode == 0
            timing, = interleaved([Run([PYTHON, "-m", "okfpro", "merge-file", "--marker-size", "7", "o", "a", "b", path],
                                  cwd=tmp, before=restore, expect=(0,))], runs=args.runs, paired=True)
            cpu = []
            for _ in range(args.runs):
                t = time.process_time()
                result = filemerge.merge(o, a, b, path)
                cpu.append(time.process_time() - t)
            assert isinstance(result, filemerge.Result) and result.conflicts == 0
            assert timing.base is not None  # paired
            print(f"{'merge-file ' + kind + f' ({o.count(chr(10))} lines)':<44} p50 {timing.p50 * 1000:7.1f} ms"
                  f"   {timing.ratio(base.p50):5.1f} x python3 -c pass ({timing.base.p50 * 1000:.1f} ms)"
                  f"   in-process merge {statistics.median(cpu) * 1000:6.2f} ms CPU")


if __name__ == "__main__":
    main()
