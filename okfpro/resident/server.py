"""The resident okfpro: one process per stamp that keeps okfpro imported and hands each request to a child.

Started in the background by the first request that finds no server (:func:`okfpro.resident.client.start`),
or by ``okfpro resident start``.  It:

1. checks that its own stamp is the one in the socket's name (the client's interpreter, flags,
   import path and okfpro), takes ``<socket>.lock`` (one server per stamp; a second exits), imports
   the modules the per-event paths use, builds every regular expression their recipes name
   (:mod:`okfpro.core.rx`), and freezes the heap for the garbage collector;
2. binds ``<socket>`` (0600, in a directory only its owner may enter) and answers each connection
   from a process of the same user (``SO_PEERCRED``; any other is closed unread): it reads the
   request (command line, environment, working directory, umask, standard descriptors), says ``R``
   (declined: busy, or its code changed on disk — then it exits) or hands it to a child and says ``A``:
   the child forked ahead of it while nothing ran (a spare, :class:`Spare`) when the server's state
   is still what it was at that fork, else one forked for it;
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
from okfpro.resident import client, preload, wire


class Watches(Protocol):
    """What the server asks of its file watcher (okfpro/resident/watch.py)."""

    def fileno(self) -> int | None: ...
    def drain(self) -> None: ...
    def add(self, root: str) -> None: ...
    def roots(self) -> list[str]: ...
    def token(self, root: str) -> str | None: ...
    def changes_since(self, root: str, token: str | None) -> set[str] | None: ...
    def settle(self, root: str, token: str) -> None: ...
    def fingerprint(self) -> tuple: ...
    def detach(self) -> None: ...
    def close(self) -> None: ...

IDLE = 600.0  # seconds without a request before the server exits ($OKFPRO_RESIDENT_IDLE)
MAX_CHILDREN = 32  # requests answered at once; one more is declined (answered in-process)
READ_TIMEOUT = 5.0  # seconds for a client to send its request once connected
TELL_LIMIT = 1 << 16  # bytes a child may send its server
LEARN_LIMIT = 400  # module names a child may report
REFRESH = 0.05  # seconds of quiet after a change before a spare forked before it is replaced


def log(text: str) -> None:
    try:
        sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - the log is best effort
        pass


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


class Spare:
    """A child forked before its request, waiting for it on ``sock`` (:func:`becoming.standby`).
    ``mark`` is what the server's state was at the fork (:meth:`Server._mark`): a request is handed
    to the spare only while it is still so, for the spare's view of the watched trees is the
    server's at that moment."""

    __slots__ = ("pid", "sock", "tell_fd", "mark")

    def __init__(self, pid: int, sock: socket.socket, tell_fd: int, mark: tuple) -> None:
        self.pid, self.sock, self.tell_fd, self.mark = pid, sock, tell_fd, mark

    def dismiss(self, reaped: bool = False) -> None:
        """Send it away: it ends having run nothing (its reaping is the loop's).  ``reaped``: it
        ended by itself and was reaped already; its pid may be another process's by now."""
        import signal

        self.sock.close()
        os.close(self.tell_fd)
        if not reaped:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass


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
        self.code = preload.code_files()
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
        self.served = 0  # requests handed to a child
        self.ahead = 0  # of those, handed to a child forked before the request (a spare)
        self.learned = 0  # modules imported because a child needed them
        self.spare: Spare | None = None
        self.epoch = 0  # bumped whenever something a child inherits changes, less the watch view (_mark)
        self.seen: tuple = ()  # the last _mark() the loop saw, and since when (_refresh)
        self.changed = 0.0

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
                    due = self._refresh()
                    if due is not None:
                        timeout = min(timeout, due)
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
            self._dismiss_spare()
            self._close_listener()
            if self.watches is not None:
                self.watches.close()

    def _close_listener(self) -> None:
        self._dismiss_spare()
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
            got = wire.receive(conn)
            if got is None:
                raise ValueError("no request")
            request, fds = got
            conn.settimeout(None)  # the request is in: the connection lives as long as its child
            if request[1] == [client.STATUS]:
                spare = self.spare.pid if self.spare is not None else 0
                conn.sendall(f"S pid={self.pid} served={self.served} ahead={self.ahead} running={len(self.children)} "
                             f"watched={self._watched()} learned={self.learned} spare={spare}\n".encode())
                conn.close()
                return
            reason = self._decline()
            if reason:
                conn.sendall(f"R {reason}\n".encode())
                conn.close()
                return
            self._hand(conn, request, fds)
        except Exception as exc:  # noqa: BLE001 - one bad request never stops the server
            log(f"request dropped: {type(exc).__name__}: {exc}")
            conn.close()
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

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
        if not preload.files_unchanged(self.code):
            return False
        if self.watches is not None and self.code_token is not None:
            self.code_token = self.watches.token(self.package)
        return True

    def _mark(self) -> tuple:
        """What a child inherits that can change while the server runs: the modules learned and the
        roots asked for (:attr:`epoch`), and the watch view (its changes and the files open now;
        a read's open and close, once closed, leave it as it was)."""
        return (self.epoch, self.watches.fingerprint() if self.watches is not None else None)

    def _spawn(self) -> Spare:
        """Fork a child that waits for its request (:func:`becoming.standby`); the watch view it
        inherits is drained first."""
        self._drain()
        mark = self._mark()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        tell_r, tell_w = os.pipe()
        try:
            pid = os.fork()
        except BaseException:
            for fd in (tell_r, tell_w):
                os.close(fd)
            mine.close()
            theirs.close()
            raise
        if pid == 0:
            mine.close()
            becoming.standby(theirs, tell_w, self.pid, self.prctl, self.watches,
                             lambda: self._let_go(tell_r))  # never returns
        os.close(tell_w)
        theirs.close()
        try:
            os.setpgid(pid, pid)
        except OSError:  # the child did it first
            pass
        return Spare(pid, mine, tell_r, mark)

    def _refresh(self) -> int | None:
        """Keep a spare for the next request while nothing runs (one forked beside a running request
        would most often find its view outdated by the time it is used): fork one when there is none;
        send away one forked before a change once the changes have paused for :data:`REFRESH`
        seconds, and fork another.  The milliseconds until that is due, or None."""
        mark = self._mark()
        now = time.monotonic()
        if mark != self.seen:
            self.seen, self.changed = mark, now
        if self.spare is not None and self.spare.mark != mark:
            due = self.changed + REFRESH - now
            if due > 0:
                return int(due * 1000) + 1
            self._dismiss_spare()
        if self.spare is None and self.listener is not None and not (self.children or self.stopping):
            try:
                self.spare = self._spawn()
            except Exception as exc:  # noqa: BLE001 - every request forks its own child instead
                log(f"no spare: {type(exc).__name__}: {exc}")
        return None

    def _dismiss_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is not None:
            spare.dismiss()

    def _hand(self, conn: socket.socket, request: tuple, fds: list[int]) -> None:
        """Give the request to the spare when its view is the server's now, else to a child forked
        for it; register it, tell the client ``A``, let it go."""
        import select

        self._drain()
        spare, self.spare = self.spare, None
        if spare is not None and spare.mark != self._mark():
            spare.dismiss()
            spare = None
        for attempt in (spare, None):
            child = attempt if attempt is not None else self._spawn()
            try:
                wire.send(child.sock, request, [*fds, conn.fileno()])
                break
            except OSError:  # it died waiting: a child forked now takes the request
                child.dismiss()
                if attempt is None:
                    raise
        ahead = child is spare
        try:
            registered = Child(child.pid, conn, child.tell_fd)
            self.children[child.pid] = registered
            self.by_conn[conn.fileno()] = registered
            self.poll.register(conn.fileno(), select.POLLIN | select.POLLHUP)
        except BaseException:  # the child never ran: the client hears nothing and answers in-process
            self.children.pop(child.pid, None)
            self.by_conn.pop(conn.fileno(), None)
            child.dismiss()
            raise
        self.served += 1
        self.ahead += ahead
        self.last = time.monotonic()
        try:
            conn.sendall(f"A {child.pid}\n".encode())
        except OSError:
            self._client_gone(conn.fileno())
        try:
            child.sock.sendall(b"g")
        except OSError:
            pass  # the child is gone already (killed before it began): its reaping says how it ended
        finally:
            child.sock.close()

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
            elif self.spare is not None and pid == self.spare.pid:  # died waiting (killed by hand?)
                spare, self.spare = self.spare, None
                spare.dismiss(reaped=True)

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
                self.watches.add(message[1])  # changes the watch view (WatchSet.fingerprint)
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
            self.epoch += 1  # a spare forked before lacks them
            # the new modules' files are code a child runs too; a file already known keeps the identity
            # it had when the server loaded it (a change since must still read as a change)
            self.code = {**preload.code_files(), **self.code}
            gc.collect()
            gc.freeze()

    # ---- in the child
    def _let_go(self, tell_r: int) -> None:
        """In the child: close what belongs to the server (its socket, the requests running, another
        spare, the watcher's descriptor)."""
        os.close(tell_r)
        if self.lock >= 0:
            os.close(self.lock)
        if self.listener is not None:
            self.listener.close()
        if self.spare is not None:
            self.spare.sock.close()
            os.close(self.spare.tell_fd)
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
    preload.warm(log)
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
