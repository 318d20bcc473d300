"""Scope value, segment validation, the one path function, applicability (pure)."""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import pygit2
import pytest

from okfpro.core import scope as scope_mod
from okfpro.core.scope import (
    LOCAL,
    TIERS,
    Scope,
    ScopeError,
    applicable_tiers,
    applies,
    encode_segment,
    history_ref,
    memory_path,
    scope_key,
    write_problem,
)

FIELDS = ("tenant", "user", "agent", "session")

REJECTED = [
    "",
    "..",
    "../evil",
    "a/b",
    "/abs",
    "a\\b",
    "has space",
    " lead",
    "trail ",
    "nul\x00",
    "\x00",
    "tab\tx",
    "new\nline",
    "café",
    "ünïcode",
    "日本",
    "_local",
    ".hidden",
    "-dash",
    "a:b",
    "a*b",
    "x" * 129,
]
ACCEPTED = ["a", "A", "0", "_x", "acme", "Acme", "a.", "a..b", "a-b_c.d", "Sess1", "x" * 128]


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", REJECTED)
def test_every_rejected_segment_is_rejected_for_every_field(field, value):
    with pytest.raises(ScopeError) as info:
        Scope(**{field: value})
    assert field in str(info.value)


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", [1, b"acme", ["a"]])
def test_non_string_segment_rejected(field, value):
    with pytest.raises(ScopeError):
        Scope(**{field: value})


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", ACCEPTED)
def test_valid_segments_kept_as_given(field, value):
    s = Scope(**{field: value})
    assert getattr(s, field) == value
    assert not s.is_local


def test_scope_is_immutable_and_case_sensitive():
    s = Scope(tenant="acme")
    with pytest.raises(AttributeError):
        s.tenant = "other"  # type: ignore[misc]  # the assignment a frozen value refuses, on purpose
    assert Scope(tenant="Acme") != Scope(tenant="acme")
    assert Scope() == scope_mod.LOCAL_SCOPE and Scope().is_local


def test_encoding_matches_the_reference_examples():
    assert encode_segment("acme") == "acme-822b33ad87c148a0"
    assert encode_segment("Acme") == "acme-37036cd8f9746d33"
    assert encode_segment("alice") == "alice-2bd806c97f0e00af"
    assert encode_segment(None) == LOCAL
    for raw in ACCEPTED:
        enc = encode_segment(raw)
        assert enc == f"{raw.lower()}-{hashlib.sha256(raw.encode()).hexdigest()[:16]}"
        assert re.fullmatch(r"[a-z0-9_.-]+-[0-9a-f]{16}", enc)


def test_path_function_per_tier():
    full = Scope(tenant="acme", user="alice", agent="bot", session="s1")
    t, u, a = (encode_segment(x) for x in ("acme", "alice", "bot"))
    s = encode_segment("s1", hint=False)
    assert s == "s-" + hashlib.sha256(b"s1").hexdigest()[:16]  # no readable session id
    assert memory_path("tenant", full) == f"memory-tenant/{t}"
    assert memory_path("agent", full) == f"memory-agent/{t}/{a}"
    assert memory_path("user", full) == f"memory-user/{t}/{u}"
    assert memory_path("session", full) == f"memory-session/{t}/{u}/{s}"
    assert memory_path("user", Scope(user="alice")) == f"memory-user/_local/{u}"
    local = Scope()
    assert memory_path("tenant", local) == "memory-tenant/_local"
    assert memory_path("agent", local) == "memory-agent/_local/_local"
    assert memory_path("user", local) == "memory-user/_local/_local"
    assert memory_path("session", local) == "memory-session/_local/_local/_local"
    for tier in TIERS:
        assert scope_key(tier, full) == memory_path(tier, full)


def test_case_variants_and_same_ids_elsewhere_get_distinct_prefixes():
    pairs = [
        (Scope(tenant="Acme", user="alice", session="s"), Scope(tenant="acme", user="alice", session="s")),
        (Scope(tenant="acme", user="Sess1", session="s"), Scope(tenant="acme", user="sess1", session="s")),
        (Scope(tenant="a", user="alice", session="s1"), Scope(tenant="b", user="alice", session="s1")),
        (Scope(tenant="a", user="alice", session="s1"), Scope(tenant="a", user="bob", session="s1")),
    ]
    for x, y in pairs:
        assert memory_path("session", x) != memory_path("session", y)
        assert memory_path("session", x).lower() != memory_path("session", y).lower()


def test_unknown_tier_is_a_programming_error():
    with pytest.raises(ScopeError):
        memory_path("global", Scope())
    with pytest.raises(ScopeError):
        applies("team", Scope())
    assert "unknown memory tier" in write_problem("global", Scope())


def test_applicability():
    assert applicable_tiers(Scope()) == list(TIERS)
    assert applicable_tiers(Scope(tenant="t")) == ["tenant"]
    assert applicable_tiers(Scope(tenant="t", user="u")) == ["user", "tenant"]
    assert applicable_tiers(Scope(tenant="t", agent="a")) == ["agent", "tenant"]
    assert applicable_tiers(Scope(tenant="t", user="u", agent="a", session="s")) == list(TIERS)
    assert applicable_tiers(Scope(user="u", session="s")) == ["session", "user"]
    assert applicable_tiers(Scope(tenant="t", user="u"), configured=("user",)) == ["user"]
    assert write_problem("session", Scope(tenant="t", user="u")) is not None
    assert "session" in write_problem("session", Scope(tenant="t", user="u"))
    assert write_problem("session", Scope()) is None
    assert write_problem("agent", Scope(user="u")) is not None


def test_history_refs_are_valid_git_ref_names():
    odd = Scope(tenant="a..b", user="x.", agent="_", session="a...z")
    for tier in TIERS:
        for s in (odd, Scope(), Scope(tenant="acme", user="alice", agent="bot", session="s1")):
            name = history_ref(tier, s)
            assert name.startswith(f"refs/okfpro/memory/{tier}/memory-{tier}/")
            assert pygit2.reference_is_valid_name(name), name
    assert history_ref("user", Scope(tenant="a..b")) != history_ref("user", Scope(tenant="a.-.b"))


def test_scope_module_is_pure():
    source = Path(scope_mod.__file__).read_text(encoding="utf-8")
    allowed = {"__future__", "re", "hashlib", "okfpro.core.record"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "okfpro.core":  # from okfpro.core import record
            names = [f"okfpro.core.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module if (node.module or "").startswith("okfpro.") else (node.module or "").split(".")[0]]
        else:
            continue
        assert set(names) <= allowed, names
