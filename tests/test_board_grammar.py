"""Board grammar tables (§2.4): every spelling the reference accepts is accepted,
every counter-example rejected.  Also the closure marker, pairing and dormancy."""

from __future__ import annotations

import datetime as dt

import pytest

from okfpro.core import board as _board
from okfpro.core import dormancy as _dormancy
from okfpro.core import pairing as _pairing
from okfpro.core import snapshot as _snapshot

TODAY = dt.date(2026, 11, 30)  # a Monday

SIX = "\n".join(f"## {s}\n" for s in _board.SECTIONS)


def board(header: str = "**In flight: 0/5** · updated never", **sections: str) -> str:
    parts = ["---", "type: Board", "title: Board", "description: The board.", "---", "", "# Board", "", header, ""]
    for name in _board.SECTIONS:
        parts.append(f"## {name}")
        body = sections.get(name.replace(" ", "_").lower(), "")
        if body:
            parts.append(body)
        parts.append("")
    return "\n".join(parts) + "\n"


# --- header ------------------------------------------------------------------------

@pytest.mark.parametrize("line,declared,cap", [
    ("In flight: 3/5", 3, 5),
    ("**In flight: 3/5** · updated 2026-07-01", 3, 5),
    ("**In Flight:** 6 / 5", 6, 5),
    ("in flight:3/5", 3, 5),
    ("*In flight:* 2 /7", 2, 7),
    ("In flight:\t4\t/\t5", 4, 5),
])
def test_header_accepted(line, declared, cap):
    b = _board.parse(f"# Board\n\n{line}\n\n{SIX}")
    assert (b.declared, b.cap) == (declared, cap)


@pytest.mark.parametrize("line", [
    "In-flight: 3/5",
    "  In flight: 3/5",
    "In flight 3/5",
    "In flight: three/5",
    "***In flight: 3/5***",
    "> In flight: 3/5",
    "<!-- In flight: 3/5 -->",
    "IN FLIGHT: 3/5",
])
def test_header_rejected(line):
    b = _board.parse(f"# Board\n\n{line}\n\n{SIX}")
    assert b.header_index is None and b.cap is None
    assert any("header" in m for m in _board.cap_check(b))


def test_header_inside_comment_line_still_counts_when_visible():
    b = _board.parse("<!-- note -->In flight: 1/5\n" + SIX)
    assert (b.declared, b.cap) == (1, 5)


# --- sections and board lines --------------------------------------------------------

@pytest.mark.parametrize("heading,counted", [
    ("## Inbox", True),
    ("## Inbox   ", True),
    ("## Inbox <!-- captures -->", True),
    ("## inbox", False),
    ("## Inbox — parked", False),
    ("### Inbox", False),
    ("##Inbox", False),
    ("# Inbox", False),
])
def test_section_heading_exact(heading, counted):
    b = _board.parse(f"{heading}\n- 2026-11-29 — a capture\n")
    assert (b.count("Inbox") == 1) is counted
    missing = [m for m in _board.grammar(b) if "'## Inbox'" in m]
    assert bool(missing) is (not counted)


@pytest.mark.parametrize("line,counted,stray", [
    ("- a line", True, False),
    ("* star bullet", False, True),
    ("+ plus bullet", False, True),
    ("  - indented", False, True),
    ("\t- tabbed", False, True),
    (" * indented star", False, True),
    ("-no space", False, False),
    ("1. numbered", False, False),
    ("plain prose", False, False),
])
def test_board_line_and_stray_bullets(line, counted, stray):
    b = _board.parse(board(backlog=line))
    assert (b.count("Backlog") == 1) is counted
    assert any("column zero" in m for m in _board.grammar(b)) is stray


def test_stray_bullet_before_first_section_is_not_a_finding():
    text = "* preamble bullet\n" + board()
    assert not any("column zero" in m for m in _board.grammar(text))


def test_lines_outside_the_six_sections_are_not_rows():
    b = _board.parse(board() + "## Someday\n- an idea\n")
    assert all(r.section in _board.SECTIONS for r in b.rows) and len(b.rows) == 0


def test_six_sections_all_present_and_each_missing_one_reported():
    assert _board.grammar(board()) == []
    for name in _board.SECTIONS:
        text = board().replace(f"## {name}\n", "")
        found = _board.grammar(text)
        assert len(found) == 1 and f"'## {name}'" in found[0]


# --- dates ---------------------------------------------------------------------------

