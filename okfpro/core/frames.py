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

# a "<" as the model might read it
_LT = r"(?:<|\uff1c|\ufe64|\u2039|\u27e8|\u3008|\u2329|&lt;?|&#0*60;?|&#x0*3c;?|\\u003c|\\x3c|%3c)"
_FORMAT = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"
_F = f"[{_FORMAT}]*"
_SEP = f"(?:{_F}[\\s_\\-]?{_F})"  # between the parts of a name: -, _, a space, or nothing


def _name(name: str) -> str:
    parts = [_F.join(map(re.escape, part)) for part in name.split("-")]
    return _SEP.join(parts)


def _tag(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(_name(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(f"{_LT}(?P<rest>{_F}\\s*{_F}/?{_F}\\s*{_F}(?:{alternatives}))(?![A-Za-z0-9_-])", re.IGNORECASE)


_ALL = _tag(FRAMES)
_HOST = _tag(HOST_FRAMES)


def neutralise(text: str, host_only: bool = False) -> str:
    """Every frame tag in ``text`` made inert (its ``<`` becomes ``&lt;``); everything else as it was.

    ``host_only`` leaves our own frames alone: for a whole answer that carries our framing.
    """
    if not text:
        return text
    return (_HOST if host_only else _ALL).sub(lambda m: "&lt;" + m.group("rest"), text)
