"""After a merge: does today's Snapshot line still agree with the bundle the merge made?

The merge driver keeps both sides' Snapshot lines for a day (every line kept) and computes none
(a checker that writes its own answer proves nothing, and the counters need the whole bundle, not
one file).  So after two people's day is merged, the day's last Snapshot line is one side's: it
counts that side's board, not the merged one.  The Stop gate only looks when a session changed
something (a clean tree closes in silence), so nobody would be told.

Git runs this once after a merge or a rebase (``post-merge`` / ``post-rewrite``, written by
``okfpro init`` / ``upgrade``, see :mod:`okfpro.io.mergewiring`) as ``okfpro merge-file
--after-merge``.  When the merge changed the bundle and today's Snapshot line no longer agrees
with it, it says so on stderr with the line to append, and changes nothing.  Always exit 0: a
hook after the fact cannot undo the merge, and a check that could not run says so in one line.
"""

from __future__ import annotations

import os
import subprocess
import sys


def _changed(top: str, rel: str) -> bool:
    """Did the merge (ORIG_HEAD..HEAD) change anything under the bundle?  Unknown counts as yes."""
    try:
        proc = subprocess.run(["git", "diff", "--quiet", "ORIG_HEAD", "HEAD", "--", rel], cwd=top,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return True
    return proc.returncode != 0


def message(cwd: str) -> str | None:
    """The stderr text for this work tree, or None when there is nothing to say."""
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot
    from okfpro.io import roots, workstate
    from okfpro.io.clock import today

    root = roots.enclosing(cwd)
    if root is None:
        return None
    rel = os.path.relpath(root, cwd)
    if rel.startswith(".."):
        rel = str(root)
    if not _changed(cwd, rel):
        return None
    day = today()
    line = _log.parse(workstate.read_optional(os.path.join(root, "log.md")) or "").snapshot_line(day.isoformat())
    if line is None:
        return None  # nothing claims to be today's state; the Stop gate asks when a session writes
    counters = workstate.snapshot_counters(root, day)
    diffs = _snapshot.disagreements(counters, line)
    if not diffs:
        return None
    said = "; ".join(f"{k} is {w}, the line says {'nothing' if g is None else g}" for k, w, g in diffs)
    return (
        f"okfpro: this merge changed {rel}/, and log.md's Snapshot line for {day.isoformat()} no longer agrees "
        f"with it ({said}). Append the day's line under '## {day.isoformat()}' in {rel}/log.md "
        "(`okfpro snapshot` prints it again):\n"
        f"  {_snapshot.render(counters)}\n"
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["amend"]:  # post-rewrite after `commit --amend`: not a merge
        return 0
    try:
        text = message(os.getcwd())
    except Exception as exc:  # noqa: BLE001 - after the fact: say it, never fail the user's merge
        sys.stderr.write(f"okfpro: could not check the Snapshot line after this merge ({type(exc).__name__}: {exc})\n")
        return 0
    if text:
        sys.stderr.write(text)
    return 0
