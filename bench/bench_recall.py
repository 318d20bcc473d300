#!/usr/bin/env python3
"""Memory at scale (issues #13 and #18): recall, remember and import against the memory index.

    python bench/bench_recall.py [--runs N] [--entries 10000] [--others 1000] [--per-other 100] [--check] [--editable]

Builds two workspaces whose memory roots hold (through ``MemoryStore.write_many``, the
import door, history on — one commit per scope):

* ``ws``: ``u10`` with 10 entries; ``big`` with ``--entries`` entries (20 per UTC day);
* ``ws-crowd``: the same ``big`` and ``--others`` other users with ``--per-other`` entries each;

* ``talk``: ``--entries`` turns of the example conversations (``examples/conversations-*.json``,
  repeated with their dates moved on), recalled with one question of each category: realistic
  words beside the worst case (reported, not a target);

then times fresh processes next to ``python3 -c pass``: ``memory recall`` in ``big``
(as ``python -m okfpro`` and through the ``okfpro`` console script, pip's wrapper, which users run)
and the same recall in ``ws-crowd`` (the figure must stay flat), ``memory remember`` with 10
and with ``--entries`` prior entries (within 20 %) — each pair compared run by run in turn, so
the machine's drift falls on both alike (``harness.interleaved``), and every row's ratio is to
``python3 -c pass`` run just before each of its runs — and ``memory import`` of 5,000
JSON lines with history on (entries per second).  Targets: recall ≤ 3× and flat (within
20 %) with the other users present, remember ≤ 4× and within 20 % from 10 to ``--entries``
prior entries, import ≥ 2,000 entries/s.  It also prints the load average, each fresh process's CPU time
(user + system, p50, next to ``python3 -c pass``'s), and in-process CPU
times (``time.process_time``, p50) of recall and remember, which a loaded machine distorts far
less than wall times.  ``--check`` exits 1 when a target is missed (each miss named).

The fresh processes (and ``python3 -c pass``) run in a throwaway venv holding a non-editable
install of this tree, as users install it (``harness.installed``); ``--editable`` times the
running interpreter's own install instead, whose editable finder adds ~12 ms to every process.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import Run, baseline, install_arg, installed, interleaved, measure, okfpro, report, script  # noqa: E402

from okfpro.core.scope import Scope  # noqa: E402
from okfpro.memory.store import MemoryStore  # noqa: E402

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()
START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


def fill(store: MemoryStore, scope: Scope, n: int, tag: str) -> None:
    rows = [(f"{tag} entry {i}: {WORDS[i % 13]} {WORDS[(i * 7) % 13]} note number {i}",
             START + dt.timedelta(days=i // 20, seconds=i % 20)) for i in range(n)]
    ids, _commit, error = store.write_many(scope, rows, "user", actor="bench", what=f"bench {n}")
    if error or len(ids) != n:
        raise SystemExit(f"fill failed: {error}")


CONVERSATIONS = [Path(__file__).resolve().parent.parent / "examples" / f"conversations-{x}.json" for x in "ab"]


def fill_talk(store: MemoryStore, scope: Scope, n: int) -> list[tuple[str, str]]:
    """``n`` turns of the example conversation sets (``bench/gen_conversations.py``) in one scope,
    "Speaker: text" as capture writes a turn, the sets repeated with their dates moved on four years
    each time; returns one question of each category (category, question) from the first set."""
    turns = []
    for path in CONVERSATIONS:
        turns += json.loads(path.read_text())["memories"]
    rows = []
    for i in range(n):
        turn = turns[i % len(turns)]
        when = dt.datetime.fromisoformat(turn["time"].replace("Z", "+00:00"))
        rows.append((f"{turn['speaker']}: {turn['text']}", when.replace(year=when.year + 4 * (i // len(turns)))))
    ids, _commit, error = store.write_many(scope, rows, "user", actor="bench", what=f"bench talk {n}")
    if error or len(ids) != n:
        raise SystemExit(f"fill failed: {error}")
    asked: dict[str, str] = {}
    for q in json.loads(CONVERSATIONS[0].read_text())["queries"]:
        asked.setdefault(q["category"], q["query"])
    return sorted(asked.items())


def in_process(store: MemoryStore, runs: int, entries: int) -> dict[str, float]:
    """CPU ms (p50 of ``runs``) of recall and remember in this process, after a warm-up."""
    import statistics

    from okfpro.io.clock import today
    from okfpro.memory.index import recall
    from okfpro.memory.policy import remember

    def cpu(fn) -> float:
        fn(-1)
        samples = []
        for i in range(runs):
            t0 = time.process_time()
            fn(i)
            samples.append((time.process_time() - t0) * 1000)
        return statistics.median(samples)

    day = today().isoformat()
    big, small = Scope(tenant="bench", user="big"), Scope(tenant="bench", user="u10")
    return {
        f"recall 'kilo note 4242' ({entries:,} entries)": cpu(lambda i: recall(store, big, "kilo note 4242", day, limit=10)),
        "recall 'lima juliet'": cpu(lambda i: recall(store, big, "lima juliet", day, limit=10)),
        "remember, 10 prior entries": cpu(lambda i: remember(store, small, f"cpu probe about lima {words_of(i)}")),
        f"remember, {entries:,} prior entries": cpu(lambda i: remember(store, big, f"cpu probe about lima {words_of(i)}")),
    }


def words_of(i: int) -> str:
    """A word no other probe has (digits spelled as letters: the policy ignores numbers)."""
    return "q" + "".join(chr(97 + int(d)) for d in str(i + 1000))


def misses(rows: list, base: float, rate: float) -> list[str]:
    """The targets of issues #13 and #18 this run missed (rows in the order main() adds them)."""
    recall_big, _recall_common, recall_others, remember_10, remember_big = rows
    out = []
    for t in (recall_big, recall_others):
        if t.ratio(base) > 3:
            out.append(f"{t.label}: {t.ratio(base):.1f}x > 3x")
    if recall_others.p50 > 1.2 * recall_big.p50:
        out.append(f"recall not flat with other users: {recall_others.p50 / recall_big.p50:.2f}x > 1.2x")
    for t in (remember_10, remember_big):
        if t.ratio(base) > 4:
            out.append(f"{t.label}: {t.ratio(base):.1f}x > 4x")
    if remember_big.p50 > 1.2 * remember_10.p50:
        out.append(f"remember not flat: {remember_big.p50 / remember_10.p50:.2f}x the 10-entry figure > 1.2x")
    if rate < 2000:
        out.append(f"import {rate:,.0f} entries/s < 2,000")
    return out


