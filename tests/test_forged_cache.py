"""A forged cache changes no gate (issue 36: a gate never rests on a file the agent can write).

okfpro keeps caches where the agent can write them: ``<workspace>/.tmp/okfpro-cache/`` (the parse
cache, the scan word index, the FTS5 index, the incremental post-edit state) and the user's cache
directory (the caches of bundles outside a workspace).  A gate —
PreToolUse's deny and ask, the Stop gate on a dirty tree, ``audit``, ``records``, and the
pre-commit door's ``validate`` and ``lint`` — must answer from the files and Git alone.  So: every
gate's answer with no cache at all is the baseline; then every cache file the gates themselves
wrote is replaced by forged content — a forged "clean" answer where the resident server kept one,
a parse cache claiming other concepts under the files' own identity keys, random bytes, a
truncated file, a symlink to elsewhere — and every gate must answer exactly as with no cache.  Real processes, a real Git repository.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import hookkit

BROKEN = "learnings/broken.md"  # a concept without its description: a finding for audit and lint
EDITED = "learnings/search-ranking.md"  # edited and left uncommitted: the tree is dirty
VERIFIED_FORGED = hookkit.FILES[EDITED].replace("---\n\n#", "verified:\n  by: human:ana\n  at: 2026-11-30\n---\n\n#", 1)


def _gates(ws: Path) -> dict[str, tuple[list[str], bytes]]:
    """Each gate: (argv after ``python -m okfpro``, stdin)."""
    def hook(event: dict) -> bytes:
        return json.dumps(event).encode()

    past = f"journal/{hookkit.PAST}.md"
    return {
        "pre-tool-use: a shell write into the bundle (ask)": (
            ["hook", "pre-tool-use"], hook(hookkit.bash_event(ws, "rm -rf .okf/learnings"))),
        "pre-tool-use: a forged verified (deny)": (
            ["hook", "pre-tool-use"], hook(hookkit.edit_event(ws, EDITED, VERIFIED_FORGED, tool="Write"))),
        "pre-tool-use: a past journal day rewritten (deny)": (
            ["hook", "pre-tool-use"], hook(hookkit.edit_event(ws, past, "# rewritten\n", tool="Write"))),
        "pre-tool-use: a plain edit (pass)": (
            ["hook", "pre-tool-use"], hook(hookkit.edit_event(ws, EDITED, "Field weights rank well."))),
        "stop: a dirty tree without today's Snapshot": (
            ["hook", "stop"], hook({"session_id": "s1", "hook_event_name": "Stop", "cwd": str(ws),
                                    "stop_hook_active": False})),
        "audit": (["audit", str(ws)], b""),
        "records": (["records", str(ws)], b""),
        "validate": (["validate", str(ws / ".okf")], b""),
        "lint": (["lint", str(ws / ".okf")], b""),
    }


def _readers(ws: Path) -> list[tuple[list[str], bytes]]:
    """Commands that keep caches no gate may read: search (the parse cache),
    the session banner, the prompt hook (the FTS5 index), recall, post-edit (the incremental state)."""
    event = {"session_id": "s1", "cwd": str(ws)}
    post = hookkit.edit_event(ws, EDITED, "Field weights rank well.", hook_event="PostToolUse")
    return [(["search", "ranking", "--bundle", str(ws / ".okf")], b""),
            (["search", "search", "--engine", "ranked", "--bundle", str(ws / ".okf")], b""),
            (["hook", "session-start"], json.dumps({**event, "hook_event_name": "SessionStart"}).encode()),
            (["hook", "user-prompt-submit"], json.dumps({**event, "hook_event_name": "UserPromptSubmit",
                                                          "prompt": "how do we rank search results"}).encode()),
            (["memory", "recall", "search"], b""),
            (["hook", "post-tool-use"], json.dumps(post).encode())]


def _run(ws: Path, cache_home: Path, argv: list[str], data: bytes) -> tuple[int, str, str]:
    env = hookkit.env({"XDG_CACHE_HOME": str(cache_home), "OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"})
    proc = subprocess.run([sys.executable, "-m", "okfpro", *argv], input=data, capture_output=True, env=env,
                          cwd=str(ws), timeout=180)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def _caches(ws: Path, cache_home: Path) -> list[Path]:
    """Every cache file okfpro keeps for this workspace: its own cache directory and the user's."""
    found = [Path(p) for base in (ws / ".tmp" / "okfpro-cache", cache_home / "okfpro")
             for p in glob.glob(os.path.join(base, "**", "*"), recursive=True)]
    return sorted(p for p in found if p.is_file() or p.is_symlink())


