"""Search: the reference's field-weighted scan engine, and what both engines share.

Scan (the default, faithful to the reference):

* terms are ANDed; each is a case-insensitive literal substring, or a regular
  expression when ``regexp=True``;
* a document matches when every term hits at least one searched field;
* score = sum of the weights of the fields that matched (any term), so scores
  are absolute and comparable across bundles;
* filters (type / dir / tag / status / trust) narrow the candidates first;
* rows ``{id, title, type, dir, top_dir, tags, matched, score, snippet}``
  sorted by score descending, then id.

The ranked (BM25) engine is :mod:`okfpro.core.bm25`; it reads the same fields,
weights, filters, rows and snippets defined here.  A large bundle's literal scan
goes through its word index (:mod:`okfpro.core.scanindex`).

Pure: no file I/O.  Documents are either :class:`okfpro.core.concept.Concept`
objects or :class:`Doc` records (any id + field texts).
"""

from __future__ import annotations

import re
import time

from okfpro.core.record import Value

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook and memory paths
    from typing import Any, Iterable, Protocol, Sequence

    from okfpro.core.concept import Concept

    class Hit(Protocol):
        def start(self) -> int: ...
        def end(self) -> int: ...

    class Searcher(Protocol):
        """What a snippet looks for: a compiled pattern, or :class:`okfpro.core.bm25.WordStart`."""

        @property
        def pattern(self) -> str: ...
        def search(self, text: str, /) -> Hit | None: ...

WEIGHTS: dict[str, int] = {
    "title": 5,
    "id": 4,
    "tags": 3,
    "type": 2,
    "description": 2,
    "sources": 1,
    "body": 1,
}
FIELDS: tuple[str, ...] = tuple(WEIGHTS)
SNIPPET_FIELDS: tuple[str, ...] = ("description", "body", "sources")
SNIPPET_RADIUS = 44
ELLIPSIS = "\u2026"
# Ruby's \s: ASCII whitespace only (a no-break space is not collapsed).
_WS = re.compile(r"[ \t\r\n\f\v]+")


class SearchError(ValueError):
    """A query that cannot run (bad regexp, unknown field)."""


class SearchTimeout(SearchError):
    """A regular expression that did not finish within the search's time budget."""


# A regexp search (every document, every field, the snippets) finishes within this many
# seconds or is refused: ``(a|aa)+$`` over a long line backtracks for ages, and neither a
# hook nor a person may hang on it.  Matching runs in the ``regex`` module, whose matcher
# takes a timeout per call (the stdlib ``re`` has none); a literal term has no backtracking
# to bound and stays on ``re``.
REGEXP_BUDGET_S = 5.0


class _Budgeted:
    """A compiled ``regex`` pattern whose searches share one deadline."""

    __slots__ = ("_compiled", "pattern", "_deadline", "_budget")

    def __init__(self, compiled: Any, deadline: float, budget: float) -> None:
        self._compiled = compiled
        self.pattern = compiled.pattern
        self._deadline = deadline
        self._budget = budget

    def _refuse(self) -> SearchTimeout:
        return SearchTimeout(
            f"regular expression '{self.pattern}' did not finish within the {self._budget:g} s search budget "
            "(nested repetition such as (a+)+ backtracks without end); simplify it"
        )

    def search(self, string: str, pos: int = 0) -> Any:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._refuse()
        try:
            return self._compiled.search(string, pos, timeout=left)
        except TimeoutError:
            raise self._refuse() from None


