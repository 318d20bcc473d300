"""The bundle registry: bundles named once, then ``@slug`` wherever a DIR goes.

Which file (the reference's rules, our home directory):

* a project-local ``.okf.json`` (or the older name ``.okf-registry.json``) found by walking
  up from the working directory — the nearest wins, a directory preferring ``.okf.json``;
* else the global ``$OKFPRO_HOME/registry.json`` (``$OKFPRO_HOME`` defaults to the user's
  config directory, ``$XDG_CONFIG_HOME/okfpro``, else ``~/.config/okfpro``).
  ``OKFPRO_NO_DISCOVERY`` (or the reference's ``OKF_NO_DISCOVERY``) set to anything, or
  ``registry … -g``, skips the walk.

The file is the reference's format, so one committed ``.okf.json`` serves both tools::

    {"bundles": [{"slug": …, "path": …, "title": …}],
     "groups":  [{"slug": …, "members": [slug, …]}],
     "links":   [{"slug": …, "registry": "/abs/other/registry.json"}]}

A bare list of bundle rows, and okfpro's first shape (``{"version": 1, "bundles":
[{"slug", "dir"}]}``) still read.  In a project-local file a bundle inside its tree is
stored relative to the file's directory (the file travels with the repository); anything
else is absolute.  The first bundle whose directory exists is the *default* (bare ``@``).

Slugs are normalized as the reference normalizes them (lower case; every run outside
``a-z0-9`` is one ``-``; trimmed), ``all`` is reserved (``@all`` names every bundle, for
``search``).  Bundles, groups and links share one namespace.  A *group* names bundles or
other groups and expands, depth first, to its bundles (deduplicated by path; a cycle is
refused when written and reported when read).  A *link* (global registry only) reads
another registry file live: its bundles and groups answer here under their own slugs, or
``<link>-<slug>`` when the name is taken; nothing is copied, and a missing or unreadable
target is reported, never fatal.  *Import* copies bundles and groups out of another
registry file into this one — all or nothing.

Writes take an exclusive lock (in the user's cache directory, keyed by the file's path)
and replace the file atomically.  A file that does not parse, is not the expected shape or
is over 1 MiB is an error naming it, and is left as it was.  Only configuration lands
here: a slug comes from the command line of the person registering, never from bundle or
prompt text.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn

from okfpro.core.record import Value

HOME_ENV = "OKFPRO_HOME"
FILE_NAME = "registry.json"
LOCAL_FILE = ".okf.json"
LEGACY_LOCAL_FILE = ".okf-registry.json"
LOCAL_FILES = (LOCAL_FILE, LEGACY_LOCAL_FILE)
NO_DISCOVERY_ENVS = ("OKFPRO_NO_DISCOVERY", "OKF_NO_DISCOVERY")
RESERVED = ("all",)
MAX_BYTES = 1024 * 1024
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


class RegistryError(Exception):
    """A registry that cannot be read, or a request it cannot answer (exit 2)."""


class Entry(Value):
    """One registered bundle; ``link``/``origin``: the link it arrived through and its slug there."""

    _fields = ("slug", "path", "title", "link", "origin")
    slug: str
    path: str
    title: str
    link: str | None
    origin: str | None

    def __init__(self, slug: str, path: str, title: str, link: str | None = None, origin: str | None = None) -> None:
        self.slug = slug
        self.path = path
        self.title = title
        self.link = link
        self.origin = origin

    @property
    def dir(self) -> str:
        return self.path


class Group(Value):
    _fields = ("slug", "members")
    slug: str
    members: list[str]

    def __init__(self, slug: str, members: list[str]) -> None:
        self.slug = slug
        self.members = members


class Link(Value):
    _fields = ("slug", "registry")
    slug: str
    registry: str

    def __init__(self, slug: str, registry: str) -> None:
        self.slug = slug
        self.registry = registry


# --------------------------------------------------------------------------- names and places
def normalize(text: str) -> str:
    return _NOT_SLUG.sub("-", str(text).strip().lower()).strip("-")


def dedupe(base: str, taken: list[str] | set[str]) -> str:
    slug = normalize(base) or "bundle"
    if slug not in taken:
        return slug
    n = 2
    while f"{slug}-{n}" in taken:
        n += 1
    return f"{slug}-{n}"


def label(root: str) -> str:
    """A bundle's title: ``parent/dir``, the parent alone for ``…/.okf``, the dir alone at ``/``."""
    p = Path(root)
    parent, base = p.parent.name, p.name
    if not parent:
        return base
    return parent if base == ".okf" else f"{parent}/{base}"


