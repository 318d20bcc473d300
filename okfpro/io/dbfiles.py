"""The files of one SQLite database: the database itself and the side files SQLite may keep
beside it (a rollback journal, a write-ahead log and its shared-memory index).

The memory index, the bundle's ranked index and the post-edit state are each one such
database; removing one, or proving one gone, means all of its files.
"""

from __future__ import annotations

import os

SIDE_SUFFIXES = ("-journal", "-wal", "-shm")


def files(path: str | os.PathLike[str]) -> list[str]:
    """The database and every side file SQLite may keep next to it."""
    base = os.fspath(path)
    return [base, *(base + suffix for suffix in SIDE_SUFFIXES)]


def database_of(path: str) -> str:
    """The database a file of :func:`files` belongs to (itself when it is the database)."""
    for suffix in SIDE_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def remove(path: str | os.PathLike[str], *, strict: bool = False) -> None:
    """Delete the database and its side files; one already gone is fine.  ``strict``: any other
    failure is raised (an erasure must not pass over a file it could not delete); otherwise it
    is ignored (a cache that cannot be removed is rebuilt over or left)."""
    for name in files(path):
        try:
            os.unlink(name)
        except FileNotFoundError:
            continue
        except OSError:
            if strict:
                raise