@pytest.mark.parametrize("line,date", [
    ("- 2026-11-30 — captured", "2026-11-30"),
    ("-   2026-11-30 — captured", "2026-11-30"),
    ("- 2026-11-30 no dash", "2026-11-30"),
    ("- 2026-02-30 — not a day", None),
    ("- 2026-1-30 — short", None),
    ("- captured 2026-11-30", None),
    ("- 2026/11/30 — slashes", None),
])
def test_leading_date(line, date):
    b = _board.parse(board(inbox=line, deadlines=line))
    assert [r.date for r in b.rows] == [date, date]
    unreadable = [m for m in _board.grammar(b) if "leading calendar date" in m]
    assert len(unreadable) == (0 if date else 2)


@pytest.mark.parametrize("line,chase", [
    ("- vendor — asked 2026-11-20, chase 2026-12-01", "2026-12-01"),
    ("- vendor chase  2026-12-01", "2026-12-01"),
    ("- purchase 2026-12-01 of chairs", None),
    ("- Chase 2026-12-01", None),
    ("- chase: 2026-12-01", None),
    ("- chase 2026-13-01", None),
    ("- no date at all", None),
])
def test_waiting_chase(line, chase):
    b = _board.parse(board(waiting=line))
    assert [r.chase for r in b.rows] == [chase]
    assert any("chase YYYY-MM-DD" in m for m in _board.grammar(b)) is (chase is None)


def test_age_may_be_negative_and_oldest_is_signed():
    b = _board.parse(board(inbox="- 2026-12-03 — from the future"))
    assert b.rows[0].age(TODAY) == -3
    assert _board.counters(b, TODAY)["oldest"] == -3
    assert _board.counters(_board.parse(board()), TODAY)["oldest"] == 0


def test_past_chase_is_strictly_before_today():
    lines = "\n".join(["- a chase 2026-11-29", "- b chase 2026-11-30", "- c chase 2026-12-01", "- d undated"])
    c = _board.counters(_board.parse(board(waiting=lines)), TODAY)
    assert (c["waiting"], c["past chase"]) == (4, 1)


# --- links ---------------------------------------------------------------------------

@pytest.mark.parametrize("line,targets", [
    ("- [/reference/a.md](/reference/a.md) read it", ["/reference/a.md"]),
    ("- see [/projects/x/]", ["/projects/x/"]),
    ("- [x](/notes/a.md#part)", ["/notes/a.md"]),
    ("- [/notes/a.md#part]", ["/notes/a.md"]),
    ("- [x](https://example.com/a.md)", []),
    ("- [x](notes/a.md)", []),
    ("- [notes/a.md]", []),
    ("- Resolve: [/a.md] says X, [/b.md] says Y", ["/a.md", "/b.md"]),
])
def test_link_targets(line, targets):
    assert _board.targets(line) == targets


# --- comments ------------------------------------------------------------------------

@pytest.mark.parametrize("raw,visible,passes", [
    ("- a <!-- c --> b", "- a  b", 1),
    ("<!-- c -->- hidden no more", "- hidden no more", 1),
    ("- a <!-- one --> <!-- two -->", "- a  ", 1),
    ("<!-<!-- x -->- y -->- z", "- z", 2),
    ("- a <!-- unclosed", "- a <!-- unclosed", 0),
])
def test_comment_strip_to_fixpoint(raw, visible, passes):
    assert _board.strip_comments(raw) == (visible, passes)


def test_comment_findings():
    text = board(backlog="- a <!-- never closed\n- <!-<!-- x -->- y -->b")
    found = _board.grammar(text)
    assert sum("never closed" in m for m in found) == 1
    assert sum("more than one pass" in m for m in found) == 1


def test_row_text_keeps_space_left_by_a_comment():
    b = _board.parse(board(deadlines="- 2026-12-01 — renew <!-- note -->"))
    assert b.rows[0].text == "- 2026-12-01 — renew "
    assert b.rows[0].has_comment


def test_commented_out_line_is_invisible():
    b = _board.parse(board(inbox="<!-- - 2026-11-01 — hidden -->"))
    assert b.count("Inbox") == 0


# --- conflicts and cap ----------------------------------------------------------------

def test_conflict_lines_anywhere_on_the_board():
    line = "- 2026-11-29 — Resolve: [/a.md] says X, [/b.md] says Y — noticed while reading"
    text = line + "\n" + board(backlog=line, inbox=line) + "## Elsewhere\n" + line + "\n  " + line + "\n"
    assert _board.counters(_board.parse(text), TODAY)["conflicts open"] == 4


def test_cap_check_messages():
    assert _board.cap_check(board("In flight: 1/5", in_flight="- one")) == []
    over = _board.cap_check(board("In flight: 6/5", in_flight="\n".join(f"- {i}" for i in range(6))))
    assert len(over) == 1 and "RULE 3" in over[0] and "6" in over[0]
    wrong = _board.cap_check(board("In flight: 2/5", in_flight="- one"))
    assert len(wrong) == 1 and "says 2" in wrong[0] and "holds 1" in wrong[0]
    both = _board.cap_check(board("In flight: 1/1", in_flight="- a\n- b"))
    assert len(both) == 2
    assert "header" in _board.cap_check(board("no header here"))[0]