def misses_scripted(rows: list, base: float) -> list[str]:
    """The recall targets (3x, flat within 20 %) on the console script's rows."""
    alone, others = rows
    out = [f"{t.label}: {t.ratio(base):.1f}x > 3x" for t in rows if t.ratio(base) > 3]
    if others.p50 > 1.2 * alone.p50:
        out.append(f"script recall not flat with other users: {others.p50 / alone.p50:.2f}x > 1.2x")
    return out


def env_for(user: str) -> dict[str, str]:
    return {"OKFPRO_TENANT": "bench", "OKFPRO_USER": user, "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--others", type=int, default=1_000)
    ap.add_argument("--per-other", type=int, default=100)
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    install_arg(ap)
    args = ap.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    base = Path(tempfile.mkdtemp(prefix="okfpro-bench-recall-"))
    try:
        print("install timed: " + ("this interpreter's (--editable)" if args.editable
                                   else f"non-editable, {installed(str(base))}"), flush=True)
        ws = base / "ws"
        (ws / ".okf").mkdir(parents=True)
        (ws / "okfpro.toml").write_text("[memory]\n")
        store = MemoryStore(ws / ".okf-memory")
        t0 = time.perf_counter()
        fill(store, Scope(tenant="bench", user="u10"), 10, "u10")
        fill(store, Scope(tenant="bench", user="big"), args.entries, "big")
        print(f"built u10 + big ({args.entries:,} entries) in {time.perf_counter() - t0:.1f} s", flush=True)
        # the same scope once more, in a second workspace where the other users live too: the "flat"
        # rows time both workspaces in turn (harness.interleaved), so the machine's drift while the
        # others are written and over the runs cannot pass for a cost of the others, nor hide one
        crowd = base / "ws-crowd"
        (crowd / ".okf").mkdir(parents=True)
        (crowd / "okfpro.toml").write_text("[memory]\n")
        crowded = MemoryStore(crowd / ".okf-memory")
        t0 = time.perf_counter()
        fill(crowded, Scope(tenant="bench", user="big"), args.entries, "big")
        for k in range(args.others):
            fill(crowded, Scope(tenant="bench", user=f"other{k}"), args.per_other, f"other{k}")
        print(f"built big + {args.others:,} other users x {args.per_other} in {time.perf_counter() - t0:.1f} s",
              flush=True)
        talk_questions = fill_talk(store, Scope(tenant="bench", user="talk"), args.entries)
        os.sync()  # the entries' dirty pages are written back now, not during the timed runs
        base_t = baseline()
        query = ("memory", "recall", "kilo", "note", "4242", "--limit", "10")
        big = env_for("big")
        alone, others = interleaved([
            Run(okfpro(*query), cwd=str(ws), env=big, expect=(0,), label=f"recall: {args.entries:,} entries, no other user"),
            Run(okfpro(*query), cwd=str(crowd), env=big, expect=(0,),
                label=f"recall: {args.entries:,} entries, {args.others:,} other users")], runs=args.runs, paired=True)
        common = measure(okfpro("memory", "recall", "lima", "juliet", "--limit", "10"), runs=args.runs, cwd=str(ws),
                         env=big, expect=(0,), label=f"recall (2 common words): {args.entries:,} entries")
        scripted = interleaved([
            Run(script(*query), cwd=str(ws), env=big, expect=(0,),
                label=f"okfpro script: recall, {args.entries:,} entries, no other user"),
            Run(script(*query), cwd=str(crowd), env=big, expect=(0,),
                label=f"okfpro script: recall, {args.entries:,} entries, {args.others:,} other users")], runs=args.runs,
            paired=True)
        remember = ("memory", "remember", "benchmark note about lima")
        remember_10, remember_big = interleaved([
            Run(okfpro(*remember), cwd=str(ws), env=env_for("u10"), expect=(0,), label="remember: 10 prior entries"),
            Run(okfpro(*remember), cwd=str(ws), env=big, expect=(0,),
                label=f"remember: {args.entries:,} prior entries")], runs=args.runs, paired=True)
        rows = [alone, common, others, remember_10, remember_big]
        # the same size of scope, conversation turns instead of the 13-word vocabulary: questions whose
        # words are rarer (not a target row: the rows above are the worst case the targets are held to)
        talk = [measure(okfpro("memory", "recall", *question.split(), "--limit", "10"), runs=args.runs,
                        cwd=str(ws), env=env_for("talk"), expect=(0,),
                        label=f"recall, {args.entries:,} conversation turns: a {category} question")
                for category, question in talk_questions]
        report("memory at scale (python -m okfpro, a process each run)", rows, base_t)
        report("the same recall through the okfpro console script (pip's wrapper: what users run)", scripted, base_t)
        report("recall over conversation turns (examples/conversations-*.json; not a target row)", talk, base_t)
        cpu = in_process(store, args.runs, args.entries)
        for label, ms in cpu.items():
            print(f"in-process CPU p50: {label:<44} {ms:7.2f} ms")

        src = base / "import.jsonl"
        with src.open("w") as f:
            for i in range(5_000):
                f.write(json.dumps({"text": f"imported memo {i}: {WORDS[i % 13]} {WORDS[(i * 5) % 13]} {i * 7}",
                                    "time": (START + dt.timedelta(minutes=i)).isoformat(), "id": f"i{i}"}) + "\n")
        import subprocess

        t0 = time.perf_counter()
        proc = subprocess.run(okfpro("memory", "import", str(src), "--json"), cwd=str(ws),
                              env={**os.environ, **env_for("importer")}, capture_output=True)
        took = time.perf_counter() - t0
        out = json.loads(proc.stdout or b"{}")
        rate = out.get("imported", 0) / took
        print(f"\nimport 5,000 JSON lines, history on (one commit): {took:.2f} s -> {rate:,.0f} "
              f"entries/s (imported {out.get('imported')}, commits {len(out.get('commits', {}))})")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        missed = misses(rows, base_t.p50, rate) + misses_scripted(scripted, base_t.p50)
        for m in missed:
            print(f"MISSED: {m}")
        if args.check and missed:
            raise SystemExit(1)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
