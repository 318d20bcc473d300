"""``okfpro init [DIR]`` and ``okfpro upgrade [DIR]``: write the workspace template.

Exit codes: 0 wrote or staged, 2 usage or refused (nothing written when refused).
"""

from __future__ import annotations

from pathlib import Path

import click

from okfpro.cli.common import dumps, fail

_AGENT_CHOICE = click.Choice(["claude", "codex", "gemini"], case_sensitive=False)


def _run(directory: str, agents: tuple[str, ...], as_json: bool, upgrade: bool) -> int:
    from okfpro.io.scaffold import WIRING_MARKERS, ScaffoldError, install, render

    if directory.startswith("@"):
        fail(f"DIR takes a directory path, not a bundle slug ({directory!r}).")
    dest = Path(directory)
    chosen = tuple(dict.fromkeys(a.lower() for a in agents))
    if upgrade and not chosen:
        chosen = tuple(a for a, marker in WIRING_MARKERS.items() if (dest / marker).exists()) or ("claude",)
    if not chosen:
        chosen = ("claude",)
    if upgrade and not dest.is_dir():
        fail(f"refused — {dest} is not a directory (run `okfpro init {directory}` first)")
    try:
        report = install(dest, agents=chosen, upgrade=upgrade)
    except ScaffoldError as exc:
        fail(f"refused — {exc}")
    except OSError as exc:
        fail(f"could not write: {exc}")
    click.echo(dumps(report.as_json(), pretty=True) if as_json else render(report))
    return 0


@click.command("init")
@click.argument("directory", default=".", required=False)
@click.option("--agent", "agents", multiple=True, type=_AGENT_CHOICE,
              help="Agent host to wire the hooks for (claude, codex, gemini); repeatable. Default: claude.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def init_cmd(directory: str, agents: tuple[str, ...], as_json: bool) -> int:
    """Make DIR (default: .) an agent's working brain.

    Writes the tool-owned files and the seeded .okf/ bundle, never overwriting: a file that
    exists and differs gets the template's version beside it as <path>.okfpro-new (files inside
    .okf/ are kept as they are). A directory that is not in a Git repository gets one.
    """
    return _run(directory, agents, as_json, upgrade=False)


@click.command("upgrade")
@click.argument("directory", default=".", required=False)
@click.option("--agent", "agents", multiple=True, type=_AGENT_CHOICE,
              help="Agent host whose wiring to complete; default: the hosts already wired.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def upgrade_cmd(directory: str, agents: tuple[str, ...], as_json: bool) -> int:
    """Rewrite the tool-owned files in DIR (hooks, skill, pre-commit config, CI workflow).

    Seeded files (the bundle, CLAUDE.md, README.md, settings) are only completed when
    missing, never overwritten.
    """
    return _run(directory, agents, as_json, upgrade=True)
