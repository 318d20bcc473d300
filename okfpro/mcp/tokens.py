"""Bearer tokens for the HTTP transport: a server-side file maps token hashes to identities.

File (JSON, mode 0600, never committed — the default lives under the workspace's ``.tmp/``)::

    {"tokens": [{"sha256": "<hex of sha256(token)>", "tenant": "acme", "user": "alice", "agent": null,
                 "label": "alice's laptop"}]}

Only hashes are stored; a token is shown once, when minted.  The file is re-read when it
changes (size, mtime, inode), so a removed line revokes its token on the next request.
An entry whose identity is not a valid scope is refused at load (the whole file is
refused: a half-read token file must not serve).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from pathlib import Path

from okfpro.core.record import Frozen, set_field
from okfpro.core.scope import Scope, ScopeError

PREFIX = "okfpro_"


class TokenFileError(Exception):
    """The token file cannot be used (unreadable, malformed, an invalid identity)."""


class Identity(Frozen):
    __slots__ = _fields = ("tenant", "user", "agent", "label")
    tenant: str | None
    user: str | None
    agent: str | None
    label: str | None

    def __init__(self, tenant: str | None, user: str | None, agent: str | None, label: str | None = None) -> None:
        set_field(self, "tenant", tenant)
        set_field(self, "user", user)
        set_field(self, "agent", agent)
        set_field(self, "label", label)

    def scope(self) -> Scope:
        return Scope(self.tenant, self.user, self.agent, None)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def parse(text: str, where: str) -> dict[str, Identity]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TokenFileError(f"{where} is not JSON ({exc})") from None
    rows = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise TokenFileError(f"{where} must be an object with a 'tokens' list")
    out: dict[str, Identity] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise TokenFileError(f"{where}: tokens[{i}] is not an object")
        h = row.get("sha256")
        if not isinstance(h, str) or len(h) != 64 or any(ch not in "0123456789abcdef" for ch in h):
            raise TokenFileError(f"{where}: tokens[{i}].sha256 must be 64 lowercase hex digits")
        parts = {k: row.get(k) for k in ("tenant", "user", "agent")}
        if not any(parts.values()):
            raise TokenFileError(f"{where}: tokens[{i}] names no identity (tenant, user or agent)")
        try:
            ident = Identity(parts["tenant"] or None, parts["user"] or None, parts["agent"] or None,
                             row.get("label") if isinstance(row.get("label"), str) else None)
            ident.scope()
        except (ScopeError, TypeError) as exc:
            raise TokenFileError(f"{where}: tokens[{i}]: {exc}") from None
        if h in out:
            raise TokenFileError(f"{where}: tokens[{i}] repeats a hash")
        out[h] = ident
    return out


class TokenFile:
    """The identities behind token hashes, re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._key: tuple[int, int, int] | None = None
        self._table: dict[str, Identity] = {}
        self._lock = threading.Lock()
        self.load()  # a bad file refuses to start the server

    def load(self) -> dict[str, Identity]:
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                raise TokenFileError(f"token file {self.path} does not exist") from None
            key = (st.st_size, st.st_mtime_ns, st.st_ino)
            if key != self._key:
                self._table = parse(self.path.read_text(encoding="utf-8"), str(self.path))
                self._key = key
            return self._table

    def identity(self, token: str) -> Identity | None:
        try:
            table = self.load()
        except (TokenFileError, OSError):
            return None  # a file broken after start serves nobody (fail closed)
        return table.get(digest(token))


def mint(path: Path, tenant: str | None, user: str | None, agent: str | None, label: str | None = None) -> str:
    """Add a fresh token for the identity to ``path`` (created 0600); return the token (shown once)."""
    from okfpro.io.atomic import atomic_write, locked

    ident = Identity(tenant or None, user or None, agent or None, label)
    if not any((ident.tenant, ident.user, ident.agent)):
        raise TokenFileError("a token needs an identity: --user (and/or --tenant, --agent)")
    try:
        ident.scope()
    except ScopeError as exc:
        raise TokenFileError(str(exc)) from None
    token = PREFIX + secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path.with_suffix(path.suffix + ".lock")):
        rows = []
        if path.exists():
            parse(path.read_text(encoding="utf-8"), str(path))  # refuse to extend a broken file
            rows = json.loads(path.read_text(encoding="utf-8"))["tokens"]
        rows.append({"sha256": digest(token), "tenant": ident.tenant, "user": ident.user, "agent": ident.agent,
                     "label": label})
        atomic_write(path, json.dumps({"tokens": rows}, indent=2) + "\n", mode=0o600)
    return token
