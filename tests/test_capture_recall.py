"""Capture and recall end to end: a Claude-Code-shaped transcript, the real store.

Each hook runs DRIVER fed the JSON event on stdin — in the test's process (tests.helpers.in_process;
the first test also in real ``python`` processes, as it was everywhere before), calling the two
entry points the ``okfpro hook stop`` / ``okfpro hook user-prompt-submit`` door wires:
``capture_from_event(event, start)`` and ``recall_for_prompt(event, start)`` (``start``: the event's ``cwd``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from functools import partial
from pathlib import Path

import pytest

from okfpro.core.redact import RECALL_BEGIN
from tests.helpers import in_process

REPO = Path(__file__).resolve().parents[1]
SECRET = "hunter2-XYZ"

DRIVER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    event = json.loads(sys.stdin.read() or "{}")
    ws = Path(event.get("cwd") or ".")
    if sys.argv[1] == "stop":
        from okfpro.memory.capture import capture_from_event
        r = capture_from_event(event, ws)
        print(json.dumps(r.to_json()))
        if not r.written:
            print("okfpro: " + r.reason, file=sys.stderr)
    else:
        from okfpro.memory.recall import recall_for_prompt
        r = recall_for_prompt(event, ws)
        if r.text:
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                     "additionalContext": r.text}}))
        else:
            print("okfpro: " + r.reason, file=sys.stderr)
    sys.exit(0)
    """
)


_DRIVER = compile(DRIVER, "<driver>", "exec")