# --------------------------------------------------------------------------- docs
class Doc(Value):
    """A searchable record: an id plus field texts (``tags`` may be a list).

    ``meta`` carries what the filters and rows read (type, dir, top_dir, tags,
    status, trust, title); missing keys fall back to sensible defaults.
    """

    __slots__ = ("id", "fields", "meta")
    _fields = __slots__
    id: str
    fields: dict[str, Any]
    meta: dict[str, Any]

    def __init__(self, id: str, fields: dict[str, Any], meta: dict[str, Any] | None = None) -> None:
        self.id = id
        self.fields = fields
        self.meta = {} if meta is None else meta

    def get(self, name: str) -> Any:
        if name in self.meta:
            return self.meta[name]
        if name == "title":
            return self.fields.get("title") or self.id
        if name in ("type",):
            return _as_text(self.fields.get("type"))
        if name == "tags":
            tags = self.fields.get("tags")
            return list(tags) if isinstance(tags, (list, tuple)) else ([] if not tags else [str(tags)])
        if name == "dir":
            head, _, _ = f"{self.id}.md".rpartition("/")
            return head or "."
        if name == "top_dir":
            return self.id.split("/", 1)[0] if "/" in self.id else "(root)"
        if name == "status":
            return _as_text(self.fields.get("status")).strip().lower() or "stable"
        if name == "trust":
            return _as_text(self.fields.get("trust")) or "unverified"
        return self.fields.get(name)


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(_as_text(v) for v in value)
    return str(value)


def sources_text(sources: Iterable[dict[str, Any]]) -> str:
    """The ``sources`` field as searched: each source's title then resource."""
    parts: list[str] = []
    for src in sources:
        for key in ("title", "resource"):
            value = src.get(key)
            if value is None or isinstance(value, (list, dict)):
                continue
            text = str(value)
            if text.strip():
                parts.append(text)
    return " ".join(parts)


def concept_tags(concept: Concept) -> list[str]:
    """Tags as search reads them: a list, or a lone scalar read as a one-tag list."""
    value = concept.frontmatter.get("tags")
    if isinstance(value, list):
        return concept.tags
    if value is None or isinstance(value, dict):
        return []
    text = _as_text(value)
    return [text] if text.strip() else []


def concept_fields(concept: Any) -> dict[str, Any]:
    """The searched field texts of a Concept (tags stay a list)."""
    return {
        "title": concept.title,
        "id": concept.id,
        "tags": concept_tags(concept),
        "type": concept.type,
        "description": concept.description,
        "sources": sources_text(concept.sources),
        "body": concept.body,
    }


def _concept_values(c: Any) -> dict[str, Any]:
    """All seven searched fields of a Concept (attribute reads: cached values are plain)."""
    return {
        "title": c.title,
        "id": c.id,
        "tags": concept_tags(c),
        "type": c.type,
        "description": c.description,
        "sources": sources_text(c.sources),
        "body": c.body,
    }


def _low(value: Any) -> str | None:
    """A field as one lowercase ASCII string (list items joined by NUL), or None when not ASCII:
    for ASCII text and an ASCII literal term, ``term in low`` answers exactly what the
    case-insensitive regexp does (io/analysis.py indexes these forms)."""
    if not value:
        return ""
    text = value if value.__class__ is str else "\x00".join(x if x.__class__ is str else str(x) for x in value if x is not None)
    return text.lower() if text.isascii() else None


def word_index(bundle: Any, state: dict[str, Any] | None = None) -> Any:
    """The bundle's :class:`okfpro.core.scanindex.ScanIndex`, built on the first literal scan (or
    restored from ``state``, a stored :meth:`~okfpro.core.scanindex.ScanIndex.state` of the same
    reading) and kept on the Bundle object, which is one reading of the disk (the MCP server
    searches the same object many times; a changed disk is a new Bundle)."""
    memo = bundle.__dict__.get("_okfpro_scan")
    if memo is None:
        from okfpro.core.scanindex import ScanIndex

        if state is not None:
            docs = [bundle.by_path[p] for p in state["paths"]]
            memo = ScanIndex(docs, FIELDS, state["post"], _View, _concept_values, vocab=state["vocab"])
        else:
            memo = ScanIndex.build(bundle.concepts, FIELDS, _View, _concept_values, key=lambda c: c.id)
        bundle.__dict__["_okfpro_scan"] = memo
    return memo


