"""The resident okfpro (okfpro/resident): a warm server forks a child per request.

Real processes throughout: the client is ``python -m okfpro`` or a launcher, the server is the one
the client starts, the requests cross a real Unix socket with the client's descriptors.  Every answer
a served child gives is compared with the answer of a fresh process on the same workspace, and every
way the server can fail after taking a request is drilled: the gates refuse, feedback says why.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from tests.helpers import scoped_env  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the resident okfpro is Linux-only (SO_PEERCRED)")


class Resident:
    """A private socket folder, and what the servers in it say."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="rs-")  # short: an AF_UNIX path is at most 107 bytes
        os.chmod(self.dir, 0o700)
        self.env = {"OKFPRO_RESIDENT": "1", "OKFPRO_RESIDENT_DIR": self.dir, "OKFPRO_RESIDENT_IDLE": "120"}

    def run(self, *args: str, **kw) -> subprocess.CompletedProcess:
        env = hookkit.env({**self.env, **kw.pop("extra_env", {})})
        kw.setdefault("cwd", self.dir)  # not the checkout: -m puts the working directory first
        return subprocess.run([sys.executable, "-m", "okfpro", *args], capture_output=True, env=env, timeout=120, **kw)

    def start(self, extra_env: dict[str, str] | None = None) -> int:
        proc = self.run("resident", "start", extra_env=extra_env or {})
        assert proc.returncode == 0, proc.stderr
        return int(proc.stdout.decode().rsplit("pid ", 1)[1].rstrip(")\n"))

    def servers(self) -> list[dict]:
        """What each server in the folder says of itself (asked here, as `okfpro resident status` asks)."""
        from okfpro.resident import client

        out = []
        for name in sorted(os.listdir(self.dir)):
            if name.endswith(".sock"):
                line = client.status(os.path.join(self.dir, name))
                if line is not None:
                    out.append({k: int(v) for k, _, v in (part.partition("=") for part in line.split())})
        return out

    def served(self) -> int:
        return sum(s["served"] for s in self.servers())

    def stop(self) -> None:
        for server in self.servers():
            try:
                os.kill(server["pid"], signal.SIGKILL)
            except OSError:
                pass
        for name in os.listdir(self.dir):
            if name.endswith(".log"):
                print(name, open(os.path.join(self.dir, name)).read())
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def resident():
    r = Resident()
    yield r
    r.stop()


