"""``memory recall`` in fresh processes sees every edit made to the day files behind okfpro's back: an
append by hand, a new day file, a file replaced by a rename, a hand edit with its mtime put back.
(Kept from tests/test_recall_watched.py, which held the resident server's answers to these.)"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from okfpro.core.scope import Scope
from okfpro.memory.store import MemoryStore
from tests.helpers import memory_workspace, scoped_env

START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


def test_recall_sees_every_edit_behind_its_back(tmp_path):
    ws = memory_workspace(tmp_path)
    store = MemoryStore(ws / ".okf-memory")
    scope = Scope(tenant="acme", user="alice")
    rows = [(f"entry {i}: the deploy note number {i}", START + dt.timedelta(days=i // 10, seconds=i % 10)) for i in range(30)]
    _ids, _commit, error = store.write_many(scope, rows, "user", actor="test", what="fill")
    assert not error
    scope_dir = Path(store.scope_dir("user", scope))
    days = sorted(scope_dir.glob("*.md"))
    assert len(days) == 3
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", XDG_CACHE_HOME=str(tmp_path / "cache"))

    def recall(*words: str) -> bytes:
        proc = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", *words, "--limit", "50"], cwd=ws,
                              env=env, capture_output=True)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert b"number 29" in recall("deploy")
    assert b"number 29" in recall("deploy")  # the index built by the first call answers the second
    # an entry appended by hand (a sync, a merge, an editor)
    with open(days[0], "a", encoding="utf-8") as fh:
        fh.write("\n## 09:00:00 UTC\n\n> appended zulu by hand\n")
    assert b"appended zulu" in recall("zulu")
    # a new day file, written beside okfpro
    (scope_dir / "2025-02-01.md").write_text(days[1].read_text(encoding="utf-8").replace("deploy", "yankee"),
                                             encoding="utf-8")
    assert b"yankee" in recall("yankee")
    # a day file replaced by a rename (git checkout, an atomic editor save)
    scratch = scope_dir.parent / "scratch.tmp"
    scratch.write_text(days[2].read_text(encoding="utf-8").replace("deploy", "xray"), encoding="utf-8")
    os.replace(scratch, days[2])
    assert b"xray" in recall("xray")
    # a hand edit whose modification time is put back as it was
    st = days[1].stat()
    text = days[1].read_text(encoding="utf-8")
    days[1].write_text(text.replace("deploy", "whisk"), encoding="utf-8")
    os.utime(days[1], ns=(st.st_atime_ns, st.st_mtime_ns))
    assert b"whisk" in recall("whisk")
    assert b"whisk" in recall("whisk") and b"xray" in recall("xray")
