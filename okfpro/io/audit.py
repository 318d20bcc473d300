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


def _git_lines(root: Path, *args: str) -> list[str] | None:
    """``git -C root ARGS`` split on NUL, or None when git cannot answer."""
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _unborn_changes(root: Path) -> bool:
    """Before the first commit: does the bundle hold Markdown that is not the scaffold's seed?

    Everything is uncommitted then, so "changed since the last commit" cannot be asked; what the
    scaffold wrote (``template/seed/.okf``, byte for byte) is not a change, anything else is — so
    ``okfpro init`` then a commit passes, and a capture before the first commit is held to the rule
    the next commit would be."""
    from okfpro.io.scaffold import ScaffoldError, template_root

    try:
        seed = template_root() / "seed" / ".okf"
    except ScaffoldError:
        return True
    files = _git_lines(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md")
    if files is None:
        return False
    for rel in files:
        mine, theirs = root / rel, seed / rel
        try:
            if not theirs.is_file() or mine.read_bytes() != theirs.read_bytes():
                return True
        except OSError:
            return True
    return False


def stop_promise(root: Path, today: _dt.date) -> list[str]:
    """What the Stop gate asks of uncommitted bundle changes, held at this door too — in a committer's words.

    The gate yields when the host says ``stop_hook_active`` (the host's own advice), so at the agent
    door it is one reminder; audit — run by the pre-commit door and by hand — refuses the same thing:
    Markdown in the bundle changed since the last commit (before the first commit of an okfpro
    workspace: anything but the scaffold's seed), and log.md has no correct Snapshot line for today.  A clean tree (CI's checkout)
    has nothing to answer for.  Every message names the command that fixes it.
    """
    head = _git_lines(root, "rev-parse", "--verify", "-q", "HEAD")
    if head is None:
        scaffolded = any((d / "okfpro.toml").is_file() for d in (root, root.parent))  # else no seed to compare with
        if not scaffolded or _git_lines(root, "rev-parse", "--git-dir") is None or not _unborn_changes(root):
            return []
    else:
        status = _git_lines(root, "status", "--porcelain", "-z", "--", "*.md")
        if not status:
            return []
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot
    from okfpro.io import workstate

    counters = workstate.snapshot_counters(root, today)
    line = _log.parse(workstate.read_optional(root / "log.md") or "").snapshot_line(today.isoformat())
    log_rel = _log_path(root)
    then = f"then `git add {log_rel}` and commit again"
    if line is None:
        return [f"the bundle has changes that are not committed yet, and log.md has no Snapshot line for {today}. "
                f"Run `{_snapshot.WRITER}` (it appends the line, computed from the bundle as it stands), {then}."]
    diffs = _snapshot.disagreements(counters, line)
    if not diffs:
        return []
    said = "; ".join(f"{k} is {w}, the line says {'nothing' if g is None else g}" for k, w, g in diffs)
    return [f"the bundle has changes that are not committed yet, and today's Snapshot line in log.md no longer "
            f"matches it ({said}). Run `{_snapshot.WRITER}` (it appends the recomputed line), {then}."]


def _log_path(root: Path) -> str:
    """log.md as a committer names it from the repository's top."""
    import os

    from okfpro.io.roots import git_fence

    top = git_fence(root.resolve())
    return os.path.relpath(root.resolve() / "log.md", top) if top else str(root / "log.md")


def facts(start: Path, today: _dt.date) -> _audit.Facts:
    """Everything the audit checks read, for the directory ``start``."""
    from okfpro.io.roots import resolve, root_kind

    wiring: list[str] = []
    if (start / "okfpro.toml").is_file():  # an okfpro workspace: the doors it promises must be wired
        from okfpro.io.scaffold import template_root
        from okfpro.io.wiring import findings as wiring_findings

        wiring = wiring_findings(start, template_root())
        tracked = _git_lines(start, "ls-files", "-z", "--cached")  # the index: what the next commit holds
        wiring += _audit.machine_local_findings(tracked or [])
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
