"""``okfpro serve [DIR|@SLUG...|@all] [--port N] [--bind ADDR]``: the bundle live in a browser.

One bundle is served at ``/``; several (``@a @b``, a group, ``@all``) behind a hub at ``/`` with each
bundle under ``/b/<slug>/``.  Bound to 127.0.0.1 by default; a bind beyond loopback serves the
bundle but never memory.  Read-only: GET and HEAD.  The views, the JSON beside them and the
safety rules are :mod:`okfpro.serve.http`'s.  Prints the URL once listening; runs until Ctrl-C
(exit 0).  Exit 2: a bundle that cannot be found or read, a port that cannot be bound.
"""

from __future__ import annotations

import click


@click.command("serve")
@click.argument("targets", nargs=-1, metavar="[DIR|@SLUG...|@all]")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The TCP port (0: any free one; the URL printed says which).")
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="The address to listen on. Beyond loopback, memory is never served.")
@click.option("--no-memory", is_flag=True, help="Do not serve memory views even on loopback.")
def serve_cmd(targets: tuple[str, ...], port: int, bind: str, no_memory: bool) -> int:
    """Serve the bundle (its views, board, log, journal and your own memory) as live pages."""
    from okfpro.cli.common import bundle_for, fail
    from okfpro.serve.http import Hub, Server, loopback, memory_allowed, run
    from okfpro.serve.site import Site

    memory, why_not = memory_allowed(bind, not no_memory)
    if not loopback(bind):
        click.echo(f"note: listening on {bind}, beyond loopback: anyone who reaches it reads the bundle; "
                   "memory is not served", err=True)
    refs = [t for t in targets if t.startswith("@")]
    if refs and len(refs) != len(targets):
        fail("give one DIR, or @slugs / @all — not both")
    if len(targets) > 1 and not refs:
        fail("one DIR at most (several bundles: register them and name them as @slugs)")
    hub = None
    site = None
    if len(refs) == 1 and refs[0] != "@all":
        at = bundle_for(refs[0], named_is_bundle=True)
        site = Site(at.root, at.name, at.slug, memory=memory, memory_why_not=why_not)
    elif refs:
        from okfpro.io import registry

        try:
            entries = registry.expand(refs, lambda line: click.echo(line, err=True), None)
        except registry.RegistryError as exc:
            fail(str(exc))
        sites = {}
        for entry in entries:
            at = bundle_for(f"@{entry.slug}", named_is_bundle=True)
            sites[entry.slug] = Site(at.root, at.name, at.slug, prefix=f"/b/{entry.slug}", hub="/", memory=memory,
                                     memory_why_not=why_not)
        if not sites:
            fail("no registered bundle named")
        hub = Hub(sites)
    else:
        at = bundle_for(targets[0] if targets else None, named_is_bundle=True)
        site = Site(at.root, at.name, at.slug, memory=memory, memory_why_not=why_not)
    try:
        server = Server(bind, port, site=site, hub=hub)
    except OSError as exc:
        fail(f"cannot listen on {bind}:{port}: {exc.strerror or exc}")
    served = [site] if site is not None else list(hub.sites.values()) if hub is not None else []
    for one in served:
        try:
            one.bundle()  # read once, before the first page
        except OSError as exc:
            server.server_close()
            fail(f"{one.root}: cannot read the bundle: {exc.strerror or exc}")
        one.warm_up()
    what = served[0].name if site is not None else f"{len(served)} bundles"

    def ready(url: str) -> None:
        click.echo(f"serving {what} at {url} (Ctrl-C to stop)")

    try:
        run(server, ready)
    except KeyboardInterrupt:
        pass
    return 0
