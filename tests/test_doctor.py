"""``okfpro doctor``: every wired host's commands run as that host runs them, and the report says
which part of the loop is broken (exit 1) or that none is (exit 0)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from okfpro.io.doctor import gemini_expand, shell_quote


def okfpro(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "okfpro", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})})


def init_all(path: Path) -> Path:
    proc = okfpro("init", str(path), "--agent", "claude", "--agent", "codex", "--agent", "gemini")
    assert proc.returncode == 0, proc.stderr
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=path, check=True)
    return path


def report(ws: Path, env: dict | None = None) -> tuple[int, dict]:
    proc = okfpro("doctor", str(ws), "--json", env=env)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def by_name(rep: dict) -> dict:
    return {(c["host"], c["check"]): c for c in rep["checks"]}


def test_doctor_runs_every_host_command_and_names_what_is_off(tmp_path):
    ws = init_all(tmp_path / "doc ws (1)")
    code, rep = report(ws, env={"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"})
    checks = by_name(rep)
    assert rep["hosts"] == ["claude", "codex", "gemini"]
    for host, events in {"claude": ("PreToolUse [Edit|Write]", "PreToolUse [Bash|PowerShell]", "PostToolUse [Edit|Write]",
                                    "Stop", "SessionStart", "UserPromptSubmit", "SessionEnd"),
                         "codex": ("PreToolUse [apply_patch|Edit|Write|Bash]", "Stop", "SessionStart", "SessionEnd"),
                         "gemini": ("BeforeTool [^(write_file|replace|run_shell_command)$]", "AfterAgent", "SessionStart")}.items():
        for event in events:
            assert checks[(host, event)]["ok"], checks[(host, event)]
    assert checks[(None, "interpreter pin")]["ok"]
    # what a fresh workspace still lacks is named, and the exit code says the loop is not whole
    assert not checks[(None, "pre-commit installed")]["ok"]
    assert not checks[("codex", "codex trust")]["ok"]
    assert code == 1
    assert not list(ws.glob(".okf/doctor-*")) and not list(ws.glob(".okfpro-doctor-*"))  # wrote nothing
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ws, capture_output=True, text=True).stdout == ""


def test_doctor_fails_the_old_gemini_quoting(tmp_path):
    ws = init_all(tmp_path / "gem ws (2)")
    settings = json.loads((ws / ".gemini/settings.json").read_text())
    for groups in settings["hooks"].values():
        for g in groups:
            for h in g["hooks"]:
                h["command"] = h["command"].replace("$GEMINI_PROJECT_DIR", '"$GEMINI_PROJECT_DIR"')
    (ws / ".gemini/settings.json").write_text(json.dumps(settings))
    code, rep = report(ws)
    failed = [c for c in rep["checks"] if c["host"] == "gemini" and not c["ok"]]
    assert code == 1 and any(c["check"].startswith("BeforeTool") for c in failed), rep


def test_doctor_text_report_and_bad_dir(tmp_path):
    ws = init_all(tmp_path / "w")
    proc = okfpro("doctor", str(ws))
    assert proc.returncode == 1 and "FAIL" in proc.stdout and "pre-commit installed" in proc.stdout, proc.stdout
    assert okfpro("doctor", str(tmp_path / "nope")).returncode == 2


@pytest.mark.parametrize("value", ["/tmp/plain/ws", "/tmp/a b(c/ws", "/tmp/a,b:c@d[e]#f/ws", "/tmp/it's here/ws",
                                   "/tmp/q\"uote/ws", "/tmp/dollar$x/ws", ""])
def test_shell_quote_round_trips_through_bash(value):
    quoted = shell_quote(value)
    out = subprocess.run(["bash", "-c", f"printf %s {quoted}"], capture_output=True, text=True).stdout
    assert out == value
    assert gemini_expand("$GEMINI_PROJECT_DIR/x", value or "/", "s", "/p") == (shell_quote(value or "/")) + "/x"


def test_doctor_says_yes_only_when_the_whole_loop_runs(tmp_path):
    ws = tmp_path / "whole (loop)"
    assert okfpro("init", str(ws)).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home")}
    assert subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=ws, capture_output=True, env=env).returncode == 0
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
    commit = subprocess.run(["git", "commit", "-qm", "init"], cwd=ws, capture_output=True, text=True, env=env)
    assert commit.returncode == 0, commit.stdout + commit.stderr
    code, rep = report(ws, env={"PRE_COMMIT_HOME": str(tmp_path / "pc-home")})
    assert code == 0 and rep["ok"], [c for c in rep["checks"] if not c["ok"]]
    # one broken link of the loop is enough for exit 1, and the report names it
    (ws / ".claude/hooks/okfpro-python").write_text("/nonexistent/python\n")
    code, rep = report(ws, env={"PRE_COMMIT_HOME": str(tmp_path / "pc-home")})
    assert code == 1 and not by_name(rep)[(None, "interpreter pin")]["ok"]
    assert not by_name(rep)[("claude", "PreToolUse [Edit|Write]")]["ok"]
