"""Rule 1's ranking from word postings (``okfpro.io.rule1state.ranked_words``) is the scan engine's.

A real bundle on disk whose concepts draw their words from a small vocabulary full of substrings
(``cache`` in ``caches`` and ``xcache``, ``a1`` in ``a12``…) and share scores and ids, so ties,
terms inside several words and terms only some bodies hold all occur.  For each term the whole
ranking read from the postings must equal the engine's own (``search.scan`` per concept: score
descending, id, path), and it must stay equal after concepts are changed, added and removed.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from okfpro.core import search
from okfpro.core.scanindex import WORD
from okfpro.io import analysis, reader, rule1state

VOCAB = ["cache", "caches", "xcache", "cached", "ledger", "ledgers", "led", "a1", "a12", "a123", "x_y", "rank", "plan"]
TERMS = ["cache", "caches", "ache", "led", "ledger", "a1", "a12", "1", "x", "x_y", "rank", "plan", "zzz", "e",
         "cache ", " led", "a1 a", "s l", "zz z"]  # the last ones: not word characters, ranked by SQL


def concept_text(rng: random.Random, ids: list[str]) -> str:
    def words(k: int) -> str:
        return " ".join(rng.choice(VOCAB) for _ in range(rng.randrange(k)))

    fm = [f"type: {rng.choice(['Learning', 'Briefing', 'Plan'])}"]
    if rng.random() < 0.7:
        fm.append(f"title: {words(3).title() or 'Untitled'}")
    if rng.random() < 0.5:
        fm.append(f"description: {words(4) or 'nothing'}")
    if rng.random() < 0.4:
        fm.append(f"tags: [{', '.join(rng.sample(VOCAB, rng.randrange(1, 3)))}]")
    if rng.random() < 0.2 and ids:  # somebody else's id: same id, several paths
        fm.append(f"id: {rng.choice(ids)}")
    if rng.random() < 0.2:
        fm.append(f"sources:\n  - id: s1\n    resource: https://example.com/{rng.choice(VOCAB)}")
    return "---\n" + "\n".join(fm) + "\n---\n\n" + words(12) + "\n"


def expected(root: str, terms: list[str]) -> dict[str, list[tuple[int, str, str]]]:
    """Per term, the engine's ranking: ``search.scan`` per concept read from disk (each read once)."""
    items = []
    for rel in reader.walk(root):
        item = reader.load_entry(root, rel)
        if not hasattr(item, "title"):
            continue
        values = search._concept_values(item)
        lows = [search._low(values[f]) for f in search.FIELDS]
        if any(low is None or rule1state.LONG_WORD.search(low) for low in lows):
            continue  # irregular: scanned by the engine itself, not from postings
        items.append((rel, item))
    return {term: sorted((-row["score"], row["id"], rel) for rel, item in items for row in search.scan([item], [term]))
            for term in terms}


def postings(root: str, *terms: str) -> dict[str, list[tuple[int, str, str]]]:
    """Per term, the whole ranking from the postings (a word term) or, band by band, by SQL (any
    other), after one build or refresh of the state."""
    state, reason = analysis.open_state(root)
    try:
        if reason is not None:
            present = analysis.identities(state.root_real)
            bundle = reader.read_bundle(root)
            state.build([*bundle.concepts, *bundle.reserved, *bundle.unparseable], present)
        else:
            state.refresh()
        got = {}
        for term in terms:
            if not WORD.fullmatch(term):
                out: list[tuple[int, str, str]] = []
                for floor, ranked in rule1state._Bands(state.db).bands(term):
                    # each band is exact above its floor, and holds every concept scoring more
                    band = [row for row in ranked if -row[0] > floor]
                    assert band[:len(out)] == out
                    out = band
                got[term] = out
                continue
            words = rule1state.words_holding(state.db, term)
            assert words is not None
            got[term] = list(rule1state.ranked_words(state.db, term, words))
        return got
    finally:
        analysis.commit(state.db)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_ranking_from_postings_is_the_engines(tmp_path, monkeypatch, seed):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rng = random.Random(seed)
    root = tmp_path / "ws" / ".okf"
    dirs = ["", "learnings", "projects/p"]
    for d in dirs:
        (root / d).mkdir(parents=True, exist_ok=True)
    ids: list[str] = []
    for i in range(120):
        rel = f"{rng.choice(dirs)}/{rng.choice(VOCAB)}-{i}.md".lstrip("/")
        (root / rel).write_text(concept_text(rng, ids))
        ids.append(rel[:-3])
    real = os.path.realpath(root)
    for round_ in range(4):
        got, want = postings(real, *TERMS), expected(real, TERMS)
        for term in TERMS:
            assert got[term] == want[term], f"seed {seed} round {round_} term {term!r}"
        files = [p for p in Path(real).rglob("*.md")]
        for p in rng.sample(files, 15):  # change some, remove some, add some: the postings follow
            if rng.random() < 0.3:
                p.unlink()
            else:
                p.write_text(concept_text(rng, ids))
        for i in range(5):
            rel = f"{rng.choice(dirs)}/{rng.choice(VOCAB)}-new{round_}-{i}.md".lstrip("/")
            (root / rel).write_text(concept_text(rng, ids))


