"""Memory scopes: who a memory belongs to, and the one function that says where it lives.

A :class:`Scope` is an immutable value with four optional parts, ``tenant``, ``user``,
``agent`` and ``session``.  All four absent is the *local* scope (one person on one
machine).  A scope always comes from configuration or the host, never from the text
being remembered.

Tiers, most specific first: ``session`` → ``user`` → ``agent`` → ``tenant``.  The tenant
is the outer scope: every tier nests under it, so an agent is never a scope on its own.

:func:`memory_path` is the only place that turns (tier, scope) into a location.  Its
output is a ``/``-joined relative prefix, and that same string is the opaque *scope
key* that the store API, commit messages and any wire protocol carry.  Changing the
key scheme means changing that function and nothing else.

Pure: no file system, no Git.
"""

from __future__ import annotations

import re

from hashlib import sha256
from okfpro.core.record import Frozen, set_field

LOCAL = "_local"
"""The sentinel rendered for an absent segment.  Reserved: never a valid segment."""

SEGMENT_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
MAX_SEGMENT = 128
"""Longest accepted segment.  Encoded it becomes ``len + 17`` bytes, well under the
255-byte file-name limit of common file systems."""

TIERS: tuple[str, ...] = ("session", "user", "agent", "tenant")
"""Every tier, in read order (most specific first)."""

FIELDS: tuple[str, ...] = ("tenant", "user", "agent", "session")

# tier -> the scope parts its prefix is made of (outer first); the last one is the
# tier's own key segment, which decides whether the tier applies to a scope.
_TIER_PARTS: dict[str, tuple[str, ...]] = {
    "tenant": ("tenant",),
    "agent": ("tenant", "agent"),
    "user": ("tenant", "user"),
    "session": ("tenant", "user", "session"),
}


class ScopeError(ValueError):
    """A scope segment or tier is not acceptable; the message says which and why."""


def segment_problem(value: object) -> str | None:
    """Why ``value`` is not a valid scope segment, or ``None`` when it is."""
    if not isinstance(value, str):
        return f"must be a string, not {type(value).__name__}"
    if value == "":
        return "is empty"
    if value == LOCAL:
        return "is reserved for an absent segment"
    if len(value) > MAX_SEGMENT:
        return f"is longer than {MAX_SEGMENT} characters"
    if not value.isascii():
        return "contains a non-ASCII character"
    if "\x00" in value:
        return "contains a NUL character"
    if not SEGMENT_RE.fullmatch(value):
        bad = sorted({ch for ch in value if not re.fullmatch(r"[A-Za-z0-9_.-]", ch)})
        if bad:
            shown = ", ".join(repr(ch) for ch in bad)
            return f"contains a character outside [A-Za-z0-9_.-] ({shown})"
        return "must start with a letter, a digit or '_'"
    return None


def validate_segment(value: object, field: str = "segment") -> str:
    problem = segment_problem(value)
    if problem is not None:
        raise ScopeError(f"scope {field} {value!r} {problem}")
    return value  # type: ignore[return-value]  # no problem means a str


class Scope(Frozen):
    """Who a memory belongs to.  Parts are case-sensitive (``Acme`` is not ``acme``).
    Frozen; a plain class, not a dataclass (:mod:`okfpro.core.record` says why)."""

    __slots__ = FIELDS
    _fields = FIELDS
    tenant: str | None
    user: str | None
    agent: str | None
    session: str | None

    def __init__(self, tenant: str | None = None, user: str | None = None, agent: str | None = None,
                 session: str | None = None) -> None:
        for name, value in zip(FIELDS, (tenant, user, agent, session)):
            if value is not None:
                validate_segment(value, name)
            set_field(self, name, value)

    @property
    def is_local(self) -> bool:
        return all(getattr(self, name) is None for name in FIELDS)

    def parts(self) -> dict[str, str | None]:
        return {name: getattr(self, name) for name in FIELDS}

    def describe(self) -> str:
        """A short human label, e.g. ``tenant=acme user=alice`` (``local`` when empty)."""
        shown = [f"{k}={v}" for k, v in self.parts().items() if v is not None]
        return " ".join(shown) if shown else "local"


LOCAL_SCOPE = Scope()


def check_tier(tier: object) -> str:
    if tier not in _TIER_PARTS:
        raise ScopeError(f"unknown memory tier {tier!r} (expected one of {', '.join(TIERS)})")
    return tier


def encode_segment(raw: str | None, hint: bool = True) -> str:
    """``None`` → ``_local``; otherwise ``lower(raw)-<first 16 hex of sha256(raw)>``.

    The lower-case part is a readable hint; the hash of the case-sensitive value is the
    discriminator, so ``Acme`` and ``acme`` land in different directories even on a
    case-insensitive file system.  ``hint=False`` gives ``s-<hash>`` alone: what a session
    segment becomes, so the host's session id is never readable from a path, a ref name
    or a commit message.
    """
    if raw is None:
        return LOCAL
    digest = sha256(raw.encode("utf-8")).hexdigest()[:16]
    return f"{raw.lower()}-{digest}" if hint else f"s-{digest}"


def memory_path(tier: str, scope: Scope) -> str:
    """THE path function: the relative prefix of ``scope``'s memory in ``tier``.

    ``tenant → memory-tenant/<T>``, ``agent → memory-agent/<T>/<A>``,
    ``user → memory-user/<T>/<U>``, ``session → memory-session/<T>/<U>/<S>`` where ``<S>``
    is ``s-<hash>`` only (a session id is never readable from the store).
    """
    parts = _TIER_PARTS[check_tier(tier)]
    return "/".join([f"memory-{tier}", *(encode_segment(getattr(scope, p), p != "session") for p in parts)])


def scope_key(tier: str, scope: Scope) -> str:
    """The opaque scope key carried by the API and commit messages (== the prefix)."""
    return memory_path(tier, scope)


def history_ref(tier: str, scope: Scope) -> str:
    """The Git ref holding one scope's history: ``refs/okfpro/memory/<tier>/<prefix>``.

    Git forbids ``..`` inside a ref name, which a valid segment such as ``a..b`` would
    put into the readable hint; such runs are broken with ``-`` here.  The hash suffix
    of every segment still tells scopes apart.
    """
    prefix = memory_path(tier, scope)
    while ".." in prefix:
        prefix = prefix.replace("..", ".-.")
    return f"refs/okfpro/memory/{tier}/{prefix}"


def key_field(tier: str) -> str:
    """The scope part that decides whether ``tier`` applies."""
    return _TIER_PARTS[check_tier(tier)][-1]


def applies(tier: str, scope: Scope) -> bool:
    """A tier applies when its key segment is present; every tier applies to the local scope."""
    if scope.is_local:
        check_tier(tier)
        return True
    return getattr(scope, key_field(tier)) is not None


def applicable_tiers(scope: Scope, configured: tuple[str, ...] | list[str] = TIERS) -> list[str]:
    """The tiers that apply to ``scope``, in read order, limited to ``configured``."""
    return [t for t in TIERS if t in configured and applies(t, scope)]


def write_problem(tier: str, scope: Scope) -> str | None:
    """Why a write of ``scope`` to ``tier`` must be refused, or ``None``."""
    if tier not in _TIER_PARTS:
        return f"unknown memory tier {tier!r} (expected one of {', '.join(TIERS)})"
    if applies(tier, scope):
        return None
    return (
        f"the {tier} tier needs a {key_field(tier)} in the scope ({scope.describe()}); "
        f"refusing to file it under {LOCAL}"
    )
