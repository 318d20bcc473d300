"""``okfpro memory`` as a user runs it: real processes, real stdin, real exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from okfpro.core.scope import Scope, memory_path
from tests.helpers import invoke, memory_workspace, scoped_env

def base_env(**parts: str) -> dict[str, str]:
    return scoped_env(**parts)


def run(ws: Path, env: dict[str, str], *args: str, stdin: str | None = None, cwd: Path | None = None):
    return invoke("memory", *args, cwd=cwd or ws, base_env=env, stdin=stdin, text=False)


@pytest.fixture
def ws(tmp_path):
    return memory_workspace(tmp_path)


ALICE = dict(OKFPRO_TENANT="acme", OKFPRO_USER="alice")


def test_remember_recall_list_log_forget(ws):
    env = base_env(**ALICE)
    p = run(ws, env, "remember", "the build cache lives in /var/cache/okf")
    assert p.returncode == 0, p.stderr
    assert b"remembered m-" in p.stdout and b" as memory-user/" in p.stdout
    target_dir = ws / ".okf-memory" / memory_path("user", Scope(tenant="acme", user="alice"))
    assert len(list(target_dir.glob("*.md"))) == 1

    p = run(ws, env, "recall", "build cache", "--json")
    assert p.returncode == 0
    data = json.loads(p.stdout)
    assert data["scope"] == {"tenant": "acme", "user": "alice", "agent": None, "session": None}
    (hit,) = data["passages"]
    assert hit["tier"] == "user" and hit["source_id"] == "memory:user" and hit["score"] >= 0
    assert hit["text"] == "the build cache lives in /var/cache/okf"

    nothing = run(ws, env, "recall", "nothing-like-this")
    assert nothing.returncode == 0 and nothing.stdout == b""  # no match is not an error

    p = run(ws, env, "list", "--json")
    entries = json.loads(p.stdout)["entries"]
    assert [(e["tier"], e["id"]) for e in entries] == [("user", hit["id"])]
    assert set(entries[0]) >= {"tier", "id", "title", "date"}

    p = run(ws, env, "log")
    assert p.returncode == 0 and b"memory user memory-user/" in p.stdout and b"(1 entry)" in p.stdout

    p = run(ws, env, "forget", "--yes")
    assert p.returncode == 0, p.stderr
    assert run(ws, env, "list").stdout == b""
    assert b"forget 1 entry" in run(ws, env, "log").stdout


def test_forget_asks_first(ws):
    env = base_env(**ALICE)
    run(ws, env, "remember", "keep me")
    p = run(ws, env, "forget", stdin="n\n")
    assert p.returncode == 2
    assert b"keep me" in run(ws, env, "list").stdout
    p = run(ws, env, "forget", "--purge", stdin="")  # no answer: nothing happens
    assert p.returncode == 2
    assert b"keep me" in run(ws, env, "list").stdout
    p = run(ws, env, "forget", stdin="y\n")
    assert p.returncode == 0
    assert run(ws, env, "list").stdout == b""


def test_scope_comes_from_env_never_from_text(ws):
    alice, mallory = base_env(**ALICE), base_env(OKFPRO_TENANT="evil", OKFPRO_USER="mallory")
    text = "OKFPRO_TENANT=evil OKFPRO_USER=mallory tenant: evil user: mallory --tier tenant"
    assert run(ws, alice, "remember", text).returncode == 0
    none = run(ws, mallory, "recall", "mallory")
    assert none.returncode == 0 and none.stdout == b""
    assert run(ws, mallory, "list").stdout == b""
    assert b"mallory" in run(ws, alice, "recall", "mallory").stdout


def test_identity_from_okfpro_toml_and_env_overrides(ws):
    (ws / "okfpro.toml").write_text('[identity]\ntenant = "acme"\nuser = "alice"\n')
    env = base_env()
    assert run(ws, env, "remember", "from config").returncode == 0
    assert (ws / ".okf-memory" / memory_path("user", Scope(tenant="acme", user="alice"))).is_dir()
    env_bob = base_env(OKFPRO_USER="bob")
    assert run(ws, env_bob, "list").stdout == b""
    assert run(ws, env_bob, "remember", "bob's").returncode == 0
    assert (ws / ".okf-memory" / memory_path("user", Scope(tenant="acme", user="bob"))).is_dir()


@pytest.mark.parametrize("var", ["OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION"])
@pytest.mark.parametrize("value", ["..", "a/b", "has space", "_local", "caf\u00e9"])
def test_invalid_scope_part_is_a_usage_error(ws, var, value):
    env = base_env(**ALICE)
    env[var] = value
    p = run(ws, env, "remember", "x")
    assert p.returncode == 2
    assert b"scope" in p.stderr
    assert not (ws / ".okf-memory").exists()


def test_tier_without_its_segment_is_refused(ws):
    env = base_env(**ALICE)
    p = run(ws, env, "remember", "x", "--tier", "session")
    assert p.returncode == 2 and b"session" in p.stderr
    assert not (ws / ".okf-memory" / "memory-session").exists()
    env["OKFPRO_SESSION"] = "s1"
    assert run(ws, env, "remember", "x", "--tier", "session").returncode == 0
    assert run(ws, env, "remember", "x", "--tier", "nope").returncode == 2


def test_development_fallback_when_nothing_is_configured(ws):
    """Local mode, no identity anywhere: the labelled development fallback (the OS login) is the
    user — the same scope the hooks resolve, so what the CLI remembers the agent can recall."""
    import getpass

    env = base_env()
    assert run(ws, env, "remember", "local note").returncode == 0
    assert (ws / ".okf-memory" / memory_path("user", Scope(user=getpass.getuser()))).is_dir()
    who = invoke("whoami", "--json", cwd=ws, base_env=env, text=False)
    assert b"fallback" in who.stdout


def test_multi_user_mode_fails_closed(ws):
    (ws / "okfpro.toml").write_text('[memory]\nmode = "multi-user"\n')
    p = run(ws, base_env(), "remember", "x")
    assert p.returncode == 2 and b"multi-user" in p.stderr
    assert not (ws / ".okf-memory").exists()
    assert run(ws, base_env(**ALICE), "remember", "x").returncode == 0


def test_overlapping_roots_refused_with_both_named(ws):
    (ws / "okfpro.toml").write_text('[memory]\nroot = ".okf/memory"\n')
    p = run(ws, base_env(**ALICE), "remember", "x")
    assert p.returncode == 2
    err = p.stderr.decode()
    assert str((ws / ".okf").resolve()) in err and str((ws / ".okf" / "memory").resolve()) in err
    assert not (ws / ".okf" / "memory").exists()


def test_workspace_found_walking_up_and_workspace_option(ws, tmp_path):
    sub = ws / "src" / "deep"
    sub.mkdir(parents=True)
    env = base_env(**ALICE)
    assert run(ws, env, "remember", "from deep", cwd=sub).returncode == 0
    assert (ws / ".okf-memory").is_dir() and not (sub / ".okf-memory").exists()
    other = tmp_path / "elsewhere"
    other.mkdir()
    p = run(ws, env, "--workspace", str(ws), "list", cwd=other)
    assert b"from deep" in p.stdout


def test_remember_reads_stdin_with_dash(ws):
    env = base_env(**ALICE)
    assert run(ws, env, "remember", "-", stdin="line one\nline two\n").returncode == 0
    data = json.loads(run(ws, env, "recall", "two", "--json").stdout)
    assert data["passages"][0]["text"] == "line one\nline two"
    assert run(ws, env, "remember", "-", stdin="   \n").returncode == 2


def test_help_lists_memory_verb():
    p = invoke("--help", text=False)
    assert b"memory" in p.stdout


@pytest.mark.parametrize("tier", ["session", "user", "agent", "tenant"])
def test_cli_isolation_per_tier(ws, tier):
    a = base_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_AGENT="bot", OKFPRO_SESSION="s1")
    b = base_env(OKFPRO_TENANT="Acme", OKFPRO_USER="alice", OKFPRO_AGENT="bot", OKFPRO_SESSION="s1")
    nonce = f"nonce-{os.urandom(6).hex()}"
    assert run(ws, a, "remember", nonce, "--tier", tier).returncode == 0
    a_dir = ws / ".okf-memory" / memory_path(tier, Scope(tenant="acme", user="alice", agent="bot", session="s1"))
    before = {p.name: p.read_bytes() for p in a_dir.iterdir()}
    a_log = run(ws, a, "log", "--tier", tier).stdout
    seen = run(ws, b, "recall", nonce)
    assert seen.returncode == 0 and seen.stdout == b""
    assert nonce.encode() not in run(ws, b, "list").stdout
    assert run(ws, b, "log").stdout == b""
    assert run(ws, b, "forget", "--yes").returncode == 0
    assert run(ws, b, "forget", "--purge", "--yes").returncode == 0
    assert {p.name: p.read_bytes() for p in a_dir.iterdir()} == before
    assert run(ws, a, "log", "--tier", tier).stdout == a_log
    assert nonce.encode() in run(ws, a, "recall", nonce).stdout


def test_remember_goes_through_the_safety_layer_and_the_policy(ws):
    """Explicit memories are redacted before they touch disk, reconciled (duplicate skipped,
    supersession recorded, never overwritten), hidden from recall when superseded or archived,
    and every step leaves a content-free audit event."""
    env = base_env(**ALICE)
    secret = "hunter2-XYZ"
    p = run(ws, env, "remember", f"the deploy password is {secret}")
    assert p.returncode == 0, p.stderr
    assert b"redacted" in p.stderr
    stored = b"".join(f.read_bytes() for f in (ws / ".okf-memory").rglob("*.md"))
    assert secret.encode() not in stored and b"[REDACTED:" in stored

    first = json.loads(run(ws, env, "remember", "we ship on Fridays", "--kind", "decision", "--json").stdout)
    assert first["decision"] == "create" and first["written"]
    dup = run(ws, env, "remember", "we ship on Fridays", "--kind", "decision", "--json")
    assert dup.returncode == 0 and json.loads(dup.stdout)["decision"] == "skip"
    newer = json.loads(run(ws, env, "remember", "we ship on Thursdays", "--kind", "decision",
                           "--supersede", first["id"], "--json").stdout)
    assert newer["decision"] == "supersede" and newer["target_id"] == first["id"]

    shown = json.loads(run(ws, env, "recall", "ship", "--json").stdout)["passages"]
    assert [p["text"] for p in shown] == ["we ship on Thursdays"]
    assert all(not p["text"].startswith("---") for p in shown)
    every = json.loads(run(ws, env, "recall", "ship", "--all", "--json").stdout)["passages"]
    assert {p["text"] for p in every} == {"we ship on Thursdays", "we ship on Fridays"}
    assert {p["status"] for p in every if p["text"] == "we ship on Fridays"} == {"superseded"}

    assert run(ws, env, "change", "archive", newer["id"]).returncode == 0
    assert json.loads(run(ws, env, "recall", "ship", "--json").stdout)["passages"] == []
    assert run(ws, env, "change", "archive", "m-000000000000").returncode == 2

    listing = run(ws, env, "list").stdout.decode()
    assert "we ship on Fridays" in listing and "\t---" not in listing

    audit = run(ws, env, "audit", "--json")
    assert audit.returncode == 0
    summary = json.loads(audit.stdout)
    assert summary  # counts exist …
    text = audit.stdout.decode() + (ws / ".okf-memory" / ".audit" / "events.jsonl").read_text()
    for needle in ("alice", "acme", "Fridays", "Thursdays", secret, "deploy"):
        assert needle not in text  # … and hold no identity or content


def test_cli_rough_edges_found_by_qa(ws):
    env = base_env(**ALICE)
    # invalid UTF-8 on stdin: a clear refusal, nothing written
    p = invoke("memory", "remember", "-", cwd=ws, base_env=env, stdin=b"\xff\xfe bad", text=False)
    assert p.returncode == 2 and b"not valid UTF-8" in p.stderr and b"Traceback" not in p.stderr
    assert not list((ws / ".okf-memory").rglob("*.md"))
    # an unquoted multi-word query is one query
    assert run(ws, env, "remember", "we ship on Fridays").returncode == 0
    p = run(ws, env, "recall", "when", "do", "we", "ship")
    assert p.returncode == 0 and b"we ship on Fridays" in p.stdout
    # no answer to forget's question: refused, with the way out named
    p = run(ws, env, "forget", stdin="")
    assert p.returncode == 2 and b"--yes" in p.stderr
    assert b"we ship on Fridays" in run(ws, env, "list").stdout
    # a reserved segment is named once
    p = run(ws, base_env(OKFPRO_USER="_local"), "list")
    assert p.returncode == 2 and p.stderr.count(b"_local") == 1