def _clear(ws: Path, cache_home: Path) -> None:
    shutil.rmtree(ws / ".tmp" / "okfpro-cache", ignore_errors=True)
    shutil.rmtree(cache_home, ignore_errors=True)
    cache_home.mkdir()


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace whose tree is dirty (an edit left uncommitted, a new concept with a finding, log.md
    without today's Snapshot line) and whose index holds a staged rewrite of a past journal day."""
    ws = hookkit.make_workspace(tmp_path_factory.mktemp("forged"))
    okf = ws / ".okf"
    with open(okf / EDITED, "a", encoding="utf-8") as fh:
        fh.write("\nAn edit left uncommitted.\n")
    (okf / BROKEN).write_text("---\ntype: Learning\ntitle: Broken\n---\n\n# Broken\n\nNo description.\n")
    past = okf / "journal" / f"{hookkit.PAST}.md"
    past.write_text(past.read_text() + "\nRewritten later.\n")
    hookkit.git(ws, "add", str(past))
    return ws


def _forge_parse_cache(path: Path, ws: Path) -> None:
    """Every entry keeps its file's identity key and claims the parse of a healthy concept."""
    from okfpro.io import cache

    root_real = os.path.realpath(ws / ".okf")
    entries = cache._read_cache(path, root_real)
    assert entries, path
    healthy = entries["areas/corpus.md"][1]
    cache._write_cache(path, root_real, {rel: (hit[0], healthy) for rel, hit in entries.items()})
    assert cache._read_cache(path, root_real)


def _forge_kept_answers(ws: Path) -> None:
    """The resident server's kept answers, each saying "clean" / "nothing owed" for this root."""
    from okfpro.io.cachedir import cache_dir, path_key

    root = os.path.realpath(ws / ".okf")
    where = Path(cache_dir(root))
    where.mkdir(parents=True, exist_ok=True)
    for name, answer in (("gitclean", ""), ("git", ""), ("briefings", "[[], []]\n[[], [], [], {}]"),
                         ("projects", "[]"), ("listing", ""), ("daylisting", "")):
        for token in ("0:1", "x:1", ""):
            (where / f"watched-{name}-{path_key(root)}").write_bytes(
                "\x00".join(["okfpro-watched-1", root, token, "", answer]).encode())


def _forge(mode: str, files: list[Path], ws: Path, home: Path, elsewhere: Path) -> None:
    for i, path in enumerate(files):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if mode == "random":
            path.write_bytes(os.urandom(max(len(data), 64)))
        elif mode == "truncated":
            path.write_bytes(data[:len(data) // 2])
        elif mode == "symlink":
            target = elsewhere / f"target-{i}"
            target.write_bytes(os.urandom(256))
            path.unlink()
            path.symlink_to(target)
        elif mode == "forged" and path.name.startswith("bundle-") and path.name.endswith(".bin"):
            _forge_parse_cache(path, ws)
    if mode == "forged":
        _forge_kept_answers(ws)


def test_the_gates_answer_for_the_fixture_as_expected(dirty, tmp_path):
    """The baseline itself: each gate says what the fixture set it up to say (so an equal answer
    below means the gate still gates)."""
    home = tmp_path / "cache"
    home.mkdir()
    answers = {}
    for label, (argv, data) in _gates(dirty).items():
        _clear(dirty, home)
        answers[label] = _run(dirty, home, argv, data)
    ask = answers["pre-tool-use: a shell write into the bundle (ask)"]
    assert ask[0] == 0 and '"permissionDecision":"ask"' in ask[1], ask
    for label in ("pre-tool-use: a forged verified (deny)", "pre-tool-use: a past journal day rewritten (deny)"):
        code, out, err = answers[label]
        assert code == 2 or '"permissionDecision":"deny"' in out or '"permissionDecision":"ask"' in out, (label, answers[label])
    assert answers["pre-tool-use: a plain edit (pass)"][:2] == (0, ""), answers["pre-tool-use: a plain edit (pass)"]
    stop = answers["stop: a dirty tree without today's Snapshot"]
    assert stop[0] == 2 and "Snapshot" in stop[2], stop
    assert answers["audit"][0] == 1 and "broken.md" in answers["audit"][1], answers["audit"]
    assert answers["records"][0] == 1, answers["records"]
    assert answers["validate"][0] == 0 and "description" in answers["validate"][1], answers["validate"]
    assert "broken.md" in answers["lint"][1], answers["lint"]


@pytest.mark.parametrize("mode", ["forged", "random", "truncated", "symlink"])
def test_a_forged_cache_changes_no_gate(dirty, tmp_path, mode):
    home = tmp_path / "cache"
    home.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    gates = _gates(dirty)
    baseline = {}
    for label, (argv, data) in gates.items():  # no cache at all
        _clear(dirty, home)
        baseline[label] = _run(dirty, home, argv, data)
    _clear(dirty, home)
    for _round in range(2):  # every cache a reader or a gate keeps is written, then read once
        for argv, data in _readers(dirty):
            _run(dirty, home, argv, data)
        for label, (argv, data) in gates.items():
            assert _run(dirty, home, argv, data) == baseline[label], label
    files = _caches(dirty, home)
    names = {p.name.split("-", 1)[0] for p in files}
    assert {"bundle", "fts", "analysis"} <= names, files  # forged below (a small bundle keeps no scan index)
    _forge(mode, files, dirty, home, elsewhere)
    changed = {label: got for label, (argv, data) in gates.items()
               if (got := _run(dirty, home, argv, data)) != baseline[label]}
    assert not changed, f"{mode}: the gates that answered otherwise: {sorted(changed)}"
