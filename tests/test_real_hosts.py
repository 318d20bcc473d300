"""The hook wiring against the hosts as shipped: Claude Code, Codex CLI and Gemini CLI from the npm
registry (tests/hostkit.py pins the versions), their own code as the oracle.

- Claude Code: ``claude doctor`` (in a pseudo-terminal, as it needs one) names no dropped settings entry
  for a fresh workspace, and names the broken one of a broken workspace (so the oracle can fail); each
  configured command runs through bash with ``$CLAUDE_PROJECT_DIR`` as Claude Code sets it.  What Claude
  Code does with our answers (a refusal, an ask, the session banner) is shown by its decisions in a
  live turn: tests/test_live_hosts.py.  (A schema cut out of its binary broke with each release.)
- Codex CLI: ``codex app-server`` JSON-RPC ``hooks/list`` parses every entry with no warning or error;
  each command runs through ``sh -c`` from the workspace; every answer validates against the JSON
  Schema Codex embeds for that event, plus the rules Codex enforces beyond its schema (no ``ask``,
  a non-empty reason with ``deny``).
- Gemini CLI: its settings loader reports no error, its matcher picks exactly our tools, and its own
  hook runner (command expansion, shell, output parsing) runs every command.

Every workspace path holds a space and a ``(``; Gemini's also ``, : @ [ ] #``.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests import hostkit

pytestmark = pytest.mark.slow

TODAY_PAST = "2026-11-02"


@pytest.fixture(scope="module")
def hosts() -> Path:
    return hostkit.installed()


def _init(ws: Path, *agents: str) -> Path:
    args = [sys.executable, "-m", "okfpro", "init", str(ws)]
    for a in agents:
        args += ["--agent", a]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return ws


def _commit(ws: Path) -> Path:
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=ws, check=True)
    return ws


def _entries(settings: dict):
    for event, groups in settings["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                yield event, group.get("matcher"), hook


def _edit(ws: Path, rel: str, text: str, tool: str = "Write") -> dict:
    key = "content" if tool in ("Write", "write_file") else "new_string"
    return {"tool_name": tool, "tool_input": {"file_path": str(ws / ".okf" / rel), key: text}}


# --------------------------------------------------------------------------- Claude Code


def _claude_doctor(hosts: Path, ws: Path, home: Path) -> str:
    """``claude doctor``'s screen, in a pseudo-terminal, until it asks for Enter (then closed)."""
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, HOME=str(home), TERM="xterm", NO_COLOR="1", DISABLE_AUTOUPDATER="1")
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - child
        os.chdir(ws)
        os.execve(hostkit.bin_path(hosts, "claude"), [hostkit.bin_path(hosts, "claude"), "doctor"], env)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 90
    seen_close = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
            flat = re.sub(rb"\x1b\[[0-9;?<>]*[A-Za-z]|\s", b"", b"".join(chunks))
            if seen_close is None and b"Entertoclose" in flat:
                seen_close = time.monotonic()
            if seen_close is not None and time.monotonic() - seen_close > 3:
                break
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    # The screen is drawn differentially (unchanged cells are skipped), so compare without whitespace and
    # on more than one landmark.
    text = re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]|\x1b[78=>]|\r|\s", "", b"".join(chunks).decode("utf-8", "replace"))
    assert any(mark in text for mark in ("Currentlyrunning", "Commit:", "Platform:")), text[-3000:]
    return text


