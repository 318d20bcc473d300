"""English stemming for recall and bundle search: Snowball (PyStemmer), applied to plain words only.

A memory is written the way a conversation goes ("we deployed", "the deployment") and
asked about the way a question goes ("when do we deploy?").  The ranked engine's prefix
match catches a query word that starts the stored one, never the reverse; the Snowball
English stemmer maps both to one stem.  Identifiers, numbers and joined tokens
(``customer_id``, ``7.2.0``, ``okf-pro``) are left whole.  Pure; PyStemmer is a C
extension (~0.5 µs a word), absent it the words are left unstemmed.  The ranked engine
applies it to its tokens (:func:`okfpro.core.bm25.stemmed_terms` and friends).
"""

from __future__ import annotations

try:  # pragma: no cover - exercised by whichever is installed
    import Stemmer as _stemmer_mod

    _STEMMER = _stemmer_mod.Stemmer("english")
except ImportError:  # pragma: no cover
    _STEMMER = None


def stem(token: str) -> str:
    if _STEMMER is None or not token.isalpha():
        return token
    return str(_STEMMER.stemWord(token))
