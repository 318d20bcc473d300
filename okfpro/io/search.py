"""Search on disk: the one door of ``okfpro search`` and the MCP search tool.

* One bundle (:func:`one`): the scan engine (:mod:`okfpro.core.search`), a large bundle through
  its word index loaded from the store beside the parse cache (:func:`okfpro.io.cache.attach_scan`);
  or the ranked engine through the bundle's persistent index (:func:`okfpro.io.fts.rank_bundle`).
* Several registered bundles (``@a @b``, ``@all``, a group; :func:`sources`, :func:`many`):
  ranked, one corpus and one ranking (:mod:`okfpro.io.across`); scan, each bundle's rows merged
  as they are (a scan score is per concept), ties by slug then id.
* Which leading argument names a bundle rather than a term (:func:`names_a_bundle`).

Rows are :data:`okfpro.core.search.ROW` (ranked rows add nothing; rows of several bundles are
led by ``slug``).  A query that cannot run raises :class:`SearchError`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from okfpro.core import search as _search
from okfpro.core.record import Frozen, set_field
from okfpro.core.search import ROW, SearchError

if TYPE_CHECKING:
    from okfpro.core.concept import Bundle
    from okfpro.io.across import Source
    from okfpro.io.registry import Entry

__all__ = ["ROW", "Query", "SearchError", "many", "names_a_bundle", "one", "sources", "unread"]


class Query(Frozen):
    """One search: the terms, the engine and its options, the row filters (``type``, ``dir``,
    ``tag``, ``status``, ``trust``: None = any), and at most ``limit`` rows (None: the engine's)."""

    __slots__ = _fields = ("terms", "engine", "regexp", "fuzzy", "fields", "filters", "limit", "budget")
    terms: list[str]
    engine: str  # or "ranked"
    regexp: bool
    fuzzy: bool
    fields: str | None  # the searched fields, comma-separated (None: all seven)
    filters: dict[str, str | None]
    limit: int | None
    budget: float | None  # seconds for one regexp scan (None: the engine's)

    def __init__(self, terms: list[str], engine: str = "scan", regexp: bool = False, fuzzy: bool = False,
                 fields: str | None = None, filters: dict[str, str | None] | None = None, limit: int | None = None,
                 budget: float | None = None) -> None:
        set_field(self, "terms", terms)
        set_field(self, "engine", engine)
        set_field(self, "regexp", regexp)
        set_field(self, "fuzzy", fuzzy)
        set_field(self, "fields", fields)
        set_field(self, "filters", {} if filters is None else filters)
        set_field(self, "limit", limit)
        set_field(self, "budget", budget)

    def where(self) -> _search.RowFilter:
        return _search.RowFilter(**self.filters)


def one(root: Path, bundle: Bundle, q: Query) -> list[dict[str, Any]]:
    """The rows of ``q`` over the bundle at ``root``."""
    if q.engine == "ranked":
        from okfpro.io.fts import rank_bundle

        return rank_bundle(root, bundle, q.terms, q.limit, fields=q.fields, where=q.where(), fuzzy=q.fuzzy)
    if not q.regexp:
        from okfpro.io.cache import attach_scan

        attach_scan(root, bundle)
    return _search.scan(bundle, q.terms, regexp=q.regexp, fields=q.fields, where=q.where(), limit=q.limit,
                        budget=q.budget)


def unread(root: Path, q: Query) -> tuple[list[dict[str, Any]], int] | None:
    """The rows of ``q`` and how many files of the bundle could not be used, answered by a stored
    index without reading the bundle: ranked over every field with no filter through the ranked
    index (:func:`okfpro.io.fts.answer_read`), a scan of ASCII literals through the scan word
    index (:func:`scan_unread`); None for any other query, or when the index cannot vouch for
    the bundle on disk (then :func:`one` over the bundle read)."""
    if q.engine == "ranked":
        if q.fuzzy or q.fields is not None or q.where().active():
            return None
        from okfpro.io.fts import answer_read

        return answer_read(root, q.terms, q.limit)
    return scan_unread(root, q)


MOST_READ = 2000  # a scan hitting more concepts reads the bundle through the parse cache instead


def _nothing(_doc: Any) -> dict[str, Any]:
    """No field values: a search of words alone never reads them (only the rows' snippets would)."""
    return {}


def scan_unread(root: Path, q: Query) -> tuple[list[dict[str, Any]], int] | None:
    """A literal scan for ASCII words answered by the stored scan word index
    (:func:`okfpro.io.cache.attach_scan`) while the listing it recorded is the bundle's on disk
    (one ``lstat`` a file: :func:`okfpro.io.listing.on_disk`), reading only the concepts it finds
    (at most :data:`MOST_READ`).  Those are then scanned again one by one by the engine's own
    per-document scan: rows, scores and snippets are the files', and an index that names a
    concept the scan does not find there, or finds with another score, is removed (None: the
    caller reads the bundle, and the index is built again).  A term that is not one word
    (``cache-tenant``) is confirmed against each candidate's text: the bundle is read instead."""
    from okfpro.core.scanindex import WORD, ScanIndex

    terms = q.terms
    if q.regexp or not terms or not all(t.isascii() and WORD.fullmatch(t.lower()) for t in terms):
        return None
    from okfpro.io import cache, fts, reader
    from okfpro.io.bundle import cache_enabled
    from okfpro.io.listing import on_disk

    if not cache_enabled():
        return None
    store = cache.scan_store_path(root)
    state = cache._read_scan(store, None)
    listing = state.get("listing") if state is not None else None
    if state is None or not isinstance(listing, str):
        return None
    digest, _, skipped = listing.partition(" ")
    root_real = os.path.realpath(os.fspath(root))
    if not skipped.isdigit() or on_disk(root_real, fts.db_path(root) + "-walk") != digest:
        return None
    from okfpro.core.concept import Concept

    class Named:  # a document known by its path only: the index's hits name the files to read
        __slots__ = ("id",)

        def __init__(self, path: str) -> None:
            self.id = path

    searched = _search.parse_fields(q.fields)
    try:
        index = ScanIndex(state["paths"], _search.FIELDS, state["post"], Named, _nothing, vocab=state["vocab"])
        hits = index.search([t.lower() for t in terms], _search.compile_terms(terms), searched, _search.WEIGHTS)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):  # not an index's state (edited by hand)
        hits = None
    if hits is not None and len(hits) > MOST_READ:
        return None
    found: list[Concept] = []
    for neg, path, _named, matched, _values in hits or ():
        item = reader.load_entry(root_real, path)
        got = _search.scan([item], terms, fields=q.fields) if isinstance(item, Concept) and item.path == path else []
        if not isinstance(item, Concept) or [(r["score"], r["matched"]) for r in got] != [(_search._score(-neg), matched)]:
            hits = None  # the index holds a hit the file does not: it is not this bundle's
            break
        found.append(item)
    if hits is None:
        from okfpro.io import dbfiles

        dbfiles.remove(store)
        return None
    return _search.scan(found, terms, fields=q.fields, where=q.where(), limit=q.limit), int(skipped)


