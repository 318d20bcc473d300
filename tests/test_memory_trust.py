"""Attacks on memory identity, erasure and containment (issue #10, items 1-3).

Every test drives real ``okfpro`` processes (the CLI, or ``okfpro hook EVENT`` with the
JSON event on stdin) against a real workspace, as a host or a hostile local user would.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from okfpro.core.scope import Scope, history_ref, memory_path
from tests.helpers import REPO, invoke, run_okfpro, without_git_vars

SCOPE_VARS = ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_TODAY")
ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
BOB = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "bob"}
SESSION = "2f6c1e0a-alice-session"
PLAN = "the merger codename is bluefalcon"


def env_of(**parts: str) -> dict[str, str]:
    env = {k: v for k, v in without_git_vars().items() if k not in SCOPE_VARS}
    env["PYTHONPATH"] = str(REPO)
    env.update(parts)
    return env


def okf(ws: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """A verb, in this process (tests.helpers.invoke)."""
    return invoke(*args, cwd=ws, base_env=env, stdin=stdin)


def mem(ws: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return okf(ws, env, "memory", *args)


def hook(ws: Path, env: dict[str, str], event: str, payload: dict) -> subprocess.CompletedProcess:
    """A hook event: a real process, as the host starts one."""
    payload = {"cwd": str(ws), **payload}
    return run_okfpro("hook", event, cwd=ws, base_env=env, stdin=json.dumps(payload))


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


@pytest.mark.parametrize("intruder", [{"OKFPRO_TENANT": "acme", "OKFPRO_USER": "mallory"}, {}],
                         ids=["other-identity", "os-login"])
def test_knowing_alices_session_id_cannot_switch_off_her_memory(ws: Path, intruder: dict) -> None:
    """Only the host resolver or okfpro.toml may latch a session poisoned: an intruder who knows
    her session id is refused, and her own next prompt still recalls (issue #10 residual)."""
    alice_with_a_bound_session(ws)
    (ws / "okfpro.toml").write_text("[memory]\ncapture = true\n")
    (ws / "turn.jsonl").write_text(json.dumps({"type": "user", "message": {"role": "user", "content":
                                   "remember the intruder was here"}}) + "\n")
    for _ in range(2):
        p = prompt(ws, env_of(**intruder), SESSION, "what is the merger codename")
        assert p.returncode == 0 and "bluefalcon" not in p.stdout, p.stdout
        p = hook(ws, env_of(**intruder), "stop", {"hook_event_name": "Stop", "session_id": SESSION,
                                                  "transcript_path": str(ws / "turn.jsonl")})
        assert p.returncode == 0, p.stderr
    p = prompt(ws, env_of(**ALICE), SESSION, "what is the merger codename")
    assert p.returncode == 0 and "bluefalcon" in p.stdout, (p.stdout, p.stderr)
    who = json.loads(okf(ws, env_of(**ALICE, OKFPRO_SESSION=SESSION), "whoami", "--json").stdout)
    assert who["scope"]["user"] == "alice" and not who["poisoned"] and who["session_bound"]


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


# ----------------------------------------------------------------------------- 2. erasure


def objects_text(ws: Path) -> str:
    gitdir = ws / ".okf-memory" / ".okf-history.git"
    if not gitdir.exists():
        return ""
    out = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True, check=True).stdout
    return out.decode("utf-8", "replace")


def shared_memory_of_alice(ws: Path) -> None:
    for tier, text in (("tenant", "tenant-wide: the office wifi is guestnet"),
                       ("agent", "agent-wide: bot prefers ruff")):
        p = mem(ws, env_of(**ALICE, OKFPRO_AGENT="bot"), "remember", "--tier", tier, text)
        assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("args", [["forget"], ["forget", "--purge"]])
def test_a_users_forget_leaves_the_shared_tiers_alone(ws: Path, args: list) -> None:
    shared_memory_of_alice(ws)
    p = mem(ws, env_of(**BOB, OKFPRO_AGENT="bot"), *args, "--yes")
    assert p.returncode == 0, p.stderr
    for query in ("office wifi", "bot prefers"):
        got = mem(ws, env_of(**ALICE, OKFPRO_AGENT="bot"), "recall", *query.split(), "--json")
        assert json.loads(got.stdout)["passages"], (query, p.stdout)
    assert "guestnet" in objects_text(ws)


