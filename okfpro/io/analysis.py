"""The incremental post-edit's state: each file's facts and findings in SQLite, keyed by file identity.

One database per bundle beside the parse cache (``analysis-<hash of root>.sqlite`` in
:func:`okfpro.io.cache.cache_dir`).  Never the source of truth:

* every run looks at each file's ``(size, mtime_ns, ctime_ns, inode)`` and compares it with the
  stored one; a file that differs, appeared or vanished is re-read (whoever changed it: the edit,
  a shell command, a checkout, a concurrent session), and so is a file that was modified within
  :data:`~okfpro.io.cache.RACY_NS` of being read (stored without a key).  A directory whose own
  key is unchanged is not listed again, and one whose files' keys hash to the stored digest is
  not compared file by file (:func:`identities`, :meth:`State.refresh`); on a large bundle a
  forked child looks at half of the directories meanwhile (:func:`_split`);
* what a changed file can alter is recomputed: its own findings, the files whose findings
  depend on its existence, the concepts sharing an id with it or that it links to or lists, and,
  for an ``index.md``, the concepts of its directory (``.okf/design/incremental-post-edit.md``
  says why that set is complete);
* a missing, foreign (another bundle, another okfpro version or code, another Python) or corrupt
  database raises :class:`Unusable`; the caller runs in full, says so, and rebuilds it; a page
  damaged past the header fails the query that reads it (:func:`damaged`): the caller runs in
  full, says so, and removes it (:func:`discard`);
* writers are serialised by SQLite's lock (``BEGIN IMMEDIATE``): a second post-edit waits, then
  sees the first one's state.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

from okfpro.io import dbfiles

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Iterable, Union

    # a stored directory: (its key when listed, its listing) and, from the state, its keys' digest
    Listed = Union[tuple[int | None, bytes], tuple[int | None, bytes, int | None]]

SCHEMA = 7
# the code whose answers the state holds: other code means a foreign state
CODE = ("core/delta.py", "core/validate.py", "core/lint.py", "core/graph.py", "core/links.py", "core/concept.py",
        "core/yamlsafe.py", "core/yamlfast.py", "core/search.py", "core/scanindex.py", "core/reconcile.py", "io/reader.py",
        "io/analysis.py", "io/rule1state.py")
BUSY_S = 20.0
_DDL = (
    "CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT)",
    "CREATE TABLE files(path TEXT PRIMARY KEY, kind TEXT, cid TEXT, dir TEXT, facts BLOB)",
    # each directory's listing (names, subdirectories) with its key then, its files' keys and their digest
    "CREATE TABLE dirs(dir TEXT PRIMARY KEY, key INT, listing BLOB, keys BLOB, digest INT)",
    "CREATE INDEX files_cid ON files(cid)",
    "CREATE INDEX files_dir ON files(dir, kind)",
    # each real finding in a full run's order (sec: 0 validate errors, 1 warnings, 2 lint; ord, key: the
    # class and path, or the lint check's rank and its sort key), so the answer reads the first few and
    # counts the rest without loading them (``State.summary``)
    "CREATE TABLE found(sec INT, ord INT, key TEXT, src TEXT, seq INT, stem TEXT, chk TEXT, item BLOB,"
    " PRIMARY KEY(sec, ord, key, src, seq)) WITHOUT ROWID",
    "CREATE INDEX found_src ON found(src)",
    "CREATE INDEX found_stem ON found(stem, sec)",
    "CREATE INDEX found_chk ON found(sec, chk, stem)",
    "CREATE TABLE refs(how TEXT, target TEXT, src TEXT)",
    "CREATE INDEX refs_target ON refs(how, target)",
    "CREATE INDEX refs_src ON refs(src)",
)
_CLASS = {"c": 0, "i": 1, "l": 1, "u": 2}  # validate reports concepts, then reserved files, then unparseable ones


class Unusable(Exception):
    """The state cannot answer; ``str(exc)`` says why in a few words."""


def db_path(root_real: str) -> str:
    from okfpro.io.cachedir import cache_dir, path_key

    return os.path.join(cache_dir(root_real), f"analysis-{path_key(root_real)}.sqlite")


def _meta(root_real: str) -> dict[str, str]:
    from okfpro.io.cache import code_stamp

    return {"schema": str(SCHEMA), "root": root_real, "python": "%d.%d" % sys.version_info[:2], "code": code_stamp(CODE)}


# --------------------------------------------------------------------------- identities
class Tree:
    """The bundle's files as the reader's walk finds them, each with its identity key, by directory.

    A key is the hash of ``(size, mtime_ns, ctime_ns, inode)`` (deterministic for integers; the
    Python version is part of the state's fingerprint), or None when the file must be re-read
    next time (not a regular file, or modified too recently to tell a same-tick rewrite apart).
    ``dirs``: directory (``""`` for the root) -> ``[listing key, names, subdirectories, keys, digest]``
    (digest: :func:`_digest` of the keys, taken by whichever process looked at the directory); names
    None: the state's stored listing of that directory (``stored``), read by :meth:`names` when needed
    (a directory the forked child looked at, unchanged: its names are not sent back); keys None: the
    child found the listing key and the digest as stored, so every key is the state's and nothing
    reads them (:meth:`State.refresh` passes over such a directory; it is never saved)."""

    def __init__(self, stored: dict[str, Listed] | None = None) -> None:
        self.dirs: dict[str, list[Any]] = {}
        self._names: dict[str, set[str]] = {}
        self._stored = stored or {}

    def names(self, head: str) -> tuple[str, ...]:
        entry = self.dirs[head]
        if entry[1] is None:
            entry[1] = marshal.loads(self._stored[head][1])[0]
        return entry[1]

    def entry(self, head: str) -> list[Any]:
        """``dirs[head]`` with its names read."""
        self.names(head)
        return self.dirs[head]

    def _of(self, head: str) -> set[str] | None:
        got = self._names.get(head)
        if got is None:
            if head not in self.dirs:
                return None
            got = self._names[head] = set(self.names(head))
        return got

    def __contains__(self, rel: object) -> bool:
        head, sep, name = str(rel).rpartition("/")
        if sep and not head:  # "/x.md": no walk gives that spelling
            return False
        names = self._of(head)
        return names is not None and name in names

    def paths(self) -> Iterable[str]:
        for head, entry in self.dirs.items():
            prefix = f"{head}/" if head else ""
            yield from (prefix + name for name in self.names(head))

    def forget(self, rel: str) -> None:
        """Make ``rel`` be re-read next time (the state did not take it in)."""
        head, _, name = rel.rpartition("/")
        entry = self.dirs[head]
        assert entry[3] is not None, "forget() follows a walk that kept every key (State.build's)"
        entry[3] = [None if n == name else k for n, k in zip(self.names(head), entry[3])]
        entry[4] = _digest(entry[3])
        self._names.pop(head, None)


SPLIT_AT = 5000  # files (as the state last listed them): from here half the directories are looked at by a child


def identities(root_real: str, stored: dict[str, Listed] | None = None, split_at: int | None = None) -> Tree:
    """Every bundle file (the reader's walk) and its identity key.

    ``stored``: directory -> (its key when it was listed, its listing[, its keys' digest]) from the
    state.  A directory's entries change only with its own size/mtime/ctime/inode, so one whose key
    is unchanged is not listed again (its files are still each looked at: an edit in place changes
    no directory); one modified too recently to tell is stored without a key and listed next time.

    The ``stat`` of every file is most of a post-edit on a large bundle, and ``os.stat`` in threads
    does not overlap (each call gives the GIL back for ~2 us and takes it again before another thread
    wakes).  So when the state listed at least ``split_at`` files (:data:`SPLIT_AT`) and no other
    thread runs, a forked child looks at half of the stored directories (:func:`_split`) while this
    process looks at the rest; the walk from the root then takes each directory's entry from those
    answers, or looks at it now (a directory the state did not know, or a child that failed), and
    leaves out what the walk does not reach: the same tree as a walk alone.
    """
    from okfpro.io.cache import RACY_NS

    cut = time.time_ns() - RACY_NS
    stored = stored or {}
    ahead = _split(root_real, stored, cut, SPLIT_AT if split_at is None else split_at)
    tree = Tree(stored)
    stack = [""]
    while stack:
        head = stack.pop()
        entry = ahead.pop(head, None) or _look(root_real, head, stored.get(head), cut)
        if entry is None:
            continue
        tree.dirs[head] = entry
        prefix = f"{head}/" if head else ""
        stack.extend(prefix + name for name in entry[2])
    return tree


def _look(root_real: str, head: str, old: Listed | None, cut: int) -> list[Any] | None:
    """One directory's ``[listing key, names, subdirectories, keys, digest]`` (:class:`Tree`), None when it
    cannot be opened or listed (not a directory any more, a symlink, gone)."""
    from okfpro.io import reader

    stat = os.stat
    try:
        fd = os.open(os.path.join(root_real, head) if head else root_real, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        key = None if max(st.st_mtime_ns, st.st_ctime_ns) >= cut else hash(
            (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        if key is not None and old is not None and old[0] == key:
            names, subs = marshal.loads(old[1])
        else:
            try:
                names, subs = reader.listing(fd)
            except OSError:
                return None
        sts: list[os.stat_result | None]
        try:
            sts = [stat(name, dir_fd=fd, follow_symlinks=False) for name in names]
        except OSError:  # one vanished meanwhile: it is re-read (and then gone) next time
            sts = []
            for name in names:
                try:
                    sts.append(stat(name, dir_fd=fd, follow_symlinks=False))
                except OSError:
                    sts.append(None)
    finally:
        os.close(fd)
    # a regular file changed before ``cut``: the hash of its identity; else None (looked at again next
    # time).  Written without a call per file (max(), attribute reads twice): ~30% of this loop at 50,000
    keys = [hash((s.st_size, m, c, s.st_ino)) if s is not None and s.st_mode & 0o170000 == 0o100000
            and (m := s.st_mtime_ns) < cut and (c := s.st_ctime_ns) < cut else None for s in sts]
    return [key, tuple(names), tuple(subs), keys, _digest(keys)]


def _split(root_real: str, stored: dict[str, Listed], cut: int, at: int) -> dict[str, list[Any]]:
    """The entries (:func:`_look`) of the stored directories, shared with a forked child that looks at
    them meanwhile; ``{}`` below ``at`` stored files, with another thread running (a fork copies
    none of its locks' owners), or where there is no ``fork``.

    The directories are one list, the larger ones at its two ends: this process takes them from the
    front, the child from the back, each first marking the one it takes in a shared byte per
    directory, and each stops at the first one the other marked.  So the two halves are cut where
    the two meet, whichever is slowed (the child starts a fork later and marshals its answer; either
    may lose its core to another process), not at a size fixed before.  A byte marked by the other
    side is looked at by that side (a directory may be looked at by both, never by neither), and a
    child that fails, or says anything but a marshalled dict, leaves its directories to the caller."""
    if not stored or not hasattr(os, "fork"):
        return {}
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return {}
    sizes = sorted(((len(old[1]), head) for head, old in stored.items()), reverse=True)
    if sum(size for size, _head in sizes) < at * 8:  # a listing's marshal holds ~8+ bytes a name
        return {}
    ends: tuple[list[str], list[str]] = ([], [])
    load = [0, 0]
    for size, head in sizes:  # the larger listings first, each to the lighter end: the small ones meet
        side = 0 if load[0] <= load[1] else 1
        ends[side].append(head)
        load[side] += size
    order = ends[0] + ends[1][::-1]
    import gc
    import mmap

    marks = mmap.mmap(-1, len(order))  # shared with the child, zeroed: 1 taken here, 2 taken by the child
    read_end, write_end = os.pipe()
    gc.freeze()  # the heap as it is now is not scanned by either side's collector: fewer pages copied on write
    try:
        pid = os.fork()
    except OSError:
        gc.unfreeze()
        os.close(read_end)
        os.close(write_end)
        marks.close()
        return {}
    if pid == 0:  # the child: from the back, marshalled down the pipe, then gone without running any cleanup
        code = 1
        try:
            gc.disable()  # short-lived: a collection would only touch pages and copy them
            os.close(read_end)
            mine = {}
            for i in range(len(order) - 1, -1, -1):
                if marks[i]:
                    break
                marks[i] = 2
                head = order[i]
                old = stored[head]
                entry = mine[head] = _look(root_real, head, old, cut)
                if entry is not None and entry[0] is not None and entry[0] == old[0]:
                    entry[1] = None  # listed as stored: the caller reads the names there if it needs them
                    if len(old) > 2 and entry[4] is not None and entry[4] == old[2]:
                        entry[3] = None  # and every key as stored: nothing reads them (Tree)
            data = memoryview(marshal.dumps(mine))
            while data:
                data = data[os.write(write_end, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    out: dict[str, list[Any]] = {}
    theirs: Any = None
    try:
        for i, head in enumerate(order):
            if marks[i]:
                break
            marks[i] = 1
            entry = _look(root_real, head, stored[head], cut)
            if entry is not None:
                out[head] = entry
        chunks = []
        while chunk := os.read(read_end, 1 << 20):
            chunks.append(chunk)
        theirs = b"".join(chunks)
    finally:
        os.close(read_end)  # a child still writing (this process was interrupted) gets EPIPE and ends
        _pid, status = os.waitpid(pid, 0)
        gc.unfreeze()
        marks.close()
    if status == 0:
        try:
            theirs = marshal.loads(theirs)
        except (EOFError, ValueError, TypeError):
            theirs = None
        if isinstance(theirs, dict):
            out.update((head, entry) for head, entry in theirs.items() if entry is not None and head not in out)
    return out


def _digest(keys: list[int | None]) -> int | None:
    """One directory's file keys as one integer (None when a file must be re-read anyway)."""
    return None if None in keys else hash(tuple(keys))


# --------------------------------------------------------------------------- the state
class State:
    """An open, locked state for one bundle (use :func:`open_state`)."""

    def __init__(self, db: Any, root_real: str) -> None:
        self.db = db
        self.root_real = root_real
        self.present = Tree()

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
    def build(self, items: Iterable[Any], present: Tree) -> None:
        """Fill an emptied state from a bundle already read; ``present`` are the identities taken
        *before* that read (a file changed since then is re-read next time)."""
        self.present = present
        taken = {item.path: item for item in items if item.path in present}
        for rel in [rel for rel in present.paths() if rel not in taken]:
            present.forget(rel)  # vanished before the read: looked at again next time
        self.apply(taken, (), bulk=True)
        self._save(list(present.dirs))

    def refresh(self, load_item=None) -> set[str]:
        """Bring the state up to the disk; return the bundle paths whose facts were re-read."""
        from okfpro.io import reader

        load = load_item or (lambda rel: reader.load_entry(self.root_real, rel))
        db = self.db
        rows = {head: (key, listing, digest) for head, key, listing, digest in db.execute("SELECT dir, key, listing, digest FROM dirs")}
        tree = self.present = identities(self.root_real, dict(rows))  # the loop below pops rows
        changed: list[str] = []
        gone: list[str] = []
        dirty: list[str] = []
        for head, (key, _names, _subs, keys, digest) in tree.dirs.items():
            row = rows.pop(head, None)
            if row is not None and row[0] == key and key is not None and digest is not None and row[2] == digest:
                continue  # listed from the state, every file's key as stored
            dirty.append(head)
            names = tree.names(head)
            old = self._stored(head, row)
            if row is not None and digest is not None and row[2] == digest and tuple(old) == names:
                continue  # listed again (the directory's key changed): the same files, unchanged
            prefix = f"{head}/" if head else ""
            changed.extend(prefix + name for name, k in zip(names, keys) if k is None or old.get(name) != k)
            here = set(names)
            gone.extend(prefix + name for name in old if name not in here)
        for head, row in rows.items():  # directories that are gone
            prefix = f"{head}/" if head else ""
            gone.extend(prefix + name for name in self._stored(head, row))
            db.execute("DELETE FROM dirs WHERE dir=?", (head,))
        self.apply({rel: load(rel) for rel in changed}, gone)
        self._save(dirty)
        return set(changed) | set(gone)

    def _stored(self, head: str, row: tuple | None) -> dict[str, int | None]:
        """A directory's file names and keys as the state holds them (insertion-ordered)."""
        if row is None:
            return {}
        names = marshal.loads(row[1])[0]
        keys = marshal.loads(self.db.execute("SELECT keys FROM dirs WHERE dir=?", (head,)).fetchone()[0])
        return dict(zip(names, keys))

    def _save(self, heads: Iterable[str]) -> None:
        entry = self.present.entry
        self.db.executemany(
            "INSERT OR REPLACE INTO dirs(dir, key, listing, keys, digest) VALUES(?,?,?,?,?)",
            [(head, e[0], marshal.dumps((e[1], e[2])), marshal.dumps(e[3]), _digest(e[3]))
             for head in heads for e in (entry(head),)])

    def apply(self, items: dict[str, Any], gone: Iterable[str], bulk: bool = False) -> None:
        from okfpro.core import delta
        from okfpro.io import rule1state

        db = self.db
        sink = rule1state.Sink() if bulk else None
        touched: dict[str, tuple[dict | None, dict | None]] = {}
        for rel in gone:
            touched[rel] = (self._facts(rel), None)
            self._drop(rel)
        for rel, item in items.items():
            old = self._facts(rel)
            new = delta.facts(item)
            self._drop(rel)
            db.execute("INSERT INTO files(path, kind, cid, dir, facts) VALUES(?,?,?,?,?)",
                       (rel, new["k"], new.get("id"), new.get("dir"), marshal.dumps(new)))
            rows = [("x", t, rel) for t in delta.exist_targets(new)]
            rows += [("e", t, rel) for t in new.get("edges", ())]
            rows += [("l", cid, rel) for cid in new.get("listed", ())]
            db.executemany("INSERT INTO refs(how, target, src) VALUES(?,?,?)", rows)
            if new["k"] == "c":
                rule1state.index_text(db, rel, item, sink)
            touched[rel] = (old, new)
        if sink is not None:
            sink.flush(db)
        for rel in self._affected(touched):
            self._settle(rel)

    def _drop(self, rel: str) -> None:
        from okfpro.io import rule1state

        for sql in ("DELETE FROM files WHERE path=?", "DELETE FROM refs WHERE src=?", "DELETE FROM found WHERE src=?"):
            self.db.execute(sql, (rel,))
        rule1state.drop_text(self.db, rel)

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
        errors, warnings, lint = delta.active(f, present.__contains__, inbound, listed, index_lists)
        self.db.execute("DELETE FROM found WHERE src=?", (rel,))
        if not (errors or warnings or lint):
            return
        cls, rank, stem, dumps = _CLASS[f["k"]], delta.WARN_RANK, delta.stem, marshal.dumps
        rows = [(0, cls, rel, rel, i, stem(e[0]), None, dumps(e)) for i, e in enumerate(errors)]
        rows += [(1, cls, rel, rel, i, stem(w[0]), w[2], dumps(w)) for i, w in enumerate(warnings)]
        rows += [(2, rank[x[0]], x[3], rel, i, stem(x[1]), x[0], dumps(x[:3])) for i, x in enumerate(lint)]
        self.db.executemany("INSERT INTO found(sec, ord, key, src, seq, stem, chk, item) VALUES(?,?,?,?,?,?,?,?)", rows)

    # -- answering ---------------------------------------------------------------
    def findings(self) -> tuple[list[tuple], list[tuple], list[tuple]]:
        """``(validate errors, validate warnings, lint warn findings)``, all of them, in the order a
        full run gives them (validate: by class, then path; lint: by check, then its sort key, then
        path), each section as :func:`okfpro.hooks.post_edit.full_findings` shapes it."""
        out: tuple[list[tuple], list[tuple], list[tuple]] = ([], [], [])
        for sec, item in self.db.execute("SELECT sec, item FROM found ORDER BY sec, ord, key, src, seq"):
            out[sec].append(marshal.loads(item))
        return out

    def summary(self, stem: str, shown: int) -> list[tuple[list[tuple], list[tuple], int, dict]]:
        """Per section of :meth:`findings`: (the findings whose path has this stem, the first ``shown``
        others, how many others, their number per check) — what the answer shows, read without
        loading every finding (:func:`okfpro.hooks.post_edit.summarise` is the same over full lists)."""
        db, loads = self.db, marshal.loads
        out = []
        for sec in (0, 1, 2):
            mine = [loads(b) for (b,) in db.execute(
                "SELECT item FROM found WHERE stem=? AND sec=? ORDER BY ord, key, src, seq", (stem, sec))]
            first = [loads(b) for (b,) in db.execute(
                "SELECT item FROM found WHERE sec=? AND stem IS NOT ? ORDER BY ord, key, src, seq LIMIT ?",
                (sec, stem, shown))]
            counts = dict(db.execute("SELECT chk, count(*) FROM found WHERE sec=? AND stem IS NOT ? GROUP BY chk",
                                     (sec, stem)))
            out.append((mine, first, sum(counts.values()), counts))
        return out


    # -- reconciliation --------------------------------------------------------------
    def reconcile(self, tool_name: str, rel: str) -> tuple[bool, str | None]:
        """(answered, message): Rule 1's block for a new concept (:func:`okfpro.io.rule1state.reconcile`)."""
        from okfpro.io import rule1state

        return rule1state.reconcile(self, tool_name, rel)


def open_state(root: str) -> tuple[State, str | None]:
    """A locked state for ``root`` and None when it is current; or an emptied one and the reason it
    was reset (missing, foreign, corrupt) — the caller then runs in full and :meth:`State.build`-s it.
    :class:`Unusable` when there can be no state here (an unwritable cache directory, a lock held
    past :data:`BUSY_S`).  End with :func:`commit` or :func:`abandon`."""
    import sqlite3

    from okfpro.io.cache import writable

    root_real = os.path.realpath(root)
    path = db_path(root_real)
    if not writable(os.path.dirname(path)):
        raise Unusable("the cache directory cannot be written")
    reason: str | None = None
    for attempt in (1, 2):
        fresh = not os.path.exists(path)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            db = sqlite3.connect(path, timeout=BUSY_S, isolation_level=None)
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
            else:  # a page damaged past the header is met by the query that reads it: :func:`damaged`
                return State(db, root_real), None
            _reset(db, root_real)
            return State(db, root_real), reason
        except sqlite3.Error as exc:
            db.close()
            if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
                raise Unusable(f"another post-edit held the state for over {BUSY_S:g} s") from None
            failure = exc
        dbfiles.remove(path)  # corrupt: it is only a cache
        reason = f"the state was unreadable ({failure}) and was rebuilt"
    raise Unusable(reason or "the state could not be opened")


def damaged(exc: BaseException) -> bool:
    """Whether ``exc``, raised while a state answered, says its file is damaged (SQLite found a page it
    cannot read: a torn write, a bad disk, a file that is not a database), not busy or out of space."""
    sqlite3 = sys.modules.get("sqlite3")
    return (sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError)
            and not isinstance(exc, sqlite3.OperationalError))


def discard(root_real: str) -> None:
    """Remove a damaged state (after :func:`abandon`): the next post-edit builds a new one."""
    dbfiles.remove(db_path(root_real))


def _foreign(meta: dict[str, str], want: dict[str, str]) -> str:
    if meta.get("root") != want["root"]:
        return "the state belongs to another bundle"
    if meta.get("schema") != want["schema"] or meta.get("code") != want["code"]:
        return "the state was written by another okfpro version"
    return "the state was written by another Python"


def _reset(db: Any, root_real: str) -> None:
    for (name,) in list(db.execute("SELECT name FROM sqlite_master WHERE type='table'")):
        db.execute(f'DROP TABLE IF EXISTS "{name}"')
    from okfpro.io.rule1state import DDL

    for sql in (*_DDL, *DDL):
        db.execute(sql)
    db.executemany("INSERT INTO meta(k, v) VALUES(?,?)", sorted(_meta(root_real).items()))


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
