"""Rule 1 from the incremental state: the concepts' search texts, word postings, an exact ranking.

Part of :mod:`okfpro.io.analysis` (same database, same transaction).  For each concept whose
seven searched fields are plain ASCII it keeps the lowercase texts (``docs``, ``bodies``) and
*word postings*: for a term made of word characters (``[a-z0-9_]``, the scan index's
:data:`~okfpro.core.scanindex.WORD`) an occurrence lies inside one word of the field, so

    a field holds the term  <=>  some word of the field contains it.

``spost`` holds, for each word of a concept's short fields (all but the body), the score that word
alone gives (the weights of the fields holding it, plus the body's when the body holds it too),
ordered by score, then id; ``bpost`` the words only the body holds (score 1).  A term's concepts
come out of the postings of the vocabulary words containing it, merged best first; a concept is
emitted once no concept not yet seen can rank before it (threshold ranking: an unseen concept
scores at most the sum of the postings' current scores, and with one word ranks after the
current posting; with several words its body may add the body's weight).  So a term found in most concepts reads a handful of postings, not every text.
Other terms (not word characters, or in too many vocabulary words) are ranked by SQL over the
stored texts, in bands (``.okf/design/incremental-post-edit.md``).  Concepts with other text
(or a word of :data:`LONG_WORD` characters: its suffixes cost its length squared) are ``irregular``
and scanned by the engine itself.
"""

from __future__ import annotations

import heapq
import re


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the hook paths
    from typing import Any, Iterator

DDL = (
    # the short fields apart from the bodies: scoring them reads small rows only
    "CREATE TABLE docs(n INTEGER PRIMARY KEY, path TEXT UNIQUE, cid TEXT, short TEXT, title TEXT, id TEXT, tags TEXT,"
    " type TEXT, description TEXT, sources TEXT)",
    "CREATE TABLE bodies(path TEXT PRIMARY KEY, body TEXT)",
    "CREATE TABLE irregular(path TEXT PRIMARY KEY)",
    # every suffix of every word ever posted (a stale word posts nothing): a term lies inside a word
    # exactly when it begins one of the word's suffixes, so the words holding a term are one range read
    "CREATE TABLE vocab(suf TEXT, word TEXT, PRIMARY KEY(suf, word)) WITHOUT ROWID",
    "CREATE TABLE spost(word TEXT, s INT, cid TEXT, doc INT, PRIMARY KEY(word, s, cid, doc)) WITHOUT ROWID",
    "CREATE TABLE bpost(word TEXT, doc INT, PRIMARY KEY(word, doc)) WITHOUT ROWID",
)
SHORT = ("title", "id", "tags", "type", "description", "sources")
IRREGULAR_MAX = 400  # concepts with non-ASCII text or a LONG_WORD, scanned by the engine itself on every reconcile
MAX_WORDS = 64  # a term inside more vocabulary words than this is ranked by SQL over the texts
# A word's suffixes cost its length squared: a concept holding a word this long is irregular (a
# 17,000-digit integer alone was ~150 MB of suffixes and seconds of every state build)
LONG_WORD = re.compile(r"[a-z0-9_]{256}")


def _postings(short: dict[str, str], body: str) -> tuple[dict[str, int], set[str]]:
    """(word of the short fields -> the score it alone gives, the words only the body holds)."""
    from okfpro.core.scanindex import WORD
    from okfpro.core.search import WEIGHTS

    score: dict[str, int] = {}
    for field in SHORT:
        weight = WEIGHTS[field]
        for word in set(WORD.findall(short[field])):
            score[word] = score.get(word, 0) + weight
    in_body = set(WORD.findall(body))
    for word in in_body.intersection(score):
        score[word] += WEIGHTS["body"]
    return score, in_body.difference(score)


