"""Read a bundle from disk: walk, contain, parse — one bad file never breaks the read.

The walk lists every non-hidden ``*.md`` file below the root (dot-prefixed files
and anything under a dot-directory are outside the bundle), sorted by relative
path.  Every read is contained by realpath: a symlink whose target leaves the
root is reported as unparseable, never followed.
"""

from __future__ import annotations

import errno
import os
import stat

from okfpro.io.roots import within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.concept import Bundle, Concept, Entry
# the parsing code is imported where a file is parsed: the walk alone (a freshness check) needs none of it

ESCAPES = "symlink target escapes bundle root"


def listing(where: str | int) -> tuple[list[str], list[str]]:
    """One directory's share of the bundle: (its ``.md`` files and symlinks, its subdirectories),
    hidden names left out.  ``where``: a path, or an open directory descriptor."""
    files: list[str] = []
    subs: list[str] = []
    with os.scandir(where) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    subs.append(name)
                    continue
            except OSError:
                continue
            if name.endswith(".md"):
                if entry.is_symlink():
                    files.append(name)
                else:
                    try:
                        if entry.is_file(follow_symlinks=False):
                            files.append(name)
                    except OSError:
                        continue
    return files, subs


def walk(root: str | os.PathLike, dirs: list[tuple[str, os.stat_result | None]] | None = None) -> list[str]:
    """Relative paths of the bundle's ``.md`` files (non-hidden, files or symlinks), sorted.

    ``dirs``: receives each directory the walk lists, ``(relative path, its lstat taken before it
    was listed)`` (None: it could not be stat'ed or listed): what the answer depends on."""
    base = os.fspath(root)
    out: list[str] = []
    stack = [("", base)]
    while stack:
        rel_dir, abs_dir = stack.pop()
        if dirs is not None:
            try:
                dirs.append((rel_dir, os.lstat(abs_dir)))
            except OSError:
                dirs.append((rel_dir, None))
        try:
            files, subs = listing(abs_dir)
        except OSError:
            if dirs is not None:
                dirs[-1] = (rel_dir, None)
            continue
        prefix = f"{rel_dir}/" if rel_dir else ""
        out.extend(prefix + name for name in files)
        stack.extend((prefix + name, os.path.join(abs_dir, name)) for name in subs)
    out.sort()
    return out


def read_bytes(root_real: str, rel: str) -> bytes:
    """Read ``rel`` under ``root_real``, refusing a realpath outside the root.

    The walk never descends into symlinked directories, so a plain file is
    opened with ``O_NOFOLLOW`` directly; only a symlink pays for realpath.
    """
    full = os.path.join(root_real, rel)
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        real = os.path.realpath(full)
        if not within(real, root_real):
            raise PermissionError(ESCAPES) from None
        fd = os.open(real, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        if stat.S_ISDIR(os.fstat(handle.fileno()).st_mode):
            raise IsADirectoryError("is a directory, not a file")
        return handle.read()


def load_entry(root_real: str, rel: str) -> Concept | Entry:
    from okfpro.core.concept import Entry, parse_entry

    try:
        raw = read_bytes(root_real, rel)
    except PermissionError as exc:
        return Entry(rel, "", error=str(exc) if str(exc) == ESCAPES else f"cannot read: {exc.strerror or exc}")
    except FileNotFoundError:
        return Entry(rel, "", error="cannot read: dangling symlink or file vanished during the read")
    except OSError as exc:
        return Entry(rel, "", error=f"cannot read: {exc.strerror or exc}")
    return parse_entry(rel, raw)


def read_bundle(root: str | os.PathLike) -> Bundle:
    """Parse every file of the bundle at ``root`` (no cache)."""
    from okfpro.core.concept import Bundle

    root_real = os.path.realpath(os.fspath(root))
    bundle = Bundle(root=os.fspath(root))
    for rel in walk(root_real):
        add(bundle, load_entry(root_real, rel))
    return bundle


def add(bundle: Bundle, item: Concept | Entry) -> None:
    bundle.add(item)


# --------------------------------------------------------------------------- one concept by id


def unsafe_id(ident: str) -> str | None:
    """Why an id a caller gave may not be looked up (a path trick), or None."""
    if not ident.strip():
        return "an empty id"
    if "\x00" in ident or "\\" in ident:
        return "a NUL byte or a backslash"
    if ident.startswith("/") or (len(ident) > 1 and ident[1] == ":"):
        return "an absolute path"
    if any(seg == ".." for seg in ident.split("/")):
        return "a '..' segment"
    return None


def locate(bundle: Bundle, ident: str) -> str | None:
    """The bundle-relative path of a concept id (or a file path, or an id without ``.md``)."""
    c = bundle.by_id.get(ident)
    if c is not None:
        return c.path
    for candidate in (ident, f"{ident}.md"):
        if candidate in bundle.all_paths:
            return candidate
    return None


def read_concept(root: str | os.PathLike, bundle: Bundle, ident: str) -> tuple[str, str, str] | None:
    """``(id, bundle-relative path, text)`` of what ``ident`` names in the bundle at ``root`` (a
    concept id, a file path, or an id without ``.md``), read contained to the root (bytes that are
    not UTF-8 replaced); None when it names nothing.  Call :func:`unsafe_id` first.  Raises
    OSError whose ``filename`` is the bundle-relative path when the file cannot be read."""
    rel = locate(bundle, ident)
    if rel is None:
        return None
    try:
        raw = read_bytes(os.path.realpath(root), rel)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), rel) from None
    c = bundle.by_path.get(rel)
    return (c.id if c else ident), rel, raw.decode("utf-8", errors="replace")


def reference_files(root: str | os.PathLike) -> list[str]:
    """Bundle-relative paths of the non-hidden files under ``references/`` (the disk half of the
    references view, for the CLI and the MCP server)."""
    from okfpro.core.views import REFERENCES_DIR

    root = os.fspath(root)
    base = os.path.join(root, REFERENCES_DIR)
    out: list[str] = []
    if not os.path.isdir(base):
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for fname in filenames:
            if fname.startswith(".") or not os.path.isfile(os.path.join(dirpath, fname)):
                continue
            out.append(os.path.relpath(os.path.join(dirpath, fname), root).replace(os.sep, "/"))
    return sorted(out)
