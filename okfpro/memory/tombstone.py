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

A clone that syncs later sees a tombstone it has not applied yet and purges its own copy
of the scope (files, ref, index rows, and the objects with the store's own purge: reflogs
expired, repack, prune, every object scanned) instead of pushing it back; entries it wrote
*after* the erasure time (user, agent and tenant tiers) are written again as new entries.
A tombstone whose scope line is not its ref's scope, or (user and session tiers) whose
identity is not the syncing identity's, is not honoured and is reported.  The identity
hash is derived from names, so it is a check against mistakes, not a credential: who may
write a tombstone ref is the server hook's decision (:mod:`okfpro.memory.serverhook`).

What only the server can finish: the erased objects stay in the server's object store
until its own ``git gc`` prunes them (nothing refers to them once the refs are gone).
"""

from __future__ import annotations

import datetime as _dt

import pygit2

from okfpro.core.daymerge import MergeConflict
from okfpro.core.dayfile import DAY_RE, sections, split_concept
from okfpro.core.scope import Scope
from okfpro.io.clock import utcnow
from okfpro.memory.layout import TOOL
from okfpro.memory.scopefiles import disk_files
from okfpro.memory.remote import TOMBSTONE_NS, Readable, Remote, RemoteError, Target, tombstone_ref

SERVER_GC = "the erased objects stay in the server's object store until its own gc prunes them " \
            "(git gc --prune=now on the server)"


def message(target: Target, when: _dt.datetime, identity: str) -> str:
    at = when.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (f"okfpro tombstone {target.tier} {target.key}\n\n"
            f"Scope: {target.key}\nErased: {at}\nIdentity: {identity}\n")


def parse(text: str) -> dict[str, str]:
    from okfpro.memory.history import parse_trailers

    return parse_trailers(text)


def make(repo: pygit2.Repository, target: Target, when: _dt.datetime, identity: str) -> pygit2.Oid:
    """A tombstone commit (empty tree, no parent) for ``target``; also set as the local tombstone ref."""
    ts = int(when.timestamp())
    sig = pygit2.Signature(TOOL, "okfpro@localhost", ts, 0)
    oid = repo.create_commit(None, sig, sig, message(target, when, identity), repo.TreeBuilder().write(), [])
    repo.references.create(target.tombstone, oid, force=True)
    return oid


def _erased_at(fields: dict[str, str]) -> _dt.datetime | None:
    try:
        return _dt.datetime.strptime(fields.get("Erased", ""), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return None


def _newer_entries(store, target: Target, after: _dt.datetime) -> list[tuple[str, _dt.datetime]]:
    """(text, time) of the scope's entries on disk written after ``after`` (kept through the erasure)."""
    out = []
    for name, raw in sorted((disk_files(store.root, target.prefix) or {}).items()):
        m = DAY_RE.match(name)
        if m is None:
            continue
        day = m.group(1)
        try:
            body = split_concept(raw)[1]
        except ValueError:
            continue
        for clock, text in sections(body):
            when = _dt.datetime.fromisoformat(f"{day}T{clock}+00:00")
            if when > after:
                out.append((text, when))
    return out


def apply_new(syncer, remote: dict[str, str]) -> None:
    """Apply every tombstone of ``remote`` (ref -> sha) this clone has not applied yet."""
    from okfpro.io.identity import identity_hash
    from okfpro.memory.store import DeleteResult, Subtree

    store, repo = syncer.store, syncer.history.repo()
    new = {}
    for ref, sha in remote.items():
        if ref.startswith(TOMBSTONE_NS):
            have = repo.references.get(ref)
            if have is None or str(have.target) != sha:
                new[ref] = sha
    if not new:
        return
    staged = syncer.remote.fetch(sorted(new))
    syncer.history._repo = None
    repo = syncer.history.repo()
    mine = identity_hash(syncer.scope)
    for ref in sorted(new):
        target = syncer.readable.target(ref)
        commit = repo.get(repo.references[staged[ref]].target)
        fields = parse(commit.message) if isinstance(commit, pygit2.Commit) else {}
        when = _erased_at(fields)
        why = None
        if not isinstance(commit, pygit2.Commit) or len(commit.tree) or commit.parents or when is None:
            why = "not a tombstone (a commit with an empty tree, no parent and an Erased time)"
        elif fields.get("Scope") != target.key:
            why = "its Scope line names another scope"
        elif target.tier in ("user", "session") and fields.get("Identity") != mine:
            why = "it was written by another identity"
        if why or when is None:
            syncer.report.refused.append({"scope": target.key, "why": f"tombstone not honoured: {why}"})
            continue
        kept: list[tuple[str, _dt.datetime]] = []
        try:
            if target.tier != "session":
                kept = _newer_entries(store, target, when)
        except (MergeConflict, OSError, ValueError) as exc:
            syncer.report.refused.append({"scope": target.key, "why": f"tombstone not applied: {exc}"})
            syncer.blocked.add(target.ref)  # never pushed back while the erasure is owed
            continue
        result = store._purge([Subtree(target.tier, target.prefix, target.ref, target.key)], DeleteResult(purged=True))
        repo = syncer.history.repo()
        repo.references.create(ref, commit.id, force=True)
        if kept:
            store.write_many(syncer.scope, kept, target.tier, actor=syncer.actor, what="entries written after an erasure")
        syncer.report.tombstones.append({
            "scope": target.key, "erased_at": fields["Erased"], "verified": result.verified,
            "error": result.error, "kept_newer": len(kept),
        })


def erase_remote(store, scope: Scope, url: str, targets: list[Target], identity: str) -> dict:
    """After a local purge of ``targets``: delete their refs on the remote (and every session
    ref of the user there), push a tombstone for each.  The report says what was removed,
    what was refused, and what only the server's gc finishes."""
    readable = Readable(scope, store.tiers)
    remote = Remote(store.history.gitdir, url)
    report: dict = {"removed_remotely": [], "tombstones": [], "refused": [], "server": SERVER_GC, "error": None}
    try:
        listed = remote.listing(readable)
    except RemoteError as exc:
        report["error"] = str(exc)
        return report
    erased = {t.ref: t for t in targets}
    if any(t.tier == "session" for t in targets):
        for ref in listed:
            t = readable.target(ref)
            if t is not None and t.tier == "session" and ref.startswith("refs/okfpro/memory/"):
                erased.setdefault(t.ref, t)
    repo = store.history.repo()
    when = utcnow()
    updates: dict[str, str] = {}
    for ref, t in sorted(erased.items()):
        if ref in listed:
            updates[ref] = ""
        updates[tombstone_ref(ref)] = str(make(repo, t, when, identity))
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