class Sink:
    """Postings gathered for one bulk write (a state build), written in key order at the end: a
    B-tree filled in order costs a fraction of one filled at random (50,000 concepts: ~3 million
    postings)."""

    def __init__(self) -> None:
        self.short: list[tuple[str, int, str, int]] = []
        self.body: list[tuple[str, int]] = []
        self.vocab: set[str] = set()

    def flush(self, db: Any) -> None:
        self.short.sort()
        self.body.sort()
        db.executemany("INSERT INTO spost(word, s, cid, doc) VALUES(?,?,?,?)", self.short)
        db.executemany("INSERT INTO bpost(word, doc) VALUES(?,?)", self.body)
        db.executemany("INSERT OR IGNORE INTO vocab(suf, word) VALUES(?,?)",
                       sorted((w[i:], w) for w in self.vocab for i in range(len(w))))
        self.short, self.body, self.vocab = [], [], set()


def index_text(db: Any, rel: str, concept: Any, sink: Sink | None = None) -> None:
    """Store a concept's search texts and postings (after :func:`drop_text`); with ``sink``,
    the postings wait there for :meth:`Sink.flush`."""
    from okfpro.core import search

    values = search._concept_values(concept)
    found = [search._low(values[name]) for name in search.FIELDS]
    # not plain ASCII, or a word too long for the suffix table: searched the slow way
    if any(low is None or "\x01" in low or LONG_WORD.search(low) for low in found):
        db.execute("INSERT INTO irregular(path) VALUES(?)", (rel,))
        return
    fields = dict(zip(search.FIELDS, ((low or "").replace("\x00", "\x01") for low in found)))
    short = "\x01".join(fields[name] for name in SHORT)
    n = db.execute("INSERT INTO docs(path, cid, short, title, id, tags, type, description, sources) "
                   "VALUES(?,?,?,?,?,?,?,?,?)", (rel, concept.id, short, *(fields[f] for f in SHORT))).lastrowid
    db.execute("INSERT INTO bodies(path, body) VALUES(?,?)", (rel, fields["body"]))
    score, body_only = _postings(fields, fields["body"])
    own = sink or Sink()
    own.short.extend((w, -s, concept.id, n) for w, s in score.items())
    own.body.extend((w, n) for w in body_only)
    own.vocab.update(score)
    own.vocab.update(body_only)
    if sink is None:
        own.flush(db)


def drop_text(db: Any, rel: str) -> None:
    """Forget a concept's search texts and postings."""
    row = db.execute("SELECT n, cid, title, id, tags, type, description, sources FROM docs WHERE path=?", (rel,)).fetchone()
    if row is not None:
        n, cid = row[0], row[1]
        body = db.execute("SELECT body FROM bodies WHERE path=?", (rel,)).fetchone()
        score, body_only = _postings(dict(zip(SHORT, row[2:])), body[0] if body is not None else "")
        db.executemany("DELETE FROM spost WHERE word=? AND s=? AND cid=? AND doc=?", [(w, -s, cid, n) for w, s in score.items()])
        db.executemany("DELETE FROM bpost WHERE word=? AND doc=?", [(w, n) for w in body_only])
    for sql in ("DELETE FROM docs WHERE path=?", "DELETE FROM bodies WHERE path=?", "DELETE FROM irregular WHERE path=?"):
        db.execute(sql, (rel,))


def words_holding(db: Any, term: str, most: int = MAX_WORDS) -> list[str] | None:
    """The vocabulary words containing ``term`` (lowercase word characters), sorted; None when
    there are more than ``most``.  One range of the suffix table: the suffixes beginning with
    ``term`` (every word character sorts below ``\x7f``); it stops at the ``most + 1``-th word,
    so a term inside nearly every word reads a few rows, not the vocabulary."""
    words: set[str] = set()
    for (word,) in db.execute("SELECT word FROM vocab WHERE suf >= ? AND suf < ?", (term, term + "\x7f")):
        words.add(word)
        if len(words) > most:
            return None
    return sorted(words)


