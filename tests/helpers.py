"""Shared test helpers: where the read-only shared/ folder is, and running okfpro — as a real
process, or in the test's own process.

``run_okfpro(...)`` starts ``python -m okfpro`` as a real process: use it where the process *is*
the thing under test (hooks and launchers, Git's drivers, crash/kill/lock drills, concurrency between
processes, packaging).  ``invoke(...)`` runs the same entry point, ``okfpro.__main__.main(argv)``, in
the test's process with the same inputs and outputs (own cwd, environment, stdin; stdout and stderr as
bytes; the exit code) and restores everything afterwards: the ~0.1–0.15 s of CPU a fresh interpreter
spends importing is what most of the suite used to cost.  ``tests/test_invoke.py`` runs a set of verbs
both ways and compares exit code, stdout and stderr byte for byte.
"""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The variables that name a memory scope (and the day): a test that picks its identity starts
# from an environment without them, so the developer's own never leaks into a run.
SCOPE_VARS = ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_TODAY")


# The Git identity tests/conftest.py sets for every process the tests start (a new user's machine may
# have none): an environment cleared of Git's variables keeps these.
GIT_IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def without_git_vars(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: os.environ) without Git's ``GIT_*`` variables, except :data:`GIT_IDENTITY`."""
    return {k: v for k, v in (os.environ if env is None else env).items()
            if not k.startswith("GIT_") or k in GIT_IDENTITY}


def scoped_env(*drop: str, **parts: str) -> dict[str, str]:
    """os.environ without :data:`SCOPE_VARS` (and the extra names in ``drop``), plus ``parts``."""
    gone = set(SCOPE_VARS) | set(drop)
    env = {k: v for k, v in os.environ.items() if k not in gone}
    env.update(parts)
    return env


def memory_workspace(tmp_path: Path) -> Path:
    """A workspace with an empty bundle and a ``[memory]`` table: enough for the memory verbs."""
    w = tmp_path / "ws"
    (w / ".okf").mkdir(parents=True)
    (w / "okfpro.toml").write_text("[memory]\n")
    return w


def quick() -> bool:
    """The inner loop: ``pytest -m "not slow"``, where tests/conftest.py sets ``OKFPRO_TESTS=quick``
    unless it is set already (``OKFPRO_TESTS=full`` there runs everything at the whole run's strength).
    The whole run, the README's test command (what CI runs), is never quick."""
    return os.environ.get("OKFPRO_TESTS") == "quick"


def full() -> bool:
    """``OKFPRO_TESTS=full``: the drills at the size they were written with (more clones, writers and
    rounds than the whole run needs to reach each of their races; see each drill's own ``full()``)."""
    return os.environ.get("OKFPRO_TESTS") == "full"


