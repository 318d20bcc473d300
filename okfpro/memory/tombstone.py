"""Erasure that follows the data: content-free tombstones on the memory remote.

A purge (``okfpro memory forget --purge``) with a remote configured deletes the erased
scopes' refs on the remote (and every session ref of the user there, known here or not)
and pushes, for each, a tombstone: a commit with an empty tree and no parent on
``refs/okfpro/tombstone/<tier>/<prefix>`` whose message is only the scope key, the time
of the erasure and the eraser's identity hash (:func:`okfpro.io.identity.identity_hash`)::

    okfpro tombstone user memory-user/acme-…/alice-…

    Scope: memory-user/acme-…/alice-…
    Erased: 2026-12-01T02:30:00Z
    Identity: 3f2a…

The tombstone also lists, as ``Purged:``, the commit ids of the erased history this
machine knew (its tip and every root commit, plus the remote's tip): ids, no text.  The
server's hook (:mod:`okfpro.memory.serverhook`) refuses any later push that would make one
of them reachable again, or that brings this scope a history whose root is dated before the
erasure, so a stale clone that listed the remote before the purge cannot put the text
back; the owner starts the scope afresh with a new root.  A tombstone only grows: a
later purge of the same scope lists every id of the earlier tombstone too.

A clone that syncs later sees a tombstone it has not applied yet and purges its own copy
of the scope (files, ref, index rows, and the objects with the store's own purge: reflogs
expired, repack, prune, every object scanned) instead of pushing it back; the entries it
wrote *after* the erasure time (any tier, sessions included) stay: they are written again
as a new root commit dated after the erasure, which the server accepts.
A tombstone whose scope line is not its ref's scope, or (user and session tiers) whose
identity is not the syncing identity's, is not honoured and is reported.  The identity
hash is derived from names, so it is a check against mistakes, not a credential: who may
write a tombstone ref is the server hook's decision (:mod:`okfpro.memory.serverhook`).

What only the server can finish: the erased objects stay in the server's object store
until its own ``git gc`` prunes them (nothing refers to them once the refs are gone).
"""

from __future__ import annotations

import datetime as _dt
import os

import pygit2

import re

from okfpro.core.daymerge import MergeConflict, entry_count, written_after
from okfpro.core.scope import Scope
from okfpro.io.clock import utcnow
from okfpro.memory.layout import TOOL
from okfpro.memory.scopefiles import disk_files
from okfpro.memory.remote import TOMBSTONE_NS, Readable, Remote, RemoteError, Target, tombstone_ref

_OID = re.compile(r"[0-9a-f]{40}")
MAX_TOMBSTONE = 1 << 20  # bytes: a tombstone is a few lines and ids
SERVER_GC = "the erased objects stay in the server's object store until its own gc prunes them " \
            "(git gc --prune=now on the server)"


def message(target: Target, when: _dt.datetime, identity: str, purged: list[str] | tuple[str, ...] = ()) -> str:
    at = when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    ids = f"Purged: {' '.join(sorted(set(purged)))}\n" if purged else ""
    return (f"okfpro tombstone {target.tier} {target.key}\n\n"
            f"Scope: {target.key}\nErased: {at}\nIdentity: {identity}\n{ids}")


def parse(text: str) -> dict[str, str]:
    from okfpro.memory.history import parse_trailers

    return parse_trailers(text)


def purged_ids(fields: dict[str, str]) -> set[str]:
    """The commit ids a tombstone's ``Purged:`` line lists."""
    return {x for x in fields.get("Purged", "").split() if _OID.fullmatch(x)}


def history_ids(gitdir: str | os.PathLike[str], ref: str) -> tuple[str, ...]:
    """The ids a tombstone of ``ref`` lists from this clone: its tip and every root commit
    of its history (any later history that reaches one carries erased text)."""
    from okfpro.memory.remote import _run

    if not os.path.isfile(os.path.join(gitdir, "HEAD")):
        return ()
    proc = _run(["git", f"--git-dir={gitdir}", "rev-list", "--max-parents=0", ref, "--"], check=False)
    tip = _run(["git", f"--git-dir={gitdir}", "rev-parse", "--verify", "-q", ref + "^{commit}"], check=False)
    ids = proc.stdout.decode().split() + tip.stdout.decode().split()
    return tuple(sorted({x for x in ids if _OID.fullmatch(x)}))


