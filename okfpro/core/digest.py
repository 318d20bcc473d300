"""SHA-256, SHA-1 and BLAKE2b for small inputs, without loading OpenSSL.

``import hashlib`` loads ``_hashlib`` and with it OpenSSL's libcrypto: ~11 M instructions
(callgrind; ``python -c pass`` is 38 M) in every fresh process that hashes anything — and
every memory call and capture does (scope keys, memory ids, placeholders, Git objects).  The
interpreter's own implementations (what ``hashlib`` itself falls back to) give the same digests
without it.  Use these for short inputs on the per-event paths; for bulk data (a bundle's files)
``hashlib``'s OpenSSL code is faster and stays the choice.  Where the built-in modules are
missing (a build without them) ``hashlib``'s constructors are used.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # the checker sees hashlib's constructors; the run time takes the built-in ones
    from hashlib import blake2b, sha1, sha256

# each constructor's built-in module is loaded on first use: a process that hashes with one loads
# one (each module is a shared library)
__all__ = ["blake2b", "sha1", "sha256"]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = _built_in(name)
    globals()[name] = found
    return found


def _built_in(name: str) -> object:
    """The interpreter's own constructor ``name``, else hashlib's (a build without it)."""
    if name == "sha256":
        try:
            from _sha2 import sha256 as new  # CPython 3.12+
            return new
        except ImportError:
            pass
        try:
            from _sha256 import sha256 as old  # CPython 3.11
            return old
        except ImportError:
            pass
    elif name == "sha1":
        try:
            from _sha1 import sha1
            return sha1
        except ImportError:
            pass
    else:
        try:
            from _blake2 import blake2b
            return blake2b
        except ImportError:
            pass
    import hashlib

    return getattr(hashlib, name)
