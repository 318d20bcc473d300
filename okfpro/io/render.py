"""``okfpro render``'s disk half: read the workspace beside the bundle, draw the page, write it.

The page itself is pure (:mod:`okfpro.core.render`); this module reads what it shows besides the
bundle — ``board.md``, ``log.md`` and the projects, through :mod:`okfpro.io.workstate`, never
through a state file that resolves outside the bundle — and writes the page atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from okfpro.core import render as _render
from okfpro.core.concept import Bundle


def workspace_facts(root: Path) -> dict[str, Any] | None:
    """The board rows, the Snapshot history and the open projects, or None without a board."""
    from okfpro.io import clock
    from okfpro.io import workstate as ws

    if not (root / "board.md").is_file() or ws.escaping_state_files(root):
        return None
    projects = [p.slug for p in ws.projects(root, emptiness=False) if not p.closed]
    return _render.workspace(ws.board_text(root) or "", ws.read_optional(root / "log.md") or "", projects,
                             clock.today())


def draw(root: Path, bundle: Bundle, title: str, *, layout_name: str = "cose", map_view: bool = False,
         link: str | None = None) -> str:
    """The page of the bundle at ``root``, with its workspace."""
    return _render.page(title, bundle, workspace_facts(root), layout_name=layout_name, map_view=map_view, link=link)


def write(target: Path, document: str) -> None:
    """The page written atomically to ``target`` (OSError when it cannot be: a directory there included)."""
    from okfpro.io.atomic import atomic_write

    if target.is_dir():
        raise IsADirectoryError(21, "it is a directory")
    atomic_write(target, document)
