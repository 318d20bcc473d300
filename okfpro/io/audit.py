"""The doors' disk half: what ``okfpro audit`` and ``okfpro records`` read, read once.

``audit`` reads the start directory, the bundle, its state files, the wiring and Git into
:class:`okfpro.core.audit.Facts` and runs the table of checks there (:data:`okfpro.core.audit.CHECKS`);
``records`` reads the staged commit with the git CLI and asks :func:`okfpro.core.audit.records_findings`.
A state file that resolves outside the bundle is named, never read through.
"""

from __future__ import annotations

import datetime as _dt
import subprocess
from pathlib import Path

from okfpro.core import audit as _audit


def _read_text(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def stop_promise(root: Path, today: _dt.date) -> list[str]:
    """What the Stop gate asks of uncommitted bundle changes, held at this door too.

    The gate yields when the host says ``stop_hook_active`` (the host's own advice), so at the agent
    door it is one reminder; audit — run by the pre-commit door and by hand — refuses the same thing:
    Markdown in the bundle changed since the last commit, and log.md has no correct Snapshot line for
    today.  A repository with no commit yet (the scaffold's first commit) and a clean tree (CI's
    checkout) have nothing to answer for.
    """
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
        if head.returncode != 0:
            return []
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "*.md"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    if status.returncode != 0 or not status.stdout.strip():
        return []
    from okfpro.hooks.context import Ctx
    from okfpro.hooks.event import Event
    from okfpro.hooks.stop import snapshot_messages

    return [f"{m.lstrip('— ')} (the bundle has uncommitted changes: the Stop gate asks for this line)"
            for m in snapshot_messages(Ctx(Event(), today), str(root))]


def facts(start: Path, today: _dt.date) -> _audit.Facts:
    """Everything the audit checks read, for the directory ``start``."""
    from okfpro.io.roots import resolve, root_kind

    wiring: list[str] = []
    if (start / "okfpro.toml").is_file():  # an okfpro workspace: the doors it promises must be wired
        from okfpro.io.scaffold import template_root
        from okfpro.io.wiring import findings as wiring_findings

        wiring = wiring_findings(start, template_root())
    out = _audit.Facts(start=str(start), start_kind=root_kind(start), has_nested=(start / ".okf" / "index.md").is_file(),
                       wiring=wiring, today=today)
    found = resolve(start)
    if found is None:
        return out
    root = Path(found)
    from okfpro.io.bundle import load
    from okfpro.io.workstate import core_present, escaping_state_files, pairing_facts

    out.present = core_present(root)
    out.escaped = escaping_state_files(root)
    readable = dict(out.present)
    for message in out.escaped:  # named by the structure check; never read through
        readable[message.split(" ", 1)[0]] = False
    out.bundle = load(root, cache=False)  # a gate: parsed from the files, never a cache the agent can write
    if readable["log.md"]:
        out.log_text = _read_text(root / "log.md")
        out.promise = stop_promise(root, today)
    if readable["board.md"]:
        out.board_text = _read_text(root / "board.md")
        out.pairing = pairing_facts(root, out.bundle.concepts)
    return out


def findings(start: Path, today: _dt.date) -> list[tuple[str, str]]:
    """Every finding of ``okfpro audit`` for the directory ``start``, as (category, message)."""
    return _audit.run(facts(start, today))


def staged_changes(root: Path) -> list[tuple[str, str]]:
    """(status letter, path) for every staged modify / delete / rename / typechange; raises on git failure.

    A rename reports its old path: that is the record that would disappear.
    """
    inside = subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"], capture_output=True)
    if inside.returncode != 0:  # else git diff falls back to --no-index and says "unknown option `cached'"
        raise RuntimeError(f"{root} is not inside a Git repository, so there is no staged commit to read")
    proc = subprocess.run(
        ["git", "-C", str(root), "diff", "--cached", "--name-status", "-z", "--diff-filter=MDRT"],
        capture_output=True,
    )
    if proc.returncode != 0:
        reason = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(reason[0] if reason else f"git exited {proc.returncode}")
    fields = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        if status[:1] in ("R", "C"):
            out.append((status[:1], fields[i + 1]))
            i += 3
        else:
            out.append((status[:1], fields[i + 1]))
            i += 2
    return out


def records(root: Path, today: _dt.date) -> list[str]:
    """The records door's findings for the staged commit in ``root``: past journal days it touches,
    or — when git cannot answer — one finding saying so (nobody can tell, so it is refused)."""
    try:
        return _audit.records_findings(staged_changes(root), today)
    except (OSError, RuntimeError) as exc:
        return [
            f"could not read the staged change with git ({exc}); nobody can tell whether a past journal "
            "day is touched, so this is refused."
        ]
