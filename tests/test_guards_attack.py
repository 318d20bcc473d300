"""The PreToolUse guards attacked as an adversary would (issue #10, items 4, 5 and 9).

``okfpro hook pre-tool-use`` with real JSON on stdin and real exit codes, run in the test's process
(``hookkit.hook(process=False)``, the entry point a hook process runs);
``test_real_processes_answer_as_the_test_process_does`` runs a block, an ask and a pass of each class
through real processes too and asks for the same bytes.
Each class is attacked with variants, not one input:

* path spelling — a past journal day or a concept reached through a symlinked file
  (outside pointing in, inside pointing across), a symlinked directory, ``..``,
  doubled slashes, a relative path against the event's ``cwd``, a case variant;
* ``verified`` by meaning — every YAML spelling of the key, an Edit that builds it
  by deleting characters, MultiEdit, replace_all; and the other way round, prose that
  mentions ``verified:`` and edits that leave the attestation as it was pass quietly.
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

CONCEPT = "learnings/search-ranking.md"
HEAD = "---\ntype: Learning\ntitle: Search ranking\ndescription: Field weights beat a single relevance score for search in small corpora.\n"
BODY = "---\n\n# Search ranking\n\nField weights rank better.\n"


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("guards")
    ws = hookkit.make_workspace(base)
    okf = ws / ".okf"
    out = base / "outside"
    out.mkdir()
    (out / "past-day.md").symlink_to(okf / "journal" / f"{hookkit.PAST}.md")
    (out / "new-past-day.md").symlink_to(okf / "journal" / "2026-11-02.md")  # dangling: creates a past day
    (out / "journal-dir").symlink_to(okf / "journal")
    (out / "concept.md").symlink_to(okf / CONCEPT)
    (okf / "learnings" / "alias.md").symlink_to(Path("..") / "journal" / f"{hookkit.PAST}.md")
    (okf / "learnings" / "same.md").symlink_to("search-ranking.md")
    (okf / ".drafts").mkdir()
    (okf / ".drafts" / "x.md").symlink_to(okf / CONCEPT)
    return ws


def _event(ws: Path, tool: str, path: str, tool_input: dict, cwd: Path | None = None) -> dict:
    return {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(cwd or ws), "tool_name": tool,
            "tool_input": {"file_path": path, **tool_input}}


def pre(ws: Path, tool: str, path: str, tool_input: dict, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return hookkit.hook("pre-tool-use", event=_event(ws, tool, path, tool_input, cwd), process=False)


def test_real_processes_answer_as_the_test_process_does(ws):
    okf = ws / ".okf"
    cases = [("Edit", str(ws.parent / "outside" / "journal-dir" / f"{hookkit.PAST}.md"),
              {"old_string": "Started", "new_string": "Finished"}, None),
             ("Write", str(ws.parent / "outside" / "concept.md"), {"content": FORGED}, None),
             ("Write", str(okf / CONCEPT), {"content": HEAD + "verified : yes\n" + BODY}, None),
             ("Edit", str(okf / CONCEPT), {"old_string": "Field weights rank better.", "new_string": "verified: no"}, None),
             ("Write", str(ws.parent / "outside" / "new-past-day.md"), {"content": "reconstructed"}, None),
             ("Edit", f"../journal/./{hookkit.PAST}.md", {"old_string": "a", "new_string": "b"}, okf / "learnings")]
    answers = [answer(hookkit.hook_both_ways("pre-tool-use", event=_event(ws, *case))) for case in cases]
    assert set(answers) == {"block", "ask", "pass"}


def answer(proc: subprocess.CompletedProcess) -> str:
    """pass / ask / block, from the exit code and stdout as the host reads them."""
    if proc.returncode == 2:
        return "block"
    assert proc.returncode == 0, hookkit.err_text(proc)
    if not proc.stdout:
        return "pass"
    return json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]


# --------------------------------------------------------------------------- item 4: the real file


def _spellings(ws: Path) -> dict[str, tuple[str, Path | None]]:
    okf, out = ws / ".okf", ws.parent / "outside"
    return {
        "direct": (str(okf / "journal" / f"{hookkit.PAST}.md"), None),
        "outside file pointing in": (str(out / "past-day.md"), None),
        "symlinked directory": (str(out / "journal-dir" / f"{hookkit.PAST}.md"), None),
        "symlink inside the bundle": (str(okf / "learnings" / "alias.md"), None),
        "dot-dot": (str(okf / "learnings" / ".." / "journal" / f"{hookkit.PAST}.md"), None),
        "dot-dot through a link": (str(out / "journal-dir" / ".." / "journal" / f"{hookkit.PAST}.md"), None),
        "double slashes": (str(okf).replace("/.okf", "//.okf//") + f"/journal//{hookkit.PAST}.md", None),
        "relative to cwd": (f".okf/journal/{hookkit.PAST}.md", ws),
        "relative from inside": (f"../journal/./{hookkit.PAST}.md", okf / "learnings"),
    }


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit"])
@pytest.mark.parametrize("how", ["direct", "outside file pointing in", "symlinked directory", "symlink inside the bundle",
                                 "dot-dot", "dot-dot through a link", "double slashes", "relative to cwd",
                                 "relative from inside"])
def test_a_past_journal_day_is_blocked_however_its_path_is_spelled(ws, how, tool):
    path, cwd = _spellings(ws)[how]
    ti = {"content": "rewritten"} if tool == "Write" else (
        {"edits": [{"old_string": "Started", "new_string": "Finished"}]} if tool == "MultiEdit"
        else {"old_string": "Started", "new_string": "Finished"})
    proc = pre(ws, tool, path, ti, cwd=cwd)
    assert answer(proc) == "block", (how, hookkit.err_text(proc))
    assert "append-only" in hookkit.err_text(proc)


def test_a_hard_link_from_outside_is_the_past_day(ws):
    link = ws.parent / "outside" / "hard.md"
    if not link.exists():
        os.link(ws / ".okf" / "journal" / f"{hookkit.PAST}.md", link)
    proc = pre(ws, "Edit", str(link), {"old_string": "Started", "new_string": "Finished"})
    assert answer(proc) == "block" and "append-only" in hookkit.err_text(proc)


def test_creating_a_past_day_through_a_dangling_link_is_asked(ws):
    proc = pre(ws, "Write", str(ws.parent / "outside" / "new-past-day.md"), {"content": "reconstructed"})
    assert answer(proc) == "ask" and "PAST day" in proc.stdout.decode()


@pytest.mark.parametrize("name", [f"{hookkit.PAST}.MD", f"{hookkit.PAST}.Md"])
def test_a_case_variant_of_a_past_day_is_not_waved_through(ws, name):
    # on a case-insensitive disk this is the past day itself; here it would create a twin — either way not a pass
    proc = pre(ws, "Write", str(ws / ".okf" / "journal" / name), {"content": "rewritten"})
    assert answer(proc) in ("ask", "block")


FORGED = HEAD + "verified:\n  by: human:ana\n  at: 2026-11-30\n" + BODY


@pytest.mark.parametrize("how", ["outside file pointing in", "link inside the bundle", "hidden link to a concept"])
def test_a_forged_verified_through_a_link_is_asked(ws, how):
    path = {"outside file pointing in": ws.parent / "outside" / "concept.md",
            "link inside the bundle": ws / ".okf" / "learnings" / "same.md",
            "hidden link to a concept": ws / ".okf" / ".drafts" / "x.md"}[how]
    assert answer(pre(ws, "Write", str(path), {"content": FORGED})) == "ask"


# --------------------------------------------------------------------------- item 5: verified by meaning

KEY_SPELLINGS = {
    "plain": "verified:\n  by: human:ana\n",
    "double-quoted": '"verified":\n  by: human:ana\n',
    "single-quoted": "'verified':\n  by: human:ana\n",
    "explicit key": "? verified\n: {by: human:ana}\n",
    "hex escape": '"verifi\\x65d": {by: human:ana}\n',
    "unicode escape": '"verif\\u0069ed": [{by: human:ana}]\n',
    "long escape": '"\\U00000076erified": {by: human:ana}\n',
    "merge key": "<<: {verified: {by: human:ana}}\n",
}


@pytest.mark.parametrize("spelling", sorted(KEY_SPELLINGS))
def test_every_yaml_spelling_of_verified_is_asked_on_write(ws, spelling):
    text = HEAD + KEY_SPELLINGS[spelling] + BODY
    proc = pre(ws, "Write", str(ws / ".okf" / CONCEPT), {"content": text})
    assert answer(proc) == "ask", (spelling, hookkit.err_text(proc))


@pytest.mark.parametrize("block", ["x: &v {by: human:ana}\nverified: *v\n", '"veri\\\n  fied": {by: human:ana}\n',
                                   "Verified: {by: human:ana}\n", "generated: {by: agent, verified: yes}\n"])
def test_what_the_reader_does_not_read_as_an_attestation_passes(ws, block):
    # aliases and a multi-line key are refused by the reader's YAML rules; `Verified` and a nested key are other keys
    text = HEAD + block + BODY
    assert answer(pre(ws, "Write", str(ws / ".okf" / CONCEPT), {"content": text})) == "pass"


def test_a_flow_mapping_frontmatter_is_asked(ws):
    text = ('---\n{type: Learning, title: Search ranking, description: "Field weights beat a single score.", '
            '"verified": {by: "human:ana"}}\n' + BODY)
    assert answer(pre(ws, "Write", str(ws / ".okf" / CONCEPT), {"content": text})) == "ask"


@pytest.fixture
def planted(ws):
    """A concept whose frontmatter holds near-keys an Edit can turn into ``verified`` by deleting characters."""
    path = ws / ".okf" / "learnings" / "planted.md"
    path.write_text(HEAD + "verifXied: {by: human:ana}\nunverified: {by: human:bob}\n" + BODY)
    yield path
    path.unlink()


@pytest.mark.parametrize("old, new", [("verifXied", "verified"), ("fX", "f"), ("X", ""),
                                      ("\nunverified", "\nverified"), ("un", "")])
def test_an_edit_that_makes_the_key_by_deleting_characters_is_asked(ws, planted, old, new):
    proc = pre(ws, "Edit", str(planted), {"old_string": old, "new_string": new, "replace_all": old == "un"})
    assert answer(proc) == "ask", (old, new, hookkit.err_text(proc))


def test_a_multiedit_that_builds_the_key_in_two_steps_is_asked(ws, planted):
    edits = [{"old_string": "verifXied", "new_string": "verifYied"}, {"old_string": "fY", "new_string": "f"}]
    assert answer(pre(ws, "MultiEdit", str(planted), {"edits": edits})) == "ask"


@pytest.mark.parametrize("ti", [
    {"old_string": "Field weights rank better.", "new_string": "The key verified: is the owner's, not ours."},
    {"old_string": "type: Learning\n", "new_string": "type: Learning\ntags: [verified-by-nobody]\n"},
    {"old_string": "verifXied", "new_string": "verifZied"},
    {"old_string": "not in the file", "new_string": "verified: {by: human:ana}"},  # the host refuses this edit
])
def test_edits_that_leave_the_attestation_alone_pass(ws, planted, ti):
    assert answer(pre(ws, "Edit", str(planted), ti)) == "pass"


def test_removing_or_keeping_an_attestation_is_not_asked(ws, tmp_path):
    path = ws / ".okf" / "learnings" / "attested.md"
    path.write_text(HEAD + "verified:\n  by: human:ana\n" + BODY)
    try:
        keep = {"old_string": "Field weights rank better.", "new_string": "Field weights rank much better."}
        assert answer(pre(ws, "Edit", str(path), keep)) == "pass"
        drop = {"old_string": "verified:\n  by: human:ana\n", "new_string": ""}
        assert answer(pre(ws, "Edit", str(path), drop)) == "pass"
        change = {"old_string": "human:ana", "new_string": "human:eve"}
        assert answer(pre(ws, "Edit", str(path), change)) == "ask"
    finally:
        path.unlink()


def test_a_fifo_in_concept_position_does_not_hang_the_guard(ws):
    fifo = ws / ".okf" / "learnings" / "fifo.md"
    os.mkfifo(fifo)
    try:
        event = {"hook_event_name": "PreToolUse", "cwd": str(ws), "tool_name": "Write",
                 "tool_input": {"file_path": str(fifo), "content": FORGED}}
        proc = subprocess.run([sys.executable, "-m", "okfpro", "hook", "pre-tool-use"], input=json.dumps(event).encode(),
                              capture_output=True, env=hookkit.env(), timeout=30)
        assert answer(proc) == "ask"
    finally:
        fifo.unlink()
