"""The pure merge of writer-owned files (okfpro/core/filemerge.py, core/linemerge.py).

The sides are built by okfpro's own pure writers (capture, promote, log entry, journal open),
as the verbs build them; the property test drives random append sequences on both sides.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from tests.helpers import examples
from hypothesis import strategies as st

from okfpro.core import board as _board
from okfpro.core import board_edit as be
from okfpro.core import filemerge as fm
from okfpro.core import linemerge as lm
from okfpro.core import log as _log

SEED = Path(__file__).resolve().parents[1] / "template" / "seed" / ".okf"
BOARD = (SEED / "board.md").read_text(encoding="utf-8")
LOG = (SEED / "log.md").read_text(encoding="utf-8")
JOURNAL_INDEX = (SEED / "journal" / "index.md").read_text(encoding="utf-8")
D1, D2, D3 = dt.date(2026, 11, 30), dt.date(2026, 12, 1), dt.date(2026, 12, 2)


def cap(text: str, day: dt.date, what: str) -> str:
    return be.capture(text, day, what).after


def lines(text: str) -> Counter:
    return Counter(text.splitlines())


def clean(base: str, ours: str, theirs: str, path: str) -> str:
    r = fm.merge(base, ours, theirs, path)
    assert isinstance(r, fm.Result) and r.conflicts == 0, r
    return r.text


def test_captures_on_both_sides_are_all_kept_in_date_order_and_the_same_either_way() -> None:
    a = cap(cap(BOARD, D2, "call bob"), D2, "book the hall")
    b = cap(cap(BOARD, D1, "call alice"), D3, "file the claim")
    merged = clean(BOARD, a, b, ".okf/board.md")
    assert merged == clean(BOARD, b, a, ".okf/board.md")
    inbox = [r.text for r in _board.parse(merged).section("Inbox")]
    assert inbox == [
        "- 2026-11-30 — call alice", "- 2026-12-01 — call bob", "- 2026-12-01 — book the hall", "- 2026-12-02 — file the claim",
    ]
    assert _board.grammar(merged) == [] and _board.cap_check(merged) == []


def test_the_same_capture_on_both_sides_is_kept_once() -> None:
    a = cap(BOARD, D2, "call bob")
    b = cap(cap(BOARD, D2, "call bob"), D2, "and alice")
    merged = clean(BOARD, a, b, "board.md")
    assert lines(merged)["- 2026-12-01 — call bob"] == 1
    assert "- 2026-12-01 — and alice" in merged.splitlines()


def test_a_promote_on_each_side_sets_the_header_to_the_merged_count() -> None:
    base = cap(cap(BOARD, D1, "alpha"), D1, "beta")
    a = be.promote(base, "alpha").after
    b = be.promote(base, "beta").after
    merged = clean(base, a, b, "board.md")
    assert _board.parse(merged).declared == 2 == _board.parse(merged).count("In flight")
    assert _board.cap_check(merged) == []
    assert "**In flight: 1/5**" not in merged


def test_the_same_card_edited_two_ways_is_a_conflict_with_standard_markers() -> None:
    base = cap(BOARD, D1, "call bob")
    a = base.replace("call bob", "call bob about the lease")
    b = base.replace("call bob", "call bob tomorrow")
    r = fm.merge(base, a, b, "board.md", marker_size=9, labels=("mine", "yours"))
    assert isinstance(r, fm.Result) and r.conflicts == 1
    got = r.text.splitlines()
    i = got.index("<<<<<<<<< mine")
    assert got[i + 1 : i + 5] == [
        "- 2026-11-30 — call bob about the lease", "=========", "- 2026-11-30 — call bob tomorrow", ">>>>>>>>> yours",
    ]


def test_a_deletion_against_an_edit_is_a_conflict() -> None:
    base = cap(cap(BOARD, D1, "call bob"), D1, "keep")
    a = base.replace("- 2026-11-30 — call bob\n", "")
    b = base.replace("call bob", "call bob now")
    r = fm.merge(base, a, b, "board.md")
    assert r.conflicts == 1 and "- 2026-11-30 — call bob now" in r.text
    # ...but a deletion next to the other side's capture is not
    c = cap(base, D2, "new")
    assert "- 2026-11-30 — call bob" not in clean(base, a, c, "board.md")


def test_journal_open_on_two_days_unites_the_index_and_drops_the_placeholder_once() -> None:
    a = be.journal_index(JOURNAL_INDEX, D3).after
    b = be.journal_index(JOURNAL_INDEX, D2).after
    merged = clean(JOURNAL_INDEX, a, b, ".okf/journal/index.md")
    assert be.JOURNAL_PLACEHOLDER not in merged
    assert merged.splitlines()[-2:] == [be.journal_index_line(D2), be.journal_index_line(D3)]
    assert merged == clean(JOURNAL_INDEX, b, a, ".okf/journal/index.md")


def test_a_journal_day_both_sides_created_merges_with_an_empty_base() -> None:
    day = be.journal_entry_text(D2)
    a = day.replace(be.JOURNAL_DAY_PLACEHOLDER, "Shipped the release.") + "\n## Decisions\n\n- ship on Friday\n"
    b = day + "\nMet the insurer.\n\n## Decisions\n\n- renew the policy\n"
    merged = clean("", a, b, ".okf/journal/2026-12-01.md")
    got = merged.splitlines()
    assert got[:5] == day.splitlines()[:5]  # the frontmatter once
    assert got.count("## Decisions") == 1 and got.count("# 2026-12-01") == 1
    for line in ["Shipped the release.", "Met the insurer.", "- ship on Friday", "- renew the policy"]:
        assert line in got
    assert merged == clean("", b, a, ".okf/journal/2026-12-01.md")


def test_log_days_are_merged_by_day_newest_first_with_the_snapshot_last() -> None:
    a = be.log_entry(LOG, D3, "* a on the 2nd").after
    a = be.log_entry(a, D3, "* **Snapshot**: inbox 1").after
    b = be.log_entry(LOG, D2, "* b on the 1st").after
    b = be.log_entry(b, D3, "* b on the 2nd").after
    merged = clean(LOG, a, b, "log.md")
    parsed = _log.parse(merged)
    assert parsed.days == ["2026-12-02", "2026-12-01"] and parsed.malformed == []
    block = parsed.block("2026-12-02")
    body = [x for x in parsed.lines[block.heading + 1 : block.end] if x.strip()]
    assert body == ["* a on the 2nd", "* b on the 2nd", "* **Snapshot**: inbox 1"]
    assert merged == clean(LOG, b, a, "log.md")


def test_crlf_on_one_side_is_not_a_change_of_every_line() -> None:
    a = cap(BOARD, D2, "from windows").replace("\n", "\r\n")
    b = cap(BOARD, D1, "from linux")
    merged = clean(BOARD, a, b, "board.md")
    assert "\r\n" in merged and "\n" not in merged.replace("\r\n", "")  # ours turned the file to CRLF
    assert [r.text for r in _board.parse(merged).section("Inbox")] == ["- 2026-11-30 — from linux", "- 2026-12-01 — from windows"]


def test_outside_the_grammar_the_merge_declines_and_says_why() -> None:
    a = cap(BOARD, D2, "x")
    doubled = BOARD + "\n## Inbox\n- 2026-12-01 — y\n"
    assert "twice" in fm.merge(BOARD, a, doubled, "board.md").reason
    bad_day = LOG + "\n## 2026-13-45\n\n* odd\n"
    assert "calendar" in fm.merge(LOG, LOG + "\n## 2026-12-01\n\n* ok\n", bad_day, "log.md").reason
    marked = a + "<<<<<<< HEAD\n"
    assert "markers" in fm.merge(BOARD, marked, a, "board.md").reason
    assert "NUL" in fm.merge(BOARD, a, a + "\x00", "board.md").reason
    swapped = BOARD.replace("## Inbox", "## TMP").replace("## Waiting", "## Inbox").replace("## TMP", "## Waiting")
    reordered = fm.merge(BOARD, swapped, BOARD.replace("## Backlog\n", "## Backlog\n- x\n"), "b/board.md")
    assert reordered.text == BOARD.replace("## Backlog\n", "## Backlog\n- x\n")  # the board's own order
    journal = "# Day\n\n## One\n\n## Two\n"
    flipped = fm.merge(journal, "# Day\n\n## Two\n\n## One\n", journal + "x\n", "journal/2026-12-01.md")
    assert "different orders" in flipped.reason


def test_a_section_dropped_on_one_side_and_changed_on_the_other_is_a_conflict() -> None:
    base = BOARD.replace("## Waiting\n", "## Waiting\n- bob — the keys, asked 2026-11-01, chase 2026-11-20\n")
    a = base.replace("## Waiting\n- bob — the keys, asked 2026-11-01, chase 2026-11-20\n", "")
    b = base.replace("chase 2026-11-20", "chase 2026-12-20")
    r = fm.merge(base, a, b, "board.md")
    assert r.conflicts == 1 and "chase 2026-12-20" in r.text
    assert "## Waiting" not in clean(base, a, base, "board.md")


def test_huge_append_only_sides_merge_in_linear_time() -> None:
    base = "# Journal\n\n" + "".join(f"* [{i}] entry {i}\n\n" for i in range(50_000))
    a = base + "* [a] mine\n"
    b = base + "* [b] theirs\n"
    t = time.process_time()
    merged = clean(base, a, b, "journal/index.md")
    assert time.process_time() - t < 10  # a guard against a quadratic path, not a benchmark
    assert merged.endswith("* [a] mine\n* [b] theirs\n")


def test_placeholders_are_lines_of_the_shipped_template() -> None:
    template = "".join(p.read_text(encoding="utf-8") for p in SEED.rglob("*.md")) + be.journal_entry_text(D1)
    for line in fm.PLACEHOLDERS:
        assert line in template.splitlines(), line


# --- random append sequences on both sides ----------------------------------------------------

DAYS = [dt.date(2026, 11, 28) + dt.timedelta(days=i) for i in range(5)]
WORDS = st.text(alphabet="abc xyz", min_size=1, max_size=6).filter(lambda s: s.strip() and not s.startswith("-"))
STEP = st.one_of(
    st.tuples(st.just("capture"), st.sampled_from(DAYS), WORDS),
    st.tuples(st.just("log"), st.sampled_from(DAYS), WORDS),
    st.tuples(st.just("snapshot"), st.sampled_from(DAYS), WORDS),
    st.tuples(st.just("journal"), st.sampled_from(DAYS), st.just("")),
)


def play(files: dict[str, str], steps) -> dict[str, str]:
    out = dict(files)
    for verb, day, text in steps:
        if verb == "capture":
            out["board.md"] = cap(out["board.md"], day, text)
        elif verb == "log":
            out["log.md"] = be.log_entry(out["log.md"], day, f"* {text.strip()}").after
        elif verb == "snapshot":
            out["log.md"] = be.log_entry(out["log.md"], day, f"* **Snapshot**: inbox {len(text)}").after
        else:
            out["journal/index.md"] = be.journal_index(out["journal/index.md"], day).after
    return out


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, max_size=6), st.lists(STEP, max_size=8), st.lists(STEP, max_size=8))
def test_random_appends_on_both_sides_merge_cleanly_whole_and_in_either_order(common, mine, yours) -> None:
    base = play({"board.md": BOARD, "log.md": LOG, "journal/index.md": JOURNAL_INDEX}, common)
    a, b = play(base, mine), play(base, yours)
    for path in base:
        merged = clean(base[path], a[path], b[path], path)
        assert merged == clean(base[path], b[path], a[path], path), path
        assert clean(base[path], a[path], a[path], path) == a[path]
        got, ca, cb, co = lines(merged), lines(a[path]), lines(b[path]), lines(base[path])
        for line in set(ca) | set(cb):
            if line in fm.PLACEHOLDERS:
                continue
            # every line of both sides; a line both added counted once, never more than both sides hold
            assert max(ca[line], cb[line]) <= got[line] <= ca[line] + cb[line] - co[line] or not line.strip(), line
    assert _board.grammar(merged := clean(base["board.md"], a["board.md"], b["board.md"], "board.md")) == []
    assert _board.cap_check(merged) == []
    log = _log.parse(clean(base["log.md"], a["log.md"], b["log.md"], "log.md"))
    assert log.malformed == []
    if all(_log.parse(x["log.md"]).days == sorted(_log.parse(x["log.md"]).days, reverse=True) for x in (a, b)):
        assert log.days == sorted(log.days, reverse=True)  # newest first stays newest first
    if snapshots_last(_log.parse(a["log.md"])) and snapshots_last(_log.parse(b["log.md"])):
        assert snapshots_last(log)


def snapshots_last(log: _log.Log) -> bool:
    """Each day's Snapshot lines are its last entries."""
    for day in log.days:
        block = log.block(day)
        flags = [_log.is_snapshot_line(x) for x in log.lines[block.heading + 1 : block.end] if x.strip()]
        if flags != sorted(flags):
            return False
    return True


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=8),
    st.lists(st.sampled_from("abcdefg"), max_size=8),
    st.lists(st.sampled_from("abcdefg"), max_size=8),
)
def test_linemerge_keeps_everything_it_does_not_mark_and_is_symmetric(base, ours, theirs) -> None:
    pieces = lm.merge(base, ours, theirs)
    swapped = lm.merge(base, theirs, ours)
    flip = [lm.Conflict(p.base, p.theirs, p.ours) if isinstance(p, lm.Conflict) else p for p in swapped]
    assert pieces == flip
    flat: list[str] = []
    for p in pieces:
        flat.extend(p.ours + p.theirs if isinstance(p, lm.Conflict) else [p])
    # a line a side added is never dropped
    for side in (ours, theirs):
        added = Counter(side) - Counter(base)
        assert not (added - Counter(flat)), (base, ours, theirs, pieces)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from([
    "## In flight", "## In flight  ", "## Backlog", "## Foo", "- a", "- <!-- x -->b", "<!-- c -->- d", "  - e", "* f",
    "- g <!--", "<!-- --> ## Backlog", "<!-- -->## In flight", "",
]), max_size=15))
def test_count_rows_counts_what_the_board_parser_counts(lines_) -> None:
    assert _board.count_rows(lines_, "In flight") == _board.parse("\n".join(lines_) + "\n").count("In flight")


