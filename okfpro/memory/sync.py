"""``okfpro memory sync``: the identity's memory refs against a Git remote, merged without loss.

One round: list the remote's refs the identity may read (:class:`okfpro.memory.remote.Readable`),
apply new tombstones first (:mod:`okfpro.memory.tombstone`: a purged scope is dropped, never
pushed back), fetch each changed ref by its own refspec, then per scope, under the scope's
lock:

* same commit on both sides: nothing (no object is read: a sync with nothing new costs one
  ``ls-remote``);
* only the remote has it, or it is ahead: the local ref moves to it (the files and the index
  follow);
* only we have it, or we are ahead: it is pushed;
* both moved: the day files are merged (:func:`okfpro.core.daymerge.merge_files`, base = the
  merge base) into a merge commit (parents: ours, theirs), the files are rewritten and the
  scope's memory index dropped (rebuilt from them by the next reader), and it is pushed.

A push that is not a fast-forward any more (someone pushed meanwhile) is refused by Git;
that scope is fetched and merged again, up to :data:`ROUNDS` rounds.  The shared and user
tiers are pushed alike; whether a pusher may update a ref is the server's decision
(:mod:`okfpro.memory.serverhook`).  Local files that hold entries no commit recorded yet are
merged in as "ours", so a sync never drops them.
"""

from __future__ import annotations

import datetime as _dt
import sys
import time
from typing import TYPE_CHECKING

from okfpro.core.daymerge import MergeConflict, entry_count, merge_files
from okfpro.core.record import Value
from okfpro.core.scope import Scope
from okfpro.io.clock import utcnow
from okfpro.memory.layout import HISTORY_DIR
from okfpro.memory.remote import Caps, Readable, Remote, RemoteError, Target, TooLarge, redact, remember_remote, SAID

if TYPE_CHECKING:
    import pygit2

ROUNDS = 4


class SyncReport(Value):
    _fields = ("remote", "fetched", "fast_forwarded", "merged", "pushed", "tombstones", "refused", "error")
    remote: str
    fetched: list[str]  # scope keys
    fast_forwarded: list[str]
    merged: list[str]
    pushed: list[str]
    tombstones: list[dict]  # applied here
    refused: list[dict]  # {"scope", "why"}
    error: str | None

    def __init__(self, remote: str, fetched: list[str] | None = None, fast_forwarded: list[str] | None = None,
                 merged: list[str] | None = None, pushed: list[str] | None = None,
                 tombstones: list[dict] | None = None, refused: list[dict] | None = None, error: str | None = None) -> None:
        self.remote = remote
        self.fetched = [] if fetched is None else fetched
        self.fast_forwarded = [] if fast_forwarded is None else fast_forwarded
        self.merged = [] if merged is None else merged
        self.pushed = [] if pushed is None else pushed
        self.tombstones = [] if tombstones is None else tombstones
        self.refused = [] if refused is None else refused
        self.error = error

    @property
    def ok(self) -> bool:
        return self.error is None and not self.refused

    def to_json(self) -> dict:
        return {
            "remote": redact(self.remote),
            "ok": self.ok,
            "fetched": sorted(set(self.fetched)),
            "fast_forwarded": sorted(set(self.fast_forwarded)),
            "merged": sorted(set(self.merged)),
            "pushed": sorted(set(self.pushed)),
            "tombstones": self.tombstones,
            "refused": self.refused,
            "error": self.error,
        }


class Progress:
    """One stderr line a second once a sync has run for a second (``always``: from the start)."""

    def __init__(self, enabled: bool | None) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.enabled is False:
            return
        now = time.monotonic()
        if self.enabled is None and (now - self.start < 1.0 or (now - self.last < 1.0 and done != total)):
            return
        self.last = now
        print(f"okfpro memory sync: {what} {done}/{total}", file=sys.stderr, flush=True)


