"""Where okfpro's caches live, and the fingerprint of the code that wrote them.

Apart from :mod:`okfpro.io.cache` (which re-exports these names) so that a process that only checks
whether a cache is fresh — the prompt hook asking the bundle's FTS5 index (:func:`okfpro.io.fts.answer_fresh`)
— loads neither the parse cache's codec nor the parsing code it fingerprints.
"""

from __future__ import annotations

import os

from hashlib import sha256


def cache_dir(bundle_root: str | os.PathLike) -> str:
    """Where the caches of a bundle live — never inside a tree okfpro was only asked to read.

    Inside the okfpro workspace you are working in (the bundle's workspace holds
    ``okfpro.toml``, as ``okfpro init`` writes it, and encloses the working directory):
    ``<workspace>/.tmp/okfpro-cache`` (ignored by the workspace's ``.gitignore``).  Any
    other directory — a bundle someone else owns, a plain folder, a checkout, and another
    okfpro workspace reached by path or ``@slug`` (search across registered bundles, recall
    drawing on them): the user's cache directory, ``$XDG_CACHE_HOME/okfpro`` (default
    ``~/.cache/okfpro``); the file names there carry a hash of the bundle's real path.
    A path string: the prompt hook asks for it, and imports no ``pathlib``.
    """
    from okfpro.io.config import CONFIG_NAME
    from okfpro.io.roots import repo_of

    workspace = repo_of(os.path.abspath(bundle_root))
    if os.path.isfile(os.path.join(workspace, CONFIG_NAME)) and _encloses_cwd(workspace):
        return os.path.join(workspace, ".tmp", "okfpro-cache")
    return user_cache_dir()


def _encloses_cwd(workspace: str) -> bool:
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


def user_cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "okfpro")


# The parse cache's records hold what okfpro's own parsing code produced: a cache written by other
# code (an upgrade, an edited checkout) is foreign.  Fingerprint those sources.
PARSE_CODE = ("core/concept.py", "core/yamlsafe.py", "core/yamlfast.py", "core/links.py", "io/reader.py", "io/cache.py")


def code_stamp(files: tuple[str, ...] = PARSE_CODE) -> str:
    """A fingerprint of okfpro's own source files named (relative to the package).

    An installed file is named by the digest its install recorded (the ``RECORD`` of
    okfpro's ``.dist-info``), so reinstalling or upgrading okfpro with these files unchanged
    keeps every cache built with them (a rebuild at 50,000 concepts is about a minute).  A
    file changed after the install (newer than ``RECORD``, or of another size), and any
    file of a source tree or an editable install (no ``RECORD`` beside the package), is
    named by the same digest of its content (:func:`_content_digest`)."""
    base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    record = _install_record(base)
    parts = []
    for rel in files:
        try:
            st = os.stat(os.path.join(base, rel))
        except OSError:
            parts.append(f"{rel}:-")
            continue
        recorded = _recorded(record, rel, st) if record is not None else None
        parts.append(f"{rel}:{st.st_size}:{recorded or _content_digest(os.path.join(base, rel), st)}")
    return sha256("|".join(parts).encode()).hexdigest()[:16]


_DIGESTS: dict[tuple[str, int, int, int, int], str] = {}  # (path, identity) -> digest, once a process


def _content_digest(path: str, st: os.stat_result) -> str:
    """``path``'s digest as an install's ``RECORD`` writes it (``sha256=`` and the unpadded URL-safe
    base64 of its SHA-256): a source tree, an editable install or a file edited after the install
    is named by its content, so the same code gives the same stamp however it is installed (an
    editable checkout beside an installed copy rebuilt each other's caches on every switch); its
    mtime when it cannot be read."""
    key = (path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    got = _DIGESTS.get(key)
    if got is None:
        from binascii import b2a_base64

        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return str(st.st_mtime_ns)
        got = _DIGESTS[key] = "sha256=" + b2a_base64(sha256(data).digest(), newline=False).decode(
            "ascii").translate(_URL_SAFE).rstrip("=")
    return got


_URL_SAFE = str.maketrans("+/", "-_")


_RECORD: dict[str, tuple[bytes, int] | None] = {}  # package directory -> (RECORD's bytes, its mtime), once a process


def _install_record(base: str) -> tuple[bytes, int] | None:
    """The ``RECORD`` of the install holding the package at ``base`` and its mtime, or None."""
    if base not in _RECORD:
        from okfpro import __version__

        path = os.path.join(os.path.dirname(base), f"okfpro-{__version__}.dist-info", "RECORD")
        try:
            with open(path, "rb") as handle:
                _RECORD[base] = (b"\n" + handle.read(1 << 20), os.fstat(handle.fileno()).st_mtime_ns)
        except OSError:
            _RECORD[base] = None
    return _RECORD[base]


def _recorded(record: tuple[bytes, int], rel: str, st: os.stat_result) -> str | None:
    """``rel``'s digest as the install recorded it, when the file is still what was installed
    (its size, and no newer than ``RECORD``, which the installer writes last); else None."""
    data, written = record
    key = b"\nokfpro/" + rel.encode() + b","
    at = data.find(key)
    if at < 0 or st.st_mtime_ns > written:
        return None
    start = at + len(key)
    end = data.find(b"\n", start)
    digest, _, size = (data[start:] if end < 0 else data[start:end]).rstrip(b"\r").partition(b",")
    if not digest.startswith(b"sha256=") or size != str(st.st_size).encode():
        return None
    return digest.decode("ascii", "replace")


def cache_enabled(requested: bool = True) -> bool:
    """May this process use okfpro's caches (``OKFPRO_NO_CACHE`` unset, and ``requested``)?"""
    return requested and os.environ.get("OKFPRO_NO_CACHE", "") not in ("1", "true", "yes")
