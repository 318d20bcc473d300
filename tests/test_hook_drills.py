"""Drills: the installed launchers as real processes, real JSON on stdin, real exit codes.

Every gate is drilled both ways (a block that blocks, a pass that passes, an ask
that reaches stdout intact), and every way a hook could *pass while unable to
check* is drilled closed: okfpro not importable, a crash inside a check, an
unexpected exit code, non-JSON and empty stdin, a project path with a space, a
stray ``okfpro`` on PATH that is not ours, CI verbs and help flags at the hook door.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    return hookkit.make_workspace(tmp_path_factory.mktemp("drills"))


@pytest.fixture
def fresh(tmp_path) -> Path:
    return hookkit.make_workspace(tmp_path)


def ask_reason(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 0, hookkit.err_text(proc)
    payload = json.loads(proc.stdout)
    assert set(payload) == {"hookSpecificOutput"}
    hso = payload["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == "ask"
    return hso["permissionDecisionReason"]


def assert_pass(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, hookkit.err_text(proc)
    assert proc.stdout == b""
    assert hookkit.MARKER not in hookkit.err_text(proc)


# --------------------------------------------------------------------------- guard-verified


@pytest.mark.parametrize(
    "text",
    [
        "---\ntype: Briefing\nverified:\n  - by: human:ana\n---\n",
        "---\nverified : yes\n---\n",
        "---\ntype: Briefing\ngenerated: {by: agent}\n'verified': {by: human:ana}\n---\n",
        '---\n{"verified": "x"}\n---\n',
    ],
)
def test_guard_verified_asks_and_the_ask_reaches_stdout_intact(ws, text):
    event = hookkit.edit_event(ws, "reference/new-briefing.md", text, tool="Write")
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", event)
    reason = ask_reason(proc)
    assert "verified:" in reason and "attestation" in reason
    direct = hookkit.hook("pre-tool-use", event=event)
    assert proc.stdout == direct.stdout  # byte for byte through the launcher
    assert proc.stdout.startswith(
        b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"')
    assert hookkit.MARKER in hookkit.err_text(direct) and hookkit.MARKER not in hookkit.err_text(proc)


def test_guard_verified_multiedit_and_new_str_spellings(ws):
    ev = hookkit.edit_event(ws, "learnings/search-ranking.md", "", tool="MultiEdit")
    ev["tool_input"]["edits"] = [{"old_string": "type: Learning\n", "new_string": "type: Learning\nverified:\n  - by: human:x\n"}]
    assert "attestation" in ask_reason(hookkit.run_launcher(ws, "pre_tool_use.py", ev))
    ev = hookkit.edit_event(ws, "learnings/search-ranking.md", "")
    ev["tool_input"] = {"file_path": ev["tool_input"]["file_path"], "old_str": "type: Learning\n",
                        "new_str": "type: Learning\nverified: true\n"}
    assert "attestation" in ask_reason(hookkit.run_launcher(ws, "pre_tool_use.py", ev))


def test_guard_verified_passes_ordinary_edits_and_files_outside_the_bundle(ws):
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, "learnings/search-ranking.md", "unverified is fine")))
    outside = {"cwd": str(ws), "tool_name": "Write", "tool_input": {"file_path": str(ws / "README.md"), "content": "---\nverified: yes\n---\n"}}
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", outside))
    hidden = {"cwd": str(ws), "tool_name": "Write", "tool_input": {"file_path": str(ws / ".okf" / ".drafts" / "x.md"), "content": "---\nverified: yes\n---\n"}}
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", hidden))
    not_md = {"cwd": str(ws), "tool_name": "Write", "tool_input": {"file_path": str(ws / ".okf" / "notes.txt"), "content": "---\nverified: yes\n---\n"}}
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", not_md))


# --------------------------------------------------------------------------- journal-guard


def test_journal_guard_blocks_an_existing_past_day(ws):
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "a correction"))
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = hookkit.err_text(proc)
    assert f"journal/{hookkit.PAST}.md" in err and "append-only" in err and hookkit.MARKER not in err


def test_journal_guard_asks_before_creating_a_missing_past_day(ws):
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, "journal/2026-11-02.md", "---\n", tool="Write"))
    assert "PAST day" in ask_reason(proc)


def test_journal_guard_passes_today_and_the_future(ws):
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, f"journal/{hookkit.TODAY}.md", "x", tool="Write")))
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, "journal/2027-01-01.md", "x", tool="Write")))


def test_block_beats_ask_when_both_fire(ws):
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "verified: yes"))
    assert proc.returncode == 2 and proc.stdout == b""


# --------------------------------------------------------------------------- shell-guard


@pytest.mark.parametrize(
    "command",
    [
        "echo '- 2026-11-30 — x' >> .okf/board.md",
        "sed -i 's/a/b/' .okf/log.md",
        "cat notes.txt | tee .okf/learnings/x.md",
        "cp /tmp/x.md .okf/reference/",
        "printf 'x' > learnings/new.md",
        "python3 -c \"open('.okf/board.md','w').write('')\"",
    ],
)
def test_shell_guard_asks_on_writes_into_the_bundle(ws, command):
    assert "shell" in ask_reason(hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.bash_event(ws, command)))


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn search .okf 2>/dev/null | head",
        "ls .okf/*.md >/dev/null 2>&1",
        "echo '<!-- note -->' | grep -c -- '-->' .okf/board.md",
        "awk '{ print $1 => $2 }' .okf/log.md",
        "cat .okf/board.md",
        "git diff -- .okf/board.md",
        "echo hi > /tmp/elsewhere.txt",
        "ls >&2",
    ],
)
def test_shell_guard_does_not_fire_on_reads(ws, command):
    assert_pass(hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.bash_event(ws, command)))


def test_shell_guard_records_friction_intent_but_not_okfpro_own_commands(fresh):
    log = fresh / ".tmp" / "okfpro-friction.log"
    ask_reason(hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.bash_event(fresh, "echo '- x' >> .okf/board.md")))
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert rows == [{"at": hookkit.TODAY, "via": "shell", "what": "board.md", "detail": "echo '- x' >> .okf/board.md"}]
    ask_reason(hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.bash_event(fresh, "okfpro snapshot .okf > .okf/learnings/s.md")))
    assert len(log.read_text().splitlines()) == 1


# --------------------------------------------------------------------------- post-edit


def post(ws: Path, rel: str, text: str, tool: str = "Write") -> subprocess.CompletedProcess:
    path = ws / ".okf" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return hookkit.run_launcher(ws, "post_edit.py", hookkit.edit_event(ws, rel, text, tool=tool, hook_event="PostToolUse"))


def test_post_edit_blocks_on_a_validator_error(fresh):
    proc = post(fresh, "learnings/broken.md", "no frontmatter here\n", tool="Edit")
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert "okfpro validate failed after your edit:" in err and "learnings/broken.md" in err
    assert hookkit.MARKER not in err


def test_post_edit_passes_a_clean_edit(fresh):
    rel = "learnings/search-ranking.md"
    text = (fresh / ".okf" / rel).read_text().replace("rank search results", "rank our search results")
    assert_pass(post(fresh, rel, text, tool="Edit"))


def test_post_edit_cap_check_on_the_board_and_friction(fresh):
    board = (fresh / ".okf" / "board.md").read_text().replace("**In flight: 1/5**", "**In flight: 3/5**")
    proc = post(fresh, "board.md", board, tool="Edit")
    assert proc.returncode == 2
    assert "The header says 3 in flight, but the section holds 1" in hookkit.err_text(proc)
    rows = [json.loads(x) for x in (fresh / ".tmp" / "okfpro-friction.log").read_text().splitlines()]
    assert rows == [{"at": hookkit.TODAY, "via": "edit", "what": "board.md"}]


def test_post_edit_reconciles_a_new_concept_and_annotates_deprecated_hits(fresh):
    text = ("---\ntype: Learning\ntitle: Cache warming\ndescription: Warm the cache before the search page opens.\n---\n\n"
            "# Cache warming\n\nSee [ranking](/learnings/search-ranking.md).\n")
    proc = post(fresh, "learnings/search-cache-warming.md", text)
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert "RULE 1" in err and "— 'search':" in err and "— 'cache':" in err
    assert "learnings/search-cache  [deprecated" in err
    assert "learnings/search-cache-warming  ·" not in err  # never itself


# --------------------------------------------------------------------------- stop gate


def stop(ws: Path, **extra) -> subprocess.CompletedProcess:
    return hookkit.run_launcher(ws, "stop.py", {"session_id": "s1", "hook_event_name": "Stop", "cwd": str(ws), **extra})


def test_stop_passes_a_clean_tree(ws):
    assert_pass(stop(ws))


def test_stop_refuses_a_dirty_tree_without_todays_snapshot_then_passes_with_it(fresh):
    (fresh / ".okf" / "learnings" / "search-ranking.md").write_text(
        (fresh / ".okf" / "learnings" / "search-ranking.md").read_text() + "\nOne more note.\n")
    proc = stop(fresh)
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert err.startswith("RULE 2 — before stopping:")
    assert f"log.md has no Snapshot line under {hookkit.TODAY}" in err
    line = [x.strip() for x in err.splitlines() if x.strip().startswith("* **Snapshot**:")][0]
    log = fresh / ".okf" / "log.md"
    log.write_text(log.read_text().replace("# Update Log\n", f"# Update Log\n\n## {hookkit.TODAY}\n\n{line}\n", 1))
    assert_pass(stop(fresh))  # the fix was a paste


def test_stop_refuses_a_snapshot_that_disagrees(fresh):
    log = fresh / ".okf" / "log.md"
    wrong = "* **Snapshot**: inbox 4 (oldest 0d) · in flight 1/5 · waiting 0 (0 past chase) · backlog 0 · to read 0 · unverified briefings 0 · conflicts open 0 · deadlines within 7d not in flight 0 · projects with 0 concepts 0"
    log.write_text(log.read_text().replace("# Update Log\n", f"# Update Log\n\n## {hookkit.TODAY}\n\n{wrong}\n", 1))
    proc = stop(fresh)
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert "inbox is 0, the line says 4" in err and "* **Snapshot**: inbox 0 (oldest 0d)" in err


def test_stop_skips_when_stop_hook_active_or_outside_a_bundle(fresh, tmp_path):
    (fresh / ".okf" / "roadmap.md").write_text("dirty\n")
    assert stop(fresh).returncode == 2
    assert_pass(stop(fresh, stop_hook_active=True))
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    assert_pass(hookkit.run_launcher(fresh, "stop.py", {"cwd": str(elsewhere)}))


def test_stop_counts_a_git_failure_as_dirty(tmp_path):
    ws = hookkit.make_workspace(tmp_path, "no git", commit=False)
    import shutil

    shutil.rmtree(ws / ".git")
    proc = stop(ws)
    assert proc.returncode == 2 and "no Snapshot line" in hookkit.err_text(proc)


def test_stop_reports_board_grammar_and_pairing(fresh):
    board = fresh / ".okf" / "board.md"
    board.write_text(board.read_text().replace("## Inbox\n", "## Inbox\n\n- undated capture\n  * stray\n- [/learnings/gone.md](/learnings/gone.md)\n"))
    proc = stop(fresh)
    err = hookkit.err_text(proc)
    assert proc.returncode == 2
    assert "— board: " in err and "no leading calendar date" in err
    assert "— pairing: a board line links /learnings/gone.md" in err


# --------------------------------------------------------------------------- session start


def test_session_start_banner(ws):
    proc = hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws), "source": "startup", "hook_event_name": "SessionStart"})
    assert proc.returncode == 0
    out = hookkit.out_text(proc)
    assert out.startswith("Bundle state at session start — in flight 1/5")
    assert f"Last snapshot ({hookkit.PAST}, not live): * **Snapshot**:" in out
    assert "Read the delta, not the status" in out and "okfpro state" in out
    assert hookkit.MARKER not in hookkit.err_text(proc)


def test_session_start_compact_is_short_and_resume_says_so(ws):
    full = hookkit.out_text(hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws), "source": "startup"}))
    short = hookkit.out_text(hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws), "source": "compact"}))
    resume = hookkit.out_text(hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws), "source": "resume"}))
    assert short.startswith("Bundle state after compaction") and len(short) < len(full)
    assert resume.startswith("Bundle state on resume")


def test_session_start_broken_core_and_unreadable_event(fresh):
    (fresh / ".okf" / "areas" / "corpus.md").unlink()
    proc = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)})
    assert proc.returncode == 0 and "has a broken core:" in hookkit.out_text(proc) and "areas/corpus.md" in hookkit.out_text(proc)
    for bad in (b"", b"not json", b"[1, 2]"):
        proc = hookkit.run_launcher(fresh, "session_start.py", bad)
        assert proc.returncode == 0
        assert hookkit.out_text(proc).startswith("Bundle state unavailable — ")


def test_session_start_banner_stays_under_10000_characters(fresh):
    board = fresh / ".okf" / "board.md"
    many = "".join(f"- 2026-11-2{i % 9} — deadline number {i} " + "x" * 80 + "\n" for i in range(400))
    board.write_text(board.read_text().replace("## Deadlines\n", "## Deadlines\n\n" + many))
    proc = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)})
    out = hookkit.out_text(proc)
    assert proc.returncode == 0 and len(out) < 10_000
    assert "cut here to stay under the 10,000-character limit" in out


# --------------------------------------------------------------------------- fail-open paths, closed


def _fake_python(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "fakepython"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return script


def test_okfpro_not_importable_fails_closed(fresh, tmp_path):
    # an interpreter that cannot see okfpro: isolated mode, no site-packages
    fake = _fake_python(tmp_path, f'exec "{sys.executable}" -I -S "$@"')
    (fresh / ".claude" / "hooks" / "okfpro-python").write_text(str(fake) + "\n")
    event = hookkit.edit_event(fresh, "learnings/search-ranking.md", "x")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", event, extra_env={"PYTHONPATH": ""})
    assert proc.returncode == 2
    assert "ENFORCEMENT DEGRADED" in hookkit.err_text(proc) and "did not identify itself" in hookkit.err_text(proc)
    for launcher in ("post_edit.py", "stop.py"):
        assert hookkit.run_launcher(fresh, launcher, event, extra_env={"PYTHONPATH": ""}).returncode == 2
    # feedback never blocks, but says so
    proc = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)}, extra_env={"PYTHONPATH": ""})
    assert proc.returncode == 0 and proc.stdout == b"" and "could not run" in hookkit.err_text(proc)


def test_pinned_interpreter_missing_fails_closed(fresh):
    (fresh / ".claude" / "hooks" / "okfpro-python").write_text("/nonexistent/python3\n")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2 and "ENFORCEMENT DEGRADED" in hookkit.err_text(proc)


def test_unexpected_exit_code_after_the_marker_fails_closed(fresh, tmp_path):
    fake = _fake_python(tmp_path, f'echo "{hookkit.MARKER}" >&2; echo "something broke" >&2; exit 1')
    (fresh / ".claude" / "hooks" / "okfpro-python").write_text(str(fake) + "\n")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert "exited 1" in err and "something broke" in err and hookkit.MARKER not in err


def test_a_crash_inside_a_check_refuses(fresh, tmp_path):
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(
        "import okfpro.hooks.checks as C\n"
        "def boom(ctx):\n    raise RuntimeError('drill: the check exploded')\n"
        "C.CHECKS['journal-guard'].fn = boom\n"
    )
    pythonpath = f"{inject}{os.pathsep}{hookkit.REPO}"
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/search-ranking.md", "x"),
                          extra_env={"PYTHONPATH": pythonpath})
    assert proc.returncode == 2
    err = hookkit.err_text(proc)
    assert "ENFORCEMENT ERROR — 'journal-guard' crashed (RuntimeError: drill: the check exploded)" in err
    # a crash in feedback (the banner) degrades to the unavailable banner, exit 0
    (inject / "sitecustomize.py").write_text(
        "import okfpro.hooks.checks as C\n"
        "def boom(ctx):\n    raise RuntimeError('drill: banner exploded')\n"
        "C.CHECKS['session-context'].fn = boom\n"
    )
    proc = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)}, extra_env={"PYTHONPATH": pythonpath})
    assert proc.returncode == 0 and "Bundle state unavailable — the banner crashed" in hookkit.out_text(proc)


@pytest.mark.parametrize("data", [b"", b"   \n", b"{not json", b"[]", b'"a string"', b"\xff\xfe\x00garbage"])
@pytest.mark.parametrize("launcher", ["pre_tool_use.py", "post_edit.py", "stop.py"])
def test_unreadable_event_fails_closed(ws, launcher, data):
    proc = hookkit.run_launcher(ws, launcher, data)
    assert proc.returncode == 2
    assert "could not read its input" in hookkit.err_text(proc)


def test_path_with_a_space_through_the_settings_command_line(ws):
    assert " " in str(ws)
    env = {"CLAUDE_PROJECT_DIR": str(ws)}
    event = json.dumps(hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x")).encode()
    proc = subprocess.run(["sh", "-c", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/pre_tool_use.py'], input=event,
                          capture_output=True, env=hookkit.env(env), cwd="/")
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
    settings_shape = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/session_start.py'
    proc = subprocess.run(["sh", "-c", settings_shape], input=json.dumps({"cwd": str(ws)}).encode(),
                          capture_output=True, env=hookkit.env(env), cwd="/")
    assert proc.returncode == 0 and hookkit.out_text(proc).startswith("Bundle state at session start")


def test_a_stray_okfpro_on_path_is_not_trusted(fresh, tmp_path):
    (fresh / ".claude" / "hooks" / "okfpro-python").unlink()
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    shim = shim_dir / "okfpro"
    shim.write_text("#!/bin/sh\ncat >/dev/null\nexit 0\n")
    shim.chmod(0o755)
    path = f"{shim_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, f"journal/{hookkit.PAST}.md", "x"), extra_env={"PATH": path})
    assert proc.returncode == 2
    assert "did not identify itself as the okfpro enforcer" in hookkit.err_text(proc)
    # and with no pin and no okfpro at all
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = hookkit.run_launcher(fresh, "stop.py", {"cwd": str(fresh)}, extra_env={"PATH": f"{empty}{os.pathsep}/usr/bin:/bin"})
    assert proc.returncode == 2 and "no `okfpro` on PATH" in hookkit.err_text(proc)


def test_the_real_okfpro_on_path_is_accepted_without_a_pin(fresh, tmp_path):
    (fresh / ".claude" / "hooks" / "okfpro-python").unlink()
    bindir = tmp_path / "bin"
    bindir.mkdir()
    real = bindir / "okfpro"
    real.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m okfpro "$@"\n')
    real.chmod(0o755)
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, f"journal/{hookkit.PAST}.md", "x"),
                          extra_env={"PATH": f"{bindir}{os.pathsep}/usr/bin:/bin"})
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc) and "DEGRADED" not in hookkit.err_text(proc)


def test_missing_launcher_module_fails_closed(fresh):
    (fresh / ".claude" / "hooks" / "_launch.py").unlink()
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2 and "could not be loaded" in hookkit.err_text(proc)
    assert hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)}).returncode == 0


# --------------------------------------------------------------------------- the hook door itself


@pytest.mark.parametrize(
    "args",
    [(), ("audit",), ("validate",), ("--help",), ("-h",), ("help",), ("check",), ("check", "audit"),
     ("check", "guard-verified", "extra"), ("pre-tool-use", "stop"), ("pre-tool-use", "--agent", "cursor"),
     ("pre-tool-use", "--json")],
)
def test_hook_door_refuses_unknown_names_help_and_ci_verbs(args):
    proc = hookkit.hook(*args, event=b"{}")
    assert proc.returncode == 2, (args, hookkit.err_text(proc))
    assert "ENFORCEMENT MISCONFIGURED" in hookkit.err_text(proc)
    assert hookkit.MARKER not in hookkit.err_text(proc)


@pytest.mark.parametrize("name", ["guard-verified", "journal-guard", "shell-guard", "check-okf", "cap-check",
                                  "reconcile-search", "post-edit", "stop-gate", "session-context"])
def test_every_check_is_addressable_and_identifies_itself(name, tmp_path):
    proc = hookkit.hook("check", name, event=b"{}", cwd=tmp_path)
    assert proc.returncode == 0, hookkit.err_text(proc)
    assert hookkit.err_text(proc).splitlines()[0] == hookkit.MARKER


def test_single_check_by_name_blocks_like_the_event(ws):
    proc = hookkit.hook("check", "journal-guard", event=hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x"))
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
    assert hookkit.hook("check", "guard-verified", event=hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x")).returncode == 0


def test_bad_clock_refuses_instead_of_exiting_one(ws):
    # the journal guard needs today; a clock it cannot read is a refusal, not an exit 1
    proc = hookkit.hook("pre-tool-use", event=hookkit.edit_event(ws, "journal/2026-11-29.md", "x"), extra_env={"OKFPRO_TODAY": "someday"})
    assert proc.returncode == 2 and "ENFORCEMENT ERROR — 'journal-guard' crashed (ClockError" in hookkit.err_text(proc)
    proc = hookkit.hook("stop", event={"cwd": str(ws)}, extra_env={"OKFPRO_TODAY": "someday"})
    assert proc.returncode == 0, hookkit.err_text(proc)  # a clean tree needs no date


# --------------------------------------------------------------------------- dialects


def test_gemini_dialect_event_names_tools_and_ask(ws):
    # Gemini 0.61 reads {"decision": "ask"} as ASK_USER (isAskDecision); tests/test_real_hosts.py feeds it to Gemini's own code
    event = {"hook_event_name": "BeforeTool", "cwd": str(ws), "timestamp": "2026-11-30T10:00:00Z",
             "tool_name": "write_file", "tool_input": {"file_path": str(ws / ".okf/reference/b.md"), "content": "---\nverified: yes\n---\n"}}
    proc = hookkit.hook("pre-tool-use", event=event)
    answer = json.loads(proc.stdout)
    assert proc.returncode == 0 and answer["decision"] == "ask" and "attestation" in answer["systemMessage"]
    event = {"hook_event_name": "BeforeTool", "cwd": str(ws), "tool_name": "replace",
             "tool_input": {"file_path": str(ws / f".okf/journal/{hookkit.PAST}.md"), "new_string": "x"}}
    # a refusal in the shape Gemini shows as one (exit 0, decision deny): exit 2 reads as "Hook(s) failed" (issue 38.4)
    direct = hookkit.hook("pre-tool-use", event=event)
    assert direct.returncode == 0 and json.loads(direct.stdout)["decision"] == "deny"
    via = hookkit.run_launcher(ws, "pre_tool_use.py", event, args=("--agent", "gemini"))  # as init wires Gemini CLI
    refusal = json.loads(via.stdout)
    assert via.returncode == 0 and refusal["decision"] == "deny" and "append-only" in refusal["reason"]
    start = hookkit.hook("session-start", event={"hook_event_name": "SessionStart", "cwd": str(ws), "source": "startup",
                                             "timestamp": "2026-11-30T10:00:00Z"})
    payload = json.loads(start.stdout)
    assert payload["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert payload["hookSpecificOutput"]["additionalContext"].startswith("Bundle state at session start")


def test_codex_apply_patch_is_split_per_file(ws):
    patch = (f"*** Begin Patch\n*** Update File: .okf/journal/{hookkit.PAST}.md\n@@\n+late note\n"
             "*** Add File: .okf/reference/new.md\n+---\n+verified: yes\n+---\n*** End Patch\n")
    event = {"hook_event_name": "PreToolUse", "cwd": str(ws), "tool_name": "apply_patch", "tool_input": {"command": patch}}
    proc = hookkit.hook("pre-tool-use", "--agent", "codex", event=event)
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
    patch2 = "*** Begin Patch\n*** Add File: .okf/reference/new.md\n+---\n+verified: yes\n+---\n*** End Patch\n"
    event["tool_input"] = {"command": patch2}
    proc = hookkit.hook("pre-tool-use", "--agent", "codex", event=event)
    decision = json.loads(proc.stdout)["hookSpecificOutput"]  # Codex 0.171 rejects "ask" and runs the tool
    assert decision["permissionDecision"] == "deny" and "by hand" in decision["permissionDecisionReason"]
    start = hookkit.hook("session-start", "--agent", "codex", event={"cwd": str(ws), "source": "startup"})
    assert "additionalContext" in json.loads(start.stdout)["hookSpecificOutput"]


# --------------------------------------------------------------------------- as `okfpro init` installs them


def test_init_installed_hooks_run_from_the_settings_commands(tmp_path):
    ws = tmp_path / "fresh init"
    proc = subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws)], capture_output=True, text=True, env=hookkit.env())
    assert proc.returncode == 0, proc.stderr
    settings = json.loads((ws / ".claude" / "settings.json").read_text())["hooks"]

    def command(event: str, tool: str | None = None) -> str:
        for group in settings[event]:
            matcher = group.get("matcher", "")
            if tool is None or tool in matcher.split("|"):
                return group["hooks"][0]["command"]
        raise AssertionError(f"no {event} hook for {tool}")

    def fire(cmd: str, event: dict) -> subprocess.CompletedProcess:
        return subprocess.run(["sh", "-c", cmd], input=json.dumps(event).encode(), capture_output=True,
                              env=hookkit.env({"CLAUDE_PROJECT_DIR": str(ws)}), cwd=str(ws))

    target = str(ws / ".okf" / "reference" / "x.md")
    ask = fire(command("PreToolUse", "Write"), {"cwd": str(ws), "tool_name": "Write",
                                                "tool_input": {"file_path": target, "content": "---\nverified: yes\n---\n"}})
    assert ask.returncode == 0 and json.loads(ask.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    shell = fire(command("PreToolUse", "Bash"), {"cwd": str(ws), "tool_name": "Bash",
                                                 "tool_input": {"command": "echo x >> .okf/board.md"}})
    assert json.loads(shell.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    banner = fire(command("SessionStart"), {"cwd": str(ws), "source": "startup"})
    assert banner.returncode == 0 and hookkit.out_text(banner).startswith("Bundle state at session start")
    assert fire(command("Stop"), {"cwd": str(ws)}).returncode in (0, 2)
    assert fire(command("PreToolUse", "Write"), {}).returncode == 0  # every field optional
    broken = subprocess.run(["sh", "-c", command("PreToolUse", "Edit")], input=b"not json", capture_output=True,
                            env=hookkit.env({"CLAUDE_PROJECT_DIR": str(ws)}), cwd=str(ws))
    assert broken.returncode == 2


def test_bare_locale_and_invalid_bytes_in_the_event_still_answer(ws):
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "", "PYTHONUTF8": "0"}
    event = json.dumps(hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "note")).encode().replace(b"note", b"n\xffte \xe2\x80\x94")
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", event, extra_env=env)
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
    direct = hookkit.hook("pre-tool-use", event=event, extra_env=env)
    assert direct.returncode == 2 and "BLOCKED" in hookkit.err_text(direct)
    banner = hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws)}, extra_env=env)
    assert banner.returncode == 0 and "—" in hookkit.out_text(banner)


# --------------------------------------------------------------------------- the conformance corpus: no crash anywhere


def _corpus_sample() -> list[Path]:
    sys.path.insert(0, str(hookkit.REPO / "tests"))
    from helpers import shared_dir

    bundles = sorted((shared_dir() / "conformance" / "bundles").glob("s*"))
    return bundles[::10]


@pytest.mark.parametrize("bundle", _corpus_sample(), ids=lambda p: p.name)
def test_every_event_answers_on_the_conformance_corpus_without_crashing(bundle):
    """Each event at the hook door (``okfpro hook EVENT``) over a sample of the corpus: in the test's
    process (hookkit.hook(process=False), the entry point a hook process runs; a crash there is a
    traceback and exit 1 just the same), and for the first bundle of the sample in a real process as
    well, byte for byte the same answer (hookkit.hook_both_ways)."""
    expected = json.loads((bundle.parent.parent / "expected" / f"{bundle.name}.json").read_text())
    root = bundle / ".okf"
    target = next(p for p in sorted(root.rglob("*.md")) if p.name not in ("index.md", "log.md"))
    write = {"cwd": str(bundle), "tool_name": "Write", "tool_input": {"file_path": str(target), "content": "x"}}
    both = bundle == _corpus_sample()[0]

    def hook(event: str, payload: dict, extra_env: dict) -> subprocess.CompletedProcess:
        if both:
            return hookkit.hook_both_ways(event, event=payload, extra_env=extra_env)
        return hookkit.hook(event, event=payload, extra_env=extra_env, process=False)

    for event, payload in (("session-start", {"cwd": str(bundle), "source": "startup"}), ("pre-tool-use", write),
                           ("post-tool-use", write), ("stop", {"cwd": str(bundle)})):
        proc = hook(event, payload, {"OKFPRO_TODAY": expected["today"], "OKFPRO_NO_CACHE": "1"})
        err = hookkit.err_text(proc)
        assert proc.returncode in (0, 2), (event, err)
        assert "ENFORCEMENT" not in err and "unavailable" not in hookkit.out_text(proc), (event, err)
    banner = hookkit.out_text(hook("session-start", {"cwd": str(bundle)}, {"OKFPRO_TODAY": expected["today"]}))
    board = expected["state"]["json"]["board"]
    assert f"in flight {board['in flight']}/" in banner and f"· backlog {board['backlog']} ·" in banner
