"""The disk side of the work-state engine's readers: gather cheaply, compute.

Readers (``state``, ``board``, ``snapshot``) are cheap by contract: they read
``board.md``, ``log.md``, directory listings and (for the snapshot's
``unverified briefings`` counter only) the files under ``reference/``.  Only
``state --full`` parses the whole bundle.

The writers, on their one guarded path, are :mod:`okfpro.io.workwriters`'s.
"""

from __future__ import annotations

import datetime as _dt
import os
import stat

from okfpro.core import board as _board
from okfpro.core import dormancy as _dormancy
from okfpro.core import log as _log
from okfpro.core import pairing as _pairing
from okfpro.core import snapshot as _snapshot
from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # the readers stay light: no YAML, no writer machinery, no pathlib unless needed
    from typing import Iterable

    from okfpro.core.concept import Concept


# --- reading -------------------------------------------------------------------


def read_text(path: str | os.PathLike) -> str:
    """Bytes -> UTF-8 with replacement: an invalid byte must not crash a gate."""
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def read_optional(path: str | os.PathLike) -> str | None:
    try:
        return read_text(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


class Project(Value):
    _fields = ("slug", "closed", "empty")
    slug: str
    closed: bool
    empty: bool  # no .md besides index.md anywhere below

    def __init__(self, slug: str, closed: bool, empty: bool) -> None:
        self.slug = slug
        self.closed = closed
        self.empty = empty


def _md_files_below(directory: str) -> bool:
    """Is there any non-hidden ``*.md`` other than ``index.md`` below ``directory``?"""
    stack = [directory]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for e in entries:
            if e.name.startswith("."):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                    continue
            except OSError:
                continue
            if e.name.endswith(".md") and e.name != "index.md":
                return True
    return False


def projects(root: str | os.PathLike, emptiness: bool = True) -> list[Project]:
    """Every ``projects/<slug>/`` directory, sorted, with its closure and (unless
    ``emptiness`` is False, when ``empty`` is left False) whether it holds no concept."""
    base = os.path.join(os.fspath(root), "projects")
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for e in entries:
        if e.name.startswith("."):
            continue
        try:
            if not e.is_dir():
                continue
        except OSError:
            continue
        out.append(project_at(e.path, e.name, emptiness))
    return out


def project_at(path: str, slug: str, emptiness: bool = True) -> Project:
    """The project whose directory is ``path``: its closure and (with ``emptiness``) whether it holds no concept."""
    index = read_optional(os.path.join(path, "index.md"))
    closed = index is not None and _pairing.is_closed(_head_text(index))
    empty = (not closed and not _md_files_below(path)) if emptiness else False
    return Project(slug, closed, empty=empty)


def _head_text(text: str) -> str:
    return _pairing.head(text)


def reference_concepts(root: str | os.PathLike) -> list["Concept"]:
    """The concepts under ``reference/`` (the briefings), as the bundle's read finds them: the walk
    of :mod:`okfpro.io.reader`, which lists no hidden name and does not enter a linked directory
    (a ``reference`` that is a link is not read through)."""

    from okfpro.core.concept import Concept, parse_entry
    from okfpro.io.reader import read_bytes, walk

    root_real = os.path.realpath(os.fspath(root))
    ref = os.path.join(root_real, "reference")
    try:
        if not stat.S_ISDIR(os.lstat(ref).st_mode):
            return []
    except OSError:
        return []
    out = []
    for rel in walk(ref):
        path = f"reference/{rel}"
        try:
            raw = read_bytes(root_real, path)
        except OSError:
            continue
        item = parse_entry(path, raw)
        if isinstance(item, Concept):
            out.append(item)
    return out


def is_briefing(c: "Concept") -> bool:
    return c.id.startswith("reference/")


def unverified_briefing_count(root: str | os.PathLike, briefings: list["Concept"] | None = None) -> int:
    """Briefings awaiting a human's read (``briefings``: :func:`reference_concepts`, when the caller has them)."""
    found = briefings if briefings is not None else reference_concepts(root)
    return sum(1 for c in found if is_briefing(c) and c.awaiting_read)


def journal_entries(root: str | os.PathLike) -> dict[str, str]:
    """``{YYYY-MM-DD: text}`` for every ``journal/YYYY-MM-DD.md``."""
    base = os.path.join(os.fspath(root), "journal")
    out: dict[str, str] = {}
    try:
        names = os.listdir(base)
    except OSError:
        return out
    for name in names:
        m = _dormancy.JOURNAL_FILE.match(name)
        if m and _board.parse_day(m.group(1)) is not None:
            text = read_optional(os.path.join(base, name))
            if text is not None:
                out[m.group(1)] = text
    return out


def core_present(root: str | os.PathLike) -> dict[str, bool]:
    """The closed core (``okfpro.core.audit.CORE``) on disk: path -> whether it exists as its kind."""
    from okfpro.core import audit as _audit

    present = {}
    for path, kind, _ in _audit.CORE:
        full = os.path.join(os.fspath(root), path)
        present[path] = os.path.isdir(full) if kind == "dir" else os.path.isfile(full)
    return present


def core_missing(root: str | os.PathLike) -> list[str]:
    """The closed core checked on disk: what is missing, one line each."""
    from okfpro.core import audit as _audit

    return _audit.structure(core_present(root))


def escaping_state_files(root: str | os.PathLike) -> list[str]:
    """``board.md`` / ``log.md`` that resolve outside the bundle: readers name them, never read through them."""
    root_real = os.path.realpath(root)
    out = []
    for rel in ("board.md", "log.md"):
        real = os.path.realpath(os.path.join(os.fspath(root), rel))
        if not real.startswith(root_real.rstrip(os.sep) + os.sep):
            out.append(f"{rel} resolves outside the bundle ({real}); nothing is read through a link that leaves "
                       "the bundle. Replace the link with the file itself.")
    return out


# --- reader payloads ---------------------------------------------------------------


def board_text(root: str | os.PathLike) -> str | None:
    return read_optional(os.path.join(os.fspath(root), "board.md"))


def board_rows(root: str | os.PathLike, today: _dt.date, section: str | None = None) -> list[dict] | None:
    """``okfpro board``'s rows (only ``section``'s when named), or None when board.md has no
    heading for that section."""
    b = _board.parse(board_text(root) or "")
    if section is not None and section not in b.headings:
        return None
    return _board.rows_json(b, today, section)


def snapshot_counters(root: str | os.PathLike, today: _dt.date, board: _board.Board | None = None,
                      briefings: list["Concept"] | None = None, projs: list[Project] | None = None,
                      unverified: int | None = None) -> dict[str, int]:
    """``unverified``: the count of unverified briefings, when the caller has it."""
    if board is None:
        board = _board.parse(board_text(root) or "")
    empty = sum(1 for p in (projects(root) if projs is None else projs) if not p.closed and p.empty)
    if unverified is None:
        unverified = unverified_briefing_count(root, briefings)
    return _snapshot.counters(board, today, unverified, empty)


def snapshot_payload(root: str | os.PathLike, today: _dt.date) -> dict:
    c = snapshot_counters(root, today)
    return {"line": _snapshot.render(c), "counters": c}


def state_payload(root: str | os.PathLike, today: _dt.date, full: bool = False) -> dict:
    """The ``state --json`` object (``root`` as given)."""
    text = board_text(root) or ""
    b = _board.parse(text)
    log = _log.parse(read_optional(os.path.join(os.fspath(root), "log.md")) or "")
    latest = log.latest_snapshot()
    last = None
    if latest is not None:
        last = {"day": latest[0], "line": latest[1], "counters": _snapshot.parse(latest[1])}
    projs = projects(root, emptiness=False)
    payload = {
        "root": os.fspath(root),
        "as of": today.isoformat(),
        "board": _board.counters(b, today),
        "deadlines at risk": _dormancy.at_risk(b, today),
        "log": {
            "newest day": log.newest_day,
            "journal today": os.path.isfile(os.path.join(os.fspath(root), "journal", f"{today.isoformat()}.md")),
        },
        "projects": {"open": [p.slug for p in projs if not p.closed]},
        "last snapshot": last,
    }
    if full:
        payload["full"] = full_payload(root, b, projs)
    return payload


def full_payload(root: str | os.PathLike, b: _board.Board, projs: list[Project]) -> dict:
    from okfpro.io.bundle import load

    bundle = load(root)
    awaiting = [c for c in bundle.concepts if c.awaiting_read]
    rows = [
        {"id": c.id, "by": c.generated_by, "at": _as_text(c.generated_at), "trust": c.trust}
        for c in sorted(awaiting, key=lambda c: c.id)
    ]
    facts = pairing_facts(root, bundle.concepts, projs)
    return {
        "pairing": _pairing.failures(b.rows, facts),
        "unverified": rows,
        "unverified briefings": sum(1 for c in awaiting if is_briefing(c)),
    }


def pairing_facts(root: str | os.PathLike, concepts: Iterable["Concept"],
                  projs: list[Project] | None = None, rows: list[_board.Row] | None = None) -> _pairing.Facts:
    """Everything the five pairing invariants need: ``concepts`` are the bundle's (a loaded
    bundle's ``concepts``) or only its briefings (:func:`reference_concepts`: the same answer,
    without reading the rest of the bundle).  ``rows``: the board's, when the caller has them;
    the entries are then only those its links name (:func:`present_entries`: the same answer,
    without listing the whole bundle)."""
    briefings = [c for c in concepts if is_briefing(c)]
    return briefed_pairing_facts(root, [c.id for c in briefings if c.awaiting_read],
                                 [c.id for c in briefings if c.trust == "human-reviewed"], projs, rows)


def briefed_pairing_facts(root: str | os.PathLike, unverified: list[str], verified: list[str],
                          projs: list[Project] | None = None, rows: list[_board.Row] | None = None) -> _pairing.Facts:
    """:func:`pairing_facts` from the briefings' ids (unverified, verified; in the walk's order)."""
    if projs is None:
        projs = projects(root)
    if rows is None:
        entries = all_entries(root)
    else:
        entries = present_entries(root, {t.strip("/").lower() for r in rows for t in r.targets})
    return _pairing.Facts(
        open_projects=[p.slug for p in projs if not p.closed],
        closed_projects=[p.slug for p in projs if p.closed],
        unverified_briefings=unverified,
        verified_briefings=verified,
        entries=entries,
    )


def present_entries(root: str | os.PathLike, keys: Iterable[str]) -> set[str]:
    """The ``keys`` (bundle-relative paths, lower case, no leading or trailing ``/``) that name an
    entry of :func:`all_entries` when both are compared in lower case — found by listing only the
    directories on their way, the walk's rules kept: no hidden name, a directory entered when it is
    one (a link to one is an entry, never entered), an unlistable directory holds nothing."""
    base = os.fspath(root)
    listed: dict[str, list[tuple[str, str, bool]]] = {}

    def children(where: str) -> list[tuple[str, str, bool]]:
        got = listed.get(where)
        if got is None:
            got = []
            try:
                with os.scandir(where) as it:
                    for e in it:
                        try:
                            enters = e.is_dir() and not e.is_symlink()
                        except OSError:
                            enters = False
                        got.append((e.name.lower(), e.path, enters))
            except OSError:
                got = []
            listed[where] = got
        return got

    out = set()
    readable: dict[str, bool] = {}

    def listable(where: str) -> bool:
        got = readable.get(where)
        if got is None:
            got = readable[where] = os.access(where, os.R_OK | os.X_OK)
        return got

    def spelled(parts: list[str]) -> bool:
        """The key names an entry as it is spelled, through directories (no link) the walk can
        list: then listing finds it too, and nothing needs listing."""
        where = base
        for i, part in enumerate(parts):
            if not listable(where):
                return False
            where = os.path.join(where, part)
            try:
                mode = os.lstat(where).st_mode
            except OSError:
                return False
            if i < len(parts) - 1 and not stat.S_ISDIR(mode):
                return False
        return True

    for key in keys:
        parts = key.split("/")
        if any(not part or part.startswith(".") for part in parts):
            continue
        if spelled(parts):
            out.add(key)
            continue
        frontier = [base]
        for part in parts[:-1]:
            frontier = [path for where in frontier for name, path, enters in children(where) if enters and name == part]
        if any(name == parts[-1] for where in frontier for name, _path, _enters in children(where)):
            out.add(key)
    return out


def all_entries(root: str | os.PathLike) -> set[str]:
    """Bundle-relative paths of every non-hidden file and directory."""
    base = os.fspath(root)
    out: set[str] = set()
    for current, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = os.path.relpath(current, base)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        for d in dirs:
            out.add(prefix + d)
        for f in files:
            if not f.startswith("."):
                out.add(prefix + f)
    return out


def _as_text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return str(value)
