"""``okfpro render [DIR] [-o FILE] [-t TITLE] [-l URL] [--layout NAME] [--map]``: the bundle as one
self-contained HTML page (the reference's flags: ``--layout`` cose, concentric, breadthfirst,
circle or grid; ``--map`` opens the Map view, concepts boxed by directory, links shown on
selection — a button switches views).

The page (see :mod:`okfpro.core.render`; the workspace is read and the file written by
:mod:`okfpro.serve.export`) needs no network: open it from disk.  Without
``-o`` the HTML goes to stdout, as the reference's.  With ``-o FILE`` it is written
atomically and ``wrote N concepts to FILE`` is printed.  When the bundle has a
``board.md`` the page also carries the workspace: the board, the log's Snapshot
history as a chart, the open projects.  Exit 0 written, 2 usage / could not write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from okfpro.core.render import LAYOUTS


@click.command("render")
@click.argument("dir_arg", metavar="[DIR]", required=False)
@click.option("-o", "--output", metavar="FILE", help="Write the page to FILE (default: stdout).")
@click.option("-t", "--title", metavar="TITLE", help="The page's title (default: the bundle's name).")
@click.option("-l", "--link", metavar="URL", help="A source URL shown in the header (http or https).")
@click.option("--layout", "layout_name", type=click.Choice(LAYOUTS), default="cose", show_default=True,
              help="The graph's initial layout (the reference's names; cose: directories as clusters).")
@click.option("--map", "map_view", is_flag=True, help="Draw the graph as the Map view: a box per directory, its concepts inside.")
def render_cmd(dir_arg: str | None, output: str | None, title: str | None, link: str | None, layout_name: str,
               map_view: bool) -> int:
    """Write the bundle (and its workspace) as one self-contained HTML file: serve's views —
    index, catalog, files, tags, types, stats, graph, board, journal, log, lint, every concept."""
    from okfpro.cli.common import fail, open_bundle
    from okfpro.serve import export as render

    if link is not None and not link.lower().startswith(("http://", "https://")):
        fail(f"--link takes an http or https URL, not {link!r}")
    opened = open_bundle(dir_arg, None)
    root = Path(opened.root)
    document = render.draw(root, opened.bundle, title or _label(root), layout_name=layout_name, map_view=map_view,
                           link=link)
    if not output:
        sys.stdout.write(document)
        return 0
    try:
        render.write(Path(output), document)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    n = len(opened.bundle.concepts)
    click.echo(f"wrote {n} concept{'' if n == 1 else 's'} to {output}")
    return 0


def _label(root: Path) -> str:
    """``parent/dir``, or the parent alone when the bundle is a ``.okf`` (as the reference names one)."""
    real = Path(os.path.abspath(root))
    parent, base = real.parent.name, real.name
    if not parent:
        return base or str(real)
    return parent if base == ".okf" else f"{parent}/{base}"
