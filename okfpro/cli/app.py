"""The click application over the verb table (``COMMANDS`` in okfpro/cli/__init__.py).

Commands are imported lazily, so ``okfpro --help`` does not pay for every verb's
dependencies.  :func:`run` turns whatever a command does into the exit code (0 ok,
1 findings, 2 usage / could not run); :func:`internal_error` and :func:`aborted` are the
reports it gives for a bug and an interrupt, shared with the click-free door
(okfpro/cli/memverbs.py).
"""

from __future__ import annotations

import importlib
import sys

import click

from okfpro import __version__
from okfpro.cli import COMMANDS


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        row = COMMANDS.get(name)
        if row is None:
            return None
        module = importlib.import_module(row[0])
        return getattr(module, row[1])

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, _, help_) in COMMANDS.items()]
        rows.append(("hook", "Agent-host hook door: okfpro hook EVENT|check NAME (JSON event on stdin)."))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="okfpro", message="%(prog)s %(version)s")
def cli() -> None:
    """okfpro — a Git-backed knowledge workspace for coding agents and their humans."""


def run(args: list[str]) -> int:
    """Run the click app and return its exit code (usage errors are 2, as click has them).  Everything
    it prints goes through :func:`okfpro.cli.human.human_streams`: control characters shown escaped."""
    from okfpro.cli.human import human_streams

    with human_streams(args[0] if args else None):
        return _run(args)


def _run(args: list[str]) -> int:
    try:
        rv = cli.main(args=args, prog_name="okfpro", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code not in (0, 1) else exc.exit_code
    except click.Abort:
        return aborted()
    except SystemExit as exc:  # a command that calls sys.exit / ctx.exit
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    except Exception:  # a bug: Python's own exit 1 would read as "findings"
        return internal_error(args[:1])
    # standalone_mode=False hands back ctx.exit(code)'s code, or the command's return value.
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def internal_error(verb: list[str]) -> int:
    """A bug's report (the traceback, then one line naming the verb); exit 2, since Python's
    own exit 1 would read as "findings".  Call from inside the ``except`` block."""
    import traceback

    traceback.print_exc()
    sys.stderr.write(
        f"okfpro {' '.join(verb)}: could not run — an internal error (traceback above); please report it "
        "with the command you ran.\n"
    )
    sys.stderr.flush()
    return 2


def aborted() -> int:
    """Ctrl-C or the end of input where an answer was awaited: one line, exit 2."""
    sys.stderr.write("okfpro: aborted\n")
    sys.stderr.flush()
    return 2
