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
TIMEOUT = float(os.environ.get("OKFPRO_HOOK_TIMEOUT", "45") or 45)  # below every gate's host timeout (60 s in the Codex and Gemini wiring)


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
    pin = os.path.join(here, PIN_FILE)
    if os.path.exists(pin):
        try:
            with open(pin, "r", encoding="utf-8", errors="replace") as handle:
                python = handle.read().strip().splitlines()[0].strip()
        except (OSError, IndexError):
            return None, f"{pin} exists but names no interpreter"
        if not (os.path.isfile(python) and os.access(python, os.X_OK)):
            return None, f"{pin} names {python!r}, which is not an executable file (was the environment removed?)"
        return [python, "-P", "-m", "okfpro", "hook", event] + extra, f"{python} -m okfpro"
    found = _which("okfpro")
    if found is None:
        return None, f"no {PIN_FILE} beside this script and no `okfpro` on PATH"
    return [found, "hook", event] + extra, found


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
    try:
        proc = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return degraded(f"`{what}` ({desc}) did not answer within {TIMEOUT:g} s")
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
