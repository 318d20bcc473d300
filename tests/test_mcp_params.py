"""Every bad argument is a JSON-RPC invalid-params error (-32602), never code 0 or a traceback (issue #37 item 4).

Cursors in every spelling an adversary tries (negative, signed, spaced, other scripts' digits,
underscores, floats, past the end, huge, empty) on every list, resource URIs that escape or do not
decode, arguments of the wrong type or unknown, ids holding NUL — through the official SDK client
against a real server, which must keep serving and print no traceback.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import anyio
import pytest

if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install 'okfpro[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.xdist_group("mcp")

from tests.mcpkit import call, server_env, workspace  # noqa: E402

BAD_CURSORS = ["-1", "-5", "-999999", "abc", "1.5", " 3", "3 ", "+3", "\u0663", "\uff13", "3_0", "0x1", "1e3",
               "99999999999999999999999", "100000", "", "\x00", "NaN", "2; DROP"]
BAD_URIS = ["okf://ws/%ff%fe", "okf://ws/%00", "okf://ws/glossary%2f..%2f..%2fokfpro.toml", "okf://ws/../okfpro.toml",
            "okf://other/board", "file:///etc/passwd", "okf://ws/no/such/concept", "okf://ws/" + "a/" * 2000]
BAD_CALLS = [
    ("search", {"terms": "x"}), ("search", {"terms": [1]}), ("search", {"terms": ["x"], "limit": "5"}),
    ("search", {"terms": ["x"], "limit": True}), ("search", {"terms": ["x"], "offset": -1}),
    ("search", {"terms": ["x"], "limit": 1.5}), ("search", {"terms": ["x"], "engine": "grep"}),
    ("search", {"terms": ["x"], "nope": 1}), ("search", {"terms": []}), ("catalog", {"limit": -1}),
    ("read", {"id": "a\x00b"}), ("read", {"id": "a\\b"}), ("read", {"id": 5}), ("read", {"id": "x", "max_chars": 0}),
    ("board", {"section": ["Inbox"]}), ("memory_recall", {"query": None}), ("memory_forget", {"confirm": "yes"}),
    ("index", {"depth": -1}), ("graph", {"id": "a\x00"}), ("stats", {"limit": 0}),
]


def test_bad_arguments_are_invalid_params_through_the_sdk_client(tmp_path: Path) -> None:
    import shlex
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)
    errlog = tmp_path / "stderr.txt"

    async def main() -> None:
        serve = shlex.join([sys.executable, "-m", "okfpro", "mcp", "--bundle", str(ws / ".okf")])
        params = StdioServerParameters(command="/bin/sh", args=["-c", f"exec {serve} 2>>{shlex.quote(str(errlog))}"],
                                       env=server_env())
        async with Client(params, cache=None, read_timeout_seconds=60) as c:
            first = await c.list_resources()
            assert first.next_cursor is None  # a small bundle: one page
            for cursor in BAD_CURSORS:
                for lister in (c.list_resources, c.list_tools, c.list_resource_templates):
                    with pytest.raises(MCPError) as info:
                        await lister(cursor=cursor)
                    assert info.value.code == -32602, (lister.__name__, cursor, info.value)
            for uri in BAD_URIS:
                with pytest.raises(MCPError) as info:
                    await c.read_resource(uri)
                assert info.value.code == -32602, (uri, info.value)
            for name, args in BAD_CALLS:
                with pytest.raises(MCPError) as info:
                    await c.call_tool(name, args)
                assert info.value.code == -32602, (name, args, info.value)
            err_, got = await call(c, "stats", {})  # still serving
            assert not err_ and got["concepts"] >= 2

    anyio.run(main)
    assert "Traceback" not in errlog.read_text(encoding="utf-8")


def test_cursors_walk_a_long_listing_and_name_each_resource_once(tmp_path: Path) -> None:
    """600 concepts: two pages, every cursor handed out works, the board and log appear once."""
    from mcp.shared.exceptions import MCPError

    from tests.mcpkit import stdio_client

    ws = workspace(tmp_path)
    many = ws / ".okf" / "notes"
    many.mkdir()
    for i in range(600):
        (many / f"n{i:03d}.md").write_text(f"---\ntype: Note\ntitle: Note {i}\n---\nbody {i}\n", encoding="utf-8")

    async def main() -> None:
        async with stdio_client(ws / ".okf") as c:
            uris: list[str] = []
            cursor = None
            pages = 0
            while True:
                page = await c.list_resources(cursor=cursor)
                uris += [str(r.uri) for r in page.resources]
                pages += 1
                if page.next_cursor is None:
                    break
                cursor = page.next_cursor
            assert pages == 2 and len(uris) == len(set(uris)), pages
            assert uris.count("okf://ws/board") == 1 and uris.count("okf://ws/log") == 1
            assert sum(1 for u in uris if u.startswith("okf://ws/notes/")) == 600
            with pytest.raises(MCPError) as info:
                await c.list_resources(cursor=str(len(uris)))  # one past the end: never handed out
            assert info.value.code == -32602

    anyio.run(main)
