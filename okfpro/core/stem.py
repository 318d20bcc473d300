"""English stemming for memory recall: Snowball (PyStemmer), applied to plain words only.

A memory is written the way a conversation goes ("we deployed", "the deployment") and
asked about the way a question goes ("when do we deploy?").  The ranked engine's prefix
match catches a query word that starts the stored one, never the reverse; the Snowball
English stemmer maps both to one stem.  Identifiers, numbers and joined tokens
(``customer_id``, ``7.2.0``, ``okf-pro``) are left whole.  Pure; PyStemmer is a C
extension (~0.5 µs a word), absent it the words are left unstemmed.
"""

from __future__ import annotations

from typing import Sequence

from okfpro.core import search as _search

try:  # pragma: no cover - exercised by whichever is installed
    import Stemmer as _stemmer_mod

    _STEMMER = _stemmer_mod.Stemmer("english")
except ImportError:  # pragma: no cover
    _STEMMER = None


def stem(token: str) -> str:
    if _STEMMER is None or not token.isalpha():
        return token
    return str(_STEMMER.stemWord(token))


def terms(text: str) -> list[str]:
    """The text's search tokens (:func:`okfpro.core.search.tokenize`), stemmed."""
    return [stem(t) for t in _search.tokenize(text)]


def query_terms(query: str | Sequence[str]) -> list[str]:
    """The query's tokens (:func:`okfpro.core.search.query_tokens`), stemmed, distinct, in
    order — a fixed point of ``query_tokens``, so the ranked engine reads them unchanged."""
    return _search.query_tokens([stem(t) for t in _search.query_tokens(query)])


def bundle_query_terms(query: str | Sequence[str]) -> list[str]:
    """:func:`query_terms` plus the stemmed parts of each joined token (``tenant_id`` also asks
    for ``tenant`` and ``id``), as the documents' tokens carry them: a question naming an
    identifier also finds the note titled with its words.  Bundle search (measured with
    ``bench/eval_search.py``); memory recall keeps :func:`query_terms`."""
    toks = query_terms(query)
    parts = [stem(p) for t in toks if not t.isalnum() for p in _search._PARTS.findall(t)]
    return _search.query_tokens(toks + parts) if parts else toks
