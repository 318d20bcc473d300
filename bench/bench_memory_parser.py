"""What click costs the memory verbs (issue 36 item 4: one option parser).

``okfpro memory remember TEXT`` is parsed without click (``okfpro/cli/memverbs.direct``);
``remember -- TEXT`` (the README's form) and ``memory sync`` go through click.  This times, in
fresh processes interleaved with ``python3 -c pass`` (paired): ``import click`` alone, and the
two spellings of one ``remember`` (a duplicate after the first run: the same work each time),
so the click door's extra is measured on the real path.  Figures: .okf/design/lean-memory-verbs.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.harness import PYTHON, Run, install_arg, installed, interleaved, okfpro  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    install_arg(ap)
    args = ap.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    base = Path(tempfile.mkdtemp(prefix="okfpro-bench-parser-"))
    try:
        python = PYTHON if args.editable else installed(str(base))
        ws = base / "ws"
        (ws / ".okf").mkdir(parents=True)
        (ws / "okfpro.toml").write_text("[memory]\n")
        env = {"OKFPRO_TENANT": "bench", "OKFPRO_USER": "u", "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}
        text = "benchmark note about the parser"
        rows = interleaved([
            Run([python, "-c", "import click"], label="python -c 'import click'"),
            Run(okfpro("memory", "remember", text), cwd=str(ws), env=env, expect=(0,),
                label="memory remember TEXT (click-free door)"),
            Run(okfpro("memory", "remember", "--", text), cwd=str(ws), env=env, expect=(0,),
                label="memory remember -- TEXT (click)"),
        ], runs=args.runs, paired=True)
        for t in rows:
            assert t.base is not None
            print(f"{t.label:<42} p50 {t.p50 * 1000:7.1f} ms wall, {(t.cpu or 0) * 1000:6.1f} ms CPU  "
                  f"(paired python3 -c pass {t.base.p50 * 1000:.1f} ms wall, {(t.base.cpu or 0) * 1000:.1f} ms CPU)")
        free, clicked = rows[1], rows[2]
        print(f"click door - click-free door: {(clicked.p50 - free.p50) * 1000:+.1f} ms wall, "
              f"{((clicked.cpu or 0) - (free.cpu or 0)) * 1000:+.1f} ms CPU")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
