"""Writers through the real CLI: real files, real processes, real exit codes.

Every refusal is checked to leave the files byte-for-byte as they were; the
week-long scenario checks the Snapshot line and ``state --json`` after each step
against values worked out by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from okfpro.core.board_edit import JOURNAL_PLACEHOLDER
from tests.helpers import invoke

BOARD = """---
type: Board
title: Board
description: The board.
---

# Board

**In flight: 0/5**

## In flight

## Backlog

## Waiting

## Inbox

## To read

## Deadlines
"""


def make_bundle(base: Path, git: bool = True) -> Path:
    """A seeded bundle written by hand (independent of ``init``)."""
    root = base / ".okf"
    for d in ("journal", "projects", "reference", "areas", "glossary", "learnings"):
        (root / d).mkdir(parents=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Brain\n')
    (root / "board.md").write_text(BOARD)
    (root / "log.md").write_text("# Update Log\n\nNewest day first.\n")
    (root / "journal" / "index.md").write_text(f"# Journal\n\n{JOURNAL_PLACEHOLDER}\n")
    (root / "projects" / "index.md").write_text("# Projects\n")
    (root / "areas" / "corpus.md").write_text("---\ntype: Overview\ntitle: Corpus\n---\n\nThe standard.\n")
    if git:
        subprocess.run(["git", "init", "-q", str(base)], check=True)
    return root


def ok(*args, cwd, day="2026-11-30", code=0):
    proc = invoke(*args, cwd=cwd, env={"OKFPRO_TODAY": day})
    assert proc.returncode == code, f"{args}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def snapshot(cwd, day) -> str:
    return ok("snapshot", cwd=cwd, day=day).stdout.rstrip("\n")


def state(cwd, day) -> dict:
    return json.loads(ok("state", "--json", cwd=cwd, day=day).stdout)


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def line(inbox, oldest, flight, cap, waiting, past, backlog, to_read, unv, conflicts, dl, empty) -> str:
    return (
        f"* **Snapshot**: inbox {inbox} (oldest {oldest}d) · in flight {flight}/{cap} · waiting {waiting} "
        f"({past} past chase) · backlog {backlog} · to read {to_read} · unverified briefings {unv} · "
        f"conflicts open {conflicts} · deadlines within 7d not in flight {dl} · projects with 0 concepts {empty}"
    )


# --- capture ---------------------------------------------------------------------------------


def test_capture_appends_a_dated_inbox_line_after_the_last(tmp_path):
    root = make_bundle(tmp_path)
    ok("capture", "first thing", cwd=tmp_path)
    ok("capture", "  second   thing  ", cwd=tmp_path, day="2026-12-01")
    text = (root / "board.md").read_text()
    assert "## Inbox\n- 2026-11-30 — first thing\n- 2026-12-01 — second   thing\n\n## To read" in text


@pytest.mark.parametrize("args,why", [
    (["-x"], "takes no options"),
    (["--json", "x"], "takes no options"),
    (["a\nb"], "spans lines"),
    ([""], "give the"),
    ([], "give the"),
])
def test_capture_refusals_touch_nothing(tmp_path, args, why):
    root = make_bundle(tmp_path)
    before = tree_bytes(root)
    proc = ok("capture", *args, cwd=tmp_path, code=2)
    assert why in proc.stderr
    assert tree_bytes(root) == before


def test_double_dash_escapes_a_leading_dash(tmp_path):
    root = make_bundle(tmp_path)
    ok("capture", "--", "-5 degrees: buy a coat", cwd=tmp_path)
    assert "- 2026-11-30 — -5 degrees: buy a coat\n" in (root / "board.md").read_text()


def test_help_is_not_refused(tmp_path):
    make_bundle(tmp_path)
    assert "TEXT" in ok("capture", "--help", cwd=tmp_path).stdout


def test_writer_from_a_subdirectory_and_via_okfpro_bundle(tmp_path):
    root = make_bundle(tmp_path)
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    ok("capture", "from below", cwd=sub)
    other = tmp_path.parent / (tmp_path.name + "-elsewhere")
    other.mkdir()
    proc = invoke("capture", "via env", cwd=other, env={"OKFPRO_TODAY": "2026-11-30", "OKFPRO_BUNDLE": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    text = (root / "board.md").read_text()
    assert "from below" in text and "via env" in text


def test_no_bundle_is_refused(tmp_path):
    proc = ok("capture", "x", cwd=tmp_path, code=2)
    assert "no bundle" in proc.stderr


def test_missing_seeded_board_is_never_created(tmp_path):
    root = make_bundle(tmp_path)
    (root / "board.md").unlink()
    (root / "log.md").write_text("# Update Log\n")  # keeps the root weakly discoverable too
    proc = ok("capture", "x", cwd=tmp_path, code=2)
    assert "board.md is missing" in proc.stderr
    assert not (root / "board.md").exists()


def test_symlinked_board_outside_the_bundle_is_refused(tmp_path):
    root = make_bundle(tmp_path)
    outside = tmp_path.parent / (tmp_path.name + "-outside.md")
    outside.write_text(BOARD)
    (root / "board.md").unlink()
    (root / "board.md").symlink_to(outside)
    proc = ok("capture", "x", cwd=tmp_path, code=2)
    assert "outside the bundle" in proc.stderr
    assert (root / "board.md").is_symlink() and outside.read_text() == BOARD


# --- promote / demote ----------------------------------------------------------------------


def test_promote_up_to_the_cap_then_refuse_then_demote(tmp_path):
    root = make_bundle(tmp_path)
    for i in range(6):
        ok("capture", f"task {i}", cwd=tmp_path)
    for i in range(5):
        ok("promote", f"task {i}", cwd=tmp_path)
    text = (root / "board.md").read_text()
    assert "**In flight: 5/5**" in text
    before = tree_bytes(root)
    proc = ok("promote", "task 5", cwd=tmp_path, code=2)
    assert "RULE 3" in proc.stderr and "5 in flight against a cap of 5" in proc.stderr
    assert tree_bytes(root) == before
    ok("demote", "task 2", cwd=tmp_path)
    text = (root / "board.md").read_text()
    assert "**In flight: 4/5**" in text
    assert "## Backlog\n- 2026-11-30 — task 2\n" in text
    ok("promote", "task 2", cwd=tmp_path)  # from Backlog back to the end of In flight
    flight = text.split("## In flight\n")[1]
    assert "task 2" not in flight.split("## Backlog")[0]
    text = (root / "board.md").read_text()
    assert text.split("## In flight\n")[1].split("\n")[4] == "- 2026-11-30 — task 2"


def test_selectors_are_keyed_and_ambiguity_is_refused(tmp_path):
    root = make_bundle(tmp_path)
    board = BOARD.replace(
        "## Backlog\n",
        "## Backlog\n- move house [/projects/move/](/projects/move/index.md)\n- move desk\n"
        "- fix bike [/projects/bike/]\n- noted <!-- comment -->\n",
    )
    (root / "board.md").write_text(board)
    before = tree_bytes(root)
    proc = ok("promote", "move", cwd=tmp_path)  # /projects/move link wins over the substring
    assert "move house" in proc.stdout
    (root / "board.md").write_text(board)
    for sel, why in [
        ("mov", "matches 2 board lines"),
        ("nothing-like-it", "no board line under Inbox or Backlog"),
        ("/projects", "names no single line"),
        ("/", "names no single line"),
        ("noted", "carries an HTML comment"),
    ]:
        proc = ok("promote", sel, cwd=tmp_path, code=2)
        assert why in proc.stderr, (sel, proc.stderr)
        assert tree_bytes(root) == before
    ok("promote", "/projects/bike/", cwd=tmp_path)
    ok("demote", "BIKE", cwd=tmp_path)
    assert "**In flight: 0/5**" in (root / "board.md").read_text()


def test_promote_without_header_is_refused(tmp_path):
    root = make_bundle(tmp_path)
    (root / "board.md").write_text(BOARD.replace("**In flight: 0/5**\n", "").replace("## Inbox\n", "## Inbox\n- 2026-11-30 — x\n"))
    before = tree_bytes(root)
    proc = ok("promote", "x", cwd=tmp_path, code=2)
    assert "header" in proc.stderr and tree_bytes(root) == before


# --- journal open ------------------------------------------------------------------------------


def test_journal_open_is_idempotent_and_self_repairing(tmp_path):
    root = make_bundle(tmp_path)
    ok("journal", "open", cwd=tmp_path, day="2026-11-30")
    entry = (root / "journal" / "2026-11-30.md").read_text()
    assert entry.startswith('---\ntype: Journal Entry\ntitle: "2026-11-30"\n')
    assert "# 2026-11-30\n" in entry
    index = (root / "journal" / "index.md").read_text()
    assert JOURNAL_PLACEHOLDER not in index
    assert index == "# Journal\n\n* [2026-11-30](2026-11-30.md) - the day's record.\n"
    before = tree_bytes(root)
    ok("journal", "open", cwd=tmp_path, day="2026-11-30")
    assert tree_bytes(root) == before
    ok("journal", "open", cwd=tmp_path, day="2026-12-01")
    assert (root / "journal" / "index.md").read_text().endswith(
        "* [2026-11-30](2026-11-30.md) - the day's record.\n* [2026-12-01](2026-12-01.md) - the day's record.\n"
    )
    (root / "journal" / "2026-12-01.md").unlink()  # repair one half
    ok("journal", "open", cwd=tmp_path, day="2026-12-01")
    assert (root / "journal" / "2026-12-01.md").exists()
    assert (root / "journal" / "index.md").read_text().count("(2026-12-01.md)") == 1


def test_journal_open_refusals(tmp_path):
    root = make_bundle(tmp_path)
    ok("journal", "close", cwd=tmp_path, code=2)
    (root / "journal" / "index.md").unlink()
    proc = ok("journal", "open", cwd=tmp_path, code=2)
    assert "journal/index.md is missing" in proc.stderr
    assert not (root / "journal" / "2026-11-30.md").exists()


# --- close ----------------------------------------------------------------------------------


def test_close_marks_removes_and_logs(tmp_path):
    root = make_bundle(tmp_path)
    (root / "projects" / "move").mkdir()
    (root / "projects" / "move" / "index.md").write_text("# Moving house\n\nPack and go.\n")
    board = BOARD.replace("**In flight: 0/5**", "**In flight: 2/5**").replace(
        "## In flight\n", "## In flight\n- pack [/projects/move/]\n- other work\n"
    ).replace("## Deadlines\n", "## Deadlines\n- 2026-12-02 — keys [/projects/move/](/projects/move/index.md)\n")
    (root / "board.md").write_text(board)
    (root / "log.md").write_text("# Update Log\n\n## 2026-11-29\n\n* old\n")
    for bad in ("../x", "a/b", "nope", ".", "/projects/"):
        before = tree_bytes(root)
        ok("close", bad, cwd=tmp_path, code=2)
        assert tree_bytes(root) == before
    proc = ok("close", "/projects/move/index.md", cwd=tmp_path)
    assert "2 board line(s) removed" in proc.stdout
    assert (root / "projects" / "move" / "index.md").read_text().startswith("# Moving house — closed 2026-11-30\n")
    text = (root / "board.md").read_text()
    assert "/projects/move" not in text and "**In flight: 1/5**" in text and "- other work" in text
    log = (root / "log.md").read_text()
    assert log.startswith(
        "# Update Log\n\n## 2026-11-30\n\n* Closed [/projects/move/](/projects/move/index.md) — 2 board line(s) removed.\n\n## 2026-11-29"
    )
    st = state(tmp_path, "2026-11-30")
    assert st["projects"]["open"] == []
    before = tree_bytes(root)
    ok("close", "move", cwd=tmp_path, code=2)  # already closed, nothing left to do
    assert tree_bytes(root) == before


def test_close_refuses_a_heading_that_would_not_read_closed(tmp_path):
    root = make_bundle(tmp_path)
    (root / "projects" / "p").mkdir()
    for first in ("Not a heading\n", "---\ntitle: x\n---\n", "# Never closed\n"):
        (root / "projects" / "p" / "index.md").write_text(first)
        before = tree_bytes(root)
        ok("close", "p", cwd=tmp_path, code=2)
        assert tree_bytes(root) == before


# --- a whole week, as a user would ---------------------------------------------------------------


def test_a_week_of_work(tmp_path):
    """init, captures, promote to the cap and past it, demote, journal on several days,
    close a project, conflict lines, a waiting line past its chase date, a future capture."""
    ws = tmp_path / "ws"
    ws.mkdir()
    init = invoke("init", str(ws))
    if init.returncode != 0 or not (ws / ".okf" / "board.md").exists():
        pytest.skip(f"init unavailable: {init.stderr[:200]}")
    root = ws / ".okf"

    mon, tue, wed, thu, fri = "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27"
    assert snapshot(ws, mon) == line(0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0)

    # Monday: captures and a project with nothing in it yet
    ok("capture", "renew passport", cwd=ws, day=mon)
    ok("capture", "call the bank", cwd=ws, day=mon)
    (root / "projects" / "move").mkdir()
    (root / "projects" / "move" / "index.md").write_text("# Moving house\n\nWhat done means: keys handed over.\n")
    ok("journal", "open", cwd=ws, day=mon)
    assert snapshot(ws, mon) == line(2, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1)

    # Tuesday: backlog by hand, promote five (the cap), the sixth is refused
    board = (root / "board.md").read_text()
    board = board.replace("## Backlog\n", "## Backlog\n" + "".join(
        f"- chore {i}\n" for i in range(4)) + "- pack boxes [/projects/move/](/projects/move/index.md)\n")
    (root / "board.md").write_text(board)
    for sel in ("chore 0", "chore 1", "chore 2", "chore 3", "move"):
        ok("promote", sel, cwd=ws, day=tue)
    before = tree_bytes(root)
    ok("promote", "passport", cwd=ws, day=tue, code=2)
    assert tree_bytes(root) == before
    assert snapshot(ws, tue) == line(2, 1, 5, 5, 0, 0, 0, 0, 0, 0, 0, 1)
    st = state(ws, tue)
    assert st["board"] == {"in flight": 5, "cap": 5, "declared": 5, "backlog": 0, "waiting": 0, "past chase": 0,
                           "inbox": 2, "oldest": 1, "to read": 0, "deadlines": 0, "conflicts open": 0}

    # Wednesday: demote, a waiting line, a conflict line, a deadline, a future-dated capture
    ok("demote", "chore 3", cwd=ws, day=wed)
    board = (root / "board.md").read_text()
    board = board.replace("## Waiting\n", "## Waiting\n- landlord: deposit — asked 2026-11-20, chase 2026-11-24\n")
    board = board.replace("## Deadlines\n", "## Deadlines\n- 2026-11-30 — tax return\n"
                          "- 2026-12-01 — hand over keys [/projects/move/]\n")
    (root / "board.md").write_text(board)
    ok("capture", "Resolve: [/glossary/a.md] says X, [/glossary/b.md] says Y — noticed while filing", cwd=ws, day=wed)
    board = (root / "board.md").read_text().replace("## Inbox\n", "## Inbox\n- 2026-11-28 — future-dated reminder\n")
    (root / "board.md").write_text(board)
    ok("journal", "open", cwd=ws, day=wed)
    # inbox 4: passport (mon), bank (mon), conflict (wed), future (sat) -> oldest 2; tax unlinked counts,
    # keys is covered by the /projects/move line in flight.
    assert snapshot(ws, wed) == line(4, 2, 4, 5, 1, 1, 1, 0, 0, 1, 1, 1)
    st = state(ws, wed)
    assert st["deadlines at risk"] == ["- 2026-11-30 — tax return"]
    assert st["log"] == {"newest day": None, "journal today": True}
    assert st["projects"] == {"open": ["move"]}

    # Thursday: log the day's Snapshot (pasted), then the state reports it as the last one
    snap_thu = snapshot(ws, thu)
    assert snap_thu == line(4, 3, 4, 5, 1, 1, 1, 0, 0, 1, 1, 1)
    log = (root / "log.md").read_text()
    (root / "log.md").write_text(log.rstrip("\n") + f"\n\n## {thu}\n\n* Update: packed.\n{snap_thu}\n")
    st = state(ws, thu)
    assert st["last snapshot"]["day"] == thu and st["last snapshot"]["line"] == snap_thu
    assert st["last snapshot"]["counters"]["in flight"] == 4
    assert st["log"]["newest day"] == thu and st["log"]["journal today"] is False

    # Friday: close the project; its two lines go, the header follows, the log gets the entry
    ok("close", "move", cwd=ws, day=fri)
    assert snapshot(ws, fri) == line(4, 4, 3, 5, 1, 1, 1, 0, 0, 1, 1, 0)
    st = state(ws, fri)
    assert st["board"]["declared"] == 3 and st["projects"]["open"] == []
    assert st["log"]["newest day"] == fri
    assert st["last snapshot"]["day"] == thu
    log = (root / "log.md").read_text()
    assert log.index(f"## {fri}") < log.index(f"## {thu}")
    index = (root / "journal" / "index.md").read_text()
    assert index.count(" - the day's record.") == 2 and JOURNAL_PLACEHOLDER not in index
    assert os.path.exists(root / "journal" / f"{mon}.md") and os.path.exists(root / "journal" / f"{wed}.md")


def test_concurrent_captures_lose_nothing(tmp_path):
    """Eight writer processes at once: the cross-process lock serialises them; every line lands."""
    import sys

    from tests.helpers import REPO

    root = make_bundle(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OKFPRO_TODAY": "2026-11-30"}
    procs = [
        subprocess.Popen([sys.executable, "-m", "okfpro", "capture", f"parallel {i}"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for i in range(8)
    ]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes == [0] * 8
    text = (root / "board.md").read_text()
    assert sorted(l for l in text.splitlines() if "parallel" in l) == [f"- 2026-11-30 — parallel {i}" for i in range(8)]


# --- no acknowledged write is lost -----------------------------------------------------------
# A writer acknowledges a capture only after its line is on disk.  Attack: many writer
# processes at once while another process deletes .tmp/ and runs `git clean -fX` in a loop
# (where the lock used to live), and writers killed with SIGKILL mid-write.  Every
# acknowledged line must be on the board, and no temp file may be left inside the bundle for
# `git add -A` to commit.

_WORKER = r"""
import datetime, sys
from pathlib import Path
from okfpro.io import workwriters
root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(count):
    workwriters.do_capture(root, datetime.date(2026, 11, 30), f"ack {name}-{i}")
    print(f"{name}-{i}", flush=True)   # the acknowledgement: printed only after the write returned
