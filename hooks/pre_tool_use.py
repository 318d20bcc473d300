#!/usr/bin/env python3
"""okfpro hook launcher: pre-tool-use (a gate: fails closed, exit 2).

Called by the agent host (e.g. .claude/settings.json); see _launch.py beside it.
Generated from _launch.STUB: only EVENT and GATE differ between the launchers.
"""
import os
import sys

EVENT = "pre-tool-use"
GATE = True

sys.dont_write_bytecode = True  # no __pycache__ left in the workspace beside the launchers
try:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _launch import launch
except BaseException as exc:  # noqa: BLE001 - a broken launcher must not read as "carry on"
    sys.stderr.write(
        "ENFORCEMENT DEGRADED — the okfpro launcher (_launch.py) beside %s could not be loaded (%s: %s).\n"
        % (os.path.basename(__file__), type(exc).__name__, exc)
    )
    sys.exit(2 if GATE else 0)

if __name__ == "__main__":
    try:
        code = launch(EVENT, GATE)
    except BaseException as exc:  # noqa: BLE001
        sys.stderr.write("ENFORCEMENT DEGRADED — the okfpro launcher crashed (%s: %s).\n" % (type(exc).__name__, exc))
        code = 2 if GATE else 0
    sys.exit(code)
