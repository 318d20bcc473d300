"""What a fresh process imports on the paths a host or a script runs once per turn (issues #13, #18).

A host starts ``okfpro`` per event and a script per memory call, so their cost is mostly imports
(.okf/design/lean-memory-verbs.md).  ``python -X importtime`` names every module a real process
loaded; these tests fail when a heavy library comes back onto a light path.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest


from tests.helpers import memory_workspace, scoped_env

NEVER_ON_A_LIGHT_PATH = {"click", "ruamel", "mcp", "regex", "jsonschema"}


def imported(cwd: Path, env: dict[str, str], *args: str, stdin: bytes | None = None) -> tuple[set[str], subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "okfpro", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True)
    names = set(re.findall(rb"^import time:\s+\d+ \|\s+\d+ \| +(\S+)$", proc.stderr, re.M))
    assert names, proc.stderr[-500:]
    return {n.decode() for n in names}, proc


def reloads(cwd: Path, env: dict[str, str], args: tuple[str, ...], stdin: bytes | None,
            modules: tuple[str, ...] = ("pathlib",)) -> set[str]:
    """Which of ``modules`` okfpro's own code imports on this path.  An editable install's finder
    imports pathlib (and with it re and enum) at start-up, so they are dropped from
    ``sys.modules`` first and looked for at exit."""
    code = ("import atexit, runpy, sys\n"
            f"for name in {list(modules)!r}: sys.modules.pop(name, None)\n"
            f"atexit.register(lambda: sys.stderr.write('LOADED=%s\\n' % ','.join(n for n in {list(modules)!r} "
            "if n in sys.modules)))\n"
            f"sys.argv = ['okfpro', *{list(args)!r}]\nrunpy.run_module('okfpro', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, input=stdin, capture_output=True)
    said = re.findall(rb"LOADED=(\S*)", proc.stderr)
    assert said, proc.stderr[-500:]
    return {name.decode() for name in said[-1].split(b",") if name}


def loads_pathlib(cwd: Path, env: dict[str, str], args: tuple[str, ...], stdin: bytes | None) -> bool:
    """Whether okfpro's own modules import pathlib on this path (see :func:`reloads`)."""
    return bool(reloads(cwd, env, args, stdin))


def tops(names: set[str]) -> set[str]:
    return {n.split(".")[0] for n in names}


@pytest.fixture
def ws(tmp_path):
    return memory_workspace(tmp_path)


def env_for(**parts: str) -> dict[str, str]:
    return scoped_env("OKFPRO_MEMORY_INDEX", **parts)


