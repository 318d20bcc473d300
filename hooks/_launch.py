"""Fail-closed launcher shared by the hook scripts in this directory (stdlib only).

An agent host reads a hook's exit status: 0 means "go on", 2 means "stop", and
anything else — 1, 127 for a missing program, a crash — is read as "go on".  A
checker cannot refuse on its own absence, so this launcher does it:

1. find the okfpro this workspace trusts: the interpreter named in the file
   ``okfpro-python`` beside this script (written by ``okfpro init``: the Python
   that installed okfpro), else an ``okfpro`` on PATH;
2. read the whole event from stdin and answer it with okfpro, capturing stdout and
   stderr: in this very interpreter when the launcher runs under the pinned one
   (one interpreter per hook: see STUB and :func:`run_in_process`), else by running
   ``<python> -m okfpro hook <event>`` (or ``okfpro hook <event>``) as a child;
3. require the identity line ``okfpro-enforcer v1`` on stderr (a stray program
   called ``okfpro`` that exits 0 is not a clean gate), remove it, and pass the
   rest of stderr through;
4. pass stdout through byte for byte (an ``ask`` or a banner must arrive intact);
5. exit 0 or 2 as okfpro did; anything else — not found, import error, crash,
   an exit code other than 0 or 2, no identity line, a timeout — becomes
   "ENFORCEMENT DEGRADED" and exit 2 for a gate.  Feedback (the banner, prompt
   recall, session end) never blocks: the same message, exit 0.
"""

import os
import sys

MARKER = b"okfpro-enforcer v1"
PIN_FILE = "okfpro-python"
# How long the launcher waits for okfpro, per event, in seconds.  Each host's wiring gives every entry a
# timeout above this one (tests/test_real_hosts.py reads the wiring as each host does): a host that
# cancels a slow hook carries on, so the launcher must give up first and refuse.
TIMEOUTS = {
    "pre-tool-use": 45.0,
    "post-tool-use": 45.0,
    "stop": 45.0,
    "session-start": 20.0,
    "user-prompt-submit": 20.0,
    "session-end": 10.0,
}
# A host that clamps an event's timeout below the table above: (event, agent) -> seconds.  Codex gives
# SessionEnd 3 s whatever the wiring says.
CLAMPED = {("session-end", "codex"): 2.5}


def timeout_for(event, extra=()):
    """Seconds to wait for okfpro: $OKFPRO_HOOK_TIMEOUT, else the table, never above a host's clamp."""
    agent = None
    for i, arg in enumerate(extra):
        if arg == "--agent" and i + 1 < len(extra):
            agent = extra[i + 1]
        elif arg.startswith("--agent="):
            agent = arg.split("=", 1)[1]
    try:
        chosen = float(os.environ.get("OKFPRO_HOOK_TIMEOUT", "") or TIMEOUTS.get(event, 45.0))
    except ValueError:
        chosen = TIMEOUTS.get(event, 45.0)
    clamp = CLAMPED.get((event, agent))
    return min(chosen, clamp) if clamp is not None else chosen


