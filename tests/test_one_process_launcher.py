"""Drills for the one-process launcher: okfpro answering inside the launcher's own interpreter.

``okfpro init`` pins ``<python>`` plus a second line ``one-process``; the launcher's sh part then runs
its Python part under that interpreter, which imports okfpro and answers in-process.  Every way that
could pass while unable to check is drilled closed here, as tests/test_hook_drills.py drills the
two-process path: okfpro not importable, a crash, a wrong exit code, no marker, a timeout, a removed
or foreign interpreter, a stray environment variable — and the answers are byte for byte the door's.
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


def pin(ws: Path, python: str, mode: str = "one-process") -> None:
    (ws / ".claude" / "hooks" / "okfpro-python").write_text(f"{python}\n{mode}\n")


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    ws = hookkit.make_workspace(tmp_path_factory.mktemp("one"))
    pin(ws, sys.executable)
    return ws


@pytest.fixture
def fresh(tmp_path) -> Path:
    ws = hookkit.make_workspace(tmp_path)
    pin(ws, sys.executable)
    return ws


def inject(tmp_path: Path, code: str) -> dict[str, str]:
    """A sitecustomize that runs in every interpreter started with this environment."""
    folder = tmp_path / "inject"
    folder.mkdir(exist_ok=True)
    (folder / "sitecustomize.py").write_text(code)
    return {"PYTHONPATH": f"{folder}{os.pathsep}{hookkit.REPO}"}


def execs(ws: Path, launcher: str, event: dict, env: dict[str, str] | None = None) -> list[str]:
    """The programs a launcher run executes (strace), to prove there is one interpreter."""
    proc = subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-e", "signal=none",
                           str(ws / ".claude" / "hooks" / launcher)], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env(env), cwd=str(ws), timeout=120)
    return [line for line in proc.stderr.decode(errors="replace").splitlines() if "execve(" in line and "= 0" in line]


@pytest.mark.skipif(subprocess.run(["sh", "-c", "command -v strace"], capture_output=True).returncode != 0,
                    reason="strace is not installed")
def test_one_interpreter_per_hook(ws):
    event = hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x")
    ran = execs(ws, "pre_tool_use.py", event)
    assert len(ran) == 2, ran  # the launcher file (sh) and the pinned interpreter: nothing else
    assert sys.executable in ran[1]
    two = execs(ws, "pre_tool_use.py", event, {"OKFPRO_LAUNCHER": "two-process"})
    assert any("-m" in line and "okfpro" in line for line in two)  # the fallback still starts okfpro as a child


@pytest.mark.parametrize("case", ["block", "ask", "pass", "banner", "gemini", "post-edit"])
def test_answers_are_the_doors_byte_for_byte(ws, case):
    args: tuple[str, ...] = ()
    if case == "block":
        launcher, event, door = "pre_tool_use.py", hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x"), ("pre-tool-use",)
    elif case == "ask":
        launcher, door = "pre_tool_use.py", ("pre-tool-use",)
        event = hookkit.edit_event(ws, "reference/b.md", "---\nverified: yes\n---\n", tool="Write")
    elif case == "pass":
        launcher, event, door = "pre_tool_use.py", hookkit.edit_event(ws, "learnings/search-ranking.md", "fine"), ("pre-tool-use",)
    elif case == "banner":
        launcher, event, door = "session_start.py", {"cwd": str(ws), "source": "startup"}, ("session-start",)
    elif case == "gemini":
        launcher, door, args = "pre_tool_use.py", ("pre-tool-use", "--agent", "gemini"), ("--agent", "gemini")
        event = {"hook_event_name": "BeforeTool", "cwd": str(ws), "tool_name": "write_file",
                 "tool_input": {"file_path": str(ws / ".okf/reference/b.md"), "content": "---\nverified: yes\n---\n"}}
    else:
        launcher, door = "post_edit.py", ("post-tool-use",)
        event = hookkit.edit_event(ws, "learnings/search-ranking.md", "x", hook_event="PostToolUse")
        hookkit.hook(*door, event=event)  # the incremental state exists for both runs below
    via = hookkit.run_launcher(ws, launcher, event, args=args)
    direct = hookkit.hook(*door, event=event)
    assert via.returncode == direct.returncode and via.returncode in (0, 2)
    assert via.stdout == direct.stdout
    assert hookkit.err_text(via) == hookkit.err_text(direct).replace(hookkit.MARKER + "\n", "", 1)


@pytest.mark.parametrize("data", [b"", b"{not json", b"[]", b"\xff\xfe\x00garbage"])
def test_unreadable_event_fails_closed(ws, data):
    proc = hookkit.run_launcher(ws, "stop.py", data)
    assert proc.returncode == 2 and "could not read its input" in hookkit.err_text(proc)


def test_okfpro_not_importable_falls_back_and_fails_closed(fresh):
    # the base interpreter of this virtual environment: a real Python without okfpro
    base = getattr(sys, "_base_executable", None) or sys.executable
    if base == sys.executable:
        pytest.skip("not running in a virtual environment")
    pin(fresh, base)
    event = hookkit.edit_event(fresh, "learnings/search-ranking.md", "x")
    for launcher in ("pre_tool_use.py", "post_edit.py", "stop.py"):
        proc = hookkit.run_launcher(fresh, launcher, event, extra_env={"PYTHONPATH": ""})
        assert proc.returncode == 2, hookkit.err_text(proc)
        assert "ENFORCEMENT DEGRADED" in hookkit.err_text(proc) and "did not identify itself" in hookkit.err_text(proc)
    proc = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)}, extra_env={"PYTHONPATH": ""})
    assert proc.returncode == 0 and proc.stdout == b"" and "could not run" in hookkit.err_text(proc)


def test_a_crash_inside_a_check_refuses(fresh, tmp_path):
    env = inject(tmp_path, "import okfpro.hooks.checks as C\n"
                           "def boom(ctx):\n    raise RuntimeError('drill: the check exploded')\n"
                           "C.CHECKS['journal-guard'].fn = boom\n")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/search-ranking.md", "x"), extra_env=env)
    assert proc.returncode == 2
    assert "ENFORCEMENT ERROR — 'journal-guard' crashed (RuntimeError: drill: the check exploded)" in hookkit.err_text(proc)


@pytest.mark.parametrize("how", ["exit 1", "exit 3", "raises", "system exit 1", "no marker"])
def test_a_door_that_misbehaves_in_process_fails_closed(fresh, tmp_path, how):
    patch = {
        "exit 1": "def main(args):\n    return 1\n",
        "exit 3": "def main(args):\n    import sys; sys.stderr.write('okfpro-enforcer v1\\n'); return 3\n",
        "raises": "def main(args):\n    import sys; sys.stderr.write('okfpro-enforcer v1\\n'); raise MemoryError('drill')\n",
        "system exit 1": "def main(args):\n    raise SystemExit(1)\n",
        "no marker": "def main(args):\n    return 0\n",
    }[how]
    env = inject(tmp_path, "import okfpro.__main__ as M\n" + patch + "M.main = main\n")
    event = hookkit.edit_event(fresh, f"journal/{hookkit.PAST}.md", "x")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", event, extra_env=env)
    assert proc.returncode == 2, hookkit.err_text(proc)
    assert "ENFORCEMENT DEGRADED" in hookkit.err_text(proc) and hookkit.MARKER not in hookkit.err_text(proc).splitlines()
    banner = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)}, extra_env=env)
    assert banner.returncode == 0 and "could not run" in hookkit.err_text(banner)


def test_an_answer_that_outlasts_the_timeout_is_refused(fresh, tmp_path):
    env = inject(tmp_path, "import time, okfpro.hooks.checks as C\n"
                           "def slow(ctx):\n    time.sleep(30)\n"
                           "C.CHECKS['journal-guard'].fn = slow\n")
    env["OKFPRO_HOOK_TIMEOUT"] = "1"
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"), extra_env=env)
    assert proc.returncode == 2 and "did not answer within 1 s" in hookkit.err_text(proc)


def test_what_okfpro_writes_to_the_descriptors_is_held_until_the_verdict(fresh, tmp_path):
    # okfpro (or a child it starts) writing straight to descriptor 1, then failing: nothing reaches the host's stdout
    env = inject(tmp_path, "import os, okfpro.__main__ as M\n"
                           "def main(args):\n    os.write(1, b'{\"decision\": \"approve\"}'); os.write(2, b'RAW-STDERR\\n')\n"
                           "    return 1\n"
                           "M.main = main\n")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"), extra_env=env)
    assert proc.returncode == 2 and proc.stdout == b""
    assert "RAW-STDERR" in hookkit.err_text(proc) and "ENFORCEMENT DEGRADED" in hookkit.err_text(proc)


@pytest.mark.parametrize("program", ["/bin/true", "/bin/false"])
def test_a_pin_naming_a_program_that_is_not_python_is_refused(fresh, program):
    pin(fresh, program)
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2 and "could not run this launcher" in hookkit.err_text(proc)
    banner = hookkit.run_launcher(fresh, "session_start.py", {"cwd": str(fresh)})
    assert banner.returncode == 0 and "could not run" in hookkit.err_text(banner)


def test_a_fake_interpreter_that_exits_one_is_refused(fresh, tmp_path):
    fake = tmp_path / "fakepython"
    fake.write_text(f'#!/bin/sh\necho "{hookkit.MARKER}" >&2; echo "something broke" >&2; exit 1\n')
    fake.chmod(0o755)
    pin(fresh, str(fake))
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2
    assert "ENFORCEMENT DEGRADED" in hookkit.err_text(proc) and "(exit 1)" in hookkit.err_text(proc)


def test_a_removed_interpreter_falls_back_to_the_two_process_path_and_refuses(fresh):
    pin(fresh, "/nonexistent/venv/bin/python")
    proc = hookkit.run_launcher(fresh, "pre_tool_use.py", hookkit.edit_event(fresh, "learnings/x.md", "x"))
    assert proc.returncode == 2 and "not an executable file" in hookkit.err_text(proc)


def test_a_stray_pinned_variable_in_the_environment_changes_nothing(ws):
    event = hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x")
    for mode in ("one-process", ""):
        pin(ws, sys.executable, mode)
        try:
            proc = hookkit.run_launcher(ws, "pre_tool_use.py", event, extra_env={"OKFPRO_LAUNCH_PINNED": "1"})
            assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
            ok = hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, "learnings/x.md", "x"),
                                extra_env={"OKFPRO_LAUNCH_PINNED": "1"})
            assert ok.returncode == 0
        finally:
            pin(ws, sys.executable)


def test_bare_locale_and_invalid_bytes_in_the_event_still_answer(ws):
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "", "PYTHONUTF8": "0"}
    event = json.dumps(hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "note")).encode().replace(b"note", b"n\xffte \xe2\x80\x94")
    proc = hookkit.run_launcher(ws, "pre_tool_use.py", event, extra_env=env)
    assert proc.returncode == 2 and "append-only" in hookkit.err_text(proc)
    banner = hookkit.run_launcher(ws, "session_start.py", {"cwd": str(ws)}, extra_env=env)
    assert banner.returncode == 0 and "—" in hookkit.out_text(banner)


def test_init_pins_one_process_and_the_settings_commands_use_it(tmp_path):
    ws = tmp_path / "fresh init"
    proc = subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws)], capture_output=True, text=True, env=hookkit.env())
    assert proc.returncode == 0, proc.stderr
    assert (ws / ".claude/hooks/okfpro-python").read_text().splitlines() == [os.path.abspath(sys.executable), "one-process"]
    cmd = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/pre_tool_use.py'
    event = {"cwd": str(ws), "tool_name": "Write",
             "tool_input": {"file_path": str(ws / ".okf/reference/x.md"), "content": "---\nverified: yes\n---\n"}}
    ask = subprocess.run(["sh", "-c", cmd], input=json.dumps(event).encode(), capture_output=True,
                         env=hookkit.env({"CLAUDE_PROJECT_DIR": str(ws)}), cwd=str(ws))
    assert ask.returncode == 0 and json.loads(ask.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def installed_layout(tmp_path: Path) -> dict[str, str]:
    """PYTHONPATH for an okfpro laid out as pip installs it: the package, with the launchers as
    ``okfpro/_launchers`` (an editable install has no such package, so the launcher falls back)."""
    site = tmp_path / "site"
    pkg = site / "okfpro"
    pkg.mkdir(parents=True)
    for entry in (hookkit.REPO / "okfpro").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    (pkg / "_launchers").symlink_to(hookkit.REPO / "hooks")
    return {"PYTHONPATH": str(site), "PYTHONPROFILEIMPORTTIME": "1"}


def _imported(proc: subprocess.CompletedProcess) -> set[str]:
    text = proc.stderr.decode("utf-8", "replace")
    return {line.rsplit("|", 1)[1].strip() for line in text.splitlines() if line.startswith("import time:")}


def test_the_installed_copy_of_the_launcher_is_used_when_it_is_the_one_beside_it(fresh, tmp_path):
    env = installed_layout(tmp_path)
    event = hookkit.edit_event(fresh, f"journal/{hookkit.PAST}.md", "x")
    same = hookkit.run_launcher(fresh, "pre_tool_use.py", event, extra_env=env)
    assert same.returncode == 2 and hookkit.MARKER not in hookkit.err_text(same).splitlines()
    assert "okfpro._launchers._launch" in _imported(same) and "_launch" not in _imported(same)
    beside = fresh / ".claude" / "hooks" / "_launch.py"
    beside.write_text(beside.read_text() + "\n# edited here\n")  # not the installed one any more
    other = hookkit.run_launcher(fresh, "pre_tool_use.py", event, extra_env=env)
    assert other.returncode == 2 and "_launch" in _imported(other)
    said = [[ln for ln in hookkit.err_text(p).splitlines() if not ln.startswith("import time:")] for p in (same, other)]
    assert said[0] == said[1] and said[0]  # the same refusal either way


def test_a_package_planted_beside_a_linked_launcher_folder_is_never_imported(tmp_path):
    ws = hookkit.make_workspace(tmp_path / "w")
    hooks = ws / ".claude" / "hooks"
    real = tmp_path / "elsewhere"
    hooks.rename(real)
    hooks.symlink_to(real)  # python puts the real folder on sys.path; the launcher sees the link
    pin(ws, sys.executable)
    planted = real / "okfpro"
    planted.mkdir()
    marker = tmp_path / "planted-ran"
    (planted / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    for env in ({}, installed_layout(tmp_path)):
        proc = hookkit.run_launcher(ws, "pre_tool_use.py", hookkit.edit_event(ws, f"journal/{hookkit.PAST}.md", "x"),
                                    extra_env=env)
        assert proc.returncode == 2, hookkit.err_text(proc)
        assert not marker.exists()
