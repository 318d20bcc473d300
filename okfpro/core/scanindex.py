"""The scan engine's word index: a literal search of a large bundle without reading every text.

The scan engine's contract (``okfpro.core.search.scan``) is a case-insensitive *substring*
match per field.  For a term made only of ASCII word characters (``[a-z0-9_]``, case
folded) an occurrence lies inside one maximal run of word characters of the text, so

    the field holds the term  <=>  some *word* of the field contains it.

The index keeps, per searched field, each word's documents as a bitmap (a Python ``int``,
bit *i* = the *i*-th document in id order), so a term is answered by walking the
vocabulary (one C-speed ``find`` per matching word, not per document) and OR-ing bitmaps;
terms AND, fields OR, and the score (the sum of the weights of the matched fields) is read
off by splitting the match set field by field.  Rows come out in the scan's order (score
descending, then id) without sorting, and only the rows kept are built.

Exactness (what the tests pin against the plain per-document scan):

* Case folding is Python's ``re.IGNORECASE`` for an ASCII term: ASCII letters fold to
  lower case, and the four non-ASCII characters that ``re`` matches to an ASCII word
  character (``İ ı`` -> ``i``, ``ſ`` -> ``s``, ``K`` -> ``k``, found by checking every code
  point) are mapped to it; every other non-ASCII character separates words.  The mapping
  is one character for one, so a run of word characters is never moved or split.
* A term with other characters (``customer-id``, ``7.2.0``, ``a b``) is narrowed by its
  word pieces (each must be inside some word of the field) and then checked with the
  scan's own pattern on those candidates only.
* Non-ASCII terms and regular expressions are not answered here (the caller scans).

Pure: built from parsed concepts, kept on the Bundle object (one reading of the disk).
"""

from __future__ import annotations

import bisect
import re


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Callable, Sequence

