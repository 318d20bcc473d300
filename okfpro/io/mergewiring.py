"""The merge driver's wiring: ``.gitattributes`` lines and ``merge.okfpro`` in the repository's config.

Two halves, because Git versions one and not the other:

* ``.gitattributes`` (committed, travels with every clone) routes the writer-owned files of the
  bundle to the driver named ``okfpro``.  ``init`` and ``upgrade`` append the lines that are
  missing and keep every line already there.
* ``merge.okfpro.driver`` / ``.name`` live in ``.git/config`` (never versioned): the command,
  run with the interpreter the hook launchers are pinned to, so it works with no virtualenv
  active.  A fresh clone has the attributes but not the config — Git then merges those files
  with its own text merge, as if nothing were set — until ``okfpro upgrade`` (or ``init``) runs
  there; that same run writes the interpreter pin the hooks need, so it is the one step a clone
  needs anyway.  ``okfpro doctor`` says which half is missing.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

DRIVER = "okfpro"
NAME = "okfpro: writer-owned workspace files (board, log, journal, indexes), every line of both sides kept"
HEADER = "# okfpro: the files okfpro's writers append to merge through `okfpro merge-file` (okfpro upgrade wires it)"
#: The bundle files the writers (and people) append to, as .gitattributes patterns.
PATTERNS = (
    ".okf/board.md",
    ".okf/log.md",
    ".okf/journal/*.md",
    ".okf/learnings/index.md",
    ".okf/glossary/index.md",
    ".okf/projects/index.md",
    ".okf/reference/index.md",
    ".okf/areas/index.md",
)
#: One file per pattern, to ask Git which driver it would use.
PROBES = (".okf/board.md", ".okf/log.md", ".okf/journal/2000-01-01.md", ".okf/learnings/index.md",
          ".okf/glossary/index.md", ".okf/projects/index.md", ".okf/reference/index.md", ".okf/areas/index.md")
PIN_FILE = ".claude/hooks/okfpro-python"


def attribute_lines() -> list[str]:
    return [f"{p} merge={DRIVER}" for p in PATTERNS]


def driver_command(python: str) -> str:
    """What Git runs (through the shell, from the top of the work tree): %O %A %B %P quoted by Git's
    own rules, %L a number, %X %S %Y the branch labels (Git 2.44+; an older Git passes them as
    written, and the driver then says ours/base/theirs).  ``-P``, as the hook launchers: a directory called ``okfpro`` in the
    work tree is never imported instead of the installed okfpro."""
    return f"{shlex.quote(python)} -P -m okfpro merge-file --marker-size %L -L %X -L %S -L %Y %O %A %B %P"


def pinned_python(dest: Path) -> str:
    """The interpreter the hook launchers use (the pin init writes), else this one."""
    try:
        text = (dest / PIN_FILE).read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        text = []
    if text and os.path.isabs(text[0].strip()):
        return text[0].strip()
    return os.path.abspath(sys.executable)


def ensure_attributes(dest: Path) -> list[str]:
    """Append the missing ``merge=okfpro`` lines to DEST/.gitattributes; every existing line kept.
    Returns the lines added."""
    from okfpro.io.atomic import atomic_write

    path = dest / ".gitattributes"
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise OSError(f"{path} is not a regular file; add these lines to your attributes by hand: "
                      + "; ".join(attribute_lines()))
    try:
        existing = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        existing = ""
    have = {line.strip() for line in existing.splitlines()}
    missing = [line for line in attribute_lines() if line not in have]
    if not missing:
        return []
    eol = "\r\n" if "\r\n" in existing else "\n"
    block = ([] if HEADER in have else [HEADER]) + missing
    text = existing
    if text and not text.endswith("\n"):
        text += eol
    if text.strip():
        text += eol
    text += eol.join(block) + eol
    atomic_write(path, text.encode("utf-8"), mode=0o644)
    return missing


def _git(dest: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(dest), *args], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def configured(dest: Path) -> str | None:
    """The ``merge.okfpro.driver`` Git sees in DEST's repository, or None."""
    proc = _git(dest, "config", "--get", f"merge.{DRIVER}.driver")
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None


def ensure_config(dest: Path) -> bool:
    """Set ``merge.okfpro.driver`` and ``.name`` in the repository's own config; True when changed."""
    want = driver_command(pinned_python(dest))
    if configured(dest) == want and _git(dest, "config", "--get", f"merge.{DRIVER}.name").stdout.strip() == NAME:
        return False
    for key, value in ((f"merge.{DRIVER}.name", NAME), (f"merge.{DRIVER}.driver", want)):
        proc = _git(dest, "config", "--local", key, value)
        if proc.returncode != 0:
            raise OSError(f"git config {key} failed: {proc.stderr.strip() or proc.returncode}")
    return True


