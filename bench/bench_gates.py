#!/usr/bin/env python3
"""The gates in fresh processes, this checkout beside another one, interleaved in the same run.

    python bench/bench_gates.py --against DIR [--n 10000] [--runs 9]

Every command runs as ``python -m okfpro ...`` with ``PYTHONPATH`` at one source tree (this checkout,
or ``--against DIR``: another checkout of okfpro, e.g. ``git worktree add /tmp/main main``), both the
same way, so the ratio between the two rows of a gate is what the code between them changed.  Each
row's ratio to ``python3 -c pass`` is taken in the same minutes (paired).  The gates: PreToolUse
(an Edit in the bundle and a shell write into it), the Stop gate on a clean and on a dirty tree,
``audit``, ``validate``; beside them ``memory remember`` and ``memory recall``.  Issue 36 made
every gate answer from the files (no parse cache, no pattern recipes): this bench says what that costs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from gen_bundle import generate  # noqa: E402
from harness import Run, interleaved  # noqa: E402

TODAY = "2026-11-30"


def workspace(base: Path, n: int) -> tuple[Path, Path]:
    """An ``n``-concept bundle in a committed git workspace, memory on, one entry stored."""
    ws = base / "ws"
    root = generate(ws, n)
    (ws / "okfpro.toml").write_text("[memory]\n")
    git = ["git", "-C", str(ws), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "b"], check=True)
    return ws, root


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=True, help="another okfpro source tree, timed beside this one")
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    trees = {"this": str(REPO), "other": os.path.abspath(args.against)}
    with tempfile.TemporaryDirectory() as tmp:
        ws, root = workspace(Path(tmp), args.n)
        concept = next(p for p in sorted(root.rglob("*.md")) if p.name not in ("index.md", "log.md", "board.md"))
        dirty = Path(tmp) / "dirty"
        subprocess.run(["git", "clone", "-q", str(ws), str(dirty)], check=True)
        (dirty / "okfpro.toml").write_text("[memory]\n")
        with open(dirty / concept.relative_to(ws), "a", encoding="utf-8") as fh:
            fh.write("\nAn edit left uncommitted.\n")

        def event(where: Path, **more: object) -> bytes:
            return json.dumps({"session_id": "s1", "cwd": str(where), **more}).encode()

        gates = [
            ("pre-tool-use: an Edit in the bundle", ["hook", "pre-tool-use"], ws, event(
                ws, hook_event_name="PreToolUse", tool_name="Edit",
                tool_input={"file_path": str(concept), "old_string": "a", "new_string": "b"})),
            ("pre-tool-use: a shell write into the bundle", ["hook", "pre-tool-use"], ws, event(
                ws, hook_event_name="PreToolUse", tool_name="Bash", tool_input={"command": "rm -rf .okf/learnings"})),
            ("stop: a clean tree", ["hook", "stop"], ws, event(ws, hook_event_name="Stop", stop_hook_active=False)),
            ("stop: a dirty tree", ["hook", "stop"], dirty, event(dirty, hook_event_name="Stop", stop_hook_active=False)),
            ("audit", ["audit", str(ws)], ws, b""),
            ("validate", ["validate", str(root)], ws, b""),
            ("memory remember", ["memory", "remember", "the build runs on ci-3"], ws, b""),
            ("memory recall", ["memory", "recall", "build"], ws, b""),
        ]
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
        base_env.update(OKFPRO_TODAY=TODAY, OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_RESIDENT="0",
                        XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        cases = []
        for label, argv, where, data in gates:
            for name, tree in trees.items():
                cases.append(Run([sys.executable, "-m", "okfpro", *argv], stdin=data, cwd=str(where),
                                 env={**base_env, "PYTHONPATH": tree}, label=f"{label} [{name}]", expect=(0, 1, 2)))
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        got = interleaved(cases, runs=args.runs, paired=True)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"\n== {args.n} concepts, {args.runs} interleaved runs; this = {trees['this']}, other = {trees['other']} ==")
        print(f"{'':<52} {'wall p50':>10} {'/pass':>6} {'cpu p50':>9} {'/pass':>6}")
        for t in got:
            assert t.base is not None
            cpu, base_cpu = t.cpu or 0.0, t.base.cpu or 1e-9
            print(f"{t.label:<52} {t.p50 * 1000:8.1f}ms {t.p50 / t.base.p50:5.2f}x {cpu * 1000:7.1f}ms "
                  f"{cpu / base_cpu:5.2f}x")
        for k in range(0, len(got), 2):
            this, other = got[k], got[k + 1]
            print(f"{this.label.rsplit(' [', 1)[0]:<52} this/other: wall {this.p50 / other.p50:5.2f}x, "
                  f"cpu {(this.cpu or 0.0) / (other.cpu or 1e-9):5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
