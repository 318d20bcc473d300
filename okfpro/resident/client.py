"""Hand a per-event command to the resident okfpro, or say that none took it.

:func:`forward` is called by :func:`okfpro.__main__.main` on the paths a host, Git or a script
starts once per event (``hook``, ``merge-file``, ``memory remember|recall``).  It connects to the
server of this installation and interpreter (:func:`socket_path`: the name carries a stamp of the
interpreter, its flags, its ``sys.path`` and okfpro's version and location), sends the command line,
the environment, the working directory, the umask and the three standard descriptors, and waits
for the exit status of the child the server forked for it.  The child runs
``okfpro.__main__.main`` as this process would have; its output goes straight to this process's
descriptors.

``None`` means no server took the request and nothing ran: the caller answers in-process, as
without a server.  That is every case before the server says it forked a child: no socket, a
refused or foreign connection, a server of another user, a server that declined (busy, its code
changed on disk), or one that closed the connection first.  On a missing socket a server is
started in the background for the next request (:func:`start`), at most once per
:data:`START_PAUSE`.  Once a child was forked, a server that vanishes or a child killed by a
signal is a crash, answered as the hook door answers one: a gate refuses (exit 2), feedback
says why and lets the agent go on (exit 0), a memory verb could not run (exit 2).

This module is on the per-event path: it imports ``_socket`` (2 M instructions) and nothing else
that is not loaded already.  ``OKFPRO_RESIDENT=0`` (or ``off``) turns it off;
``OKFPRO_RESIDENT_DIR`` names the socket directory (default ``<user cache dir>/run``).
"""

from __future__ import annotations

import os
import sys

from okfpro.resident.wire import PROTOCOL

ENV = "OKFPRO_RESIDENT"
DIR_ENV = "OKFPRO_RESIDENT_DIR"
START_PAUSE = 10.0  # seconds between two attempts to start the server of one stamp
MAX_PATH = 100  # bytes: an AF_UNIX path is at most 107; a longer one is no server, not a truncated name
# The commands a resident child answers.  PreToolUse is not among them: a fresh process answers it in
# ~1.4x python -c pass (59 M instructions), and the hand-over alone — the client's own start, the fork,
# three wake-ups across processes — costs more than the imports it saves (measured in
# .okf/design/resident-process.md).  Git's merge driver and `hook check NAME` run rarely; they stay fresh.
SERVED_HOOKS = ("session-start", "post-tool-use", "stop", "user-prompt-submit", "session-end")
SERVED_MEMORY = ("remember", "recall")
STATUS = "\x00status"  # a request's command line that asks the server how it is (okfpro resident status)


def enabled(env: os._Environ[str] | dict[str, str] = os.environ) -> bool:
    """On unless turned off; only where the server can run (Linux: ``SO_PEERCRED``)."""
    return sys.platform == "linux" and env.get(ENV, "").strip().lower() not in ("0", "off", "no", "false")


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the working directory was deleted
        return ""


