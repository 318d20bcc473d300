"""Where human output is written: stdout and stderr with control characters made visible.

:func:`okfpro.cli.app.run` runs every verb inside :func:`human_streams`, so whatever a verb prints —
a listing, a board card, a refusal naming a file — reaches the terminal through
:func:`okfpro.core.shown.shown`, and a new verb gets it without asking.  JSON passes through the same
streams and stays exact: ``json`` already spells C0 controls as ``\\u00XX``, and the other
characters are spelled the same way, which decodes to the same value.  A carriage return that opens or
closes one write passes: that is okfpro redrawing its own line (okfpro/io/cache.py's progress bar).  The verbs whose stdout is a
protocol or a document (:data:`RAW`: MCP's JSON-RPC, the HTML ``render`` writes, the resident's
wire) are left alone.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from okfpro.core.shown import shown

RAW = frozenset({"mcp", "render", "resident", "hook", "merge-file"})


class HumanStream:
    """A text stream that writes :func:`shown` text to the stream it wraps (everything else is the
    wrapped stream's).  It has no ``buffer``, so click writes text through it, never around it."""

    def __init__(self, raw) -> None:  # noqa: ANN001 - any text stream
        self._raw = raw

    def write(self, text: str) -> int:
        # A carriage return that opens or closes a write is okfpro redrawing its own line (a progress bar:
        # "\rokfpro: … 200/900", then "\r    \r"); one inside the text would overwrite what was shown.
        lead = len(text) - len(text.lstrip("\r"))
        if lead == len(text):
            self._raw.write(text)
            return len(text)
        trail = len(text) - len(text.rstrip("\r"))
        self._raw.write(text[:lead] + shown(text[lead:len(text) - trail]) + text[len(text) - trail:])
        return len(text)

    def writelines(self, lines) -> None:  # noqa: ANN001
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):  # noqa: ANN204
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self._raw, name)


@contextmanager
def human_streams(verb: str | None):
    """stdout and stderr as :class:`HumanStream` for the duration (unless ``verb`` is in :data:`RAW`)."""
    if verb in RAW or sys.stdout is None or sys.stderr is None:
        yield
        return
    out, err = HumanStream(sys.stdout), HumanStream(sys.stderr)
    restore = (("stdout", out, sys.stdout), ("stderr", err, sys.stderr))
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        for name, mine, original in restore:
            if getattr(sys, name) is not mine:  # replaced meanwhile (click pacifies a stream whose reader left): kept
                continue
            try:
                mine.flush()
            except (OSError, ValueError):
                pass
            setattr(sys, name, original)
