#!/usr/bin/env python3
"""Memory sync at scale (issue #15): nothing new, incremental cost vs history, first sync rate.

    python bench/bench_sync.py [--runs 7] [--scopes 1000] [--history 10,10000]
                               [--users 1000] [--per-user 100] [--sample 20] [--check]

``--check`` exits 1 when a target is missed, each miss named: nothing new ≤ 5× ``python3
-c pass``; the incremental sync's CPU at the longest history ≤ 2× its CPU at the shortest
(it must follow the new entries, not the history).  ``uptime`` is printed at the start and
the end: fresh-process ratios are inflated on a loaded machine, CPU times much less.

The remote is a bare repository on this disk (a path remote: git's own transport, no HTTP
server in the figures).  Three parts:

1. **Nothing new**: the remote holds ``--scopes`` user scopes (one entry each); one clone that
   synced already runs ``okfpro memory sync`` again as a fresh process: p50 next to
   ``python3 -c pass`` (target ≤ 5×).
2. **Incremental vs history**: a scope with 10 and with 10,000 prior commits on two clones;
   each run, clone B writes one entry and syncs (a push), then clone A writes one and syncs
   (fetch + merge commit + push).  In-process wall and CPU (this process + git children) of
   A's sync per history length: the cost must follow the new entries, not the history.
3. **First sync**: the remote holds ``--users`` users × ``--per-user`` entries; ``--sample``
   of those users each sync a fresh clone (fresh process): entries/s per first sync, and
   the rate of filling the remote (one push of every user's ref).

Building histories uses ``History.record_files`` with the day file's bytes per commit (what
the store commits) and fsync off, so the setup stays quick; the timed parts are the real
commands.  Scale down with smaller flags on a loaded machine and say so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import PYTHON, baseline, measure, okfpro, report  # noqa: E402

import okfpro.memory.history as _history  # noqa: E402
from okfpro.core.dayfile import frontmatter, render_section  # noqa: E402
from okfpro.core.scope import Scope  # noqa: E402
from okfpro.memory.layout import TOOL  # noqa: E402
from okfpro.memory.store import MemoryStore  # noqa: E402
from okfpro.memory.sync import sync  # noqa: E402

START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)
PER_DAY = 100


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def workspace(base: Path, name: str, user: str, remote: Path) -> Path:
    ws = base / name
    ws.mkdir()
    (ws / "okfpro.toml").write_text(f'[identity]\ntenant = "acme"\nuser = "{user}"\n\n[memory]\nremote = "{remote}"\n')
    return ws


def build_history(store: MemoryStore, scope: Scope, commits: int) -> None:
    """``commits`` commits of one entry each on the scope's user ref (100 entries a day), and
    the day files on disk, as the store would have left them."""
    h = store.history
    files: dict[str, bytes] = {}
    for i in range(commits):
        when = START + dt.timedelta(days=i // PER_DAY, seconds=i % PER_DAY)
        day = when.date().isoformat()
        section = render_section(f"entry {i}: note number {i} about topic {i % 37}", when)
        old = files.get(f"{day}.md")
        files[f"{day}.md"] = (old + b"\n" if old else (frontmatter(day, when, TOOL) + "\n").encode()) + section.encode()
        h.record_files("user", scope, {f"{day}.md": files[f"{day}.md"]}, f"remember {day}#{i % PER_DAY + 1}", 1,
                       scope.user, when)
    directory = Path(store.scope_dir("user", scope))
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (directory / name).write_bytes(data)


def fill_remote(stage: Path, remote: Path, users: int, per_user: int) -> float:
    """``users`` scopes of ``per_user`` entries pushed to ``remote``; returns the push's seconds."""
    store = MemoryStore(stage)
    for u in range(users):
        rows = [(f"user {u} entry {i}: note {i}", START + dt.timedelta(seconds=i)) for i in range(per_user)]
        ids, _c, err = store.write_many(Scope(tenant="acme", user=f"u{u}"), rows, "user", actor="bench", what="bench")
        if err or len(ids) != per_user:
            raise SystemExit(f"fill failed: {err}")
    start = time.perf_counter()
    git(f"--git-dir={stage / '.okf-history.git'}", "push", "-q", str(remote), "refs/okfpro/*:refs/okfpro/*")
    return time.perf_counter() - start


