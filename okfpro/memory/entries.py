"""One scope's memory as stored: the entry and result types, and the index-free reading.

A day file (``memory-<tier>/<scope>/<YYYY-MM-DD>.md``, format in
:mod:`okfpro.core.dayfile`) holds one ``## HH:MM:SS UTC`` section per entry; an entry's id
is ``<scope key>/<date>#<n>``.  :func:`tier_entries` reads one (tier, scope) from its files,
:func:`file_sections` gives each section's byte span (what the index keeps to read a hit
back), :func:`day_listing` the fingerprints the index compares with, and
:func:`records_by_entry` the memory policy's record of each entry.

The store (:mod:`okfpro.memory.store`), the index (:mod:`okfpro.memory.index`), the ranking
(:mod:`okfpro.memory.ranking`), the policy and erasure all build on this module; it imports
none of them.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.dayfile import DAY_RE, MalformedConcept, sections, split_concept, title
from okfpro.core.scope import Scope, memory_path
from okfpro.memory.layout import link_problem, read_day_file

_HEADING = re.compile(rb"^## (\d\d:\d\d:\d\d) UTC$", re.M)


# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class MemoryEntry:
    """What to remember: free text (quoted on disk so it can never become structure)."""

    text: str


@dataclass(frozen=True)
class Diagnostic:
    code: str  # "SourceUnavailable"
    source: str  # "memory:<tier>"
    message: str

    def to_json(self) -> dict:
        return {"code": self.code, "source": self.source, "message": self.message}


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One entry as stored: ``id`` = ``<scope prefix>/<date>#<n>`` (n = section number)."""

    tier: str
    id: str
    concept_id: str
    date: str
    time: str
    title: str
    text: str
    path: str  # relative to the memory root
    seq: int = 0  # section number within the day file (the n of the id)

    def to_json(self) -> dict:
        return {
            "tier": self.tier,
            "id": self.id,
            "title": self.title,
            "date": self.date,
            "time": self.time,
            "path": self.path,
        }


@dataclass(frozen=True)
class Passage:
    entry: StoredEntry
    score: float
    excerpt: str

    @property
    def source_id(self) -> str:
        return f"memory:{self.entry.tier}"

    def to_json(self) -> dict:
        out = self.entry.to_json()
        out.update(source_id=self.source_id, score=self.score, excerpt=self.excerpt, text=self.entry.text)
        return out


@dataclass
class ReadResult:
    passages: list[Passage] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class EnumerateResult:
    entries: list[StoredEntry] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass
class WriteResult:
    written: bool
    error: str | None = None
    tier: str | None = None
    scope_key: str | None = None
    id: str | None = None
    path: str | None = None
    commit: str | None = None


@dataclass
class DeleteResult:
    tiers_deleted: int = 0
    error: str | None = None
    commits: dict[str, str] = field(default_factory=dict)  # tier -> forget commit
    purged: bool = False
    verified: bool = False  # purge only: no object left holds an erased entry
    residual: list[str] = field(default_factory=list)  # objects still holding one
    shared: list[str] = field(default_factory=list)  # residual objects another scope holds too


@dataclass(frozen=True)
class Subtree:
    """One scope's memory in one tier: its directory (relative to the root), its history
    ref and its scope key.  What deletion works on, so a session whose id is no longer
    known (only its hashed directory or ref is) can still be erased."""

    tier: str
    prefix: str
    ref: str
    key: str


@dataclass
class LogResult:
    entries: list = field(default_factory=list)  # okfpro.memory.history.LogEntry
    error: str | None = None
    diagnostics: list[str] = field(default_factory=list)  # tiers not shown, and why


def excerpt(text: str, query: str) -> str:
    terms = [t.casefold() for t in query.split()]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        low = line.casefold()
        if any(t in low for t in terms):
            return line
    return lines[0] if lines else ""


# ---------------------------------------------------------------------------- reading


def tier_entries(root: Path, tier: str, scope: Scope, diags: list[Diagnostic]) -> list[StoredEntry]:
    """Every entry of one (tier, scope), read from its day files, oldest first: the index-free
    reading the index is built from and checked against.  Problems come back in ``diags``."""
    return prefix_entries(root, tier, memory_path(tier, scope), diags)


def prefix_entries(root: Path, tier: str, prefix: str, diags: list[Diagnostic]) -> list[StoredEntry]:
    """:func:`tier_entries` of the scope whose directory (== scope key) is ``prefix``: what a
    :class:`Subtree` names when only its hashed directory is known (another session of the user)."""
    directory = root.joinpath(*prefix.split("/"))
    source = f"memory:{tier}"
    problem = link_problem(root, directory)
    if problem:
        diags.append(Diagnostic("SourceUnavailable", source, f"{problem}; refusing to read"))
        return []
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return []
    except OSError as exc:
        diags.append(Diagnostic("SourceUnavailable", source, f"cannot list {directory}: {exc.strerror}"))
        return []
    key = prefix
    out: list[StoredEntry] = []
    for name in names:
        m = DAY_RE.match(name)
        if not m:
            continue
        day = m.group(1)
        path = directory / name
        try:
            raw, _ = read_day_file(path)
            _, body = split_concept(raw)
        except (OSError, MalformedConcept) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            diags.append(Diagnostic("SourceUnavailable", source, f"{key}/{name} could not be loaded: {why}"))
            continue
        for n, (clock, text) in enumerate(sections(body), start=1):
            out.append(
                StoredEntry(
                    tier=tier,
                    id=f"{key}/{day}#{n}",
                    concept_id=f"{key}/{day}",
                    date=day,
                    time=clock,
                    title=title(text),
                    text=text,
                    path=f"{key}/{name}",
                    seq=n,
                )
            )
    return out


def records_by_entry(entries: Iterable[Any]) -> list[tuple[Any, _mempolicy.MemoryRecord]]:
    """(stored entry, record) for each store entry, oldest first."""
    ordered = sorted(entries, key=lambda e: (e.date, int(e.id.rsplit("#", 1)[1]) if "#" in e.id else 0))
    return [(e, _mempolicy.parse(e.text, e.id, e.date)) for e in ordered]


def fingerprint(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_nlink}"


def day_listing(directory: Path) -> dict[str, str]:
    """name -> fingerprint of the day files of one scope directory (regular files only)."""
    out: dict[str, str] = {}
    match = DAY_RE.match
    try:
        with os.scandir(directory) as it:
            for entry in it:
                if not match(entry.name):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                out[entry.name] = fingerprint(st) if stat.S_ISREG(st.st_mode) else "not-a-file"
    except (FileNotFoundError, NotADirectoryError):
        pass
    return out


@dataclass(frozen=True, slots=True)
class Section:
    clock: str
    text: str
    start: int  # byte offset of the heading in the file
    end: int


def file_sections(raw: bytes) -> list[Section]:
    """Each ``## HH:MM:SS UTC`` section of a day file with its byte span (raises
    MalformedConcept as :func:`okfpro.core.dayfile.split_concept` does)."""
    head, _body = split_concept(raw)
    base = len(head.encode("utf-8"))
    starts = [m.start() for m in _HEADING.finditer(raw, base)]
    out: list[Section] = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(raw)
        parsed = sections(raw[start:end].decode("utf-8"))
        clock, text = parsed[0]
        out.append(Section(clock, text, start, end))
    return out
