"""Prompt recall's knowledge side answered by the bundle's FTS5 index alone (okfpro/io/fts.py
``answer_fresh``): only when every file is the file the index was synced from, and then with
exactly the rows a fresh reading gives (``rank_bundle`` over the bundle, dated as recall dates
them).  Every way the index can be out of step — an edit, a new or deleted file, a symlink, a file
just written, a hand-edited or torn index — answers None, and the caller reads the bundle."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from okfpro.io import cache, fts
from okfpro.memory.recall import _dated
from tests.helpers import memory_workspace, scoped_env

WORDS = "alpha bravo charlie delta echo foxtrot golf hotel".split()
QUERIES = ("git rebase customer_id strasse", "7.2.0 okf-pro école", "tenant_id `a  b`", "alpha echo body", "bravo", "note", "golf hotel delta", "charlie al", "zulu", "dup shared",
           "alpha bravo charlie delta echo foxtrot golf hotel")


@pytest.fixture()
def tree(tmp_path, monkeypatch):
    if not fts.available():
        pytest.skip("SQLite without FTS5")
    monkeypatch.setattr(cache, "RACY_NS", -1)  # every file counts as settled: its identity is vouched
    (tmp_path / "okfpro.toml").write_text("")
    root = tmp_path / ".okf"
    (root / "sub").mkdir(parents=True)
    (root / "index.md").write_text("# Root\n")
    for i in range(40):
        dated = ("updated: 2026-03-0%d\n" % (i % 9 + 1)) if i % 3 == 0 else ("created: 2025-12-1%d\n" % (i % 10)
                                                                            if i % 3 == 1 else "")
        trust = "verified:\n  - by: human:ann\n    at: 2026-01-01\n" if i % 7 == 0 else ""
        (root / ("sub" if i % 4 == 0 else "") / f"n{i:02d}.md").write_text(
            f"---\ntype: Note\ntitle: Note {WORDS[i % 8]} {i}\ntags: [t{i % 3}]\n{dated}{trust}---\n\n"
            f"{WORDS[(i * 3) % 8]} {WORDS[(i * 5) % 8]} body {i}\n")
    # two concepts declaring one id: the rows of both are dated as the first (Bundle.by_id)
    (root / "a-dup.md").write_text("---\nid: shared\ntitle: Dup one\ncreated: 2024-01-01\n---\n\ndup shared alpha\n")
    (root / "z-dup.md").write_text("---\nid: shared\ntitle: Dup two\ncreated: 2020-05-05\n---\n\ndup shared bravo\n")
    (root / "sub" / "code.md").write_text("---\ntitle: Straße `okf-pro` 7.2.0\ntags: [customer_id, ops]\n"
                                          "description: Use `git rebase -i` on customer_id\n---\n\n"
                                          "Straße, ÉCOLE and tenant_id: `a  b` then note.\n")
    (root / "bad.md").write_text("---\ntitle: [unclosed\n---\nbroken\n")  # unparseable: in the listing, not indexed
    return root


def fresh_reading(root: Path, query: str, limit: int = 8) -> list[dict]:
    bundle = cache.load_bundle(root)
    return _dated(fts.rank_bundle(root, bundle, query, limit), {None: bundle})


def test_a_fresh_index_answers_alone_with_the_rows_of_a_fresh_reading(tree):
    for q in QUERIES:
        for limit in (1, 3, 8, 50):
            want = fresh_reading(tree, q, limit)
            assert fts.answer_fresh(tree, q, limit) == want, (q, limit)
    got = fts.answer_fresh(tree, "dup shared", 8)
    assert [(r["title"], r["date"]) for r in got] == [("Dup one", "2024-01-01"), ("Dup two", "2024-01-01")]
    assert {r["trust"] for r in fts.answer_fresh(tree, "note", 50)} == {"human-reviewed", "unverified"}


def test_no_index_yet_answers_none_and_creates_nothing(tree):
    assert fts.answer_fresh(tree, "alpha", 8) is None
    assert not os.path.exists(fts.db_path(tree))


@pytest.mark.parametrize("change", ["edit-date-only", "edit-text", "touch", "add", "delete", "delete-unparseable",
                                    "symlink", "add-index"])
def test_any_change_on_disk_answers_none_until_the_bundle_is_read_again(tree, change):
    fresh_reading(tree, "delta")
    assert fts.answer_fresh(tree, "delta", 8) is not None
    path = tree / "n03.md"
    st = path.stat()
    if change == "edit-date-only":  # the indexed text is unchanged: only the row's date moves
        path.write_text(path.read_text().replace("updated: 2026-03-04", "updated: 2026-03-05"))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: the ctime still moves
    elif change == "edit-text":
        path.write_text(path.read_text().replace("body 3", "body 3 alpha"))
    elif change == "touch":
        os.utime(path)
    elif change == "add":
        (tree / "sub" / "new.md").write_text("---\ntitle: New alpha\n---\n\nalpha\n")
    elif change == "delete":
        path.unlink()
    elif change == "delete-unparseable":
        (tree / "bad.md").unlink()
    elif change == "symlink":
        (tree / "link.md").symlink_to(path)
    elif change == "add-index":
        (tree / "sub" / "index.md").write_text("# Sub\n")
    assert fts.answer_fresh(tree, "delta", 8) is None
    want = fresh_reading(tree, "delta")  # the reading syncs the index again
    if change == "symlink":  # a symlink is read afresh every time: never vouched, never answered alone
        assert fts.answer_fresh(tree, "delta", 8) is None
    else:
        assert fts.answer_fresh(tree, "delta", 8) == want
    if change == "edit-date-only":
        assert [r["date"] for r in want if r["id"] == "n03"] == ["2026-03-05"]


def test_a_file_just_written_is_not_vouched_so_the_index_does_not_answer(tree, monkeypatch):
    monkeypatch.setattr(cache, "RACY_NS", 10**19)
    fresh_reading(tree, "alpha")
    assert fts.answer_fresh(tree, "alpha", 8) is None
    monkeypatch.setattr(cache, "RACY_NS", -1)
    want = fresh_reading(tree, "alpha")
    assert fts.answer_fresh(tree, "alpha", 8) == want


def edit_index(root: Path, sql: str, *args) -> None:
    con = sqlite3.connect(fts.db_path(root))
    con.execute(sql, args)
    con.commit()
    con.close()


_SHOWN = "(SELECT rid FROM answers WHERE path = 'n01.md')"  # a row "note" shows
_HIDDEN = "(SELECT rid FROM answers WHERE path = 'a-dup.md')"  # a row "note" does not match


@pytest.mark.parametrize("sql", [
    f"DELETE FROM answers WHERE rid = {_SHOWN}",
    f"UPDATE answers SET path = 'elsewhere.md' WHERE rid = {_SHOWN}",
    f"UPDATE files SET path = 'elsewhere.md' WHERE rid = {_SHOWN}",
    "UPDATE meta SET value = 'x' || value WHERE key = 'listing'",
    # the tie order stored after the listing's digest, not one any more
    "UPDATE meta SET value = substr(value, 1, 33) || 'not json' WHERE key = 'listing'",
    "UPDATE meta SET value = substr(value, 1, 33) || '[1, 2]' WHERE key = 'listing'",
    "UPDATE meta SET value = substr(value, 1, 33) || '{\"a\": 1}' WHERE key = 'listing'",
    "UPDATE meta SET value = substr(value, 1, 33) || '[[[1]], []]' WHERE key = 'listing'",
    "UPDATE meta SET value = '/elsewhere' WHERE key = 'root'",
    "UPDATE meta SET value = '5/' || value WHERE key = 'schema'",
    "DROP TABLE answers",
])
def test_a_hand_edited_index_answers_none_and_the_next_reading_repairs_it(tree, sql):
    want = fresh_reading(tree, "note", 50)
    edit_index(tree, sql)
    assert fts.answer_fresh(tree, "note", 50) is None
    assert fresh_reading(tree, "note", 50) == want
    assert fts.answer_fresh(tree, "note", 50) == want


@pytest.mark.parametrize("sql", [f"DELETE FROM answers WHERE rid = {_HIDDEN}",
                                 f"UPDATE answers SET path = 'elsewhere.md' WHERE rid = {_HIDDEN}"])
def test_damage_to_a_row_not_shown_leaves_the_answer_exact_and_the_next_reading_repairs_it(tree, sql):
    """Only the rows an answer shows are read back (their answer, paired with their file): a row
    that is not shown cannot change the answer, so the index still answers, and rightly."""
    want = fresh_reading(tree, "note", 50)
    assert "a-dup" not in [r["id"] for r in want]
    edit_index(tree, sql)
    assert fts.answer_fresh(tree, "note", 50) == want
    assert fresh_reading(tree, "note", 50) == want
    con = sqlite3.connect(fts.db_path(tree))
    assert con.execute("SELECT count(*) FROM answers a JOIN files f ON f.rid = a.rid AND f.path = a.path").fetchone()[0] \
        == con.execute("SELECT count(*) FROM files").fetchone()[0]  # repaired
    con.close()


@pytest.mark.parametrize("data", ["not json", "[1]", "[{}, {}, null, null]", "[[], [], 1, 2]"])
def test_an_answer_that_does_not_read_answers_none(tree, data):
    want = fresh_reading(tree, "note", 50)
    edit_index(tree, "UPDATE answers SET data = ?", data)
    assert fts.answer_fresh(tree, "note", 50) is None
    assert fresh_reading(tree, "note", 50) == want  # the reading still answers (from the bundle)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "directory"])
def test_a_torn_or_foreign_index_file_answers_none(tree, damage):
    fresh_reading(tree, "alpha")
    path = fts.db_path(tree)
    if damage == "garbage":
        Path(path).write_bytes(b"not a database at all" * 100)
    elif damage == "truncated":
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[: len(data) // 3])
    elif damage == "empty":
        Path(path).write_bytes(b"")
    else:
        os.unlink(path)
        os.mkdir(path)
    assert fts.answer_fresh(tree, "alpha", 8) is None


def test_the_cache_off_or_the_pure_engine_is_never_answered_from_the_index(tree, monkeypatch):
    want = fresh_reading(tree, "alpha")
    assert fts.answer_fresh(tree, "alpha", 8) == want
    monkeypatch.setenv("OKFPRO_NO_CACHE", "1")
    assert fts.answer_fresh(tree, "alpha", 8) is None
    monkeypatch.delenv("OKFPRO_NO_CACHE")
    monkeypatch.setenv("OKFPRO_RANKED", "pure")
    assert fts.answer_fresh(tree, "alpha", 8) is None


@pytest.fixture(scope="module", autouse=True)
def settling(tmp_path_factory) -> tuple[Path, float]:
    """The end-to-end test's workspace (its alone), written when the module's first test starts: the
    parse cache vouches only for files older than its racy window (io/cache.RACY_NS), and by the time
    that test runs most of the wait is over (it sleeps what is left, instead of 2.1 s idle)."""
    ws = memory_workspace(tmp_path_factory.mktemp("settling"))
    (ws / ".okf" / "index.md").write_text("# Root\n")
    for i in range(12):
        (ws / ".okf" / f"c{i}.md").write_text(f"---\ntype: Note\ntitle: Staging {WORDS[i % 8]} {i}\n"
                                              f"updated: 2026-0{i % 9 + 1}-02\n---\n\nThe staging database {i}.\n")
    return ws, time.time()


def test_the_prompt_hook_answers_alike_from_the_index_alone_and_from_a_reading(settling):
    """End to end, real processes: the second prompt is answered without reading the bundle (its
    parse cache, overwritten with garbage, stays garbage), and says exactly what a reading says."""
    if not fts.available():
        pytest.skip("SQLite without FTS5")
    ws, written = settling
    time.sleep(max(0.0, written + 2.1 - time.time()))  # settled files (io/cache.RACY_NS): the parse cache vouches for them
    env = scoped_env("OKFPRO_MEMORY_INDEX", OKFPRO_TENANT="acme", OKFPRO_USER="alice", OKFPRO_TODAY="2026-11-30")
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(ws),
                        "prompt": "where is the staging database?"}).encode()

    def prompt() -> bytes:
        proc = subprocess.run([sys.executable, "-m", "okfpro", "hook", "user-prompt-submit"], cwd=ws, env=env,
                              input=event, capture_output=True)
        assert proc.returncode == 0, proc.stderr[-500:]
        return proc.stdout

    first = prompt()
    assert b"Staging" in first
    parse_cache = next((ws / ".tmp" / "okfpro-cache").glob("bundle-*.bin"))
    for _ in range(2):
        parse_cache.write_bytes(b"garbage")
        assert prompt() == first
        assert parse_cache.read_bytes() == b"garbage"  # the bundle was not read
        for p in (ws / ".tmp" / "okfpro-cache").glob("fts-*"):
            p.unlink()
        assert prompt() == first  # no index: a reading answers, the same, and rebuilds the index
        assert parse_cache.read_bytes() != b"garbage"
    (ws / ".okf" / "c3.md").write_text("---\ntype: Note\ntitle: Staging moved\n---\n\nThe staging database moved.\n")
    parse_cache.write_bytes(b"garbage")
    edited = prompt()
    assert b"Staging moved" in edited and parse_cache.read_bytes() != b"garbage"  # read again


def empty_bundle(tmp_path: Path, monkeypatch) -> Path:
    """An empty bundle in a workspace, its files counted as settled (their identity is vouched)."""
    if not fts.available():
        pytest.skip("SQLite without FTS5")
    monkeypatch.setattr(cache, "RACY_NS", -1)
    (tmp_path / "okfpro.toml").write_text("")
    root = tmp_path / ".okf"
    root.mkdir()
    return root


def test_a_tie_run_longer_than_the_fetch_is_ranked_as_the_pure_engine_ranks_it(tmp_path, monkeypatch):
    """Words in most concepts (in every concept but the rare ones: their scores tie) tie 90 rows
    here; the index's answer picks the lowest ids of the run — it must be the pure engine's answer."""
    from okfpro.core import bm25

    root = empty_bundle(tmp_path, monkeypatch)
    for i in range(90):  # ids in another order than paths, and one id declared twice
        ident = "twin" if i in (7, 60) else f"c{(i * 37) % 90:02d}"
        extra = " rare" if i % 30 == 0 else ""
        (root / f"p{i:02d}.md").write_text(f"---\nid: {ident}\ntitle: Common {i}\n---\n\ncommon words{extra} body {i}\n")
    bundle = cache.load_bundle(root)
    for q in ("common", "common rare", "words body", "common zzz"):
        for limit in (1, 2, 5, 8, 40, 89):
            pure = _dated(bm25.rank_docs(bundle, q, limit), {None: bundle})
            assert _dated(fts.rank_bundle(root, bundle, q, limit), {None: bundle}) == pure, (q, limit)
            assert fts.answer_fresh(root, q, limit) == pure, (q, limit)


def test_common_and_rare_words_rank_alike_from_the_index_and_the_pure_engine(tmp_path, monkeypatch):
    """Words in most concepts (``alpha`` in 3/4, ``bravo`` in exactly half, ``charlie`` in one fewer
    than half), ``alphabet``-only concepts that match the prefix ``alpha*`` but not its exact term
    (and sort first in the tie order), concepts that match nothing between them, and rare words:
    every answer of the index (its postings, okfpro/io/ftsquery.py) is the pure engine's, scores
    included, for every limit."""
    from okfpro.core import bm25

    root = empty_bundle(tmp_path, monkeypatch)
    for i in range(48):
        words = []
        if i % 4 != 3:
            words.append("alpha")
        if i % 2 == 0 or i in (1, 3):  # 26 of the 52 concepts
            words.append("bravo")
        if i % 2 == 1 and i != 47 or i in (0, 2):  # 25
            words.append("charlie")
        if i % 16 == 5:
            words.append("delta")
        if i % 9 == 0:
            words.append("echo echo")
        body = " ".join(words) or "nothing here"
        # ids in another order than the paths (and the rowids): ties are ordered by id, not as FTS5 returns them
        (root / f"m{i:02d}.md").write_text(f"---\nid: c{(i * 37) % 48:02d}\ntitle: Note {i}\n---\n\n"
                                           f"{body} filler{i % 5} words\n")
    for i in range(4):  # the prefix alone: lowest ids
        (root / f"a{i}.md").write_text(f"---\ntitle: Letters {i}\n---\n\nalphabet soup {i}\n")
    bundle = cache.load_bundle(root)
    fts.rank_bundle(root, bundle, "alpha", 1)  # the index, synced with its answers
    queries = ("alpha", "alpha bravo", "alpha delta", "bravo delta echo", "alpha charlie", "charlie",
               "alpha bravo charlie delta echo", "alpha zulu", "bravo", "alpha soup", "delta", "echo bravo alpha")
    for q in queries:
        for limit in (1, 2, 5, 8, 12, 30, 60):
            pure = _dated(bm25.rank_docs(bundle, q, limit), {None: bundle})
            assert fts.answer_fresh(root, q, limit) == pure, (q, limit)
            assert _dated(fts.rank_bundle(root, bundle, q, limit), {None: bundle}) == pure, (q, limit)


