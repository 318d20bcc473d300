"""Concepts: a Markdown document with YAML frontmatter, and the views derived from it.

Parsing follows the reference byte for byte: the fence is ``---`` at column 0
(trailing blanks tolerated, no BOM, no CR), the YAML block is the shortest run
up to a closing ``---`` line, the frontmatter must be a mapping, and the body is
what follows the closing fence with one leading newline removed.
"""

from __future__ import annotations

import datetime as _dt
import re

from okfpro.core import links as _links
from okfpro.core.fence import FRONTMATTER
from okfpro.core.record import Value
from okfpro.core.yamlsafe import YamlError, is_blank, load as _yaml_load, to_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on every hook that reads a concept
    from typing import Any, Callable, Generic, TypeVar

    _T = TypeVar("_T")

    class _Generic(Generic[_T]):
        pass
else:
    _T = "_T"

    class _Generic:
        """``Generic`` for the type checker; at run time a subscript is the class itself."""

        def __class_getitem__(cls, item):
            return cls

RESERVED_FILENAMES = ("index.md", "log.md")
TRUST_TIERS = ("unverified", "machine-confirmed", "human-reviewed")
STATUS_VOCABULARY = ("draft", "stable", "deprecated")
KNOWN_SPEC_VERSIONS = ("0.2", "0.1")
DAY = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z")
_SECTION_HEADING = re.compile(r"\A(#{1,6})\s+(.*?)\s*\Z")
_URL_ITEM = re.compile(r"\A(?:[-*+]\s+)?([a-zA-Z][a-zA-Z0-9+.-]*://\S+)\Z")
_AUTOLINK_ITEM = re.compile(r"\A(?:[-*+]\s+)?<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]+)>\Z")


class cached_property(_Generic[_T]):  # noqa: N801 - a drop-in for functools.cached_property
    """``functools.cached_property`` without its per-access lock (Python 3.11 takes an RLock
    on every first access; at 10,000 concepts that was ~8 % of validate + lint).  Computed
    once per instance, stored in the instance ``__dict__``; later reads are plain attribute
    reads.  Concept objects are not shared across threads."""

    def __init__(self, fn: Callable[[Any], _T]) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> _T:
        if obj is None:
            return self  # type: ignore[return-value]  # the class attribute: the descriptor itself
        value = self.fn(obj)
        obj.__dict__[self.name] = value
        return value


class ParseError(ValueError):
    """A concept-position file that cannot be read as a concept."""


def split(content: str) -> tuple[dict[str, Any], str]:
    """Split ``content`` into (frontmatter mapping, body) or raise :class:`ParseError`."""
    m = FRONTMATTER.match(content)
    if m is None:
        raise ParseError("missing YAML frontmatter")
    try:
        data = _yaml_load(m.group(1))
    except YamlError as exc:
        raise ParseError(f"invalid YAML frontmatter: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParseError("frontmatter must be a mapping")
    fm = {k if isinstance(k, str) else to_text(k): v for k, v in data.items()}
    body = content[m.end():]
    if body.startswith("\n"):
        body = body[1:]
    return fm, body


def decode(raw: bytes) -> str:
    """UTF-8 text or :class:`ParseError` (the reader keeps the file as unparseable)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ParseError("content is not valid UTF-8") from None


def as_day(value: Any) -> _dt.date | None:
    """A calendar day from a YAML value: a date (not a timestamp) or strict ``YYYY-MM-DD`` text."""
    if isinstance(value, _dt.datetime):
        return None
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str) and DAY.match(value):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def is_moment(value: Any) -> bool:
    """ISO-8601 date or date-time (YAML-typed or text)."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return True
    if not isinstance(value, str):
        return False
    text = value.strip()
    if DAY.match(text):
        return as_day(text) is not None
    try:
        _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        return True
    except ValueError:
        return False


def moment_date(value: Any) -> _dt.date | None:
    """The calendar date of a moment value, or None."""
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str) and is_moment(value):
        text = value.strip()
        if DAY.match(text):
            return as_day(text)
        return _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00")).date()
    return None


def concept_day(concept: Concept) -> str | None:
    """The day prompt recall labels a concept with (ISO): ``updated``, else when it was generated,
    else ``created`` — the first of them that reads as a date — or None."""
    for value in (concept.frontmatter.get("updated"), concept.generated_at, concept.frontmatter.get("created")):
        try:
            day = moment_date(value)
        except (ValueError, TypeError):
            day = None
        if day:
            return day.isoformat()
    return None


