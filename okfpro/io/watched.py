"""Answers a reader remembers against a resident watch view (:mod:`okfpro.resident.watch`).

A reader that computed an answer at the view's token T keeps it, with T, in the bundle's cache
directory (:func:`okfpro.io.cachedir.cache_dir`, never inside a tree it was only asked to read).
A later request, in a child whose view says nothing the answer depends on changed under the root
since T, takes the kept answer instead of the work.  Anything else — no view, no token, a token the
view no longer knows (another server, an overflow, a root moved), a relevant change, a different
``setting`` (what the answer depends on outside the tree), an unreadable record — is "do the work",
as a fresh process does.  Imported only when :func:`okfpro.resident.watches` gave a view.

Its readers: the Stop gate's clean ``git status`` (:func:`clean_git`), the Stop's briefings
(:mod:`okfpro.io.stopfacts`), the prompt hook's bundle listing (:mod:`okfpro.io.fts`) and a memory
scope's day listing (:func:`okfpro.memory.entries.current_listing`).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

_MAGIC = "okfpro-watched-1"


class Remembered:
    """One kept answer of one reader for one root.  Construct it *before* the work: the token
    is the view's, taken when the request's child was forked, so any change the work did not
    see is after it."""

    def __init__(self, view: Any, root: str, name: str, relevant: Callable[[str], bool], setting: str = "") -> None:
        from okfpro.io.cachedir import cache_dir, path_key

        self.view, self.root, self.relevant, self.setting = view, root, relevant, setting
        self.token: str | None = view.token(root)
        self.at: str | None = None  # the token of the answer :meth:`since` found
        self.path = os.path.join(cache_dir(root), f"watched-{name}-{path_key(root)}")
        if self.token is None:
            from okfpro.resident import tell_parent

            tell_parent("watch", os.path.realpath(root))  # later requests will have one

    def kept(self) -> str | None:
        """The kept answer, when nothing relevant changed since it was computed; else None."""
        got = self.since()
        return None if got is None or got[1] else got[0]

    def since(self) -> tuple[str, set[str]] | None:
        """The kept answer and the relevant paths changed since it was computed, or None (no
        answer kept for this root and setting, or the view cannot say what changed)."""
        if self.token is None:
            return None
        try:
            with open(self.path, encoding="utf-8", errors="surrogateescape") as fh:
                parts = fh.read().split("\x00")
        except OSError:
            return None
        if len(parts) != 5 or parts[0] != _MAGIC or parts[1] != os.path.realpath(self.root) or parts[3] != self.setting:
            return None
        changed = self.view.changes_since(self.root, parts[2])
        if changed is None:
            return None
        self.at = parts[2]
        return parts[4], set(filter(self.relevant, changed))

    def keep(self, answer: str) -> None:
        """Remember ``answer`` as computed at this request's token (best effort: a cache)."""
        if self.token is None:
            return
        from okfpro.io.atomic import atomic_write

        record = "\x00".join([_MAGIC, os.path.realpath(self.root), self.token, self.setting, answer])
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            atomic_write(self.path, record.encode("utf-8", "surrogateescape"), durable=False)  # a cache
        except OSError:
            return
        from okfpro.resident import tell_parent

        tell_parent("settled", os.path.realpath(self.root), self.token)  # the work that made it has ended

    def unchanged_since_work(self, changed: set[str]) -> set[str]:
        """``changed`` (since the kept answer) without the names created after that answer's work
        ended (:meth:`okfpro.resident.watch.WatchSet.made_after`) and absent now: each is as it
        was during the work (absent), so it changes nothing the work saw."""
        if self.at is None or not changed:
            return changed
        out = set(changed)
        for name in self.view.made_after(self.root, self.at):
            try:
                os.lstat(os.path.join(self.root, name))
                continue
            except FileNotFoundError:
                pass
            except OSError:
                continue
            out.discard(name)
            out.discard(name + "/")
        return out


# ---------------------------------------------------------------------- the reader's walk
def walk_relevant(path: str) -> bool:
    """Can a change at ``path`` change what the reader's walk (:func:`okfpro.io.reader.walk`) lists or
    the ``lstat`` of a file it lists?  A name ending ``.md`` or a directory (``dir/``), with no
    hidden part (the walk leaves those out); never the git state."""
    from okfpro.resident.watch import GIT

    return (path != GIT and path.endswith(("/", ".md"))
            and not any(part.startswith(".") for part in path.split("/")))


