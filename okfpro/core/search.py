"""Search: the reference's field-weighted scan engine, and a ranked (BM25) engine.

Scan (the default, faithful to the reference):

* terms are ANDed; each is a case-insensitive literal substring, or a regular
  expression when ``regexp=True``;
* a document matches when every term hits at least one searched field;
* score = sum of the weights of the fields that matched (any term), so scores
  are absolute and comparable across bundles;
* filters (type / dir / tag / status / trust) narrow the candidates first;
* rows ``{id, title, type, dir, top_dir, tags, matched, score, snippet}``
  sorted by score descending, then id.

Ranked (``ranked``): BM25 over the same fields with the same weights as field
boosts, query terms OR-joined, the last query word also matched as a prefix,
and a tokenizer that keeps identifiers whole (``customer_id``, ``7.2.0``,
``a-b``, a word in backticks), so natural-language questions find the notes
that talk about them.  Memory recall calls it on its own (id, fields) records.

Pure: no file I/O.  Documents are either :class:`okfpro.core.concept.Concept`
objects or :class:`Doc` records (any id + field texts).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

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


# --------------------------------------------------------------------------- docs
@dataclass
class Doc:
    """A searchable record: an id plus field texts (``tags`` may be a list).

    ``meta`` carries what the filters and rows read (type, dir, top_dir, tags,
    status, trust, title); missing keys fall back to sensible defaults.
    """

    id: str
    fields: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)

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


def concept_tags(concept: Any) -> list[str]:
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


class _View:
    """Uniform read access over a Concept or a Doc."""

    __slots__ = ("obj", "is_doc", "_fields")

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.is_doc = isinstance(obj, Doc)
        self._fields: dict[str, Any] | None = None

    @property
    def id(self) -> str:
        return self.obj.id

    def attr(self, name: str) -> Any:
        if self.is_doc:
            return self.obj.get(name)
        if name == "title":
            return self.obj.display_title
        if name == "tags":
            return concept_tags(self.obj)
        return getattr(self.obj, name)

    def field(self, name: str) -> Any:
        if self.is_doc:
            value = self.obj.fields.get(name)
            if name == "id" and value is None:
                return self.obj.id
            return value
        obj = self.obj
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
@dataclass
class RowFilter:
    """The reference's shared row filter: narrows candidates before any scoring.

    type / tag: exact, case-insensitive.  dir: the named directory and everything
    under it (``.`` or ``root`` = the root only).  status: effective status,
    folded.  trust: tier, folded.
    """

    type: str | None = None
    dir: str | None = None
    tag: str | None = None
    status: str | None = None
    trust: str | None = None

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
def compile_terms(terms: Sequence[str], regexp: bool = False) -> list[re.Pattern[str]]:
    out = []
    for term in terms:
        try:
            # Ruby's ^ and $ are line anchors; MULTILINE gives Python's the same reading
            flags = re.IGNORECASE | re.MULTILINE if regexp else re.IGNORECASE
            out.append(re.compile(term if regexp else re.escape(term), flags))
        except re.error as exc:
            raise SearchError(f"invalid regular expression {term!r}: {exc}") from None
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


def _first_hit(flat: str, patterns: Sequence[re.Pattern[str]]) -> re.Match[str] | None:
    first: re.Match[str] | None = None
    for pattern in patterns:
        m = pattern.search(flat)
        if m is not None and (first is None or m.start() < first.start()):
            first = m
    return first


def snippet(
    text: str, patterns: Sequence[re.Pattern[str]], radius: int = SNIPPET_RADIUS, literal: bool = False
) -> str:
    """``radius`` characters either side of the first hit in whitespace-collapsed text.

    With ``literal`` patterns a long text is collapsed a prefix at a time: a hit
    whose window ends well inside the collapsed prefix is the same hit, at the same
    offset, as in the whole collapsed text (collapsing is left-to-right and local).
    """
    flat: str | None = None
    first: re.Match[str] | None = None
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
) -> list[dict[str, Any]]:
    """The scan engine.  ``docs``: a Bundle, or an iterable of Concepts / :class:`Doc`.

    Raises :class:`SearchError` for a bad regexp or an unknown field.
    """
    items = getattr(docs, "concepts", docs)
    patterns = compile_terms(terms, regexp)
    searched = parse_fields(fields)
    flt = where if where is not None else RowFilter(type, dir, tag, status, trust)
    use_filter = flt.active()
    rows: list[dict[str, Any]] = []
    literal = not regexp
    searchers = [p.search for p in patterns]
    for obj in items:
        view = _View(obj)
        if use_filter and not flt(view):
            continue
        values = {name: view.field(name) for name in searched}
        matched = 0  # bit i set: FIELDS[i] matched (bits follow weight order)
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
        score = sum(WEIGHTS[f] for f in order)
        snip = ""
        for name in SNIPPET_FIELDS:
            if name in order:
                snip = snippet(_as_text(values[name]), patterns, literal=literal)
                break
        rows.append(row_for(view, order, score, snip))
    rows.sort(key=lambda r: (-r["score"], r["id"]))
    if limit is not None and limit >= 0:
        rows = rows[:limit]
    return rows


# --------------------------------------------------------------------------- ranked
# A token is a run of word characters, joined through inner ``_ . - / : @ #``
# when a word character follows (customer_id, 7.2.0, okf-pro, a/b, user@host),
# so identifiers stay whole.  Words in backticks are kept whole as one token too.
_TOKEN = re.compile(r"\w+(?:[._\-/:@#+]\w+)*")
_BACKTICK = re.compile(r"`([^`\n]+)`")
K1 = 1.2
B = 0.75


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str) -> list[str]:
    """Folded tokens; an identifier also yields its parts (``customer_id`` → customer_id, customer, id)."""
    if not text:
        return []
    folded = fold(text)
    out: list[str] = []
    for m in _BACKTICK.finditer(folded):
        inner = m.group(1).strip()
        if inner and not _TOKEN.fullmatch(inner):
            out.append(inner)
    for m in _TOKEN.finditer(folded):
        tok = m.group(0)
        out.append(tok)
        if not tok.isalnum():
            parts = [p for p in re.split(r"[^\w]+|_", tok) if p]
            if len(parts) > 1:
                out.extend(parts)
    return out


def query_tokens(query: str | Sequence[str]) -> list[str]:
    text = query if isinstance(query, str) else " ".join(query)
    folded = fold(text)
    out: list[str] = []
    for m in _BACKTICK.finditer(folded):
        inner = m.group(1).strip()
        if inner:
            out.append(inner)
    rest = _BACKTICK.sub(" ", folded)
    for m in _TOKEN.finditer(rest):
        out.append(m.group(0))
    seen: set[str] = set()
    uniq = []
    for tok in out:
        if tok not in seen:
            seen.add(tok)
            uniq.append(tok)
    return uniq


class RankedIndex:
    """An in-memory inverted index: BM25 per field, field boosts = the scan weights.

    Build once (``RankedIndex(docs)``), query many times (``.query(q, limit)``).
    """

    def __init__(self, docs: Any, fields: str | Iterable[str] | None = None) -> None:
        items = list(getattr(docs, "concepts", docs))
        self.fields = parse_fields(fields)
        self.views = [_View(o) for o in items]
        n = len(self.views)
        self.n = n
        # postings[field][token] -> {doc index: term frequency}
        self.postings: dict[str, dict[str, dict[int, int]]] = {f: defaultdict(dict) for f in self.fields}
        self.lengths: dict[str, list[int]] = {f: [0] * n for f in self.fields}
        self.texts: list[dict[str, Any]] = []
        for i, view in enumerate(self.views):
            values = {}
            for name in self.fields:
                value = view.field(name)
                values[name] = value
                toks = tokenize(_as_text(value))
                self.lengths[name][i] = len(toks)
                post = self.postings[name]
                for tok in toks:
                    bucket = post[tok]
                    bucket[i] = bucket.get(i, 0) + 1
            self.texts.append(values)
        self.avg = {f: (sum(self.lengths[f]) / n if n else 0.0) or 1.0 for f in self.fields}
        self.vocab = sorted({t for f in self.fields for t in self.postings[f]})

    def _expand(self, token: str, prefix: bool) -> list[str]:
        if not prefix or len(token) < 2:
            return [token]
        import bisect

        out = []
        i = bisect.bisect_left(self.vocab, token)
        while i < len(self.vocab) and self.vocab[i].startswith(token):
            out.append(self.vocab[i])
            i += 1
        return out or [token]

    def query(
        self,
        query: str | Sequence[str],
        limit: int | None = 10,
        *,
        where: RowFilter | None = None,
        prefix: bool = True,
    ) -> list[dict[str, Any]]:
        qtoks = query_tokens(query)
        if not qtoks or not self.n:
            return []
        scores: dict[int, float] = defaultdict(float)
        matched: dict[int, set[str]] = defaultdict(set)
        hit_terms: dict[int, set[str]] = defaultdict(set)
        for qt in qtoks:
            for tok in self._expand(qt, prefix):
                exact = tok == qt
                for name in self.fields:
                    post = self.postings[name].get(tok)
                    if not post:
                        continue
                    df = len(post)
                    idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
                    boost = WEIGHTS[name] * (1.0 if exact else 0.5)
                    lens = self.lengths[name]
                    avg = self.avg[name]
                    for i, tf in post.items():
                        norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * lens[i] / avg))
                        scores[i] += boost * idf * norm
                        matched[i].add(name)
                        hit_terms[i].add(tok)
        ranked = sorted(scores, key=lambda i: (-round(scores[i], 4), self.views[i].id))
        rows: list[dict[str, Any]] = []
        for i in ranked:
            view = self.views[i]
            if where is not None and where.active() and not where(view):
                continue
            order = [f for f in FIELDS if f in matched[i]]
            snip = ""
            patterns = [re.compile(r"(?<!\w)" + re.escape(t), re.IGNORECASE) for t in sorted(hit_terms[i])]
            for name in SNIPPET_FIELDS:
                if name in matched[i]:
                    snip = snippet(_as_text(self.texts[i][name]), patterns)
                    break
            rows.append(row_for(view, order, scores[i], snip))
            if limit is not None and len(rows) >= limit:
                break
        return rows


def ranked(
    docs: Any,
    query: str | Sequence[str],
    limit: int | None = 10,
    *,
    fields: str | Iterable[str] | None = None,
    where: RowFilter | None = None,
    **filters: Any,
) -> list[dict[str, Any]]:
    """One-shot ranked search (builds the index, answers, drops it)."""
    if where is None and filters:
        where = RowFilter(**{k: filters.get(k) for k in ("type", "dir", "tag", "status", "trust")})
    items = list(getattr(docs, "concepts", docs))
    if where is not None and where.active():
        items = [o for o in items if where(_View(o))]
    return RankedIndex(items, fields).query(query, limit)
