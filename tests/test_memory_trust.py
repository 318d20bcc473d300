"""Attacks on memory identity, erasure and containment (issue #10, items 1-3).

Every test drives real ``okfpro`` processes (the CLI, or ``okfpro hook EVENT`` with the
JSON event on stdin) against a real workspace, as a host or a hostile local user would.
"""

from __future__ import annotations

import getpass
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from okfpro.core.scope import Scope, history_ref, memory_path
from tests.helpers import REPO

SCOPE_VARS = ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_TODAY")
ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
BOB = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "bob"}
SESSION = "2f6c1e0a-alice-session"
PLAN = "the merger codename is bluefalcon"


def env_of(**parts: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCOPE_VARS and not k.startswith("GIT_")}
    env["PYTHONPATH"] = str(REPO)
    env.update(parts)
    return env


def okf(ws: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "okfpro", *args], cwd=ws, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)
    return proc


def mem(ws: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return okf(ws, env, "memory", *args)


def hook(ws: Path, env: dict[str, str], event: str, payload: dict) -> subprocess.CompletedProcess:
    payload = {"cwd": str(ws), **payload}
    return okf(ws, env, "hook", event, stdin=json.dumps(payload))


def prompt(ws: Path, env: dict[str, str], session: str, text: str) -> subprocess.CompletedProcess:
    return hook(ws, env, "user-prompt-submit",
                {"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": text})


def all_text(root: Path) -> str:
    out = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            out.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(out)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    (w / ".okf").mkdir(parents=True)
    (w / ".okf" / "index.md").write_text("# ws\n")
    (w / "okfpro.toml").write_text("[memory]\n")
    return w


def alice_with_a_bound_session(ws: Path) -> None:
    p = mem(ws, env_of(**ALICE), "remember", PLAN)
    assert p.returncode == 0, p.stderr
    p = mem(ws, env_of(**ALICE, OKFPRO_SESSION=SESSION), "remember", "--tier", "session", f"session note: {PLAN}")
    assert p.returncode == 0, p.stderr
    # the host's first event of alice's session binds the session id to acme/alice
    p = prompt(ws, env_of(**ALICE), SESSION, "what is the merger codename")
    assert p.returncode == 0, p.stderr
    assert "bluefalcon" in p.stdout  # alice herself recalls it
    assert list((ws / ".tmp" / "okfpro-identity").glob("*.json"))


# ----------------------------------------------------------------------------- 1. session id


@pytest.mark.parametrize("verb", [
    ("recall", "merger", "codename", "--json"),
    ("list", "--json"),
    ("log", "--json"),
])
def test_a_session_id_in_the_environment_does_not_make_the_caller_alice(ws: Path, verb: tuple) -> None:
    alice_with_a_bound_session(ws)
    intruder = env_of(OKFPRO_SESSION=SESSION)  # no identity: only the OS-login fallback and her session id
    p = mem(ws, intruder, *verb)
    assert "bluefalcon" not in p.stdout and "alice" not in p.stdout, p.stdout
    if p.returncode == 0:
        data = json.loads(p.stdout)
        assert data["scope"]["user"] != "alice"
        assert not data.get("passages") and not data.get("entries") and not data.get("commits")


@pytest.mark.parametrize("purge", [False, True])
def test_a_session_id_in_the_environment_cannot_forget_alices_memory(ws: Path, purge: bool) -> None:
    alice_with_a_bound_session(ws)
    before = all_text(ws / ".okf-memory")
    args = ["forget", "--yes"] + (["--purge"] if purge else [])
    mem(ws, env_of(OKFPRO_SESSION=SESSION), *args)
    p = mem(ws, env_of(**ALICE), "recall", "merger", "codename", "--json")
    assert p.returncode == 0 and PLAN in p.stdout, (p.stdout, p.stderr)
    assert all_text(ws / ".okf-memory").count(PLAN) >= before.count(PLAN) > 0


def test_a_session_id_in_a_hook_event_does_not_make_the_caller_alice(ws: Path) -> None:
    alice_with_a_bound_session(ws)
    p = prompt(ws, env_of(), SESSION, "what is the merger codename")
    assert p.returncode == 0, p.stderr
    assert "bluefalcon" not in p.stdout
    # a refused or other identity: her session tier got nothing from the intruder either
    (ws / "turn.jsonl").write_text(json.dumps({"type": "user", "message": {"role": "user", "content":
                                   "remember the intruder was here"}}) + "\n")
    toml = ws / "okfpro.toml"
    toml.write_text("[memory]\ncapture = true\n")
    hook(ws, env_of(), "stop", {"hook_event_name": "Stop", "session_id": SESSION,
                                "transcript_path": str(ws / "turn.jsonl")})
    alice_dirs = [ws / ".okf-memory" / memory_path("user", Scope("acme", "alice")),
                  (ws / ".okf-memory" / memory_path("session", Scope("acme", "alice", None, SESSION)))]
    for d in alice_dirs:
        assert "intruder" not in "".join(p.read_text() for p in d.glob("*.md"))


def test_the_binding_confirms_an_independently_resolved_identity(ws: Path) -> None:
    alice_with_a_bound_session(ws)
    p = prompt(ws, env_of(**ALICE), SESSION, "what is the merger codename")
    assert p.returncode == 0 and "bluefalcon" in p.stdout
    who = json.loads(okf(ws, env_of(OKFPRO_SESSION=SESSION), "whoami", "--json").stdout)
    assert who["scope"]["user"] != "alice" and who["provenance"].get("user") != "session:bound"


def test_commits_do_not_carry_the_session_id(ws: Path) -> None:
    alice_with_a_bound_session(ws)
    p = mem(ws, env_of(**ALICE, OKFPRO_SESSION=SESSION), "log", "--tier", "session", "--json")
    assert p.returncode == 0, p.stderr
    gitdir = ws / ".okf-memory" / ".okf-history.git"
    out = subprocess.run(["git", f"--git-dir={gitdir}", "log", "--all", "--format=%B%n%an"],
                         capture_output=True, text=True, check=True).stdout
    refs = subprocess.run(["git", f"--git-dir={gitdir}", "for-each-ref", "--format=%(refname)"],
                          capture_output=True, text=True, check=True).stdout
    assert "alice" in out  # the actor is named; the session id is not
    for needle in (SESSION, SESSION.lower(), "2f6c1e0a"):
        assert needle not in out and needle not in refs
        assert not [p for p in (ws / ".okf-memory").rglob("*") if needle in p.name]
