"""``okfpro memory import`` as an attacker feeds it (issue 37, items 7 and 9): every entry, whatever
its source (our JSON lines, a Claude Code transcript, the store's own API), passes the one safety
layer before disk; a hostile line (an overflowing time, deep nesting, a lone surrogate) is a clear
error naming it, exit 2, and nothing is written."""

from __future__ import annotations

import json
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.helpers import memory_workspace
from tests.test_memory_import import cli, lines

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AKIA = "AKIA" + "Q3EGRTZ7WNCHY6BX"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKQ"
SECRETS = (GHP.encode(), AKIA.encode(), AWS_SECRET.encode())


@pytest.fixture()
def ws(tmp_path):
    return memory_workspace(tmp_path)


def everything_on_disk(ws: Path) -> bytes:
    """Every byte under the memory directory, Git objects inflated."""
    out = []
    root = ws / ".okf-memory"
    if not root.exists():
        return b""
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if "/objects/" in path.as_posix() and "/pack/" not in path.as_posix():
            try:
                data = zlib.decompress(data)
            except zlib.error:
                pass
        out.append(data)
    packs = [p for p in root.rglob("*.pack")]
    for pack in packs:
        show = subprocess.run(["git", "--git-dir", str(pack.parent.parent.parent), "cat-file", "--batch-all-objects",
                               "--batch"], capture_output=True, check=False)
        out.append(show.stdout)
    return b"\n".join(out)


def turn(user: str, agent: str, when: str = "2025-05-01T09:00:00Z") -> list[dict]:
    return [{"type": "user", "message": {"role": "user", "content": user}, "timestamp": when},
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": agent}]}}]


def test_a_transcript_is_redacted_like_every_other_entry(ws):
    data = lines(*turn(f"my token is {GHP} and the key {AKIA}", f"set aws secret {AWS_SECRET} in the vault"),
                 *turn("the bare secret", f"it was {GHP} all along", "2025-05-02T09:00:00Z"))
    proc = cli(ws, "import", "-", "--json", stdin=data)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["imported"] == 2 and out["redacted"] >= 4, out
    stored = everything_on_disk(ws)
    assert b"[REDACTED:github-pat:" in stored
    for secret in SECRETS:
        assert secret not in stored, secret


@pytest.mark.parametrize("escape", ["\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b[2J\x1b[H"])
def test_a_transcript_turn_with_terminal_escapes_is_not_imported_raw(ws, escape):
    data = lines(*turn(f"run it {escape} now", "done"), *turn("a clean question", "a clean answer",
                                                             "2025-05-02T09:00:00Z"))
    proc = cli(ws, "import", "-", "--json", stdin=data)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["imported"] == 1 and out["refused"] == 1, out
    stored = everything_on_disk(ws)
    assert b"a clean answer" in stored and escape.encode() not in stored and b"run it" not in stored


def test_the_store_itself_redacts_whatever_calls_it(ws):
    """No caller can hand the store text around the safety layer: write and write_many redact and refuse."""
    import datetime as dt

    from okfpro.core.scope import Scope
    from okfpro.memory.store import MemoryStore

    store = MemoryStore(ws / ".okf-memory")
    scope = Scope(None, "imp")
    one = store.write(scope, f"direct {GHP}")
    assert one.written, one.error
    ids, _commit, error = store.write_many(scope, [(f"bulk {AKIA} and {AWS_SECRET} aws", dt.datetime.now(dt.timezone.utc))])
    assert ids and error is None
    # a frontmatter of the store's own shape is read as data only when every line is one of its fields
    for head in (f"memory: m-0123456789ab\nsecret: {GHP}", f"memory: m-0123456789ab\nsource: {AKIA}",
                 f"memory: m-0123456789ab\n{GHP}: x"):
        wrote = store.write(scope, f"---\n{head}\n---\nbody {AWS_SECRET}")
        assert wrote.written, wrote.error
    refused = store.write(scope, "colour \x1b[31mred\x1b[0m")
    assert not refused.written and "shell-output" in (refused.error or "")
    stored = everything_on_disk(ws)
    for secret in SECRETS:
        assert secret not in stored
    assert b"\x1b[31m" not in stored


HOSTILE = [
    ("overflowing time", lines({"text": "ok"}, {"text": "late", "time": "9999-12-31T23:59:59-12:00"}), 2),
    ("underflowing time", lines({"text": "early", "time": "0001-01-01T00:00:00+14:00"}), 1),
    ("transcript overflowing timestamp", lines({"text": "ok"}, *turn("q", "a", "9999-12-31T23:59:59-12:00")), 2),
    ("deep nesting", lines({"text": "ok"}) + b'{"text": "x", "kind": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", 2),
    ("deep bare nesting", b"[" * 200_000 + b"\n", 1),
    ("lone surrogate", lines({"text": "ok"}) + b'{"text": "half \\ud800 a pair"}\n', 2),
    ("lone low surrogate in a transcript", lines({"text": "ok"}) +
     b'{"type": "user", "message": {"role": "user", "content": "q \\udfff"}}\n', 2),
    ("surrogate in an id", lines({"text": "ok"}, {"text": "y"}) + b'{"text": "z", "id": "\\ud83d"}\n', 3),
    ("a tier this identity cannot write after one it can", lines({"text": "ok"}, {"text": "t", "tier": "tenant"}), 2),
    ("an agent tier with no agent", lines({"text": "ok"}, {"text": "x"}, {"text": "a", "tier": "agent"}), 3),
    ("a huge integer id", lines({"text": "ok"}) + b'{"text": "z", "id": ' + b"9" * 5000 + b"}\n", 2),
]


@pytest.mark.parametrize("name,data,line", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_line_is_a_clear_error_and_nothing_is_written(ws, name, data, line):
    proc = cli(ws, "import", "-", stdin=data)
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-600:])
    assert b"Traceback" not in proc.stderr
    assert f"line {line}".encode() in proc.stderr and b"nothing was imported" in proc.stderr, proc.stderr[-600:]
    assert not list((ws / ".okf-memory").rglob("*.md")) if (ws / ".okf-memory").exists() else True
    log = json.loads(cli(ws, "log", "--json").stdout)["commits"]
    assert log == []
