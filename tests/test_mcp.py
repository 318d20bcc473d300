"""`okfpro mcp` end to end: a real server subprocess, the official SDK client, the CLI's JSON as the oracle."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest

# the SDK is asked for without importing it (~0.8 s): collection stays light, and only the worker
# that runs this group (one xdist group for the MCP tests) pays for the import
if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install 'okfpro[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.xdist_group("mcp")

from tests.helpers import invoke, run_okfpro  # noqa: E402
from tests.mcpkit import call, cli_json, server_env, stdio_client, workspace  # noqa: E402

EXPECTED_TOOLS = {
    "search", "read", "catalog", "index", "graph", "references", "stats", "state", "board", "snapshot", "validate",
    "lint", "audit", "tags", "types", "dirs", "log", "bundles", "capture", "promote", "demote", "journal_open", "close",
    "memory_remember", "memory_recall", "memory_list", "memory_forget",
}


def _strip(data: dict, *keys: str) -> dict:
    return {k: v for k, v in data.items() if k not in keys}


PAGING = ("bundle", "count", "total", "offset", "truncated", "next_offset", "engine", "total_is_lower_bound")


def test_every_tool_answers_as_the_cli_does(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)
    okf = ws / ".okf"
    env = server_env(OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30")
    cli_env = {"OKFPRO_USER": "alice", "OKFPRO_TODAY": "2026-11-30"}

    async def main() -> None:
        async with stdio_client(okf, env) as c:
            listed = await c.list_tools()
            names = {t.name for t in listed.tools}
            assert names == EXPECTED_TOOLS
            for t in listed.tools:
                assert len(t.description) > 60, t.name  # written for a model to choose
                assert t.input_schema.get("additionalProperties") is False, t.name

            # --- readers: the same rows as the CLI's JSON
            for engine in ("scan", "ranked"):
                err, got = await call(c, "search", {"terms": ["invoices"], "engine": engine, "limit": 0})
                assert not err, got
                _, want = cli_json("search", "invoices", "--engine", engine, "--limit", "500", "--json", "--bundle", str(okf))
                assert got["matches"] == want["matches"] and got["matches"], engine
            err, got = await call(c, "search", {"terms": ["renew"], "tag": "insurance", "fields": ["id", "score"]})
            _, want = cli_json("search", "renew", "--tag", "insurance", "--fields", "id,score", "--json", "--bundle", str(okf))
            assert got["matches"] == want["matches"] == [{"id": "learnings/renewal", "score": want["matches"][0]["score"]}]

            err, got = await call(c, "catalog", {"limit": 0})
            _, want = cli_json("catalog", "--json", "--bundle", str(okf))
            assert got["concepts"] == want["concepts"] and got["total"] == want["count"]

            err, got = await call(c, "index", {"depth": 1})
            _, want = cli_json("index", "--depth", "1", "--json", "--bundle", str(okf))
            assert got["directories"] == want["directories"] and got["directories"]
            err, got = await call(c, "index", {"dir": "learnings"})
            _, want = cli_json("index", "--dir", "learnings", "--depth", "1", "--json", "--bundle", str(okf))
            assert got["directories"] == want["directories"]
            err, text = await call(c, "index", {"dir": "no-such-dir"})
            assert err and "no such directory" in text

            err, got = await call(c, "graph", {"limit": 0})
            _, want = cli_json("graph", "--hubs", "--json", "--bundle", str(okf))
            assert got["hubs"] == want["hubs"] and got["hubs"]
            err, got = await call(c, "graph", {"id": "learnings/renewal"})
            assert got["links_out"] == ["learnings/billing/invoices"]

            err, got = await call(c, "references", {})
            _, want = cli_json("references", "--json", "--bundle", str(okf))
            assert got["references"] == want["references"] and got["dangling"] == want["dangling"]

            err, got = await call(c, "stats", {})
            _, want = cli_json("stats", "--json", "--bundle", str(okf))
            assert got == _strip(want, "bundle")

            for tool, verb in (("state", "state"), ("snapshot", "snapshot")):
                err, got = await call(c, tool, {})
                _, want = cli_json(verb, str(ws / ".okf"), "--json", env=cli_env)
                assert got == want, tool

            err, got = await call(c, "validate", {"limit": 0})
            _, want = cli_json("validate", str(okf), "--json")
            assert _strip(got, "errors_total", "warnings_total", *PAGING) == _strip(want, "bundle")

            err, got = await call(c, "lint", {"limit": 0})
            _, want = cli_json("lint", str(okf), "--json", env=cli_env)
            assert _strip(got, "findings_total", *PAGING) == _strip(want, "bundle")

            err, got = await call(c, "audit", {})
            proc = invoke("audit", str(ws), env=cli_env)
            assert got["clean"] == (proc.returncode == 0), proc.stdout

            err, got = await call(c, "read", {"id": "learnings/renewal"})
            _, want = cli_json("read", "learnings/renewal", "--json", "--bundle", str(okf))
            assert got["content"] == want["content"] and got["path"] == want["path"] and not got["truncated"]
            err, text = await call(c, "read", {"id": "../okfpro.toml"})
            assert err and "'..'" in text

            # --- writers: the CLI's writers, seen by the CLI
            err, got = await call(c, "capture", {"text": "call the insurer about the renewal"})
            assert not err and got["line"] == "- 2026-11-30 — call the insurer about the renewal"
            err, text = await call(c, "capture", {"text": "two\nlines"})
            assert err and "one line" in text
            err, got = await call(c, "promote", {"selector": "insurer"})
            assert not err and got["moved_to"] == "In flight", got
            _, rows = cli_json("board", str(okf), "--json", env=cli_env)
            assert [r["section"] for r in rows if "insurer" in r["text"]] == ["In flight"]
            err, got = await call(c, "demote", {"selector": "insurer"})
            assert not err and got["moved_to"] == "Backlog"
            err, got = await call(c, "board", {"section": "backlog"})
            _, want = cli_json("board", str(okf), "--section", "Backlog", "--json", env=cli_env)
            assert got["rows"] == want
            err, got = await call(c, "journal_open", {})
            assert not err and got["created_entry"] and (okf / "journal" / "2026-11-30.md").is_file()
            err, text = await call(c, "close", {"slug": "no-such-project"})
            assert err and "untouched" in text

            # --- memory: the CLI's store, the same scope
            err, got = await call(c, "memory_remember", {"text": "we ship on Fridays"})
            assert not err and got["written"], got
            _, want = cli_json("memory", "--workspace", str(ws), "recall", "ship", "--json", env=cli_env)
            err, got = await call(c, "memory_recall", {"query": "ship"})
            assert got == want and got["passages"][0]["text"] == "we ship on Fridays"
            _, want = cli_json("memory", "--workspace", str(ws), "list", "--json", env=cli_env)
            err, got = await call(c, "memory_list", {"limit": 0})
            assert got["entries"] == want["entries"] and len(got["entries"]) == 1
            err, text = await call(c, "memory_forget", {"confirm": True, "purge": True})
            assert err and "purge is not allowed" in text
            err, got = await call(c, "memory_forget", {"confirm": True})
            assert not err and got["forgotten_tiers"] >= 1
            err, got = await call(c, "memory_recall", {"query": "ship"})
            assert got["passages"] == []

            # --- resources: each concept, the board and the log
            listed = await c.list_resources()
            uris = {str(r.uri) for r in listed.resources}
            assert {"okf://ws/board", "okf://ws/log", "okf://ws/learnings/renewal"} <= uris
            got = await c.read_resource("okf://ws/learnings/billing/invoices")
            assert got.contents[0].text == (okf / "learnings" / "billing" / "invoices.md").read_text(encoding="utf-8")
            got = await c.read_resource("okf://ws/board")
            assert got.contents[0].text == (okf / "board.md").read_text(encoding="utf-8")
            with pytest.raises(MCPError):
                await c.read_resource("okf://ws/../okfpro.toml")
            with pytest.raises(MCPError):
                await c.read_resource("okf://other/learnings/renewal")

    anyio.run(main)


def test_an_outside_edit_is_seen_on_the_next_call(tmp_path: Path) -> None:
    """The warm bundle never answers stale: in-place edit, atomic replace, new directory, deletion."""
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    concept = okf / "learnings" / "renewal.md"

    async def hits(c, term: str) -> list[str]:
        found = []
        for engine in ("scan", "ranked"):  # the ranked engine's index follows the edit too
            err, got = await call(c, "search", {"terms": [term], "fields": ["id"], "engine": engine})
            assert not err, got
            found.append([r["id"] for r in got["matches"]])
        assert found[0] == found[1], found
        return found[0]

    async def main() -> None:
        async with stdio_client(okf) as c:
            assert await hits(c, "zanzibar") == []
            with open(concept, "a", encoding="utf-8") as fh:  # in place, same inode
                fh.write("\nThe broker is in Zanzibar.\n")
            assert await hits(c, "zanzibar") == ["learnings/renewal"]
            err, got = await call(c, "read", {"id": "learnings/renewal"})
            assert "Zanzibar" in got["content"]
            tmp = concept.with_name(".renewal.tmp")  # an editor's atomic save
            tmp.write_text(concept.read_text(encoding="utf-8").replace("Zanzibar", "Timbuktu"), encoding="utf-8")
            os.replace(tmp, concept)
            assert await hits(c, "zanzibar") == [] and await hits(c, "timbuktu") == ["learnings/renewal"]
            deep = okf / "projects" / "new" / "deeper"
            deep.mkdir(parents=True)  # a new directory, then a file inside it
            (deep / "note.md").write_text("---\ntype: Note\ntitle: Quokka\n---\nquokka\n", encoding="utf-8")
            assert await hits(c, "quokka") == ["projects/new/deeper/note"]
            (deep / "note.md").write_text("---\ntype: Note\ntitle: Quokka\n---\nwombat\n", encoding="utf-8")
            assert await hits(c, "wombat") == ["projects/new/deeper/note"]
            concept.unlink()
            assert await hits(c, "timbuktu") == []
            err, text = await call(c, "read", {"id": "learnings/renewal"})
            assert err

    anyio.run(main)


def test_bad_requests_are_jsonrpc_errors_and_the_server_stays_up(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)

    async def main() -> None:
        async with stdio_client(ws / ".okf") as c:
            for name, args in (
                ("no_such_tool", {}),
                ("search", {}),  # missing terms
                ("search", {"terms": "not-a-list"}),
                ("search", {"terms": ["x"], "limit": -1}),
                ("search", {"terms": ["x" * 300]}),
                ("capture", {"text": "x" * 300_000}),  # huge
                ("memory_recall", {"query": "x", "user": "bob"}),  # an identity claim is not an argument
                ("memory_recall", {"query": "x", "session": "s2", "tenant": "t2"}),
            ):
                with pytest.raises(MCPError) as info:
                    await c.call_tool(name, args)
                assert info.value.code == -32602, (name, info.value)
            err, got = await call(c, "search", {"terms": ["invoices"]})
            assert not err and got["count"] >= 1
            board = (ws / ".okf" / "board.md").read_text(encoding="utf-8")
            assert "x" * 100 not in board

    anyio.run(main)


def test_raw_malformed_frames_get_errors_not_a_crash(tmp_path: Path) -> None:
    """Bytes the SDK client would never send: not JSON, not JSON-RPC, a huge line — then a real request."""
    ws = workspace(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "okfpro", "mcp", "--bundle", str(ws / ".okf")], env=server_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        def send(obj) -> None:
            line = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()

        def answer(want_id) -> dict:
            while True:
                line = proc.stdout.readline()
                assert line, "the server closed its output"
                msg = json.loads(line)
                if msg.get("id") == want_id:
                    return msg

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert "result" in answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(b"{this is not json")
        assert answer(None)["error"]["code"] == -32700  # id null: it could not be read
        send(b"[1, 2, 3]")
        assert answer(None)["error"]["code"] == -32600
        send("{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/ca".encode() + "\u00e9".encode("latin-1"))  # split, bad UTF-8
        assert answer(None)["error"]["code"] in (-32700, -32600)
        send({"jsonrpc": "2.0", "id": 2, "method": "no/such/method"})
        assert answer(2)["error"]["code"] == -32601
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read", "arguments": {"id": "y" * 2_000_000}}})
        assert answer(3)["error"]["code"] == -32602
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "nonsense"})
        assert answer(None)["error"]["code"] == -32600
        send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "stats", "arguments": {}}})
        ok = answer(5)
        assert json.loads(ok["result"]["content"][0]["text"])["concepts"] >= 2
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        proc.wait(20)


def test_mcp_writer_and_cli_writer_at_once_lose_no_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    okf = ws / ".okf"
    n = 15
    cli_errors: list[str] = []

    def cli_writer() -> None:
        for i in range(n):
            proc = run_okfpro("capture", f"cli line {i}", cwd=ws)
            if proc.returncode != 0:
                cli_errors.append(proc.stderr)

    async def main() -> None:
        async with stdio_client(okf) as c:
            t = threading.Thread(target=cli_writer)
            t.start()
            for i in range(n):
                err, got = await call(c, "capture", {"text": f"mcp line {i}"})
                assert not err, got
            await anyio.to_thread.run_sync(t.join)
            err, got = await call(c, "board", {"section": "Inbox", "limit": 0})
            texts = [r["text"] for r in got["rows"]]
            for who in ("cli", "mcp"):
                for i in range(n):
                    assert sum(1 for x in texts if x.endswith(f"— {who} line {i}")) == 1, (who, i)

    anyio.run(main)
    assert cli_errors == []


def test_the_sdk_stays_off_the_hook_and_cli_import_paths() -> None:
    code = ("import sys, okfpro.cli, okfpro.hooks.protocol, okfpro.cli.views, okfpro.cli.memory; "
            "bad = sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic', 'starlette', 'okfpro.mcp'))); "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=server_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_without_the_sdk_the_verb_says_how_to_install_it(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'mcp' or name.startswith('mcp.'):\n"
            "            raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
            "sys.meta_path.insert(0, Block())\n"
            "from okfpro.__main__ import main\n"
            f"sys.exit(main(['mcp', '--bundle', {str(ws / '.okf')!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=server_env(), timeout=60)
    from okfpro.io.installed import install_hint  # what this machine installed (issue #38.6), no index name

    assert proc.returncode == 2 and proc.stderr.rstrip().endswith(install_hint("mcp")), proc.stderr


def test_no_bundle_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_okfpro("mcp", "--bundle", str(tmp_path))
    assert proc.returncode == 2 and "no OKF bundle" in proc.stderr


def _wired_servers(ws: Path) -> dict[str, dict]:
    import tomllib

    return {
        "claude": json.loads((ws / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["okfpro"],
        "codex": tomllib.loads((ws / ".codex" / "config.toml").read_text(encoding="utf-8"))["mcp_servers"]["okfpro"],
        "gemini": json.loads((ws / ".gemini" / "settings.json").read_text(encoding="utf-8"))["mcpServers"]["okfpro"],
    }


@pytest.mark.slow
def test_init_wires_the_server_for_every_host(tmp_path: Path) -> None:
    """The command each host's config names starts a server that answers — from the workspace, from a
    subdirectory, and (Claude Code) from anywhere with CLAUDE_PROJECT_DIR; the pinned interpreter runs it."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    ws = tmp_path / "brain"
    proc = invoke("init", str(ws), "--agent", "claude", "--agent", "codex", "--agent", "gemini")
    assert proc.returncode == 0, proc.stderr
    servers = _wired_servers(ws)
    (ws / "deep" / "er").mkdir(parents=True)
    env = {k: v for k, v in server_env().items() if k not in ("PYTHONPATH", "CLAUDE_PROJECT_DIR")}
    env["PATH"] = "/usr/bin:/bin"  # no okfpro on PATH: the pin in .claude/hooks/okfpro-python must carry it
    runs = [(host, cfg, ws, env) for host, cfg in servers.items()]
    runs.append(("codex", servers["codex"], ws / "deep" / "er", env))
    runs.append(("claude", servers["claude"], tmp_path, {**env, "CLAUDE_PROJECT_DIR": str(ws)}))

    async def main() -> None:
        for host, cfg, cwd, run_env in runs:
            params = StdioServerParameters(command=cfg["command"], args=cfg["args"], env=run_env, cwd=str(cwd))
            async with Client(params, cache=None, read_timeout_seconds=60) as c:
                err, got = await call(c, "state", {})
                assert not err and got["root"] == str(ws / ".okf"), (host, cwd, got)

    anyio.run(main)