def examples(full: int) -> int:
    """A property test's Hypothesis example count: ``full``, or a quarter of it (at least 25) when
    :func:`quick`."""
    return max(25, full // 4) if quick() else full


def cache_dir(*parts: str) -> Path:
    """A directory for the tests' own caches, outside the checkout: ``$XDG_CACHE_HOME`` as the run
    found it (tests/conftest.py points the variable at a private directory afterwards), else ~/.cache."""
    base = os.environ.get("OKFPRO_TESTS_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "okfpro-tests")
    return Path(base, *parts)


def shared_dir() -> Path:
    """``../shared`` beside the checkout (CI), else /work/shared (developer machines)."""
    for candidate in (REPO.parent / "shared", Path("/work/shared")):
        if (candidate / "conformance").is_dir():
            return candidate
    return REPO.parent / "shared"


def run_okfpro(*args: str, cwd: str | os.PathLike | None = None, stdin: str | bytes | None = None,
               env: Mapping[str, str] | None = None, timeout: float = 120, text: bool = True,
               base_env: Mapping[str, str] | None = None, process: bool = True) -> subprocess.CompletedProcess:
    """Run ``okfpro ARGS``: a real ``python -m okfpro`` process (``process=False``: :func:`invoke`).

    The environment is ``base_env`` (default: this process's) updated with ``env``; stdin is text or
    bytes; stdout/stderr come back as text (``text=False``: bytes)."""
    full_env = {**(os.environ if base_env is None else base_env), **(env or {})}
    full_env.setdefault("PYTHONPATH", str(REPO))
    data = stdin.encode() if isinstance(stdin, str) else stdin
    argv = [sys.executable, "-m", "okfpro", *args]
    if process:
        proc = subprocess.run(argv, cwd=cwd, input=data, env=full_env, capture_output=True, timeout=timeout)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        code, out, err = _in_process(list(args), cwd, data, full_env)
    if text:
        return subprocess.CompletedProcess(argv, code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    return subprocess.CompletedProcess(argv, code, out, err)


def invoke(*args: str, cwd: str | os.PathLike | None = None, stdin: str | bytes | None = None,
           env: Mapping[str, str] | None = None, timeout: float | None = None, text: bool = True,
           base_env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess:
    """``run_okfpro`` in this process (same arguments; ``timeout`` is accepted and not enforced)."""
    return run_okfpro(*args, cwd=cwd, stdin=stdin, env=env, text=text, base_env=base_env, process=False)


class _Sink(io.BytesIO):
    def close(self) -> None:  # a command closing stdout must not lose what it wrote
        self.flush()


def _in_process(argv: list[str], cwd: str | os.PathLike | None, stdin: bytes | None,
                env: Mapping[str, str]) -> tuple[int, bytes, bytes]:
    """``okfpro.__main__.main(argv)`` run by :func:`in_process`."""
    from okfpro.__main__ import main

    return in_process(lambda: main(argv), cwd, stdin, env, argv)


def in_process(call: Callable[[], object], cwd: str | os.PathLike | None, stdin: bytes | None,
               env: Mapping[str, str], argv: list[str] | None = None) -> tuple[int, bytes, bytes]:
    """``call()`` as a process would run it: with this process's cwd, environment, argv, standard
    streams (and their ``sys.__std*__`` originals, which the terminal-width probe reads), the time zone
    and collector state swapped in for the call and restored after; its return value or ``SystemExit``
    is the exit code.  An exception escaping ``call`` ends as Python's would: traceback on stderr,
    exit 1.  Returns (exit code, stdout bytes, stderr bytes)."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    saved_streams = (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__)
    gc_was = gc.isenabled()
    out_sink, err_sink = _Sink(), _Sink()
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8", errors="surrogateescape")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(out_sink, encoding="utf-8", errors="surrogateescape")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(err_sink, encoding="utf-8", errors="backslashreplace",
                                                   line_buffering=True)
    sys.argv = [str(REPO / "okfpro" / "__main__.py"), *(argv or [])]
    try:
        os.environ.clear()
        os.environ.update(env)
        time.tzset()  # a process reads TZ when it starts
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = _exit_code(call())
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: BLE001 - what Python does with an uncaught exception
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except ValueError:  # closed by the command
                pass
        return code, out_sink.getvalue(), err_sink.getvalue()
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()
        sys.argv = saved_argv
        sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__, sys.__stderr__ = saved_streams
        if gc_was:
            gc.enable()


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    sys.stderr.write(f"{code}\n")  # SystemExit("message"): printed, exit 1
    return 1


def on_a_terminal(args: list[str], cwd: str | os.PathLike | None, env: Mapping[str, str],
                  stdout: bool = False) -> tuple[int, bytes]:
    """``python -m okfpro ARGS`` as a real process whose stderr (and with ``stdout``, its stdout; else
    discarded) is a pseudo-terminal: (exit code, every byte it wrote to the terminal)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "okfpro", *args], cwd=cwd,
                            stdout=slave if stdout else subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL,
                            env=dict(env))
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed (Linux reports EIO)
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return proc.wait(), seen
