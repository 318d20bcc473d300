"""Where :mod:`okfpro.core.rx` finds its pattern recipes, and where new ones are kept.

One file per interpreter build and command path (:func:`kind_of`) in the user's cache directory
(``$XDG_CACHE_HOME/okfpro/rx-<build>-<path>.bin``): a header, a BLAKE2b digest of the payload,
then the payload, a marshalled ``(build, {(pattern, flags): recipe})``.  The build names the interpreter
(``sys.version``, ``_sre.MAGIC``, ``_sre.CODESIZE``): a recipe is ``_sre``'s code for one
interpreter build and another never reads it.  The file is read only when it is a regular file
of this user that nobody else may write, and whole; anything else reads as no recipes, and the
patterns are compiled by :mod:`re` as they would be without this module.

Only readers use it (:data:`READERS`, :data:`CLI_READERS`: the session banner, the prompt hook's
recall, ``memory recall``, the read-only verbs).  The file is as writable as anything of this
user, an agent's shell included, and the digest only says it is whole: a forged file with a
valid digest builds, under a guard's own pattern, a pattern that matches something else.  So no
gate or guard builds a pattern from it — PreToolUse, the Stop gate, post-edit, every memory
write and its redaction, ``audit``, ``records``, ``validate``, ``lint``, the merge driver: each
compiles with :mod:`re` (``tests/test_forged_cache.py``).

:func:`load` runs first thing in every reader's process (``okfpro.__main__.main``).  At exit, a
process that compiled a literal pattern with :mod:`re` adds its recipe (derived and checked by
:func:`okfpro.core.rx.recipe`) and rewrites the file atomically; the next process builds every
pattern from it.  A cache that cannot be written is left alone: nothing is said, nothing breaks.
"""

from __future__ import annotations

import os

from okfpro.core import rx

LIMIT = 2048  # recipes kept: okfpro's literal patterns are a few hundred; a bound, not a budget
MAX_BYTES = 8 << 20  # a larger file is not ours: not read
_HEADER = b"okfpro-rx 2\n"
_DIGEST = 16  # bytes of BLAKE2b (the interpreter's own, already loaded: zlib's crc32 is a library to load)


def seal(payload: bytes) -> bytes:
    """The file's bytes for ``payload``: the header, its digest, the payload."""
    from hashlib import blake2b

    return _HEADER + blake2b(payload, digest_size=_DIGEST).digest() + payload


def unseal(data: bytes) -> bytes | None:
    """The payload of a whole file of this format, or None."""
    from hashlib import blake2b

    head = len(_HEADER) + _DIGEST
    if data[:len(_HEADER)] != _HEADER or len(data) < head:
        return None
    payload = data[head:]
    return payload if blake2b(payload, digest_size=_DIGEST).digest() == data[len(_HEADER):head] else None


def _build() -> str:
    import sys

    import _sre

    return f"{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}"


# the per-event paths whose answers no gate or guard rests on, and the verbs that only read
READERS = ("hook-session-start", "hook-user-prompt-submit", "memory-recall")
CLI_READERS = ("search", "read", "render", "state", "types", "dirs", "loose", "registry", "eval", "unverified")


def kind_of(args: list[str]) -> str | None:
    """Which file a command line's recipes live in: one per reading hook event and memory verb (the
    per-event paths), one for the read-only verbs; None for every other command line (a gate, a
    guard or a writer: no recipes).  A process reads only its own path's recipes, so what it reads
    stays what that path compiles, whatever other verbs have run."""
    if len(args) > 1 and args[0] in ("hook", "memory"):
        kind = f"{args[0]}-{args[1]}"
        return kind if kind in READERS else None
    return "cli" if args and args[0] in CLI_READERS else None


def path(kind: str = "cli") -> str:
    from hashlib import sha256
    from okfpro.io.cachedir import user_cache_dir

    tag = sha256(_build().encode()).hexdigest()[:16]
    return os.path.join(user_cache_dir(), f"rx-{tag}-{kind}.bin")


def read(where: str) -> dict:
    """The recipes in ``where``: empty if missing, foreign, not ours alone, torn or damaged."""
    import marshal

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
    payload = unseal(data)
    if payload is None:
        return {}
    try:
        build, recipes = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return {}
    if build != _build() or not isinstance(recipes, dict):
        return {}
    return recipes


_loaded: list[str] = []  # the file this process read (once: in-process callers run main() many times)


def load(kind: str = "cli") -> None:
    """Give :mod:`okfpro.core.rx` the recipes of ``kind`` (:func:`kind_of`) on disk, and keep new
    ones at exit.  Once a process: a caller running ``main()`` again keeps the first file."""
    if _loaded:
        return
    import atexit

    try:
        where = path(kind)
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
        atomic_write(where, seal(payload), mode=0o600)
    except Exception:  # noqa: BLE001 - a cache that cannot be written is not kept: nothing else changes
        return
