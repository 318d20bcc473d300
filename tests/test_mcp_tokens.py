"""HTTP serves only bearers of a token, and only a token file nobody else can write decides who they are.

Loopback is no user boundary (any local OS user can connect to 127.0.0.1), so `okfpro mcp --http`
refuses to start without a token file, whatever the address.  The token file is judged as ssh judges
authorized_keys: a file or directory that another user owns or can write, a symlink in its place, a
directory above it that others can write, a file swapped after the server started — each refused,
naming the fix.  Real files, real server processes, the official SDK client.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import threading
from pathlib import Path

import anyio
import pytest

if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install 'okfpro[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.xdist_group("mcp")

from tests.helpers import run_okfpro  # noqa: E402
from tests.mcpkit import HttpServer, call, free_port, http_client, workspace  # noqa: E402

OTHER_UID = 54321  # a user who is not the server's


def _serve(okf: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Start `okfpro mcp --http` and expect a refusal: a server that starts instead is killed at the timeout."""
    return run_okfpro("mcp", "--bundle", str(okf), "--http", "--port", str(free_port()), *args, env=env, timeout=30)


def _mint(okf: Path, *args: str, user: str = "alice", umask: int | None = None) -> subprocess.CompletedProcess:
    argv = ["mcp", "--bundle", str(okf), "--new-token", "--user", user, *args]
    if umask is None:
        return run_okfpro(*argv)
    old = os.umask(umask)  # the child inherits it
    try:
        return run_okfpro(*argv)
    finally:
        os.umask(old)


