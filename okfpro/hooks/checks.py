"""The hook checks: one function each, one registry table.

A check is ``fn(ctx) -> Answer``.  An answer is one of

* ``Answer.pass_()`` — nothing to say;
* ``Answer.context(text)`` — information for the agent (SessionStart banner);
* ``Answer.ask(reason)`` — PreToolUse: ask the human;
* ``Answer.block(messages)`` — refuse (PreToolUse deny, PostToolUse feedback the
  agent must read, Stop: keep working).

``CHECKS`` names every check the hook door accepts, which events and tools it
runs on when a whole event is dispatched, and whether it is a *gate* (a crash
inside it refuses the call) or *feedback* (a crash degrades to a note).  The
names are the reference's; ``check-okf``, ``cap-check`` and ``reconcile-search``
run inside ``post-edit`` when an event is dispatched (one bundle read), and stay
addressable on their own.

Heavy modules (the validator, the linter, the board and snapshot logic) are
imported inside the checks that need them, never at module import.
"""

from __future__ import annotations

import os
import re
TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    import datetime as _dt
    from typing import Any, Callable

from okfpro.hooks.event import EDIT_TOOLS, SHELL_TOOLS, Event

PASS, CONTEXT, ASK, BLOCK = "pass", "context", "ask", "block"
STRENGTH = {PASS: 0, CONTEXT: 1, ASK: 2, BLOCK: 3}


class Answer:
    __slots__ = ("kind", "messages")

    def __init__(self, kind: str = PASS, messages: list[str] | None = None) -> None:
        self.kind = kind
        self.messages: list[str] = list(messages or [])

    def __repr__(self) -> str:
        return f"Answer({self.kind!r}, {self.messages!r})"

    @staticmethod
    def pass_() -> "Answer":
        return Answer(PASS)

    @staticmethod
    def context(text: str) -> "Answer":
        return Answer(CONTEXT, [text] if text else [])

    @staticmethod
    def ask(reason: str) -> "Answer":
        return Answer(ASK, [reason])

    @staticmethod
    def block(messages: list[str] | str) -> "Answer":
        return Answer(BLOCK, [messages] if isinstance(messages, str) else list(messages))

    @property
    def text(self) -> str:
        return "\n".join(self.messages)


def strongest(answers: list[Answer]) -> Answer:
    """block > ask > context > pass; answers of the winning kind are merged in order."""
    if not answers:
        return Answer.pass_()
    top = max(STRENGTH[a.kind] for a in answers)
    kind = next(k for k, v in STRENGTH.items() if v == top)
    merged: list[str] = []
    for a in answers:
        if a.kind == kind:
            merged.extend(a.messages)
    return Answer(kind, merged)


# --------------------------------------------------------------------------- context