WORD = re.compile(r"[a-z0-9_]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# the non-ASCII characters that re.IGNORECASE matches to an ASCII word character
SPECIAL = {0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}
_SPECIAL = str.maketrans(SPECIAL)
_DENSE = 64  # a word in more than n/_DENSE documents keeps its bitmap; rarer ones keep a list


def fold_words(text: str) -> set[str]:
    """The words of ``text`` as an ASCII term is matched against them."""
    if not text.isascii():
        text = _NON_ASCII.sub(" ", text.translate(_SPECIAL))
    return set(WORD.findall(text.lower()))


def _text(value: Any) -> str:
    if not value:
        return ""
    if value.__class__ is str:
        return value
    return "\x00".join(x if x.__class__ is str else str(x) for x in value if x is not None)


def _bits(indices: Sequence[int], nbytes: int) -> int:
    buf = bytearray(nbytes)
    for i in indices:
        buf[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buf, "little")


def iter_bits(x: int, limit: int | None = None) -> list[int]:
    """The set bits of ``x`` in ascending order (at most ``limit``)."""
    out: list[int] = []
    if not x:
        return out
    s = bin(x)[:1:-1]  # least significant bit first
    find = s.find
    pos = find("1")
    while pos >= 0:
        out.append(pos)
        if limit is not None and len(out) >= limit:
            break
        pos = find("1", pos + 1)
    return out


class ScanIndex:
    """Per field, word -> documents (bitmap or index list); documents in id order.

    ``docs`` are the documents in id order; ``view_of(doc)`` / ``values_of(doc)`` give a row's
    view and its field values, computed only for the documents a query looks at."""

    def __init__(self, docs: Sequence[Any], fields: Sequence[str], post: dict[str, dict[str, Any]],
                 view_of: Callable[[Any], Any], values_of: Callable[[Any], dict[str, Any]],
                 vocab: list[str] | None = None) -> None:
        self.docs = list(docs)
        self.n = n = len(self.docs)
        self.full = (1 << n) - 1
        self._nbytes = (n + 7) // 8 or 1
        self.fields = tuple(fields)
        self.post = post
        self._view_of, self._values_of = view_of, values_of
        self._views: list[Any] = [None] * n
        self._vals: list[Any] = [None] * n
        if vocab is None:
            vocab = sorted({w for table in post.values() for w in table})
        self.vocab = vocab
        self._blob = "\n".join(vocab)
        starts, at = [], 0
        for w in vocab:
            starts.append(at)
            at += len(w) + 1
        self._starts = starts
        self._filters: dict[Any, int] = {}

    @classmethod
    def build(cls, docs: Sequence[Any], fields: Sequence[str], view_of: Callable[[Any], Any],
              values_of: Callable[[Any], dict[str, Any]], key: Callable[[Any], str]) -> "ScanIndex":
        ordered = sorted(docs, key=key)
        n = len(ordered)
        nbytes = (n + 7) // 8 or 1
        values = [values_of(d) for d in ordered]
        post: dict[str, dict[str, Any]] = {}
        dense = max(1, n // _DENSE)
        for f in fields:
            table: dict[str, Any] = {}
            get = table.get
            for i, vals in enumerate(values):
                text = _text(vals.get(f))
                if not text:
                    continue
                for w in fold_words(text):
                    row = get(w)
                    if row is None:
                        table[w] = [i]
                    else:
                        row.append(i)
            for w, row in table.items():
                if len(row) > dense:
                    table[w] = _bits(row, nbytes)
            post[f] = table
        index = cls(ordered, fields, post, view_of, values_of)
        index._vals = values
        return index

    def state(self) -> dict[str, Any]:
        """What a store keeps (plain values): the fields, the vocabulary and the postings (a rare
        word's documents as a list, or as ``bytes`` of native unsigned ints, which a store may
        write instead: they load without an object each)."""
        return {"fields": list(self.fields), "vocab": self.vocab, "post": self.post}

    def view(self, i: int) -> Any:
        v = self._views[i]
        if v is None:
            v = self._views[i] = self._view_of(self.docs[i])
        return v

    def values(self, i: int) -> dict[str, Any]:
        v: dict[str, Any] | None = self._vals[i]
        if v is None:
            v = self._vals[i] = self._values_of(self.docs[i])
        return v

    # ------------------------------------------------------------------ terms
    def words_with(self, piece: str) -> list[str]:
        """Vocabulary words that contain ``piece`` (one ``find`` per matching word)."""
        out: list[str] = []
        blob, starts, vocab = self._blob, self._starts, self.vocab
        pos = blob.find(piece)
        while pos >= 0:
            k = bisect.bisect_right(starts, pos) - 1
            out.append(vocab[k])
            nxt = starts[k + 1] if k + 1 < len(starts) else len(blob)
            pos = blob.find(piece, nxt)
        return out

    def _union(self, field: str, words: Sequence[str]) -> int:
        table = self.post[field]
        acc = 0
        sparse: list[int] = []
        for w in words:
            row = table.get(w)
            if row is None:
                continue
            if row.__class__ is int:
                acc |= row
            elif row.__class__ is bytes:
                sparse.extend(memoryview(row).cast("I"))
            else:
                sparse.extend(row)
        if sparse:
            acc |= _bits(sparse, self._nbytes)
        return acc

    def _term(self, term: str, pattern: Any, searched: Sequence[str]) -> dict[str, int]:
        """Per searched field, the documents whose field holds ``term`` (lower-case ASCII)."""
        pieces = WORD.findall(term)
        if pieces == [term]:
            words = self.words_with(term)
            return {f: self._union(f, words) for f in searched}
        cands: dict[str, int] = {}
        matches = []
        for m in WORD.finditer(term):
            # a piece with a non-word character before it starts a word of the text; one with a
            # non-word character after it ends one (inside the term: the whole word)
            p, opens, closes = m.group(), m.start() > 0, m.end() < len(term)
            matches.append([w for w in self.words_with(p)
                            if (not opens or w.startswith(p)) and (not closes or w.endswith(p))])
        for f in searched:
            acc = self.full
            for words in matches:
                acc &= self._union(f, words)
                if not acc:
                    break
            cands[f] = acc
        out = {}
        search = pattern.search
        for f in searched:
            hit = 0
            for i in iter_bits(cands[f]):
                text = _text(self.values(i).get(f))
                if not text:
                    continue
                # list items are joined by NUL, which the term does not hold: no straddling
                found = term in text.lower() if text.isascii() else search(text) is not None
                if found:
                    hit |= 1 << i
            out[f] = hit
        return out

    def allowed(self, key: Any, keep: Callable[[Any], bool]) -> int:
        """The documents a row filter keeps (remembered per filter)."""
        got = self._filters.get(key)
        if got is None:
            got = _bits([i for i in range(self.n) if keep(self.view(i))], self._nbytes)
            if len(self._filters) >= 64:
                self._filters.clear()
            self._filters[key] = got
        return got

    # ------------------------------------------------------------------ query
    def search(
        self,
        terms: Sequence[str],
        patterns: Sequence[Any],
        searched: Sequence[str],
        weights: dict[str, int],
        limit: int | None = None,
        allowed: int | None = None,
    ) -> list[tuple[int, str, Any, list[str], dict[str, Any]]]:
        """Hits ``(-score, id, view, matched fields, values)`` in the scan's order, at most ``limit``.

        ``terms``: lower-case ASCII literals holding no NUL; ``patterns``: the scan's compiled
        pattern for each (used to confirm candidates of terms that are not one word)."""
        every = self.full if allowed is None else allowed
        per_term = []
        for term, pattern in zip(terms, patterns):
            hits = self._term(term, pattern, searched)
            anyf = 0
            for f in searched:
                anyf |= hits[f]
            every &= anyf
            if not every:
                return []
            per_term.append(hits)
        leaves = [(every, 0)]
        for bit, f in enumerate(searched):
            in_f = 0
            for hits in per_term:
                in_f |= hits[f]
            nxt = []
            for docs, mask in leaves:
                yes = docs & in_f
                if yes:
                    nxt.append((yes, mask | 1 << bit))
                no = docs & ~in_f
                if no:
                    nxt.append((no, mask))
            leaves = nxt
        by_score: dict[int, list[tuple[int, int]]] = {}
        for docs, mask in leaves:
            score = sum(weights[f] for bit, f in enumerate(searched) if mask >> bit & 1)
            by_score.setdefault(score, []).append((docs, mask))
        out: list[tuple[int, str, Any, list[str], dict[str, Any]]] = []
        for score in sorted(by_score, reverse=True):
            left = None if limit is None else limit - len(out)
            found = sorted((i, mask) for docs, mask in by_score[score] for i in iter_bits(docs, left))
            for i, mask in found[:left]:
                order = [f for bit, f in enumerate(searched) if mask >> bit & 1]
                view = self.view(i)
                out.append((-score, view.id, view, order, self.values(i)))
            if limit is not None and len(out) >= limit:
                break
        return out
