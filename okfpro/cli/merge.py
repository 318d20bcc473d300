"""``okfpro merge-file``: the COMMANDS row of Git's merge driver.

``okfpro merge-file ...`` from a shell or from Git never reaches click (okfpro/__main__.py
dispatches it first, to keep the per-file process light); this row lists the verb in
``okfpro --help`` and serves a caller that goes through the click app.  The work, and the one
argument parser, are in :mod:`okfpro.io.mergedriver`.
"""

from __future__ import annotations

import click


@click.command(
    "merge-file",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def merge_file_cmd(args: tuple[str, ...]) -> int:
    """Git's merge driver: okfpro merge-file [--marker-size N] BASE OURS THEIRS [PATH]."""
    from okfpro.io.mergedriver import main

    return main(list(args))
