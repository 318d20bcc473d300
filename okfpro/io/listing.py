"""The bundle's file listing as okfpro's caches vouch for it: a digest of every file's relative path
and identity ``(size, mtime_ns, ctime_ns, inode)``.  The persistent indexes (:mod:`okfpro.io.fts`,
the scan store in :mod:`okfpro.io.cache`) record the digest of the reading they were built from; a
later reader compares it with :func:`on_disk` (one ``lstat`` a file) before it lets an index answer
alone.  The walk itself is remembered per directory (:func:`walked`)."""

from __future__ import annotations

import os
from hashlib import blake2b

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from okfpro.core.concept import Bundle


def listing_digest(rels: Sequence[str], times: list[int], inodes: list[int]) -> str | None:
    """The digest of a bundle as the parse cache vouches for it: its files' relative paths, sorted,
    and each one's identity ``(size, mtime_ns, ctime_ns, inode)`` as machine integers (``times``:
    size, mtime, ctime a file; ``inodes``; in the paths' order); None when a number does not fit
    one (never vouched).  Packed with ``struct``, not formatted in decimal: the prompt hook
    computes this for every file of the bundle on each call."""
    import struct

    try:
        packed = struct.pack(f"{len(times)}q{len(inodes)}Q", *times, *inodes)
    except struct.error:
        return None
    h = blake2b(digest_size=16)
    h.update(b"%d\x00" % len(rels))
    h.update("\x00".join(rels).encode("utf-8", "surrogatepass"))
    h.update(packed)
    return h.hexdigest()


def vouched(bundle: Bundle, stamps: dict[str, Any] | None) -> str | None:
    """:func:`listing_digest` of this reading when the parse cache vouched for every file it read (none
    written in the last two seconds, no symlink), else None: the index then never answers alone.
    After it, a space and the number of files the reading could not use (``okfpro search`` says so)."""
    if not stamps or stamps.keys() != bundle.all_paths:
        return None
    rels = sorted(stamps)
    digest = listing_digest(rels, [n for rel in rels for n in stamps[rel][:3]], [stamps[rel][3] for rel in rels])
    return None if digest is None else f"{digest} {len(bundle.unparseable)}"


# The walk remembered (walked): a directory's entries change only with its mtime and ctime, so while
# every directory the walk listed has the identity it had when it was listed, the walk's answer is
# the one it gave.  Only directories older than this when they were listed are remembered: a change
# within the timestamps' granularity of the listing would leave them as they were (the parse cache's rule).
WALK_RACY_NS = 2_000_000_000
_WALK_MAGIC = "okfpro-walk-1"


def walked(root_real: str, memo: str | None) -> list[str]:
    """The reader's walk of ``root_real``, answered from ``memo`` (a file in the cache directory)
    when every directory it lists is the directory the remembered walk listed (one ``lstat`` a
    directory instead of listing it: 42 against 2,051 entries at 2,000 concepts); else walked, and
    remembered when every directory is old enough and was listed (a directory that could not be,
    even for a moment, is never remembered without its files).  A memo that does not read as one
    is walked over."""
    from stat import S_ISDIR

    from okfpro.io.reader import walk

    prefix = root_real.rstrip(os.sep) + os.sep
    if memo is not None:
        try:
            with open(memo, encoding="utf-8", errors="surrogateescape") as fh:
                parts = fh.read().split("\x00")
            if parts[0] == _WALK_MAGIC:
                ndirs, nfiles = int(parts[1]), int(parts[2])
                stamps = parts[3:3 + 5 * ndirs]
                rels = parts[3 + 5 * ndirs:]
                if len(stamps) == 5 * ndirs and len(rels) == nfiles and ndirs:
                    for i in range(0, len(stamps), 5):
                        st = os.lstat(prefix + stamps[i] if stamps[i] else root_real)
                        if not S_ISDIR(st.st_mode) or stamps[i + 1:i + 5] != [
                                str(st.st_dev), str(st.st_ino), str(st.st_mtime_ns), str(st.st_ctime_ns)]:
                            break
                    else:
                        return rels
        except (OSError, ValueError, IndexError):
            pass
    import time

    settled = time.time_ns() - WALK_RACY_NS
    dirs: list[tuple[str, Any]] = []
    rels = walk(root_real, dirs)
    if memo is not None and all(st is not None and S_ISDIR(st.st_mode) and max(st.st_mtime_ns, st.st_ctime_ns) < settled
                                for _rel, st in dirs):
        out = [_WALK_MAGIC, str(len(dirs)), str(len(rels))]
        for rel, st in dirs:
            out += [rel, str(st.st_dev), str(st.st_ino), str(st.st_mtime_ns), str(st.st_ctime_ns)]
        scratch = f"{memo}.{os.getpid()}.tmp"
        try:
            with open(scratch, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write("\x00".join(out + rels))
            os.replace(scratch, memo)
        except OSError:  # an unwritable cache directory: walked every time
            try:
                os.unlink(scratch)
            except OSError:
                pass
    return rels


def on_disk(root_real: str, memo: str | None = None) -> str | None:
    """:func:`listing_digest` of the bundle on disk now (the reader's walk, one ``lstat`` per file), or
    None when a file is not a regular file (a symlink is read afresh every time) or vanished.
    ``memo``: where the walk is remembered (:func:`walked`).  Every per-file step is a ``map`` in C
    (it runs once per file of the bundle)."""
    from itertools import chain
    from operator import attrgetter
    from stat import S_ISREG

    prefix = root_real.rstrip(os.sep) + os.sep
    rels = walked(root_real, memo)
    try:
        stats = list(map(os.lstat, map(prefix.__add__, rels)))
    except OSError:
        return None
    if not all(map(S_ISREG, map(attrgetter("st_mode"), stats))):
        return None
    times = list(chain.from_iterable(map(attrgetter("st_size", "st_mtime_ns", "st_ctime_ns"), stats)))
    return listing_digest(rels, times, list(map(attrgetter("st_ino"), stats)))
