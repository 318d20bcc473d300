"""Entry point for ``okfpro`` and ``python -m okfpro``.

The hook door (``okfpro hook ...``), Git's merge driver (``okfpro merge-file ...``) and
``okfpro memory remember|recall`` are dispatched before click is imported: an agent host
starts a fresh process per event, Git one per conflicting file, a script one per memory
call, so those paths stay light (tests/test_import_diet.py pins what they import).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    # Every okfpro process is one-shot (a verb, or one hook event): it allocates many acyclic
    # objects (~10 per concept parsed) and exits soon after, so the cyclic collector only costs
    # time (about a third of lint at 10k concepts); reference counting still frees what it can.
    import gc

    gc.disable()
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "hook":
        try:
            from okfpro.hooks.protocol import main as hook_main
        except BaseException as exc:  # noqa: BLE001 - the hook door must never exit 1
            sys.stderr.write(
                f"ENFORCEMENT DEGRADED — okfpro's hook protocol could not be loaded ({type(exc).__name__}: {exc}); "
                "nothing was checked, so the call is refused.\n"
            )
            return 2
        return hook_main(args[1:])
    if args and args[0] == "merge-file":  # Git's merge driver: one process per conflicting file
        from okfpro.io.mergedriver import main as merge_main

        return merge_main(args[1:])
    if args in (["--version"], ["-V"], ["version"]):
        from okfpro import __version__

        print(f"okfpro {__version__}")
        return 0
    if len(args) > 1 and args[0] == "memory" and args[1] in ("remember", "recall"):
        # a fresh process per turn: the two verbs a host or script runs most read their options
        # without click, from the same table as the click commands (okfpro/cli/memverbs.py)
        from okfpro.cli.memverbs import direct

        code = direct(args[1:])
        if code is not None:
            return code
    if len(args) > 1 and args[:2] == ["memory", "server-hook"]:
        # a Git server: one process per HTTP request (the CGI wrapper) and per push (pre-receive)
        from okfpro.cli.serverdoor import direct as server_direct

        code = server_direct(args[2:])
        if code is not None:
            return code
    from okfpro.cli.app import run

    return run(args)


def _light(args: list[str]) -> bool:
    """The paths a host, Git or a script starts once per event, file or turn."""
    return bool(args) and (args[0] in ("hook", "merge-file")
                           or (len(args) > 1 and args[0] == "memory" and args[1] in ("remember", "recall")))


def entry() -> None:
    """The process entry point (the ``okfpro`` script and ``python -m okfpro``).

    A light path ends with :func:`exit_now`: its answer is written, so tearing the interpreter
    down (every module's objects freed, a last collection) would only delay the host waiting for
    the process to end.  Other verbs exit the ordinary way."""
    args = sys.argv[1:]
    if not _light(args):
        try:
            code = main(args)
            sys.stdout.flush()  # here, not in the teardown, which would report a reader gone as exit 120
        except BrokenPipeError:  # stdout's reader went away (`okfpro --version | true`): quietly
            from okfpro.cli.memverbs import reader_gone

            code = reader_gone()
        sys.exit(code)
    try:
        status: object = main(args)
    except SystemExit as exc:
        status = exc.code
    exit_now(status)


def exit_now(code: object) -> None:
    """End the process as ``sys.exit(code)`` would, without the interpreter's teardown: the
    ``atexit`` callbacks run (``weakref.finalize`` and ``logging`` register there), stdout and
    stderr are flushed, then ``os._exit``.  What the teardown would still do — free memory,
    close descriptors, drop ``fcntl`` locks — the kernel does at exit; every file okfpro writes is
    closed (and fsync'd where it must be) before the answer is returned."""
    import atexit
    import os

    atexit._run_exitfuncs()
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        try:
            sys.stderr.write(f"{code}\n")
        except Exception:  # noqa: BLE001 - as sys.exit: the message is best effort
            pass
        status = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with the descriptor closed
            continue
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a reader that went away: as Python, exit 120
            status = 120
    os._exit(status)


if __name__ == "__main__":
    entry()
