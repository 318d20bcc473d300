"""One door to memory (okfpro/memory/door.py): hooks, CLI and MCP find the same workspace,
read okfpro.toml once, and pass the host's event through as one type.

Real processes: the ``okfpro hook`` door fed a Claude-Code-shaped event on stdin, the
``okfpro memory`` verbs, the same working directory for both.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.core.event import Event, as_event  # noqa: E402
from okfpro.io.config import workspace_for  # noqa: E402
from okfpro.memory.door import DoorError, open_door  # noqa: E402
from tests.helpers import REPO, invoke  # noqa: E402

ALICE = {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}


def _transcript(path: Path, user: str, agent: str) -> Path:
    rows = [{"type": "user", "message": {"role": "user", "content": user}},
            {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": agent}]}}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _nested(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A Git repository whose okfpro.toml sits in a subproject; the agent works deeper still."""
    repo = tmp_path / "repo"
    project = repo / "services" / "billing"
    cwd = project / "src"
    cwd.mkdir(parents=True)
    hookkit.git(tmp_path, "init", "-q", str(repo))
    (project / "okfpro.toml").write_text("[memory]\ncapture = true\n")
    return repo, project, cwd


def test_the_hook_and_the_cli_open_the_same_memory_from_the_same_directory(tmp_path: Path) -> None:
    """Before the door, the hook took the Git repository as its workspace and looked for okfpro.toml
    from there (missing the subproject's, so capture was off), while the CLI looked from the
    working directory: the agent's turn and the person's ``memory list`` met different stores."""
    repo, project, cwd = _nested(tmp_path)
    event = {"hook_event_name": "Stop", "session_id": "s-1", "cwd": str(cwd), "stop_hook_active": False,
             "transcript_path": str(_transcript(tmp_path / "t.jsonl", "how do we ship", "we ship on fridays"))}
    proc = hookkit.hook("stop", event=event, extra_env=ALICE, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    env = {**ALICE, "OKFPRO_TODAY": hookkit.TODAY}
    listed = invoke("memory", "list", "--json", cwd=cwd, env=env)
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)["entries"]) == 1, (proc.stderr, listed.stdout)
    recalled = invoke("memory", "recall", "fridays", "--json", cwd=cwd, env=env)
    assert "we ship on fridays" in recalled.stdout, recalled.stdout
    whoami = invoke("whoami", "--json", cwd=cwd, env=ALICE)
    assert json.loads(whoami.stdout)["scope"]["user"] == "alice"


def test_the_workspace_rule(tmp_path: Path) -> None:
    repo, project, cwd = _nested(tmp_path)
    assert workspace_for(cwd) == str(project)  # the nearest okfpro.toml
    plain = repo / "docs" / "deep"
    plain.mkdir(parents=True)
    assert workspace_for(plain) == str(repo)  # no okfpro.toml above: the Git repository
    ws = hookkit.make_workspace(tmp_path / "w", commit=False)
    inside = ws / ".okf" / "reference"
    assert workspace_for(inside) == str(ws)  # inside a bundle: the bundle's workspace
    loose = tmp_path / "loose"
    loose.mkdir()
    assert workspace_for(loose) == str(loose)  # nothing at all: the directory itself (paths are strings)


def test_the_door_reads_the_configuration_once_and_binds_only_when_asked(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from okfpro.io import config as config_mod

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "okfpro.toml").write_text("[memory]\ncapture = false\n")
    reads = []
    real = config_mod.load
    monkeypatch.setattr(config_mod, "load", lambda w: reads.append(w) or real(w))
    for name, value in ALICE.items():
        monkeypatch.setenv(name, value)
    door = open_door(ws, {"session_id": "s-2", "cwd": str(ws)})
    assert door.workspace == str(ws) and reads == [str(ws)]
    assert not (ws / ".tmp").exists()  # nothing resolved yet: no session binding written
    assert door.identity.scope.user == "alice" and door.store is not None and door.identity is door.identity
    assert reads == [str(ws)]  # identity and store took the door's configuration
    assert (ws / ".tmp" / "okfpro-identity").is_dir()  # an agent session binds when asked
    unbound = tmp_path / "cli"
    unbound.mkdir()
    (unbound / "okfpro.toml").write_text("")
    assert open_door(unbound, bind=False).identity.scope is not None
    assert not (unbound / ".tmp").exists()  # the CLI and MCP never bind
    (unbound / "okfpro.toml").write_text("[memory\n")
    with pytest.raises(DoorError, match="not valid TOML"):
        open_door(unbound)


def test_capture_switched_off_resolves_no_identity(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "okfpro.toml").write_text("[memory]\ncapture = false\n")
    proc = hookkit.hook("stop", event={"hook_event_name": "Stop", "session_id": "s-3", "cwd": str(ws)},
                        extra_env=ALICE, cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert not (ws / ".tmp").exists()  # no binding for a session whose memory is off


def test_one_event_type() -> None:
    event = Event(raw={"prompt": "p", "transcript_path": "/t", "last_assistant_message": "a"})
    assert as_event(event) is event
    wrapped = as_event({"prompt": "p", "transcript_path": 7})
    assert wrapped.prompt == "p" and wrapped.transcript_path is None  # a wrong type is no value
    assert as_event(None).raw == {} and as_event("junk").raw == {}


def test_no_door_turns_the_event_back_into_a_dict() -> None:
    """The event is converted once (core/event.as_event); the memory doors and identity read its
    properties.  The old doors each unwrapped ``event.raw`` or re-checked ``Mapping`` (4 places)."""
    offenders = []
    for path in sorted((REPO / "okfpro").rglob("*.py")):
        if path.name == "event.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                    and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "raw"):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == [], offenders