@pytest.mark.parametrize("tier", ["tenant", "agent"])
@pytest.mark.parametrize("toml", ["[memory]\n", '[memory]\nmode = "multi-user"\n',
                                  '[memory]\n[memory.maintainers]\ntenant = ["acme/carol"]\nagent = ["acme/carol"]\n'])
def test_a_shared_tier_is_erased_only_by_a_named_maintainer(ws: Path, tier: str, toml: str) -> None:
    shared_memory_of_alice(ws)
    (ws / "okfpro.toml").write_text(toml)
    for who in (BOB, ALICE):  # not even the one who wrote it
        for purge in ([], ["--purge"]):
            p = mem(ws, env_of(**who, OKFPRO_AGENT="bot"), "forget", "--tier", tier, "--yes", *purge)
            assert p.returncode == 2 and "maintainer" in p.stderr, (who, p.stdout, p.stderr)
    assert "guestnet" in objects_text(ws) and "ruff" in objects_text(ws)
    if "carol" in toml:
        p = mem(ws, env_of(OKFPRO_TENANT="acme", OKFPRO_USER="carol", OKFPRO_AGENT="bot"),
                "forget", "--tier", tier, "--purge", "--yes")
        assert p.returncode == 0 and "(verified)" in p.stdout, p.stderr
        gone = "guestnet" if tier == "tenant" else "ruff"
        assert gone not in objects_text(ws) and gone not in all_text(ws / ".okf-memory")


def test_local_modes_single_user_maintains_the_shared_tiers(ws: Path) -> None:
    (ws / "okfpro.toml").write_text('[memory]\n[identity]\ntenant = "home"\nuser = "me"\n')
    p = mem(ws, env_of(), "remember", "--tier", "tenant", "local: the printer is on floor two")
    assert p.returncode == 0, p.stderr
    # the environment making someone else of the caller does not inherit the workspace's single user
    p = mem(ws, env_of(OKFPRO_USER="bob"), "forget", "--tier", "tenant", "--purge", "--yes")
    assert p.returncode == 2 and "maintainer" in p.stderr
    p = mem(ws, env_of(), "forget", "--tier", "tenant", "--purge", "--yes")
    assert p.returncode == 0 and "(verified)" in p.stdout, p.stderr
    assert "printer" not in objects_text(ws)
    # no identity configured at all: the OS login is the single user (agent tier needs only an agent)
    (ws / "okfpro.toml").write_text("[memory]\n")
    assert mem(ws, env_of(OKFPRO_AGENT="bot"), "remember", "--tier", "agent", "bot: use ruff").returncode == 0
    p = mem(ws, env_of(OKFPRO_AGENT="bot"), "forget", "--tier", "agent", "--purge", "--yes")
    assert p.returncode == 0 and "(verified)" in p.stdout, p.stderr


def session_end(ws: Path, env: dict, session: str) -> None:
    p = hook(ws, env, "session-end", {"hook_event_name": "SessionEnd", "session_id": session})
    assert p.returncode == 0, p.stderr


