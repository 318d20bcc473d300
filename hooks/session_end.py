#!/bin/sh
''':'
# okfpro hook launcher: session-end (feedback: never blocks, exit 0).
# Called by the agent host (e.g. .claude/settings.json); see _launch.py beside it.
# Generated from _launch.STUB: only the event, its kind and its refusal differ between the launchers.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
unset OKFPRO_LAUNCH_PINNED
py= mode=
{ IFS= read -r py; IFS= read -r mode; } 2>/dev/null < "$here/okfpro-python"
if [ "$mode" = one-process ] && [ "${OKFPRO_LAUNCHER:-}" != two-process ] && [ -f "$py" ] && [ -x "$py" ]; then
  OKFPRO_LAUNCH_PINNED=1 "$py" "$0" "$@"
  rc=$?
  case $rc in 10) exit 0 ;; 12) exit 2 ;; esac
  echo "okfpro: hook session-end could not run — $py (named in $here/okfpro-python) could not run this launcher (exit $rc). Only this advisory hook is affected." >&2
  exit 0
fi
if command -v python3 >/dev/null 2>&1; then exec python3 "$0" "$@"; fi
echo "okfpro: hook session-end could not run — there is no python3 to run this launcher. Only this advisory hook is affected." >&2
exit 0
':'''
import os
import sys

EVENT = "session-end"
GATE = False
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
