"""The ranked engine: BM25 over the scan's fields, with the scan's weights as field boosts.

Query terms are OR-joined, a query word of three or more characters also matches as a
prefix, and the tokenizer keeps identifiers whole (``customer_id``, ``7.2.0``, ``a-b``, a
word in backticks) while also yielding their parts, so natural-language questions find the
notes that talk about them.  :func:`rank_docs` (bundle search) stems plain words
(:mod:`okfpro.core.stem`); memory recall builds :class:`RankedIndex` over its own (id,
fields) records.  ``okfpro/io/fts.py`` answers the same rows from a persistent index (its
postings: :mod:`okfpro.core.bundlepostings`).

Pure: no file I/O.
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections import Counter

from okfpro.core.search import (
    FIELDS,
    SNIPPET_FIELDS,
    WEIGHTS,
    RowFilter,
    _as_text,
    _View,
    parse_fields,
    row_for,
    snippet,
)
from okfpro.core.stem import stem

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the fresh-process paths
    from typing import Any, Callable, Iterable, Sequence

# Tokens: runs of word characters joined through inner ``. _ - / : @ # +`` (so
# ``customer_id``, ``7.2.0``, ``okf-pro``, ``a/b`` stay whole); a joined token also
# yields its parts (``customer_id`` → ``customer_id``, ``customer``, ``id``).  A
# span in backticks is one more token, its inner blanks and other punctuation
# written as ``_`` (``git rebase -i`` → ``git_rebase_-i``).  Text is NFKC-normalised
# and case-folded (``Straße`` → ``strasse``).
#
# Score: SQLite FTS5's ``bm25()`` expression (memory recall's index computes it to the bit):
#   for each query phrase p (a token; a prefix ``p*`` when len(p) >= 3):
#     idf(p) = ln((N - n(p) + 0.5) / (n(p) + 0.5)), or 1e-6 when that is <= 0 (FTS5's: memory recall)
#            = ln(1 + (N - n(p) + 0.5) / (n(p) + 0.5)) (Lucene's: bundles, :func:`lucene_idf`)
#     F      = sum over searched fields f of weight(f) * tf(p, f)
#     score += idf(p) * F * (k1 + 1) / (F + k1 * (1 - b + b * D / avgD))
#   with k1 = 1.2, b = 0.75, D = the document's token count over all fields,
#   avgD = the mean of D, n(p) = documents holding p in a searched field.
# Query words are OR-joined; a few English stop words are dropped from queries.
_TOKEN = re.compile(r"\w+(?:[._\-/:@#+]\w+)*")
_BACKTICK = re.compile(r"`([^`\n]+)`")
_BT_ODD = re.compile(r"[^\w._\-/:@#+]+")
_PARTS = re.compile(r"[^\W_]+")
_JOINED = re.compile(r"\w[.\-/:@#+]\w")
K1 = 1.2
B = 0.75
PREFIX_MIN = 3
STOP_WORDS = frozenset(
    "a an and are as at be by do does for from has have how i in is it its of on or that the this to "
    "was were what when where which who why will with".split()
)


def phrase_score(idf: float, f: float, length: float, avg: float, b: float = B) -> float:
    """One phrase's share of a document's score: FTS5's ``bm25()`` term (``fts5_aux.c``),
    operation for operation, so an engine that sums these in the query's order gets FTS5's
    score to the bit (the index of memory recall: :mod:`okfpro.core.postings`).  ``b``: how much
    a document's length counts (FTS5's and the reference's 0.75; memory recall's is its own,
    :data:`okfpro.memory.ranking.LENGTH_B`)."""
    return idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - b + b * length / avg)))


def fts5_idf(rows: int, hits: int) -> float:
    """FTS5's idf of a phrase ``hits`` of ``rows`` documents hold: 1e-6 where the log is not
    positive, i.e. for a phrase in half the documents or more."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def lucene_idf(rows: int, hits: int) -> float:
    """Lucene's idf, ln(1 + (N - n + 0.5) / (n + 0.5)): the bundle's ranked engine's.  Never below
    zero, and it keeps common words apart, where FTS5's (:func:`fts5_idf`) puts every word in half
    the notes or more at 1e-6 (45 % of the matched words of this project's design questions:
    ``.okf/design/search-quality.md``)."""
    return math.log(1.0 + (rows - hits + 0.5) / (hits + 0.5))


def fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str) -> list[str]:
    """Folded tokens of ``text`` (identifiers whole, plus their parts, plus backtick spans)."""
    if not text:
        return []
    folded = fold(text)
    toks = _TOKEN.findall(folded)
    if "_" in folded or _JOINED.search(folded):
        extra = [p for t in toks if not t.isalnum() for p in _PARTS.findall(t)]
    else:  # no identifier in this text: every token is a plain word
        extra = []
    if "`" in folded:
        for inner in _BACKTICK.findall(folded):
            inner = inner.strip()
            span = _BT_ODD.sub("_", inner)
            if span and (span != inner or not _TOKEN.fullmatch(span)):
                extra.append(span)
    return toks + extra if extra else toks


