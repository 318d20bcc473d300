"""``okfpro memory import``: JSON lines and Claude Code transcripts, through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import invoke

ENV = {"OKFPRO_TENANT": "", "OKFPRO_USER": "imp", "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}


@pytest.fixture()
def ws(tmp_path):
    (tmp_path / ".okf").mkdir()
    (tmp_path / "okfpro.toml").write_text("[memory]\n")
    return tmp_path


def cli(ws: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return invoke("memory", *args, cwd=ws, stdin=stdin, env=ENV, text=False)


def lines(*objs) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def test_jsonl_import_is_one_commit_redacted_and_resumable(ws):
    data = lines(
        {"text": "we deploy the staging cluster on fridays", "time": "2025-03-01T10:00:00Z", "kind": "decision"},
        {"text": "the db password is hunter2-3 for staging", "id": "pw"},
        {"text": "AKIAIOSFODNN7EXAMPLE is the key", "time": "2025-03-02T10:00:00+02:00"},
        {"text": "postgres backups run nightly", "id": 7, "tier": "user"},
        {"text": "We deploy the staging cluster on Fridays!", "kind": "decision"},
    )
    (ws / "in.jsonl").write_bytes(data)
    first = cli(ws, "import", "in.jsonl", "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["read"] == 5 and out["imported"] == 4 and out["skipped"] == 1 and len(out["commits"]) == 1
    log = cli(ws, "log", "--json")
    assert len(json.loads(log.stdout)["commits"]) == 1
    stored = b"".join(p.read_bytes() for p in (ws / ".okf-memory").rglob("*.md"))
    assert b"hunter2" not in stored and b"AKIAIOSFODNN7EXAMPLE" not in stored
    assert b"2025-03-01" in b" ".join(p.name.encode() for p in (ws / ".okf-memory").rglob("*.md"))
    again = cli(ws, "import", "-", "--json", stdin=data)
    assert json.loads(again.stdout)["imported"] == 0
    assert len(json.loads(cli(ws, "log", "--json").stdout)["commits"]) == 1
    found = json.loads(cli(ws, "recall", "staging", "deploy", "--json").stdout)["passages"]
    assert [p["kind"] for p in found][:1] == ["decision"]


def test_bad_line_imports_nothing(ws):
    data = lines({"text": "fine"}) + b"{not json\n" + lines({"text": "also fine"})
    proc = cli(ws, "import", "-", stdin=data)
    assert proc.returncode == 2 and b"line 2" in proc.stderr and b"nothing was imported" in proc.stderr
    assert not list((ws / ".okf-memory").rglob("*.md")) if (ws / ".okf-memory").exists() else True
    for bad, why in (({"text": ""}, b"non-empty"), ({"text": "x", "tier": "root"}, b"tier"),
                     ({"text": "x", "kind": "gossip"}, b"kind"), ({"text": "x", "time": "yesterday"}, b"time"),
                     ({"text": "x", "scope": "other-user"}, b"unknown field")):
        proc = cli(ws, "import", "-", stdin=lines(bad))
        assert proc.returncode == 2 and why in proc.stderr, (bad, proc.stderr)


def test_claude_transcript_becomes_captured_exchanges(ws):
    turns = [
        {"type": "summary", "summary": "ignored"},
        {"type": "user", "message": {"role": "user", "content": "how do we rotate the staging certs?"},
         "timestamp": "2025-05-01T09:00:00Z"},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "name": "Bash", "input": {}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Run certbot renew on the bastion, then reload nginx."}]}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}},
        {"type": "user", "message": {"role": "user", "content": "<system-reminder>x</system-reminder>thanks"},
         "timestamp": "2025-05-01T09:05:00Z"},
    ]
    (ws / "t.jsonl").write_bytes(lines(*turns))
    proc = cli(ws, "import", "t.jsonl", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["imported"] == 2
    listing = json.loads(cli(ws, "list", "--json").stdout)["entries"]
    assert [e["date"] for e in listing] == ["2025-05-01", "2025-05-01"]
    text = json.loads(cli(ws, "recall", "certbot", "--json").stdout)["passages"][0]["text"]
    assert "**User:**\n> how do we rotate the staging certs?" in text and "certbot renew" in text
    assert "tool_result" not in text and "system-reminder" not in text
    assert json.loads(cli(ws, "import", "t.jsonl", "--json").stdout)["imported"] == 0
