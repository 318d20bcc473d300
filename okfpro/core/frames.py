"""Frame tags in text we put in front of the model: recalled memory, bundle excerpts, the banner.

The model reads structure from tags: ours (``<okfpro-recall>``, ``<okf-context …>``) and the
host's (``<system-reminder>``, the hook and command frames).  Text an attacker controls —
a memory entry, a board line, a concept title — must not open or close such a frame.
:func:`neutralise` turns the ``<`` of every opening or closing tag whose name is one of
:data:`FRAMES` into ``&lt;``, whatever its spelling: any case, spaces around the slash or
the name, ``_`` or a space for ``-``, format characters (zero-width) inside it, a lookalike
``<`` (fullwidth, small, angle brackets) or an entity/escape of it (``&lt;``, ``&#60;``,
``&#x3c;``, ``\\u003c``, ``%3C``).  Other tags (``<div>``, ``<T>``) are left alone.  Pure.
"""

from __future__ import annotations

import re

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
_FORMAT = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
_WORD = f"[A-Za-z0-9{_FORMAT}]"
# one generic tag shape, judged by its normalised name in Python (a regex of every spelling compiles slowly)
_TAG = re.compile(
    f"{_LT}(?P<rest>[\\s{_FORMAT}]*/?[\\s{_FORMAT}]*(?P<name>[A-Za-z]{_WORD}*(?:[_\\-\\s]{{1,3}}{_WORD}+)*))",
)
_STRIP = re.compile(f"[{_FORMAT}]")
_SEPS = re.compile(r"[_\s-]+")
_CANDIDATES = ("<", "\uff1c", "\ufe64", "\u2039", "\u27e8", "\u3008", "\u2329", "&", "\\", "%")


def _is_frame(name: str, frames: frozenset[str]) -> bool:
    parts = _SEPS.sub("-", _STRIP.sub("", name).lower()).strip("-").split("-")
    return any("-".join(parts[:i]) in frames for i in range(1, len(parts) + 1))


def neutralise(text: str, host_only: bool = False) -> str:
    """Every frame tag in ``text`` made inert (its ``<`` becomes ``&lt;``); everything else as it was.

    ``host_only`` leaves our own frames alone: for a whole answer that carries our framing.
    """
    if not text or not any(c in text for c in _CANDIDATES):
        return text
    frames = _HOST if host_only else _ALL

    def one(m: re.Match[str]) -> str:
        return "&lt;" + m.group("rest") if _is_frame(m.group("name"), frames) else m.group(0)

    return _TAG.sub(one, text)