def test_a_purge_erases_every_session_of_the_user_including_cleaned_ones(ws: Path) -> None:
    texts = {"live": "live session: the staging host is kestrel",
             "cleaned": "cleaned session: the canary host is merlin",
             "user": PLAN}
    assert mem(ws, env_of(**ALICE), "remember", texts["user"]).returncode == 0
    for sid, key in (("sess-live-1", "live"), ("sess-cleaned-2", "cleaned")):
        p = mem(ws, env_of(**ALICE, OKFPRO_SESSION=sid), "remember", "--tier", "session", texts[key])
        assert p.returncode == 0, p.stderr
    session_end(ws, env_of(**ALICE), "sess-cleaned-2")  # cleaned: files gone, text still in history
    assert "merlin" in objects_text(ws)
    # bob's session must survive alice's erasure
    assert mem(ws, env_of(**BOB, OKFPRO_SESSION="sess-bob"), "remember", "--tier", "session",
               "bob session: the build farm is osprey").returncode == 0

    p = mem(ws, env_of(**ALICE), "forget", "--purge", "--yes")  # no session id presented at all
    assert p.returncode == 0 and "(verified)" in p.stdout, (p.stdout, p.stderr)
    left = objects_text(ws) + all_text(ws / ".okf-memory")
    for word in ("kestrel", "merlin", "bluefalcon"):
        assert word not in left, word
    assert "osprey" in left
    listed = mem(ws, env_of(**ALICE, OKFPRO_SESSION="sess-live-1"), "list", "--json")
    assert json.loads(listed.stdout)["entries"] == []


def test_a_plain_forget_covers_every_session_of_the_user(ws: Path) -> None:
    assert mem(ws, env_of(**ALICE, OKFPRO_SESSION="s-a"), "remember", "--tier", "session",
               "session a: kestrel").returncode == 0
    assert mem(ws, env_of(**ALICE, OKFPRO_SESSION="s-b"), "remember", "--tier", "session",
               "session b: merlin").returncode == 0
    p = mem(ws, env_of(**ALICE), "forget", "--yes")
    assert p.returncode == 0, p.stderr
    for sid in ("s-a", "s-b"):
        listed = mem(ws, env_of(**ALICE, OKFPRO_SESSION=sid), "list", "--json")
        assert json.loads(listed.stdout)["entries"] == [], sid
    assert "merlin" in objects_text(ws)  # a forget keeps history; --purge is the hard erasure


def test_a_purge_is_not_verified_while_a_hard_link_keeps_a_copy(ws: Path, tmp_path: Path) -> None:
    assert mem(ws, env_of(**ALICE), "remember", PLAN).returncode == 0
    (day,) = (ws / ".okf-memory" / memory_path("user", Scope("acme", "alice"))).glob("*.md")
    os.link(day, tmp_path / "kept-copy.md")
    p = mem(ws, env_of(**ALICE), "forget", "--purge", "--yes")
    assert "(verified)" not in p.stdout and p.returncode == 2, (p.stdout, p.stderr)
    assert "hard link" in p.stderr


# ----------------------------------------------------------------------------- 3. containment


def user_dir(ws: Path, who: dict) -> Path:
    return ws / ".okf-memory" / memory_path("user", Scope(who["OKFPRO_TENANT"], who["OKFPRO_USER"]))


@pytest.mark.parametrize("name", ["2026-11-29.md", "2099-01-01.md"])
def test_a_hard_link_into_another_scope_is_refused_like_a_symlink(ws: Path, name: str) -> None:
    assert mem(ws, env_of(**ALICE), "remember", PLAN).returncode == 0
    assert mem(ws, env_of(**BOB), "remember", "bob: lunch at noon").returncode == 0
    (alice_day,) = user_dir(ws, ALICE).glob("*.md")
    os.link(alice_day, user_dir(ws, BOB) / name)  # bob (or anyone) links her file into his scope
    for args in (("recall", "merger", "codename", "--json"), ("list", "--json")):
        p = mem(ws, env_of(**BOB), *args)
        assert p.returncode == 0 and "bluefalcon" not in p.stdout, p.stdout
        assert "hard link" in p.stdout or "hard link" in p.stderr
    p = prompt(ws, env_of(**BOB), "s-bob", "what is the merger codename")
    assert p.returncode == 0 and "bluefalcon" not in p.stdout
    # writing through the link would copy her text into his file, or his into hers: refused
    (bob_today,) = [d for d in user_dir(ws, BOB).glob("*.md") if d.name != name]
    os.unlink(bob_today)
    os.link(alice_day, bob_today)
    before = alice_day.read_bytes()
    p = mem(ws, env_of(**BOB), "remember", "bob: appended through a link")
    assert p.returncode == 2 and "hard link" in p.stderr, (p.stdout, p.stderr)
    assert alice_day.read_bytes() == before


