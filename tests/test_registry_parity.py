"""The registry against the reference: groups, links, import, project-local .okf.json.

A script of registry commands runs in a sandbox; after every step the exit code, the registry files
on disk (the sandbox path aside) and ``registry list --json`` (with and without ``-g``) from four
directories must be the reference's.  The reference's answers are recorded in
``tests/goldens/registry_parity.json`` (re-record with ``python -m tests.test_registry_parity``, which
runs shared/reference-impl/run-okf), and okfpro is compared with them in its own process in the
default run.  ``test_the_reference_still_gives_the_goldens`` (slow; skipped without ruby or the
reference) asks the live reference the script and the listings at the end of each part again.
tests/test_registry.py pins okfpro's half on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO, invoke
from tests.test_reference_parity import RUN_OKF, needs_reference

GOLDENS = REPO / "tests" / "goldens" / "registry_parity.json"


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
    return invoke(*args, cwd=where, base_env=env)


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


# The end of each part of the script: where the live reference is asked for every listing again
# (elsewhere it is asked the step only).  A listing is a function of the registry files, compared
# after every step, and of the directory it is asked from.
PHASE_ENDS = {15, 25, 32, len(SCRIPT) - 1}
VANTAGES = (".", "proj", "proj/sub/inner", "imp")
SEARCHES = [["search", "@backend", "cache", "--json"], ["search", "@outer", "@alpha", "warms", "--json"],
            ["search", "@", "cache", "--json"], ["search", "@all", "cache", "--json"],
            ["catalog", "@backend", "--json"], ["catalog", "@all", "--json"]]  # one bundle only: a group is refused


def _listing(tool: str, root: Path, where: str, flag: list[str]) -> object:
    proc = _run(tool, root, where, ["registry", "list", "--json", *flag])
    assert proc.returncode == 0, (where, flag, proc.stderr)
    return _same(proc.stdout, root)


def script_answers(tool: str, root: Path, every_listing: bool = True) -> list[dict]:
    """Run SCRIPT in the sandbox ``root``: per step its exit code, the registry files, and the listings
    (from every vantage point, or with ``every_listing=False`` only at the ends of the parts)."""
    _sandbox(root)
    out = []
    for i, (cwd, args) in enumerate(SCRIPT):
        step = {"cwd": cwd, "args": args, "code": _run(tool, root, cwd, args).returncode, "files": _files(root)}
        if every_listing or i in PHASE_ENDS:
            step["lists"] = {f"{where} {' '.join(flag)}".strip(): _listing(tool, root, where, flag)
                             for where in VANTAGES for flag in ([], ["-g"])}
        out.append(step)
    return out


def search_answers(tool: str, root: Path) -> list[dict]:
    """Search a group and the default; a group refused where one DIR goes."""
    _sandbox(root)
    for args in (["registry", "set", "ws/alpha/.okf", "--as", "alpha"], ["registry", "set", "ws/beta/.okf"],
                 ["registry", "group", "backend", "@alpha", "@okf"], ["registry", "group", "outer", "@backend"]):
        assert _run(tool, root, ".", args).returncode == 0
    out = []
    for args in SEARCHES:
        proc = _run(tool, root, ".", args)
        out.append({"args": args, "code": proc.returncode, "json": _same(proc.stdout, root) if proc.returncode == 0 else None})
    return out


def _goldens() -> dict:
    return json.loads(GOLDENS.read_text(encoding="utf-8"))


def test_the_registry_script_agrees_with_the_reference(tmp_path):
    golden = _goldens()["script"]
    for i, (got, want) in enumerate(zip(script_answers("ours", tmp_path / "ours"), golden, strict=True)):
        assert got == want, (i, want["cwd"], want["args"])


def test_search_takes_a_group_and_the_default_as_the_reference_does(tmp_path):
    assert search_answers("ours", tmp_path / "ours") == _goldens()["search"]


@pytest.mark.slow
@needs_reference
@pytest.mark.xdist_group("reference")
def test_the_reference_still_gives_the_goldens(tmp_path):
    golden = _goldens()
    for i, (got, want) in enumerate(zip(script_answers("ref", tmp_path / "s", every_listing=False), golden["script"],
                                        strict=True)):
        assert got == {k: v for k, v in want.items() if k in got}, (i, want["cwd"], want["args"])
    assert search_answers("ref", tmp_path / "q") == golden["search"]


def record(base: Path) -> None:
    """Ask the live reference every answer and write the goldens."""
    data = {"reference": "shared/reference-impl/run-okf", "script": script_answers("ref", base / "s"),
            "search": search_answers("ref", base / "q")}
    GOLDENS.parent.mkdir(exist_ok=True)
    GOLDENS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":  # python -m tests.test_registry_parity: re-record the goldens
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record(Path(tmp))
    sys.stdout.write(f"wrote {GOLDENS}\n")
