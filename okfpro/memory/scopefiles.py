"""One scope's files, on disk and in a commit: what sync and tombstones read and write.

Only day files (``YYYY-MM-DD.md``, regular files) count; a scope directory reached through a
symbolic link, or a commit whose scope holds anything else, is refused
(:class:`okfpro.core.daymerge.MergeConflict`), never followed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from okfpro.core.daymerge import MergeConflict
from okfpro.core.dayfile import DAY_RE
from okfpro.io.atomic import atomic_write
from okfpro.memory.layout import link_problem, read_day_file
from okfpro.memory.remote import Target


def tree_files(repo: pygit2.Repository, commit: pygit2.Commit | None, prefix: str) -> dict[str, bytes]:
    """The scope's files in ``commit`` (day files only; anything else refuses the scope)."""
    if commit is None:
        return {}
    tree = commit.tree
    for part in prefix.split("/"):
        try:
            item = tree[part]
        except KeyError:
            return {}
        tree = repo.get(item.id)
        if not isinstance(tree, pygit2.Tree):
            raise MergeConflict(f"{prefix} is not a directory in commit {str(commit.id)[:12]}")
    out: dict[str, bytes] = {}
    for item in tree:
        blob = repo.get(item.id)
        if not DAY_RE.match(item.name) or item.filemode != FileMode.BLOB or not isinstance(blob, pygit2.Blob):
            raise MergeConflict(f"{prefix}/{item.name} in commit {str(commit.id)[:12]} is not a day file")
        out[item.name] = blob.data
    return out


def disk_files(root: Path, prefix: str) -> dict[str, bytes] | None:
    directory = root.joinpath(*prefix.split("/"))
    problem = link_problem(root, directory)
    if problem:
        raise MergeConflict(f"{problem}; refusing to sync it")
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return None
    out = {}
    for name in names:
        if DAY_RE.match(name):
            out[name], _ = read_day_file(directory / name)
    return out


def write_scope(root: Path, target: Target, files: dict[str, bytes]) -> None:
    """Make the scope's directory hold exactly ``files`` (day files), and drop its index."""
    from okfpro.memory.index import erase_key

    directory = root.joinpath(*target.prefix.split("/"))
    problem = link_problem(root, directory)
    if problem:
        raise MergeConflict(f"{problem}; refusing to write it")
    current = disk_files(root, target.prefix) or {}
    if files:
        directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if current.get(name) != data:
            atomic_write(directory / name, data)
    for name in set(current) - set(files):
        (directory / name).unlink()
    erase_key(root, target.key)
