"""The disk side of the work-state engine: gather cheaply, compute, write guarded.

Readers (``state``, ``board``, ``snapshot``) are cheap by contract: they read
``board.md``, ``log.md``, directory listings and (for the snapshot's
``unverified briefings`` counter only) the files under ``reference/``.  Only
``state --full`` parses the whole bundle.

Writers follow one path: read -> pure transform (``okfpro.core.board_edit``) ->
declared delta -> ``okfpro.core.conserve.check`` -> atomic write.  Every file a
writer reads or rewrites must resolve (by realpath) inside the bundle root; a
missing seeded file (``board.md``, ``log.md``, ``journal/index.md``) is never
created; any refusal leaves every file byte-for-byte untouched.
"""

from __future__ import annotations

import datetime as _dt
import os
import stat
from contextlib import ExitStack, contextmanager

from okfpro.core import board as _board
from okfpro.core import dormancy as _dormancy
from okfpro.core import log as _log
from okfpro.core import pairing as _pairing
from okfpro.core import snapshot as _snapshot
from okfpro.core.record import Value
from okfpro.core.refused import Refused
from okfpro.io.roots import within

TYPE_CHECKING = False
if TYPE_CHECKING:  # the readers stay light: no YAML, no writer machinery, no pathlib unless needed
    from pathlib import Path
    from typing import Iterable

    from okfpro.core import board_edit as _edit
    from okfpro.core.concept import Concept

SEEDED = ("board.md", "log.md", "journal/index.md")


@contextmanager
def _refusing_for(path: str | None):
    """A transform's refusal names ``path`` as the file left untouched (unless it named one)."""
    try:
        yield
    except Refused as exc:
        exc.path = exc.path or path
        raise


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


def missing_targets(root: str | os.PathLike, line: str) -> list[str]:
    """Bundle-absolute link targets on a board ``line`` that name nothing in the bundle (as
    pairing reads them: case-insensitively)."""
    found = [t for t in _board.targets(line) if t.strip("/")]
    missing = [t for t in found if not os.path.lexists(os.path.join(os.fspath(root), t.strip("/")))]
    if missing:
        entries = {e.lower() for e in all_entries(root)}
        missing = [t for t in missing if t.strip("/").lower() not in entries]
    return missing


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


# --- writing -----------------------------------------------------------------------


def contained(root: Path, path: Path) -> Path:
    """The realpath of ``path``, refusing one that leaves the bundle root."""
    root_real = os.path.realpath(root)
    real = os.path.realpath(path)
    if not within(real, root_real):
        rel = os.path.relpath(path, root)
        raise Refused(f"{rel} resolves outside the bundle ({real}); a writer will not follow it.", rel)
    from pathlib import Path

    return Path(real)


def scratch_dir(root: Path) -> Path | None:
    """Where a bundle writer keeps its temp files: ``okfpro-tmp/`` in the Git directory of the
    repository holding ``root`` (never committed, never cleaned by ``git clean``), or None
    outside a repository (the temp file then sits beside its target until renamed)."""
    from pathlib import Path

    here = Path(os.path.realpath(root))
    for d in (here, *here.parents):
        dot = d / ".git"
        if dot.is_dir():
            return dot / "okfpro-tmp"
        if dot.is_file():
            try:
                head = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if head.startswith("gitdir:"):
                git_dir = Path(head[len("gitdir:"):].strip())
                return (d / git_dir if not git_dir.is_absolute() else git_dir) / "okfpro-tmp"
            return None
    return None


class Plan(Value):
    """Files a writer means to write: relative path -> Edit (all checked before any write)."""

    _fields = ("root", "edits")
    root: Path
    edits: list[tuple[str, "_edit.Edit"]]

    def __init__(self, root: Path, edits: list[tuple[str, "_edit.Edit"]] | None = None) -> None:
        self.root = root
        self.edits = [] if edits is None else edits


