"""The one refusal: a pure transform or a guarded writer will not act.

``okfpro.core.board_edit`` raises it when a change cannot be made safely;
``okfpro.io.workstate`` raises it when the disk says no (a link out of the
bundle, a missing seeded file, a lock it cannot take) and names the file left
untouched in ``path``.  The shells (CLI, MCP) catch this one type.
"""

from __future__ import annotations


class Refused(Exception):
    """Will not act; ``str(self)`` says why, ``path`` (when known) is the file left untouched."""

    def __init__(self, message: str, path: str | None = None):
        super().__init__(message)
        self.path = path