def query_tokens(query: str | Sequence[str]) -> list[str]:
    """The query's distinct tokens in order, stop words dropped (unless nothing else is left)."""
    text = query if isinstance(query, str) else " ".join(query)
    folded = fold(text)
    out: list[str] = []
    for inner in _BACKTICK.findall(folded):
        span = _BT_ODD.sub("_", inner.strip())
        if span:
            out.append(span)
    out.extend(_TOKEN.findall(_BACKTICK.sub(" ", folded)))
    uniq = list(dict.fromkeys(out))
    kept = [t for t in uniq if t not in STOP_WORDS]
    return kept or uniq


def stemmed_terms(text: str) -> list[str]:
    """The text's tokens (:func:`tokenize`), plain words stemmed (:func:`okfpro.core.stem.stem`)."""
    return [stem(t) for t in tokenize(text)]


def stemmed_query(query: str | Sequence[str]) -> list[str]:
    """The query's tokens (:func:`query_tokens`), stemmed, distinct, in order — a fixed point of
    ``query_tokens``, so the ranked engine reads them unchanged (memory recall)."""
    return query_tokens([stem(t) for t in query_tokens(query)])


def bundle_query(query: str | Sequence[str]) -> list[str]:
    """:func:`stemmed_query` plus the stemmed parts of each joined token (``tenant_id`` also asks
    for ``tenant`` and ``id``), as the documents' tokens carry them: a question naming an
    identifier also finds the note titled with its words (measured with ``bench/eval_search.py``)."""
    toks = stemmed_query(query)
    parts = [stem(p) for t in toks if not t.isalnum() for p in _PARTS.findall(t)]
    return query_tokens(toks + parts) if parts else toks


class RankedIndex:
    """An in-memory inverted index; build once, query many times.

    ``postings[token] -> {doc: (tf in field 0, tf in field 1, ...)}`` over the
    searched fields (weight order).
    """

    def __init__(self, docs: Any, fields: str | Iterable[str] | None = None, tokenizer: Any = None,
                 b: float = B, idf: Callable[[int, int], float] = fts5_idf) -> None:
        """``tokenizer``: text -> tokens (default :func:`tokenize`; memory recall stems them);
        ``b``: the length normalisation (:func:`phrase_score`); ``idf``: a phrase's idf from
        (documents, documents holding it) — FTS5's for memory recall, :func:`lucene_idf` for
        bundles (:func:`rank_docs`)."""
        tokenizer = tokenizer or tokenize
        self.b = b
        self.idf = idf
        items = list(getattr(docs, "concepts", docs))
        self.fields = parse_fields(fields)
        self.views = [_View(o) for o in items]
        self.n = len(self.views)
        nf = len(self.fields)
        postings: dict[str, dict[int, list[int]]] = {}
        self.doc_len: list[int] = []
        self.texts: list[dict[str, Any]] = []
        for i, view in enumerate(self.views):
            values = {}
            total = 0
            for j, name in enumerate(FIELDS):
                value = view.field(name)
                values[name] = value
                toks = tokenizer(_as_text(value))
                total += len(toks)
                if name not in self.fields:
                    continue
                j = self.fields.index(name)
                for tok, tf in Counter(toks).items():
                    row = postings.get(tok)
                    if row is None:
                        row = postings[tok] = {}
                    cell = row.get(i)
                    if cell is None:
                        cell = row[i] = [0] * nf
                    cell[j] = tf
            self.doc_len.append(total)
            self.texts.append(values)
        self.postings = postings
        self.avg = (sum(self.doc_len) / self.n) if self.n else 1.0
        self.vocab = sorted(postings)

    def expand(self, token: str) -> list[str]:
        if len(token) < PREFIX_MIN:
            return [token] if token in self.postings else []
        out = []
        i = bisect.bisect_left(self.vocab, token)
        while i < len(self.vocab) and self.vocab[i].startswith(token):
            out.append(self.vocab[i])
            i += 1
        return out

    def expand_fuzzy(self, token: str) -> list[tuple[str, float]]:
        """``--fuzzy`` (the reference's definition): the token itself, the tokens it prefixes, and
        the tokens within edit distance ``round(0.2 x length)`` (at most 6), each with its weight —
        1 for an exact or prefix hit, ``0.45 x len / (len + distance)`` for a typo."""
        limit = min(FUZZY_MAX, math.floor(len(token) * FUZZY_DISTANCE + 0.5))
        out = {tok: 1.0 for tok in self.expand(token)}
        if limit:
            for tok in self.vocab:
                if tok in out or abs(len(tok) - len(token)) > limit:
                    continue
                d = edit_distance(token, tok, limit)
                if d <= limit:
                    out[tok] = FUZZY_WEIGHT * len(token) / (len(token) + d)
        return list(out.items())

    def scores(self, query: str | Sequence[str], fuzzy: bool = False
               ) -> tuple[dict[int, float], dict[int, int], dict[int, list[str]]]:
        weights = [WEIGHTS[f] for f in self.fields]
        nf = len(weights)
        scores: dict[int, float] = {}
        matched: dict[int, int] = {}
        hits: dict[int, list[str]] = {}
        avg = self.avg or 1.0
        b = self.b
        terms = query_tokens(query)
        every: dict[int, int] = {}  # fuzzy is the reference's index engine: terms ANDed
        for qt in terms:
            tfs: dict[int, list[float]] = {}
            expansions = self.expand_fuzzy(qt) if fuzzy else [(tok, 1.0) for tok in self.expand(qt)]
            for tok, w in expansions:
                for i, cell in self.postings[tok].items():
                    acc = tfs.get(i)
                    if acc is None:
                        tfs[i] = [w * c for c in cell] if w != 1.0 else list(cell)
                    else:
                        for j in range(nf):
                            acc[j] += w * cell[j]
                    hits.setdefault(i, []).append(tok)
            if not tfs:
                continue
            idf = self.idf(self.n, len(tfs))
            for i, tf in tfs.items():
                f = 0.0
                bits = 0
                for j in range(nf):
                    if tf[j]:
                        f += weights[j] * tf[j]
                        bits |= 1 << j
                scores[i] = scores.get(i, 0.0) + phrase_score(idf, f, self.doc_len[i], avg, b)
                matched[i] = matched.get(i, 0) | bits
                every[i] = every.get(i, 0) + 1
        if fuzzy:
            keep = {i for i, n in every.items() if n == len(terms)}
            scores = {i: v for i, v in scores.items() if i in keep}
        return scores, matched, hits

    def query(
        self,
        query: str | Sequence[str],
        limit: int | None = 10,
        *,
        where: RowFilter | None = None,
        fuzzy: bool = False,
    ) -> list[dict[str, Any]]:
        scores, matched, hits = self.scores(query, fuzzy)
        order = sorted(scores, key=lambda i: (-round(scores[i], 4), self.views[i].id))
        rows: list[dict[str, Any]] = []
        use_filter = where is not None and where.active()
        for i in order:
            view = self.views[i]
            if use_filter and not where(view):  # type: ignore[misc]  # use_filter is True only when where is set
                continue
            names = [f for j, f in enumerate(self.fields) if matched[i] >> j & 1]
            rows.append(row_for(view, names, scores[i], self._snippet(i, names, hits[i])))
            if limit is not None and len(rows) >= limit:
                break
        return rows

    def _snippet(self, i: int, names: list[str], toks: list[str]) -> str:
        return ranked_snippet(self.texts[i], names, toks)


