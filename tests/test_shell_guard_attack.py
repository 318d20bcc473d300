"""The shell guard attacked (issue #10 item 9): one-liners that write the bundle are asked about,
reads pass.  Every command of ``shell_corpus`` runs through ``okfpro hook pre-tool-use`` with a real
Bash event, in the test's process (the entry point a hook process runs, ``hookkit.hook(process=False)``);
``test_a_sample_answers_the_same_in_real_processes`` runs every fifth command of each corpus through a
real process as well and asks for the same exit code, stdout and stderr, byte for byte.  The counts are
printed (``pytest -s``) and pinned.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402
import shell_corpus as corpus  # noqa: E402


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    base = tmp_path_factory.mktemp("shell")
    ws = hookkit.make_workspace(base)
    out = base / "outside"
    out.mkdir()
    (out / "jlink").symlink_to(ws / ".okf" / "journal")
    (out / "blink.md").symlink_to(ws / ".okf" / "log.md")
    return ws, out


def _ask(places, command: str, where: str, tool: str = "Bash", process: bool = False):
    ws, out = places
    cwd = {"ws": ws, "okf": ws / ".okf", "out": out}[where]
    text = command.replace("{ws}", str(ws)).replace("{out}", str(out))
    event = {"session_id": "s1", "hook_event_name": "PreToolUse", "cwd": str(cwd), "tool_name": tool,
             "tool_input": {"command": text}}
    return hookkit.hook("pre-tool-use", event=event, process=process)


def _decide(places, command: str, where: str, tool: str = "Bash") -> str:
    proc = _ask(places, command, where, tool)
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {hookkit.err_text(proc)[-200:]}"
    if not proc.stdout:
        return "pass"
    return json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]


def _all(places, entries, tool: str = "Bash"):
    return [(e[0], _decide(places, *e, tool=tool)) for e in entries]


def test_a_sample_answers_the_same_in_real_processes(places):
    sample = [(entry, tool) for entries, tool in ((corpus.WRITES, "Bash"), (corpus.READS, "Bash"),
                                                  (corpus.PS_WRITES, "PowerShell"), (corpus.PS_READS, "PowerShell"))
              for entry in entries[::5]]
    with ThreadPoolExecutor(max_workers=4) as pool:
        real = list(pool.map(lambda item: _ask(places, *item[0], item[1], process=True), sample))
    here = [_ask(places, *entry, tool) for entry, tool in sample]
    assert len(sample) > 30 and {p.returncode for p in real} == {0}
    assert [(p.returncode, p.stdout, p.stderr) for p in here] == [(p.returncode, p.stdout, p.stderr) for p in real]


def test_every_write_into_the_bundle_is_asked(places):
    results = _all(places, corpus.WRITES)
    missed = [(c, r) for c, r in results if r != "ask"]
    print(f"shell guard: {len(results) - len(missed)}/{len(results)} bundle writes asked")
    assert not missed


def test_reads_pass(places):
    results = _all(places, corpus.READS)
    asked = [(c, r) for c, r in results if r != "pass"]
    print(f"shell guard: {len(asked)}/{len(results)} read-only commands asked (false positives)")
    assert not asked


# PowerShell: Claude Code's PowerShell tool sends it as it is; Codex and Gemini CLI on Windows send it as
# their one shell tool (read here as Bash), so both names see the same corpus.
@pytest.mark.parametrize("tool", ["PowerShell", "Bash"])
def test_every_powershell_write_into_the_bundle_is_asked(places, tool):
    results = _all(places, corpus.PS_WRITES, tool)
    missed = [(c, r) for c, r in results if r != "ask"]
    print(f"shell guard ({tool}): {len(results) - len(missed)}/{len(results)} PowerShell bundle writes asked")
    assert not missed


def test_powershell_reads_pass(places):
    results = _all(places, corpus.PS_READS, "PowerShell")
    asked = [(c, r) for c, r in results if r != "pass"]
    print(f"shell guard: {len(asked)}/{len(results)} PowerShell read-only commands asked (false positives)")
    assert not asked


def test_an_encoded_command_that_does_not_decode_is_asked_about(places):
    assert _decide(places, "pwsh -EncodedCommand !!!notbase64!!!", "ws", "PowerShell") == "ask"
    assert _decide(places, "pwsh -enc AAAA", "ws", "PowerShell") == "ask"  # decodes to NULs: not text
