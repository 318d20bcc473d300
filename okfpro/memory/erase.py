"""Erasure of scoped memory: forget (a commit that removes the files, history kept for
audit) and purge (files, refs, reflogs and unreachable objects gone, then every object
and every memory index file searched for the erased text: the proof).

Who may erase what is decided here once for every door (CLI, MCP, hooks):
:meth:`Erasure.forget` erases what a data subject owns (the user tier and every session
of the user, :meth:`Erasure.subject_subtrees`), the shared tenant / agent tiers only for a
maintainer that the configuration names.

:class:`Erasure` is a mixin of :class:`okfpro.memory.store.MemoryStore` (it uses the
store's root, tiers, history and locks); split out of store.py so each module holds one
idea.  The public methods (``forget``, ``erase_subject``, ``delete_scope``,
``subject_subtrees``, ``subtree``) are the store's, unchanged.
"""

from __future__ import annotations

import datetime as _dt
import os
import stat
import time
from contextlib import AbstractContextManager

from okfpro.core.dayfile import sections, stored_sections
from okfpro.core.scope import Scope, applicable_tiers, history_ref, memory_path, scope_key, write_problem
from okfpro.io import dbfiles
from okfpro.io.clock import utcnow
from okfpro.memory.entries import DeleteResult, Subtree
from okfpro.memory.indexfiles import erase_key, remove, scan_for

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from pathlib import Path  # erasure is rare: it walks ``root`` (the store's Path) as it is
    from typing import Any


