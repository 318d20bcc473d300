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
module (guards, post_edit, stop, banner, memory_checks).  A row names its function as
``"module:function"`` and the module is imported when the check first runs: an event
imports only the modules of its own checks (a Stop never loads the guards, the banner or
post-edit), and heavy modules are imported inside the checks that need them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

    from okfpro.hooks.answer import Answer
    from okfpro.hooks.context import Ctx

from okfpro.core.event import EDIT_TOOLS, SHELL_TOOLS

GATE, FEEDBACK = "gate", "feedback"


def refuse(ctx: Ctx, name: str, detail: str) -> Answer:
    """A gate's crash policy: nothing was checked, so the call is refused."""
    from okfpro.hooks.answer import Answer

    return Answer.block(f"ENFORCEMENT ERROR — '{name}' crashed ({detail}); nothing was checked, so the call is refused.")


def note(ctx: Ctx, name: str, detail: str) -> Answer:
    """Feedback's crash policy: one stderr line, and the event carries on."""
    from okfpro.hooks.answer import Answer

    ctx.notes.append(f"{name} crashed ({detail}); skipped")
    return Answer.pass_()


def _named(ref: str) -> Callable[..., Answer]:
    """The function a row names as ``"module:function"`` (the module under ``okfpro.hooks``)."""
    module, _, attr = ref.partition(":")
    # __import__, not importlib.import_module: the C import path, which -X importtime reports
    return getattr(__import__(f"okfpro.hooks.{module}", fromlist=[attr]), attr)


class Check:
    """One row of the table.

    ``events``: the events that run it when a whole event is dispatched;
    ``tools``: the tools it applies to (None: any tool, or none);
    ``kind``: gate or feedback; ``fn``: the check, named ``"module:function"`` and imported
    on first use (assigning a callable replaces it); ``on_crash(ctx, name, detail) -> Answer``
    (a callable or a ``"module:function"`` name): what a crash inside it answers (default:
    refuse for a gate, note for feedback); ``door``: the event whose answer format
    ``okfpro hook check NAME`` uses — None when the check is not addressable by name;
    ``start``: work begun before any check of the event runs (the Stop gate starts its
    ``git status`` child so that it runs while the capture does).
    """

    __slots__ = ("name", "events", "tools", "kind", "_fn", "door", "_on_crash", "start")

    def __init__(self, name: str, events: tuple[str, ...], tools: tuple[str, ...] | None, kind: str,
                 fn: str | Callable[[Ctx], Answer], door: str | None,
                 on_crash: str | Callable[[Ctx, str, str], Answer] | None = None, start: str | None = None) -> None:
        self.name, self.events, self.tools, self.kind, self._fn, self.door = name, events, tools, kind, fn, door
        self._on_crash = on_crash or (refuse if kind == GATE else note)
        self.start = start  # "module:function" run before any check of the event (slow work started early)

    def begin(self, ctx: Ctx) -> None:
        """Run the row's ``start`` (if any); a crash there is kept and raised when the check runs."""
        if self.start is None:
            return
        try:
            _named(self.start)(ctx)
        except BaseException as exc:  # noqa: BLE001 - the check's own crash policy answers it
            if isinstance(exc, KeyboardInterrupt):
                raise
            ctx.memo[("start crashed", self.name)] = exc

    def run(self, ctx: Ctx) -> Answer:
        crashed = ctx.memo.pop(("start crashed", self.name), None)
        if crashed is not None:
            raise crashed
        return self.fn(ctx)

    @property
    def fn(self) -> Callable[[Ctx], Answer]:
        if isinstance(self._fn, str):
            self._fn = _named(self._fn)
        return self._fn

    @fn.setter
    def fn(self, value: Callable[[Ctx], Answer]) -> None:
        self._fn = value

    def crashed(self, ctx: Ctx, detail: str) -> Answer:
        on_crash = _named(self._on_crash) if isinstance(self._on_crash, str) else self._on_crash
        return on_crash(ctx, self.name, detail)


PRE, POST = "pre-tool-use", "post-tool-use"
_ALL = (
    # name               events dispatched       tools        kind      function          door (hook check NAME)
    Check("guard-verified", (PRE,), EDIT_TOOLS, GATE, "guards:guard_verified", PRE),
    Check("journal-guard", (PRE,), EDIT_TOOLS, GATE, "guards:journal_guard", PRE),
    Check("shell-guard", (PRE,), SHELL_TOOLS, GATE, "guards:shell_guard", PRE),
    Check("check-okf", (), EDIT_TOOLS, GATE, "post_edit:check_okf", POST),  # runs inside post-edit
    Check("cap-check", (), EDIT_TOOLS, GATE, "post_edit:cap_check", POST),  # runs inside post-edit
    Check("reconcile-search", (), EDIT_TOOLS, GATE, "post_edit:reconcile_search", POST),  # runs inside post-edit
    Check("post-edit", (POST,), EDIT_TOOLS, GATE, "post_edit:post_edit", POST),
    Check("memory-capture", ("stop",), None, FEEDBACK, "memory_checks:memory_capture", None),
    # the gate's git child was started before the capture (stop.start) and is read after it
    Check("stop-gate", ("stop",), None, GATE, "stop:stop_gate", "stop", start="stop:start"),
    Check("session-context", ("session-start",), None, FEEDBACK, "banner:session_context", "session-start",
          on_crash="banner:crashed"),
    Check("memory-recall", ("user-prompt-submit",), None, FEEDBACK, "memory_checks:memory_recall", None),
    Check("memory-session-end", ("session-end",), None, FEEDBACK, "memory_checks:memory_session_end", None),
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
