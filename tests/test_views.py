"""Every read view's --json shape (real processes on a real bundle), and its values on a small fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from okfpro.cli import views
from tests.helpers import run_okfpro

FILES = {
    "index.md": '---\nokf_version: "0.2"\n---\n# Root map\n',
    "a.md": (
        "---\ntype: Decision\ntitle: A\ntags: [t1, t2]\nresource: /references/guide.md\n"
        "computation: /references/run.sh\nstatus: draft\n---\n\nSee [b](notes/b.md).\n"
    ),
    "notes/index.md": "# Notes\n* [B](b.md) - bee\n",
    "notes/b.md": (
        "---\ntype: Finding\ntags: [t1]\nresource: references/run.sh\nsources:\n  - resource: /a.md\n"
        "generated:\n  by: claude/opus\n  at: 2026-01-02\n---\n\nBee.\n"
    ),
    "notes/c.md": "---\ntype: ''\ntitle: C\n---\n\nAlone.\n",
    "references/guide.md": "---\ntype: Reference\n---\n\nHow to run.\n",
    "references/run.sh": "#!/bin/sh\necho run\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("views") / ".okf"
    for rel, text in FILES.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


def j(root: Path, *args: str, code: int = 0) -> dict:
    proc = run_okfpro(*args, "--bundle", str(root), "--json")
    assert proc.returncode == code, proc.stderr
    assert "\n" not in proc.stdout.rstrip("\n")  # compact: one line
    data = json.loads(proc.stdout)
    assert data["bundle"] == str(root)
    return data


def test_catalog(root):
    data = j(root, "catalog")
    assert list(data) == ["bundle", "count", "concepts"] and data["count"] == 4
    rows = data["concepts"]
    assert [r["id"] for r in rows] == ["a", "notes/b", "notes/c", "references/guide"]
    assert all(list(r) == list(views.CATALOG_ROW) for r in rows)
    a, b = rows[0], rows[1]
    assert (a["status"], a["trust"], a["links_out"], a["links_in"], a["sources"]) == ("draft", "unverified", 1, 1, 0)
    assert (b["generated"], b["generated_by"], b["generated_at"], b["status"], b["sources"]) == (
        True, "claude/opus", "2026-01-02", None, 1)


def test_projection(root):
    assert j(root, "catalog", "--fields", "id,type")["concepts"][0] == {"id": "a", "type": "Decision"}
    assert "tags" not in j(root, "catalog", "--except", "tags,title")["concepts"][0]
    for verb in ("catalog", "search x", "tags", "types", "dirs", "loose", "files", "references"):
        proc = run_okfpro(*verb.split(), "--fields", "id,nonsense", "--bundle", str(root))
        assert proc.returncode == 2 and "nonsense" in proc.stderr, verb


def test_files(root):
    rows = j(root, "files")["files"]
    assert rows[0] == {"path": "a.md", "id": "a", "dir": ".", "type": "Decision", "title": "A", "description": ""}


def test_stats(root):
    data = j(root, "stats")
    assert {k: v for k, v in data.items() if k != "bundle"} == {
        "concepts": 4, "dirs": 3, "top_dirs": 3, "concept_types": 4, "cross_links": 2, "distinct_tags": 2,
        "by_type": {"Decision": 1, "Finding": 1, "Reference": 1, "Untyped": 1},
        "by_dir": {"notes": 2, ".": 1, "references": 1},
        "by_top_dir": {"notes": 2, "(root)": 1, "references": 1},
    }


def test_tags_and_types(root):
    assert j(root, "tags")["tags"] == [{"tag": "t1", "count": 2}, {"tag": "t2", "count": 1}]
    by = j(root, "tags", "--by", "dir")
    assert by["by"] == "dir" and by["tags"] == [
        {"dir": ".", "tag": "t1", "count": 1, "total": 1}, {"dir": ".", "tag": "t2", "count": 1, "total": 1},
        {"dir": "notes", "tag": "t1", "count": 1, "total": 2}]
    assert j(root, "types")["types"] == [
        {"type": "Decision", "count": 1, "ids": ["a"]}, {"type": "Finding", "count": 1, "ids": ["notes/b"]},
        {"type": "Reference", "count": 1, "ids": ["references/guide"]}, {"type": "Untyped", "count": 1, "ids": ["notes/c"]}]


def test_dirs(root):
    assert j(root, "dirs")["dirs"] == [
        {"dir": ".", "count": 1, "subtree": 4}, {"dir": "notes", "count": 2, "subtree": 2},
        {"dir": "references", "count": 1, "subtree": 1}]


def test_graph_and_hubs_and_loose(root):
    data = j(root, "graph")
    assert list(data) == ["bundle", "nodes", "edges", "type_index", "tag_index", "unlinked"]
    assert data["edges"] == [{"source": "a", "target": "notes/b"}, {"source": "notes/b", "target": "a"}]
    assert data["unlinked"] == ["notes/c", "references/guide"]
    assert set(data["nodes"][0]) == {"id", "type", "title", "description", "tags", "body"}
    minimal = j(root, "graph", "--minimal")
    assert list(minimal) == ["bundle", "nodes", "edges", "unlinked"] and set(minimal["nodes"][0]) == {"id", "title"}
    hubs = j(root, "graph", "--hubs")["hubs"]
    assert hubs == [{"id": "a", "top_dir": "(root)", "inbound": 1, "by_top_dir": {"notes": 1}},
                    {"id": "notes/b", "top_dir": "notes", "inbound": 1, "by_top_dir": {"(root)": 1}}]
    loose = j(root, "loose")
    assert [r["id"] for r in loose["loose"]] == ["notes/c", "references/guide"] and loose["count"] == 2


def test_references(root):
    data = j(root, "references")
    assert data["references"] == [
        {"path": "references/guide.md", "dir": "references", "kind": "concept",
         "referenced_by": [{"id": "a", "field": "resource"}]},
        {"path": "references/run.sh", "dir": "references", "kind": "file",
         "referenced_by": [{"id": "a", "field": "computation"}]},
    ]
    assert data["dangling"] == [{"id": "notes/b", "field": "resource", "raw": "references/run.sh",
                                 "resolved": "notes/references/run.sh",
                                 "hint": "/references/run.sh exists — missing leading slash?"}]


def test_index(root):
    data = j(root, "index")
    assert [r["dir"] for r in data["dirs"]] == [".", "notes", "references"]
    top = data["dirs"][0]
    assert set(top) == {"dir", "ancestor", "present", "synthesized", "authored", "count", "subtree", "types", "tags",
                        "subdirs", "listing"}
    assert (top["present"], top["authored"], top["subdirs"]) == (
        True, "# Root map", [{"dir": "notes", "subtree": 2}, {"dir": "references", "subtree": 1}])
    notes = j(root, "index", "--dir", "notes")["dirs"]
    assert [(r["dir"], r["ancestor"]) for r in notes] == [(".", True), ("notes", False)]
    assert notes[1]["authored"] == "# Notes\n* [B](b.md) - bee" and notes[1]["types"] == {"Finding": 1, "Untyped": 1}
    refs = j(root, "index", "--dir", "references")["dirs"][1]
    assert (refs["present"], refs["synthesized"], refs["authored"]) == (False, True, None)
    assert [r["dir"] for r in j(root, "index", "--depth", "0")["dirs"]] == ["."]
    text = run_okfpro("index", "--dir", "notes", "--bundle", str(root)).stdout
    assert "↑" in text and "* [B](b.md) - bee" in text  # the authored map
    synth = run_okfpro("index", "--dir", "references", "--bundle", str(root)).stdout
    assert "* [references/guide](guide.md)" in synth  # synthesized
    assert run_okfpro("index", "--dir", "nowhere", "--bundle", str(root)).returncode == 2


def test_read(root):
    data = j(root, "read", "notes/b")
    assert data["id"] == "notes/b" and data["path"] == "notes/b.md" and data["content"] == FILES["notes/b.md"]
    assert run_okfpro("read", "a", "--bundle", str(root)).stdout == FILES["a.md"]
    for bad in ("../views", "/etc/passwd", "notes/../../x"):
        proc = run_okfpro("read", bad, "--bundle", str(root))
        assert proc.returncode == 2 and "refusing" in proc.stderr, bad
    assert run_okfpro("read", "missing", "--bundle", str(root)).returncode == 2


def test_pretty_is_indented(root):
    proc = run_okfpro("stats", "--pretty", "--bundle", str(root))
    assert proc.returncode == 0 and proc.stdout.startswith("{\n  ")


def test_bundle_defaults_to_enclosing(root):
    proc = run_okfpro("search", "bee", "--json", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["bundle"] == ".okf" and [r["id"] for r in data["matches"]] == ["notes/b"]


def test_no_bundle_is_usage_error(tmp_path):
    proc = run_okfpro("catalog", cwd=tmp_path)
    assert proc.returncode == 2 and "no bundle" in proc.stderr


def test_empty_answers_say_so_and_dirs_has_a_header(tmp_path):
    """QA: `graph --hubs` and `references` printed nothing at all on an empty answer."""
    import subprocess as sp
    import sys as _sys

    ws = tmp_path / "w"
    (ws / ".okf").mkdir(parents=True)
    (ws / ".okf" / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# B\n\n* [a](a.md) - a.\n')
    (ws / ".okf" / "a.md").write_text("---\ntype: Note\ntitle: A\ndescription: A note.\n---\n\nBody.\n")

    def run(*args):
        return sp.run([_sys.executable, "-m", "okfpro", *args], cwd=ws, capture_output=True, text=True)

    hubs = run("graph", "--hubs")
    assert hubs.returncode == 0 and "no hubs" in hubs.stdout
    refs = run("references")
    assert refs.returncode == 0 and "no files" in refs.stdout
    dirs = run("dirs")
    assert dirs.stdout.splitlines()[0].split() == ["count", "subtree", "dir"]