# The six launcher scripts beside this file are this text with a few constants filled in; a test
# (tests/test_launchers.py) holds each file to it.  Regenerate them with `python hooks/_launch.py`.
#
# A launcher is sh first and Python after (the sh part is a Python string).  The sh part runs the
# Python part under the interpreter pinned beside it when the pin's second line says `one-process`
# (okfpro init writes it: the interpreter that ran init has okfpro), and okfpro then answers inside
# that interpreter: one interpreter per hook.  That run must end with exit 10 (answered: go on) or
# 12 (answered: block); anything else -- a removed interpreter, a crash, a program that is not this
# launcher -- is refused by the sh part.  Without that line, or with OKFPRO_LAUNCHER=two-process, it
# runs under python3 and the two-process path starts okfpro as a child, as before.
STUB = r"""#!/bin/sh
''':'
# okfpro hook launcher: {event} ({kind}).
# Called by the agent host (e.g. .claude/settings.json); see _launch.py beside it.
# Generated from _launch.STUB: only the event, its kind and its refusal differ between the launchers.
case $0 in */*) here=${{0%/*}} ;; *) here=. ;; esac
unset OKFPRO_LAUNCH_PINNED
py= mode=
{{ IFS= read -r py; IFS= read -r mode; }} 2>/dev/null < "$here/okfpro-python"
if [ "$mode" = one-process ] && [ "${{OKFPRO_LAUNCHER:-}}" != two-process ] && [ -f "$py" ] && [ -x "$py" ]; then
  OKFPRO_LAUNCH_PINNED=1 "$py" "$0" "$@"
  rc=$?
  case $rc in 10) exit 0 ;; 12) exit 2 ;; esac
  echo "{degraded} $py (named in $here/okfpro-python) could not run this launcher (exit $rc). {tail}" >&2
  exit {fail}
fi
if command -v python3 >/dev/null 2>&1; then exec python3 "$0" "$@"; fi
echo "{degraded} there is no python3 to run this launcher. {tail}" >&2
exit {fail}
':'''
import os
import sys

EVENT = "{event}"
GATE = {gate}
PINNED = os.environ.pop("OKFPRO_LAUNCH_PINNED", "") == "1"  # run by the sh part: answer 10 or 12

sys.dont_write_bytecode = True  # no __pycache__ left in the workspace beside the launchers
HERE = os.path.dirname(os.path.abspath(__file__))


def installed_launch():
    # The pinned okfpro's own copy of _launch (compiled when okfpro was installed) when it is the
    # _launch.py beside this file byte for byte, as okfpro init and upgrade write it: compiling that
    # file here cost a hook a third as much again as okfpro's answer.  None otherwise (the copy
    # beside this file is used).  Imported as okfpro is in run_in_process: never from this folder.
    saved = sys.path[:]
    here = os.path.realpath(HERE)  # python put the script's real folder first: match it however spelled
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]
    try:
        import okfpro._launchers._launch as module

        with open(module.__file__, "rb") as ours, open(os.path.join(HERE, "_launch.py"), "rb") as beside:
            return module if ours.read() == beside.read() else None
    except BaseException:  # noqa: BLE001 - any doubt: the copy beside this file
        return None
    finally:
        sys.path[:] = saved


try:
    _found = installed_launch() if PINNED else None
    if _found is None:
        sys.path.insert(0, HERE)
        import _launch as _found
    launch, leave = _found.launch, _found.leave
except BaseException as exc:  # noqa: BLE001 - a broken launcher must not read as "carry on"
    sys.stderr.write(
        "ENFORCEMENT DEGRADED — the okfpro launcher (_launch.py) beside %s could not be loaded (%s: %s).\n"
        % (os.path.basename(__file__), type(exc).__name__, exc)
    )
    sys.exit((2 if GATE else 0) + (10 if PINNED else 0))

if __name__ == "__main__":
    try:
        code = launch(EVENT, GATE, in_process=PINNED)
    except BaseException as exc:  # noqa: BLE001
        sys.stderr.write("ENFORCEMENT DEGRADED — the okfpro launcher crashed (%s: %s).\n" % (type(exc).__name__, exc))
        code = 2 if GATE else 0
    leave(code + (10 if PINNED else 0))
"""
# file name -> (event, gate)
LAUNCHERS = {
    "session_start.py": ("session-start", False),
    "pre_tool_use.py": ("pre-tool-use", True),
    "post_edit.py": ("post-tool-use", True),
    "stop.py": ("stop", True),
    "user_prompt_submit.py": ("user-prompt-submit", False),
    "session_end.py": ("session-end", False),
}


def stub(event, gate):
    kind = "a gate: fails closed, exit 2" if gate else "feedback: never blocks, exit 0"
    if gate:
        degraded, tail = "ENFORCEMENT DEGRADED —", "Nothing was checked, so the call is refused (exit 2); run okfpro init again."
    else:
        degraded, tail = f"okfpro: hook {event} could not run —", "Only this advisory hook is affected."
    return STUB.format(event=event, gate=gate, kind=kind, degraded=degraded, tail=tail, fail=2 if gate else 0)


