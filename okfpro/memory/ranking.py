"""How memory is ranked, defined once for the index and for the index-free scan.

Within a tier: BM25 over (title ×5, body ×1), without length normalisation (:data:`LENGTH_B`),
with corpus statistics over every memory
entry of the tier (change records are not documents), query terms from
:func:`recall_terms` (stemmed by :mod:`okfpro.core.stem`, conversational stop words
dropped); the policy hides superseded, expired and archived memories *before* the order
and the limit; a matched memory whose speaker (:mod:`okfpro.core.facets`) a query term names
gains :data:`SPEAKER`; each matched memory then gains :data:`NEIGHBOUR` × the scores of the
matched, shown memories just before and after it in the same day file (a turn's
neighbours share its context: the reply to "we adopted a puppy" says "a dog!"), and a
memory no query term matches is never returned; order = that score rounded to 4 places,
then unrounded, then newest first.  Measured on long conversations (``bench/eval_recall.py``, design note
``.okf/design/recall-quality.md``).  :func:`scan_tier` is that definition over a list of
entries; :mod:`okfpro.memory.index` answers the same from its postings (:mod:`okfpro.core.postings`:
SQLite FTS5's ``bm25()`` to the bit) and is tested equal
to it.  Also here: the record (de)serialisation and the normalised-text digest both sides
use.
"""

from __future__ import annotations


import json

from okfpro.core import bm25
from okfpro.core import facets as _facets
from okfpro.core import querytime as _querytime
from hashlib import blake2b
from okfpro.core import mempolicy as _mempolicy
from okfpro.core import search as _search
from okfpro.core.record import Frozen, set_field
from okfpro.memory.entries import Passage, excerpt, records_by_entry

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the memory verbs' path
    from typing import Any, Sequence

