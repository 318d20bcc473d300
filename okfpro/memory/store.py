"""The scoped memory store: read, write, delete and enumerate one scope's memory.

Layout under the memory root (outside the knowledge bundle)::

    memory-<tier>/<encoded scope segments>/<YYYY-MM-DD>.md   one OKF concept per UTC day
    .okf-history.git/                                          per-scope history (history.py)
    .okf-locks/                                                cross-process lock files

Each write appends one section to the day's concept (created with OKF frontmatter on
the first write of the day), under the scope's cross-process lock, through a temp file
and ``os.replace``, then records one commit on the scope's own ref.  Symlinks between
the memory root and the target are refused, before taking the lock and again inside it.

Every data problem comes back as data (``written=False`` / ``error`` / diagnostics);
only programming errors (a non-Scope, a bug) raise.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from okfpro.core.scope import (
    TIERS,
    Scope,
    applicable_tiers,
    check_tier,
    memory_path,
    history_ref,
    scope_key,
    write_problem,
)
from okfpro.core.dayfile import DAY_RE, MalformedConcept, frontmatter, render_section, sections, split_concept, stored_sections, title
from okfpro.io.atomic import atomic_write
from okfpro.io.clock import utc_day, utcnow
from okfpro.memory.layout import (
    LOCK_DIR,
    TOOL,
    contained_lock,
    ensure_ignored,
    link_problem,
    read_day_file,
    resolve_memory_root,
)

MAX_ENTRY_CHARS = 64 * 1024


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class MemoryEntry:
    """What to remember: free text (quoted on disk so it can never become structure)."""

    text: str


@dataclass(frozen=True)
class Diagnostic:
    code: str  # "SourceUnavailable"
    source: str  # "memory:<tier>"
    message: str

    def to_json(self) -> dict:
        return {"code": self.code, "source": self.source, "message": self.message}


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One entry as stored: ``id`` = ``<scope prefix>/<date>#<n>`` (n = section number)."""

    tier: str
    id: str
    concept_id: str
    date: str
    time: str
    title: str
    text: str
    path: str  # relative to the memory root
    seq: int = 0  # section number within the day file (the n of the id)

    def to_json(self) -> dict:
        return {
            "tier": self.tier,
            "id": self.id,
            "title": self.title,
            "date": self.date,
            "time": self.time,
            "path": self.path,
        }


@dataclass(frozen=True)
class Passage:
    entry: StoredEntry
    score: float
    excerpt: str

    @property
    def source_id(self) -> str:
        return f"memory:{self.entry.tier}"

    def to_json(self) -> dict:
        out = self.entry.to_json()
        out.update(source_id=self.source_id, score=self.score, excerpt=self.excerpt, text=self.entry.text)
        return out


@dataclass
class ReadResult:
    passages: list[Passage] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # every entry of the tiers read (all applicable tiers when no limit cut the read short),
    # so a caller that needs the whole scope (the memory policy's fold) need not read it again
    entries: list[StoredEntry] = field(default_factory=list)


