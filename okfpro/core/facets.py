"""Rule-built facets of a memory entry: who said it.  Pure.

A conversation turn is stored as ``"<Speaker>: <text>"`` (``memory import``, ``okfpro eval recall``),
and its title is that first line.  The question "What did Ben say about the race?" names the
speaker; as a word, ``ben`` is in every turn Ben said *and* every turn that speaks to him ("Good to
hear from you, Ben"), and in half of a two-person conversation's turns BM25's idf gives the name
(nearly) nothing.  :func:`speaker_terms` reads the speaker off the title -- one to four words, each
starting with an upper-case letter (any script), at most 40 characters each, then ``:`` and a blank
-- as index terms of their own (:data:`SPEAKER_TAG` + the stemmed, folded word), which no query
word can spell: a query term equal to a speaker word raises that speaker's turns
(:data:`okfpro.memory.ranking.SPEAKER`, measured in ``.okf/design/recall-quality.md``).

A title that only looks like a turn ("Decision: use Postgres") gets a facet too; it only ever adds
to a memory whose own words the query already matches.  The reading is bounded (the first
:data:`HEAD` characters of the title), so hostile titles (huge, control characters, mixed
scripts) cost nothing more than short ones.
"""

from __future__ import annotations

from okfpro.core.bm25 import tokenize
from okfpro.core.stem import stem

SPEAKER_TAG = "@s:"  # tokens start with a word character: no query token begins with "@"
MAX_WORDS = 4
MAX_WORD = 40
HEAD = MAX_WORDS * (MAX_WORD + 1) + 2  # the longest title prefix a speaker can take


def speaker(title: str) -> tuple[str, ...]:
    """The speaker's words as written (``("Duke", "Vincentio")``), or ``()`` when the title is not
    ``"<Name>: <text>"``."""
    head = title[:HEAD]
    colon = head.find(": ")
    if colon <= 0:
        if not head.endswith(":") or len(title) > HEAD:
            return ()
        colon = len(head) - 1
    words = head[:colon].split(" ")
    if len(words) > MAX_WORDS:
        return ()
    for word in words:
        if not 0 < len(word) <= MAX_WORD or not word[0].isupper() or not all(
                ch.isalpha() or ch in "'-." for ch in word):
            return ()
    return tuple(words)


def speaker_terms(title: str) -> list[str]:
    """The index terms of the title's speaker: :data:`SPEAKER_TAG` + each of its tokens, stemmed, as
    a query's words are (:func:`okfpro.core.bm25.tokenize`, :func:`okfpro.core.bm25.stemmed_query`:
    one folding, one tokenizer), each once."""
    words = speaker(title)
    return list(dict.fromkeys(SPEAKER_TAG + stem(t) for t in tokenize(" ".join(words)))) if words else []


def asked_speakers(terms: list[str]) -> list[str]:
    """The speaker terms a query's (stemmed) terms could name."""
    return [SPEAKER_TAG + t for t in terms]