# ---------------------------------------------------------------------- the Stop gate's git status
_GIT_NAMES = (".gitignore", ".gitattributes")
# environment variables that cannot change what `git status` answers; any other GIT_* (GIT_DIR,
# GIT_INDEX_FILE, GIT_CONFIG_*, GIT_*_PATHSPECS, ...) means git is not answering from what is watched
_GIT_HARMLESS = ("GIT_SSL_", "GIT_SSH", "GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_HTTP_", "GIT_CURL_", "GIT_PROXY_",
                 "GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_TRACE",
                 "GIT_REDACT_", "GIT_MERGE_VERBOSITY", "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER")


def git_relevant(path: str) -> bool:
    """Can a change at ``path`` change ``git status -- '*.md'`` under the root?  The git state, a
    directory, anything named like Markdown (case folded: ``core.ignoreCase``), an ignore or
    attributes file."""
    from okfpro.resident.watch import GIT

    return (path == GIT or path.endswith("/") or ".md" in path.lower()
            or path.rsplit("/", 1)[-1] in _GIT_NAMES)


def user_git_dirs() -> tuple[str, str]:
    """``$HOME`` and the folder git reads the user's ``git/config``, ``git/ignore`` and
    ``git/attributes`` from (``$XDG_CONFIG_HOME``, else ``~/.config``)."""
    home = os.environ.get("HOME", "")
    return home, os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")


def git_configs(dirs: Sequence[str]) -> list[str]:
    """The configuration files git reads for a repository whose git directories are ``dirs`` (a
    linked worktree's and the common one): the user's two and the system's first, then each
    directory's ``config`` and ``config.worktree``."""
    home, xdg = user_git_dirs()
    return [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config"), "/etc/gitconfig",
            *(os.path.join(d, name) for d in dirs for name in ("config", "config.worktree"))]


