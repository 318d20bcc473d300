"""``okfpro render``'s disk half: the served UI drawn once into one file, written atomically.

The pages are :mod:`okfpro.serve`'s (the same templates and Markdown as ``okfpro serve``;
:mod:`okfpro.serve.export` lays them into one document); board, log and journal are read through
:mod:`okfpro.io.workstate`'s rules, never through a state file that resolves outside the bundle.
"""

from __future__ import annotations

from pathlib import Path

from okfpro.core.concept import Bundle


def draw(root: Path, bundle: Bundle, title: str, *, layout_name: str = "cose", map_view: bool = False,
         link: str | None = None) -> str:
    """The page of the bundle at ``root``, with its workspace."""
    from okfpro.serve.export import document

    if link is not None and not link.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {link!r}")
    return document(root, bundle, title, layout_name=layout_name, map_view=map_view, link=link)


def write(target: Path, document: str) -> None:
    """The page written atomically to ``target`` (OSError when it cannot be: a directory there included)."""
    from okfpro.io.atomic import atomic_write

    if target.is_dir():
        raise IsADirectoryError(21, "it is a directory")
    atomic_write(target, document)
