"""The Stop gate (Rule 2): a session that changed Markdown in the bundle leaves it summarised.

Dirty Markdown under the bundle → the closed core present, ``board.md`` / ``log.md``
inside the bundle, today's Snapshot line present and agreeing with the bundle,
the board's grammar, every in-flight project paired with its evidence.
"""

from __future__ import annotations

import os

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx

def dirty_markdown(root: str) -> tuple[bool, str | None]:
    """(``git status --porcelain -- '*.md'`` non-empty, None) — or (True, why git could not say).

    A git that fails (dubious ownership, a broken ``GIT_DIR``, no git at all) is not a clean
    tree and not a missing Snapshot line: the gate names the failure and refuses.
    """
    import subprocess
    from pathlib import Path

    from okfpro.io.roots import git_fence

    if git_fence(Path(os.path.abspath(root))) is None and not os.environ.get("GIT_DIR"):
        return True, None  # no repository: nothing says what changed, so every check runs
    try:
        proc = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "*.md"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        return True, "git status did not answer within 20 s"
    except (OSError, subprocess.SubprocessError) as exc:
        return True, f"git could not be run ({type(exc).__name__}: {exc})"
    if proc.returncode != 0:
        said = [ln.strip() for ln in proc.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        first = next((ln for ln in said if ln.lower().startswith(("fatal", "error"))), said[0] if said else "")
        return True, f"git status exited {proc.returncode}" + (f": {first[:300]}" if first else "")
    return bool(proc.stdout.strip()), None


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
    dirty, git_failed = dirty_markdown(root)
    if git_failed:
        return Answer.block([
            "RULE 2 — before stopping: the Stop gate could not ask git what changed in the bundle, so it cannot "
            "tell whether this session left it summarised, and it refuses.",
            f"— git: {git_failed}",
            "Fix git for this repository (for 'dubious ownership': `git config --global --add safe.directory "
            "<the repository>`, or run as the repository's owner), then stop again.",
        ])
    if not dirty:
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
