"""The incremental post-edit's state: each file's facts and findings in SQLite, keyed by file identity.

One database per bundle beside the parse cache (``analysis-<hash of root>.sqlite`` in
:func:`okfpro.io.cache.cache_dir`).  Never the source of truth:

* every run walks the bundle and compares each file's ``(size, mtime_ns, ctime_ns, inode)``
  with the stored one; a file that differs, appeared or vanished is re-read (whoever changed it:
  the edit, a shell command, a checkout, a concurrent session), and so is a file that was
  modified within :data:`~okfpro.io.cache.RACY_NS` of being read (stored without a key);
* what a changed file can alter is recomputed: its own findings, the files whose findings
  depend on its existence, the concepts sharing an id with it or that it links to or lists, and,
  for an ``index.md``, the concepts of its directory (``.okf/design/incremental-post-edit.md``
  says why that set is complete);
* a missing, foreign (another bundle, another okfpro version or code, another Python) or corrupt
  database raises :class:`Unusable`; the caller runs in full, says so, and rebuilds it;
* writers are serialised by SQLite's lock (``BEGIN IMMEDIATE``): a second post-edit waits, then
  sees the first one's state.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from typing import Any, Iterable

SCHEMA = 4
# the code whose answers the state holds: other code means a foreign state
CODE = ("core/delta.py", "core/validate.py", "core/lint.py", "core/graph.py", "core/links.py", "core/concept.py",
        "core/yamlsafe.py", "core/yamlfast.py", "core/search.py", "core/reconcile.py", "io/reader.py", "io/analysis.py")
BUSY_S = 20.0
IRREGULAR_MAX = 400  # concepts with non-ASCII text, scanned by the engine itself on every reconcile
_DDL = (
    "CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT)",
    "CREATE TABLE files(path TEXT PRIMARY KEY, key INT, kind TEXT, cid TEXT, dir TEXT, facts BLOB, active BLOB)",
    "CREATE INDEX files_cid ON files(cid)",
    "CREATE INDEX files_dir ON files(dir, kind)",
    "CREATE INDEX files_active ON files(path) WHERE active IS NOT NULL",
    "CREATE TABLE refs(how TEXT, target TEXT, src TEXT)",
    "CREATE INDEX refs_target ON refs(how, target)",
    "CREATE INDEX refs_src ON refs(src)",
    # the short fields apart from the bodies: scoring them reads small rows only
    "CREATE TABLE docs(path TEXT PRIMARY KEY, cid TEXT, short TEXT, title TEXT, id TEXT, tags TEXT, type TEXT,"
    " description TEXT, sources TEXT)",
    "CREATE TABLE bodies(path TEXT PRIMARY KEY, body TEXT)",
    "CREATE TABLE irregular(path TEXT PRIMARY KEY)",
)
_CLASS = {"c": 0, "i": 1, "l": 1, "u": 2}  # validate reports concepts, then reserved files, then unparseable ones


class Unusable(Exception):
    """The state cannot answer; ``str(exc)`` says why in a few words."""


def db_path(root_real: str):
    from okfpro.io.cache import cache_dir

    digest = hashlib.sha256(root_real.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cache_dir(root_real) / f"analysis-{digest}.sqlite"


def _meta(root_real: str) -> dict[str, str]:
    from okfpro.io.cache import code_stamp

    return {"schema": str(SCHEMA), "root": root_real, "python": "%d.%d" % sys.version_info[:2], "code": code_stamp(CODE)}


# --------------------------------------------------------------------------- identities
def identities(root_real: str) -> dict[str, int | None]:
    """Every bundle file (the reader's walk) -> its identity key, or None when it must be re-read next
    time (not a regular file, or modified too recently to tell a same-tick rewrite apart).  The key is
    the hash of ``(size, mtime_ns, ctime_ns, inode)`` (deterministic for integers; the Python version
    is part of the state's fingerprint)."""
    from okfpro.io import reader
    from okfpro.io.cache import RACY_NS

    now = time.time_ns()
    out: dict[str, int | None] = {}
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for rel in reader.walk(root_real):
        head, _, name = rel.rpartition("/")
        by_dir.setdefault(head, []).append((rel, name))
    stat = os.stat
    for head, names in by_dir.items():  # one directory descriptor each: every stat resolves one name
        try:
            fd = os.open(os.path.join(root_real, head) if head else root_real, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            out.update((rel, None) for rel, _ in names)
            continue
        try:
            for rel, name in names:
                try:
                    st = stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    out[rel] = None
                    continue
                if (st.st_mode & 0o170000) != 0o100000 or now - max(st.st_mtime_ns, st.st_ctime_ns) <= RACY_NS:
                    out[rel] = None
                else:
                    out[rel] = hash((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        finally:
            os.close(fd)
    return out


# --------------------------------------------------------------------------- the state
class State:
    """An open, locked state for one bundle (use :func:`open_state`)."""

    def __init__(self, db: Any, root_real: str) -> None:
        self.db = db
        self.root_real = root_real
        self.present: dict[str, int | None] = {}

    # -- reading -----------------------------------------------------------------
    def _facts(self, rel: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT facts FROM files WHERE path=?", (rel,)).fetchone()
        return marshal.loads(row[0]) if row is not None else None

    def _inbound(self, cid: str) -> bool:
        return self.db.execute(
            # CROSS JOIN fixes the loop order: the concepts holding the id, then the edges into them
            "SELECT 1 FROM files t CROSS JOIN refs r CROSS JOIN files s WHERE t.cid=? AND t.kind='c' AND r.how='e' "
            "AND r.target=t.path AND s.path=r.src AND s.cid IS NOT ? LIMIT 1", (cid, cid)).fetchone() is not None

    def _listed(self, cid: str, by: str | None = None) -> bool:
        if by is None:
            return self.db.execute("SELECT 1 FROM refs WHERE how='l' AND target=? LIMIT 1", (cid,)).fetchone() is not None
        return self.db.execute("SELECT 1 FROM refs WHERE how='l' AND target=? AND src=? LIMIT 1",
                               (cid, by)).fetchone() is not None

    def _kind(self, rel: str) -> str | None:
        row = self.db.execute("SELECT kind FROM files WHERE path=?", (rel,)).fetchone()
        return row[0] if row is not None else None

    # -- updating ----------------------------------------------------------------
    def build(self, items: Iterable[Any], present: dict[str, int | None]) -> None:
        """Fill an emptied state from a bundle already read; ``present`` are the identities taken
        *before* that read (a file changed since then is re-read next time)."""
        self.present = present
        self.apply({item.path: item for item in items if item.path in present}, ())

    def refresh(self, load_item=None) -> set[str]:
        """Bring the state up to the disk; return the bundle paths whose facts were re-read."""
        from okfpro.io import reader

        load = load_item or (lambda rel: reader.load_entry(self.root_real, rel))
        stored = dict(self.db.execute("SELECT path, key FROM files"))
        self.present = identities(self.root_real)
        changed = [rel for rel, key in self.present.items() if key is None or stored.get(rel) != key]
        gone = [rel for rel in stored if rel not in self.present]
        self.apply({rel: load(rel) for rel in changed}, gone)
        return set(changed) | set(gone)

    def apply(self, items: dict[str, Any], gone: Iterable[str]) -> None:
        from okfpro.core import delta

        db = self.db
        touched: dict[str, tuple[dict | None, dict | None]] = {}
        for rel in gone:
            touched[rel] = (self._facts(rel), None)
            self._drop(rel)
        for rel, item in items.items():
            old = self._facts(rel)
            new = delta.facts(item)
            self._drop(rel)
            db.execute("INSERT INTO files(path, key, kind, cid, dir, facts) VALUES(?,?,?,?,?,?)",
                       (rel, self.present.get(rel), new["k"], new.get("id"), new.get("dir"), marshal.dumps(new)))
            rows = [("x", t, rel) for t in delta.exist_targets(new)]
            rows += [("e", t, rel) for t in new.get("edges", ())]
            rows += [("l", cid, rel) for cid in new.get("listed", ())]
            db.executemany("INSERT INTO refs(how, target, src) VALUES(?,?,?)", rows)
            if new["k"] == "c":
                self._index_text(rel, item)
            touched[rel] = (old, new)
        for rel in self._affected(touched):
            self._settle(rel)

    def _drop(self, rel: str) -> None:
        for sql in ("DELETE FROM files WHERE path=?", "DELETE FROM refs WHERE src=?", "DELETE FROM docs WHERE path=?", "DELETE FROM bodies WHERE path=?",
                    "DELETE FROM irregular WHERE path=?"):
            self.db.execute(sql, (rel,))

    def _index_text(self, rel: str, concept: Any) -> None:
        from okfpro.core import search

        values = search._concept_values(concept)
        found = [search._low(values[name]) for name in search.FIELDS]
        if any(low is None or "\x01" in low for low in found):  # not plain ASCII: searched the slow way
            self.db.execute("INSERT INTO irregular(path) VALUES(?)", (rel,))
            return
        lows = [(low or "").replace("\x00", "\x01") for low in found]
        short = "\x01".join(low for name, low in zip(search.FIELDS, lows) if name != "body")  # every field but the body
        fields = dict(zip(search.FIELDS, lows))
        self.db.execute("INSERT INTO docs(path, cid, short, title, id, tags, type, description, sources) "
                        "VALUES(?,?,?,?,?,?,?,?,?)", (rel, concept.id, short, *(fields[f] for f in search.FIELDS if f != "body")))
        self.db.execute("INSERT INTO bodies(path, body) VALUES(?,?)", (rel, fields["body"]))

    def _affected(self, touched: dict[str, tuple[dict | None, dict | None]]) -> set[str]:
        """Every file whose findings the touched files can change (the design note's dependency set)."""
        db = self.db
        files: set[str] = set(touched)
        ids: set[str] = set()
        for rel, pair in touched.items():
            if (pair[0] is None) != (pair[1] is None):  # it appeared or vanished: who depends on its existence
                files.update(r[0] for r in db.execute("SELECT src FROM refs WHERE how='x' AND target=?", (rel,)))
            for f in pair:
                if f is None:
                    continue
                if f["k"] == "c":
                    ids.add(f["id"])
                    for target in f["edges"]:
                        row = db.execute("SELECT cid FROM files WHERE path=? AND kind='c'", (target,)).fetchone()
                        if row is not None:
                            ids.add(row[0])
                elif f["k"] == "i":
                    ids.update(f["listed"])
                    head = rel.rpartition("/")[0] or "."
                    files.update(r[0] for r in db.execute("SELECT path FROM files WHERE dir=? AND kind='c'", (head,)))
        for cid in ids:
            files.update(r[0] for r in db.execute("SELECT path FROM files WHERE cid=? AND kind='c'", (cid,)))
        return {rel for rel in files if rel in self.present}

    def _settle(self, rel: str) -> None:
        from okfpro.core import delta

        f = self._facts(rel)
        if f is None:
            return
        present = self.present
        inbound = listed = False
        index_lists = None
        if f["k"] == "c":
            cid = f["id"]
            inbound = self._inbound(cid)
            listed = self._listed(cid)
            index = delta.index_of(f["dir"])
            if index in present and self._kind(index) == "i":
                index_lists = self._listed(cid, index)
        found = delta.active(f, present.__contains__, inbound, listed, index_lists)
        blob = marshal.dumps(found) if any(found) else None
        self.db.execute("UPDATE files SET active=? WHERE path=?", (blob, rel))

    # -- answering ---------------------------------------------------------------
    def findings(self) -> tuple[list[tuple], list[tuple], list[tuple]]:
        """``(validate errors, validate warnings, lint warn findings)`` in the order a full run gives them."""
        from okfpro.core.delta import WARN_ORDER

        rows = sorted(((_CLASS[kind], path, marshal.loads(blob)) for path, kind, blob in
                       self.db.execute("SELECT path, kind, active FROM files WHERE active IS NOT NULL")),
                      key=lambda r: (r[0], r[1]))
        errors = [e for _, _, (errs, _, _) in rows for e in errs]
        warnings = [w for _, _, (_, warns, _) in rows for w in warns]
        by_check: dict[str, list[tuple]] = {cid: [] for cid in WARN_ORDER}
        for _, _, (_, _, found) in sorted(rows, key=lambda r: r[1]):
            for f in found:
                by_check[f[0]].append(f)
        lint = []
        for cid in WARN_ORDER:
            lint.extend(sorted(by_check[cid], key=lambda f: f[3]))  # stable: a file's own order stays
        return errors, warnings, [f[:3] for f in lint]


    # -- reconciliation --------------------------------------------------------------
    def reconcile(self, tool_name: str, rel: str) -> tuple[bool, str | None]:
        """(answered, message): Rule 1's block for a new concept, from the stored search texts.

        The ranking is the scan engine's (weights, then id, then path) computed in SQLite over
        the lowercase ASCII field texts; concepts with other text are scanned by the engine
        itself.  Only the concepts up to the fifth kept hit of each term (and the first concept
        of each of their ids) are read, and the kernel's own reconcile answers on them.
        (False, None) when a term is not plain ASCII or too many concepts are irregular.
        """
        import heapq

        from okfpro.core import reconcile as _reconcile
        from okfpro.core import search
        from okfpro.core.concept import Bundle
        from okfpro.io import reader

        if not _reconcile.applies(tool_name, rel):
            return True, None
        db = self.db
        irregular = [r[0] for r in db.execute("SELECT path FROM irregular ORDER BY path")]
        if len(irregular) > IRREGULAR_MAX:
            return False, None
        loaded: dict[str, Any] = {}

        def concept(path: str) -> Any:
            if path not in loaded:
                loaded[path] = reader.load_entry(self.root_real, path)
            return loaded[path]

        own = self._facts(rel)
        self_ids = {rel[:-3] if rel.endswith(".md") else rel}
        if own is not None and own["k"] == "c":
            self_ids.add(own["id"])
        keep: set[str] = {rel} if own is not None and own["k"] == "c" else set()
        terms = _reconcile.terms_of(rel)
        if any(not term.isascii() or "\x00" in term or "\x01" in term for term in terms):
            return False, None
        # One pass over the short fields scores every term without the body (weight 1): a concept's
        # score is then o or o + 1.  Each term is ranked in bands: with the body read for the concepts
        # whose o reaches the band's floor f, every concept outside scores at most f, so the ranking
        # is exact down to scores above f; the band widens until five hits are kept (the last band
        # reads every body).
        short = [(field, weight) for field, weight in search.WEIGHTS.items() if field != "body"]
        names = [f"o{i}" for i in range(len(terms))]
        # a term in none of the short fields is not in their join either (no term holds \x01): one instr rules it out
        scores = ", ".join(f"CASE WHEN instr(short, :t{i}) > 0 THEN "
                           + " + ".join(f"(instr({field}, :t{i}) > 0) * {weight}" for field, weight in short)
                           + f" ELSE 0 END AS {name}" for i, name in enumerate(names))
        args = {f"t{i}": term.lower() for i, term in enumerate(terms)}
        db.execute("DROP TABLE IF EXISTS temp.hits")
        if terms:
            db.execute(f"CREATE TEMP TABLE hits AS SELECT * FROM (SELECT path, cid, {scores} FROM docs) "
                       f"WHERE {' + '.join(names)} > 0", args)
        body = search.WEIGHTS["body"]
        for i, term in enumerate(terms):
            odd = []
            for path in irregular:
                for row in search.scan([concept(path)], [term]):
                    odd.append((-row["score"], row["id"], path))
            odd.sort()
            top = db.execute(f"SELECT max(o{i}) FROM temp.hits").fetchone()[0] or 0
            floor = top
            while True:
                floor = max(floor - 3, 0)
                if floor > 0:
                    ranked = db.execute(
                        f"SELECT -(h.o{i} + (instr(b.body, :t{i}) > 0) * {body}), h.cid, h.path FROM temp.hits h "
                        f"JOIN bodies b ON b.path = h.path WHERE h.o{i} >= :f ORDER BY 1, 2, 3", {**args, "f": floor})
                else:  # every concept: the engine's whole ranking
                    full = " + ".join(f"(instr({field}, :t{i}) > 0) * {weight}" for field, weight in search.WEIGHTS.items())
                    ranked = db.execute(f"SELECT -s, cid, path FROM (SELECT d.path AS path, cid, {full} AS s FROM docs d "
                                        "JOIN bodies b ON b.path = d.path) "
                                        "WHERE s > 0 ORDER BY s DESC, cid, path", args)
                kept = 0
                for neg, cid, path in heapq.merge(ranked, odd):
                    if -neg <= floor:  # a concept outside the band may score as much: widen it
                        break
                    keep.add(path)
                    first = db.execute("SELECT min(path) FROM files WHERE cid=? AND kind='c'", (cid,)).fetchone()[0]
                    keep.add(first)
                    if cid in self_ids or first.rsplit("/", 1)[-1] in _reconcile.NO_RECONCILE:
                        continue
                    kept += 1
                    if kept == _reconcile.MAX_HITS:
                        break
                ranked.close()
                if kept == _reconcile.MAX_HITS or floor == 0:
                    break
        mini = Bundle(root=self.root_real)
        for path in sorted(keep):
            reader.add(mini, concept(path))
        return True, _reconcile.reconcile(mini, tool_name, rel)


def open_state(root: str) -> tuple[State, str | None]:
    """A locked state for ``root`` and None when it is current; or an emptied one and the reason it
    was reset (missing, foreign, corrupt) — the caller then runs in full and :meth:`State.build`-s it.
    :class:`Unusable` when there can be no state here (an unwritable cache directory, a lock held
    past :data:`BUSY_S`).  End with :func:`commit` or :func:`abandon`."""
    import sqlite3

    from okfpro.io.cache import writable

    root_real = os.path.realpath(root)
    path = db_path(root_real)
    if not writable(path.parent):
        raise Unusable("the cache directory cannot be written")
    reason: str | None = None
    for attempt in (1, 2):
        fresh = not path.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(os.fspath(path), timeout=BUSY_S, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise Unusable(f"the state could not be opened ({exc})") from None
        try:
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN IMMEDIATE")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            meta = dict(db.execute("SELECT k, v FROM meta")) if "meta" in tables else None
            want = _meta(root_real)
            if meta is None:
                reason = reason or ("no incremental state yet" if fresh or not tables else "the state was incomplete")
            elif meta != want:
                reason = _foreign(meta, want)
            else:
                db.execute("SELECT count(*) FROM files").fetchone()
                return State(db, root_real), None
            _reset(db, root_real)
            return State(db, root_real), reason
        except sqlite3.Error as exc:
            db.close()
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
                raise Unusable(f"another post-edit held the state for over {BUSY_S:g} s") from None
            failure = exc
        _remove(path)  # corrupt: it is only a cache
        reason = f"the state was unreadable ({failure}) and was rebuilt"
    raise Unusable(reason or "the state could not be opened")


def _foreign(meta: dict[str, str], want: dict[str, str]) -> str:
    if meta.get("root") != want["root"]:
        return "the state belongs to another bundle"
    if meta.get("schema") != want["schema"] or meta.get("code") != want["code"]:
        return "the state was written by another okfpro version"
    return "the state was written by another Python"


def _reset(db: Any, root_real: str) -> None:
    for (name,) in list(db.execute("SELECT name FROM sqlite_master WHERE type='table'")):
        db.execute(f'DROP TABLE IF EXISTS "{name}"')
    for sql in _DDL:
        db.execute(sql)
    db.executemany("INSERT INTO meta(k, v) VALUES(?,?)", sorted(_meta(root_real).items()))


def _remove(path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass


def commit(db: Any) -> None:
    try:
        db.execute("COMMIT")
    finally:
        db.close()


def abandon(db: Any) -> None:
    try:
        db.execute("ROLLBACK")
    except Exception:  # noqa: BLE001
        pass
    finally:
        db.close()
