"""Ranked search across several bundles: one corpus, one ranking, every row named by its bundle.

``okfpro search @a @b TERM --engine ranked`` (or ``--fuzzy``, or ``@all``, or a registry
group) and prompt recall drawing on registered bundles both come here.  The bundles go in
as *one* corpus: BM25 weighs a term by how rare it is across the documents it ranks, so
ranking each bundle on its own statistics and interleaving the lists would score the same
match differently depending on which bundle it sits in.  With one index, a concept scores
exactly as it would in a single bundle holding every bundle's concepts (pinned by
``tests/test_across.py``).

Cost: the index is built per call (in memory; nothing persisted) — measured with
``python bench/bench_across.py``: 2,000 + 2,000 concepts ≈ 0.9 s CPU against ≈ 0.08 s for one
bundle through its persistent FTS5 index.  A persistent union index is the way to close that gap.

Row filters stay per concept (``where``).  Ties keep the engine's order (score, then id),
then the order the bundles were named in.  The in-memory engine (:class:`RankedIndex`)
answers; it writes nothing anywhere, so a bundle read this way gets no index in its tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from okfpro.core.record import Frozen, set_field

if TYPE_CHECKING:
    from okfpro.core.concept import Bundle
    from okfpro.core.search import RowFilter


class Source(Frozen):
    """One bundle of the corpus: the label its rows carry, its root, and its parsed concepts."""

    __slots__ = _fields = ("slug", "root", "bundle")
    slug: str
    root: Path
    bundle: Bundle

    def __init__(self, slug: str, root: Path, bundle: Bundle) -> None:
        set_field(self, "slug", slug)
        set_field(self, "root", root)
        set_field(self, "bundle", bundle)


class _Owner:
    """The ``where`` handed to the engine: applies the caller's filter and notes, for every row
    the engine keeps (it asks exactly once per kept row, in row order), which bundle it is from."""

    def __init__(self, owner: dict[int, str], where: RowFilter | None) -> None:
        self.owner = owner
        self.where = where if where is not None and where.active() else None
        self.kept: list[str] = []

    def active(self) -> bool:
        return True

    def __call__(self, view: Any) -> bool:
        if self.where is not None and not self.where(view):
            return False
        self.kept.append(self.owner[id(view.obj)])
        return True


def rank_sources(
    sources: Sequence[Source],
    query: str | Sequence[str],
    limit: int | None = 10,
    *,
    fields: str | Iterable[str] | None = None,
    where: RowFilter | None = None,
    fuzzy: bool = False,
) -> list[dict[str, Any]]:
    """The merged ranking of ``sources``: rows shaped as the ranked engine's, each led by ``slug``."""
    from okfpro.core.bm25 import rank_docs

    concepts = [c for s in sources for c in s.bundle.concepts]
    if not concepts:
        return []
    owner = {id(c): s.slug for s in sources for c in s.bundle.concepts}
    pick = _Owner(owner, where)
    # one bundle's engine, tokens and query words (stemmed) over the union: the same match scores alike
    rows = rank_docs(concepts, query, limit, fields=fields, where=pick, fuzzy=fuzzy)  # type: ignore[arg-type]  # _Owner answers as a RowFilter does
    if len(rows) != len(pick.kept):  # the engine's contract with ``where`` changed: refuse to mislabel
        raise RuntimeError("ranked engine kept rows it did not ask the filter about")
    return [{"slug": slug, **row} for slug, row in zip(pick.kept, rows)]
