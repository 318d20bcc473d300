"""The few files changed in a tree git said clean, compared with HEAD without reading git's index.

The Stop gate keeps ``git status``'s answer against a resident watch view
(:mod:`okfpro.io.watched`).  When git said the tree clean at the kept token and since then only a
few Markdown files changed — nothing in the git directory, so HEAD and the index are as they were,
the index holding HEAD's blob for every Markdown file — each of those files is dirty now exactly
when the blob ``git add`` would make of it differs from HEAD's, or it is gone while HEAD has it.
Two small git processes answer that, started together: ``git ls-tree`` (HEAD's mode and blob of
each, read along the trees on their way) and ``git hash-object`` (each file's blob through the
same attributes, filters and line-ending rules ``git status`` compares with).  ``git status`` itself
reads the whole index first: 5.7 MB and ~30 ms of a Stop at 50,000 files, against ~5 ms here.

What needs the index, the ignore rules or the attributes is left to ``git status`` (None):

* a file HEAD does not hold that exists now (untracked, or ignored);
* a file that is not regular now, or whose type or executable bit is not HEAD's
  (``core.fileMode`` decides those);
* a file whose blob attributes or line-ending settings may shape (:func:`_as_added`);
* an index with an entry marked assume-unchanged or skip-worktree (``git status`` does not look
  at such a file's content); whether it has one is asked of ``git ls-files -v`` once per index
  (its identity: device, inode, size, times) and kept in the bundle's cache directory;
* more than :data:`MOST` files, a git that fails or says what is not understood.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MOST = 64  # changed files compared here; more, and git status looks
TIMEOUT = 20.0  # seconds, as the gate's git status
_PLAIN = "okfpro-index-plain-1"


def dirty_now(root: str, gitdirs: Sequence[str], names: list[str]) -> list[str] | None:
    """Which of ``names`` (root-relative Markdown files, the only paths changed since git said
    the tree under ``root`` clean, with the git directories ``gitdirs`` unchanged: the
    repository's, then a linked worktree's common one) are dirty now, in ``git status``'s sense;
    None when this cannot say (ask git)."""
    if not names or len(names) > MOST or any(not n.endswith(".md") or n.startswith("/") for n in names):
        return None
    present: dict[str, bool] = {}  # name -> executable, for the regular files that exist now
    for name in names:
        try:
            st = os.lstat(os.path.join(root, name))
        except FileNotFoundError:
            continue
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        present[name] = bool(st.st_mode & 0o100)
    from okfpro.io.spawn import Child, TimedOut
    from okfpro.io.watched import LITERAL, repo_prefix

    prefix = repo_prefix(root)
    if prefix is None or not _as_added(root, gitdirs, names) or not _plain_index(root, gitdirs[0]):
        return None

    try:
        tree = Child(["git", "-C", root, "ls-tree", "-z", "--full-name", "HEAD", "--",
                      *(LITERAL + n for n in names)])
        hashed = Child(["git", "-C", root, "hash-object", "--", *present]) if present else None
        head_code, head_out, _ = tree.communicate(TIMEOUT)
        hash_code, hash_out, _ = hashed.communicate(TIMEOUT) if hashed is not None else (0, b"", b"")
    except (OSError, TimedOut):
        return None
    if head_code != 0 or hash_code != 0:
        return None
    head = _tree_entries(head_out)
    blobs = os.fsdecode(hash_out).split()
    if head is None or len(blobs) != len(present):
        return None
    now = dict(zip(present, blobs))
    dirty = []
    for name in names:
        held = head.get(prefix + name)
        if name not in present:
            if held is not None:
                dirty.append(name)  # gone from the tree, held by HEAD: deleted
            continue
        if held is None:
            return None  # untracked or ignored: the ignore rules decide
        mode, blob = held
        if mode not in ("100644", "100755") or (mode == "100755") != present[name]:
            return None
        if blob != now[name]:
            dirty.append(name)
    return sorted(set(dirty))


def _as_added(root: str, gitdirs: Sequence[str], names: list[str]) -> bool:
    """Does no attribute and no line-ending setting bear on how git turns these files into blobs?
    ``git hash-object`` reads no index, where ``git status`` keeps a file's CRLF when its indexed
    blob has one (``core.autocrlf``, ``text=auto``), and filters come from attributes: any
    ``.gitattributes`` on a file's way from the top of the repository, any attributes file of the
    repository, the user or the system, or a configuration naming ``autocrlf``, an attributes file
    or an include (read conservatively: a mention is enough) — and this says no (ask git)."""
    from okfpro.io.roots import git_fence
    from okfpro.io.watched import git_configs, user_git_dirs

    top = git_fence(os.path.realpath(root))
    if top is None:
        return False
    _home, xdg = user_git_dirs()
    spots = {os.path.join(xdg, "git", "attributes"), "/etc/gitattributes",
             *(os.path.join(d, "info", "attributes") for d in gitdirs)}
    real = os.path.realpath(root)
    for name in names:
        level = os.path.dirname(os.path.join(real, name))
        while True:
            spots.add(os.path.join(level, ".gitattributes"))
            if level == top or len(level) <= len(top):
                break
            level = os.path.dirname(level)
    for spot in spots:
        if os.path.lexists(spot):
            return False
    for config in git_configs(gitdirs):
        try:
            with open(config, encoding="utf-8", errors="replace") as fh:
                text = fh.read().lower()
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if "autocrlf" in text or "attributesfile" in text or "[include" in text:
            return False
    return True


def _tree_entries(out: bytes) -> dict[str, tuple[str, str]] | None:
    """``git ls-tree -z``'s lines as {path: (mode, object)}; None when one is not understood."""
    got: dict[str, tuple[str, str]] = {}
    for line in os.fsdecode(out).split("\x00"):
        if not line:
            continue
        meta, tab, path = line.partition("\t")
        parts = meta.split(" ")
        if not tab or len(parts) != 3:
            return None
        got[path] = (parts[0], parts[2])
    return got