#: Git hooks that run after a merge (post-merge) and after a rebase, as `git pull --rebase` does
#: (post-rewrite); both run ``merge-file --after-merge`` (okfpro/io/aftermerge.py).
AFTER_HOOKS = ("post-merge", "post-rewrite")
HOOK_MARK = "# okfpro: after a merge, is today's Snapshot line still right? (okfpro upgrade writes this file)"


def after_hook_text(python: str) -> str:
    return f'#!/bin/sh\n{HOOK_MARK}\nexec {shlex.quote(python)} -P -m okfpro merge-file --after-merge "$@"\n'


def ensure_after_hooks(dest: Path) -> list[str]:
    """Write the after-merge hooks into this clone's hooks directory (not versioned, like the
    config).  A hook of the owner's own, or a ``core.hooksPath`` someone else manages, is left
    alone: the problem returned says which line to add there."""
    from okfpro.io.atomic import atomic_write

    want = after_hook_text(pinned_python(dest))
    call = f"{shlex.quote(pinned_python(dest))} -P -m okfpro merge-file --after-merge \"$@\""
    if _git(dest, "config", "--get", "core.hooksPath").stdout.strip():
        return [f"core.hooksPath is set, so okfpro leaves that hooks directory alone; add `{call}` to its "
                f"{' and '.join(AFTER_HOOKS)} hooks to hear when a merge leaves today's Snapshot line stale"]
    problems = []
    for name in AFTER_HOOKS:
        proc = _git(dest, "rev-parse", "--git-path", f"hooks/{name}")
        if proc.returncode != 0:
            problems.append(f"no hooks directory for {name}: {proc.stderr.strip()[:200]}")
            continue
        path = Path(proc.stdout.strip())
        path = path if path.is_absolute() else dest / path
        try:
            current = path.read_text(encoding="utf-8", errors="replace") if path.exists() or path.is_symlink() else None
        except OSError:
            current = ""
        if current is not None and HOOK_MARK not in current:
            problems.append(f"{path} is your own hook; add `{call}` to it to hear when a merge leaves today's "
                            "Snapshot line stale")
            continue
        if current != want or not os.access(path, os.X_OK):
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, want.encode("utf-8"), mode=0o755)
    return problems


def register(dest: Path) -> tuple[list[str], bool, str | None, list[str]]:
    """Both halves and the after-merge hooks, idempotent: (attribute lines added, config changed,
    the driver's problem or None, what kept the after-merge hooks out)."""
    try:
        added = ensure_attributes(dest)
    except (OSError, UnicodeDecodeError) as exc:
        return [], False, f".gitattributes: {exc}", []
    if _git(dest, "rev-parse", "--git-dir").returncode != 0:
        return added, False, "not inside a Git repository, so the merge driver cannot be configured", []
    try:
        changed = ensure_config(dest)
    except OSError as exc:
        return added, False, str(exc), []
    try:
        problems = ensure_after_hooks(dest)
    except OSError as exc:
        problems = [f"the after-merge hooks could not be written ({exc})"]
    return added, changed, None, problems


def check(dest: Path) -> dict:
    """Doctor's row: are the writer files routed to the driver, and does the driver run okfpro?"""
    row = {"check": "merge driver", "host": None, "ok": False}
    proc = _git(dest, "check-attr", "merge", "--", *PROBES)
    if proc.returncode != 0:
        return {**row, "detail": f"git check-attr failed here: {proc.stderr.strip()[:200]}"}
    unrouted = [line.split(":", 1)[0] for line in proc.stdout.splitlines() if not line.endswith(f": merge: {DRIVER}")]
    if unrouted:
        return {**row, "detail": f"{', '.join(unrouted)} not routed to merge={DRIVER} by .gitattributes (run `okfpro upgrade`)"}
    command = configured(dest)
    if command is None:
        return {**row, "detail": f"merge.{DRIVER}.driver is not set in this clone's Git config (not versioned): "
                                 "Git would merge the board and log as plain text; run `okfpro upgrade` here"}
    want = driver_command(pinned_python(dest))
    if command != want:
        return {**row, "detail": f"merge.{DRIVER}.driver is {command!r}, not the pinned interpreter's {want!r} "
                                 "(run `okfpro upgrade`)"}
    python = shlex.split(command)[0]
    try:
        probe = subprocess.run([python, "-P", "-m", "okfpro", "merge-file", "--help"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {**row, "detail": f"the driver's interpreter {python} does not run ({exc})"}
    if probe.returncode != 0 or b"merge-file" not in probe.stdout:
        return {**row, "detail": f"{python} -P -m okfpro merge-file does not answer: {probe.stderr.decode(errors='replace')[-200:]}"}
    return {**row, "ok": True, "detail": f"{len(PATTERNS)} attribute lines route the writer files; {python} runs the driver"}