def _say(text):
    try:
        sys.stderr.write(text.rstrip("\n") + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass


def _which(name):
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder:
            continue
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_command(here, event, extra):
    """(argv, description) or (None, reason)."""
    base, desc = find_okfpro(here)
    if base is None:
        return None, desc
    return base + ["hook", event] + list(extra), desc


def find_okfpro(here):
    """(argv prefix that runs okfpro, description) or (None, reason): the pin beside HERE, else PATH.

    The pre-commit hooks use it too (_cli.py), so the commit door and the agent door run one okfpro.
    """
    pin = os.path.join(here, PIN_FILE)
    if os.path.exists(pin):
        try:
            with open(pin, "r", encoding="utf-8", errors="replace") as handle:
                python = handle.read().strip().splitlines()[0].strip()
        except (OSError, IndexError):
            return None, f"{pin} exists but names no interpreter"
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            return None, f"{pin} names {python!r}, which is not an executable file (was the environment removed?)"
        return [python, "-P", "-m", "okfpro"], f"{python} -m okfpro"
    found = _which("okfpro")
    if found is None:
        return None, f"no {PIN_FILE} beside this script and no `okfpro` on PATH"
    return [found], found


def _strip_marker(err):
    lines = err.split(b"\n")
    for i, line in enumerate(lines):
        if line.rstrip(b"\r") == MARKER:
            del lines[i]
            return True, b"\n".join(lines)
    return False, err


def _write(stream, data):
    if data:
        stream.buffer.write(data)
        stream.buffer.flush()


class _Late(BaseException):
    """The in-process answer outlasted its timeout."""


def _scratch():
    """A file descriptor for captured output (a memory file where the system has one)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("okfpro-hook", 0), None
    import tempfile

    handle = tempfile.TemporaryFile()
    return handle.fileno(), handle


def _drain(fd):
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def run_in_process(event, extra, data, timeout):
    """Answer the event with okfpro imported into this interpreter: (exit code, stdout, stderr, what ran).

    Everything okfpro and its children write to descriptors 1 and 2 is captured, as the two-process
    path captures a child's pipes; the event is its stdin (on descriptor 0, as a child's would be); a
    timeout is an alarm.  None when okfpro cannot be imported here or the system has no interval
    timer (the caller starts it as a child).
    """
    import io

    import _signal as signal  # the C module: signal.py wraps it in enums (~17 M instructions a hook)

    if not hasattr(signal, "setitimer"):
        return None
    here = os.path.realpath(os.path.dirname(os.path.abspath(sys.argv[0])))
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != here]  # as -P: never the launcher's folder
    os.environ.setdefault("PYTHONUTF8", "1")
    try:
        from okfpro.__main__ import main as door
    except BaseException:  # noqa: BLE001 - not importable here: the two-process path says why
        return None
    desc = f"{sys.executable} (okfpro in the launcher's interpreter)"
    (out_fd, out_keep), (err_fd, err_keep), (in_fd, in_keep) = _scratch(), _scratch(), _scratch()
    view = memoryview(data)  # the event on descriptor 0, as the two-process path gives it
    while view:
        view = view[os.write(in_fd, view):]
    os.lseek(in_fd, 0, os.SEEK_SET)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    saved = (os.dup(0), os.dup(1), os.dup(2))
    streams = (sys.stdin, sys.stdout, sys.stderr)
    previous = signal.getsignal(signal.SIGALRM)
    code = None
    rang = []
    try:
        os.dup2(in_fd, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace", write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                                      write_through=True)

        def ring(signum, frame):
            rang.append(True)  # whatever catches the exception below, the answer came too late
            raise _Late()

        signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            code = door(["hook", event, *extra])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Late:
        code = "late"
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - a crash is an answer the host must not read as "go on"
        try:
            sys.stderr.write(f"okfpro crashed in the launcher's interpreter: {type(exc).__name__}: {exc}\n")
        except Exception:  # noqa: BLE001
            pass
        code = 1
    finally:
        signal.signal(signal.SIGALRM, previous)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        for fd, kept in enumerate(saved):
            os.dup2(kept, fd)
            os.close(kept)
        sys.stdin, sys.stdout, sys.stderr = streams
    if rang:
        code = "late"
    out, err = _drain(out_fd), _drain(err_fd)
    for fd, keep in ((out_fd, out_keep), (err_fd, err_keep), (in_fd, in_keep)):
        if keep is None:
            os.close(fd)
    return code, out, err, desc


def launch(event, gate, argv=None, in_process=False):
    here = os.path.dirname(os.path.abspath(sys.argv[0] if argv is None else argv[0]))
    extra = list(sys.argv[1:] if argv is None else argv[1:])
    fail = 2 if gate else 0
    what = f"okfpro hook {event}"

    def degraded(reason):
        if gate:
            _say(f"ENFORCEMENT DEGRADED — {reason}. Nothing was checked, so the call is refused (exit 2). "
                 "Install okfpro in this workspace's Python, or run `okfpro init` again to re-pin it.")
        else:
            _say(f"okfpro: {what} could not run — {reason}. Only this advisory hook is affected; the gates still refuse on their own.")
        return fail

    try:
        data = sys.stdin.buffer.read()
    except Exception as exc:  # noqa: BLE001
        data = b""
        _say(f"okfpro launcher: stdin could not be read ({exc}); okfpro will report an unreadable event")
    timeout = timeout_for(event, extra)
    answered = run_in_process(event, extra, data, timeout) if in_process else None
    if answered is None:
        answered = run_child(here, event, extra, data, timeout)
        if isinstance(answered, str):
            return degraded(answered)
    code, out, err, desc = answered
    if code == "late":
        return degraded(f"`{what}` ({desc}) did not answer within {timeout:g} s")
    identified, err = _strip_marker(err)
    if not identified:
        _write(sys.stderr, err)
        return degraded(
            f"`{desc}` did not identify itself as the okfpro enforcer (exit {code}, no "
            f"'{MARKER.decode()}' line) — it may be missing, broken, or a different program named okfpro"
        )
    if code not in (0, 2):
        _write(sys.stderr, err)
        return degraded(f"`{what}` exited {code}, which the host would read as 'carry on'")
    _write(sys.stdout, out)
    _write(sys.stderr, err)
    return code if gate else 0


def leave(code):
    """Exit with ``code``.  When okfpro answered in this interpreter, through its one-shot exit
    (okfpro.__main__.exit_now: no teardown of the modules it loaded, ~15 M instructions), else
    as ``sys.exit``."""
    door = sys.modules.get("okfpro.__main__")
    finish = getattr(door, "exit_now", None)
    if callable(finish):
        finish(code)
    sys.exit(code)


def run_child(here, event, extra, data, timeout):
    """The two-process path: (exit code, stdout, stderr, what ran), or why it could not run."""
    import subprocess

    cmd, desc = find_command(here, event, extra)
    if cmd is None:
        return desc
    env = dict(os.environ)
    env.setdefault("PYTHONUTF8", "1")
    try:
        proc = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "late", b"", b"", desc
    except OSError as exc:
        return f"`okfpro hook {event}` ({desc}) could not be started: {exc}"
    return proc.returncode, proc.stdout, proc.stderr, desc


if __name__ == "__main__":  # regenerate the launchers beside this file
    _here = os.path.dirname(os.path.abspath(__file__))
    for _name, (_event, _gate) in LAUNCHERS.items():
        with open(os.path.join(_here, _name), "w", encoding="utf-8", newline="\n") as _out:
            _out.write(stub(_event, _gate))
        os.chmod(os.path.join(_here, _name), 0o755)