def test_a_hand_edited_ref_pointing_at_another_scopes_commits_is_not_shown(ws: Path) -> None:
    assert mem(ws, env_of(**ALICE), "remember", PLAN).returncode == 0
    assert mem(ws, env_of(**BOB), "remember", "bob: lunch at noon").returncode == 0
    gitdir = ws / ".okf-memory" / ".okf-history.git"
    alice_ref = history_ref("user", Scope("acme", "alice"))
    bob_ref = history_ref("user", Scope("acme", "bob"))
    alice_tip = subprocess.run(["git", f"--git-dir={gitdir}", "rev-parse", alice_ref], capture_output=True,
                               text=True, check=True).stdout.strip()
    # a tree-only forgery too: bob's own message over a tree holding alice's subtree
    for target in (alice_tip, None):
        if target is None:
            tree = subprocess.run(["git", f"--git-dir={gitdir}", "rev-parse", f"{alice_tip}^{{tree}}"],
                                  capture_output=True, text=True, check=True).stdout.strip()
            msg = f"memory user {memory_path('user', Scope('acme', 'bob'))}: remember 2026-11-30#1 (1 entry)\n"
            target = subprocess.run(["git", f"--git-dir={gitdir}", "commit-tree", tree, "-m", msg],
                                    capture_output=True, text=True, check=True, env=env_of()).stdout.strip()
        subprocess.run(["git", f"--git-dir={gitdir}", "update-ref", bob_ref, target], check=True)
        p = mem(ws, env_of(**BOB), "log", "--json")
        assert p.returncode == 0, p.stderr
        commits = json.loads(p.stdout)["commits"]
        assert target not in [c["commit"] for c in commits] and alice_tip not in [c["commit"] for c in commits]
        assert "alice" not in p.stdout and "not this scope's history" in p.stderr


@pytest.mark.parametrize("inner", [".audit", ".okf-locks", ".okf-index"])
def test_audit_and_lock_directories_are_never_followed_through_a_symlink(ws: Path, tmp_path: Path,
                                                                         inner: str) -> None:
    assert mem(ws, env_of(**ALICE), "remember", "first: seed the root").returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    root = ws / ".okf-memory"
    import shutil

    shutil.rmtree(root / inner, ignore_errors=True)
    (root / inner).symlink_to(outside, target_is_directory=True)
    p = mem(ws, env_of(**ALICE), "remember", "second: through the link?")
    mem(ws, env_of(**ALICE), "recall", "second", "--json")
    prompt(ws, env_of(**ALICE), "s-1", "what came second")
    assert list(outside.iterdir()) == [], (p.stdout, p.stderr)
    mem(ws, env_of(**ALICE), "forget", "--yes")
    assert list(outside.iterdir()) == [], (p.stdout, p.stderr)
    if inner == ".okf-locks":
        assert p.returncode == 2 and "symbolic link" in p.stderr


def test_forget_and_purge_never_unlink_through_a_symlinked_index_directory(ws: Path, tmp_path: Path) -> None:
    """The index directory swapped for a link to somewhere else: the files there that carry the
    names our index would use are not ours, and forget / purge leave them alone."""
    from okfpro.core.scope import scope_key
    from okfpro.memory.indexfiles import index_files, key_path

    assert mem(ws, env_of(**ALICE), "remember", "first: seed the root").returncode == 0
    root = ws / ".okf-memory"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    import shutil

    shutil.rmtree(root / ".okf-index", ignore_errors=True)
    (root / ".okf-index").symlink_to(outside, target_is_directory=True)
    victims = [Path(p) for p in index_files(key_path(root, scope_key("user", Scope("acme", "alice"))))]
    for v in victims:
        v.write_text("precious\n")
    for args in (("forget", "--yes"), ("forget", "--purge", "--yes")):
        mem(ws, env_of(**ALICE), *args)
        assert all(v.read_text() == "precious\n" for v in victims), args