class Ctx:
    """What every check of one event shares: the event, today, one bundle read per root."""

    def __init__(self, event: Event, today: _dt.date | None = None) -> None:
        self.event = event
        self._today = today  # read lazily: a check that needs no date never imports datetime
        self._bundles: dict[str, Any] = {}
        self._target: Any = ...
        self._enclosing: Any = ...
        self.notes: list[str] = []  # stderr notes (a feedback check that crashed and was skipped)

    @property
    def today(self) -> _dt.date:
        if self._today is None:
            from okfpro.io.clock import today as _today

            self._today = _today()
        return self._today

    @property
    def today_s(self) -> str:
        return self.today.isoformat()

    # the edited file's bundle ------------------------------------------
    def target(self) -> tuple[str, str] | None:
        """``(root, rel)`` when the edited file is Markdown inside a bundle, else None."""
        if self._target is ...:
            self._target = self._find_target()
        return self._target

    def _find_target(self) -> tuple[str, str] | None:
        path = self.event.file_path
        if not path:
            return None
        from okfpro.io.roots import containing

        path = os.path.normpath(path)
        root = containing(path)
        if root is None:
            return None
        root_s = os.fspath(root)
        rel = os.path.relpath(path, root_s)
        if rel.startswith("..") or os.path.isabs(rel):
            real_root = os.path.realpath(root_s)
            rel = os.path.relpath(os.path.realpath(path), real_root)
            if rel.startswith(".."):
                return None
        rel = rel.replace(os.sep, "/")
        if not rel.endswith(".md"):
            return None
        if any(seg.startswith(".") for seg in rel.split("/")):
            return None
        return root_s, rel

    # the session's bundle ----------------------------------------------
    def enclosing(self) -> str | None:
        if self._enclosing is ...:
            from okfpro.io.roots import enclosing

            root = enclosing(self.event.cwd)
            self._enclosing = os.fspath(root) if root is not None else None
        return self._enclosing

    def workspace(self) -> str:
        """The workspace directory: the enclosing bundle's workspace, else the Git repository, else cwd."""
        from pathlib import Path

        from okfpro.io.roots import git_fence, repo_of

        root = self.enclosing()
        if root is not None:
            return os.fspath(repo_of(Path(root)))
        fence = git_fence(Path(os.path.abspath(self.event.cwd)))
        return os.fspath(fence) if fence is not None else self.event.cwd

    def bundle(self, root: str) -> Any:
        if root not in self._bundles:
            from okfpro.io.bundle import load

            self._bundles[root] = load(root)
        return self._bundles[root]


# --------------------------------------------------------------------------- guards

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


# --------------------------------------------------------------------------- post-edit


def _same_stem(path: str, rel: str) -> bool:
    def stem(p: str) -> str:
        p = str(p).lstrip("/")
        return p[:-3] if p.endswith(".md") else p

    return stem(path) == stem(rel)


def conformance(ctx: Ctx, root: str, rel: str) -> list[str]:
    """check-okf: validator errors and warnings, lint warn findings (yours / elsewhere).

    Lint gets the clock (so nothing that needs a date is silently skipped) and
    leaves out ``stale`` (its cutoff is opt-in); any skipped check is confessed.
    """
    from okfpro.core.lint import lint
    from okfpro.core.validate import validate

    bundle = ctx.bundle(root)
    out: list[str] = []
    result = validate(bundle)
    if result["errors"]:
        out.append("okfpro validate failed after your edit:")
        out.extend(f"  {e['path']}: {e['message']}" for e in result["errors"])
    warnings = result["warnings"]
    if warnings:
        out.append(
            f"okfpro validate accepted the bundle with {len(warnings)} warning(s) — conformant, but not "
            "read the way you probably meant:"
        )
        out.extend(f"  {w['path']}: {w['message']} ({w['check']})" for w in warnings)
    report = lint(bundle, today=ctx.today, except_=["stale"])
    skipped = report["stats"].get("skipped_checks") or []
    if skipped:
        out.append(f"okfpro lint skipped check(s) {', '.join(map(str, skipped))} — those were not looked at.")
    findings = [f for f in report["findings"] if f["severity"] == "warn"]
    mine = [f for f in findings if _same_stem(f["path"], rel)]
    other = [f for f in findings if not _same_stem(f["path"], rel)]

    def line(f: dict[str, Any]) -> str:
        return f"  {f['path']}: {f['message']} ({f['check']})"

    if mine:
        out.append("okfpro lint flagged your edit:")
        out.extend(line(f) for f in mine)
    if other:
        out.append("okfpro lint findings elsewhere in the bundle — already there, or a neighbour your edit touched:")
        out.extend(line(f) for f in other)
    return out


def cap_messages(ctx: Ctx, root: str, rel: str) -> list[str]:
    """cap-check: only for board.md — the budget header and the board grammar."""
    if rel != "board.md":
        return []
    from okfpro.core import board as _board

    text = _read_text(os.path.join(root, "board.md"))
    if text is None:
        return ["— board: board.md could not be read after your edit."]
    parsed = _board.parse(text)
    return _board.cap_check(parsed) + [f"— board: {g}" for g in _board.grammar(parsed)]


