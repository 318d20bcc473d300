"""Per-scope Git history of the memory root.

The memory root holds a bare Git repository of its own (``<root>/.okf-history.git``,
created on first use; named so that a workspace repository around the memory root
does not mistake it for a nested ``.git``).  Nothing here touches a HEAD, an index
or a working tree, of this repository or any other.

Every write and every delete of one scope in one tier is one commit on that scope's
own ref, ``refs/okfpro/memory/<tier>/<scope prefix>``.  A commit's tree holds only
that scope's subtree (``memory-user/<T>/<U>/<day>.md`` …), built from the parent's
tree plus the one changed file, so the cost of a commit depends on neither the
length of the history nor the number of other scopes.  Ref updates are
compare-and-swap; the caller (:mod:`okfpro.memory.store`) holds the scope's
cross-process lock around the file write and the commit.

Hard erasure (:meth:`History.purge`) deletes the scope's ref, expires reflogs,
repacks and prunes unreachable objects with the git command line, then scans every
object left for the erased text.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os

from okfpro.core.record import Frozen, Value, set_field
from okfpro.core.scope import Scope, history_ref, memory_path, scope_key
from okfpro.memory.layout import HISTORY_DIR, LOCK_DIR, TOOL, contained_lock, ensure_ignored

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    import pygit2

ENTRIES_TRAILER = "Entries"

_fsync_enabled = False


class HistoryError(RuntimeError):
    """The history could not be read or written (the message says what and where)."""


class LogEntry(Frozen):
    """One commit of a scope's history, as ``memory log`` shows it (frozen)."""

    __slots__ = ("commit", "tier", "scope_key", "time", "author", "summary", "trailers")
    _fields = __slots__
    commit: str
    tier: str
    scope_key: str
    time: str  # ISO 8601 UTC
    author: str
    summary: str
    trailers: dict[str, str]

    def __init__(self, commit: str, tier: str, scope_key: str, time: str, author: str, summary: str,
                 trailers: dict[str, str] | None = None) -> None:
        set_field(self, "commit", commit)
        set_field(self, "tier", tier)
        set_field(self, "scope_key", scope_key)
        set_field(self, "time", time)
        set_field(self, "author", author)
        set_field(self, "summary", summary)
        set_field(self, "trailers", {} if trailers is None else trailers)

    def to_json(self) -> dict:
        return {
            "commit": self.commit,
            "tier": self.tier,
            "scope_key": self.scope_key,
            "time": self.time,
            "author": self.author,
            "summary": self.summary,
            "trailers": dict(self.trailers),
        }


class PurgeReport(Value):
    """What a purge did to a scope's history, and the objects still holding erased text."""

    __slots__ = ("ref_deleted", "pruned", "residual", "shared", "error")
    _fields = __slots__
    ref_deleted: bool
    pruned: bool
    residual: list[str]  # object ids still holding erased text
    shared: list[str]  # ... of which other scopes' refs reach
    error: str | None

    def __init__(self, ref_deleted: bool = False, pruned: bool = False, residual: list[str] | None = None,
                 shared: list[str] | None = None, error: str | None = None) -> None:
        self.ref_deleted = ref_deleted
        self.pruned = pruned
        self.residual = [] if residual is None else residual
        self.shared = [] if shared is None else shared
        self.error = error

    @property
    def verified(self) -> bool:
        return self.pruned and not self.residual and self.error is None


def _iso(ts: int) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_trailers(message: str) -> dict[str, str]:
    """``Key: value`` lines of the last paragraph of a commit message."""
    paragraphs = message.strip("\n").split("\n\n")
    if len(paragraphs) < 2:
        return {}
    out: dict[str, str] = {}
    for line in paragraphs[-1].splitlines():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            out[key] = value.strip()
    return out


