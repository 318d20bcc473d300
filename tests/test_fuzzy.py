"""`search --fuzzy` as the reference defines it: the index engine's typo tolerance — terms ANDed; each
matches a word exactly, as a prefix, or within edit distance round(0.2 x its length) (at most 6)."""

from __future__ import annotations

import itertools

import pytest

from okfpro.core import bm25
from okfpro.core.concept import Bundle, Concept
from tests.helpers import invoke


def _bundle() -> Bundle:
    docs = {
        "ledger": "The ledger keeps every invoice.",
        "cohort": "Cohort retention by month.",
        "both": "A ledger of each cohort.",
        "other": "Nothing to see.",
    }
    return Bundle(root="/x", concepts=[Concept(f"{k}.md", {"type": "Note", "title": k.title()}, v)
                                       for k, v in docs.items()])


def ids(query: str, **kw) -> list[str]:
    return [r["id"] for r in bm25.rank_docs(_bundle(), query, None, fuzzy=True, **kw)]


def test_a_typo_within_the_distance_matches_and_beyond_does_not():
    assert set(ids("ledgr")) == {"ledger", "both"}  # 5 letters: distance 1
    assert ids("ldgr") == []  # 4 letters: distance round(0.8) = 1, but "ldgr" is 2 away
    assert set(ids("invoise")) == {"ledger"}  # 7 letters: distance 1
    assert ids("xy") == []  # 2 letters: distance 0, no typo tolerance
    assert set(ids("ledg")) == {"ledger", "both"}  # a prefix still matches


def test_terms_are_anded_and_an_exact_hit_outranks_a_typo():
    assert ids("ledgr cohrt") == ["both"]
    exact = {r["id"]: r["score"] for r in bm25.rank_docs(_bundle(), "invoice", None, fuzzy=True)}
    typo = {r["id"]: r["score"] for r in bm25.rank_docs(_bundle(), "invoise", None, fuzzy=True)}
    assert exact["ledger"] > typo["ledger"] > 0


def test_without_fuzzy_the_ranked_engine_is_unchanged():
    assert [r["id"] for r in bm25.rank_docs(_bundle(), "ledgr", None)] == []
    assert {r["id"] for r in bm25.rank_docs(_bundle(), "ledger cohort", None)} == {"ledger", "cohort", "both"}  # OR


@pytest.mark.parametrize("a,b", list(itertools.product(["", "a", "ab", "kitten", "sitting", "ledger", "ledgr"], repeat=2)))
def test_edit_distance_is_levenshtein(a, b):
    def full(x: str, y: str) -> int:
        prev = list(range(len(y) + 1))
        for i, cx in enumerate(x, 1):
            cur = [i]
            for j, cy in enumerate(y, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (cx != cy)))
            prev = cur
        return prev[-1]

    for limit in (0, 1, 2, 6):
        d = bm25.edit_distance(a, b, limit)
        assert d == full(a, b) if full(a, b) <= limit else d == limit + 1


def test_cli_flags(tmp_path):
    (tmp_path / "a.md").write_text("---\ntype: Note\ntitle: Ledger\n---\nThe ledger.\n")
    ok = invoke("search", "ledgr", "--fuzzy", "--bundle", str(tmp_path), "--json")
    assert ok.returncode == 0 and '"id":"a"' in ok.stdout
    for extra, words in ((["-e"], "mutually exclusive"), (["--engine", "scan"], "does not support --fuzzy")):
        proc = invoke("search", "ledgr", "--fuzzy", *extra, "--bundle", str(tmp_path))
        assert proc.returncode == 2 and words in proc.stderr
