"""What the Stop gate reads of a dirty tree beyond the board and the log: the briefings under
``reference/`` (their ids: awaiting a human's read, verified by one), read now as
:func:`okfpro.io.workstate.reference_concepts` reads them.
"""

from __future__ import annotations

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.concept import Concept

AWAITS, VERIFIED = 1, 2  # a briefing's flags: it awaits a human's read; a human verified it


class Briefings(Value):
    """The ids of the briefings (concepts under ``reference/`` whose id is there) that await a
    human's read, and of those a human verified, in the reader's walk order."""

    _fields = ("unverified", "verified")
    unverified: list[str]
    verified: list[str]

    def __init__(self, unverified: list[str], verified: list[str]) -> None:
        self.unverified = unverified
        self.verified = verified


def _counted(c: "Concept") -> tuple[int, str] | None:
    """``c``'s flags and id, or None when it changes none of the gate's counts and pairings."""
    from okfpro.io.workstate import is_briefing

    if not is_briefing(c):
        return None
    flags = (AWAITS if c.awaiting_read else 0) | (VERIFIED if c.trust == "human-reviewed" else 0)
    return (flags, c.id) if flags else None


def briefings(root: str) -> Briefings:
    """The briefings under ``root`` the Snapshot's counter and pairing read."""
    from okfpro.io.workstate import reference_concepts

    found = [b for b in map(_counted, reference_concepts(root)) if b is not None]
    return Briefings([i for f, i in found if f & AWAITS], [i for f, i in found if f & VERIFIED])
