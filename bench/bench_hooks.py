#!/usr/bin/env python3
"""Hook benchmarks: p50 per event on generated bundles of several sizes, next to ``python3 -c pass``.

    python bench/bench_hooks.py [--sizes 1000,10000,50000] [--runs 9] [--check] [--editable]

Each event is timed at the hook door (``python -m okfpro hook EVENT``) and through the installed
launcher (``.claude/hooks/*.py`` with a one-process pin, as ``okfpro init`` writes it), sampled
round-robin so a change in machine load hits every command alike.  "post-edit new concept" writes a
fresh concept before every run (a Write, so reconciliation runs too) and removes it after.  The
in-process CPU time of that post-edit (median of ``--runs``) is printed per size: it is what a loaded
machine distorts least.  The incremental state is warmed once per bundle before timing.  The hooks (and
``python3 -c pass``) run in a throwaway venv holding a non-editable install of this tree, as users
install it (the launchers then load the install's compiled ``_launch``); ``--editable`` times the
running interpreter's own install instead.

Targets (issue 17; ratios are to the same run's ``python3 -c pass``):
  * post-edit new concept: 10,000 concepts <= 2x its cost at 1,000; 50,000 <= 3x;
  * every hook through the launcher <= 1.3x the same hook at the door;
  * PreToolUse through the launcher <= 3x ``python3 -c pass``;
  * SessionStart and Stop flat: the largest bundle <= 1.5x the smallest (the clean Stop, and the
    Stop on a dirty tree: one concept edited and left uncommitted, today's Snapshot line right;
    "again" is the second Stop with nothing changed in between, its first untimed).
``--check`` exits 1 when one is missed (run it on a quiet machine: the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from gen_bundle import generate  # noqa: E402
import harness  # noqa: E402
from harness import install_arg, installed  # noqa: E402

TODAY = "2026-11-30"
NEW = "learnings/g00/ledger-cache-warming-{n}.md"
NEW_TEXT = ("---\ntype: Learning\ntitle: Ledger cache warming\ndescription: Warm the ledger cache before the close.\n"
            "---\n\n# Ledger cache warming\n\nSee [the roadmap](/roadmap.md).\n")


def workspace(base: Path, n: int) -> tuple[Path, Path]:
    ws = base / f"ws {n}"
    root = generate(ws, n)
    (ws / "okfpro.toml").write_text("")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(ws), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"], check=True)
    hooks = ws / ".claude" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    for f in (REPO / "hooks").glob("*.py"):
        shutil.copy2(f, hooks / f.name)
    (hooks / "okfpro-python").write_text(harness.PYTHON + "\none-process\n")
    # today's Snapshot line, right for the bundle, committed: the dirty-tree Stop rows check it
    env = {**os.environ, "OKFPRO_TODAY": TODAY}
    line = subprocess.run([harness.PYTHON, "-m", "okfpro", "snapshot", str(root)], env=env,
                          capture_output=True, text=True, check=True, cwd=str(ws)).stdout.strip().splitlines()[-1]
    log = root / "log.md"
    log.write_text(log.read_text().replace("# Update Log\n", f"# Update Log\n\n## {TODAY}\n{line}\n", 1))
    subprocess.run(["git", "-C", str(ws), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qam", "s"], check=True)
    return ws, root


class Cmd:
    def __init__(self, argv, data: bytes, env=None, before=None, after=None) -> None:
        self.argv, self.data, self.env, self.before, self.after = argv, data, env or {}, before, after


def events(ws: Path, root: Path, outside: Path) -> dict[str, tuple[str, str, dict, object, object]]:
    concept = next(p for p in sorted(root.rglob("*.md")) if p.name not in ("index.md", "log.md", "board.md"))
    counter = iter(range(10**9))
    state: dict[str, Path] = {}

    def write_new():
        path = root / NEW.format(n=next(counter))
        path.write_text(NEW_TEXT)
        state["new"] = path
        return {"cwd": str(ws), "tool_name": "Write", "tool_input": {"file_path": str(path), "content": NEW_TEXT}}

    def remove_new():
        state.pop("new").unlink()

    edit = {"cwd": str(ws), "tool_name": "Edit", "tool_input": {"file_path": str(concept), "new_string": "x"}}
    stop = {"cwd": str(ws), "stop_hook_active": False}
    log = root / "log.md"
    kept = {concept: concept.read_bytes(), log: log.read_bytes()}

    def dirty(snapshot: bool = True, twice: bool = False):
        def before():
            with open(concept, "a", encoding="utf-8") as fh:
                fh.write(f"\nAn edit left uncommitted ({next(counter)}).\n")
            if not snapshot:
                log.write_bytes(kept[log].replace(f"## {TODAY}\n".encode(), b"## 2026-11-29 (was today)\n", 1))
            if twice:  # the first Stop of the two, untimed
                subprocess.run([harness.PYTHON, "-m", "okfpro", "hook", "stop"], input=json.dumps(stop).encode(),
                               cwd=str(ws), capture_output=True)
            return stop
        return before

    def restore():  # and a Stop, untimed: the session before the next round ended on a clean tree
        for path, raw in kept.items():
            if path.read_bytes() != raw:
                path.write_bytes(raw)
        subprocess.run([harness.PYTHON, "-m", "okfpro", "hook", "stop"], input=json.dumps(stop).encode(),
                       cwd=str(ws), capture_output=True)

    return {
        "pre-tool-use outside": ("pre-tool-use", "pre_tool_use.py", {"cwd": str(outside), "tool_name": "Edit",
                                 "tool_input": {"file_path": str(outside / "notes.md"), "new_string": "x"}}, None, None),
        "pre-tool-use in bundle": ("pre-tool-use", "pre_tool_use.py", edit, None, None),
        "session-start": ("session-start", "session_start.py", {"cwd": str(ws), "source": "startup"}, None, None),
        "post-edit existing concept": ("post-tool-use", "post_edit.py", edit, None, None),
        "post-edit new concept": ("post-tool-use", "post_edit.py", None, write_new, remove_new),
        "stop (clean tree)": ("stop", "stop.py", stop, None, None),
        # one concept edited and left uncommitted (the gate checks everything; the generated bundle's
        # unverified briefings are not on its board, so it blocks on pairing alone)
        "stop (dirty tree)": ("stop", "stop.py", None, dirty(), restore),
        "stop (dirty tree, no Snapshot)": ("stop", "stop.py", None, dirty(snapshot=False), restore),
        "stop (dirty tree, again)": ("stop", "stop.py", None, dirty(twice=True), restore),
    }


def interleaved(cmds: dict[str, Cmd], runs: int, cwd: str) -> tuple[dict[str, float], dict[str, float]]:
    """p50 wall and p50 child CPU (user+sys) per command, sampled round-robin; the first round warms."""
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(runs + 1):
        for label, c in cmds.items():
            data = c.data
            if c.before is not None:
                data = json.dumps(c.before()).encode()
            env = {**os.environ, **c.env}
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(c.argv, input=data, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if c.after is not None:
                c.after()
            if proc.returncode not in (0, 2) or b"ENFORCEMENT" in proc.stderr or b"ran in full" in proc.stderr and i:
                raise RuntimeError(f"{label} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-400:]}")
            if i:
                walls[label].append(elapsed)
                cpus[label].append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return ({k: statistics.median(v) for k, v in walls.items()}, {k: statistics.median(v) for k, v in cpus.items()})


def in_process_cpu(ws: Path, root: Path, runs: int) -> float:
    """Median CPU seconds of post-edit on a new concept, inside one process (after a warm-up run), the
    CPU of the child it forks for half of the identity walk included."""
    code = f"""