def test_huge_insertions_on_both_sides_at_one_place_stay_fast_and_whole() -> None:
    base = "# Learnings\n\n"
    a = base + "".join(f"* mine {i}\n\n" for i in range(6000))
    b = base + "".join(f"* theirs {i}\n\n" for i in range(6000))
    t = time.process_time()
    merged = clean(base, a, b, "learnings/index.md")
    assert time.process_time() - t < 20  # a guard against the quadratic path, not a benchmark
    got = lines(merged)
    assert all(got[f"* mine {i}"] == 1 and got[f"* theirs {i}"] == 1 for i in range(6000))


# --- cards moved between sections (okfpro/core/cardmoves.py) ---------------------------------


def hand_move(text: str, token: str, to: str) -> str:
    """Move the card holding ``token`` to the end of section ``to``, as a person does in an editor."""
    b = _board.parse(text)
    row = next(r for r in b.rows if token in r.text.split())
    raw = text.splitlines(keepends=True)
    moving = raw.pop(row.index)
    b = _board.parse("".join(raw))
    at = be._section_end(b, to)
    raw.insert(at, moving)
    return "".join(raw)


def delete_card(text: str, token: str) -> str:
    raw = text.splitlines(keepends=True)
    row = next(r for r in _board.parse(text).rows if token in r.text.split())
    del raw[row.index]
    return "".join(raw)


