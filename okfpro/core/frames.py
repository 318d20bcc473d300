"""Frame tags in text we put in front of the model: recalled memory, bundle excerpts, the banner.

The model reads structure from tags: ours (``<okfpro-recall>``, ``<okf-context …>``) and the
host's (``<system-reminder>``, the hook and command frames).  Text an attacker controls —
a memory entry, a board line, a concept title — must not open or close such a frame.
:func:`neutralise` turns the ``<`` of every opening or closing tag whose name is one of
:data:`FRAMES` into ``&lt;``, whatever its spelling: any case, spaces around the slash or
the name, ``_`` or a space for ``-``, format characters (zero-width) inside it, a lookalike
``<`` (fullwidth, small, angle brackets) or an entity/escape of it (``&lt;``, ``&#60;``,
``&#x3c;``, ``\\u003c``, ``%3C``).  Other tags (``<div>``, ``<T>``) are left alone.  Pure.

:func:`neutralise` is the one framing function: the hooks call it on what they put in front of the
model (the prompt hook's recall blocks, the banner, every answer), and the MCP server calls it, through
:func:`neutralise_json`, on every string of every tool answer, tool error and resource it serves — so a
note stored with ``<system-reminder>`` reaches the model the same way by either door.
"""

from __future__ import annotations

import re


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

OWN_FRAMES = ("okfpro-recall", "okf-context")
HOST_FRAMES = (
    "system-reminder", "system", "user-prompt-submit-hook", "session-start-hook", "hook", "hook-output",
    "command-name", "command-message", "command-args", "command-output", "local-command-stdout",
    "local-command-stderr", "bash-input", "bash-stdout", "bash-stderr", "task-notification", "user", "assistant",
    "human", "function-results", "function-calls", "functions", "function", "invoke", "parameter", "result",
    "results", "output", "tool-result", "tool-use", "tool-call", "context", "additional-context", "instructions",
    "important",
)
FRAMES = OWN_FRAMES + HOST_FRAMES

_ALL = frozenset(FRAMES)
_HOST = frozenset(HOST_FRAMES)

# a "<" as the model might read it
_LT = r"(?:<|\uff1c|\ufe64|\u2039|\u27e8|\u3008|\u2329|&[lL][tT];?|&#0*60;?|&#[xX]0*3[cC];?|\\[uU]003[cC]|\\[xX]3[cC]|%3[cC])"
_LT_ASCII = r"(?:<|&[lL][tT];?|&#0*60;?|&#[xX]0*3[cC];?|\\[uU]003[cC]|\\[xX]3[cC]|%3[cC])"  # the same less the next
_LT_OTHER = "\uff1c\ufe64\u2039\u27e8\u3008\u2329"  # the lookalike "<"s
_FORMAT = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"


def _tag_regex(lt: str, fmt: str) -> str:
    """One generic tag shape, judged by its normalised name in Python (a regex of every spelling
    compiles slowly)."""
    word = f"[A-Za-z0-9{fmt}]"
    return f"{lt}(?P<rest>[\\s{fmt}]*/?[\\s{fmt}]*(?P<name>[A-Za-z]{word}*(?:[_\\-\\s]{{1,3}}{word}+)*))"


_TAG_REGEX = _tag_regex(_LT, _FORMAT)
# The same shape without the non-ASCII spellings, for a text that holds none of them (nearly every
# text): an alternative or a class member for a character the text does not hold matches nothing,
# so both find the same tags there.  Compiling the full one is slow (each class with the format
# characters is a 64K "big charset" built in Python), so only a text that needs it pays for it.
_ASCII_TAG_REGEX = _tag_regex(_LT_ASCII, "")
_NON_ASCII_SPELLINGS = _LT_OTHER + _FORMAT
_SEPS_REGEX = r"[_\s-]+"
_CANDIDATES = "<" + _LT_OTHER + "&\\%"  # the characters one of the spellings starts with
# compiled on first use (re.compile keeps each for the process): importing this module compiles nothing


def _holds_any(text: str, chars: str) -> bool:
    for ch in chars:
        if ch in text:
            return True
    return False


def _is_frame(name: str, frames: frozenset[str]) -> bool:
    if _holds_any(name, _FORMAT):
        name = "".join(ch for ch in name if ch not in _FORMAT)
    parts = re.compile(_SEPS_REGEX).sub("-", name.lower()).strip("-").split("-")
    return any("-".join(parts[:i]) in frames for i in range(1, len(parts) + 1))


def neutralise(text: str, host_only: bool = False) -> str:
    """Every frame tag in ``text`` made inert (its ``<`` becomes ``&lt;``); everything else as it was.

    ``host_only`` leaves our own frames alone: for a whole answer that carries our framing.
    """
    if not text or not _holds_any(text, _CANDIDATES):
        return text
    frames = _HOST if host_only else _ALL
    judged: dict[str, bool] = {}  # a recall answer repeats a few names (okf-context) dozens of times

    def one(m: re.Match[str]) -> str:
        name = m.group("name")
        frame = judged.get(name)
        if frame is None:
            frame = judged[name] = _is_frame(name, frames)
        return "&lt;" + m.group("rest") if frame else m.group(0)

    full = not text.isascii() and _holds_any(text, _NON_ASCII_SPELLINGS)
    return re.compile(_TAG_REGEX if full else _ASCII_TAG_REGEX).sub(one, text)


def neutralise_json(value: Any) -> Any:
    """:func:`neutralise` on every string of a JSON-shaped value, keys included (lists and tuples come
    back as lists; numbers, booleans, ``None`` and dates as they were): an answer handed to a model
    as data, where stored text sits in any field."""
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, dict):
        return {(neutralise(k) if isinstance(k, str) else k): neutralise_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [neutralise_json(v) for v in value]
    return value
