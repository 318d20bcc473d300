"""Every call is answered by the process its caller started (issue 36: the resident server is gone).

Three holes a warm server shared between callers opened, each attacked here with real processes:

* a sandboxed caller gets no work done outside its sandbox: in a mount namespace where the workspace
  is mounted read-only (``unshare -rm``, as hosts sandbox an agent's shell), ``memory remember``
  fails and nothing changes on the real disk, and the ``git`` found first on the caller's ``PATH``
  runs only inside that namespace;
* one identity's code never answers another: two callers whose host identity resolvers differ
  (the same entry point and module name, different code) call in quick succession and at once, and
  each note lands in its own caller's scope;
* no hook event or verb leaves a process behind.

The third hole, a forged cache, is ``tests/test_forged_cache.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests import hookkit
from tests.helpers import REPO, scoped_env


def _unshare_works() -> str | None:
    """Why a read-only mount namespace cannot be made here, or None."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "no unshare(1) / mount(8) on this system"
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        probe = subprocess.run(["unshare", "-rm", "sh", "-c", f"mount --bind {d} {d} && mount -o remount,ro,bind {d} {d}"
                                " 2>&1 || exit 3"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare -rm cannot bind-mount here (exit {probe.returncode}: {(probe.stdout + probe.stderr).strip()[:200]})"
    return None


NO_SANDBOX = _unshare_works()


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (the git objects' names included) and a digest of its bytes."""
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath, name)
            if path.is_symlink():
                out[str(path.relative_to(root))] = "-> " + os.readlink(path)
                continue
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = hookkit.make_workspace(tmp_path, commit=False)
    (ws / "okfpro.toml").write_text("[memory]\n")
    hookkit.git(ws, "add", "-A")
    hookkit.git(ws, "commit", "-qm", "workspace")
    return ws


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
def test_a_sandboxed_caller_gets_no_work_done_outside_its_sandbox(workspace, tmp_path):
    ws = workspace
    cache = tmp_path / "cache"
    cache.mkdir()
    log = tmp_path / "log"  # the one place the sandbox may write: what the caller's git saw
    log.mkdir()
    real_git = shutil.which("git")
    assert real_git
    bin_dir = tmp_path / "callers-bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f"#!/bin/sh\nreadlink /proc/self/ns/mnt >> {log}/git-ran-in\nexec {real_git} \"$@\"\n")
    (bin_dir / "git").chmod(0o755)
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY=hookkit.TODAY, XDG_CACHE_HOME=str(cache),
                     PYTHONPATH=str(REPO), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    first = subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", "a note before the sandbox"],
                           cwd=ws, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    ran_before = (log / "git-ran-in").read_text().split() if (log / "git-ran-in").exists() else []
    with open(ws / ".okf" / "learnings" / "search-ranking.md", "a", encoding="utf-8") as fh:
        fh.write("\nAn edit left uncommitted: the Stop gate asks git.\n")
    before = _tree(ws)
    stop = json.dumps({"session_id": "s1", "hook_event_name": "Stop", "cwd": str(ws), "stop_hook_active": False})
    q = {name: shlex.quote(str(value)) for name, value in
         (("ws", ws), ("cache", cache), ("log", log), ("python", sys.executable), ("stop", stop))}
    script = textwrap.dedent(f"""\
        set -e
        for d in {q['ws']} {q['cache']}; do mount --bind "$d" "$d"; mount -o remount,ro,bind "$d"; done
        readlink /proc/self/ns/mnt > {q['log']}/sandbox
        cd {q['ws']}
        set +e
        touch probe 2>/dev/null && echo "the workspace is writable" && exit 9
        {q['python']} -m okfpro memory remember "a note from inside the sandbox" > {q['log']}/remember.out 2>&1
        echo $? > {q['log']}/remember.rc
        printf '%s' {q['stop']} | {q['python']} -m okfpro hook stop > {q['log']}/stop.out 2>&1
        echo $? > {q['log']}/stop.rc
        """)
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = (log / "remember.out").read_text()
    assert (log / "remember.rc").read_text().strip() == "2", said  # could not run: it says why, exit 2
    assert "Read-only file system" in said or "read-only" in said.lower(), said
    assert _tree(ws) == before  # nothing was written for it anywhere it could not write itself
    recall = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", "note"], cwd=ws, env=env,
                            capture_output=True, text=True)
    assert "before the sandbox" in recall.stdout and "inside the sandbox" not in recall.stdout, recall.stdout
    # the Stop gate asked git — the caller's git, inside the caller's namespace and nowhere else
    assert (log / "stop.rc").read_text().strip() == "2", (log / "stop.out").read_text()
    sandbox = (log / "sandbox").read_text().strip()
    assert sandbox != os.readlink("/proc/self/ns/mnt")
    ran = (log / "git-ran-in").read_text().split()[len(ran_before):]
    assert ran and set(ran) == {sandbox}, (ran, sandbox)


def _resolver_site(base: Path, user: str) -> Path:
    """A distribution declaring the ``okfpro.identity`` entry point ``acme = acme_identity:resolve``
    whose code names ``user`` — the same entry point and module name for every caller."""
    site = base / f"site-{user}"
    info = site / "acme_identity-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-identity\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[okfpro.identity]\nacme = acme_identity:resolve\n")
    (site / "acme_identity.py").write_text(f"def resolve(ctx):\n    return {{'tenant': 'acme', 'user': {user!r}}}\n")
    return site