def read_seeded(root: Path, rel: str) -> str:
    path = root / rel
    if not path.exists() and not path.is_symlink():
        raise Refused(f"{rel} is missing; a writer never creates a seeded file. Restore it (okfpro upgrade completes the seeded files).", rel)
    real = contained(root, path)
    if not real.is_file():
        raise Refused(f"{rel} is not a regular file.", rel)
    with open(real, "rb") as handle:
        raw = handle.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{rel} is not valid UTF-8; a writer will not rewrite bytes it cannot read.", rel) from None


def commit(plan: Plan, transform_check=None) -> list[str]:
    """Guard every planned edit, then write them all; return the relative paths written."""
    from okfpro.core import conserve as _conserve
    from okfpro.io.atomic import atomic_write

    transform_check = transform_check or _conserve.check
    for rel, e in plan.edits:
        findings = transform_check(e.before, e.after, added=e.added, removed=e.removed, moved=e.moved)
        if findings:
            raise Refused(
                "the edit does not conserve lines as declared (" + "; ".join(findings) + "). "
                "This is a defect in the writer, not in your file; nothing was written.",
                rel,
            )
    from okfpro.io.atomic import sweep

    scratch = scratch_dir(plan.root)
    written: list[str] = []
    for rel, e in plan.edits:
        if not e.changed:
            continue
        target = contained(plan.root, plan.root / rel)
        sweep(target.parent)  # a writer killed mid-write before temp files moved out of the bundle
        try:
            atomic_write(target, e.after, scratch=scratch)
        except OSError as exc:
            landed = (
                f"already written: {', '.join(written)}; run the verb again once this is fixed, and it finishes "
                "the job." if written else "nothing was written."
            )
            raise Refused(f"could not write {rel} ({exc.strerror or exc}); {landed}", rel) from None
        written.append(rel)
    return written


@contextmanager
def writing(root: Path):
    """The cross-process write lock of the bundle ``root``; a lock that cannot be taken is a refusal.

    The lock is the bundle directory itself: no cleanup of ``.tmp/`` or ``git clean -fX``
    can remove it while a writer holds it (a lock file under ``.tmp/`` could, and 10 of 320
    acknowledged concurrent captures were lost that way)."""
    from pathlib import Path

    from okfpro.io.atomic import locked, sweep

    path = Path(os.path.realpath(root))
    with ExitStack() as stack:
        try:
            stack.enter_context(locked(path))
        except OSError as exc:
            raise Refused(f"could not take the write lock {path} ({exc.strerror or exc}); nothing was written.") from None
        scratch = scratch_dir(root)
        if scratch is not None:
            sweep(scratch)
        yield


def do_capture(root: Path, today: _dt.date, text: str) -> str:
    from okfpro.core import board_edit as _edit

    with writing(root):
        before = read_seeded(root, "board.md")
        with _refusing_for("board.md"):
            e = _edit.capture(before, today, text)
        commit(Plan(root, [("board.md", e)]))
    return e.added[0]


def do_move(root: Path, verb: str, selector: str) -> tuple["_edit.Edit", _board.Board]:
    from okfpro.core import board_edit as _edit

    with writing(root):
        before = read_seeded(root, "board.md")
        with _refusing_for("board.md"):
            e = _edit.promote(before, selector) if verb == "promote" else _edit.demote(before, selector)
        commit(Plan(root, [("board.md", e)]))
    return e, _board.parse(e.after)


class JournalResult(Value):
    _fields = ("day", "created_entry", "linked")
    day: str
    created_entry: bool
    linked: bool

    def __init__(self, day: str, created_entry: bool, linked: bool) -> None:
        self.day = day
        self.created_entry = created_entry
        self.linked = linked


def do_journal_open(root: Path, today: _dt.date) -> JournalResult:
    from okfpro.core import board_edit as _edit

    d = today.isoformat()
    with writing(root):
        jdir = root / "journal"
        if not jdir.is_dir():
            raise Refused("journal/ is missing; a writer never creates a seeded directory. Restore it.", "journal/")
        contained(root, jdir)
        index_before = read_seeded(root, "journal/index.md")
        entry_rel = f"journal/{d}.md"
        entry_path = root / entry_rel
        plan = Plan(root)
        created = False
        if not entry_path.exists() and not entry_path.is_symlink():
            contained(root, entry_path)
            text = _edit.journal_entry_text(today)
            added = [_board.chomp(x) for x in _board.split_lines(text)]
            plan.edits.append((entry_rel, _edit.Edit("", text, added=added)))
            created = True
        else:
            contained(root, entry_path)
        idx = _edit.journal_index(index_before, today)
        plan.edits.append(("journal/index.md", idx))
        commit(plan)
    return JournalResult(d, created, idx.changed)


