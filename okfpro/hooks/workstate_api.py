"""The work-state facts the Stop gate and the banner need, gathered from disk.

The pure rules live in ``okfpro.core`` (board, log, snapshot, pairing,
dormancy); this module only reads the files they are applied to.  The banner's
part is cheap by contract: ``board.md``, ``log.md`` and two directory listings
(``journal/`` and ``projects/``) — no concept is parsed.  The Stop gate's part
parses the bundle once (unverified briefings, pairing).
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from typing import Any

from okfpro.core import board as _board
from okfpro.core import log as _log


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None


def _is_day(name: str) -> bool:
    try:
        _dt.date.fromisoformat(name)
        return len(name) == 10
    except ValueError:
        return False


@dataclass
class Cheap:
    root: str
    board_text: str
    board: Any
    log: Any
    journal_days: list[str] = field(default_factory=list)
    open_projects: list[str] = field(default_factory=list)
    closed_projects: list[str] = field(default_factory=list)

    def journal_texts(self, since: str | None = None) -> dict[str, str]:
        out = {}
        for day in self.journal_days:
            if since is not None and day < since:
                out[day] = ""  # only its existence matters (the window's oldest entry)
                continue
            out[day] = _read(os.path.join(self.root, "journal", f"{day}.md")) or ""
        return out


def cheap(root: str) -> Cheap:
    from okfpro.core.pairing import is_closed

    board_text = _read(os.path.join(root, "board.md")) or ""
    log_text = _read(os.path.join(root, "log.md")) or ""
    days = []
    try:
        for name in os.listdir(os.path.join(root, "journal")):
            if name.endswith(".md") and _is_day(name[:-3]):
                days.append(name[:-3])
    except OSError:
        pass
    days.sort()
    open_p, closed_p = [], []
    try:
        names = sorted(os.listdir(os.path.join(root, "projects")))
    except OSError:
        names = []
    for name in names:
        if name.startswith(".") or not os.path.isdir(os.path.join(root, "projects", name)):
            continue
        index = _read(os.path.join(root, "projects", name, "index.md"))
        (closed_p if index is not None and is_closed(index) else open_p).append(name)
    return Cheap(root, board_text, _board.parse(board_text), _log.parse(log_text), days, open_p, closed_p)


def snapshot_line_for(log_text: str, today: _dt.date) -> str | None:
    return _log.parse(log_text).snapshot_line(today.isoformat())


def _project_is_empty(root: str, slug: str) -> bool:
    base = os.path.join(root, "projects", slug)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for f in filenames:
            if f.endswith(".md") and not f.startswith(".") and not (dirpath == base and f == "index.md"):
                return False
    return True


def want_counters(ctx: Any, root: str, state: Cheap | None = None) -> dict[str, int]:
    from okfpro.core import snapshot as _snapshot

    state = state or cheap(root)
    bundle = ctx.bundle(root)
    unverified = sum(1 for c in bundle.concepts if c.id.startswith("reference/") and c.awaiting_read)
    empty = sum(1 for slug in state.open_projects if _project_is_empty(root, slug))
    return _snapshot.counters(state.board, ctx.today, unverified, empty)


def computed_line(ctx: Any, root: str) -> str:
    from okfpro.core import snapshot as _snapshot

    return _snapshot.render(want_counters(ctx, root))


def verify_line(ctx: Any, root: str, line: str) -> str | None:
    from okfpro.core import snapshot as _snapshot

    return _snapshot.verify(want_counters(ctx, root), line)


def _entries(root: str) -> set[str]:
    out: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        prefix = "" if rel_dir == "." else rel_dir + "/"
        if prefix:
            out.add(rel_dir)
        for f in filenames:
            if not f.startswith("."):
                out.add(prefix + f)
    return out


def pairing_messages(ctx: Any, root: str) -> list[str]:
    from okfpro.core.pairing import Facts, failures

    state = cheap(root)
    bundle = ctx.bundle(root)
    briefings = [c for c in bundle.concepts if c.id.startswith("reference/")]
    facts = Facts(
        open_projects=state.open_projects,
        closed_projects=state.closed_projects,
        unverified_briefings=[c.id for c in briefings if c.awaiting_read],
        verified_briefings=[c.id for c in briefings if c.trust == "human-reviewed"],
        entries=_entries(root),
    )
    return failures(state.board.rows, facts)
