"""The registry and @slug: bundles named once under $OKFPRO_HOME, then @slug wherever a DIR goes;
`search @a @b TERM` / `@all` across bundles, rows labelled by slug (real processes, real files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from okfpro.io import registry as reg
from tests.helpers import REPO, invoke


def _bundle(base: Path, concepts: dict[str, str]) -> Path:
    okf = base / ".okf"
    okf.mkdir(parents=True)
    (okf / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    for name, body in concepts.items():
        (okf / f"{name}.md").write_text(f"---\ntype: Note\ntitle: {name.title()}\n---\n{body}\n")
    return base


@pytest.fixture
def home(tmp_path, monkeypatch) -> dict[str, str]:
    env = {"OKFPRO_HOME": str(tmp_path / "home")}
    monkeypatch.setenv("OKFPRO_HOME", env["OKFPRO_HOME"])
    return env


@pytest.fixture
def two(tmp_path, home):
    a = _bundle(tmp_path / "a", {"alpha": "cache eviction policy", "beta": "nothing here"})
    b = _bundle(tmp_path / "b", {"gamma": "a cache for the cache", "delta": "cache"})
    for slug, d in (("Alpha_Docs", a), ("b", b)):
        proc = invoke("registry", "set", slug, str(d), env=home)
        assert proc.returncode == 0, proc.stderr
    return a, b


def test_set_list_del_and_normalized_slugs(two, home, tmp_path):
    a, b = two
    listed = json.loads(invoke("registry", "list", "--json", env=home).stdout)
    assert listed["registry"] == str(tmp_path / "home" / "registry.json")
    assert [(r["slug"], r["dir"], r["default"], r["missing"]) for r in listed["bundles"]] == [
        ("alpha-docs", str(a), True, False), ("b", str(b), False, False)]
    # an entry is keyed by its directory (the reference's rule): a slug another entry holds is refused
    out = invoke("registry", "set", "B", str(a), env=home)
    assert out.returncode == 2 and "slug already taken: b" in out.stderr
    # the same directory again renames it in place, keeping its position
    out = invoke("registry", "set", str(a), "--as", "first", env=home)
    assert out.returncode == 0 and out.stdout.startswith("updated first")
    assert [(e.slug, e.dir) for e in reg.Registry.open().entries] == [("first", str(a)), ("b", str(b))]
    assert invoke("registry", "del", "@b", env=home).returncode == 0
    assert [e.slug for e in reg.Registry.open().entries] == ["first"]
    gone = invoke("registry", "del", "b", env=home)
    assert gone.returncode == 2 and "not a registered bundle" in gone.stderr


@pytest.mark.parametrize("slug", ["all", "ALL", "***", ""])
def test_unusable_slugs_are_refused_and_nothing_is_written(home, tmp_path, slug):
    proc = invoke("registry", "set", slug, str(tmp_path), env=home)
    assert proc.returncode == 2 and "not a usable slug" in proc.stderr
    assert not (tmp_path / "home" / "registry.json").exists()


def test_a_file_is_not_a_directory(home, tmp_path):
    (tmp_path / "f").write_text("x")
    proc = invoke("registry", "set", "f", str(tmp_path / "f"), env=home)
    assert proc.returncode == 2 and "not a directory" in proc.stderr


def test_at_slug_goes_wherever_a_dir_goes(two, home):
    a, _ = two
    data = json.loads(invoke("catalog", "@alpha-docs", "--json", env=home).stdout)
    assert data["bundle"] == str(a / ".okf") and data["slug"] == "alpha-docs" and data["count"] == 2
    assert invoke("validate", "@Alpha-Docs", env=home).returncode in (0, 1)
    assert invoke("lint", "@alpha-docs", "--json", env=home).returncode == 0
    for bad, words in (("@nope", "not a registered bundle"), ("@all", "only supported by `okfpro search`")):
        proc = invoke("catalog", bad, env=home)
        assert proc.returncode == 2 and words in proc.stderr, bad


def test_search_across_bundles_is_one_ranking_labelled_by_slug(two, home):
    a, b = two
    data = json.loads(invoke("search", "@b", "@alpha-docs", "cache", "--json", env=home).stdout)
    assert data["bundles"] == [{"slug": "b", "dir": str(b)}, {"slug": "alpha-docs", "dir": str(a)}]
    assert [(r["slug"], r["id"]) for r in data["matches"]] == [("alpha-docs", "alpha"), ("b", "delta"), ("b", "gamma")]
    assert all(list(r)[0] == "slug" for r in data["matches"])
    every = json.loads(invoke("search", "@all", "cache", "--json", env=home).stdout)
    assert every["count"] == 3 and [x["slug"] for x in every["bundles"]] == ["alpha-docs", "b"]
    assert json.loads(invoke("search", "@all", "cache", "--fields", "id", "--json", env=home).stdout
                      )["matches"][0] == {"slug": "alpha-docs", "id": "alpha"}
    stray = invoke("search", "cache", "@b", "--bundle", str(a), env=home)
    assert stray.returncode == 0 and "an @slug or @all must lead" in stray.stderr


def test_all_skips_a_vanished_bundle_with_a_note_but_a_named_one_fails(two, home):
    a, b = two
    (b / ".okf" / "gamma.md").unlink()
    for p in sorted((b / ".okf").iterdir()):
        p.unlink()
    (b / ".okf").rmdir()
    b.rmdir()
    every = invoke("search", "@all", "cache", "--json", env=home)
    assert every.returncode == 0 and f"note: skipping b — cannot read {b}" in every.stderr
    assert json.loads(every.stdout)["count"] == 1
    named = invoke("search", "@b", "cache", env=home)
    assert named.returncode == 2 and "which is not a directory" in named.stderr


def test_a_broken_registry_is_an_error_and_is_left_as_it_was(two, home, tmp_path):
    path = tmp_path / "home" / "registry.json"
    for junk in (b"{not json", b'{"bundles": "x"}', b'{"bundles": [{"slug": 1}]}', b"\xff\xfe", b" " * (2 << 20)):
        path.write_bytes(junk)
        for args in (("registry", "list"), ("registry", "set", "x", str(tmp_path)), ("catalog", "@b")):
            proc = invoke(*args, env=home)
            assert proc.returncode == 2 and "registry" in proc.stderr and "Traceback" not in proc.stderr, (junk[:9], args)
        assert path.read_bytes() == junk


def test_concurrent_sets_keep_every_entry(home, tmp_path):
    dirs = [tmp_path / f"d{i}" for i in range(8)]
    for d in dirs:
        d.mkdir()
    env = {**__import__("os").environ, **home, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-m", "okfpro", "registry", "set", f"s{i}", str(d)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i, d in enumerate(dirs)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert sorted(e.slug for e in reg.Registry.open().entries) == [f"s{i}" for i in range(8)]


def test_home_defaults_to_the_user_config_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("OKFPRO_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert reg.path() == tmp_path / "cfg" / "okfpro" / "registry.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")
    assert reg.home() == Path.home() / ".config" / "okfpro"
    monkeypatch.setenv("OKFPRO_HOME", str(tmp_path / "h"))
    assert reg.path() == tmp_path / "h" / "registry.json"


def test_at_slug_reaches_the_work_state_readers_and_the_doors(home, tmp_path):
    ws = _bundle(tmp_path / "ws", {"alpha": "x"})
    (ws / ".okf" / "board.md").write_text("# Board\n\n**In flight: 0/3**\n\n## In flight\n\n## Backlog\n\n## Waiting\n\n"
                                           "## Inbox\n\n## To read\n\n## Deadlines\n")
    assert invoke("registry", "set", "ws", str(ws), env=home).returncode == 0
    state = invoke("state", "@ws", "--json", env=home)
    assert state.returncode == 0, state.stderr
    assert json.loads(state.stdout)["root"].endswith(".okf")
    for args in (("snapshot", "@ws"), ("board", "@ws"), ("unverified", "@ws"), ("friction", "@ws"), ("audit", "@ws")):
        proc = invoke(*args, env=home)
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert "registry" not in proc.stderr
        unknown = invoke(args[0], "@nope", env=home)
        assert unknown.returncode == 2 and "not a registered bundle" in unknown.stderr, args
