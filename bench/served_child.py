#!/usr/bin/env python3
"""The prompt hook as a resident server answers it: a real server (``okfpro/resident``), its real
forked children (the watch view, the kept answers), one fresh client process per request.

    PY bench/served_child.py callgrind DIR [--runs N] [--keep FILE]   # each child's instructions
    PY bench/served_child.py faults DIR [--runs N]                    # each child's page faults, CPU

``DIR`` is a workspace built by ``bench/warm_child.py build prompt DIR`` (2,000 concepts, 10,000
memories); the request is ``bench/bench_memory_hooks.py``'s later-turn ``hook user-prompt-submit``
(session ``p-long``), sent by ``PY -m okfpro``.  ``PY`` must hold a non-editable install of okfpro
(``pip install --no-deps .`` into a venv of its own): a server is never started for an editable one.

``callgrind`` runs the server under ``valgrind --tool=callgrind --zero-before=getppid``: a child
calls ``os.getppid()`` once its request has come (``okfpro/resident/child.py``, ``standby``: a child
forked ahead of its request calls it once before too), so each child's file counts that request's
work alone, from the request to the child's exit.  The first children differ (the server learns
imports, the kept answers are written); the last ones are the steady state.  Unlike
``bench/warm_child.py`` (a warm parent without a watcher), the children here answer the bundle's
listing and the memory's day listing from the watch view, as served requests do.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_memory_hooks import PROMPT  # noqa: E402

FAULTS = """
import okfpro.__main__ as _m
_real = _m.main
def _main(a, _real=_real):
    import os, resource, time
    r0, c0 = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
    try:
        return _real(a)
    finally:
        r1, c1 = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
        with open(os.path.join(%r, 'faults.%%d' %% os.getpid()), 'w') as f:
            f.write('%%d %%d %%.2f' %% (r0.ru_minflt, r1.ru_minflt, (c1 - c0) * 1000))
_m.main = _main
"""


def environment(root: str, sockets: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    env.update(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30", OKFPRO_RESIDENT="1",
               OKFPRO_RESIDENT_DIR=sockets, XDG_CACHE_HOME=os.path.join(root, "cache"))
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("callgrind", "faults"))
    ap.add_argument("dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", help="callgrind: keep the last child's file here")
    args = ap.parse_args()
    root = os.path.abspath(args.dir)
    ws = os.path.join(root, "ws")
    out = tempfile.mkdtemp(prefix="served-child-")
    sockets = tempfile.mkdtemp(prefix="okfpro-rs-")
    env = environment(root, sockets)
    probe = subprocess.run([sys.executable, "-c", "import marshal; from okfpro.resident import client; "
                            "print(client.socket_path()); print(marshal.dumps(client.import_path()).hex())"],
                           env=env, cwd=ws, capture_output=True, text=True)
    if probe.returncode != 0:
        raise SystemExit(f"{sys.executable} has no okfpro a server would serve (an editable install?):\n{probe.stderr}")
    where, path = probe.stdout.split()
    code = "import marshal, sys; sys.path[:] = marshal.loads(bytes.fromhex(sys.argv[1]))\n"
    if args.action == "faults":
        code += FAULTS % out
    code += "from okfpro.resident.server import main; main(sys.argv[2])"
    argv = [sys.executable, "-c", code, path, where]
    if args.action == "callgrind":
        argv = ["valgrind", "--tool=callgrind", "--zero-before=getppid", f"--callgrind-out-file={out}/cg.%p", *argv]
    server = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(1200):  # a server under valgrind takes a while to import
            if os.path.exists(where):
                break
            time.sleep(0.1)
        else:
            raise SystemExit("the server did not start")
        event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "p-long", "cwd": ws,
                            "prompt": PROMPT}).encode()
        for _ in range(args.runs):
            done = subprocess.run([sys.executable, "-m", "okfpro", "hook", "user-prompt-submit"], input=event,
                                  env=env, cwd=ws, capture_output=True)
            if done.returncode != 0 or b"could not" in done.stderr:
                raise SystemExit(f"the hook failed: {done.stderr.decode()[-400:]}")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=300)
    if args.action == "faults":
        for f in sorted(glob.glob(os.path.join(out, "faults.*")), key=os.path.getmtime):
            before, after, cpu = open(f).read().split()
            print(f"child: {before} page faults before main, {int(after) - int(before)} in it; CPU in main {cpu} ms")
        return
    children = []
    for f in glob.glob(os.path.join(out, "cg.*")):
        if int(f.rsplit(".", 1)[1]) == server.pid:
            continue
        with open(f, errors="replace") as fh:
            total = next(int(line.split()[1]) for line in fh if line.startswith(("summary:", "totals:")))
        children.append((os.path.getmtime(f), total, f))
    children.sort()
    for _t, total, _f in children:
        print(f"served child: {total / 1e6:.1f} M instructions")
    if args.keep and children:
        os.replace(children[-1][2], args.keep)
        print(f"kept {args.keep} (callgrind_annotate --inclusive=yes {args.keep})")


if __name__ == "__main__":
    main()
