"""``okfpro eval recall GOLD``: metrics by hand, the baseline, the CLI, bad gold files."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from okfpro.core import evalmetrics as _evalmetrics
from tests.helpers import REPO, invoke


def test_metrics_by_hand():
    m = _evalmetrics.query_metrics(["x", "a", "y", "b"], ["a", "b"], ks=(1, 2, 5))
    assert m["recall@1"] == 0 and m["recall@2"] == 0.5 and m["recall@5"] == 1.0
    assert m["hit@1"] == 0 and m["hit@2"] == 1 and m["mrr"] == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert m["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert _evalmetrics.query_metrics([], ["a"])["mrr"] == 0.0


def test_plain_bm25_prefers_the_rare_word():
    bm = _evalmetrics.PlainBM25(["the cat sat", "the dog sat", "a cat and a cat"])
    assert bm.rank("cat")[0] == 2 and bm.rank("dog") == [1] and bm.rank("zebra") == []


def run(*args: str) -> subprocess.CompletedProcess:
    return invoke("eval", "recall", *args, text=False)


def test_cli_on_the_example_gold_set():
    proc = run(str(REPO / "examples" / "recall-gold.json"), "--json")
    assert proc.returncode == 0, proc.stderr
    rep = json.loads(proc.stdout)
    assert rep["memories"] == 40 and rep["queries"] == 28
    for engine in ("okfpro", "previous", "baseline"):
        assert set(rep[engine]["overall"]) >= {"recall@10", "hit@10", "mrr", "ndcg@10"}
        assert rep[engine].get("p50_ms", 0) >= 0
        assert set(rep[engine]["by_category"]) == {"keyword", "morphology", "paraphrase", "temporal"}
    assert rep["okfpro"]["overall"]["recall@10"] >= rep["baseline"]["overall"]["recall@10"]
    text = run(str(REPO / "examples" / "recall-gold.json"))
    assert text.returncode == 0 and "overall" in text.stdout.decode()
    rows = [line.split() for line in text.stdout.decode().splitlines()]
    # per category, okfpro's, the previous ranking's and the plain BM25's figures side by side
    assert [r[2] for r in rows if r and r[0] == "temporal"] == ["okfpro", "previous", "baseline"]


@pytest.mark.parametrize("gold, why", [
    ({"memories": [], "queries": []}, "non-empty"),
    ({"memories": [{"key": "a", "text": "x"}, {"key": "a", "text": "y"}], "queries": [{"query": "q", "keys": ["a"]}]},
     "twice"),
    ({"memories": [{"key": "a", "text": "x"}], "queries": [{"query": "q", "keys": ["b"]}]}, "unknown memory key"),
    ({"memories": [{"key": "a", "text": "x", "time": "noon"}], "queries": [{"query": "q", "keys": ["a"]}]}, "ISO"),
])
def test_bad_gold_is_exit_2(tmp_path, gold, why):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(gold))
    proc = run(str(path))
    assert proc.returncode == 2 and why in proc.stderr.decode(), proc.stderr
    (tmp_path / "bad.json").write_text("{")
    assert run(str(tmp_path / "bad.json")).returncode == 2
    assert run(str(tmp_path / "missing.json")).returncode == 2


def test_scoped_gold_ranks_each_conversation_apart_through_the_import_door():
    from okfpro.core.evalmetrics import parse_gold
    from okfpro.memory.evaluate import evaluate_recall

    same = "we adopted a puppy called Max"
    gold = parse_gold({
        "memories": [{"key": "a1", "text": same, "speaker": "Ana", "scope": "conv-a", "time": "2023-05-01T10:00:00Z"},
                     {"key": "a2", "text": "the weather is gloomy", "speaker": "Ben", "scope": "conv-a"},
                     {"key": "b1", "text": same, "speaker": "Ana", "scope": "conv-b", "source": "agent"},
                     {"key": "b2", "text": "Ana: lunch at noon", "scope": "conv-b"}]
        + [{"key": f"{s}{i}", "text": f"small talk number {i}", "speaker": "Ben", "scope": f"conv-{s}"}
           for s in "ab" for i in range(3, 9)],
        "queries": [{"query": "What is the puppy of Ana called?", "keys": ["a1"], "scope": "conv-a"},
                    {"query": "What is the puppy of Ana called?", "keys": ["b1"], "scope": "conv-b"}]})
    assert gold.memories[0].entry == "Ana: " + same and gold.memories[3].entry == "Ana: lunch at noon"
    key_scope = {m.key: m.scope for m in gold.memories}
    rep = evaluate_recall(gold)
    assert rep["scopes"] == 2
    for row in rep["per_query"]:
        own = {k for k in key_scope if key_scope[k] == row["scope"]}
        assert set(row["okfpro"]) <= own and set(row["baseline"]) <= own, row
        assert row["okfpro"][0] == row["keys"][0] and row["baseline"][0] == row["keys"][0]


@pytest.mark.parametrize("gold, why", [
    ({"memories": [{"key": "a", "text": "x", "scope": "one"}], "queries": [{"query": "q", "keys": ["a"], "scope": "two"}]},
     "not in scope"),
    ({"memories": [{"key": "a", "text": "x", "source": "oracle"}], "queries": [{"query": "q", "keys": ["a"]}]},
     "source"),
    ({"memories": [{"key": "a", "text": "x", "scope": "../up"}], "queries": [{"query": "q", "keys": ["a"], "scope": "../up"}]},
     "scope"),
    ({"memories": [{"key": "a", "text": "x", "speaker": 3}], "queries": [{"query": "q", "keys": ["a"]}]}, "speaker"),
])
def test_bad_conversation_gold_is_exit_2(tmp_path, gold, why):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(gold))
    proc = run(str(path))
    assert proc.returncode == 2 and why in proc.stderr.decode(), proc.stderr


@pytest.mark.parametrize("name", ["a", "b"])
def test_conversation_sets_are_what_the_generator_writes(name):
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "gen_conversations.py"), "--set", name],
                          capture_output=True, check=True)
    assert proc.stdout == (REPO / "examples" / f"conversations-{name}.json").read_bytes()
    gold = json.loads(proc.stdout)
    cats = {q["category"] for q in gold["queries"]}
    assert cats == {"single-hop", "multi-hop", "temporal", "open-domain", "adversarial"}
    assert len(gold["queries"]) >= 200 and len({m["scope"] for m in gold["memories"]}) >= 5


def test_the_plays_set_asks_what_its_rules_write():
    """The public-domain set's questions are its generator's rules applied to its turns (the play
    text itself is not shipped: the turns are, and the rules are checked against them)."""
    path = REPO / "examples" / "conversations-plays.json"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "gen_plays.py"), "--questions", str(path)],
                          capture_output=True, check=True)
    gold = json.loads(path.read_bytes())
    assert json.loads(proc.stdout)["queries"] == gold["queries"]
    assert {q["category"] for q in gold["queries"]} == {"single-hop", "multi-hop", "temporal", "open-domain"}
    assert len(gold["queries"]) >= 2000 and len({m["scope"] for m in gold["memories"]}) >= 15
    assert all(m["time"] and m["speaker"] for m in gold["memories"])


def test_the_design_questions_ask_of_concepts_the_bundle_holds(tmp_path):
    """examples/design-questions.json asks the project's own bundle (bench/eval_search.py
    --bundle .okf): every answer it names is a concept there, and a question whose answer is gone
    makes the bench refuse (exit 2) rather than count a miss."""
    questions = REPO / "examples" / "design-questions.json"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "eval_search.py"), str(questions), "--bundle",
                           str(REPO / ".okf"), "--json"], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    ranked = json.loads(proc.stdout)["ranked"]
    assert ranked["counts"]["overall"] == len(json.loads(questions.read_text())["queries"]) > 30
    gold = json.loads(questions.read_text())
    gold["queries"][0]["relevant"] = ["design/no-such-note"]
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(gold))
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "eval_search.py"), str(stale), "--bundle",
                           str(REPO / ".okf")], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 2 and "design/no-such-note" in proc.stderr
