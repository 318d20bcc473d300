"""The ranked engine's persistent backend for bundles: an SQLite FTS5 index under ``.tmp/``.

Same answers as :class:`okfpro.core.bm25.RankedIndex` (the pure engine memory
recall uses), faster on large bundles: the tokens come from the same tokenizer
(:func:`okfpro.core.bm25.stemmed_terms`), are stored pre-split (one FTS5 token per
okfpro token), and beside them each term's postings (:mod:`okfpro.io.ftsquery`: the
concepts holding it, its weighted count in each, their lengths), which the score is
computed from as the pure engine computes it.

* File: ``fts-<hash of root>.sqlite`` in :func:`okfpro.io.cache.cache_dir` (the workspace's
  ``.tmp/okfpro-cache``, else the user's cache directory); rows are
  synchronised with the parsed bundle by (path, digest of the indexed text), so
  an edit re-tokenizes one file.  Never the source of truth: a corrupt, foreign or
  unwritable index is rebuilt, or replaced by an in-memory one, silently.
* Concurrent processes: the sync runs in one ``BEGIN IMMEDIATE`` transaction;
  SQLite's locking serialises writers (a busy timeout, then the in-memory
  fallback).

Three rankings, three names: :func:`okfpro.core.bm25.rank_docs` ranks documents
in memory (a Bundle or Doc records); :func:`rank_indexed` ranks a bundle's concepts
through this index; :func:`rank_bundle`, the door every caller uses, ranks a bundle's
concepts through whichever of the two applies.
"""

from __future__ import annotations

import os
import sys
from hashlib import blake2b
from operator import methodcaller

from okfpro.core import bm25, bundlepostings
from okfpro.core import search as _search
from okfpro.io import ftsquery
from okfpro.io.listing import on_disk, vouched

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the prompt hook's path
    from typing import Any, Iterable, Sequence

    from okfpro.core.concept import Bundle

SCHEMA = 7  # 6: answers (what a row shows, per concept) and the listing: the index answers alone; 7: postings
_COLS = _search.FIELDS  # title id tags type description sources body (weight order)
# One tokenizer rule for both engines: the text is stored as okfpro's own tokens
# (core/bm25.tokenize, stemmed: bm25.stemmed_terms) joined by spaces, and FTS5 must split it at the spaces only.  The
# ``ascii`` tokenizer does (every non-ASCII character is a token character, and the joiners
# are declared); ``unicode61`` did not — its Unicode tables split words Python reads as
# letters (U+19B0..U+19C9, New Tai Lue, among 21 code points), so the engines disagreed.
_TOKENIZER = "ascii tokenchars '._-/:@#+'"


def db_path(root: str | os.PathLike) -> str:
    from okfpro.io.cachedir import cache_dir, path_key

    return os.path.join(cache_dir(root), f"fts-{path_key(root)}.sqlite")


def available() -> bool:
    try:
        import sqlite3

        con = sqlite3.connect(":memory:")
        con.execute("CREATE VIRTUAL TABLE t USING fts5(a)")
        con.close()
        return True
    except Exception:
        return False


# A first ranked search's phases and their measured shares of its time (.okf/design/long-work.md):
# the CLI's one bar (okfpro.io.progress)
PHASES = (("reading bundle", 0.25), ("comparing with the index", 0.02), ("indexing for ranked search", 0.37),
          ("writing the index", 0.36))


def _columns(view: Any) -> list[list[str]]:
    """The indexed terms of each column (stored joined by spaces)."""
    return [bm25.stemmed_terms(_search._as_text(view.field(name))) for name in _COLS]


