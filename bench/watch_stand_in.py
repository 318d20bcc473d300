#!/usr/bin/env python3
"""A stand-in for the resident fork server, for bench_hooks.py ``--watched``: okfpro imported once,
one :class:`okfpro.resident.watch.WatchSet`, and per request a forked child that detaches from the
watch descriptor and runs ``okfpro.__main__.main(["hook", EVENT])`` — with the view
(``okfpro.resident.SERVED`` set) or without it (a warm child that still runs git).

Requests on stdin, one a line, tab-separated: ``view|noview WORKSPACE ROOT EVENT-FILE [HOOK [PATH TEXT]]``
(HOOK ``stop`` unless named; PATH written with TEXT, ``\n`` for a newline, before the request and
removed after it: a Write); answers on stdout:
``WALL CPU EXIT`` (seconds: from the drain before the fork to the child reaped; the child's user+system
CPU).  ``view`` runs the request once first, untimed: the timed one finds nothing changed since the
last (the bench's other rows write into the tree between rounds).  Not the server: no socket, no descriptors
passed; what it measures is the child's work."""

from __future__ import annotations

import gc
import importlib
import os
import resource
import sys
import time

import okfpro.resident as resident
from okfpro.resident.watch import WatchSet

WARM = ("okfpro.hooks.protocol", "okfpro.hooks.checks", "okfpro.hooks.context", "okfpro.hooks.stop",
        "okfpro.hooks.event", "okfpro.hooks.answer", "okfpro.io.spawn", "okfpro.io.workstate", "okfpro.io.watched",
        "okfpro.io.cachedir", "okfpro.io.atomic", "okfpro.memory.door", "okfpro.memory.capture", "okfpro.core.jsonc")


class Served:
    def __init__(self, ws: WatchSet) -> None:
        self.watches = ws

    def tell(self, message) -> None:
        pass


def serve() -> None:
    for name in WARM:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    gc.freeze()
    ws = WatchSet()
    for line in sys.stdin:
        mode, ws_dir, root, event, *more = line.rstrip("\n").split("\t")
        hook = more[0] if more else "stop"
        ws.add(root)
        if mode == "view":  # the request before, untimed: it remembers at the view's token
            fork_hook(ws, ws_dir, event, mode, hook, more[1:])
        wall, cpu, code = fork_hook(ws, ws_dir, event, mode, hook, more[1:])
        print(f"{wall} {cpu} {code}", flush=True)


def fork_hook(ws: WatchSet, ws_dir: str, event: str, mode: str, hook: str, new: list[str]) -> tuple[float, float, int]:
    """One request in a forked child; ``new``: (a path, its text) written before and removed after."""
    if new:
        with open(new[0], "w", encoding="utf-8") as fh:
            fh.write(new[1].replace("\\n", "\n"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    ws.drain()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            ws.detach()
            fd = os.open(event, os.O_RDONLY)
            os.dup2(fd, 0)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            # the child's own streams on those descriptors (the server's stdin holds requests it has read ahead)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - until os._exit
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            os.chdir(ws_dir)
            resident.SERVED = Served(ws) if mode == "view" else None
            from okfpro.__main__ import main

            code = main(["hook", hook])
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if new:
        os.unlink(new[0])
    return wall, cpu, os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    serve()
