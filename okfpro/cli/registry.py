"""``okfpro registry``: name bundles once, then ``@slug`` wherever a DIR goes.

The reference's subcommands and file (:mod:`okfpro.io.registry` has the rules)::

    registry init                                  a project-local .okf.json here
    registry list [--json]                         bundles (* the default), groups, links
    registry set DIR|@slug [--as SLUG] [--default] add or refresh (keyed by directory)
    registry set SLUG DIR                          the same as: set DIR --as SLUG
    registry del DIR|@slug                         a bundle or a group
    registry default @slug                         move a bundle to the front
    registry rename @slug NEW                      a bundle or a group; groups follow
    registry group SLUG @member…                   create a group, or add members
    registry ungroup SLUG @member…                 remove members (an emptied group goes)
    registry link NAME FILE                        the global registry reads FILE live
    registry unlink NAME
    registry import @slug… [--from FILE] [--as S]  copy out of another registry (all or nothing)

``-g/--global`` (every subcommand but ``init``) acts on the global registry even inside a
project with a ``.okf.json``.  Exit codes: 0 done, 2 refused (with the registry left as it
was).  ``list --json`` is the reference's shape, key for key.
"""

from __future__ import annotations

import os

import click

from okfpro.cli.common import dumps, fail
from okfpro.io import registry as reg


def _global(func):
    return click.option("-g", "--global", "global_", is_flag=True,
                        help="Act on the global registry, ignoring a project-local .okf.json.")(func)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _slug_arg(arg: str, r: reg.Registry) -> str:
    """``@slug`` -> slug; bare ``@`` -> the default bundle's slug."""
    if not arg.startswith("@"):
        return arg
    if arg[1:]:
        return arg[1:]
    chosen = r.default()
    if chosen is None:
        fail("no bundle is registered, so `@` names nothing (okfpro registry set DIR)")
    return chosen.slug


def _concepts(path: str) -> int:
    from okfpro.io import roots
    from okfpro.io.bundle import load

    try:
        return len(load(roots.resolve(path) or path).concepts)
    except OSError:
        return 0


@click.group("registry", invoke_without_command=True)
@click.pass_context
def registry_cmd(ctx: click.Context) -> int:
    """Name bundles once, then use @SLUG wherever a DIR goes; groups and @all in search."""
    return ctx.invoke(list_cmd) if ctx.invoked_subcommand is None else 0


@registry_cmd.command("init")
def init_cmd() -> int:
    """Create an empty project-local .okf.json here (the nearest one wins)."""
    here = os.getcwd()
    existing = next((n for n in reg.LOCAL_FILES if os.path.exists(os.path.join(here, n))), None)
    if existing:
        fail(f"already initialized: ./{existing}")
    parent = reg.discover(os.path.dirname(here))
    if parent is not None:
        click.echo(f"note: a parent registry at {parent} — the nearest one wins", err=True)
    try:
        reg.Registry(os.path.join(here, reg.LOCAL_FILE), relative_base=here, follow_links=False).save()
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"initialized ./{reg.LOCAL_FILE}")
    return 0


