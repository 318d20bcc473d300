"""Helpers for the hook tests: a real workspace on disk, real launchers, real processes.

``make_workspace(base)`` writes a small, clean okfpro workspace (``.okf/`` bundle
with the closed core, a board with one project in flight, a log, a past journal
day, two learnings about search — one deprecated — for reconciliation), makes
it a Git repository with everything committed, and installs the launchers from
this checkout's ``hooks/`` into ``.claude/hooks/`` with an ``okfpro-python`` pin
naming the interpreter running the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import invoke

REPO = Path(__file__).resolve().parents[1]
TODAY = "2026-11-30"
PAST = "2026-11-27"
MARKER = "okfpro-enforcer v1"
LAUNCHERS = ("session_start.py", "pre_tool_use.py", "post_edit.py", "stop.py", "user_prompt_submit.py", "session_end.py")

BOARD = """---
type: Board
title: Board
description: The one page of work state.
---

**In flight: 1/5** · updated {today}

## In flight

- [/projects/alpha/](/projects/alpha/index.md) — ship the search page

## Backlog

## Waiting

## Inbox

## To read

## Deadlines
"""

FILES = {
    "index.md": '---\nokf_version: "0.2"\n---\n\n# Workspace\n\n* [Board](board.md) - the one page of state.\n'
    "* [Log](log.md) - the delta memory.\n* [Areas](areas/index.md) - standards.\n"
    "* [Projects](projects/index.md) - work with a definition of done.\n"
    "* [Learnings](learnings/index.md) - conclusions.\n* [Journal](journal/index.md) - the daily record.\n",
    "log.md": "# Update Log\n\n## {past}\n\n* Started the search page.\n* {snapshot}\n",
    "areas/index.md": "# Areas\n\n* [Corpus](corpus.md) - the standard this corpus is kept to.\n",
    "areas/corpus.md": "---\ntype: Overview\ntitle: Corpus standard\ndescription: How this corpus is kept, named and reviewed.\n---\n\n"
    "# Corpus standard\n\nEvery concept names its sources. The [board](/board.md) holds the work state.\n",
    "projects/index.md": "# Projects\n\n* [Alpha](alpha/index.md) - the search page.\n",
    "projects/alpha/index.md": "# Alpha\n\nShip the search page. See [the plan](plan.md).\n",
    "projects/alpha/plan.md": "---\ntype: Overview\ntitle: Alpha plan\ndescription: The plan for shipping the search page this month.\n---\n\n"
    "# Alpha plan\n\nShip the page, then measure it. Ranking follows [the learning](/learnings/search-ranking.md).\n",
    "learnings/index.md": "# Learnings\n\n* [Search ranking](search-ranking.md) - what ranks well.\n"
    "* [Search cache](search-cache.md) - superseded.\n",
    "learnings/search-ranking.md": "---\ntype: Learning\ntitle: Search ranking\ndescription: Field weights beat a single relevance score for search in small corpora.\n---\n\n"
    "# Search ranking\n\nField weights (title over body) rank search results better than one score. "
    "Used by [the alpha plan](/projects/alpha/plan.md).\n",
    "learnings/search-cache.md": "---\ntype: Learning\ntitle: Search cache\nstatus: deprecated\ndescription: Caching search results per query (superseded by ranking work).\n---\n\n"
    "# Search cache\n\nCaching search results per query was tried and dropped; see [ranking](/learnings/search-ranking.md).\n",
    "journal/index.md": "# Journal\n\n* [{past}]({past}.md) - the day's record.\n",
    "journal/{past}.md": "---\ntype: Journal Entry\ntitle: \"{past}\"\ndescription: What happened on {past}, what it meant, and what was decided.\n---\n\n"
    "# {past}\n\nStarted [/projects/alpha/](/projects/alpha/index.md).\n",
}


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ)
    out["OKFPRO_TODAY"] = TODAY
    out["PYTHONPATH"] = str(REPO) + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    out.update(extra or {})
    return out


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True)


def snapshot_line(root: Path) -> str:
    proc = invoke("snapshot", str(root), base_env=env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def install_launchers(ws: Path, python: str | None = sys.executable) -> Path:
    hooks = ws / ".claude" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    for name in LAUNCHERS + ("_launch.py",):
        shutil.copy2(REPO / "hooks" / name, hooks / name)
    if python is not None:
        (hooks / "okfpro-python").write_text(python + "\n")
    return hooks


def make_workspace(base: Path, name: str = "my workspace", commit: bool = True) -> Path:
    ws = base / name
    root = ws / ".okf"
    for rel, text in FILES.items():
        path = root / rel.format(past=PAST)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{past}", PAST).replace("{today}", TODAY).replace("{snapshot}", "SNAPSHOT"))
    for room in ("reference", "glossary"):
        (root / room).mkdir(exist_ok=True)
        (root / room / "index.md").write_text(f"# {room.title()}\n\nNothing filed here yet.\n")
    (root / "board.md").write_text(BOARD.replace("{today}", TODAY))
    (ws / ".tmp").mkdir(exist_ok=True)
    (ws / ".tmp" / ".gitkeep").write_text("")
    (ws / ".gitignore").write_text(".tmp/*\n!.tmp/.gitkeep\n")
    log = root / "log.md"
    log.write_text(log.read_text().replace("* SNAPSHOT", snapshot_line(root)))
    install_launchers(ws)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    if commit:
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", "workspace")
    return ws


def run_launcher(ws: Path, launcher: str, event: dict | str | bytes | None, *, extra_env: dict[str, str] | None = None,
                 args: tuple[str, ...] = (), cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``.claude/hooks/<launcher>`` as the host does: a real process, JSON on stdin."""
    if isinstance(event, dict):
        data = json.dumps(event).encode()
    elif isinstance(event, str):
        data = event.encode()
    else:
        data = event or b""
    script = ws / ".claude" / "hooks" / launcher
    proc = subprocess.run([str(script), *args], input=data, capture_output=True, env=env(extra_env),
                          cwd=str(cwd or ws), timeout=180)
    return proc