import json, os, resource, sys, time, statistics
from okfpro.hooks.context import Ctx
from okfpro.core.event import parse
from okfpro.hooks import post_edit
root, ws = {str(root)!r}, {str(ws)!r}
out = []
for i in range({runs} + 1):
    path = os.path.join(root, {NEW!r}.format(n=10**6 + i))
    open(path, "w").write({NEW_TEXT!r})
    ev = parse(json.dumps({{"cwd": ws, "tool_name": "Write", "tool_input": {{"file_path": path, "content": "x"}}}}))
    t, k = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    post_edit.post_edit(Ctx(ev))
    k2 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the identity walk's forked child, from 5,000 files
    if i:
        out.append(time.process_time() - t + k2.ru_utime + k2.ru_stime - k.ru_utime - k.ru_stime)
    os.unlink(path)
print(statistics.median(out))
"""
    proc = subprocess.run([harness.PYTHON, "-c", code], capture_output=True, text=True, check=True, cwd=str(ws))
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    install_arg(ap)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    os.environ["OKFPRO_TODAY"] = TODAY
    results: dict[int, tuple[dict[str, float], dict[str, float], float]] = {}
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        if args.editable:
            os.environ["PYTHONPATH"] = str(REPO)
            # No PYTHONPYCACHEPREFIX: a private bytecode prefix makes every interpreter start recompile
            # site-packages' startup modules, which inflates the baseline and flatters every ratio.
            subprocess.run([harness.PYTHON, "-m", "compileall", "-q", str(REPO / "okfpro")], check=True)
            print("timed: this interpreter's okfpro (editable)", flush=True)
        else:  # as users install it; its bytecode is compiled by the install
            print(f"timed: non-editable, {installed(tmp)}", flush=True)
        PYTHON = harness.PYTHON
        outside = Path(tmp) / "elsewhere"
        outside.mkdir()
        cmds: dict[str, Cmd] = {"python3 -c pass": Cmd([PYTHON, "-c", "pass"], b"")}
        spaces = {}
        for n in sizes:  # every size in one round-robin: one baseline for all of them
            ws, root = workspace(Path(tmp), n)
            spaces[n] = (ws, root)
            evs = events(ws, root, outside)
            warm = subprocess.run([PYTHON, "-m", "okfpro", "hook", "post-tool-use"], input=json.dumps(evs[
                "post-edit existing concept"][2]).encode(), capture_output=True, cwd=str(ws))
            assert warm.returncode in (0, 2), warm.stderr
            for label, (event, launcher, payload, before, after) in evs.items():
                data = json.dumps(payload).encode() if payload is not None else b""
                cmds[f"{n} {label}: door"] = Cmd([PYTHON, "-m", "okfpro", "hook", event], data, before=before, after=after)
                if label.startswith("stop (dirty"):
                    continue  # at the door only: the launcher's share is the clean Stop's
                cmds[f"{n} {label}: launcher"] = Cmd([str(ws / ".claude" / "hooks" / launcher)], data, before=before,
                                                     after=after)
            cmds[f"{n} pre-tool-use in bundle: launcher, two-process"] = Cmd(
                [str(ws / ".claude" / "hooks" / "pre_tool_use.py")], json.dumps(evs["pre-tool-use in bundle"][2]).encode(),
                env={"OKFPRO_LAUNCHER": "two-process"})
        loads.append(os.getloadavg()[0])
        wall, cpu = interleaved(cmds, args.runs, cwd=tmp)
        loads.append(os.getloadavg()[0])
        base_w, base_c = wall["python3 -c pass"], cpu["python3 -c pass"]
        print(f"\n== hooks: {args.runs} interleaved runs over {', '.join(map(str, sizes))} concepts, "
              f"load average {loads[0]:.1f} / {loads[1]:.1f} / {loads[2]:.1f} (start / timing / end) ==")
        print(f"{'':<58} {'wall p50':>10} {'ratio':>6}   {'cpu p50':>9} {'ratio':>6}")
        for label in cmds:
            print(f"{label:<58} {wall[label] * 1000:8.1f}ms {wall[label] / base_w:5.1f}x   "
                  f"{cpu[label] * 1000:7.1f}ms {cpu[label] / base_c:5.1f}x")
        for n in sizes:
            ws, root = spaces[n]
            sub_w = {"python3 -c pass": base_w, **{k.split(" ", 1)[1]: v for k, v in wall.items() if k.startswith(f"{n} ")}}
            sub_c = {"python3 -c pass": base_c, **{k.split(" ", 1)[1]: v for k, v in cpu.items() if k.startswith(f"{n} ")}}
            results[n] = (sub_w, sub_c, in_process_cpu(ws, root, args.runs))
            print(f"post-edit new concept at {n}, in-process CPU p50: {results[n][2] * 1000:.1f} ms")
    return verdict(results, sizes, loads, args.check)


def verdict(results, sizes, loads, check: bool) -> int:
    missed = []

    def target(name: str, value: float, limit: float) -> None:
        ok = value <= limit
        print(f"  {name:<66} {value:5.2f}x  target <= {limit:g}x  {'met' if ok else 'MISSED'}")
        if not ok:
            missed.append(name)

    def ratio(n: int, label: str) -> float:
        wall = results[n][0]
        return wall[label] / wall["python3 -c pass"]

    print(f"\ntargets (wall p50 ratios to python3 -c pass; load average {min(loads):.1f}-{max(loads):.1f}):")
    small = sizes[0]
    for n in sizes[1:]:
        limit = 2.0 if n <= 10 * small else 3.0
        key = "post-edit new concept: door"
        target(f"post-edit new concept at {n} vs {small} (door)", ratio(n, key) / ratio(small, key), limit)
        cpu = results[n][1][key] / results[small][1][key]
        print(f"  {'   same, CPU of the process':<66} {cpu:5.2f}x")
        print(f"  {'   same, in-process CPU':<66} {results[n][2] / results[small][2]:5.2f}x")
        for flat in ("session-start: door", "stop (clean tree): door", "stop (dirty tree): door",
                     "stop (dirty tree, again): door"):
            target(f"{flat.split(':')[0]} at {n} vs {small} (flat)", ratio(n, flat) / ratio(small, flat), 1.5)
    for n in sizes:
        wall = results[n][0]
        for label in wall:
            if label.endswith(": launcher"):
                door = label.replace(": launcher", ": door")
                target(f"{label.split(':')[0]} at {n}: launcher vs door", wall[label] / wall[door], 1.3)
        target(f"pre-tool-use in bundle at {n}: launcher vs python3 -c pass", ratio(n, "pre-tool-use in bundle: launcher"), 3.0)
    if missed:
        print(f"\n{len(missed)} target(s) missed" + ("" if check else " (report only: pass --check to fail on it)"))
    return 1 if missed and check else 0


if __name__ == "__main__":
    sys.exit(main())