def stamp(path: list[str] | None = None) -> str:
    """What a server must share with this process to answer for it, as 16 hex digits: the
    interpreter and its flags, the import path (less the working directory, which ``-m`` puts
    first, and a script's folder, which Python puts first: the ``okfpro`` script's and a launcher's
    share one server), okfpro's location and version, the user, the locale the interpreter started
    with (a child keeps its server's).  LookupError when this process
    found okfpro through that first folder (a checkout's working directory): no server would."""
    import okfpro
    from okfpro.core.digest import blake2b

    path = import_path() if path is None else path
    if os.path.dirname(os.path.dirname(okfpro.__file__)) not in path:
        raise LookupError("okfpro was imported through the folder Python put first, which no server has")
    parts = (
        PROTOCOL, sys.executable, sys.version, okfpro.__file__, okfpro.__version__,
        path, repr(sys.flags), sys.warnoptions, sorted(sys._xoptions.items(), key=repr), os.getuid(),
        sys.getfilesystemencoding(), [os.environ.get(name) for name in ("LC_ALL", "LC_CTYPE", "LANG")],
    )
    return blake2b(repr(parts).encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()


def import_path() -> list[str]:
    """``sys.path`` less the entry Python put first for this start (``-c``'s ``''``, ``-m``'s working
    directory, a script's folder), when it is still there."""
    here = _cwd()
    script = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    path = list(sys.path)
    if path and not sys.flags.safe_path and path[0] in ("", here, script):
        del path[0]
    return path


def socket_dir() -> str:
    chosen = os.environ.get(DIR_ENV, "").strip()
    if chosen:
        return chosen
    from okfpro.io.cachedir import user_cache_dir

    return os.path.join(user_cache_dir(), "run")


def private(directory: str) -> bool:
    """A directory of this user that nobody else may enter or write (not a symlink)."""
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    return st.st_mode & 0o170000 == 0o040000 and st.st_uid == os.getuid() and not st.st_mode & 0o077


def socket_path() -> str | None:
    """This interpreter's socket (None when the path would be too long for ``AF_UNIX``)."""
    where = os.path.join(socket_dir(), f"okfpro-{stamp()}.sock")
    return where if len(os.fsencode(where)) <= MAX_PATH else None


def served_path(args: list[str]) -> bool:
    """Whether ``args`` is a command a resident child answers (:data:`SERVED_HOOKS`, :data:`SERVED_MEMORY`)."""
    if len(args) < 2:
        return False
    if args[0] == "hook":
        return args[1] in SERVED_HOOKS
    return args[0] == "memory" and args[1] in SERVED_MEMORY


def _own_streams() -> bool:
    """Whether ``sys.stdin``/``stdout``/``stderr`` are descriptors 0, 1 and 2 (or absent): what the
    child is handed.  A caller that put other streams there (a string buffer, a test's capture)
    is answered in-process, where those streams are read and written."""
    for fd, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        if stream is None:
            continue
        try:
            if stream.fileno() != fd:
                return False
        except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
            return False
    return True


def forward(args: list[str]) -> int | None:
    """The exit status of the resident child that answered ``args``, or None (answer in-process)."""
    if not (served_path(args) and enabled() and _own_streams()):
        return None
    try:
        where = socket_path()
    except Exception:  # noqa: BLE001 - no stamp, no server: the fresh process answers
        return None
    if where is None:
        return None
    if not private(os.path.dirname(where)):
        start(where)  # makes the folder when it is missing; never uses one that is not private
        return None
    sock = connect(where, start_missing=True)
    if sock is None:
        return None
    try:
        answer = _exchange(sock, args)
    except OSError:
        return None
    finally:
        sock.close()
    return answer if isinstance(answer, int) else None


def status(where: str) -> str | None:
    """The server's own line about itself (``pid= served= running= watched=``), or None."""
    sock = connect(where, start_missing=False)
    if sock is None:
        return None
    try:
        answer = _exchange(sock, [STATUS])
    except OSError:
        return None
    finally:
        sock.close()
    return answer if isinstance(answer, str) else None


def connect(where: str, start_missing: bool = False):  # noqa: ANN201 - a socket of the C module
    """A connection to the server at ``where`` when a process of this user answers there, else
    None (and, with ``start_missing``, a server started when nothing listens there)."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
    try:
        sock.connect(where)
        cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        if int.from_bytes(cred[4:8], sys.byteorder) == os.geteuid():
            return sock
    except (FileNotFoundError, ConnectionRefusedError):
        if start_missing:
            start(where)
    except OSError:
        pass
    sock.close()  # nothing there, or a socket in our folder answered by another user: never ours
    return None


def _streams() -> tuple:
    out: list[tuple | None] = []
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if stream is None:
            out.append(None)
        else:
            out.append((getattr(stream, "encoding", None) or "utf-8", getattr(stream, "errors", None) or "strict",
                        bool(getattr(stream, "line_buffering", False)), bool(getattr(stream, "write_through", False))))
    return tuple(out)


def _exchange(sock, args: list[str]) -> int | str | None:  # noqa: ANN001 - the C module's socket
    from okfpro.resident import wire

    fds, present = [], []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            present.append(False)
            continue
        fds.append(fd)
        present.append(True)
    cwd_fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fds.append(cwd_fd)
    mask = os.umask(0o022)
    os.umask(mask)
    request = (PROTOCOL, list(args), dict(os.environ), list(sys.argv), list(sys.path), tuple(present), _streams(),
               mask, _cwd())
    try:
        wire.send(sock, request, fds)
    finally:
        os.close(cwd_fd)
    accepted = False
    pending = b""
    while True:
        try:
            chunk = sock.recv(4096)
        except OSError:  # reset: as the connection closing
            chunk = b""
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            word, _, rest = line.decode("ascii", "replace").partition(" ")
            if word == "A":
                accepted = True
            elif word == "S" and args == [STATUS]:
                return rest
            elif word == "R" and not accepted:
                return None  # declined before anything ran
            elif word == "X" and accepted:
                how, _, value = rest.partition(" ")
                if how == "exit":
                    return int(value)
                return _crashed(args, f"the resident okfpro's child was killed by signal {value}")
    if not accepted:
        return None
    return _crashed(args, "the resident okfpro went away before its child answered")


def _crashed(args: list[str], why: str) -> int:
    """A forked child that did not answer: what the hook door does with a crash."""
    if args and args[0] == "hook":
        from okfpro.hooks.protocol import FEEDBACK_EVENTS  # the door's own table (it imports only sys)

        event = args[1]  # a served hook is `hook EVENT` (SERVED_HOOKS)
        if event in FEEDBACK_EVENTS:
            _say(f"okfpro: hook {event} could not answer — {why}. Only this advisory hook is affected.")
            return 0
        _say(f"ENFORCEMENT DEGRADED — {why}; nothing was checked, so the call is refused (exit 2). "
             f"Set {ENV}=0 to answer every event in a fresh process.")
        return 2
    _say(f"okfpro: {' '.join(args[:2])} could not run — {why}. Run it again, or set {ENV}=0.")
    return 2


def _say(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass


def start(where: str) -> None:
    """Start the server for ``where`` in the background, unless one was started in the last
    :data:`START_PAUSE` seconds (``<socket>.start``) or its directory cannot be made private.
    This request is answered in-process either way; the next one may find the server."""
    import time

    directory = os.path.dirname(where)
    marker = where + ".start"
    try:
        if time.time() - os.lstat(marker).st_mtime < START_PAUSE:
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not private(directory):
            return
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.close(fd)
        os.utime(marker)
        import marshal
        import subprocess

        flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]  # private, stable: what multiprocessing uses
        if sys.flags.safe_path and "-P" not in flags:
            flags.append("-P")
        argv = [sys.executable, *flags, "-c",
                "import marshal, sys; sys.path[:] = marshal.loads(bytes.fromhex(sys.argv[1])); "
                "from okfpro.resident.server import main; main(sys.argv[2])",
                marshal.dumps(import_path()).hex(), where]
        env = dict(os.environ)
        if "utf8" not in sys._xoptions:  # the mode this process runs in, whatever its environment says now
            env["PYTHONUTF8"] = str(sys.flags.utf8_mode)
        log = where[: -len(".sock")] + ".log"
        os.posix_spawn(sys.executable, argv, env, setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600),
        ])
    except Exception:  # noqa: BLE001 - no server: every request is answered in-process, as before
        return
