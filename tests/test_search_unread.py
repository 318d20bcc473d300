"""``okfpro search --engine ranked`` answered by the bundle's index without reading the bundle
(okfpro/io/fts.py ``answer_read``): only while the index vouches for every file on disk, with
exactly the rows a reading gives, each row read from its own file and scored again from it.  A
forged index (postings, stored text, answers, paths) changes no answer: a row it ranks that its
file does not earn removes the index, and the bundle is read and ranked again."""

from __future__ import annotations

import json
import marshal
import os
import sqlite3
import time
from array import array
from pathlib import Path

import pytest

from okfpro.io import cache, fts, reader, search
from tests.helpers import run_okfpro
from tests.test_fts_fresh import QUERIES
from tests.test_fts_fresh import tree as tree  # noqa: F401 - the fixture: 40 notes, a shared id, an unparseable file


def reading(root: Path, query: str, limit: int | None) -> list[dict]:
    return fts.rank_bundle(root, cache.load_bundle(root), query, limit)


def pure(root: Path, query: str, limit: int | None, monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    with monkeypatch.context() as m:
        m.setenv("OKFPRO_RANKED", "pure")
        return fts.rank_bundle(root, cache.load_bundle(root), query, limit)


def test_the_index_answers_unread_with_the_rows_of_a_reading(tree):
    assert fts.answer_read(tree, "alpha", 8) is None  # no index yet
    assert not os.path.exists(fts.db_path(tree))
    for q in (*QUERIES, "the and of"):  # (the last: stop words only, no term)
        for limit in (0, 1, 3, 8, 50, None):
            want = reading(tree, q, limit)
            got = fts.answer_read(tree, q, limit)
            assert got == (want, 1), (q, limit)  # bad.md: one file the reading could not use


@pytest.mark.parametrize("change", ["edit", "add", "delete"])
def test_a_change_on_disk_answers_none(tree, change):
    reading(tree, "delta", 8)
    assert fts.answer_read(tree, "delta", 8) is not None
    if change == "edit":
        (tree / "n03.md").write_text("---\ntitle: Changed\n---\n\ndelta delta delta\n")
    elif change == "add":
        (tree / "new.md").write_text("---\ntitle: New\n---\n\ndelta\n")
    else:
        (tree / "n03.md").unlink()
    assert fts.answer_read(tree, "delta", 8) is None
    assert fts.answer_read(tree, "delta", 8) is None  # until the bundle is read again
    want = reading(tree, "delta", 8)
    assert fts.answer_read(tree, "delta", 8) == (want, 1)


def _rid(con: sqlite3.Connection, name: str) -> int:
    return con.execute("SELECT rid FROM files WHERE path = ?", (name,)).fetchone()[0]


def forge_postings(db: str, term: str, name: str) -> None:
    """Put the concept at ``name`` into ``term``'s postings with a huge count (it holds no such term)."""
    con = sqlite3.connect(db)
    rid = _rid(con, name)
    chunk, rids, codes = con.execute("SELECT chunk, rids, codes FROM postings WHERE term = ?", (term,)).fetchone()
    a, c = array("i"), array("q")
    a.frombytes(rids)
    c.frombytes(codes)
    a.append(rid)
    c.append(9999 << 32 | 3)
    con.execute("UPDATE postings SET rids = ?, codes = ? WHERE term = ? AND chunk = ?", (a.tobytes(), c.tobytes(), term, chunk))
    con.commit()
    con.close()


def forge_text(db: str) -> None:
    """Every stored answer, text and path rewritten: the rows shown come from the files, not from these."""
    con = sqlite3.connect(db)
    con.execute("UPDATE answers SET data = '[{}, {}, null, \"forged\"]', id = 'forged'")
    con.execute("UPDATE docs SET title = 'forged', body = 'forged'")
    con.commit()
    con.close()


def forge_paths(db: str) -> None:
    """Two indexed concepts' paths swapped: each row's postings then belong to the other file."""
    con = sqlite3.connect(db)
    a, b = _rid(con, "n01.md"), _rid(con, "n02.md")
    con.execute("UPDATE files SET path = 'swap' WHERE rid = ?", (a,))
    con.execute("UPDATE files SET path = 'n01.md' WHERE rid = ?", (b,))
    con.execute("UPDATE files SET path = 'n02.md' WHERE rid = ?", (a,))
    con.commit()
    con.close()


@pytest.mark.parametrize("forge", ["postings", "text", "paths"])
def test_a_forged_index_changes_no_answer(tree, forge, monkeypatch):
    queries = ["zulu", "bravo body", "note 0", "golf hotel delta"]
    want = {q: pure(tree, q, 8, monkeypatch) for q in queries}
    reading(tree, "bravo", 8)  # the index, synced and listed
    db = fts.db_path(tree)
    if forge == "postings":
        forge_postings(db, "bravo", "n02.md")  # n02: charlie, golf, charlie: no bravo anywhere
    elif forge == "text":
        forge_text(db)
    else:
        forge_paths(db)
    for q in queries:
        got = fts.answer_read(tree, q, 8)
        if got is not None:
            assert got == (want[q], 1), q
        assert reading(tree, q, 8) == want[q], q  # the door every reading takes, the stored index behind it
    if forge == "text":
        assert os.path.exists(db)  # the postings were never forged: the index stays, and its rows are the files'


def test_a_forged_index_is_caught_with_a_filter_too(tree, monkeypatch):
    """The reading path (a filter: the bundle is read) scores its shown rows again as well."""
    from okfpro.core.search import RowFilter

    def filtered() -> list[dict]:
        return fts.rank_bundle(tree, cache.load_bundle(tree), "bravo", 5, where=RowFilter(type="note"))

    with monkeypatch.context() as m:
        m.setenv("OKFPRO_RANKED", "pure")
        want = filtered()
    filtered()
    forge_postings(fts.db_path(tree), "bravo", "n02.md")
    assert filtered() == want
    assert filtered() == want


def test_the_cli_answers_unread_and_a_forged_index_changes_nothing(tmp_path):
    """Real processes: files written more than two seconds ago are vouched for; the second search
    reads no concept file but the rows it shows; a forged index then answers as the pure engine."""
    if not fts.available():
        pytest.skip("SQLite without FTS5")
    (tmp_path / "okfpro.toml").write_text("")
    root = tmp_path / ".okf"
    root.mkdir()
    (root / "index.md").write_text("# Root\n")
    for i in range(30):
        (root / f"n{i:02d}.md").write_text(f"---\ntitle: Note {i}\n---\n\n{'kiwi ' * (i % 4)}mango {i}\n")
    time.sleep(2.2)  # past the parse cache's racy window: every file's identity is vouched
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg"), "OKFPRO_RANKED": ""}
    argv = ("search", "kiwi", "mango", "--engine", "ranked", "--json")
    pure_out = run_okfpro(*argv, cwd=tmp_path, env={**env, "OKFPRO_RANKED": "pure"})
    assert pure_out.returncode == 0
    first = run_okfpro(*argv, cwd=tmp_path, env=env)
    assert first.stdout == pure_out.stdout
    second = run_okfpro(*argv, cwd=tmp_path, env=env)
    assert second.stdout == pure_out.stdout
    db = next((tmp_path / ".tmp" / "okfpro-cache").glob("fts-*.sqlite"))
    forge_postings(str(db), "kiwi", "n00.md")  # n00 holds no kiwi
    forged = run_okfpro(*argv, cwd=tmp_path, env=env)
    assert forged.stdout == pure_out.stdout
    assert json.loads(forged.stdout)["matches"][0]["id"] != "n00"


# --------------------------------------------------------------------------- the scan word index
def scan_query(*terms: str, **kw) -> search.Query:
    return search.Query(list(terms), **kw)


def stored_scan(root: Path) -> None:
    """The scan word index stored as a reading of 2,000 concepts or more stores it."""
    cache.attach_scan(root, cache.load_bundle(root), persist_at=1)


def scanned(root: Path, q: search.Query) -> list[dict]:
    return search.one(root, reader.read_bundle(root), q)


SCANS = [scan_query("alpha"), scan_query("bravo", "body"), scan_query("zulu"), scan_query("note", limit=3),
         scan_query("golf", filters={"type": "note"}), scan_query("delta", fields="title,body"),
         scan_query("customer_id"), scan_query("Bravo")]


def test_the_scan_index_answers_unread_with_the_rows_of_a_reading(tree):
    assert search.scan_unread(tree, scan_query("alpha")) is None  # nothing stored yet
    stored_scan(tree)
    for q in SCANS:
        assert search.scan_unread(tree, q) == (scanned(tree, q), 1), q.terms
    for q in (scan_query("okf-pro"), scan_query("al", regexp=True), scan_query("école")):
        assert search.scan_unread(tree, q) is None  # not words: the bundle is read
    (tree / "n05.md").write_text("---\ntitle: Changed\n---\n\nalpha\n")
    assert search.scan_unread(tree, scan_query("alpha")) is None  # a file changed since


def test_a_forged_scan_index_changes_no_answer(tree):
    stored_scan(tree)
    path = cache.scan_store_path(tree)
    body = cache.read_framed(path, cache.SCAN_MAGIC)
    state = marshal.loads(body)
    n02 = state["paths"].index("n02.md")  # charlie, golf: no bravo
    row = state["post"]["body"]["bravo"]
    if isinstance(row, bytes):
        ids = array("I")
        ids.frombytes(row)
        ids.append(n02)
        state["post"]["body"]["bravo"] = array("I", sorted(ids)).tobytes()
    else:
        state["post"]["body"]["bravo"] = row | 1 << n02
    cache.write_framed(path, cache.SCAN_MAGIC, marshal.dumps(state))
    q = scan_query("bravo")
    assert search.scan_unread(tree, q) is None
    assert not path.exists()  # removed: the next reading builds it again
    assert search.one(tree, cache.load_bundle(tree), q) == scanned(tree, q)
