"""Wire one bundle to a transport: the host facts (workspace, identity, config) and the runners."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from okfpro.mcp import toolkit as _toolkit


class ServeError(Exception):
    """The server cannot start: a message for the person who started it."""


def workspace_of(root: Path) -> Path:
    """The served bundle's workspace, by the rule every door uses (okfpro.io.config.workspace_for)."""
    from okfpro.io.config import workspace_for

    return Path(workspace_for(root))


def bundle_name(workspace: Path) -> str:
    """The ``<bundle>`` of ``okf://<bundle>/<id>``: the workspace directory's name, URI-safe."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", workspace.resolve().name).strip("-.")
    return name or "bundle"


def _config(workspace: Path):
    from okfpro.io import config as config_mod

    try:
        return config_mod.load(workspace)
    except (config_mod.ConfigError, OSError) as exc:
        raise ServeError(str(exc)) from None


def host_scope(workspace: Path):
    """The stdio scope: the same resolution as the CLI (host resolver, okfpro.toml, environment,
    the labelled fallback; refused in multi-user mode without an identity).  Re-resolved per call,
    so an edit of okfpro.toml is seen; nothing a client sends takes part."""

    def source() -> tuple[Any, str | None]:
        from okfpro.memory.door import DoorError, open_door

        try:
            res = open_door(workspace=workspace, bind=False).identity
        except DoorError as exc:
            return None, f"identity: cannot read okfpro.toml ({exc})"
        return res.scope, res.reason

    return source


def make_host(root: Path, *, watch: bool = True) -> _toolkit.Host:
    from okfpro.mcp.watch import Warm

    workspace = workspace_of(root)
    cfg = _config(workspace)
    allow_purge = cfg.get("mcp", "allow_purge", False) is True
    return _toolkit.Host(root=root, workspace=workspace, name=bundle_name(workspace), warm=Warm(root, watch=watch),
                  scope_source=host_scope(workspace), allow_purge=allow_purge)


def run_stdio(root: Path) -> None:
    import anyio

    from okfpro.mcp.server import Session, serve_stdio

    session = Session(make_host(root))
    anyio.run(serve_stdio, session)


# --------------------------------------------------------------------------- HTTP


def default_tokens_path(workspace: Path) -> Path:
    return workspace / ".tmp" / "okfpro-mcp" / "tokens.json"


def tokens_path(workspace: Path, option: str | None) -> Path | None:
    """The token file: ``--tokens``, else ``[mcp] tokens`` in okfpro.toml, else the default if it exists."""
    if option:
        return Path(option)
    configured = _config(workspace).get("mcp", "tokens", None)
    if configured:
        if not isinstance(configured, str):
            raise ServeError("okfpro.toml: [mcp] tokens must be a path")
        p = Path(configured)
        return p if p.is_absolute() else workspace / p
    default = default_tokens_path(workspace)
    return default if default.exists() else None


def mint_token(root: Path, option: str | None, *, tenant: str | None, user: str | None, agent: str | None) -> tuple[str, Path]:
    from okfpro.mcp.tokens import TokenFileError, mint

    workspace = workspace_of(root)
    path = tokens_path(workspace, option) or default_tokens_path(workspace)
    try:
        return mint(path, tenant, user, agent), path
    except TokenFileError as exc:
        raise ServeError(str(exc)) from None


def describe_identity(tenant: str | None, user: str | None, agent: str | None) -> str:
    return "/".join(f"{k}={v}" for k, v in (("tenant", tenant), ("user", user), ("agent", agent)) if v) or "nobody"


def build_http(root: Path, *, host: str, tokens_file: str | None):
    """The Starlette app (and its session) for ``root``.  HTTP always needs bearer tokens: loopback
    is no user boundary (every local OS user can connect to 127.0.0.1), so without a token file the
    server refuses to start and says how to mint one.  The refusals come before the SDK is
    imported (about a second) and before the bundle is loaded."""
    from okfpro.mcp.tokens import TokenFile, TokenFileError

    workspace = workspace_of(root)
    path = tokens_path(workspace, tokens_file)
    if path is None:
        raise ServeError(
            "refusing to serve HTTP without bearer tokens: any local user can connect to a loopback port, and "
            f"would be served as you. Mint one first: `okfpro mcp --bundle {root} --new-token --user NAME` "
            f"(it writes {default_tokens_path(workspace)}, mode 0600, and prints the token once), then start "
            "again with --http and send the token as 'Authorization: Bearer TOKEN'")
    try:
        table = TokenFile(path)
    except (TokenFileError, OSError) as exc:
        raise ServeError(str(exc)) from None
    if not table.load():
        raise ServeError(f"token file {path} holds no token; mint one with `okfpro mcp --new-token --user NAME`")
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings

    from okfpro.mcp.server import Session, build

    base = make_host(root)

    class Verifier:
        def __init__(self, tokens: TokenFile) -> None:
            self.tokens = tokens

        async def verify_token(self, token: str):
            ident = self.tokens.identity(token)
            if ident is None:
                return None
            return AccessToken(token="(hidden)", client_id=describe_identity(ident.tenant, ident.user, ident.agent),
                               scopes=[], claims={"tenant": ident.tenant, "user": ident.user, "agent": ident.agent})

    def scope_for_request(request: Any):
        user = None
        try:
            user = request.scope.get("user") if request is not None else None
        except AttributeError:
            user = None
        token = getattr(user, "access_token", None)
        claims = getattr(token, "claims", None) or {}

        def source():
            if not claims:
                return None, "no bearer identity on this request"
            from okfpro.core.scope import Scope, ScopeError

            try:
                return Scope(claims.get("tenant"), claims.get("user"), claims.get("agent"), None), None
            except ScopeError as exc:
                return None, str(exc)

        return source

    session = Session(base, scope_for_request)
    server = build(session)
    kwargs: dict[str, Any] = {"host": host}
    kwargs.update(auth=AuthSettings.model_validate({"issuer_url": "http://127.0.0.1", "resource_server_url": None}),
                  token_verifier=Verifier(table))
    return server.streamable_http_app(**kwargs), session


def run_http(root: Path, *, host: str, port: int, tokens_file: str | None) -> None:
    app, _ = build_http(root, host=host, tokens_file=tokens_file)
    import uvicorn

    sys.stderr.write(f"okfpro mcp: serving {root} on http://{host}:{port}/mcp\n")
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
