"""``okfpro registry``: name bundles once, then ``@slug`` wherever a DIR goes.

``registry set SLUG DIR`` (add, or re-point an existing slug), ``registry del SLUG``,
``registry list [--json]``.  The file and its rules: :mod:`okfpro.io.registry`.
Exit codes: 0 done, 2 refused (bad slug, not a directory, unknown slug, unreadable
registry) with the registry left as it was.
"""

from __future__ import annotations

import click

from okfpro.cli.common import dumps, fail
from okfpro.io import registry as reg


@click.group("registry", invoke_without_command=True)
@click.pass_context
def registry_cmd(ctx: click.Context) -> None:
    """Name bundles once (under $OKFPRO_HOME), then use @SLUG wherever a DIR goes; @all in search."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_cmd)


@registry_cmd.command("set")
@click.argument("slug")
@click.argument("directory", metavar="DIR")
def set_cmd(slug: str, directory: str) -> None:
    """Register DIR as @SLUG (re-points SLUG if it is already registered)."""
    try:
        new, old = reg.set_entry(slug, directory)
    except reg.RegistryError as exc:
        fail(str(exc))
        return
    if old is not None and old.dir != new.dir:
        click.echo(f"@{new.slug} -> {new.dir} (was {old.dir})")
    else:
        click.echo(f"@{new.slug} -> {new.dir}")


@registry_cmd.command("del")
@click.argument("slug")
def del_cmd(slug: str) -> None:
    """Remove @SLUG from the registry (the directory is not touched)."""
    try:
        old = reg.delete_entry(slug)
    except reg.RegistryError as exc:
        fail(str(exc))
        return
    click.echo(f"removed @{old.slug} ({old.dir})")


@registry_cmd.command("list")
@click.option("--json", "as_json", is_flag=True, help="One line of JSON.")
@click.option("--pretty", is_flag=True, help="Indented JSON (implies --json).")
def list_cmd(as_json: bool = False, pretty: bool = False) -> None:
    """The registered bundles, in registration order."""
    import os

    try:
        entries = reg.load()
    except reg.RegistryError as exc:
        fail(str(exc))
        return
    rows = [{"slug": e.slug, "dir": e.dir, "default": i == 0, "missing": not os.path.isdir(e.dir)}
            for i, e in enumerate(entries)]
    if as_json or pretty:
        data = {"registry": str(reg.path()), "count": len(rows), "bundles": rows}
        click.echo(dumps(data, pretty))
        return
    if not rows:
        click.echo(f"no bundles registered in {reg.path()} (okfpro registry set SLUG DIR)")
        return
    width = max(len(str(r["slug"])) for r in rows) + 1
    for r in rows:
        gone = "  (missing)" if r["missing"] else ""
        click.echo(f"@{r['slug']:<{width}} {r['dir']}{gone}")
