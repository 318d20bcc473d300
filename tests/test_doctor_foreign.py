"""``okfpro doctor`` runs only what okfpro wrote (issue 37.10; threat model: "doctor runs a clone's commands").

A freshly cloned repository's wiring is its author's text and no host has trusted the folder, so each
variant below is committed, cloned, and doctored in the clone: the command (or a file it reaches) would
create a marker file outside the workspace, and after doctor the marker must not exist while the report
names the entry "not okfpro's, not run".  ``--run-foreign`` runs it, after printing it.  Then what the
hosts receive and trust (issue 38.2): Codex's deny labelled as such, Gemini's folder trust read as
Gemini 0.61 reads it, and a directory that is not a workspace said in one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from okfpro.io.doctor import gemini_trust_check

GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@example.org"]


def okfpro(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "okfpro", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


def settings(ws: Path) -> dict:
    return json.loads((ws / ".claude/settings.json").read_text())


def set_stop_command(ws: Path, make: Callable[[str], str]) -> None:
    data = settings(ws)
    for group in data["hooks"]["Stop"]:
        for hook in group["hooks"]:
            hook["command"] = make(hook["command"])
    (ws / ".claude/settings.json").write_text(json.dumps(data, indent=2))


def evil_script(path: Path, marker: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 0\n")
    path.chmod(0o755)
    return path


def variant(name: str, ws: Path, marker: Path) -> None:
    touch = f"touch '{marker}'"
    if name == "appended command":
        set_stop_command(ws, lambda c: c + f"; {touch}")
    elif name == "whitespace":  # the same launcher, spelled with a tab: not byte for byte what init writes
        set_stop_command(ws, lambda c: c.replace("/.claude/hooks/stop.py", "/.claude/hooks/stop.py\t"))
        evil_script(ws / ".claude/hooks/stop.py", marker)  # were it run, this would show
    elif name == "other interpreter":
        evil_script(ws / "tools/python3", marker)
        set_stop_command(ws, lambda c: '"$CLAUDE_PROJECT_DIR"/tools/python3 ' + c)
    elif name == "environment prefix":
        evil_script(ws / "tools/python3", marker)
        set_stop_command(ws, lambda c: 'OKFPRO_LAUNCHER=two-process PATH="$CLAUDE_PROJECT_DIR/tools:$PATH" ' + c)
    elif name == "extra key":
        data = settings(ws)
        data["hooks"]["Stop"][0]["hooks"][0]["env"] = {"BASH_ENV": str(evil_script(ws / "tools/env.sh", marker))}
        (ws / ".claude/settings.json").write_text(json.dumps(data, indent=2))
    elif name == "foreign command":
        data = settings(ws)
        data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": touch}]})
        (ws / ".claude/settings.json").write_text(json.dumps(data, indent=2))
    elif name == "launcher changed on disk":
        launcher = ws / ".claude/hooks/pre_tool_use.py"
        launcher.write_text(launcher.read_text().replace("EVENT = ", f"import os; os.system({touch!r})\nEVENT = ", 1))
    elif name == "shared launcher changed on disk":
        shared = ws / ".claude/hooks/_launch.py"
        shared.write_text(f"import os\nos.system({touch!r})\n" + shared.read_text())
    elif name == "module planted beside the launchers":
        (ws / ".claude/hooks/json.py").write_text(f"import os\nos.system({touch!r})\n")
    elif name == "pin names another interpreter":
        (ws / ".claude/hooks/okfpro-python").write_text(f"{evil_script(ws / 'tools/python3', marker)}\none-process\n")
    elif name == "pre-commit entry changed":
        cfg = ws / ".pre-commit-config.yaml"
        cfg.write_text(cfg.read_text().replace("entry: python3 .claude/hooks/_cli.py audit", f"entry: sh -c \"{touch}\""))
    elif name == "package planted in the workspace":
        (ws / "okfpro").mkdir()
        (ws / "okfpro/__init__.py").write_text(f"import os\nos.system({touch!r})\n")
        (ws / "okfpro/__main__.py").write_text(f"import os\nos.system({touch!r})\n")
    else:  # pragma: no cover
        raise AssertionError(name)


VARIANTS = ("appended command", "whitespace", "other interpreter", "environment prefix", "extra key", "foreign command",
            "launcher changed on disk", "shared launcher changed on disk", "module planted beside the launchers",
            "pin names another interpreter", "pre-commit entry changed", "package planted in the workspace")


def cloned(tmp_path: Path, name: str, marker: Path) -> Path:
    """An author's workspace with the variant committed, cloned as a victim would; pre-commit's hook in place."""
    author = tmp_path / "author"
    assert okfpro("init", str(author)).returncode == 0
    variant(name, author, marker)
    subprocess.run(["git", "add", "-A", "-f"], cwd=author, check=True)
    subprocess.run(["git", *GIT_ID, "commit", "-qm", "x", "--no-verify"], cwd=author, check=True)
    victim = tmp_path / "victim"
    subprocess.run(["git", "clone", "-q", str(author), str(victim)], check=True)
    hook = victim / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\n# installed by pre-commit\n")  # as `pre-commit install` leaves it
    hook.chmod(0o755)
    return victim


@pytest.mark.parametrize("name", VARIANTS)
def test_doctor_never_runs_what_it_did_not_write(tmp_path: Path, name: str) -> None:
    marker = tmp_path / "RAN"
    ws = cloned(tmp_path, name, marker)
    proc = okfpro("doctor", str(ws), "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not marker.exists(), f"{name}: doctor ran a command it did not write"
    rep = json.loads(proc.stdout)
    if name == "package planted in the workspace":  # nothing of the workspace is on doctor's import path
        assert all(c["ok"] for c in rep["checks"] if c["check"] in ("identity", "interpreter pin")), rep
        return
    said = " ".join(c["detail"] for c in rep["checks"])
    assert "not okfpro's, not run" in said or "not run" in said, rep


def test_a_foreign_command_is_named_and_run_only_when_asked(tmp_path: Path) -> None:
    marker = tmp_path / "RAN"
    ws = cloned(tmp_path, "appended command", marker)
    text = okfpro("doctor", str(ws))
    assert "not okfpro's, not run" in text.stdout and str(marker) in text.stdout and not marker.exists()
    ran = okfpro("doctor", str(ws), "--run-foreign")
    assert marker.exists(), ran.stdout + ran.stderr
    assert "--run-foreign" in ran.stderr and f"touch '{marker}'" in ran.stderr  # shown before it ran


def test_a_directory_that_is_not_a_workspace_is_one_line(tmp_path: Path) -> None:
    proc = okfpro("doctor", str(tmp_path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and "not an okfpro workspace" in proc.stderr


def test_codex_is_labelled_by_what_it_receives(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert okfpro("init", str(ws), "--agent", "codex").returncode == 0
    rep = json.loads(okfpro("doctor", str(ws), "--json").stdout)
    (pre,) = [c for c in rep["checks"] if c["host"] == "codex" and c["check"].startswith("PreToolUse")]
    assert pre["ok"] and "answered (deny)" in pre["detail"] and "(ask)" not in pre["detail"]


def trust(ws: Path, home: Path, rules: object | None, **env: str) -> bool:
    gemini = home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    if rules is not None:
        (gemini / "trustedFolders.json").write_text(rules if isinstance(rules, str) else json.dumps(rules))
    return gemini_trust_check(ws, {"HOME": str(home), "GEMINI_CLI_HOME": str(home), **env})["ok"]


def test_gemini_folder_trust_as_gemini_reads_it(tmp_path: Path) -> None:
    ws = tmp_path / "a b" / "w"
    ws.mkdir(parents=True)
    home = tmp_path / "home"
    assert not trust(ws, home, None)  # no file: not trusted yet
    assert trust(ws, home, {str(ws): "TRUST_FOLDER"})
    assert trust(ws, home, {str(ws / "inner"): "TRUST_PARENT"})  # the parent of the rule's path
    assert trust(ws, home, {str(ws.parent): "TRUST_FOLDER"})
    assert not trust(ws, home, {str(ws.parent): "TRUST_FOLDER", str(ws): "DO_NOT_TRUST"})  # the longest rule wins
    assert trust(ws, home, {str(ws.parent): "DO_NOT_TRUST", str(ws): "TRUST_FOLDER"})
    assert not trust(ws, home, {str(ws) + "-other": "TRUST_FOLDER"})  # a sibling with the same prefix
    assert trust(ws, home, '{\n  // mine\n  "' + str(ws) + '": "TRUST_FOLDER" /* yes */\n}\n')  # comments, as Gemini
    assert not trust(ws, home, {str(ws): "TRUST_FOLDER"}, GEMINI_CLI_TRUST_WORKSPACE="false")
    assert trust(ws, home, {}, GEMINI_CLI_TRUST_WORKSPACE="true")
    (home / ".gemini/settings.json").write_text('{"security": {"folderTrust": {"enabled": false}}}')
    assert trust(ws, home, {})


def test_doctor_does_not_say_every_hook_runs_while_gemini_runs_none(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    home = tmp_path / "home"
    home.mkdir()
    assert okfpro("init", str(ws), "--agent", "gemini").returncode == 0
    proc = okfpro("doctor", str(ws), env={"HOME": str(home), "GEMINI_CLI_HOME": str(home)})
    assert "every wired host runs every hook" not in proc.stdout and "gemini trust" in proc.stdout, proc.stdout
    assert "FAIL gemini: gemini trust" in proc.stdout


@pytest.mark.parametrize("name", ["appended command", "whitespace", "other interpreter", "environment prefix", "extra key"])
def test_audit_names_a_changed_okfpro_command(tmp_path: Path, name: str) -> None:
    """The commit and CI doors say it too: the host runs something else under okfpro's name."""
    ws = tmp_path / "w"
    assert okfpro("init", str(ws)).returncode == 0
    assert okfpro("audit", str(ws)).returncode == 0
    variant(name, ws, tmp_path / "RAN")
    proc = okfpro("audit", str(ws))
    assert proc.returncode == 1 and "is not what `okfpro init` writes" in proc.stdout, proc.stdout
    assert not (tmp_path / "RAN").exists()