def make(repo: pygit2.Repository, target: Target, when: _dt.datetime, identity: str,
         purged: list[str] | tuple[str, ...] = ()) -> pygit2.Oid:
    """A tombstone commit (empty tree, no parent) for ``target``; also set as the local tombstone ref."""
    ts = int(when.timestamp())
    sig = pygit2.Signature(TOOL, "okfpro@localhost", ts, 0)
    oid = repo.create_commit(None, sig, sig, message(target, when, identity, purged), repo.TreeBuilder().write(), [])
    repo.references.create(target.tombstone, oid, force=True)
    return oid


def local_record(repo: pygit2.Repository, tomb: str) -> tuple[_dt.datetime, set[str]] | None:
    """What this clone's tombstone ref ``tomb`` says (its erasure time and purged ids), or None."""
    ref = repo.references.get(tomb)
    if ref is None or repo.odb.read_header(ref.target)[1] > MAX_TOMBSTONE:
        return None
    commit = repo.get(ref.target)
    if not isinstance(commit, pygit2.Commit) or commit.parents:
        return None
    fields = parse(commit.message)
    when = _erased_at(fields)
    return (when, purged_ids(fields)) if when is not None else None


def record_erasure(repo: pygit2.Repository, target: Target, when: _dt.datetime, identity: str) -> None:
    """The local erasure record of a purge: this clone's tombstone ref of ``target`` (the same
    commit a remote gets), listing ``target.purged`` and every id of an earlier record.  A sync
    with any remote carries it there before it fetches anything of the scope (:func:`carry`)."""
    earlier = local_record(repo, target.tombstone)
    ids = set(target.purged) | (earlier[1] if earlier else set())
    if ids:
        make(repo, target, max(when, earlier[0]) if earlier else when, identity, sorted(ids))


