"""Host dialects.  Claude Code is the reference; the others are mapped onto it.

* **claude** — the reference dialect (event JSON on stdin, exit 0/2, PreToolUse
  ``hookSpecificOutput.permissionDecision``, SessionStart plain stdout).
* **codex** — OpenAI Codex CLI speaks the same JSON.  Three differences matter:
  its edit tool is ``apply_patch`` (the patch text in ``tool_input.command`` /
  ``input`` / ``patch``), which is split here into one Write/Edit event per file,
  holding the text Codex would leave there (``okfpro.core.patch``);
  its output schemas are strict, so context goes out as a ``hookSpecificOutput``
  object rather than plain text; and it has no "ask" — Codex 0.171 rejects
  ``permissionDecision: "ask"`` and then lets the tool run — so an ask goes out
  as ``deny`` with a non-empty reason that tells the owner how to make the change
  by hand.
* **gemini** — Gemini CLI names its events ``BeforeTool`` / ``AfterTool`` /
  ``SessionStart`` / ``SessionEnd`` / ``BeforeAgent`` / ``AfterAgent`` and its tools
  ``write_file`` / ``replace`` / ``run_shell_command``.  A deliberate refusal is
  ``{"decision": "deny", "reason": …}`` at exit 0: Gemini 0.61 blocks on it exactly
  as on exit 2 (isBlockingDecision), but counts any exit other than 0 as a failed
  hook and shows the user "Hook(s) [...] failed" — exit 2 stays for a launcher that
  could not run okfpro, which is a failure.  An ask is ``{"decision": "ask"}``
  (Gemini 0.61 turns it into ASK_USER).  Context is ``hookSpecificOutput.additionalContext``.  Gemini
  reads ``stdout.trim() || stderr.trim()``: at exit 0 an empty stdout would show
  our stderr notes to the user on every prompt, so a quiet answer is ``{}``.
  Its ``timeout`` is in milliseconds (a concern of the settings file
  ``okfpro init --agent gemini`` writes).

Detection: ``--agent NAME`` on the command line wins; otherwise a Gemini event
name only Gemini uses (``BeforeTool`` …) in ``hook_event_name`` — or a shared
one (``SessionStart``) with Gemini's ``timestamp`` field — selects gemini;
otherwise claude.
"""

from __future__ import annotations

import json
import os
TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any

from okfpro.core.event import Event

DIALECTS = ("claude", "codex", "gemini")

GEMINI_EVENTS = {
    "BeforeTool": "pre-tool-use",
    "AfterTool": "post-tool-use",
    "SessionStart": "session-start",
    "SessionEnd": "session-end",
    "BeforeAgent": "user-prompt-submit",
    "AfterAgent": "stop",
}
GEMINI_ONLY = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
               "BeforeToolSelection", "PreCompress")
GEMINI_TOOLS = {
    "write_file": "Write",
    "replace": "Edit",
    "run_shell_command": "Bash",
}
CLAUDE_EVENT_NAMES = {
    "session-start": "SessionStart",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "stop": "Stop",
    "user-prompt-submit": "UserPromptSubmit",
    "session-end": "SessionEnd",
}
GEMINI_EVENT_NAMES = {v: k for k, v in GEMINI_EVENTS.items()}



def detect(event: Event, requested: str | None) -> str:
    if requested:
        return requested
    name = event.hook_event_name
    if name in GEMINI_ONLY:
        return "gemini"
    if name in GEMINI_EVENTS and "timestamp" in event.raw:  # SessionStart/End are shared names
        return "gemini"
    return "claude"


def normalize(event: Event, dialect: str) -> list[Event]:
    """One or more reference-dialect events for what the host sent."""
    event.dialect = dialect
    if event.error is not None:
        return [event]
    raw = dict(event.raw)
    if dialect == "gemini":
        tool = raw.get("tool_name")
        if isinstance(tool, str) and tool in GEMINI_TOOLS:
            raw["tool_name"] = GEMINI_TOOLS[tool]
        # Gemini's AfterAgent carries stop_hook_active like Claude's Stop.
        return [Event(raw=raw, dialect=dialect, here=event.here)]
    if raw.get("tool_name") == "apply_patch":
        return _split_patch(raw, dialect, event.here) or [Event(raw=raw, dialect=dialect, here=event.here)]
    return [Event(raw=raw, dialect=dialect, here=event.here)]