def reconcile_message(ctx: Ctx, root: str, rel: str) -> str | None:
    from okfpro.core.reconcile import applies, reconcile

    if not applies(ctx.event.tool_name, rel):
        return None
    return reconcile(ctx.bundle(root), ctx.event.tool_name, rel)


def _edit_target(ctx: Ctx) -> tuple[str, str] | None:
    if ctx.event.tool_name not in EDIT_TOOLS:
        return None
    return ctx.target()


def _on_edited_file(name: str, messages: Callable[[Ctx, str, str], Any]) -> Callable[[Ctx], Answer]:
    """A PostToolUse check of the edited file: pass outside a bundle, block with its messages."""

    def check(ctx: Ctx) -> Answer:
        target = _edit_target(ctx)
        if target is None:
            return Answer.pass_()
        out = messages(ctx, *target)
        return Answer.block(out) if out else Answer.pass_()

    check.__name__ = check.__qualname__ = name
    return check


check_okf = _on_edited_file("check_okf", conformance)
cap_check = _on_edited_file("cap_check", cap_messages)
reconcile_search = _on_edited_file("reconcile_search", reconcile_message)


def post_edit(ctx: Ctx) -> Answer:
    """One bundle read: friction (board.md by hand), conformance, cap-check, reconcile."""
    target = _edit_target(ctx)
    if target is None:
        return Answer.pass_()
    root, rel = target
    if rel == "board.md":
        from okfpro.core import friction
        from okfpro.io import friction as friction_log

        friction_log.record(root, friction.edit_event("board.md", ctx.today_s))
    out = conformance(ctx, root, rel) + cap_messages(ctx, root, rel)
    message = reconcile_message(ctx, root, rel)
    if message:
        out.append(message)
    return Answer.block(out) if out else Answer.pass_()


# --------------------------------------------------------------------------- stop gate

def _read_text(path: str) -> str | None:
    from okfpro.io.workstate import read_optional

    return read_optional(path)


def core_missing(root: str) -> list[str]:
    """The closed core (``okfpro.core.audit.CORE``), checked on disk."""
    from okfpro.core import audit as _audit

    present = {}
    for path, kind, _ in _audit.CORE:
        full = os.path.join(root, path)
        present[path] = os.path.isdir(full) if kind == "dir" else os.path.isfile(full)
    return _audit.structure(present)


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
    from okfpro.hooks import workstate_api as api

    log_text = _read_text(os.path.join(root, "log.md")) or ""
    line = api.snapshot_line_for(log_text, ctx.today)
    if line is None:
        computed = api.computed_line(ctx, root)
        return [
            f"— log.md has no Snapshot line under {ctx.today_s}. Append it before stopping — here it is, "
            f"computed from the bundle as it stands now:\n  {computed}"
        ]
    problem = api.verify_line(ctx, root, line)
    return [problem] if problem else []


def escaping_state_files(root: str) -> list[str]:
    """``board.md`` / ``log.md`` that resolve outside the bundle: the gate reads nothing through them."""
    from okfpro.io.workstate import escaping_state_files as _escaping

    return _escaping(root)


def stop_gate(ctx: Ctx) -> Answer:
    if ctx.event.stop_hook_active:
        return Answer.pass_()
    root = ctx.enclosing()
    if root is None:
        return Answer.pass_()
    if not dirty_markdown(root):
        return Answer.pass_()
    missing = core_missing(root)
    if missing:
        return Answer.block(["RULE 2 — before stopping:"] + [f"— structure: {m}" for m in missing])
    escaped = escaping_state_files(root)
    if escaped:
        return Answer.block(["RULE 2 — before stopping:"] + [f"— structure: {m}" for m in escaped])
    from okfpro.core import board as _board
    from okfpro.hooks import workstate_api as api

    messages = snapshot_messages(ctx, root)
    messages.extend(f"— board: {g}" for g in _board.grammar(_read_text(os.path.join(root, "board.md")) or ""))
    messages.extend(api.pairing_messages(ctx, root))
    if messages:
        return Answer.block(["RULE 2 — before stopping:"] + messages)
    return Answer.pass_()


