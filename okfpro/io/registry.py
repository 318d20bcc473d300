"""The bundle registry: bundles named once, then ``@slug`` wherever a DIR goes.

File: ``$OKFPRO_HOME/registry.json`` (``$OKFPRO_HOME`` defaults to the user's config
directory, ``$XDG_CONFIG_HOME/okfpro``, else ``~/.config/okfpro``)::

    {"version": 1, "bundles": [{"slug": "handbook", "dir": "/abs/path"}]}

Order is registration order.  Slugs are normalized as the reference normalizes them
(lower case; every run of characters outside ``a-z0-9`` is one ``-``; no leading or
trailing ``-``), so ``@Hand_Book`` finds ``hand-book``.  ``all`` is reserved: ``@all``
names every registered bundle, for ``search`` only.

Writes take an exclusive lock beside the file and replace it atomically, so two
concurrent ``registry set`` keep both entries.  A file that does not parse, is not the
expected shape or is over 1 MiB is an error naming it — never silently an empty
registry.  Only configuration lands here: a slug comes from the command line of the
person registering, never from bundle or prompt text.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

HOME_ENV = "OKFPRO_HOME"
FILE_NAME = "registry.json"
RESERVED = ("all",)
MAX_BYTES = 1024 * 1024
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


class RegistryError(Exception):
    """A registry that cannot be read, or a request it cannot answer (exit 2)."""


@dataclass(frozen=True)
class Entry:
    slug: str
    dir: str


def normalize(text: str) -> str:
    return _NOT_SLUG.sub("-", text.strip().lower()).strip("-")


def home() -> Path:
    value = os.environ.get(HOME_ENV, "").strip()
    if value:
        return Path(os.path.abspath(os.path.expanduser(value)))
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "okfpro"


def path() -> Path:
    return home() / FILE_NAME


def load() -> list[Entry]:
    p = path()
    try:
        with open(p, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise RegistryError(f"cannot read the registry {p}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise RegistryError(f"the registry {p} is over {MAX_BYTES // 1024} KiB; it is not one okfpro wrote")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RegistryError(f"the registry {p} is not valid JSON ({exc}); fix or remove it") from None
    rows = data.get("bundles") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise RegistryError(f"the registry {p} has no \"bundles\" list; fix or remove it")
    out: list[Entry] = []
    for row in rows:
        if not (isinstance(row, dict) and isinstance(row.get("slug"), str) and isinstance(row.get("dir"), str)):
            raise RegistryError(f"the registry {p} holds an entry that is not {{slug, dir}}: {row!r}")
        out.append(Entry(row["slug"], row["dir"]))
    return out


def _save(entries: list[Entry]) -> None:
    from okfpro.io.atomic import atomic_write

    payload = {"version": 1, "bundles": [{"slug": e.slug, "dir": e.dir} for e in entries]}
    atomic_write(path(), json.dumps(payload, indent=2, ensure_ascii=False) + "\n")


def _locked():
    from okfpro.io.atomic import locked

    home().mkdir(parents=True, exist_ok=True)
    return locked(home() / f"{FILE_NAME}.lock")


def usable_slug(slug: str) -> str:
    norm = normalize(slug)
    if not norm:
        raise RegistryError(f"not a usable slug: {slug!r} (use letters and digits; other runs become '-')")
    if norm in RESERVED:
        raise RegistryError(f"not a usable slug: {norm} is reserved (@{norm} names every registered bundle)")
    return norm


def set_entry(slug: str, directory: str | os.PathLike) -> tuple[Entry, Entry | None]:
    """Register (or re-point) ``slug`` at ``directory``; returns (new entry, the one it replaced)."""
    norm = usable_slug(slug)
    d = Path(os.path.abspath(os.path.expanduser(os.fspath(directory))))
    if not d.is_dir():
        raise RegistryError(f"{directory} is not a directory")
    with _locked():
        entries = load()
        old = next((e for e in entries if e.slug == norm), None)
        new = Entry(norm, str(d))
        entries = [new if e.slug == norm else e for e in entries] if old else [*entries, new]
        _save(entries)
    return new, old


def delete_entry(slug: str) -> Entry:
    norm = normalize(slug.lstrip("@"))
    with _locked():
        entries = load()
        old = next((e for e in entries if e.slug == norm), None)
        if old is None:
            raise RegistryError(f"not a registered bundle: @{norm} in {path()} (okfpro registry list)")
        _save([e for e in entries if e.slug != norm])
    return old


def is_ref(arg: str) -> bool:
    return arg.startswith("@")


def resolve(ref: str) -> Entry:
    """The entry ``@slug`` names; a refusal (RegistryError) when it names nothing readable."""
    asked = ref[1:]
    norm = normalize(asked)
    if norm in RESERVED:
        raise RegistryError(f"@{norm} is only supported by `okfpro search` (it names every registered bundle)")
    entries = load()
    entry = next((e for e in entries if e.slug == norm), None) if norm else None
    if entry is None:
        hint = "okfpro registry set SLUG DIR" if not entries else "okfpro registry list"
        raise RegistryError(f"not a registered bundle: {ref} in {path()} ({hint})")
    if not os.path.isdir(entry.dir):
        raise RegistryError(f"{ref} points to {entry.dir}, which is not a directory "
                            f"(okfpro registry del {entry.slug}, or restore it)")
    return entry


def expand(refs: list[str], note) -> list[Entry]:
    """Leading ``@slug`` / ``@all`` refs of ``search`` as entries; ``@all`` skips (and notes) a
    registered directory that is gone, a named ``@slug`` insists on it."""
    out: list[Entry] = []
    for ref in refs:
        if normalize(ref[1:]) in RESERVED:
            entries = load()
            if not entries:
                raise RegistryError("no bundles registered (okfpro registry set SLUG DIR)")
            readable = []
            for e in entries:
                if os.path.isdir(e.dir):
                    readable.append(e)
                else:
                    note(f"note: skipping {e.slug} — cannot read {e.dir}")
            if not readable:
                raise RegistryError("every registered bundle is missing on disk (okfpro registry list)")
            out.extend(readable)
        else:
            out.append(resolve(ref))
    seen: set[str] = set()
    return [e for e in out if not (e.slug in seen or seen.add(e.slug))]  # type: ignore[func-returns-value]