def _digest(view: Any) -> str:
    h = blake2b(digest_size=16)
    for name in _COLS:
        h.update(_search._as_text(view.field(name)).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


def _connect(path: str | None):
    import sqlite3

    if path is None:
        con = sqlite3.connect(":memory:")
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        con = sqlite3.connect(path, timeout=10, isolation_level=None)
    con.isolation_level = None
    return con


def _schema() -> str:
    """Schema number + fingerprint of the code that writes the rows (the tokenizer, the postings)
    and of the parsing code the parse cache fingerprints (the stored text and answers are what that
    code read) + Python's version + the byte order of the postings' arrays: a change rebuilds the index."""
    from okfpro.io.cachedir import PARSE_CODE, code_stamp

    writers = ("core/search.py", "core/bm25.py", "core/stem.py", "core/bundlepostings.py", "io/fts.py", "io/ftsquery.py")
    return f"{SCHEMA}/{code_stamp((*writers, *PARSE_CODE))}/%d.%d/{ftsquery.BYTE_ORDER}" % sys.version_info[:2]


def _ensure(con, root_real: str) -> None:
    cols = ", ".join(_COLS)
    schema = _schema()
    ok = False
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        root = con.execute("SELECT value FROM meta WHERE key = 'root'").fetchone()
        ok = row is not None and row[0] == schema and root is not None and root[0] == root_real
    except Exception:
        ok = False
    if ok:
        return
    con.execute("BEGIN IMMEDIATE")
    for table in ("meta", "files", "docs", "answers", "postings"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    # len: the concept's length in tokens over every column (the score's D)
    con.execute("CREATE TABLE files (path TEXT PRIMARY KEY, digest TEXT, rid INTEGER, stat TEXT, len INTEGER)")
    for ddl in ftsquery.DDL:
        con.execute(ddl)
    con.execute(f"CREATE VIRTUAL TABLE docs USING fts5({cols}, tokenize=\"{_TOKENIZER}\")")
    # what a row shows of each indexed concept (JSON), so that a fresh index answers alone (answer_fresh)
    con.execute("CREATE TABLE answers (rid INTEGER PRIMARY KEY, path TEXT, id TEXT, data TEXT)")
    con.execute("INSERT INTO meta VALUES ('schema', ?), ('root', ?)", (schema, root_real))
    con.execute("COMMIT")


def _sync(con, views: list[Any], paths: list[str], stamps: dict[str, Any] | None = None,
          answer: Any = None, listing: str | None = None) -> dict[int, int]:
    """Bring the index in line with ``views``; return FTS rowid -> position in ``views``.

    ``stamps``: path -> the identity (size, mtime, ctime, inode) the parse cache vouched the
    concept was read from (``Bundle._okfpro_stat``); a row stored from a file of that same
    identity holds its text, so the digest of the indexed fields is not computed again.
    ``answer(i)``: what a row of ``views[i]`` shows (JSON), stored beside its text; ``listing``:
    the digest of the whole bundle as read (:func:`okfpro.io.listing.listing_digest`), stored only with every answer —
    any other sync that writes forgets it, so :func:`answer_fresh` never answers from it."""
    from okfpro.io.progress import bar

    stamps = stamps or {}
    stored = {p: (d, r, s) for p, d, r, s in con.execute("SELECT path, digest, rid, stat FROM files")}
    want: dict[str, tuple[int, str, str | None]] = {}
    comparing = bar(len(views), "comparing with the index")
    for i, (view, path) in enumerate(zip(views, paths)):
        comparing.tick(i + 1)
        stamp = repr(stamps[path]) if path in stamps else None
        old = stored.get(path)
        same = stamp is not None and old is not None and old[2] == stamp
        want[path] = (i, old[0] if same and old is not None else _digest(view), stamp)
    stale = [p for p in stored if p not in want or stored[p][0] != want[p][1]]
    fresh = [p for p in want if p not in stored or stored[p][0] != want[p][1]]
    restamp = [(want[p][2], p) for p in want if p in stored and p not in fresh and stored[p][2] != want[p][2]]
    had = con.execute("SELECT value FROM meta WHERE key = 'listing'").fetchone()
    relist = listing if answer is not None else None
    answered = dict(con.execute("SELECT rid, path FROM answers")) if answer is not None else {}
    unanswered = answer is not None and any(answered.get(stored[p][1]) != p for p in want if p in stored)
    same = not (stale or fresh or restamp or unanswered)
    if same and relist is not None:  # the listing as it would be written now, tie order included
        relist_now: str | None = relist + "\n" + _tie_order({p: (views[i].id, stored[p][1]) for p, (i, _d, _s) in want.items()})
    else:
        relist_now = relist
    if not same or (had[0] if had else None) != relist_now:
        marks = ",".join("?" * len(_COLS))
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("DELETE FROM meta WHERE key = 'listing'")
            removed: dict[str, set[int]] = {}  # term -> the stale rows that held it
            torn = False  # a stale row's text is gone (a hand-edited index): the postings are rebuilt
            for p in stale:
                rid = stored[p][1]
                text = con.execute(f"SELECT {', '.join(_COLS)} FROM docs WHERE rowid = ?", (rid,)).fetchone()
                if text is None:
                    torn = True
                for term in ftsquery.stored_terms(text or ()):
                    removed.setdefault(term, set()).add(rid)
                con.execute("DELETE FROM docs WHERE rowid = ?", (rid,))
                con.execute("DELETE FROM answers WHERE rid = ?", (rid,))
                con.execute("DELETE FROM files WHERE path = ?", (p,))
            progress = bar(len(fresh), "indexing for ranked search")
            top = con.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()[0]
            rows, files = [], []
            added: dict[str, tuple[list[int], list[int]]] = {}  # term -> the fresh rows' rids, codes
            for done, p in enumerate(fresh, 1):
                progress.tick(done)
                i, digest, stamp = want[p]
                rid = top + done
                columns = _columns(views[i])
                rows.append((rid, *map(" ".join, columns)))
                length, codes = ftsquery.document(columns)
                files.append((p, digest, rid, stamp, length))
                ftsquery.add(added, rid, codes)
            progress.close()
            progress = bar(0, "writing the index")
            con.executemany(f"INSERT INTO docs (rowid, {', '.join(_COLS)}) VALUES (?, {marks})", rows)
            con.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)", files)
            if torn:
                ftsquery.rebuild(con)
            else:
                ftsquery.update(con, removed, added, fresh=not stored)
            con.executemany("UPDATE files SET stat = ? WHERE path = ?", restamp)
            if answer is not None:  # every row's answer (a row indexed without one gets it now)
                renewed = set(fresh)  # a rowid may come back (the highest one deleted): replace its answer
                renewed.update(p for _s, p in restamp)  # another file of the same indexed text: date, trust
                rids = {p: rid for p, _d, rid, _s, _n in files}
                rids.update((p, stored[p][1]) for p in want if p not in rids)
                con.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)",
                                [(rid, p, views[want[p][0]].id, answer(want[p][0]))
                                 for p, rid in rids.items() if answered.get(rid) != p or p in renewed])
                if relist is not None:
                    ties = _tie_order({p: (views[want[p][0]].id, rid) for p, rid in rids.items()})
                    con.execute("INSERT INTO meta VALUES ('listing', ?)", (relist + "\n" + ties,))
            progress.close()
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        stored = {p: (d, r, s) for p, d, r, s in con.execute("SELECT path, digest, rid, stat FROM files")}
    return {stored[p][1]: want[p][0] for p in want}