# --------------------------------------------------------------------------- session start


def session_context(ctx: Ctx) -> Answer:
    from okfpro.hooks.banner import banner

    text = banner(ctx)
    return Answer.context(text) if text else Answer.pass_()


# --------------------------------------------------------------------------- memory

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

    result = recall_for_prompt(ctx.event, ctx.workspace())
    if result.text:
        return Answer.context(result.text)
    _note_unless_quiet(ctx, "memory-recall", result.reason)
    return Answer.pass_()


def memory_capture(ctx: Ctx) -> Answer:
    """Stop: capture the turn (when ``[memory] capture = true``), redacted before it touches disk."""
    from okfpro.memory.capture import capture_from_event

    result = capture_from_event(ctx.event, ctx.workspace())
    if not result.written:
        _note_unless_quiet(ctx, "memory-capture", result.reason)
    return Answer.pass_()


def memory_session_end(ctx: Ctx) -> Answer:
    """SessionEnd: delete the session tier's memory (``[memory] session_cleanup``, default on)."""
    from okfpro.memory.capture import end_session

    result = end_session(ctx.event, ctx.workspace())
    if not result.written:
        _note_unless_quiet(ctx, "memory-session-end", result.reason)
    return Answer.pass_()


# --------------------------------------------------------------------------- the table

GATE, FEEDBACK = "gate", "feedback"


class Check:
    """One row of the table.

    ``events``: the events that run it when a whole event is dispatched;
    ``tools``: the tools it applies to (None: any tool, or none);
    ``kind``: gate (a crash refuses) or feedback (a crash degrades);
    ``door``: the event whose answer format ``okfpro hook check NAME`` uses —
    None when the check is not addressable by name.
    """

    __slots__ = ("name", "events", "tools", "kind", "fn", "door")

    def __init__(self, name: str, events: tuple[str, ...], tools: tuple[str, ...] | None, kind: str,
                 fn: Callable[[Ctx], Answer], door: str | None) -> None:
        self.name, self.events, self.tools, self.kind, self.fn, self.door = name, events, tools, kind, fn, door


PRE, POST = "pre-tool-use", "post-tool-use"
_ALL = (
    # name               events dispatched       tools        kind      function          door (hook check NAME)
    Check("guard-verified", (PRE,), EDIT_TOOLS, GATE, guard_verified, PRE),
    Check("journal-guard", (PRE,), EDIT_TOOLS, GATE, journal_guard, PRE),
    Check("shell-guard", (PRE,), SHELL_TOOLS, GATE, shell_guard, PRE),
    Check("check-okf", (), EDIT_TOOLS, GATE, check_okf, POST),  # runs inside post-edit
    Check("cap-check", (), EDIT_TOOLS, GATE, cap_check, POST),  # runs inside post-edit
    Check("reconcile-search", (), EDIT_TOOLS, GATE, reconcile_search, POST),  # runs inside post-edit
    Check("post-edit", (POST,), EDIT_TOOLS, GATE, post_edit, POST),
    Check("stop-gate", ("stop",), None, GATE, stop_gate, "stop"),
    Check("session-context", ("session-start",), None, FEEDBACK, session_context, "session-start"),
    Check("memory-recall", ("user-prompt-submit",), None, FEEDBACK, memory_recall, None),
    Check("memory-capture", ("stop",), None, FEEDBACK, memory_capture, None),
    Check("memory-session-end", ("session-end",), None, FEEDBACK, memory_session_end, None),
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