def children_of(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(name))
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(predicate, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def answer(proc: subprocess.CompletedProcess) -> tuple[int, bytes, bytes]:
    return proc.returncode, proc.stdout, proc.stderr


# --------------------------------------------------------------------------- the same answers


def _hook_events(ws: Path) -> list[tuple[str, dict]]:
    journal_past = ws / ".okf" / "journal" / f"{hookkit.PAST}.md"
    return [
        ("session-start", {"cwd": str(ws), "source": "startup", "session_id": "s1"}),
        ("pre-tool-use", {"cwd": str(ws), "session_id": "s1", "tool_name": "Read",
                          "tool_input": {"file_path": str(ws / ".okf" / "board.md")}}),
        ("pre-tool-use", hookkit.edit_event(ws, "reference/new-briefing.md", "---\nverified: yes\n---\n", tool="Write")),
        ("pre-tool-use", {**hookkit.edit_event(ws, "x.md", "x"), "tool_input": {"file_path": str(journal_past),
                                                                                   "old_string": "a", "new_string": "b"}}),
        ("pre-tool-use", hookkit.bash_event(ws, "echo hi > .okf/learnings/new.md")),
        ("post-tool-use", hookkit.edit_event(ws, "learnings/search-ranking.md", "x", hook_event="PostToolUse")),
        ("user-prompt-submit", {"cwd": str(ws), "session_id": "s1", "prompt": "how does search ranking work?"}),
        ("stop", {"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}),
        ("session-end", {"cwd": str(ws), "session_id": "s1", "reason": "exit"}),
    ]


def _session(ws: Path, extra_env: dict[str, str]) -> list[tuple[int, bytes, bytes]]:
    """Every event of a session in order, against ``ws``, with a fresh cache folder."""
    cache = tempfile.mkdtemp(prefix="okfpro-cache-")
    env = {**extra_env, "XDG_CACHE_HOME": cache}
    out = [answer(hookkit.hook(event, event=data, extra_env=env, cwd=ws)) for event, data in _hook_events(ws)]
    (ws / ".okf" / "learnings" / "fresh-note.md").write_text(  # a dirty tree: the Stop gate's refusal
        "---\ntype: Learning\ntitle: Fresh\ndescription: A new note.\n---\n\n# Fresh\n\nText.\n")
    out.append(answer(hookkit.hook("stop", event={"cwd": str(ws), "session_id": "s1", "stop_hook_active": False},
                                   extra_env=env, cwd=ws)))
    shutil.rmtree(cache, ignore_errors=True)
    return out


def test_every_hook_event_is_answered_as_a_fresh_process_answers_it(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    pristine = tmp_path / "pristine"
    shutil.copytree(ws, pristine, symlinks=True)
    fresh = _session(ws, {"OKFPRO_RESIDENT": "0"})
    shutil.rmtree(ws)
    shutil.copytree(pristine, ws, symlinks=True)
    resident.start()
    before = resident.served()
    served = _session(ws, resident.env)
    from okfpro.resident.client import SERVED_HOOKS

    events = [event for event, _data in _hook_events(ws)] + ["stop"]
    assert resident.served() - before == sum(event in SERVED_HOOKS for event in events)  # answered by children
    assert "pre-tool-use" not in SERVED_HOOKS  # answered fresh: lighter than the hand-over
    for (event, _data), one, other in zip(_hook_events(ws) + [("stop", None)], fresh, served):
        assert one == other, event
    codes = [code for code, _out, _err in served]
    assert 2 in codes and 0 in codes  # blocks and passes among them


def test_the_one_process_launcher_is_answered_by_the_server(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    (ws / ".claude" / "hooks" / "okfpro-python").write_text(f"{sys.executable}\none-process\n")
    (ws / ".okf" / "learnings" / "fresh-note.md").write_text("# Fresh\n\nA new note with no frontmatter.\n")
    event = {"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}
    fresh = hookkit.run_launcher(ws, "stop.py", event, extra_env={"OKFPRO_RESIDENT": "0"})
    resident.start()
    before = resident.served()
    served = hookkit.run_launcher(ws, "stop.py", event, extra_env=resident.env)
    assert resident.served() == before + 1
    assert answer(served) == answer(fresh)
    assert served.returncode == 2 and "RULE 2" in hookkit.err_text(served) and hookkit.MARKER not in hookkit.err_text(served)


def _memory(resident: Resident | None, ws: Path, user: str, *args: str, **kw) -> subprocess.CompletedProcess:
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER=user, OKFPRO_TODAY="2026-11-30",
                     PYTHONPATH=str(hookkit.REPO), **(resident.env if resident else {"OKFPRO_RESIDENT": "0"}))
    return subprocess.run([sys.executable, "-m", "okfpro", "memory", *args], cwd=ws, env=env, capture_output=True,
                          timeout=120, **kw)


def test_identity_comes_from_each_requests_own_environment(resident, tmp_path):
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    resident.start({"OKFPRO_USER": "mallory"})  # the server's own environment names nobody's scope
    before = resident.served()
    wrote = _memory(resident, ws, "alice", "remember", "the staging database password rotates on fridays")
    assert wrote.returncode == 0, wrote.stderr
    assert b"/alice" in wrote.stdout or b"alice" in wrote.stdout
    mine = _memory(resident, ws, "alice", "recall", "staging database")
    theirs = _memory(resident, ws, "bob", "recall", "staging database")
    server_user = _memory(resident, ws, "mallory", "recall", "staging database")
    assert resident.served() == before + 4
    assert b"rotates on fridays" in mine.stdout
    assert b"rotates on fridays" not in theirs.stdout and b"rotates on fridays" not in server_user.stdout
    for served, user in ((mine, "alice"), (theirs, "bob")):
        fresh = _memory(None, ws, user, "recall", "staging database")
        assert answer(served) == answer(fresh)


def test_many_clients_at_once_lose_nothing(resident, tmp_path):
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    resident.start()
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30",
                     PYTHONPATH=str(hookkit.REPO), **resident.env)
    # remembers and recalls at once: connections end and begin while children are reaped, so a
    # descriptor number is reused by the next request within one turn of the server's loop
    procs = [subprocess.Popen([sys.executable, "-m", "okfpro", "memory", "remember", f"parallel fact number {i} about zebras"],
                              cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(16)]
    procs += [subprocess.Popen([sys.executable, "-m", "okfpro", "memory", "recall", "zebras"], cwd=ws, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(16)]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    got = _memory(resident, ws, "alice", "recall", "zebras", "--limit", "50", "--json")
    assert got.returncode == 0, got.stderr
    texts = got.stdout.decode()
    assert all(f"parallel fact number {i} about zebras" in texts for i in range(16))


def test_closed_stdin_and_the_umask_are_the_clients(resident, tmp_path):
    outputs = {}
    for mode in ("fresh", "served"):
        ws = tmp_path / mode
        (ws / ".okf").mkdir(parents=True)
        (ws / "okfpro.toml").write_text("[memory]\n")
        env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30",
                         PYTHONPATH=str(hookkit.REPO), **(resident.env if mode == "served" else {"OKFPRO_RESIDENT": "0"}))
        if mode == "served":
            resident.start()
            before = resident.served()
        cmd = f'umask 077; exec "{sys.executable}" -m okfpro memory remember "a private note" <&-'
        proc = subprocess.run(["sh", "-c", cmd], cwd=ws, env=env, capture_output=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        if mode == "served":
            assert resident.served() == before + 1
        modes = sorted((str(p.relative_to(ws)), p.stat().st_mode & 0o777) for p in (ws / ".okf-memory").rglob("*")
                       if ".okf-history.git" not in p.parts)  # its object names carry the commit's time
        assert any(m == 0o700 for _p, m in modes)  # the folders it made: the client's umask, not the server's
        outputs[mode] = (modes, proc.stdout.decode().replace(str(ws), "WS"))
        hook_proc = subprocess.run(["sh", "-c", f'exec "{sys.executable}" -m okfpro hook post-tool-use <&-'], cwd=ws,
                                   env=env, capture_output=True, timeout=120)
        outputs[mode + "-hook"] = answer(hook_proc)
    assert outputs["fresh"] == outputs["served"]
    assert outputs["fresh-hook"] == outputs["served-hook"]
    assert outputs["served-hook"][0] == 2  # no event: the gate refuses


# --------------------------------------------------------------------------- failures after the hand-over


def _hanging(resident: Resident, ws: Path, event: str) -> tuple[subprocess.Popen, int, int]:
    """A hook whose child waits for the rest of its event (stdin left open): (client, server, child)."""
    server = resident.start()
    proc = subprocess.Popen([sys.executable, "-m", "okfpro", "hook", event], cwd=ws, env=hookkit.env(resident.env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # the request's child: the server's only child once the request runs (a spare waiting before it
    # is handed this request, and no other is forked while a request runs)
    child = wait_for(lambda: resident.servers()[0]["running"] == 1 and children_of(server))
    assert len(child) == 1, child
    return proc, server, child[0]


@pytest.mark.parametrize(("event", "code", "says"), [
    ("post-tool-use", 2, "ENFORCEMENT DEGRADED"), ("stop", 2, "ENFORCEMENT DEGRADED"),
    ("session-start", 0, "could not answer"), ("user-prompt-submit", 0, "could not answer"),
])
def test_a_child_killed_mid_request_refuses_a_gate_and_lets_feedback_go_on(resident, tmp_path, event, code, says):
    ws = hookkit.make_workspace(tmp_path)
    proc, server, child = _hanging(resident, ws, event)
    os.kill(child, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code
    assert says in err.decode() and "signal 9" in err.decode()
    assert out == b""
    assert resident.servers()  # the server carries on


def test_a_server_killed_mid_request_refuses_and_the_next_request_is_answered(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    proc, server, child = _hanging(resident, ws, "stop")
    os.kill(server, signal.SIGKILL)
    wait_for(lambda: not _running(child))  # the child dies with its server (before its stdin closes)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "ENFORCEMENT DEGRADED" in err.decode() and "went away" in err.decode()
    event = {"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}
    again = hookkit.hook("stop", event=event, extra_env=resident.env, cwd=ws)
    fresh = hookkit.hook("stop", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
    assert answer(again) == answer(fresh)  # a dead server's leftover socket: answered in-process


def test_a_spare_killed_while_it_waits_is_replaced_and_dies_with_its_server(resident, tmp_path):
    """The child forked ahead of the next request (the spare): killed while it waits, the next
    request is answered all the same (by a child forked for it, or the spare forked after the
    first was reaped) and another spare is forked; it never outlives its server."""
    ws = hookkit.make_workspace(tmp_path)
    server = resident.start()
    spare = wait_for(lambda: resident.servers()[0]["spare"])
    assert children_of(server) == [spare]
    os.kill(spare, signal.SIGKILL)
    event = {"cwd": str(ws), "session_id": "s1", "source": "startup"}
    served = hookkit.hook("session-start", event=event, extra_env=resident.env, cwd=ws)
    fresh = hookkit.hook("session-start", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
    assert answer(served) == answer(fresh) and served.returncode == 0
    assert resident.served() == 1
    again = wait_for(lambda: resident.servers()[0]["spare"] not in (0, spare) and resident.servers()[0]["spare"])
    assert children_of(server) == [again]
    os.kill(server, signal.SIGKILL)
    wait_for(lambda: not _running(again))  # PR_SET_PDEATHSIG


def test_a_client_killed_mid_request_takes_its_child_with_it(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    proc, server, child = _hanging(resident, ws, "post-tool-use")
    proc.kill()  # the host gave up on the hook
    proc.wait()
    wait_for(lambda: child not in children_of(server))
    assert [s["pid"] for s in resident.servers()] == [server]


def test_a_server_whose_code_changed_declines_and_exits(resident, tmp_path):
    copy = tmp_path / "pkg"
    shutil.copytree(hookkit.REPO / "okfpro", copy / "okfpro", ignore=shutil.ignore_patterns("__pycache__"))
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    env = {"PYTHONPATH": str(copy)}
    resident.start(env)
    before = resident.served()
    full = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30", **resident.env, **env)
    first = subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", "a note before the upgrade"],
                           cwd=ws, env=full, capture_output=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert resident.served() == before + 1
    module = copy / "okfpro" / "memory" / "recall.py"
    st = module.stat()
    os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # an upgrade rewrote it
    second = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", "upgrade"], cwd=ws, env=full,
                            capture_output=True, timeout=120)
    assert second.returncode == 0 and b"a note before the upgrade" in second.stdout
    wait_for(lambda: not resident.servers())  # it declined, and left


def test_a_folder_others_may_enter_is_never_used(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    event = {"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}
    os.chmod(resident.dir, 0o755)
    opened = hookkit.hook("stop", event=event, extra_env=resident.env, cwd=ws)
    link = Path(tempfile.mkdtemp(prefix="rs-")) / "link"
    private = tempfile.mkdtemp(prefix="rs-")
    link.symlink_to(private)
    linked = hookkit.hook("stop", event=event, extra_env={**resident.env, "OKFPRO_RESIDENT_DIR": str(link)}, cwd=ws)
    fresh = hookkit.hook("stop", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
    assert answer(opened) == answer(fresh) == answer(linked)
    time.sleep(1.0)
    assert not [n for n in os.listdir(resident.dir) if n.endswith((".sock", ".log"))]
    assert not [n for n in os.listdir(private) if n.endswith((".sock", ".log"))]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a server as another user")
def test_a_socket_answered_by_another_user_is_never_used(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    resident.dir = tempfile.mkdtemp(prefix="rs-", dir="/tmp")  # on the file system of the folder below
    resident.env["OKFPRO_RESIDENT_DIR"] = resident.dir
    where = json.loads(resident.run("resident", "status", "--json").stdout)["socket"]
    shared = Path(tempfile.mkdtemp(prefix="rs-other-", dir="/tmp"))  # a folder the other user can reach
    os.chmod(shared, 0o777)
    record = shared / "got"
    fake = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)\n"
        "open(sys.argv[1] + '.ready', 'w').close()\n"
        "c, _ = s.accept(); c.settimeout(5)\n"
        "data = b''\n"
        "try:\n"
        "    while True:\n"
        "        chunk = c.recv(65536)\n"
        "        if not chunk: break\n"
        "        data += chunk\n"
        "except OSError: pass\n"
        "open(sys.argv[2], 'wb').write(data)\n"
    )
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)
    if python is None:
        pytest.skip("no system python3 that another user may run")
    server = subprocess.Popen([python, "-c", fake, str(shared / "s"), str(record)], user=65534,
                              cwd="/", env={"PATH": os.environ.get("PATH", "")})
    try:
        wait_for(lambda: (shared / "s.ready").exists())
        os.rename(shared / "s", where)  # planted in our folder: the name is ours, the process is not
        event = {"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}
        planted = hookkit.hook("stop", event=event, extra_env=resident.env, cwd=ws)
        fresh = hookkit.hook("stop", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
        assert answer(planted) == answer(fresh)
        server.wait(timeout=30)
        assert record.read_bytes() == b""  # not one byte of the event, the environment or a descriptor
    finally:
        server.kill()
        shutil.rmtree(shared, ignore_errors=True)


def test_the_client_of_a_served_request_imports_almost_nothing(resident, tmp_path):
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("[memory]\n")
    resident.start()
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", PYTHONPATH=str(hookkit.REPO), **resident.env)
    before = resident.served()
    driver = ("import sys\nfrom okfpro.__main__ import main\ncode = main(['memory', 'recall', 'anything'])\n"
              "sys.stderr.write(' '.join(sorted(sys.modules)))\nsys.exit(code)\n")
    proc = subprocess.run([sys.executable, "-c", driver], cwd=ws, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert resident.served() == before + 1
    imported = set(proc.stderr.decode().split())
    heavy = {"sqlite3", "okfpro.memory", "okfpro.hooks", "okfpro.core.rx", "re", "json", "subprocess", "pathlib", "click"}
    if any(name.startswith("__editable__") for name in imported):
        heavy -= {"re", "pathlib"}  # an editable install's finder imports them in every process
    assert "okfpro.resident.client" in imported and not heavy & imported, heavy & imported


def test_what_a_child_had_to_import_is_imported_for_the_next_one(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    resident.start()
    # a new concept post-edit checks in full: modules the server does not import before its first child
    text = "---\ntype: Learning\ntitle: New\ndescription: A new note.\n---\n\n# New\n\nSee [the board](/board.md).\n"
    (ws / ".okf" / "learnings" / "new.md").write_text(text)
    event = hookkit.edit_event(ws, "learnings/new.md", text, tool="Write", hook_event="PostToolUse")
    first = hookkit.hook("post-tool-use", event=event, extra_env=resident.env, cwd=ws)
    learned = wait_for(lambda: resident.servers()[0]["learned"])
    second = hookkit.hook("post-tool-use", event=event, extra_env=resident.env, cwd=ws)
    assert first.returncode == second.returncode and first.stdout == second.stdout
    time.sleep(0.5)
    assert resident.servers()[0]["learned"] == learned  # the second child needed nothing new


def test_stop_lets_a_running_request_finish_and_sweeps_what_ended(resident, tmp_path):
    ws = hookkit.make_workspace(tmp_path)
    proc, server, child = _hanging(resident, ws, "stop")
    said = json.loads(resident.run("resident", "status", "--json").stdout)  # the verb a user asks
    assert said["enabled"] and [(s["pid"], s["running"]) for s in said["servers"]] == [(server, 1)]
    stopper = subprocess.Popen([sys.executable, "-m", "okfpro", "resident", "stop"], cwd=resident.dir,
                               env=hookkit.env(resident.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for(lambda: not [n for n in os.listdir(resident.dir) if n.endswith(".sock")])  # no new request taken
    assert stopper.poll() is None and os.path.exists(f"/proc/{child}")  # the running one goes on
    event = json.dumps({"cwd": str(ws), "session_id": "s1", "stop_hook_active": False}).encode()
    out, err = proc.communicate(event, timeout=60)
    fresh = hookkit.hook("stop", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
    assert (proc.returncode, out, err) == answer(fresh)
    said, _ = stopper.communicate(timeout=60)
    assert stopper.returncode == 0 and b"stopped 1 server" in said
    assert not [n for n in os.listdir(resident.dir) if n.startswith("okfpro-")]  # socket, lock, log: swept


def test_a_caller_with_its_own_streams_is_answered_where_it_reads_and_writes(resident, tmp_path, monkeypatch):
    from okfpro.resident import client
    from tests.helpers import invoke

    ws = hookkit.make_workspace(tmp_path)
    (ws / ".okf" / "learnings" / "fresh-note.md").write_text("# Fresh\n\nA new note with no frontmatter.\n")
    for name, value in resident.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(ws)  # where invoke() runs main(): the stamp leaves out a first import path entry equal to it
    where = client.socket_path()  # this very process's server: main() called here could reach it
    assert where is not None
    client.start(where)
    wait_for(lambda: client.status(where))
    event = json.dumps({"cwd": str(ws), "session_id": "s1", "stop_hook_active": False})
    here = invoke("hook", "stop", stdin=event, base_env=hookkit.env(resident.env), cwd=ws)  # string buffers
    fresh = hookkit.hook("stop", event=event, extra_env={"OKFPRO_RESIDENT": "0"}, cwd=ws)
    assert "served=0 " in client.status(where)  # not handed over: the child would use descriptors 0-2
    assert (here.returncode, here.stdout, here.stderr) == (fresh.returncode, fresh.stdout.decode(), fresh.stderr.decode())
    assert here.returncode == 2 and "RULE 2" in here.stderr


def test_a_silent_client_is_not_taken_for_gone_and_the_probe_never_waits():
    """The server's probe of a connection (okfpro.resident.server.hung_up) on a socket still carrying
    the request's read timeout: a live, silent client is not gone, and the answer is immediate; a
    closed end, a reset and bytes after the request are gone.  (A recv with MSG_DONTWAIT on a socket
    with a timeout waits out the timeout: the server stalled 5 s and killed a live request.)"""
    import socket
    import time

    from okfpro.resident.server import READ_TIMEOUT, hung_up

    for timeout in (READ_TIMEOUT, None):
        server_end, client_end = socket.socketpair()
        server_end.settimeout(timeout)
        started = time.monotonic()
        assert not hung_up(server_end)
        assert time.monotonic() - started < READ_TIMEOUT / 2
        client_end.sendall(b"x")
        assert hung_up(server_end)  # more than a request
        server_end.close(), client_end.close()
        server_end, client_end = socket.socketpair()
        server_end.settimeout(timeout)
        client_end.close()
        assert hung_up(server_end)  # the client's end closed
        server_end.close()