def edit_card(text: str, token: str, word: str) -> str:
    raw = text.splitlines(keepends=True)
    row = next(r for r in _board.parse(text).rows if token in r.text.split())
    raw[row.index] = raw[row.index].rstrip("\n") + f" {word}\n"
    return "".join(raw)


def resolve(text: str, side: int) -> str:
    """Every conflict hunk replaced by one side (0 ours, 1 theirs), as `git checkout --ours/--theirs`."""
    out, part = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            part = 0
        elif line.startswith("|||||||") and part is not None:
            part = 2
        elif line.startswith("=======") and part is not None:
            part = 1
        elif line.startswith(">>>>>>>") and part is not None:
            part = None
        elif part is None or part == side:
            out.append(line)
    return "".join(out)


def findings(text: str) -> set[str]:
    """The board's grammar findings by kind (line numbers and the card quoted left out)."""
    return {re.sub(r": '.*'\Z", "", re.sub(r"\Aline [0-9]+: ", "", f)) for f in _board.grammar(text)}


def sections_of(text: str) -> dict[str, str]:
    return {w: r.section for r in _board.parse(text).rows for w in r.text.split() if w in CARDS}


def tokens_of(text: str) -> Counter:
    got: Counter = Counter()
    for r in _board.parse(text).rows:
        got.update(w for w in r.text.split() if w[:1] in "cab" and w[1:].isdigit())
    return got