def _patch_text(tool_input: Any) -> str:
    if isinstance(tool_input, str):
        return tool_input
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "input", "patch"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list):  # ["apply_patch", "<patch>"]
            return "\n".join(v for v in value if isinstance(v, str))
    return ""


def _split_patch(raw: dict[str, Any], dialect: str, here: str) -> list[Event]:
    """One Write/Edit event per file the patch writes or deletes, holding the text Codex would leave.

    An Update's chunks are applied to the file's current text the way Codex applies them
    (``okfpro.core.patch``) and passed as ``old_string`` (today's text) / ``new_string`` (the
    result), so the guards judge the real edit — not the ``+`` lines, and not a hunk that
    ``str.replace`` might land somewhere else than Codex's positional search does.  A Move is a
    deletion of the source and a write of the destination; a Delete is a write of nothing.  When
    the result is not knowable (the file unreadable, a chunk Codex would not find either), the
    event carries the added lines only and the guards decide on those.  A text Codex would not
    parse as a patch becomes no event: Codex refuses it and writes nothing.
    """
    from okfpro.core import patch

    ops = patch.parse(_patch_text(raw.get("tool_input")))
    if not ops:
        return []
    given = raw.get("cwd")
    cwd = given if isinstance(given, str) else here

    def event(path: str, tool_input: dict[str, Any], tool: str) -> Event:
        sub = dict(raw)
        sub["tool_name"] = tool
        sub["tool_input"] = {"file_path": path if os.path.isabs(path) else os.path.join(cwd, path), **tool_input}
        return Event(raw=sub, dialect=dialect, here=here)

    out = []
    for op in ops:
        if op.op == "add":
            out.append(event(op.path, {"content": op.content}, "Write"))
            continue
        if op.op == "delete":
            out.append(event(op.path, {"content": ""}, "Write"))
            continue
        from okfpro.hooks.guards import current_text

        full = op.path if os.path.isabs(op.path) else os.path.join(cwd, op.path)
        now = current_text(full)
        result = patch.apply(now, op.chunks) if now is not None else None
        if result is not None:
            change = {"old_string": now, "new_string": result}
        else:
            change = {"new_string": "\n".join(line for c in op.chunks for line in c.new)}
        if op.move_to is not None:
            out.append(event(op.path, {"content": ""}, "Write"))
            out.append(event(op.move_to, {"content": result} if result is not None else change, "Write" if result is not None else "Edit"))
        else:
            out.append(event(op.path, change, "Edit"))
    return out


CODEX_REFUSAL = (
    "Codex CLI cannot ask the owner to approve a call, so okfpro refuses it instead of letting it through "
    "unasked. If the owner wants this change, the owner makes it by hand — in an editor or a terminal outside "
    "the agent (okfpro's hooks guard the agent, not the owner) — and tells the agent it is done. "
    "The question okfpro would have asked:\n"
)


def _compact(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def ask_output(dialect: str, reason: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for an ask."""
    if dialect == "gemini":
        return _compact({"decision": "ask", "reason": reason, "systemMessage": reason}), "", 0
    if dialect == "codex":
        return _compact({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": CODEX_REFUSAL + (reason.strip() or "(no reason given)"),
        }}), "", 0
    payload = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": reason,
        }
    }
    return _compact(payload), "", 0


def block_output(dialect: str, reason: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for a deliberate refusal: exit 2 with the reason on stderr, or for
    Gemini the refusal it shows as one (see the module doc)."""
    if dialect == "gemini":
        return _compact({"decision": "deny", "reason": reason}), "", 0
    return "", reason, 2


def quiet_output(dialect: str) -> str:
    """stdout for an exit-0 answer with nothing to say: ``{}`` for Gemini (see the module doc), else nothing."""
    return "{}" if dialect == "gemini" else ""


def context_output(dialect: str, event_name: str, text: str) -> str:
    """stdout for a context answer (SessionStart banner, prompt recall)."""
    if dialect == "claude" and event_name == "session-start":
        return text if text.endswith("\n") else text + "\n"
    # recall is data for the model: the structured additionalContext, never bare stdout
    host_name = (GEMINI_EVENT_NAMES if dialect == "gemini" else CLAUDE_EVENT_NAMES).get(event_name, event_name)
    return _compact({"hookSpecificOutput": {"hookEventName": host_name, "additionalContext": text}})
