"""Bearer tokens for the HTTP transport: a server-side file maps token hashes to identities.

File (JSON, mode 0600, never committed — the default lives under the workspace's ``.tmp/``)::

    {"tokens": [{"sha256": "<hex of sha256(token)>", "tenant": "acme", "user": "alice", "agent": null,
                 "label": "alice's laptop"}]}

Only hashes are stored; a token is shown once, when minted.  The file is re-read when it
changes (size, mtime, inode), so a removed line revokes its token on the next request.
An entry whose identity is not a valid scope is refused at load (the whole file is
refused: a half-read token file must not serve).

Who may write the file decides who is let in, so it is judged as ssh judges
``authorized_keys`` (:func:`read_secure`), at start and on every request: the file and its
directory must be owned by the server's user and writable by nobody else, neither may be a
symlink, every directory above must be owned by that user or root and writable by nobody
else (a root-owned sticky directory such as ``/tmp`` excepted), and no symlink on the way may
belong to another user.  The directory is opened once (``O_NOFOLLOW``), the file is opened
once inside it (``openat``, ``O_NOFOLLOW``) and judged and read through that one descriptor,
so a file swapped between the check and the read is the file that was checked.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
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
        self._key: tuple[int, ...] | None = None
        self._table: dict[str, Identity] = {}
        self._lock = threading.Lock()
        self.load()  # a bad file refuses to start the server

    def load(self) -> dict[str, Identity]:
        with self._lock:
            text, key = read_secure(self.path, self._key)
            if text is not None:
                self._table = parse(text, str(self.path))
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
    path = Path(os.path.abspath(path))
    path.parent.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.parent.mkdir(mode=0o700)  # a directory we make is ours alone
    except FileExistsError:
        pass
    check_directory(path.parent)  # never write a token into a directory someone else can change
    with locked(path.with_suffix(path.suffix + ".lock")):
        rows = []
        if os.path.lexists(path):
            text, _ = read_secure(path, None)  # refuse to extend a broken or foreign file
            parse(text or "", str(path))
            rows = json.loads(text or "")["tokens"]
        rows.append({"sha256": digest(token), "tenant": ident.tenant, "user": ident.user, "agent": ident.agent,
                     "label": label})
        atomic_write(path, json.dumps({"tokens": rows}, indent=2) + "\n", mode=0o600)
    return token


# --------------------------------------------------------------------------- who may write the file

MAX_FILE_BYTES = 4 * 1024 * 1024


def _me() -> str:
    import pwd

    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _judge(what: str, path: str, st: os.stat_result, *, root_ok: bool) -> None:
    # root_ok: a directory above the token file's own may be root's, and a root-owned sticky one
    # (/tmp) may be writable by all: no one else can rename or remove what is ours in it
    """Refuse ``path`` (already opened or lstat'ed as ``st``) that someone else owns or can write."""
    uid = os.geteuid()
    owners = (uid, 0) if root_ok else (uid,)
    if st.st_uid not in owners:
        raise TokenFileError(f"refusing the token file: {what} {path} is owned by uid {st.st_uid}, not by you "
                             f"({_me()}), so its owner decides who is let in; fix: `chown {_me()} {path}` "
                             "(as root), or keep the tokens somewhere of your own (--tokens FILE)")
    sticky_root = root_ok and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX and st.st_uid == 0
    if st.st_mode & 0o022 and not sticky_root:
        raise TokenFileError(f"refusing the token file: {what} {path} is writable by group or others "
                             f"(mode {stat.S_IMODE(st.st_mode):04o}), so they could add a token of their own; "
                             f"fix: `chmod go-w {path}`")


def _judge_way(directory: str) -> None:
    """Every directory above ``directory`` (resolved) and every symlink on the way to it (as spelled)."""
    spelled = os.path.abspath(directory)
    parts = spelled.split(os.sep)
    for i in range(2, len(parts)):  # the symlinks on the way as the path spells it
        prefix = os.sep.join(parts[:i]) or os.sep
        try:
            st = os.lstat(prefix)
        except OSError as exc:
            raise TokenFileError(f"refusing the token file: cannot inspect {prefix} ({exc.strerror})") from None
        if stat.S_ISLNK(st.st_mode) and st.st_uid not in (os.geteuid(), 0):
            raise TokenFileError(f"refusing the token file: {prefix} on its way is a symlink owned by uid "
                                 f"{st.st_uid}, who can point it anywhere; fix: name the real path (--tokens)")
    real = os.path.realpath(spelled)
    for up in list(Path(real).parents):
        try:
            st = os.stat(up)
        except OSError as exc:
            raise TokenFileError(f"refusing the token file: cannot inspect {up} ({exc.strerror})") from None
        _judge("the directory above it", str(up), st, root_ok=True)


def _open_directory(directory: Path) -> int:
    name = str(directory)
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        raise TokenFileError(f"token file directory {name} does not exist") from None
    if stat.S_ISLNK(st.st_mode):
        raise TokenFileError(f"refusing the token file: its directory {name} is a symlink (it could be pointed "
                             f"elsewhere); fix: keep the file in a real directory of your own, mode 0700, and name "
                             "that path (--tokens)")
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise TokenFileError(f"refusing the token file: cannot open its directory {name} ({exc.strerror})") from None
    try:
        _judge("its directory", name, os.fstat(fd), root_ok=False)
        _judge_way(name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_directory(directory: Path) -> None:
    """The rules for the token file's directory, before a token is written into it."""
    os.close(_open_directory(Path(os.path.abspath(directory))))


def read_secure(path: Path, known: tuple[int, ...] | None) -> tuple[str | None, tuple[int, ...]]:
    """The token file's text (``None`` when its identity is still ``known``) and that identity.

    Raises :class:`TokenFileError` naming the fix for a file or directory another user can change."""
    path = Path(os.path.abspath(path))
    dfd = _open_directory(path.parent)
    try:
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:
            raise TokenFileError(f"token file {path} does not exist") from None
        except OSError as exc:
            if os.path.islink(path):
                raise TokenFileError(f"refusing the token file: {path} is a symlink (whoever controls its target "
                                     f"controls who is let in); fix: replace it with the file itself "
                                     f"(`okfpro mcp --new-token` writes one, mode 0600)") from None
            raise TokenFileError(f"cannot open token file {path} ({exc.strerror})") from None
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TokenFileError(f"refusing the token file: {path} is not a regular file")
        _judge("the token file", str(path), st, root_ok=False)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if key == known:
            return None, key
        if st.st_size > MAX_FILE_BYTES:
            raise TokenFileError(f"token file {path} is over {MAX_FILE_BYTES} bytes")
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            if sum(map(len, chunks)) > MAX_FILE_BYTES:
                raise TokenFileError(f"token file {path} is over {MAX_FILE_BYTES} bytes")
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8"), key
    except UnicodeDecodeError as exc:
        raise TokenFileError(f"token file {path} is not UTF-8 ({exc.reason})") from None