def rank_indexed(
    root: str | os.PathLike,
    bundle: Bundle,
    query: str | Sequence[str],
    limit: int | None = 10,
    *,
    fields: str | Iterable[str] | None = None,
    where: _search.RowFilter | None = None,
    persist: bool = True,
) -> list[dict[str, Any]]:
    """Ranked search of ``bundle`` through the FTS5 index (rows shaped as the pure engine's)."""
    searched = _search.parse_fields(fields)
    tokens = bm25.bundle_query(query)
    if not tokens or not bundle.concepts:
        return []
    root_real = os.path.realpath(os.fspath(root))
    con = None
    if persist:
        from okfpro.io.cache import writable

        path = db_path(root)
        persist = writable(os.path.dirname(path))
    # A Bundle object is one reading of the disk: once synced, the same object needs no second
    # sync (the MCP server asks many times; a changed disk is a new Bundle).
    memo = bundle.__dict__.get("_okfpro_fts")
    if persist and memo is not None and memo[0] == path:
        _, views, rowmap = memo
        try:
            con = _connect(path)
        except Exception:
            con = None
    else:
        views = [_search._View(c) for c in bundle.concepts]
    if con is None:
        paths = [c.path for c in bundle.concepts]
    if persist and con is None:
        for attempt in (1, 2):  # a corrupt or foreign file is removed and rebuilt once
            try:
                con = _connect(path)
                _ensure(con, root_real)
                stamps = bundle.__dict__.get("_okfpro_stat")
                with _collector_paused():
                    rowmap = _sync(con, views, paths, stamps, lambda i: _answer(views[i]), vouched(bundle, stamps))
                bundle.__dict__["_okfpro_fts"] = (path, views, rowmap)
                break
            except Exception:
                if con is not None:
                    con.close()
                con = None
                if attempt == 1:
                    from okfpro.io import dbfiles

                    dbfiles.remove(path)
    if con is None:
        con = _connect(None)
        _ensure(con, root_real)
        with _collector_paused():
            rowmap = _sync(con, views, paths)
    use_filter = where is not None and where.active()
    top = limit if limit is not None and not use_filter else None  # rows wanted, when no filter follows
    import sqlite3

    try:
        order = _id_order(bundle, views, rowmap)
        con.execute("BEGIN")  # one snapshot: a writer's sync is seen whole or not at all
        stats: list[Any] = []
        found = ftsquery.ranked(con, tokens, searched, top, order, stats)
        con.execute("COMMIT")
    except (sqlite3.Error, ValueError):  # a torn posting row (edited by hand, a bad disk): rebuilt next time
        if not persist:
            raise
        from okfpro.io import dbfiles

        con.close()
        bundle.__dict__.pop("_okfpro_fts", None)
        dbfiles.remove(path)
        return bm25.rank_docs(bundle, query, limit, fields=fields, where=where)
    finally:
        con.close()
    scored = [(rowmap[rid], score) for rid, score in found if rid in rowmap]
    rows: list[dict[str, Any]] = []
    for i, score in scored:
        view = views[i]
        if use_filter and not where(view):  # type: ignore[misc]  # use_filter is True only when where is set
            continue
        columns = dict(zip(_COLS, _columns(view)))
        if persist and not vouches(columns, tokens, stats, score, searched):  # the stored index is not this bundle's
            from okfpro.io import dbfiles

            bundle.__dict__.pop("_okfpro_fts", None)
            dbfiles.remove(path)
            return bm25.rank_docs(bundle, query, limit, fields=fields, where=where)
        names, hits = _matched(view, tokens, searched, columns.__getitem__)
        rows.append(_search.row_for(view, names, score, _snippet(view, names, hits)))
        if limit is not None and len(rows) >= limit:
            break
    return rows


