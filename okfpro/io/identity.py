"""Who is speaking: the memory scope of one hook event or command, and where each part came from.

Resolution order (first that answers wins; the environment overrides the file part by part):

1. **host resolver** — a Python entry point in the group ``okfpro.identity``: a callable taking
   a context mapping (``event``, ``session_id``, ``cwd``, ``workspace``, ``env``) and returning
   the parts (a mapping or an object with ``tenant`` / ``user`` / ``agent``), or ``None``;
2. **explicit configuration** — ``[identity]`` in okfpro.toml;
3. **environment** — ``OKFPRO_TENANT`` / ``OKFPRO_USER`` / ``OKFPRO_AGENT`` (over the file);
4. **development fallback** — the OS login as the user, labelled ``fallback``.

**The session binding confirms, it never supplies.**  The first identity resolved for a
host session id is bound to it in ``<workspace>/.tmp/okfpro-identity/<hash of session
id>.json``.  A session id is not a credential: whoever presents one is resolved by the
steps above as if they had none, and the binding is then only compared with that answer.
A resolution that disagrees is refused, never misfiled.  It latches the session
*poisoned* (capture and recall refused for the rest of it: an identity change needs a new
session) only when it came from the host resolver or from okfpro.toml alone; one from the
environment or the development fallback is refused without latching, so whoever merely
knows a session id cannot switch off its owner's memory for that session.

``[memory] mode = "multi-user"``: a host resolver that answers ``None`` or fails, or no
identity from configuration / environment, resolves to *nothing* (fail closed) and the
fallback is refused.  The session id comes from the host event (``session_id``), else from
``OKFPRO_SESSION``.  Identity is never read from prompt, transcript or file text: this
module looks at no field of the event but ``session_id`` (and hands the event to a host
resolver, which is the host's own code).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from hashlib import sha256
from okfpro.core.record import Value
from okfpro.core.scope import LOCAL, Scope, ScopeError, encode_segment, segment_problem
from okfpro.io.clock import utcnow

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook and memory verbs' path
    from typing import Any

    from okfpro.core.event import Event

ENTRY_POINT_GROUP = "okfpro.identity"
PARTS = ("tenant", "user", "agent")
ENV_VARS = {"tenant": "OKFPRO_TENANT", "user": "OKFPRO_USER", "agent": "OKFPRO_AGENT"}
BINDING_DIR = (".tmp", "okfpro-identity")

# provenance labels
RESOLVER = "resolver"
CONFIG = "config"
ENV = "env"
FALLBACK = "fallback"
EVENT = "event"
ABSENT = "absent"


class Resolution(Value):
    """The outcome: a scope (or None when refused) and where each part came from."""

    __slots__ = ("scope", "provenance", "mode", "fallback", "reason", "session_id", "bound", "poisoned")
    _fields = __slots__
    scope: Scope | None
    provenance: dict[str, str]  # part -> label (e.g. "env:OKFPRO_USER")
    mode: str
    fallback: bool
    reason: str | None  # why there is no scope (one line, no secrets)
    session_id: str | None
    bound: bool  # the session binding exists and agrees
    poisoned: bool

    def __init__(self, scope: Scope | None, provenance: dict[str, str] | None = None, mode: str = "local",
                 fallback: bool = False, reason: str | None = None, session_id: str | None = None,
                 bound: bool = False, poisoned: bool = False) -> None:
        self.scope = scope
        self.provenance = {} if provenance is None else provenance
        self.mode = mode
        self.fallback = fallback
        self.reason = reason
        self.session_id = session_id
        self.bound = bound
        self.poisoned = poisoned

    @property
    def ok(self) -> bool:
        return self.scope is not None

    @property
    def capture_allowed(self) -> bool:
        return self.scope is not None and not self.poisoned

    @property
    def recall_allowed(self) -> bool:
        return self.scope is not None and not self.poisoned

    def key_hash(self) -> str | None:
        return identity_hash(self.scope) if self.scope is not None else None

    def to_json(self) -> dict[str, Any]:
        parts = self.scope.parts() if self.scope is not None else {}
        return {
            "resolved": self.scope is not None,
            "mode": self.mode,
            "scope": {name: parts.get(name) for name in (*PARTS, "session")},
            "provenance": dict(self.provenance),
            "fallback": self.fallback,
            "session_bound": self.bound,
            "poisoned": self.poisoned,
            "identity_hash": self.key_hash(),
            "reason": self.reason,
        }


def identity_hash(scope: Scope) -> str:
    """sha256 of the scope key (encoded tenant/user/agent): what audit events carry."""
    key = "/".join(encode_segment(getattr(scope, p)) for p in PARTS)
    return sha256(key.encode("utf-8")).hexdigest()[:16]


def _refuse(mode: str, reason: str, session_id: str | None = None, **extra: Any) -> Resolution:
    return Resolution(None, {}, mode, False, reason, session_id, **extra)


def _session_id(event: Mapping[str, Any] | None, env: Mapping[str, str]) -> str | None:
    value = event.get("session_id") if isinstance(event, Mapping) else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    value = env.get("OKFPRO_SESSION", "")
    return value.strip() or None


def _parts_of(answer: Any) -> dict[str, str | None]:
    if isinstance(answer, Mapping):
        get = answer.get
    else:
        def get(name: str, default: Any = None) -> Any:
            return getattr(answer, name, default)
    out: dict[str, str | None] = {}
    for name in PARTS:
        value = get(name, None)
        if value is None:
            value = get(f"{name}_id", None)
        if value is not None and not isinstance(value, str):
            raise ScopeError(f"host identity resolver returned a non-string {name}")
        out[name] = value or None
    return out


def _declared_anywhere() -> bool:
    """Cheap pre-check: does any installed distribution on sys.path declare the group?

    Reading a few ``entry_points.txt`` files is much cheaper than importing
    importlib.metadata on every hook process; only a hit pays for the real lookup.  Read
    afresh by every process: what it finds is never kept for another caller.
    """
    import sys

    marker = f"[{ENTRY_POINT_GROUP}]"
    return any(_declares(entry or ".", marker) for entry in sys.path)


def _declares(where: str, marker: str) -> bool:
    """Whether a distribution in the folder ``where`` declares ``marker``."""
    try:
        names = os.listdir(where)
    except OSError:
        return False
    for name in names:
        if not name.endswith((".dist-info", ".egg-info")):
            continue
        try:
            with open(os.path.join(where, name, "entry_points.txt"), encoding="utf-8") as handle:
                if marker in handle.read():
                    return True
        except OSError:
            continue
    return False


def host_resolvers() -> list[tuple[str, Any]]:
    """The registered ``okfpro.identity`` entry points, by name (not loaded)."""
    if not _declared_anywhere():
        return []
    from importlib.metadata import entry_points

    try:
        found = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - a broken distribution must not hide the others
        return []
    return sorted(((ep.name, ep) for ep in found), key=lambda pair: pair[0])


def _binding_path(workspace: str, session_id: str) -> str:
    digest = sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(workspace, *BINDING_DIR, f"{digest}.json")


def _read_binding(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.loads(handle.read())
    except (FileNotFoundError, NotADirectoryError):  # .tmp/ missing or not a directory: no binding was ever kept
        return None
    except (OSError, ValueError):
        return {"poisoned": True, "why": f"its identity binding is unreadable: {path}"}
    return data if isinstance(data, dict) else {"poisoned": True, "why": f"its identity binding is unreadable: {path}"}


def _same(binding: Mapping[str, Any], parts: Mapping[str, str | None]) -> bool:
    return all((binding.get(p) or None) == (parts.get(p) or None) for p in PARTS)


def resolve(
    workspace: str | os.PathLike,
    event: Event | Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    config: Any = None,
    bind: bool = True,
) -> Resolution:
    """Resolve the identity for ``event`` in ``workspace``.  Never raises for data problems."""
    from okfpro.io import config as config_mod

    ws = os.fspath(workspace)
    env = os.environ if env is None else env
    from okfpro.core.event import as_event

    event = as_event(event).raw  # the one event type (a test's or the CLI's mapping is wrapped once)
    try:
        cfg = config if config is not None else config_mod.load(ws)
    except (config_mod.ConfigError, OSError) as exc:
        return _refuse("unknown", f"identity: cannot read okfpro.toml ({exc.__class__.__name__})")
    mode = cfg.get("memory", "mode", "local")
    if mode not in ("local", "multi-user"):
        return _refuse(str(mode), f"identity: [memory] mode must be \"local\" or \"multi-user\", not {mode!r}")
    multi = mode == "multi-user"
    session_id = _session_id(event, env)

    parts: dict[str, str | None] = {p: None for p in PARTS}
    prov: dict[str, str] = {}
    fallback = False

    # 1. host resolver
    resolvers = host_resolvers()
    from_resolver = False
    if resolvers:
        name, ep = resolvers[0]
        context = {
            "event": dict(event),
            "session_id": session_id,
            "cwd": event.get("cwd") if isinstance(event.get("cwd"), str) else str(ws),
            "workspace": str(ws),
            "env": dict(env),
        }
        try:
            answer = ep.load()(context)
        except Exception as exc:  # noqa: BLE001 - the host's code; fail closed, say only the type
            return _refuse(mode, f"identity: host resolver {name!r} failed ({exc.__class__.__name__})", session_id)
        if answer is None:
            if multi:
                return _refuse(mode, f"identity: host resolver {name!r} returned no identity (multi-user: fail closed)",
                               session_id)
        else:
            try:
                got = _parts_of(answer)
            except ScopeError as exc:
                return _refuse(mode, f"identity: {exc}", session_id)
            if any(got.values()):
                from_resolver = True
                for p in PARTS:
                    parts[p] = got[p]
                    prov[p] = f"{RESOLVER}:{name}" if got[p] else ABSENT
            elif multi:
                return _refuse(mode, f"identity: host resolver {name!r} returned an empty identity (multi-user: fail closed)",
                               session_id)

    # 3 + 4. configuration, environment over it part by part
    if not from_resolver:
        for p in PARTS:
            value = cfg.get("identity", p, "")
            if value is not None and not isinstance(value, str):
                return _refuse(mode, f"identity: okfpro.toml [identity] {p} must be a string", session_id)
            if value:
                parts[p], prov[p] = value, f"{CONFIG}:okfpro.toml"
            env_value = env.get(ENV_VARS[p], "")
            if env_value:
                parts[p], prov[p] = env_value, f"{ENV}:{ENV_VARS[p]}"
            prov.setdefault(p, ABSENT)

    configured = any(parts.values())

    # 2. the session binding (consulted before the fallback, compared with everything above)
    binding_path = _binding_path(ws, session_id) if session_id else None
    binding = _read_binding(binding_path) if binding_path is not None else None
    if binding is not None and binding.get("poisoned"):
        why = binding.get("why") if isinstance(binding.get("why"), str) else "its identity changed mid-way"
        return _refuse(mode, f"identity: this session is refused capture and recall for the rest of it: {why} "
                             "(start a new session)", session_id, poisoned=True)
    # A session id is not a credential: the binding never supplies an identity.  Whoever
    # presents a session id is resolved on their own (resolver, configuration, environment,
    # fallback) and the binding can only confirm that answer or refuse it below.

    # 5. development fallback
    if not configured:
        if multi:
            return _refuse(mode, "identity: no identity resolved (multi-user mode: fail closed; the development "
                                 "fallback is refused)", session_id)
        try:
            import getpass  # here: only the development fallback asks the system for a login

            login = getpass.getuser()
        except Exception:  # noqa: BLE001 - no login name: stay local
            login = ""
        if login and segment_problem(login) is None:
            parts["user"] = login
            prov["user"] = f"{FALLBACK}:os-login"
        fallback = True

    # the scope value (validated segments)
    if session_id and segment_problem(session_id) is not None:
        return _refuse(mode, f"identity: invalid scope segment: the session id {segment_problem(session_id)}", None)
    session_part = session_id or None
    try:
        scope = Scope(parts["tenant"], parts["user"], parts["agent"], session_part)
    except ScopeError as exc:
        return _refuse(mode, f"identity: {exc}", session_id)
    prov["session"] = f"{EVENT}:session_id" if session_part else ABSENT
    result = Resolution(scope, prov, mode, fallback, None, session_id)

    # 2'. bind on first resolution; a disagreement poisons the session
    if binding_path is not None:
        if binding is None:
            if bind:
                _write_binding(binding_path, parts, prov, fallback)
                result.bound = True
        elif _same(binding, parts):
            result.bound = True
        elif bind and _authoritative(from_resolver, fallback, prov, binding, parts):
            _poison(binding_path, binding)
            return _refuse(mode, "identity: this session was bound to another identity; capture and recall are "
                                 "refused (an identity change needs a new session)", session_id, poisoned=True)
        else:
            # Whoever else presents the session id (an OKFPRO_* variable, the OS login) is refused
            # here and now, but cannot latch the session: knowing a session id must not be
            # enough to switch off its owner's memory.
            return _refuse(mode, "identity: this session id is bound to another identity; this caller is refused "
                                 "(only the host resolver or okfpro.toml can change a session's identity)", session_id)
    return result


def _authoritative(from_resolver: bool, fallback: bool, prov: Mapping[str, str], binding: Mapping[str, Any],
                   parts: Mapping[str, str | None]) -> bool:
    """Whether a resolution that disagrees with a session's binding came from where a session's
    identity may change: the host resolver, or okfpro.toml for every part that differs (not
    the environment, not the development fallback, not a part nobody named).  Only such a
    resolution latches the session poisoned."""
    if from_resolver:
        return True
    if fallback:
        return False
    differ = [p for p in PARTS if (binding.get(p) or None) != (parts.get(p) or None)]
    return bool(differ) and all(prov.get(p, ABSENT).startswith(f"{CONFIG}:") for p in differ)


def _lock_of(binding: str) -> str:
    return os.path.splitext(binding)[0] + ".lock"


def _write_binding(path: str, parts: Mapping[str, str | None], prov: Mapping[str, str], fallback: bool) -> None:
    from okfpro.io.atomic import atomic_write, locked

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with locked(_lock_of(path)):
            if os.path.exists(path):  # another process bound it first: keep theirs (it will be compared next time)
                return
            data: dict[str, Any] = {p: parts.get(p) for p in PARTS}
            data.update(
                provenance={p: prov.get(p, ABSENT) for p in PARTS},
                fallback=fallback,
                bound_at=utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                poisoned=False,
            )
            atomic_write(path, json.dumps(data, sort_keys=True) + "\n", mode=0o600)
    except OSError:
        pass  # an unwritable .tmp/ costs change detection for this session, not the answer


def _poison(path: str, binding: Mapping[str, Any]) -> None:
    from okfpro.io.atomic import atomic_write, locked

    try:
        with locked(_lock_of(path)):
            data = dict(binding)
            data["poisoned"] = True
            data["poisoned_at"] = utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
            atomic_write(path, json.dumps(data, sort_keys=True) + "\n", mode=0o600)
    except OSError:
        pass


def describe(res: Resolution) -> list[str]:
    """Human lines for ``okfpro whoami`` (no secrets: ids and where they came from)."""
    lines: list[str] = []
    if res.scope is None:
        lines.append(f"no identity ({res.mode} mode): {res.reason}")
        return lines
    label = res.scope.describe()
    lines.append(f"scope: {label}  ({res.mode} mode{', development fallback' if res.fallback else ''})")
    for part in (*PARTS, "session"):
        value = getattr(res.scope, part)
        lines.append(f"  {part:<8} {value if value is not None else LOCAL:<24} {res.provenance.get(part, ABSENT)}")
    if res.session_id:
        lines.append(f"  session binding: {'bound' if res.bound else 'not bound'}")
    lines.append(f"  identity hash: {res.key_hash()}")
    return lines


MAINTAINED = ("tenant", "agent", "audit")
"""What ``[memory.maintainers]`` in okfpro.toml names maintainers of: the two shared
tiers (who may ``forget`` / ``forget --purge`` them) and the audit trail (who sees every
identity's events)."""


def maintainer_problem(res: "Resolution | Scope | None", config: Any, what: str) -> str | None:
    """Why the resolved identity may not act as maintainer of ``what`` (``None``: it may).

    ``[memory.maintainers]`` lists identities as ``"tenant/user"`` (``"user"`` alone for
    an identity without a tenant).  A key that is absent names nobody, except in local
    mode, where the workspace's single user maintains everything: the tenant and user
    that okfpro.toml's ``[identity]`` names (the OS login when it names no identity at
    all) — not an identity that the environment made different.  An identity that does
    not resolve is never a maintainer.
    """
    if what not in MAINTAINED:
        raise ValueError(f"unknown maintained thing {what!r}")
    if isinstance(res, Resolution):
        if res.scope is None or res.poisoned:
            return res.reason or "no identity resolved"
        scope, mode = res.scope, res.mode
    elif isinstance(res, Scope):
        scope = res
        mode = config.get("memory", "mode", "local") if config is not None else "local"
    else:
        return "no identity resolved"
    me = f"{scope.tenant}/{scope.user}" if scope.tenant is not None else (scope.user or "")
    table = config.get("memory", "maintainers", None) if config is not None else None
    if table is not None and not isinstance(table, Mapping):
        return "okfpro.toml: [memory.maintainers] must be a table"
    names = table.get(what) if table is not None else None
    if names is None:
        if mode == "local" and (scope.tenant, scope.user) in _local_owner(config):
            return None
        return (f"{scope.describe()} is not a maintainer of {what}: okfpro.toml names nobody "
                f"([memory.maintainers] {what} = [\"tenant/user\", ...])")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return f"okfpro.toml: [memory.maintainers] {what} must be a list of \"tenant/user\" strings"
    if scope.user is not None and me in names:
        return None
    return f"{scope.describe()} is not named in okfpro.toml [memory.maintainers] {what}"


def _local_owner(config: Any) -> list[tuple[str | None, str | None]]:
    """(tenant, user) of local mode's single user: okfpro.toml ``[identity]``, else nobody
    named (no tenant, no user) or the OS login that stands in for it."""
    named = {p: (config.get("identity", p, "") or None) if config is not None else None for p in PARTS}
    if any(isinstance(v, str) for v in named.values()):
        return [(named["tenant"], named["user"])]
    try:
        import getpass

        login = getpass.getuser() or None
    except Exception:  # noqa: BLE001 - no login name
        login = None
    return [(None, None), (None, login)]