class Concept(Value):
    """One parsed concept.  ``path`` is bundle-relative and ends ``.md``.  A plain class, not a
    dataclass (:mod:`okfpro.core.record` says why); its derived views are cached per instance."""

    _fields = ("path", "frontmatter", "body")
    path: str
    frontmatter: dict[str, Any]
    body: str

    def __init__(self, path: str, frontmatter: dict[str, Any], body: str) -> None:
        self.path = path
        self.frontmatter = frontmatter
        self.body = body

    # --- identity -------------------------------------------------------
    @cached_property
    def path_id(self) -> str:
        return self.path[:-3] if self.path.endswith(".md") else self.path

    @cached_property
    def id(self) -> str:
        declared = self.frontmatter.get("id")
        if not is_blank(declared) and not isinstance(declared, (list, dict)):
            return to_text(declared).strip()
        return self.path_id

    @cached_property
    def dir(self) -> str:
        head, _, _ = f"{self.id}.md".rpartition("/")
        return head or "."

    @cached_property
    def top_dir(self) -> str:
        return self.id.split("/", 1)[0] if "/" in self.id else "(root)"

    @property
    def basename(self) -> str:
        return self.id.rsplit("/", 1)[-1]

    # --- plain fields ---------------------------------------------------
    def text(self, key: str) -> str:
        value = self.frontmatter.get(key)
        return "" if is_blank(value) else to_text(value)

    @cached_property
    def type(self) -> str:
        return self.text("type")

    @cached_property
    def title(self) -> str:
        return self.text("title")

    @cached_property
    def display_title(self) -> str:
        return self.title or self.id

    @cached_property
    def description(self) -> str:
        return self.text("description")

    @cached_property
    def tags(self) -> list[str]:
        tags = self.frontmatter.get("tags")
        if not isinstance(tags, list):
            return []
        return [to_text(t) for t in tags if not isinstance(t, (list, dict)) and t is not None]

    # --- provenance -----------------------------------------------------
    @property
    def declared_generated(self) -> bool:
        return "generated" in self.frontmatter

    @cached_property
    def generated(self) -> dict[str, Any]:
        value = self.frontmatter.get("generated")
        return value if isinstance(value, dict) else {}

    @cached_property
    def generated_by(self) -> str | None:
        by = self.generated.get("by")
        return None if is_blank(by) else to_text(by)

    @cached_property
    def generated_at(self) -> Any:
        at = self.generated.get("at")
        if at is None or (isinstance(at, str) and not at.strip()):
            at = self.frontmatter.get("timestamp")
        return None if is_blank(at) else at

    @cached_property
    def verified(self) -> list[dict[str, Any]]:
        value = self.frontmatter.get("verified")
        if isinstance(value, dict):
            return [value]
        if isinstance(value, list):
            return [entry for entry in value if isinstance(entry, dict)]
        return []

    @cached_property
    def trust(self) -> str:
        entries = self.verified
        if not entries:
            return "unverified"
        for entry in entries:
            if to_text(entry.get("by")).strip().startswith("human:"):
                return "human-reviewed"
        return "machine-confirmed"

    @property
    def awaiting_read(self) -> bool:
        """The read-owed rule: generated, and no human has reviewed it."""
        return self.declared_generated and self.trust != "human-reviewed"

    @cached_property
    def native_sources(self) -> list[dict[str, Any]]:
        value = self.frontmatter.get("sources")
        if not isinstance(value, list):
            return []
        return [entry for entry in value if isinstance(entry, dict)]

    @cached_property
    def legacy_citations(self) -> list[dict[str, str]]:
        return citations_section(self.body)

    @cached_property
    def sources(self) -> list[dict[str, Any]]:
        return self.native_sources or self.legacy_citations

    # --- lifecycle ------------------------------------------------------
    @cached_property
    def status(self) -> str:
        """Effective status: declared value folded, ``stable`` when absent or blank."""
        declared = self.frontmatter.get("status")
        if "status" not in self.frontmatter or is_blank(declared):
            return "stable"
        return to_text(declared).strip().lower()

    @cached_property
    def stale_after(self) -> _dt.date | None:
        return as_day(self.frontmatter.get("stale_after"))

    def expired(self, today: _dt.date) -> bool:
        return self.stale_after is not None and today >= self.stale_after

    # --- links ----------------------------------------------------------
    @cached_property
    def links(self) -> _links.LinkScan:
        return _links.scan(self.body)


def citations_text(body: str) -> str | None:
    """The lines under a legacy ``# Citations`` heading (any level 1-6, case-insensitive), up to the
    next heading of the same or a higher level; None when the body has no such heading.

    Fence-aware: a heading inside a fenced block is not a heading.  Fence lines inside the
    section are kept, so the section's own prose reading can skip its code.
    """
    if "itations" not in body:
        return None
    lines: list[str] = []
    level: int | None = None
    fenced = False
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            if level is not None:
                lines.append(line)
            continue
        heading = None if fenced else _SECTION_HEADING.match(stripped)
        if level is None:
            if heading and heading.group(2).lower() == "citations":
                level = len(heading.group(1))
            continue
        if heading and len(heading.group(1)) <= level:
            break
        lines.append(line)
    return None if level is None else "\n".join(lines)


