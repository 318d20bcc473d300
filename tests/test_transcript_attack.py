"""A hostile ``transcript_path`` on the Stop event (issue #10 item 6).

Real ``okfpro hook stop`` processes with a timeout: a FIFO nobody writes, ``/dev/zero``,
``/dev/urandom``, a directory, another OS user's 0600 file, and a symlink to each.  The
capture is skipped with one stderr line naming why, nothing is captured, and the Stop
gate still answers (exit 0 on a clean bundle) — in seconds, not never.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

WHO = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}
TURN = [
    {"type": "user", "message": {"role": "user", "content": "remember the deploy runs on Fridays"}},
    {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}},
]


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    ws = hookkit.make_workspace(tmp_path_factory.mktemp("transcript"), commit=False)
    (ws / "okfpro.toml").write_text("[memory]\ncapture = true\n")
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "workspace")
    return ws


def stop(ws: Path, transcript: str, timeout: float = 30) -> subprocess.CompletedProcess:
    event = {"hook_event_name": "Stop", "session_id": "s-t", "cwd": str(ws), "transcript_path": transcript,
             "stop_hook_active": False}
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", "stop"], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env(WHO), cwd=str(ws), timeout=timeout)


def _foreign_file(base: Path) -> Path | None:
    path = base / "foreign.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in TURN) + "\n")
    path.chmod(0o600)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
        return path
    return Path("/etc/passwd") if os.stat("/etc/passwd").st_uid != os.geteuid() else None


def _hostile(base: Path, name: str) -> str:
    if name == "fifo":
        path = base / "t.fifo"
        if not path.exists():
            os.mkfifo(path)
        return str(path)
    if name == "directory":
        return str(base)
    if name == "foreign":
        found = _foreign_file(base)
        if found is None:
            pytest.skip("no file owned by another user is readable here")
        return str(found)
    return {"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom"}[name]


@pytest.mark.parametrize("via_link", [False, True], ids=["direct", "symlink"])
@pytest.mark.parametrize("name", ["fifo", "dev-zero", "dev-urandom", "directory", "foreign"])
def test_a_hostile_transcript_is_skipped_and_the_gate_still_answers(ws, tmp_path, name, via_link):
    path = _hostile(tmp_path, name)
    if via_link:
        link = tmp_path / f"{name}.link"
        link.symlink_to(path)
        path = str(link)
    proc = stop(ws, path)
    err = hookkit.err_text(proc)
    assert proc.returncode == 0, err
    lines = [ln for ln in err.splitlines() if "transcript was not read" in ln]
    assert len(lines) == 1, err
    assert "remember the deploy" not in _memory_text(ws)


def _memory_text(ws: Path) -> str:
    out = []
    for path in ws.rglob("*"):
        if path.is_file() and ".git" not in path.parts and "memory" in str(path):
            out.append(path.read_text(errors="replace"))
    return "\n".join(out)


def test_an_own_regular_transcript_is_still_captured(ws, tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in TURN) + "\n")
    link = tmp_path / "t.link"
    link.symlink_to(path)  # a link to the caller's own regular file is judged by its target: read
    proc = stop(ws, str(link))
    assert proc.returncode == 0 and "transcript was not read" not in hookkit.err_text(proc), hookkit.err_text(proc)