"""


def _workspace_with_scratch(tmp_path: Path) -> Path:
    root = make_bundle(tmp_path)
    (tmp_path / ".tmp").mkdir()
    (tmp_path / ".tmp" / ".gitkeep").write_text("")
    (tmp_path / ".gitignore").write_text(".tmp/*\n!.tmp/.gitkeep\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "seed"],
                   check=True)
    return root


def _chaos(workspace: Path, stop_file: Path) -> subprocess.Popen:
    """A process that deletes .tmp/ and runs `git clean -fX` in a loop until ``stop_file`` exists."""
    import sys

    script = (
        "import os, shutil, subprocess, sys, time\n"
        "ws, stop = sys.argv[1], sys.argv[2]\n"
        "n = 0\n"
        "while not os.path.exists(stop):\n"
        "    shutil.rmtree(os.path.join(ws, '.tmp'), ignore_errors=True)\n"
        "    subprocess.run(['git', '-C', ws, 'clean', '-fXq'], stderr=subprocess.DEVNULL)\n"
        "    os.makedirs(os.path.join(ws, '.tmp'), exist_ok=True)\n"
        "    n += 1\n"
        "print(n)\n"
    )
    return subprocess.Popen([sys.executable, "-c", script, str(workspace), str(stop_file)], stdout=subprocess.PIPE,
                            text=True)


def _acked_and_present(root: Path, outputs: list[str]) -> tuple[set[str], set[str]]:
    acked = {line.strip() for out in outputs for line in out.splitlines() if line.strip()}
    board = (root / "board.md").read_text()
    present = {line.rsplit("ack ", 1)[1] for line in board.splitlines() if " — ack " in line}
    return acked, present


def _stray_temp_files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.endswith(".tmp") or ".tmp." in p.name)


def test_no_acknowledged_write_is_lost_while_tmp_is_deleted_and_git_clean_runs(tmp_path):
    import sys

    from tests.helpers import REPO

    root = _workspace_with_scratch(tmp_path)
    stop = tmp_path / "stop"
    chaos = _chaos(tmp_path, stop)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(root), f"w{i}", "40"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(8)]
    outputs = []
    for w in workers:
        out, err = w.communicate(timeout=600)
        assert w.returncode == 0, err[-2000:]
        outputs.append(out)
    stop.write_text("")
    rounds = int(chaos.communicate(timeout=60)[0].strip() or 0)
    acked, present = _acked_and_present(root, outputs)
    lost = acked - present
    print(f"acknowledged {len(acked)}, present {len(present & acked)}, lost {len(lost)}, cleanup rounds {rounds}")
    assert rounds > 10  # the cleanup really ran alongside the writers
    assert len(acked) == 320
    assert not lost, sorted(lost)
    assert _stray_temp_files(root) == []


def test_writers_killed_mid_write_leave_nothing_in_the_bundle_and_lose_no_acknowledged_line(tmp_path):
    import random
    import signal
    import sys
    import time

    from tests.helpers import REPO

    root = _workspace_with_scratch(tmp_path)
    # a large board makes each write long enough for a kill to land inside it
    board = root / "board.md"
    board.write_text(board.read_text() + "\n<!-- " + "padding " * 250_000 + "-->\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rng = random.Random(7)
    outputs = []
    for round_ in range(6):
        workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(root), f"k{round_}-{i}", "50"], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(3)]
        time.sleep(0.5)
        for w in workers:
            time.sleep(rng.uniform(0.05, 0.4))
            w.send_signal(signal.SIGKILL)
        for w in workers:
            out, _ = w.communicate(timeout=120)
            outputs.append(out)
    acked, present = _acked_and_present(root, outputs)
    print(f"acknowledged {len(acked)}, present {len(present & acked)}, strays {_stray_temp_files(root)}")
    assert acked, "no writer got a capture through before its kill"
    assert acked <= present
    assert _stray_temp_files(root) == []
    status = subprocess.run(["git", "-C", str(tmp_path), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert [line for line in status.splitlines() if line[3:] != ".okf/board.md"] == [], status
    # the next write still works and sweeps nothing it should keep
    ok("capture", "after the storm", cwd=tmp_path)
    assert "after the storm" in board.read_text()


def test_atomic_write_makes_its_temp_file_without_tempfile(tmp_path, monkeypatch):
    """Exclusive creation (a name taken -- by a file or a link -- is never opened: another name
    is drawn), mode 0o600 until the final chmod, and no tempfile import (a Stop hook's cost)."""
    import sys

    from okfpro.io import atomic

    target = tmp_path / "t.json"
    draws = iter([b"\x00" * 6, b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(atomic.os, "urandom", lambda n: next(draws))
    taken = tmp_path / f".t.json{atomic._TEMP_MARK}{os.getpid()}.{'00' * 6}.tmp"
    outside = tmp_path / "outside"
    taken.symlink_to(outside)
    atomic.atomic_write(target, b"new", mode=0o640)
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o640
    assert not outside.exists() and taken.is_symlink()
    monkeypatch.setattr(atomic.os, "urandom", lambda n: b"\x00" * 6)
    with pytest.raises(FileExistsError):
        atomic.atomic_write(target, b"never")
    assert target.read_bytes() == b"new"
    code = ("import sys; from okfpro.io.atomic import atomic_write; atomic_write(sys.argv[1], b'x'); "
            "print(sorted({'tempfile', 'shutil', 'random'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "fresh")], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
