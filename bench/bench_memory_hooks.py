#!/usr/bin/env python3
"""Memory in the agent loop, timed as the host runs it: ``okfpro hook stop`` with capture on and
``okfpro hook user-prompt-submit`` (recall), fresh processes, next to ``python3 -c pass``; the prompt
hook also through its launcher (``.claude/hooks/user_prompt_submit.py`` as ``okfpro init`` installs it,
which the host runs).

    python bench/bench_memory_hooks.py [--n 2000] [--runs 9] [--memories 10000] [--check] [--editable]

The workspace is a generated N-concept bundle (``bench/gen_bundle.py``), committed so the Stop
gate passes, with ``[memory] capture = true``.  Each Stop run captures one new turn; each prompt
recalls over the bundle (ranked engine) and the captured memory.  The target rows are a session's
later turns (one session id: its identity was bound by the untimed first run, as a session's first
prompt binds it); the "first event" rows give every run a new session, which binds its identity
(a locked, fsync'd write of ``.tmp/okfpro-identity/<session>.json``) once.
``--memories`` entries are in alice's user tier first (one ``write_many``, one commit), so both
hooks run against a long-lived user (issue #13: prompt ≤ 4×; issue #18: Stop ≤ 5× at 10,000).
The load average is printed with the figures; ``--check`` exits 1 when a target is missed.
The hooks (and ``python3 -c pass``) run in a throwaway venv holding a non-editable install of this
tree, as users install it; ``--editable`` times the running interpreter's own install instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_bundle import generate  # noqa: E402
from harness import Timing, baseline, clock, install_arg, installed, launchers, okfpro, passing, report  # noqa: E402


def build(ws: Path, n: int, memories: int) -> Path:
    """The bench's workspace at ``ws``: an ``n``-concept bundle, committed, capture on, ``memories``
    entries in alice's user tier (one ``write_many``, one commit), older than the caches' racy
    window, the hook launchers in ``.claude/hooks``."""
    import subprocess
    import time

    generate(ws, n)
    (ws / "okfpro.toml").write_text("[memory]\ncapture = true\n")
    (ws / ".gitignore").write_text(".tmp/\n.okf-memory/\n")
    launchers(ws)  # as okfpro init installs them (the host runs .claude/hooks/*.py), committed with the bundle
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", "commit", "-qm", "b"]):
        subprocess.run(cmd, cwd=ws, check=True)
    if memories:
        import datetime as dt

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from okfpro.core.scope import Scope
        from okfpro.memory.store import MemoryStore

        start = dt.datetime(2025, 1, 1, 8, tzinfo=dt.timezone.utc)
        words = "ledger cache release friday deploy review budget pager".split()
        rows = [(f"earlier turn {i}: the {words[i % 8]} {words[(i * 3) % 8]} note {i}",
                 start + dt.timedelta(days=i // 20, seconds=i % 20)) for i in range(memories)]
        ids, _c, err = MemoryStore(ws / ".okf-memory").write_many(Scope(tenant="acme", user="alice"), rows, "user")
        if err or len(ids) != memories:
            raise SystemExit(f"could not store the memories: {err}")
    time.sleep(2.2)  # a workspace as the hooks meet it: its files and directories older than the
    # caches' racy window (io/cache.RACY_NS), which a bundle generated a second ago is not
    return ws


PROMPT = "when does the next release ship, and what did we decide about the ledger cache?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    install_arg(ap)
    args = ap.parse_args()
    import os
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        print("install timed: " + ("this interpreter's (--editable)" if args.editable
                                   else f"non-editable, {installed(tmp)}"), flush=True)
        ws = build(Path(tmp) / "ws", args.n, args.memories)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
        env.update(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30")

        hooks = str(ws / ".claude" / "hooks")  # the launchers build() installed

        def timed(event_name: str, make_event, runs: int, what: str, launcher: str | None = None) -> Timing:
            samples, cpus, pairs, pair_cpus = [], [], [], []
            os.sync()  # what earlier rows wrote is on disk before this row is timed
            cmd = [os.path.join(hooks, launcher)] if launcher else okfpro("hook", event_name)
            for i in range(runs + 1):
                # python3 -c pass just before each run: the row's ratio is taken in the same minutes
                _, pass_wall, pass_cpu = clock(passing())
                proc, wall, used = clock(cmd, stdin=json.dumps(make_event(i)).encode(), cwd=ws, env=env)
                if proc.returncode != 0 or b"could not run" in proc.stderr or b"DEGRADED" in proc.stderr:
                    raise SystemExit(f"{event_name} exited {proc.returncode}: {proc.stderr.decode()[-400:]}")
                if i:
                    pairs.append(pass_wall)
                    pair_cpus.append(pass_cpu)
                    samples.append(wall)
                    cpus.append(used)
            door = f".claude/hooks/{launcher}" if launcher else f"okfpro hook {event_name}"
            return Timing(f"{door}, {what} ({args.n} concepts, {args.memories} memories)",
                          statistics.median(samples), runs, statistics.median(cpus),
                          Timing("python3 -c pass", statistics.median(pairs), runs, statistics.median(pair_cpus)))

        transcript = Path(tmp) / "t.jsonl"

        def stop_event(session: str):
            def make(i: int) -> dict:
                # a synthetic secret; the bench checks it never reaches disk  (okfpro:allow-secret on the next line)
                said = f"remember that release {session}{i} ships on Friday, password hunter2-{i}"  # okfpro:allow-secret
                transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": said}}) + "\n")
                return {"hook_event_name": "Stop", "session_id": session.format(i), "cwd": str(ws),
                        "transcript_path": str(transcript),
                        "last_assistant_message": f"Noted: release {session}{i} ships Friday."}
            return make

        def prompt_event(session: str):
            def make(i: int) -> dict:
                return {"hook_event_name": "UserPromptSubmit", "session_id": session.format(i), "cwd": str(ws),
                        "prompt": PROMPT}
            return make

        base = baseline()
        later, first = "a session's later turn", "a session's first event"
        rows = [timed("stop", stop_event("s-long"), args.runs, later),
                timed("user-prompt-submit", prompt_event("p-long"), args.runs, later),
                timed("stop", stop_event("s-{}"), args.runs, first),
                timed("user-prompt-submit", prompt_event("p-{}"), args.runs, first),
                timed("user-prompt-submit", prompt_event("p-long"), args.runs, later, "user_prompt_submit.py")]
        report("memory hooks (capture on Stop, recall on UserPromptSubmit)", rows, base)
        captured = list((ws / ".okf-memory").rglob("*.md"))
        leaked = sum(b"hunter2-" in p.read_bytes() for p in captured)
        print(f"captured files: {len(captured)}; secrets on disk: {leaked}")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        missed = [f"{t.label}: {t.ratio(base.p50):.1f}x > {limit}x"
                  for t, limit in zip(rows, (5, 4, None, None, 4)) if limit and t.ratio(base.p50) > limit]  # later turns
        missed += [f"{leaked} captured file(s) hold the synthetic secret"] if leaked else []
        for m in missed:
            print(f"MISSED: {m}")
        if args.check and missed:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
