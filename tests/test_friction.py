"""Friction telemetry: classification, own-command exclusion, the log on disk, the verb."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hookkit  # noqa: E402

from okfpro.core import friction as core_friction  # noqa: E402
from okfpro.io import friction as io_friction  # noqa: E402
from tests.helpers import invoke


@pytest.mark.parametrize(
    "command, what",
    [
        ("echo x >> .okf/board.md", "board.md"),
        ("sed -i s/a/b/ .okf/log.md", "log.md"),
        ("cat > .okf/journal/2026-11-30.md", "journal"),
        ("cp a.md .okf/learnings/", "unclassified"),
    ],
)
def test_classify_command(command, what):
    assert core_friction.classify_command(command) == what


@pytest.mark.parametrize(
    "command, own",
    [
        ("okfpro capture 'call the bank'", True),
        ("OKFPRO_TODAY=2026-11-30 okfpro snapshot .okf > .okf/learnings/s.md", True),
        ("cd ws && okfpro journal open", True),
        ("env okfpro promote alpha; okfpro state", True),
        ("python3 -m okfpro capture x", True),
        ("okfpro snapshot | tee -a .okf/board.md", False),  # piped into the board: still friction
        ("okfpro state && echo x >> .okf/log.md", False),  # another segment writes
        ("echo okfpro > .okf/x.md", False),
        ("myokfpro capture x", False),
    ],
)
def test_own_command_exclusion_per_segment(command, own):
    assert core_friction.is_own_command(command) is own


@pytest.mark.parametrize("command", ["ls 2>/dev/null", "a --> b", "x => y", "echo hi >&2", "cat f >>/dev/null"])
def test_redirect_pattern_ignores_reads(command):
    assert not core_friction.has_mutator(command)


@pytest.mark.parametrize("command", ["echo > f.md", "echo >>f.md", "tee f", "perl -pi -e s/a/b/ -i f", "mv a b"])
def test_redirect_pattern_sees_writes(command):
    assert core_friction.has_mutator(command)


def test_covered_by_and_banner_counts_only_verb_covered_rows():
    events = [core_friction.shell_event("echo x >> board.md", "2026-11-30")] * 3 + [core_friction.edit_event("board.md", "2026-11-30")] * 2
    rows = core_friction.summarize(events)
    assert rows[0] == {"via": "shell", "what": "board.md", "count": 3, "covered by": core_friction.SHELL_COVER}
    assert rows[1]["covered by"] == core_friction.BOARD_COVER
    lines = core_friction.banner_lines({"available": True, "events": events, "unreadable": 0})
    assert len(lines) == 1 and lines[0].startswith("Friction: 2 bundle edit(s) so far")
    assert core_friction.banner_lines({"available": True, "events": [], "unreadable": 0}) == []


def _bundle(tmp_path: Path) -> Path:
    root = tmp_path / "ws" / ".okf"
    root.mkdir(parents=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n')
    return root


def test_unreadable_lines_are_counted_not_dropped(tmp_path):
    root = _bundle(tmp_path)
    assert io_friction.record(root, core_friction.edit_event("board.md", "2026-11-30"))
    log, _ = io_friction.paths(root)
    with open(log, "ab") as handle:
        handle.write(b"{torn line\n\xff\xfe\n[1]\n")
    rep = io_friction.report(root)
    assert len(rep["events"]) == 1 and rep["unreadable"] == 3 and rep["available"] is True


def test_an_event_after_a_line_cut_short_is_whole(tmp_path):
    """A writer killed mid-line leaves a last line without its newline: the next event starts on a
    line of its own (the cut line stays one unreadable line), not glued to it."""
    root = _bundle(tmp_path)
    assert io_friction.record(root, core_friction.edit_event("board.md", "2026-11-30"))
    log, _ = io_friction.paths(root)
    with open(log, "ab") as handle:
        handle.write(b'{"what": "edit", "path": "jour')
    assert io_friction.record(root, core_friction.edit_event("log.md", "2026-11-30"))
    assert io_friction.record(root, core_friction.edit_event("index.md", "2026-11-30"))
    rep = io_friction.report(root)
    assert len(rep["events"]) == 3 and rep["unreadable"] == 1
    assert open(log, "rb").read().count(b"\n") == 4


def test_record_never_raises_and_leaves_the_unavailable_marker(tmp_path):
    root = _bundle(tmp_path)
    tmp = root.parent / ".tmp"
    tmp.mkdir()
    log, marker = map(Path, io_friction.paths(root))
    log.mkdir()  # the log path is a directory: appending fails
    assert io_friction.record(root, core_friction.edit_event("board.md", "2026-11-30")) is False
    assert marker.read_text() == "2026-11-30\n"
    assert io_friction.report(root)["available"] is False
    log.rmdir()
    io_friction.clear(root)
    assert io_friction.report(root)["available"] is True


def test_tmp_that_is_a_file_reads_unavailable(tmp_path):
    root = _bundle(tmp_path)
    (root.parent / ".tmp").write_text("not a directory")
    assert io_friction.record(root, core_friction.edit_event("board.md", "2026-11-30")) is False
    assert io_friction.report(root)["available"] is False


_WRITER = """
import sys
from okfpro.io import friction as _friction
root, n, who = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(n):
    assert _friction.record(root, {"at": "2026-11-30", "via": "shell", "what": "board.md", "detail": f"{who}-{i}-" + "x" * 180})
"""


def test_eight_processes_appending_at_once_lose_nothing(tmp_path):
    root = _bundle(tmp_path)
    n = 250
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(root), str(n), f"p{p}"], env=hookkit.env())
        for p in range(8)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    rep = io_friction.report(root)
    assert rep["unreadable"] == 0
    details = {e["detail"].split("-x")[0] for e in rep["events"]}
    assert len(rep["events"]) == 8 * n
    assert details == {f"p{p}-{i}" for p in range(8) for i in range(n)}


def test_friction_verb(tmp_path):
    root = _bundle(tmp_path)
    for _ in range(2):
        io_friction.record(root, core_friction.edit_event("board.md", "2026-11-30"))
    io_friction.record(root, core_friction.shell_event("echo x >> .okf/board.md", "2026-11-30"))

    def run(*args):
        return invoke("friction", *args, base_env=hookkit.env(), cwd=root.parent)

    human = run()
    assert human.returncode == 0 and "3 hand edit(s) recorded" in human.stdout
    data = json.loads(run("--json").stdout)
    assert data["recorded"] == 3 and data["available"] is True and data["unreadable"] == 0
    assert data["by"][0] == {"via": "edit", "what": "board.md", "count": 2, "covered by": core_friction.BOARD_COVER}
    assert json.loads(run(str(root.parent), "--pretty").stdout) == data
    issue = run("--issue")
    assert issue.returncode == 0 and issue.stdout.count("gh issue create") == 1
    assert run("--clear").returncode == 0
    assert json.loads(run("--json").stdout)["recorded"] == 0
    assert "nothing to report" in run("--issue").stdout
    assert run(str(tmp_path / "nowhere")).returncode == 2
    assert run("@work").returncode == 2
