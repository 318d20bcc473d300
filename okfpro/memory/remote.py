"""The memory history's Git remote: which refs an identity may read, and the three git calls.

Every ref a sync touches is named in full, from the same path function as the store
(:func:`okfpro.core.scope.history_ref`): the user tier, the user's sessions (one level
below its session base), the tenant and agent tiers of the identity, and the tombstone
of each (``refs/okfpro/tombstone/<tier>/<prefix>``, :mod:`okfpro.memory.tombstone`).
The remote's refs are listed with ``git ls-remote`` narrowed by those names (protocol v2
sends them to the server as ref prefixes), filtered again here, then fetched by one
explicit refspec per ref into a staging namespace: a wildcard refspec would bring other
users' objects onto this disk.  Pushes name each ref too and are never forced for
memory (a push that is not a fast-forward is refused by Git and merged again).

The git command line does the transport (every transport Git supports: ssh, https,
file, git); ``GIT_*`` variables of the caller are not passed on, and Git never prompts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from okfpro.core.daymerge import MergeConflict
from okfpro.core.record import Frozen, set_field
from okfpro.core.scope import Scope, applicable_tiers, history_ref, memory_path, scope_key

if TYPE_CHECKING:
    import pygit2

MEMORY_NS = "refs/okfpro/memory/"
TOMBSTONE_NS = "refs/okfpro/tombstone/"
STAGE_NS = "refs/okfpro-sync/"
_SESSION_SEGMENT = re.compile(r"s-[0-9a-f]{16}")
_SHA = re.compile(r"[0-9a-f]{40}")

MAX_BYTES = 32 << 20  # a remote object sync reads: [memory] sync_max_bytes
MAX_LINES = 500_000  # lines of one remote day file: [memory] sync_max_lines


class TooLarge(MergeConflict):
    """A remote object over the sync caps: the scope is refused, nothing local changes."""


class Caps(Frozen):
    """What sync reads of a remote's objects, at most (None: a local, trusted object)."""

    __slots__ = _fields = ("max_bytes", "max_lines")
    max_bytes: int
    max_lines: int

    def __init__(self, max_bytes: int = MAX_BYTES, max_lines: int = MAX_LINES) -> None:
        set_field(self, "max_bytes", max_bytes)
        set_field(self, "max_lines", max_lines)

    def check(self, repo: pygit2.Repository, oid, what: str) -> None:
        """Refuse ``oid`` before it is read when it is over ``max_bytes`` (its header only)."""
        size = repo.odb.read_header(oid)[1]
        if size > self.max_bytes:
            raise TooLarge(f"{what} {str(oid)[:12]} is {size:,} bytes, over the sync cap of {self.max_bytes:,} "
                           "([memory] sync_max_bytes); nothing was changed here")

    def lines(self, data: bytes, what: str) -> None:
        n = data.count(b"\n")
        if n > self.max_lines:
            raise TooLarge(f"{what} has {n:,} lines, over the sync cap of {self.max_lines:,} "
                           "([memory] sync_max_lines); nothing was changed here")


class RemoteError(RuntimeError):
    """The remote could not be reached or refused us; the message says what git said."""


class Target(Frozen):
    """One memory ref a sync may touch: its tier, directory prefix (relative to the memory
    root), scope key and history ref."""

    __slots__ = _fields = ("tier", "prefix", "key", "ref", "purged")
    tier: str
    prefix: str
    key: str
    ref: str
    purged: tuple[str, ...]  # before a purge: the commit ids of its local history a tombstone lists

    def __init__(self, tier: str, prefix: str, key: str, ref: str, purged: tuple[str, ...] = ()) -> None:
        set_field(self, "tier", tier)
        set_field(self, "prefix", prefix)
        set_field(self, "key", key)
        set_field(self, "ref", ref)
        set_field(self, "purged", purged)

    @property
    def tombstone(self) -> str:
        return tombstone_ref(self.ref)


def tombstone_ref(ref: str) -> str:
    """``refs/okfpro/memory/<rest>`` -> ``refs/okfpro/tombstone/<rest>``."""
    if not ref.startswith(MEMORY_NS):
        raise ValueError(f"not a memory ref: {ref!r}")
    return TOMBSTONE_NS + ref[len(MEMORY_NS):]


def memory_ref_of(tomb: str) -> str:
    return MEMORY_NS + tomb[len(TOMBSTONE_NS):]


