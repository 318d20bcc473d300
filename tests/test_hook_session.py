"""A scripted, Claude-Code-shaped session replayed through the installed launchers.

Each step sends the event a host would send (real JSON, real processes), makes
the change the agent would make on disk when the host lets the tool run, and
asserts the decision: pass, ask, block or context.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402


class Session:
    def __init__(self, ws: Path) -> None:
        self.ws = ws
        self.root = ws / ".okf"
        self.transcript: list[tuple[str, int, str]] = []

    def send(self, launcher: str, event: dict) -> subprocess.CompletedProcess:
        event = {"session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": str(self.ws), **event}
        proc = hookkit.run_launcher(self.ws, launcher, event)
        assert hookkit.MARKER not in hookkit.err_text(proc)
        self.transcript.append((event.get("hook_event_name", launcher), proc.returncode, hookkit.err_text(proc)[:80]))
        return proc

    def tool(self, tool: str, rel: str, **ti) -> dict:
        return {"tool_name": tool, "tool_use_id": "t", "tool_input": {"file_path": str(self.root / rel), **ti}}

    def edit(self, rel: str, old: str, new: str) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess | None]:
        ev = self.tool("Edit", rel, old_string=old, new_string=new, replace_all=False)
        pre = self.send("pre_tool_use.py", {"hook_event_name": "PreToolUse", **ev})
        if pre.returncode != 0 or pre.stdout:
            return pre, None
        path = self.root / rel
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
        post = self.send("post_edit.py", {"hook_event_name": "PostToolUse", **ev, "tool_response": {"filePath": str(path), "success": True}})
        return pre, post

    def write(self, rel: str, content: str) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess | None]:
        ev = self.tool("Write", rel, content=content)
        pre = self.send("pre_tool_use.py", {"hook_event_name": "PreToolUse", **ev})
        if pre.returncode != 0 or pre.stdout:
            return pre, None
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        post = self.send("post_edit.py", {"hook_event_name": "PostToolUse", **ev, "tool_response": {"filePath": str(path), "success": True}})
        return pre, post

    def bash(self, command: str) -> subprocess.CompletedProcess:
        return self.send("pre_tool_use.py", {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                                             "tool_input": {"command": command, "description": "", "timeout": 120000}})


def passed(proc) -> bool:
    return proc is not None and proc.returncode == 0 and proc.stdout == b""


def test_a_working_session_end_to_end(tmp_path):
    ws = hookkit.make_workspace(tmp_path, "client work")
    s = Session(ws)

    # 1. the session opens: the banner is context, exit 0
    start = s.send("session_start.py", {"hook_event_name": "SessionStart", "source": "startup", "model": "x"})
    assert start.returncode == 0
    banner = hookkit.out_text(start)
    assert banner.startswith("Bundle state at session start — in flight 1/5")
    assert f"journal for {hookkit.TODAY} not opened" in banner and "open projects 1 (alpha)" in banner
    assert "Friction:" not in banner

    # 2. the prompt: advisory only
    assert s.send("user_prompt_submit.py", {"hook_event_name": "UserPromptSubmit", "prompt": "improve ranking notes"}).returncode == 0

    # 3. an ordinary edit of an existing concept: pass before, pass after
    pre, post = s.edit("learnings/search-ranking.md", "rank search results better", "rank search results measurably better")
    assert passed(pre) and passed(post)

    # 4. a new concept that collides with existing vocabulary: allowed, then RULE 1 after it lands
    pre, post = s.write(
        "learnings/search-ranking-bm25.md",
        "---\ntype: Learning\ntitle: BM25 for search ranking\ndescription: BM25 ranks search results better than fixed field weights.\n---\n\n"
        "# BM25 for search ranking\n\nMeasured against [field weights](/learnings/search-ranking.md).\n",
    )
    assert passed(pre)
    assert post.returncode == 2
    err = hookkit.err_text(post)
    assert "RULE 1 — reconciliation" in err
    assert "— 'search':" in err and "— 'ranking':" in err and "— 'bm25':" not in err
    assert "learnings/search-ranking  ·  Learning  ·  Search ranking" in err
    assert "learnings/search-cache  [deprecated — this collision was already settled]" in err
    assert "okfpro lint flagged your edit:" in err  # not yet listed in its index

    # 5. the agent files it in the index and supersedes the loser: both edits pass
    pre, post = s.edit("learnings/index.md", "* [Search cache](search-cache.md) - superseded.\n",
                       "* [Search cache](search-cache.md) - superseded.\n* [BM25](search-ranking-bm25.md) - BM25 ranking.\n")
    assert passed(pre) and passed(post), hookkit.err_text(post)

    # 6. a shell write into the bundle: ask, and the intent is recorded as friction
    ask = s.bash(f"echo '- {hookkit.TODAY} — try BM25 on the docs search' >> .okf/board.md")
    assert ask.returncode == 0
    decision = json.loads(ask.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask" and "Edit or Write" in decision["permissionDecisionReason"]
    friction = [json.loads(x) for x in (ws / ".tmp" / "okfpro-friction.log").read_text().splitlines()]
    assert friction == [{"at": hookkit.TODAY, "via": "shell", "what": "board.md",
                         "detail": f"echo '- {hookkit.TODAY} — try BM25 on the docs search' >> .okf/board.md"}]

    # 7. a read-only shell command and okfpro's own writer: no ask
    assert passed(s.bash("grep -rn BM25 .okf 2>/dev/null | head -5"))
    assert passed(s.bash("okfpro journal open"))
    subprocess.run([sys.executable, "-m", "okfpro", "journal", "open"], check=True, capture_output=True, env=hookkit.env(), cwd=ws)

    # 8. editing a past journal day is blocked; today's entry is fine
    pre, post = s.edit(f"journal/{hookkit.PAST}.md", "Started", "Restarted")
    assert pre.returncode == 2 and "append-only" in hookkit.err_text(pre) and post is None
    today_entry = (s.root / "journal" / f"{hookkit.TODAY}.md").read_text()
    placeholder = [line for line in today_entry.splitlines() if line.startswith("<!--")][0]
    pre, post = s.edit(f"journal/{hookkit.TODAY}.md", placeholder, "Filed BM25 against [/projects/alpha/](/projects/alpha/index.md).")
    assert passed(pre) and passed(post), hookkit.err_text(post)

    # 9. the board edited by hand (Edit): allowed, checked, and counted as friction
    pre, post = s.edit("board.md", "## Inbox\n", f"## Inbox\n\n- {hookkit.TODAY} — compare BM25 with field weights\n")
    assert passed(pre) and passed(post), hookkit.err_text(post)

    # 10. stop without today's Snapshot line: refused with the line to paste
    stop = s.send("stop.py", {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"})
    assert stop.returncode == 2
    err = hookkit.err_text(stop)
    assert err.startswith("RULE 2 — before stopping:")
    assert f"log.md has no Snapshot line under {hookkit.TODAY}" in err
    line = [x.strip() for x in err.splitlines() if x.strip().startswith("* **Snapshot**:")][0]
    assert line.startswith("* **Snapshot**: inbox 1 (oldest 0d) · in flight 1/5")

    # 11. the host retries with stop_hook_active: never a loop
    assert passed(s.send("stop.py", {"hook_event_name": "Stop", "stop_hook_active": True}))

    # 12. the agent appends the Snapshot line (an Edit of log.md), then stops cleanly
    pre, post = s.edit("log.md", "# Update Log\n", f"# Update Log\n\n## {hookkit.TODAY}\n\n* Filed BM25.\n{line}\n")
    assert passed(pre) and passed(post), hookkit.err_text(post)
    assert passed(s.send("stop.py", {"hook_event_name": "Stop", "stop_hook_active": False}))

    # 13. the session ends; the next one opens with the new snapshot and the friction count
    assert s.send("session_end.py", {"hook_event_name": "SessionEnd", "reason": "other"}).returncode == 0
    again = hookkit.out_text(s.send("session_start.py", {"hook_event_name": "SessionStart", "source": "startup"}))
    assert f"Last snapshot ({hookkit.TODAY}, not live): {line}" in again
    assert f"journal for {hookkit.TODAY} open" in again
    assert "Friction: 1 bundle edit(s) so far were made by hand where an `okfpro` verb exists." in again

    decisions = [rc for _, rc, _ in s.transcript]
    assert decisions.count(2) == 3  # reconcile, past journal, stop without snapshot