def sources(refs: list[str], note: Callable[[str], Any], load: Callable[[Path], Bundle], *,
            cwd: str | os.PathLike[str] | None = None, skip: set[str] | None = None,
            lenient: bool = False) -> tuple[list[Entry], list[Source]]:
    """The registered bundles ``refs`` (``@slug``, ``@group``, ``@all``) name, each read with
    ``load``; ``note`` hears the registry's notes.  Raises :class:`okfpro.io.registry.RegistryError`.

    ``cwd``: the registry that directory sees (its own ``.okf.json``, else the global one);
    ``skip``: real paths of bundles already in the corpus (the workspace's own): given, those and
    any bundle reached twice are left out; ``lenient`` (prompt recall): a ref that does not resolve or a bundle
    that cannot be read is noted (``note: <what> (not readable)``) and costs only itself."""
    from okfpro.io import across, registry, roots

    reg = registry.Registry.open(cwd=cwd) if cwd is not None else None
    if not lenient:
        entries = registry.expand(refs, note, reg)
    else:
        entries = []
        for ref in refs:
            try:
                entries.extend(registry.expand([ref], note, reg))
            except registry.RegistryError:
                note(f"note: {ref} (not readable)")
    found: list[Source] = []
    seen = set(skip or ())
    for entry in entries:
        root = Path(roots.resolve(entry.dir) or entry.dir)
        if skip is not None:
            real = os.path.realpath(root)
            if real in seen:
                continue
            seen.add(real)
        try:
            found.append(across.Source(entry.slug, root, load(root)))
        except OSError:
            if not lenient:
                raise
            note(f"note: @{entry.slug} (not readable)")
    return entries, found


def many(found: list[Source], q: Query) -> list[dict[str, Any]]:
    """The rows of ``q`` over several bundles, each led by its bundle's ``slug``."""
    if q.engine == "ranked":
        from okfpro.io.across import rank_sources

        return rank_sources(found, q.terms, q.limit, fields=q.fields, where=q.where(), fuzzy=q.fuzzy)
    merged = [{"slug": s.slug, **row} for s in found for row in one(s.root, s.bundle, q)]
    merged.sort(key=lambda r: (-r["score"], r["slug"], r["id"]))
    return merged if q.limit is None else merged[:q.limit]


def names_a_bundle(arg: str) -> bool:
    """Is a leading search argument the reference's ``<dir>`` rather than a term?  A directory that
    holds a bundle (index.md, or .okf/index.md), or any directory spelled as a path (a '/', '.', '..')."""
    from okfpro.io import roots

    if not os.path.isdir(arg):
        return False
    return roots.resolve(arg) is not None or "/" in arg or arg in (".", "..")
