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
* the tenant tier and the agent tiers named: create and fast-forward; a delete, a
  non-fast-forward update or a tombstone only for a maintainer;
* anything else under ``refs/okfpro/``: refused (no other spelling, no ``..``, no other
  user's scope, no made-up namespace, no other letter case).  Refs outside ``refs/okfpro/``
  (in any letter case) are not this hook's business and pass.

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
from dataclasses import dataclass
from pathlib import Path

from okfpro.core.scope import Scope, ScopeError, history_ref, validate_segment

PUSHER_VARS = ("REMOTE_USER", "GL_USERNAME", "GITEA_PUSHER_NAME")
CONFIG_NAME = "okfpro-server.toml"
ZERO = "0" * 40
_SESSION = re.compile(r"s-[0-9a-f]{16}")


@dataclass(frozen=True)
class Pusher:
    name: str
    scope: Scope
    agents: tuple[str, ...]
    maintainer: bool


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


def decide(pusher: Pusher | None, old: str, new: str, ref: str, is_ancestor) -> str | None:
    """Why the update ``old -> new`` of ``ref`` is refused, or ``None`` (allowed).
    ``is_ancestor(a, b)`` tells whether commit ``a`` is an ancestor of ``b``."""
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
        return None
    return f"{ref} is not a scope {pusher.name!r} owns"


def hidden_refs(config: dict, name: str | None) -> list[str]:
    """``uploadpack.hideRefs`` values that let pusher ``name`` see (and so fetch) only the memory
    refs it may read: all of ``refs/okfpro/`` hidden, then its own and its shared tiers shown
    again.  A front-end sets them per request (``GIT_CONFIG_COUNT`` / ``_KEY_n`` / ``_VALUE_n``
    in the environment of ``git http-backend``); see .okf/design/memory-sync.md for what this
    does and does not stop."""
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


def _is_ancestor(a: str, b: str) -> bool:
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", a, b], capture_output=True, check=False)
    return proc.returncode == 0


def run_hook(stdin, env: dict[str, str], config_path: Path, err=sys.stderr) -> int:
    """The pre-receive hook: 0 accept, 1 refuse (reasons on ``err``)."""
    lines = [ln.split() for ln in stdin.read().splitlines() if ln.strip()]
    touches = [x for x in lines if len(x) == 3 and x[2].casefold().startswith("refs/okfpro/")]
    if any(len(x) != 3 for x in lines):
        print("okfpro: unexpected pre-receive input; refusing the push", file=err)
        return 1
    if not touches:
        return 0
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
        reason = decide(pusher, old, new, ref, _is_ancestor) if pusher is not None else why
        if reason:
            refused.append(f"okfpro: refused {ref}: {reason}")
    for line in refused:
        print(line, file=err)
    return 1 if refused else 0


def install(repo: Path, config: Path | None, python: str = sys.executable) -> Path:
    """Write ``hooks/pre-receive`` of the bare repository ``repo``; returns its path."""
    if not (repo / "objects").is_dir() or not (repo / "HEAD").is_file():
        raise ValueError(f"{repo} is not a bare Git repository")
    config = config or (repo / CONFIG_NAME)
    hook = repo / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    script = ("#!/bin/sh\n# okfpro memory server-hook: who owns which memory ref\n"
              f"exec {shlex.quote(python)} -m okfpro memory server-hook --config {shlex.quote(str(config))}\n")
    tmp = hook.with_name(f".pre-receive.{os.getpid()}")
    tmp.write_text(script)
    tmp.chmod(0o755)
    os.replace(tmp, hook)
    return hook
