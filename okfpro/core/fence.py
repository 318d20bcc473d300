"""The frontmatter fence: where a concept's YAML block starts and ends.

Its own module so that a hook can tell whether an edit touches the frontmatter
without importing the YAML parser (``okfpro.core.concept`` parses what it finds).
"""

from __future__ import annotations

import re


FRONTMATTER = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)


def block(text: str) -> str | None:
    """The frontmatter block's YAML text, or None when the text opens with no complete block."""
    m = FRONTMATTER.match(text)
    return m.group(1) if m else None
