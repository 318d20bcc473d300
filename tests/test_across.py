"""Ranked and fuzzy search across registered bundles: one corpus, one ranking, rows named by bundle.

The oracle for "one corpus": a single bundle holding every bundle's concepts must rank and score
them exactly as the merged search does.  Real processes, real registry file, real bundles.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from okfpro.core import bm25 as _search
from okfpro.io import across
from okfpro.io.bundle import load
from tests.helpers import invoke

A = {
    "ops/cache": "Cache eviction policy for the build cache. The cache is warm.",
    "ops/deploy": "Deploy steps; the cache is flushed after deploy.",
    "notes/misc": "Nothing about it at all, only words.",
}
B = {
    "api/cache-headers": "HTTP cache headers: max-age and etag.",
    "api/auth": "Tokens expire after one hour.",
    "ops/cache": "A second cache note with the same id as one in the other bundle.",
}


def _bundle(base: Path, concepts: dict[str, str], kind: str = "Note") -> Path:
    okf = base / ".okf"
    okf.mkdir(parents=True)
    (okf / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    for cid, body in concepts.items():
        path = okf / f"{cid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        title = cid.rsplit("/", 1)[-1].replace("-", " ").title()
        path.write_text(f"---\ntype: {kind}\ntitle: {title}\n---\n{body}\n")
    return base


def _tree(root: Path) -> set[str]:
    return {os.path.relpath(os.path.join(d, n), root) for d, ds, fs in os.walk(root) for n in ds + fs}


@pytest.fixture
def reg(tmp_path):
    env = {"OKFPRO_HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    a = _bundle(tmp_path / "a", A)
    b = _bundle(tmp_path / "b", B, kind="Reference")
    (b / "okfpro.toml").write_text("")  # another okfpro workspace: still only read from here
    pristine = (_tree(a), _tree(b))
    for slug, d in (("a", a), ("b", b)):
        assert invoke("registry", "set", str(d), "--as", slug, env=env, cwd=tmp_path).returncode == 0
    assert (_tree(a), _tree(b)) == pristine  # registering reads the bundle (to count it) and writes nothing there
    return env, a, b


def _cli_search(env, cwd, *args):
    proc = invoke("search", *args, "--json", env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_merged_ranking_is_one_corpus(reg, tmp_path):
    env, a, b = reg
    got = _cli_search(env, tmp_path, "@a", "@b", "cache", "--engine", "ranked", "--limit", "50")
    assert got["bundles"] == [{"slug": "a", "dir": str(a)}, {"slug": "b", "dir": str(b)}]
    labelled = [(r["slug"], r["id"]) for r in got["matches"]]
    # both bundles answer, the shared id twice, each under its own bundle
    assert ("a", "ops/cache") in labelled and ("b", "ops/cache") in labelled
    assert ("b", "api/cache-headers") in labelled and ("a", "ops/deploy") in labelled
    assert got["count"] == len(got["matches"]) == 4
    # the oracle: one bundle holding all five documents scores each of them the same
    one = tmp_path / "one" / ".okf"
    shutil.copytree(a / ".okf", one)
    for cid in B:
        dst = one / "b" / f"{cid}.md"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(b / ".okf" / f"{cid}.md", dst)
    # ids differ in the combined bundle (b/...), so compare the id-free score by (title, type)
    single = {(r["title"], r["type"]): r["score"] for r in _search.rank_docs(load(one), ["cache"], None)}
    merged = {(r["title"], r["type"]): r["score"] for r in got["matches"]}
    assert merged.keys() == single.keys()
    # the id field is indexed too: only the two ops/cache rows' scores may differ ("b/" prefix)
    for key, score in merged.items():
        assert score == pytest.approx(single[key], rel=0.05), key


def test_scores_match_a_combined_bundle_exactly_when_ids_agree(tmp_path):
    a = _bundle(tmp_path / "a", {"x/one": "cache cache warm", "x/two": "cold storage"})
    b = _bundle(tmp_path / "b", {"y/three": "cache warm and cold", "y/four": "deleting stale branches"})
    one = tmp_path / "one"
    shutil.copytree(a / ".okf", one / ".okf")
    shutil.copytree(b / ".okf" / "y", one / ".okf" / "y")
    srcs = [across.Source("a", a / ".okf", load(a / ".okf")), across.Source("b", b / ".okf", load(b / ".okf"))]
    # "deletes" meets "deleting" only through the stemmer one bundle's search applies
    for fuzzy, q in ((False, ["cache", "warm"]), (True, ["cashe"]), (False, ["cold"]), (False, ["deletes"])):
        merged = across.rank_sources(srcs, q, None, fuzzy=fuzzy)
        single = _search.rank_docs(load(one / ".okf"), q, None, fuzzy=fuzzy)
        assert [(r["id"], r["score"]) for r in merged] == [(r["id"], r["score"]) for r in single]
        assert {r["id"]: r["slug"] for r in merged} == {
            r["id"]: ("a" if r["id"].startswith("x/") else "b") for r in merged}
        assert merged, q


def test_fuzzy_across_bundles_and_per_bundle_filters(reg, tmp_path):
    env, a, b = reg
    got = _cli_search(env, tmp_path, "@all", "cashe", "--fuzzy")
    assert {r["slug"] for r in got["matches"]} == {"a", "b"}
    only_refs = _cli_search(env, tmp_path, "@all", "cache", "--engine", "ranked", "--type", "Reference")
    assert {r["slug"] for r in only_refs["matches"]} == {"b"} and only_refs["matches"]
    # --limit cuts the merged ranking, not each bundle's
    one = _cli_search(env, tmp_path, "@a", "@b", "cache", "--engine", "ranked", "--limit", "1")
    assert one["count"] == 1
    # a typo that matches nothing anywhere is an empty answer, exit 0
    none = _cli_search(env, tmp_path, "@all", "zzzzqqq", "--fuzzy")
    assert none["matches"] == [] and none["count"] == 0


def test_reading_registered_bundles_writes_nothing_into_them(reg, tmp_path):
    env, a, b = reg
    before = (_tree(a), _tree(b))
    assert not any(p.startswith(".tmp") for p in before[1])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for args in (("@all", "cache", "--engine", "ranked"), ("@all", "cashe", "--fuzzy"), ("@b", "cache"),
                 ("@b", "cache", "--engine", "ranked")):
        _cli_search(env, elsewhere, *args)
    assert (_tree(a), _tree(b)) == before  # no .tmp/, no parse cache, no index in either tree
    assert any((tmp_path / "cache" / "okfpro").iterdir())  # the caches went to the user's directory
    # working inside workspace b, its own cache lives in its own .tmp/ as before
    _cli_search(env, b, "@b", "cache")
    assert (b / ".tmp" / "okfpro-cache").is_dir()


def test_the_owner_filter_refuses_to_mislabel(tmp_path, monkeypatch):
    a = _bundle(tmp_path / "a", {"x/one": "cache"})
    src = [across.Source("a", a / ".okf", load(a / ".okf"))]
    real = _search.RankedIndex.query

    def skipping_where(self, query, limit=10, *, where=None, fuzzy=False):
        return real(self, query, limit, where=None, fuzzy=fuzzy)  # an engine that ignores `where`

    monkeypatch.setattr(_search.RankedIndex, "query", skipping_where)
    with pytest.raises(RuntimeError):
        across.rank_sources(src, ["cache"], None)