def git_setting(view: Any, root: str) -> str | None:
    """What ``git status`` depends on outside the watched tree and git directory: the user's and the
    system's git configuration, ignore and attributes files (their identity and times), the files
    a configuration names as ``excludesFile``/``attributesFile``, and the environment that finds
    them.  None — never remembered — when the environment carries a ``GIT_*`` variable that is not
    known to leave ``git status`` alone (:data:`_GIT_HARMLESS`: transport, identity, editors,
    tracing) or a configuration includes another file (``[include]``, ``[includeIf]``)."""
    env = os.environ
    if any(k.startswith("GIT_") and not k.startswith(_GIT_HARMLESS) for k in env):
        return None
    dirs = view.git_dirs(root)
    if dirs is None:
        return None
    home, xdg = user_git_dirs()
    configs = git_configs(dirs)
    named = [os.path.join(xdg, "git", "ignore"), os.path.join(xdg, "git", "attributes")]
    for config in configs:
        try:
            with open(config, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except FileNotFoundError:
            continue
        except OSError:
            return None
        for line in text.splitlines():
            words = line.strip().lower()
            if words.startswith("[include"):
                return None
            key, eq, value = line.partition("=")
            if eq and key.strip().lower() in ("excludesfile", "attributesfile"):
                value = value.strip().strip('"')
                named.append(os.path.join(home, value[2:]) if value.startswith("~/") else value)
    parts = [env.get("PATH", ""), home, xdg]
    for path in configs[:3] + named:
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        except FileNotFoundError:
            parts.append(f"{path}:-")
        except OSError:
            return None
    return "\x01".join(parts)


LITERAL = ":(literal)"  # the pathspec magic of one file named as it is
NARROW_MAX = 256  # changed files a narrowed git status names; more, and git looks at the whole tree


def narrowed(root: str, changed: set[str]) -> list[str] | None:
    """The pathspecs of a ``git status`` that answers for the whole tree, when the tree was clean at
    the kept token and only ``changed`` (relevant paths) changed since: each changed Markdown file,
    literally.  The view names a file whose watch ended (it was deleted or replaced) as ``name/``,
    everything at or under that name: that is the file alone while no directory stands at the name.
    A path outside a watched file's status — any other file, the same name can change the status of
    others (``.gitignore``, ``.gitattributes``), a directory (everything under it), the git state, a
    name that is Markdown only when case is folded (``core.ignoreCase``) — or more than
    :data:`NARROW_MAX` of them: None, the whole tree is asked."""
    from stat import S_ISDIR

    from okfpro.resident.watch import GIT

    if len(changed) > NARROW_MAX:
        return None
    specs = set()
    for path in changed:
        name = path[:-1] if path.endswith("/") else path
        if path == GIT or not name.endswith(".md"):
            return None
        if path.endswith("/"):
            try:
                if S_ISDIR(os.lstat(os.path.join(root, name)).st_mode):
                    return None
            except FileNotFoundError:
                pass
            except OSError:
                return None
        specs.add(LITERAL + name)
    return sorted(specs)


# ---------------------------------------------------------------------- the kept answer of git status
# what `git status` said at a kept token: "clean", or (dirty) whether the entries are all of them,
# the entries, each the root-relative path(s) of one line of `git status --porcelain -z`, and whether
# every line was a change in the work tree alone (its index column blank: the index held HEAD's
# blob for every Markdown file then, what :mod:`okfpro.io.headblobs` relies on)
CLEAN = "clean"


def repo_prefix(root: str) -> str | None:
    """``root``'s path inside its repository as git prints paths (``""``, or ending ``/``);
    None when it is not inside one."""
    from okfpro.io.roots import git_fence

    real = os.path.realpath(root)
    top = git_fence(real)
    if top is None:
        return None
    prefix = os.path.relpath(real, top).replace(os.sep, "/")
    if prefix == ".." or prefix.startswith("../"):
        return None
    return "" if prefix == "." else prefix + "/"


def git_record(root: str, out: bytes) -> str | None:
    """The answer to keep for ``out`` (``git -C root status --porcelain -z``'s output), or None when
    it cannot be read back path by path (then nothing is kept).  At most :data:`NARROW_MAX` entries
    are kept; more, and the record says it holds only some of them."""
    if not out:
        return CLEAN
    prefix = repo_prefix(root)
    if prefix is None:
        return None
    fields = os.fsdecode(out).split("\x00")
    if fields[-1] != "":
        return None
    fields.pop()
    entries: list[list[str]] = []
    worktree = True
    at = 0
    while at < len(fields):
        field = fields[at]
        if len(field) < 4 or field[2] != " ":
            return None
        worktree = worktree and field[0] == " "
        paths = [field[3:]]
        if "R" in field[:2] or "C" in field[:2]:  # a rename or copy: its source follows
            at += 1
            if at == len(fields):
                return None
            paths.append(fields[at])
        at += 1
        if not all(p.startswith(prefix) and len(p) > len(prefix) for p in paths):
            return None
        entries.append([p[len(prefix):] for p in paths])
    return dirty_record(entries, worktree)


def dirty_record(entries: list[list[str]], worktree: bool) -> str:
    """The answer to keep for git's lines ``entries`` (each the root-relative path(s) of one;
    ``worktree``: every line a change in the work tree alone)."""
    if not entries:
        return CLEAN
    from okfpro.core import jsonc

    return jsonc.dumps([len(entries) <= NARROW_MAX, entries[:NARROW_MAX], worktree])


def git_kept(answer: str) -> tuple[bool, list[list[str]], bool] | None:
    """A kept answer read back: (the entries are all of them, the entries, every entry a change
    in the work tree alone); None when unreadable."""
    if answer == CLEAN:
        return True, [], True
    from okfpro.core import jsonc

    try:
        complete, entries, worktree = jsonc.loads(answer)
    except (ValueError, TypeError):
        return None
    if not isinstance(complete, bool) or not isinstance(worktree, bool) or not isinstance(entries, list) \
            or not entries or not all(isinstance(e, list) and e and all(isinstance(p, str) and p.strip("/") for p in e)
                                      for e in entries):
        return None
    return complete, entries, worktree


def still_dirty(entries: list[list[str]], changed: set[str]) -> bool:
    """Is some kept dirty entry untouched by ``changed`` (so dirty now, as when git saw it)?  Never
    when the git state or an ignore or attributes file changed (they change any entry's status);
    an entry is touched by a changed path at, above or below any of its paths, case folded."""
    from okfpro.resident.watch import GIT

    if any(p == GIT or p.rstrip("/").rsplit("/", 1)[-1].lower() in _GIT_NAMES for p in changed):
        return False
    touched = [p.rstrip("/").lower() for p in changed]

    def untouched(path: str) -> bool:
        mine = path.rstrip("/").lower()
        return not any(t == mine or mine.startswith(t + "/") or t.startswith(mine + "/") for t in touched)

    return any(all(map(untouched, entry)) for entry in entries)


def clean_git(view: Any, root: str) -> Remembered | None:
    """The Stop gate's remembered "git said clean", or None when it may not be used at all."""
    if view.token(root) is None:
        from okfpro.resident import tell_parent

        tell_parent("watch", os.path.realpath(root))
        return None
    setting = git_setting(view, root)
    if setting is None:
        return None
    return Remembered(view, root, "gitclean", git_relevant, setting)
