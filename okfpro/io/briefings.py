"""The briefings the Stop gate counts and pairs: each one's id, whether it awaits a human's read,
whether a human has verified it — read afresh, or kept against a resident watch view and updated
by what changed under ``reference/`` since.

A fresh process (no view) reads every concept under ``reference/``
(:func:`okfpro.io.workstate.reference_concepts`).  In a child of the resident server the answer
is kept at the view's token (:class:`okfpro.io.watched.Remembered`) with the directories the walk
entered; a later Stop re-lists only the directories holding a change, re-walks only a changed
directory's subtree, and re-reads only the changed files.  Anything the view cannot say, or a
change to ``reference`` itself, is a full read.  The answer equals the fresh one
(``tests/test_briefings_watched.py``).
"""

from __future__ import annotations

import os
import sys

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.concept import Concept

REF = "reference"


class Briefing(Value):
    """What the Stop gate reads of one briefing (a concept under ``reference/`` whose id is there)."""

    _fields = ("id", "awaiting_read", "trust")
    id: str
    awaiting_read: bool
    trust: str

    def __init__(self, id: str, awaiting_read: bool, trust: str) -> None:  # noqa: A002 - the concept's field
        self.id = id
        self.awaiting_read = awaiting_read
        self.trust = trust


def _counted(c: "Concept") -> Briefing | None:
    """``c`` as the gate reads it, or None when it changes none of its counts and pairings."""
    from okfpro.io.workstate import is_briefing

    if not is_briefing(c):
        return None
    trust = c.trust
    awaiting = c.awaiting_read
    if not awaiting and trust != "human-reviewed":
        return None
    return Briefing(c.id, awaiting, "human-reviewed" if trust == "human-reviewed" else "")


def briefings(root: str) -> list[Briefing]:
    """The briefings under ``root`` that await a read or that a human verified, in the walk's order."""
    resident = sys.modules.get("okfpro.resident")  # only the server and its children import it
    view = None if resident is None else resident.watches()
    if view is None:
        from okfpro.io.workstate import reference_concepts

        return [b for b in map(_counted, reference_concepts(root)) if b is not None]
    return _remembered(view, root)


def _relevant(path: str) -> bool:
    return path == REF or path.startswith(REF + "/")


def _remembered(view, root: str) -> list[Briefing]:
    from okfpro.core import jsonc
    from okfpro.io.watched import Remembered

    root_real = os.path.realpath(root)
    kept = Remembered(view, root_real, "briefings", _relevant)
    since = kept.since()
    state = None
    if since is not None:
        try:
            dirs, flags, ids = jsonc.loads(since[0])
            state = (set(dirs), {rel: Briefing(ids.get(rel) or rel[:-3], bool(f & 1), "human-reviewed" if f & 2 else "")
                                 for rel, f in flags.items()})
        except (ValueError, TypeError, AttributeError):
            state = None
    if state is not None and since is not None and not since[1]:
        return _ordered(state[1])
    if state is None or since is None or REF in since[1] or REF + "/" in since[1]:
        state = _walked(root_real)
    else:
        _update(root_real, state[0], state[1], since[1])
    dirs, files = state
    # per briefing: 1 awaits a read, 2 a human verified it; its id only when it is not its path's
    flags = {rel: b.awaiting_read | (2 if b.trust else 0) for rel, b in files.items()}
    ids = {rel: b.id for rel, b in files.items() if b.id != rel[:-3]}
    kept.keep(jsonc.dumps([sorted(dirs), flags, ids]))
    return _ordered(files)


def _ordered(files: dict[str, Briefing]) -> list[Briefing]:
    return [files[rel] for rel in sorted(files)]


def _read(root_real: str, rel: str) -> Briefing | None:
    from okfpro.core.concept import Concept, parse_entry
    from okfpro.io.reader import read_bytes

    try:
        raw = read_bytes(root_real, rel)
    except OSError:
        return None
    item = parse_entry(rel, raw)
    return _counted(item) if isinstance(item, Concept) else None


def _walked(root_real: str) -> tuple[set[str], dict[str, Briefing]]:
    """The directories :func:`okfpro.io.workstate.reference_concepts` enters and its counted
    briefings, read now (``rel``: root-relative)."""
    import stat

    ref = os.path.join(root_real, REF)
    try:
        if not stat.S_ISDIR(os.lstat(ref).st_mode):
            return set(), {}
    except OSError:
        return set(), {}
    return _subtree(root_real, REF)


def _subtree(root_real: str, top: str) -> tuple[set[str], dict[str, Briefing]]:
    """The reader's walk of the directory ``top`` (root-relative, entered by the walk)."""
    from okfpro.io.reader import walk

    entered: list = []
    rels = walk(os.path.join(root_real, top), entered)
    dirs = {f"{top}/{d}" if d else top for d, _st in entered}
    files = {}
    for rel in rels:
        found = _read(root_real, f"{top}/{rel}")
        if found is not None:
            files[f"{top}/{rel}"] = found
    return dirs, files


def _update(root_real: str, dirs: set[str], files: dict[str, Briefing], changed: set[str]) -> None:
    """Bring ``dirs`` and ``files`` (the walk's as it stood at the kept token) to the disk now,
    when only ``changed`` (paths under ``reference/``, a directory as ``dir/``: everything at or
    under it) changed since: a changed directory's subtree is forgotten; then each directory that
    holds a change and that the walk still enters (no changed directory above it) is listed again —
    its changed files read again, its files gone dropped, a subdirectory it did not have walked."""
    from okfpro.io.reader import listing

    names = {p.rstrip("/") for p in changed}
    for p in changed:
        if p.endswith("/"):
            gone = p[:-1]
            below = gone + "/"
            for d in [d for d in dirs if d == gone or d.startswith(below)]:
                dirs.discard(d)
            for rel in [rel for rel in files if rel == gone or rel.startswith(below)]:
                del files[rel]
    areas = sorted({name.rpartition("/")[0] for name in names if "/" in name}, key=lambda d: (d.count("/"), d))
    for area in areas:
        if area not in dirs:
            continue  # not entered by the walk, or under a changed directory walked below
        try:
            here, subs = listing(os.path.join(root_real, area))
        except OSError:
            here, subs = [], []
        listed = set(here)
        for rel in [rel for rel in files if rel.rpartition("/")[0] == area and rel.rpartition("/")[2] not in listed]:
            del files[rel]
        for name in here:
            rel = f"{area}/{name}"
            if rel in names:
                found = _read(root_real, rel)
                if found is None:
                    files.pop(rel, None)
                else:
                    files[rel] = found
        have = set(subs)
        for d in [d for d in dirs if d.rpartition("/")[0] == area and d.rpartition("/")[2] not in have]:
            below = d + "/"
            for gone in [g for g in dirs if g == d or g.startswith(below)]:
                dirs.discard(gone)
            for rel in [rel for rel in files if rel.startswith(below)]:
                del files[rel]
        for name in subs:
            sub = f"{area}/{name}"
            if sub not in dirs:
                more_dirs, more_files = _subtree(root_real, sub)
                dirs.update(more_dirs)
                files.update(more_files)