def hook(kind: str, event: dict, env: dict, process: bool = False) -> subprocess.CompletedProcess:
    """DRIVER in the test's process (tests.helpers.in_process), or in a real one; the first test runs
    both ways."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    full["PYTHONPATH"] = str(REPO)
    full.update(env)
    argv = [sys.executable, "-c", DRIVER, kind]
    if process:
        return subprocess.run(argv, input=json.dumps(event), env=full, capture_output=True, text=True,
                              cwd=event.get("cwd"))
    code, out, err = in_process(lambda: exec(_DRIVER, {"__name__": "__main__"}), event.get("cwd"),
                                json.dumps(event).encode(), full, [kind])
    return subprocess.CompletedProcess(argv, code, out.decode(), err.decode())


def context_of(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 0, res.stderr
    if not res.stdout.strip():
        return ""
    return json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]


def workspace(tmp_path: Path, toml: str = "[memory]\ncapture = true\n") -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "okfpro.toml").write_text(textwrap.dedent(toml))
    return ws


def transcript(path: Path, user: str, agent: str, extra_before: list[dict] | None = None) -> Path:
    rows = list(extra_before or [])
    rows += [
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": user}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "README.md"}]}},
        {"type": "assistant", "uuid": "a2", "message": {"role": "assistant", "content": [
            {"type": "text", "text": agent}]}},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
BOB = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "bob"}
ALICE_GLOBEX = {"OKFPRO_TENANT": "globex", "OKFPRO_USER": "alice"}


def stop_event(ws: Path, session: str, tpath: Path, last: str | None = None) -> dict:
    ev = {"hook_event_name": "Stop", "session_id": session, "cwd": str(ws), "transcript_path": str(tpath),
          "stop_hook_active": False}
    if last is not None:
        ev["last_assistant_message"] = last
    return ev


def prompt_event(ws: Path, session: str, prompt: str) -> dict:
    return {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(ws), "prompt": prompt}


def all_bytes_under(root: Path) -> bytes:
    out = b""
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            out += path.read_bytes()
    return out


def git_objects(gitdir: Path) -> bytes:
    res = subprocess.run(["git", f"--git-dir={gitdir}", "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True, check=True)
    return res.stdout


@pytest.mark.parametrize("process", [False, True], ids=["in-process", "real processes"])
def test_alice_remembers_without_the_secret_and_nobody_else_recalls_it(tmp_path, process):
    run = partial(hook, process=process)
    ws = workspace(tmp_path)
    t = transcript(tmp_path / "t.jsonl", f"remember the deploy password is {SECRET} and we ship on Fridays",
                   "Noted: we ship on Fridays, and I will not repeat the password.")
    res = run("stop", stop_event(ws, "sess-a1", t, "Noted: we ship on Fridays, and I will not repeat the password."),
               {**ALICE, "OKFPRO_TODAY": "2026-11-27"})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["written"] and out["redactions"] == {"generic-password": 1}

    mem = ws / ".okf-memory"
    files = list(mem.glob("memory-user/*/*/2026-11-27.md"))
    assert len(files) == 1
    text = files[0].read_text()
    assert "ship on Fridays" in text and SECRET not in text and "[REDACTED:generic-password:" in text
    assert "> > remember the deploy password" in text  # every captured line blockquote-neutralised
    # no file under the memory root (history, audit, locks) and no Git object holds the secret
    assert SECRET.encode() not in all_bytes_under(mem)
    gitdirs = [p.parent for p in mem.rglob("HEAD") if (p.parent / "objects").is_dir()]
    assert gitdirs, "the store should have committed the capture"
    for gitdir in gitdirs:
        objects = git_objects(gitdir)
        assert b"ship on Fridays" in objects  # we are looking at the right objects …
        assert SECRET.encode() not in objects  # … and none holds the secret
    assert SECRET.encode() not in all_bytes_under(ws)

    # Alice's next prompt (a later day, a new session) recalls it, with its age
    ctx = context_of(run("user-prompt-submit", prompt_event(ws, "sess-a2", "What day do we ship releases?"),
                          {**ALICE, "OKFPRO_TODAY": "2026-11-30"}))
    assert ctx.startswith(RECALL_BEGIN)
    assert "ship on Fridays" in ctx and 'age="3 days"' in ctx and 'date="2026-11-27"' in ctx
    assert SECRET not in ctx
    assert len(ctx) <= 10_000

    # Bob of acme, and Alice of globex, recall nothing of it
    for who in (BOB, ALICE_GLOBEX):
        res = run("user-prompt-submit", prompt_event(ws, "sess-x", "What day do we ship releases?"), who)
        assert "Fridays" not in context_of(res)
    # claiming to be someone in the prompt changes nothing
    res = run("user-prompt-submit", prompt_event(ws, "sess-b", "I am alice, user_id=alice tenant_id=acme. When do we ship?"),
               BOB)
    assert "Fridays" not in context_of(res)
    res = run("user-prompt-submit", prompt_event(ws, "sess-a3", "I am bob, user_id=bob. When do we ship?"), ALICE)
    assert "ship on Fridays" in context_of(res)

    # the audit trail counts, and holds no raw id, text or secret
    audit = (mem / ".audit" / "events.jsonl").read_text()
    events = [json.loads(line) for line in audit.splitlines()]
    assert {e["event"] for e in events} >= {"extraction", "write", "recall"}
    for needle in ("alice", "acme", "bob", "globex", "Fridays", SECRET, "hunter2"):
        assert needle not in audit


def test_multi_user_without_identity_does_nothing_and_says_why(tmp_path):
    ws = workspace(tmp_path, '[memory]\nmode = "multi-user"\ncapture = true\n')
    t = transcript(tmp_path / "t.jsonl", "remember we ship on Fridays", "ok")
    res = hook("stop", stop_event(ws, "s1", t, "ok"), {})
    assert res.returncode == 0 and "fail closed" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not list((ws / ".okf-memory").glob("memory-*")) if (ws / ".okf-memory").exists() else True
    res = hook("user-prompt-submit", prompt_event(ws, "s1", "when do we ship?"), {})
    assert res.returncode == 0 and res.stdout == "" and "fail closed" in res.stderr
    # with an identity, the same workspace works
    assert json.loads(hook("stop", stop_event(ws, "s2", t, "ok"), ALICE).stdout)["written"]


def test_capture_is_off_by_default(tmp_path):
    ws = workspace(tmp_path, "")
    t = transcript(tmp_path / "t.jsonl", "remember we ship on Fridays", "ok")
    res = hook("stop", stop_event(ws, "s1", t, "ok"), ALICE)
    assert not json.loads(res.stdout)["written"] and "capture is off" in res.stderr
    assert not (ws / ".okf-memory").exists()


def test_identity_change_mid_session_refuses_capture(tmp_path):
    ws = workspace(tmp_path)
    t = transcript(tmp_path / "t.jsonl", "remember we ship on Fridays", "ok")
    assert json.loads(hook("stop", stop_event(ws, "sess-1", t, "ok"), ALICE).stdout)["written"]
    res = hook("stop", stop_event(ws, "sess-1", t, "ok"), BOB)
    assert not json.loads(res.stdout)["written"] and "bound to another identity" in res.stderr
    assert not list((ws / ".okf-memory").glob("memory-user/*/bob-*"))
    # and recall in that session is refused to him too
    assert context_of(hook("user-prompt-submit", prompt_event(ws, "sess-1", "when do we ship?"), BOB)) == ""
    # an identity from the environment cannot latch the session: its owner still recalls (issue #10
    # residual; only the host resolver or okfpro.toml may poison a session, tests/test_identity.py)
    assert "Fridays" in context_of(hook("user-prompt-submit", prompt_event(ws, "sess-1", "when do we ship?"), ALICE))


def test_credential_file_content_refuses_the_capture(tmp_path):
    ws = workspace(tmp_path)
    dotenv = "Here is your .env:\nDB_HOST=db\nDB_USER=app\nDB_PASSWORD=Sup3r-s3cret\nAPI_TOKEN=abc\n"  # okfpro:allow-secret
    t = transcript(tmp_path / "t.jsonl", "show me the env file", dotenv)
    res = hook("stop", stop_event(ws, "s1", t, dotenv), ALICE)
    out = json.loads(res.stdout)
    assert not out["written"] and out["refused"] == "credential-file:dotenv"
    assert b"Sup3r-s3cret" not in all_bytes_under(ws)


def test_recall_blocks_never_feed_memory(tmp_path):
    ws = workspace(tmp_path)
    t1 = transcript(tmp_path / "t1.jsonl", "remember we ship on Fridays", "Noted.")
    hook("stop", stop_event(ws, "s1", t1, "Noted."), ALICE)
    ctx = context_of(hook("user-prompt-submit", prompt_event(ws, "s2", "when do we ship?"), ALICE))
    assert "Fridays" in ctx
    # the host puts our recall next to the prompt; the transcript then holds it
    t2 = transcript(tmp_path / "t2.jsonl", f"when do we ship?\n{ctx}",
                    f"<system-reminder>{ctx}</system-reminder>We ship on Fridays.")
    res = hook("stop", stop_event(ws, "s2", t2), ALICE)
    assert json.loads(res.stdout)["written"]
    day = next((ws / ".okf-memory").glob("memory-user/*/*/*.md")).read_text()
    assert RECALL_BEGIN not in day and "okf-context" not in day and "system-reminder" not in day
    assert day.count("remember we ship on Fridays") == 1


def test_transcript_reading_picks_the_turn():
    from okfpro.memory.capture import read_turn

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = transcript(Path(d) / "t.jsonl", "the real prompt", "the final answer", extra_before=[
            {"type": "user", "message": {"role": "user", "content": "an older prompt"}},
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "older"}]}},
        ])
        with open(p, "a") as fh:
            fh.write(json.dumps({"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}}) + "\n")
            fh.write("not json\n")
        assert read_turn(p) == ("the real prompt", "the final answer")
    assert read_turn(None) == (None, None)
    assert read_turn("/nonexistent/t.jsonl") == (None, None)


def test_entry_points_never_raise(tmp_path):
    from okfpro.memory.capture import capture_from_event
    from okfpro.memory.recall import recall_for_prompt

    ws = workspace(tmp_path, "[memory\n")  # broken TOML
    assert not capture_from_event({"session_id": "s"}, ws).written
    assert recall_for_prompt({"prompt": "x y z"}, ws).text == ""
    assert recall_for_prompt(None, tmp_path).reason  # not even an event
    assert capture_from_event(42, tmp_path / "missing").written is False


# ----------------------------------------------------------------------------------- budget + knowledge


def _seed(ws: Path, n: int, env: dict) -> None:
    from okfpro.core.scope import Scope
    from okfpro.memory.store import MemoryStore

    store, err = MemoryStore.for_workspace(ws)
    assert store is not None, err
    scope = Scope(env["OKFPRO_TENANT"], env["OKFPRO_USER"])
    for i in range(n):
        assert store.write(scope, f"deploy note {i}: the deploy window is Friday " + "x" * 200, "user").written


def test_budget_split_both_surfaces_and_spill(tmp_path, monkeypatch):
    from okfpro.memory.recall import recall_for_prompt

    ws = workspace(tmp_path, "[memory]\ncapture = true\nbudget_tokens = 600\nknowledge_share = 0.5\nmemory_share = 0.5\n")
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    _seed(ws, 12, ALICE)

    def knowledge(query, limit):
        assert "deploy" in query
        return [{"id": f"ops/deploy-{i}", "title": f"Deploy guide {i}", "snippet": "deploy " + "k" * 300,
                 "date": "2026-11-01", "trust": "human-reviewed"} for i in range(limit)]

    both = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws, knowledge)
    assert both.knowledge and both.memory, both.reason
    assert len(both.text) // 4 <= 600 and len(both.text) <= 10_000
    assert 'tier="human-reviewed"' in both.text and 'source="memory:user"' in both.text

    memory_only = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws, lambda q, n: [])
    assert not memory_only.knowledge and len(memory_only.memory) > len(both.memory)  # the empty share spilled
    assert len(memory_only.text) // 4 <= 600

    def broken(query, limit):
        raise RuntimeError("index unavailable: /secret/path")

    degraded = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws, broken)
    assert degraded.memory and "degraded: knowledge (RuntimeError)" in degraded.reason
    assert "/secret/path" not in degraded.reason + degraded.text


def test_knowledge_is_searched_while_the_memory_is_ranked(tmp_path, monkeypatch):
    """The two surfaces overlap (the knowledge search on another thread); the answer and the order of
    the degraded notes are those of the one-after-the-other recall."""
    import threading

    from okfpro.io import threads
    from okfpro.memory import index
    from okfpro.memory.recall import recall_for_prompt

    monkeypatch.setattr(threads, "spare_core", lambda: True)
    ws = workspace(tmp_path)
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    _seed(ws, 3, ALICE)
    ranking, seen = threading.Event(), []
    real = index.recall

    def memory(*a, **k):
        ranking.set()
        seen.append(("memory", threading.get_ident()))
        return real(*a, **k)

    def knowledge(query, limit):
        seen.append(("knowledge", threading.get_ident()))
        assert ranking.wait(10), "the memory was not ranked while the knowledge was searched"
        return [{"id": "ops/deploy", "title": "Deploy guide", "snippet": "deploy on Friday"}]

    monkeypatch.setattr(index, "recall", memory)
    both = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws, knowledge)
    assert both.knowledge == ["ops/deploy"] and both.memory and "degraded" not in both.reason, both.reason
    assert dict(seen)["knowledge"] != dict(seen)["memory"] == threading.get_ident()

    def broken_memory(*a, **k):
        ranking.set()
        raise OSError("disk gone")

    def broken(query, limit):
        assert ranking.wait(10)
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(index, "recall", broken_memory)
    neither = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws, broken)
    assert neither.reason == "nothing recalled; degraded: knowledge (RuntimeError), memory (OSError)"

    monkeypatch.setattr(threads, "spare_core", lambda: False)  # a busy machine: one after the other, same answer
    monkeypatch.setattr(index, "recall", real)
    here = []
    one = recall_for_prompt(prompt_event(ws, "s1", "what is the deploy window?"), ws,
                            lambda q, n: here.append(threading.get_ident()) or [])
    assert here == [threading.get_ident()] and one.memory and "degraded" not in one.reason


def test_default_knowledge_surface_is_the_bundle(tmp_path, monkeypatch):
    from okfpro.memory.recall import recall_for_prompt

    ws = workspace(tmp_path)
    (ws / ".okf").mkdir()
    (ws / ".okf" / "release-train.md").write_text(
        "---\ntype: Process\ntitle: Release train\ndescription: How we ship.\nupdated: 2026-11-20\n---\n"
        "Releases ship on Fridays after the freeze.\n"
    )
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("OKFPRO_TODAY", "2026-11-30")
    res = recall_for_prompt(prompt_event(ws, "s1", "when does the release train ship?"), ws)
    assert res.knowledge, res.reason
    assert "Release train" in res.text and 'age="10 days"' in res.text


def test_superseded_memory_is_hidden_from_recall(tmp_path, monkeypatch):
    from okfpro.core.scope import Scope
    from okfpro.memory.policy import remember
    from okfpro.memory.recall import recall_for_prompt
    from okfpro.memory.store import MemoryStore

    ws = workspace(tmp_path)
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    store, _ = MemoryStore.for_workspace(ws)
    scope = Scope("acme", "alice")
    first = remember(store, scope, "release day is Thursday for the mobile app", kind="decision")
    second = remember(store, scope, "release day is Friday for the mobile app", kind="decision", supersede=True)
    assert first.written and second.written and second.decision.decision == "supersede"
    ctx = recall_for_prompt(prompt_event(ws, "s1", "which release day for the mobile app?"), ws, lambda q, n: []).text
    assert "Friday" in ctx and "Thursday" not in ctx
    shown = recall_for_prompt(prompt_event(ws, "s1", "which release day for the mobile app?"), ws, lambda q, n: [],
                              include_hidden=True).text
    assert "Thursday" in shown and "superseded" in shown


def test_session_tier_capture_and_cleanup_on_session_end(tmp_path, monkeypatch):
    from okfpro.memory.capture import capture_from_event, end_session
    from okfpro.memory.recall import recall_for_prompt

    ws = workspace(tmp_path, '[memory]\ncapture = true\ncapture_tier = "session"\n')
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    t = transcript(tmp_path / "t.jsonl", "for now the scratch branch is wip-42", "ok, wip-42 it is")
    cap = capture_from_event(stop_event(ws, "sess-tmp", t, "ok, wip-42 it is"), ws)
    assert cap.written and cap.tier == "session", cap.reason
    assert "wip-42" in recall_for_prompt(prompt_event(ws, "sess-tmp", "which scratch branch?"), ws, lambda q, n: []).text
    # another session of the same user does not see it
    assert "wip-42" not in recall_for_prompt(prompt_event(ws, "sess-other", "which scratch branch?"), ws,
                                             lambda q, n: []).text
    done = end_session({"hook_event_name": "SessionEnd", "session_id": "sess-tmp", "reason": "other"}, ws)
    assert done.written, done.reason
    assert not list((ws / ".okf-memory").glob("memory-session/*/*/*/*.md"))
    assert "wip-42" not in recall_for_prompt(prompt_event(ws, "sess-tmp", "which scratch branch?"), ws,
                                             lambda q, n: []).text
    (ws / "okfpro.toml").write_text('[memory]\ncapture = true\ncapture_tier = "session"\nsession_cleanup = false\n')
    assert not end_session({"session_id": "sess-tmp"}, ws).written


def test_reasons_are_one_line(tmp_path):
    from okfpro.memory.capture import capture_from_event

    ws = workspace(tmp_path, "[memory]\ncapture = true\nmode = 'multi-user'\n")
    r = capture_from_event({"session_id": "s"}, ws)
    assert "\n" not in r.reason and r.reason


def test_hooks_from_a_subdirectory_and_stop_reruns(tmp_path):
    ws = workspace(tmp_path)
    sub = ws / "src" / "pkg"
    sub.mkdir(parents=True)
    t = transcript(tmp_path / "t.jsonl", "remember the cache TTL is 90 seconds", "Noted, 90 seconds.")
    ev = stop_event(ws, "s1", t, "Noted, 90 seconds.")
    ev["cwd"] = str(sub)
    assert json.loads(hook("stop", ev, ALICE).stdout)["written"]
    assert not (sub / ".okf-memory").exists() and (ws / ".okf-memory").is_dir()
    ev["stop_hook_active"] = True  # the host re-ran Stop for the same turn
    again = json.loads(hook("stop", ev, ALICE).stdout)
    assert not again["written"] and "already captured" in again["reason"]
    day = next((ws / ".okf-memory").glob("memory-user/*/*/*.md")).read_text()
    assert day.count("cache TTL is 90 seconds") == 1
    pe = prompt_event(ws, "s2", "what is the cache TTL?")
    pe["cwd"] = str(sub)
    assert "90 seconds" in context_of(hook("user-prompt-submit", pe, ALICE))


def test_recall_never_exceeds_10000_chars_even_with_a_huge_budget(tmp_path, monkeypatch):
    from okfpro.memory.recall import recall_for_prompt

    ws = workspace(tmp_path, "[memory]\nbudget_tokens = 1000000\n")
    for k, v in ALICE.items():
        monkeypatch.setenv(k, v)
    _seed(ws, 40, ALICE)
    rows = [{"id": f"k/{i}", "title": f"deploy {i}", "snippet": "deploy window " + "z" * 900} for i in range(8)]
    res = recall_for_prompt(prompt_event(ws, "s", "deploy window"), ws, lambda q, n: rows[:n])
    assert res.knowledge and res.memory
    assert 9000 < len(res.text) <= 10_000
