#!/usr/bin/env python3
"""The work of one okfpro request with the imports paid: a warm parent forks a child per run.

    python bench/warm_child.py build recall|prompt DIR      # the bench workspaces, kept in DIR
    python bench/warm_child.py time recall|prompt DIR [--runs N]
    python bench/warm_child.py fresh recall|prompt DIR [--runs N]   # the same request, fresh processes
    python bench/warm_child.py callgrind recall|prompt DIR [--keep FILE]
    python bench/warm_child.py time custom DIR --cwd WS [--stdin FILE] [--env K=V ...] -- ARGV...

What a resident fork server would leave of a request (``.okf/design/resident-process.md``): the
parent imports every module the request imports (found by running it once in a child that lists
``sys.modules``), calls ``gc.freeze()``, then for each run forks a child that takes the request's
working directory, environment, stdin (a file) and stdout/stderr (``/dev/null``), runs
``okfpro.__main__.main(argv)`` and ends through ``okfpro.__main__.exit_now`` (the ``atexit``
callbacks, the flushes, ``os._exit``).

``time`` interleaves each warm child with a fresh ``python3 -c pass`` (the base interpreter, not
this venv's: an editable install's finder would slow it) and prints p50 wall and CPU per run and
the ratio to ``pass``.  ``callgrind`` runs the same parent under ``valgrind --tool=callgrind
--zero-before=getppid``: each child calls ``os.getppid()`` first, so its file counts its own
instructions only; an idle child (``getppid`` then ``_exit``) is subtracted.  ``--keep`` keeps the
working child's callgrind file for ``callgrind_annotate``.

The presets are the issue-13 benches' rows: ``recall`` is ``bench/bench_recall.py``'s
``memory recall kilo note 4242 --limit 10`` in a 10,000-entry scope (its ``fill``); ``prompt`` is
``bench/bench_memory_hooks.py``'s later-turn ``hook user-prompt-submit`` on 2,000 concepts and
10,000 memories (its ``build``).  ``DIR/cache`` is the runs' ``XDG_CACHE_HOME``, so the caches
(parse cache, bundle index, pattern recipes) outlive one invocation; one untimed warm-up child
runs first.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the benches' builders; okfpro is the running interpreter's (``build``
# takes this tree's, as the benches do): run this file with another venv's python for an A/B


def preset(name: str, root: Path) -> tuple[str, dict[str, str], str | None, list[str]]:
    """(cwd, environment additions, stdin file or None, argv) of a preset."""
    if name == "recall":
        ws = root / "ws"
        env = {"OKFPRO_TENANT": "bench", "OKFPRO_USER": "big", "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}
        return str(ws), env, None, ["memory", "recall", "kilo", "note", "4242", "--limit", "10"]
    if name == "prompt":
        from bench_memory_hooks import PROMPT

        ws = root / "ws"
        event = root / "prompt-event.json"
        event.write_text(json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "p-long", "cwd": str(ws),
                                     "prompt": PROMPT}))
        env = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_TODAY": "2026-11-30"}
        return str(ws), env, str(event), ["hook", "user-prompt-submit"]
    raise SystemExit(f"no preset {name!r}")


def build(name: str, root: Path, entries: int, concepts: int) -> None:
    sys.path.insert(1, str(HERE.parent))
    root.mkdir(parents=True, exist_ok=True)
    if name == "recall":
        from bench_recall import fill

        from okfpro.core.scope import Scope
        from okfpro.memory.store import MemoryStore

        ws = root / "ws"
        (ws / ".okf").mkdir(parents=True)
        (ws / "okfpro.toml").write_text("[memory]\n")
        store = MemoryStore(ws / ".okf-memory")
        fill(store, Scope(tenant="bench", user="u10"), 10, "u10")
        fill(store, Scope(tenant="bench", user="big"), entries, "big")
    elif name == "prompt":
        from bench_memory_hooks import build as build_hooks

        build_hooks(root / "ws", concepts, entries)
    else:
        raise SystemExit(f"no preset {name!r}")
    os.sync()
    print(f"built {name} in {root}")


# ---------------------------------------------------------------------------- the warm parent


def environment(root: Path, extra: dict[str, str]) -> dict[str, str]:
    """The request's environment: this one's without okfpro's own variables, the caches in DIR, and
    no resident okfpro (``OKFPRO_RESIDENT=0``): the child, or the fresh process, does the work
    itself (set OKFPRO_RESIDENT in this environment to time the real server through ``fresh``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    env["OKFPRO_RESIDENT"] = os.environ.get("OKFPRO_RESIDENT", "0")
    env["XDG_CACHE_HOME"] = str(root / "cache")
    env.update(extra)
    return env


def child(cwd: str, env: dict[str, str], stdin: str | None, argv: list[str], after: Callable[[], None] | None = None) -> None:
    """In the forked child: take the request's context, run main, exit as the light paths do."""
    os.getppid()  # callgrind --zero-before=getppid: the counts start here
    try:
        fd = os.open(stdin or os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = ["okfpro", *argv]
        from okfpro.__main__ import exit_now, main

        try:
            code: object = main(argv)
        except SystemExit as exc:
            code = exc.code
        if after is not None:
            after()
        exit_now(code)
    finally:
        os._exit(99)


def fork(cwd: str, env: dict[str, str], stdin: str | None, argv: list[str], after: Callable[[], None] | None = None) -> tuple[float, float, int]:
    """(wall s, child CPU s, exit status) of one warm child."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        child(cwd, env, stdin, argv, after)
    _pid, status, usage = os.wait4(pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def warm(root: Path, cwd: str, env: dict[str, str], stdin: str | None, argv: list[str]) -> list[str]:
    """Import what the request imports (listed by a first child), then freeze the heap."""
    listing = root / "modules.json"

    def dump() -> None:
        listing.write_text(json.dumps(sorted(sys.modules)))

    _wall, _cpu, code = fork(cwd, env, stdin, argv, dump)
    if code != 0:
        raise SystemExit(f"the first child exited {code}")
    names = json.loads(listing.read_text())
    saved = dict(os.environ)
    os.environ.update(env)  # a module that reads its environment at import reads the request's
    loaded = []
    import importlib

    from okfpro.io import rxcache

    # as main() does first: the patterns the imports compile are built from the recipes, and the
    # children inherit "loaded" (else every child would find the parent's compiles new and
    # rewrite the recipes file at exit: ~13 M instructions a request)
    rxcache.load(rxcache.kind_of(argv))

    for name in names:
        if name == "__main__" or name in sys.modules:
            continue
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception:  # noqa: BLE001 - a module only its own parent imports in order
            pass
    os.environ.clear()
    os.environ.update(saved)
    gc.collect()
    gc.freeze()
    return loaded


def base_python(root: Path) -> str:
    """A bare venv's python (``DIR/pass-venv``, made once): the base interpreter's own site may run
    ``.pth`` files (one here imports certifi, ~40 ms), and this venv's runs the editable finder."""
    venv = root / "pass-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        base = getattr(sys, "_base_executable", None) or sys.executable
        subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    return str(python)


def do_time(root: Path, cwd: str, env: dict[str, str], stdin: str | None, argv: list[str], runs: int) -> None:
    loaded = warm(root, cwd, env, stdin, argv)
    print(f"warm parent: {len(loaded)} modules imported, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    fork(cwd, env, stdin, argv)  # one untimed warm child (caches, the session's identity)
    walls, cpus, bwalls, bcpus = [], [], [], []
    python = base_python(root)
    for _ in range(runs):
        r0 = os.times()
        t0 = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        bwalls.append(time.perf_counter() - t0)
        r1 = os.times()
        bcpus.append(r1.children_user + r1.children_system - r0.children_user - r0.children_system)
        wall, cpu, code = fork(cwd, env, stdin, argv)
        if code != 0:
            raise SystemExit(f"a warm child exited {code}")
        walls.append(wall)
        cpus.append(cpu)
    b, w = statistics.median(bwalls), statistics.median(walls)
    bc, wc = statistics.median(bcpus), statistics.median(cpus)
    print(f"python3 -c pass (fresh)   p50 {b * 1000:7.2f} ms   CPU {bc * 1000:7.2f} ms")
    print(f"warm child {' '.join(argv)[:40]:<40} p50 {w * 1000:7.2f} ms  {w / b:5.2f}x pass   "
          f"CPU {wc * 1000:7.2f} ms  {wc / bc if bc else float('nan'):5.2f}x   (runs {runs}, min {min(walls) * 1000:.2f} ms)")
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def do_fresh(root: Path, cwd: str, env: dict[str, str], stdin: str | None, argv: list[str], runs: int) -> None:
    """The same request as fresh processes (``python -m okfpro``, the running interpreter), each run
    next to a fresh ``python3 -c pass``: the figure a warm child is compared with."""
    import resource

    python = base_python(root)
    cmd = [sys.executable, "-m", "okfpro", *argv]

    def once() -> tuple[float, float, int]:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        with open(stdin or os.devnull, "rb") as fh:
            code = subprocess.run(cmd, stdin=fh, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
                                  env=env).returncode
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.perf_counter() - t0, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime, code

    once()
    walls, cpus, bwalls = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([python, "-c", "pass"], check=True)
        bwalls.append(time.perf_counter() - t0)
        wall, cpu, code = once()
        if code != 0:
            raise SystemExit(f"a fresh process exited {code}")
        walls.append(wall)
        cpus.append(cpu)
    b, w = statistics.median(bwalls), statistics.median(walls)
    print(f"python3 -c pass (fresh)   p50 {b * 1000:7.2f} ms")
    print(f"fresh {' '.join(argv)[:45]:<45} p50 {w * 1000:7.2f} ms  {w / b:5.2f}x pass   CPU "
          f"{statistics.median(cpus) * 1000:7.2f} ms   (runs {runs}, {sys.executable})")
    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def do_callgrind_inner(root: Path, cwd: str, env: dict[str, str], stdin: str | None, argv: list[str]) -> None:
    """Under valgrind: warm, one warm-up child, an idle child, the measured child (pids on stdout)."""
    warm(root, cwd, env, stdin, argv)
    fork(cwd, env, stdin, argv)
    pid = os.fork()
    if pid == 0:
        os.getppid()
        os._exit(0)
    os.waitpid(pid, 0)
    print(f"idle {pid}", flush=True)
    pid = os.fork()
    if pid == 0:
        child(cwd, env, stdin, argv)
    os.waitpid(pid, 0)
    print(f"work {pid}", flush=True)


def collected(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("summary:") or line.startswith("totals:"):
            return int(line.split()[1])
    raise SystemExit(f"no totals in {path}")


def do_callgrind(args: argparse.Namespace, root: Path) -> None:
    out = root / "cg"
    out.mkdir(exist_ok=True)
    for f in out.glob("cg.*"):
        f.unlink()
    cmd = ["valgrind", "--tool=callgrind", "--zero-before=getppid", f"--callgrind-out-file={out}/cg.%p",
           sys.executable, __file__, "_cg", args.preset, str(root), *(_custom_args(args))]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    pids = dict(line.split() for line in proc.stdout.splitlines() if line.split()[:1] in (["idle"], ["work"]))
    if set(pids) != {"idle", "work"}:
        raise SystemExit(f"callgrind run failed:\n{proc.stdout}\n{proc.stderr[-2000:]}")
    idle, work = collected(out / f"cg.{pids['idle']}"), collected(out / f"cg.{pids['work']}")
    print(f"warm child {args.preset}: {(work - idle) / 1e6:.1f} M instructions (child {work / 1e6:.1f} M - idle "
          f"{idle / 1e6:.1f} M)")
    if args.keep:
        os.replace(out / f"cg.{pids['work']}", args.keep)
        print(f"kept {args.keep} (callgrind_annotate --inclusive=yes {args.keep})")


def _custom_args(args: argparse.Namespace) -> list[str]:
    if args.preset != "custom":
        return []
    out = ["--cwd", args.cwd] + (["--stdin", args.stdin] if args.stdin else [])
    for kv in args.env:
        out += ["--env", kv]
    return out + ["--", *args.argv]


def request(args: argparse.Namespace, root: Path) -> tuple[str, dict[str, str], str | None, list[str]]:
    if args.preset == "custom":
        extra = dict(kv.split("=", 1) for kv in args.env)
        return args.cwd, environment(root, extra), args.stdin, list(args.argv)
    cwd, extra, stdin, argv = preset(args.preset, root)
    return cwd, environment(root, extra), stdin, argv




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("build", "time", "fresh", "callgrind", "_cg"))
    ap.add_argument("preset", choices=("recall", "prompt", "custom"))
    ap.add_argument("dir", type=Path)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--entries", type=int, default=10_000, help="build: memories in the scope")
    ap.add_argument("--concepts", type=int, default=2_000, help="build prompt: concepts in the bundle")
    ap.add_argument("--keep", type=Path, help="callgrind: keep the child's file here")
    ap.add_argument("--cwd")
    ap.add_argument("--stdin")
    ap.add_argument("--env", action="append", default=[])
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.argv = argv[cut + 1:]
    root = args.dir.resolve()
    if args.action == "build":
        build(args.preset, root, args.entries, args.concepts)
        return
    cwd, env, stdin, argv = request(args, root)
    if args.action == "time":
        do_time(root, cwd, env, stdin, argv, args.runs)
    elif args.action == "fresh":
        do_fresh(root, cwd, env, stdin, argv, args.runs)
    elif args.action == "callgrind":
        do_callgrind(args, root)
    else:
        do_callgrind_inner(root, cwd, env, stdin, argv)


if __name__ == "__main__":
    main()
