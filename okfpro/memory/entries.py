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

from okfpro.core import mempolicy as _mempolicy
from okfpro.core.dayfile import DAY_RE, MalformedConcept, sections, split_concept, title
from okfpro.core.record import Frozen, Value, set_field
from okfpro.core.scope import Scope, memory_path
from okfpro.memory.layout import link_problem, read_day_file

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Any, Iterable

_HEADING = re.compile(rb"^## (\d\d:\d\d:\d\d) UTC$", re.M)


# ---------------------------------------------------------------------------- types
#
# Plain classes over :class:`okfpro.core.record.Value`, not dataclasses: every memory door
# imports this module, and @dataclass would generate and compile their methods in every
# process (.okf/design/lean-memory-verbs.md).


class MemoryEntry(Frozen):
    """What to remember: free text (quoted on disk so it can never become structure)."""

    __slots__ = ("text",)
    _fields = __slots__
    text: str

    def __init__(self, text: str) -> None:
        set_field(self, "text", text)


class Diagnostic(Frozen):
    __slots__ = ("code", "source", "message")
    _fields = __slots__
    code: str  # "SourceUnavailable"
    source: str  # "memory:<tier>"
    message: str

    def __init__(self, code: str, source: str, message: str) -> None:
        set_field(self, "code", code)
        set_field(self, "source", source)
        set_field(self, "message", message)

    def to_json(self) -> dict:
        return {"code": self.code, "source": self.source, "message": self.message}


class StoredEntry(Frozen):
    """One entry as stored: ``id`` = ``<scope prefix>/<date>#<n>`` (n = section number)."""

    __slots__ = ("tier", "id", "concept_id", "date", "time", "title", "text", "path", "seq")
    _fields = __slots__
    tier: str
    id: str
    concept_id: str
    date: str
    time: str
    title: str
    text: str
    path: str  # relative to the memory root
    seq: int  # section number within the day file (the n of the id)

    def __init__(self, tier: str, id: str, concept_id: str, date: str, time: str, title: str, text: str, path: str,
                 seq: int = 0) -> None:
        set_field(self, "tier", tier)
        set_field(self, "id", id)
        set_field(self, "concept_id", concept_id)
        set_field(self, "date", date)
        set_field(self, "time", time)
        set_field(self, "title", title)
        set_field(self, "text", text)
        set_field(self, "path", path)
        set_field(self, "seq", seq)

    def to_json(self) -> dict:
        return {
            "tier": self.tier,
            "id": self.id,
            "title": self.title,
            "date": self.date,
            "time": self.time,
            "path": self.path,
        }


class Passage(Frozen):
    __slots__ = ("entry", "score", "excerpt")
    _fields = __slots__
    entry: StoredEntry
    score: float
    excerpt: str

    def __init__(self, entry: StoredEntry, score: float, excerpt: str) -> None:
        set_field(self, "entry", entry)
        set_field(self, "score", score)
        set_field(self, "excerpt", excerpt)

    @property
    def source_id(self) -> str:
        return f"memory:{self.entry.tier}"

    def to_json(self) -> dict:
        out = self.entry.to_json()
        out.update(source_id=self.source_id, score=self.score, excerpt=self.excerpt, text=self.entry.text)
        return out


class ReadResult(Value):
    __slots__ = ("passages", "diagnostics")
    _fields = __slots__
    passages: list[Passage]
    diagnostics: list[Diagnostic]

    def __init__(self, passages: list[Passage] | None = None, diagnostics: list[Diagnostic] | None = None) -> None:
        self.passages = [] if passages is None else passages
        self.diagnostics = [] if diagnostics is None else diagnostics


class EnumerateResult(Value):
    __slots__ = ("entries", "diagnostics")
    _fields = __slots__
    entries: list[StoredEntry]
    diagnostics: list[Diagnostic]

    def __init__(self, entries: list[StoredEntry] | None = None, diagnostics: list[Diagnostic] | None = None) -> None:
        self.entries = [] if entries is None else entries
        self.diagnostics = [] if diagnostics is None else diagnostics


