"""The two ranked engines read text with one tokenizer rule.

The FTS5 backend (okfpro/io/fts.py) stores okfpro's own tokens (``core.bm25.tokenize``)
joined by spaces; its SQLite tokenizer must split them at the spaces and nowhere else, or a
word the pure engine keeps whole becomes two FTS tokens and the engines rank differently.
"""

from __future__ import annotations

import random
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from okfpro.core import bm25
from okfpro.core.concept import Bundle, parse_entry
from okfpro.io import fts
from tests.helpers import examples, quick

pytestmark = pytest.mark.skipif(not fts.available(), reason="SQLite without FTS5")


def _fts_tokens(texts: list[str]) -> dict[int, list[str]]:
    con = sqlite3.connect(":memory:")
    con.execute(f"CREATE VIRTUAL TABLE t USING fts5(a, tokenize=\"{fts._TOKENIZER}\")")
    con.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    con.executemany("INSERT INTO t(rowid, a) VALUES (?, ?)", [(i, " ".join(bm25.tokenize(t))) for i, t in enumerate(texts, 1)])
    got: dict[int, list[str]] = {}
    for term, doc in con.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        got.setdefault(doc, []).append(term)
    return got


def test_every_code_point_inside_a_word_stays_one_fts_token():
    """``a<c>b`` for every code point c above ASCII (surrogates aside): FTS5 reads exactly the
    tokens the pure engine made (unicode61 split 21 letters, e.g. U+19B0).  The inner loop (quick
    mode) takes every fourth, from a random start (a failure names its code points)."""
    step, start = (4, random.randrange(4)) if quick() else (1, 0)
    points = [c for c in range(0x80 + start, 0x30000, step) if not 0xD800 <= c <= 0xDFFF]
    texts = [f"a{chr(c)}b" for c in points]
    got = _fts_tokens(texts)
    bad = [(hex(c), bm25.tokenize(t), got.get(i, [])) for i, (c, t) in enumerate(zip(points, texts), 1)
           if got.get(i, []) != bm25.tokenize(t)]
    assert not bad, bad[:10]


IDENTIFIERS = [
    "customer_id", "okf-pro", "7.2.0", "src/okfpro/io", "user@host", "c++", "#tag", "a:b", "camelCaseWord",
    "HTTPServer2", "Straße", "naïve_café", "日本語_テキスト", "\u19b0\u19b1x", "x\u0301y", "ﬁle_name", "v1.2.3-rc.4",
    "`git rebase -i`", "__init__", "über-alles/ß",
]


def test_the_identifier_corpus_tokenizes_alike():
    got = _fts_tokens(IDENTIFIERS)
    for i, text in enumerate(IDENTIFIERS, 1):
        assert got.get(i, []) == bm25.tokenize(text), text


def test_both_engines_rank_identifiers_alike(tmp_path):
    b = Bundle(root=str(tmp_path))
    for k, ident in enumerate(IDENTIFIERS):
        other = IDENTIFIERS[(k + 3) % len(IDENTIFIERS)]
        text = f"---\ntitle: note {k}\ndescription: about {ident}\n---\n\nWe use {ident} next to {other}.\n"
        b.concepts.append(parse_entry(f"n{k:02d}.md", text.encode()))
    queries = IDENTIFIERS + ["customer", "id", "okf", "camelcaseword", "strasse", "cafe", "café", "\u19b0", "rebase",
                             "v1.2", "init"]
    for q in queries:
        pure = bm25.rank_docs(b, [q], 10)
        sql = fts.rank_indexed(str(tmp_path), b, [q], 10, persist=False)
        assert sql == pure, q


