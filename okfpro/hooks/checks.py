"""The table of hook checks: which events and tools run each, and what a crash inside it means.

``CHECKS`` names every check the hook door accepts.  Each row says which events
dispatch it (when a whole event is dispatched), which tools it applies to, its
function, and its crash policy:

* ``refuse`` — a gate: a crash refuses the call (exit 2), because nothing was checked;
* ``note`` — feedback: a crash is one stderr line and the event carries on;
* a row may name its own policy (the banner answers "state unavailable").

The names are the reference's; ``check-okf``, ``cap-check`` and
``reconcile-search`` run inside ``post-edit`` when an event is dispatched (one
bundle read), and stay addressable on their own.  The checks live one idea per
module (guards, post_edit, stop, banner, memory_checks); heavy modules are
imported inside the checks that need them, never at import.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

from okfpro.hooks import banner, guards, memory_checks, post_edit, stop
from okfpro.hooks.answer import Answer
from okfpro.hooks.context import Ctx
from okfpro.hooks.event import EDIT_TOOLS, SHELL_TOOLS

GATE, FEEDBACK = "gate", "feedback"


def refuse(ctx: Ctx, name: str, detail: str) -> Answer:
    """A gate's crash policy: nothing was checked, so the call is refused."""
    return Answer.block(f"ENFORCEMENT ERROR — '{name}' crashed ({detail}); nothing was checked, so the call is refused.")


def note(ctx: Ctx, name: str, detail: str) -> Answer:
    """Feedback's crash policy: one stderr line, and the event carries on."""
    ctx.notes.append(f"{name} crashed ({detail}); skipped")
    return Answer.pass_()


class Check:
    """One row of the table.

    ``events``: the events that run it when a whole event is dispatched;
    ``tools``: the tools it applies to (None: any tool, or none);
    ``kind``: gate or feedback; ``on_crash(ctx, name, detail) -> Answer``: what a crash
    inside it answers (default: refuse for a gate, note for feedback);
    ``door``: the event whose answer format ``okfpro hook check NAME`` uses —
    None when the check is not addressable by name.
    """

    __slots__ = ("name", "events", "tools", "kind", "fn", "door", "on_crash")

    def __init__(self, name: str, events: tuple[str, ...], tools: tuple[str, ...] | None, kind: str,
                 fn: Callable[[Ctx], Answer], door: str | None,
                 on_crash: Callable[[Ctx, str, str], Answer] | None = None) -> None:
        self.name, self.events, self.tools, self.kind, self.fn, self.door = name, events, tools, kind, fn, door
        self.on_crash = on_crash or (refuse if kind == GATE else note)

    def crashed(self, ctx: Ctx, detail: str) -> Answer:
        return self.on_crash(ctx, self.name, detail)


PRE, POST = "pre-tool-use", "post-tool-use"
_ALL = (
    # name               events dispatched       tools        kind      function          door (hook check NAME)
    Check("guard-verified", (PRE,), EDIT_TOOLS, GATE, guards.guard_verified, PRE),
    Check("journal-guard", (PRE,), EDIT_TOOLS, GATE, guards.journal_guard, PRE),
    Check("shell-guard", (PRE,), SHELL_TOOLS, GATE, guards.shell_guard, PRE),
    Check("check-okf", (), EDIT_TOOLS, GATE, post_edit.check_okf, POST),  # runs inside post-edit
    Check("cap-check", (), EDIT_TOOLS, GATE, post_edit.cap_check, POST),  # runs inside post-edit
    Check("reconcile-search", (), EDIT_TOOLS, GATE, post_edit.reconcile_search, POST),  # runs inside post-edit
    Check("post-edit", (POST,), EDIT_TOOLS, GATE, post_edit.post_edit, POST),
    Check("stop-gate", ("stop",), None, GATE, stop.stop_gate, "stop"),
    Check("session-context", ("session-start",), None, FEEDBACK, banner.session_context, "session-start",
          on_crash=banner.crashed),
    Check("memory-recall", ("user-prompt-submit",), None, FEEDBACK, memory_checks.memory_recall, None),
    Check("memory-capture", ("stop",), None, FEEDBACK, memory_checks.memory_capture, None),
    Check("memory-session-end", ("session-end",), None, FEEDBACK, memory_checks.memory_session_end, None),
)
CHECKS: dict[str, Check] = {c.name: c for c in _ALL}
# the names `okfpro hook check NAME` accepts (the reference's nine)
HOOK_NAMES = tuple(c.name for c in _ALL if c.door is not None)
EVENTS = ("session-start", "pre-tool-use", "post-tool-use", "stop", "user-prompt-submit", "session-end")


def for_event(event_name: str, tool_name: str) -> list[Check]:
    return [
        c
        for c in _ALL
        if event_name in c.events and (c.tools is None or tool_name in c.tools)
    ]