MOVE_BASE = BOARD
for _i, (_section, _day) in enumerate([("Inbox", D1), ("Inbox", D2), ("Inbox", D1), ("Backlog", D1), ("Waiting", D2), ("Inbox", D3)]):
    MOVE_BASE = cap(MOVE_BASE, _day, f"c{_i}")
    if _section != "Inbox":
        MOVE_BASE = hand_move(MOVE_BASE, f"c{_i}", _section)
CARDS = [f"c{i}" for i in range(6)]
CARD_STEP = st.one_of(
    st.tuples(st.just("capture"), st.sampled_from(DAYS)),
    st.tuples(st.just("promote"), st.sampled_from(CARDS)),
    st.tuples(st.just("demote"), st.sampled_from(CARDS)),
    st.tuples(st.just("move"), st.sampled_from(CARDS), st.sampled_from(_board.SECTIONS)),
    st.tuples(st.just("done"), st.sampled_from(CARDS)),
    st.tuples(st.just("edit"), st.sampled_from(CARDS)),
)


def play_cards(text: str, steps, side: str) -> str:
    made = 0
    moved = set()
    for step in steps:
        if step[0] in ("promote", "demote", "move"):
            moved.add(step[1])
        verb, arg = step[0], step[1]
        live = tokens_of(text)
        if verb == "capture":
            made += 1
            text = cap(text, arg, f"{side}{made}")
        elif not live[arg]:
            continue  # done earlier on this side
        elif verb in ("promote", "demote"):
            try:
                text = (be.promote if verb == "promote" else be.demote)(text, arg).after
            except be.Refused:
                pass
        elif verb == "move":
            if next(r for r in _board.parse(text).rows if arg in r.text.split()).section != step[2]:
                text = hand_move(text, arg, step[2])  # (a card moved within its section: see the reorder test)
        elif verb == "done":
            text = delete_card(text, arg)
        else:
            text = edit_card(text, arg, f"[{side}]")
    home, now = sections_of(MOVE_BASE), sections_of(text)
    # Known limit (cardmoves): a card moved back into its own section (a reorder) is seen through
    # difflib's alignment, which may call its neighbours the moved ones; reorders are left out here
    # (test_a_reorder_against_a_promote_takes_the_promote covers the plain case).
    assume(not any(now.get(t) == home[t] for t in moved))
    return text


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CARD_STEP, max_size=6), st.lists(CARD_STEP, max_size=6))
def test_random_moves_promotes_dones_and_edits_leave_each_card_once_or_a_conflict(mine, yours) -> None:
    base = MOVE_BASE
    a, b = play_cards(base, mine, "a"), play_cards(base, yours, "b")
    r, swapped = fm.merge(base, a, b, "board.md"), fm.merge(base, b, a, "board.md")
    assert isinstance(r, fm.Result) and isinstance(swapped, fm.Result)
    assert r.conflicts == swapped.conflicts
    # A<-B and B<-A: the same text, the two sides of each conflict swapped
    assert resolve(r.text, 0) == resolve(swapped.text, 1) and resolve(r.text, 1) == resolve(swapped.text, 0)
    ta, tb, to = tokens_of(a), tokens_of(b), tokens_of(base)
    if r.conflicts == 0:
        got = tokens_of(r.text)
        for token in set(ta) | set(tb) | set(to):
            gone = to[token] and (not ta[token] or not tb[token])
            assert got[token] == (0 if gone else 1), (token, r.text)
        parsed = _board.parse(r.text)
        assert findings(r.text) <= findings(a) | findings(b)  # no grammar finding neither side had
        if all(_board.parse(x).declared == _board.parse(x).count("In flight") for x in (a, b)):
            assert parsed.declared == parsed.count("In flight")
    else:
        # taking one side of every hunk leaves every card where that side had it, once
        for side, want in ((0, ta), (1, tb)):
            got = tokens_of(resolve(r.text, side))
            assert all(n <= 1 for n in got.values()), (side, r.text)
            for token in want:
                assert got[token] == 1 or to[token], (token, side, r.text)  # nothing a side added is lost


