"""The MCP tools a model needs, shaped as the CLI's and sized for a context (issue #38 item 9).

`search` takes every filter the CLI's search takes (fuzzy included); `tags`, `types`, `dirs`, `log` and
`bundles` answer as `okfpro tags/types/dirs --json`, log.md and `okfpro registry list` do; `catalog`
takes the CLI's tag/status/trust filters; every tool declares an output schema, which the official SDK
client checks on every answer; and every read tool's default answer on a 1,000-concept bundle stays
under the server's default budget.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import anyio
import pytest

if importlib.util.find_spec("mcp") is None:
    pytest.skip("the MCP SDK is not installed (pip install 'okfpro[mcp]')", allow_module_level=True)
pytestmark = pytest.mark.xdist_group("mcp")

from tests.helpers import REPO, invoke  # noqa: E402
from tests.mcpkit import call, cli_json, server_env, stdio_client, workspace  # noqa: E402

WHO = {"OKFPRO_USER": "alice", "OKFPRO_TODAY": "2026-11-30"}


def _generated(tmp_path: Path, n: int) -> Path:
    sys.path.insert(0, str(REPO))
    from bench.gen_bundle import generate

    out = tmp_path / "big"
    generate(out, n)
    return out / ".okf"


def test_every_default_answer_is_sized_and_matches_its_output_schema(tmp_path: Path) -> None:
    from okfpro.mcp.toolkit import DEFAULT_ANSWER_CHARS

    okf = _generated(tmp_path, 1000)
    sizes: dict[str, int] = {}

    async def main() -> None:
        async with stdio_client(okf, server_env(**WHO)) as c:
            tools = (await c.list_tools()).tools
            for t in tools:
                assert t.output_schema and t.output_schema.get("type") == "object", t.name
            err, got = await call(c, "catalog", {"limit": 1, "fields": ["id"]})
            first = got["concepts"][0]["id"]
            needs = {"search": {"terms": ["ledger"]}, "read": {"id": first}, "memory_recall": {"query": "ledger"}}
            for _ in range(3):  # memories long enough to need cutting
                await call(c, "memory_remember", {"text": "ledger " + "word " * 5000})
            for t in tools:
                if t.annotations.read_only_hint is False:
                    continue
                # the SDK client validates structured content against the declared schema: a mismatch raises
                result = await c.call_tool(t.name, needs.get(t.name, {}))
                assert not result.is_error, (t.name, result.content[0].text)
                sizes[t.name] = len(result.content[0].text)
            for name, args in (("search", {"terms": ["ledger"], "engine": "ranked", "limit": 0}),
                               ("search", {"terms": ["ledgr"], "fuzzy": True}), ("tags", {"by": "type"}),
                               ("tags", {"by": "dir", "limit": 0}), ("graph", {"id": first}),
                               ("catalog", {"fields": ["id"], "limit": 0}), ("dirs", {"dir": "learnings"}),
                               ("log", {"limit": 0}), ("index", {"depth": 3, "limit": 0})):
                result = await c.call_tool(name, args)
                assert not result.is_error, (name, result.content[0].text)

    anyio.run(main)
    over = {k: v for k, v in sizes.items() if v > DEFAULT_ANSWER_CHARS}
    assert not over, over
    assert len(sizes) >= 20, sizes


def test_search_takes_every_filter_of_the_cli_and_the_new_views_answer_as_the_cli(tmp_path: Path) -> None:
    from mcp.shared.exceptions import MCPError

    ws = workspace(tmp_path)
    okf = ws / ".okf"
    (okf / "learnings" / "draft.md").write_text(
        "---\ntype: Learning\ntitle: Draft invoices\nstatus: draft\ntags: [billing]\n---\n"
        "Invoices in draft.\n", encoding="utf-8")
    home = tmp_path / "okfhome"
    env = {"OKFPRO_HOME": str(home), "OKFPRO_NO_DISCOVERY": "1"}
    assert invoke("registry", "set", "ws", str(okf), env=env).returncode == 0

    async def main() -> None:
        async with stdio_client(okf, server_env(**WHO, **env)) as c:
            for args, cli in (({"terms": ["invoces"], "fuzzy": True}, ["invoces", "--fuzzy"]),
                              ({"terms": ["numbring"], "fuzzy": True, "tag": "billing"}, ["numbring", "--fuzzy", "--tag", "billing"]),
                              ({"terms": ["invoices"], "status": "draft"}, ["invoices", "--status", "draft"]),
                              ({"terms": ["invoices"], "trust": "unverified"}, ["invoices", "--trust", "unverified"]),
                              ({"terms": ["invoices"], "except": ["snippet", "score"]}, ["invoices", "--except", "snippet,score"])):
                err, got = await call(c, "search", {**args, "limit": 0})
                assert not err, (args, got)
                _, want = cli_json("search", *cli, "--limit", "500", "--json", "--bundle", str(okf))
                assert got["matches"] == want["matches"] and want["matches"], args
            for bad in ({"terms": ["x"], "fuzzy": True, "engine": "scan"}, {"terms": ["x"], "fuzzy": True, "regexp": True},
                        {"terms": ["x"], "engine": "ranked", "regexp": True},
                        {"terms": ["x"], "fields": ["id"], "except": ["score"]}):
                with pytest.raises(MCPError) as info:
                    await c.call_tool("search", bad)
                assert info.value.code == -32602, bad
            for args, cli in (({"tag": "billing"}, ["--tag", "billing"]), ({"status": "draft"}, ["--status", "draft"]),
                              ({"trust": "unverified", "status": "draft"}, ["--trust", "unverified", "--status", "draft"]),
                              ({"type": "learning", "dir": "learnings/billing"}, ["--type", "learning", "--dir", "learnings/billing"])):
                err, got = await call(c, "catalog", {**args, "limit": 0})
                _, want = cli_json("catalog", *cli, "--json", "--bundle", str(okf))
                assert got["concepts"] == want["concepts"] and got["concepts"], args
            for tool, cli, key, args in (("tags", ["tags"], "tags", {}), ("types", ["types"], "types", {}),
                                         ("dirs", ["dirs"], "dirs", {}),
                                         ("tags", ["tags", "--type", "Learning"], "tags", {"type": "Learning"}),
                                         ("dirs", ["dirs", "--dir", "learnings"], "dirs", {"dir": "learnings"})):
                err, got = await call(c, tool, {**args, "limit": 0, **({} if tool == "dirs" else {"concepts_limit": 500})})
                _, want = cli_json(*cli, "--json", "--bundle", str(okf))
                assert got[key] == want[key] and got[key], tool
            err, got = await call(c, "tags", {"by": "type"})
            _, want = cli_json("tags", "--by", "type", "--json", "--bundle", str(okf))
            assert got["groups"] == want["groups"]
            err, text = await call(c, "dirs", {"dir": "no-such"})
            assert err and "no such directory" in text

            log = okf / "log.md"
            log.write_text(log.read_text(encoding="utf-8").rstrip("\n")
                           + "\n\n## 2026-11-28\n\n- older entry\n\n## 2026-11-29\n\n- newer entry\n", encoding="utf-8")
            err, got = await call(c, "log", {"since": "2026-11-28"})
            assert [d["day"] for d in got["days"]][:2] == ["2026-11-29", "2026-11-28"], got
            assert got["days"][0]["lines"] == ["- newer entry"]
            with pytest.raises(MCPError):
                await c.call_tool("log", {"since": "yesterday"})

            err, got = await call(c, "bundles", {})
            assert got["served"]["root"] == str(okf)
            assert [b["slug"] for b in got["bundles"]] == ["ws"] and got["bundles"][0]["dir"] == str(okf)

    anyio.run(main)


def test_the_mcp_package_does_not_import_the_cli() -> None:
    """The layer below (core/, io/) serves both; okfpro.mcp never reaches up into okfpro.cli (#36.4)."""
    import subprocess

    code = ("import sys, okfpro.mcp.toolkit, okfpro.mcp.tools, okfpro.mcp.server, okfpro.mcp.app, okfpro.mcp.tokens; "
            "from okfpro.mcp import tools; [t for t in tools.TOOLS]; "
            "bad = sorted(m for m in sys.modules if m == 'okfpro.cli' or m.startswith('okfpro.cli.')); "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=server_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for path in (REPO / "okfpro" / "mcp").glob("*.py"):
        assert "okfpro.cli" not in path.read_text(encoding="utf-8"), path


def test_paging_by_next_offset_walks_every_row_once() -> None:
    """Following next_offset from offset 0 shows each row exactly once, and the last page says so."""
    from okfpro.mcp.toolkit import page

    rows, seen, args = list(range(23)), [], {"offset": 0, "limit": 5}
    while True:
        shown, marks = page(rows, args)
        seen += shown
        assert marks["total"] == 23 and marks["offset"] == args["offset"]
        if not marks["truncated"]:
            assert "next_offset" not in marks
            break
        args = {"offset": marks["next_offset"], "limit": 5}
    assert seen == rows