class _View:
    """Uniform read access over a Concept or a Doc."""

    __slots__ = ("obj", "is_doc", "_fields")

    def __init__(self, obj: Concept | Doc) -> None:
        self.obj = obj
        self.is_doc = isinstance(obj, Doc)
        self._fields: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.obj.id

    def attr(self, name: str) -> Any:
        obj = self.obj
        if isinstance(obj, Doc):
            return obj.get(name)
        if name == "title":
            return obj.display_title
        if name == "tags":
            return concept_tags(obj)
        return getattr(obj, name)

    def field(self, name: str) -> Any:
        obj = self.obj
        if isinstance(obj, Doc):
            value = obj.fields.get(name)
            if name == "id" and value is None:
                return obj.id
            return value
        if name == "title":
            return obj.title
        if name == "id":
            return obj.id
        if name == "tags":
            return concept_tags(obj)
        if name == "type":
            return obj.type
        if name == "description":
            return obj.description
        if name == "sources":
            return sources_text(obj.sources)
        if name == "body":
            return obj.body
        return None


# --------------------------------------------------------------------------- filters
class RowFilter(Value):
    """The reference's shared row filter: narrows candidates before any scoring.

    type / tag: exact, case-insensitive.  dir: the named directory and everything
    under it (``.`` or ``root`` = the root only).  status: effective status,
    folded.  trust: tier, folded.
    """

    __slots__ = ("type", "dir", "tag", "status", "trust")
    _fields = __slots__
    type: str | None
    dir: str | None
    tag: str | None
    status: str | None
    trust: str | None

    def __init__(self, type: str | None = None, dir: str | None = None, tag: str | None = None,
                 status: str | None = None, trust: str | None = None) -> None:
        self.type = type
        self.dir = dir
        self.tag = tag
        self.status = status
        self.trust = trust

    def active(self) -> bool:
        return any(v is not None for v in (self.type, self.dir, self.tag, self.status, self.trust))

    def __call__(self, doc: Any) -> bool:
        view = doc if isinstance(doc, _View) else _View(doc)
        if self.type is not None and _fold(view.attr("type")) != _fold(self.type):
            return False
        if self.tag is not None:
            want = _fold(self.tag)
            if not any(_fold(t) == want for t in view.attr("tags") or []):
                return False
        if self.dir is not None and not dir_matches(view.attr("dir"), self.dir):
            return False
        if self.status is not None and _fold(view.attr("status")) != _fold(self.status):
            return False
        if self.trust is not None and _fold(view.attr("trust")) != _fold(self.trust):
            return False
        return True


def _fold(value: Any) -> str:
    return str(value if value is not None else "").strip().casefold()


def normalize_dir(wanted: str) -> str:
    d = wanted.strip()
    while d.startswith("./"):
        d = d[2:]
    d = d.strip("/")
    if d in ("", ".", "root", "(root)"):
        return "."
    return d


def dir_matches(concept_dir: str, wanted: str) -> bool:
    d = normalize_dir(wanted)
    if d == ".":
        return concept_dir == "."
    return concept_dir == d or concept_dir.startswith(d + "/")


# --------------------------------------------------------------------------- scan
def compile_terms(terms: Sequence[str], regexp: bool = False, budget: float | None = None) -> list[Any]:
    """One pattern per term: a case-insensitive literal, or (``regexp``) an expression whose
    searches together finish within ``budget`` seconds (default :data:`REGEXP_BUDGET_S`) or
    raise :class:`SearchTimeout`."""
    if not regexp:
        return [re.compile(re.escape(term), re.IGNORECASE) for term in terms]
    import regex

    budget = REGEXP_BUDGET_S if budget is None else budget
    deadline = time.monotonic() + budget
    out = []
    for term in terms:
        try:
            re.compile(term)  # the stdlib's grammar decides what is a valid expression, as before
            # Ruby's ^ and $ are line anchors; MULTILINE gives Python's the same reading.  V0: re's rules.
            compiled = regex.compile(term, regex.IGNORECASE | regex.MULTILINE | regex.V0)
        except (re.error, regex.error) as exc:
            raise SearchError(f"invalid regular expression {term!r}: {exc}") from None
        out.append(_Budgeted(compiled, deadline, budget))
    return out