def test_the_words_holding_a_term_are_every_posted_word_containing_it(tmp_path, monkeypatch):
    """The suffix table's range read gives every posted word that contains the term (substrings
    at the start, inside and at the end of words; the whole word; digits, underscores), only
    such words, and None past ``most`` words: checked against a substring test over every word
    the postings hold, after changes too."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rng = random.Random(5)
    root = tmp_path / "ws" / ".okf"
    root.mkdir(parents=True)
    for i in range(60):
        (root / f"{rng.choice(VOCAB)}-{i}.md").write_text(concept_text(rng, []))
    real = os.path.realpath(root)
    terms = sorted({w[i:j] for w in VOCAB for i in range(len(w)) for j in range(i + 1, len(w) + 1)}) + ["zzz", "cachez", "newword", "d_1", "9z", "_"]
    for round_ in range(2):
        postings(real, "cache")  # brings the state up to the disk
        state, reason = analysis.open_state(real)
        try:
            assert reason is None
            db = state.db
            posted = {w for (w,) in db.execute("SELECT word FROM spost UNION SELECT word FROM bpost")}
            stored = {w for (w,) in db.execute("SELECT DISTINCT word FROM vocab")}
            assert posted <= stored  # a word no concept holds any more may stay: it posts nothing
            for term in terms:
                got = rule1state.words_holding(db, term, most=10**6)
                assert got is not None and all(term in w for w in got), term
                assert {w for w in posted if term in w} <= set(got), term
                assert got == sorted({w for w in stored if term in w}), term
                for most in (1, 3):
                    assert rule1state.words_holding(db, term, most=most) == (got if len(got) <= most else None)
        finally:
            analysis.commit(state.db)
        for p in sorted(Path(real).glob("*.md"))[:10]:
            p.write_text(concept_text(rng, []) + " newword_" + str(round_) + " x9z cachezz\n")


def _post_edit_workspace(tmp_path, monkeypatch):
    """An okfpro workspace (a Git repository) with an empty bundle, the clock and caches pinned."""
    monkeypatch.setenv("OKFPRO_TODAY", "2026-11-30")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ws = tmp_path / "ws"
    root = ws / ".okf"
    (root / "learnings").mkdir(parents=True)
    (ws / "okfpro.toml").write_text("")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# Root\n')
    return ws, root


def _incremental_and_full(ws, written, monkeypatch) -> tuple[tuple, tuple]:
    """Post-edit's answer to a Write of ``written``: incremental (after a first run built the
    state), then a full run -- each (kind, messages, notes)."""
    import json

    from okfpro.hooks import post_edit
    from okfpro.hooks.context import Ctx
    from okfpro.core.event import parse

    def answer(full: bool) -> tuple:
        if full:
            monkeypatch.setenv("OKFPRO_NO_CACHE", "1")
        else:
            monkeypatch.delenv("OKFPRO_NO_CACHE", raising=False)
        event = parse(json.dumps({"cwd": str(ws), "tool_name": "Write",
                                  "tool_input": {"file_path": str(written), "content": "x"}}))
        ctx = Ctx(event)
        got = post_edit.post_edit(ctx)
        return got.kind, got.messages, ctx.notes

    answer(False)  # builds the state
    return answer(False), answer(True)


@pytest.mark.parametrize("name", ["v1.2-cache-a12.md", "x_y-led-1.md", "ache-zzz.md", "cache.ledger-e.md", "a b-plan.md"])
def test_rule1_through_post_edit_equals_a_full_run(tmp_path, monkeypatch, name):
    """Every kind of term (one word, inside several words, only in bodies, not word characters,
    nowhere) through the hook's own answer, incremental against ``OKFPRO_NO_CACHE=1``."""
    rng = random.Random(name)
    ws, root = _post_edit_workspace(tmp_path, monkeypatch)
    ids: list[str] = []
    for i in range(80):
        rel = f"learnings/{rng.choice(VOCAB)}-{i}.md"
        (root / rel).write_text(concept_text(rng, ids))
        ids.append(rel[:-3])

    (root / "learnings" / name).write_text(concept_text(rng, ids))
    inc, full = _incremental_and_full(ws, root / "learnings" / name, monkeypatch)
    assert inc[2] == []
    assert inc[:2] == full[:2]
    assert "RULE 1" in "\n".join(full[1]) or name.startswith("ache-zzz")


def test_a_concept_holding_a_very_long_word_is_ranked_by_the_engine_itself(tmp_path, monkeypatch):
    """A word's suffixes cost its length squared (a 17,000-digit integer in a hostile concept was
    ~150 MB of them and seconds of every state build): a concept holding a word of
    ``LONG_WORD`` characters or more is irregular, scanned by the engine itself.  A term inside
    such words (in a title, a body) still ranks them exactly as a full run does."""
    rng = random.Random(7)
    ws, root = _post_edit_workspace(tmp_path, monkeypatch)
    long_ones = []
    for i in range(40):
        rel = f"learnings/{rng.choice(VOCAB)}-{i}.md"
        text = concept_text(rng, [])
        if i % 8 == 0:  # a word of 300 and one of 5,000 characters holding "cache", in the title or the body
            word = "a1" + "z" * (300 if i % 16 else 5000) + "cache" + "9" * i
            if i % 16:
                text = "\n".join(line for line in text.split("\n") if not line.startswith("title:"))
                text = text.replace("---\n", f"---\ntitle: {word}\n", 1)
            else:
                text += f"\n{word}\n"
            long_ones.append(rel)
        (root / rel).write_text(text)

    (root / "learnings" / "cache.md").write_text("---\ntype: Learning\ntitle: Cache\n---\n\ncache\n")
    inc, full = _incremental_and_full(ws, root / "learnings" / "cache.md", monkeypatch)
    assert inc[2] == []
    assert inc[:2] == full[:2]
    said = "\n".join(full[1])
    assert "RULE 1" in said and any(rel[:-3] in said for rel in long_ones), said
    state, reason = analysis.open_state(os.path.realpath(root))
    try:
        assert reason is None
        assert sorted(r[0] for r in state.db.execute("SELECT path FROM irregular")) == sorted(long_ones)
        assert state.db.execute("SELECT max(length(word)) FROM vocab").fetchone()[0] < 256
    finally:
        analysis.abandon(state.db)
