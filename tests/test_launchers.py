"""The launchers are one text with two constants; the wiring gives every entry a timeout above the
launcher's own, as each host reads its timeouts (units and clamps from the hosts' shipped code:
Claude Code seconds, SessionEnd max(1.5 s, min(t, 60 s)); Codex seconds, SessionEnd clamped to 3 s;
Gemini CLI milliseconds).  tests/test_real_hosts.py checks the same files with the hosts' own code."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
WIRING = {
    "claude": REPO / "template/wiring/claude/.claude/settings.json",
    "codex": REPO / "template/wiring/codex/.codex/hooks.json",
    "gemini": REPO / "template/wiring/gemini/.gemini/settings.json",
}


def _launch_module():
    spec = importlib.util.spec_from_file_location("okfpro_launch_under_test", REPO / "hooks" / "_launch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(agent: str):
    """(event, matcher, hook entry) for every command of one host's wiring."""
    for event, groups in json.loads(WIRING[agent].read_text())["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                yield event, group.get("matcher"), hook


def test_the_six_launchers_are_one_text_but_for_their_two_constants():
    launch = _launch_module()
    on_disk = {p.name for p in (REPO / "hooks").glob("*.py") if not p.name.startswith("_")}
    assert on_disk == set(launch.LAUNCHERS)
    for name, (event, gate) in launch.LAUNCHERS.items():
        text = (REPO / "hooks" / name).read_text(encoding="utf-8")
        assert text == launch.stub(event, gate), f"hooks/{name} drifted from _launch.STUB: run `python hooks/_launch.py`"
    # and the constants are what the protocol calls gates and feedback
    from okfpro.hooks.protocol import FEEDBACK_EVENTS

    assert {e for e, g in launch.LAUNCHERS.values() if not g} == set(FEEDBACK_EVENTS)


def _host_seconds(agent: str, event: str, hook: dict) -> float:
    raw = hook.get("timeout")
    assert isinstance(raw, (int, float)) and raw > 0, f"{agent} {event}: every entry sets its timeout ({hook})"
    if agent == "gemini":
        return raw / 1000.0
    if agent == "claude" and event == "SessionEnd":
        return max(1.5, min(float(raw), 60.0))
    if agent == "codex" and event == "SessionEnd":
        return min(float(raw), 3.0)
    return float(raw)


@pytest.mark.parametrize("agent", sorted(WIRING))
def test_every_entry_times_out_after_the_launcher_gives_up(agent, monkeypatch):
    monkeypatch.delenv("OKFPRO_HOOK_TIMEOUT", raising=False)
    launch = _launch_module()
    checked = 0
    for event, _, hook in entries(agent):
        script, *args = re.search(r"/\.claude/hooks/(\w+\.py)(.*)$", hook["command"]).group(1, 2)
        ours, _gate = launch.LAUNCHERS[script]
        mine = launch.timeout_for(ours, args[0].split())
        host = _host_seconds(agent, event, hook)
        assert mine < host, f"{agent} {event}: host gives up after {host:g} s, the launcher waits {mine:g} s"
        checked += 1
    assert checked >= 6


def test_launcher_timeout_honours_the_environment_but_never_a_host_clamp(monkeypatch):
    launch = _launch_module()
    monkeypatch.setenv("OKFPRO_HOOK_TIMEOUT", "50")
    assert launch.timeout_for("stop", []) == 50
    assert launch.timeout_for("session-end", ["--agent", "codex"]) == 2.5
    monkeypatch.setenv("OKFPRO_HOOK_TIMEOUT", "not a number")
    assert launch.timeout_for("stop", []) == 45


def test_claude_matchers_cover_powershell_and_name_no_retired_tool():
    pre = [m for e, m, _ in entries("claude") if e == "PreToolUse"]
    tools = {t for m in pre for t in m.split("|")}
    assert {"Edit", "Write", "Bash", "PowerShell"} <= tools
    for _, matcher, _ in entries("claude"):
        assert "MultiEdit" not in (matcher or ""), "MultiEdit is no longer a Claude Code tool"


def test_gemini_matchers_are_anchored_and_name_real_tools():
    # Gemini compiles a matcher with new RegExp(matcher).test(toolName): unanchored, 'replace' would match
    # any tool whose name contains it.  Python's re agrees with JS on these patterns.
    real = {"write_file", "replace", "run_shell_command"}
    for event, matcher, _ in entries("gemini"):
        if matcher is None:
            continue
        assert matcher.startswith("^") and matcher.endswith("$"), matcher
        assert not re.search(matcher, "edit")
        assert not re.search(matcher, "x_write_file_y")
        assert {t for t in real if re.search(matcher, t)}, matcher


def test_gemini_commands_leave_the_quoting_to_gemini():
    # Gemini replaces $GEMINI_PROJECT_DIR with an already shell-quoted path; quotes of ours around it
    # turn '<dir>/gem ws' into "'<dir>/gem ws'" -> exit 127 -> Gemini reads it as "deny".
    for _, _, hook in entries("gemini"):
        assert hook["command"].startswith("$GEMINI_PROJECT_DIR/.claude/hooks/"), hook["command"]


def test_codex_wires_session_end():
    assert any(e == "SessionEnd" for e, _, _ in entries("codex"))