class _collector_paused:
    """The cyclic garbage collector paused while a sync runs: a first build allocates millions of
    acyclic objects (terms, postings lists), and each full collection walks all of them — at 50,000
    concepts 8 full passes cost 8 of 31 s of CPU, the part of the build that grew faster than the
    bundle (``.okf/design/fast-reads.md``).  ``io/cache.load_bundle`` pauses it the same way."""

    def __enter__(self) -> None:
        import gc

        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.was:
            gc.enable()


def _id_order(bundle: Bundle, views: list[Any], rowmap: dict[int, int]) -> dict[int, int]:
    """FTS rowid -> the position of its concept in id order (kept with the Bundle and its rowmap)."""
    memo = bundle.__dict__.get("_okfpro_idorder")
    if memo is None or memo[0] is not rowmap:
        rank = [0] * len(views)
        for r, i in enumerate(sorted(range(len(views)), key=lambda i: views[i].id)):
            rank[i] = r
        memo = (rowmap, {rid: rank[i] for rid, i in rowmap.items()})
        bundle.__dict__["_okfpro_idorder"] = memo
    return memo[1]


def _matched(view: Any, tokens: Sequence[str], searched: Sequence[str],
             terms: Any = None) -> tuple[list[str], list[str]]:
    """The searched fields a query token matches in and the terms it matched; ``terms(name)``: the
    field's stemmed terms when they are at hand (the index's own column), else they are computed."""
    names: list[str] = []
    hits: set[str] = set()
    prefixes = tuple(q for q in tokens if len(q) >= bm25.PREFIX_MIN)  # a term matches when one begins it
    whole = {q for q in tokens if len(q) < bm25.PREFIX_MIN}  # a term matches when it is one
    begun = methodcaller("startswith", prefixes)
    for name in searched:
        toks = set(terms(name) if terms is not None else bm25.stemmed_terms(_search._as_text(view.field(name))))
        got = toks & whole
        if prefixes:
            got.update(filter(begun, toks))  # one pass in C, not one Python loop per token
        if got:
            names.append(name)
            hits |= got
    return names, sorted(hits)


