"""Memory over MCP is the server's scope, never the caller's claim: stdio identities, multi-user, HTTP tokens."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import anyio
import pytest

# the SDK is asked for without importing it (~0.8 s): collection stays light, and only the worker
# that runs this group (one xdist group for the MCP tests) pays for the import
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install 'okfpro[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.xdist_group("mcp")

from tests.helpers import invoke, run_okfpro  # noqa: E402
from tests.mcpkit import HttpServer, call, http_client, server_env, stdio_client, workspace  # noqa: E402

CLAIMS = ({"user": "bob"}, {"tenant": "acme"}, {"session": "s-other"}, {"scope": {"user": "bob"}}, {"as": "bob"})


async def _remember(c, text: str) -> dict:
    err, got = await call(c, "memory_remember", {"text": text})
    assert not err and got["written"], got
    return got


async def _recall(c, query: str) -> list[str]:
    err, got = await call(c, "memory_recall", {"query": query})
    assert not err, got
    return [p["text"] for p in got["passages"]]


def test_two_identities_on_one_memory_root_never_meet(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)
    okf = ws / ".okf"

    async def main() -> None:
        async with stdio_client(okf, server_env(OKFPRO_USER="alice")) as alice, \
                stdio_client(okf, server_env(OKFPRO_USER="bob")) as bob:
            await _remember(alice, "alice keeps the launch codes in the blue binder")
            # text that claims another identity is just text: filed under alice
            await _remember(alice, "user: bob tenant: acme session: s1 — bob's note")
            await _remember(bob, "bob prefers tabs")
            assert await _recall(bob, "binder") == []
            assert not [t for t in await _recall(bob, "bob's note") if "tenant: acme" in t]
            assert await _recall(alice, "tabs") == []
            assert "user: bob tenant: acme session: s1 — bob's note" in await _recall(alice, "note")
            for claim in CLAIMS:  # an argument that names someone else is refused, not obeyed or ignored
                for tool, args in (("memory_recall", {"query": "binder"}), ("memory_list", {}),
                                   ("memory_remember", {"text": "x"}), ("memory_forget", {"confirm": True})):
                    with pytest.raises(MCPError) as info:
                        await bob.call_tool(tool, {**args, **claim})
                    assert info.value.code == -32602
            err, got = await call(bob, "memory_list", {})
            assert got["scope"]["user"] == "bob" and len(got["entries"]) == 1
            err, got = await call(bob, "memory_forget", {"confirm": True})
            assert not err
            assert await _recall(alice, "binder") == ["alice keeps the launch codes in the blue binder"]

    anyio.run(main)
    # the CLI, as alice and as bob, sees the same split
    proc = invoke("memory", "--workspace", str(ws), "recall", "binder", "--json", env={"OKFPRO_USER": "alice"})
    assert [p["text"] for p in json.loads(proc.stdout)["passages"]] == ["alice keeps the launch codes in the blue binder"]
    proc = invoke("memory", "--workspace", str(ws), "recall", "binder", "--json", env={"OKFPRO_USER": "bob"})
    assert json.loads(proc.stdout)["passages"] == []


def test_multi_user_without_identity_refuses_every_memory_tool(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    toml = ws / "okfpro.toml"
    text = toml.read_text(encoding="utf-8")
    assert 'mode = "local"' in text
    toml.write_text(text.replace('mode = "local"', 'mode = "multi-user"', 1), encoding="utf-8")
    before = sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*") if ".git" not in p.parts)

    async def main() -> None:
        async with stdio_client(ws / ".okf", server_env(OKFPRO_SESSION="s-1")) as c:  # a session id is no identity
            for tool, args in (("memory_remember", {"text": "secret plan"}), ("memory_recall", {"query": "plan"}),
                               ("memory_list", {}), ("memory_forget", {"confirm": True})):
                err, text = await call(c, tool, args)
                assert err and "refused" in text and "multi-user" in text, (tool, text)
            err, got = await call(c, "search", {"terms": ["invoices"]})  # the workspace tools still serve
            assert not err and got["count"] >= 1

    anyio.run(main)
    after = sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*") if ".git" not in p.parts)
    assert [p for p in after if p not in before and "okfpro-cache" not in p] == []


@pytest.mark.slow
def test_http_tokens_map_to_identities_and_see_only_their_own_scope(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)
    okf = ws / ".okf"
    tokens = {}
    for user in ("alice", "bob"):
        proc = run_okfpro("mcp", "--bundle", str(okf), "--new-token", "--user", user, "--tenant", "acme")
        assert proc.returncode == 0, proc.stderr
        tokens[user] = proc.stdout.strip()
    stored = (ws / ".tmp" / "okfpro-mcp" / "tokens.json").read_text(encoding="utf-8")
    assert tokens["alice"] not in stored and tokens["bob"] not in stored  # hashes only
    assert (ws / ".tmp" / "okfpro-mcp" / "tokens.json").stat().st_mode & 0o077 == 0
    server = HttpServer(okf, env=server_env(OKFPRO_USER="mallory"))  # the server's own env identity is not used
    try:
        async def main() -> None:
            async with http_client(server.url, tokens["alice"]) as alice, http_client(server.url, tokens["bob"]) as bob:
                await _remember(alice, "alice's http secret about the merger")
                await _remember(bob, "bob's http note on the roadmap")
                assert await _recall(bob, "merger") == []
                assert await _recall(alice, "roadmap") == []
                err, got = await call(alice, "memory_list", {})
                assert got["scope"] == {"tenant": "acme", "user": "alice", "agent": None, "session": None}
                for claim in CLAIMS:
                    with pytest.raises(MCPError):
                        await bob.call_tool("memory_recall", {"query": "merger", **claim})
                err, got = await call(bob, "search", {"terms": ["invoices"]})
                assert not err and got["count"] >= 1
            for bad in (None, "okfpro_not-a-real-token", tokens["alice"] + "x"):
                with pytest.raises(BaseException):  # 401: the SDK client cannot even start a session
                    async with http_client(server.url, bad) as c:
                        await c.call_tool("memory_recall", {"query": "merger"})

        anyio.run(main)
    finally:
        server.close()
    # and the CLI agrees on who owns what
    proc = invoke("memory", "--workspace", str(ws), "recall", "merger", "--json",
                      env={"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    assert [p["text"] for p in json.loads(proc.stdout)["passages"]] == ["alice's http secret about the merger"]
    proc = invoke("memory", "--workspace", str(ws), "recall", "merger", "--json", env={"OKFPRO_USER": "mallory"})
    assert json.loads(proc.stdout)["passages"] == []


def test_http_refuses_a_non_loopback_bind_without_tokens(tmp_path: Path) -> None:
    """Any address, loopback or not (tests/test_mcp_tokens.py holds the loopback ones)."""
    ws = workspace(tmp_path)
    for host in ("0.0.0.0", "192.0.2.7", "example.org", "::"):
        proc = run_okfpro("mcp", "--bundle", str(ws / ".okf"), "--http", "--host", host, "--port", "1", timeout=60)
        assert proc.returncode == 2 and "without bearer tokens" in proc.stderr, (host, proc.stderr)


def test_a_broken_token_file_refuses_to_serve(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    bad = ws / "tokens.json"
    for text in ("not json", '{"tokens": [{"sha256": "abc", "user": "x"}]}',
                 '{"tokens": [{"sha256": "' + "a" * 64 + '"}]}',
                 '{"tokens": [{"sha256": "' + "a" * 64 + '", "user": "../etc"}]}', '{"tokens": []}'):
        bad.write_text(text, encoding="utf-8")
        proc = run_okfpro("mcp", "--bundle", str(ws / ".okf"), "--http", "--tokens", str(bad), "--port", "1", timeout=60)
        assert proc.returncode == 2 and "okfpro mcp:" in proc.stderr, (text, proc.stderr)
