"""The resident okfpro: one process per stamp that keeps okfpro imported and forks a child per request.

Started in the background by the first request that finds no server (:func:`okfpro.resident.client.start`),
or by ``okfpro resident start``.  It:

1. checks that its own stamp is the one in the socket's name (the client's interpreter, flags,
   import path and okfpro), takes ``<socket>.lock`` (one server per stamp; a second exits), imports
   the modules the per-event paths use, builds every regular expression their recipes name
   (:mod:`okfpro.core.rx`), and freezes the heap for the garbage collector;
2. binds ``<socket>`` (0600, in a directory only its owner may enter) and answers each connection
   from a process of the same user (``SO_PEERCRED``; any other is closed unread): it reads the
   request (command line, environment, working directory, umask, standard descriptors), says ``R``
   (declined: busy, or its code changed on disk — then it exits) or forks a child and says ``A``;
3. the child becomes the client's process as a fresh interpreter would be and runs
   ``okfpro.__main__.main`` (:mod:`okfpro.resident.child`);
4. when the child ends, the server sends ``X exit N`` (or ``X signal N``); when the client goes away
   first (its host timed out and killed it), the child's process group is killed;
5. exits after :data:`IDLE` seconds without a request, on ``SIGTERM`` (after its children end),
   or when okfpro's code changes on disk.

Nothing but the imported modules is shared between requests: the server never runs a request's
code itself, so no cache a request fills survives it.  See ``.okf/design/resident-process.md``.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from typing import Any, Protocol

from okfpro.resident import child as becoming
from okfpro.resident import client


class Watches(Protocol):
    """What the server asks of its file watcher (okfpro/resident/watch.py)."""

    def fileno(self) -> int | None: ...
    def drain(self) -> None: ...
    def add(self, root: str) -> None: ...
    def roots(self) -> list[str]: ...
    def token(self, root: str) -> str | None: ...
    def changes_since(self, root: str, token: str | None) -> set[str] | None: ...
    def settle(self, root: str, token: str) -> None: ...
    def detach(self) -> None: ...
    def close(self) -> None: ...

IDLE = 600.0  # seconds without a request before the server exits ($OKFPRO_RESIDENT_IDLE)
MAX_CHILDREN = 32  # requests answered at once; one more is declined (answered in-process)
REQUEST_LIMIT = 8 << 20  # bytes of one request (the environment included)
READ_TIMEOUT = 5.0  # seconds for a client to send its request once connected
TELL_LIMIT = 1 << 16  # bytes a child may send its server
# What the server imports before its first child: okfpro's pure core and hook door whole, and the entry
# modules of the memory verbs and the merge driver with what they import.  Not all of okfpro: the Git
# transport, the doctor and the scaffold pull pygit2, ssl and subprocess, which no per-event path needs,
# and every page the server holds is a page each fork maps (39 MB warm against 20).  What a child
# imports beyond this it reports, and the server imports it for the next one (:meth:`Server._learn`).
WARM_PACKAGES = ("okfpro.core", "okfpro.hooks")
WARM_MODULES = (
    "okfpro.__main__", "okfpro.cli.memverbs", "okfpro.io.mergedriver", "okfpro.io.rxcache",
    "okfpro.memory.recall", "okfpro.memory.store", "okfpro.memory.capture", "okfpro.memory.door",
    "okfpro.memory.index", "okfpro.memory.ranking", "okfpro.memory.views", "okfpro.memory.telemetry",
    "okfpro.io.fts", "okfpro.io.analysis", "okfpro.io.workstate", "okfpro.io.friction", "okfpro.io.tail",
    "okfpro.io.spawn", "okfpro.io.identity", "okfpro.io.bundle", "okfpro.io.cache", "okfpro.io.config",
    "okfpro.io.reader", "okfpro.io.rule1state", "okfpro.memory.history", "okfpro.memory.loose",
    "okfpro.memory.policy", "okfpro.cli.common", "atexit", "struct", "binascii", "mmap",
)
LEARN_LIMIT = 400  # module names a child may report


def log(text: str) -> None:
    try:
        sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - the log is best effort
        pass


def warm() -> None:
    """Import what the per-event paths import, build their regular expressions, and read the
    installed distributions' entry points (:func:`okfpro.io.identity.remember_declared`)."""
    import importlib
    import pkgutil

    for name in WARM_PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__, name + "."):
            try:
                importlib.import_module(info.name)
            except Exception as exc:  # noqa: BLE001 - a module a path does not need: imported on use
                log(f"not preloaded: {info.name} ({type(exc).__name__}: {exc})")
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - imported by the child that needs it
            log(f"not preloaded: {name} ({type(exc).__name__}: {exc})")
    _warm_patterns()
    try:  # the installed distributions' entry points, stamped: a child checks the stamps, not ~60 files
        from okfpro.io import identity

        identity.remember_declared()
    except Exception as exc:  # noqa: BLE001 - a child reads them, as a fresh process does
        log(f"identity entry points not read ahead: {type(exc).__name__}: {exc}")
    import gc

    gc.collect()
    gc.freeze()


