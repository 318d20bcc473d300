"""The one door every verb and hook uses to get a parsed bundle.

``load(root)`` returns a :class:`okfpro.core.concept.Bundle`.  It goes through the
persistent parse cache (``okfpro.io.cache``) when that is available; the cache is
never the source of truth — deleting it changes no answer.
"""

from __future__ import annotations

import os

from okfpro.core.concept import Bundle


def load(root: str | os.PathLike, *, cache: bool = True) -> Bundle:
    from okfpro.io.reader import read_bundle

    return read_bundle(root)
