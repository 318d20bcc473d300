"""Every read view agrees with the reference on every conformance bundle — identical JSON.

``shared/conformance/expected/<name>.json`` holds, under ``views``, the reference's
answer (argv, JSON, exit code) for catalog, files, index, graph, graph --hubs,
graph --minimal, references, stats, tags, types, dirs and loose on each of the 100
workspaces.  The pure builders (okfpro.core.views) are run in-process on all 1,200
and must produce exactly the reference's payload (everything but the ``bundle``
head, which names the directory as the caller spelled it).  A sample is also run
through the real CLI with the golden's own argv (``okf`` -> ``okfpro``), from the
workspace directory, and must print the reference's whole JSON byte-for-byte equal
once parsed, with its exit code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from okfpro.io.reader import reference_files
from okfpro.core import views as _views
from okfpro.io.reader import read_bundle
from tests.helpers import invoke, shared_dir

CORPUS = shared_dir() / "conformance"
NAMES = sorted(p.stem for p in (CORPUS / "expected").glob("s*.json")) if (CORPUS / "expected").is_dir() else []
VIEWS = ("catalog", "files", "index", "graph", "graph --hubs", "graph --minimal", "references", "stats", "tags",
         "types", "dirs", "loose")

needs_corpus = pytest.mark.skipif(not NAMES, reason="conformance corpus not found (../shared or /work/shared)")


def _golden(name: str) -> dict:
    return json.loads((CORPUS / "expected" / f"{name}.json").read_text(encoding="utf-8"))


def build(view: str, root: Path, bundle) -> dict:
    """The payload our builder gives for one golden view (the shell's half — the references/ listing — included)."""
    return {
        "catalog": lambda: _views.catalog(bundle),
        "files": lambda: _views.files(bundle),
        "index": lambda: _views.index(bundle),
        "graph": lambda: _views.graph(bundle),
        "graph --hubs": lambda: _views.hubs(bundle),
        "graph --minimal": lambda: _views.graph(bundle, minimal=True),
        "references": lambda: _views.references(bundle, reference_files(root)),
        "stats": lambda: _views.stats(bundle),
        "tags": lambda: _views.tags(bundle),
        "types": lambda: _views.types(bundle),
        "dirs": lambda: _views.dirs(bundle),
        "loose": lambda: _views.loose(bundle),
    }[view]()


@needs_corpus
def test_the_corpus_covers_every_view() -> None:
    assert len(NAMES) == 100
    for name in NAMES:
        assert set(_golden(name)["views"]) == set(VIEWS), name


@needs_corpus
@pytest.mark.parametrize("name", NAMES)
def test_every_view_is_identical(name: str) -> None:
    golden = _golden(name)
    mismatched = []
    bundles: dict[Path, object] = {}
    for view in VIEWS:
        entry = golden["views"][view]
        assert entry["rc"] == 0
        root = CORPUS / "bundles" / name / entry["argv"][2]
        bundle = bundles.get(root) or bundles.setdefault(root, read_bundle(root))
        expected = {k: v for k, v in entry["json"].items() if k != "bundle"}
        if build(view, root, bundle) != expected:
            mismatched.append(view)
    assert not mismatched, f"{name}: differs from the reference on {mismatched}"


@needs_corpus
@pytest.mark.parametrize("name", NAMES[:100:25])
def test_the_cli_prints_the_reference_json(name: str) -> None:
    """The golden's own argv through the real CLI, from the workspace: the whole JSON, head included."""
    golden = _golden(name)
    cwd = CORPUS / "bundles" / name
    for view in VIEWS:
        entry = golden["views"][view]
        argv = entry["argv"]
        assert argv[0] == "okf"
        proc = invoke(*argv[1:], cwd=cwd)
        assert proc.returncode == entry["rc"], (view, proc.stderr)
        assert json.loads(proc.stdout) == entry["json"], view


def test_a_mismatch_is_caught(tmp_path) -> None:
    """The comparison can fail: one changed value in one row is a difference."""
    (tmp_path / "a.md").write_text("---\ntype: T\ntitle: A\n---\nx\n")
    payload = _views.catalog(read_bundle(tmp_path))
    changed = json.loads(json.dumps(payload))
    changed["concepts"][0]["title"] = "a"
    assert payload != changed and os.sep
