"""Live turns: each real host, driven by a fake model on 127.0.0.1, really refuses what our hooks refuse.

tests/test_real_hosts.py shows that every host parses our wiring and our answers; this module shows the
tool then does not run.  ``tests/hosts/live_turn.py`` runs inside ``unshare -rn`` (a network namespace
holding only the loopback device, so nothing can reach any other address), serves the model API the
host speaks on an ephemeral 127.0.0.1 port, and runs one non-interactive turn in which the fake model
asks for tool calls, one per request.  For every call the test checks the file system (the write did
or did not happen) and what the host sent back to the model (our reason, or the tool's output).  One
allowed call per host is the control: the same host in the same turn does run a tool we let through.

Hosts and how they are pointed at the fake model:
- Codex CLI 0.171: a ``[model_providers.fake]`` with ``base_url`` and ``wire_api = "responses"`` (its
  only wire API); model ``gpt-5.5`` from its bundled catalog, whose tools are ``exec_command`` and the
  freeform ``apply_patch``; the hooks trusted the way Codex's ``/hooks`` review writes it.
- Claude Code 2.1.197: ``ANTHROPIC_BASE_URL`` and ``claude -p --dangerously-skip-permissions`` (so the
  refusal is our hook's, not Claude's permission system; ``IS_SANDBOX=1`` lets it run as root).
- Gemini CLI 0.61: ``GOOGLE_GEMINI_BASE_URL`` with ``security.auth.selectedType = "gemini-api-key"``
  (the base URL alone selects the "gateway" auth type, which 0.61's non-interactive auth check refuses)
  and ``gemini -p --yolo``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import hostkit

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PAST = "2026-11-02"
PAST_FILE = f"---\ntype: Journal\ntitle: {PAST}\n---\n# {PAST}\n\nWhat happened.\n"
CONCEPT = "---\ntype: Reference\ntitle: Ranking\n---\n# Ranking\n\nWe rank by recency.\n"


@pytest.fixture(scope="module")
def hosts() -> Path:
    root = hostkit.installed()
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare/ip are missing: a live turn runs only in a loopback-only network namespace")
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"this machine refuses an unprivileged network namespace (unshare -rn: {probe.stderr.strip()}); "
                    "a live turn must not be able to reach anything but 127.0.0.1")
    return root


def _workspace(base: Path, agent: str) -> Path:
    ws = base / f"live ws ({agent})"
    proc = subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws), "--agent", agent], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (ws / ".okf" / "journal").mkdir(exist_ok=True)
    (ws / ".okf" / "journal" / f"{PAST}.md").write_text(PAST_FILE)
    (ws / ".okf" / "reference").mkdir(exist_ok=True)
    (ws / ".okf" / "reference" / "ranking.md").write_text(CONCEPT)
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=ws, check=True)
    return ws


def _live(host: str, binary: str, ws: Path, home: Path, calls: list, **extra) -> dict:
    out = home.parent / f"{host}-out.json"
    request = {"host": host, "bin": binary, "workspace": str(ws), "home": str(home), "calls": calls, "out": str(out),
               "timeout": 240, **extra}
    req = home.parent / f"{host}-req.json"
    req.write_text(json.dumps(request))
    proc = subprocess.run(["unshare", "-rn", sys.executable, str(HERE / "hosts" / "live_turn.py"), str(req)],
                          capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0 and out.exists(), proc.stderr[-3000:]
    result = json.loads(out.read_text())
    return result


def _answers(result: dict, host: str) -> list[str]:
    """What each tool call returned to the model, in order, read from the host's last main request."""
    mains = [r["body"] for r in result["requests"] if r.get("main")]
    assert mains, result
    body = mains[-1]
    out: list[str] = []
    if host == "codex":
        for item in body.get("input", []):
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                out.append(item["output"] if isinstance(item["output"], str) else json.dumps(item["output"]))
    elif host == "claude":
        for message in body.get("messages", []):
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
    else:
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                if "functionResponse" in part:
                    out.append(json.dumps(part["functionResponse"]["response"], ensure_ascii=False))
    return out


def _unchanged(ws: Path, rel: str) -> bool:
    return subprocess.run(["git", "diff", "--quiet", "--", rel], cwd=ws).returncode == 0 and (ws / rel).exists()


# --------------------------------------------------------------------------- Codex CLI