def ranked_words(db: Any, term: str, words: list[str]) -> Iterator[tuple[int, str, str]]:
    """``(-score, id, path)`` of every indexed concept holding ``term`` (lowercase word
    characters) in one of its fields, in the scan engine's order (score descending, id, path);
    ``words``: the vocabulary words containing ``term``.  Lazy: stops reading postings when the
    caller stops."""
    from okfpro.core.search import FIELDS, WEIGHTS

    top = sum(WEIGHTS.values())
    body_weight = WEIGHTS["body"]
    single = len(words) == 1
    cursors = [db.execute("SELECT s, cid, doc FROM spost WHERE word=? ORDER BY s, cid, doc", (w,)) for w in words]
    heads: list[tuple[int, str, int, int]] = []
    for k, cur in enumerate(cursors):
        row = cur.fetchone()
        if row is not None:
            heads.append((*row, k))
    heapq.heapify(heads)
    front = sum(h[0] for h in heads)  # minus the most an unseen concept's postings can add up to
    seen: set[int] = set()
    pending: list[tuple[int, str, str]] = []
    body_tier = False  # the concepts only a body holds the term in (score = the body's weight) are in pending

    def exact(doc: int, s: int) -> tuple[int, str, str]:
        if single:  # one word: its posting's score is the concept's
            path, cid = db.execute("SELECT path, cid FROM docs WHERE n=?", (doc,)).fetchone()
            return s, cid, path
        row = db.execute("SELECT d.path, d.cid, d.title, d.id, d.tags, d.type, d.description, d.sources, b.body "
                         "FROM docs d JOIN bodies b ON b.path = d.path WHERE d.n=?", (doc,)).fetchone()
        return -sum(WEIGHTS[f] for f, text in zip(FIELDS, row[2:]) if term in text), row[1], row[0]

    while True:
        if not heads and not body_tier:
            body_tier = True
            docs = {d for w in words for (d,) in db.execute("SELECT doc FROM bpost WHERE word=?", (w,))} - seen
            for doc in docs:
                path, cid = db.execute("SELECT path, cid FROM docs WHERE n=?", (doc,)).fetchone()
                heapq.heappush(pending, (-body_weight, cid, path))
        # an unseen concept's postings add up to at most -front; with several words its body may hold
        # the term through a word whose posting for it is in bpost, not in a cursor: the body's weight on top
        bound = min(top, -front + (0 if single else body_weight))
        while pending:
            neg, cid, path = pending[0]
            ahead = body_tier or -neg > body_weight  # before every body-only concept
            if heads:  # before every concept whose postings are still unread
                ahead = ahead and (-neg > bound or single and (neg, cid) < heads[0][:2])
            if not ahead:
                break
            yield heapq.heappop(pending)
        if not heads:
            if body_tier:
                return
            continue
        s, cid, doc, k = heapq.heappop(heads)
        front -= s
        row = cursors[k].fetchone()
        if row is not None:
            heapq.heappush(heads, (*row, k))
            front += row[0]
        if doc not in seen:
            seen.add(doc)
            heapq.heappush(pending, exact(doc, s))


