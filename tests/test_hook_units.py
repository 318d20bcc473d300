"""In-process pins for the hook layer's pure parts: event parsing, dialects, answer merging, clipping."""

from __future__ import annotations

import json

import pytest

from okfpro.hooks import adapters, banner
from okfpro.hooks.answer import Answer, strongest
from okfpro.hooks.checks import CHECKS, HOOK_NAMES, for_event
from okfpro.core.event import parse


@pytest.mark.parametrize(
    "data, reason",
    [(b"", "empty"), (b"  \n", "empty"), (b"{", "not JSON"), (b"[]", "JSON list"), (b"3", "JSON int"), (b"null", "JSON NoneType")],
)
def test_unreadable_events_carry_a_reason(data, reason):
    ev = parse(data)
    assert ev.error is not None and reason in ev.error


def test_every_field_is_optional_and_types_are_checked():
    ev = parse(b'{"tool_name": 3, "tool_input": "x", "cwd": null, "stop_hook_active": "yes"}')
    assert ev.error is None and ev.tool_name == "" and ev.tool_input == {} and ev.file_path is None
    assert ev.stop_hook_active is False and ev.cwd  # falls back to the process cwd


def test_added_text_reads_every_spelling():
    ev = parse(json.dumps({"tool_input": {"new_string": "a", "new_str": "b", "content": "c",
                                          "edits": [{"new_string": "d"}, {"new_str": "e"}, "junk", {"old_string": "z"}]}}))
    assert ev.added_text.split("\n") == ["a", "b", "c", "d", "e"]


def test_invalid_utf8_is_replaced_not_fatal():
    ev = parse(b'{"tool_input": {"content": "ok \xff\xfe"}}')
    assert ev.error is None and ev.added_text.startswith("ok ")


def test_relative_file_path_is_read_against_cwd():
    ev = parse(json.dumps({"cwd": "/w/s", "tool_input": {"file_path": ".okf/a.md"}}))
    assert ev.file_path == "/w/s/.okf/a.md"


def test_codex_apply_patch_split():
    patch = ("*** Begin Patch\n*** Add File: a.md\n+verified: yes\n*** Update File: b.md\n@@\n-old\n+new\n"
             "*** Delete File: c.md\n*** Update File: d.md\n*** Move to: e.md\n+moved\n*** End Patch")
    ev = parse(json.dumps({"cwd": "/w", "tool_name": "apply_patch", "tool_input": {"command": patch}}))
    out = adapters.normalize(ev, "codex")
    # b.md does not exist here, so "-old" is found nowhere: its added lines are passed on; d.md's
    # insertion applies to an empty text (Codex would refuse the missing file: no write either way)
    assert [(e.tool_name, e.file_path, e.added_text) for e in out] == [
        ("Write", "/w/a.md", "verified: yes\n"), ("Edit", "/w/b.md", "new"), ("Write", "/w/c.md", ""),
        ("Write", "/w/d.md", ""), ("Write", "/w/e.md", "moved\n")]


def test_dialect_detection():
    assert adapters.detect(parse(b'{"hook_event_name": "BeforeTool"}'), None) == "gemini"
    assert adapters.detect(parse(b'{"hook_event_name": "SessionStart"}'), None) == "claude"
    assert adapters.detect(parse(b'{"hook_event_name": "SessionStart", "timestamp": "t"}'), None) == "gemini"
    assert adapters.detect(parse(b'{"hook_event_name": "BeforeTool"}'), "codex") == "codex"
    gem = adapters.normalize(parse(b'{"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}'), "gemini")
    assert gem[0].tool_name == "Bash" and gem[0].command == "ls"


def test_strongest_answer_wins_and_merges_its_kind():
    answers = [Answer.context("c"), Answer.ask("a1"), Answer.pass_(), Answer.ask("a2")]
    assert (strongest(answers).kind, strongest(answers).messages) == ("ask", ["a1", "a2"])
    assert strongest(answers + [Answer.block("b")]).messages == ["b"]
    assert strongest([]).kind == "pass"


def test_the_table():
    assert HOOK_NAMES == ("guard-verified", "journal-guard", "shell-guard", "check-okf", "cap-check",
                          "reconcile-search", "post-edit", "stop-gate", "session-context")
    assert [c.name for c in for_event("pre-tool-use", "Edit")] == ["guard-verified", "journal-guard"]
    assert [c.name for c in for_event("pre-tool-use", "Bash")] == ["shell-guard"]
    assert [c.name for c in for_event("pre-tool-use", "Read")] == []
    assert [c.name for c in for_event("post-tool-use", "Write")] == ["post-edit"]
    assert [c.name for c in for_event("stop", "")] == ["memory-capture", "stop-gate"]  # the gate reads git after the capture
    assert [c.name for c in for_event("user-prompt-submit", "")] == ["memory-recall"]
    assert [c.name for c in for_event("session-end", "")] == ["memory-session-end"]
    assert {c.kind for c in CHECKS.values() if c.events and c.events[0] in ("session-start", "user-prompt-submit", "session-end")} == {"feedback"}


def test_banner_clip_keeps_whole_lines_and_marks_the_cut():
    text = "\n".join(f"line {i} " + "x" * 90 for i in range(300))
    out = banner.clip(text)
    assert len(out) <= banner.LIMIT and out.endswith(banner.TRUNCATED)
    assert all(line.startswith("line ") for line in out.splitlines()[:-1])
    assert banner.clip("short") == "short"
