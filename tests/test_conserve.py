"""The conservation guard: a transform that drops, duplicates or invents a line is
refused, and the file on disk is byte-for-byte untouched."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from okfpro.core import board_edit as _board_edit
from okfpro.core import conserve as _conserve
from okfpro.io import workwriters as ww
from tests.helpers import REPO

TODAY = dt.date(2026, 11, 30)
BOARD = textwrap.dedent("""\
    ---
    type: Board
    title: Board
    description: The board.
    ---

    # Board

    **In flight: 1/5** · updated never

    ## In flight
    - ship it [/projects/ship/]

    ## Backlog
    - someday

    ## Waiting

    ## Inbox
    - 2026-11-28 — first capture

    ## To read

    ## Deadlines
    """)


def test_check_accepts_exactly_the_declared_delta():
    after = BOARD.replace("- someday\n", "- someday\n- added\n")
    assert _conserve.check(BOARD, after, added=["- added"]) == []
    assert _conserve.check(BOARD, after) != []  # undeclared addition
    assert _conserve.check(BOARD, BOARD, added=["- added"]) != []  # declared but did not happen


def test_check_catches_a_drop_and_a_duplicate():
    dropped = BOARD.replace("- someday\n", "")
    assert any("lost" in f for f in _conserve.check(BOARD, dropped))
    assert _conserve.check(BOARD, dropped, removed=["- someday"]) == []
    duplicated = BOARD.replace("- someday\n", "- someday\n- someday\n")
    assert any("appeared" in f for f in _conserve.check(BOARD, duplicated))


def test_moved_lines_must_exist_on_both_sides():
    assert _conserve.check(BOARD, BOARD, moved=["- someday"]) == []
    assert _conserve.check(BOARD, BOARD, moved=["- not there"]) != []


def test_real_writers_declare_honestly():
    for e in (
        _board_edit.capture(BOARD, TODAY, "new thing"),
        _board_edit.promote(BOARD, "someday"),
        _board_edit.demote(BOARD, "ship"),
        _board_edit.close_board(BOARD, "ship")[0],
    ):
        assert e.changed
        assert _conserve.check(e.before, e.after, added=e.added, removed=e.removed, moved=e.moved) == []


def _bundle(tmp_path: Path) -> Path:
    root = tmp_path / ".okf"
    root.mkdir()
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Brain\n')
    (root / "board.md").write_text(BOARD)
    (root / "log.md").write_text("# Update Log\n")
    return root


@pytest.mark.parametrize("fault", ["drop", "duplicate", "rewrite"])
def test_faulty_transform_is_refused_and_file_untouched(tmp_path, monkeypatch, fault):
    root = _bundle(tmp_path)
    before = (root / "board.md").read_bytes()
    real = _board_edit.capture

    def faulty(board_text, today, text):
        edit = real(board_text, today, text)
        if fault == "drop":  # loses an unrelated line, declares only the capture
            edit.after = edit.after.replace("- someday\n", "")
        elif fault == "duplicate":
            edit.after = edit.after.replace("- someday\n", "- someday\n- someday\n")
        else:  # regenerates a line slightly differently
            edit.after = edit.after.replace("- someday", "- Someday")
        return edit

    monkeypatch.setattr(_board_edit, "capture", faulty)
    with pytest.raises(ww.Refused) as info:
        ww.do_capture(root, TODAY, "a new line")
    assert info.value.path == "board.md"
    assert (root / "board.md").read_bytes() == before
    assert sorted(p.name for p in root.iterdir()) == ["board.md", "index.md", "log.md"]  # no temp litter


def test_faulty_transform_refused_through_the_real_cli_process(tmp_path):
    """A separate process whose writer transform is broken: exit 2, stderr says why, bytes unchanged."""
    root = _bundle(tmp_path)
    before = (root / "board.md").read_bytes()
    script = textwrap.dedent("""
        import sys
        from okfpro.core import board_edit as _board_edit
        real = _board_edit.promote
        def faulty(text, sel):
            e = real(text, sel)
            e.after = e.after.replace("- 2026-11-28 — first capture\\n", "")  # drops a line
            return e
        _board_edit.promote = faulty
        from okfpro.__main__ import main
        sys.exit(main(["promote", "someday"]))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
        env={"PYTHONPATH": str(REPO), "OKFPRO_TODAY": "2026-11-30", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "refused" in proc.stderr and "board.md is untouched" in proc.stderr
    assert (root / "board.md").read_bytes() == before


# --- property: the real writers always declare exactly what they do ------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from tests.helpers import examples  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WORDS = st.sampled_from(["alpha", "beta", "move", "tax", "keys", "bank", "x", "Resolve:", "chase 2026-12-01"])
TEXT = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)
OPS = st.lists(st.tuples(st.sampled_from(["capture", "promote", "demote", "close"]), TEXT), max_size=12)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_any_sequence_of_edits_conserves_lines(ops):
    from okfpro.core import board as _board

    text = BOARD
    for op, arg in ops:
        try:
            if op == "capture":
                e = _board_edit.capture(text, TODAY, arg)
            elif op == "promote":
                e = _board_edit.promote(text, arg.split()[0])
            elif op == "demote":
                e = _board_edit.demote(text, arg.split()[0])
            else:
                e = _board_edit.close_board(text, arg.split()[0])[0]
        except _board_edit.Refused:
            continue
        assert _conserve.check(e.before, e.after, added=e.added, removed=e.removed, moved=e.moved) == []
        text = e.after
        b = _board.parse(text)
        assert b.declared == b.count("In flight") <= b.cap  # the header stays in step, the cap holds
        assert _board.grammar(b) == []
