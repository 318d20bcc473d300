"""The scan word index kept on disk, so a new process (a restarted server, a CLI search) on a
large unchanged bundle loads it instead of building it (~4 s at 50,000 concepts).

* File: ``scan-<hash of root>.bin`` next to the parse cache (:func:`okfpro.io.cache.cache_dir`:
  the workspace's ``.tmp/okfpro-cache``, else the user's cache directory — never inside a
  tree okfpro was only asked to read).
* Reused only when the **file identities match**: the key is a digest of every concept's
  ``(path, size, mtime_ns, ctime_ns, inode)`` as the parse cache validated them in this
  reading (:mod:`okfpro.io.cache` records them on the Bundle), plus the index code's own
  fingerprint.  A concept the parse cache did not vouch for (a file written within the last
  two seconds, a symlink, the cache off) means no reuse and no store: the index is built in
  memory, as without this module.
* Format: ``marshal`` of plain values (dicts, lists, ints) behind a magic line and a CRC, like
  the parse cache (a hostile file cannot run code; a torn one is ignored).  Written to a
  private temp file and renamed; never the source of truth — deleting it changes no answer.
* Small bundles (under :data:`PERSIST_AT` concepts) build in well under a tenth of a second:
  they are not stored.
"""

from __future__ import annotations

import gc
from array import array
import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

from okfpro.core import search as _search

MAGIC = b"okfpro-scan-index\n"
VERSION = 1
PERSIST_AT = 2000


def store_path(root: str | os.PathLike) -> Path:
    from okfpro.io.cache import cache_dir

    real = os.path.realpath(os.fspath(root))
    return cache_dir(root) / f"scan-{hashlib.sha256(real.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}.bin"


def _code() -> str:
    base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = []
    for rel in ("core/scanindex.py", "core/search.py", "io/scanstore.py"):
        try:
            st = os.stat(os.path.join(base, rel))
            parts.append(f"{rel}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{rel}:-")
    return "|".join(parts)


def fingerprint(root: str | os.PathLike, bundle: Any) -> str | None:
    """Digest of the bundle's file identities (None when some concept's identity is unknown)."""
    stats = bundle.__dict__.get("_okfpro_stat")
    if stats is None:
        return None
    head = f"{VERSION}\0{os.path.realpath(os.fspath(root))}\0{_code()}\0{len(bundle.concepts)}\n"
    lines = [head]
    for path in sorted(c.path for c in bundle.concepts):
        key = stats.get(path)
        if key is None:
            return None
        lines.append(f"{path}\0{key[0]}\0{key[1]}\0{key[2]}\0{key[3]}\n")
    h = hashlib.sha256("".join(lines).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _read(path: Path, fp: str) -> dict[str, Any] | None:
    from okfpro.io.cache import read_framed

    body = read_framed(path, MAGIC)
    if body is None:
        return None
    was = gc.isenabled()
    gc.disable()  # a few hundred thousand acyclic objects: no collector passes meanwhile
    try:
        state = marshal.loads(body)
    except Exception:  # noqa: BLE001 - corrupt: no store
        return None
    finally:
        if was:
            gc.enable()
    if not isinstance(state, dict) or state.get("fp") != fp or not isinstance(state.get("paths"), list) \
            or not isinstance(state.get("post"), dict) or not isinstance(state.get("vocab"), list):
        return None
    return state


def _write(path: Path, state: dict[str, Any]) -> None:
    from okfpro.io.cache import write_framed

    try:
        payload = marshal.dumps(state)
    except ValueError:
        return
    write_framed(path, MAGIC, payload)


def attach(root: str | os.PathLike, bundle: Any, *, persist_at: int = PERSIST_AT) -> Any:
    """The bundle's scan word index: kept on the Bundle, else loaded from the store when the
    file identities match, else built (and stored for the next process)."""
    memo = bundle.__dict__.get("_okfpro_scan")
    if memo is not None or len(bundle.concepts) < persist_at:
        return memo
    fp = fingerprint(root, bundle)
    if fp is None:
        return None
    path = store_path(root)
    state = _read(path, fp)
    if state is not None:
        try:
            return _search.word_index(bundle, state)
        except (KeyError, TypeError, ValueError):
            bundle.__dict__.pop("_okfpro_scan", None)
    index = _search.word_index(bundle)
    state = index.state()
    # a rare word's document list as bytes of native unsigned ints: no Python object each on load
    state["post"] = {f: {w: row if row.__class__ is int else array("I", row).tobytes() for w, row in table.items()}
                     for f, table in state["post"].items()}
    _write(path, {"fp": fp, "paths": [d.path for d in index.docs], **state})
    return index