def _warm_patterns() -> None:
    """Every literal pattern the recipe files of this build name, compiled once for all children.
    The recipes themselves are dropped again: a child reads its own path's file, as a fresh
    process does, so what it keeps at exit is what that path compiles."""
    import glob

    from okfpro.core import rx
    from okfpro.io import rxcache

    first = rxcache.path("cli")
    for where in glob.glob(glob.escape(first[: -len("cli.bin")]) + "*.bin"):
        rx.use(rxcache.read(where))
    for key in list(rx.recipes()):
        try:
            rx.compile(*key)
        except Exception:  # noqa: BLE001 - a pattern this build refuses: a child compiles it on use
            pass
    rx._recipes.clear()
    rx._missed.clear()


def code_files() -> dict[str, tuple[int, int, int]]:
    """Every loaded okfpro source file -> (inode, size, mtime): the code a child would run."""
    import okfpro

    root = os.path.dirname(os.path.abspath(okfpro.__file__)) + os.sep
    files: dict[str, tuple[int, int, int]] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.abspath(path).startswith(root):
            try:
                st = os.stat(path)
            except OSError:
                continue
            files[path] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return files


def _files_unchanged(files: dict[str, tuple[int, int, int]]) -> bool:
    for path, seen in files.items():
        try:
            st = os.stat(path)
        except OSError:
            return False
        if (st.st_ino, st.st_size, st.st_mtime_ns) != seen:
            return False
    return True


class Child:
    __slots__ = ("pid", "conn", "tell_fd", "told", "gone")

    def __init__(self, pid: int, conn: socket.socket, tell_fd: int) -> None:
        self.pid, self.conn, self.tell_fd, self.gone = pid, conn, tell_fd, False
        self.told = bytearray()  # what the child sent its server so far (Served.tell)
        os.set_blocking(tell_fd, False)

    def hear(self) -> list:
        """Read what the child has told so far (at most :data:`TELL_LIMIT` bytes in all); its messages."""
        import marshal

        try:
            while len(self.told) < TELL_LIMIT:
                chunk = os.read(self.tell_fd, TELL_LIMIT)
                if not chunk:
                    break
                self.told += chunk
        except OSError:  # nothing more for now
            pass
        messages, data = [], bytes(self.told)
        while len(data) >= 4:
            size = int.from_bytes(data[:4], "little")
            if len(data) < 4 + size:
                break
            try:
                messages.append(marshal.loads(data[4:4 + size]))
            except (ValueError, EOFError, TypeError):
                break
            data = data[4 + size:]
        return messages


def _pdeathsig() -> Any:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)`` for the children, or None where there is no prctl."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except Exception:  # noqa: BLE001
        return None