class Readable:
    """The refs ``scope`` may read: exact refs (user, agent, tenant tiers) and one session
    base whose children (``s-<16 hex>`` only) are the user's sessions."""

    def __init__(self, scope: Scope, tiers: tuple[str, ...] | list[str]) -> None:
        self.exact: dict[str, Target] = {}
        self.session_base: tuple[str, str] | None = None  # (ref base + "/", prefix base)
        for tier in applicable_tiers(scope, tiers):
            if tier == "session":
                continue
            ref = history_ref(tier, scope)
            self.exact[ref] = Target(tier, memory_path(tier, scope), scope_key(tier, scope), ref)
        if "session" in tiers and (scope.user is not None or scope.is_local):
            probe = Scope(scope.tenant, scope.user, scope.agent, "x")
            self.session_base = (history_ref("session", probe).rsplit("/", 1)[0] + "/",
                                 memory_path("session", probe).rsplit("/", 1)[0])

    def target(self, ref: str) -> Target | None:
        """The target of ``ref`` (memory or tombstone ref), or ``None`` when not ours to read."""
        if ref.startswith(TOMBSTONE_NS):
            ref = memory_ref_of(ref)
        if ref in self.exact:
            return self.exact[ref]
        if self.session_base is not None:
            base, prefix = self.session_base
            rest = ref[len(base):] if ref.startswith(base) else None
            if rest is not None and _SESSION_SEGMENT.fullmatch(rest):
                return Target("session", f"{prefix}/{rest}", f"{prefix}/{rest}", ref)
        return None

    def patterns(self) -> list[str]:
        """What ``git ls-remote`` is asked for (memory and tombstone refs)."""
        out = []
        for ref in self.exact:
            out += [ref, tombstone_ref(ref)]
        if self.session_base is not None:
            base = self.session_base[0]
            out += [base + "*", tombstone_ref(base) + "*"]
        return out


def redact(url: str) -> str:
    """``url`` without a password (what reports and errors show)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def resolve_remote(workspace: str | os.PathLike[str], config, given: str | None) -> tuple[str | None, str | None]:
    """(URL, None) or (None, why).  ``given`` (the command line) over ``[memory] remote``;
    a bare name is a remote of the workspace's own Git repository (``origin``)."""
    workspace = Path(workspace)
    raw = given if given is not None else config.get("memory", "remote", None)
    if raw is None or raw == "":
        return None, "no memory remote: pass REMOTE or set [memory] remote in okfpro.toml"
    if not isinstance(raw, str) or raw.startswith("-") or "\n" in raw or "\x00" in raw:
        return None, f"not a usable memory remote: {raw!r}"
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", raw) and not (workspace / raw).exists():
        proc = _run(["git", "-C", str(workspace), "config", "--get", f"remote.{raw}.url"], check=False)
        url = proc.stdout.decode("utf-8", "replace").strip()
        if proc.returncode != 0 or not url:
            return None, f"{raw!r} is not a remote of the workspace repository ({workspace})"
        return url, None
    if "://" not in raw and ":" not in raw.split("/", 1)[0]:
        raw = str((workspace / os.path.expanduser(raw)).resolve())  # a local path, relative to the workspace
    return raw, None


REMOTES_FILE = "okfpro-remotes"  # in the history's git directory: every remote this clone synced with


def remember_remote(gitdir: str | os.PathLike[str], url: str) -> None:
    """Add ``url`` to the remotes this clone's memory was synced with (a 0600 file, one URL a
    line, as given: a purge erases on each of them, :func:`known_remotes`)."""
    path = Path(gitdir) / REMOTES_FILE
    if url in known_remotes(gitdir) or "\n" in url:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(url + "\n")


def known_remotes(gitdir: str | os.PathLike[str]) -> list[str]:
    """Every remote :func:`remember_remote` noted, in the order first synced."""
    try:
        with open(Path(gitdir) / REMOTES_FILE, encoding="utf-8") as handle:
            return [line.rstrip("\n") for line in handle if line.strip()]
    except (FileNotFoundError, NotADirectoryError, UnicodeDecodeError):
        return []


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"  # never wait for a password nobody types
    env["GIT_ASKPASS"] = "true"
    return env


