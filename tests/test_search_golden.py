"""Search goldens on a fixture bundle: every expected value below was worked out by hand.

Scan rules: terms ANDed, case-insensitive literal (or regexp), score = sum of the
weights of matched fields (title 5, id 4, tags 3, type 2, description 2, sources 1,
body 1), filters first, sort score desc then id, snippet = 44 characters either side
of the first hit in the first matched field of description/body/sources.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from okfpro.core import bm25, search
from okfpro.io.reader import read_bundle
from tests.helpers import invoke

LONG_BODY = "word " * 12 + "needle" + " tail" * 12 + "\n"

FILES = {
    "index.md": '---\nokf_version: "0.2"\n---\n# Fixture\n',
    "alpha.md": (
        "---\ntype: Decision\ntitle: Cache Policy\ndescription: How the cache expires.\ntags: [cache, ops]\n---\n\n"
        "We keep the `customer_id` index warm.\n\nSee the cache notes.\n"
    ),
    "notes/cache-notes.md": (
        "---\ntype: Finding\ntitle: Notes\ndescription: Eviction numbers.\ntags: [perf]\n"
        "sources:\n  - title: Cache paper\n    resource: https://example.com/c\n---\n\n"
        "Release 7.2.0 changed eviction.\n"
    ),
    "notes/deep/old.md": "---\ntype: Decision\ntitle: Old cache\nstatus: Deprecated\n---\n\nSuperseded.\n",
    "unicode.md": "---\ntype: Term\ntitle: Straße Élan\ndescription: ÉLAN rules\n---\n\nÜber alles.\n",
    "long.md": "---\ntype: Note\n---\n\n" + LONG_BODY,
    "plain.md": "---\ntype: Note\n---\n\nNothing to see.\n",
}

ALPHA = {"id": "alpha", "title": "Cache Policy", "type": "Decision", "dir": ".", "top_dir": "(root)",
         "tags": ["cache", "ops"], "matched": ["title", "tags", "description", "body"], "score": 11,
         "snippet": "How the cache expires."}
NOTES = {"id": "notes/cache-notes", "title": "Notes", "type": "Finding", "dir": "notes", "top_dir": "notes",
         "tags": ["perf"], "matched": ["id", "sources"], "score": 5, "snippet": "Cache paper https://example.com/c"}
OLD = {"id": "notes/deep/old", "title": "Old cache", "type": "Decision", "dir": "notes/deep", "top_dir": "notes",
       "tags": [], "matched": ["title"], "score": 5, "snippet": ""}


@pytest.fixture(scope="module")
def bundle_dir(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("golden")
    root = work / ".okf"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def bundle(bundle_dir):
    return read_bundle(bundle_dir)


def cli(bundle_dir: Path, *args: str) -> dict:
    proc = invoke("search", *args, "--bundle", str(bundle_dir), "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_cli_envelope_and_rows(bundle_dir):
    # alpha: title+tags+description+body = 5+3+2+1; cache-notes: id+sources = 4+1; old: title = 5.
    # cache-notes and old tie at 5 and sort by id ("notes/c" < "notes/d").
    data = cli(bundle_dir, "cache")
    assert data == {"bundle": str(bundle_dir), "query": ["cache"], "count": 3, "matches": [ALPHA, NOTES, OLD]}


def test_terms_are_anded_and_matched_fields_are_unioned(bundle):
    assert search.scan(bundle, ["expires", "cache"]) == [ALPHA]
    assert search.scan(bundle, ["cache", "zebra"]) == []


def test_zero_matches_exit_zero_with_empty_list(bundle_dir):
    data = cli(bundle_dir, "zebra")
    assert data["count"] == 0 and data["matches"] == []


def test_filters_apply_first(bundle):
    assert search.scan(bundle, ["cache"], status="deprecated") == [OLD]  # declared "Deprecated", folded
    assert search.scan(bundle, ["cache"], dir="notes") == [NOTES, OLD]
    assert search.scan(bundle, ["cache"], dir="notes/deep") == [OLD]
    assert search.scan(bundle, ["cache"], dir=".") == [ALPHA]
    assert search.scan(bundle, ["cache"], dir="root") == [ALPHA]
    assert search.scan(bundle, ["cache"], type="DECISION") == [ALPHA, OLD]
    assert search.scan(bundle, ["cache"], tag="Cache") == [ALPHA]
    assert search.scan(bundle, ["cache"], trust="Unverified") == [ALPHA, NOTES, OLD]
    assert search.scan(bundle, ["cache"], trust="human-reviewed") == []


def test_in_restricts_fields(bundle_dir, bundle):
    # alpha keeps description (2) + body (1); nobody else has "cache" in those fields
    want = dict(ALPHA, matched=["description", "body"], score=3)
    assert search.scan(bundle, ["cache"], fields="body,description") == [want]
    assert cli(bundle_dir, "cache", "--in", "body,description")["matches"] == [want]
    proc = invoke("search", "cache", "--in", "body,colour", "--bundle", str(bundle_dir))
    assert proc.returncode == 2 and "colour" in proc.stderr


def test_regexp_and_line_anchors(bundle_dir, bundle):
    rows = cli(bundle_dir, "-e", r"7\.\d\.0")["matches"]
    assert rows == [dict(NOTES, matched=["body"], score=1, snippet="Release 7.2.0 changed eviction.")]
    # ^ anchors at a line start, as the reference's regexps do
    assert [r["id"] for r in search.scan(bundle, ["^see the"], regexp=True)] == ["alpha"]
    # a literal term is not a regexp
    assert search.scan(bundle, [r"7\.\d"]) == []
    proc = invoke("search", "-e", "(", "--bundle", str(bundle_dir))
    assert proc.returncode == 2


def test_unicode_case_folding(bundle):
    # É/é fold; title (5) + description (2); snippet from the description
    want = {"id": "unicode", "title": "Straße Élan", "type": "Term", "dir": ".", "top_dir": "(root)", "tags": [],
            "matched": ["title", "description"], "score": 7, "snippet": "ÉLAN rules"}
    assert search.scan(bundle, ["élan"]) == [want]
    assert search.scan(bundle, ["üBER"]) == [dict(want, matched=["body"], score=1, snippet="Über alles.")]


def test_backticked_term(bundle):
    # the body collapses to "We keep the `customer_id` index warm. See the cache notes." (58 chars):
    # the hit is at 12, so the window covers the whole text and there is no ellipsis
    want = dict(ALPHA, matched=["body"], score=1, snippet="We keep the `customer_id` index warm. See the cache notes.")
    assert search.scan(bundle, ["`customer_id`"]) == [want]


def test_snippet_window_and_ellipses(bundle):
    # "word "*12 is 60 chars, so "needle" starts at 60: window [16, 110) of 126 chars
    snippet = "…ord word word word word word word word word needle tail tail tail tail tail tail tail tail tai…"
    rows = search.scan(bundle, ["needle"])
    assert rows == [{"id": "long", "title": "long", "type": "Note", "dir": ".", "top_dir": "(root)", "tags": [],
                     "matched": ["body"], "score": 1, "snippet": snippet}]


def test_deprecated_concept_is_still_found(bundle):
    assert search.scan(bundle, ["superseded"]) == [dict(OLD, matched=["body"], score=1, snippet="Superseded.")]


def test_limit(bundle_dir):
    assert cli(bundle_dir, "cache", "--limit", "1")["matches"] == [ALPHA]


def test_docs_records(bundle):
    docs = [search.Doc("m/1", {"title": "Cache warmup", "body": "prefill the cache"}),
            search.Doc("m/2", {"body": "unrelated"})]
    rows = search.scan(docs, ["CACHE"])
    assert [(r["id"], r["matched"], r["score"], r["snippet"]) for r in rows] == [
        ("m/1", ["title", "body"], 6, "prefill the cache")]


# ----------------------------------------------------------------------------- ranked
# SQLite FTS5's bm25 (k1 = 1.2, b = 0.75) with Lucene's idf (bm25.lucene_ratio): per query phrase p,
#   idf = ln(1 + (N - n + 0.5) / (n + 0.5)), F = sum of weight * tf over searched fields,
#   score += idf * F * 2.2 / (F + 1.2 * (0.25 + 0.75 * D / avgD)), D = tokens over ALL fields.
# Token counts per document (title, id, tags, type, description, sources, body → D):
#   alpha        2, 1, 2, 1, 4, 0, 12 (we keep the customer_id index warm see the cache notes + customer, id) → 22
#   cache-notes  1, 4 (notes/cache-notes + 3 parts), 1, 1, 2, 7 (cache paper https example.com/c + 3 parts),
#                7 (release 7.2.0 changed eviction + 7, 2, 0) → 23
#   old          2, 4, 0, 1, 0, 0, 1 → 8        unicode  2 (strasse élan), 1, 0, 1, 2, 0, 2 → 8
#   long         0, 1, 0, 1, 0, 0, 25 → 27      plain    0, 1, 0, 1, 0, 0, 3 → 5
# N = 6, avgD = 93 / 6 = 15.5.


def _bm25(idf: float, f: float, d: int) -> float:
    return idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * d / 15.5))


def test_ranked_title_scores_by_hand(bundle):
    idf = math.log(1 + (6 - 2 + 0.5) / (2 + 0.5))  # "cache" is in 2 titles: ln 2.8 = 1.02962
    # old: F = 5, D = 8 → 1.02962 * 11 / 5.76452 = 1.9647; alpha: D = 22 → 1.02962 * 11 / 6.57742 = 1.7219
    assert (round(_bm25(idf, 5, 8), 4), round(_bm25(idf, 5, 22), 4)) == (1.9647, 1.7219)
    rows = bm25.rank_docs(bundle, "cache", 5, fields="title")
    assert [(r["id"], r["score"], r["matched"], r["snippet"]) for r in rows] == [
        ("notes/deep/old", 1.9647, ["title"], ""), ("alpha", 1.7219, ["title"], "")]


def test_ranked_unicode_full_folding(bundle):
    idf = math.log(1 + (6 - 1 + 0.5) / (1 + 0.5))  # ln(1 + 5.5 / 1.5) = 1.54045
    assert round(_bm25(idf, 5, 8), 4) == 2.9395
    rows = bm25.rank_docs(bundle, "STRASSE", 5, fields="title")  # ß casefolds to ss
    assert [(r["id"], r["score"]) for r in rows] == [("unicode", 2.9395)]


def test_ranked_backends_agree(bundle_dir, bundle):
    from okfpro.io import fts

    if not fts.available():
        pytest.skip("SQLite without FTS5")
    for query in ("cache", "STRASSE", "customer_id", "7.2.0 eviction", "how the cache expires", "`customer_id`"):
        for fields in (None, "title", "body,description"):
            assert fts.rank_indexed(bundle_dir, bundle, query, 10, fields=fields, persist=False) == \
                bm25.rank_docs(bundle, query, 10, fields=fields), (query, fields)


def test_ranked_keeps_identifiers_whole(bundle):
    rows = bm25.rank_docs(bundle, "where is customer_id kept?", 3)
    assert rows[0]["id"] == "alpha" and rows[0]["matched"][-1] == "body"
    assert rows[0]["snippet"] == "We keep the `customer_id` index warm. See the cache notes."
    rows = bm25.rank_docs(bundle, "what changed in 7.2.0", 3)
    assert rows[0]["id"] == "notes/cache-notes"
    rows = bm25.rank_docs(bundle, "`customer_id`", 3)
    assert [r["id"] for r in rows] == ["alpha"]


def test_ranked_is_or_joined_with_prefixes(bundle_dir):
    proc = invoke("search", "evict", "superseded", "--engine", "ranked", "--bundle", str(bundle_dir), "--json")
    assert proc.returncode == 0, proc.stderr
    ids = [r["id"] for r in json.loads(proc.stdout)["matches"]]
    assert set(ids) == {"notes/cache-notes", "notes/deep/old"}  # "evict" is a prefix of "eviction"


def test_ranked_on_records():
    # memory recall ranks its own (id, fields) records
    docs = [search.Doc("m/1", {"title": "Deploy checklist", "body": "run the smoke tests before deploy"}),
            search.Doc("m/2", {"body": "lunch order"}),
            search.Doc("m/3", {"body": "deployment of 7.2.0 went fine"})]
    rows = bm25.rank_docs(docs, "how do we deploy?", 5)
    assert [r["id"] for r in rows] == ["m/1", "m/3"]  # "deploy" prefixes "deployment"
    assert rows[0]["matched"] == ["title", "body"] and rows[1]["matched"] == ["body"]
    assert rows[1]["snippet"] == "deployment of 7.2.0 went fine"


def test_ranked_filters(bundle):
    rows = bm25.rank_docs(bundle, "cache", 10, status="deprecated")
    assert [r["id"] for r in rows] == ["notes/deep/old"]


# ----------------------------------------------------------------------------- fast paths = plain rules
# The engine takes shortcuts (a joined-text pre-check, ASCII lowering, collapsing a long
# text a prefix at a time).  A direct transcription of the rules must give the same rows.
from hypothesis import given, settings  # noqa: E402
from tests.helpers import examples  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ALPHABET = st.sampled_from(list("abcK ſsSß\tÉé_-.\n  xyz`") + ["cache", "Cache", " word", "\u00a0", "\x1c", " " * 60, "\n" * 30])
_TEXT = st.lists(_ALPHABET, max_size=80).map("".join)


def _plain_scan(docs, terms):
    import re as _re

    pats = [_re.compile(_re.escape(t), _re.IGNORECASE) for t in terms]
    rows = []
    for d in docs:
        fields = {f: d.fields.get(f) for f in search.FIELDS}
        fields["id"] = d.id
        hit_fields = set()
        ok = True
        for p in pats:
            got = set()
            for f, v in fields.items():
                vals = v if isinstance(v, list) else [v]
                if any(isinstance(x, str) and x and p.search(x) for x in vals):
                    got.add(f)
            if not got:
                ok = False
                break
            hit_fields |= got
        if not ok:
            continue
        order = [f for f in search.FIELDS if f in hit_fields]
        snip = ""
        for f in ("description", "body", "sources"):
            if f in hit_fields:
                flat = _re.sub(r"[ \t\r\n\f\v]+", " ", fields[f]).strip(" \t\r\n\f\v")
                # the reference's matcher: the first term, in query order, that hits the field's text
                first = next((p for p in pats if p.search(fields[f])), None)
                m = first.search(flat) if first is not None else None
                if m:
                    a, b = max(0, m.start() - 44), m.end() + 44
                    snip = ("…" if a > 0 else "") + flat[a:b].strip(" ") + ("…" if b < len(flat) else "")
                break
        rows.append((d.id, order, sum(search.WEIGHTS[f] for f in order), snip))
    return sorted(rows, key=lambda r: (-r[2], r[0]))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(_TEXT, _TEXT, st.lists(_TEXT, max_size=2), st.integers(0, 40)), min_size=1, max_size=4),
       st.lists(st.sampled_from(["cache", "s", "K", "é", "a b", "x", "ß", " word", "_-"]), min_size=1, max_size=2))
def test_fast_paths_equal_the_plain_rules(specs, terms):
    docs = [search.Doc(f"d{i}", {"title": t, "body": (b * (n + 1)), "tags": tags, "description": t[:5]})
            for i, (t, b, tags, n) in enumerate(specs)]
    got = [(r["id"], r["matched"], r["score"], r["snippet"]) for r in search.scan(docs, terms)]
    assert got == _plain_scan(docs, terms)