def reconcile(state: Any, tool_name: str, rel: str) -> tuple[bool, str | None]:
    """(answered, message): Rule 1's block for a new concept, from the stored search texts.

    Each term's ranking (the scan engine's: weights, then id, then path) is read up to its fifth
    kept hit — from the word postings, or by SQL over the lowercase texts — merged with the
    irregular concepts scanned by the engine itself.  Only those concepts (and the first concept
    of each of their ids) are read from disk, and the kernel's own reconcile answers on them.
    (False, None) when a term is not plain ASCII or too many concepts are irregular.
    """
    from okfpro.core import reconcile as _reconcile
    from okfpro.core import search
    from okfpro.core.concept import Bundle
    from okfpro.core.scanindex import WORD
    from okfpro.io import reader

    if not _reconcile.applies(tool_name, rel):
        return True, None
    db = state.db
    irregular = [r[0] for r in db.execute("SELECT path FROM irregular ORDER BY path")]
    if len(irregular) > IRREGULAR_MAX:
        return False, None
    loaded: dict[str, Any] = {}

    def concept(path: str) -> Any:
        if path not in loaded:
            loaded[path] = reader.load_entry(state.root_real, path)
        return loaded[path]

    own = state._facts(rel)
    self_ids = {rel[:-3] if rel.endswith(".md") else rel}
    if own is not None and own["k"] == "c":
        self_ids.add(own["id"])
    keep: set[str] = {rel} if own is not None and own["k"] == "c" else set()
    terms = _reconcile.terms_of(rel)
    if any(not term.isascii() or "\x00" in term or "\x01" in term for term in terms):
        return False, None

    def take(stream: Any, floor: int) -> int:
        """Keep the ranking's concepts down to the fifth kept hit (or a score of ``floor``)."""
        kept = 0
        for neg, cid, path in stream:
            if -neg <= floor:  # a concept outside the band may score as much: the caller widens it
                break
            keep.add(path)
            first = db.execute("SELECT min(path) FROM files WHERE cid=? AND kind='c'", (cid,)).fetchone()[0]
            keep.add(first)
            if cid in self_ids or first.rsplit("/", 1)[-1] in _reconcile.NO_RECONCILE:
                continue
            kept += 1
            if kept == _reconcile.MAX_HITS:
                break
        return kept

    banded = _Bands(db)
    for term in terms:
        odd = sorted((-row["score"], row["id"], path) for path in irregular for row in search.scan([concept(path)], [term]))
        low = term.lower()
        words = words_holding(db, low) if WORD.fullmatch(low) else None
        if words is not None:
            take(heapq.merge(ranked_words(db, low, words), odd), 0)
            continue
        for floor, ranked in banded.bands(low):
            kept = take(heapq.merge(ranked, odd), floor)
            ranked.close()
            if kept == _reconcile.MAX_HITS:
                break
    mini = Bundle(root=state.root_real)
    for path in sorted(keep):
        reader.add(mini, concept(path))
    return True, _reconcile.reconcile(mini, tool_name, rel)


class _Bands:
    """A term's ranking by SQL over the stored texts, in bands.  One pass over the short fields
    scores the term without the body (weight 1): a concept's score is then o or o + 1.  With
    the body read for the concepts whose o reaches the band's floor f, every concept outside
    scores at most f, so the ranking is exact down to scores above f; the band widens until
    the caller has its hits (the last band reads every body)."""

    def __init__(self, db: Any) -> None:
        self.db = db

    def bands(self, term: str) -> Iterator[tuple[int, Any]]:
        from okfpro.core.search import WEIGHTS

        db = self.db
        short = [(field, WEIGHTS[field]) for field in SHORT]
        # a term in none of the short fields is not in their join either (no term holds \x01): one instr rules it out
        score = "CASE WHEN instr(short, :t) > 0 THEN " + " + ".join(
            f"(instr({field}, :t) > 0) * {weight}" for field, weight in short) + " ELSE 0 END"
        db.execute("DROP TABLE IF EXISTS temp.hits")
        db.execute(f"CREATE TEMP TABLE hits AS SELECT * FROM (SELECT path, cid, {score} AS o FROM docs) WHERE o > 0",
                   {"t": term})
        body = WEIGHTS["body"]
        floor = db.execute("SELECT max(o) FROM temp.hits").fetchone()[0] or 0
        while True:
            floor = max(floor - 3, 0)
            if floor > 0:
                yield floor, db.execute(
                    f"SELECT -(h.o + (instr(b.body, :t) > 0) * {body}), h.cid, h.path FROM temp.hits h "
                    "JOIN bodies b ON b.path = h.path WHERE h.o >= :f ORDER BY 1, 2, 3", {"t": term, "f": floor})
            else:  # every concept: the engine's whole ranking
                full = " + ".join(f"(instr({field}, :t) > 0) * {weight}" for field, weight in WEIGHTS.items())
                yield 0, db.execute(f"SELECT -s, cid, path FROM (SELECT d.path AS path, cid, {full} AS s FROM docs d "
                                    "JOIN bodies b ON b.path = d.path) WHERE s > 0 ORDER BY s DESC, cid, path", {"t": term})
                return
