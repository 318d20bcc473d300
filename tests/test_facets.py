"""Rule-built facets (okfpro/core/facets.py) fed hostile text: huge numbers, mixed scripts, control
characters, endless input -- never an error, never more than the bounded head read, and only what
the title says before its colon."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from okfpro.core import facets
from okfpro.core.bm25 import stemmed_query
from tests.helpers import examples


def test_a_turn_names_its_speaker():
    assert facets.speaker("Ben: I ran the race.") == ("Ben",)
    assert facets.speaker("Duke Vincentio: Good morrow.") == ("Duke", "Vincentio")
    assert facets.speaker("Ζωή: γεια σου") == ("Ζωή",)  # any script's upper case
    assert facets.speaker("O'Brien: hi") == ("O'Brien",)
    assert facets.speaker_terms("Duke Vincentio: Good morrow.") == ["@s:duke", "@s:vincentio"]
    assert facets.speaker_terms("O'Brien: hi") == ["@s:o", "@s:brien"]
    assert facets.speaker_terms("Mary-Jane: hi") == ["@s:mary-jane", "@s:mari", "@s:jane"]


def test_what_is_not_a_speaker():
    for title in ("ben: lower case", "Ben said: no", "Ben:no blank", "12: numbers", "A B C D E: five words",
                  "Ben\x00: control", "Ben\t: tab", ": nothing", "", "Ben", "Ben 2: digit",
                  "X" * 41 + ": too long a word", "Ben\u202e: a bidi control", "Ben : blank before"):
        assert facets.speaker(title) == (), title
        assert facets.speaker_terms(title) == [], title


def test_endless_and_huge_input_costs_only_the_head():
    huge = "Ben: " + "9" * 5_000_000  # a huge number after the colon
    start = time.perf_counter()
    assert facets.speaker(huge) == ("Ben",)
    assert facets.speaker("B" * 10_000_000 + ": x") == ()
    assert facets.speaker("Ben " * 3_000_000 + ": x") == ()
    assert time.perf_counter() - start < 0.5


@settings(max_examples=examples(400), deadline=None)
@given(st.text(min_size=0, max_size=400))
def test_any_text_reads_as_words_of_its_head(text):
    words = facets.speaker(text)
    if words:
        head = " ".join(words)
        assert text.startswith(head + ":")
        assert len(words) <= facets.MAX_WORDS
        assert all(w[0].isupper() and len(w) <= facets.MAX_WORD for w in words)
        assert not any(ch.isspace() or not ch.isprintable() for w in words for ch in w)
    for term in facets.speaker_terms(text):
        assert term.startswith(facets.SPEAKER_TAG) and len(term) > len(facets.SPEAKER_TAG)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(alphabet=st.characters(categories=("Lu", "Ll", "Lt", "Lo")), min_size=1, max_size=12),
                min_size=1, max_size=4), st.text(max_size=50))
def test_a_speaker_is_found_by_the_query_spelling_the_name(names, rest):
    names = [n[0].upper() + n[1:] for n in names]
    if not all(n[0].isupper() and n.isalpha() for n in names):
        return
    terms = facets.speaker_terms(" ".join(names) + ": " + rest)
    assert terms, names
    # a question spelling the name (any case) asks for these terms
    asked = set(facets.asked_speakers(stemmed_query(" ".join(names))))
    assert asked & set(terms) or not asked  # a name made of stop words alone is not asked for
