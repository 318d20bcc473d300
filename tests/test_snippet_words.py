"""okfpro.core.bm25.WordStart: a snippet token's pattern, found at a word start.

The ranked engine's snippet looks for each query token at a word start, case-insensitively,
``_`` standing for a run of blanks or punctuation: ``(?<!\\w)`` + the escaped token with each
``_`` as ``[_\\W]+``, compiled with IGNORECASE.
"""

from __future__ import annotations

from okfpro.core.bm25 import WordStart


def test_the_pattern_text_is_the_expressions():
    assert WordStart("ledger_cache").pattern == r"(?<!\w)ledger[_\W]+cache"
    assert WordStart("v1.2").pattern == r"(?<!\w)v1\.2"


def test_a_token_is_found_at_a_word_start_across_separators():
    found = WordStart("ab_c").search("xab_c ab__-c")
    assert found is not None and found.span() == (6, 12)
    assert WordStart("ab").search("x_ab") is None  # "_" is a word character: no word start there
    assert WordStart("k").search("\u212a").span() == (0, 1)  # KELVIN SIGN folds to k
