"""Bundle text never drives the reader's terminal (issue 37.11; threat model: "terminal injection").

Anyone who can commit writes titles, tags, directory names and board cards.  Every human-facing verb
prints through one function (okfpro/core/shown.py, applied to stdout and stderr by okfpro/cli/human.py
around every click verb), so ESC/CSI/OSC sequences, C1 controls, BEL, backspace, carriage return and bidi
overrides arrive as visible ``\\uXXXX`` text; ``--json`` keeps the exact values.  Run as real processes,
through a pipe and through a pseudo-terminal (where click would strip nothing itself).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from okfpro.core.shown import shown
from tests.helpers import REPO, invoke, on_a_terminal, run_okfpro

# In YAML double quotes: OSC (window title) ended by BEL, CSI clear-screen, C1 CSI, RLO, BS, CR, a bidi isolate.
EVIL_YAML = r"A\e]0;pwned\aB\e[2J\x9b31m\u202eC\b\rD\u2066E\x85"
EVIL = "A\x1b]0;pwned\x07B\x1b[2J\x9b31m\u202eC\x08\rD\u2066E\x85"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
DIR = "ev\x1b]8;;http:x\x07il\u202e"
VERBS = (["board"], ["state"], ["state", "--full"], ["search", "pwned"], ["tags"], ["dirs"], ["catalog"],
         ["files"], ["index"], ["loose"], ["stats"], ["types"], ["graph"], ["lint"], ["validate"], ["audit"],
         ["unverified"], ["read", f"learnings/{DIR}/n"])


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("esc") / "w"
    assert invoke("init", str(ws)).returncode == 0
    d = ws / ".okf" / "learnings" / DIR
    d.mkdir()
    (d / "n.md").write_text(f'---\ntype: Learning\ntitle: "T{EVIL_YAML}"\ntags: ["t{EVIL_YAML}"]\n'
                            f'description: "d{EVIL_YAML}"\n---\n\n# pwned\n\npwned {EVIL}\n')
    board = ws / ".okf" / "board.md"
    board.write_text(board.read_text().replace("## Inbox\n", f"## Inbox\n\n- 2026-12-01 — card {EVIL}\n"))
    return ws


def test_shown_spells_every_control_and_keeps_the_rest() -> None:
    assert shown("plain — ünïcödé\ttab\nnewline") == "plain — ünïcödé\ttab\nnewline"
    assert shown("a CRLF file\r\nline two\r\n") == "a CRLF file\r\nline two\r\n"  # a line ending, not an overwrite
    assert shown("shown\rhidden\r") == "shown\\u000dhidden\\u000d"
    assert shown(EVIL) == "A\\u001b]0;pwned\\u0007B\\u001b[2J\\u009b31m\\u202eC\\u0008\\u000dD\\u2066E\\u0085"
    for ch in [chr(c) for c in (*range(0, 9), *range(11, 32), *range(0x7F, 0xA0))] + list("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029"):
        assert not RAW.search(shown(f"x{ch}y")), repr(ch)
        assert json.loads('"' + shown(ch) + '"') == ch  # JSON's spelling: JSON through it decodes the same


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: " ".join(v))
def test_human_output_through_a_pipe(ws: Path, verb: list[str]) -> None:
    proc = run_okfpro(*verb, cwd=ws)
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout + proc.stderr
    assert not RAW.search(out), (verb, [m.group(0) for m in RAW.finditer(out)][:5])


def test_what_was_hidden_is_shown(ws: Path) -> None:
    out = run_okfpro("board", cwd=ws).stdout
    assert "card A\\u001b]0;pwned\\u0007B" in out and "\\u202eC\\u0008\\u000dD" in out


@pytest.mark.parametrize("verb", [["board"], ["tags"], ["dirs"], ["search", "pwned"]], ids=lambda v: " ".join(v))
def test_human_output_on_a_terminal(ws: Path, verb: list[str]) -> None:
    """On a terminal click strips nothing: the escaping alone keeps the sequences out."""
    code, seen = on_a_terminal(verb, ws, {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm"}, stdout=True)
    assert code == 0
    out = seen.decode("utf-8", "replace").replace("\r\n", "\n")  # the tty's own line ending
    assert not RAW.search(out), (verb, out[:400])
    assert "\\u001b" in out


@pytest.mark.parametrize("verb", [["board", "--json"], ["tags", "--json"], ["dirs", "--json"], ["search", "pwned", "--json"]],
                         ids=lambda v: " ".join(v))
def test_json_keeps_the_exact_text(ws: Path, verb: list[str]) -> None:
    data = json.loads(run_okfpro(*verb, cwd=ws).stdout)
    assert any(EVIL in s or DIR in s for s in _strings(data)), str(data)[:400]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in (*value.keys(), *value.values()) for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_memory_listings_show_stored_controls_escaped(tmp_path: Path) -> None:
    """``memory recall`` prints without click (okfpro/cli/memverbs.py), ``memory list`` through it: both escaped."""
    from tests.helpers import memory_workspace, scoped_env

    ws = memory_workspace(tmp_path)
    env = scoped_env(OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_RESIDENT="0")
    note = "deploy note \u202eevil\u0007 \u2066done"  # (ESC and C1 are refused as shell output at the door)
    assert run_okfpro("memory", "remember", "--", note, cwd=ws, base_env=env).returncode == 0
    for verb in (["memory", "recall", "deploy"], ["memory", "list"]):
        out = run_okfpro(*verb, cwd=ws, base_env=env)
        assert out.returncode == 0 and "deploy note \\u202eevil\\u0007" in out.stdout, out.stdout
        assert not RAW.search(out.stdout + out.stderr), verb
    data = json.loads(run_okfpro("memory", "recall", "deploy", "--json", cwd=ws, base_env=env).stdout)
    assert any(note in s for s in _strings(data)), data  # JSON: the exact text


def test_okfpros_own_progress_line_still_redraws() -> None:
    """A progress bar redraws its line with a carriage return opening (and closing) its write
    (okfpro/io/cache.py): that passes; one inside bundle text does not."""
    import io

    from okfpro.cli.human import HumanStream

    sink = io.StringIO()
    stream = HumanStream(sink)
    stream.write("\rokfpro: parsing [######------] 200/400")
    stream.write("\r" + " " * 10 + "\r")
    stream.write("card \rHIDDEN \x1b]0;x\x07\n")
    stream.write("\r\r")
    assert sink.getvalue() == ("\rokfpro: parsing [######------] 200/400" + "\r" + " " * 10 + "\r"
                               + "card \\u000dHIDDEN \\u001b]0;x\\u0007\n" + "\r\r")
