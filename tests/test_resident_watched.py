"""The watcher through the real resident server: real ``okfpro hook`` processes hand their events to
the server the client starts; the server watches what its children ask for and forks each with a
view.  A clean Stop is remembered and a later one answers without git; every answer is a fresh
process's answer."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.io.cachedir import path_key, user_cache_dir  # noqa: E402
from tests.test_resident import Resident, wait_for  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="the server needs pidfd_open (Linux 5.3+)")


@pytest.fixture
def resident():
    r = Resident()
    yield r
    r.stop()


def _record(ws: Path) -> Path | None:
    root = os.path.realpath(ws / ".okf")
    for folder in (ws / ".tmp" / "okfpro-cache", Path(user_cache_dir())):
        path = folder / f"watched-gitclean-{path_key(root)}"
        if path.exists():
            return path
    return None


def test_a_clean_stop_through_the_server_is_remembered_and_equals_a_fresh_process(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    event = json.dumps({"cwd": str(ws), "session_id": "s", "stop_hook_active": False, "hook_event_name": "Stop"})

    def stop(served: bool = True) -> int:
        env = {} if served else {"OKFPRO_RESIDENT": "0"}
        proc = resident.run("hook", "stop", input=event.encode(), cwd=ws, extra_env=env)
        return proc.returncode

    resident.start()
    assert stop() == 0  # the root is not watched yet: git runs, the server is told to watch it
    wait_for(lambda: any(s.get("watched") for s in resident.servers()))
    assert stop() == 0  # watched: git runs once more, its clean answer is kept
    record = _record(ws)
    assert record is not None
    kept = (record.stat().st_ino, record.stat().st_mtime_ns)
    served = resident.served()
    assert stop() == 0 and stop() == 0
    assert resident.served() == served + 2
    assert (record.stat().st_ino, record.stat().st_mtime_ns) == kept  # answered without git: nothing kept again
    concept = ws / ".okf" / "learnings" / "search-ranking.md"
    concept.write_text(concept.read_text() + "an edit\n")
    assert stop() == 2 and stop(served=False) == 2
    hookkit.git(ws, "add", "-A")
    assert stop() == 2 and stop(served=False) == 2  # staged, not committed: still dirty
    hookkit.git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "edit")
    assert stop() == 0 and stop(served=False) == 0
    kept = (record.stat().st_ino, record.stat().st_mtime_ns)
    assert stop() == 0
    assert (record.stat().st_ino, record.stat().st_mtime_ns) == kept
    # a concept written and removed after that answer was settled (the server drained when it reaped
    # the child that kept it): as git saw it, so no git runs and nothing is kept again
    flash = ws / ".okf" / "learnings" / "for-a-moment.md"
    flash.write_text("# For a moment\n")
    flash.unlink()
    assert stop() == 0 and stop(served=False) == 0
    assert (record.stat().st_ino, record.stat().st_mtime_ns) == kept
    concept.write_text(concept.read_text() + "another edit\n")  # a dirty tree: its lines kept, a second Stop runs no git
    assert stop() == 2 and stop() == 2 and stop(served=False) == 2


def _waiting_on_its_answer(pid: int) -> bool:
    """The client process ``pid`` has sent its request and sleeps reading the answer."""
    try:
        with open(f"/proc/{pid}/wchan") as fh:
            return "unix_stream" in fh.read()
    except OSError:
        return False


def test_a_spare_forked_before_a_change_is_sent_away_and_one_forked_after_answers(resident, tmp_path):
    """The server forks a child ahead of the next request (a spare), holding the watch view of that
    moment.  A change that reaches the server after the spare's fork must not be answered by it:
    here the change and the request both arrive while the server is stopped (SIGSTOP), so nothing
    can replace the spare first; the request must see the change, as a fresh process does."""
    import signal
    import subprocess

    ws = hookkit.make_workspace(tmp_path)
    event = json.dumps({"cwd": str(ws), "session_id": "s", "stop_hook_active": False, "hook_event_name": "Stop"})

    def stop(served: bool = True) -> int:
        return resident.run("hook", "stop", input=event.encode(), cwd=ws,
                            extra_env={} if served else {"OKFPRO_RESIDENT": "0"}).returncode

    server = resident.start()
    assert stop() == 0
    wait_for(lambda: any(s.get("watched") for s in resident.servers()))
    assert stop() == 0 and stop() == 0  # the clean answer kept, then answered from it
    assert _record(ws) is not None
    spare = wait_for(lambda: resident.servers()[0]["spare"])
    before = resident.servers()[0]
    os.kill(server, signal.SIGSTOP)
    try:
        concept = ws / ".okf" / "learnings" / "search-ranking.md"
        concept.write_text(concept.read_text() + "an edit the spare never saw\n")
        given = tmp_path / "event.json"
        given.write_text(event)
        with open(given, "rb") as stdin:
            client = subprocess.Popen([sys.executable, "-m", "okfpro", "hook", "stop"], cwd=ws,
                                      env=hookkit.env(resident.env), stdin=stdin,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_for(lambda: _waiting_on_its_answer(client.pid))  # its request is queued at the stopped server
    finally:
        os.kill(server, signal.SIGCONT)
    _out, err = client.communicate(timeout=60)
    assert client.returncode == 2, err  # dirty: the edit seen
    assert stop(served=False) == 2
    after = resident.servers()[0]
    assert after["served"] == before["served"] + 1 and after["ahead"] == before["ahead"]  # not the spare's
    assert not os.path.exists(f"/proc/{spare}") or open(f"/proc/{spare}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    # once the changes pause, a spare forked after them takes the next request
    wait_for(lambda: resident.servers()[0]["spare"] not in (0, spare))
    assert stop() == 2
    now = resident.servers()[0]
    assert now["ahead"] == after["ahead"] + 1
    said = resident.run("resident", "status").stdout.decode()
    assert f"{now['served']} requests answered ({now['ahead']} by a child forked ahead)" in said
    # a change while nothing is asked: the spare that predates it is replaced once the changes pause
    spare = wait_for(lambda: resident.servers()[0]["spare"])
    (ws / ".okf" / "learnings" / "another.md").write_text("# Another\n")
    wait_for(lambda: resident.servers()[0]["spare"] not in (0, spare))