def _run(args: list[str], check: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    git = shutil.which("git")
    if git is None:
        raise RemoteError("the git command is needed to sync memory and was not found")
    proc = subprocess.run([git, *args[1:]], input=stdin, capture_output=True, env=_env(), check=False)
    if check and proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RemoteError(f"git {args[1] if len(args) > 1 else ''} failed: {'; '.join(detail[-3:]) or proc.returncode}")
    return proc


class Remote:
    """git against ``url`` from the memory history ``gitdir``."""

    def __init__(self, gitdir: str | os.PathLike[str], url: str) -> None:
        self.gitdir = Path(gitdir)
        self.url = url
        self.staged = False

    def _git(self, *args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
        return _run(["git", f"--git-dir={self.gitdir}", "-c", "protocol.version=2", *args], check=check, stdin=stdin)

    def listing(self, readable: Readable) -> dict[str, str]:
        """ref -> sha of the remote's refs that ``readable`` names (others are dropped)."""
        proc = self._git("ls-remote", "--refs", self.url, *readable.patterns(), check=False)
        if proc.returncode not in (0, 2):
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RemoteError(f"cannot list {redact(self.url)}: {'; '.join(detail[-2:]) or proc.returncode}")
        out: dict[str, str] = {}
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            sha, _, ref = line.partition("\t")
            if _SHA.fullmatch(sha) and readable.target(ref) is not None:
                out[ref] = sha
        return out

    def local(self, readable: Readable) -> dict[str, str]:
        """ref -> sha of this clone's memory and tombstone refs that ``readable`` names (one
        ``git for-each-ref``: the nothing-new check loads no Git library)."""
        if not (self.gitdir / "HEAD").is_file():
            return {}
        proc = self._git("for-each-ref", "--format=%(objectname) %(refname)", MEMORY_NS, TOMBSTONE_NS)
        out = {}
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            sha, _, ref = line.partition(" ")
            if readable.target(ref) is not None:
                out[ref] = sha
        return out

    @staticmethod
    def staged_name(ref: str) -> str:
        """Where :meth:`fetch` puts the remote's ``ref``."""
        return STAGE_NS + ref[len("refs/"):]

    def fetch(self, refs: list[str]) -> dict[str, str]:
        """Fetch each of ``refs`` by its own refspec into the staging namespace; ref -> staged ref."""
        if not refs:
            return {}
        staged = {ref: self.staged_name(ref) for ref in refs}
        self.staged = True
        specs = "".join(f"+{ref}:{stage}\n" for ref, stage in staged.items()).encode()
        self._git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", "--stdin",
                  self.url, stdin=specs)
        return staged

    def push(self, updates: dict[str, str], force: tuple[str, ...] = ()) -> dict[str, str | None]:
        """Push ``ref -> sha`` (``""`` deletes the ref); ref -> ``None`` when done, else git's reason."""
        result: dict[str, str | None] = {}
        items = sorted(updates.items())
        for start in range(0, len(items), 400):  # command-line length
            batch = items[start:start + 400]
            specs = [f"{'+' if ref in force else ''}{sha}:{ref}" if sha else f":{ref}" for ref, sha in batch]
            proc = self._git("push", "--porcelain", "--no-verify", self.url, *specs, check=False)
            seen = _porcelain(proc.stdout.decode("utf-8", "replace"))
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            said = _hook_reasons(why)
            for ref, _ in batch:
                if ref in seen:
                    result[ref] = seen[ref] if seen[ref] is None or ref not in said else f"{seen[ref]}{SAID}{said[ref]}"
                else:
                    result[ref] = "; ".join(why[-2:]) or f"git push exited {proc.returncode}"
        return result

    def drop_staged(self) -> None:
        """Delete the staging refs (the fetched objects then hang on nothing but the real refs)."""
        if not self.staged:
            return
        names = self._git("for-each-ref", "--format=%(refname)", STAGE_NS).stdout.decode().split()
        if names:
            self._git("update-ref", "--stdin", stdin="".join(f"delete {n}\n" for n in names).encode())


SAID = "; the server said: "  # between git's summary of a refused ref and the reason okfpro's hook gave


def _hook_reasons(lines: list[str]) -> dict[str, str]:
    """ref -> the reason okfpro's server hook gave (its ``remote: okfpro: refused REF: WHY`` lines)."""
    out: dict[str, str] = {}
    for line in lines:
        if line.startswith("remote: okfpro: refused "):
            ref, _, why = line[len("remote: okfpro: refused "):].partition(": ")
            out.setdefault(ref.strip(), "; ".join(x for x in (out.get(ref.strip()), why.strip()) if x))
    return out


def _porcelain(text: str) -> dict[str, str | None]:
    """``git push --porcelain`` lines -> ref -> None (done) or the reason it was refused."""
    out: dict[str, str | None] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or len(parts[0]) != 1:
            continue
        flag, spec, summary = parts[0], parts[1], parts[2]
        ref = spec.rsplit(":", 1)[-1]
        out[ref] = None if flag in " *-+=" else (summary or "rejected")
    return out
