"""The memory checks: recall on UserPromptSubmit, capture on Stop, session cleanup on SessionEnd.

Each opens the workspace's memory through the one door (:mod:`okfpro.memory.door`) from the
event's ``cwd``, as the CLI does from its working directory."""

from __future__ import annotations

from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx

# Memory is feedback: it adds context or writes memory, and never stands between the agent and its
# work.  A result that did nothing says why in one line on stderr (not shown to the agent), except
# the quiet, expected cases.
_QUIET_REASONS = (
    "memory capture is off", "no prompt to recall for", "this turn is already captured",
    "session memory kept", "no session memory to delete", "no content words",
)


def _note_unless_quiet(ctx: Ctx, name: str, reason: str) -> None:
    if reason and not any(q in reason for q in _QUIET_REASONS):
        ctx.notes.append(f"{name}: {reason}")


def memory_recall(ctx: Ctx) -> Answer:
    """UserPromptSubmit: knowledge + scoped memory under the budget, as additionalContext."""
    from okfpro.memory.recall import recall_for_prompt

    result = recall_for_prompt(ctx.event, ctx.event.cwd)
    if result.text:
        return Answer.context(result.text)
    _note_unless_quiet(ctx, "memory-recall", result.reason)
    return Answer.pass_()


def memory_capture(ctx: Ctx) -> Answer:
    """Stop: capture the turn (when ``[memory] capture = true``), redacted before it touches disk."""
    from okfpro.memory.capture import capture_from_event

    result = capture_from_event(ctx.event, ctx.event.cwd, ctx.memory_door)  # the door the Stop gate may have opened
    if not result.written:
        _note_unless_quiet(ctx, "memory-capture", result.reason)
    return Answer.pass_()


def memory_session_end(ctx: Ctx) -> Answer:
    """SessionEnd: delete the session tier's memory (``[memory] session_cleanup``, default on)."""
    from okfpro.memory.capture import end_session

    result = end_session(ctx.event, ctx.event.cwd)
    if not result.written:
        _note_unless_quiet(ctx, "memory-session-end", result.reason)
    return Answer.pass_()