def parse_fields(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """``--in title,body`` → the searched fields in weight order; unknown → SearchError."""
    if spec is None:
        return FIELDS
    names = [p.strip().lower() for p in (spec.split(",") if isinstance(spec, str) else spec)]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in WEIGHTS]
    if unknown:
        raise SearchError(f"unknown search field(s): {', '.join(unknown)} (known: {', '.join(FIELDS)})")
    if not names:
        raise SearchError("--in needs at least one field")
    return tuple(f for f in FIELDS if f in names)


def _hits(pattern: re.Pattern[str], value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, (list, tuple)):
        return any(pattern.search(str(v)) for v in value if v is not None)
    return pattern.search(value if isinstance(value, str) else str(value)) is not None


_NON_RUBY_WS = re.compile(r"[\x1c-\x1f]")


def collapse(text: str) -> str:
    """Runs of ASCII whitespace to one space, ends stripped (Ruby's ``\\s``, not Unicode's)."""
    if text.isascii() and not _NON_RUBY_WS.search(text):
        return " ".join(text.split())  # same answer, about twice as fast
    return _WS.sub(" ", text).strip(" \t\r\n\f\v")


_PREFIX_CHUNK = 1024
_HAS_WS = re.compile(r"\s|\\[ \t\n\r\f\v]")


def _first_hit(flat: str, patterns: Sequence[Searcher]) -> Hit | None:
    first: Hit | None = None
    for pattern in patterns:
        m = pattern.search(flat)
        if m is not None and (first is None or m.start() < first.start()):
            first = m
    return first


def snippet(
    text: str, patterns: Sequence[Searcher], radius: int = SNIPPET_RADIUS, literal: bool = False
) -> str:
    """``radius`` characters either side of the first hit in whitespace-collapsed text.

    With ``literal`` patterns a long text is collapsed a prefix at a time: a hit
    whose window ends well inside the collapsed prefix is the same hit, at the same
    offset, as in the whole collapsed text (collapsing is left-to-right and local).
    """
    # The reference's matcher: the first term, in query order, that hits the field's text
    # (not the earliest hit of any term); the window is around that term's first hit.
    chosen = next((p for p in patterns if p.search(text)), None)
    if chosen is None:
        return ""
    patterns = [chosen]
    flat: str | None = None
    first: Hit | None = None
    if literal and len(text) > _PREFIX_CHUNK:
        size = _PREFIX_CHUNK
        if not any(_HAS_WS.search(p.pattern) for p in patterns):
            # a whitespace-free literal hits the raw text where it hits the collapsed text
            raw = _first_hit(text, patterns)
            if raw is None:
                return ""
            size = raw.end() + 4 * radius
        while size < len(text):
            part = collapse(text[:size])
            m = _first_hit(part, patterns)
            if m is not None and m.end() + radius + 2 < len(part):
                flat, first = part, m
                break
            size *= 4
    if first is None:
        flat = collapse(text)
        first = _first_hit(flat, patterns)
        if first is None:
            return ""
    assert flat is not None
    start = max(0, first.start() - radius)
    end = first.end() + radius
    piece = flat[start:end].strip(" ")  # a window edge on a space drops it
    if start > 0:
        piece = ELLIPSIS + piece
    if end < len(flat):
        piece = piece + ELLIPSIS
    return piece


def _score(total: float) -> int | float:
    value = round(total, 4)
    return int(value) if float(value).is_integer() else value


# The fields of a result row (row_for), what --fields / --except are checked against.
ROW = ("id", "title", "type", "dir", "top_dir", "tags", "matched", "score", "snippet")


def row_for(view: _View, matched: Sequence[str], score: float, snip: str) -> dict[str, Any]:
    return {
        "id": view.id,
        "title": view.attr("title"),
        "type": view.attr("type"),
        "dir": view.attr("dir"),
        "top_dir": view.attr("top_dir"),
        "tags": list(view.attr("tags") or []),
        "matched": list(matched),
        "score": _score(score),
        "snippet": snip,
    }