def test_inside_a_workspace_doctor_names_it(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    assert okfpro("init", str(ws)).returncode == 0
    proc = okfpro("doctor", str(ws / ".okf"))
    assert proc.returncode == 2 and f"`okfpro doctor {ws}`" in proc.stderr, proc.stderr
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text('{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}')
    assert okfpro("doctor", str(home)).returncode == 2  # a user's own settings are not a workspace


def test_codex_commands_that_reach_another_folders_launchers_are_not_run(tmp_path: Path) -> None:
    """Codex's wiring finds .claude/hooks/ at the repository's top: a workspace in a subfolder of a
    repository whose top holds launchers of its own would run those."""
    marker = tmp_path / "RAN"
    author = tmp_path / "author"
    author.mkdir()
    subprocess.run(["git", "init", "-q", str(author)], check=True)
    for name in ("session_start.py", "pre_tool_use.py", "post_edit.py", "stop.py", "user_prompt_submit.py", "session_end.py"):
        evil_script(author / ".claude/hooks" / name, marker)
    assert okfpro("init", str(author / "sub"), "--agent", "codex").returncode == 0
    subprocess.run(["git", "add", "-A", "-f"], cwd=author, check=True)
    subprocess.run(["git", *GIT_ID, "commit", "-qm", "x", "--no-verify"], cwd=author, check=True)
    victim = tmp_path / "victim"
    subprocess.run(["git", "clone", "-q", str(author), str(victim)], check=True)
    proc = okfpro("doctor", str(victim / "sub"), "--json")
    assert not marker.exists(), "doctor ran the launchers at the repository's top"
    rep = json.loads(proc.stdout)
    pre = [c for c in rep["checks"] if c["host"] == "codex" and c["check"].startswith("PreToolUse")]
    assert pre and not pre[0]["ok"] and "not run" in pre[0]["detail"], rep