def test_a_card_promoted_on_one_side_and_moved_to_waiting_on_the_other_is_one_conflict_over_that_card() -> None:
    a = be.promote(MOVE_BASE, "c0").after
    b = hand_move(MOVE_BASE, "c0", "Waiting")
    r = fm.merge(MOVE_BASE, a, b, "board.md")
    assert isinstance(r, fm.Result) and r.conflicts == 2  # one hunk where each side put it
    assert tokens_of(resolve(r.text, 0))["c0"] == 1 and tokens_of(resolve(r.text, 1))["c0"] == 1
    p0, p1 = _board.parse(resolve(r.text, 0)), _board.parse(resolve(r.text, 1))
    assert [x.section for x in p0.rows if "c0" in x.text] == ["In flight"]
    assert [x.section for x in p1.rows if "c0" in x.text] == ["Waiting"]
    lines_ = r.text.splitlines()
    assert lines_.count("- 2026-11-30 — c0") == 2  # only inside the two hunks
    assert "- 2026-12-01 — c1" in lines_ and "<<<<<<< ours" in lines_


def test_a_move_against_a_card_left_in_place_takes_the_move_and_the_same_move_twice_lands_once() -> None:
    a = be.promote(MOVE_BASE, "c0").after
    b = cap(MOVE_BASE, D3, "new")
    merged = clean(MOVE_BASE, a, b, "board.md")
    assert [x.section for x in _board.parse(merged).rows if "c0" in x.text] == ["In flight"]
    both = be.promote(be.promote(MOVE_BASE, "c2").after, "c0").after
    merged = clean(MOVE_BASE, a, both, "board.md")
    assert tokens_of(merged)["c0"] == 1 and _board.parse(merged).declared == 2