def test_bundle_questions_stem_and_split_identifiers(tmp_path):
    """Ranked bundle search stems plain words (``delete`` finds ``deletion``, ``retrying`` finds
    ``retry``) and a question that
    names an identifier also asks for its parts (``tenant_id`` finds the note titled Tenant);
    both engines alike.  Measured on examples/search-gold.json by bench/eval_search.py."""
    notes = {
        "glossary/tenant": ("Tenant", "An isolated customer workspace.", "Each tenant has its own schema; the `tenant_id` is in every log line."),
        "glossary/customer-id": ("Customer identifier", "The `customer_id` column.", "It appears in every event and is never reused."),
        "projects/erasure": ("Right to erasure", "Personal data on request.", "A deletion request removes rows in every service."),
        "decisions/grpc": ("gRPC between services", "Internal calls.", "Protobuf gives typed clients; partners keep JSON."),
        "learnings/backoff": ("Backoff", "Clients must wait.", "Every retry waits with jitter."),
    }
    b = Bundle(root=str(tmp_path))
    for ident, (title, desc, body) in notes.items():
        b.concepts.append(parse_entry(f"{ident}.md", f"---\ntitle: {title}\ndescription: {desc}\n---\n\n{body}\n".encode()))
    for q, want in (("what does tenant_id appear in", "glossary/tenant"),
                    ("a user asked us to delete everything about them", "projects/erasure"),
                    ("when retrying", "learnings/backoff")):  # retrying/retry: both sides stemmed (retri)
        assert bm25.rank_docs(b, q, 3)[0]["id"] == want, q
        assert fts.rank_indexed(str(tmp_path), b, q, 3, persist=False) == bm25.rank_docs(b, q, 3), q


# words drawn at very different rates, so that some are in half the notes or more (FTS5's idf floor
# and Lucene's differ most there), with shared prefixes (``cach`` begins cache, caching, cached)
_COMMON = ["cache", "release", "ledger"]
_SOME = ["caching", "cached", "deploy", "review"]
_RARE = ["tenant_id", "straße", "zebra", "7.2.0"]


@st.composite
def _notes(draw):
    notes = []
    for i in range(draw(st.integers(1, 24))):
        fields = {}
        for name in ("title", "description", "body"):
            words = [w for w in _COMMON if draw(st.integers(0, 9)) < 7]
            words += [w for w in _SOME if draw(st.integers(0, 3)) == 0]
            words += [w for w in _RARE if draw(st.integers(0, 15)) == 0]
            words = words * draw(st.integers(1, 3)) + ["filler"] * draw(st.integers(0, 30))
            fields[name] = " ".join(draw(st.permutations(words))) if words else ""
        ident = draw(st.sampled_from([f"n{i:02d}", f"z/{i}", f"a{(i * 7) % 24}"]))
        notes.append((ident, fields))
    return notes


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_notes(), st.lists(st.sampled_from(_COMMON + _SOME + _RARE + ["cach", "rel", "le", "absent", "cache rel"]),
                          min_size=1, max_size=4),
       st.sampled_from([None, 1, 2, 3, 5, 10]), st.sampled_from([None, "title", "body,description"]))
def test_the_index_ranks_every_bundle_as_the_pure_engine_does(tmp_path_factory, notes, words, limit, fields):
    """Rows, scores, order and snippets: the index (its postings; fts5vocab for searched fields)
    and the pure engine agree on drawn bundles where some words are in most notes (where FTS5's
    idf and Lucene's differ most), queries with prefixes, limits and searched fields."""
    tmp = tmp_path_factory.mktemp("fts-prop")
    b = Bundle(root=str(tmp))
    for k, (ident, f) in enumerate(notes):
        text = (f"---\nid: {ident}\ntitle: {f['title'] or 'untitled'}\ndescription: {f['description']}\n---\n\n"
                f"{f['body']}\n")
        b.concepts.append(parse_entry(f"p{k:02d}.md", text.encode()))
    query = " ".join(words)
    pure = bm25.rank_docs(b, query, limit, fields=fields)
    assert fts.rank_indexed(str(tmp), b, query, limit, fields=fields, persist=False) == pure
