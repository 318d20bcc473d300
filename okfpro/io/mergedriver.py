"""``okfpro merge-file``: Git's merge driver for the files okfpro's writers append to.

Git runs it once per file both sides changed (``merge.okfpro.driver``, see
:mod:`okfpro.io.mergewiring`) as ``okfpro merge-file --marker-size %L %O %A %B %P``: it reads
the three versions, merges them by the file's grammar (:mod:`okfpro.core.filemerge`), writes
the result over ``%A`` (atomically: a reader never sees half a file) and exits 0 when clean,
1 when conflict markers were left for a person.  A file outside the grammar (or not UTF-8)
goes to Git's own text merge (``git merge-file``) with one stderr line saying why.  A path it
cannot read or write: exit 2 and ``%A`` untouched (Git then records the file as conflicted).

Dispatched before click is imported (okfpro/__main__.py): one process per conflicting file.
"""

from __future__ import annotations

import os
import sys

USAGE = "usage: okfpro merge-file [--marker-size N] [-L OURS -L BASE -L THEIRS] BASE OURS THEIRS [PATH]"
HELP = f"""{USAGE}

Git's merge driver for okfpro's writer-owned files (board.md, log.md, journal days, indexes):
every line of both sides kept, sections in their grammar's order, a line edited two ways left
as a conflict with standard markers. Writes the result into OURS; exit 0 clean, 1 conflicts,
2 could not run (OURS untouched). `okfpro init` registers it:
  git config merge.okfpro.driver "<python> -P -m okfpro merge-file --marker-size %L -L %X -L %S -L %Y %O %A %B %P"
The labels are Git's branch names where Git passes them (2.44+), else ours/base/theirs;
merge.conflictStyle=diff3 (or zdiff3) adds the base's lines to each conflict.

okfpro merge-file --after-merge: what Git's post-merge/post-rewrite hook runs (init writes it):
says on stderr when the merge left today's Snapshot line disagreeing with the bundle.
"""


class Usage(Exception):
    pass


DEFAULT_LABELS = ("ours", "base", "theirs")  # -L order, as git merge-file's: ours, base, theirs
PLACEHOLDERS = ("%X", "%S", "%Y")  # what a Git without branch labels (before 2.44) passes as it is


def labels_of(given: list[str]) -> tuple[str, str, str]:
    """The conflict labels: Git's own where it gave them (%X %S %Y, Git 2.44+), else ours/base/theirs."""
    out = list(DEFAULT_LABELS)
    for i, label in enumerate(given[:3]):
        label = " ".join(label.split())  # one marker line, whatever the label holds
        if label and label != PLACEHOLDERS[i]:
            out[i] = label
    return out[0], out[1], out[2]


def parse(argv: list[str]) -> tuple[int, list[str], list[str]]:
    size = 7
    rest: list[str] = []
    labels: list[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            rest.extend(args)
            break
        if arg == "-L":
            if not args or len(labels) == 3:
                raise Usage("-L takes a label, at most three times (ours, base, theirs)")
            labels.append(args.pop(0))
        elif arg == "--marker-size" or arg.startswith("--marker-size="):
            value = arg.split("=", 1)[1] if "=" in arg else (args.pop(0) if args else "")
            if not value.isdigit() or not 1 <= int(value) <= 100:
                raise Usage(f"--marker-size takes a number from 1 to 100, got {value!r}")
            size = int(value)
        elif arg.startswith("-") and arg != "-":
            raise Usage(f"unknown option {arg!r}")
        else:
            rest.append(arg)
    if len(rest) not in (3, 4):
        raise Usage(f"takes BASE OURS THEIRS [PATH], got {len(rest)} argument(s)")
    return size, rest, labels


def _say(message: str) -> None:
    sys.stderr.write(f"okfpro merge-file: {message}\n")


def _read(path: str, label: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise OSError(f"cannot read {label} {path!r} ({exc.strerror or exc})") from None


def _write_over(path: str, data: bytes) -> None:
    """Replace ``path`` whole (a temp file beside it, then rename), keeping its mode."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.okfpro-{os.getpid()}.tmp")
    try:
        mode = os.stat(path).st_mode & 0o7777
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OSError(f"cannot write the result over {path!r} ({exc.strerror or exc})") from None


def conflict_style() -> str:
    """``merge.conflictStyle`` as Git reads it here (the driver runs at the top of the work tree)."""
    import subprocess

    try:
        proc = subprocess.run(["git", "config", "--get", "merge.conflictStyle"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "merge"
    return proc.stdout.strip().lower() or "merge"


def _git_text_merge(base: str, ours: str, theirs: str, size: int, labels: tuple[str, str, str]) -> int:
    import subprocess

    style = conflict_style()
    extra = [f"--{style}"] if style in ("diff3", "zdiff3") else []
    try:
        proc = subprocess.run(
            ["git", "merge-file", "-L", labels[0], "-L", labels[1], "-L", labels[2], *extra,
             f"--marker-size={size}", ours, base, theirs],
            stdin=subprocess.DEVNULL,
        )
    except OSError as exc:
        _say(f"could not run git merge-file ({exc.strerror or exc}); {ours} left as it was")
        return 2
    if proc.returncode < 0 or proc.returncode > 127:
        return 2
    return 0 if proc.returncode == 0 else 1


def main(argv: list[str]) -> int:
    if argv[:1] == ["--after-merge"]:  # Git's post-merge / post-rewrite hook (okfpro/io/aftermerge.py)
        from okfpro.io.aftermerge import main as after_main

        return after_main(argv[1:])
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(HELP)
        return 0
    try:
        size, paths, given = parse(argv)
    except Usage as exc:
        _say(f"{exc}\n{USAGE}")
        return 2
    base_path, ours_path, theirs_path = paths[:3]
    labels = labels_of(given)
    name = paths[3] if len(paths) == 4 else ours_path
    try:
        raw = [_read(base_path, "BASE"), _read(ours_path, "OURS"), _read(theirs_path, "THEIRS")]
    except OSError as exc:
        _say(f"{exc}; {ours_path} left as it was")
        return 2
    try:
        texts = [r.decode("utf-8") for r in raw]
    except UnicodeDecodeError:
        _say(f"{name}: not UTF-8 text on one side; Git's text merge decides instead")
        return _git_text_merge(base_path, ours_path, theirs_path, size, labels)
    from okfpro.core import filemerge

    result = filemerge.merge(texts[0], texts[1], texts[2], name, marker_size=size, labels=(labels[0], labels[2]))
    if isinstance(result, filemerge.Result) and result.conflicts and conflict_style() in ("diff3", "zdiff3"):
        result = filemerge.merge(texts[0], texts[1], texts[2], name, marker_size=size, labels=(labels[0], labels[2], labels[1]))
    if isinstance(result, filemerge.Fallback):
        _say(f"{name}: {result.reason}; Git's text merge decides instead (no line is dropped by okfpro)")
        return _git_text_merge(base_path, ours_path, theirs_path, size, labels)
    try:
        _write_over(ours_path, result.text.encode("utf-8"))
    except OSError as exc:
        _say(f"{exc}; {ours_path} left as it was")
        return 2
    if result.conflicts:
        _say(f"{name}: {result.conflicts} conflict(s) — the same lines changed two ways; resolve the marked lines")
        return 1
    return 0
