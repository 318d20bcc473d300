"""Run the okfpro this workspace pins, for the pre-commit hooks (stdlib only; copied beside the launchers).

``python3 .claude/hooks/_cli.py VERB ARGS...`` runs ``<pinned python> -P -m okfpro VERB ARGS...`` — the
interpreter named in ``okfpro-python`` beside this file, the one the hook launchers use (see
_launch.py) — else the ``okfpro`` on PATH.  A commit in a shell whose virtual environment is not
activated still reaches the okfpro that ``okfpro init`` pinned.  When none can run, the refusal names
the real cause (no pin, a pin naming a removed interpreter, an interpreter without okfpro) instead of
a bare "command not found".

``--identify`` proves the okfpro found is the enforcer: it must print ``okfpro-enforcer v1``.
Exit: okfpro's own; 1 (the commit is refused) when okfpro cannot run.
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _launch import MARKER, PIN_FILE, find_okfpro  # noqa: E402


def refuse(reason):
    sys.stderr.write(f"COMMIT REFUSED — okfpro cannot run here: {reason}.\n"
                     "Run `okfpro init .` again from the Python environment that has okfpro installed (it re-pins "
                     f"{PIN_FILE}), or install okfpro into the interpreter it names.\n")
    return 1


def main(args):
    base, desc = find_okfpro(HERE)
    if base is None:
        return refuse(desc)
    if args[:1] == ["--identify"]:
        cmd, data = base + ["hook", "check", "guard-verified"], b"{}"
    else:
        cmd, data = base + args, None
    try:
        proc = subprocess.run(cmd, input=data, stdout=None if data is None else subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        return refuse(f"`{desc}` could not be started ({exc})")
    err = proc.stderr or b""
    if proc.returncode == 1 and (b"ModuleNotFoundError" in err or b"No module named" in err) and MARKER not in err:
        missing = err.decode("utf-8", "replace").strip().splitlines()[-1]
        return refuse(f"the interpreter {base[0]} (named in {os.path.join(HERE, PIN_FILE)}) has no working okfpro "
                      f"installed ({missing})")
    if data is not None:
        if MARKER not in err.splitlines() and MARKER.decode() not in err.decode("utf-8", "replace").splitlines():
            return refuse(f"`{desc}` did not identify itself as the okfpro enforcer (exit {proc.returncode}), so the "
                          "checks would prove nothing")
        return 0
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
