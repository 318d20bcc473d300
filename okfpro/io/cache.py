"""The persistent caches of a bundle: the parse cache (repeated reads of a large bundle skip the
YAML parse) and the scan word index store (a new process loads the index instead of building it).

* One file per bundle: ``<workspace>/.tmp/okfpro-cache/bundle-<hash of root>.bin``
  inside the okfpro workspace you work in (:func:`cache_dir`; ``.tmp/`` is hidden, so the reader
  never sees it, and never committed), else under the user's cache directory — a
  reader never creates a file in a tree it was only asked to read.
* Each entry is keyed by its bundle-relative path and validated by
  ``(size, mtime_ns, ctime_ns, inode)`` of the file; a mismatch re-reads that file
  only.  Files whose mtime is within :data:`RACY_NS` of the moment they were read
  are not stored (a same-size edit inside one timestamp tick would be invisible),
  so they are simply re-read next time.  Symlinks are always re-read (their
  containment check is part of the read).
* Format: ``marshal`` of plain values behind a magic line (dates and timestamps are
  tagged tuples).  Measured faster to load than pickle and sqlite at 10k entries,
  and — unlike pickle — loading a hostile file cannot run code.
* Never the source of truth: deleting it changes no answer.  A corrupt, foreign
  (other root) or other-version file is ignored and rebuilt silently; a workspace
  where ``.tmp/`` cannot be written simply runs without a cache.
* Concurrent processes are safe: each writes a private temp file and
  ``os.replace``-s it (last writer wins; every version is complete and valid).

The scan word index store (:func:`attach_scan`; ~4 s to build at 50,000 concepts, ~0.4 s to load):

* File: ``scan-<hash of root>.bin`` beside the parse cache (same :func:`cache_dir`).
* Reused only when the **file identities match**: the key is a digest of every concept's
  ``(path, size, mtime_ns, ctime_ns, inode)`` as the parse cache validated them in this
  reading (recorded on the Bundle by :func:`load_bundle`), plus the index code's own
  fingerprint.  A concept the parse cache did not vouch for (a file written within the last
  two seconds, a symlink, the cache off) means no reuse and no store: the index is built in
  memory.
* Format: ``marshal`` of plain values behind a magic line and a CRC, like the parse cache.
  Small bundles (under :data:`SCAN_PERSIST_AT` concepts) build in well under a tenth of a
  second: they are not stored.
"""

from __future__ import annotations

import datetime as _dt
import gc
import marshal
import os
import sys
import time
import zlib
from pathlib import Path

from okfpro.core.concept import Bundle, Concept, Entry
from okfpro.core.yamlsafe import ZULU
from okfpro.io import reader
from okfpro.io.cachedir import PARSE_CODE as _CODE, cache_dir, code_stamp, path_key, user_cache_dir  # noqa: F401 - re-exported

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any

MAGIC = b"okfpro-parse-cache\n"
VERSION = 7  # 7: a timestamp written with Z is stored as such
RACY_NS = 2_000_000_000

# --------------------------------------------------------------------------- location
# cache_dir, user_cache_dir and code_stamp live in okfpro/io/cachedir.py (a process that only
# checks a cache's freshness needs them without this module's parsing code); re-exported here.


def cache_path(bundle_root: str | os.PathLike) -> Path:
    return Path(cache_dir(bundle_root), f"bundle-{path_key(bundle_root)}.bin")


# --------------------------------------------------------------------------- value codec
def _stamp(tag: str, text: str) -> _dt.datetime:
    """A stored timestamp; ``z``: one written with ``Z`` (its spelling is part of the value)."""
    value = _dt.datetime.fromisoformat(text)
    return value.replace(tzinfo=ZULU) if tag == "z" else value


class _Unstorable(Exception):
    pass