def _plain_index(root: str, gitdir: str) -> bool:
    """Does the index hold no entry under ``root`` marked assume-unchanged or skip-worktree (nor
    an unmerged one)?  Asked of ``git ls-files -v`` once per index identity, kept in the cache
    directory."""
    try:
        st = os.stat(os.path.join(gitdir, "index"))
    except OSError:
        return False
    ident = f"{_PLAIN}\x00{os.path.realpath(root)}\x00{os.path.realpath(gitdir)}\x00{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"
    from okfpro.io.cachedir import cache_dir, path_key

    kept = os.path.join(cache_dir(root), f"index-plain-{path_key(root)}")
    try:
        with open(kept, encoding="utf-8", errors="surrogateescape") as fh:
            said = fh.read()
        if said.rpartition("\x00")[0] == ident:
            return said.endswith("\x00yes")
    except OSError:
        pass
    from okfpro.io.spawn import Child, TimedOut

    try:
        code, out, _ = Child(["git", "-C", root, "ls-files", "-v", "-z"]).communicate(TIMEOUT)
    except (OSError, TimedOut):
        return False
    if code != 0:
        return False
    # every entry "H <path>\0": a path holds no NUL, so each "\0H " starts an entry
    plain = out.count(b"\x00") == out.count(b"\x00H ") + out.startswith(b"H ")
    try:
        again = os.stat(os.path.join(gitdir, "index"))
    except OSError:
        return False
    if (again.st_ino, again.st_size, again.st_mtime_ns, again.st_ctime_ns) != (
            st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
        return False  # rewritten while git read it: neither answer is known to be this index's
    from okfpro.io.atomic import atomic_write

    try:
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        atomic_write(kept, f"{ident}\x00{'yes' if plain else 'no'}".encode("utf-8", "surrogateescape"), durable=False)
    except OSError:
        pass
    return plain
