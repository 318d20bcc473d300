"""What the Stop gate and the banner need from the work-state engine.

A thin layer over ``okfpro.io.workstate`` (the disk side) and the pure rules in
``okfpro.core`` (log, snapshot, pairing, dormancy), so that the gate, the banner
and ``okfpro state`` / ``okfpro snapshot`` compute every number the same way.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from typing import Any


def snapshot_line_for(log_text: str, today: _dt.date) -> str | None:
    from okfpro.core import log as _log

    return _log.parse(log_text).snapshot_line(today.isoformat())


def want_counters(ctx: Any, root: str) -> dict[str, int]:
    from okfpro.io import workstate

    return workstate.snapshot_counters(root, ctx.today)


def computed_line(ctx: Any, root: str) -> str:
    from okfpro.core import snapshot as _snapshot

    return _snapshot.render(want_counters(ctx, root))


def verify_line(ctx: Any, root: str, line: str) -> str | None:
    from okfpro.core import snapshot as _snapshot

    return _snapshot.verify(want_counters(ctx, root), line)


def pairing_messages(ctx: Any, root: str) -> list[str]:
    from okfpro.core import board as _board
    from okfpro.core import pairing as _pairing
    from okfpro.io import workstate

    board = _board.parse(workstate.read_optional(os.path.join(root, "board.md")) or "")
    facts = workstate.pairing_facts(root, ctx.bundle(root))
    return _pairing.failures(board.rows, facts)


def state(ctx: Any, root: str) -> dict:
    """The ``state --json`` payload (cheap: no concept parse beyond reference/)."""
    from okfpro.io import workstate

    return workstate.state_payload(root, ctx.today)


def dormancy_lines(ctx: Any, root: str) -> list[str]:
    from okfpro.core import board as _board
    from okfpro.core import dormancy as _dormancy
    from okfpro.io import workstate

    board = _board.parse(workstate.read_optional(os.path.join(root, "board.md")) or "")
    return _dormancy.questions(board, ctx.today, workstate.journal_entries(root))