def test_deadlines_within_seven_days_not_in_flight():
    deadlines = "\n".join([
        "- 2026-12-07 — in window, unlinked",
        "- 2026-12-08 — outside window",
        "- 2026-11-01 — long past, still counts",
        "- 2026-12-02 — covered [/projects/move/](/projects/move/index.md)",
        "- 2026-12-02 — not covered [/projects/tax/]",
        "- undated deadline",
    ])
    b = _board.parse(board("In flight: 1/5", in_flight="- pack boxes [/projects/move/]", deadlines=deadlines))
    risk = [r.text for r in _board.deadlines_at_risk(b, TODAY)]
    assert risk == [
        "- 2026-12-07 — in window, unlinked",
        "- 2026-11-01 — long past, still counts",
        "- 2026-12-02 — not covered [/projects/tax/]",
    ]
    c = _snapshot.counters(b, TODAY, 2, 1)
    assert c["deadlines within 7d not in flight"] == 3


# --- closure marker (every taught spelling accepted, every counter-example rejected) ----

@pytest.mark.parametrize("text", [
    "# Title — closed 2026-08-12",
    "Closed: 2026-05-01",
    "**Closed** 2026-08-12",
    "closed (2026-08-12)",
    "# Move — CLOSED 2026-08-12",
    "# Move – closed 2026-08-12",
    "# Move\n\nclosed - 2026-08-12",
])
def test_closure_marker_accepted(text):
    assert _pairing.is_closed(text)


@pytest.mark.parametrize("text", [
    "closed the deal on 2026-08-05",
    "not closed: 2026-08-12",
    "never closed 2026-08-12",
    "isn't closed 2026-08-12",
    "wasn’t closed 2026-08-12",
    "no longer closed 2026-08-12",
    "we closed, 2026-01-05, the books",
    "_closed_ 2026-08-12",
    "closed-loop 2026-08-12",
    "# Move\n\nsome text\nclosed 2026-08-12",  # fourth line: not read
    "# Move — closed",
])
def test_closure_marker_rejected(text):
    assert not _pairing.is_closed(text)


# --- pairing ---------------------------------------------------------------------------

def test_pairing_five_invariants():
    rows = _board.parse(board(
        "In flight: 1/5",
        in_flight="- work [/projects/live/](/projects/live/index.md)",
        backlog="- old [/projects/done/]\n- dangling [/notes/gone.md]",
        to_read="- [/reference/read.md](/reference/read.md)",
    )).rows
    facts = _pairing.Facts(
        open_projects=["live", "quiet"],
        closed_projects=["done"],
        unverified_briefings=["reference/owed"],
        verified_briefings=["reference/read"],
        entries={"projects/live", "projects/live/index.md", "projects/done", "reference/read.md"},
    )
    found = _pairing.failures(rows, facts)
    assert any("projects/quiet" in m for m in found)
    assert not any("projects/live is open" in m for m in found)
    assert any("reference/owed.md" in m for m in found)
    assert any("/notes/gone.md" in m for m in found)
    assert any("projects/done, which is closed" in m for m in found)
    assert any("/reference/read.md" in m and "verified" in m for m in found)
    assert len(found) == 5


# --- dormancy --------------------------------------------------------------------------

@pytest.mark.parametrize("today,start", [
    (dt.date(2026, 11, 30), dt.date(2026, 11, 24)),  # Monday -> previous Tuesday
    (dt.date(2026, 12, 4), dt.date(2026, 11, 30)),  # Friday -> Monday
    (dt.date(2026, 12, 6), dt.date(2026, 11, 30)),  # Sunday -> Monday
])
def test_dormancy_window_counts_five_weekdays(today, start):
    assert _dormancy.DORMANCY_DAYS == 5
    assert _dormancy.window_start(today) == start


def test_dormancy_questions():
    b = _board.parse(board("In flight: 3/5", in_flight="\n".join([
        "- a [/projects/alive/]",
        "- b [/projects/asleep/](/projects/asleep/index.md)",
        "- c unlinked",
    ])))
    assert _dormancy.questions(b, TODAY, {}) == []  # no journal: quiet
    young = {"2026-11-27": "nothing"}
    assert [q for q in _dormancy.questions(b, TODAY, young) if "dormancy" in q] == []  # new, not dormant
    journal = {"2026-11-01": "", "2026-11-26": "worked on [/projects/ALIVE/]"}
    qs = _dormancy.questions(b, TODAY, journal)
    assert len(qs) == 2 and "/projects/asleep/" in qs[0] and "1 in-flight" in qs[1]
