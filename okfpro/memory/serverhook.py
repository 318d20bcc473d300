"""The server's half of memory sync: a pre-receive hook that enforces who owns which scope ref.

Installed in a bare repository (``okfpro memory server-hook install REPO``), Git runs it
before it updates any ref of a push, with ``<old> <new> <ref>`` lines on stdin.  The
pusher's name comes from the server's environment only: the variable the config names
(``[server] pusher_env``), else ``REMOTE_USER`` (``git http-backend`` behind an
authenticating web server), ``GL_USERNAME`` (GitLab), ``GITEA_PUSHER_NAME`` (Gitea /
Forgejo).  A small TOML file maps each pusher name, exactly as spelled (no case folding,
no Unicode normalisation: ``Alice`` and ``alice`` are different pushers), to a scope::

    [server]
    pusher_env = "REMOTE_USER"      # optional

    [pushers.alice]
    tenant = "acme"                 # optional
    user = "alice"
    agents = ["claude"]             # agent tiers alice may write
    maintainer = false              # may delete or erase the shared tiers

Owned refs are computed with the client's own path function
(:func:`okfpro.core.scope.history_ref`) and compared as whole strings:

* the user tier and every session of the user (``s-<16 hex>`` below the session base):
  create, update, delete; their tombstones: create, update (a purge);
* the tenant tier and the agent tiers named: create and fast-forward *adding* entries; a
  delete, a non-fast-forward update, an update that removes or rewrites any entry (judged
  on the content of the old and new tips, file by file: :func:`losses`), one that adds a
  policy record hiding entries from recall (:func:`hides`) or a tombstone only for a
  maintainer;
* anything else under ``refs/okfpro/``: refused (no other spelling, no ``..``, no other
  user's scope, no made-up namespace, no other letter case).  Refs outside ``refs/okfpro/``
  (in any letter case) pass the ownership check (not the erasure check, below).

Erasure holds on the server too.  A tombstone (:mod:`okfpro.memory.tombstone`) names the
time of the erasure and, as ``Purged:``, the commit ids of the erased history.  Once a
scope has a tombstone, a push is refused when any commit it brings to the server (any
ref, not only memory refs) is one of the purged ids of any tombstone, or when a commit it
brings to the scope's own ref is a root commit dated before the erasure (a history that
began before it, even one the eraser never saw): the history of a stale
clone that listed the remote before the purge never lands again, while the owner may
start the scope afresh (a new root, after the erasure).  A tombstone update must keep
every id of the one it replaces and never move its time back.

Fail closed: no pusher name, a name the config does not map, a config that cannot be
read: every ``refs/okfpro/`` update of the push is refused.  Exit code per Git's
pre-receive contract: 0 accepts the push, anything else refuses all of it (we use 1);
the reasons go to stderr, which Git relays to the pusher as ``remote:`` lines.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import TextIO

from okfpro.core.record import Frozen, set_field
from okfpro.core.scope import Scope, ScopeError, history_ref, validate_segment

PUSHER_VARS = ("REMOTE_USER", "GL_USERNAME", "GITEA_PUSHER_NAME")
CONFIG_NAME = "okfpro-server.toml"
ZERO = "0" * 40
_SESSION = re.compile(r"s-[0-9a-f]{16}")


class Pusher(Frozen):
    __slots__ = _fields = ("name", "scope", "agents", "maintainer")
    name: str
    scope: Scope
    agents: tuple[str, ...]
    maintainer: bool

    def __init__(self, name: str, scope: Scope, agents: tuple[str, ...], maintainer: bool) -> None:
        set_field(self, "name", name)
        set_field(self, "scope", scope)
        set_field(self, "agents", agents)
        set_field(self, "maintainer", maintainer)


def load_config(path: Path) -> dict:
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def pusher_name(config: dict, env: dict[str, str]) -> str | None:
    names = []
    extra = (config.get("server") or {}).get("pusher_env")
    if isinstance(extra, str) and extra:
        names.append(extra)
    names += PUSHER_VARS
    for var in names:
        value = env.get(var)
        if value:
            return value
    return None


def pusher_of(config: dict, name: str) -> tuple[Pusher | None, str | None]:
    """The pusher ``name`` maps to, or why none (an exact key of ``[pushers]``)."""
    table = config.get("pushers")
    row = table.get(name) if isinstance(table, dict) else None
    if not isinstance(row, dict):
        return None, f"pusher {name!r} is not mapped to a scope in {CONFIG_NAME}"
    try:
        scope = Scope(tenant=row.get("tenant") or None, user=row.get("user"))
        agents = tuple(validate_segment(a, "agent") for a in row.get("agents", []))
    except (ScopeError, TypeError) as exc:
        return None, f"{CONFIG_NAME}: pusher {name!r}: {exc}"
    if scope.user is None:
        return None, f"{CONFIG_NAME}: pusher {name!r} names no user"
    return Pusher(name, scope, agents, row.get("maintainer") is True), None


def decide(pusher: Pusher | None, old: str, new: str, ref: str, is_ancestor, losses=None,
           hides=None) -> str | None:
    """Why the update ``old -> new`` of ``ref`` is refused, or ``None`` (allowed).
    ``is_ancestor(a, b)`` tells whether commit ``a`` is an ancestor of ``b``;
    ``losses(a, b)`` what entries of commit ``a`` commit ``b`` no longer holds (``None``: none);
    ``hides(a, b)`` what record commit ``b`` adds that hides an entry from recall (``a``
    ``None``: the tier is new)."""
    if not ref.casefold().startswith("refs/okfpro/"):  # any case: a case-insensitive disk is one namespace
        return None
    if pusher is None:
        return "no authenticated pusher: memory refs are refused"
    tomb = ref.startswith("refs/okfpro/tombstone/")
    mem = "refs/okfpro/memory/" + ref[len("refs/okfpro/tombstone/"):] if tomb else ref
    s = pusher.scope
    own = {history_ref("user", s)}
    shared = {history_ref("tenant", s)} | {history_ref("agent", Scope(s.tenant, None, a)) for a in pusher.agents}
    session_base = history_ref("session", Scope(s.tenant, s.user, None, "x")).rsplit("/", 1)[0] + "/"
    if mem.startswith(session_base) and _SESSION.fullmatch(mem[len(session_base):]):
        own.add(mem)
    delete = new == ZERO
    if mem in own:
        if tomb and delete:
            return "a tombstone is never deleted"
        return None
    if mem in shared:
        if pusher.maintainer:
            return None
        if tomb:
            return f"only a maintainer may erase the shared {mem.split('/')[3]} tier"
        if delete:
            return f"only a maintainer may delete the shared {mem.split('/')[3]} tier"
        if old != ZERO and not is_ancestor(old, new):
            return "the shared tiers only move forward (merge, then push)"
        lost = losses(old, new) if losses is not None and old != ZERO else None
        if lost:
            return (f"only a maintainer may remove or rewrite entries of the shared {mem.split('/')[3]} tier "
                    f"({lost}); members only add")
        hidden = hides(None if old == ZERO else old, new) if hides is not None else None
        if hidden:
            return (f"only a maintainer may hide entries of the shared {mem.split('/')[3]} tier from recall "
                    f"({hidden}); members only add")
        return None
    return f"{ref} is not a scope {pusher.name!r} owns"


def hidden_refs(config: dict, name: str | None) -> list[str]:
    """``transfer.hideRefs`` values that let pusher ``name`` see (and so fetch) only the memory
    refs it may read: all of ``refs/okfpro/`` hidden, then its own and its shared tiers shown
    again.  :func:`backend_env` sets them per request for ``git http-backend``; see
    .okf/design/memory-sync.md for what this does and does not stop per server type."""
    out = ["refs/okfpro/"]
    pusher = pusher_of(config, name)[0] if name else None
    if pusher is None:
        return out
    s = pusher.scope
    refs = [history_ref("user", s), history_ref("tenant", s),
            history_ref("session", Scope(s.tenant, s.user, None, "x")).rsplit("/", 1)[0]]
    refs += [history_ref("agent", Scope(s.tenant, None, a)) for a in pusher.agents]
    for ref in refs:
        out += ["!" + ref, "!refs/okfpro/tombstone/" + ref[len("refs/okfpro/memory/"):]]
    return out


TOMB_NS = "refs/okfpro/tombstone/"
MAX_TOMBSTONE = 1 << 20  # bytes: a tombstone is a few lines and ids


class Erased(Frozen):
    """What one tombstone says: when the scope was erased (epoch seconds) and the purged ids."""

    __slots__ = _fields = ("at", "ids")
    at: int
    ids: frozenset[str]

    def __init__(self, at: int, ids: frozenset[str]) -> None:
        set_field(self, "at", at)
        set_field(self, "ids", ids)


def _git(*args: str, stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", *args], input=stdin, capture_output=True, check=False)
    if proc.returncode != 0:
        raise OSError(f"git {args[0]} failed: {proc.stderr.decode('utf-8', 'replace').strip()[-300:]}")
    return proc.stdout


def read_tombstones(shas: dict[str, str]) -> dict[str, Erased | None]:
    """tombstone ref -> what it says (``None``: not a readable tombstone), read with one
    ``git cat-file --batch``; an object over :data:`MAX_TOMBSTONE` bytes is not read."""
    import datetime as dt

    from okfpro.memory.history import parse_trailers

    names = sorted(shas)
    out: dict[str, Erased | None] = {}
    if not names:
        return out
    sizes = _git("cat-file", "--batch-check", stdin="".join(shas[n] + "\n" for n in names).encode()).decode().splitlines()
    small = [n for n, line in zip(names, sizes) if line.split()[1:2] == ["commit"]
             and int(line.split()[2]) <= MAX_TOMBSTONE]
    out = dict.fromkeys(names)
    data = _git("cat-file", "--batch", stdin="".join(shas[n] + "\n" for n in small).encode())
    for name in small:
        header, _, data = data.partition(b"\n")
        size = int(header.split()[2])
        body, data = data[:size], data[size + 1:]
        message = body.partition(b"\n\n")[2].decode("utf-8", "replace")
        fields = parse_trailers(message)
        try:
            when = dt.datetime.strptime(fields.get("Erased", ""), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
        except ValueError:
            continue
        ids = frozenset(x for x in fields.get("Purged", "").split() if re.fullmatch(r"[0-9a-f]{40}", x))
        out[name] = Erased(int(when.timestamp()), ids)
    return out


def erasure_refusals(updates: list[list[str]]) -> dict[str, str]:
    """ref -> why, for the updates of a push that would bring erased history back (see the
    module doc).  Costs nothing while the repository has no tombstone; then one
    ``for-each-ref``, one ``cat-file`` and one ``rev-list`` per updated ref (only the
    commits new to the server are walked)."""
    listed = {}
    for line in _git("for-each-ref", "--format=%(objectname) %(refname)", TOMB_NS).decode().splitlines():
        sha, _, ref = line.partition(" ")
        listed[ref] = sha
    pushed = {ref: new for old, new, ref in updates if ref.startswith(TOMB_NS) and new != ZERO}
    if not listed and not pushed:
        return {}
    now = read_tombstones({**listed, **pushed})
    before = read_tombstones({r: sha for r, sha in listed.items() if r in pushed})
    out: dict[str, str] = {}
    for ref, record in now.items():
        old = before.get(ref)
        if record is None and ref in pushed:
            out[ref] = "not a tombstone (a small commit with an Erased time)"
        elif old is not None and record is not None and (not old.ids <= record.ids or record.at < old.at):
            out[ref] = "a tombstone only grows: it must keep every purged id and time of the one it replaces"
    purged = frozenset().union(*(r.ids for r in now.values() if r is not None))
    for _old, new, ref in updates:
        if new == ZERO or ref.startswith(TOMB_NS):
            continue
        tomb = TOMB_NS + ref[len("refs/okfpro/memory/"):] if ref.startswith("refs/okfpro/memory/") else None
        erased = now.get(tomb) if tomb else None
        if tomb in now and erased is None:
            out[ref] = "its scope's tombstone cannot be read: refused until it is fixed"
            continue
        rows = [row.split() for row in _git("rev-list", "--timestamp", "--parents", new, "--not", "--all").decode()
                .splitlines() if row]
        back = [row[1] for row in rows if row[1] in purged]
        if back:
            out[ref] = (f"it would make erased history reachable again ({len(back)} commit(s) a tombstone lists, "
                        f"e.g. {back[0][:12]}); sync first: the erasure drops that copy")
        elif erased is not None and any(len(row) == 2 and int(row[0]) < erased.at for row in rows):
            out[ref] = ("its history starts before this scope's erasure (a stale copy the purge did not see); "
                        "sync first: the erasure drops that copy")
    return out


def backend_env(config_path: Path | None, env: dict[str, str]) -> dict[str, str]:
    """The environment ``git http-backend`` (or ``git upload-pack`` behind an ssh forced
    command) runs with so that the authenticated user sees only the memory refs it may read:
    ``transfer.hideRefs`` from :func:`hidden_refs` through ``GIT_CONFIG_COUNT`` /
    ``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` (appended to any the caller set), and
    protocol v0 (``GIT_PROTOCOL`` dropped), under which upload-pack serves only objects
    reachable from the refs it shows — under v2 it serves any object whose id a client
    names.  No config, an unreadable one, no user: every memory ref is hidden."""
    config: dict = {}
    if config_path is not None:
        try:
            config = load_config(config_path)
        except (OSError, tomllib.TOMLDecodeError):
            config = {}
    out = {k: v for k, v in env.items() if k != "GIT_PROTOCOL"}
    values = hidden_refs(config, pusher_name(config, env))
    try:
        start = int(out.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    for i, value in enumerate(values, start):
        out[f"GIT_CONFIG_KEY_{i}"] = "transfer.hideRefs"
        out[f"GIT_CONFIG_VALUE_{i}"] = value
    out["GIT_CONFIG_COUNT"] = str(start + len(values))
    return out


def repository_of(project_root: str, path_info: str) -> Path | None:
    """The bare repository a ``git http-backend`` request names (``PATH_INFO`` below
    ``GIT_PROJECT_ROOT``): the shortest leading part of the path that is one, never a
    path outside the root."""
    root = Path(project_root).resolve()
    here = root
    for part in [p for p in path_info.split("/") if p]:
        if part in (".", ".."):
            return None
        here = here / part
        if (here / "HEAD").is_file() and (here / "objects").is_dir():
            resolved = here.resolve()
            return resolved if resolved.is_relative_to(root) else None
    return None


MAX_JUDGED = 64 << 20  # bytes of one day file the hook reads to judge a shared tier's update


def _tree(commit: str) -> dict[str, tuple[str, str, str]]:
    """path -> (mode, type, id) of every entry of ``commit``'s tree, recursively."""
    out = {}
    for row in _git("ls-tree", "-r", "-z", "--full-tree", commit, "--").split(b"\0"):
        if row:
            meta, _, path = row.partition(b"\t")
            mode, kind, sha = meta.decode().split()
            out[path.decode("utf-8", "surrogateescape")] = (mode, kind, sha)
    return out


def _blobs(shas: list[str]) -> dict[str, bytes | None]:
    """id -> content of each blob (``None``: over :data:`MAX_JUDGED` or not a blob), one ``cat-file``."""
    out: dict[str, bytes | None] = dict.fromkeys(shas)
    if not shas:
        return out
    checks = _git("cat-file", "--batch-check", stdin="".join(x + "\n" for x in shas).encode()).decode().splitlines()
    small = [x for x, line in zip(shas, checks) if line.split()[1:2] == ["blob"] and int(line.split()[2]) <= MAX_JUDGED]
    data = _git("cat-file", "--batch", stdin="".join(x + "\n" for x in small).encode())
    for sha in small:
        header, _, data = data.partition(b"\n")
        size = int(header.split()[2])
        out[sha], data = data[:size], data[size + 1:]
    return out


def losses(old: str, new: str) -> str | None:
    """What entries commit ``old`` holds that commit ``new`` does not (``None``: nothing lost).

    Judged on content, file by file: every day file of ``old`` must still be a regular file at
    the same path in ``new`` (a rename or a symlink is a removal), holding each of its entry
    sections at least as often, byte for byte (a rewritten text is a removal and an addition).
    The frontmatter is not an entry; a file that cannot be read as a day file must stay as it was."""
    from okfpro.core.dayfile import MalformedConcept
    from okfpro.core.daymerge import parse_day

    before, after = _tree(old), _tree(new)
    changed = {p: (row, after.get(p)) for p, row in before.items() if after.get(p) != row}
    if not changed:
        return None
    contents = _blobs(sorted({r[2] for pair in changed.values() for r in pair if r is not None and r[1] == "blob"}))
    for path, (was, now) in sorted(changed.items()):
        if now is None or now[1] != "blob" or now[0] not in ("100644", "100755"):
            return f"{path} removed, renamed or no longer a regular file"
        raw_old, raw_new = contents.get(was[2]), contents.get(now[2])
        if raw_old is None or raw_new is None:
            return f"{path} is not a day file of at most {MAX_JUDGED >> 20} MiB"
        try:
            kept = parse_day(raw_old)[1]
        except (MalformedConcept, UnicodeDecodeError):
            return f"{path} was not in the store's layout and was changed"
        try:
            held = parse_day(raw_new)[1]
        except (MalformedConcept, UnicodeDecodeError):
            return f"{path} is no longer in the store's layout"
        left: dict[str, int] = {}
        for chunk in held:
            left[chunk] = left.get(chunk, 0) + 1
        gone = 0
        for chunk in kept:
            if left.get(chunk, 0) > 0:
                left[chunk] -= 1
            else:
                gone += 1
        if gone:
            return f"{path}: {gone} entr{'y' if gone == 1 else 'ies'} removed or rewritten"
    return None


def hides(old: str | None, new: str) -> str | None:
    """What record commit ``new`` adds to the day files of ``old`` (``None``: an empty tier)
    that could take an entry out of recall (``None``: no such record).

    Every section ``new`` holds that ``old`` does not (per day file, counted as :func:`losses`
    counts; all of a new day file's) is read as recall reads it
    (:func:`okfpro.core.mempolicy.parse`, so every YAML spelling of a frontmatter is seen as
    recall sees it).  A record hides when it is a change record other than ``confirm``
    (``archive``, ``expire``, and any word recall may learn later: fail closed), when it
    supersedes anything, when it is born hidden (``superseded``, ``expired``, ``archived``),
    when it claims a memory id its kind and text do not derive (the policy keeps the
    first record of an id, so a forged id shadows the entry that holds it, now or later), or
    when it files again, with an end of validity, a memory the tier already holds (filed on an
    earlier day, it would stand first and expire the other).
    Targets are not looked up: which entry a record hides, and who wrote that entry, the
    server cannot tell from text a client wrote, so no member's record may hide any.  A day
    file that is not a readable regular file is refused."""
    from okfpro.core import mempolicy
    from okfpro.core.dayfile import DAY_RE, MalformedConcept, sections, split_concept

    before, after = (_tree(old) if old else {}), _tree(new)
    changed = {p: (before.get(p), row) for p, row in after.items()
               if before.get(p) != row and DAY_RE.match(p.rpartition("/")[2])}
    if not changed:
        return None
    contents = _blobs(sorted({r[2] for pair in changed.values() for r in pair if r is not None and r[1] == "blob"}))
    for path, (was, now) in sorted(changed.items()):
        if now[1] != "blob" or now[0] not in ("100644", "100755") or contents.get(now[2]) is None:
            return f"{path} is not a regular day file of at most {MAX_JUDGED >> 20} MiB"
        try:
            texts = [t for _, t in sections(split_concept(contents[now[2]] or b"")[1])]
            left: dict[str, int] = {}
            if was is not None and was[1] == "blob" and contents.get(was[2]) is not None:
                for _, text in sections(split_concept(contents[was[2]] or b"")[1]):
                    left[text] = left.get(text, 0) + 1
        except MalformedConcept:
            return f"{path} is not in the store's layout"
        day = path.rpartition("/")[2][:10]  # a DAY_RE name: YYYY-MM-DD.md
        for n, text in enumerate(texts, start=1):
            if left.get(text, 0) > 0:
                left[text] -= 1
                continue
            rec = mempolicy.parse(text, f"{path}#{n}", day)
            if rec.change and rec.change != "confirm":
                return f"{path}: a {rec.change!r} record for {rec.target}"
            if rec.supersedes:
                return f"{path}: a record superseding {', '.join(rec.supersedes)}"
            if rec.explicit and not rec.change and rec.status in mempolicy.HIDDEN:
                return f"{path}: a record born {rec.status} ({rec.id})"
            if rec.explicit and not rec.change and rec.id != mempolicy.memory_id(rec.kind, rec.text):
                return f"{path}: a record claiming the id {rec.id}, which its kind and text do not derive"
            if rec.explicit and not rec.change and rec.valid_until and rec.id in _memory_ids(before):
                return f"{path}: {rec.id} filed again with an end of validity"
    return None


def _memory_ids(tree: dict[str, tuple[str, str, str]]) -> set[str]:
    """The memory ids the explicit records of the day files of ``tree`` hold."""
    from okfpro.core import mempolicy
    from okfpro.core.dayfile import DAY_RE, MalformedConcept, sections, split_concept

    days = {p: row[2] for p, row in tree.items() if row[1] == "blob" and DAY_RE.match(p.rpartition("/")[2])}
    contents = _blobs(sorted(set(days.values())))
    out: set[str] = set()
    for path, sha in days.items():
        try:
            texts = [t for _, t in sections(split_concept(contents.get(sha) or b"")[1])]
        except MalformedConcept:
            continue
        out.update(mempolicy.parse(t, path, None).id for t in texts if t.startswith("---\n"))
    return out


def _is_ancestor(a: str, b: str) -> bool:
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", a, b], capture_output=True, check=False)
    return proc.returncode == 0


def run_hook(stdin, env: dict[str, str], config_path: Path, err: TextIO | None = None) -> int:
    """The pre-receive hook: 0 accept, 1 refuse (reasons on ``err``, default the current ``sys.stderr``)."""
    err = err if err is not None else sys.stderr
    lines = [ln.split() for ln in stdin.read().splitlines() if ln.strip()]
    touches = [x for x in lines if len(x) == 3 and x[2].casefold().startswith("refs/okfpro/")]
    if any(len(x) != 3 for x in lines):
        print("okfpro: unexpected pre-receive input; refusing the push", file=err)
        return 1
    try:
        erasure = erasure_refusals(lines)
    except (OSError, ValueError, IndexError) as exc:  # fail closed: an erasure we cannot check is not undone
        print(f"okfpro: refusing the push: cannot check it against the tombstones: {exc}", file=err)
        return 1
    for ref, because in sorted(erasure.items()):
        print(f"okfpro: refused {ref}: {because}", file=err)
    if not touches:
        return 1 if erasure else 0
    pusher = None
    why: str | None = None
    try:
        config = load_config(config_path)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        why = f"cannot read {config_path}: {exc}"
    else:
        name = pusher_name(config, env)
        if name is None:
            why = "no authenticated pusher in the environment (" + ", ".join(PUSHER_VARS) + ")"
        else:
            pusher, why = pusher_of(config, name)
    refused = []
    for old, new, ref in touches:
        try:
            reason = decide(pusher, old, new, ref, _is_ancestor, losses, hides) if pusher is not None else why
        except (OSError, ValueError, IndexError) as exc:  # fail closed: an update we cannot judge is refused
            reason = f"cannot judge what it changes: {exc}"
        if reason:
            refused.append(f"okfpro: refused {ref}: {reason}")
    for line in refused:
        print(line, file=err)
    return 1 if refused or erasure else 0


def install(repo: Path, config: Path | None, python: str = sys.executable) -> Path:
    """Write ``hooks/pre-receive`` of the bare repository ``repo`` and, next to it, the
    CGI wrapper ``okfpro-http-backend`` (:func:`backend_env`); returns the hook's path."""
    if not (repo / "objects").is_dir() or not (repo / "HEAD").is_file():
        raise ValueError(f"{repo} is not a bare Git repository")
    config = config or (repo / CONFIG_NAME)
    hook = repo / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    run = f"exec {shlex.quote(python)} -m okfpro memory server-hook"
    _script(hook, "# okfpro memory server-hook: who owns which memory ref\n"
            f"{run} --config {shlex.quote(str(config))}\n")
    _script(repo / BACKEND_NAME, "# okfpro: git http-backend that shows each user only the memory refs it may read\n"
            "# (point the web server's CGI for this repository here; see okfpro memory server-hook --help)\n"
            f"{run} http-backend --config {shlex.quote(str(config))}\n")
    return hook


BACKEND_NAME = "okfpro-http-backend"


def _script(path: Path, body: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text("#!/bin/sh\n" + body)
    tmp.chmod(0o755)
    os.replace(tmp, path)
