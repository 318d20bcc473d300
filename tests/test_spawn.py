"""okfpro.io.spawn.Child: what ``subprocess.Popen(...).communicate(timeout=...)`` answers, with real children.

Each case runs a real program both ways and compares; the deadline, the kill and the reaping are
checked on children that hang, that close their pipes and keep running, and that flood both pipes.
The ``subprocess`` fallback (no ``os.posix_spawnp``) answers the same cases.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from okfpro.io import spawn
from okfpro.io.spawn import Child, TimedOut

PY = sys.executable

CASES = {
    "exit code and both pipes": ["sh", "-c", "printf out; printf err >&2; exit 3"],
    "killed by a signal": ["sh", "-c", "printf partial; kill -9 $$"],
    "stdin is empty": ["cat"],
    "floods both pipes": [PY, "-c", "import sys\nfor i in range(40):\n"
                                    "    sys.stdout.write('o' * 65536); sys.stderr.write('e' * 65537)\n"],
    "signals at their defaults": ["sh", "-c", "grep SigIgn /proc/$$/status"],
    "only the three descriptors": ["sh", "-c", "ls /proc/$$/fd"],
    "PATH is searched": ["git", "--version"],
}


def popen(argv: list[str]) -> tuple[int, bytes, bytes]:
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(params=["posix_spawn", "subprocess"])
def way(request, monkeypatch):
    if request.param == "subprocess":
        monkeypatch.delattr(os, "posix_spawnp")
    return request.param


@pytest.mark.parametrize("case", [c for c in CASES if c != "signals at their defaults"])
def test_answers_as_subprocess_does(way, case):
    argv = CASES[case]
    got, want = Child(argv).communicate(30), popen(argv)
    assert got == want
    if case == "only the three descriptors" and os.path.isdir("/proc/self/fd"):
        assert got[1].split() == [b"0", b"1", b"2"]  # and no descriptor of this process leaked in


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_the_child_gets_every_signal_at_its_default(way):
    """A host may start the hook with signals ignored (``nohup``, a background job: SIGHUP, SIGINT,
    SIGQUIT), and Python ignores SIGPIPE: posix_spawn's child has them all at their defaults; the
    subprocess fallback passes on what ``subprocess`` passes on (it resets SIGPIPE only)."""
    import signal

    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)}
    try:
        argv = CASES["signals at their defaults"]
        got, want = Child(argv).communicate(30), popen(argv)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    ignored = [int(out.split()[1], 16) & 0x7FFFFFFF for _rc, out, _err in (got, want)]  # glibc's 32, 33 aside
    assert ignored[1] & 0b111 == 0b111  # subprocess.run's child inherits the three
    if way == "posix_spawn":
        assert ignored[0] == 0  # no standard signal (1-31) ignored in ours
    else:
        assert got == want


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_descriptors_inherited_from_our_parent_are_not_passed_on(way):
    r, w = os.pipe()
    os.set_inheritable(w, True)  # as a host might leave one open for the hook
    try:
        got = Child(["sh", "-c", "ls /proc/$$/fd"]).communicate(30)
    finally:
        os.close(r)
        os.close(w)
    assert got[1].split() == [b"0", b"1", b"2"]


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_a_program_not_on_path_raises_and_leaks_nothing(way, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    before = _open_fds()
    with pytest.raises(FileNotFoundError):
        Child(["git", "status"])
    assert _open_fds() == before


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped: no zombie left behind
    return False


@pytest.mark.parametrize("argv", [
    ["sleep", "30"],
    ["sh", "-c", "printf started; exec >&- 2>&-; sleep 30"],  # closes its pipes, keeps running
    [PY, "-c", "import sys, time\nsys.stdout.write('x' * 200000); sys.stdout.flush(); time.sleep(30)"],
], ids=["hangs", "closes its pipes and stays", "writes then hangs"])
def test_a_child_past_the_deadline_is_killed_and_reaped(argv):
    child = Child(argv)
    t0 = time.monotonic()
    with pytest.raises(TimedOut) as caught:
        child.communicate(0.5)
    assert time.monotonic() - t0 < 5
    assert _gone(child.pid)
    if argv[0] == PY:
        assert caught.value.stdout == b"x" * 200000  # what it said before the deadline is kept


def test_the_deadline_counts_from_the_start(way):
    child = Child(["sleep", "1"])
    time.sleep(0.6)
    with pytest.raises(TimedOut):
        child.communicate(0.5)  # already spent before communicate was called


def test_the_fallback_kills_too(monkeypatch):
    monkeypatch.delattr(os, "posix_spawnp")
    child = Child(["sleep", "30"])
    assert child._proc is not None
    with pytest.raises(TimedOut):
        child.communicate(0.3)
    assert child._proc.returncode is not None


def test_the_module_does_not_import_subprocess_on_posix():
    code = ("import sys; from okfpro.io.spawn import Child; Child(['true']).communicate(10); "
            "print('subprocess' in sys.modules, 'signal' in sys.modules, 'threading' in sys.modules)")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]
    assert spawn.Child  # the name the Stop gate uses
