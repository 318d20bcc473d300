"""Log grammar tables (§2.6): day headings, Snapshot lines, blocks, insertion; and the
Snapshot line itself (render, parse, verify)."""

from __future__ import annotations

import datetime as dt

import pytest

from okfpro.core import log as _log
from okfpro.core import snapshot as _snapshot

LINE = ("* **Snapshot**: inbox 2 (oldest 4d) · in flight 1/5 · waiting 1 (1 past chase) · backlog 0 · "
        "to read 1 · unverified briefings 1 · conflicts open 0 · deadlines within 7d not in flight 1 · "
        "projects with 0 concepts 1")


@pytest.mark.parametrize("heading,day,malformed", [
    ("## 2026-11-30", "2026-11-30", False),
    ("## 2026-11-30   ", "2026-11-30", False),
    ("## 2026-11-30\t", "2026-11-30", False),
    ("## 2026-11-30\r", "2026-11-30", False),
    ("## 2026-02-30", None, True),
    ("## 2026-13-01", None, True),
    ("##  2026-11-30", None, True),
    ("## 2026-11-30 late notes", None, True),
    ("## 26-11-30", None, True),
    ("## Notes", None, False),
    ("# 2026-11-30", None, False),
    ("### 2026-11-30", None, False),
])
def test_day_headings(heading, day, malformed):
    log = _log.parse(f"# Update Log\n\n{heading}\n\n* entry\n")
    assert log.days == ([day] if day else [])
    assert bool(log.malformed) is malformed
    assert bool(_log.malformed_headings(log)) is malformed


@pytest.mark.parametrize("line", [
    "* **Snapshot**: inbox 1",
    "- Snapshot: inbox 1",
    "+ *Snapshot*: inbox 1",
    "  * **Snapshot** : inbox 1",
    "*\t**Snapshot**:inbox 1",
    "* Snapshot**: odd but bulleted",
])
def test_snapshot_line_accepted(line):
    assert _log.is_snapshot_line(line)


@pytest.mark.parametrize("line", [
    "Snapshot: inbox 1",
    "**Snapshot**: inbox 1",
    "*Snapshot: inbox 1",
    "* the Snapshot: inbox 1",
    "* **Snapshot** inbox 1",
    "* ***Snapshot***: inbox 1",
    "1. Snapshot: inbox 1",
    "* Today's snapshot was fine",
])
def test_snapshot_line_rejected(line):
    assert not _log.is_snapshot_line(line)


def test_last_line_in_block_wins_and_first_block_of_a_repeated_day_wins():
    text = "\n".join([
        "# Update Log", "",
        "## 2026-11-29", "", "* **Snapshot**: inbox 1", "* correction", "* **Snapshot**: inbox 2", "",
        "## 2026-11-30", "", "* **Snapshot**: inbox 9", "",
        "## 2026-11-29", "", "* **Snapshot**: inbox 7", "",
        "## 2026-11-28", "", "* Update: no snapshot", "",
    ]) + "\n"
    log = _log.parse(text)
    assert log.snapshot_line("2026-11-29") == "* **Snapshot**: inbox 2"
    assert log.snapshot_line("2026-11-30") == "* **Snapshot**: inbox 9"
    assert log.snapshot_line("2026-11-28") is None
    assert log.newest_day == "2026-11-30"
    assert log.latest_snapshot() == ("2026-11-30", "* **Snapshot**: inbox 9")


def test_newest_day_is_the_greatest_date_not_the_first_heading():
    log = _log.parse("## 2026-11-01\n\n* **Snapshot**: x\n\n## 2026-11-20\n\n* a\n\n## 2026-13-40\n")
    assert log.newest_day == "2026-11-20"
    assert log.latest_snapshot() == ("2026-11-01", "* **Snapshot**: x")


def test_snapshot_line_outside_a_day_block_does_not_count():
    log = _log.parse("# Update Log\n\n* **Snapshot**: inbox 1\n\n## Notes\n\n* **Snapshot**: inbox 2\n")
    assert log.latest_snapshot() is None and log.newest_day is None