def home() -> Path:
    value = os.environ.get(HOME_ENV, "").strip()
    if value:
        return Path(os.path.abspath(os.path.expanduser(value)))
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "okfpro"


def path() -> Path:
    """The global registry file."""
    return home() / FILE_NAME


def discover(start: str | os.PathLike) -> Path | None:
    """The nearest project-local registry file at or above ``start``, or None."""
    d = Path(os.path.abspath(start))
    while True:
        for name in LOCAL_FILES:
            if (d / name).is_file():
                return d / name
        if d.parent == d:
            return None
        d = d.parent


def is_local(file: str | os.PathLike) -> bool:
    return Path(file).name in LOCAL_FILES


def usable_slug(slug: str) -> str:
    norm = normalize(slug)
    if not norm:
        raise RegistryError(f"not a usable slug: {slug!r} (use letters and digits; other runs become '-')")
    if norm in RESERVED:
        raise RegistryError(f"not a usable slug: {norm} is reserved (@{norm} names every registered bundle)")
    return norm


def _abspath(value: str | os.PathLike) -> str:
    return os.path.abspath(os.path.expanduser(os.fspath(value)))


# --------------------------------------------------------------------------- the registry
class Registry:
    """One registry file, read (and, on the global one, its links followed)."""

    def __init__(self, file: str | os.PathLike, *, relative_base: str | None = None, follow_links: bool = True):
        self.path = Path(file)
        self.relative_base = relative_base
        self.follow_links = follow_links
        self.entries: list[Entry] = []
        self.groups: list[Group] = []
        self.links: list[Link] = []
        self.link_groups: list[Group] = []
        self.link_state: dict[str, dict[str, Any]] = {}
        self.link_of: dict[str, str] = {}
        self._read()

    @classmethod
    def open(cls, *, global_: bool = False, cwd: str | os.PathLike | None = None) -> Registry:
        """The registry in force: a discovered project-local file, else the global one."""
        local = None
        if not global_ and not any(os.environ.get(name, "") for name in NO_DISCOVERY_ENVS):
            try:
                local = discover(cwd if cwd is not None else os.getcwd())
            except OSError:
                local = None
        if local is not None:
            return cls(local, relative_base=str(local.parent), follow_links=False)
        return cls(path())

    # ----------------------------------------------------------------- reading
    def _read(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read(MAX_BYTES + 1)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise RegistryError(f"cannot read the registry {self.path}: {exc.strerror or exc}") from None
        if len(raw) > MAX_BYTES:
            self._malformed(f"over {MAX_BYTES // 1024} KiB; it is not a registry file")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._malformed(f"not valid JSON ({exc}); fix or remove it")
        if isinstance(data, list):
            data = {"bundles": data}
        if not isinstance(data, dict):
            self._malformed("not an object with a \"bundles\" list; fix or remove it")
        rows, groups, links = (data.get(k, []) for k in ("bundles", "groups", "links"))
        if not all(isinstance(x, list) for x in (rows, groups, links)):
            self._malformed("\"bundles\", \"groups\" and \"links\" must be lists; fix or remove it")
        self.entries = [self._entry(row) for row in rows]
        self.groups = [g for g in (self._group(row) for row in groups) if g.members]
        self.links = [self._link(row) for row in links]
        self._repair_slugs()
        if self.follow_links:
            self._resolve_links()

    def _malformed(self, detail: str) -> NoReturn:
        raise RegistryError(f"the registry {self.path} is malformed: {detail}")

    def _entry(self, row: Any) -> Entry:
        where = row.get("path", row.get("dir")) if isinstance(row, dict) else None
        if not (isinstance(row, dict) and isinstance(row.get("slug"), str) and isinstance(where, str) and where):
            self._malformed(f"every bundle needs a \"slug\" and a \"path\": {row!r}")
        assert isinstance(where, str)  # _malformed raised otherwise
        full = self._stored(where)
        title = row.get("title")
        return Entry(row["slug"], full, title if isinstance(title, str) else os.path.basename(full))

    def _group(self, row: Any) -> Group:
        if not (isinstance(row, dict) and isinstance(row.get("slug"), str) and isinstance(row.get("members"), list)):
            self._malformed(f"every group needs a \"slug\" and a \"members\" list: {row!r}")
        return Group(row["slug"], [m for m in (normalize(str(x)) for x in row["members"]) if m])

    def _link(self, row: Any) -> Link:
        if not (isinstance(row, dict) and isinstance(row.get("slug"), str) and isinstance(row.get("registry"), str)
                and row["registry"]):
            self._malformed(f"every link needs a \"slug\" and a \"registry\" path: {row!r}")
        return Link(normalize(row["slug"]), self._stored(row["registry"]))

    def _stored(self, raw: str) -> str:
        if self.relative_base is None or raw.startswith("/"):
            return raw
        return os.path.normpath(os.path.join(self.relative_base, raw))

    def _store_form(self, full: str) -> str:
        if self.relative_base is None:
            return full
        rel = os.path.relpath(full, self.relative_base)
        return full if rel == ".." or rel.startswith(".." + os.sep) else rel

    def _repair_slugs(self) -> None:
        """A hand-edited slug registration would not have produced is re-minted (the next write keeps it)."""
        items: list[Entry | Group] = [*self.entries, *self.groups]
        for item in items:
            s = item.slug
            if not s or s != normalize(s) or s in RESERVED:
                item.slug = dedupe(s, self._taken(skip=item) + list(RESERVED))

    def _resolve_links(self) -> None:
        for link in self.links:
            state = {"bundles": 0, "missing": False, "unreadable": False}
            self.link_state[link.slug] = state
            if not os.path.isfile(link.registry):
                state["missing"] = True
                continue
            try:
                source = Registry(link.registry, relative_base=os.path.dirname(link.registry), follow_links=False)
            except RegistryError:
                state["unreadable"] = True
                continue
            names: dict[str, str] = {}
            for e in source.entries:
                names[e.slug] = self._link_slug(e.slug, link.slug)
                self.entries.append(Entry(names[e.slug], e.path, e.title, link.slug, e.slug))
            state["bundles"] = len(names)
            if names:
                self.link_groups.append(Group(link.slug, list(names.values())))
                self.link_of[link.slug] = link.slug
            group_names = {g.slug: self._link_slug(g.slug, link.slug) for g in source.groups}
            known = {**names, **group_names}
            for g in source.groups:
                members = [known[m] for m in g.members if m in known]
                if members:
                    self.link_groups.append(Group(group_names[g.slug], members))
                    self.link_of[group_names[g.slug]] = link.slug

    def _link_slug(self, slug: str, link_name: str) -> str:
        base = normalize(slug) or "bundle"
        taken = self._taken() + list(RESERVED)
        return base if base not in taken else dedupe(f"{link_name}-{base}", taken)

    # ----------------------------------------------------------------- queries
    def _taken(self, skip: Any = None) -> list[str]:
        return ([e.slug for e in self.entries if e is not skip] + [g.slug for g in self.groups if g is not skip]
                + [g.slug for g in self.link_groups if g is not skip] + [lk.slug for lk in self.links])

    def get(self, slug: str) -> Entry | None:
        return next((e for e in self.entries if e.slug == slug), None)

    def group(self, slug: str) -> Group | None:
        return next((g for g in [*self.groups, *self.link_groups] if g.slug == slug), None)

    def default(self) -> Entry | None:
        return next((e for e in self.entries if os.path.isdir(e.path)), self.entries[0] if self.entries else None)

    def expand(self, slug: str) -> list[Entry]:
        """The bundles ``slug`` names (a group depth first, deduplicated by path); a cycle is an error."""
        out: list[Entry] = []
        seen: set[str] = set()

        def walk(name: str, chain: list[str]) -> None:
            if name in chain:
                raise RegistryError("group cycle: " + " -> ".join(f"@{s}" for s in [*chain, name]))
            g = self.group(name)
            if g is not None:
                for m in g.members:
                    walk(m, [*chain, name])
                return
            e = self.get(name)
            if e is not None and e.path not in seen:
                seen.add(e.path)
                out.append(e)

        walk(normalize(slug), [])
        return out

    def listing(self) -> list[dict[str, Any]]:
        chosen = self.default()
        return [{"slug": e.slug, "title": e.title, "dir": e.path, "mount": f"/b/{e.slug}/", "default": e is chosen,
                 "missing": not os.path.isdir(e.path), "link": e.link, "origin": e.origin} for e in self.entries]

    def groups_listing(self) -> list[dict[str, Any]]:
        rows = []
        for g in [*self.groups, *self.link_groups]:
            try:
                resolved: int | None = len(self.expand(g.slug))
            except RegistryError:
                resolved = None
            rows.append({"slug": g.slug, "members": list(g.members), "resolved": resolved,
                         "link": self.link_of.get(g.slug)})
        return rows

    def links_listing(self) -> list[dict[str, Any]]:
        return [{"slug": lk.slug, "registry": lk.registry,
                 **self.link_state.get(lk.slug, {"bundles": 0, "missing": False, "unreadable": False})}
                for lk in self.links]

    def payload(self) -> dict[str, Any]:
        """``registry list --json``: the reference's shape, key for key."""
        rows = self.listing()
        return {"registry": str(self.path), "groups": self.groups_listing(), "links": self.links_listing(),
                "count": len(rows), "bundles": rows}

    # ----------------------------------------------------------------- changes (then save())
    def _refuse_linked(self, target: Any, action: str) -> None:
        name = target.link if isinstance(target, Entry) else self.link_of.get(target.slug)
        if name:
            owner = next((lk.registry for lk in self.links if lk.slug == name), "?")
            raise RegistryError(f"cannot {action} @{target.slug}: it comes from the linked registry {owner} "
                                f"(edit that file, or okfpro registry unlink {name})")

    def _explicit(self, base: str, skip: Any = None) -> str:
        slug = usable_slug(base)
        if slug in self._taken(skip):
            raise RegistryError(f"slug already taken: {slug} (rename or remove that entry first)")
        return slug

    def add(self, directory: str, as_: str | None = None, default: bool = False) -> tuple[Entry, bool]:
        """Register ``directory`` (or refresh it, keyed by path); returns (entry, was it known)."""
        root = _abspath(directory)
        if not os.path.isdir(root):
            raise RegistryError(f"not a directory: {directory}")
        entry = next((e for e in self.entries if e.path == root), None)
        known = entry is not None
        if entry is not None:
            self._refuse_linked(entry, "register")
            entry.title = label(root)
            if as_ is not None:
                entry.slug = self._explicit(as_, entry)
        else:
            slug = self._explicit(as_) if as_ is not None else dedupe(os.path.basename(root), self._taken() + list(RESERVED))
            entry = Entry(slug, root, label(root))
            self.entries.append(entry)
        if default:
            self.entries.remove(entry)
            self.entries.insert(0, entry)
        return entry, known

    def remove(self, arg: str) -> Entry | Group | None:
        """By slug, else by directory; a group by slug.  Every group drops the name (emptied ones go too)."""
        shaped = os.sep in arg
        target = self.get(arg) or next((e for e in self.entries if e.path == _abspath(arg)), None)
        if target is None and not shaped:
            target = self.get(normalize(arg))
        if target is None and not shaped:
            target = self.group(arg) or self.group(normalize(arg))  # type: ignore[assignment]  # an Entry or a Group from here on
        if target is None:
            return None
        self._refuse_linked(target, "remove")
        (self.entries if isinstance(target, Entry) else self.groups).remove(target)
        dropping = [target.slug]
        while dropping:
            gone = dropping.pop(0)
            for g in list(self.groups):
                g.members = [m for m in g.members if m != gone]
                if not g.members:
                    self.groups.remove(g)
                    dropping.append(g.slug)
        return target

    def set_default(self, slug: str) -> Entry:
        norm = normalize(slug)
        if self.group(norm):
            raise RegistryError(f"cannot default to a group: @{norm} names several bundles, the default is one")
        entry = self.get(norm)
        if entry is None:
            raise RegistryError(f"no such bundle: {slug}")
        self._refuse_linked(entry, "default to")
        if not os.path.isdir(entry.path):
            raise RegistryError(f"cannot default to {entry.slug}: {entry.path} is not a directory "
                                f"(okfpro registry del {entry.slug}, or restore it)")
        self.entries.remove(entry)
        self.entries.insert(0, entry)
        return entry

    def rename(self, old: str, new: str) -> Entry | Group:
        norm = normalize(old)
        target: Entry | Group | None = self.get(norm) or self.group(norm)
        if target is None:
            raise RegistryError(f"no such bundle or group: {old}")
        self._refuse_linked(target, "rename")
        target.slug = self._explicit(new, target)
        for g in self.groups:
            g.members = list(dict.fromkeys(target.slug if m == norm else m for m in g.members))
        return target

    def set_group(self, slug: str, asks: list[str]) -> Group:
        name = usable_slug(slug)
        if self.get(name):
            raise RegistryError(f"slug already taken: {name} names a bundle (rename or remove that entry first)")
        if any(lk.slug == name for lk in self.links):
            raise RegistryError(f"slug already taken: {name} names a link")
        existing = self.group(name)
        if existing is not None:
            self._refuse_linked(existing, "group")
        members = [m for m in (normalize(a) for a in asks) if m]
        if not members:
            raise RegistryError(f"a group needs at least one member (okfpro registry group {name} @bundle…)")
        for m in members:
            found = self.get(m) or self.group(m)
            if found is None:
                raise RegistryError(f"no such bundle or group: @{m} (okfpro registry list)")
            self._refuse_linked(found, "group")
        merged = list(dict.fromkeys([*(existing.members if existing else []), *members]))
        stack, seen = list(merged), set()
        while stack:
            m = stack.pop()
            if m == name:
                raise RegistryError(f"group cycle: @{name} would contain itself")
            if m not in seen:
                seen.add(m)
                inner = self.group(m)
                stack.extend(inner.members if inner else [])
        if existing is not None:
            existing.members = merged
            return existing
        group = Group(name, merged)
        self.groups.append(group)
        return group

    def ungroup(self, slug: str, asks: list[str]) -> tuple[list[str], bool]:
        name = normalize(slug)
        group = self.group(name)
        if group is None:
            raise RegistryError(f"no such group: {slug} (okfpro registry list)")
        self._refuse_linked(group, "ungroup")
        drop = {normalize(a) for a in asks}
        removed = [m for m in group.members if m in drop]
        group.members = [m for m in group.members if m not in drop]
        if not group.members:
            self.groups.remove(group)
        return removed, not group.members

    def link(self, slug: str, target: str) -> Link:
        name = usable_slug(slug)
        file = _abspath(target)
        if not os.path.isfile(file):
            raise RegistryError(f"not a registry file: {target}")
        if file == _abspath(self.path):
            raise RegistryError(f"a registry cannot link itself: {file}")
        existing = next((lk for lk in self.links if lk.slug == name), None)
        if existing is None and (self.get(name) or self.group(name)):
            raise RegistryError(f"slug already taken: {name} (rename or remove that entry first)")
        if existing is not None:
            existing.registry = file
        else:
            self.links.append(Link(name, file))
        self._relink()
        return next(lk for lk in self.links if lk.slug == name)

    def unlink(self, slug: str) -> Link | None:
        link = next((lk for lk in self.links if lk.slug == normalize(slug)), None)
        if link is not None:
            self.links.remove(link)
            self._relink()
        return link

    def _relink(self) -> None:
        self.entries = [e for e in self.entries if not e.link]
        self.link_groups, self.link_state, self.link_of = [], {}, {}
        self._resolve_links()

    def import_from(self, asks: list[str], source_file: str, as_: str | None = None) -> dict[str, list[Any]]:
        """Copy the bundles and groups ``asks`` name out of ``source_file``; all or nothing."""
        file = _abspath(source_file)
        if not os.path.isfile(file):
            raise RegistryError(f"not a registry file: {source_file}")
        if file == _abspath(self.path):
            raise RegistryError(f"the source and the target are the same registry: {file} (--from names another file)")
        source = Registry(file, relative_base=os.path.dirname(file), follow_links=True)
        bad = next((a for a in asks if not normalize(a)), None)
        if bad is not None:
            raise RegistryError(f"not a usable slug: {bad} (letters and digits, please)")
        names = list(dict.fromkeys(normalize(a) for a in asks))
        if not names:
            raise RegistryError(f"nothing to import (name a bundle or a group from {file})")
        plan: list[dict[str, Any]] = []

        def walk(name: str, via: str | None, chain: list[str]) -> None:
            if name in chain:
                raise RegistryError(f"group cycle in {file}: " + " -> ".join(f"@{s}" for s in [*chain, name]))
            if any(step["slug"] == name for step in plan):
                return
            e = source.get(name)
            if e is not None:
                plan.append({"slug": name, "path": e.path, "title": e.title, "members": None, "via": via})
                return
            g = source.group(name)
            if g is None:
                raise RegistryError(f"no such bundle or group in {file}: @{name}")
            members = [m for m in g.members if source.get(m) or source.group(m)]
            if not members:
                raise RegistryError(f"@{name} names nothing in {file}: its members are gone")
            for m in members:
                walk(m, name, [*chain, name])
            plan.append({"slug": name, "path": None, "title": None, "members": members, "via": via})

        for name in names:
            walk(name, None, [])
        if as_:
            root = next(step for step in plan if step["slug"] == names[0] and step["via"] is None)
            root["slug"] = self._explicit(as_)
        for step in plan:
            via = f", a member of @{step['via']}" if step["via"] else ""
            if step["members"] is None:
                if not os.path.isdir(step["path"]):
                    raise RegistryError(f"cannot import @{step['slug']}{via}: {step['path']} is not a directory "
                                        f"(restore it, or drop that entry from {file})")
                held = next((e for e in self.entries if e.path == step["path"]), None)
                if held is not None:
                    raise RegistryError(f"cannot import @{step['slug']}{via}: {step['path']} is already registered "
                                        f"here as {held.slug} (remove that entry first, or leave this one out)")
            if step["slug"] in self._taken():
                raise RegistryError(f"slug already taken: {step['slug']}{via} (rename or remove that entry first, "
                                    "or import it under another name with --as)")
        done: dict[str, list[Any]] = {"bundles": [], "groups": []}
        for step in plan:
            if step["members"] is None:
                entry = Entry(step["slug"], step["path"], step["title"])
                self.entries.append(entry)
                done["bundles"].append(entry)
            else:
                group = Group(step["slug"], list(step["members"]))
                self.groups.append(group)
                done["groups"].append(group)
        return done

    # ----------------------------------------------------------------- writing
    def document(self) -> dict[str, Any]:
        """What the file holds: only what this registry owns (linked rows are a view of another file)."""
        return {
            "bundles": [{"slug": e.slug, "path": self._store_form(e.path), "title": e.title}
                        for e in self.entries if not e.link],
            "groups": [{"slug": g.slug, "members": list(g.members)} for g in self.groups],
            "links": [{"slug": lk.slug, "registry": self._store_form(lk.registry)} for lk in self.links],
        }

    def save(self) -> None:
        from okfpro.io.atomic import atomic_write

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(self.document(), indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise RegistryError(f"cannot write the registry {self.path}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def editing(*, global_: bool = False) -> Iterator[Registry]:
    """The registry in force, read under its lock; written back when the block ends without error."""
    from okfpro.io.atomic import locked
    from okfpro.io.cachedir import path_key, user_cache_dir

    first = Registry.open(global_=global_)
    with locked(os.path.join(user_cache_dir(), f"registry-{path_key(first.path)}.lock")):
        reg = Registry(first.path, relative_base=first.relative_base, follow_links=first.follow_links)
        yield reg
        reg.save()


# --------------------------------------------------------------------------- @refs
def is_ref(arg: str) -> bool:
    return arg.startswith("@")


def resolve(ref: str, reg: Registry | None = None) -> Entry:
    """The one bundle ``@slug`` (or bare ``@``, the default) names; a refusal when it names nothing
    readable, ``@all`` or a group (those are for ``search``)."""
    asked = ref[1:]
    norm = normalize(asked)
    if norm in RESERVED:
        raise RegistryError(f"@{norm} is only supported by `okfpro search` (it names every registered bundle)")
    reg = reg or Registry.open()
    group = reg.group(norm) if norm else None
    if group is not None:
        n = len(group.members)
        raise RegistryError(f"@{norm} names a group of {n} member{'s' if n != 1 else ''}; "
                            "only `okfpro search` takes a group")
    entry = reg.default() if not asked else (reg.get(norm) if norm else None)
    if entry is None:
        hint = "okfpro registry set DIR" if not reg.entries else "okfpro registry list"
        raise RegistryError(f"not a registered bundle: {ref} in {reg.path} ({hint})")
    if not os.path.isdir(entry.path):
        raise RegistryError(f"{ref} points to {entry.path}, which is not a directory "
                            f"(okfpro registry del {entry.slug}, or restore it)")
    return entry


def expand(refs: list[str], note: Callable[[str], None], reg: Registry | None = None) -> list[Entry]:
    """Leading ``@slug`` / ``@group`` / ``@all`` refs of ``search`` as entries, deduplicated by path.
    ``@all`` and a group skip (and note) a registered directory that is gone; a named ``@slug``
    insists on it."""
    reg = reg or Registry.open()
    out: list[Entry] = []

    def readable(entries: list[Entry], what: str) -> list[Entry]:
        kept = []
        for e in entries:
            if os.path.isdir(e.path):
                kept.append(e)
            else:
                note(f"note: skipping {e.slug} — cannot read {e.path}")
        if not kept:
            raise RegistryError(what)
        return kept

    for ref in refs:
        norm = normalize(ref[1:])
        if norm in RESERVED:
            if not reg.entries:
                raise RegistryError("no bundles registered (okfpro registry set DIR)")
            out.extend(readable(list(reg.entries), "every registered bundle is missing on disk (okfpro registry list)"))
        elif norm and reg.group(norm) is not None:
            out.extend(readable(reg.expand(norm), f"@{norm} resolves to no readable bundle (okfpro registry list)"))
        else:
            out.append(resolve(ref, reg))
    seen: set[str] = set()
    return [e for e in out if not (e.path in seen or seen.add(e.path))]  # type: ignore[func-returns-value]  # add() answers None: first seen wins