def _codex_home(hosts: Path, ws: Path, home: Path) -> None:
    listed = hostkit.codex_hooks_list(hosts, ws, home)["data"][0]["hooks"]
    config = (f'model = "gpt-5.5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
              f'base_url = "@BASE_URL@"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n'
              f'[projects.{json.dumps(str(ws))}]\ntrust_level = "trusted"\n')
    for h in listed:  # what Codex's /hooks review writes when the owner trusts each hook
        config += f'\n[hooks.state.{json.dumps(h["key"])}]\ntrusted_hash = {json.dumps(h["currentHash"])}\n'
    (home / ".codex" / "config.toml").write_text(config)


def _patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def test_codex_refuses_the_calls_our_hooks_deny_in_a_live_turn(hosts, tmp_path):
    ws = _workspace(tmp_path, "codex")
    home = tmp_path / "home"
    _codex_home(hosts, ws, home)
    verified = _patch("*** Update File: .okf/reference/ranking.md\n@@\n type: Reference\n+verified: 2026-12-01\n title: Ranking\n")
    calls = [
        {"name": "exec_command", "input": {"cmd": "echo hi >> .okf/board.md"}},
        {"name": "apply_patch", "input": _patch("*** Add File: .okf/journal/2026-11-03.md\n+a past day\n")},
        {"name": "apply_patch", "input": verified},
        {"name": "apply_patch", "input": _patch("*** Add File: notes/fine.md\n+fine\n",
                                                f"*** Update File: .okf/journal/{PAST}.md\n@@\n-What happened.\n+Rewritten.\n")},
        {"name": "exec_command", "input": {"cmd": "echo ok > outside.txt"}},  # the controls: allowed calls run
        {"name": "apply_patch", "input": _patch("*** Add File: notes.txt\n+allowed\n")},
    ]
    result = _live("codex", hostkit.bin_path(hosts, "codex"), ws, home, calls)
    answers = _answers(result, "codex")
    assert len(answers) == len(calls), (answers, result["stderr"][-3000:])
    for n in range(4):
        assert answers[n].startswith("Command blocked by PreToolUse hook"), (n, answers[n])
    assert "Codex CLI cannot ask the owner" in answers[0] and "writes Markdown inside the bundle" in answers[0]
    assert "journal/2026-11-03.md" in answers[1] and "PAST day" in answers[1]
    assert "'verified:'" in answers[2]
    assert f"journal/{PAST}.md records a past day" in answers[3]
    assert not any(a.startswith("Command blocked") for a in answers[4:]), answers[4:]
    assert _unchanged(ws, ".okf/board.md") and _unchanged(ws, ".okf/reference/ranking.md")
    assert _unchanged(ws, f".okf/journal/{PAST}.md")
    assert not (ws / ".okf" / "journal" / "2026-11-03.md").exists() and not (ws / "notes" / "fine.md").exists()
    assert (ws / "outside.txt").read_text() == "ok\n" and (ws / "notes.txt").exists()
    assert result["returncode"] == 0, result["stderr"][-3000:]


# --------------------------------------------------------------------------- Claude Code


def test_claude_refuses_the_calls_our_hooks_deny_in_a_live_turn(hosts, tmp_path):
    ws = _workspace(tmp_path, "claude")
    home = tmp_path / "home"
    home.mkdir()
    calls = [
        {"name": "Bash", "input": {"command": "echo hi >> .okf/board.md", "description": "append"}},
        {"name": "Read", "input": {"file_path": str(ws / ".okf" / "journal" / f"{PAST}.md")}},
        {"name": "Write", "input": {"file_path": str(ws / ".okf" / "journal" / f"{PAST}.md"), "content": "rewritten\n"}},
        {"name": "Write", "input": {"file_path": str(ws / ".okf" / "reference" / "new.md"),
                                    "content": "---\ntype: Reference\ntitle: New\nverified: 2026-12-01\n---\n# New\n"}},
        {"name": "Bash", "input": {"command": "echo ok > outside.txt", "description": "control"}},
    ]
    result = _live("claude", hostkit.bin_path(hosts, "claude"), ws, home, calls,
                   args=["--dangerously-skip-permissions"], env={"IS_SANDBOX": "1"})
    answers = _answers(result, "claude")
    assert len(answers) == len(calls), (answers, result["stdout"][-2000:], result["stderr"][-2000:])
    first = json.dumps([r["body"] for r in result["requests"] if r.get("main")][0])
    assert "Bundle state at session start" in first, first[-3000:]  # SessionStart's context reached the model
    assert "writes Markdown inside the bundle" in answers[0], answers[0]
    assert f"journal/{PAST}.md records a past day" in answers[2], answers[2]
    assert "'verified:'" in answers[3], answers[3]
    assert "Bash completed" in answers[4] or answers[4] == "", answers[4]
    denials = {d["tool_use_id"] for d in json.loads(result["stdout"])["permission_denials"]}
    assert {"toolu_0001", "toolu_0004"} <= denials, denials  # the asks: refused, as -p cannot ask anyone
    assert _unchanged(ws, ".okf/board.md") and _unchanged(ws, f".okf/journal/{PAST}.md")
    assert not (ws / ".okf" / "reference" / "new.md").exists()
    assert (ws / "outside.txt").read_text() == "ok\n"