class Server:
    def __init__(self, listener: socket.socket, where: str, lock: int = -1) -> None:
        import select

        self.lock = lock
        self.listener: socket.socket | None = listener
        self.where = where
        self.bound = os.stat(where).st_ino
        self.pid = os.getpid()
        self.poll = select.poll()
        self.children: dict[int, Child] = {}  # pid -> child
        # A child's end wakes the loop through SIGCHLD's wake-up descriptor (portable, unlike pidfd_open,
        # which old kernels and valgrind lack); the loop then reaps every child that ended.
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.by_conn: dict[int, Child] = {}  # connection fd -> child
        self.stopping = False
        self.code = code_files()
        self.prctl = _pdeathsig()
        self.idle = _idle()
        self.last = time.monotonic()
        self.watches: Watches | None = _watches()
        import okfpro

        self.package = os.path.dirname(os.path.realpath(okfpro.__file__))
        self.code_token: str | None = None
        if self.watches is not None:  # okfpro's own code, watched: a request then costs no stat of it
            try:
                self.watches.add(self.package)
                self.code_token = self.watches.token(self.package)
            except Exception as exc:  # noqa: BLE001 - every request stats the code instead
                log(f"okfpro's code is not watched: {type(exc).__name__}: {exc}")
        self.served = 0  # children forked
        self.learned = 0  # modules imported because a child needed them

    def _watched(self) -> int:
        try:
            return len(self.watches.roots()) if self.watches is not None else 0
        except Exception:  # noqa: BLE001 - a report
            return 0

    # ---- the loop
    def run(self) -> None:
        import select
        import signal

        def stop(signum: int, frame: object) -> None:
            self.stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        self.poll.register(self.wake_r, select.POLLIN)
        assert self.listener is not None
        listen_fd = self.listener.fileno()
        self.poll.register(listen_fd, select.POLLIN)
        watch_fd = self.watches.fileno() if self.watches is not None else None
        if watch_fd is not None:
            self.poll.register(watch_fd, select.POLLIN)
        try:
            while True:
                if self.stopping and self.listener is not None:
                    self._close_listener()
                if (self.stopping or self.listener is None) and not self.children:
                    return
                timeout = None
                if not self.children and not self.stopping:
                    left = self.idle - (time.monotonic() - self.last)
                    if left <= 0:
                        log("idle: exiting")
                        return
                    timeout = int(left * 1000) + 1
                try:
                    ready = self.poll.poll(timeout)
                except InterruptedError:
                    continue
                # A connection's event is for the child it belonged to when poll answered: handling an
                # earlier event (a reaping closes a connection, an accept reuses its number) must not
                # turn it into an event of the next request on the same descriptor number.
                owners = {fd: self.by_conn.get(fd) for fd, _mask in ready}
                for fd, _mask in ready:
                    if self.listener is not None and fd == listen_fd:
                        self._accept()
                    elif fd == watch_fd:
                        self._drain()
                    elif fd == self.wake_r:
                        self._reap_all()
                    elif owners[fd] is not None and self.by_conn.get(fd) is owners[fd]:
                        self._client_gone(fd)
        finally:
            self._close_listener()
            if self.watches is not None:
                self.watches.close()

    def _close_listener(self) -> None:
        if self.listener is None:
            return
        try:
            self.poll.unregister(self.listener.fileno())
        except (KeyError, ValueError):
            pass
        try:
            if os.stat(self.where).st_ino == self.bound:
                os.unlink(self.where)
        except OSError:
            pass
        self.listener.close()
        self.listener = None

    def _drain(self) -> None:
        if self.watches is None:
            return
        try:
            self.watches.drain()
        except Exception as exc:  # noqa: BLE001 - a watcher that fails watches nothing more
            log(f"watcher failed, turned off: {type(exc).__name__}: {exc}")
            self._drop_watches()

    def _drop_watches(self) -> None:
        if self.watches is None:
            return
        fd = self.watches.fileno()
        if fd is not None:
            try:
                self.poll.unregister(fd)
            except (KeyError, ValueError):
                pass
        try:
            self.watches.close()
        except Exception:  # noqa: BLE001
            pass
        self.watches = None

    # ---- one request
    def _accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _addr = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            uid = int.from_bytes(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)[4:8], sys.byteorder)
            if uid != os.geteuid():
                log(f"refused a connection from uid {uid}")
                conn.close()
                return
            conn.settimeout(READ_TIMEOUT)
            request, fds = self._receive(conn)
            conn.settimeout(None)  # the request is in: the connection lives as long as its child
            if request[1] == [client.STATUS]:
                conn.sendall(f"S pid={self.pid} served={self.served} running={len(self.children)} "
                             f"watched={self._watched()} learned={self.learned}\n".encode())
                conn.close()
                return
            reason = self._decline()
            if reason:
                conn.sendall(f"R {reason}\n".encode())
                conn.close()
                return
            self._fork(conn, request, fds)
        except Exception as exc:  # noqa: BLE001 - one bad request never stops the server
            log(f"request dropped: {type(exc).__name__}: {exc}")
            conn.close()
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _receive(self, conn: socket.socket) -> tuple[tuple, list[int]]:
        import marshal

        fds: list[int] = []
        data, ancillary, _flags, _addr = conn.recvmsg(1 << 16, socket.CMSG_SPACE(8 * 4), socket.MSG_CMSG_CLOEXEC)
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                fds.extend(int.from_bytes(payload[i:i + 4], sys.byteorder, signed=True) for i in range(0, usable, 4))
        try:
            if len(data) < 4:
                raise ValueError("short request")
            size = int.from_bytes(data[:4], "little")
            if size > REQUEST_LIMIT:
                raise ValueError(f"request of {size} bytes")
            body = bytearray(data[4:])
            while len(body) < size:
                chunk = conn.recv(min(1 << 20, size - len(body)))
                if not chunk:
                    raise ValueError("torn request")
                body += chunk
            request = marshal.loads(bytes(body[:size]))
            if not (isinstance(request, tuple) and len(request) == 9 and request[0] == client.PROTOCOL):
                raise ValueError("not this protocol")
            present = request[5]
            if not (isinstance(present, tuple) and len(present) == 3 and len(fds) == sum(map(bool, present)) + 1):
                raise ValueError("descriptors do not match the request")
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        return request, fds

    def _decline(self) -> str | None:
        """Why this request is not taken now (answered in-process by its client), or None."""
        if self.stopping:
            return "stopping"
        if len(self.children) >= MAX_CHILDREN:
            return "busy"
        if not self._same_code():
            log("okfpro's code changed on disk: exiting")
            self.stopping = True
            return "stale"
        return None

    def _same_code(self) -> bool:
        """okfpro's loaded source files are as they were: the watch says nothing changed in the
        package since its token, else every file's (inode, size, mtime) is compared (and, when
        equal — bytecode written beside them, a git operation in a checkout — the token renewed)."""
        if self.watches is not None and self.code_token is not None:
            self._drain()
            if self.watches.changes_since(self.package, self.code_token) == set():
                return True
        if not _files_unchanged(self.code):
            return False
        if self.watches is not None and self.code_token is not None:
            self.code_token = self.watches.token(self.package)
        return True

    def _fork(self, conn: socket.socket, request: tuple, fds: list[int]) -> None:
        import select

        if self.watches is not None:
            self._drain()
        tell_r, tell_w = os.pipe()
        go_r, go_w = os.pipe()  # the child starts only once the server has it in hand and told the client
        pid = os.fork()
        if pid == 0:
            os.close(go_w)
            self._child(conn, request, fds, tell_r, tell_w, go_r)  # never returns
        os.close(tell_w)
        os.close(go_r)
        try:
            try:
                os.setpgid(pid, pid)
            except OSError:  # the child did it first
                pass
            child = Child(pid, conn, tell_r)
            self.children[pid] = child
            self.by_conn[conn.fileno()] = child
            self.poll.register(conn.fileno(), select.POLLIN | select.POLLHUP)
        except BaseException:  # the child never ran: the client hears nothing and answers in-process
            os.close(go_w)
            self.children.pop(pid, None)
            self.by_conn.pop(conn.fileno(), None)
            os.kill(pid, 9)  # reaped by the loop, which reads nothing from it
            raise
        self.served += 1
        self.last = time.monotonic()
        try:
            conn.sendall(f"A {pid}\n".encode())
        except OSError:
            self._client_gone(conn.fileno())
        try:
            os.write(go_w, b"g")
        except OSError:
            pass  # the child is gone already (killed before it began): its reaping says how it ended
        finally:
            os.close(go_w)

    def _client_gone(self, fd: int) -> None:
        child = self.by_conn.get(fd)
        if child is None:
            return
        if not hung_up(child.conn):
            return  # a spurious wake-up
        self.by_conn.pop(fd, None)
        try:
            self.poll.unregister(fd)
        except (KeyError, ValueError):
            pass
        child.gone = True
        if any(isinstance(m, tuple) and m[:1] == ("answered",) for m in child.hear()):
            return  # the client heard the answer and left; the child is ending on its own
        log(f"the client of child {child.pid} hung up before it answered: killed")
        import signal

        for kill in (os.killpg, os.kill):
            try:
                kill(child.pid, signal.SIGKILL)
            except OSError:
                pass

    def _reap_all(self) -> None:
        try:
            while os.read(self.wake_r, 4096):
                pass
        except OSError:  # drained
            pass
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is not None:
                self._reap(child, status)

    def _reap(self, child: Child, status: int) -> None:
        if not child.gone:
            self.by_conn.pop(child.conn.fileno(), None)
            try:
                self.poll.unregister(child.conn.fileno())
            except (KeyError, ValueError):
                pass
            if os.WIFEXITED(status):
                answer = f"X exit {os.WEXITSTATUS(status)}\n"
            else:
                answer = f"X signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0}\n"
            try:
                child.conn.sendall(answer.encode())
            except OSError:
                pass
        child.conn.close()
        messages = child.hear()
        os.close(child.tell_fd)
        for message in messages:
            self._obey(message)
        self.last = time.monotonic()

    def _obey(self, message: object) -> None:
        if not (isinstance(message, tuple) and message):
            return
        if message[0] == "imported" and len(message) == 2 and isinstance(message[1], list):
            self._learn(message[1][:LEARN_LIMIT])
            return
        if message[0] == "watch" and len(message) == 2 and isinstance(message[1], str) and self.watches is not None:
            try:
                self.watches.add(message[1])
            except Exception as exc:  # noqa: BLE001 - an unwatchable tree answers "unknown"
                log(f"cannot watch {message[1]!r}: {type(exc).__name__}: {exc}")
        # a child kept an answer computed at a token: drain, and note how far (WatchSet.settle)
        if message[0] == "settled" and len(message) == 3 and all(isinstance(m, str) for m in message[1:]) \
                and self.watches is not None:
            try:
                self.watches.settle(message[1], message[2])
            except Exception as exc:  # noqa: BLE001 - the watcher fails as a drain would
                log(f"watcher failed, turned off: {type(exc).__name__}: {exc}")
                self._drop_watches()

    def _learn(self, names: list) -> None:
        """Import, for the next children, the modules a child had to import itself."""
        import gc
        import importlib

        learned = False
        for name in names:
            if isinstance(name, str) and name not in sys.modules and not name.startswith("__"):
                try:
                    importlib.import_module(name)
                    learned = True
                    self.learned += 1
                except BaseException as exc:  # noqa: BLE001 - a child imports it again; the server carries on
                    log(f"not learned: {name} ({type(exc).__name__}: {exc})")
        if learned:
            # the new modules' files are code a child runs too; a file already known keeps the identity
            # it had when the server loaded it (a change since must still read as a change)
            self.code = {**code_files(), **self.code}
            gc.collect()
            gc.freeze()

    # ---- in the child
    def _child(self, conn: socket.socket, request: tuple, fds: list[int], tell_r: int, tell_w: int, go: int) -> None:
        becoming.run(request, fds, conn, tell_w, go, self.pid, self.prctl, self.watches,
                  lambda: self._let_go(conn, tell_r))

    def _let_go(self, conn: socket.socket, tell_r: int) -> None:
        """In the child: close what belongs to the server (its socket, other requests, the watcher);
        keep this request's connection."""
        os.close(tell_r)
        if self.lock >= 0:
            os.close(self.lock)
        if self.listener is not None:
            self.listener.close()
        conn.setblocking(True)  # kept: the child says its own exit status (Served.answered)
        import signal

        signal.set_wakeup_fd(-1)
        for fd in (self.wake_r, self.wake_w):
            os.close(fd)
        for child in self.children.values():
            try:
                os.close(child.tell_fd)
            except OSError:
                pass
            child.conn.close()
        if self.watches is not None:
            self.watches.detach()


