"""Where the persistent memory index (:mod:`okfpro.memory.index`) lives on disk, and how erasure
removes it and proves it gone: one SQLite file per (tier, scope) key under the memory root's
``.okf-index/``, named by a digest of the key, with the side files SQLite may keep next to it.
"""

from __future__ import annotations

import os

from hashlib import sha256
from okfpro.core.scope import Scope, scope_key
from okfpro.io import dbfiles
from okfpro.memory.layout import link_problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Iterable

INDEX_DIR = ".okf-index"


def index_dir(root: str | os.PathLike) -> str:
    return os.path.join(root, INDEX_DIR)


def index_path(root: str | os.PathLike, tier: str, scope: Scope) -> str:
    return key_path(root, scope_key(tier, scope))


def key_path(root: str | os.PathLike, key: str) -> str:
    digest = sha256(key.encode("utf-8")).hexdigest()[:32]
    return os.path.join(index_dir(root), f"{digest}.sqlite")


index_files = dbfiles.files


def remove(path: str | os.PathLike) -> None:
    """The index at ``path`` and its side files, deleted (an error other than "already gone" is raised)."""
    dbfiles.remove(path, strict=True)


def erase_key(root: str | os.PathLike, key: str) -> None:
    """Forget / purge: the index of scope key ``key`` goes with its files — never through a link
    out of the root (the index refuses to live there: what the link leads to is not ours)."""
    if not link_problem(root, index_dir(root)):
        remove(key_path(root, key))


def scan_for(root: str | os.PathLike, needles: Iterable[bytes]) -> list[str]:
    """Index files (database, journal, WAL) holding any of ``needles``."""
    wanted = [n for n in needles if n]
    out: list[str] = []
    directory = index_dir(root)
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return out
    for name in names:
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if any(n in data for n in wanted):
            out.append(path)
    return out
