"""A month named with its year in a recall query becomes the ``YYYY-MM`` term the entries' dates
match (okfpro/core/querytime.py), and only such a month: every other spelling is left alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okfpro.core.querytime import MONTHS, month_terms


@pytest.mark.parametrize(
    ("query", "rest", "terms"),
    [
        ("what happened in June 2024?", "what happened in  ?", ["2024-06"]),
        ("illness update kira give during june 2024", "illness update kira give during  ", ["2024-06"]),
        ("Sept. 2025", " ", ["2025-09"]),
        ("sep 2025, SEPTEMBER 2025 and september of 2025", " ,   and  ", ["2025-09"]),  # each term once
        ("from december of 2023 to jan 2024", "from   to  ", ["2023-12", "2024-01"]),  # in the query's order
        ("May\t2026 or may\n2026", "  or  ", ["2026-05"]),
    ],
)
def test_a_month_and_its_year_become_a_date_prefix(query, rest, terms):
    assert month_terms(query) == (rest, terms)


@pytest.mark.parametrize(
    "query",
    [
        "what did we decide in may",  # a month without a year: no one span of days
        "she may 20 times",  # not a year
        "june 20245",  # five digits
        "june 1899 and june 2200",  # out of the range a memory is written in
        "mayday 2024",  # a word that begins with a month
        "honeymay 2024",  # one that ends with one
        "june2024",  # joined
        "jun-2024 and 2024-june",  # hyphenated: one token of the engine's, left to it
        "ju\u0578e 2024",  # a look-alike letter (Armenian)
        "",
    ],
)
def test_anything_else_is_left_as_it_is(query):
    assert month_terms(query) == (query, [])


def test_every_spelling_of_every_month():
    for name, number in MONTHS.items():
        assert month_terms(f"{name} 2030")[1] == [f"2030-{number:02d}"]
        assert month_terms(f"{name.upper()}. of 2030")[1] == [f"2030-{number:02d}"]
    assert sorted(set(MONTHS.values())) == list(range(1, 13))


def reference(words: list[str]) -> list[str]:
    """The month terms of space-joined ``words``, read left to right as the pattern reads."""
    out, i = [], 0
    while i < len(words):
        month = MONTHS.get(words[i].casefold())
        gap = 2 if i + 2 < len(words) and words[i + 1] == "of" else 1
        if month and i + gap < len(words) and words[i + gap] in ("2024", "1999"):
            term = f"{words[i + gap]}-{month:02d}"
            out += [term] if term not in out else []
            i += gap + 1
        else:
            i += 1
    return out


@given(st.lists(st.sampled_from(["may", "June", "of", "2024", "1999", "20", "x", "may-", "2024x"]), max_size=40))
def test_the_terms_are_the_months_the_words_name_in_order(words):
    rest, terms = month_terms(" ".join(words))
    assert terms == reference(words)
    assert (rest == " ".join(words)) == (not terms)  # the words of a month found are taken out


def test_a_long_query_is_read_whole():
    query = "nothing here " * 50_000 + "in March 2027"
    rest, terms = month_terms(query)
    assert terms == ["2027-03"] and rest.startswith("nothing here nothing") and "March" not in rest


def test_the_prompt_hooks_query_keeps_every_month_it_names():
    """The hook's query (query_of: a prompt's distinct content words) names each month first, as
    its term: two months of one year keep both (the year is one word, kept once), and a long
    prompt's cap on words never drops them."""
    from okfpro.memory.recall import MAX_QUERY_TERMS, query_of

    assert query_of("what happened in May 2024 and June 2024") == "2024-05 2024-06 happened"
    many = " ".join(f"topic{i}" for i in range(40))
    assert query_of(f"{many} in June 2024").split()[0] == "2024-06"
    assert len(query_of(f"{many} in June 2024").split()) == MAX_QUERY_TERMS
