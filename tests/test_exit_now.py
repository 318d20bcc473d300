"""okfpro.__main__.exit_now: the light paths' exit ends a process as ``sys.exit`` would, minus the teardown.

Each case runs the same small program twice in real interpreters — once ending with ``sys.exit``,
once with ``exit_now`` — and compares exit status, stdout and stderr: the codes (None, ints out of
range, a message), output still buffered at exit, ``atexit`` and ``weakref.finalize`` callbacks,
a reader that went away, a process started with stdout closed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROLOGUE = ("import atexit, sys, weakref\n"
            "class Box: pass\n"
            "box = Box()\n"
            "weakref.finalize(box, print, 'finalized', end='|')\n"
            "atexit.register(print, 'atexit', end='|')\n"
            "print('buffered', end='|')\n"
            "sys.stderr.write('said|')\n")


def run(ending: str, code: str, **kw) -> subprocess.CompletedProcess:
    exit_call = "sys.exit" if ending == "sys.exit" else "__import__('okfpro.__main__').__main__.exit_now"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # 'buffered' stays in the buffer
    return subprocess.run([sys.executable, "-c", PROLOGUE + f"{exit_call}({code})\n"], capture_output=True, timeout=60,
                          env=env, **kw)


@pytest.mark.parametrize("code", ["None", "0", "2", "3", "256", "-1", "'a message'"])
def test_as_sys_exit_does(code):
    want, got = run("sys.exit", code), run("exit_now", code)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)
    assert b"atexit" in got.stdout and b"finalized" in got.stdout and b"buffered" in got.stdout


def test_a_reader_that_went_away():
    body = "print('x' * 100)\n"  # still in the buffer at exit: the exit's flush fails
    for ending in ("sys.exit", "exit_now"):
        exit_call = "sys.exit" if ending == "sys.exit" else "__import__('okfpro.__main__').__main__.exit_now"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        proc = subprocess.Popen([sys.executable, "-c", "import sys\n" + body + f"{exit_call}(0)\n"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # before it writes: its flush fails
        err = proc.stderr.read()
        assert proc.wait(60) == 120, (ending, err)


def test_started_with_stdout_closed():
    for ending in ("sys.exit", "exit_now"):
        exit_call = "sys.exit" if ending == "sys.exit" else "__import__('okfpro.__main__').__main__.exit_now"
        proc = subprocess.run(["sh", "-c", f'"$0" -c "import sys; {exit_call}(3)" >&-', sys.executable],
                              capture_output=True, timeout=60)
        assert proc.returncode == 3, (ending, proc.stderr)


def test_only_the_light_paths_take_it():
    from okfpro.__main__ import _light

    assert _light(["hook", "stop"]) and _light(["merge-file", "a", "b", "c"])
    assert _light(["memory", "remember", "x"]) and _light(["memory", "recall", "x"])
    assert not _light(["memory", "forget", "x"]) and not _light(["validate"]) and not _light([])