class Erasure:
    """Forget and purge, for :class:`~okfpro.memory.store.MemoryStore`."""

    # what the store provides (declared for the type checker; MemoryStore defines them)
    base: str
    tiers: tuple[str, ...]

    if TYPE_CHECKING:
        @property
        def root(self) -> Path: ...

        @property
        def history(self) -> Any: ...

        def _link_problem(self, target: str | os.PathLike[str]) -> str | None: ...

        def _lock_for(self, prefix: str) -> str: ...

        def _locked(self, path: str, shared: bool = False) -> AbstractContextManager[None]: ...

        def _repo_lock(self, exclusive: bool) -> AbstractContextManager[None]: ...

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
               actor: str | None = None, surface: str | None = None) -> DeleteResult:
        """The one erasure policy, for every door (CLI, MCP): without ``tier`` or with
        ``user`` / ``session``, what the data subject owns (:meth:`erase_subject`); the
        shared ``tenant`` / ``agent`` tiers only for a maintainer that ``config`` names
        (``[memory.maintainers]``, see :func:`okfpro.io.identity.maintainer_problem`).
        Every call, refused or done, writes one content-free audit event (``delete`` or
        ``purge``), so erasure is audited whichever door it came through."""
        start = time.perf_counter()
        refused = False
        if tier in ("tenant", "agent"):
            from okfpro.io.identity import maintainer_problem

            problem = maintainer_problem(scope, config, tier)
            if problem is not None:
                refused = True
                result = DeleteResult(purged=purge, error=f"refusing to forget the shared {tier} tier: {problem}")
            else:
                result = self.delete_scope(scope, tier, purge, actor=actor)
        else:
            result = self.erase_subject(scope, tier, purge, actor=actor)
        self.audit_erasure(scope, tier, purge, result, refused, surface, start)
        return result

    def audit_erasure(self, scope: Scope, tier: str | None, purge: bool, result: DeleteResult, refused: bool,
                      surface: str | None, start: float) -> None:
        """One ``delete`` / ``purge`` audit event (no text, no ids: the identity hash)."""
        from okfpro.io.identity import identity_hash
        from okfpro.memory import telemetry

        outcome = "refused" if refused else ("error" if result.error else ("ok" if result.tiers_deleted else "empty"))
        telemetry.record(self.root, "purge" if purge else "delete", identity_hash=identity_hash(scope),
                         tier=tier or "subject", outcome=outcome, accepted_count=result.tiers_deleted, surface=surface,
                         decision="verified" if purge and result.verified else None,
                         latency_ms=(time.perf_counter() - start) * 1000)

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
        return self._delete(subtrees, purge, now or utcnow(), actor, self._trailers(scope, actor), scope)

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
        return self._delete(subtrees, purge, now or utcnow(), actor, self._trailers(scope, actor), scope)

    @staticmethod
    def _trailers(scope: Scope, actor: str | None) -> dict[str, str | None]:
        return {"Agent": scope.agent, "Actor": actor}

    def _delete(self, subtrees: list[Subtree], purge: bool, now: _dt.datetime, actor: str | None,
                trailers: dict[str, str | None], scope: Scope | None = None) -> DeleteResult:
        result = DeleteResult(purged=purge)
        if purge:
            return self._purge(subtrees, result, scope, now)
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
                import shutil  # here: its compression modules are no cost of a remember

                shutil.rmtree(directory)
                self._prune_empty_parents(directory)
            erase_key(self.root, sub.key)
            commit = None
            if self.history is not None:
                commit = self.history.record_delete_ref(sub.tier, sub.ref, sub.key, trailers, actor, now)
            return None, int(existed or commit is not None), commit

    def _purge(self, subtrees: list[Subtree], result: DeleteResult, scope: Scope | None = None,
               now: _dt.datetime | None = None) -> DeleteResult:
        """Hard erasure of ``subtrees``: files and refs first, then one collection for all,
        then every object left is searched for every erased entry.  With the erasing
        ``scope``, each erased history leaves a local erasure record (a tombstone ref,
        :func:`okfpro.memory.tombstone.record_erasure`): ids and a time, no text, which every
        later sync carries to its remote before fetching the scope."""
        errors: list[str] = []
        needles: set[bytes] = set()
        erased: list[Subtree] = []
        ids: dict[str, tuple[str, ...]] = {}
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
                            if scope is not None:
                                from okfpro.memory.tombstone import history_ids

                                ids[sub.ref] = history_ids(self.history.gitdir, sub.ref)
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
                            import shutil

                            shutil.rmtree(directory)
                            self._prune_empty_parents(directory)
                        erase_key(self.root, sub.key)
                        dropped = self.history.drop_ref(sub.ref) if self.history is not None else False
                        result.tiers_deleted += int(existed or dropped)
                        erased.append(sub)
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
                    if scope is not None and any(ids.get(sub.ref) for sub in erased):
                        self._record_erasure(erased, ids, scope, now or utcnow())
        except Exception as exc:  # noqa: BLE001 - reported as data
            errors.append(f"purge failed: {exc}")
        result.error = "; ".join(errors) if errors else None
        result.verified = result.error is None and not result.residual
        return result

    def _record_erasure(self, erased: list[Subtree], ids: dict[str, tuple[str, ...]], scope: Scope,
                        now: _dt.datetime) -> None:
        from okfpro.io.identity import identity_hash
        from okfpro.memory.remote import Target
        from okfpro.memory.tombstone import record_erasure

        repo = self.history.repo()
        who = identity_hash(scope)
        for sub in erased:
            if ids.get(sub.ref):
                record_erasure(repo, Target(sub.tier, sub.prefix, sub.key, sub.ref, ids[sub.ref]), now, who)

    def _erase_from_indexes(self, needles: set[bytes]) -> list[str]:
        """The erasure proof over the memory indexes: every index file (database, journal,
        WAL) that holds an erased entry's text is deleted (indexes are rebuilt from the
        files on the next read), then the files are scanned again; returns what still holds one."""
        texts: set[bytes] = set()
        for needle in needles:
            for _clock, text in sections(needle.decode("utf-8", "replace")):
                if text.strip():
                    texts.add(text.encode("utf-8"))
        for path in scan_for(self.root, texts):
            remove(dbfiles.database_of(path))
        return [os.path.basename(p) for p in scan_for(self.root, texts)]

    def _prune_empty_parents(self, directory: Path) -> None:
        here = directory.parent
        while here != self.root and here.is_relative_to(self.root):
            try:
                here.rmdir()
            except OSError:
                return
            here = here.parent
