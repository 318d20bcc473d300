"""The registry against the runnable reference: groups, links, import, project-local .okf.json.

The same script of registry commands runs in two identical sandboxes, one through the reference
(``OKF_HOME``), one through okfpro (``OKFPRO_HOME``).  After every step the exit codes must agree,
the registry file on disk must hold the same JSON (the sandbox path aside), and so must
``registry list --json`` — the reference's answers are the goldens.  Skipped (with the reason)
when ruby or the reference is absent; tests/test_registry.py pins okfpro's half on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_okfpro
from tests.test_reference_parity import RUN_OKF, needs_reference

pytestmark = [needs_reference, pytest.mark.xdist_group("reference")]


def _sandbox(root: Path) -> Path:
    for rel in ("ws/alpha/.okf", "ws/beta/.okf", "other/gamma/.okf", "proj/docs/.okf", "proj/sub/inner/.okf"):
        d = root / rel
        d.mkdir(parents=True)
        (d / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
        (d / "cache.md").write_text(f"---\ntype: Note\ntitle: Cache in {rel.split('/')[-2]}\n---\nThe cache warms.\n")
    (root / "imp").mkdir()
    return root


def _run(tool: str, root: Path, cwd: str, args: list[str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OKF_NO_DISCOVERY", "OKFPRO_NO_DISCOVERY")}
    where = root / cwd
    if tool == "ref":
        env["OKF_HOME"] = str(root / "home")
        return subprocess.run([str(RUN_OKF), *args], cwd=where, env=env, capture_output=True, text=True, timeout=120)
    env["OKFPRO_HOME"] = str(root / "home")
    return run_okfpro(*args, cwd=where, env=env)


def _same(text: str, root: Path):
    return json.loads(text.replace(str(root), "<ROOT>"))


def _files(root: Path) -> dict[str, object]:
    out = {}
    for rel in ("home/registry.json", "proj/.okf.json", "proj/sub/.okf.json", "imp/.okf.json"):
        p = root / rel
        out[rel] = _same(p.read_text(), root) if p.exists() else None
    return out


SCRIPT = [
    # the global registry: bundles, a default, groups, refusals
    (".", ["registry", "set", "ws/alpha/.okf", "--as", "alpha"]),
    (".", ["registry", "set", "ws/beta/.okf", "--as", "Beta Docs"]),
    (".", ["registry", "set", "other/gamma/.okf", "--default"]),
    (".", ["registry", "set", "ws/alpha/.okf"]),  # known path: refreshed in place
    (".", ["registry", "set", "ws/beta/.okf", "--as", "all"]),  # reserved
    (".", ["registry", "set", "ws/beta/.okf", "--as", "gamma"]),  # taken
    (".", ["registry", "group", "backend", "@alpha", "beta-docs"]),
    (".", ["registry", "group", "everything", "@backend", "@okf"]),
    (".", ["registry", "group", "alpha", "@okf"]),  # a bundle's slug
    (".", ["registry", "group", "backend", "@everything"]),  # a cycle
    (".", ["registry", "group", "backend", "@nope"]),
    (".", ["registry", "rename", "@alpha", "first"]),  # groups follow
    (".", ["registry", "default", "@beta-docs"]),
    (".", ["registry", "default", "@backend"]),  # a group is not a default
    (".", ["registry", "ungroup", "everything", "@okf"]),
    (".", ["registry", "del", "@nope"]),
    # a project-local registry: relative paths, discovery from below, links refused there
    ("proj", ["registry", "init"]),
    ("proj", ["registry", "init"]),
    ("proj", ["registry", "set", "docs/.okf", "--as", "docs"]),
    ("proj", ["registry", "set", "sub/inner/.okf", "--as", "inner"]),
    ("proj", ["registry", "set", "../other/gamma/.okf", "--as", "outside"]),
    ("proj", ["registry", "group", "local-g", "@docs", "@inner"]),
    ("proj", ["registry", "link", "x", ".okf.json"]),
    # a link from the global registry to the project's file: live, slugs kept or prefixed
    ("proj", ["registry", "link", "-g", "projlink", ".okf.json"]),
    ("proj", ["registry", "link", "-g", "again", "nope.json"]),
    (".", ["registry", "del", "@docs"]),  # owned by the linked file
    # import: all or nothing, groups bring their members
    ("imp", ["registry", "init"]),
    ("imp", ["registry", "import", "@backend"]),
    ("imp", ["registry", "import", "@first"]),  # already here (same path)
    ("imp", ["registry", "import", "@okf", "--as", "g2"]),
    ("imp", ["registry", "import", "@nope"]),
    ("imp", ["registry", "import", "@docs", "@inner", "--as", "x"]),
    ("imp", ["registry", "del", "@first"]),  # groups drop the name
    (".", ["registry", "unlink", "projlink"]),
    (".", ["registry", "unlink", "projlink"]),
    (".", ["registry", "del", "ws/beta/.okf"]),  # by directory
]


# After these steps (the end of each part of the script) the listings are compared from every vantage
# point; after the others, from the step's own directory.  The registry files themselves are compared
# after every step, and a listing is a function of those files and the directory it is asked from, so
# this covers every state at a quarter of the processes (the whole script ran 648 of them, 73 s).
PHASE_ENDS = {15, 25, 32, len(SCRIPT) - 1}
VANTAGES = (".", "proj", "proj/sub/inner", "imp")


def test_the_registry_script_agrees_with_the_reference(tmp_path):
    ours, ref = _sandbox(tmp_path / "ours"), _sandbox(tmp_path / "ref")
    for i, (cwd, args) in enumerate(SCRIPT):
        a, b = _run("ours", ours, cwd, args), _run("ref", ref, cwd, args)
        assert a.returncode == b.returncode, (i, args, a.stdout, a.stderr, b.stdout, b.stderr)
        assert _files(ours) == _files(ref), (i, args)
        for where in VANTAGES if i in PHASE_ENDS else (cwd,):
            for flag in ([], ["-g"]):
                la = _run("ours", ours, where, ["registry", "list", "--json", *flag])
                lb = _run("ref", ref, where, ["registry", "list", "--json", *flag])
                assert la.returncode == lb.returncode == 0, (i, args, where, la.stderr, lb.stderr)
                assert _same(la.stdout, ours) == _same(lb.stdout, ref), (i, args, where, flag)


def test_search_takes_a_group_and_the_default_as_the_reference_does(tmp_path):
    ours, ref = _sandbox(tmp_path / "ours"), _sandbox(tmp_path / "ref")
    for root in (ours, ref):
        tool = "ours" if root is ours else "ref"
        for args in (["registry", "set", "ws/alpha/.okf", "--as", "alpha"], ["registry", "set", "ws/beta/.okf"],
                     ["registry", "group", "backend", "@alpha", "@okf"], ["registry", "group", "outer", "@backend"]):
            assert _run(tool, root, ".", args).returncode == 0
    for args in (["@backend", "cache"], ["@outer", "@alpha", "warms"], ["@", "cache"], ["@all", "cache"]):
        a = _run("ours", ours, ".", ["search", *args, "--json"])
        b = _run("ref", ref, ".", ["search", *args, "--json"])
        assert a.returncode == b.returncode == 0, (args, a.stderr, b.stderr)
        assert _same(a.stdout, ours) == _same(b.stdout, ref), args
    # one bundle only: a group is refused where a DIR goes, as @all is
    for args in (["catalog", "@backend", "--json"], ["catalog", "@all", "--json"]):
        a, b = _run("ours", ours, ".", args), _run("ref", ref, ".", args)
        assert a.returncode == b.returncode == 2, (args, a.stderr, b.stderr)
