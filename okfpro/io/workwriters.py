"""The work-state writers: ``capture``, ``promote`` / ``demote``, ``journal open``, ``close`` and
``log-snapshot``, each on one guarded path.

read -> pure transform (:mod:`okfpro.core.board_edit`) -> declared delta ->
:func:`okfpro.core.conserve.check` -> atomic write, under the bundle's write lock.  Every file a
writer reads or rewrites must resolve (by realpath) inside the bundle root; a missing seeded file
(:data:`SEEDED`) is never created; any refusal (:class:`okfpro.core.refused.Refused`) leaves every
file byte-for-byte untouched.  The readers are :mod:`okfpro.io.workstate`'s.
"""

from __future__ import annotations

import datetime as _dt
import os
from contextlib import ExitStack, contextmanager

from okfpro.core import board as _board
from okfpro.core import log as _log
from okfpro.core import pairing as _pairing
from okfpro.core import snapshot as _snapshot
from okfpro.core.record import Value
from okfpro.core.refused import Refused
from okfpro.io.roots import within
from okfpro.io.workstate import all_entries, snapshot_counters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from okfpro.core import board_edit as _edit

SEEDED = ("board.md", "log.md", "journal/index.md")


@contextmanager
def _refusing_for(path: str | None):
    """A transform's refusal names ``path`` as the file left untouched (unless it named one)."""
    try:
        yield
    except Refused as exc:
        exc.path = exc.path or path
        raise


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


def missing_targets(root: str | os.PathLike, line: str) -> list[str]:
    """Bundle-absolute link targets on a board ``line`` that name nothing in the bundle (as
    pairing reads them: case-insensitively)."""
    found = [t for t in _board.targets(line) if t.strip("/")]
    missing = [t for t in found if not os.path.lexists(os.path.join(os.fspath(root), t.strip("/")))]
    if missing:
        entries = {e.lower() for e in all_entries(root)}
        missing = [t for t in missing if t.strip("/").lower() not in entries]
    return missing
