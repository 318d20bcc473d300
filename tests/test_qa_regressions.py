"""Regressions found by using an ``okfpro init`` workspace as a newcomer would.

Each test drives real processes on real files: the CLI through ``python -m okfpro``,
the hook launchers exactly as ``.claude/settings.json`` runs them (``sh -c`` with
``CLAUDE_PROJECT_DIR`` set, a path holding a space).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO, invoke

TODAY = "2026-11-30"


def init_workspace(base: Path) -> Path:
    ws = base / "my brain"
    proc = invoke("init", str(ws), env={"OKFPRO_TODAY": TODAY})
    assert proc.returncode == 0, proc.stderr
    return ws


def run(*args: str, cwd: Path, code: int | None = None) -> subprocess.CompletedProcess:
    proc = invoke(*args, cwd=cwd, env={"OKFPRO_TODAY": TODAY})
    if code is not None:
        assert proc.returncode == code, f"{args}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


# --- hook launchers leave the workspace clean ---------------------------------------------


def test_launchers_run_as_the_host_runs_them_leave_no_bytecode_in_the_workspace(tmp_path):
    ws = init_workspace(tmp_path)
    # the pin names the interpreter that installed okfpro; here: the one running the tests
    (ws / ".claude" / "hooks" / "okfpro-python").write_text(sys.executable + "\n")
    # a host's environment: bytecode written beside the sources (tests/conftest.py may set a prefix)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    env.update(CLAUDE_PROJECT_DIR=str(ws), OKFPRO_TODAY=TODAY, PYTHONPATH=str(REPO))
    event = ('{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":%s}'
             % __import__("json").dumps(str(ws)))
    proc = subprocess.run(["sh", "-c", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/session_start.py'], input=event.encode(),
                          capture_output=True, env=env, cwd=str(ws), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"in flight 0/5" in proc.stdout
    assert not (ws / ".claude" / "hooks" / "__pycache__").exists()
    status = subprocess.run(["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert "__pycache__" not in status


# --- readers do not follow a board.md / log.md that leaves the bundle ----------------------


def test_readers_refuse_a_board_or_log_symlinked_outside_the_bundle(tmp_path):
    ws = init_workspace(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text((ws / ".okf" / "board.md").read_text().replace("## Inbox\n", "## Inbox\n- 2026-11-01 — secret\n"))
    (ws / ".okf" / "board.md").unlink()
    (ws / ".okf" / "board.md").symlink_to(outside)
    for verb in ("state", "board", "snapshot"):
        proc = run(verb, cwd=ws, code=2)
        assert "board.md resolves outside the bundle" in proc.stderr, proc.stderr
        assert "secret" not in proc.stdout
    (ws / ".okf" / "board.md").unlink()
    (ws / ".okf" / "board.md").write_text(outside.read_text().replace("- 2026-11-01 — secret\n", ""))
    outside_log = tmp_path / "log.md"
    outside_log.write_text("# Log\n\n## 2026-11-29\n\n* **Snapshot**: inbox 9 (oldest 1d)\n")
    (ws / ".okf" / "log.md").unlink()
    (ws / ".okf" / "log.md").symlink_to(outside_log)
    proc = run("state", cwd=ws, code=2)
    assert "log.md resolves outside the bundle" in proc.stderr


# --- capture never writes a line that breaks the board grammar -----------------------------


def test_capture_refuses_text_that_would_leave_an_unclosed_comment(tmp_path):
    ws = init_workspace(tmp_path)
    board = ws / ".okf" / "board.md"
    before = board.read_bytes()
    proc = run("capture", "see <!-- the note", cwd=ws, code=2)
    assert "<!--" in proc.stderr and "untouched" in proc.stderr
    assert board.read_bytes() == before
    proc = run("capture", "--", "<!<!-- x -->-- spliced", cwd=ws, code=2)
    assert board.read_bytes() == before
    # a balanced comment and arrows are ordinary text
    run("capture", "a --> b <!-- aside --> c", cwd=ws, code=0)
    run("log-snapshot", cwd=ws, code=0)  # the bundle changed before the first commit: the day's line
    run("audit", cwd=ws, code=0)


# --- messages say what to do next ---------------------------------------------------------


def test_close_refusal_on_a_frontmatter_project_index_says_how_to_fix_it(tmp_path):
    ws = init_workspace(tmp_path)
    proj = ws / ".okf" / "projects" / "kitchen"
    proj.mkdir()
    text = "---\ntype: Overview\ntitle: Kitchen\n---\n\n# Kitchen\n\nThe plan.\n"
    (proj / "index.md").write_text(text)
    proc = run("close", "kitchen", cwd=ws, code=2)
    assert (proj / "index.md").read_text() == text
    assert "Remove the frontmatter so the heading comes first, then run close again" in proc.stderr, proc.stderr
    (proj / "index.md").write_text(text.split("---\n\n", 1)[1])
    run("close", "kitchen", cwd=ws, code=0)
    assert (proj / "index.md").read_text().startswith("# Kitchen — closed 2026-11-30\n")


def test_audit_on_a_file_says_it_is_not_a_directory(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("x")
    proc = run("audit", str(f), cwd=tmp_path, code=2)
    assert "not a directory" in proc.stderr, proc.stderr


# --- a crash is "could not run" (2), never "findings" (1) ------------------------------------


def test_a_crash_inside_a_verb_exits_2_not_1(tmp_path):
    """Exit 1 means findings (validate: not conformant; audit: findings); an uncaught exception
    used to leave Python's own exit 1 and read as such.  Fault injected in a real process."""
    script = (
        "import sys, okfpro.cli.app as c, okfpro.cli.kernel as k\n"
        "def boom(*a, **kw):\n"
        "    raise RuntimeError('injected fault')\n"
        "k.validate_cmd.callback = boom\n"
        "sys.exit(c.run(['validate', sys.argv[1]]))\n"
    )
    ws = init_workspace(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", script, str(ws)], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "RuntimeError: injected fault" in proc.stderr
    assert "could not run" in proc.stderr


def test_promote_without_a_header_says_what_header_to_restore(tmp_path):
    ws = init_workspace(tmp_path)
    board = ws / ".okf" / "board.md"
    board.write_text(board.read_text().replace("**In flight: 0/5**\n", ""))
    run("capture", "call the insurer", cwd=ws, code=0)
    before = board.read_bytes()
    proc = run("promote", "insurer", cwd=ws, code=2)
    assert "'**In flight: 0/5**'" in proc.stderr, proc.stderr
    assert board.read_bytes() == before


def test_init_says_where_and_how_to_install_the_commit_door(tmp_path):
    ws = tmp_path / "brain"
    proc = invoke("init", str(ws))
    assert proc.returncode == 0
    assert f"Next, in {ws}: `pre-commit install`" in proc.stdout
    assert "pip install pre-commit" in proc.stdout


def test_init_in_a_subdirectory_of_a_repository_warns_that_the_doors_are_not_wired(tmp_path):
    """Git runs pre-commit from the repository root and the Codex wiring finds .claude/hooks/ through
    `git rev-parse --show-toplevel`: in a subdirectory both silently miss (the host reads the shell's
    127 as "carry on").  init must say so."""
    repo = tmp_path / "mono"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    sub = repo / "notes"
    proc = invoke("init", "--agent", "codex", str(sub))
    assert proc.returncode == 0, proc.stderr
    assert f"inside the Git repository at {repo.resolve()}" in proc.stdout, proc.stdout
    # at a repository's root, or a fresh directory, there is nothing to warn about
    other = invoke("init", str(tmp_path / "fresh"))
    assert "inside the Git repository" not in other.stdout
    again = invoke("init", str(repo))
    assert "inside the Git repository" not in again.stdout


def test_stop_gate_refuses_a_board_symlinked_outside_the_bundle(tmp_path):
    ws = init_workspace(tmp_path)
    subprocess.run(["git", "-C", str(ws), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init"], check=True)
    outside = tmp_path / "elsewhere.md"
    outside.write_text((ws / ".okf" / "board.md").read_text().replace("## Inbox\n", "## Inbox\n- 2026-11-01 — OUTSIDE\n"))
    (ws / ".okf" / "board.md").unlink()
    (ws / ".okf" / "board.md").symlink_to(outside)
    event = '{"hook_event_name":"Stop","cwd":%s}' % __import__("json").dumps(str(ws))
    env = {**os.environ, "PYTHONPATH": str(REPO), "OKFPRO_TODAY": TODAY}
    proc = subprocess.run([sys.executable, "-m", "okfpro", "hook", "stop"], input=event, capture_output=True,
                          text=True, env=env, cwd=str(ws), timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "board.md resolves outside the bundle" in proc.stderr
    assert "inbox 1" not in proc.stderr  # nothing was counted through the link


def test_pairing_findings_say_how_to_settle_them(tmp_path):
    ws = init_workspace(tmp_path)
    root = ws / ".okf"
    (root / "projects" / "kitchen").mkdir()
    (root / "projects" / "kitchen" / "index.md").write_text("# Kitchen\n\nThe plan.\n")
    (root / "reference" / "terms.md").write_text(
        "---\ntype: Briefing\ntitle: Terms\ndescription: The renewal terms, summarised.\n"
        "generated:\n  by: agent\n  at: 2026-11-29\n---\n\n# Terms\n\nThe premium rises.\n")
    out = run("audit", cwd=ws, code=1).stdout
    assert "okfpro close kitchen" in out, out
    assert "`- [/reference/terms.md](/reference/terms.md) — read and confirm`" in out, out
    # following the advice settles both
    board = root / "board.md"
    board.write_text(board.read_text().replace(
        "## To read\n", "## To read\n- [/reference/terms.md](/reference/terms.md) — read and confirm\n"))
    run("close", "kitchen", cwd=ws, code=0)
    out = run("audit", cwd=ws).stdout
    assert "pairing" not in out, out


def test_state_from_inside_a_bundle_subdirectory_points_at_the_bundle(tmp_path):
    """`state` resolves DIR as the reference does (a subdirectory with an index.md is a bundle of its
    own, without a board); the refusal must point at the enclosing workspace bundle."""
    ws = init_workspace(tmp_path)
    for verb in ("state", "board", "snapshot"):  # snapshot would print a line of zeros for the wrong bundle
        proc = run(verb, cwd=ws / ".okf" / "learnings", code=2)
        assert f"inside the bundle at {ws / '.okf'}" in proc.stderr, proc.stderr
        assert "Snapshot" not in proc.stdout
    assert run("snapshot", cwd=ws, code=0).stdout.startswith("* **Snapshot**: inbox 0")


def test_init_over_an_existing_gitignore_adds_the_ignore_lines_the_workspace_needs(tmp_path):
    """The owner's .gitignore keeps its lines, first and as written, and gains the ones the workspace
    needs (issue 38.3): without them `git add -A` would commit .tmp/ (friction log, identity
    bindings, cache) and the machine-local interpreter pin.  A second init adds nothing."""
    ws = tmp_path / "proj"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".gitignore").write_text("node_modules/\n.tmp/*\n")
    proc = invoke("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    text = (ws / ".gitignore").read_text()
    assert text.startswith("node_modules/\n.tmp/*\n"), text  # the owner's lines, first and untouched
    lines = text.splitlines()
    for line in ("!.tmp/.gitkeep", "*.okfpro-new", ".okf-memory/", ".claude/hooks/okfpro-python"):
        assert line in lines, text
    assert invoke("init", str(ws)).returncode == 0
    assert (ws / ".gitignore").read_text() == text  # idempotent
    # a .gitignore that already has them all is left as it is
    ws2 = tmp_path / "proj2"
    ws2.mkdir()
    full = (REPO / "template" / "seed" / "gitignore").read_text() + "dist/\n"
    (ws2 / ".gitignore").write_text(full)
    invoke("init", str(ws2))
    assert (ws2 / ".gitignore").read_text() == full


def test_records_outside_git_says_so_plainly(tmp_path):
    ws = tmp_path / "plain"
    ws.mkdir()
    src = init_workspace(tmp_path) / ".okf"
    import shutil

    shutil.copytree(src, ws / ".okf")
    proc = run("records", str(ws), cwd=tmp_path, code=1)
    assert "not inside a Git repository" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "unknown option" not in proc.stdout + proc.stderr


def test_capture_notes_a_link_to_nothing_and_still_lands(tmp_path):
    ws = init_workspace(tmp_path)
    proc = run("capture", "quotes for [/projects/kitchen/](/projects/kitchen/index.md)", cwd=ws, code=0)
    assert "Note: this line links /projects/kitchen/index.md, which is not in the bundle" in proc.stdout, proc.stdout
    assert "/projects/kitchen/index.md" in (ws / ".okf" / "board.md").read_text()
    assert "a board line links /projects/kitchen/index.md" in run("audit", cwd=ws, code=1).stdout
    (ws / ".okf" / "projects" / "kitchen").mkdir()
    (ws / ".okf" / "projects" / "kitchen" / "index.md").write_text("# Kitchen\n")
    proc = run("capture", "paint for [/Projects/Kitchen/] and [/board.md]", cwd=ws, code=0)
    assert "Note:" not in proc.stdout, proc.stdout


# --- a writer that cannot write refuses (exit 2) and says what landed -------------------------

_FAULTY_DISK = (
    "import errno, sys, okfpro.io.atomic as a, okfpro.cli.app as c\n"
    "real = a.atomic_write\n"
    "calls = []\n"
    "fail_at = int(sys.argv[1])\n"
    "def flaky(target, data, *args, **kw):\n"
    "    calls.append(str(target))\n"
    "    if len(calls) >= fail_at:\n"
    "        raise OSError(errno.ENOSPC, 'No space left on device')\n"
    "    return real(target, data, *args, **kw)\n"
    "a.atomic_write = flaky\n"
    "sys.exit(c.run(sys.argv[2:]))\n"
)


def _faulty(ws: Path, fail_at: int, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OKFPRO_TODAY": TODAY}
    return subprocess.run([sys.executable, "-c", _FAULTY_DISK, str(fail_at), *args], capture_output=True, text=True,
                          env=env, cwd=str(ws), timeout=60)


def test_a_full_disk_is_a_refusal_with_the_file_untouched(tmp_path):
    ws = init_workspace(tmp_path)
    board = ws / ".okf" / "board.md"
    before = board.read_bytes()
    proc = _faulty(ws, 1, "capture", "call the insurer")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "could not write board.md" in proc.stderr and "No space left on device" in proc.stderr, proc.stderr
    assert "nothing was written" in proc.stderr
    assert board.read_bytes() == before


def test_a_close_that_fails_midway_names_what_landed_and_a_rerun_finishes(tmp_path):
    ws = init_workspace(tmp_path)
    root = ws / ".okf"
    (root / "projects" / "kitchen").mkdir()
    (root / "projects" / "kitchen" / "index.md").write_text("# Kitchen\n\nThe plan.\n")
    run("capture", "quotes for [/projects/kitchen/](/projects/kitchen/index.md)", cwd=ws, code=0)
    proc = _faulty(ws, 2, "close", "kitchen")  # the marker lands, the board write fails
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "could not write board.md" in proc.stderr, proc.stderr
    assert "already written: projects/kitchen/index.md" in proc.stderr, proc.stderr
    run("close", "kitchen", cwd=ws, code=0)  # re-running finishes the job
    assert "/projects/kitchen" not in (root / "board.md").read_text()
    assert "* Closed [/projects/kitchen/]" in (root / "log.md").read_text()
    assert (root / "projects" / "kitchen" / "index.md").read_text().startswith("# Kitchen — closed 2026-11-30\n")


# --- identity: a .tmp that is not a directory is no binding, not a poisoned session ---------------


def test_recall_works_when_tmp_is_a_file_and_an_unreadable_binding_says_so(tmp_path):
    import json

    ws = init_workspace(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OKFPRO_TODAY": TODAY}
    remember = invoke("memory", "remember", "--", "we ship on Fridays", cwd=ws, base_env=env)
    assert remember.returncode == 0, remember.stderr
    import shutil

    shutil.rmtree(ws / ".tmp")
    (ws / ".tmp").write_text("not a directory\n")
    event = json.dumps({"session_id": "s-tmpfile", "cwd": str(ws), "hook_event_name": "UserPromptSubmit",
                        "prompt": "when do we ship"})
    proc = subprocess.run([sys.executable, "-m", "okfpro", "hook", "user-prompt-submit"], input=event, cwd=ws,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "ship on Fridays" in proc.stdout, proc.stderr
    assert "changed mid-way" not in proc.stderr
    # a binding file that cannot be parsed stays fail-closed, but says what is wrong
    (ws / ".tmp").unlink()
    (ws / ".tmp").mkdir()
    first = subprocess.run([sys.executable, "-m", "okfpro", "hook", "user-prompt-submit"], input=event, cwd=ws,
                           env=env, capture_output=True, text=True, timeout=60)
    assert "ship on Fridays" in first.stdout, first.stderr
    for binding in (ws / ".tmp" / "okfpro-identity").glob("*.json"):
        binding.write_text("{not json")
    again = subprocess.run([sys.executable, "-m", "okfpro", "hook", "user-prompt-submit"], input=event, cwd=ws,
                           env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0
    assert "ship on Fridays" not in again.stdout
    assert "unreadable" in again.stderr, again.stderr


def test_session_banner_does_not_read_a_board_symlinked_outside_the_bundle(tmp_path):
    ws = init_workspace(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text((ws / ".okf" / "board.md").read_text().replace("## Inbox\n", "## Inbox\n- 2026-11-01 — OUTSIDE\n"))
    (ws / ".okf" / "board.md").unlink()
    (ws / ".okf" / "board.md").symlink_to(outside)
    event = '{"hook_event_name":"SessionStart","source":"startup","cwd":%s}' % __import__("json").dumps(str(ws))
    env = {**os.environ, "PYTHONPATH": str(REPO), "OKFPRO_TODAY": TODAY}
    proc = subprocess.run([sys.executable, "-m", "okfpro", "hook", "session-start"], input=event, capture_output=True,
                          text=True, env=env, cwd=str(ws), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "board.md resolves outside the bundle" in proc.stdout, proc.stdout
    assert "inbox 1" not in proc.stdout


def test_audit_names_a_board_symlinked_outside_and_does_not_grade_it(tmp_path):
    ws = init_workspace(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text((ws / ".okf" / "board.md").read_text().replace("## Deadlines", "## Someday"))
    (ws / ".okf" / "board.md").unlink()
    (ws / ".okf" / "board.md").symlink_to(outside)
    out = run("audit", cwd=ws, code=1).stdout
    assert "board.md resolves outside the bundle" in out, out
    assert "Deadlines" not in out, out  # the outside file's grammar is not graded
