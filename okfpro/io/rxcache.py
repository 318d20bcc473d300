"""Where :mod:`okfpro.core.rx` finds its pattern recipes, and where new ones are kept.

One file per interpreter build in the user's cache directory
(``$XDG_CACHE_HOME/okfpro/rx-<build>.bin``): a CRC-32 of the payload, then the payload, a
marshalled ``(build, {(pattern, flags): recipe})``.  The build names the interpreter
(``sys.version``, ``_sre.MAGIC``, ``_sre.CODESIZE``): a recipe is ``_sre``'s code for one
interpreter build and another never reads it.  The file is read only when it is a regular file
of this user that nobody else may write, and whole; anything else reads as no recipes, and the
patterns are compiled by :mod:`re` as they would be without this module.

:func:`load` runs first thing in every okfpro process (``okfpro.__main__.main``).  At exit, a
process that compiled a literal pattern with :mod:`re` adds its recipe (derived and checked by
:func:`okfpro.core.rx.recipe`) and rewrites the file atomically; the next process builds every
pattern from it.  A cache that cannot be written is left alone: nothing is said, nothing breaks.
"""

from __future__ import annotations

import os

from okfpro.core import rx

LIMIT = 2048  # recipes kept: okfpro's literal patterns are a few hundred; a bound, not a budget
MAX_BYTES = 8 << 20  # a larger file is not ours: not read
_HEADER = b"okfpro-rx 1\n"


def _build() -> str:
    import sys

    import _sre

    return f"{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}"


def path() -> str:
    from okfpro.core.digest import sha256
    from okfpro.io.cachedir import user_cache_dir

    tag = sha256(_build().encode()).hexdigest()[:16]
    return os.path.join(user_cache_dir(), f"rx-{tag}.bin")


def read(where: str) -> dict:
    """The recipes in ``where``: empty if missing, foreign, not ours alone, torn or damaged."""
    import marshal
    import zlib

    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000 and st.st_uid == os.getuid() and not st.st_mode & 0o022):
            return {}
        if st.st_size > MAX_BYTES:
            return {}
        data = b""
        while len(data) < st.st_size + 1:
            chunk = os.read(fd, st.st_size + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        return {}
    finally:
        os.close(fd)
    head = len(_HEADER)
    if data[:head] != _HEADER or len(data) < head + 4:
        return {}
    payload = data[head + 4:]
    if int.from_bytes(data[head:head + 4], "big") != zlib.crc32(payload):
        return {}
    try:
        build, recipes = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return {}
    if build != _build() or not isinstance(recipes, dict):
        return {}
    return recipes


_loaded: list[str] = []  # the file this process read (once: in-process callers run main() many times)


def load() -> None:
    """Give :mod:`okfpro.core.rx` the recipes on disk, and keep new ones at exit."""
    if _loaded:
        return
    import atexit

    try:
        where = path()
        rx.use(read(where))
    except Exception:  # noqa: BLE001 - a cache: without it the patterns compile as before
        return
    _loaded.append(where)
    atexit.register(save, where)


def save(where: str) -> None:
    """Add the recipes of the patterns this process compiled with :mod:`re` (at exit)."""
    new = rx.missed()
    if not new:
        return
    try:
        import marshal
        import zlib

        from okfpro.io.atomic import atomic_write

        recipes = rx.recipes()
        for key in new:
            got = rx.recipe(*key)
            if got is not None:
                recipes[key] = got
        if len(recipes) > LIMIT:  # start again from what this process used
            used = set(rx.used())
            recipes = {key: value for key, value in recipes.items() if key in used}
        payload = marshal.dumps((_build(), recipes))
        os.makedirs(os.path.dirname(where), mode=0o700, exist_ok=True)
        atomic_write(where, _HEADER + zlib.crc32(payload).to_bytes(4, "big") + payload, mode=0o600)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is not kept: nothing else changes
        return
