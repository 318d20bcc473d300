#!/usr/bin/env python3
"""Hook benchmarks: p50 per event on a generated bundle, next to ``python3 -c pass``.

    python bench/bench_hooks.py [--n 2000] [--runs 9]

Targets (issue 4): PreToolUse on a file outside any bundle <= 3x ``python3 -c pass``;
SessionStart <= 4x; post-edit on 2k concepts <= 15x.  Each event is timed twice:
``python -m okfpro hook EVENT`` (the process the launcher starts) and through the
installed launcher (``.claude/hooks/*.py``, which adds one more interpreter start).
Bytecode is compiled first (in place), as an installed package would have it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from gen_bundle import generate  # noqa: E402
from harness import PYTHON  # noqa: E402

TARGETS = {"pre-tool-use outside": 3.0, "session-start": 4.0, "post-edit": 15.0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # No PYTHONPYCACHEPREFIX: a private bytecode prefix makes every interpreter start
        # (python3 -c pass included) recompile site-packages' startup modules, which inflated
        # the baseline to ~4x its real cost and flattered every ratio.
        os.environ["OKFPRO_TODAY"] = "2026-11-30"
        os.environ["PYTHONPATH"] = str(REPO)
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(REPO / "okfpro"), str(REPO / "hooks")], check=True)
        ws = Path(tmp) / "bench ws"
        root = generate(ws, args.n)
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(ws), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"], check=True)
        hooks = ws / ".claude" / "hooks"
        hooks.mkdir(parents=True, exist_ok=True)
        for f in (REPO / "hooks").glob("*.py"):
            shutil.copy2(f, hooks / f.name)
        (hooks / "okfpro-python").write_text(PYTHON + "\n")
        outside = Path(tmp) / "elsewhere"
        outside.mkdir()
        concept = next(p for p in sorted(root.rglob("*.md")) if p.name not in ("index.md", "log.md", "board.md"))
        events = {
            "pre-tool-use outside": ("pre-tool-use", "pre_tool_use.py",
                                     {"cwd": str(outside), "tool_name": "Edit",
                                      "tool_input": {"file_path": str(outside / "notes.md"), "new_string": "x"}}),
            "pre-tool-use in bundle": ("pre-tool-use", "pre_tool_use.py",
                                       {"cwd": str(ws), "tool_name": "Edit",
                                        "tool_input": {"file_path": str(concept), "new_string": "x"}}),
            "pre-tool-use shell": ("pre-tool-use", "pre_tool_use.py",
                                   {"cwd": str(ws), "tool_name": "Bash", "tool_input": {"command": "grep -rn x .okf 2>/dev/null"}}),
            "session-start": ("session-start", "session_start.py", {"cwd": str(ws), "source": "startup"}),
            "post-edit": ("post-tool-use", "post_edit.py",
                          {"cwd": str(ws), "tool_name": "Edit", "tool_input": {"file_path": str(concept), "new_string": "x"}}),
            "stop (clean tree)": ("stop", "stop.py", {"cwd": str(ws), "stop_hook_active": False}),
        }
        cmds: dict[str, tuple[list[str], bytes, dict[str, str]]] = {"python3 -c pass": ([PYTHON, "-c", "pass"], b"", {})}
        for label, (event, launcher, payload) in events.items():
            data = json.dumps(payload).encode()
            cmds[f"{label}: python -m okfpro hook {event}"] = ([PYTHON, "-m", "okfpro", "hook", event], data, {})
            cmds[f"{label}: launcher {launcher}"] = ([str(hooks / launcher)], data, {})
        cmds["post-edit: python -m okfpro hook post-tool-use (no parse cache)"] = (
            [PYTHON, "-m", "okfpro", "hook", "post-tool-use"], json.dumps(events["post-edit"][2]).encode(),
            {"OKFPRO_NO_CACHE": "1"})
        wall, cpu = interleaved(cmds, args.runs, cwd=str(ws))
        base_w, base_c = wall["python3 -c pass"], cpu["python3 -c pass"]
        print(f"\n== hooks ({args.n} concepts), {args.runs} interleaved runs, load average {os.getloadavg()[0]:.1f} ==")
        print(f"{'':<66} {'wall p50':>10} {'ratio':>6}   {'cpu p50':>9} {'ratio':>6}")
        for label in cmds:
            print(f"{label:<66} {wall[label] * 1000:8.1f}ms {wall[label] / base_w:5.1f}x   "
                  f"{cpu[label] * 1000:7.1f}ms {cpu[label] / base_c:5.1f}x")
        print("\ntargets, wall-clock ratio (direct / through the launcher):")
        for label, target in TARGETS.items():
            direct = [k for k in cmds if k.startswith(f"{label}: python")][0]
            via = [k for k in cmds if k.startswith(f"{label}: launcher")][0]
            d, v = wall[direct] / base_w, wall[via] / base_w
            print(f"  {label:<22} {d:5.1f}x / {v:5.1f}x   target <= {target:g}x   "
                  f"{'met' if d <= target else 'MISSED'} direct, {'met' if v <= target else 'MISSED'} via launcher")


def interleaved(cmds, runs: int, cwd: str):
    """p50 wall time and p50 CPU time (user+sys of the child) per command, sampled round-robin
    so that a change in machine load hits every command alike."""
    import resource
    import statistics
    import time

    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(runs + 1):
        for label, (argv, data, extra) in cmds.items():
            env = {**os.environ, **extra}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(argv, input=data, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode not in (0, 2):
                raise RuntimeError(f"{label} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-400:]}")
            if i:  # the first round warms caches
                walls[label].append(elapsed)
                cpus[label].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return ({k: statistics.median(v) for k, v in walls.items()}, {k: statistics.median(v) for k, v in cpus.items()})


if __name__ == "__main__":
    main()