class WordStart:
    """A snippet token's pattern: ``(?<!\\w)`` + the token, case-insensitive, each ``_`` in it
    matching a run of ``[_\\W]`` (the blanks and punctuation a backtick span had); compiled on
    the first ``search``."""

    __slots__ = ("pattern", "_compiled")

    def __init__(self, token: str) -> None:
        self.pattern = r"(?<!\w)" + re.escape(token).replace("_", "[_\\W]+")
        self._compiled: Any = None

    def search(self, text: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, re.IGNORECASE)
        return self._compiled.search(text)


def ranked_snippet(values: dict[str, Any], names: Sequence[str], toks: Iterable[str]) -> str:
    """The ranked engine's snippet: the scan window around the first token hit.

    A token matches at a word start; ``_`` in a token also matches the blanks and
    punctuation a backtick span had.  Text that only matches once folded
    (``Straße`` for ``strasse``) is shown folded.
    """
    patterns = [WordStart(t) for t in sorted(set(toks), key=lambda t: (-len(t), t))]
    for name in SNIPPET_FIELDS:
        if name in names:
            text = _as_text(values.get(name))
            snip = snippet(text, patterns) or snippet(fold(text), patterns)
            if snip:
                return snip
    return ""


def rank_docs(
    docs: Any,
    query: str | Sequence[str],
    limit: int | None = 10,
    *,
    fields: str | Iterable[str] | None = None,
    where: RowFilter | None = None,
    fuzzy: bool = False,
    **filters: Any,
) -> list[dict[str, Any]]:
    """One-shot ranked search over a Bundle or (id, fields) :class:`Doc` records.

    Corpus statistics cover every document; filters (``where`` or type/dir/tag/
    status/trust keywords) then choose which ranked rows are returned.
    """
    if where is None and filters:
        where = RowFilter(**{k: filters.get(k) for k in ("type", "dir", "tag", "status", "trust")})
    index = RankedIndex(docs, fields, tokenizer=stemmed_terms, idf=lucene_idf)
    return index.query(bundle_query(query), limit, where=where, fuzzy=fuzzy)


FUZZY_DISTANCE = 0.2  # the reference's (and MiniSearch's) edit distance per character of the term
FUZZY_MAX = 6
FUZZY_WEIGHT = 0.45


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` as soon as it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        best = i
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if cur[j] < best:
                best = cur[j]
        if best > limit:
            return limit + 1
        prev = cur
    return prev[-1]