def _snippet(view: Any, names: list[str], hits: list[str]) -> str:
    return bm25.ranked_snippet({name: view.field(name) for name in _search.SNIPPET_FIELDS}, names, hits)


def rank_bundle(
    root: str | os.PathLike,
    bundle: Bundle,
    query: str | Sequence[str],
    limit: int | None = 10,
    *,
    fields: str | Iterable[str] | None = None,
    where: _search.RowFilter | None = None,
    fuzzy: bool = False,
) -> list[dict[str, Any]]:
    """The ranked engine over a bundle, as every caller should reach it (``okfpro search
    --engine ranked``, prompt recall): the persistent FTS5 index when SQLite has FTS5 and the
    cache is on, else the pure in-memory engine — the same rows and scores either way.
    ``OKFPRO_RANKED=pure`` forces the pure engine."""
    if fuzzy:  # typo tolerance walks the vocabulary: the in-memory engine answers it
        return bm25.rank_docs(bundle, query, limit, fields=fields, where=where, fuzzy=True)
    if os.environ.get("OKFPRO_RANKED") != "pure" and available():
        from okfpro.io.cachedir import cache_enabled

        return rank_indexed(root, bundle, query, limit, fields=fields, where=where, persist=cache_enabled())
    return bm25.rank_docs(bundle, query, limit, fields=fields, where=where)


# --------------------------------------------------------------------------- the index answers alone
# Prompt recall runs in a fresh process per prompt: reading the bundle to rank it (~36 ms at 2,000
# concepts through the parse cache) was most of its knowledge side.  When every file of the bundle
# is the file the index was synced from, the index answers alone (answer_fresh): same rows, no read.


def _tie_order(rows: dict[str, tuple[str, int]]) -> str:
    """What :func:`answer_fresh` needs of every indexed concept (``rows``: path -> (id, rowid)), as
    JSON stored after the listing's digest: the rowids in the engine's tie order (id, then path) and
    ``[rowid, rowid of the first concept declaring its id]`` where those differ (a shared declared
    id is dated as the first, by path: ``Bundle.by_id``), so the prompt hook need not read every
    (rowid, id, path) row of the index."""
    import json

    order = sorted(rows, key=lambda p: (rows[p][0], p))
    first: dict[str, str] = {}
    for p in sorted(rows):
        first.setdefault(rows[p][0], p)
    shared = [[rid, rows[first[ident]][1]] for p, (ident, rid) in sorted(rows.items()) if first[ident] != p]
    return json.dumps([[rows[p][1] for p in order], shared], separators=(",", ":"))


_META = ("title", "type", "dir", "top_dir", "tags")


def _answer(view: Any) -> str:
    """What the rows of prompt recall show of a concept (JSON): the searched fields, the row's
    attributes, and the concept's date and trust (:func:`okfpro.core.concept.concept_day`)."""
    import json

    from okfpro.core.concept import concept_day

    fields = {name: view.field(name) for name in _COLS}
    meta = {name: view.attr(name) for name in _META}
    meta["tags"] = list(meta["tags"] or [])
    return json.dumps([fields, meta, concept_day(view.obj), view.obj.trust])


