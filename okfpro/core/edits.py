"""What a file would hold after an edit tool ran: the edit applied to the current text, in memory.

The guards decide on the meaning of the result (the frontmatter the reader would
parse), not on the spelling of the text the tool adds.  One function per tool
shape, all pure:

* ``Write`` (``content``): the new text is the content;
* ``Edit`` (``old_string``/``new_string``, ``old_str``/``new_str``; ``replace_all``,
  Gemini's ``expected_replacements``): the replacement applied to the current text;
* ``MultiEdit`` (``edits``: a list of the above): applied in order, each to the result
  of the last — the host applies all or nothing.

``outcomes`` returns every text the file could hold afterwards (more than one where
the host's choice is not knowable from here, e.g. a non-unique ``old_string``), an
empty list when the edit cannot apply (the host refuses it and nothing is written),
or None when the tool input has no shape this module knows — the caller then
decides on the added text alone.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on every PreToolUse
    from typing import Any


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _pair(edit: dict[str, Any]) -> tuple[str, str, bool] | None:
    old = _str(edit.get("old_string"))
    if old is None:
        old = _str(edit.get("old_str"))
    new = _str(edit.get("new_string"))
    if new is None:
        new = _str(edit.get("new_str"))
    if old is None or new is None:
        return None
    expected = edit.get("expected_replacements")
    every = edit.get("replace_all") is True or (isinstance(expected, int) and not isinstance(expected, bool)
                                                and expected > 1)
    return old, new, every


def _replace(texts: list[str], old: str, new: str, every: bool) -> list[str]:
    out: list[str] = []
    for text in texts:
        if old == "":
            # creation (or an empty file): the host writes new_string; on an existing text assume it lands first
            candidates = [new] if text == "" else [new, new + text]
        elif old not in text:
            continue
        elif every or text.count(old) == 1:
            candidates = [text.replace(old, new)] if every else [text.replace(old, new, 1)]
        else:  # not unique: the host refuses, or a variant replaces one or all — consider both
            candidates = [text.replace(old, new, 1), text.replace(old, new)]
        out.extend(c for c in candidates if c not in out)
    return out


def outcomes(current: str, tool_input: dict[str, Any]) -> list[str] | None:
    """Every text the file could hold after the edit; [] when it cannot apply; None for an unknown shape."""
    content = _str(tool_input.get("content"))
    if content is not None:
        return [content]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts = [current]
        for edit in edits:
            pair = _pair(edit) if isinstance(edit, dict) else None
            if pair is None:
                return None
            texts = _replace(texts, *pair)
            if not texts:
                return []
        return texts
    pair = _pair(tool_input)
    if pair is None:
        return None
    return _replace([current], *pair)