def test_remember_and_recall_import_neither_click_nor_yaml_where_they_need_none(ws):
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    names, proc = imported(ws, env, "memory", "remember", "the staging database is db-7")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert not tops(names) & NEVER_ON_A_LIGHT_PATH, sorted(tops(names) & NEVER_ON_A_LIGHT_PATH)
    assert "okfpro.cli.app" not in names  # the click application: only for the other verbs

    names, proc = imported(ws, env, "memory", "recall", "staging", "database")
    assert proc.returncode == 0 and b"db-7" in proc.stdout, proc.stderr[-500:]
    heavy = tops(names) & (NEVER_ON_A_LIGHT_PATH | {"yaml", "pygit2"})
    assert not heavy, sorted(heavy)  # the index answers: no day file parsed, no history opened
    # the erasure, import, sync and history code is not loaded to answer a recall
    assert not names & {"okfpro.memory.history", "okfpro.memory.importer", "okfpro.memory.sync",
                        "okfpro.memory.policy", "okfpro.core.yamlsafe", "okfpro.cli.memory"}

    names, proc = imported(ws, env, "memory", "recall", "staging", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["passages"]
    assert "click" not in tops(names), sorted(tops(names))


def test_help_and_the_other_memory_verbs_still_go_through_click(ws):
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    names, proc = imported(ws, env, "memory", "recall", "--help")
    assert proc.returncode == 0 and b"Usage: okfpro memory recall" in proc.stdout
    assert "click" in tops(names)
    names, proc = imported(ws, env, "memory", "list")
    assert proc.returncode == 0 and "click" in tops(names)


def test_a_git_server_runs_the_cgi_wrapper_and_the_pre_receive_hook_without_click(tmp_path):
    """One process per HTTP request and per push, as ``memory server-hook install`` writes them;
    the click forms they share a name with (``--help``, an option misspelt) still answer through click."""
    repo = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    config = repo / "okfpro-server.toml"
    config.write_text('[pushers."alice"]\ntenant = "acme"\nuser = "alice"\n')
    cgi = {**scoped_env(), "GIT_PROJECT_ROOT": str(tmp_path), "PATH_INFO": "/memory.git/info/refs",
           "QUERY_STRING": "service=git-upload-pack", "REQUEST_METHOD": "GET", "REMOTE_USER": "alice", "GIT_HTTP_EXPORT_ALL": "1"}
    names, proc = imported(tmp_path, cgi, "memory", "server-hook", "http-backend", "--config", str(config))
    assert proc.returncode == 0 and b"application/x-git-upload-pack-advertisement" in proc.stdout, proc.stderr[-500:]
    assert "click" not in tops(names) and "okfpro.cli.app" not in names, sorted(tops(names))
    push = {**scoped_env(), "GIT_DIR": str(repo), "REMOTE_USER": "bob"}  # bob is no pusher: refused
    line = f"{'0' * 40} {'1' * 40} refs/okfpro/memory/user/x\n".encode()
    names, proc = imported(tmp_path, push, "memory", "server-hook", "--config", str(config), stdin=line)
    assert proc.returncode == 1 and b"okfpro: refused refs/okfpro/memory/user/x" in proc.stderr, proc.stderr[-500:]
    assert "click" not in tops(names), sorted(tops(names))
    for args in (["--help"], ["http-backend", "--help"], ["--confg", str(config)], ["--config", str(tmp_path)]):
        names, proc = imported(tmp_path, push, "memory", "server-hook", *args)
        assert "click" in tops(names), args
        assert proc.returncode == (0 if "--help" in args else 2), (args, proc.stderr[-500:])


def test_the_prompt_hook_with_memory_imports_no_click(ws):
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", "the staging database is db-7"], cwd=ws,
                   env=env, check=True, capture_output=True)
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(ws),
             "prompt": "where is the staging database?"}
    names, proc = imported(ws, env, "hook", "user-prompt-submit", stdin=json.dumps(event).encode())
    assert proc.returncode == 0 and b"db-7" in proc.stdout, proc.stderr[-500:]
    assert not tops(names) & NEVER_ON_A_LIGHT_PATH, sorted(tops(names) & NEVER_ON_A_LIGHT_PATH)


def test_a_remember_into_an_existing_history_loads_no_pygit2_nor_yaml(ws):
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    _, proc = imported(ws, env, "memory", "remember", "the staging database is db-7")  # creates the history
    assert proc.returncode == 0, proc.stderr[-500:]
    names, proc = imported(ws, env, "memory", "remember", "the build cache lives on the second disk")
    assert proc.returncode == 0 and b"remembered" in proc.stdout, proc.stderr[-500:]
    heavy = tops(names) & {"pygit2", "subprocess", "tempfile", "yaml", "shutil", "bz2", "lzma", "getpass"}
    assert not heavy, sorted(heavy)  # the commit is written by okfpro.memory.loose; the YAML is plain
    gitdir = ws / ".okf-memory" / ".okf-history.git"
    count = subprocess.run(["git", f"--git-dir={gitdir}", "rev-list", "--count", "--all"], capture_output=True,
                           check=True).stdout
    assert count.strip() == b"2"


@pytest.fixture(scope="module", autouse=True)
def settling(tmp_path_factory) -> tuple[Path, float]:
    """The last test's workspace (its alone), written when the module's first test starts: its files
    must be older than the parse cache's racy window (io/cache.RACY_NS), and by the time that test
    runs most of the wait is over (it sleeps what is left, instead of 2.2 s idle)."""
    ws = memory_workspace(tmp_path_factory.mktemp("settling"))
    (ws / ".okf" / "index.md").write_text("# Root\n")
    (ws / ".okf" / "staging.md").write_text("---\ntype: Note\ntitle: Staging database\ntags: [ops]\n"
                                            "created: 2026-01-02\n---\n\nThe staging database runs on db-7.\n")
    return ws, time.time()