class History:
    """The memory root's Git repository.  Methods that change a ref expect the caller to
    hold that scope's lock (and the shared repository lock, see the store)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = os.fspath(root)  # strings: a capturing Stop commits here (no pathlib)
        self.gitdir = os.path.join(self.root, HISTORY_DIR)
        self._repo: pygit2.Repository | None = None

    # -- repository -------------------------------------------------------------------

    def exists(self) -> bool:
        return os.path.isfile(os.path.join(self.gitdir, "HEAD"))

    def repo(self, create: bool = True) -> pygit2.Repository:
        """Open the repository, creating it (bare, no search upwards) on first use."""
        global _fsync_enabled
        if self._repo is not None:
            return self._repo
        import pygit2
        from pygit2.enums import RepositoryOpenFlag
        if not _fsync_enabled:
            pygit2.settings.enable_fsync_gitdir(True)  # refs and objects survive power loss
            _fsync_enabled = True
        if not self.exists():
            if not create:
                raise HistoryError(f"no memory history at {self.gitdir}")
            with contained_lock(self.root, os.path.join(self.root, LOCK_DIR, "init.lock")):
                if not self.exists():
                    self._init()
        flags = RepositoryOpenFlag.NO_SEARCH | RepositoryOpenFlag.BARE
        try:
            self._repo = pygit2.Repository(self.gitdir, flags)
        except pygit2.GitError as exc:
            raise HistoryError(f"cannot open memory history {self.gitdir}: {exc}") from exc
        return self._repo

    def _init(self) -> None:
        ensure_ignored(self.root)
        tmp = os.path.join(self.root, f".okf-history.{os.getpid()}.tmp")
        if os.path.exists(tmp):
            import shutil

            shutil.rmtree(tmp)
        import pygit2

        repo = pygit2.init_repository(tmp, bare=True)
        cfg = repo.config
        cfg["gc.auto"] = 0  # never an implicit gc: erasure is explicit (purge)
        cfg["core.logAllRefUpdates"] = False
        cfg["core.fsync"] = "all"
        del repo
        os.replace(tmp, self.gitdir)  # appears complete or not at all

    # -- commits ----------------------------------------------------------------------

    def _signature(self, actor: str | None, when: _dt.datetime) -> tuple[pygit2.Signature, pygit2.Signature]:
        import pygit2

        ts = int(when.timestamp())
        who = actor or "local"
        author = pygit2.Signature(f"{who} via {TOOL}", "okfpro@localhost", ts, 0)
        committer = pygit2.Signature(TOOL, "okfpro@localhost", ts, 0)
        return author, committer

    def _tip(self, repo: pygit2.Repository, name: str) -> tuple[pygit2.Reference | None, pygit2.Commit | None]:
        import pygit2

        ref = repo.references.get(name)
        if ref is None:
            return None, None
        commit = repo.get(ref.target)
        if not isinstance(commit, pygit2.Commit):
            raise HistoryError(f"{name} points to {ref.target}, which is not a commit")
        return ref, commit

    def _clear_stale_ref_lock(self, name: str) -> None:
        # A writer killed between libgit2 locking the ref file and renaming it leaves
        # "<ref>.lock" behind.  We hold the scope's lock, so nobody else is updating
        # this ref: the file is stale.
        try:
            os.unlink(os.path.join(self.gitdir, name + ".lock"))
        except FileNotFoundError:
            pass

    def _scope_tree(self, repo: pygit2.Repository, commit: pygit2.Commit | None, prefix: str) -> pygit2.Tree | None:
        import pygit2

        if commit is None:
            return None
        try:
            obj = commit.tree[prefix]
        except KeyError:
            return None
        tree = repo.get(obj.id)
        return tree if isinstance(tree, pygit2.Tree) else None

    def _wrap(self, repo: pygit2.Repository, prefix: str, inner: pygit2.Oid | None) -> pygit2.Oid:
        """The commit tree: only ``prefix`` leading down to the scope's tree."""
        from pygit2.enums import FileMode

        if inner is None:
            return repo.TreeBuilder().write()
        oid = inner
        for name in reversed(prefix.split("/")):
            tb = repo.TreeBuilder()
            tb.insert(name, oid, FileMode.TREE)
            oid = tb.write()
        return oid

    def _commit(
        self,
        repo: pygit2.Repository,
        name: str,
        ref: pygit2.Reference | None,
        parent: pygit2.Commit | None,
        tree: pygit2.Oid,
        message: str,
        actor: str | None,
        when: _dt.datetime,
    ) -> str:
        import pygit2

        author, committer = self._signature(actor, when)
        parents = [parent.id] if parent is not None else []
        oid = repo.create_commit(None, author, committer, message, tree, parents)
        self._clear_stale_ref_lock(name)
        try:
            if ref is None:
                repo.references.create(name, oid, force=False)  # fails if it appeared meanwhile
            else:
                ref.set_target(oid)  # fails if it moved since we read it
        except (pygit2.GitError, pygit2.AlreadyExistsError) as exc:
            raise HistoryError(f"{name} changed under us ({exc}); commit {oid} not recorded") from exc
        return str(oid)

    @staticmethod
    def _message(tier: str, key: str, what: str, entries: int, trailers: dict[str, str | None]) -> str:
        lines = [f"memory {tier} {key}: {what} ({entries} entr{'y' if entries == 1 else 'ies'})", ""]
        lines.append(f"{ENTRIES_TRAILER}: {entries}")
        for k, v in trailers.items():
            if v:
                lines.append(f"{k}: {v}")
        return "\n".join(lines) + "\n"

    @staticmethod
    def _trailers(scope: Scope, actor: str | None) -> dict[str, str | None]:
        # no session id: it names the session in the host, and a log is no place for it
        return {"Agent": scope.agent, "Actor": actor}

    def record_write(
        self,
        tier: str,
        scope: Scope,
        filename: str,
        data: bytes,
        what: str,
        added: int,
        actor: str | None,
        when: _dt.datetime,
    ) -> str:
        """Commit the new bytes of ``<prefix>/<filename>``; returns the commit id."""
        return self.record_files(tier, scope, {filename: data}, what, added, actor, when)

    def record_files(
        self,
        tier: str,
        scope: Scope,
        files: dict[str, bytes],
        what: str,
        added: int,
        actor: str | None,
        when: _dt.datetime,
    ) -> str:
        """One commit for the new bytes of several files of the scope (a bulk import).

        Written by :mod:`okfpro.memory.loose` when the repository and the scope's tip are
        ordinary ones, else by pygit2: the same objects and ref either way."""
        if self.exists():
            from okfpro.memory import loose

            try:
                return self._record_loose(tier, scope, files, what, added, actor, when)
            except loose.Unusual:
                pass  # left to pygit2
        return self._record_libgit2(tier, scope, files, what, added, actor, when)

    def _record_libgit2(self, tier: str, scope: Scope, files: dict[str, bytes], what: str, added: int,
                        actor: str | None, when: _dt.datetime) -> str:
        from pygit2.enums import FileMode

        repo = self.repo()
        name = history_ref(tier, scope)
        prefix = memory_path(tier, scope)
        ref, parent = self._tip(repo, name)
        old = self._scope_tree(repo, parent, prefix)
        tb = repo.TreeBuilder(old) if old is not None else repo.TreeBuilder()
        for filename, data in files.items():
            tb.insert(filename, repo.create_blob(data), FileMode.BLOB)
        tree = self._wrap(repo, prefix, tb.write())
        count = self.entry_count(parent) + added
        msg = self._message(tier, scope_key(tier, scope), what, count, self._trailers(scope, actor))
        return self._commit(repo, name, ref, parent, tree, msg, actor, when)

    def _record_loose(self, tier: str, scope: Scope, files: dict[str, bytes], what: str, added: int,
                      actor: str | None, when: _dt.datetime) -> str:
        """:meth:`record_files` without libgit2; :class:`loose.Unusual` (nothing changed) when
        this repository or tip is not one it handles."""
        from okfpro.memory import loose

        author = f"{actor or 'local'} via {TOOL}"
        if not loose.plain_name(author):
            raise loose.Unusual("libgit2 would rewrite this author name")
        repo = loose.LooseRepo(self.gitdir)
        name = history_ref(tier, scope)
        prefix = memory_path(tier, scope)
        parent = repo.ref(name)
        entries: list[tuple[bytes, bytes, bytes]] = []
        count = added
        try:  # objects are placed by flush(); anything unusual before it leaves none behind
            if parent is not None:
                tree, _, message = repo.commit(parent)
                entries = repo.subtree(tree, prefix) or []
                count += self._count(message)
            for filename, data in files.items():
                raw = filename.encode("utf-8")
                if not loose.plain_file(raw):
                    raise loose.Unusual(f"file name {filename!r}")
                entries = [e for e in entries if e[1] != raw]
                entries.append((b"100644", raw, bytes.fromhex(repo.write(b"blob", data))))
            root = repo.wrap(prefix, repo.write_tree(entries))
            msg = self._message(tier, scope_key(tier, scope), what, count, self._trailers(scope, actor))
            stamp = f"{int(when.timestamp())} +0000"
            body = f"tree {root}\n" + (f"parent {parent}\n" if parent else "")
            body += f"author {author} <okfpro@localhost> {stamp}\ncommitter {TOOL} <okfpro@localhost> {stamp}\n\n{msg}"
            oid = repo.write(b"commit", body.encode("utf-8"))
        except BaseException:
            repo.discard()
            raise
        repo.flush()
        self._clear_stale_ref_lock(name)
        try:
            repo.set_ref(name, oid, parent)
        except loose.Moved as exc:
            raise HistoryError(f"{name} changed under us ({exc}); commit {oid} not recorded") from exc
        return oid

    def record_delete(self, tier: str, scope: Scope, actor: str | None, when: _dt.datetime) -> str | None:
        """Commit an empty tree for the scope (history kept).  ``None`` if it never had one."""
        return self.record_delete_ref(tier, history_ref(tier, scope), scope_key(tier, scope),
                                      self._trailers(scope, actor), actor, when)

    def record_delete_ref(self, tier: str, name: str, key: str, trailers: dict[str, str | None],
                          actor: str | None, when: _dt.datetime) -> str | None:
        """:meth:`record_delete` for the ref ``name`` (scope ``key``), e.g. a session of the
        erased user whose session id is not known any more."""
        if not self.exists():
            return None
        repo = self.repo()
        ref, parent = self._tip(repo, name)
        if parent is None or len(parent.tree) == 0:
            return None  # nothing recorded, or already forgotten
        removed = self.entry_count(parent)
        what = f"forget {removed} entr{'y' if removed == 1 else 'ies'}"
        msg = self._message(tier, key, what, 0, trailers)
        return self._commit(repo, name, ref, parent, self._wrap(repo, "", None), msg, actor, when)

    def refs_under(self, prefix: str) -> list[str]:
        """Names of the refs below ``prefix`` (``refs/okfpro/memory/session/<T>/<U>/``)."""
        if not self.exists():
            return []
        return sorted(n for n in self.repo().references if n.startswith(prefix))

    @staticmethod
    def entry_count(commit: pygit2.Commit | None) -> int:
        return 0 if commit is None else History._count(commit.message)

    @staticmethod
    def _count(message: str) -> int:
        try:
            return int(parse_trailers(message).get(ENTRIES_TRAILER, "0"))
        except ValueError:
            return 0

    # -- reading ----------------------------------------------------------------------

    def tip(self, tier: str, scope: Scope) -> str | None:
        if not self.exists():
            return None
        ref = self.repo().references.get(history_ref(tier, scope))
        return str(ref.target) if ref is not None else None

    def log(self, tier: str, scope: Scope, limit: int | None = None) -> list[LogEntry]:
        """The scope's commits, newest first (first-parent chain of its ref)."""
        return self.log_ref(tier, history_ref(tier, scope), scope_key(tier, scope), limit)

    def log_ref(self, tier: str, name: str, key: str, limit: int | None = None) -> list[LogEntry]:
        """:meth:`log` of the ref ``name`` whose scope key (== directory prefix) is ``key``: a
        Subtree's, when only its hashed names are known (another session of the user)."""
        if not self.exists():
            return []
        repo = self.repo()
        _, commit = self._tip(repo, name)
        prefix = key
        out: list[LogEntry] = []
        while commit is not None and (limit is None or len(out) < limit):
            if not self._belongs(repo, commit, tier, key, prefix):
                raise HistoryError(f"{name} reaches commit {str(commit.id)[:12]}, which is not this scope's "
                                   "history (the ref was edited by hand?); its history is not shown")
            out.append(
                LogEntry(
                    commit=str(commit.id),
                    tier=tier,
                    scope_key=key,
                    time=_iso(commit.commit_time),
                    author=commit.author.name,
                    summary=commit.message.split("\n", 1)[0],
                    trailers=parse_trailers(commit.message),
                )
            )
            commit = commit.parents[0] if commit.parents else None
        return out

    def _belongs(self, repo: pygit2.Repository, commit: pygit2.Commit, tier: str, key: str, prefix: str) -> bool:
        """Whether ``commit`` is one of this scope's own: its message names the scope and
        its tree holds nothing but the scope's subtree (or nothing, after a forget)."""
        import pygit2

        if not commit.message.startswith(f"memory {tier} {key}: "):
            return False
        tree = commit.tree
        if len(tree) == 0:
            return True  # a forget commit
        for part in prefix.split("/"):
            if len(tree) != 1:
                return False
            (item,) = list(tree)
            child = repo.get(item.id)
            if item.name != part or not isinstance(child, pygit2.Tree):
                return False
            tree = child
        return True

    def check(self, tier: str, scope: Scope) -> str | None:
        """A problem with the scope's ref (dangling, missing tree or blob), or ``None``."""
        if not self.exists():
            return None
        import pygit2
        from pygit2.enums import ObjectType

        repo = self.repo()
        name = history_ref(tier, scope)
        ref = repo.references.get(name)
        if ref is None:
            return None
        obj = repo.get(ref.target)
        if not isinstance(obj, pygit2.Commit):
            return f"{name} points to a missing object {ref.target}"
        try:
            stack = [obj.tree]
            while stack:
                tree = stack.pop()
                for item in tree:
                    child = repo.get(item.id)
                    if child is None:
                        return f"{name}: object {item.id} ({item.name}) is missing"
                    if child.type == ObjectType.TREE:
                        stack.append(child)
        except (KeyError, pygit2.GitError) as exc:
            return f"{name}: {exc}"
        return None

    def erased_needles(self, name: str, split) -> list[bytes]:
        """Every entry ever recorded on the ref ``name``, as the bytes stored for it.

        Every blob of every commit's whole tree counts (not only the scope's prefix), on
        every commit the ref reaches.  Along the first-parent chain a file is read only at
        its newest version in each stretch between two forgets (day files are append-only
        in between, so the newest holds every older section): the cost is history length
        plus stored size, not their product.  Commits reached only through another parent
        (never written by okfpro) are read in full.  ``split`` turns a day file's text
        into its stored sections.
        """
        if not self.exists():
            return []
        import pygit2

        repo = self.repo()
        _, commit = self._tip(repo, name)
        needles: set[bytes] = set()
        read: set[pygit2.Oid] = set()

        def blobs(tree: pygit2.Tree, base: str = ""):
            """(path, blob id) of every file below ``tree`` (blobs are not loaded here)."""
            for item in tree:
                if item.type_str == "tree":
                    child = repo.get(item.id)
                    if isinstance(child, pygit2.Tree):
                        yield from blobs(child, f"{base}{item.name}/")
                elif item.type_str == "blob":
                    yield f"{base}{item.name}", item.id

        def take(oid: pygit2.Oid) -> None:
            if oid not in read:
                read.add(oid)
                blob = repo.get(oid)
                if isinstance(blob, pygit2.Blob):
                    needles.update(x.encode("utf-8") for x in split(blob.data.decode("utf-8", "replace")))

        seen_paths: set[str] = set()
        chain: set[pygit2.Oid] = set()
        side: list[pygit2.Commit] = []
        while commit is not None and commit.id not in chain:
            chain.add(commit.id)
            if len(commit.tree) == 0:
                seen_paths.clear()  # a forget: older versions of a name are new content again
            for path, blob in blobs(commit.tree):
                if path not in seen_paths:
                    seen_paths.add(path)
                    take(blob)
            side.extend(commit.parents[1:])
            commit = commit.parents[0] if commit.parents else None
        done = set(chain)
        while side:
            other = side.pop()
            if other.id in done:
                continue
            done.add(other.id)
            for _path, blob in blobs(other.tree):
                take(blob)
            side.extend(other.parents)
        return sorted(needles)

    # -- erasure ----------------------------------------------------------------------

    def _git(self, *args: str) -> subprocess.CompletedProcess:
        import shutil
        import subprocess

        git = shutil.which("git")
        if git is None:
            raise HistoryError("the git command is needed to prune erased objects and was not found")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        proc = subprocess.run(
            [git, f"--git-dir={self.gitdir}", *args],
            capture_output=True,
            env=env,
            check=False,
        )
        if proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip()
            raise HistoryError(f"git {' '.join(args)} failed: {detail}")
        return proc

    def drop_ref(self, name: str) -> bool:
        """Delete the ref ``name`` and its reflog (first step of a purge).  Caller holds
        the exclusive repository lock.  True if there was a ref."""
        if not self.exists():
            return False
        repo = self.repo()
        self._clear_stale_ref_lock(name)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(self.gitdir, "packed-refs.lock"))
        ref = repo.references.get(name)
        if ref is not None:
            ref.delete()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(self.gitdir, "logs", name))
        return ref is not None

    def collect(self, needles: list[bytes]) -> PurgeReport:
        """Expire reflogs, repack and prune every unreachable object, then look for
        ``needles`` in every object left.  Caller holds the exclusive repository lock
        (a writer's fresh, not yet referenced objects would otherwise be pruned)."""
        report = PurgeReport()
        if not self.exists():
            report.pruned = True
            return report
        try:
            self._repo = None  # objects are about to move; reopen afterwards
            self._git("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
            self._git("repack", "-a", "-d", "-q")
            self._git("prune", "--expire=now")
            report.pruned = True
            report.residual = self.objects_containing(needles)
            if report.residual:
                # Byte-identical text stored by another scope is that scope's data, kept.
                reachable = self.reachable_objects()
                report.shared = [oid for oid in report.residual if oid in reachable]
        except (HistoryError, OSError) as exc:
            report.error = str(exc)
        return report

    def reachable_objects(self) -> set[str]:
        """Ids of every object some ref (another scope's history) still reaches."""
        out = self._git("rev-list", "--objects", "--all").stdout
        return {line.split(b" ", 1)[0].decode() for line in out.splitlines() if line}

    def objects_containing(self, needles: list[bytes]) -> list[str]:
        """Ids of every object in the repository whose content holds one of ``needles``.

        Streams ``git cat-file --batch-all-objects --batch`` (memory stays flat) and
        matches all needles in one pass per object (see :class:`_Needles`).
        """
        needles = [n for n in needles if n]
        if not needles or not self.exists():
            return []
        import shutil
        import subprocess

        git = shutil.which("git")
        if git is None:
            raise HistoryError("the git command is needed to scan objects and was not found")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        matcher = _Needles(needles)
        found: list[str] = []
        with subprocess.Popen(
            [git, f"--git-dir={self.gitdir}", "cat-file", "--batch-all-objects", "--batch"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        ) as proc:
            out = proc.stdout
            assert out is not None
            while True:
                header = out.readline()
                if not header:
                    break
                fields = header.split()
                if len(fields) < 3:
                    raise HistoryError(f"unexpected git cat-file output: {header[:80]!r}")
                body = out.read(int(fields[2]))
                out.read(1)  # the newline after each object
                if matcher.search(body):
                    found.append(fields[0].decode())
        if proc.returncode != 0:
            raise HistoryError(f"git cat-file exited {proc.returncode}")
        return found


class _Needles:
    """Many byte strings searched at once: candidates start where the needles' common
    prefix occurs (``bytes.find``), then one dict lookup on a fixed-width anchor; so
    the cost is the object's size, not size x number of needles."""

    def __init__(self, needles: list[bytes]) -> None:
        prefix = os.path.commonprefix(needles) or b""  # '' (str) only for an empty list
        self.prefix = bytes(prefix)
        self.width = min(len(n) for n in needles)
        self.buckets: dict[bytes, list[bytes]] = {}
        for n in needles:
            self.buckets.setdefault(n[: self.width], []).append(n)
        self.needles = needles

    def search(self, body: bytes) -> bool:
        if not self.prefix:
            return any(n in body for n in self.needles)
        pos = body.find(self.prefix)
        while pos >= 0:
            for n in self.buckets.get(body[pos : pos + self.width], ()):
                if body.startswith(n, pos):
                    return True
            pos = body.find(self.prefix, pos + 1)
        return False
