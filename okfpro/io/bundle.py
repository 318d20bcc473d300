"""The one door every verb and hook uses to get a parsed bundle.

``load(root)`` returns a :class:`okfpro.core.concept.Bundle`.  It goes through the
persistent parse cache (``okfpro.io.cache``) when that is available; the cache is
never the source of truth — deleting it changes no answer.  ``OKFPRO_NO_CACHE=1``
turns the cache off (benchmarks use it to measure cold runs).

A gate (``audit``, ``validate``, ``lint``) reads with ``cache=False``: the parse cache lies
where the agent can write it, keyed by each file's identity, so a forged one could claim any
parse for any file, and a parse can be proved only by parsing (``tests/test_forged_cache.py``).
"""

from __future__ import annotations

import os

from okfpro.io.cachedir import cache_enabled  # noqa: F401  (the readers ask it here)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from okfpro.core.concept import Bundle


def load(root: str | os.PathLike, *, cache: bool = True) -> Bundle:
    if cache_enabled(cache):
        from okfpro.io.cache import load_bundle

        return load_bundle(root)
    from okfpro.io.reader import read_bundle

    return read_bundle(root)
