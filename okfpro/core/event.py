"""The host's hook event, normalised: the one event type every layer reads (hooks, memory, identity, audit).

Every field is optional (the hosts' schemas grow every few months); unknown
fields are kept in ``raw`` and otherwise ignored.  Input bytes are decoded as
UTF-8 with replacement, so a stray byte or a bare locale can never crash a gate.
An unreadable event (empty stdin, not JSON, not a JSON object) is not an
exception: it is an :class:`Event` whose ``error`` says why, and the protocol
decides what a gate does about it (refuse) and what the banner does (say so).
Pure: the shell reads stdin (:func:`okfpro.hooks.protocol.read_stdin`) and says which directory
the process runs in (``here``), the event's ``cwd`` when the host sends none.
"""

from __future__ import annotations

import json
import posixpath

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook path
    from typing import Any

EDIT_TOOLS = ("Edit", "Write", "MultiEdit")
SHELL_TOOLS = ("Bash", "PowerShell")  # Claude Code runs PowerShell commands through its own tool
_TEXT_KEYS = ("new_string", "new_str", "content")


class Event:
    __slots__ = ("raw", "error", "dialect", "here")

    def __init__(self, raw: dict[str, Any] | None = None, error: str | None = None, dialect: str = "claude",
                 here: str = "/") -> None:
        self.raw: dict[str, Any] = raw if raw is not None else {}
        self.error = error
        self.dialect = dialect
        self.here = here  # the process's working directory, given by the shell that read the event

    # -- plain fields --------------------------------------------------
    def _text(self, key: str) -> str:
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""

    @property
    def tool_name(self) -> str:
        return self._text("tool_name")

    @property
    def tool_input(self) -> dict[str, Any]:
        value = self.raw.get("tool_input")
        return value if isinstance(value, dict) else {}

    @property
    def cwd(self) -> str:
        return self._text("cwd") or self.here

    @property
    def source(self) -> str:
        return self._text("source")

    @property
    def hook_event_name(self) -> str:
        return self._text("hook_event_name")

    @property
    def prompt(self) -> str:
        return self._text("prompt")

    @property
    def stop_hook_active(self) -> bool:
        return self.raw.get("stop_hook_active") is True

    @property
    def last_assistant_message(self) -> str | None:
        """The host's final assistant text of the turn (Stop), when it sends one."""
        return self._text("last_assistant_message") or None

    @property
    def transcript_path(self) -> str | None:
        return self._text("transcript_path") or None

    # -- tool input ----------------------------------------------------
    @property
    def file_path(self) -> str | None:
        """The edited file as an absolute path (relative paths are read against ``cwd``)."""
        ti = self.tool_input
        for key in ("file_path", "path", "filePath"):
            value = ti.get(key)
            if isinstance(value, str) and value:
                return value if posixpath.isabs(value) else posixpath.join(self.cwd, value)
        return None

    @property
    def command(self) -> str:
        value = self.tool_input.get("command")
        return value if isinstance(value, str) else ""

    @property
    def added_text(self) -> str:
        """Everything the edit adds: new_string + new_str + content + each edit's new text."""
        ti = self.tool_input
        parts: list[str] = []
        for key in _TEXT_KEYS:
            value = ti.get(key)
            if isinstance(value, str):
                parts.append(value)
        edits = ti.get("edits")
        if isinstance(edits, list):
            for edit in edits:
                if not isinstance(edit, dict):
                    continue
                for key in ("new_string", "new_str"):
                    value = edit.get(key)
                    if isinstance(value, str):
                        parts.append(value)
        return "\n".join(parts)

    @property
    def is_edit(self) -> bool:
        return self.tool_name in EDIT_TOOLS

    @property
    def is_shell(self) -> bool:
        return self.tool_name in SHELL_TOOLS


def as_event(value: Event | dict[str, Any] | Any) -> Event:
    """The one event type: an :class:`Event` as it is; a mapping (a test's, the CLI's
    ``--session-id``) wrapped once; anything else an empty event."""
    if isinstance(value, Event):
        return value
    if isinstance(value, dict):
        return Event(raw=value)
    from collections.abc import Mapping

    return Event(raw=dict(value)) if isinstance(value, Mapping) else Event()


def parse(data: bytes | str, here: str = "/") -> Event:
    """An :class:`Event` from the bytes on stdin (never raises); ``here``: the reader's working directory."""
    if isinstance(data, bytes):
        text = data.decode("utf-8", errors="replace")
    else:
        text = data.encode("utf-8", errors="replace").decode("utf-8", errors="replace")
    if not text.strip():
        return Event(error="the event on stdin is empty", here=here)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Event(error=f"the event on stdin is not JSON ({brief(exc)})", here=here)
    if not isinstance(value, dict):
        return Event(error=f"the event on stdin is a JSON {type(value).__name__}, not an object", here=here)
    return Event(raw=value, here=here)


def brief(exc: BaseException) -> str:
    """The first line of an exception's text (at most 160 characters), for a one-line reason."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]