class WriteResult(Value):
    __slots__ = ("written", "error", "tier", "scope_key", "id", "path", "commit")
    _fields = __slots__
    written: bool
    error: str | None
    tier: str | None
    scope_key: str | None
    id: str | None
    path: str | None
    commit: str | None

    def __init__(self, written: bool, error: str | None = None, tier: str | None = None, scope_key: str | None = None,
                 id: str | None = None, path: str | None = None, commit: str | None = None) -> None:
        self.written, self.error, self.tier, self.scope_key = written, error, tier, scope_key
        self.id, self.path, self.commit = id, path, commit


class DeleteResult(Value):
    __slots__ = ("tiers_deleted", "error", "commits", "purged", "verified", "residual", "shared")
    _fields = __slots__
    tiers_deleted: int
    error: str | None
    commits: dict[str, str]  # tier -> forget commit
    purged: bool
    verified: bool  # purge only: no object left holds an erased entry
    residual: list[str]  # objects still holding one
    shared: list[str]  # residual objects another scope holds too

    def __init__(self, tiers_deleted: int = 0, error: str | None = None, commits: dict[str, str] | None = None,
                 purged: bool = False, verified: bool = False, residual: list[str] | None = None,
                 shared: list[str] | None = None) -> None:
        self.tiers_deleted, self.error, self.purged, self.verified = tiers_deleted, error, purged, verified
        self.commits = {} if commits is None else commits
        self.residual = [] if residual is None else residual
        self.shared = [] if shared is None else shared


class Subtree(Frozen):
    """One scope's memory in one tier: its directory (relative to the root), its history
    ref and its scope key.  What deletion works on, so a session whose id is no longer
    known (only its hashed directory or ref is) can still be erased."""

    __slots__ = ("tier", "prefix", "ref", "key")
    _fields = __slots__
    tier: str
    prefix: str
    ref: str
    key: str

    def __init__(self, tier: str, prefix: str, ref: str, key: str) -> None:
        set_field(self, "tier", tier)
        set_field(self, "prefix", prefix)
        set_field(self, "ref", ref)
        set_field(self, "key", key)


class LogResult(Value):
    __slots__ = ("entries", "error", "diagnostics")
    _fields = __slots__
    entries: list  # okfpro.memory.history.LogEntry
    error: str | None
    diagnostics: list[str]  # tiers not shown, and why

    def __init__(self, entries: list | None = None, error: str | None = None, diagnostics: list[str] | None = None) -> None:
        self.entries = [] if entries is None else entries
        self.error = error
        self.diagnostics = [] if diagnostics is None else diagnostics


def excerpt(text: str, query: str) -> str:
    terms = [t.casefold() for t in query.split()]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        low = line.casefold()
        if any(t in low for t in terms):
            return line
    return lines[0] if lines else ""


# ---------------------------------------------------------------------------- reading


def tier_entries(root: str | os.PathLike[str], tier: str, scope: Scope, diags: list[Diagnostic]) -> list[StoredEntry]:
    """Every entry of one (tier, scope), read from its day files, oldest first: the index-free
    reading the index is built from and checked against.  Problems come back in ``diags``."""
    return prefix_entries(root, tier, memory_path(tier, scope), diags)


def prefix_entries(root: str | os.PathLike[str], tier: str, prefix: str, diags: list[Diagnostic]) -> list[StoredEntry]:
    """:func:`tier_entries` of the scope whose directory (== scope key) is ``prefix``: what a
    :class:`Subtree` names when only its hashed directory is known (another session of the user)."""
    directory = os.path.join(root, *prefix.split("/"))
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
        try:
            raw, _ = read_day_file(os.path.join(directory, name))
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
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_nlink}"


def day_listing(directory: str | os.PathLike[str]) -> dict[str, str]:
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


class Section(Frozen):
    __slots__ = ("clock", "text", "start", "end")
    _fields = __slots__
    clock: str
    text: str
    start: int  # byte offset of the heading in the file
    end: int

    def __init__(self, clock: str, text: str, start: int, end: int) -> None:
        set_field(self, "clock", clock)
        set_field(self, "text", text)
        set_field(self, "start", start)
        set_field(self, "end", end)


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
