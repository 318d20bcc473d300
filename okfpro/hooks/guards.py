"""The PreToolUse guards: a forged ``verified:``, a past journal day, a shell write into the bundle."""

from __future__ import annotations

import os
import re

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx

VERIFIED_BLOCK = re.compile(r"^[ \t]*verified[ \t]*:", re.M)
VERIFIED_FLOW = re.compile(r"[{,][ \t]*['\"]?verified['\"]?[ \t]*:")
JOURNAL_DAY = re.compile(r"\Ajournal/([0-9]{4}-[0-9]{2}-[0-9]{2})\.md\Z")
MD_PATH = re.compile(r"[^\s'\"`|;&()<>]*\.md\b")
OKF_WORD = re.compile(r"\.okf\b")

VERIFIED_ASK = (
    "This edit writes 'verified:' — that is the owner's attestation, not the agent's. The agent only "
    "writes it down; approving is the attestation. Approve only if you have read this content yourself. "
    "If you have not, deny: 'unverified' is the true state."
)


def guard_verified(ctx: Ctx) -> Answer:
    if ctx.target() is None:
        return Answer.pass_()
    text = ctx.event.added_text
    if VERIFIED_BLOCK.search(text) or VERIFIED_FLOW.search(text):
        return Answer.ask(VERIFIED_ASK)
    return Answer.pass_()


def journal_guard(ctx: Ctx) -> Answer:
    target = ctx.target()
    if target is None:
        return Answer.pass_()
    root, rel = target
    m = JOURNAL_DAY.match(rel)
    if m is None or m.group(1) >= ctx.today_s:
        return Answer.pass_()
    day = m.group(1)
    if os.path.lexists(os.path.join(root, rel)):
        return Answer.block(
            f"BLOCKED — journal/{day}.md records a past day. The journal is append-only: put the "
            f"correction in today's entry (journal/{ctx.today_s}.md) and point back to {day}."
        )
    return Answer.ask(
        f"This creates journal/{day}.md — a PAST day that has no entry yet. Approve only if this is a "
        f"declared reconstruction of a day you really worked (Rule 2's fallback when a day went "
        f"unrecorded). Otherwise deny, and write today's entry (journal/{ctx.today_s}.md) instead."
    )


def _touches_bundle(command: str, root: str) -> bool:
    """The command names ``.okf`` or a Markdown path that is relative or under the bundle root."""
    if OKF_WORD.search(command):
        return True
    real_root = os.path.realpath(root)
    for m in MD_PATH.finditer(command):
        path = m.group(0)
        if not path or path == ".md":
            continue
        if not os.path.isabs(path):
            return True
        real = os.path.realpath(path)
        if real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep):
            return True
    return False


def shell_guard(ctx: Ctx) -> Answer:
    from okfpro.core import friction

    command = ctx.event.command
    if not command or not friction.has_mutator(command):
        return Answer.pass_()
    root = ctx.enclosing()
    if root is None or not _touches_bundle(command, root):
        return Answer.pass_()
    if not friction.is_own_command(command):
        from okfpro.io import friction as friction_log

        friction_log.record(root, friction.shell_event(command, ctx.today_s))
    shown = friction.detail_of(command)
    return Answer.ask(
        f"This shell command looks like it writes Markdown inside the bundle: {shown}\n"
        "A shell write goes around the guards — nothing has checked it for a forged 'verified:' or an "
        "edit to a past journal day. Approve only if you have read the command and want exactly this; "
        "otherwise deny, and let the agent use Edit or Write, which the guards can see."
    )
