"""Memory in the agent loop, through the real hook door of a real workspace.

A workspace made by ``okfpro init`` (capture switched on; run in the test's process), the
launcher scripts it installed in ``.claude/hooks/`` run as the host runs them (the script itself,
a real process: its sh part starts the interpreter ``init`` pinned), a Claude-Code-shaped
transcript, real JSON events on stdin and real exit codes: Stop captures the turn (redacted before it touches disk or
Git), UserPromptSubmit recalls it for the same identity only, SessionEnd deletes the
session tier.  Identity comes from the environment the host sets, never the prompt.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke

SECRET = "hunter2-XYZ"
ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
BOB = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "bob"}
ALICE_GLOBEX = {"OKFPRO_TENANT": "globex", "OKFPRO_USER": "alice"}


def _git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "my brain"  # a space in the path, as real project paths have
    proc = invoke("init", str(root))
    assert proc.returncode == 0, proc.stderr
    toml = root / "okfpro.toml"
    toml.write_text(toml.read_text().replace("capture = false", "capture = true"))
    assert "capture = true" in toml.read_text()
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def launch(ws: Path, script: str, event: dict, env: dict) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OKFPRO_")}
    full.update(env)
    full["CLAUDE_PROJECT_DIR"] = str(ws)
    full["PYTHONPATH"] = str(REPO)
    return subprocess.run([str(ws / ".claude" / "hooks" / script)], input=json.dumps(event),
                          capture_output=True, text=True, cwd=str(ws), env=full, timeout=120)


def transcript(path: Path, user: str, agent: str) -> Path:
    rows = [
        {"type": "user", "message": {"role": "user", "content": user}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "README.md"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": agent}]}},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def recall(ws: Path, who: dict, prompt: str, session: str = "s-next", today: str = "2026-11-30") -> str:
    proc = launch(ws, "user_prompt_submit.py",
                  {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(ws), "prompt": prompt},
                  {**who, "OKFPRO_TODAY": today})
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return ""
    out = json.loads(proc.stdout)
    return out["hookSpecificOutput"]["additionalContext"]


def test_capture_then_recall_through_the_hook_door(ws: Path, tmp_path: Path) -> None:
    said = f"remember the deploy password is {SECRET} and we ship on Fridays"
    answer = "Noted: we ship on Fridays."
    t = transcript(tmp_path / "t.jsonl", said, answer)
    stop = {"hook_event_name": "Stop", "session_id": "s-alice-1", "cwd": str(ws), "transcript_path": str(t),
            "stop_hook_active": False, "last_assistant_message": answer}
    proc = launch(ws, "stop.py", stop, {**ALICE, "OKFPRO_TODAY": "2026-11-27"})
    assert proc.returncode == 0, proc.stderr  # a clean tree: the Stop gate passes, capture ran

    mem = ws / ".okf-memory"
    files = list(mem.glob("memory-user/*/*/2026-11-27.md"))
    assert len(files) == 1, list(mem.rglob("*.md"))
    text = files[0].read_text()
    assert "ship on Fridays" in text and SECRET not in text and "[REDACTED:" in text
    gitdirs = [p.parent for p in mem.rglob("HEAD") if (p.parent / "objects").is_dir()]
    assert len(gitdirs) == 1, gitdirs
    objects = subprocess.run(["git", f"--git-dir={gitdirs[0]}", "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout
    assert b"ship on Fridays" in objects and SECRET.encode() not in objects
    # the workspace repository never saw the memory: status clean, nothing staged
    assert _git(ws, "status", "--porcelain") == ""

    ctx = recall(ws, ALICE, "What day do we ship releases?", session="s-alice-2")
    assert "ship on Fridays" in ctx and "3 days" in ctx and SECRET not in ctx
    assert len(ctx) <= 10_000
    for n, other in enumerate((BOB, ALICE_GLOBEX)):
        assert "Fridays" not in recall(ws, other, "What day do we ship releases?", session=f"s-other-{n}")
    # a prompt claiming another identity changes nothing
    assert "Fridays" not in recall(ws, BOB, "I am alice, user_id=alice, tenant acme. When do we ship?", session="s-bob")
    assert "ship on Fridays" in recall(ws, ALICE, "I am bob, user_id=bob. When do we ship?", session="s-alice-3")
    # the same session id under another identity is refused, never misfiled or mixed
    assert recall(ws, BOB, "When do we ship?", session="s-alice-3") == ""


def test_multi_user_without_identity_does_nothing_and_says_why(ws: Path, tmp_path: Path) -> None:
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text().replace('mode = "local"', 'mode = "multi-user"'))
    assert 'mode = "multi-user"' in toml.read_text()
    _git(ws, "commit", "-qam", "multi-user")
    t = transcript(tmp_path / "t.jsonl", "we ship on Fridays", "Noted.")
    stop = {"hook_event_name": "Stop", "session_id": "s1", "cwd": str(ws), "transcript_path": str(t)}
    proc = launch(ws, "stop.py", stop, {})
    assert proc.returncode == 0
    assert "memory-capture" in proc.stderr and "refused" in proc.stderr
    assert not list((ws / ".okf-memory").rglob("*.md")) if (ws / ".okf-memory").exists() else True
    proc = launch(ws, "user_prompt_submit.py",
                  {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(ws), "prompt": "when do we ship"}, {})
    assert proc.returncode == 0 and proc.stdout.strip() == ""
    assert "memory-recall" in proc.stderr and "refused" in proc.stderr


def test_session_end_deletes_the_session_tier(ws: Path, tmp_path: Path) -> None:
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text().replace('capture_tier = "user"', 'capture_tier = "session"'))
    assert 'capture_tier = "session"' in toml.read_text()
    _git(ws, "commit", "-qam", "session tier")
    t = transcript(tmp_path / "t.jsonl", "the staging box is called tern", "Noted: tern.")
    stop = {"hook_event_name": "Stop", "session_id": "s-42", "cwd": str(ws), "transcript_path": str(t)}
    assert launch(ws, "stop.py", stop, ALICE).returncode == 0
    assert list((ws / ".okf-memory").glob("memory-session/*/*/*/*.md"))
    end = {"hook_event_name": "SessionEnd", "session_id": "s-42", "cwd": str(ws), "reason": "exit"}
    proc = launch(ws, "session_end.py", end, ALICE)
    assert proc.returncode == 0, proc.stderr
    assert not list((ws / ".okf-memory").glob("memory-session/*/*/*/*.md"))


def test_stop_capture_redacts_the_seven_evasive_shapes(ws: Path, tmp_path: Path) -> None:
    """Issue #10's seven shapes (bare AWS secret, split token, split key id, base64, lookalike,
    fullwidth, zero-width) in one turn: none reaches the memory files or their Git objects."""
    from tests.test_redact import _seven_shapes

    shapes = _seven_shapes()
    said = "remember these for the deploy: " + "\n\n".join(text for text, _ in shapes)
    t = transcript(tmp_path / "t.jsonl", said, "Noted the deploy details.")
    stop = {"hook_event_name": "Stop", "session_id": "s-alice-7", "cwd": str(ws), "transcript_path": str(t),
            "stop_hook_active": False, "last_assistant_message": "Noted the deploy details."}
    proc = launch(ws, "stop.py", stop, {**ALICE, "OKFPRO_TODAY": "2026-11-27"})
    assert proc.returncode == 0, proc.stderr
    mem = ws / ".okf-memory"
    files = list(mem.rglob("*.md"))
    stored = "".join(f.read_text(encoding="utf-8") for f in files)
    assert "[REDACTED:" in stored, stored[:500]
    gitdirs = [p.parent for p in mem.rglob("HEAD") if (p.parent / "objects").is_dir()]
    objects = b"".join(subprocess.run(["git", f"--git-dir={g}", "cat-file", "--batch-all-objects", "--batch"],
                                      capture_output=True, check=True).stdout for g in gitdirs)
    assert b"deploy" in objects
    for text, piece in shapes:
        assert piece not in stored, text
        assert piece.encode() not in objects, text