def _enc(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, list):
        return [_enc(v) for v in value]
    if isinstance(value, dict):
        return {_enc(k): _enc(v) for k, v in value.items()}
    if isinstance(value, _dt.datetime):
        return ("z" if value.tzinfo is ZULU else "t", value.isoformat())
    if isinstance(value, _dt.date):
        return ("d", value.isoformat())
    if isinstance(value, tuple):
        return ("T", [_enc(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return ("S", [_enc(v) for v in value])
    raise _Unstorable(type(value).__name__)


def _dec(value: Any) -> Any:
    if isinstance(value, list):
        return [_dec(v) for v in value]
    if isinstance(value, dict):
        return {_dec(k): _dec(v) for k, v in value.items()}
    if isinstance(value, tuple):
        tag, payload = value
        if tag in ("t", "z"):
            return _stamp(tag, payload)
        if tag == "d":
            return _dt.date.fromisoformat(payload)
        if tag == "T":
            return tuple(_dec(v) for v in payload)
        if tag == "S":
            return {_dec(v) for v in payload}
        raise ValueError("unknown tag")
    return value


# Derived values that depend only on the file (never on today or on other files):
# computed once by Concept's own code at parse time, stored beside the record and
# put back into the instance's __dict__ on load (they are cached properties).
PROPS = ("id", "dir", "top_dir", "type", "title", "display_title", "description", "tags", "status", "trust")


def _props(item: Concept) -> dict[str, Any]:
    out = {name: getattr(item, name) for name in PROPS}
    if not item.native_sources:  # the legacy # Citations lift scans the body: keep its result
        out["sources"] = item.legacy_citations
    return out


def _patchable(value: Any, path: tuple, patches: list[tuple]) -> Any:
    """``value`` with each date/timestamp replaced by its ISO text and its position noted.

    Only str-keyed dicts, lists and scalars qualify; anything else raises _Unstorable
    (the record then takes the slower, fully tagged route).
    """
    cls = value.__class__
    if value is None or cls is str or cls is bool or cls is int or cls is float:
        return value
    if cls is dict:
        out = {}
        for k, v in value.items():
            if k.__class__ is not str:
                raise _Unstorable("key")
            out[k] = _patchable(v, path + (k,), patches)
        return out
    if cls is list:
        return [_patchable(v, path + (i,), patches) for i, v in enumerate(value)]
    if cls is _dt.datetime:
        patches.append((path, "z" if value.tzinfo is ZULU else "t", value.isoformat()))
        return value.isoformat()
    if cls is _dt.date:
        patches.append((path, "d", value.isoformat()))
        return value.isoformat()
    raise _Unstorable(cls.__name__)


def _record(item: Concept | Entry) -> tuple:
    if isinstance(item, Concept):
        fm = item.frontmatter
        patches: list[tuple] = []
        try:
            flat = _patchable(fm, (), patches)
        except _Unstorable:
            return ("C", _enc(fm), item.body, _props(item))
        if not patches:
            return ("c", fm, item.body, _props(item))
        return ("P", flat, item.body, _props(item), patches)
    if item.error is None:
        return ("r", item.content, item.utf8_ok)
    return ("u", item.content, item.error, item.utf8_ok)


def _item(rel: str, rec: tuple) -> Concept | Entry:
    kind = rec[0]
    if kind == "c" or kind == "C" or kind == "P":
        fm = rec[1]
        if kind == "C":
            fm = _dec(fm)
        elif kind == "P":
            # the record stays as stored (it is written back as is): copy the containers
            # on each patched path, then put the date objects into the copies
            fm = dict(fm)
            for path, tag, text in rec[4]:
                holder: Any = fm
                for step in path[:-1]:
                    child: Any = holder[step]
                    child = dict(child) if child.__class__ is dict else list(child)
                    holder[step] = child
                    holder = child
                holder[path[-1]] = _stamp(tag, text) if tag in ("t", "z") else _dt.date.fromisoformat(text)
        concept = Concept.__new__(Concept)
        state = dict(rec[3])
        state["path"] = rel
        state["frontmatter"] = fm
        state["body"] = rec[2]
        concept.__dict__ = state
        return concept
    if kind == "r":
        return Entry(rel, rec[1], utf8_ok=rec[2])
    if kind == "u":
        return Entry(rel, rec[1], error=rec[2], utf8_ok=rec[3])
    raise ValueError("unknown record kind")


# --------------------------------------------------------------------------- file
def read_framed(path: Path, magic: bytes) -> memoryview | None:
    """The payload of a file written by :func:`write_framed` (magic line, CRC-32, payload), or
    None when it is missing, foreign, torn or corrupted (a flipped byte may still unmarshal, so
    the CRC is checked first)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    head = len(magic) + 4
    if not data.startswith(magic) or len(data) < head:
        return None
    body = memoryview(data)[head:]
    if zlib.crc32(body).to_bytes(4, "big") != data[len(magic):head]:
        return None
    return body


def _read_cache(path: Path, root_real: str) -> dict[str, tuple]:
    body = read_framed(path, MAGIC)
    if body is None:
        return {}
    try:
        payload = marshal.loads(body)
        if (
            not isinstance(payload, dict)
            or payload.get("version") != VERSION
            or payload.get("root") != root_real
            or payload.get("python") != sys.version_info[:2]
            or payload.get("code") != code_stamp()
        ):
            return {}
        entries = payload.get("entries")
        return entries if isinstance(entries, dict) else {}
    except Exception:  # corrupt: any failure means "no cache"
        return {}


def writable(directory: str | os.PathLike) -> bool:
    """May okfpro create files at ``directory``?  Its nearest existing ancestor decides.

    A directory without its owner's write bit counts as read-only even for root
    (who could write it anyway): a read-only checkout, a shared corpus, is left alone.
    """
    probe = os.path.abspath(directory)
    while True:
        try:
            st = os.stat(probe)
            break
        except FileNotFoundError:
            up = os.path.dirname(probe)
            if up == probe:
                return False
            probe = up
        except OSError:
            return False
    import stat as _stat

    return _stat.S_ISDIR(st.st_mode) and bool(st.st_mode & _stat.S_IWUSR) and os.access(probe, os.W_OK | os.X_OK)


def _write_cache(path: Path, root_real: str, entries: dict[str, tuple]) -> None:
    try:
        payload = marshal.dumps(
            {"version": VERSION, "root": root_real, "python": sys.version_info[:2], "code": code_stamp(),
             "entries": entries}
        )
    except ValueError:
        return
    write_framed(path, MAGIC, payload)


def write_framed(path: Path, magic: bytes, payload: bytes) -> None:
    """Write ``magic + CRC-32 + payload`` to ``path`` through a private temp file and a rename
    (concurrent writers: last one wins, every version complete), in a directory okfpro may write
    (else nothing), with a ``.gitignore`` of ``*`` beside it; failures leave no file behind."""
    if not writable(path.parent):
        return
    blob = magic + zlib.crc32(payload).to_bytes(4, "big") + payload
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore = path.parent / ".gitignore"  # the cache is never committed, whatever .tmp/ holds
        if not ignore.exists():
            try:
                with open(ignore, "x", encoding="utf-8") as handle:
                    handle.write("*\n")
            except OSError:
                pass
        with open(tmp, "wb") as handle:
            handle.write(blob)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


# --------------------------------------------------------------------------- load
def load_bundle(root: str | os.PathLike) -> Bundle:
    """Read the bundle at ``root`` through the cache (identical result to ``reader.read_bundle``).

    The cyclic garbage collector is paused meanwhile: the load allocates a few
    hundred thousand acyclic objects and would otherwise trigger it many times
    (measured: a third of a warm 10k load).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_bundle(root)
    finally:
        if was_enabled:
            gc.enable()


def _load_bundle(root: str | os.PathLike) -> Bundle:
    root_s = os.fspath(root)
    root_real = os.path.realpath(root_s)
    path = cache_path(root_s)
    old = _read_cache(path, root_real)
    rels = reader.walk(root_real)
    bundle = Bundle(root=root_s)
    new: dict[str, tuple] = {}
    changed = len(old) != len(rels)
    now_ns = time.time_ns()
    progress = None  # okfpro.io.progress.bar, made at the first file that is read
    misses = 0
    prefix = root_real.rstrip(os.sep) + os.sep
    stat = os.lstat
    add = reader.add
    for n, rel in enumerate(rels):
        full = prefix + rel
        try:
            st = stat(full)
        except OSError:
            st = None
        key = None
        if st is not None and (st.st_mode & 0o170000) == 0o100000:  # regular file, not a symlink
            key = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        hit = old.get(rel) if key is not None else None
        if hit is not None and hit[0] == key:
            try:
                add(bundle, _item(rel, hit[1]))
                new[rel] = hit
                continue
            except Exception:
                pass
        changed = True
        misses += 1
        if misses == 1 and progress is None:
            from okfpro.io.progress import bar

            progress = bar(len(rels), "reading bundle")
        item = reader.load_entry(root_real, rel)
        add(bundle, item)
        if key is not None and now_ns - max(key[1], key[2]) > RACY_NS:
            try:
                new[rel] = (key, _record(item))
            except _Unstorable:
                pass
        if progress is not None:
            progress.tick(n + 1)
    if progress is not None:
        progress.close()
    if changed or new.keys() != old.keys():
        _write_cache(path, root_real, new)
    # the identities this reading vouched for: the scan index store (attach_scan, below) reuses
    # its file only when they all match
    bundle.__dict__["_okfpro_stat"] = {rel: rec[0] for rel, rec in new.items()}
    return bundle


def clear(root: str | os.PathLike) -> bool:
    """Delete the bundle's cache file; True when one was removed."""
    try:
        os.unlink(cache_path(root))
        return True
    except OSError:
        return False


# --------------------------------------------------------------------------- the scan word index store
SCAN_MAGIC = b"okfpro-scan-index\n"
SCAN_VERSION = 2  # 2: the listing of the reading it was built from (okfpro.io.search.scan_unread)
SCAN_PERSIST_AT = 2000
_SCAN_CODE = ("core/scanindex.py", "core/search.py", "io/cache.py")


def scan_store_path(root: str | os.PathLike) -> Path:
    return Path(cache_dir(root), f"scan-{path_key(root)}.bin")


def scan_fingerprint(root: str | os.PathLike, bundle: Bundle) -> str | None:
    """Digest of the bundle's file identities (None when some concept's identity is unknown)."""
    stats = bundle.__dict__.get("_okfpro_stat")
    if stats is None:
        return None
    head = f"{SCAN_VERSION}\0{os.path.realpath(os.fspath(root))}\0{code_stamp(_SCAN_CODE)}\0{len(bundle.concepts)}\n"
    lines = [head]
    for path in sorted(c.path for c in bundle.concepts):
        key = stats.get(path)
        if key is None:
            return None
        lines.append(f"{path}\0{key[0]}\0{key[1]}\0{key[2]}\0{key[3]}\n")
    import hashlib  # megabytes at 50,000 files

    return hashlib.sha256("".join(lines).encode("utf-8", "surrogatepass")).hexdigest()


def _read_scan(path: Path, fp: str | None) -> dict[str, Any] | None:
    """The stored state when it is whole and its fingerprint is ``fp`` (None: any; the caller checks
    its ``listing`` against the disk instead)."""
    body = read_framed(path, SCAN_MAGIC)
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
    if not isinstance(state, dict) or (fp is not None and state.get("fp") != fp) or not isinstance(state.get("paths"), list) \
            or not isinstance(state.get("post"), dict) or not isinstance(state.get("vocab"), list):
        return None
    return state


def attach_scan(root: str | os.PathLike, bundle: Bundle, *, persist_at: int = SCAN_PERSIST_AT) -> Any:
    """The bundle's scan word index: kept on the Bundle, else loaded from the store when the
    file identities match, else built (and stored for the next process)."""
    from array import array

    from okfpro.core import search as _search

    memo = bundle.__dict__.get("_okfpro_scan")
    if memo is not None or len(bundle.concepts) < persist_at:
        return memo
    fp = scan_fingerprint(root, bundle)
    if fp is None:
        return None
    path = scan_store_path(root)
    state = _read_scan(path, fp)
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
    try:
        from okfpro.io.listing import vouched

        listing = vouched(bundle, bundle.__dict__.get("_okfpro_stat"))
        payload = marshal.dumps({"fp": fp, "paths": [d.path for d in index.docs], "listing": listing, **state})
    except ValueError:
        return index
    write_framed(path, SCAN_MAGIC, payload)
    return index
