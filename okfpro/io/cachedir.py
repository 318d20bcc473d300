"""Where okfpro's caches live, and the fingerprint of the code that wrote them.

Apart from :mod:`okfpro.io.cache` (which re-exports these names) so that a process that only checks
whether a cache is fresh — the prompt hook asking the bundle's FTS5 index (:func:`okfpro.io.fts.answer_fresh`)
— loads neither the parse cache's codec nor the parsing code it fingerprints.
"""

from __future__ import annotations

import os
from pathlib import Path

from okfpro.core.digest import sha256


def cache_dir(bundle_root: str | os.PathLike) -> Path:
    """Where the caches of a bundle live — never inside a tree okfpro was only asked to read.

    Inside the okfpro workspace you are working in (the bundle's workspace holds
    ``okfpro.toml``, as ``okfpro init`` writes it, and encloses the working directory):
    ``<workspace>/.tmp/okfpro-cache`` (ignored by the workspace's ``.gitignore``).  Any
    other directory — a bundle someone else owns, a plain folder, a checkout, and another
    okfpro workspace reached by path or ``@slug`` (search across registered bundles, recall
    drawing on them): the user's cache directory, ``$XDG_CACHE_HOME/okfpro`` (default
    ``~/.cache/okfpro``); the file names there carry a hash of the bundle's real path.
    """
    from okfpro.io.config import CONFIG_NAME
    from okfpro.io.roots import repo_of

    workspace = Path(repo_of(os.path.abspath(bundle_root)))
    if (workspace / CONFIG_NAME).is_file() and _encloses_cwd(workspace):
        return workspace / ".tmp" / "okfpro-cache"
    return user_cache_dir()


def _encloses_cwd(workspace: Path) -> bool:
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was deleted
        return False
    top = os.path.realpath(workspace)
    from okfpro.io.roots import within

    return within(here, top)


def path_key(path: str | os.PathLike) -> str:
    """The short name a cache file carries for ``path``: a digest of its real path (16 hex)."""
    real = os.path.realpath(os.fspath(path))
    return sha256(real.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "okfpro"


# The parse cache's records hold what okfpro's own parsing code produced: a cache written by other
# code (an upgrade, an edited checkout) is foreign.  Fingerprint those sources.
PARSE_CODE = ("core/concept.py", "core/yamlsafe.py", "core/yamlfast.py", "core/links.py", "io/reader.py", "io/cache.py")


def code_stamp(files: tuple[str, ...] = PARSE_CODE) -> str:
    """A fingerprint of okfpro's own source files named (relative to the package)."""
    base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for rel in files:
        try:
            st = os.stat(os.path.join(base, rel))
            parts.append(f"{rel}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{rel}:-")
    return sha256("|".join(parts).encode()).hexdigest()[:16]