@registry_cmd.command("list")
@click.option("--json", "as_json", is_flag=True, help="One line of JSON (the reference's shape).")
@click.option("--pretty", is_flag=True, help="Indented JSON (implies --json).")
@_global
def list_cmd(as_json: bool = False, pretty: bool = False, global_: bool = False) -> int:
    """The registered bundles (* marks the default), groups and links."""
    try:
        r = reg.Registry.open(global_=global_)
    except reg.RegistryError as exc:
        fail(str(exc))
    if as_json or pretty:
        click.echo(dumps(r.payload(), pretty))
        return 0
    if reg.is_local(r.path) or global_:
        click.echo(f"registry: {r.path}")
    rows, groups, links = r.listing(), r.groups_listing(), r.links_listing()
    if not rows and not groups and not links:
        click.echo("no bundles registered — okfpro registry set DIR")
        return 0
    width = max((len(x["slug"]) for x in rows), default=0)

    def row(x) -> str:
        moved = f"  [{x['origin']}]" if x["origin"] and x["origin"] != x["slug"] else ""
        gone = "  (missing)" if x["missing"] else ""
        return f"{'*' if x['default'] else ' '} {x['slug']:<{width}}  {x['title']}  ({x['dir']}){gone}{moved}"

    for x in rows:
        if not x["link"]:
            click.echo(row(x))
    own = [g for g in groups if not g["link"]]
    if own:
        click.echo("\ngroups:" if rows else "groups:")
        gw = max(len(g["slug"]) for g in own)
        for g in own:
            count = "cycle" if g["resolved"] is None else _plural(g["resolved"], "bundle")
            click.echo(f"  {g['slug']:<{gw}}  {', '.join('@' + m for m in g['members'])}  ({count})")
    if links:
        click.echo("\nlinks:")
        for lk in links:
            state = "  (missing)" if lk["missing"] else "  (unreadable)" if lk["unreadable"] else ""
            click.echo(f"  {lk['slug']}  → {lk['registry']}  ({_plural(lk['bundles'], 'bundle')}){state}")
            for x in rows:
                if x["link"] == lk["slug"]:
                    click.echo("  " + row(x))
            for g in groups:
                if g["link"] == lk["slug"] and g["slug"] != lk["slug"]:
                    click.echo(f"    {g['slug']}  {', '.join('@' + m for m in g['members'])}")
    return 0


@registry_cmd.command("set")
@click.argument("target", metavar="DIR|@slug")
@click.argument("legacy_dir", metavar="[DIR]", required=False)
@click.option("--as", "as_", metavar="SLUG", help="The slug (default: the directory's name).")
@click.option("--default", "default", is_flag=True, help="Put it first: the bundle a bare @ names.")
@_global
def set_cmd(target: str, legacy_dir: str | None, as_: str | None, default: bool, global_: bool) -> int:
    """Register DIR (or refresh it: an entry is keyed by its directory); SLUG DIR is DIR --as SLUG."""
    if legacy_dir is not None:
        if as_ is not None:
            fail("give the slug once: `registry set DIR --as SLUG` (or the short form `registry set SLUG DIR`)")
        target, as_ = legacy_dir, target
    try:
        with reg.editing(global_=global_) as r:
            directory = target
            if target.startswith("@"):
                named = r.get(reg.normalize(_slug_arg(target, r)))
                if named is None:
                    fail(f"not a registered bundle: {target} in {r.path} (okfpro registry list)")
                directory = named.path
            entry, known = r.add(directory, as_, default)
    except reg.RegistryError as exc:
        fail(str(exc))
    n = _concepts(entry.path)
    click.echo(f"{'updated' if known else 'registered'} {entry.slug} → {entry.path} ({_plural(n, 'concept')})")
    return 0


@registry_cmd.command("del")
@click.argument("target", metavar="DIR|@slug")
@_global
def del_cmd(target: str, global_: bool) -> int:
    """Remove a bundle or a group (the directory is not touched; groups drop the name)."""
    try:
        with reg.editing(global_=global_) as r:
            slug = _slug_arg(target, r)
            removed = r.remove(slug)
            if removed is None:
                fail(f"not a registered bundle or group: {target} in {r.path} (okfpro registry list)")
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"removed {removed.slug}")
    return 0


@registry_cmd.command("default")
@click.argument("target", metavar="@slug")
@_global
def default_cmd(target: str, global_: bool) -> int:
    """Make a bundle the default (moves it to the front)."""
    try:
        with reg.editing(global_=global_) as r:
            entry = r.set_default(_slug_arg(target, r))
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"default bundle → {entry.slug} (now first)")
    return 0


@registry_cmd.command("rename")
@click.argument("old", metavar="@slug")
@click.argument("new", metavar="NEW")
@_global
def rename_cmd(old: str, new: str, global_: bool) -> int:
    """Give a bundle or a group a new slug (groups naming it follow)."""
    try:
        with reg.editing(global_=global_) as r:
            asked = reg.normalize(_slug_arg(old, r))
            target = r.rename(asked, new)
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"renamed {asked} → {target.slug}")
    return 0


