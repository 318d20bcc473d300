"""The Stop gate reads the repository and never writes it: a clean Stop leaves ``.git/index`` as it was.

Real ``okfpro hook stop`` processes on a committed workspace.  A ``touch`` of a tracked concept
(stat data stale, content unchanged) is what makes a plain ``git status`` rewrite the index; the
gate's status must not.  Edits made behind the hooks' back with the stat data faked (a same-size
rewrite with its mtime put back) are still dirty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402


def stop(ws: Path) -> subprocess.CompletedProcess:
    event = {"hook_event_name": "Stop", "session_id": "s", "cwd": str(ws), "stop_hook_active": False}
    return subprocess.run([sys.executable, "-m", "okfpro", "hook", "stop"], input=json.dumps(event).encode(),
                          capture_output=True, env=hookkit.env(), cwd=str(ws), timeout=60)


def _index(ws: Path) -> tuple[bytes, int, int]:
    path = ws / ".git" / "index"
    st = os.stat(path)
    return path.read_bytes(), st.st_mtime_ns, st.st_ino


def test_a_clean_stop_after_a_touch_leaves_the_index_alone(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    concept = ws / ".okf" / "learnings" / "search-ranking.md"
    st = os.stat(concept)
    os.utime(concept, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # same bytes, stale stat data
    before = _index(ws)
    proc = stop(ws)
    assert proc.returncode == 0, hookkit.err_text(proc)
    assert _index(ws) == before
    # plain `git status` would have refreshed it: the test's premise holds
    subprocess.run(["git", "-C", str(ws), "status", "--porcelain"], capture_output=True, check=True)
    assert _index(ws) != before


def test_a_same_size_rewrite_with_its_mtime_put_back_is_dirty(tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    concept = ws / ".okf" / "learnings" / "search-ranking.md"
    text = concept.read_text()
    st = os.stat(concept)
    swapped = text.replace("a", "e", 1)
    assert swapped != text and len(swapped) == len(text)
    concept.write_text(swapped)
    os.utime(concept, ns=(st.st_atime_ns, st.st_mtime_ns))
    proc = stop(ws)
    assert proc.returncode == 2 and "no Snapshot line" in hookkit.err_text(proc), hookkit.err_text(proc)
