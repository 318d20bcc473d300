"""``okfpro resident``: the warm process that answers hook events and memory calls.

    resident status [--json]   the servers of this user, and which one this interpreter would use
    resident start             start this interpreter's server now (it also starts on first use)
    resident stop              stop every server of this user (each ends its running requests first)
    resident serve             run this interpreter's server in the foreground (logs on stderr)

The server and its client are in :mod:`okfpro.resident`; ``OKFPRO_RESIDENT=0`` turns it off.
"""

from __future__ import annotations

import os
import time

import click

from okfpro.cli.common import dumps, fail
from okfpro.resident import client


def _peer(where: str) -> dict | None:
    """What the server answering at ``where`` says of itself (pid, served, ahead, running, watched), or None."""
    line = client.status(where)
    if line is None:
        return None
    facts = dict(part.partition("=")[::2] for part in line.split())
    try:
        return {k: int(v) for k, v in facts.items()}
    except ValueError:
        return None


def _mine() -> str | None:
    """This interpreter's socket, or None (a path too long, or okfpro found through the working directory)."""
    try:
        return client.socket_path()
    except LookupError:
        return None


def _where() -> str:
    where = _mine()
    if where is None:
        fail(f"no server can answer for this interpreter: its socket path under {client.socket_dir()} would be too "
             f"long (set {client.DIR_ENV} to a shorter folder), or okfpro is imported from the working directory")
    return where


def _servers() -> list[dict]:
    directory = client.socket_dir()
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out = []
    for name in names:
        if name.startswith("okfpro-") and name.endswith(".sock"):
            where = os.path.join(directory, name)
            facts = _peer(where) or {}
            out.append({"socket": where, "stamp": name[len("okfpro-"):-len(".sock")], "pid": facts.get("pid"),
                        "served": facts.get("served"), "ahead": facts.get("ahead"), "running": facts.get("running"),
                        "watched": facts.get("watched"), "learned": facts.get("learned")})
    return out


@click.group("resident")
def resident_cmd() -> None:
    """The warm okfpro that answers hook events and memory calls (OKFPRO_RESIDENT=0: off)."""


@resident_cmd.command("status")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
def status_cmd(as_json: bool) -> int:
    """The servers of this user, and the one this interpreter would use."""
    mine = _mine()
    servers = _servers()
    for server in servers:
        server["this_interpreter"] = server["socket"] == mine
    report = {"enabled": client.enabled(), "directory": client.socket_dir(), "socket": mine, "servers": servers}
    if as_json:
        click.echo(dumps(report))
        return 0
    click.echo(f"resident okfpro: {'on' if report['enabled'] else f'off ({client.ENV}=0)'}")
    click.echo(f"this interpreter's socket: {mine or '(none: the path would be too long, or okfpro is imported from the working directory)'}")
    if not servers:
        click.echo("no server is running")
    for server in servers:
        ahead = f" ({server['ahead']} by a child forked ahead)" if server["ahead"] is not None else ""  # an older server
        state = (f"pid {server['pid']}, {server['served']} requests answered{ahead}, {server['running']} running, "
                 f"{server['watched']} trees watched") if server["pid"] else "not answering (a leftover socket)"
        click.echo(f"  {server['stamp']}: {state}{'  <- this interpreter' if server['this_interpreter'] else ''}")
    return 0


@resident_cmd.command("start")
def start_cmd() -> int:
    """Start this interpreter's server now and wait until it answers."""
    if not client.enabled():
        fail(f"the resident okfpro is off ({client.ENV}=0)")
    where = _where()
    pid = (_peer(where) or {}).get("pid")
    if pid is None:
        try:
            os.unlink(where + ".start")  # asked for now: whatever started one a moment ago
        except OSError:
            pass
        client.start(where)
        deadline = time.monotonic() + 30.0
        while pid is None and time.monotonic() < deadline:
            time.sleep(0.05)
            pid = (_peer(where) or {}).get("pid")
    if pid is None:
        log = where[: -len(".sock")] + ".log"
        fail(f"the server did not start; see {log}")
    click.echo(f"serving {where} (pid {pid})")
    return 0


@resident_cmd.command("stop")
def stop_cmd() -> int:
    """Stop every server of this user; each ends the requests it is answering first."""
    import signal

    stopped = []
    for server in _servers():
        if server["pid"]:
            try:
                os.kill(server["pid"], signal.SIGTERM)
                stopped.append(server)
            except OSError:
                pass
    deadline = time.monotonic() + 60.0
    while any(_held(s["socket"]) for s in stopped) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [s["socket"] for s in stopped if _held(s["socket"])]
    if left:
        fail(f"still running after 60 s (answering what it had taken): {', '.join(left)}")
    swept = _sweep()
    click.echo(f"stopped {len(stopped)} server{'' if len(stopped) == 1 else 's'}"
               + (f"; removed the files of {swept} that had ended" if swept else ""))
    return 0


def _held(where: str) -> bool:
    """Whether a server still holds ``<socket>.lock``: it takes no new request once its socket is
    gone, and ends after the requests it had taken, releasing the lock."""
    import fcntl

    try:
        fd = os.open(where + ".lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _sweep() -> int:
    """Remove the socket, lock, log and start marker of every stamp no server holds (an older okfpro's,
    a server that was killed): a lock we can take is held by nobody."""
    import fcntl

    directory = client.socket_dir()
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    swept = 0
    for name in names:
        if not (name.startswith("okfpro-") and name.endswith(".sock.lock")):
            continue
        base = os.path.join(directory, name[: -len(".sock.lock")])
        try:
            fd = os.open(base + ".sock.lock", os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a server holds it
        for suffix in (".sock", ".sock.start", ".log", ".sock.lock"):
            try:
                os.unlink(base + suffix)
            except OSError:
                pass
        os.close(fd)
        swept += 1
    return swept


@resident_cmd.command("serve")
def serve_cmd() -> int:
    """Run this interpreter's server in the foreground (logs on stderr; ends on SIGTERM or idle)."""
    where = _where()
    os.makedirs(os.path.dirname(where), mode=0o700, exist_ok=True)
    if not client.private(os.path.dirname(where)):
        fail(f"{os.path.dirname(where)} is not a folder only you can enter (chmod 700 it)")
    import sys

    from okfpro.resident.server import main

    sys.path[:] = client.import_path()  # the path the clients stamp: not this process's working directory
    main(where)
    return 0