@registry_cmd.command("group")
@click.argument("slug")
@click.argument("members", nargs=-1, required=True, metavar="@member…")
@_global
def group_cmd(slug: str, members: tuple[str, ...], global_: bool) -> int:
    """Create a group of bundles or groups, or add members (search takes @group)."""
    try:
        with reg.editing(global_=global_) as r:
            group = r.set_group(slug, list(members))
            count = len(r.expand(group.slug))
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"grouped {group.slug} → {', '.join('@' + m for m in group.members)} ({_plural(count, 'bundle')})")
    return 0


@registry_cmd.command("ungroup")
@click.argument("slug")
@click.argument("members", nargs=-1, required=True, metavar="@member…")
@_global
def ungroup_cmd(slug: str, members: tuple[str, ...], global_: bool) -> int:
    """Remove members from a group (emptying it deletes it)."""
    try:
        with reg.editing(global_=global_) as r:
            removed, emptied = r.ungroup(slug, list(members))
    except reg.RegistryError as exc:
        fail(str(exc))
    name = reg.normalize(slug)
    if emptied:
        click.echo(f"removed empty group {name}")
    elif not removed:
        click.echo(f"no members removed from {name} (none of {', '.join(members)} were in it)")
    else:
        click.echo(f"ungrouped {', '.join('@' + m for m in removed)} from {name}")
    return 0


def _links_are_global(r: reg.Registry) -> None:
    if reg.is_local(r.path):
        fail(f"links live in the global registry, and {r.path} is a project-local one (okfpro registry link … -g)")


@registry_cmd.command("link")
@click.argument("name")
@click.argument("file", metavar="FILE")
@_global
def link_cmd(name: str, file: str, global_: bool) -> int:
    """Point the global registry at another registry file (its bundles answer here, live)."""
    try:
        with reg.editing(global_=global_) as r:
            _links_are_global(r)
            link = r.link(name, file)
            count = next(x["bundles"] for x in r.links_listing() if x["slug"] == link.slug)
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"linked {link.slug} → {link.registry} ({_plural(count, 'bundle')})")
    return 0


@registry_cmd.command("unlink")
@click.argument("name")
@_global
def unlink_cmd(name: str, global_: bool) -> int:
    """Drop a link and every bundle that arrived through it (the bundles are untouched)."""
    try:
        with reg.editing(global_=global_) as r:
            _links_are_global(r)
            removed = r.unlink(name)
            if removed is None:
                fail(f"no such link: {name}")
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"unlinked {removed.slug}")
    return 0


@registry_cmd.command("import")
@click.argument("asks", nargs=-1, required=True, metavar="@slug…")
@click.option("--from", "from_", metavar="FILE", help="The registry to copy from (default: the global one).")
@click.option("--as", "as_", metavar="SLUG", help="Import the one bundle or group asked for under this slug.")
@_global
def import_cmd(asks: tuple[str, ...], from_: str | None, as_: str | None, global_: bool) -> int:
    """Copy bundles and groups (with everything they reach) out of another registry; all or nothing."""
    if as_ and len(asks) > 1:
        fail(f"--as names one bundle or group, and {len(asks)} were asked for")
    source = os.path.abspath(os.path.expanduser(from_)) if from_ else str(reg.path())
    try:
        with reg.editing(global_=global_) as r:
            done = r.import_from(list(asks), source, as_)
    except reg.RegistryError as exc:
        fail(str(exc))
    click.echo(f"imported {_plural(len(done['bundles']), 'bundle')} from {source}")
    for e in done["bundles"]:
        click.echo(f"  {e.slug} → {e.path} ({_plural(_concepts(e.path), 'concept')})")
    for g in done["groups"]:
        click.echo(f"  {g.slug} → {', '.join('@' + m for m in g.members)} (group)")
    return 0
