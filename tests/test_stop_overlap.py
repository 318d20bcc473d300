"""The Stop gate's ``git status`` child runs while the memory capture does, and answers as if alone.

``okfpro hook stop`` starts the gate's ``git status --porcelain -- '*.md'`` before any check
runs (``stop.start``), runs the capture, then reads git's answer.  These tests run real hook
processes with a ``git`` on ``PATH`` that waits before it runs (until the capture's day file is
on disk, or 1.5 s), so the capture certainly writes while git has not yet looked at the tree:

* where the memory root lies outside the bundle root, the gate's answer is the one
  ``okfpro hook check stop-gate`` (no capture at all) gives on the same tree, in every state;
* where the memory root lies under the bundle root, the capture's write could change what git
  sees, so the answer is settled before the capture runs, as when the gate ran first.

The event's checks import only their own modules (the table names functions, imported when
a check first runs), and a Stop with capture off loads none of the capture machinery.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.hooks import checks  # noqa: E402

SCOPE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}


@pytest.fixture
def slow_git(tmp_path) -> dict[str, str]:
    """PATH with a ``git`` that waits before it runs.  With ``SLOWGIT_DIR`` and ``SLOWGIT_STAMP`` in its
    environment it waits until a Markdown file under that directory is newer than the stamp (the
    capture has written its day file), then 0.2 s more for the capture's other writes (5 s at most:
    a hook that asks git first is slower, not wrong); without them, 1.5 s."""
    real = shutil.which("git")
    assert real
    bindir = tmp_path / "slow-bin"
    bindir.mkdir()
    (bindir / "git").write_text(
        "#!/bin/sh\n"
        'if [ -n "$SLOWGIT_STAMP" ]; then\n'
        "  i=0\n"
        '  while [ $i -lt 250 ] && [ -z "$(find "$SLOWGIT_DIR" -name \'*.md\' -newer "$SLOWGIT_STAMP" 2>/dev/null)" ]; do\n'
        "    sleep 0.02; i=$((i + 1))\n"
        "  done\n"
        "  sleep 0.2\n"
        "else\n"
        "  sleep 1.5\n"
        "fi\n"
        f'exec {real} "$@"\n')
    (bindir / "git").chmod(0o755)
    return {"PATH": f"{bindir}:{hookkit.env()['PATH']}"}


def after_the_capture(memory: Path, stamp: Path) -> dict[str, str]:
    """The slow ``git``'s cue: wait for a day file under ``memory`` written after now."""
    stamp.write_text("")
    time.sleep(0.01)  # a file written from here on is newer than the stamp, whatever the clock's grain
    return {"SLOWGIT_DIR": str(memory), "SLOWGIT_STAMP": str(stamp)}


def stop_event(ws: Path, n: int = 0) -> dict:
    return {"hook_event_name": "Stop", "session_id": f"s{n}", "cwd": str(ws), "stop_hook_active": False,
            "last_assistant_message": f"Noted: release {n} ships on Friday."}


def run(ws: Path, args: tuple[str, ...], event: dict, extra: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", *args], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env({**SCOPE, **extra}), cwd=str(ws), timeout=120)


def gate_text(proc: subprocess.CompletedProcess) -> str:
    """The gate's refusal (stderr without the marker and the capture's one-line notes)."""
    lines = [ln for ln in hookkit.err_text(proc).splitlines()
             if ln != hookkit.MARKER and not ln.startswith("okfpro: memory-capture")]
    return "\n".join(lines)


def day_files(memory: Path) -> list[Path]:
    return sorted(p for p in memory.rglob("*.md") if "memory-" in str(p.relative_to(memory)))


def stale_snapshot(ws: Path) -> None:
    """Today's Snapshot line committed with a wrong count: a clean tree passes, a dirty one is refused."""
    log = ws / ".okf" / "log.md"
    text = log.read_text()
    stale, n = re.subn(r"(\d+) concepts", lambda m: f"{int(m.group(1)) + 7} concepts", text, count=1)
    assert n == 1, text
    log.write_text(stale)
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "stale snapshot")