def scan(
    docs: Any,
    terms: Sequence[str],
    *,
    regexp: bool = False,
    fields: str | Iterable[str] | None = None,
    type: str | None = None,  # noqa: A002 - the reference's flag name
    dir: str | None = None,  # noqa: A002
    tag: str | None = None,
    status: str | None = None,
    trust: str | None = None,
    limit: int | None = None,
    where: RowFilter | None = None,
    budget: float | None = None,
) -> list[dict[str, Any]]:
    """The scan engine.  ``docs``: a Bundle, or an iterable of Concepts / :class:`Doc`.

    Raises :class:`SearchError` for a bad regexp or an unknown field, and
    :class:`SearchTimeout` when a regexp search outlasts ``budget`` seconds.
    """
    items = getattr(docs, "concepts", docs)
    patterns = compile_terms(terms, regexp, budget)
    searched = parse_fields(fields)
    flt = where if where is not None else RowFilter(type, dir, tag, status, trust)
    use_filter = flt.active()
    rows: list[dict[str, Any]] = []
    hits: list[tuple[float, str, Any, list[str], dict[str, Any]]] = []
    literal = not regexp
    searchers = [p.search for p in patterns]
    # A literal term that hits a field also hits the fields joined by NUL (a term
    # holding no NUL cannot straddle two of them): one search rules most documents
    # out.  Regexps (anchors, lookarounds) take the per-field path only.
    precheck = literal and not any("\x00" in t for t in terms)
    ascii_terms = [t.lower() for t in terms] if precheck and all(t.isascii() for t in terms) else None
    if ascii_terms and hasattr(docs, "concepts") and hasattr(docs, "__dict__"):
        # a bundle: its word index answers ASCII literals without reading every document
        index = word_index(docs)
        allowed = None
        if use_filter:
            exact = flt.__class__ is RowFilter  # a subclass may decide otherwise: not remembered
            key = (flt.type, flt.dir, flt.tag, flt.status, flt.trust) if exact else object()
            allowed = index.allowed(key, flt)
        hits = index.search(ascii_terms, patterns, searched, WEIGHTS,
                            limit if limit is not None and limit >= 0 else None, allowed)
        items = ()
    for obj in items:
        view = _View(obj)
        if use_filter and not flt(view):
            continue
        if tuple(searched) == FIELDS and not view.is_doc:
            values = _concept_values(obj)
        else:
            values = {name: view.field(name) for name in searched}
        if precheck:
            joined = "\x00".join(
                v if v.__class__ is str else "\x00".join(x if x.__class__ is str else str(x) for x in v if x is not None)
                for v in values.values() if v
            )
            if ascii_terms and joined.isascii():
                low = joined.lower()  # exact for ASCII: IGNORECASE folds nothing else here
                if not all(t in low for t in ascii_terms):
                    continue
            elif not all(search(joined) for search in searchers):
                continue
        matched = 0  # bit i set: searched[i] matched (bits follow weight order)
        ok = True
        for search in searchers:
            hit = False
            for bit, name in enumerate(searched):
                value = values[name]
                if not value:
                    continue
                if value.__class__ is str:
                    found = search(value) is not None
                else:
                    found = any(search(v if v.__class__ is str else str(v)) for v in value if v is not None)
                if found:
                    matched |= 1 << bit
                    hit = True
            if not hit:
                ok = False
                break
        if not ok:
            continue
        order = [name for bit, name in enumerate(searched) if matched >> bit & 1]
        hits.append((-sum(WEIGHTS[f] for f in order), view.id, view, order, values))
    # rank first, then build the rows kept: a snippet costs more than the match (50k concepts, a
    # term in most of them: the snippets of rows a --limit drops were most of the time)
    hits.sort(key=lambda h: (h[0], h[1]))
    if limit is not None and limit >= 0:
        hits = hits[:limit]
    for neg, _, view, order, values in hits:
        snip = ""
        for name in SNIPPET_FIELDS:
            if name in order:
                snip = snippet(_as_text(values[name]), patterns, literal=literal)
                break
        rows.append(row_for(view, order, -neg, snip))
    return rows
