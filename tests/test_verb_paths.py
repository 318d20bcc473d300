"""Each verb's data path is readable in a few files (issue #12's "done when").

A newcomer follows a verb from its row in ``COMMANDS`` (okfpro/cli/__init__.py) into its
command module, and from there into the modules that module hands the work to.  This test
measures exactly that on a real run of every verb (in-process, on a real workspace): the
files of okfpro whose code the command module's own functions call *directly* (an import
is not a call; what those modules call in turn is theirs to explain).  The count is the
``COMMANDS`` file + the command module + those files; it must be at most ``LIMIT``.

The table of runs must name every verb of ``COMMANDS`` (a new verb gets a row here).  Verbs
still over the limit are listed in ``OVER`` with their count: a count may only go down, a verb
at the limit leaves the list, and no verb may join it.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.cli import COMMANDS  # noqa: E402
from okfpro.cli.app import cli  # noqa: E402

PKG = Path(importlib.import_module("okfpro").__file__).resolve().parent
LIMIT = 4
# Verbs over the limit, each with its count (may only go down; none may join).  Empty since #12.
OVER: dict[str, int] = {}

# Where the run's command body lives outside its COMMANDS module, that module is the command module:
# memory remember/recall have their bodies and option table in okfpro/cli/memverbs.py (their
# click-free door); okfpro/cli/memory.py holds only the click binding built from that table.
BODY_IN = {"memory": "okfpro.cli.memverbs"}

# verb -> the argv of one real run ({ws} is the workspace, {b} its bundle).  Runs that need a
# network, a host or a server process are represented by a run that reaches their data path
# without one (mcp: its --help path is not a data path, so it is a refusal that reads config).
RUNS: dict[str, list[str]] = {
    "init": ["init", "{tmp}/fresh"],
    "upgrade": ["upgrade", "{ws}"],
    "audit": ["audit", "{ws}"],
    "records": ["records", "{ws}"],
    "unverified": ["unverified", "{ws}"],
    "doctor": ["doctor", "{ws}", "--json"],
    "friction": ["friction", "{ws}", "--json"],
    "state": ["state", "{b}"],
    "board": ["board", "{b}"],
    "snapshot": ["snapshot", "{b}"],
    "log-snapshot": ["log-snapshot"],
    "capture": ["capture", "a new line"],
    "promote": ["promote", "new line"],
    "demote": ["demote", "new line"],
    "journal": ["journal", "open"],
    "close": ["close", "nothing-here"],
    "validate": ["validate", "{b}"],
    "lint": ["lint", "{b}"],
    "search": ["search", "{b}", "board"],
    "catalog": ["catalog", "{b}"],
    "files": ["files", "{b}"],
    "index": ["index", "{b}"],
    "graph": ["graph", "{b}"],
    "references": ["references", "{b}"],
    "stats": ["stats", "{b}"],
    "tags": ["tags", "{b}"],
    "types": ["types", "{b}"],
    "dirs": ["dirs", "{b}"],
    "loose": ["loose", "{b}"],
    "read": ["read", "index", "--bundle", "{b}"],
    "render": ["render", "{b}", "--output", "{tmp}/page.html"],
    "registry": ["registry", "list"],
    "secrets": ["secrets", "{b}/board.md"],
    "whoami": ["whoami", "--json"],
    "memory": ["memory", "remember", "we ship on fridays"],
    "eval": ["eval", "recall", "{gold}"],
    "mcp": ["mcp", "--bundle", "{tmp}/no-such-dir"],
    "serve": ["serve", "{tmp}/no-such-dir"],
    "merge-file": ["merge-file", "{b}/board.md", "{b}/board.md", "{b}/board.md", "board.md"],
}


def test_every_verb_has_a_run() -> None:
    assert sorted(RUNS) == sorted(COMMANDS)


_RELS: dict[str, str | None] = {}


def _rel(path: str) -> str | None:
    """``okfpro/...`` for a file of the package, else None (cached: the profiler asks per call)."""
    if path not in _RELS:
        try:
            _RELS[path] = "okfpro/" + Path(path).resolve().relative_to(PKG).as_posix()
        except (ValueError, OSError):
            _RELS[path] = None
    return _RELS[path]


def data_path(verb: str, argv: list[str], cwd: Path) -> set[str]:
    """The files of okfpro a run of ``verb`` reads through: COMMANDS, the command module, and
    every module the command module's own code calls directly."""
    home = _rel(importlib.import_module(COMMANDS[verb][0]).__file__)
    body = _rel(importlib.import_module(BODY_IN[verb]).__file__) if verb in BODY_IN else None
    homes = {home, body}
    on_path: set[int] = set()  # live frames of the command module's own code
    seen: set[str] = set()

    def profile(frame, event, arg):  # noqa: ANN001 - sys.setprofile's signature
        if event == "return":
            on_path.discard(id(frame))
            return
        if event != "call" or frame.f_code.co_name == "<module>":  # an import is not a call
            return
        rel = _rel(frame.f_code.co_filename)
        if rel is None:
            return
        caller = frame.f_back
        from_path = caller is not None and id(caller) in on_path
        if rel in homes:
            if from_path or caller is None or _rel(caller.f_code.co_filename) is None:
                on_path.add(id(frame))  # entered from click, or from the module's own code
        elif from_path:
            seen.add(rel)

    old = os.getcwd()
    os.chdir(cwd)
    sys.setprofile(profile)
    try:
        result = CliRunner().invoke(cli, argv, catch_exceptions=False)
    finally:
        sys.setprofile(None)
        os.chdir(old)
    assert result.exit_code in (0, 1, 2), (verb, result.output)
    return {"okfpro/cli/__init__.py", body or home, *(seen - {home})}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hookkit.make_workspace(tmp_path_factory.mktemp("verb-paths"))


@pytest.mark.parametrize("verb", sorted(RUNS))
def test_each_verbs_data_path_is_at_most_four_files(verb: str, workspace: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OKFPRO_TODAY", hookkit.TODAY)
    gold = Path(__file__).resolve().parents[1] / "examples" / "recall-gold.json"
    argv = [a.format(ws=workspace, b=workspace / ".okf", tmp=tmp_path, gold=gold) for a in RUNS[verb]]
    files = data_path(verb, argv, workspace)
    allowed = OVER.get(verb, LIMIT)
    assert len(files) <= allowed, f"{verb}: {len(files)} files on its data path: {sorted(files)}"
    assert verb not in OVER or len(files) == allowed, f"{verb} is down to {len(files)}: lower (or drop) OVER[{verb!r}]"


def test_the_tracer_sees_a_long_path() -> None:
    """The measure can fail: a command module that calls into five modules is counted at seven."""
    import types

    mod = types.ModuleType("okfpro.cli._probe")
    mod.__file__ = str(PKG / "cli" / "_probe.py")
    code = compile(
        "import click\n"
        "from okfpro.core import board, log, pairing\n"
        "@click.command('probe')\n"
        "def probe_cmd():\n"
        "    board.split_lines('a')\n    log.parse('')\n    pairing.is_closed('# x')\n",
        mod.__file__, "exec")
    exec(code, mod.__dict__)
    sys.modules[mod.__name__] = mod
    COMMANDS["probe"] = (mod.__name__, "probe_cmd", "probe")
    try:
        files = data_path("probe", ["probe"], Path.cwd())
    finally:
        del COMMANDS["probe"]
        del sys.modules[mod.__name__]
    assert {"okfpro/core/board.py", "okfpro/core/log.py", "okfpro/core/pairing.py"} <= files
    assert len(files) == 5 > LIMIT