@dataclass
class EnumerateResult:
    entries: list[StoredEntry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class WriteResult:
    written: bool
    error: str | None = None
    tier: str | None = None
    scope_key: str | None = None
    id: str | None = None
    path: str | None = None
    commit: str | None = None


@dataclass
class DeleteResult:
    tiers_deleted: int = 0
    error: str | None = None
    commits: dict[str, str] = field(default_factory=dict)  # tier -> forget commit
    purged: bool = False
    verified: bool = False  # purge only: no object left holds an erased entry
    residual: list[str] = field(default_factory=list)  # objects still holding one
    shared: list[str] = field(default_factory=list)  # residual objects another scope holds too


@dataclass(frozen=True)
class Subtree:
    """One scope's memory in one tier: its directory (relative to the root), its history
    ref and its scope key.  What deletion works on, so a session whose id is no longer
    known (only its hashed directory or ref is) can still be erased."""

    tier: str
    prefix: str
    ref: str
    key: str


@dataclass
class LogResult:
    entries: list = field(default_factory=list)  # okfpro.memory.history.LogEntry
    error: str | None = None
    diagnostics: list[str] = field(default_factory=list)  # tiers not shown, and why


# ---------------------------------------------------------------------------- scorer


def _excerpt(text: str, query: str) -> str:
    terms = [t.casefold() for t in query.split()]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        low = line.casefold()
        if any(t in low for t in terms):
            return line
    return lines[0] if lines else ""


def _rank(query: str, entries: list[StoredEntry], limit: int | None = None) -> list[Passage]:
    """The one place memory is ranked (within one tier).

    The shared ranked engine (``okfpro.core.bm25.rank_docs``: BM25, OR-joined terms,
    prefixes, identifiers whole, stems) scores each entry's title and text.  A tier is small and
    BM25's idf floors to ~0 for a term most entries share: entries are ordered first by how many
    distinct query terms they match, then by that score, then newest first."""
    from okfpro.core.bm25 import RankedIndex, bundle_query, stemmed_terms
    from okfpro.core.search import Doc

    if not entries or not query.strip():
        return []
    docs = [Doc(e.id, {"title": e.title, "body": e.text}) for e in entries]
    index, terms = RankedIndex(docs, fields=("title", "body"), tokenizer=stemmed_terms), bundle_query(query)
    scores, _matched, _hits = index.scores(terms)
    covered: dict[int, int] = {}
    for qt in terms:
        docs_with_term: set[int] = set()
        for tok in index.expand(qt):
            docs_with_term.update(index.postings[tok])
        for i in docs_with_term:
            covered[i] = covered.get(i, 0) + 1
    # every scored entry matched, even one scoring ~0
    hits = [(covered.get(i, 0), round(sc, 4), entries[i]) for i, sc in scores.items()]
    hits.sort(key=lambda h: (h[0], h[1], h[2].date, h[2].seq), reverse=True)
    if limit is not None:
        hits = hits[:limit]
    return [Passage(e, sc, _excerpt(e.text, query)) for _, sc, e in hits]


# ---------------------------------------------------------------------------- format


# ---------------------------------------------------------------------------- the store


class MemoryStore:
    """Scoped memory under ``root``; ``tiers`` = the configured tiers (default all four)."""

    def __init__(self, root: str | os.PathLike, tiers: tuple[str, ...] | list[str] = TIERS, history: bool = True) -> None:
        self.root = Path(os.path.abspath(root))
        self.tiers = tuple(check_tier(t) for t in tiers)
        self._with_history = history
        self._history = None
        self._root_ready = False

    @property
    def history(self):
        """The per-scope Git history (``okfpro.memory.history.History``), or ``None``.

        Imported on first use, so reading memory never loads pygit2."""
        if not self._with_history:
            return None
        if self._history is None:
            from .history import History

            self._history = History(self.root)
        return self._history

    @classmethod
    def for_workspace(cls, workspace: str | os.PathLike, config=None) -> tuple["MemoryStore | None", str | None]:
        """The workspace's store, or why there is none; ``config``: okfpro.toml already read by the caller."""
        from okfpro.io import config as config_mod

        try:
            cfg = config if config is not None else config_mod.load(Path(workspace))
        except (config_mod.ConfigError, OSError) as exc:
            return None, str(exc)
        root, err = resolve_memory_root(workspace, cfg)
        if root is None:
            return None, err
        tiers = cfg.get("memory", "tiers", list(TIERS))
        if not isinstance(tiers, list) or any(t not in TIERS for t in tiers):
            return None, f"okfpro.toml: [memory] tiers must be a list drawn from {', '.join(TIERS)}"
        return cls(root, tiers=tuple(tiers)), None

    # -- paths and locks --------------------------------------------------------------

    def scope_dir(self, tier: str, scope: Scope) -> Path:
        return self.root.joinpath(*memory_path(tier, scope).split("/"))

    def _link_problem(self, target: Path) -> str | None:
        return link_problem(self.root, target)

    def _lock_for(self, prefix: str) -> Path:
        digest = hashlib.sha256(prefix.encode()).hexdigest()[:32]
        return self.root / LOCK_DIR / f"{digest}.lock"

    @contextlib.contextmanager
    def _locked(self, path: Path, shared: bool = False) -> Iterator[None]:
        """``locked(path)`` once no component from the root down (the lock directory, the
        lock file) is a symbolic link: a lock is never taken, nor a file created, outside
        the memory root."""
        with contained_lock(self.root, path, shared=shared):
            yield

    @contextlib.contextmanager
    def _repo_lock(self, exclusive: bool) -> Iterator[None]:
        """Writers share it; a purge (which prunes objects) takes it alone."""
        if not self._root_ready:
            ensure_ignored(self.root)
            self._root_ready = True
        with self._locked(self.root / LOCK_DIR / "repository.lock", shared=not exclusive):
            yield

    @contextlib.contextmanager
    def _scope_lock(self, tier: str, scope: Scope) -> Iterator[None]:
        with self._repo_lock(False), self._locked(self._lock_for(memory_path(tier, scope))):
            yield

    # -- write ------------------------------------------------------------------------

    def write(
        self,
        scope: Scope,
        entry: MemoryEntry | str,
        tier: str = "user",
        *,
        now: _dt.datetime | None = None,
        actor: str | None = None,
    ) -> WriteResult:
        """Append ``entry`` to the scope's concept for the UTC day, then commit it."""
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        text = entry.text if isinstance(entry, MemoryEntry) else entry
        problem = write_problem(tier, scope) if isinstance(tier, str) else f"tier must be a string, not {tier!r}"
        if problem:
            return WriteResult(False, problem, tier=tier)
        if tier not in self.tiers:
            return WriteResult(False, f"no memory is configured for the {tier} tier", tier=tier)
        if not isinstance(text, str) or not text.strip():
            return WriteResult(False, "nothing to remember: the entry text is empty", tier=tier)
        if len(text) > MAX_ENTRY_CHARS:
            return WriteResult(False, f"entry is longer than {MAX_ENTRY_CHARS} characters", tier=tier)
        now = now or utcnow()
        try:
            day = utc_day(now)
        except ValueError as exc:  # a pinned day that is no date (io/clock says which)
            return WriteResult(False, str(exc), tier=tier)
        key = scope_key(tier, scope)
        result = WriteResult(False, tier=tier, scope_key=key, path=f"{key}/{day}.md")
        try:
            ids, commit, error = self._append(tier, scope, [(text, now, day)], actor, None)
        except OSError as exc:
            result.error = f"could not write memory {result.path}: {exc.strerror or exc}"
            return result
        if not ids:
            result.error = error
            return result
        result.written = True
        result.id = ids[0]
        result.commit = commit
        result.error = error
        return result

    def write_many(
        self,
        scope: Scope,
        items: list[tuple[str, _dt.datetime]],
        tier: str = "user",
        *,
        actor: str | None = None,
        what: str | None = None,
    ) -> tuple[list[str], str | None, str | None]:
        """Append many entries under one lock, one write per day file and one history
        commit: ``(entry ids, commit, error)``.  Texts are checked as :meth:`write` does
        (an unacceptable one is an error and nothing is written)."""
        problem = write_problem(tier, scope) if isinstance(tier, str) else f"tier must be a string, not {tier!r}"
        if problem:
            return [], None, problem
        if tier not in self.tiers:
            return [], None, f"no memory is configured for the {tier} tier"
        rows = []
        for text, when in items:
            if not isinstance(text, str) or not text.strip():
                return [], None, "nothing to remember: the entry text is empty"
            if len(text) > MAX_ENTRY_CHARS:
                return [], None, f"entry is longer than {MAX_ENTRY_CHARS} characters"
            rows.append((text, when, when.astimezone(_dt.timezone.utc).date().isoformat()))
        if not rows:
            return [], None, None
        return self._append(tier, scope, rows, actor, what)

    def _append(self, tier: str, scope: Scope, rows: list[tuple[str, _dt.datetime, str]], actor: str | None,
                what: str | None) -> tuple[list[str], str | None, str | None]:
        """Append ``(text, time, day)`` rows in place, each day file by one fsync'd
        ``O_APPEND`` write (a new day file by an atomic create), update the index, then
        commit once.  The cost does not depend on how many entries the scope holds."""
        key = scope_key(tier, scope)
        directory = self.scope_dir(tier, scope)
        by_day: dict[str, list[tuple[str, _dt.datetime]]] = {}
        order: dict[str, list[int]] = {}  # day -> input positions
        for pos, (text, when, day) in enumerate(rows):
            by_day.setdefault(day, []).append((text, when))
            order.setdefault(day, []).append(pos)
        for day in by_day:
            problem = self._link_problem(directory / f"{day}.md")
            if problem:
                return [], None, f"refusing to write memory: {problem}"
        with self._scope_lock(tier, scope):
            for day in by_day:  # again, now that we hold the lock
                problem = self._link_problem(directory / f"{day}.md")
                if problem:
                    return [], None, f"refusing to write memory: {problem}"
            directory.mkdir(parents=True, exist_ok=True)
            for day in by_day:
                problem = self._link_problem(directory / f"{day}.md")
                if problem:
                    return [], None, f"refusing to write memory: {problem}"
            idx = self._index_for_write(tier, scope)
            try:
                ids: list[str] = []
                placed: list[tuple[int, str]] = []
                noted = []
                blobs: dict[str, bytes] = {}
                first = None
                for day in sorted(by_day):
                    got = self._append_day(directory, key, day, by_day[day])
                    if isinstance(got, str):
                        if ids:  # earlier days landed: commit them, report this one
                            break
                        return [], None, got
                    name, before, after, count, secs, data = got
                    noted.append((name, before, after, count, secs))
                    blobs[name] = data
                    placed.extend(zip(order[day], (f"{key}/{day}#{count + i}" for i in range(1, len(secs) + 1))))
                    ids = [i for _, i in sorted(placed)]  # in input order
                    first = first or f"{day}#{count + 1}"
                error = got if isinstance(got, str) else None
                if idx is not None:
                    try:
                        idx.note_appends(noted)
                    except Exception:  # noqa: BLE001 - the index is rebuilt by the next reader
                        from okfpro.memory.index import remove

                        idx.close()
                        remove(idx.path)
            finally:
                if idx is not None:
                    idx.close()
            commit = None
            if self.history is not None:
                summary = what or (f"remember {first}" if len(ids) == 1 else f"remember {len(ids)} entries")
                try:
                    commit = self.history.record_files(tier, scope, blobs, summary, len(ids), actor,
                                                        utcnow() if what else rows[-1][1])
                except Exception as exc:  # noqa: BLE001 - reported as data
                    error = "; ".join(x for x in (error, f"written, but the history commit failed: {exc}") if x)
        return ids, commit, error

    def _index_for_write(self, tier: str, scope: Scope):
        """The scope's index, opened under the held lock (None: it will be rebuilt later)."""
        if os.environ.get("OKFPRO_MEMORY_INDEX") == "off":
            return None
        from okfpro.memory.index import IndexUnavailable, ScopeIndex

        try:
            return ScopeIndex.open(self, tier, scope, held=True, create=True)
        except IndexUnavailable:
            return None

    def _append_day(self, directory: Path, key: str, day: str, items: list[tuple[str, _dt.datetime]]):
        """Append ``items`` to one day file; the data for the index and the commit, or why not."""
        from okfpro.memory.index import Section, fingerprint

        target = directory / f"{day}.md"
        rel = f"{key}/{day}.md"
        rendered = [render_section(text, when) for text, when in items]
        secs_text = [sections(r)[0] for r in rendered]
        try:
            fd = os.open(str(target), os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK)
        except IsADirectoryError:
            return f"refusing to write memory: {rel} is not a regular file"
        except FileNotFoundError:
            head = (frontmatter(day, items[0][1], TOOL) + "\n").encode("utf-8")
            chunks = [r.encode("utf-8") for r in rendered]
            data = head + b"\n".join(chunks)
            atomic_write(target, data)
            secs, at = [], len(head)
            for (clock, text), chunk in zip(secs_text, chunks):
                secs.append(Section(clock, text, at, at + len(chunk)))
                at += len(chunk) + 1
            return target.name, None, fingerprint(os.lstat(target)), 0, secs, data
        with os.fdopen(fd, "r+b") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode):
                return f"refusing to write memory: {rel} is not a regular file"
            if st.st_nlink > 1:
                return f"refusing to write memory: {rel} has {st.st_nlink - 1} other hard link(s)"
            raw = handle.read()
            try:
                head, body = split_concept(raw)
            except MalformedConcept as exc:
                return f"refusing to append to malformed {rel}: {exc}; the file was left untouched"
            count = len(sections(body))
            sep = b"\n" if raw.endswith(b"\n") else b"\n\n"
            payload = bytearray()
            secs = []
            for (clock, text), r in zip(secs_text, rendered):
                payload += sep
                start = len(raw) + len(payload)
                payload += r.encode("utf-8")
                secs.append(Section(clock, text, start, len(raw) + len(payload)))
                sep = b"\n"
            try:
                done = os.write(handle.fileno(), bytes(payload))
                if done != len(payload):
                    raise OSError(28, "short write (disk full?)")
                os.fsync(handle.fileno())
            except OSError:
                os.ftruncate(handle.fileno(), st.st_size)  # nothing half-written stays
                raise
            after = fingerprint(os.fstat(handle.fileno()))
        return target.name, fingerprint(st), after, count, secs, raw + bytes(payload)

    # -- read / enumerate ---------------------------------------------------------------

    def _tier_entries(self, tier: str, scope: Scope, diags: list[Diagnostic]) -> list[StoredEntry]:
        directory = self.scope_dir(tier, scope)
        source = f"memory:{tier}"
        problem = self._link_problem(directory)
        if problem:
            diags.append(Diagnostic("SourceUnavailable", source, f"{problem}; refusing to read"))
            return []
        try:
            names = sorted(os.listdir(directory))
        except FileNotFoundError:
            return []
        except OSError as exc:
            diags.append(Diagnostic("SourceUnavailable", source, f"cannot list {directory}: {exc.strerror}"))
            return []
        key = scope_key(tier, scope)
        out: list[StoredEntry] = []
        for name in names:
            m = DAY_RE.match(name)
            if not m:
                continue
            day = m.group(1)
            path = directory / name
            try:
                raw, _ = read_day_file(path)
                _, body = split_concept(raw)
            except (OSError, MalformedConcept) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                diags.append(Diagnostic("SourceUnavailable", source, f"{key}/{name} could not be loaded: {why}"))
                continue
            for n, (clock, text) in enumerate(sections(body), start=1):
                out.append(
                    StoredEntry(
                        tier=tier,
                        id=f"{key}/{day}#{n}",
                        concept_id=f"{key}/{day}",
                        date=day,
                        time=clock,
                        title=title(text),
                        text=text,
                        path=f"{key}/{name}",
                        seq=n,
                    )
                )
        return out

    def read(self, scope: Scope, query: str, limit: int | None = None) -> ReadResult:
        """Union of the scope's applicable tiers, session → user → agent → tenant, each
        ranked on its own (no re-ranking across tiers).  A blank query finds nothing."""
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        result = ReadResult()
        if not isinstance(query, str) or not query.strip():
            return result
        for tier in applicable_tiers(scope, self.tiers):
            room = None if limit is None else limit - len(result.passages)
            if room is not None and room <= 0:
                break  # tiers are not re-ranked: later tiers cannot displace earlier ones
            entries = self._tier_entries(tier, scope, result.diagnostics)
            result.entries.extend(entries)
            result.passages.extend(_rank(query, entries, room))
        return result

    def enumerate(self, scope: Scope) -> EnumerateResult:
        """Every entry stored for ``scope`` (applicable tiers only), oldest first per tier."""
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        result = EnumerateResult()
        for tier in applicable_tiers(scope, self.tiers):
            result.entries.extend(self._tier_entries(tier, scope, result.diagnostics))
        return result

    # -- history ----------------------------------------------------------------------

    def log(self, scope: Scope, tier: str | None = None, limit: int | None = None) -> LogResult:
        """The commits of the scope's refs (one tier, or every applicable tier)."""
        result = LogResult()
        if tier is not None:
            problem = write_problem(tier, scope)
            if problem:
                result.error = problem
                return result
            tiers = [tier]
        else:
            tiers = applicable_tiers(scope, self.tiers)
        if self.history is None or not self.history.exists():
            return result
        from .history import HistoryError

        try:
            with self._repo_lock(exclusive=False):
                for t in tiers:
                    try:
                        result.entries.extend(self.history.log(t, scope, limit))
                    except HistoryError as exc:  # one tier's ref is not its own: that tier is not shown
                        result.diagnostics.append(f"{t}: {exc}")
        except Exception as exc:  # noqa: BLE001 - reported as data
            result.error = f"could not read memory history: {exc}"
        return result

    # -- delete -----------------------------------------------------------------------

    def subtree(self, tier: str, scope: Scope) -> Subtree:
        return Subtree(tier, memory_path(tier, scope), history_ref(tier, scope), scope_key(tier, scope))

    def subject_subtrees(self, scope: Scope, tier: str | None = None) -> list[Subtree]:
        """What a data subject owns: the user tier, and every session of the user, whatever
        its session id — live directories and refs alike, so a session already cleaned at
        SessionEnd (its text still in history) is included.  ``tier`` narrows it to
        ``user`` or ``session``."""
        out: list[Subtree] = []
        if tier in (None, "user"):
            out.append(self.subtree("user", scope))
        if tier in (None, "session"):
            probe = Scope(scope.tenant, scope.user, scope.agent, "x")
            base = memory_path("session", probe).rsplit("/", 1)[0]
            ref_base = history_ref("session", probe).rsplit("/", 1)[0] + "/"
            names: set[str] = set()
            directory = self.root.joinpath(*base.split("/"))
            if self._link_problem(directory) is None:
                try:
                    names.update(os.listdir(directory))
                except (FileNotFoundError, NotADirectoryError):
                    pass
            if self.history is not None:
                names.update(ref[len(ref_base):] for ref in self.history.refs_under(ref_base))
            for name in sorted(names):
                if "/" in name or name.startswith("."):
                    continue
                out.append(Subtree("session", f"{base}/{name}", ref_base + name.replace("..", ".-."), f"{base}/{name}"))
        return out

    def forget(self, scope: Scope, config, tier: str | None = None, purge: bool = False,
               actor: str | None = None) -> DeleteResult:
        """The one erasure policy, for every door (CLI, MCP): without ``tier`` or with
        ``user`` / ``session``, what the data subject owns (:meth:`erase_subject`); the
        shared ``tenant`` / ``agent`` tiers only for a maintainer that ``config`` names
        (``[memory.maintainers]``, see :func:`okfpro.io.identity.maintainer_problem`)."""
        if tier in ("tenant", "agent"):
            from okfpro.io.identity import maintainer_problem

            problem = maintainer_problem(scope, config, tier)
            if problem is not None:
                return DeleteResult(purged=purge, error=f"refusing to forget the shared {tier} tier: {problem}")
            return self.delete_scope(scope, tier, purge, actor=actor)
        return self.erase_subject(scope, tier, purge, actor=actor)

    def erase_subject(self, scope: Scope, tier: str | None = None, purge: bool = False, actor: str | None = None,
                      now: _dt.datetime | None = None) -> DeleteResult:
        """A data subject's erasure: :meth:`subject_subtrees` (user tier and every session
        of the user), never a shared tier."""
        if tier not in (None, "user", "session"):
            return DeleteResult(purged=purge, error=f"the {tier} tier is shared: it is not a data subject's to erase")
        try:
            subtrees = self.subject_subtrees(scope, tier)
        except Exception as exc:  # noqa: BLE001 - reported as data
            return DeleteResult(purged=purge, error=f"could not enumerate the scope's memory: {exc}")
        return self._delete(subtrees, purge, now or utcnow(), actor, self._trailers(scope, actor))

    def delete_scope(
        self,
        scope: Scope,
        tier: str | None = None,
        purge: bool = False,
        *,
        now: _dt.datetime | None = None,
        actor: str | None = None,
    ) -> DeleteResult:
        """Remove the scope's subtree in ``tier`` (or every applicable tier).

        Without ``purge`` the removal is a commit (history kept for audit).  With it,
        the files and the scope's ref go, reflogs expire, unreachable objects are
        pruned, and every object left is checked for the erased entries.  Who may erase
        what is the caller's decision (see :meth:`erase_subject` and the CLI).
        """
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        if tier is not None:
            problem = write_problem(tier, scope)
            if problem:
                return DeleteResult(purged=purge, error=problem)
            if tier not in self.tiers:
                return DeleteResult(purged=purge, error=f"no memory is configured for the {tier} tier")
            tiers = [tier]
        else:
            tiers = applicable_tiers(scope, self.tiers)
        subtrees = [self.subtree(t, scope) for t in tiers]
        return self._delete(subtrees, purge, now or utcnow(), actor, self._trailers(scope, actor))

    @staticmethod
    def _trailers(scope: Scope, actor: str | None) -> dict[str, str | None]:
        return {"Agent": scope.agent, "Actor": actor}

    def _delete(self, subtrees: list[Subtree], purge: bool, now: _dt.datetime, actor: str | None,
                trailers: dict[str, str | None]) -> DeleteResult:
        result = DeleteResult(purged=purge)
        if purge:
            return self._purge(subtrees, result)
        errors: list[str] = []
        for sub in subtrees:
            try:
                err, deleted, commit = self._forget_subtree(sub, now, actor, trailers)
            except Exception as exc:  # noqa: BLE001 - reported as data
                err, deleted, commit = f"{sub.tier}: {exc}", 0, None
            if err:
                errors.append(err)
            result.tiers_deleted += deleted
            if commit:
                result.commits[sub.prefix if sub.tier == "session" else sub.tier] = commit
        result.error = "; ".join(errors) if errors else None
        return result

    def _forget_subtree(self, sub: Subtree, now: _dt.datetime, actor: str | None, trailers):
        directory = self.root.joinpath(*sub.prefix.split("/"))
        problem = self._link_problem(directory)
        if problem:
            return f"{sub.tier}: {problem}; refusing to delete", 0, None
        with self._repo_lock(exclusive=False), self._locked(self._lock_for(sub.prefix)):
            problem = self._link_problem(directory)
            if problem:
                return f"{sub.tier}: {problem}; refusing to delete", 0, None
            existed = directory.is_dir()
            if existed:
                shutil.rmtree(directory)
                self._prune_empty_parents(directory)
            from okfpro.memory.index import erase_key

            erase_key(self.root, sub.key)
            commit = None
            if self.history is not None:
                commit = self.history.record_delete_ref(sub.tier, sub.ref, sub.key, trailers, actor, now)
            return None, int(existed or commit is not None), commit

    def _purge(self, subtrees: list[Subtree], result: DeleteResult) -> DeleteResult:
        """Hard erasure of ``subtrees``: files and refs first, then one collection for all,
        then every object left is searched for every erased entry."""
        errors: list[str] = []
        needles: set[bytes] = set()
        try:
            with self._repo_lock(exclusive=True):
                for sub in subtrees:
                    directory = self.root.joinpath(*sub.prefix.split("/"))
                    with self._locked(self._lock_for(sub.prefix)):
                        problem = self._link_problem(directory)
                        if problem:
                            errors.append(f"{sub.tier}: {problem}; refusing to delete")
                            continue
                        if self.history is not None:
                            needles.update(self.history.erased_needles(sub.ref, stored_sections))
                        existed = directory.is_dir()
                        if existed:
                            for path in sorted(directory.iterdir()):
                                st = os.lstat(path)
                                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                                    errors.append(f"{sub.tier}: {path.name} has {st.st_nlink - 1} other hard "
                                                  "link(s): its content outlives this erasure")
                                elif stat.S_ISREG(st.st_mode):
                                    text = path.read_bytes().decode("utf-8", "replace")
                                    needles.update(x.encode("utf-8") for x in stored_sections(text))
                            shutil.rmtree(directory)
                            self._prune_empty_parents(directory)
                        from okfpro.memory.index import erase_key

                        erase_key(self.root, sub.key)
                        dropped = self.history.drop_ref(sub.ref) if self.history is not None else False
                        result.tiers_deleted += int(existed or dropped)
                left = self._erase_from_indexes(needles)
                if left:
                    errors.append(f"{len(left)} memory index file(s) still hold erased text: {', '.join(left)}")
                if self.history is not None:
                    report = self.history.collect(sorted(needles))
                    result.residual = report.residual
                    result.shared = report.shared
                    unshared = [oid for oid in report.residual if oid not in set(report.shared)]
                    if report.error:
                        errors.append(f"purge incomplete: {report.error}")
                    elif unshared:
                        errors.append(f"{len(unshared)} unreferenced object(s) still hold erased text")
        except Exception as exc:  # noqa: BLE001 - reported as data
            errors.append(f"purge failed: {exc}")
        result.error = "; ".join(errors) if errors else None
        result.verified = result.error is None and not result.residual
        return result

    def _erase_from_indexes(self, needles: set[bytes]) -> list[str]:
        """The erasure proof over the memory indexes: every index file (database, journal,
        WAL) that holds an erased entry's text is deleted (indexes are rebuilt from the
        files on the next read), then the files are scanned again; returns what still holds one."""
        from okfpro.memory.index import remove, scan_for

        texts: set[bytes] = set()
        for needle in needles:
            for _clock, text in sections(needle.decode("utf-8", "replace")):
                if text.strip():
                    texts.add(text.encode("utf-8"))
        for path in scan_for(self.root, texts):
            base = str(path)
            for suffix in ("-journal", "-wal", "-shm"):
                if base.endswith(suffix):
                    base = base[: -len(suffix)]
            remove(Path(base))
        return [p.name for p in scan_for(self.root, texts)]

    def _prune_empty_parents(self, directory: Path) -> None:
        here = directory.parent
        while here != self.root and here.is_relative_to(self.root):
            try:
                here.rmdir()
            except OSError:
                return
            here = here.parent
