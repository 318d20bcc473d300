"""``okfpro whoami``: the memory scope okfpro would use here, and where each part came from.

Read-only: it never binds a session.  Exit 0 when an identity resolves, 1 when none does
(multi-user mode without one, a poisoned session), 2 when the configuration is unusable.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from okfpro.cli.common import emit, memory_identity


@click.command("whoami")
@click.option("--json", "as_json", is_flag=True, help="Print the resolution as JSON.")
@click.option("--session", "session_id", default=None, help="Resolve as this host session id (no binding).")
@click.option(
    "-C",
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Workspace directory (default: as the memory verbs and hooks find it, from the current directory).",
)
def whoami_cmd(as_json: bool, session_id: str | None, workspace: Path | None) -> int:
    """Show the resolved memory scope and the provenance of each part (no secrets)."""
    from okfpro.io.identity import describe

    res = memory_identity(workspace, event={"session_id": session_id} if session_id else None, env=os.environ)

    def text() -> None:
        for line in describe(res):
            click.echo(line)

    emit(res.to_json(), as_json, False, text)
    return 0 if res.ok else 1