def test_undated_log_has_no_days():
    log = _log.parse("# Update Log\n\nOne line per day's work, newest first.\n")
    assert (log.newest_day, log.latest_snapshot(), log.malformed) == (None, None, [])


# --- add_entry --------------------------------------------------------------------------

def test_add_entry_under_existing_day_after_last_nonblank_line():
    text = "# Update Log\n\n## 2026-11-30\n\n* one\n* two\n\n\n## 2026-11-29\n\n* old\n"
    out = _log.add_entry(text, "2026-11-30", "* three")
    assert out == "# Update Log\n\n## 2026-11-30\n\n* one\n* two\n* three\n\n\n## 2026-11-29\n\n* old\n"


def test_add_entry_new_day_goes_on_top():
    text = "# Update Log\n\nPreamble.\n\n## 2026-11-29\n\n* old\n"
    out = _log.add_entry(text, "2026-11-30", "* new")
    assert out == "# Update Log\n\nPreamble.\n\n## 2026-11-30\n\n* new\n\n## 2026-11-29\n\n* old\n"


def test_add_entry_without_day_headings_appends():
    assert _log.add_entry("# Update Log\n\nPreamble.", "2026-11-30", "* new") == (
        "# Update Log\n\nPreamble.\n\n## 2026-11-30\n\n* new\n"
    )
    assert _log.add_entry("# Update Log\n\n", "2026-11-30", "* new") == "# Update Log\n\n## 2026-11-30\n\n* new\n"


# --- the Snapshot line ------------------------------------------------------------------

def test_render_is_byte_exact_and_round_trips():
    c = _snapshot.parse(LINE)
    assert list(c) == list(_snapshot.KEYS) and None not in c.values()
    assert _snapshot.render(c) == LINE


def test_negative_oldest_renders_and_parses():
    c = dict(_snapshot.parse(LINE), oldest=-3)
    line = _snapshot.render(c)
    assert "(oldest -3d)" in line and _snapshot.parse(line)["oldest"] == -3


def test_parse_is_field_anchored_and_tolerant():
    c = _snapshot.parse("- Snapshot: backlog 3 · inbox 2  (oldest 1d) · in flight 0/4")
    assert (c["backlog"], c["inbox"], c["oldest"], c["in flight"], c["cap"]) == (3, 2, 1, 0, 4)
    assert c["waiting"] is None and c["projects with 0 concepts"] is None


def test_verify_reports_every_disagreement_with_the_recomputed_line():
    want = _snapshot.parse(LINE)
    assert _snapshot.verify(want, LINE) is None
    bad = LINE.replace("backlog 0", "backlog 4").replace(" · to read 1", "")
    msg = _snapshot.verify(want, bad)
    assert "backlog is 0, the line says 4" in msg
    assert "to read is 1, the line says nothing" in msg
    assert msg.rstrip().endswith(LINE)


def test_counters_from_board_text():
    text = "\n".join([
        "In flight: 1/3", "", "## In flight", "- x", "## Backlog", "## Waiting", "- w chase 2026-11-01",
        "## Inbox", "- 2026-11-26 — a", "- 2026-12-02 — future", "- undated",
        "## To read", "- r", "## Deadlines", "- 2026-12-01 — d",
    ]) + "\n"
    c = _snapshot.counters(text, dt.date(2026, 11, 30), 4, 2)
    assert _snapshot.render(c) == (
        "* **Snapshot**: inbox 3 (oldest 4d) · in flight 1/3 · waiting 1 (1 past chase) · backlog 0 · "
        "to read 1 · unverified briefings 4 · conflicts open 0 · deadlines within 7d not in flight 1 · "
        "projects with 0 concepts 2"
    )
    assert _snapshot.counters("no board at all", dt.date(2026, 11, 30), 0, 0)["cap"] == 0