def test_a_card_moved_on_one_side_and_reworded_on_the_other_moves_with_the_new_words() -> None:
    a = be.promote(MOVE_BASE, "c0").after
    b = edit_card(MOVE_BASE, "c0", "(the lease)")
    merged = clean(MOVE_BASE, a, b, "board.md")
    assert [(x.section, x.text) for x in _board.parse(merged).rows if "c0" in x.text] == [
        ("In flight", "- 2026-11-30 — c0 (the lease)")]
    assert merged == clean(MOVE_BASE, b, a, "board.md")


def test_a_card_done_on_one_side_and_moved_or_edited_on_the_other_is_a_conflict() -> None:
    done = delete_card(MOVE_BASE, "c0")
    for other in (be.promote(MOVE_BASE, "c0").after, edit_card(MOVE_BASE, "c0", "later")):
        r = fm.merge(MOVE_BASE, done, other, "board.md")
        assert isinstance(r, fm.Result) and r.conflicts == 1
        assert tokens_of(resolve(r.text, 0))["c0"] == 0 and tokens_of(resolve(r.text, 1))["c0"] == 1


def test_a_reorder_against_a_promote_takes_the_promote() -> None:
    a = be.promote(MOVE_BASE, "c1").after
    b = hand_move(hand_move(MOVE_BASE, "c1", "Backlog"), "c1", "Inbox")  # to the bottom of the Inbox
    for x, y in ((a, b), (b, a)):
        merged = clean(MOVE_BASE, x, y, "board.md")
        assert [r.section for r in _board.parse(merged).rows if "c1" in r.text.split()] == ["In flight"]


def test_a_file_both_sides_added_with_different_line_endings_merges_to_the_same_bytes_either_way() -> None:
    day = be.journal_entry_text(D2)
    a = ("\ufeff" + day + "\nFrom windows.\n").replace("\n", "\r\n")
    b = day + "\nFrom linux."  # no final newline
    merged = clean("", a, b, ".okf/journal/2026-12-01.md")
    assert merged == clean("", b, a, ".okf/journal/2026-12-01.md")
    assert "\r" not in merged and not merged.startswith("\ufeff") and merged.endswith("\n")
    assert "From windows." in merged and "From linux." in merged
    # with a base, a side that changed the endings still wins, in either order
    base = cap(BOARD, D1, "x")
    crlf = base.replace("\n", "\r\n")
    assert clean(base, crlf, cap(base, D2, "y"), "board.md") == clean(base, cap(base, D2, "y"), crlf, "board.md")
