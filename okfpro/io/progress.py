"""One progress bar for a piece of long work, every phase of it in proportion.

A :class:`Work` is the whole job (``memory import``, a first ranked search) split into named
phases with weights (their share of the time, measured: .okf/design/long-work.md).  The bar
shows the whole job's percentage and the phase under way::

    okfpro: importing memory [############------------------]  41 % writing the index

It is drawn on stderr, only when stderr is a terminal, only once the *job* (not the phase) has
run for ``OKFPRO_PROGRESS_AFTER`` seconds (default 1), at most ten times a second, and it is
redrawn when a phase starts, so a phase that cannot tick (one library call) still says what it
is doing.  While a Work is open, :func:`bar` — what the readers that count items call (the
bundle cache, the ranked-search index) — is a phase of it; outside one, a bar of its own.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: a memory write must not import typing
    from collections.abc import Sequence

_OPEN: list["Work"] = []


def _after() -> float:
    try:
        return float(os.environ.get("OKFPRO_PROGRESS_AFTER", "1.0"))
    except ValueError:
        return 1.0


class Work:
    """A job of ``phases`` (``(name, weight)``, in order; the weights need not sum to 1)."""

    def __init__(self, label: str, phases: Sequence[tuple[str, float]], enabled: bool = True) -> None:
        self.label = label
        total = sum(w for _, w in phases) or 1.0
        self.weights = {name: w / total for name, w in phases}
        self.order = [name for name, _ in phases]
        self.start = time.monotonic()
        self.after = _after()
        self.shown = False
        self.last = 0.0
        self.width = 0
        self.base = 0.0  # the share of the phases done
        self.name = ""
        self.share = 0.0
        self.total = 0
        self.done = 0
        try:
            self.enabled = enabled and sys.stderr is not None and sys.stderr.isatty()
        except (AttributeError, ValueError):
            self.enabled = False

    def __enter__(self) -> "Work":
        _OPEN.append(self)
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if _OPEN and _OPEN[-1] is self:
            _OPEN.pop()
        if kind is None and self.shown:  # the whole job done: its last frame says so
            self.base, self.share, self.name, self.total, self.done = 1.0, 0.0, "done", 0, 0
            self._draw(force=True)
        self.close()

    def phase(self, name: str, total: int = 0) -> "Work":
        """Start phase ``name`` of ``total`` items (0: one step); the phases before it count as done."""
        if name in self.weights:
            at = self.order.index(name)
            self.base = sum(self.weights[n] for n in self.order[:at])
            self.share = self.weights[name]
        else:  # a phase nobody weighed: it moves nothing, but it is named
            self.base = self.base + self.share
            self.share = 0.0
        self.name, self.total, self.done = name, total, 0
        self._draw(force=True)
        return self

    def tick(self, done: int) -> None:
        self.done = done
        self._draw(force=False)

    def fraction(self) -> float:
        part = self.done / self.total if self.total else 0.0
        return min(1.0, self.base + self.share * min(1.0, part))

    def _draw(self, force: bool) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.after or (not force and now - self.last < 0.1 and self.done != self.total):
            return
        self.shown, self.last = True, now
        width = 30
        frac = self.fraction()
        filled = int(width * frac)
        count = f" {self.done}/{self.total}" if self.total else ""
        name = self.name if self.name != self.label else ""
        line = (f"okfpro: {self.label} [{'#' * filled}{'-' * (width - filled)}] {int(frac * 100):3d} % "
                f"{name}{count}")
        sys.stderr.write("\r" + line + " " * max(0, self.width - len(line)))
        self.width = len(line)
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.shown = False


class _Phase:
    """:func:`bar` inside an open :class:`Work`: ticks move that Work's bar."""

    def __init__(self, work: Work, name: str, total: int) -> None:
        self.work = work.phase(name, total)

    def tick(self, done: int) -> None:
        self.work.tick(done)

    def close(self) -> None:
        pass  # the Work clears the line when it ends


def bar(total: int, label: str) -> Work | _Phase:
    """A counter of ``total`` items named ``label``: a phase of the open Work, else a bar of its own."""
    if _OPEN:
        return _Phase(_OPEN[-1], label, total)
    return Work(label, [(label, 1.0)], enabled=total > 0).phase(label, total)


def work(label: str, phases: Sequence[tuple[str, float]], enabled: bool = True) -> Work:
    """``with work(label, phases) as w:`` — the job's bar (see the module doc)."""
    return Work(label, phases, enabled)
