"""The scoped memory store: write, read and enumerate one scope's memory.

Layout under the memory root (outside the knowledge bundle)::

    memory-<tier>/<encoded scope segments>/<YYYY-MM-DD>.md   one OKF concept per UTC day
    .okf-history.git/                                          per-scope history (history.py)
    .okf-index/                                                the recall index (index.py)
    .okf-locks/                                                cross-process lock files

Each write appends sections to the day's concept in place (one fsync'd write per day file,
marked as in progress until whole: :data:`okfpro.core.dayfile.APPENDING`; a new day file by an
atomic create with OKF frontmatter), under the
scope's cross-process lock, updates the scope's index, then records one commit on the
scope's own ref.  Symlinks between the memory root and the target are refused, before
taking the lock and again inside it.  Erasure (forget / purge) is the mixin
:class:`okfpro.memory.erase.Erasure`; the entry and result types and the index-free
reading live in :mod:`okfpro.memory.entries` (re-exported here).

Every data problem comes back as data (``written=False`` / ``error`` / diagnostics);
only programming errors (a non-Scope, a bug) raise.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import stat
from hashlib import sha256
from okfpro.core.scope import (
    TIERS,
    Scope,
    applicable_tiers,
    check_tier,
    memory_path,
    scope_key,
    write_problem,
)
from okfpro.core.dayfile import (
    APPENDING,
    MalformedConcept,
    frontmatter,
    interrupted_at,
    render_section,
    sections,
    split_concept,
)
from okfpro.io.atomic import atomic_write
from okfpro.io.clock import utc_day, utcnow
from okfpro.memory.entries import (  # noqa: F401 - the store's types, re-exported
    DeleteResult,
    Diagnostic,
    EnumerateResult,
    LogResult,
    MemoryEntry,
    Passage,
    ReadResult,
    Section,
    StoredEntry,
    Subtree,
    WriteResult,
    fingerprint,
    prefix_entries,
    tier_entries,
)
from okfpro.memory.erase import Erasure
from okfpro.memory.layout import (
    LOCK_DIR,
    TOOL,
    contained_lock,
    ensure_ignored,
    link_problem,
    resolve_memory_root,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from pathlib import Path
    from typing import Iterator

MAX_ENTRY_CHARS = 64 * 1024


_PASSED: dict[str, None] = {}  # the gate's latest outputs, oldest first (a caller that ran it hands them on)
_PASSED_KEEP = 64


def admit(text: object) -> tuple[str, list[tuple[str, int]], str | None, str | None]:
    """The one gate every entry passes, whatever wrote it (remember, capture, import, a policy
    record, an API caller): ``(text as the store keeps it, redactions by rule, the refusal's rule,
    why nothing is kept)``.  Not empty, not over :data:`MAX_ENTRY_CHARS`, valid Unicode (no lone
    surrogate), and through the capture safety layer (:func:`okfpro.core.sanitise.sanitise`:
    credential files and shell output refused, secrets redacted).  Its output passes it unchanged
    (redaction is idempotent), so the last few outputs are remembered and a caller that ran the
    gate to report what it redacted (the Stop capture) does not pay for it twice."""
    if isinstance(text, str) and text in _PASSED:
        return text, [], None, None
    if not isinstance(text, str) or not text.strip():
        return "", [], None, "nothing to remember: the entry text is empty"
    if len(text) > MAX_ENTRY_CHARS:
        return "", [], None, f"entry is longer than {MAX_ENTRY_CHARS} characters"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "", [], None, "refusing to write memory: the entry is not valid Unicode (a lone surrogate)"
    from okfpro.core.sanitise import sanitise

    head, body = _policy_head(text)
    clean = sanitise(body)
    if clean.refused:
        return "", [], clean.refused, f"refusing to write memory: the entry holds {clean.refused}"
    if not clean.text.strip() and not head:
        return "", [], None, "nothing to remember: the entry text is empty"
    clean.text = head + clean.text
    _PASSED[clean.text] = None
    while len(_PASSED) > _PASSED_KEEP:
        del _PASSED[next(iter(_PASSED))]
    return clean.text, clean.findings, None, None


def _policy_head(text: str) -> tuple[str, str]:
    """``(head, rest)``: a policy record's frontmatter as :func:`okfpro.core.mempolicy.render`
    writes it, when every line of it is one of its own fields holding an id, a word of its
    vocabulary, a date or the policy version (so no text hides there), and the rest; else
    ``("", text)``.  The gate then reads only the rest (the head cost more than the memory text)."""
    if not text.startswith("---\n"):
        return "", text
    end = text.find("\n---\n", 3)
    if end < 0 or end > 2000:
        return "", text
    lines = text[4:end].split("\n")
    import re

    pattern = _head_line()
    for line in lines:
        if not re.fullmatch(pattern, line):
            return "", text
    return text[:end + 5], text[end + 5:]


def _head_line() -> str:
    from okfpro.core import mempolicy as mp

    def one_of(words: tuple[str, ...]) -> str:
        return "(?:" + "|".join(words) + ")"

    return (r"(?:memory|target): m-[0-9a-f]{12}|- m-[0-9a-f]{12}|(?:supersedes|related):"
            f"|change: {one_of(mp.CHANGES)}|kind: {one_of(mp.KINDS)}|status: {one_of(mp.STATUSES)}"
            f"|confidence: {one_of(mp.CONFIDENCE)}|visibility: {one_of(mp.VISIBILITY)}|source: {one_of(mp.SOURCES)}"
            r"|(?:created|valid_until|review_at): '?\d{4}-\d{2}-\d{2}'?|policy_version: '?\d{1,3}'?")


def admitted(text: object) -> tuple[str, str | None]:
    """``text`` as the store keeps it, or why it keeps nothing (:func:`admit`)."""
    kept, _found, _rule, problem = admit(text)
    return kept, problem


# ---------------------------------------------------------------------------- the store


class MemoryStore(Erasure):
    """Scoped memory under ``root``; ``tiers`` = the configured tiers (default all four).

    ``base`` is the memory root as an absolute path string, what every write and read path
    uses; :attr:`root` is the same as a ``Path``, built on first use (``pathlib`` imports
    ``urllib.parse`` and ``ipaddress``, which a capturing Stop has no other use for)."""

    def __init__(self, root: str | os.PathLike, tiers: tuple[str, ...] | list[str] = TIERS, history: bool = True) -> None:
        self.base = os.path.abspath(root)
        self._root: Path | None = None
        self.tiers = tuple(check_tier(t) for t in tiers)
        self._with_history = history
        self._history = None
        self._root_ready = False

    @property
    def root(self) -> Path:
        if self._root is None:
            from pathlib import Path

            self._root = Path(self.base)
        return self._root

    @property
    def history(self):
        """The per-scope Git history (``okfpro.memory.history.History``), or ``None``.

        Imported on first use, so reading memory never loads pygit2."""
        if not self._with_history:
            return None
        if self._history is None:
            from .history import History

            self._history = History(self.base)
        return self._history

    @classmethod
    def for_workspace(cls, workspace: str | os.PathLike, config=None) -> tuple["MemoryStore | None", str | None]:
        """The workspace's store, or why there is none; ``config``: okfpro.toml already read by the caller."""
        from okfpro.io import config as config_mod

        try:
            cfg = config if config is not None else config_mod.load(workspace)
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

    def scope_dir(self, tier: str, scope: Scope) -> str:
        return os.path.join(self.base, *memory_path(tier, scope).split("/"))

    def _link_problem(self, target: str | os.PathLike[str]) -> str | None:
        return link_problem(self.base, target)

    def _lock_for(self, prefix: str) -> str:
        digest = sha256(prefix.encode()).hexdigest()[:32]
        return os.path.join(self.base, LOCK_DIR, f"{digest}.lock")

    @contextlib.contextmanager
    def _locked(self, path: str, shared: bool = False) -> Iterator[None]:
        """``locked(path)`` once no component from the root down (the lock directory, the
        lock file) is a symbolic link: a lock is never taken, nor a file created, outside
        the memory root."""
        with contained_lock(self.base, path, shared=shared):
            yield

    @contextlib.contextmanager
    def _repo_lock(self, exclusive: bool) -> Iterator[None]:
        """Writers share it; a purge (which prunes objects) takes it alone."""
        if not self._root_ready:
            ensure_ignored(self.base)
            self._root_ready = True
        with self._locked(os.path.join(self.base, LOCK_DIR, "repository.lock"), shared=not exclusive):
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
        text, problem = admitted(text)
        if problem:
            return WriteResult(False, problem, tier=tier)
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
        from okfpro.io.progress import bar

        rows = []
        gate = bar(len(items), "the safety layer")
        for n, (text, when) in enumerate(items, 1):
            gate.tick(n)
            text, problem = admitted(text)
            if problem:
                return [], None, problem
            rows.append((text, when, when.astimezone(_dt.timezone.utc).date().isoformat()))
        if not rows:
            return [], None, None
        return self._append(tier, scope, rows, actor, what)

    def _append(self, tier: str, scope: Scope, rows: list[tuple[str, _dt.datetime, str]], actor: str | None,
                what: str | None) -> tuple[list[str], str | None, str | None]:
        """Append ``(text, time, day)`` rows in place, each day file by one fsync'd write
        (a new day file by an atomic create), update the index, then
        commit once.  The cost does not depend on how many entries the scope holds."""
        key = scope_key(tier, scope)
        directory = self.scope_dir(tier, scope)
        by_day: dict[str, list[tuple[str, _dt.datetime]]] = {}
        order: dict[str, list[int]] = {}  # day -> input positions
        for pos, (text, when, day) in enumerate(rows):
            by_day.setdefault(day, []).append((text, when))
            order.setdefault(day, []).append(pos)
        for day in by_day:
            problem = self._link_problem(os.path.join(directory, f"{day}.md"))
            if problem:
                return [], None, f"refusing to write memory: {problem}"
        with self._scope_lock(tier, scope):
            for day in by_day:  # again, now that we hold the lock
                problem = self._link_problem(os.path.join(directory, f"{day}.md"))
                if problem:
                    return [], None, f"refusing to write memory: {problem}"
            os.makedirs(directory, exist_ok=True)
            for day in by_day:
                problem = self._link_problem(os.path.join(directory, f"{day}.md"))
                if problem:
                    return [], None, f"refusing to write memory: {problem}"
            idx = self._index_for_write(tier, scope)
            try:
                ids: list[str] = []
                placed: list[tuple[int, str]] = []
                noted = []
                blobs: dict[str, bytes] = {}
                first = None
                from okfpro.io.progress import bar

                writing = bar(len(by_day), "writing day files")
                for n, day in enumerate(sorted(by_day), 1):
                    writing.tick(n)
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
                        from okfpro.memory.indexfiles import remove

                        idx.close()
                        remove(idx.path)
            finally:
                if idx is not None:
                    idx.close()
            commit = None
            if self.history is not None:
                bar(0, "recording the history")
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

    def _append_day(self, directory: str, key: str, day: str, items: list[tuple[str, _dt.datetime]]):
        """Append ``items`` to one day file; the data for the index and the commit, or why not."""
        name = f"{day}.md"
        target = os.path.join(directory, name)
        rel = f"{key}/{day}.md"
        rendered = [render_section(text, when) for text, when in items]
        secs_text = [sections(r)[0] for r in rendered]
        try:
            fd = os.open(target, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
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
            return name, None, fingerprint(os.lstat(target)), 0, secs, data
        with os.fdopen(fd, "r+b") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode):
                return f"refusing to write memory: {rel} is not a regular file"
            if st.st_nlink > 1:
                return f"refusing to write memory: {rel} has {st.st_nlink - 1} other hard link(s)"
            raw = handle.read()
            cut = interrupted_at(raw)
            if cut is not None:  # a writer killed mid-append: what it left was never written
                os.ftruncate(handle.fileno(), cut)
                raw = raw[:cut]
                st = os.fstat(handle.fileno())
            try:
                _, body = split_concept(raw)
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
                # marked as in progress until whole (core/dayfile.APPENDING): a kill in between
                # leaves a tail every reader and the next writer stop before, never a torn entry
                done = os.pwrite(handle.fileno(), APPENDING + bytes(payload[1:]), len(raw))
                if done != len(payload) or os.pwrite(handle.fileno(), bytes(payload[:1]), len(raw)) != 1:
                    raise OSError(28, "short write (disk full?)")
                os.fsync(handle.fileno())
            except OSError:
                os.ftruncate(handle.fileno(), st.st_size)  # nothing half-written stays
                raise
            after = fingerprint(os.fstat(handle.fileno()))
        return name, fingerprint(st), after, count, secs, raw + bytes(payload)

    # -- read / enumerate ---------------------------------------------------------------

    def _tier_entries(self, tier: str, scope: Scope, diags: list[Diagnostic]) -> list[StoredEntry]:
        return tier_entries(self.base, tier, scope, diags)

    def read(self, scope: Scope, query: str, limit: int | None = None) -> ReadResult:
        """Recall as every door does it (:func:`okfpro.memory.index.recall`: the applicable
        tiers, most specific first, the policy before the order and the limit), as passages."""
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        from okfpro.memory.index import recall

        hits, diags = recall(self, scope, query, utc_day(utcnow()), limit=limit)
        return ReadResult([h.passage(query) for h in hits], diags)

    def enumerate(self, scope: Scope) -> EnumerateResult:
        """Every entry stored for ``scope`` (applicable tiers only), oldest first per tier."""
        if not isinstance(scope, Scope):
            raise TypeError("scope must be an okfpro.core.scope.Scope")
        result = EnumerateResult()
        for tier in applicable_tiers(scope, self.tiers):
            result.entries.extend(self._tier_entries(tier, scope, result.diagnostics))
        return result

    # -- history ----------------------------------------------------------------------

    def readable_subtrees(self, scope: Scope, session: str | None = None) -> list[Subtree]:
        """What the identity of ``scope`` may read, in read order: every session of the user
        (under whatever session id, as erasure sees them), its user tier, then the applicable
        shared tiers (agent, tenant).  ``session``: that one session of the user only."""
        if session is not None:
            probe = Scope(scope.tenant, scope.user, scope.agent, session)
            return [self.subtree("session", probe)] if "session" in self.tiers else []
        out = self.subject_subtrees(scope, "session") if "session" in self.tiers else []
        out += [self.subtree(t, scope) for t in applicable_tiers(scope, self.tiers) if t != "session"]
        return out

    def enumerate_readable(self, scope: Scope, session: str | None = None) -> EnumerateResult:
        """Every entry of :meth:`readable_subtrees`, oldest first per subtree (``memory list``)."""
        result = EnumerateResult()
        for sub in self.readable_subtrees(scope, session):
            result.entries.extend(prefix_entries(self.base, sub.tier, sub.prefix, result.diagnostics))
        return result

    def log(self, scope: Scope, tier: str | None = None, limit: int | None = None,
            session: str | None = None) -> LogResult:
        """The commits of every ref :meth:`readable_subtrees` names (``tier``: that tier's only;
        ``session``: that session's only), newest first per ref."""
        result = LogResult()
        if tier is not None:
            problem = write_problem(tier, scope) if tier != "session" else None
            if problem:
                result.error = problem
                return result
        subtrees = [s for s in self.readable_subtrees(scope, session) if tier is None or s.tier == tier]
        if self.history is None or not self.history.exists():
            return result
        from .history import HistoryError

        try:
            with self._repo_lock(exclusive=False):
                for sub in subtrees:
                    try:
                        result.entries.extend(self.history.log_ref(sub.tier, sub.ref, sub.key, limit))
                    except HistoryError as exc:  # one ref is not its own: that subtree is not shown
                        result.diagnostics.append(f"{sub.tier}: {exc}")
        except Exception as exc:  # noqa: BLE001 - reported as data
            result.error = f"could not read memory history: {exc}"
        return result