def test_audit_file_symlinked_out_is_not_appended_to(ws: Path, tmp_path: Path) -> None:
    assert mem(ws, env_of(**ALICE), "remember", "first: seed the root").returncode == 0
    victim = tmp_path / "victim.log"
    victim.write_text("precious\n")
    events = ws / ".okf-memory" / ".audit" / "events.jsonl"
    events.unlink()
    events.symlink_to(victim)
    mem(ws, env_of(**ALICE), "remember", "second: through the link?")
    assert victim.read_text() == "precious\n"


def test_memory_audit_shows_only_the_callers_events_unless_a_maintainer(ws: Path) -> None:
    for who, n in ((ALICE, 3), (BOB, 1)):
        for i in range(n):
            assert mem(ws, env_of(**who), "remember", f"{who['OKFPRO_USER']} note {i}").returncode == 0
    def audit(who: dict) -> dict:
        p = mem(ws, env_of(**who), "audit", "--json")
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    bob = audit(BOB)
    alice = audit(ALICE)
    assert bob["identities"] == 1 and alice["identities"] == 1
    assert bob["events"] < alice["events"]
    assert audit(env_of(OKFPRO_TENANT="acme", OKFPRO_USER="mallory"))["events"] == 0
    (ws / "okfpro.toml").write_text('[memory]\n[memory.maintainers]\naudit = ["acme/carol"]\n')
    carol = audit({"OKFPRO_TENANT": "acme", "OKFPRO_USER": "carol"})
    assert carol["identities"] == 2 and carol["events"] == bob["events"] + alice["events"]
    assert audit(BOB) == bob


@pytest.mark.parametrize("toml", ["[memory]\n", '[memory]\nmode = "multi-user"\n'])
def test_a_session_id_cannot_end_alices_session_or_read_it_in_any_mode(ws: Path, toml: str) -> None:
    alice_with_a_bound_session(ws)
    (ws / "okfpro.toml").write_text(toml)
    session_dir = ws / ".okf-memory" / memory_path("session", Scope("acme", "alice", None, SESSION))
    assert list(session_dir.glob("*.md"))
    # SessionEnd from someone presenting her session id: her session tier stays
    p = hook(ws, env_of(), "session-end", {"hook_event_name": "SessionEnd", "session_id": SESSION})
    assert p.returncode == 0, p.stderr
    assert list(session_dir.glob("*.md"))
    for env in (env_of(OKFPRO_SESSION=SESSION), env_of(OKFPRO_SESSION=SESSION, OKFPRO_AGENT="bot")):
        p = mem(ws, env, "recall", "merger", "codename", "--json")
        assert "bluefalcon" not in p.stdout
        p = okf(ws, env, "whoami", "--json")
        assert "alice" not in p.stdout


@pytest.mark.xdist_group("mcp")  # with the MCP tests: one worker imports the SDK
def test_forget_over_mcp_follows_the_same_erasure_policy(ws: Path) -> None:
    pytest.importorskip("mcp")
    import anyio

    from tests.mcpkit import call, server_env, stdio_client

    shared_memory_of_alice(ws)
    assert mem(ws, env_of(**BOB), "remember", "bob: lunch at noon").returncode == 0

    async def main() -> None:
        async with stdio_client(ws / ".okf", server_env(**BOB, OKFPRO_AGENT="bot")) as bob:
            err, got = await call(bob, "memory_forget", {"confirm": True})
            assert not err, got
            for tier in ("tenant", "agent"):
                err, text = await call(bob, "memory_forget", {"confirm": True, "tier": tier})
                assert err and "maintainer" in str(text), text

    anyio.run(main)
    for query in ("office wifi", "bot prefers"):
        got = mem(ws, env_of(**ALICE, OKFPRO_AGENT="bot"), "recall", *query.split(), "--json")
        assert json.loads(got.stdout)["passages"], query
    got = mem(ws, env_of(**BOB), "recall", "lunch", "--json")
    assert json.loads(got.stdout)["passages"] == []
    # erasure over MCP is audited like the CLI's, the refused shared-tier attempts included
    got = [(e["event"], e["tier"], e["outcome"]) for e in _erasure_events(ws)]
    assert got == [("delete", "subject", "ok"), ("delete", "tenant", "refused"), ("delete", "agent", "refused")], got


