"""What the Stop gate reads of a dirty tree beyond the board and the log — the briefings under
``reference/`` (their ids: awaiting a human's read, verified by one) and the projects under
``projects/`` — read afresh, or kept against a resident watch view and updated by what changed since.

A fresh process (no view) reads them as :func:`okfpro.io.workstate.reference_concepts` and
:func:`okfpro.io.workstate.projects` do.  In a child of the resident server each answer is kept at
the view's token (:class:`okfpro.io.watched.Remembered`).  For the briefings, a later Stop re-lists
only the directories holding a change, re-walks only a changed directory's subtree and re-reads
only the changed files; for the projects, it reads again only the projects holding a change.
Anything the view cannot say, or a change to ``reference`` / ``projects`` itself, is a full read.
Each answer equals the fresh one (``tests/test_stopfacts_watched.py``).
"""

from __future__ import annotations

import os
import sys

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.concept import Concept

REF = "reference"
AWAITS, VERIFIED = 1, 2  # a briefing's flags: it awaits a human's read; a human verified it


class Briefings(Value):
    """The ids of the briefings (concepts under ``reference/`` whose id is there) that await a
    human's read, and of those a human verified, in the reader's walk order."""

    _fields = ("unverified", "verified")
    unverified: list[str]
    verified: list[str]

    def __init__(self, unverified: list[str], verified: list[str]) -> None:
        self.unverified = unverified
        self.verified = verified


def _counted(c: "Concept") -> tuple[int, str] | None:
    """``c``'s flags and id, or None when it changes none of the gate's counts and pairings."""
    from okfpro.io.workstate import is_briefing

    if not is_briefing(c):
        return None
    flags = (AWAITS if c.awaiting_read else 0) | (VERIFIED if c.trust == "human-reviewed" else 0)
    return (flags, c.id) if flags else None


def briefings(root: str) -> Briefings:
    """The briefings under ``root`` the Snapshot's counter and pairing read."""
    resident = sys.modules.get("okfpro.resident")  # only the server and its children import it
    view = None if resident is None else resident.watches()
    if view is None:
        from okfpro.io.workstate import reference_concepts

        return _facts([b for b in map(_counted, reference_concepts(root)) if b is not None])
    return _remembered(view, root)


def _facts(found: list[tuple[int, str]]) -> Briefings:
    return Briefings([i for f, i in found if f & AWAITS], [i for f, i in found if f & VERIFIED])


def _relevant(path: str) -> bool:
    return path == REF or path.startswith(REF + "/")


def _remembered(view, root: str) -> Briefings:
    from okfpro.core import jsonc
    from okfpro.io.watched import Remembered

    root_real = os.path.realpath(root)
    kept = Remembered(view, root_real, "briefings", _relevant)
    since = kept.since()
    # the record: the answer's two lists on its first line, the walk's state on the second
    answer, _nl, walked = since[0].partition("\n") if since is not None else ("", "", "")
    if since is not None and not since[1]:
        try:
            unverified, verified = jsonc.loads(answer)  # nothing changed: the answer as it was
            if isinstance(unverified, list) and isinstance(verified, list) and all(
                    isinstance(i, str) for i in unverified) and all(isinstance(i, str) for i in verified):
                return Briefings(unverified, verified)
        except (ValueError, TypeError):
            pass
    record = None
    if since is not None:
        try:
            dirs, rels, flags, ids = jsonc.loads(walked)
            record = (dirs, rels, flags, ids)
        except (ValueError, TypeError):
            record = None
    if record is None or since is None or REF in since[1] or REF + "/" in since[1]:
        state = _walked(root_real)
    else:
        dirs, rels, flags, ids = record
        state = (set(dirs), {r: (f, ids.get(r) or r[:-3]) for r, f in zip(rels, flags)})
        _update(root_real, state[0], state[1], since[1])
    got_dirs, files = state
    rels = sorted(files)
    facts = _facts([files[r] for r in rels])
    # per briefing its flags, and its id only when it is not its path's
    kept.keep(jsonc.dumps([facts.unverified, facts.verified]) + "\n" + jsonc.dumps(
        [sorted(got_dirs), rels, [files[r][0] for r in rels], {r: files[r][1] for r in rels if files[r][1] != r[:-3]}]))
    return facts


def _read(root_real: str, rel: str) -> tuple[int, str] | None:
    from okfpro.core.concept import Concept, parse_entry
    from okfpro.io.reader import read_bytes

    try:
        raw = read_bytes(root_real, rel)
    except OSError:
        return None
    item = parse_entry(rel, raw)
    return _counted(item) if isinstance(item, Concept) else None


def _walked(root_real: str) -> tuple[set[str], dict[str, tuple[int, str]]]:
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


def _subtree(root_real: str, top: str) -> tuple[set[str], dict[str, tuple[int, str]]]:
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


def _update(root_real: str, dirs: set[str], files: dict[str, tuple[int, str]], changed: set[str]) -> None:
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


# ---------------------------------------------------------------------- the projects
PROJECTS = "projects"


def projects(root: str) -> list:
    """:func:`okfpro.io.workstate.projects` (emptiness included) of the bundle at ``root``."""
    from okfpro.io import workstate

    resident = sys.modules.get("okfpro.resident")  # only the server and its children import it
    view = None if resident is None else resident.watches()
    if view is None:
        return workstate.projects(root)
    from okfpro.core import jsonc
    from okfpro.io.watched import Remembered

    kept = Remembered(view, os.path.realpath(root), "projects",
                      lambda path: path == PROJECTS or path.startswith(PROJECTS + "/"))
    since = kept.since()
    found = None
    if since is not None:
        try:
            found = {slug: workstate.Project(slug, bool(closed), bool(empty)) for slug, closed, empty in jsonc.loads(since[0])}
        except (ValueError, TypeError):
            found = None
    if found is not None and since is not None and not since[1]:
        return [found[slug] for slug in sorted(found)]
    if found is None or since is None or PROJECTS in since[1] or PROJECTS + "/" in since[1]:
        got = workstate.projects(root)
    else:
        for slug in {p[len(PROJECTS) + 1:].split("/", 1)[0] for p in since[1]}:
            found.pop(slug, None)
            one = _project(root, slug)
            if one is not None:
                found[slug] = one
        got = [found[slug] for slug in sorted(found)]
    kept.keep(jsonc.dumps([[p.slug, p.closed, p.empty] for p in got]))
    return got


def _project(root: str, slug: str):
    """The one project ``slug`` as :func:`okfpro.io.workstate.projects` finds it, or None when it
    lists none there (a hidden name, no directory — a link to one is one — or unreadable)."""
    import stat

    from okfpro.io import workstate

    if not slug or slug.startswith("."):
        return None
    path = os.path.join(root, PROJECTS, slug)
    try:
        if not stat.S_ISDIR(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    return workstate.project_at(path, slug)