def test_with_memory_outside_the_bundle_the_gate_answers_as_without_a_capture(tmp_path, slow_git):
    ws = hookkit.make_workspace(tmp_path)
    (ws / "okfpro.toml").write_text("[memory]\ncapture = true\n")
    (ws / ".gitignore").write_text((ws / ".gitignore").read_text() + ".okf-memory/\n")
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "capture on")
    root = ws / ".okf"
    garbage = tmp_path / "garbage"
    garbage.write_text("not a repository\n")

    def clean() -> None:
        pass

    def edited() -> None:
        p = root / "learnings" / "search-ranking.md"
        p.write_text(p.read_text() + "\nOne more line, never summarised.\n")

    def untracked() -> None:
        (root / "learnings" / "brand-new.md").write_text("---\ntype: Learning\ntitle: New\ndescription: New.\n---\n\n# New\n")

    def deleted() -> None:
        (root / "learnings" / "search-cache.md").unlink()

    def staged() -> None:
        untracked()
        hookkit.git(ws, "add", "-A")

    states = [("clean", clean, {}), ("edited", edited, {}), ("untracked", untracked, {}), ("deleted", deleted, {}),
              ("staged", staged, {}), ("git fails", edited, {"GIT_DIR": str(garbage)})]
    seen = set()
    for n, (name, make, extra) in enumerate(states):
        hookkit.git(ws, "reset", "-q", "--hard")
        hookkit.git(ws, "clean", "-qfd", "--", ".okf")
        make()
        alone = run(ws, ("check", "stop-gate"), stop_event(ws, n), extra)  # no capture: git's pace is moot
        before = len(day_files(ws / ".okf-memory"))
        cue = after_the_capture(ws / ".okf-memory", tmp_path / "stamp")
        both = run(ws, ("stop",), stop_event(ws, n), {**slow_git, **cue, **extra})
        assert len(day_files(ws / ".okf-memory")) >= max(before, 1), (name, hookkit.err_text(both))
        assert (both.returncode, gate_text(both)) == (alone.returncode, gate_text(alone)), name
        seen.add((alone.returncode, "could not ask git" in gate_text(alone)))
    assert seen == {(0, False), (2, False), (2, True)}  # the states cover pass, refusal, and git's failure


def test_with_memory_under_the_bundle_root_git_answers_before_the_capture_writes(tmp_path, slow_git):
    ws = hookkit.make_workspace(tmp_path)
    # the configured bundle is elsewhere, so the memory root may lie inside the session's .okf
    (ws / "okfpro.toml").write_text('[bundle]\npath = "kb"\n\n[memory]\ncapture = true\nroot = ".okf/mem"\n')
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "memory inside .okf")
    stale_snapshot(ws)
    memory = ws / ".okf" / "mem"
    assert run(ws, ("check", "stop-gate"), stop_event(ws), {}).returncode == 0  # clean: the stale line is not asked about
    # Markdown in the memory root before it has its .gitignore: git sees it, so the tree is dirty
    memory.mkdir()
    (memory / "left-over.md").write_text("# left over\n")
    alone = run(ws, ("check", "stop-gate"), stop_event(ws), {})
    assert alone.returncode == 2 and "Snapshot" in gate_text(alone), hookkit.err_text(alone)

    both = run(ws, ("stop",), stop_event(ws, 1), slow_git)
    assert (memory / ".gitignore").is_file() and day_files(memory), hookkit.err_text(both)  # the capture wrote
    assert (both.returncode, gate_text(both)) == (alone.returncode, gate_text(alone))
    # what git would have said after the capture: clean (its .gitignore hides the memory root)
    assert run(ws, ("check", "stop-gate"), stop_event(ws), {}).returncode == 0


def test_every_row_of_the_table_names_a_function_that_exists():
    for check in checks.CHECKS.values():
        assert callable(check.fn), check.name
        if check.start is not None:
            assert callable(checks._named(check.start)), check.name
        if isinstance(check._on_crash, str):
            assert callable(checks._named(check._on_crash)), check.name


def test_a_stop_with_capture_off_loads_neither_other_checks_nor_the_capture_machinery(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "okfpro", "hook", "stop"],
                          input=json.dumps(stop_event(ws)).encode(), capture_output=True, env=hookkit.env(SCOPE),
                          cwd=str(ws), timeout=60)
    assert proc.returncode == 0, proc.stderr[-800:]
    names = {n.decode() for n in re.findall(rb"^import time:\s+\d+ \|\s+\d+ \| +(\S+)$", proc.stderr, re.M)}
    assert "okfpro.hooks.stop" in names and "okfpro.memory.capture" in names
    loaded = names & {"okfpro.hooks.guards", "okfpro.hooks.banner", "okfpro.hooks.post_edit",
                      "okfpro.core.sanitise", "okfpro.core.redact", "okfpro.io.identity", "okfpro.memory.store",
                      "dataclasses", "typing"}  # no okfpro.toml here, so no tomllib (which imports typing)
    assert not loaded, sorted(loaded)