def test_one_identitys_code_never_answers_another(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".okf").mkdir(parents=True)
    (ws / "okfpro.toml").write_text('[memory]\nmode = "multi-user"\n')
    cache = tmp_path / "cache"

    envs = {user: scoped_env(XDG_CACHE_HOME=str(cache),
                             PYTHONPATH=os.pathsep.join([str(REPO), str(_resolver_site(tmp_path, user))]))
            for user in ("alice", "bob")}
    for user, env in envs.items():
        who = subprocess.run([sys.executable, "-m", "okfpro", "whoami", "--json"], cwd=ws, env=env, capture_output=True,
                             text=True)
        assert who.returncode == 0, who.stderr
        assert json.loads(who.stdout)["scope"]["user"] == user
    notes: dict[str, list[str]] = {"alice": [], "bob": []}
    for round_ in range(3):
        procs = []
        for user in (("alice", "bob") if round_ % 2 == 0 else ("bob", "alice")):  # in quick succession, and at once
            note = f"{user} files note {round_} about the quarterly ledger"
            notes[user].append(note)
            procs.append(subprocess.Popen([sys.executable, "-m", "okfpro", "memory", "remember", note], cwd=ws,
                                          env=envs[user], stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        for proc in procs:
            _out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode(errors="replace")
    for user, env in envs.items():
        recall = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", "quarterly", "ledger", "--limit",
                                 "50"], cwd=ws, env=env, capture_output=True, text=True)
        assert recall.returncode == 0, recall.stderr
        other = "bob" if user == "alice" else "alice"
        assert all(note in recall.stdout for note in notes[user]), recall.stdout
        assert not any(note in recall.stdout for note in notes[other]), recall.stdout
    # and on disk: each note in its own user's scope directory, never the other's
    for user in ("alice", "bob"):
        other = "bob" if user == "alice" else "alice"
        mine = "".join(p.read_text() for p in ws.rglob(f"{user}-*/*.md"))
        assert all(note in mine for note in notes[user]) and not any(note in mine for note in notes[other])


def _carrying(token: str) -> list[int]:
    """The processes whose environment holds ``token``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if token.encode() in fh.read():
                    found.append(int(name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc to look for processes in")
def test_no_hook_event_or_verb_leaves_a_process_behind(workspace, tmp_path):
    ws = workspace
    token = f"OKFPRO_TEST_CALLER={uuid.uuid4().hex}"
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY=hookkit.TODAY,
                     XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(REPO))
    env[token.split("=")[0]] = token.split("=")[1]
    concept = ws / ".okf" / "learnings" / "search-ranking.md"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "ship it friday"}}) + "\n")
    base = {"session_id": "s1", "cwd": str(ws)}
    board = ws / ".okf" / "board.md"
    calls: list[tuple[list[str], dict | None]] = [
        (["hook", "session-start"], {**base, "hook_event_name": "SessionStart", "source": "startup"}),
        (["hook", "user-prompt-submit"], {**base, "hook_event_name": "UserPromptSubmit", "prompt": "how do we rank?"}),
        (["hook", "pre-tool-use"], hookkit.edit_event(ws, "learnings/search-ranking.md", "Field weights.")),
        (["hook", "pre-tool-use"], hookkit.bash_event(ws, "rm -rf .okf")),
        (["hook", "post-tool-use"], hookkit.edit_event(ws, "learnings/search-ranking.md", concept.read_text(),
                                                       tool="Write", hook_event="PostToolUse")),
        (["hook", "stop"], {**base, "hook_event_name": "Stop", "stop_hook_active": False,
                            "transcript_path": str(transcript), "last_assistant_message": "Noted."}),
        (["hook", "session-end"], {**base, "hook_event_name": "SessionEnd", "reason": "exit"}),
        (["memory", "remember", "the build runs on ci-3"], None),
        (["memory", "recall", "build"], None),
        (["search", "ranking"], None),
        (["audit", str(ws)], None),
        (["merge-file", str(board), str(board), str(board), "board.md"], None),
    ]
    for argv, event in calls:
        data = json.dumps(event).encode() if event is not None else b""
        proc = subprocess.run([sys.executable, "-m", "okfpro", *argv], input=data, cwd=ws, env=env, capture_output=True,
                              timeout=180)
        assert proc.returncode in (0, 1, 2), (argv, proc.stderr[-500:])
        assert _carrying(token.split("=")[1]) == [], argv  # nothing of this call is still running
    time.sleep(0.5)
    assert _carrying(token.split("=")[1]) == []
