"""``memory recall`` through the real resident server: the scope directory's day listing is remembered at
the watch view's token (okfpro/memory/entries.current_listing) and answered without a ``stat`` per day
file while the view says nothing changed -- and every edit made behind okfpro's back (an append, a new
day file, a file replaced, a hand edit with its mtime put back) is still seen: each served answer equals a
fresh process's."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from okfpro.core.scope import Scope  # noqa: E402
from okfpro.io.cachedir import path_key, user_cache_dir  # noqa: E402
from okfpro.memory.store import MemoryStore  # noqa: E402
from tests.helpers import memory_workspace  # noqa: E402
from tests.test_resident import Resident, wait_for  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the server needs pidfd_open (Linux 5.3+)")

SCOPE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice", "OKFPRO_AGENT": "", "OKFPRO_SESSION": ""}
START = dt.datetime(2025, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def resident():
    r = Resident()
    yield r
    r.stop()


def _record(ws: Path, scope_dir: Path) -> Path | None:
    """The kept listing of ``scope_dir`` (okfpro/io/watched.Remembered's file), if any."""
    name = f"watched-daylisting-{path_key(os.path.realpath(scope_dir))}"
    for folder in (ws / ".tmp" / "okfpro-cache", Path(user_cache_dir())):
        if (folder / name).exists():
            return folder / name
    return None


def test_recall_remembers_the_listing_and_sees_every_edit_behind_its_back(resident, tmp_path):
    ws = memory_workspace(tmp_path)
    store = MemoryStore(ws / ".okf-memory")
    scope = Scope(tenant="acme", user="alice")
    rows = [(f"entry {i}: the deploy note number {i}", START + dt.timedelta(days=i // 10, seconds=i % 10)) for i in range(30)]
    _ids, _commit, error = store.write_many(scope, rows, "user", actor="test", what="fill")
    assert not error
    scope_dir = Path(store.scope_dir("user", scope))
    days = sorted(scope_dir.glob("*.md"))
    assert len(days) == 3

    def recall(*words: str, served: bool = True) -> tuple[int, bytes, bytes]:
        env = {**SCOPE, **({} if served else {"OKFPRO_RESIDENT": "0"})}
        proc = resident.run("memory", "recall", *words, "--limit", "50", cwd=ws, extra_env=env)
        return proc.returncode, proc.stdout, proc.stderr

    def same(*words: str) -> bytes:
        served, fresh = recall(*words), recall(*words, served=False)
        assert served == fresh, (served, fresh)
        assert served[0] == 0, served
        return served[1]

    resident.start()
    same("deploy")  # the scope directory is not watched yet: the server is told to watch it
    wait_for(lambda: any(s.get("watched") for s in resident.servers()))
    same("deploy")  # watched: the listing is read from the disk, and kept
    record = _record(ws, scope_dir)
    assert record is not None
    kept = (record.stat().st_ino, record.stat().st_mtime_ns)
    served = resident.served()
    assert b"number 29" in same("deploy")
    assert resident.served() == served + 1
    assert (record.stat().st_ino, record.stat().st_mtime_ns) == kept  # answered from the kept listing

    # an entry appended by hand (a sync, a merge, an editor)
    with open(days[0], "a", encoding="utf-8") as fh:
        fh.write("\n## 09:00:00 UTC\n\n> appended zulu by hand\n")
    assert b"appended zulu" in same("zulu")
    # a new day file, written beside okfpro
    (scope_dir / "2025-02-01.md").write_text(days[1].read_text(encoding="utf-8").replace("deploy", "yankee"),
                                             encoding="utf-8")
    assert b"yankee" in same("yankee")
    # a day file replaced by a rename (git checkout, an atomic editor save)
    scratch = scope_dir.parent / "scratch.tmp"
    scratch.write_text(days[2].read_text(encoding="utf-8").replace("deploy", "xray"), encoding="utf-8")
    os.replace(scratch, days[2])
    assert b"xray" in same("xray")
    # a hand edit whose modification time is put back as it was (the size differs: the index's fingerprint)
    st = days[1].stat()
    text = days[1].read_text(encoding="utf-8")
    days[1].write_text(text.replace("deploy", "whisk"), encoding="utf-8")
    os.utime(days[1], ns=(st.st_atime_ns, st.st_mtime_ns))
    assert b"whisk" in same("whisk")
    # and with nothing changed since, the listing is kept again and answers the same
    same("deploy")
    assert b"whisk" in same("whisk") and b"xray" in same("xray")
