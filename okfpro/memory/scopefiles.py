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
from okfpro.memory.remote import Caps, Target

def scope_tree(repo: pygit2.Repository, commit: pygit2.Commit | None, prefix: str,
               caps: Caps | None = None) -> pygit2.Tree | None:
    """The scope's directory in ``commit`` (``None``: it has none); ``caps``: a remote's
    commit, whose trees are sized before they are read."""
    if commit is None:
        return None
    if caps is not None:
        caps.check(repo, commit.tree_id, "a tree")
    tree = commit.tree
    for part in prefix.split("/"):
        try:
            item = tree[part]
        except KeyError:
            return None
        if caps is not None:
            caps.check(repo, item.id, f"the tree {part!r}")
        child = repo.get(item.id)
        if not isinstance(child, pygit2.Tree):
            raise MergeConflict(f"{prefix} is not a directory in commit {str(commit.id)[:12]}")
        tree = child
    return tree


def tree_ids(repo: pygit2.Repository, commit: pygit2.Commit | None, prefix: str,
             caps: Caps | None = None) -> dict[str, pygit2.Oid]:
    """name -> blob id of the scope's files in ``commit`` (no blob is read); anything but a
    regular day file refuses the scope."""
    tree = scope_tree(repo, commit, prefix, caps)
    out: dict[str, pygit2.Oid] = {}
    for item in tree if tree is not None else ():
        name = item.name or ""
        if not DAY_RE.match(name) or item.filemode != FileMode.BLOB:
            raise MergeConflict(f"{prefix}/{name} in a remote or local commit is not a day file")
        out[name] = item.id
    return out


def blobs(repo: pygit2.Repository, ids: dict[str, pygit2.Oid], names, caps: Caps | None = None) -> dict[str, bytes]:
    """The bytes of ``names`` (those ``ids`` has); ``caps``: a remote's, sized before read."""
    out = {}
    for name in sorted(names):
        if name in ids:
            if caps is not None:
                caps.check(repo, ids[name], f"the day file {name}")
            blob = repo.get(ids[name])
            if not isinstance(blob, pygit2.Blob):
                raise MergeConflict(f"{name}: object {ids[name]} is missing or not a file")
            if caps is not None:
                caps.lines(blob.data, f"the day file {name}")
            out[name] = blob.data
    return out


def _directory(root: Path, prefix: str) -> Path:
    directory = root.joinpath(*prefix.split("/"))
    problem = link_problem(root, directory)
    if problem:
        raise MergeConflict(f"{problem}; refusing to sync it")
    return directory


def disk_names(root: Path, prefix: str) -> set[str] | None:
    """The day files in the scope's directory (``None``: no directory)."""
    try:
        return {n for n in os.listdir(_directory(root, prefix)) if DAY_RE.match(n)}
    except FileNotFoundError:
        return None


def disk_files(root: Path, prefix: str, names=None) -> dict[str, bytes] | None:
    """The scope's day files on disk (only ``names`` when given), read through the store's guard."""
    have = disk_names(root, prefix)
    if have is None:
        return None
    directory = _directory(root, prefix)
    return {n: read_day_file(directory / n)[0] for n in sorted(have if names is None else have & set(names))}


def write_scope(root: Path, target: Target, files: dict[str, bytes | None]) -> None:
    """Write (or, for ``None``, remove) the named day files of the scope, then drop its index."""
    from okfpro.memory.indexfiles import erase_key

    directory = _directory(root, target.prefix)
    current = disk_files(root, target.prefix, files) or {}
    if any(data is not None for data in files.values()):
        directory.mkdir(parents=True, exist_ok=True)
        directory = _directory(root, target.prefix)  # created: still no link on the way
    for name, data in sorted(files.items()):
        if data is None:
            if name in current:
                (directory / name).unlink()
        elif current.get(name) != data:
            atomic_write(directory / name, data)
    erase_key(root, target.key)
