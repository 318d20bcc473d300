"""Fail-closed launcher shared by the hook scripts in this directory (stdlib only).

An agent host reads a hook's exit status: 0 means "go on", 2 means "stop", and
anything else — 1, 127 for a missing program, a crash — is read as "go on".  A
checker cannot refuse on its own absence, so this launcher does it:

1. find the okfpro this workspace trusts: the interpreter named in the file
   ``okfpro-python`` beside this script (written by ``okfpro init``: the Python
   that installed okfpro), else an ``okfpro`` on PATH;
2. read the whole event from stdin, run ``<python> -m okfpro hook <event>`` (or
   ``okfpro hook <event>``) with it, capturing stdout and stderr;
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
import subprocess
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


# The six launcher scripts beside this file are this text with two constants filled in; a test
# (tests/test_launchers.py) holds each file to it.  Regenerate them with `python hooks/_launch.py`.
STUB = '''#!/usr/bin/env python3
"""okfpro hook launcher: {event} ({kind}).

Called by the agent host (e.g. .claude/settings.json); see _launch.py beside it.
Generated from _launch.STUB: only EVENT and GATE differ between the launchers.
"""
import os
import sys

EVENT = "{event}"
GATE = {gate}

sys.dont_write_bytecode = True  # no __pycache__ left in the workspace beside the launchers
try:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _launch import launch
except BaseException as exc:  # noqa: BLE001 - a broken launcher must not read as "carry on"
    sys.stderr.write(
        "ENFORCEMENT DEGRADED — the okfpro launcher (_launch.py) beside %s could not be loaded (%s: %s).\\n"
        % (os.path.basename(__file__), type(exc).__name__, exc)
    )
    sys.exit(2 if GATE else 0)

if __name__ == "__main__":
    try:
        code = launch(EVENT, GATE)
    except BaseException as exc:  # noqa: BLE001
        sys.stderr.write("ENFORCEMENT DEGRADED — the okfpro launcher crashed (%s: %s).\\n" % (type(exc).__name__, exc))
        code = 2 if GATE else 0
    sys.exit(code)
'''
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
    return STUB.format(event=event, gate=gate, kind=kind)


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


def launch(event, gate, argv=None):
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
    cmd, desc = find_command(here, event, extra)
    if cmd is None:
        return degraded(desc)
    env = dict(os.environ)
    env.setdefault("PYTHONUTF8", "1")
    timeout = timeout_for(event, extra)
    try:
        proc = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return degraded(f"`{what}` ({desc}) did not answer within {timeout:g} s")
    except OSError as exc:
        return degraded(f"`{what}` ({desc}) could not be started: {exc}")
    identified, err = _strip_marker(proc.stderr)
    if not identified:
        _write(sys.stderr, err)
        return degraded(
            f"`{desc}` did not identify itself as the okfpro enforcer (exit {proc.returncode}, no "
            f"'{MARKER.decode()}' line) — it may be missing, broken, or a different program named okfpro"
        )
    if proc.returncode not in (0, 2):
        _write(sys.stderr, err)
        return degraded(f"`{what}` exited {proc.returncode}, which the host would read as 'carry on'")
    _write(sys.stdout, proc.stdout)
    _write(sys.stderr, err)
    return proc.returncode if gate else 0


if __name__ == "__main__":  # regenerate the launchers beside this file
    _here = os.path.dirname(os.path.abspath(__file__))
    for _name, (_event, _gate) in LAUNCHERS.items():
        with open(os.path.join(_here, _name), "w", encoding="utf-8", newline="\n") as _out:
            _out.write(stub(_event, _gate))
        os.chmod(os.path.join(_here, _name), 0o755)
