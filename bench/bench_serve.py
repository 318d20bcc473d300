#!/usr/bin/env python3
"""``okfpro serve``: start to first page, and warm views, on generated workspaces.

    python bench/bench_serve.py [--start 10000] [--views 50000] [--runs N] [--work DIR]

* start to first page: a fresh ``okfpro serve WS --port 0`` process until its ``/`` answered
  (cold: no parse cache; warm: the parse cache filled by a previous run), p50 of ``--runs``.
* warm views: one server on the ``--views`` workspace; each view asked once to warm it, then
  ``--runs`` x 5 times; p50 and p90 of the request's wall time (HTML page and its JSON).
  The bar (issue 39): a view at 50,000 concepts in <= 100 ms p50 warm.
* the version poll (what every open page asks twice a second), and a page after an edit (the
  bundle revalidated and re-read through the parse cache).
``python3 -c pass`` is measured in the same run for the ratio.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from harness import PYTHON, baseline  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
VIEWS = ["/", "/catalog", "/files", "/tags", "/types", "/stats", "/board", "/log", "/journal", "/lint",
         "/search?q=cache+kafka", "/search?q=cache+kafka&engine=ranked", "/_layout", "/_version"]


def generate(work: Path, n: int) -> Path:
    """The workspace of ``n`` concepts under ``work``, generated once (seed 7) and kept for later runs."""
    from gen_bundle import generate as gen

    ws = work / f"b{n}"
    if not (ws / ".okf" / "index.md").exists():
        gen(ws, n)
    return ws


def start(ws: Path, env: dict[str, str]) -> tuple[subprocess.Popen, int, str]:
    proc = subprocess.Popen([PYTHON, "-m", "okfpro", "serve", ".okf", "--port", "0"], cwd=ws, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(r"http://([^/ ]+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"serve did not start: {line!r}")
    return proc, int(m.group(1).rsplit(":", 1)[1]), m.group(1)


def get(port: int, host: str, path: str, accept: str = "text/html") -> tuple[int, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    try:
        conn.request("GET", path, headers={"Host": host, "Accept": accept})
        r = conn.getresponse()
        return r.status, len(r.read())
    finally:
        conn.close()


def get_body(port: int, host: str, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    try:
        conn.request("GET", path, headers={"Host": host, "Accept": "text/html"})
        return conn.getresponse().read()
    finally:
        conn.close()


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def first_page(ws: Path, runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc, port, host = start(ws, env)
        try:
            status, _ = get(port, host, "/")
            assert status == 200
            out.append(time.perf_counter() - t0)
        finally:
            stop(proc)
    return out


def p(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", type=int, default=10000)
    ap.add_argument("--views", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=None)
    ap.add_argument("--skip-start", action="store_true", help="Only the warm views.")
    ap.add_argument("--no-search", action="store_true", help="Leave the two searches out (the engines' own cost).")
    args = ap.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="okfpro-bench-serve-"))
    base = baseline()
    print(f"python3 -c pass p50 {base.p50 * 1000:.1f} ms")

    if not args.skip_start:
        ws = generate(work, args.start)
        cold = first_page(ws, args.runs, {**ENV, "OKFPRO_NO_CACHE": "1"})
        warm = first_page(ws, args.runs, ENV)
        for label, values in (("no parse cache", cold), ("warm parse cache", warm)):
            print(f"start to first page, {args.start} concepts, {label:<17} p50 "
                  f"{statistics.median(values) * 1000:8.1f} ms  {statistics.median(values) / base.p50:6.1f} x python3 -c pass",
                  flush=True)

    ws = generate(work, args.views)
    t0 = time.perf_counter()
    proc, port, host = start(ws, ENV)
    get(port, host, "/_version")
    print(f"serve {args.views} concepts: listening and read in {(time.perf_counter() - t0) * 1000:.0f} ms", flush=True)
    try:
        # the server's warm-up (lint, layout, index) takes the CPU: measure once it is done
        probe = next((ws / ".okf" / "topics" / "t00").glob("*.md"))
        t0 = time.perf_counter()
        while b'id="lint-pending"' in get_body(port, host, f"/concept?id=topics/t00/{probe.stem}"):
            time.sleep(0.5)
        print(f"warm-up (lint, layout, index) done {(time.perf_counter() - t0) * 1000:.0f} ms later", flush=True)
        v1 = get_body(port, host, "/_version")
        v2 = get_body(port, host, "/_version")
        print(f"kept parse: {'yes' if v1 == v2 else 'NO — the bundle was re-read between two requests'}", flush=True)
        for path in [v for v in VIEWS if not (args.no_search and v.startswith("/search"))]:
            for accept in (("text/html", "application/json") if not path.startswith("/_") else ("*/*",)):
                t0 = time.perf_counter()
                status, size = get(port, host, path, accept)
                first = time.perf_counter() - t0
                times = []
                for _ in range(args.runs * 5):
                    t0 = time.perf_counter()
                    get(port, host, path, accept)
                    times.append(time.perf_counter() - t0)
                kind = "json" if accept == "application/json" else ("html" if accept == "text/html" else "")
                print(f"{args.views} concepts {path:<38} {kind:<4} {status} {size / 1e6:7.2f} MB  first "
                      f"{first * 1000:8.1f} ms  warm p50 {statistics.median(times) * 1000:7.1f} ms  "
                      f"p90 {p(times, 0.9) * 1000:7.1f} ms", flush=True)
        concept = next((ws / ".okf" / "topics" / "t00").glob("*.md"))
        cid = f"topics/t00/{concept.stem}"
        times = []
        for _ in range(args.runs * 5):
            t0 = time.perf_counter()
            get(port, host, f"/concept?id={cid}")
            times.append(time.perf_counter() - t0)
        print(f"{args.views} concepts /concept?id=…  html warm p50 {statistics.median(times) * 1000:7.1f} ms", flush=True)
        concept.write_text(concept.read_text() + "\nan edit\n")
        t0 = time.perf_counter()
        get(port, host, "/_version", "*/*")
        t1 = time.perf_counter()
        get(port, host, f"/concept?id={cid}")
        print(f"after an edit: /_version {(t1 - t0) * 1000:.0f} ms (the re-read), then the page "
              f"{(time.perf_counter() - t1) * 1000:.0f} ms", flush=True)
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
