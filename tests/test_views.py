"""The read views: the pure builders (okfpro.core.views) on a small fixture, in-process; and the
CLI seams (envelope, [DIR] / --bundle, projection refusals, the skipped-files note) in real processes."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from okfpro.cli.common import projection
from okfpro.io.reader import reference_files
from okfpro.core import views as _views
from okfpro.io import reader
from okfpro.io.reader import read_bundle
from tests.helpers import invoke

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
    "notes/c.md": "---\ntype: ''\ntitle: C\ntags: solo\n---\n\nAlone.\n",
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


@pytest.fixture(scope="module")
def bundle(root):
    return read_bundle(root)


def test_catalog(bundle):
    data = _views.catalog(bundle)
    assert list(data) == ["count", "concepts"] and data["count"] == 4
    rows = data["concepts"]
    assert [r["id"] for r in rows] == ["a", "notes/b", "notes/c", "references/guide"]
    assert all(tuple(r) == _views.CATALOG_ROW for r in rows)
    a, b, c, guide = rows
    assert (a["status"], a["trust"], a["links_out"], a["links_in"], a["sources"]) == ("draft", "unverified", 1, 1, 0)
    assert (b["generated"], b["generated_by"], b["generated_at"], b["status"], b["sources"]) == (
        True, "claude/opus", "2026-01-02", None, 1)
    assert b["title"] == "b" and guide["title"] == "guide"  # a blank title reads as the id's last segment
    assert c["tags"] == ["solo"] and c["type"] == ""  # a lone scalar tag is a one-tag list; type as written


def test_files(bundle):
    rows = _views.files(bundle)["files"]
    assert rows[0] == {"path": "a.md", "id": "a", "dir": ".", "type": "Decision", "title": "A", "description": ""}
    assert [r["path"] for r in rows] == ["a.md", "notes/b.md", "notes/c.md", "references/guide.md"]


def test_stats(bundle):
    assert _views.stats(bundle) == {
        "concepts": 4, "dirs": 3, "top_dirs": 3, "concept_types": 4, "cross_links": 2, "distinct_tags": 2,
        "by_type": {"Decision": 1, "Finding": 1, "Untyped": 1, "Reference": 1},
        "by_dir": {"notes": 2, ".": 1, "references": 1},
        "by_top_dir": {"notes": 2, "(root)": 1, "references": 1},
    }
    assert list(_views.stats(bundle)["by_top_dir"]) == ["notes", "(root)", "references"]


def test_tags_and_types(bundle):
    # the graph's tag index counts only a real list (the scalar `solo` is not in it), as the reference's
    assert _views.tags(bundle)["tags"] == [{"tag": "t1", "count": 2, "concepts": ["a", "notes/b"]},
                                      {"tag": "t2", "count": 1, "concepts": ["a"]}]
    by = _views.tag_groups(bundle, "dir")
    assert by == {"count": 2, "by": "dir", "groups": [
        {"dir": ".", "count": 2, "tags": [{"tag": "t1", "count": 1, "total": 2, "concepts": ["a"]},
                                          {"tag": "t2", "count": 1, "total": 1, "concepts": ["a"]}]},
        {"dir": "notes", "count": 1, "tags": [{"tag": "t1", "count": 1, "total": 2, "concepts": ["notes/b"]}]}]}
    assert [g["type"] for g in _views.tag_groups(bundle, "type")["groups"]] == ["Decision", "Finding"]
    assert _views.types(bundle)["types"] == [
        {"type": "Decision", "count": 1, "concepts": ["a"]}, {"type": "Finding", "count": 1, "concepts": ["notes/b"]},
        {"type": "Reference", "count": 1, "concepts": ["references/guide"]},
        {"type": "Untyped", "count": 1, "concepts": ["notes/c"]}]


def test_dirs(bundle):
    assert _views.dirs(bundle) == {"count": 3, "total": 4, "dirs": [
        {"dir": ".", "ancestor": False, "count": 1, "subtree": 1, "subdirs": ["notes", "references"]},
        {"dir": "notes", "ancestor": False, "count": 2, "subtree": 2, "subdirs": []},
        {"dir": "references", "ancestor": False, "count": 1, "subtree": 1, "subdirs": []}]}
    notes = _views.dirs(bundle, ["NOTES/"])
    assert [(r["dir"], r["ancestor"]) for r in notes["dirs"]] == [(".", True), ("notes", False)]
    assert notes["total"] == 2  # the chain is context, not the answer
    assert _views.dirs(bundle, ["notes"], ancestors=False)["count"] == 1
    assert [r["dir"] for r in _views.dirs(bundle, depth=0)["dirs"]] == ["."]
    assert [r["dir"] for r in _views.dirs(bundle, ["root"])["dirs"]] == ["."]
    assert _views.dirs(bundle, ["nowhere"])["count"] == 0


def test_graph_and_hubs_and_loose(bundle):
    data = _views.graph(bundle)
    assert list(data) == ["nodes", "edges"]
    assert data["edges"] == [{"source": "a", "target": "notes/b"}, {"source": "notes/b", "target": "a"}]
    assert data["nodes"][0] == {"id": "a", "type": "Decision", "title": "A", "description": "", "tags": ["t1", "t2"],
                                "body": "See [b](notes/b.md)."}
    assert "body" not in _views.graph(bundle, body=False)["nodes"][0]
    minimal = _views.graph(bundle, minimal=True)
    assert list(minimal) == ["nodes", "edges", "types", "tags"] and minimal["nodes"][1] == {"id": "notes/b", "title": "b"}
    assert minimal["tags"] == {"t1": ["a", "notes/b"], "t2": ["a"]}
    assert _views.hubs(bundle)["hubs"] == [{"id": "a", "top_dir": "(root)", "inbound": 1, "by_top_dir": {"notes": 1}},
                                      {"id": "notes/b", "top_dir": "notes", "inbound": 1, "by_top_dir": {"(root)": 1}}]
    assert _views.hubs(bundle, 1)["count"] == 1
    assert _views.loose(bundle) == {"count": 2, "loose": [{"id": "notes/c", "title": "C", "dir": "notes"},
                                                     {"id": "references/guide", "title": "guide", "dir": "references"}]}


def test_graph_edges_follow_the_reference_line_order(tmp_path):
    """Per line: its inline links, then its reference-style uses (the reference's edge order)."""
    (tmp_path / "x.md").write_text("---\ntype: T\n---\nRef [one][r].\nSee [two](b.md).\n\n[r]: a.md\n")
    for n in ("a", "b"):
        (tmp_path / f"{n}.md").write_text("---\ntype: T\n---\nx\n")
    edges = _views.graph(read_bundle(tmp_path))["edges"]
    assert edges == [{"source": "x", "target": "a"}, {"source": "x", "target": "b"}]


def test_references(bundle, root):
    data = _views.references(bundle, reference_files(root))
    assert data["references"] == [
        {"path": "references/guide.md", "dir": "references", "kind": "concept",
         "referenced_by": [{"id": "a", "field": "resource"}]},
        {"path": "references/run.sh", "dir": "references", "kind": "file",
         "referenced_by": [{"id": "a", "field": "computation"}]},
    ]
    assert data["dangling"] == [{"id": "notes/b", "field": "resource", "raw": "references/run.sh",
                                 "resolved": "notes/references/run.sh",
                                 "hint": "/references/run.sh exists — missing leading slash?"}]
    assert _views.references(bundle, [])["dangling"][0]["hint"] is None


def test_index(bundle):
    data = _views.index(bundle)
    assert [r["dir"] for r in data["directories"]] == [".", "notes", "references"]
    top = data["directories"][0]
    assert tuple(top) == _views.INDEX_ROW
    assert (top["present"], top["body"], top["subdirs"], top["index_path"]) == (
        True, "# Root map\n", ["notes", "references"], "index.md")
    notes = _views.index(bundle, ["notes"])["directories"]
    assert [(r["dir"], r["ancestor"]) for r in notes] == [(".", True), ("notes", False)]
    assert notes[1]["body"] == "# Notes\n* [B](b.md) - bee\n" and notes[1]["types"] == {"": 1, "Finding": 1}
    assert notes[1]["listing"][0] == {"id": "notes/b", "title": "b", "description": "", "type": "Finding",
                                      "tags": ["t1"]}
    refs = _views.index(bundle, ["references"])["directories"][1]
    assert (refs["present"], refs["synthesized"], refs["body"]) == (False, True, None)
    assert [r["dir"] for r in _views.index(bundle, depth=0)["directories"]] == ["."]
    assert "body" not in _views.index(bundle, body=False)["directories"][0]


def test_projection_rules():
    keep = projection("ID,type", None, _views.CATALOG_ROW)
    assert keep({"id": 1, "title": 2, "type": 3}) == {"id": 1, "type": 3}
    assert projection(None, "tags", _views.CATALOG_ROW)({"id": 1, "tags": []}) == {"id": 1}
    for args in (("id", "tags"), ("nonsense", None), (None, "nonsense"), (",", None)):
        with pytest.raises(click.exceptions.Exit):
            projection(*args, _views.CATALOG_ROW)


def test_unsafe_ids():
    for bad in ("../views", "/etc/passwd", "notes/../../x", "", "a\\b", "C:x"):
        assert reader.unsafe_id(bad), bad
    assert reader.unsafe_id("notes/b") is None


# --------------------------------------------------------------------------- CLI seams (real processes)


def test_cli_envelope_dir_and_bundle_alias(root):
    for args in (("catalog", str(root)), ("catalog", "--bundle", str(root))):
        proc = invoke(*args, "--json")
        assert proc.returncode == 0, proc.stderr
        assert "\n" not in proc.stdout.rstrip("\n")  # compact: one line
        data = json.loads(proc.stdout)
        assert data["bundle"] == str(root) and data["count"] == 4
    proc = invoke("catalog", str(root), "--bundle", str(root.parent))
    assert proc.returncode == 2 and "two bundles" in proc.stderr
    pretty = invoke("stats", str(root), "--pretty")
    assert pretty.returncode == 0 and pretty.stdout.startswith("{\n  ")


def test_cli_projection_refusals(root):
    assert json.loads(invoke("catalog", str(root), "--json", "--fields", "id,type").stdout)["concepts"][0] == {
        "id": "a", "type": "Decision"}
    for verb in ("catalog", "tags", "types", "dirs", "loose", "files", "references", "index"):
        proc = invoke(verb, str(root), "--fields", "id,nonsense")
        assert proc.returncode == 2 and "nonsense" in proc.stderr, verb
    proc = invoke("search", "x", "--fields", "nonsense", "--bundle", str(root))
    assert proc.returncode == 2 and "nonsense" in proc.stderr


def test_cli_read(root):
    data = json.loads(invoke("read", "notes/b", "--bundle", str(root), "--json").stdout)
    assert data["id"] == "notes/b" and data["path"] == "notes/b.md" and data["content"] == FILES["notes/b.md"]
    assert invoke("read", "a", "--bundle", str(root)).stdout == FILES["a.md"]
    proc = invoke("read", "../views", "--bundle", str(root))
    assert proc.returncode == 2 and "refusing" in proc.stderr
    assert invoke("read", "missing", "--bundle", str(root)).returncode == 2


def test_cli_bundle_defaults_to_enclosing(root):
    proc = invoke("search", "bee", "--json", cwd=root.parent)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["bundle"] == ".okf" and [r["id"] for r in data["matches"]] == ["notes/b"]


def test_cli_no_bundle_is_usage_error(tmp_path):
    proc = invoke("catalog", cwd=tmp_path)
    assert proc.returncode == 2 and "no bundle" in proc.stderr
    proc = invoke("catalog", str(tmp_path / "missing"))
    assert proc.returncode == 2 and "no such directory" in proc.stderr


def test_cli_unknown_dir_is_named_not_silent(root):
    proc = invoke("index", str(root), "--dir", "nowhere", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] == 0  # the reference's answer
    assert "no directory 'nowhere'" in proc.stderr


def test_empty_answers_say_so_and_dirs_has_a_header(tmp_path):
    """QA: `graph --hubs` and `references` printed nothing at all on an empty answer."""
    ws = tmp_path / "w"
    (ws / ".okf").mkdir(parents=True)
    (ws / ".okf" / "index.md").write_text('---\nokf_version: "0.2"\n---\n\n# B\n\n* [a](a.md) - a.\n')
    (ws / ".okf" / "a.md").write_text("---\ntype: Note\ntitle: A\ndescription: A note.\n---\n\nBody.\n")
    hubs = invoke("graph", "--hubs", cwd=ws)
    assert hubs.returncode == 0 and "no hubs" in hubs.stdout
    refs = invoke("references", cwd=ws)
    assert refs.returncode == 0 and "no files" in refs.stdout
    dirs = invoke("dirs", cwd=ws)
    assert dirs.stdout.splitlines()[0].split() == ["dir", "count", "subtree"]


def test_cli_unusable_files_are_counted_on_stderr_and_a_dir_without_index_is_a_bundle(tmp_path):
    """As the reference: a named directory holding concept files is a bundle (no index.md needed), and
    every reader that leaves a file out says how many on stderr — validate names them itself."""
    (tmp_path / "a.md").write_text("---\ntype: T\n---\nx\n")
    (tmp_path / "b.md").write_text("---\nbad: [\n---\nx\n")
    (tmp_path / "c.md").write_bytes(b"---\ntype: T\n---\n\xff\xfe\n")
    note = "note: skipped 2 unusable file(s) (run `okfpro validate` for details)"
    for args in (("catalog", str(tmp_path), "--json"), ("stats", str(tmp_path)), ("lint", str(tmp_path), "--json"),
                 ("search", "x", "--bundle", str(tmp_path), "--json"), ("graph", str(tmp_path), "--hubs")):
        proc = invoke(*args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stderr.strip() == note, args
    proc = invoke("validate", str(tmp_path), "--json")
    assert proc.returncode == 1 and "note:" not in proc.stderr
    assert json.loads(proc.stdout)["counts"] == {"concepts": 2, "indexes": 0, "logs": 0}  # as the reference counts
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "a.md").write_text("---\ntype: T\ntitle: A\ndescription: d\n---\nx\n")
    proc = invoke("catalog", str(clean), "--json")
    assert proc.returncode == 0 and proc.stderr == "" and json.loads(proc.stdout)["count"] == 1
