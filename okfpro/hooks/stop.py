"""The Stop gate (Rule 2): a session that changed Markdown in the bundle leaves it summarised.

Dirty Markdown under the bundle → the closed core present, ``board.md`` / ``log.md``
inside the bundle, today's Snapshot line present and agreeing with the bundle,
the board's grammar, every in-flight project paired with its evidence.
"""

from __future__ import annotations

import os

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx

def dirty_markdown(root: str) -> bool:
    """``git status --porcelain -- '*.md'`` non-empty; a git that fails counts as dirty."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "*.md"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return True
    if proc.returncode != 0:
        return True
    return bool(proc.stdout.strip())


def snapshot_messages(ctx: Ctx, root: str) -> list[str]:
    """Today's Snapshot line: present, and agreeing with the bundle it summarises."""
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot
    from okfpro.io import workstate

    log_text = workstate.read_optional(os.path.join(root, "log.md")) or ""
    line = _log.parse(log_text).snapshot_line(ctx.today_s)
    counters = workstate.snapshot_counters(root, ctx.today)
    if line is None:
        return [
            f"— log.md has no Snapshot line under {ctx.today_s}. Append it before stopping — here it is, "
            f"computed from the bundle as it stands now:\n  {_snapshot.render(counters)}"
        ]
    problem = _snapshot.verify(counters, line)
    return [problem] if problem else []


def pairing_messages(ctx: Ctx, root: str, board_text: str) -> list[str]:
    """Every in-flight project paired with its evidence (``okfpro.core.pairing``)."""
    from okfpro.core import board as _board
    from okfpro.core import pairing as _pairing
    from okfpro.io import workstate

    facts = workstate.pairing_facts(root, ctx.bundle(root))
    return _pairing.failures(_board.parse(board_text).rows, facts)


def stop_gate(ctx: Ctx) -> Answer:
    if ctx.event.stop_hook_active:
        return Answer.pass_()
    root = ctx.enclosing()
    if root is None:
        return Answer.pass_()
    if not dirty_markdown(root):
        return Answer.pass_()
    from okfpro.io import workstate

    broken = workstate.core_missing(root) or workstate.escaping_state_files(root)
    if broken:
        return Answer.block(["RULE 2 — before stopping:"] + [f"— structure: {m}" for m in broken])
    from okfpro.core import board as _board

    board_text = workstate.read_optional(os.path.join(root, "board.md")) or ""
    messages = snapshot_messages(ctx, root)
    messages.extend(f"— board: {g}" for g in _board.grammar(board_text))
    messages.extend(pairing_messages(ctx, root, board_text))
    if messages:
        return Answer.block(["RULE 2 — before stopping:"] + messages)
    return Answer.pass_()
