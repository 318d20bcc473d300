"""``okfpro render [DIR] [-o FILE] [-t TITLE]``: the bundle as one self-contained HTML page.

The page (see :mod:`okfpro.core.render`) needs no network: open it from disk.  Without
``-o`` the HTML goes to stdout, as the reference's.  With ``-o FILE`` it is written
atomically and ``wrote N concepts to FILE`` is printed.  When the bundle has a
``board.md`` the page also carries the workspace: the board, the log's Snapshot
history as a chart, the open projects.  Exit 0 written, 2 usage / could not write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click


def workspace_facts(root: Path) -> dict[str, Any] | None:
    """The board rows, the Snapshot history and the open projects, or None without a board."""
    from okfpro.core import board as _board
    from okfpro.core import log as _log
    from okfpro.core import render as _render
    from okfpro.core import snapshot as _snapshot
    from okfpro.io import clock
    from okfpro.io import workstate as ws

    if not (root / "board.md").is_file() or ws.escaping_state_files(root):
        return None
    text = ws.board_text(root) or ""
    rows = [{"section": r["section"], "text": r["text"]} for r in _board.rows_json(_board.parse(text), clock.today())]
    log = _log.parse(ws.read_optional(root / "log.md") or "")
    days = []
    for day in log.days:
        line = log.snapshot_line(day)
        if line is not None:
            days.append((day, _snapshot.parse(line)))
    projects = [p.slug for p in ws.projects(root, emptiness=False) if not p.closed]
    return {"board": rows, "snapshots": _render.snapshot_history(days), "projects": projects}


@click.command("render")
@click.argument("dir_arg", metavar="[DIR]", required=False)
@click.option("-o", "--output", metavar="FILE", help="Write the page to FILE (default: stdout).")
@click.option("-t", "--title", metavar="TITLE", help="The page's title (default: the bundle's name).")
def render_cmd(dir_arg: str | None, output: str | None, title: str | None) -> None:
    """Write the bundle (and its workspace) as one self-contained HTML page: the graph with
    directories as clusters, hubs, search, click to read; the board, Snapshot history, open projects."""
    from okfpro.cli.common import fail
    from okfpro.cli.views import open_bundle
    from okfpro.core.render import page

    opened = open_bundle(dir_arg, None)
    root = Path(opened.root)
    name = title or _label(root)
    document = page(name, opened.bundle, workspace_facts(root))
    if not output:
        sys.stdout.write(document)
        return
    from okfpro.io.atomic import atomic_write

    target = Path(output)
    if target.is_dir():
        fail(f"cannot write {output}: it is a directory")
    try:
        atomic_write(target, document)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    n = len(opened.bundle.concepts)
    click.echo(f"wrote {n} concept{'' if n == 1 else 's'} to {output}")


def _label(root: Path) -> str:
    """``parent/dir``, or the parent alone when the bundle is a ``.okf`` (as the reference names one)."""
    real = Path(os.path.abspath(root))
    parent, base = real.parent.name, real.name
    if not parent:
        return base or str(real)
    return parent if base == ".okf" else f"{parent}/{base}"