def test_the_prompt_hook_reads_the_bundle_without_pyyaml(settling):
    """Knowledge answered by the bundle's FTS5 index alone (its files unchanged since it was
    synced: .okf/design/prompt-knowledge.md) and memory from the index: no bundle is read, so
    neither PyYAML nor the parsing code (okfpro.core.concept) nor the parse cache is imported.
    The first prompt parses the files (PyYAML's tables load)."""
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    ws, written = settling
    time.sleep(max(0.0, written + 2.2 - time.time()))  # older than the racy window: the first read stores them
    event = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(ws),
             "prompt": "where is the staging database?"}
    seen = []
    for _ in range(2):
        names, proc = imported(ws, env, "hook", "user-prompt-submit", stdin=json.dumps(event).encode())
        assert proc.returncode == 0 and b"Staging database" in proc.stdout, proc.stderr[-500:]
        seen.append(("yaml" in tops(names), "okfpro.core.concept" in names, "okfpro.io.cache" in names))
    assert seen == [(True, True, True), (False, False, False)]
    assert not tops(names) & NEVER_ON_A_LIGHT_PATH


def test_no_fresh_path_makes_dataclasses(tmp_path):
    """The per-event and per-call paths build their values as okfpro.core.record classes, not
    dataclasses (with inspect): measured in .okf/design/stand-ins.md.  Every path a host or a script
    runs once per turn, in a workspace ``okfpro init`` made (a bundle, a full okfpro.toml, capture on)."""
    ws = tmp_path / "ws"
    subprocess.run([sys.executable, "-m", "okfpro", "init", str(ws)], check=True, capture_output=True)
    toml = ws / "okfpro.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("capture = false", "capture = true"), encoding="utf-8")
    env = env_for(OKFPRO_TENANT="acme", OKFPRO_USER="alice")
    concept = ws / ".okf" / "learnings" / "staging.md"
    concept.write_text("---\ntype: Learning\ntitle: Staging database\ndescription: Where staging lives.\n---\n\n"
                       "The staging database runs on db-7.\n", encoding="utf-8")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": "ship it friday"}}) + "\n")

    def event(name: str, **more: object) -> bytes:
        return json.dumps({"hook_event_name": name, "session_id": "s1", "cwd": str(ws), **more}).encode()

    subprocess.run([sys.executable, "-m", "okfpro", "memory", "remember", "the build runs on ci-3"], cwd=ws, env=env,
                   check=True, capture_output=True)  # the first write makes the history (pygit2) and the day file
    subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", "ci"], cwd=ws, env=env, check=True,
                   capture_output=True)
    time.sleep(2.2)  # the bundle's files older than the parse cache's racy window (io/cache.RACY_NS)
    runs = [
        (("memory", "remember", "the staging database is db-7"), None),
        (("memory", "remember", "the staging database is db-7"), None),  # a duplicate
        (("memory", "recall", "staging", "database"), None),
        (("hook", "session-start"), event("SessionStart", source="startup")),
        (("hook", "pre-tool-use"), event("PreToolUse", tool_name="Write",
                                         tool_input={"file_path": str(concept), "content": "x"})),
        (("hook", "post-tool-use"), event("PostToolUse", tool_name="Write", tool_response={},
                                          tool_input={"file_path": str(concept), "content": concept.read_text()})),
        (("hook", "user-prompt-submit"), event("UserPromptSubmit", prompt="where is the staging database?")),
        (("hook", "stop"), event("Stop", transcript_path=str(transcript), last_assistant_message="Noted.")),
    ]
    for args, stdin in runs:
        if args[0] == "hook":  # a hook's first run builds its caches and indexes (and may parse the bundle)
            subprocess.run([sys.executable, "-m", "okfpro", *args], cwd=ws, env=env, input=stdin, capture_output=True)
        names, proc = imported(ws, env, *args, stdin=stdin)
        assert proc.returncode in (0, 2), (args, proc.stderr[-500:])
        heavy = names & {"dataclasses", "inspect"}
        assert not heavy, (args, sorted(heavy))
        if args[:2] in (("hook", "pre-tool-use"), ("hook", "session-start"), ("hook", "stop"), ("memory", "remember"),
                        ("memory", "recall"), ("hook", "user-prompt-submit")):  # roots, friction, the config, the
            # door, the store and the cache directory speak os.path:
            # pathlib (with urllib.parse, ipaddress) is ~16 M of a ~100 M PreToolUse, ~17 M of a capturing Stop
            assert not loads_pathlib(ws, env, args, stdin), args
        if args[:2] == ("hook", "stop"):  # its git status through io/spawn (~17 M instructions less)
            assert "subprocess" not in names and "git status" not in proc.stderr.decode(), proc.stderr[-500:]
    recall = subprocess.run([sys.executable, "-m", "okfpro", "memory", "recall", "friday"], cwd=ws, env=env,
                            capture_output=True, check=True)
    assert b"ship it friday" in recall.stdout, recall.stdout  # the Stop captured: it read the transcript