def test_headless_claude_starts_the_project_mcp_server_without_an_approval(hosts, tmp_path):
    """README's one manual step for Claude Code is interactive: at its first start in the workspace it asks
    before starting the servers of the .mcp.json ``init`` writes.  Headless (``claude -p``) it starts them
    without asking, no ``enabledMcpjsonServers`` anywhere (2.1.197 and 2.1.337 alike).  The decision is
    read from our side: the workspace's interpreter pin, which .mcp.json's command runs, is a wrapper that
    logs each start, so no host prose is matched."""
    ws = _workspace(tmp_path, "claude")
    pin = ws / ".claude" / "hooks" / "okfpro-python"
    real, *rest = pin.read_text().splitlines()
    log = tmp_path / "started.log"
    wrapper = tmp_path / "python-wrapper"
    wrapper.write_text(f'#!/bin/sh\nprintf \'%s\\n\' "$*" >> \'{log}\'\nexec \'{real}\' "$@"\n')
    wrapper.chmod(0o755)
    pin.write_text("\n".join([str(wrapper), *rest]) + "\n")
    assert not (ws / ".claude" / "settings.local.json").exists()
    home = tmp_path / "home"
    home.mkdir()
    calls = [{"name": "Bash", "input": {"command": "sleep 3", "description": "give the servers time to start"}}]
    result = _live("claude", hostkit.bin_path(hosts, "claude"), ws, home, calls)
    assert result["returncode"] == 0, result["stderr"][-3000:]
    starts = log.read_text().splitlines() if log.exists() else []
    assert [s for s in starts if s.startswith("-P -m okfpro mcp --bundle ")], starts


# --------------------------------------------------------------------------- Gemini CLI


def test_gemini_refuses_a_blocked_call_and_never_runs_an_asked_one_in_a_live_turn(hosts, tmp_path):
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip().lstrip("v")
    if int(version.split(".")[0] or "0") < 20:
        pytest.skip(f"Gemini CLI needs Node >= 20; this machine has {version}")
    ws = _workspace(tmp_path, "gemini")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(ws): "TRUST_FOLDER"}))
    (home / ".gemini" / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    calls = [
        {"name": "write_file", "input": {"file_path": str(ws / ".okf" / "journal" / f"{PAST}.md"), "content": "rewritten\n"}},
        {"name": "run_shell_command", "input": {"command": "echo ok > outside.txt"}},  # the control
        {"name": "run_shell_command", "input": {"command": "echo hi >> .okf/board.md"}},  # asked: see below
    ]
    result = _live("gemini", str(hostkit.gemini_bundle(hosts) / "gemini.js"), ws, home, calls, args=["--yolo"], hang_grace=15)
    answers = _answers(result, "gemini")
    assert len(answers) == 2, (answers, result["stderr"][-3000:])
    assert "Tool execution blocked" in answers[0] and f"journal/{PAST}.md records a past day" in answers[0], answers[0]
    assert "error" not in json.loads(answers[1]), answers[1]
    assert (ws / "outside.txt").read_text() == "ok\n"
    assert _unchanged(ws, f".okf/journal/{PAST}.md")
    # Gemini 0.61 turns our "ask" into ASK_USER *after* its non-interactive check (checkPolicy), so under
    # -p it waits for a confirmation no one can give: the tool never runs, and the turn never ends.
    assert result["hung"] is True, result
    assert _unchanged(ws, ".okf/board.md")
