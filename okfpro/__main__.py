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
    from okfpro.cli.app import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