class Syncer:
    """One sync of ``store`` (a MemoryStore with history) for ``scope`` against ``url``."""

    def __init__(self, store, scope: Scope, url: str, progress: Progress | None = None, actor: str | None = None,
                 caps: Caps | None = None) -> None:
        self.store = store
        self.scope = scope
        self.readable = Readable(scope, store.tiers)
        self.remote = Remote(store.root / HISTORY_DIR, url)
        self.report = SyncReport(url)
        self.progress = progress or Progress(False)
        self.actor = actor or (scope.user or "local")
        self.caps = caps or Caps()  # what is read of the remote's objects, at most
        self.blocked: set[str] = set()  # refs a tombstone could not be applied to: left alone

    @property
    def history(self):
        return self.store.history  # loads pygit2: not on the nothing-new path

    # -- the round ----------------------------------------------------------------------

    def run(self) -> SyncReport:
        try:
            remote = self.remote.listing(self.readable)
            if remote == self.remote.local(self.readable):
                if (self.remote.gitdir / "HEAD").is_file():
                    remember_remote(self.remote.gitdir, self.remote.url)
                return self.report  # nothing new either way: one ls-remote, no object read, pygit2 not loaded
            import pygit2

            from okfpro.memory import tombstone
        except RemoteError as exc:
            self.report.error = str(exc).replace(self.remote.url, redact(self.remote.url))
            return self.report
        try:
            self.history.repo()  # created on first use, like a write does
            remember_remote(self.remote.gitdir, self.remote.url)  # a later purge erases there too
            if tombstone.carry(self, remote):  # erasures made here, before anything is fetched
                remote = self.remote.listing(self.readable)
            tombstone.apply_new(self, remote)
            pending = None
            for _ in range(ROUNDS):
                rejected, declined = self._round(remote, pending)
                if not rejected and not declined:
                    break
                remote = self.remote.listing(self.readable)
                # the server declined a push: if a tombstone arrived meanwhile (a purge raced
                # this sync), apply it and push what is left; else the refusal stands
                # (a declined push declines all its refs: retry them all once something was erased)
                erased = tombstone.apply_new(self, remote) if declined else set()
                erased |= tombstone.reroot_early(self, set(declined) - erased) if declined else set()
                if erased & set(declined):
                    rejected += list(declined)
                else:
                    for ref, why in sorted(declined.items()):
                        self._refuse(ref, f"push refused: {why}")
                pending = set(rejected)
                if not pending:
                    break
            else:
                for ref in sorted(pending or ()):
                    self._refuse(ref, "the remote kept moving; run sync again")
        except (RemoteError, pygit2.GitError, OSError) as exc:
            self.report.error = str(exc).replace(self.remote.url, redact(self.remote.url))
        finally:
            try:
                self.remote.drop_staged()
            except RemoteError:
                pass
        return self.report

    def _key(self, ref: str) -> str:
        target = self.readable.target(ref)
        return target.key if target else ref

    def _refuse(self, ref: str, why: str) -> None:
        self.report.refused.append({"scope": self._key(ref), "why": why})

    def _local_refs(self) -> dict[str, str]:
        repo = self.history.repo()
        out = {}
        for name in repo.references:
            if name.startswith("refs/okfpro/memory/") and self.readable.target(name) is not None:
                out[name] = str(repo.references[name].target)
        return out

    def _round(self, remote: dict[str, str], only: set[str] | None) -> tuple[list[str], dict[str, str]]:
        """One pass over the changed refs: (refs to retry after a refetch, refs the server
        declined -> its reason)."""
        repo = self.history.repo()
        local = self._local_refs()
        refs = sorted(r for r in set(local) | {r for r in remote if r.startswith("refs/okfpro/memory/")}
                      if (only is None or r in only) and r not in self.blocked)
        changed = [r for r in refs if local.get(r) != remote.get(r)]
        need = [r for r in changed if r in remote and remote[r] not in repo]
        staged = self.remote.fetch(need)
        if need:
            self.history._repo = None  # new objects and refs: reopen
            repo = self.history.repo()
        for ref in self._erased_history(repo, staged):
            del staged[ref]
            self.blocked.add(ref)
            self._refuse(ref, "the remote's history of this scope holds what was erased here (a commit the "
                              "local erasure record lists, or one dated before it): not taken")
        self.report.fetched += [t.key for t in map(self.readable.target, need) if t is not None]
        pushes: dict[str, str] = {}
        for n, ref in enumerate(changed, 1):
            self.progress(n, len(changed), "scopes")
            target = self.readable.target(ref)
            if target is None or ref in self.blocked:
                continue
            theirs_id = remote.get(ref)
            if ref in staged:
                theirs_id = str(repo.references[staged[ref]].target)
            try:
                new = self._one(repo, target, local.get(ref), theirs_id)
            except MergeConflict as exc:
                self._refuse(ref, f"{ref}: {exc}" if isinstance(exc, TooLarge) else str(exc))
                continue
            if new is not None and new != remote.get(ref):
                pushes[ref] = new
        rejected, declined = [], {}
        for ref, why in self.remote.push(pushes).items() if pushes else ():
            if why is None:
                self.report.pushed.append(self._key(ref))
            elif any(x in why.partition(SAID)[0] for x in ("fetch first", "non-fast-forward", "stale")):
                rejected.append(ref)
            else:
                declined[ref] = why
        return rejected, declined

    def _erased_history(self, repo: pygit2.Repository, staged: dict[str, str]) -> list[str]:
        """The fetched refs whose history this clone erased (its local erasure record lists a
        commit of it, or the history starts before the erasure): a remote that kept a copy
        (no server hook, a refused erasure) does not bring it back here."""
        from okfpro.memory.remote import tombstone_ref
        from okfpro.memory.tombstone import local_record

        out = []
        for ref, stage in staged.items():
            record = local_record(repo, tombstone_ref(ref)) if ref.startswith("refs/okfpro/memory/") else None
            if record is None:
                continue
            when, ids = record
            for commit in repo.walk(repo.references[stage].target):
                if str(commit.id) in ids or (not commit.parents and commit.commit_time < when.timestamp()):
                    out.append(ref)
                    break
        return out

    # -- one scope ----------------------------------------------------------------------

    def _one(self, repo: pygit2.Repository, target: Target, ours_id: str | None, theirs_id: str | None) -> str | None:
        """Bring the local ref of ``target`` together with the remote's; the sha to push (or None)."""
        from okfpro.memory.scopefiles import blobs, disk_files, disk_names, scope_tree, tree_ids, write_scope

        store = self.store
        with store._repo_lock(exclusive=False), store._locked(store._lock_for(target.prefix)):
            ref = repo.references.get(target.ref)
            ours = _commit(repo, ref.target) if ref is not None else None
            if ref is not None and str(ref.target) != ours_id:
                ours_id = str(ref.target)  # written meanwhile: take the newest
            if theirs_id:  # the remote's: sized before anything of it is read
                self.caps.check(repo, theirs_id, "the commit")
            theirs = _commit(repo, theirs_id) if theirs_id else None
            scope_tree(repo, theirs, target.prefix, self.caps)
            if theirs is not None and not self.history._belongs(repo, theirs, target.tier, target.key, target.prefix):
                raise MergeConflict(f"the remote's {target.ref} is not this scope's history")
            if theirs is None or (ours is not None and ours.id == theirs.id):
                return ours_id
            if ours is None or repo.descendant_of(theirs.id, ours.id):
                relation, base = "behind", ours
            elif repo.descendant_of(ours.id, theirs.id):
                relation, base = "ahead", theirs
            else:
                mb = repo.merge_base(ours.id, theirs.id)
                relation, base = "diverged", (_commit(repo, mb) if mb is not None else None)
            b_ids, o_ids = (tree_ids(repo, c, target.prefix) for c in (base, ours))
            t_ids = tree_ids(repo, theirs, target.prefix, self.caps)
            # only the day files that differ somewhere are read and merged: the cost follows
            # what changed, not the scope's size nor its history
            changed = {n for n in set(b_ids) | set(o_ids) | set(t_ids) if not b_ids.get(n) == o_ids.get(n) == t_ids.get(n)}
            on_disk = disk_names(store.root, target.prefix) or set()
            look = changed | (on_disk - set(o_ids))
            recorded = blobs(repo, o_ids, look)
            ours_files = dict(recorded)
            for name, data in (disk_files(store.root, target.prefix, look) or {}).items():
                if data != recorded.get(name):  # entries no commit recorded (a failed commit): ours too
                    ours_files[name] = merge_files({}, {name: data}, {name: recorded[name]} if name in recorded else {})[name]
            theirs_files = blobs(repo, t_ids, look, self.caps)
            merged = merge_files(blobs(repo, b_ids, look), ours_files, theirs_files)
            if relation == "ahead" and merged == recorded:
                return ours_id  # push
            if relation == "behind" and merged == theirs_files:
                self._move(repo, target, ref, theirs)  # fast-forward
                result = str(theirs.id)
                self.report.fast_forwarded.append(target.key)
            else:
                parents = [ours] if relation == "ahead" else [theirs] if relation == "behind" else [ours, theirs]
                before = theirs_files if relation == "behind" else recorded  # the first parent's
                result = self._merge_commit(repo, target, ref, parents, look, merged, before)
                self.report.merged.append(target.key)
            write_scope(store.root, target, {n: merged.get(n) for n in look})
            return result

    def _move(self, repo: pygit2.Repository, target: Target, ref, commit) -> None:
        self.history._clear_stale_ref_lock(target.ref)
        if ref is None:
            repo.references.create(target.ref, commit.id, force=False)
        else:
            ref.set_target(commit.id)

    def afresh(self, repo: pygit2.Repository, target: Target, files: dict[str, bytes], when: _dt.datetime) -> str:
        """Start ``target`` again from ``files`` (what an erasure left: the entries written after
        it): the files written and a root commit dated no earlier than ``when`` on its ref."""
        from okfpro.memory.scopefiles import write_scope

        store = self.store
        with store._repo_lock(exclusive=False), store._locked(store._lock_for(target.prefix)):
            write_scope(store.root, target, dict(files))
            return self._merge_commit(repo, target, repo.references.get(target.ref), [], set(files), files, {},
                                      "entries written after an erasure", max(utcnow(), when))

    def _merge_commit(self, repo: pygit2.Repository, target: Target, ref, parents: list, names: set[str],
                      merged: dict[str, bytes], before: dict[str, bytes], what: str | None = None,
                      when: _dt.datetime | None = None) -> str:
        """A commit on ``parents`` whose scope is the first parent's (none: empty) with ``names``
        replaced by ``merged`` (absent there: removed)."""
        from pygit2.enums import FileMode

        from okfpro.memory.scopefiles import scope_tree

        h = self.history
        first = parents[0] if parents else None
        old = scope_tree(repo, first, target.prefix)
        tb = repo.TreeBuilder(old) if old is not None else repo.TreeBuilder()
        for name in sorted(names):
            if name in merged:
                tb.insert(name, repo.create_blob(merged[name]), FileMode.BLOB)
            elif tb.get(name) is not None:
                tb.remove(name)
        tree = h._wrap(repo, target.prefix, tb.write() if len(tb) else None)  # nothing left: a forget's empty tree
        n = max(0, h.entry_count(first) - entry_count(before) + entry_count(merged))
        what = what or (f"merge {len(parents)} histories" if len(parents) > 1 else "entries found on disk")
        message = h._message(target.tier, target.key, what, n, {"Actor": self.actor})
        author, committer = h._signature(self.actor, when or utcnow())
        oid = repo.create_commit(None, author, committer, message, tree, [p.id for p in parents])
        self._move(repo, target, ref, repo.get(oid))
        return str(oid)


def _commit(repo: pygit2.Repository, oid) -> pygit2.Commit:
    import pygit2

    obj = repo.get(oid)
    if not isinstance(obj, pygit2.Commit):
        raise MergeConflict(f"{oid} is missing or not a commit")
    return obj


def sync(store, scope: Scope, url: str, progress: bool | None = None, actor: str | None = None,
         caps: Caps | None = None) -> SyncReport:
    """One ``okfpro memory sync`` (see the module doc)."""
    return Syncer(store, scope, url, Progress(progress), actor, caps).run()