def _idle() -> float:
    try:
        return max(1.0, float(os.environ.get("OKFPRO_RESIDENT_IDLE", "") or IDLE))
    except ValueError:
        return IDLE


def _watches() -> Watches | None:
    try:
        from okfpro.resident.watch import WatchSet
    except ImportError:
        return None
    try:
        return WatchSet()
    except Exception as exc:  # noqa: BLE001 - no watcher: every reader does its full work
        log(f"no watcher: {type(exc).__name__}: {exc}")
        return None


def main(where: str, path: list[str] | None = None) -> None:
    """Serve ``where``: the ``python -c`` entry of :func:`okfpro.resident.client.start`, whose
    ``sys.path`` is the client's import path already (``path``: the one to stamp, when it is not)."""
    import fcntl

    os.chdir("/")
    name = os.path.basename(where)
    if name != f"okfpro-{client.stamp(list(sys.path) if path is None else path)}.sock" or not client.private(os.path.dirname(where)):
        log(f"not serving {where}: this interpreter's stamp is not the one in its name, or its folder is not private")
        sys.exit(3)
    lock = os.open(where + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit(0)  # another server has this stamp
    started = time.monotonic()
    warm()
    try:
        os.unlink(where)  # we hold the lock: a socket left here belongs to a server that died
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(where)
    finally:
        os.umask(old)
    listener.listen(64)
    try:
        os.unlink(where + ".start")
    except OSError:
        pass
    log(f"serving {where} (pid {os.getpid()}, warm in {time.monotonic() - started:.2f} s)")
    try:
        Server(listener, where, lock).run()
    finally:
        os.close(lock)
    log("stopped")


def hung_up(conn: socket.socket) -> bool:
    """Has the client closed or reset its end of ``conn``, or said more than its request (not a
    client of this protocol)?  Never waits: a ``recv`` on a socket carrying a timeout polls for that
    long even with ``MSG_DONTWAIT``, which stalled the whole server on a spurious wake-up and took a
    live client for one gone (a request's child killed before it began, CI 2026-12-02)."""
    import select

    probe = select.poll()
    probe.register(conn.fileno(), select.POLLIN | select.POLLHUP)
    if not probe.poll(0):
        return False
    try:
        conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)  # readable: data (more than a request) or the end
    except BlockingIOError:
        return False
    except OSError:
        pass  # reset: gone
    return True