def _fresh_ranked(root: str | os.PathLike, tokens: Sequence[str], limit: int | None, fetch: Any,
                  stats: list[Any] | None = None) -> tuple[list[tuple[int, float]], dict[int, int], Any] | None:
    """The first ``limit`` (rowid, score) of ``tokens`` from the persistent index alone, the
    shared-id map of :func:`_tie_order` and ``fetch(con, scored, firsts, meta)`` — all read in one
    snapshot — or None when the index cannot vouch for the bundle on disk now (no index, another
    schema, code or root, no listing, a file added, removed, edited or a symlink since it was
    synced: one ``lstat`` a file, :func:`on_disk`).  Opens the index read-only; never raises for
    a bad one.  ``stats``: as :func:`okfpro.io.ftsquery.ranked` fills it."""
    import json
    import sqlite3

    from okfpro.io.cachedir import cache_enabled

    if os.environ.get("OKFPRO_RANKED") == "pure" or not cache_enabled():
        return None  # (no FTS5: the MATCH below fails and the answer is None, without asking available())
    root_real = os.path.realpath(os.fspath(root))
    path = db_path(root)
    if not os.path.exists(path):
        return None  # read-only opening of a missing file: no index yet
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        con.execute("BEGIN")  # one snapshot: a writer's sync is seen whole or not at all
        meta = dict(con.execute("SELECT key, value FROM meta"))
        if meta.get("schema") != _schema() or meta.get("root") != root_real or not meta.get("listing"):
            return None
        digest, _, ties = meta["listing"].partition("\n")
        if on_disk(root_real, path + "-walk") != digest.partition(" ")[0]:
            return None
        ordered, shared = json.loads(ties)  # written by _tie_order in the sync that wrote the digest
        rank = dict(zip(ordered, range(len(ordered))))  # rowid -> place in the engine's tie order (id, then path)
        firsts = dict(shared)
        scored = ftsquery.ranked(con, tokens, _COLS, limit, rank, stats) if tokens and rank else []
        fetched = fetch(con, scored, firsts, meta)
        con.execute("COMMIT")
    except (sqlite3.Error, ValueError, TypeError):  # TypeError: a tie order that is not one (edited by hand)
        return None
    finally:
        con.close()
    return scored, firsts, fetched


def answer_fresh(root: str | os.PathLike, query: str, limit: int) -> list[dict[str, Any]] | None:
    """The ranked rows of ``query`` over the bundle at ``root`` with each concept's ``date`` and
    ``trust`` — what :func:`rank_bundle` answers over a fresh reading, dated as prompt recall dates
    them — from the persistent index alone (:func:`_fresh_ranked`); None when it cannot vouch for
    them (or a row is missing), and the caller reads the bundle."""
    tokens = bm25.bundle_query(query)

    def fetch(con: Any, scored: list[tuple[int, float]], firsts: dict[int, int], _meta: Any) -> tuple[dict, dict]:
        if not scored:
            return {}, {}
        wanted = {rid for rid, _ in scored} | {firsts.get(rid, rid) for rid, _ in scored}
        marks = ",".join("?" * len(wanted))
        # each shown row's answer, and only where the index pairs it with the same file as the listing did
        data = {rid: (ident, text) for rid, ident, text in con.execute(
            f"SELECT a.rid, a.id, a.data FROM answers a JOIN files f ON f.path = a.path AND f.rid = a.rid "
            f"WHERE a.rid IN ({marks})", tuple(wanted))}
        # each field's stemmed terms as indexed (joined by spaces; a term never holds one): not computed again
        texts = {row[0]: row[1:] for row in con.execute(
            f"SELECT rowid, {', '.join(_COLS)} FROM docs WHERE rowid IN ({','.join('?' * len(scored))})",
            tuple(rid for rid, _ in scored))}
        return data, texts

    got = _fresh_ranked(root, tokens, limit, fetch)
    if got is None:
        return None
    scored, firsts, fetched = got
    if not scored:
        return []
    data, texts = fetched
    rows: list[dict[str, Any]] = []
    try:
        unpacked = {rid: _unpack(text) for rid, (_ident, text) in data.items()}
        for rid, score in scored:
            ident = data[rid][0]
            fields, attrs, _day, _trust = unpacked[rid]
            _f, _a, day, trust = unpacked[firsts.get(rid, rid)]
            view = _search._View(_search.Doc(ident, fields, attrs))
            cols = dict(zip(_COLS, texts[rid]))
            names, hits = _matched(view, tokens, _COLS, lambda name: cols[name].split(" "))  # noqa: B023 - used here
            row = _search.row_for(view, names, score, _snippet(view, names, hits))
            row["date"], row["trust"] = day, trust
            rows.append(row)
    except (KeyError, ValueError, TypeError, AttributeError):  # a row torn or edited by hand
        return None
    return rows


