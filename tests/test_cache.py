"""The parse cache is invisible to correctness.

A property test edits, adds, deletes and renames files between reads and compares
every read through the cache with a cache-less read of the same tree; the cache
file is also corrupted, replaced by a foreign one, or made unwritable.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from tests.helpers import examples
from hypothesis import strategies as st

from okfpro.core.search import scan
from okfpro.io import cache
from okfpro.io.reader import read_bundle
from tests.helpers import invoke

BODIES = [
    "---\ntype: Note\ntitle: Cache one\n---\n\nalpha body\n",
    "---\ntype: Note\ntitle: Cache two\n---\n\nalpha BODY\n",  # same size as the first
    "---\ntype: Note\ntitle: Cache 333\n---\n\nomega body\n",  # same size again
    "---\ntype: Decision\ntags: [x, y]\ngenerated:\n  by: human:ana\n  at: 2026-01-02\n---\n\nalpha gamma\n",
    "---\ntype: Term\nverified:\n  - by: bot/1\n    at: 2026-01-02T03:04:05Z\nsources:\n  - resource: /a.md\n---\nalpha\n",
    "---\ntype: [unclosed\n---\nbroken yaml\n",
    "no frontmatter at all\n",
    "---\ntype: Note\nid: custom/id\nset: !!set {a, b}\nodd: !!omap [{a: 1}]\n---\nalpha\n",
    "---\ntype: Note\n3: numeric key\n---\nalpha\n",
]
BAD_UTF8 = b"---\ntype: Note\n---\n\xff\xfe alpha\n"
NAMES = ["a.md", "b.md", "d/c.md", "d/e/f.md", "index.md", "d/log.md"]


def snapshot(bundle) -> tuple:
    concepts = [(c.path, json.dumps(c.frontmatter, default=repr, sort_keys=True), c.body, c.id, c.title,
                 c.display_title, c.type, c.tags, c.status, c.trust, repr(c.sources), c.dir, c.top_dir)
                for c in bundle.concepts]
    reserved = [(e.path, e.content, e.utf8_ok) for e in bundle.reserved]
    broken = [(e.path, e.content, e.error, e.utf8_ok) for e in bundle.unparseable]
    return concepts, reserved, broken, scan(bundle, ["alpha"]), scan(bundle, ["a"], regexp=True)


class Tree:
    """A bundle on disk whose every write gets a fresh, unique (past) mtime."""

    def __init__(self, base: Path) -> None:
        self.ws = base
        self.root = base / ".okf"
        self.root.mkdir()
        (self.root / "index.md").write_text("# Root\n")
        (base / "okfpro.toml").write_text("")  # a workspace: its caches live in its own .tmp/
        self.clock = itertools.count(1_600_000_000_000_000_000, 1_000_003)

    def touch(self, path: Path) -> None:
        ns = next(self.clock)
        os.utime(path, ns=(ns, ns))

    def write(self, rel: str, data: bytes) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.touch(path)


ops = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES[:3]), st.integers(0, len(BODIES))),
    st.tuples(st.just("write"), st.sampled_from(NAMES), st.integers(0, len(BODIES))),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just(0)),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.integers(0, len(NAMES) - 1)),
    st.tuples(st.just("corrupt"), st.just(""), st.integers(0, 3)),
)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, min_size=1, max_size=12))
def test_cached_reads_equal_fresh_reads(steps):
    with tempfile.TemporaryDirectory() as tmp, store_young():
        tree = Tree(Path(tmp))
        assert snapshot(cache.load_bundle(tree.root)) == snapshot(read_bundle(tree.root))
        for op, name, arg in steps:
            path = tree.root / name
            if op == "write":
                tree.write(name, BAD_UTF8 if arg == len(BODIES) else BODIES[arg].encode())
            elif op == "delete" and path.exists():
                path.unlink()
            elif op == "rename" and path.exists():
                dest = tree.root / NAMES[arg]
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(path, dest)
            elif op == "corrupt":
                target = cache.cache_path(tree.root)
                if target.exists():
                    data = target.read_bytes()
                    mangled = [b"", data[: len(data) // 2], b"garbage" + data, data[:-1] + b"\x00"][arg]
                    target.write_bytes(mangled)
            assert snapshot(cache.load_bundle(tree.root)) == snapshot(read_bundle(tree.root)), (op, name, arg)


@contextlib.contextmanager
def store_young():
    """Store every entry, however young (each write in these tests has a unique mtime)."""
    saved = cache.RACY_NS
    cache.RACY_NS = -(10**19)
    try:
        yield
    finally:
        cache.RACY_NS = saved


@pytest.fixture
def monkeypatch_racy():
    with store_young():
        yield


def _stored(root: Path) -> dict:
    return cache._read_cache(cache.cache_path(root), os.path.realpath(root))


def test_cache_lives_under_workspace_tmp_and_is_reused(tmp_path, monkeypatch_racy, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the workspace you work in caches in its own .tmp/
    tree = Tree(tmp_path)
    tree.write("a.md", BODIES[0].encode())
    cache.load_bundle(tree.root)
    path = cache.cache_path(tree.root)
    assert path.parent == tmp_path / ".tmp" / "okfpro-cache" and path.is_file()
    assert set(_stored(tree.root)) == {"a.md", "index.md"}
    assert (tmp_path / ".tmp" / "okfpro-cache" / ".gitignore").read_text() == "*\n"
    # a reused entry comes from the cache, not from disk: prove it by poisoning the stored record
    entries = _stored(tree.root)
    key, rec = entries["a.md"]
    entries["a.md"] = (key, ("c", {"type": "Poisoned"}, "x", {}))
    cache._write_cache(path, os.path.realpath(tree.root), entries)
    assert cache.load_bundle(tree.root).concepts[0].frontmatter == {"type": "Poisoned"}
    # ... and any change of the file invalidates it
    tree.write("a.md", BODIES[1].encode())
    assert cache.load_bundle(tree.root).concepts[0].title == "Cache two"


def test_reused_records_are_written_back_intact(tmp_path, monkeypatch_racy):
    # a hit on a record with dates, then a change elsewhere: the rewritten cache still holds both
    tree = Tree(tmp_path)
    tree.write("dated.md", BODIES[4].encode())  # verified.at is a timestamp
    tree.write("other.md", BODIES[0].encode())
    cache.load_bundle(tree.root)
    first = cache.load_bundle(tree.root)
    assert first.by_id["dated"].verified[0]["at"].year == 2026
    tree.write("other.md", BODIES[1].encode())
    cache.load_bundle(tree.root)
    stored = _stored(tree.root)
    assert set(stored) == {"dated.md", "other.md", "index.md"}
    assert stored["other.md"][1][1]["title"] == "Cache two"
    assert snapshot(cache.load_bundle(tree.root)) == snapshot(read_bundle(tree.root))


def test_young_files_are_not_stored(tmp_path):
    root = tmp_path / ".okf"
    root.mkdir()
    (root / "index.md").write_text("# Root\n")
    (root / "a.md").write_text(BODIES[0])
    assert cache.load_bundle(root).concepts[0].title == "Cache one"
    assert "a.md" not in _stored(root)  # written just now: its mtime tick may still change
    (root / "a.md").write_text(BODIES[1])  # same size, same tick possibly
    assert cache.load_bundle(root).concepts[0].title == "Cache two"


def test_foreign_and_other_version_caches_are_ignored(tmp_path, monkeypatch_racy):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = Tree(tmp_path / "a"), Tree(tmp_path / "b")
    a.write("x.md", BODIES[0].encode())
    b.write("x.md", BODIES[0].encode())
    cache.load_bundle(a.root)
    # b's cache file replaced by a's (a different root): ignored, rebuilt for b
    cache.cache_path(b.root).parent.mkdir(parents=True, exist_ok=True)
    cache.cache_path(b.root).write_bytes(cache.cache_path(a.root).read_bytes())
    assert snapshot(cache.load_bundle(b.root)) == snapshot(read_bundle(b.root))
    assert set(_stored(b.root)) == {"x.md", "index.md"}
    # a cache written by another version: ignored
    import marshal

    cache.cache_path(b.root).write_bytes(_blob({"version": -1, "root": os.path.realpath(b.root), "entries": {}}))
    assert snapshot(cache.load_bundle(b.root)) == snapshot(read_bundle(b.root))
    # a cache written by other parsing code (an upgrade): ignored, even with poisoned records
    payload = marshal.loads(cache.cache_path(b.root).read_bytes()[len(cache.MAGIC) + 4:])
    key, _ = payload["entries"]["x.md"]
    payload["entries"]["x.md"] = (key, ("c", {"type": "Poisoned"}, "x", {}))
    payload["code"] = "someone-else"
    cache.cache_path(b.root).write_bytes(_blob(payload))
    assert snapshot(cache.load_bundle(b.root)) == snapshot(read_bundle(b.root))


def _blob(payload: dict) -> bytes:
    import marshal
    import zlib

    data = marshal.dumps(payload)
    return cache.MAGIC + zlib.crc32(data).to_bytes(4, "big") + data


def test_a_flipped_byte_that_still_unmarshals_is_caught(tmp_path, monkeypatch_racy):
    tree = Tree(tmp_path)
    tree.write("a.md", BODIES[0].encode())
    cache.load_bundle(tree.root)
    path = cache.cache_path(tree.root)
    data = path.read_bytes()
    at = data.rindex(b"unverified")  # inside a stored string: marshal would still load it
    path.write_bytes(data[:at] + b"X" + data[at + 1:])
    assert cache.load_bundle(tree.root).concepts[0].trust == "unverified"


def test_unwritable_workspace_runs_without_cache(tmp_path):
    root = tmp_path / ".okf"
    root.mkdir()
    (root / "index.md").write_text("# Root\n")
    (root / "a.md").write_text(BODIES[0])
    (tmp_path / ".tmp").write_text("a file where the cache directory would go")
    assert snapshot(cache.load_bundle(root)) == snapshot(read_bundle(root))
    assert (tmp_path / ".tmp").is_file()


def test_cli_answers_equal_with_and_without_cache(tmp_path):
    tree = Tree(tmp_path)
    for i, body in enumerate(BODIES):
        tree.write(f"n{i}.md", body.encode())
    first = invoke("search", "alpha", "--json", "--bundle", str(tree.root))
    second = invoke("search", "alpha", "--json", "--bundle", str(tree.root))
    fresh = invoke("search", "alpha", "--json", "--bundle", str(tree.root), env={"OKFPRO_NO_CACHE": "1"})
    assert first.returncode == second.returncode == fresh.returncode == 0
    assert first.stdout == second.stdout == fresh.stdout
    assert json.loads(first.stdout)["count"] == 6
    assert cache.cache_path(tree.root).is_file()
    cache.clear(tree.root)
    assert invoke("search", "alpha", "--json", "--bundle", str(tree.root)).stdout == fresh.stdout


def test_ranked_index_follows_edits_and_survives_corruption(tmp_path):
    from okfpro.io import fts

    if not fts.available():
        pytest.skip("SQLite without FTS5")
    tree = Tree(tmp_path)
    for i, body in enumerate(BODIES[:4]):
        tree.write(f"n{i}.md", body.encode())

    def both(query: str) -> tuple[str, str]:
        a = invoke("search", query, "--engine", "ranked", "--json", "--bundle", str(tree.root))
        b = invoke("search", query, "--engine", "ranked", "--json", "--bundle", str(tree.root),
                       env={"OKFPRO_RANKED": "pure"})
        assert a.returncode == b.returncode == 0, a.stderr + b.stderr
        return a.stdout, b.stdout

    first, pure = both("alpha omega")
    assert first == pure and os.path.exists(fts.db_path(tree.root))
    tree.write("n0.md", b"---\ntype: Note\ntitle: Omega omega\n---\n\nomega\n")
    (tree.root / "n1.md").unlink()
    os.replace(tree.root / "n2.md", tree.root / "moved.md")
    after, pure_after = both("alpha omega")
    assert after == pure_after and after != first
    Path(fts.db_path(tree.root)).write_bytes(b"not a database")
    assert both("alpha omega") == (pure_after, pure_after)
    with open(fts.db_path(tree.root), "rb") as handle:
        assert handle.read(16) == b"SQLite format 3\x00"  # rebuilt on disk, not only answered from memory


def test_progress_bar_only_on_a_terminal(tmp_path):
    import subprocess
    import sys

    from tests.helpers import on_a_terminal

    tree = Tree(tmp_path)
    for i in range(450):
        tree.write(f"d{i % 7}/n{i}.md", BODIES[i % 4].encode())
    env = {**os.environ, "OKFPRO_PROGRESS_AFTER": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    plain = subprocess.run([sys.executable, "-m", "okfpro", "search", "alpha", "--bundle", str(tree.root)],
                           capture_output=True, env=env)
    assert plain.returncode == 0 and plain.stderr == b""  # not a terminal: silent
    cache.clear(tree.root)
    code, seen = on_a_terminal(["search", "alpha", "--bundle", str(tree.root)], None, env)
    assert code == 0
    assert b"reading bundle [" in seen and b"/451" in seen


def test_concurrent_processes_agree_and_leave_a_valid_cache(tmp_path):
    import subprocess
    import sys

    tree = Tree(tmp_path)
    for i in range(300):
        tree.write(f"d{i % 5}/n{i}.md", BODIES[i % 4].encode())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cmd = [sys.executable, "-m", "okfpro", "search", "alpha", "--json", "--bundle", str(tree.root)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(4)]
    outs = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    fresh = invoke("search", "alpha", "--json", "--bundle", str(tree.root), env={"OKFPRO_NO_CACHE": "1"})
    assert outs[0][0].decode() == fresh.stdout
    assert cache.cache_path(tree.root).read_bytes().startswith(cache.MAGIC)
    assert not [p for p in cache.cache_path(tree.root).parent.iterdir() if p.name.endswith(".tmp")]


def test_a_read_only_workspace_is_left_alone_even_for_root(tmp_path):
    root = tmp_path / "ws" / ".okf"
    root.mkdir(parents=True)
    (root / "index.md").write_text("# Root\n")
    (root / "a.md").write_text(BODIES[0])
    os.chmod(tmp_path / "ws", 0o555)  # root could still write here; okfpro must not
    try:
        assert snapshot(cache.load_bundle(root)) == snapshot(read_bundle(root))
        proc = invoke("search", "alpha", "--engine", "ranked", "--json", "--bundle", str(root))
        assert proc.returncode == 0 and json.loads(proc.stdout)["count"] == 1
        assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == [".okf"]
    finally:
        os.chmod(tmp_path / "ws", 0o755)