def test_http_without_tokens_refuses_on_every_address_and_says_how_to_mint(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    for host in ("127.0.0.1", "localhost", "::1", "127.1.2.3", "0.0.0.0"):
        proc = _serve(okf, "--host", host, env={"OKFPRO_USER": "alice"})
        assert proc.returncode == 2, (host, proc.stderr)
        assert "without bearer tokens" in proc.stderr and "--new-token --user NAME" in proc.stderr, proc.stderr
        assert str(ws / ".tmp" / "okfpro-mcp" / "tokens.json") in proc.stderr and "0600" in proc.stderr
    # a token file named in okfpro.toml that is not there: refused too, never served tokenless
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[mcp]\ntokens = "no/such/tokens.json"\n', encoding="utf-8")
    proc = _serve(okf)
    assert proc.returncode == 2 and "does not exist" in proc.stderr, proc.stderr


def test_minting_writes_0600_in_a_0700_directory_even_under_a_loose_umask(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    proc = _mint(okf, umask=0o000)
    assert proc.returncode == 0, proc.stderr
    path = ws / ".tmp" / "okfpro-mcp" / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert proc.stdout.strip().startswith("okfpro_") and proc.stdout.strip() not in path.read_text(encoding="utf-8")
    # .tmp itself came out 0777 under that umask: the next mint and the server refuse it, naming the fix
    (ws / ".tmp").chmod(0o777)
    proc = _mint(okf)
    assert proc.returncode == 2 and f"chmod go-w {ws / '.tmp'}" in proc.stderr, proc.stderr
    proc = _serve(okf)
    assert proc.returncode == 2 and f"chmod go-w {ws / '.tmp'}" in proc.stderr, proc.stderr


def _good_file(ws: Path) -> Path:
    proc = _mint(ws / ".okf")
    assert proc.returncode == 0, proc.stderr
    return ws / ".tmp" / "okfpro-mcp" / "tokens.json"


def test_a_token_file_others_can_change_is_refused_naming_the_fix(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    good = _good_file(ws)
    d = good.parent

    def refused(*args: str, want: str) -> None:
        proc = _serve(okf, *args)
        assert proc.returncode == 2 and want in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr

    for mode in (0o620, 0o602, 0o666, 0o622):  # group- or world-writable file
        good.chmod(mode)
        refused(want=f"chmod go-w {good}")
        proc = _mint(okf)  # nor is such a file extended
        assert proc.returncode == 2 and "chmod go-w" in proc.stderr
    good.chmod(0o600)
    for mode in (0o770, 0o707, 0o777, 0o1777):  # its directory, sticky or not
        d.chmod(mode)
        refused(want=f"chmod go-w {d}")
    d.chmod(0o700)
    (ws / ".tmp").chmod(0o777)  # a directory above it
    refused(want=f"chmod go-w {ws / '.tmp'}")
    (ws / ".tmp").chmod(0o755)
    if os.geteuid() == 0:  # files of another user can be made only as root
        os.chown(good, OTHER_UID, -1)
        refused(want="chown ")
        os.chown(good, 0, -1)
        os.chown(d, OTHER_UID, -1)
        refused(want="chown ")
        os.chown(d, 0, -1)
        os.chown(ws / ".tmp", OTHER_UID, -1)  # a directory above owned by someone else
        refused(want="chown ")
        os.chown(ws / ".tmp", 0, -1)

    # symlinks: the file, its directory, a foreign symlink on the way
    elsewhere = tmp_path / "mine"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / "tokens.json").write_bytes(good.read_bytes())
    (elsewhere / "tokens.json").chmod(0o600)
    link = d / "link.json"
    link.symlink_to(elsewhere / "tokens.json")
    refused("--tokens", str(link), want="is a symlink")
    linkdir = ws / ".tmp" / "linked"
    linkdir.symlink_to(elsewhere)
    refused("--tokens", str(linkdir / "tokens.json"), want="is a symlink")
    dangling = d / "dangling.json"
    dangling.symlink_to(tmp_path / "not-yet")  # an attacker's file-to-be
    refused("--tokens", str(dangling), want="is a symlink")
    proc = _mint(okf, "--tokens", str(dangling))
    assert proc.returncode == 2 and not (tmp_path / "not-yet").exists(), proc.stderr
    if os.geteuid() == 0:
        hop = tmp_path / "hop"
        hop.symlink_to(tmp_path)  # higher up: hop/mine/tokens.json
        os.lchown(hop, OTHER_UID, -1)
        refused("--tokens", str(hop / "mine" / "tokens.json"), want="symlink owned by uid")
    fifo = d / "fifo.json"
    os.mkfifo(fifo, 0o600)  # not a file: refused without blocking on the open
    refused("--tokens", str(fifo), want="not a regular file")
    # and the file itself, back as it was, serves
    server = HttpServer(okf)
    server.close()


def test_a_token_file_changed_after_start_is_judged_on_every_request(tmp_path: Path) -> None:
    """Made world-writable, swapped for a symlink or for a file of another user while serving: every
    token is refused (fail closed) until the file is right again."""
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    proc = _mint(okf)
    token = proc.stdout.strip()
    good = ws / ".tmp" / "okfpro-mcp" / "tokens.json"
    saved = good.read_bytes()
    server = HttpServer(okf)

    async def works() -> bool:
        try:
            async with http_client(server.url, token) as c:
                err, got = await call(c, "stats", {})
                return not err
        except BaseException:  # noqa: BLE001 - a 401 ends the SDK client's session start
            return False

    def restore() -> None:
        if good.is_symlink() or good.exists():
            good.unlink()
        good.write_bytes(saved)
        good.chmod(0o600)

    try:
        assert anyio.run(works)
        good.chmod(0o666)
        assert not anyio.run(works)
        good.chmod(0o600)
        assert anyio.run(works)
        other = tmp_path / "other.json"
        other.write_bytes(saved)
        other.chmod(0o600)
        good.unlink()
        good.symlink_to(other)
        assert not anyio.run(works)
        restore()
        assert anyio.run(works)
        if os.geteuid() == 0:
            os.chown(good, OTHER_UID, -1)
            assert not anyio.run(works)
            os.chown(good, 0, -1)
            assert anyio.run(works)
    finally:
        server.close()


def test_a_file_swapped_between_check_and_read_is_never_believed(tmp_path: Path) -> None:
    """A writer swaps the token file's name between a proper file and a world-writable one holding an
    intruder's token, as fast as it can: no load may answer the intruder's table (the file is judged
    and read through one descriptor)."""
    from okfpro.mcp.tokens import TokenFile, TokenFileError, digest

    d = tmp_path / "tokens"
    d.mkdir(mode=0o700)
    good_text = '{"tokens": [{"sha256": "%s", "user": "alice"}]}' % digest("okfpro_alice")
    bad_text = '{"tokens": [{"sha256": "%s", "user": "alice"}]}' % digest("okfpro_mallory")
    good, bad = d / "good", d / "bad"
    target = d / "tokens.json"
    target.write_text(good_text, encoding="utf-8")
    target.chmod(0o600)
    table = TokenFile(target)
    stop = threading.Event()

    def swapper() -> None:
        while not stop.is_set():
            good.write_text(good_text, encoding="utf-8")
            good.chmod(0o600)
            os.replace(good, target)
            bad.write_text(bad_text, encoding="utf-8")
            bad.chmod(0o666)
            os.replace(bad, target)

    t = threading.Thread(target=swapper)
    t.start()
    believed = refused = 0
    try:
        for _ in range(3000):
            try:
                table._key = None  # re-read each time
                if digest("okfpro_mallory") in table.load():
                    believed += 1
            except TokenFileError:
                refused += 1
            assert table.identity("okfpro_mallory") is None
    finally:
        stop.set()
        t.join()
    assert believed == 0 and refused > 0