def vouches(columns: dict[str, list[str]], tokens: Sequence[str], stats: list[Any], score: float,
            searched: Sequence[str] = _COLS) -> bool:
    """Does a concept whose fields' terms are ``columns`` (from its own text: :func:`_columns`)
    earn ``score``, the index's score for it over the ``searched`` fields, with the index's
    ``stats`` (:func:`okfpro.io.ftsquery.ranked`)?  Its terms are counted again
    (:func:`okfpro.core.bundlepostings.token_codes`) and scored the engine's way: an index whose
    postings say otherwise about a row it shows is not used."""
    length = sum(map(len, columns.values()))
    _n, codes = ftsquery.document([columns[name] if name in searched else [] for name in _COLS])
    rows, total, held = stats
    return bundlepostings.score_of(bundlepostings.token_codes(codes, length, tokens), held, rows, total) == score


def answer_read(root: str | os.PathLike, query: str | Sequence[str], limit: int | None
                ) -> tuple[list[dict[str, Any]], int] | None:
    """``okfpro search --engine ranked`` over every field, no filter, without reading the bundle:
    the rows and the number of unusable files it had, or None (the caller reads the bundle and
    ranks it: :func:`rank_bundle`).  The index answers only while it vouches for every file on
    disk (:func:`_fresh_ranked`); each row it ranks is then read from its own file (the row's text is
    the file's) and scored again from that text (:func:`vouches`).  A row whose file does not
    earn the index's score means the index is not the bundle's (edited by hand, forged, or a file
    changed in between): the index is removed and None returned, so the caller rebuilds it."""
    from okfpro.core.concept import Concept
    from okfpro.io import reader

    tokens = bm25.bundle_query(query)
    stats: list[Any] = []

    def fetch(con: Any, scored: list[tuple[int, float]], _firsts: Any, meta: dict[str, str]) -> tuple[dict, int]:
        marks = ",".join("?" * len(scored))
        paths = dict(con.execute(f"SELECT rid, path FROM files WHERE rid IN ({marks})", tuple(r for r, _ in scored)))
        return paths, int(meta["listing"].partition("\n")[0].partition(" ")[2])  # ValueError: none recorded

    got = _fresh_ranked(root, tokens, limit, fetch, stats)
    if got is None:
        return None
    path = db_path(root)
    scored, _firsts, (paths, skipped) = got
    root_real = os.path.realpath(os.fspath(root))
    rows: list[dict[str, Any]] = []
    for rid, score in scored:
        concept = reader.load_entry(root_real, paths[rid]) if rid in paths else None
        if not isinstance(concept, Concept) or concept.path != paths[rid]:
            concept = None  # a row the index holds for a file that is no concept: the index is not this bundle's
        view = _search._View(concept) if concept is not None else None
        columns = dict(zip(_COLS, _columns(view))) if view is not None else {}
        if view is None or not vouches(columns, tokens, stats, score):
            from okfpro.io import dbfiles

            dbfiles.remove(path)
            return None
        names, hits = _matched(view, tokens, _COLS, columns.__getitem__)
        rows.append(_search.row_for(view, names, score, _snippet(view, names, hits)))
    return rows, skipped


def _unpack(data: str) -> list[Any]:
    """An :func:`_answer` read back; ValueError when it is not one (a torn or hand-edited row)."""
    import json

    value = json.loads(data)
    if not (isinstance(value, list) and len(value) == 4 and isinstance(value[0], dict) and isinstance(value[1], dict)
            and value[0].keys() == set(_COLS) and value[1].keys() == set(_META)
            and all(isinstance(v, str) for k, v in value[0].items() if k != "tags")
            and all(isinstance(v, str) for k, v in value[1].items() if k != "tags")
            and all(isinstance(d.get("tags"), list) and all(isinstance(t, str) for t in d["tags"]) for d in value[:2])
            and (value[2] is None or isinstance(value[2], str)) and isinstance(value[3], str)):
        raise ValueError("not an answer row")
    return value