def timed_sync(store: MemoryStore, scope: Scope, remote: Path) -> tuple[float, float]:
    r0, c0, t0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    rep = sync(store, scope, str(remote))
    wall = time.perf_counter() - t0
    r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    if not rep.ok:
        raise SystemExit(f"sync failed: {rep.to_json()}")
    cpu = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) + (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--scopes", type=int, default=1000)
    ap.add_argument("--history", default="10,10000")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--per-user", type=int, default=100)
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()
    missed: list[str] = []
    _history._fsync_enabled = True  # setup only: no fsync while building histories (timed syncs are unaffected)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OKFPRO_", "GIT_"))}
    os.environ.clear()
    os.environ.update(env)
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    tmp = Path(tempfile.mkdtemp(prefix="okfpro-bench-sync-"))
    try:
        base = baseline()

        # 1. nothing new, many scopes on the remote
        remote = tmp / "r1.git"
        git("init", "-q", "--bare", str(remote))
        fill_remote(tmp / "stage1", remote, args.scopes, 1)
        ws = workspace(tmp, "w1", "u0", remote)
        subprocess.run(okfpro("memory", "sync"), cwd=ws, check=True, capture_output=True)
        t = measure(okfpro("memory", "sync"), runs=args.runs, cwd=str(ws), expect=(0,),
                    label=f"memory sync, nothing new, {args.scopes} scopes on the remote")
        report("nothing new", [t], base)
        if t.ratio(base.p50) > 5:
            missed.append(f"nothing new: {t.ratio(base.p50):.1f}x python3 -c pass (target <= 5x)")

        # 2. incremental sync vs history length
        print("\n== incremental sync (A merges one new entry of B and one of its own) ==")
        cpu_at: dict[int, float] = {}
        for n in (int(x) for x in args.history.split(",")):
            remote = tmp / f"r2-{n}.git"
            git("init", "-q", "--bare", str(remote))
            scope = Scope(tenant="acme", user="hist")
            a = MemoryStore(tmp / f"a-{n}")
            t0 = time.perf_counter()
            build_history(a, scope, n)
            built = time.perf_counter() - t0
            sync(a, scope, str(remote))
            b = MemoryStore(tmp / f"b-{n}")
            sync(b, scope, str(remote))
            walls, cpus = [], []
            for r in range(args.runs):
                now = dt.datetime.now(dt.timezone.utc)
                b.write(scope, f"from b run {r}", "user", now=now)
                sync(b, scope, str(remote))
                a.write(scope, f"from a run {r}", "user", now=now)
                wall, cpu = timed_sync(a, scope, remote)
                walls.append(wall)
                cpus.append(cpu)
            cpu_at[n] = statistics.median(cpus)
            print(f"{n:>6} prior commits (built in {built:.1f} s): A's sync p50 wall {statistics.median(walls) * 1000:7.1f} ms"
                  f", CPU (self + git) {statistics.median(cpus) * 1000:7.1f} ms")

        short, long_ = min(cpu_at), max(cpu_at)
        print(f"CPU at {long_} / at {short} prior commits: {cpu_at[long_] / cpu_at[short]:.2f}x (target <= 2x)")
        if cpu_at[long_] > 2 * cpu_at[short]:
            missed.append(f"incremental: CPU {cpu_at[long_] / cpu_at[short]:.2f}x from {short} to {long_} commits")

        # 3. first sync of users x entries
        remote = tmp / "r3.git"
        git("init", "-q", "--bare", str(remote))
        t0 = time.perf_counter()
        pushed = fill_remote(tmp / "stage3", remote, args.users, args.per_user)
        total = args.users * args.per_user
        print(f"\n== first sync, remote holding {args.users} users x {args.per_user} entries "
              f"(built in {time.perf_counter() - t0:.1f} s) ==")
        print(f"fill: one push of {args.users} refs, {total} entries: {pushed:.2f} s = {total / pushed:,.0f} entries/s")
        walls, cpus = [], []
        for u in range(min(args.sample, args.users)):
            ws = workspace(tmp, f"f{u}", f"u{u}", remote)
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(okfpro("memory", "sync"), cwd=ws, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
            if u == 0:
                got = len(MemoryStore(ws / ".okf-memory").enumerate(Scope(tenant="acme", user="u0")).entries)
                if got != args.per_user:
                    missed.append(f"first sync: {got} of {args.per_user} entries arrived")
        p50 = statistics.median(walls)
        cpu50 = statistics.median(cpus)
        print(f"first sync CPU (process + git children) p50 {cpu50 * 1000:.1f} ms = {args.per_user / cpu50:,.0f} "
              "entries per CPU second")
        print(f"first sync of one user ({args.per_user} entries), fresh process, {len(walls)} users: p50 "
              f"{p50 * 1000:.1f} ms = {args.per_user / p50:,.0f} entries/s; all {args.users} users one after "
              f"another would take ~{p50 * args.users:.0f} s = {total / (p50 * args.users):,.0f} entries/s")
        print(f"python: {PYTHON}")
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        for m in missed:
            print(f"MISSED: {m}")
        if args.check and missed:
            raise SystemExit(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