def hook(*args: str, event: dict | str | bytes | None = None, extra_env: dict[str, str] | None = None,
         cwd: Path | None = None, process: bool = True) -> subprocess.CompletedProcess:
    """Run ``python -m okfpro hook ARGS`` directly: a real process, or (``process=False``) the same
    entry point in the test's process (:func:`tests.helpers.invoke`), for the corpora that ask one
    question many times; each of them also checks a sample against real processes."""
    if isinstance(event, dict):
        data = json.dumps(event).encode()
    elif isinstance(event, str):
        data = event.encode()
    else:
        data = event or b""
    if not process:
        return invoke("hook", *args, stdin=data, base_env=env(extra_env), cwd=cwd, text=False)
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", *args], input=data, capture_output=True,
                          env=env(extra_env), cwd=str(cwd) if cwd else None, timeout=180)


def hook_both_ways(*args: str, event: dict | str | bytes | None = None, extra_env: dict[str, str] | None = None,
                   cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``hook(...)`` in a real process and in the test's process: asserts the same exit code, stdout and
    stderr byte for byte, and returns the real process's answer."""
    real = hook(*args, event=event, extra_env=extra_env, cwd=cwd)
    here = hook(*args, event=event, extra_env=extra_env, cwd=cwd, process=False)
    assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr)
    return real


def edit_event(ws: Path, rel: str, new: str, tool: str = "Edit", hook_event: str = "PreToolUse") -> dict:
    path = str(ws / ".okf" / rel)
    if tool == "Write":
        ti = {"file_path": path, "content": new}
    elif tool == "MultiEdit":
        ti = {"file_path": path, "edits": [{"old_string": "x", "new_string": new}]}
    else:
        ti = {"file_path": path, "old_string": "x", "new_string": new}
    return {"session_id": "s1", "hook_event_name": hook_event, "cwd": str(ws), "tool_name": tool, "tool_input": ti}


def bash_event(ws: Path, command: str) -> dict:
    return {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(ws), "tool_name": "Bash",
            "tool_input": {"command": command}}


def err_text(proc: subprocess.CompletedProcess) -> str:
    return proc.stderr.decode("utf-8", "replace")


def out_text(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout.decode("utf-8", "replace")