FIELDS = ("title", "body")
WEIGHTS = (_search.WEIGHTS["title"], _search.WEIGHTS["body"])
SPEAKER = 1.0  # added to a matched memory whose speaker (core/facets.py) a query term names, before the neighbours
NEIGHBOUR = 0.5  # share of a matched neighbour's score a memory gains (previous and next entry of its day file)
# BM25's length normalisation, off: among memories matching the same words the shorter is not
# preferred.  Turns are short and the shortest are small talk ("Ha, classic."); at any b > 0 they
# came first among the turns that only share the speaker's name with a question, the evidence
# below them (recall-quality.md: MRR 0.442 -> 0.496 and 0.357 -> 0.395 on the two sets; microblog
# retrieval found the same of tweets).  Ties then go to the newest, as every tie here does.
LENGTH_B = 0.0
# The Snowball project's English stop word list (snowballstem.org, english/stop.txt) plus the
# reporting verbs questions about people are full of ("what did she tell about her ...?"):
# dropped from recall queries on top of the engine's stop words (measured, recall-quality.md).
CHAT_STOP_WORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves what which who whom this that these those am is are
    was were be been being have has had having do does did doing would should could ought i'm you're he's she's
    it's we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll
    they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't
    can't cannot couldn't mustn't let's that's who's what's here's there's when's where's why's how's a an the and
    but if or because as until while of at by for with about against between into through during before after
    above below to from up down in out on off over under again further then once here there when where why how
    all any both each few more most other some such no nor not only own same so than too very
    get got tell told say said""".split()
)


def recall_terms(query: str) -> list[str]:
    """The query terms recall ranks with: the engine's query tokens less
    :data:`CHAT_STOP_WORDS`, stemmed (all of them when nothing else is left, not even a month), then a
    ``YYYY-MM`` term for each month the query names with its year (:mod:`okfpro.core.querytime`:
    the entries written that month)."""
    query, months = _querytime.month_terms(query)
    toks = bm25.query_tokens(query)
    kept = [t for t in toks if t not in CHAT_STOP_WORDS]
    terms = bm25.stemmed_query(kept or ([] if months else toks))
    return terms + [m for m in months if m not in terms] if months else terms


def entry_fields(title: str, text: str) -> dict[str, str]:
    """The searched fields of one entry (the pure engine and the index read the same)."""
    return {"id": "", "title": title, "body": text}


_RECORD_FIELDS = _mempolicy.MemoryRecord._fields


def record_json(rec: _mempolicy.MemoryRecord) -> str:
    return json.dumps({name: getattr(rec, name) for name in _RECORD_FIELDS}, ensure_ascii=False,
                       separators=(",", ":"))


_TUPLES = tuple(name for name, kind in _mempolicy.MemoryRecord.__annotations__.items() if kind.startswith("tuple"))


def record_of(raw: str) -> _mempolicy.MemoryRecord:
    data = json.loads(raw)
    for name in _TUPLES:
        data[name] = tuple(data.get(name) or ())
    return _mempolicy.MemoryRecord(**data)


def norm_digest(text: str) -> str:
    return blake2b(_mempolicy.normalise(text).encode("utf-8"), digest_size=12).hexdigest()


def visible_status(rec: _mempolicy.MemoryRecord, today: str, include_hidden: bool) -> str | None:
    """The status recall shows ``rec`` with, or None when the policy hides it."""
    if rec.change:
        return None
    status = rec.status
    if status in _mempolicy.EXPIRING and rec.valid_until and rec.valid_until < today:
        status = "expired"
    if status in _mempolicy.HIDDEN and not include_hidden:
        return None
    return status


def speaker_boost(own: dict[Any, float], speakers: dict[Any, list[str]], terms: list[str],
                  boost: float) -> dict[Any, float]:
    """``own`` with ``boost`` added to each memory whose speaker terms (``speakers``: per memory,
    :func:`okfpro.core.facets.speaker_terms`) hold one the query's ``terms`` could name
    (:func:`okfpro.core.facets.asked_speakers`).  The index adds the same (``core/postings.ranked``)."""
    asked = set(_facets.asked_speakers(terms))
    if not asked or not boost:
        return own
    return {k: s + boost if asked.intersection(speakers.get(k, ())) else s for k, s in own.items()}


def order_key(score: float, date: str, seq: int) -> tuple:
    """Rounded score (the engines agree to 4 places), then the exact one: in a tier of a few
    memories every idf is clamped to the same tiny value and only the unrounded scores tell a
    memory matching three terms from one matching one; then newest."""
    return (round(score, 4), score, date, seq)


def with_neighbours(own: dict[Any, float], place: dict[Any, tuple[str, int]]) -> dict[Any, float]:
    """Each matched memory's score plus :data:`NEIGHBOUR` × the scores of the matched
    memories at (day, seq ∓ 1); ``own``: the shown memories' BM25 scores, ``place``: their
    (day, seq).  The index computes the same in SQL (``ScopeIndex.search``)."""
    at = {place[k]: s for k, s in own.items()}
    out: dict[Any, float] = {}
    for k, s in own.items():
        day, seq = place[k]
        out[k] = s + NEIGHBOUR * (at.get((day, seq - 1), 0.0) + at.get((day, seq + 1), 0.0))
    return out


class Hit(Frozen):
    """A ranked entry: the stored entry, its score, its policy record and status (frozen)."""

    __slots__ = ("entry", "score", "record", "status")
    _fields = __slots__
    entry: Any  # okfpro.memory.store.StoredEntry
    score: float
    record: _mempolicy.MemoryRecord
    status: str

    def __init__(self, entry: Any, score: float, record: _mempolicy.MemoryRecord, status: str) -> None:
        set_field(self, "entry", entry)
        set_field(self, "score", score)
        set_field(self, "record", record)
        set_field(self, "status", status)

    def passage(self, query: str) -> Any:
        return Passage(self.entry, round(self.score, 4), excerpt(self.entry.text, query))


def scan_tier(
    query: str,
    entries: Sequence[Any],
    today: str,
    include_hidden: bool = False,
    limit: int | None = None,
    speaker: float | None = None,
) -> list[Hit]:
    """The index-free ranking of one tier's entries (oldest first): what the index answers.
    ``speaker``: the speaker boost (:data:`SPEAKER` by default; 0.0 is the ranking before it)."""
    tokens = recall_terms(query)
    if not entries or not tokens:
        return []
    pairs = records_by_entry(entries)
    folded = _mempolicy.fold(rec for _, rec in pairs)
    docs = [(e, rec) for e, rec in pairs if not rec.change]
    if not docs:
        return []
    index = bm25.RankedIndex([_search.Doc(e.id, entry_fields(e.title, e.text)) for e, _ in docs], fields=FIELDS,
                          tokenizer=bm25.stemmed_terms, b=LENGTH_B)
    scores, _matched, _hits = index.scores(tokens)
    shown: dict[int, tuple[_mempolicy.MemoryRecord, str]] = {}
    for i in scores:
        effective = folded.get(docs[i][1].id, docs[i][1])
        status = visible_status(effective, today, include_hidden)
        if status is not None:
            shown[i] = (effective, status)
    own = speaker_boost({i: scores[i] for i in shown}, {i: _facets.speaker_terms(docs[i][0].title) for i in shown},
                        tokens, SPEAKER if speaker is None else speaker)
    final = with_neighbours(own, {i: (docs[i][0].date, docs[i][0].seq) for i in shown})
    ranked = []
    for i, score in final.items():
        entry = docs[i][0]
        effective, status = shown[i]
        ranked.append((order_key(score, entry.date, entry.seq), Hit(entry, score, effective, status)))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    hits = [h for _, h in ranked]
    return hits if limit is None else hits[:limit]