class SnapshotResult(Value):
    _fields = ("day", "line", "written")
    day: str
    line: str
    written: bool  # False: today's last entry already was this line

    def __init__(self, day: str, line: str, written: bool) -> None:
        self.day = day
        self.line = line
        self.written = written


def do_log_snapshot(root: Path, today: _dt.date) -> SnapshotResult:
    """Append today's computed Snapshot line to ``log.md`` as the day's last entry (Rule 2).

    The line is :func:`snapshot_counters` rendered, the same computation ``snapshot`` prints and the
    Stop gate and ``audit`` verify against.  Idempotent: when the day's last entry already is a
    Snapshot line agreeing with the bundle, nothing is written.  A day whose line disagrees, or whose
    line is followed by other entries, gets the line appended (the log's last line in a block wins,
    so a correction is an append, never a rewrite)."""
    from okfpro.core import board_edit as _edit

    d = today.isoformat()
    with writing(root):
        log_before = read_seeded(root, "log.md")
        board = _board.parse(read_seeded(root, "board.md"))
        counters = snapshot_counters(root, today, board=board)
        line = _snapshot.render(counters)
        block = _log.parse(log_before).block(d)
        if block is not None and block.snapshot is not None and block.snapshot_index == _last_nonblank(
                log_before, block) and _snapshot.verify(counters, block.snapshot) is None:
            return SnapshotResult(d, block.snapshot, False)
        commit(Plan(root, [("log.md", _edit.log_entry(log_before, today, line))]))
    return SnapshotResult(d, line, True)


class CloseResult(Value):
    _fields = ("slug", "marked", "removed", "log_line", "header", "owes_snapshot")
    slug: str
    marked: bool
    removed: int
    log_line: str
    header: str | None
    owes_snapshot: bool

    def __init__(self, slug: str, marked: bool, removed: int, log_line: str, header: str | None, owes_snapshot: bool) -> None:
        self.slug = slug
        self.marked = marked
        self.removed = removed
        self.log_line = log_line
        self.header = header
        self.owes_snapshot = owes_snapshot


def do_close(root: Path, today: _dt.date, arg: str) -> CloseResult:
    from okfpro.core import board_edit as _edit

    slug = _edit.close_slug(arg)
    with writing(root):
        index_rel = f"projects/{slug}/index.md"
        if not (root / index_rel).is_file():
            raise Refused(f"{index_rel} does not exist; there is no project '{slug}' to close.", index_rel)
        index_before = read_seeded(root, index_rel)
        board_before = read_seeded(root, "board.md")
        log_before = read_seeded(root, "log.md")
        already = _pairing.is_closed(index_before)
        with _refusing_for(index_rel):
            marker = _edit.Edit(index_before, index_before) if already else _edit.close_marker(index_before, today)
            board_e, removed, _ = _edit.close_board(board_before, slug)
        if already and removed == 0:
            raise Refused(f"projects/{slug} is already closed and no board line links it; nothing to do.", index_rel)
        line = _edit.close_log_line(slug, removed)
        log_e = _edit.log_entry(log_before, today, line)
        commit(Plan(root, [(index_rel, marker), ("board.md", board_e), ("log.md", log_e)]))
    b = _board.parse(board_e.after)
    header = b.lines[b.header_index] if b.header_index is not None else None
    day_block = _log.parse(log_e.after).block(today.isoformat())
    owes = day_block is not None and (
        day_block.snapshot_index is None or day_block.snapshot_index < _last_nonblank(log_e.after, day_block)
    )
    return CloseResult(slug, not already, removed, line, header, owes)


def _last_nonblank(text: str, block) -> int:
    lines = _log.parse(text).lines
    last = block.heading
    for i in range(block.heading + 1, block.end):
        if lines[i].strip():
            last = i
    return last
