"""The pure merge of day files (okfpro/core/daymerge.py): commutative, idempotent, loses nothing."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from hypothesis import given, settings
from tests.helpers import examples
from hypothesis import strategies as st

from okfpro.core.daymerge import MergeConflict, merge_day, merge_files, parse_day
from okfpro.core.dayfile import frontmatter, render_section

DAY = "2026-12-01"


def day_file(chunks: list[str], created: int = 0) -> bytes:
    head = frontmatter(DAY, dt.datetime(2026, 12, 1, 0, 0, created, tzinfo=dt.timezone.utc), "okfpro/test")
    return (head + "\n" + "\n".join(chunks)).encode() if chunks else head.encode()


def section(sec: int, text: str) -> str:
    return render_section(text, dt.datetime(2026, 12, 1, 9, 0, 0, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=sec))


def chunks_of(raw: bytes | None) -> list[str]:
    return parse_day(raw)[1] if raw is not None else []


texts = st.sampled_from(["we ship on Fridays", "alpha", "beta\nsecond line", "x", "---\nmemory: m-0\n---\nrec"])
sections_ = st.builds(section, st.integers(0, 5), texts)
sides = st.tuples(
    st.lists(sections_, max_size=6),  # base
    st.lists(sections_, max_size=6),  # ours adds
    st.lists(sections_, max_size=6),  # theirs adds
    st.booleans(),  # ours forgot the base first
    st.integers(0, 3),  # ours created its day at another second
)


def build(case):
    base, add_o, add_t, forgot, created = case
    b = day_file(base) if base else None
    o_chunks = ([] if forgot else base) + add_o
    o = day_file(o_chunks, created if (forgot or not base) else 0) if o_chunks else None
    t = day_file(base + add_t) if base + add_t else None
    return b, o, t, base, add_o, add_t, forgot


@settings(max_examples=examples(400), deadline=None)
@given(sides)
def test_merge_is_commutative_and_idempotent_and_loses_nothing(case) -> None:
    b, o, t, base, add_o, add_t, forgot = build(case)
    m = merge_day(b, o, t)
    assert m == merge_day(b, t, o)  # either sync order: the same bytes
    assert merge_day(o, m, o) == m and merge_day(t, m, t) == m  # syncing again changes nothing
    got = Counter(chunks_of(m))
    # every section either side added since the base is there, as often as that side has it
    for added in (add_o, add_t):
        for chunk, n in Counter(added).items():
            assert got[chunk] >= n, (chunk, got)
    if not forgot:  # nothing was removed: the base is kept whole
        for chunk, n in Counter(base).items():
            assert got[chunk] >= n
        assert got == Counter(chunks_of(o)) | Counter(chunks_of(t))
    else:  # what the forget saw stays gone, unless a side wrote it again
        for chunk in set(base) - set(add_o) - set(add_t):
            assert got[chunk] == 0
    if m is not None:  # the result is a canonical day file again, and keeps the shared prefix
        assert parse_day(m)
        assert chunks_of(m)[: len(base) if not forgot else 0] == (base if not forgot else [])


def test_concurrent_appends_keep_both_and_sort_after_the_shared_part() -> None:
    base = [section(0, "first")]
    ours = day_file(base + [section(3, "ours late")])
    theirs = day_file(base + [section(2, "theirs early"), section(4, "theirs later")])
    merged = merge_day(day_file(base), ours, theirs)
    assert [c.split("\n")[2] for c in chunks_of(merged)] == ["> first", "> theirs early", "> ours late",
                                                               "> theirs later"]


def test_same_entry_written_on_both_sides_is_one_entry() -> None:
    entry = section(1, "we ship on Fridays")
    assert chunks_of(merge_day(None, day_file([entry]), day_file([entry], created=2))) == [entry]


def test_hand_edited_file_is_not_merged_by_dropping_text() -> None:
    edited = day_file([section(1, "a")]).replace(b"---\n\n## ", b"---\nsome hand-written note\n\n## ")
    with pytest.raises(MergeConflict, match="outside its entry sections"):
        merge_day(None, edited, day_file([section(2, "b")]))
    # ... but taken as it is when the other side did not change it
    assert merge_day(day_file([section(1, "a")]), edited, day_file([section(1, "a")])) == edited


def test_merge_files_other_names_and_deletions() -> None:
    one = {f"{DAY}.md": day_file([section(1, "a")])}
    assert merge_files(one, {}, one) == {}  # a forget on one side, nothing new on the other
    assert merge_files({}, {"notes.txt": b"x"}, {}) == {"notes.txt": b"x"}
    with pytest.raises(MergeConflict):
        merge_files({}, {"notes.txt": b"x"}, {"notes.txt": b"y"})
