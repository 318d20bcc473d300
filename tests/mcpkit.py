"""Test kit for `okfpro mcp`: a real server subprocess, driven by the official SDK's own client."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.helpers import REPO, invoke

IDENTITY_VARS = ("OKFPRO_TENANT", "OKFPRO_USER", "OKFPRO_AGENT", "OKFPRO_SESSION", "OKFPRO_BUNDLE")


def server_env(**extra: str) -> dict[str, str]:
    """The whole test environment (Git identity, HOME), no okfpro identity unless given."""
    env = {k: v for k, v in os.environ.items() if k not in IDENTITY_VARS}
    env.setdefault("PYTHONPATH", str(REPO))
    env.update(extra)
    return env


def workspace(tmp: Path, name: str = "ws") -> Path:
    """A scaffolded workspace (okfpro init) with a few concepts of our own."""
    ws = tmp / name
    proc = invoke("init", str(ws))
    assert proc.returncode == 0, proc.stderr
    okf = ws / ".okf"
    (okf / "learnings" / "billing").mkdir(parents=True, exist_ok=True)
    (okf / "learnings" / "billing" / "invoices.md").write_text(
        "---\ntype: Learning\ntitle: Invoice numbering\ndescription: How invoices are numbered\ntags: [billing, invoices]\n---\n"
        "# Invoice numbering\n\nInvoices are numbered per year; see [the glossary](/glossary/index.md).\n",
        encoding="utf-8")
    (okf / "learnings" / "renewal.md").write_text(
        "---\ntype: Learning\ntitle: Insurance renewal\ndescription: Renewal happens in March\ntags: [insurance]\n---\n"
        "# Insurance renewal\n\nThe insurer renews in March; links [invoices](/learnings/billing/invoices.md).\n",
        encoding="utf-8")
    return ws


def cli_json(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[int, Any]:
    proc = invoke(*args, cwd=cwd, env=env)
    assert proc.returncode in (0, 1), f"{args}: {proc.returncode} {proc.stderr}"
    return proc.returncode, json.loads(proc.stdout)


@asynccontextmanager
async def stdio_client(bundle: Path, env: dict[str, str] | None = None, cwd: Path | None = None):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "okfpro", "mcp", "--bundle", str(bundle)],
                                   env=env if env is not None else server_env(), cwd=str(cwd) if cwd else None)
    async with Client(params, cache=None, read_timeout_seconds=60) as client:
        yield client


async def call(client, name: str, args: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """(is_error, structured JSON or the error text)."""
    result = await client.call_tool(name, args or {})
    if result.is_error:
        return True, result.content[0].text
    return False, result.structured_content


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    """`okfpro mcp --http` as a real process on a loopback port."""

    def __init__(self, bundle: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "okfpro", "mcp", "--bundle", str(bundle), "--http", "--port", str(self.port), *args],
            env=env if env is not None else server_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited {self.proc.returncode}: {self.proc.stderr.read().decode()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("server did not start")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@asynccontextmanager
async def http_client(url: str, token: str | None):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http), cache=None, read_timeout_seconds=60) as client:
            yield client