def carry(syncer, remote: dict[str, str]) -> bool:
    """Carry this clone's erasure records to the remote before anything is fetched: a scope
    purged here whose tombstone the remote lacks (a remote never named at the purge, or not
    reached then) is erased there first (its ref deleted, the tombstone pushed, listing the
    remote's tip too), so its erased history is never fetched back.  A remote that refuses
    leaves the scope blocked for this sync (neither fetched nor merged nor pushed) and says why.
    True when the remote was changed (list it again)."""
    from okfpro.io.identity import identity_hash

    if not any(ref.startswith(TOMBSTONE_NS) for ref in syncer.remote.local(syncer.readable)):
        return False  # no erasure record here: pygit2 is not loaded on this path
    repo = syncer.history.repo()
    owed: list[Target] = []
    whens: list[_dt.datetime] = []
    for name in repo.references:
        if not name.startswith(TOMBSTONE_NS):
            continue
        target = syncer.readable.target(name)
        mine = local_record(repo, name)
        if target is None or mine is None or remote.get(name) == str(repo.references[name].target):
            continue
        owed.append(Target(target.tier, target.prefix, target.key, target.ref, tuple(sorted(mine[1]))))
        whens.append(mine[0])
    if not owed:
        return False
    changed = False
    for target, when in zip(owed, whens):
        report = erase_remote(syncer.store, syncer.scope, syncer.remote.url, [target], identity_hash(syncer.scope),
                              when=when, only_if_behind=True)
        if report["error"] or report["refused"]:
            why = report["error"] or "; ".join(f"{r['why']}" for r in report["refused"])
            syncer.blocked.add(target.ref)
            syncer.report.refused.append({"scope": target.key, "why": "erased here, and the remote still holds "
                                          f"that history: its erasure there was refused ({why}); not fetched"})
        else:
            changed = True
            syncer.report.tombstones.append({"scope": target.key, "erased_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                             "carried": True, "removed_remotely": bool(report["removed_remotely"])})
    syncer.history._repo = None
    return changed


def _erased_at(fields: dict[str, str]) -> _dt.datetime | None:
    try:
        return _dt.datetime.strptime(fields.get("Erased", ""), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return None


def apply_new(syncer, remote: dict[str, str]) -> set[str]:
    """Apply every tombstone of ``remote`` (ref -> sha) this clone has not applied yet;
    returns the memory refs erased here."""
    from okfpro.io.identity import identity_hash
    from okfpro.memory.entries import DeleteResult, Subtree

    store, repo = syncer.store, syncer.history.repo()
    new = {}
    for ref, sha in remote.items():
        if ref.startswith(TOMBSTONE_NS):
            have = repo.references.get(ref)
            if have is None or str(have.target) != sha:
                new[ref] = sha
    if not new:
        return set()
    staged = syncer.remote.fetch(sorted(new))
    syncer.history._repo = None
    repo = syncer.history.repo()
    mine = identity_hash(syncer.scope)
    done: set[str] = set()
    for ref in sorted(new):
        target = syncer.readable.target(ref)
        oid = repo.references[staged[ref]].target
        commit = repo.get(oid) if repo.odb.read_header(oid)[1] <= MAX_TOMBSTONE else None  # read no huge object
        fields = parse(commit.message) if isinstance(commit, pygit2.Commit) else {}
        when = _erased_at(fields)
        why = None
        if not isinstance(commit, pygit2.Commit) or len(commit.tree) or commit.parents or when is None:
            why = "not a tombstone (a commit with an empty tree, no parent and an Erased time)"
        elif fields.get("Scope") != target.key:
            why = "its Scope line names another scope"
        elif target.tier in ("user", "session") and fields.get("Identity") != mine:
            why = "it was written by another identity"
        if why or when is None or not isinstance(commit, pygit2.Commit):
            syncer.report.refused.append({"scope": target.key, "why": f"tombstone not honoured: {why}"})
            continue
        try:
            kept = written_after(disk_files(store.root, target.prefix) or {}, when)
        except (MergeConflict, OSError, ValueError) as exc:
            syncer.report.refused.append({"scope": target.key, "why": f"tombstone not applied: {exc}"})
            syncer.blocked.add(target.ref)  # never pushed back while the erasure is owed
            continue
        result = store._purge([Subtree(target.tier, target.prefix, target.ref, target.key)], DeleteResult(purged=True))
        repo = syncer.history.repo()
        repo.references.create(ref, commit.id, force=True)
        done.add(target.ref)
        if kept:  # a new root, dated after the erasure: the server takes it, the erased history stays out
            syncer.afresh(repo, target, kept, when + _dt.timedelta(seconds=1))
        syncer.report.tombstones.append({
            "scope": target.key, "erased_at": fields["Erased"], "verified": result.verified,
            "error": result.error, "kept_newer": entry_count(kept),
        })
    return done


def reroot_early(syncer, refs) -> set[str]:
    """Of ``refs`` (a push the server declined), the scopes this clone erased or saw erased
    whose local history starts before that erasure (an entry written afterwards but dated
    earlier, an import of old entries): each starts afresh from its current files, so the
    server, which refuses a history older than the erasure, takes it.  No entry is lost:
    the erasure already dropped everything that history held before it."""
    from okfpro.memory.scopefiles import blobs, tree_ids

    repo = syncer.history.repo()
    out: set[str] = set()
    for ref in sorted(refs):
        target, tomb = syncer.readable.target(ref), repo.references.get(tombstone_ref(ref))
        tip = repo.references.get(ref)
        if target is None or tomb is None or tip is None or repo.odb.read_header(tomb.target)[1] > MAX_TOMBSTONE:
            continue
        when = _erased_at(parse(repo.get(tomb.target).message))
        head = repo.get(tip.target)
        if when is None or not isinstance(head, pygit2.Commit):
            continue
        roots = [c for c in repo.walk(head.id) if not c.parents]
        if any(c.commit_time < when.timestamp() for c in roots):
            ids = tree_ids(repo, head, target.prefix)
            files = {**blobs(repo, ids, ids), **(disk_files(syncer.store.root, target.prefix) or {})}
            syncer.afresh(repo, target, files, when + _dt.timedelta(seconds=1))
            out.add(ref)
    return out


def _earlier_ids(remote: Remote, store, listed: dict[str, str], tombs: list[str]) -> dict[str, set[str]]:
    """tombstone ref -> the ids its earlier tombstones (here and on the remote) list: a new
    tombstone lists them too (a tombstone only grows; the server refuses one that shrinks)."""
    out: dict[str, set[str]] = {}
    staged = remote.fetch([t for t in tombs if t in listed and listed[t] not in store.history.repo()])
    if staged:
        store.history._repo = None  # new objects and refs: reopen
    repo = store.history.repo()
    for tomb in tombs:
        for name in (tomb, staged.get(tomb)):
            ref = repo.references.get(name) if name else None
            commit = repo.get(ref.target) if ref is not None and repo.odb.read_header(ref.target)[1] < MAX_TOMBSTONE else None
            if isinstance(commit, pygit2.Commit) and not commit.parents:
                out.setdefault(tomb, set()).update(purged_ids(parse(commit.message)))
    return out


def _remote_records(remote: Remote, store, listed: dict[str, str], tombs: list[str]) -> dict[str, tuple]:
    """tombstone ref -> (time, ids) of the remote's tombstone (fetched into staging by
    :func:`_earlier_ids` just before)."""
    repo = store.history.repo()
    out = {}
    for tomb in tombs:
        if tomb not in listed:
            continue
        ref = repo.references.get(remote.staged_name(tomb))
        oid = ref.target if ref is not None else (pygit2.Oid(hex=listed[tomb]) if listed[tomb] in repo else None)
        if oid is None or repo.odb.read_header(oid)[1] > MAX_TOMBSTONE:
            continue
        commit = repo.get(oid)
        when = _erased_at(parse(commit.message)) if isinstance(commit, pygit2.Commit) and not commit.parents else None
        if when is not None:
            out[tomb] = (when, purged_ids(parse(commit.message)))
    return out


def erase_remote(store, scope: Scope, url: str, targets: list[Target], identity: str, sessions: bool = False,
                 when: _dt.datetime | None = None, only_if_behind: bool = False) -> dict:
    """After a local purge of ``targets``: delete their refs on the remote (and, with
    ``sessions``, every session ref of the user there, known here or not), push a tombstone
    for each, dated ``when`` (default now: the purge).  ``only_if_behind``: a target whose
    remote tombstone already covers the erasure (as late, listing every id) is left alone.
    The report says what was removed, what was refused, and what only the server's gc finishes."""
    readable = Readable(scope, store.tiers)
    remote = Remote(store.history.gitdir, url)
    report: dict = {"removed_remotely": [], "tombstones": [], "refused": [], "server": SERVER_GC, "error": None}
    try:
        listed = remote.listing(readable)
    except RemoteError as exc:
        report["error"] = str(exc)
        return report
    erased = {t.ref: t for t in targets}
    if sessions:
        for ref in listed:
            t = readable.target(ref)
            if t is not None and t.tier == "session" and ref.startswith("refs/okfpro/memory/"):
                erased.setdefault(t.ref, t)
    repo = store.history.repo()
    when = when or utcnow()
    try:
        earlier = _earlier_ids(remote, store, listed, sorted(tombstone_ref(r) for r in erased))
        if only_if_behind:
            theirs = _remote_records(remote, store, listed, sorted(tombstone_ref(r) for r in erased))
            for ref, t in list(erased.items()):
                got = theirs.get(tombstone_ref(ref))
                if got is not None and got[0] >= when and set(t.purged) <= got[1]:
                    del erased[ref]
                elif got is not None:
                    when = max(when, got[0])  # a tombstone never moves its time back
    except (RemoteError, pygit2.GitError) as exc:
        report["error"] = str(exc)
        return report
    finally:
        remote.drop_staged()
    repo = store.history.repo()
    updates: dict[str, str] = {}
    for ref, t in sorted(erased.items()):
        ids = set(t.purged) | earlier.get(tombstone_ref(ref), set())
        if ref in listed:
            updates[ref] = ""
            ids.add(listed[ref])
        updates[tombstone_ref(ref)] = str(make(repo, t, when, identity, sorted(ids)))
    done = remote.push(updates, force=tuple(tombstone_ref(r) for r in erased))
    for ref, why in sorted(done.items()):
        target = readable.target(ref)
        key = target.key if target else ref
        if why is not None:
            report["refused"].append({"ref": ref, "why": why})
        elif ref.startswith(TOMBSTONE_NS):
            report["tombstones"].append(key)
        else:
            report["removed_remotely"].append(key)
    return report
