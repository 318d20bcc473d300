"""``tests.helpers.invoke`` (okfpro in the test's process) is faithful to a real ``python -m okfpro``:
the same verbs on the same tree give the same exit code, stdout and stderr byte for byte, and leave
the same tree behind — writers, readers, usage errors, stdin, non-UTF-8 bytes, the hook door."""

from __future__ import annotations

import gc
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import invoke, run_okfpro

BAD_UTF8 = "---\ntype: Note\ntitle: Caf\udce9\n---\n\nbody \udcff\n"  # bytes \xe9 and \xff in the file

# (argv, stdin, env) — run in the workspace; every case ends with the tree compared.
CASES: list[tuple[tuple[str, ...], str | None, dict[str, str]]] = [
    (("--version",), None, {}),
    (("--help",), None, {}),
    (("search", "--help"), None, {}),
    (("no-such-verb",), None, {}),
    (("search",), None, {}),  # usage: a missing argument
    (("state",), None, {}),
    (("state", "--json"), None, {}),
    (("board", "--json"), None, {}),
    (("snapshot",), None, {}),
    (("capture", "an inbox line — with ünïcode"), None, {}),
    (("promote", "nothing matches this"), None, {}),
    (("journal", "open"), None, {}),
    (("validate", ".okf"), None, {}),
    (("validate", "--json", ".okf"), None, {}),
    (("lint", "--json", ".okf"), None, {}),
    (("lint", ".okf", "--fail-on", "info"), None, {}),
    (("search", "board", "--json"), None, {}),
    (("search", "^(\\w+\\s?)*$", "--engine", "regexp"), None, {}),
    (("catalog", "--json"), None, {}),
    (("stats",), None, {}),
    (("graph", "--json"), None, {}),
    (("read", "notes/latin"), None, {}),
    (("read", "../../etc/passwd"), None, {}),
    (("audit",), None, {}),
    (("records",), None, {}),
    (("whoami", "--json"), None, {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}),
    (("memory", "remember", "we deploy on fridays"), None, {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}),
    (("memory", "remember", "-"), "from stdin: the db password is hunter2-3\n",
     {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}),
    (("memory", "recall", "fridays", "--json"), None, {"OKFPRO_TENANT": "acme", "OKFPRO_USER": "alice"}),
    (("memory", "list"), None, {}),
    (("hook", "check", "guard-verified"), "{}", {}),
    (("hook", "pre-tool-use"), "not json at all", {}),
    (("registry", "list"), None, {}),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("invoke")
    ws = base / "ws"
    assert run_okfpro("init", str(ws), env={"OKFPRO_TODAY": "2026-03-04"}).returncode == 0
    notes = ws / ".okf" / "notes"
    notes.mkdir()
    (notes / "latin.md").write_bytes(BAD_UTF8.encode("utf-8", "surrogateescape"))
    (notes / "a.md").write_text("---\ntype: Note\ntitle: Board rules\ntags: [board]\n---\n\nSee [b](b.md).\n")
    return ws


_CLOCK = re.compile(rb"\d\d:\d\d:\d\d(\.\d+)?|\"latency_ms\":[\d.]+")


def _tree(root: Path) -> dict[str, bytes]:
    """Every file's bytes; the clock's time of day blanked, and Git's and the index's binary files
    (whose bytes hold that time) by name only."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or path.is_symlink():
            continue
        if "/objects/" in rel:  # Git objects are named by content, which holds the time
            continue
        opaque = rel.startswith(".git/") or ".okf-history.git/" in rel or ".okf-index/" in rel
        out[rel] = b"" if opaque else _CLOCK.sub(b"clock", path.read_bytes())
    return out


@pytest.mark.parametrize(("argv", "stdin", "env"), CASES, ids=[" ".join(c[0])[:40] for c in CASES])
def test_in_process_answers_as_the_process_does(template, tmp_path, argv, stdin, env):
    ws = tmp_path / "ws"
    answers = []
    for run in (run_okfpro, invoke):
        shutil.rmtree(ws, ignore_errors=True)
        shutil.copytree(template, ws, symlinks=True)
        cache = tmp_path / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        full = {"OKFPRO_TODAY": "2026-03-05", "XDG_CACHE_HOME": str(cache), "OKFPRO_HOME": str(tmp_path / "home"),
                "GIT_CONFIG_NOSYSTEM": "1", **env}
        proc = run(*argv, cwd=ws, stdin=stdin, env=full, text=False)
        answers.append((proc.returncode, proc.stdout, proc.stderr, _tree(ws)))
    (code_p, out_p, err_p, tree_p), (code_i, out_i, err_i, tree_i) = answers
    assert (code_i, out_i.decode(errors="replace"), err_i.decode(errors="replace")) == (
        code_p, out_p.decode(errors="replace"), err_p.decode(errors="replace"))
    assert (out_i, err_i) == (out_p, err_p)
    assert tree_i == tree_p


def test_the_test_process_is_left_as_it_was(template, tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(template, ws, symlinks=True)
    before = (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.argv, gc.isenabled())
    proc = invoke("capture", "x", cwd=ws, env={"OKFPRO_TODAY": "2026-03-05", "PROBE_VAR": "1"})
    assert proc.returncode == 0, proc.stderr
    after = (os.getcwd(), dict(os.environ), sys.stdin, sys.stdout, sys.stderr, sys.__stdout__, sys.argv, gc.isenabled())
    assert after == before and "PROBE_VAR" not in os.environ
    # an exception escaping main ends as Python's would: traceback, exit 1
    bad = invoke("hook", cwd=ws, stdin=b"\xff", env={"OKFPRO_TODAY": "2026-03-05"})
    assert bad.returncode in (0, 2)  # the hook door never exits 1