def citations_section(body: str) -> list[dict[str, str]]:
    """Lift a legacy v0.1 ``# Citations`` section into ``{title?, resource}`` entries, in order.

    Three item shapes count: a labelled link (inline ``[t](url)`` or reference ``[t][label]``,
    title kept), a list item that is only a ``scheme://`` URL, and an autolink item ``<scheme:...>``
    (no title).  Anything else in the section is prose.
    """
    text = citations_text(body)
    if not text:
        return []
    defs = _links.scan(text).ref_defs
    out: list[dict[str, str]] = []
    for line in _links.prose_lines(text):
        item = line.strip()
        bare = _AUTOLINK_ITEM.match(item) or _URL_ITEM.match(item)
        if bare:
            out.append({"resource": bare.group(1)})
            continue
        found: list[tuple[int, str, str]] = []
        for m in _links.INLINE.finditer(line):
            found.append((m.start(), m.group(1).strip(), m.group(2)))
        for m in _links.REF_USE.finditer(line):
            label = (m.group(2) or m.group(1)).strip().lower()
            target = defs.get(label)
            if target is not None:
                found.append((m.start(), m.group(1).strip(), target))
        for _, title, target in sorted(found, key=lambda f: f[0]):
            entry: dict[str, str] = {}
            if title:
                entry["title"] = title
            entry["resource"] = target
            out.append(entry)
    return out


class Entry(Value):
    """A reserved file (``index.md`` / ``log.md``) or an unparseable one, kept as text."""

    _fields = ("path", "content", "error", "utf8_ok")
    path: str
    content: str
    error: str | None
    utf8_ok: bool

    def __init__(self, path: str, content: str, error: str | None = None, utf8_ok: bool = True) -> None:
        self.path = path
        self.content = content
        self.error = error
        self.utf8_ok = utf8_ok

    @cached_property
    def links(self) -> _links.LinkScan:
        body = self.content
        m = FRONTMATTER.match(body)
        if m is not None:
            body = body[m.end():]
        return _links.scan(body)


class Bundle(Value):
    """What the reader found: concepts, reserved files, and files it could not parse."""

    _fields = ("root", "concepts", "reserved", "unparseable")
    root: str
    concepts: list[Concept]
    reserved: list[Entry]
    unparseable: list[Entry]

    def __init__(self, root: str, concepts: list[Concept] | None = None, reserved: list[Entry] | None = None,
                 unparseable: list[Entry] | None = None) -> None:
        self.root = root
        self.concepts = [] if concepts is None else concepts
        self.reserved = [] if reserved is None else reserved
        self.unparseable = [] if unparseable is None else unparseable

    @cached_property
    def by_id(self) -> dict[str, Concept]:
        out: dict[str, Concept] = {}
        for c in self.concepts:
            out.setdefault(c.id, c)
        return out

    @cached_property
    def by_path(self) -> dict[str, Concept]:
        return {c.path: c for c in self.concepts}

    @cached_property
    def all_paths(self) -> set[str]:
        return {c.path for c in self.concepts} | {e.path for e in self.reserved} | {
            e.path for e in self.unparseable
        }

    def add(self, item: Concept | Entry) -> None:
        """File one read item: a concept, a reserved file, or an unparseable one."""
        if isinstance(item, Concept):
            self.concepts.append(item)
        elif item.error is None:
            self.reserved.append(item)
        else:
            self.unparseable.append(item)

    @property
    def indexes(self) -> list[Entry]:
        return [e for e in self.reserved if e.path.rsplit("/", 1)[-1] == "index.md"]

    @property
    def logs(self) -> list[Entry]:
        return [e for e in self.reserved if e.path.rsplit("/", 1)[-1] == "log.md"]


def is_reserved(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in RESERVED_FILENAMES


MAX_FILE_BYTES = 8 * 1024 * 1024


def parse_entry(path: str, raw: bytes) -> Concept | Entry:
    """Turn one file's bytes into a Concept, a reserved Entry, or an unparseable Entry.

    Pure: the reader hands in the bytes.  One bad file never raises out of here.
    """
    if "\\" in path or "\x00" in path:
        return Entry(path, "", error="path contains a backslash or NUL byte", utf8_ok=True)
    if len(raw) > MAX_FILE_BYTES:
        size = len(raw) / (1024 * 1024)
        return Entry(
            path, "", error=f"file is {size:.1f} MiB, over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit for a concept"
        )
    try:
        text = raw.decode("utf-8")
        utf8_ok = True
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        utf8_ok = False
    if is_reserved(path):
        return Entry(path, text, utf8_ok=utf8_ok)
    if not utf8_ok:
        return Entry(path, text, error="content is not valid UTF-8", utf8_ok=False)
    try:
        fm, body = split(text)
    except ParseError as exc:
        message = str(exc)
        if message == "missing YAML frontmatter" and text.startswith("\ufeff"):
            message = "missing YAML frontmatter (the file starts with a byte-order mark; remove it)"
        elif message == "missing YAML frontmatter" and text.startswith("---\r\n"):
            message = "missing YAML frontmatter (the fence line ends in CRLF; use LF line endings)"
        elif message == "missing YAML frontmatter" and not text:
            message = "missing YAML frontmatter (the file is empty)"
        return Entry(path, text, error=message)
    return Concept(path, fm, body)
