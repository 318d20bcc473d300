"""``okfpro mcp``: serve the workspace and its scoped memory over MCP (stdio, or streamable HTTP).

Needs the official MCP SDK (okfpro's ``[mcp]`` extra); without it the verb says how to install it
and exits 2.  The SDK is imported here only, never on another verb's or a hook's path.
"""

from __future__ import annotations

import click

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

from okfpro.cli.common import bundle_for, fail


@click.command("mcp")
@click.option("--bundle", "bundle_dir", metavar="DIR", help="The bundle (default: $OKFPRO_BUNDLE, else the one enclosing cwd).")
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP instead of stdio (needs a token file: --new-token).")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to bind (every request needs a bearer token: see --new-token).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="HTTP: the port.")
@click.option("--tokens", "tokens_file", metavar="FILE",
              help="HTTP: bearer tokens (sha256 hashes) mapped to identities; default [mcp] tokens in okfpro.toml.")
@click.option("--new-token", "new_token", is_flag=True,
              help="Mint a token for --user/--tenant/--agent into the tokens file, print it once, and exit.")
@click.option("--user", "tok_user", metavar="U", help="With --new-token: the token's user.")
@click.option("--tenant", "tok_tenant", metavar="T", help="With --new-token: the token's tenant.")
@click.option("--agent", "tok_agent", metavar="A", help="With --new-token: the token's agent.")
def mcp_cmd(bundle_dir, http, host, port, tokens_file, new_token, tok_user, tok_tenant, tok_agent) -> int:
    """Serve this workspace over the Model Context Protocol (stdio by default).

    Tools: search, read, catalog, index, graph, references, stats, tags, types, dirs, log, bundles,
    state, board, snapshot, validate, lint, audit; capture, promote, demote, journal_open, close;
    memory_remember, memory_recall, memory_list, memory_forget.  Resources: okf://<workspace>/<concept
    id>, board, log.  The memory scope comes from the host, okfpro.toml and the environment (over
    HTTP: from the bearer token), never from a tool argument.  HTTP always needs a token file
    (--new-token mints one).
    """
    import importlib.util

    try:  # the SDK, asked for first so its absence is named; imported (~1 s) only to serve
        present = importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        present = False
    if not present:
        _no_sdk("mcp")
    from okfpro.mcp import app

    root = bundle_for(bundle_dir, env=True).root
    try:
        if new_token:
            token, path = app.mint_token(root, tokens_file, tenant=tok_tenant, user=tok_user, agent=tok_agent)
            click.echo(f"okfpro mcp: token for {app.describe_identity(tok_tenant, tok_user, tok_agent)} added to {path} "
                       "(only its hash is stored; this is the one time it is shown):", err=True)
            click.echo(token)
            return 0
        if http:
            app.run_http(root, host=host, port=port, tokens_file=tokens_file)
        else:
            app.run_stdio(root)
    except app.ServeError as exc:
        fail(str(exc))
    except ImportError as exc:  # a part of the SDK (or of what it needs) missing: found above, not importable
        if (exc.name or "").startswith("okfpro"):
            raise
        _no_sdk(exc.name or str(exc))
    except KeyboardInterrupt:
        pass
    return 0


def _no_sdk(what: str) -> NoReturn:
    from okfpro.io.installed import install_hint

    fail(f"the MCP SDK is not installed ({what}); install it with: {install_hint('mcp')}")
