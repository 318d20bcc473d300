"""The scan engine's word index answers exactly what the per-document scan answers.

A Bundle goes through :class:`okfpro.core.scanindex.ScanIndex`; a plain list of the same
concepts goes through the per-document path (the reference's definition).  Hypothesis
writes concepts and terms from an alphabet made to break a word index: ``_ - . / `` and
blanks, digits, upper case, the four non-ASCII characters ``re.IGNORECASE`` matches to an
ASCII letter (``İ ı ſ K``), other non-ASCII letters, list-valued tags, NUL-free terms that
straddle words, and filters and field subsets.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from tests.helpers import examples
from hypothesis import strategies as st

from okfpro.core import scanindex, search
from okfpro.core.concept import Bundle, parse_entry

ALPHABET = "abkisz019_-./ \tIKSZ\u0130\u0131\u017f\u212a\u00e9\u00df\u00c9"
text = st.text(ALPHABET, max_size=40)
word = st.text("abkisz01_-.", min_size=1, max_size=5)


def _yaml(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


@st.composite
def bundles(draw):
    n = draw(st.integers(1, 8))
    b = Bundle(root="/nowhere")
    for k in range(n):
        ident = draw(st.sampled_from(["a", "b", "kit", "d/s_1", "d/e-2", "x.y", "Zed"])) + f"{k}"
        tags = draw(st.lists(word, max_size=3))
        fm = (f"type: {_yaml(draw(st.sampled_from(['Decision', 'Term', 'Note', 'K'])))}\n"
              f"title: {_yaml(draw(text))}\ndescription: {_yaml(draw(text))}\n"
              f"tags: [{', '.join(_yaml(t) for t in tags)}]\n")
        if draw(st.booleans()):
            fm += f"sources:\n  - title: {_yaml(draw(text))}\n    resource: {_yaml(draw(text))}\n"
        body = draw(text)
        b.concepts.append(parse_entry(f"{ident}.md", f"---\n{fm}---\n\n{body}\n".encode()))
    return b


terms = st.lists(st.text("abkisz019_-. KS", min_size=1, max_size=4), min_size=0, max_size=3)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bundles(), terms, st.sampled_from([None, "title,body", "tags", "id,sources", "type,description"]),
       st.sampled_from([None, "Decision", "k"]), st.sampled_from([None, 0, 1, 2, 5]))
def test_index_equals_the_per_document_scan(bundle, qs, fields, type_, limit):
    want = search.scan(list(bundle.concepts), qs, fields=fields, type=type_, limit=limit)
    got = search.scan(bundle, qs, fields=fields, type=type_, limit=limit)
    assert got == want
    again = search.scan(bundle, qs, fields=fields, type=type_, limit=limit)  # the kept index, warm
    assert again == want


def test_the_special_characters_are_every_non_ascii_match_of_an_ascii_word_character():
    """Every code point is checked: the index's folding table must be complete."""
    pattern = re.compile("[a-z0-9_]", re.IGNORECASE)
    found = {}
    for cp in range(128, 0x110000):
        ch = chr(cp)
        if pattern.fullmatch(ch):
            found[cp] = next(a for a in "abcdefghijklmnopqrstuvwxyz0123456789_" if re.fullmatch(a, ch, re.IGNORECASE))
    assert found == scanindex.SPECIAL


def test_a_term_inside_a_word_and_across_punctuation():
    b = Bundle(root="/nowhere")
    for ident, body in (("one", "the customer_id column"), ("two", "Customer-ID here"), ("three", "customers id"),
                        ("four", "\u212aelvin \u017fcale"), ("five", "r\u00e9sum\u00e9 of 7.2.0"), ("six", "xcustomer-idx")):
        b.concepts.append(parse_entry(f"{ident}.md", f"---\ntitle: {ident}\n---\n\n{body}\n".encode()))
    ids = lambda q: [r["id"] for r in search.scan(b, q)]  # noqa: E731
    assert ids(["tomer_i"]) == ["one"]
    assert ids(["customer-id"]) == ["six", "two"]  # a piece may run on beyond the term's ends
    assert ids(["customer"]) == ["one", "six", "three", "two"]
    assert ids(["kelvin", "scale"]) == ["four"]  # K and ſ fold as re.IGNORECASE folds them
    assert ids(["sum"]) == ["five"] and ids(["2.0"]) == ["five"] and ids(["7.2.0 "]) == []
    for q in (["tomer_i"], ["customer-id"], ["customer"], ["kelvin", "scale"], ["sum"], ["2.0"]):
        assert search.scan(b, q) == search.scan(list(b.concepts), q)


def test_the_stored_index_is_reused_only_while_the_file_identities_match(tmp_path, monkeypatch):
    import time

    from okfpro.io import cache
    from okfpro.io.bundle import load

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "RACY_NS", 50_000_000)  # the racy window, 2 s, made 50 ms: same rule, shorter waits
    root = tmp_path / "b"
    root.mkdir()
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n# B\n')
    for name, body in (("a", "the ledger rotates"), ("b", "a quiet ledger"), ("c", "nothing here")):
        (root / f"{name}.md").write_text(f"---\ntitle: {name}\n---\n\n{body}\n")
    time.sleep(0.1)  # older than the parse cache's racy window: the identities are vouched for
    first = load(root)
    assert cache.attach_scan(root, first, persist_at=1) is not None
    path = cache.scan_store_path(root)
    assert path.is_file()
    want = search.scan(list(first.concepts), ["ledger"])

    real_build = scanindex.ScanIndex.build

    def refuse(*a, **k):
        raise AssertionError("built although the stored index matches")

    monkeypatch.setattr(scanindex.ScanIndex, "build", classmethod(lambda cls, *a, **k: refuse()))
    second = load(root)  # a new reading (a new process would do the same)
    cache.attach_scan(root, second, persist_at=1)
    assert search.scan(second, ["ledger"]) == want

    # an edit changes an identity: the stored index is not used, the answer follows the disk
    (root / "c.md").write_text("---\ntitle: c\n---\n\nnow a ledger too\n")
    monkeypatch.setattr(scanindex.ScanIndex, "build", real_build)
    time.sleep(0.1)  # vouched for again: only the changed identity tells
    third = load(root)
    cache.attach_scan(root, third, persist_at=1)
    assert [r["id"] for r in search.scan(third, ["ledger"])] == ["a", "b", "c"]

    # a torn or foreign file is ignored
    path.write_bytes(path.read_bytes()[:-7])
    fourth = load(root)
    cache.attach_scan(root, fourth, persist_at=1)
    assert [r["id"] for r in search.scan(fourth, ["ledger"])] == ["a", "b", "c"]
