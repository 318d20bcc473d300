"""Codex ``apply_patch`` attacked (issue #11): every patch that writes the bundle meets the guards with the
text Codex would really leave there.

Two halves:
- the hook: ``okfpro hook pre-tool-use --agent codex`` per patch, in the test's process (the entry point a
  hook process runs; every third case also through a real process, the same bytes) (multiple files in one
  patch, Move to:, a past journal day updated / deleted / moved away / moved onto, CRLF, headers with
  padding, a path through a symlink, a ``verified:`` made by a pure deletion or by a chunk Codex only
  finds after trimming or folding a dash), plus the allowed patches that must pass;
- the oracle: ``okfpro.core.patch`` against Codex's own ``apply_patch`` (its binary run as
  ``--codex-run-as-apply-patch``) on the same files: the same text, byte for byte, for every patch
  Codex applies, and a refusal wherever Codex refuses.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.core import patch  # noqa: E402

# a body line "verified: ..." above a horizontal rule: deleting the closing fence makes it a frontmatter key
CONCEPT = ("---\ntype: Reference\ntitle: Ranking\ndescription: How we rank.\n---\n\n# Ranking\n\n"
           "verified: 2026-11-01\n\n---\n\nMore.\n")
FUZZY = ("---\ntype: Reference\ntitle: Ranking \u2014 recency\n---   \n\n# Ranking\n\nverified: 2026-11-01\n\n"
         "---\n\nMore.\n")


def wrap(*sections: str, eol: str = "\n") -> str:
    return ("*** Begin Patch\n" + "".join(sections) + "*** End Patch\n").replace("\n", eol)


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    base = tmp_path_factory.mktemp("patch")
    ws = hookkit.make_workspace(base)
    (ws / ".okf" / "reference").mkdir(exist_ok=True)
    (ws / ".okf" / "reference" / "ranking.md").write_text(CONCEPT)
    (ws / ".okf" / "reference" / "fuzzy.md").write_text(FUZZY)
    (ws / ".okf" / "reference" / "crlf.md").write_bytes(CONCEPT.replace("\n", "\r\n").encode())
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "fixtures")
    out = base / "outside"
    out.mkdir()
    (out / "jlink").symlink_to(ws / ".okf" / "journal")
    return ws, out


def _event(places, text: str, where: str) -> dict:
    ws, out = places
    cwd = {"ws": ws, "out": out}[where]
    text = text.replace("{ws}", str(ws)).replace("{out}", str(out))
    return {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(cwd), "tool_name": "apply_patch",
            "turn_id": "t", "tool_use_id": "u", "model": "m", "permission_mode": "default", "transcript_path": None,
            "tool_input": {"command": text}}


def decide(places, text: str, where: str = "ws", both_ways: bool = False) -> str:
    run = hookkit.hook_both_ways if both_ways else partial(hookkit.hook, process=False)
    proc = run("pre-tool-use", "--agent", "codex", event=_event(places, text, where))
    if proc.returncode == 2:
        return "block"
    assert proc.returncode == 0, hookkit.err_text(proc)
    if not proc.stdout.strip():
        return "pass"
    return json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]


PAST = hookkit.PAST
REFUSED = [  # (why, patch, cwd): each must be refused (deny, or block by exit 2)
    ("multi-file: a harmless file, then a past day", wrap("*** Add File: notes/ok.md\n+fine\n",
     f"*** Update File: .okf/journal/{PAST}.md\n@@\n+rewritten\n"), "ws"),
    ("update of a past day", wrap(f"*** Update File: .okf/journal/{PAST}.md\n@@\n+more\n"), "ws"),
    ("delete of a past day", wrap(f"*** Delete File: .okf/journal/{PAST}.md\n"), "ws"),
    ("a past day moved away", wrap(f"*** Update File: .okf/journal/{PAST}.md\n*** Move to: notes/old.md\n@@\n+x\n"), "ws"),
    ("a concept moved onto a new past day", wrap("*** Update File: .okf/reference/ranking.md\n"
     "*** Move to: .okf/journal/2026-11-02.md\n@@\n # Ranking\n+moved\n"), "ws"),
    ("creation of a past day", wrap("*** Add File: .okf/journal/2026-11-02.md\n+made up\n"), "ws"),
    ("verified: as an added line", wrap("*** Update File: .okf/reference/ranking.md\n@@\n type: Reference\n+verified: yes\n"), "ws"),
    ("verified: made by deleting the closing fence (no + line at all)",
     wrap("*** Update File: .okf/reference/ranking.md\n@@\n description: How we rank.\n----\n"), "ws"),
    ("the same, the fence found only after trimming trailing blanks",
     wrap("*** Update File: .okf/reference/fuzzy.md\n@@\n title: Ranking \u2014 recency\n----\n"), "ws"),
    ("verified: key spelled with a dash Codex folds",
     wrap("*** Update File: .okf/reference/fuzzy.md\n@@\n-title: Ranking - recency\n+title: R\n+verified: yes\n"), "ws"),
    ("CRLF patch text", wrap("*** Update File: .okf/reference/ranking.md\n@@\n type: Reference\n+verified: yes\n", eol="\r\n"), "ws"),
    ("CRLF patch text deleting a past day", wrap(f"*** Delete File: .okf/journal/{PAST}.md\n", eol="\r\n"), "ws"),
    ("padded headers", wrap(f"   *** Delete File: .okf/journal/{PAST}.md   \n"), "ws"),
    ("heredoc-wrapped patch", "<<'EOF'\n" + wrap(f"*** Delete File: .okf/journal/{PAST}.md\n") + "EOF\n", "ws"),
    ("a past day through a symlinked directory", wrap(f"*** Update File: {{out}}/jlink/{PAST}.md\n@@\n+x\n"), "out"),
    ("relative path through the symlink", wrap(f"*** Delete File: jlink/{PAST}.md\n"), "out"),
    ("absolute path with ..", wrap(f"*** Update File: {{ws}}/notes/../.okf/journal/{PAST}.md\n@@\n+x\n"), "ws"),
]
ALLOWED = [
    ("a file outside the bundle", wrap("*** Add File: notes/ok.md\n+fine\n"), "ws"),
    ("a body edit of a concept", wrap("*** Update File: .okf/reference/ranking.md\n@@\n # Ranking\n+\n+We rank by recency.\n"), "ws"),
    ("the body's own verified: line edited", wrap("*** Update File: .okf/reference/ranking.md\n@@\n-verified: 2026-11-01\n+verified: soon\n"), "ws"),
    # the reader reads no frontmatter in a CRLF file (okfpro.core.fence), so its body line is no key either way
    ("a CRLF file's fence deleted", wrap("*** Update File: .okf/reference/crlf.md\n@@\n description: How we rank.\n----\n"), "ws"),
    ("a new concept", wrap("*** Add File: .okf/reference/new.md\n+---\n+type: Reference\n+title: New\n+---\n+# New\n"), "ws"),
]


@pytest.mark.parametrize("why,text,where", REFUSED, ids=[r[0] for r in REFUSED])
def test_a_patch_that_writes_what_the_guards_refuse_is_refused(places, why, text, where):
    assert decide(places, text, where) in ("deny", "block"), why


@pytest.mark.parametrize("why,text,where", ALLOWED, ids=[a[0] for a in ALLOWED])
def test_a_patch_the_guards_allow_passes(places, why, text, where):
    assert decide(places, text, where) == "pass", why


def test_real_processes_answer_as_the_test_process_does(places):
    sample = (REFUSED + ALLOWED)[::3]
    assert {decide(places, text, where, both_ways=True) for _why, text, where in sample} >= {"pass", "deny"}


def test_a_text_codex_would_not_parse_is_no_file_event():
    assert patch.parse("*** Begin Patch\n*** Frobnicate File: x\n*** End Patch") is None
    assert patch.parse("*** Update File: x\n@@\n+y\n") is None  # no Begin marker: Codex refuses it
    assert patch.parse("*** Begin Patch\n*** Update File: x\n*** End Patch") is None  # an empty update


# --------------------------------------------------------------------------- Codex's own apply_patch as the oracle

ORACLE_FILES = {"a.md": CONCEPT, "fuzzy.md": FUZZY, "crlf.md": CONCEPT.replace("\n", "\r\n"),
                "twice.md": "x\nmark\ny\nmark\nz\n", "noeol.md": "one\ntwo"}
ORACLE = [
    wrap("*** Update File: a.md\n@@\n description: How we rank.\n----\n"),
    wrap("*** Update File: a.md\n@@\n type: Reference\n+verified: yes\n"),
    wrap("*** Update File: a.md\n@@ # Ranking\n+added at the end?\n"),
    wrap("*** Update File: a.md\n+appended\n"),
    wrap("*** Update File: fuzzy.md\n@@\n title: Ranking \u2014 recency\n----\n"),
    wrap("*** Update File: fuzzy.md\n@@\n-title: Ranking - recency\n+title: R\n"),
    wrap("*** Update File: crlf.md\n@@\n type: Reference\n+verified: yes\n"),
    wrap("*** Update File: crlf.md\n@@\n type: Reference\n+verified: yes\n", eol="\r\n"),
    wrap("*** Update File: twice.md\n@@ y\n-mark\n+second\n"),
    wrap("*** Update File: twice.md\n@@\n-mark\n+first\n@@\n-mark\n+second\n"),
    wrap("*** Update File: twice.md\n@@\n-mark\n+end\n z\n*** End of File\n"),
    wrap("*** Update File: noeol.md\n@@\n-two\n+2\n"),
    wrap("*** Update File: a.md\n@@\n-no such line\n+x\n"),
    wrap("*** Update File: a.md\n*** Move to: b.md\n@@\n # Ranking\n+moved\n"),
    wrap("*** Add File: new.md\n+one\n+two\n", "*** Update File: twice.md\n@@\n x\n+after x\n"),
    "   " + wrap("  *** Update File: a.md\n@@\n # Ranking\n+padded\n"),
    "<<'EOF'\n" + wrap("*** Update File: a.md\n@@\n # Ranking\n+heredoc\n") + "EOF\n",
]


@pytest.fixture(scope="module")
def codex_apply():
    from tests import hostkit

    binary = hostkit.codex_native(hostkit.installed())

    def run(cwd: Path, text: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(binary), "--codex-run-as-apply-patch", text], cwd=cwd, capture_output=True, timeout=60)
    return run


def _ours(tree: dict[str, str], text: str) -> dict[str, str] | None:
    """The tree after the patch by okfpro.core.patch; None when a file op is refused (Codex stops there)."""
    ops = patch.parse(text)
    if ops is None:
        return None
    tree = dict(tree)
    for op in ops:
        if op.op == "add":
            tree[op.path] = op.content
        elif op.op == "delete":
            tree.pop(op.path, None)
        else:
            result = patch.apply(tree[op.path], op.chunks)
            if result is None:
                return None
            if op.move_to is not None:
                tree.pop(op.path)
            tree[op.move_to or op.path] = result
    return tree


@pytest.mark.slow
@pytest.mark.parametrize("n", range(len(ORACLE)))
def test_core_patch_leaves_the_text_codex_leaves(codex_apply, tmp_path, n):
    text = ORACLE[n]
    for name, body in ORACLE_FILES.items():
        (tmp_path / name).write_bytes(body.encode())
    proc = codex_apply(tmp_path, text)
    theirs = {p.name: p.read_bytes().decode() for p in tmp_path.iterdir()}
    ours = _ours(ORACLE_FILES, text)
    if proc.returncode != 0:
        assert ours is None, (proc.stderr, ours)
        return
    assert ours is not None, proc.stdout
    assert ours == theirs
    shutil.rmtree(tmp_path, ignore_errors=True)