def test_claude_keeps_every_hook_entry_of_a_fresh_workspace_and_drops_a_broken_one(hosts, tmp_path):
    """What Claude Code decides about the wiring: ``claude doctor`` names each settings entry it drops by
    its path (``hooks.Stop.0.hooks.0``); the words around the path change between releases, the path
    does not.  A broken entry is named (so the oracle can say no); a fresh workspace has none."""
    good = _init(tmp_path / "ws (claude)", "claude")
    broken = _init(tmp_path / "broken (claude)", "claude")
    settings = json.loads((broken / ".claude" / "settings.json").read_text())
    settings["hooks"]["Stop"][0]["hooks"][0]["timeout"] = "soon"  # the oracle must be able to say no
    (broken / ".claude" / "settings.json").write_text(json.dumps(settings))
    screens: dict[str, str] = {}
    threads = [threading.Thread(target=lambda n=n, w=w: screens.__setitem__(n, _claude_doctor(hosts, w, tmp_path / f"home-{n}")))
               for n, w in (("good", good), ("broken", broken))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    dropped = re.compile(r"hooks\.[A-Za-z]+\.\d+(?:\.hooks\.\d+)?")
    assert "hooks.Stop.0.hooks.0" in dropped.findall(screens["broken"]), screens["broken"][-3000:]
    assert not dropped.findall(screens["good"]), screens["good"][-3000:]


def test_claude_commands_run_our_launcher_from_a_path_with_a_space_and_a_paren(hosts, tmp_path):
    ws = _init(tmp_path / "my ws (1)", "claude")
    settings = json.loads((ws / ".claude" / "settings.json").read_text())
    env = dict(os.environ, CLAUDE_PROJECT_DIR=str(ws))

    def fire(event: str, payload: dict, tool: str | None = None) -> subprocess.CompletedProcess:
        for ev, matcher, hook in _entries(settings):
            if ev == event and (tool is None or tool in (matcher or "").split("|")):
                return subprocess.run(["bash", "-c", hook["command"]], input=json.dumps({"cwd": str(ws), **payload}),
                                      capture_output=True, text=True, env=env, cwd=str(ws / ".okf"))
        raise AssertionError(f"no {event} entry for {tool}")

    ask = fire("PreToolUse", {"hook_event_name": "PreToolUse", **_edit(ws, "reference/x.md", "---\nverified: yes\n---\n")}, "Write")
    assert ask.returncode == 0 and json.loads(ask.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask", ask.stderr
    ps = fire("PreToolUse", {"hook_event_name": "PreToolUse", "tool_name": "PowerShell",
                             "tool_input": {"command": "echo x >> .okf/board.md"}}, "PowerShell")
    assert json.loads(ps.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask", ps.stderr
    past = fire("PreToolUse", {"hook_event_name": "PreToolUse", **_edit(ws, f"journal/{TODAY_PAST}.md", "x")}, "Write")
    assert past.returncode == 0 and json.loads(past.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    start = fire("SessionStart", {"hook_event_name": "SessionStart", "source": "startup"})
    assert start.returncode == 0 and start.stdout.startswith("Bundle state at session start"), start.stderr
    for event in ("UserPromptSubmit", "SessionEnd"):
        proc = fire(event, {"hook_event_name": event, "prompt": "hello", "session_id": "s1", "reason": "other"})
        assert proc.returncode == 0, proc.stderr
    assert fire("Stop", {"hook_event_name": "Stop", "stop_hook_active": False}).returncode in (0, 2)


# --------------------------------------------------------------------------- Codex CLI


def test_codex_app_server_lists_every_hook_with_no_warning_and_says_untrusted(hosts, tmp_path):
    ws = _init(tmp_path / "ws (codex)", "codex")
    wired = json.loads((ws / ".codex" / "hooks.json").read_text())
    answer = hostkit.codex_hooks_list(hosts, ws, tmp_path / "home")
    [entry] = answer["data"]
    assert entry["warnings"] == [] and entry["errors"] == [], entry
    listed = {(h["eventName"], h["command"], h["timeoutSec"]) for h in entry["hooks"]}
    camel = {"PreToolUse": "preToolUse", "PostToolUse": "postToolUse", "SessionStart": "sessionStart",
             "UserPromptSubmit": "userPromptSubmit", "Stop": "stop", "SessionEnd": "sessionEnd"}
    expected = {(camel[e], h["command"], h["timeout"]) for e, _, h in _entries(wired)}
    assert listed == expected
    # Codex runs project hooks only once the user has reviewed them: a fresh workspace is untrusted
    assert {h["trustStatus"] for h in entry["hooks"]} == {"untrusted"}
    assert all(h["enabled"] for h in entry["hooks"])


def test_codex_app_server_reports_a_broken_entry(hosts, tmp_path):
    ws = _init(tmp_path / "broken (codex)", "codex")
    wired = json.loads((ws / ".codex" / "hooks.json").read_text())
    wired["hooks"]["Stop"][0]["hooks"][0]["timeout"] = "soon"
    (ws / ".codex" / "hooks.json").write_text(json.dumps(wired))
    [entry] = hostkit.codex_hooks_list(hosts, ws, tmp_path / "home")["data"]
    assert entry["warnings"] or entry["errors"], entry


def test_codex_commands_answer_in_the_shapes_codex_accepts(hosts, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schemas = hostkit.codex_schemas(hosts)
    assert "pre-tool-use.command.output" in schemas, sorted(schemas)
    ws = _init(tmp_path / "my ws (codex)", "codex")
    wired = json.loads((ws / ".codex" / "hooks.json").read_text())
    _commit(ws)

    def fire(event: str, payload: dict) -> subprocess.CompletedProcess:
        for ev, _, hook in _entries(wired):
            if ev == event:
                return subprocess.run(["sh", "-c", hook["command"]], input=json.dumps({"cwd": str(ws), **payload}),
                                      capture_output=True, text=True, cwd=str(ws / ".okf"))
        raise AssertionError(f"no {event} entry")

    def valid(event_slug: str, stdout: str) -> dict:
        answer = json.loads(stdout)
        jsonschema.validate(answer, schemas[f"{event_slug}.command.output"])
        return answer

    base = {"session_id": "s1", "transcript_path": None, "model": "m", "permission_mode": "default",
            "tool_use_id": "t1", "turn_id": "u1"}
    for tool_event in (_edit(ws, "reference/x.md", "---\nverified: yes\n---\n"),
                       {"tool_name": "Bash", "tool_input": {"command": "echo x >> .okf/board.md"}}):
        proc = fire("PreToolUse", {**base, "hook_event_name": "PreToolUse", **tool_event})
        answer = valid("pre-tool-use", proc.stdout)["hookSpecificOutput"]
        # Codex 0.171: "PreToolUse hook returned unsupported permissionDecision:ask" -> the tool runs
        assert answer["permissionDecision"] == "deny", answer
        assert answer["permissionDecisionReason"].strip() and "by hand" in answer["permissionDecisionReason"]
    blocked = fire("PreToolUse", {**base, "hook_event_name": "PreToolUse", **_edit(ws, "journal/2026-11-27.md", "x")})
    assert blocked.returncode in (0, 2)
    start = fire("SessionStart", {"session_id": "s1", "transcript_path": None, "hook_event_name": "SessionStart",
                                  "model": "m", "permission_mode": "default", "source": "startup"})
    assert "Bundle state" in valid("session-start", start.stdout)["hookSpecificOutput"]["additionalContext"]
    prompt = fire("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "prompt": "hello"})
    assert prompt.returncode == 0, prompt.stderr
    if prompt.stdout.strip():
        valid("user-prompt-submit", prompt.stdout)
    end = fire("SessionEnd", {"session_id": "s1", "transcript_path": None, "hook_event_name": "SessionEnd", "reason": "other"})
    assert end.returncode == 0 and not end.stdout.strip(), end
    stop = fire("Stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": None})
    assert stop.returncode == 0 and not stop.stdout.strip(), stop  # clean tree: nothing to say


# --------------------------------------------------------------------------- Gemini CLI


@pytest.mark.parametrize("name", ["gem ws (1)", "g,w:s@[x]#y (2)"])
def test_gemini_loads_the_settings_and_its_runner_runs_every_command(hosts, tmp_path, name):
    ws = _commit(_init(tmp_path / name, "gemini"))
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))
    wired = json.loads((ws / ".gemini" / "settings.json").read_text())
    commands = {ev: hook["command"] for ev, _, hook in _entries(wired)}
    matchers = {ev: m for ev, m, _ in _entries(wired) if m}
    base = {"session_id": "s1", "cwd": str(ws), "timestamp": "2026-11-30T10:00:00Z", "transcript_path": ""}
    runs = [
        ("ask", "BeforeTool", {**_edit(ws, "reference/x.md", "---\nverified: yes\n---\n", "write_file")}),
        ("past", "BeforeTool", {**_edit(ws, "journal/2026-11-27.md", "x", "replace")}),
        ("shell", "BeforeTool", {"tool_name": "run_shell_command", "tool_input": {"command": "echo x >> .okf/board.md"}}),
        ("plain", "BeforeTool", {**_edit(ws, "reference/y.md", "plain words", "write_file")}),
        ("after", "AfterTool", {"tool_name": "write_file", "tool_input": {"file_path": str(ws / "notes.txt"), "content": "x"},
                                "tool_response": {}}),
        ("recon", "AfterTool", {**_edit(ws, "reference/y.md", "plain words", "write_file"), "tool_response": {}}),
        ("prompt", "BeforeAgent", {"prompt": "what is on the board"}),
        ("start", "SessionStart", {"source": "startup"}),
        ("stop", "AfterAgent", {"prompt": "p", "prompt_response": "r", "stop_hook_active": False}),
        ("end", "SessionEnd", {"reason": "exit"}),
    ]
    ops: list[dict] = [{"op": "load", "workspace": str(ws)}]
    ops += [{"op": "match", "matcher": matchers["BeforeTool"], "tool": t}
            for t in ("write_file", "replace", "run_shell_command", "edit", "read_file", "my_write_file")]
    ops += [{"op": "run", "event": ev, "command": commands[ev], "input": {**base, "hook_event_name": ev, **payload}}
            for _, ev, payload in runs]
    loaded, *rest = hostkit.gemini(hosts, ops, home)
    assert loaded["trusted"] is True and loaded["errors"] == [], loaded
    assert {ev for ev, groups in loaded["hooks"].items() if groups} == set(commands)
    matched = [r["matches"] for r in rest[:6]]
    assert matched == [True, True, True, False, False, False]
    result = dict(zip([label for label, _, _ in runs], rest[6:]))
    for label, r in result.items():
        assert r["exitCode"] in (0, 2) and r["error"] is None, (label, r)
    assert result["ask"]["ask"] is True and result["ask"]["success"], result["ask"]
    assert "attestation" in result["ask"]["systemMessage"]
    assert result["past"]["ask"] is True  # creating a past day asks
    assert result["shell"]["ask"] is True
    assert result["recon"]["blocking"]["blocked"] and "reconciliation" in result["recon"]["blocking"]["reason"]
    for quiet in ("plain", "after", "prompt", "stop", "end"):
        r = result[quiet]
        assert r["success"] and not r["blocking"]["blocked"] and r["systemMessage"] is None, (quiet, r)
    assert (result["start"]["context"] or "").startswith("Bundle state at session start"), result["start"]


# --------------------------------------------------------------------------- okfpro doctor against the hosts


@pytest.mark.parametrize("path", ["/tmp/gem ws (1)", "/tmp/g,w:s@[x]#y (2)", "/tmp/it's (3)", "/tmp/plain/ws"])
def test_doctors_gemini_expansion_is_geminis_own(hosts, tmp_path, path):
    from okfpro.io.doctor import gemini_expand

    command = "$GEMINI_PROJECT_DIR/.claude/hooks/stop.py --agent gemini"
    [r] = hostkit.gemini(hosts, [{"op": "run", "event": "SessionEnd", "command": command,
                                  "input": {"cwd": path, "session_id": "s1", "hook_event_name": "SessionEnd"}}],
                         tmp_path / "home")
    assert r["expanded"] == gemini_expand(command, path, "s1", path + "/.gemini/plans")


def test_doctor_reads_codex_trust_from_codex_itself(hosts, tmp_path):
    ws = _commit(_init(tmp_path / "doc ws (codex)", "codex"))
    home = tmp_path / "home"
    listed = hostkit.codex_hooks_list(hosts, ws, home)["data"][0]["hooks"]
    env = dict(os.environ, HOME=str(home), CODEX_HOME=str(home / ".codex"),
               PATH=str(hosts / "node_modules" / ".bin") + os.pathsep + os.environ.get("PATH", ""))

    def trust_check() -> dict:
        proc = subprocess.run([sys.executable, "-m", "okfpro", "doctor", str(ws), "--json"], capture_output=True,
                              text=True, env=env, timeout=600)
        return {c["check"]: c for c in json.loads(proc.stdout)["checks"]}["codex trust"]

    untrusted = trust_check()
    assert not untrusted["ok"] and "trust" in untrusted["detail"], untrusted
    config = (home / ".codex" / "config.toml").read_text()
    for h in listed:  # what Codex's /hooks review writes when the user trusts each hook
        config += f'\n[hooks.state.{json.dumps(h["key"])}]\ntrusted_hash = {json.dumps(h["currentHash"])}\n'
    (home / ".codex" / "config.toml").write_text(config)
    trusted = trust_check()
    assert trusted["ok"], trusted
