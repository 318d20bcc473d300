"""JSON with comments, as Gemini CLI reads its ``settings.json`` and ``trustedFolders.json``."""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _blank(text: str) -> str:
    return "".join(c if c.isspace() else " " for c in text)


def _escaped(text: str, quote: int) -> bool:
    """Is the quote at ``quote`` preceded by an odd number of backslashes?"""
    i = quote
    while i > 0 and text[i - 1] == "\\":
        i -= 1
    return (quote - i) % 2 == 1


def strip_comments(text: str) -> str:
    """The npm package strip-json-comments (what Gemini CLI 0.61 runs before ``JSON.parse`` on
    ``settings.json`` and ``trustedFolders.json``): ``//`` (to the line's end) and ``/* */`` comments
    outside strings become blanks of the same length (line breaks kept), so positions in the text are
    unchanged; an unterminated comment runs to the end."""
    out: list[str] = []
    start = i = 0
    n = len(text)
    in_string = False
    while i < n:
        if text[i] == '"' and not _escaped(text, i):
            in_string = not in_string
        elif not in_string and text.startswith(("//", "/*"), i):
            if text[i + 1] == "/":
                end = text.find("\n", i)
                end = n if end < 0 else end
            else:
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
            out.append(text[start:i])
            out.append(_blank(text[i:end]))
            start = i = end
            continue
        i += 1
    out.append(text[start:])
    return "".join(out)


def loads_commented(text: str) -> Any:
    """``JSON.parse(stripJsonComments(text))``: JSON with comments, no trailing commas."""
    return json.loads(strip_comments(text))