def test_list_and_log_show_every_session_of_the_user_and_filter_by_one(ws: Path) -> None:
    """`memory list` / `memory log` cover what the resolved identity may read (every session of
    the user, as erasure does, plus the user tier), `--session` narrows to one of the user's own
    sessions, and naming someone else's session id shows nothing of theirs."""
    for s in ("sess-one", "sess-two"):
        assert mem(ws, env_of(**ALICE, OKFPRO_SESSION=s), "remember", "--tier", "session",
                   f"alice note in {s}").returncode == 0
    assert mem(ws, env_of(**ALICE), "remember", "alice user note").returncode == 0
    assert mem(ws, env_of(**BOB, OKFPRO_SESSION="bob-sess"), "remember", "--tier", "session",
               "bob note in his session").returncode == 0

    def listed(env: dict, *extra: str) -> str:
        p = mem(ws, env, "list", "--json", *extra)
        assert p.returncode == 0, p.stderr
        return json.dumps(json.loads(p.stdout)["entries"])

    def commits(env: dict, *extra: str) -> int:
        p = mem(ws, env, "log", "--json", *extra)
        assert p.returncode == 0, p.stderr
        return len(json.loads(p.stdout)["commits"])

    for env in (env_of(**ALICE, OKFPRO_SESSION="sess-two"), env_of(**ALICE)):
        everything = listed(env)
        assert all(t in everything for t in ("in sess-one", "in sess-two", "alice user note")), everything
        assert "bob" not in everything
        assert commits(env) == 3
    only = listed(env_of(**ALICE), "--session", "sess-one")
    assert "in sess-one" in only and "in sess-two" not in only and "user note" not in only
    assert commits(env_of(**ALICE), "--session", "sess-one") == 1
    assert commits(env_of(**ALICE), "--tier", "user") == 1
    # another user's session id names alice's (empty) session of that id, never bob's
    assert listed(env_of(**ALICE), "--session", "bob-sess") == "[]"
    assert commits(env_of(**ALICE), "--session", "bob-sess") == 0
    bobs = listed(env_of(**BOB))
    assert "bob note" in bobs and "alice" not in bobs
    for bad in ("../sess-one", "a/b", ""):
        p = mem(ws, env_of(**ALICE), "list", "--session", bad)
        assert p.returncode == 2 and "session" in p.stderr, (bad, p.stderr)


def _erasure_events(ws: Path) -> list[dict]:
    path = ws / ".okf-memory" / ".audit" / "events.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return [r for r in rows if r["event"] in ("delete", "purge")]


def test_forget_and_purge_through_the_cli_are_audited(ws: Path) -> None:
    """Erasure through `okfpro memory forget` writes the same content-free audit event as every
    other door: done, purged (with the verification), and refused (a shared tier, no maintainer)."""
    shared_memory_of_alice(ws)
    assert mem(ws, env_of(**ALICE), "remember", PLAN).returncode == 0
    assert mem(ws, env_of(**BOB), "remember", "bob: lunch at noon").returncode == 0
    assert mem(ws, env_of(**BOB), "forget", "--yes").returncode == 0
    assert mem(ws, env_of(**BOB, OKFPRO_AGENT="bot"), "forget", "--tier", "tenant", "--yes").returncode == 2
    assert mem(ws, env_of(**ALICE), "forget", "--purge", "--yes").returncode == 0
    got = [(e["event"], e["tier"], e["outcome"], e.get("surface"), e.get("decision")) for e in _erasure_events(ws)]
    assert got == [("delete", "subject", "ok", "cli", None), ("delete", "tenant", "refused", "cli", None),
                   ("purge", "subject", "ok", "cli", "verified")], got
    audit = (ws / ".okf-memory" / ".audit" / "events.jsonl").read_text()
    assert "lunch" not in audit and "bob" not in audit and "alice" not in audit
    summary = json.loads(mem(ws, env_of(**ALICE), "audit", "--json").stdout)
    assert "purge" in json.dumps(summary)
