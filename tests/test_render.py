"""`okfpro render`: serve's pages exported as one file — the layouts in-process, the file's sections,
escaping and policy, and the file itself in a real headless Chromium (Playwright, the system's
Chromium) on a 2,000-concept workspace (bench/gen_bundle.py): every view opens from the header, the
graph draws, a real click on a node through the hit test opens that concept, and nothing reaches the
console as an error or asks the network."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path

import pytest

from okfpro.core import render as _render
from okfpro.io.reader import read_bundle
from tests.helpers import REPO, cache_dir, invoke


def _bundle(tmp_path: Path) -> Path:
    root = tmp_path / "ws" / ".okf"
    (root / "notes").mkdir(parents=True)
    (root / "projects" / "alpha").mkdir(parents=True)
    (root / "projects" / "done").mkdir(parents=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Map\n')
    (root / "hub.md").write_text("---\ntype: Overview\ntitle: The Hub\ntags: [core]\n---\nCentre.\n")
    for i in range(6):
        (root / "notes" / f"n{i}.md").write_text(f"---\ntype: Note\ntitle: Note {i}\n---\nSee [hub](../hub.md).\n")
    (root / "notes" / "evil.md").write_text(
        "---\ntype: Note\ntitle: \"</script><script>alert(1)</script>\"\n---\n<img src=x onerror=alert(2)> & \u2028\n")
    (root / "projects" / "alpha" / "index.md").write_text("# Alpha\n")
    (root / "projects" / "done" / "index.md").write_text("# Done — closed 2026-11-01\n")
    (root / "board.md").write_text(
        "# Board\n\n**In flight: 1/3**\n\n## In flight\n\n- 2026-11-20 — ship [alpha](/projects/alpha/index.md)\n\n"
        "## Backlog\n\n## Waiting\n\n## Inbox\n\n- 2026-11-28 — read the logs\n\n## To read\n\n## Deadlines\n")
    (root / "log.md").write_text(
        "# Log\n\n## 2026-11-29\n\n* **Snapshot**: inbox 1 (oldest 1d) · in flight 1/3 · waiting 0 (0 past chase) · "
        "backlog 2 · to read 0\n\n## 2026-11-28\n\n* **Snapshot**: inbox 3 (oldest 2d) · in flight 0/3 · waiting 0 "
        "(0 past chase) · backlog 1 · to read 1\n")
    return root


def _island(document: str) -> dict:
    m = re.search(r'<script type="application/json" id="okfpro-layout">(.*?)</script>', document, re.S)
    assert m
    return json.loads(m.group(1))


def _sections(document: str) -> list[str]:
    return re.findall(r'<section class="view" id="([^"]+)">', document)


def test_layout_clusters_do_not_overlap_and_hold_their_nodes(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    ws = generate(tmp_path / "gen", 300)
    g = _render.layout(read_bundle(ws / ".okf" if (ws / ".okf").is_dir() else ws))
    cs = g["clusters"]
    assert len(cs) > 3 and sum(c["count"] for c in cs) == len(g["nodes"])
    for i, a in enumerate(cs):
        for b in cs[i + 1:]:
            assert math.hypot(a["x"] - b["x"], a["y"] - b["y"]) >= a["r"] + b["r"], (a["dir"], b["dir"])
    for n in g["nodes"]:
        c = cs[n["cluster"]]
        assert c["dir"] == n["dir"] and math.hypot(n["x"] - c["x"], n["y"] - c["y"]) <= c["r"]


def test_the_file_is_serves_pages_every_view_and_concept(tmp_path):
    """render exports serve's pages: a section per view and per concept, Markdown rendered, the
    board, the log's chart, journal days; concept text only as text; only its own inline code runs."""
    root = _bundle(tmp_path)
    (root / "notes" / "n0.md").write_text("---\ntype: Note\ntitle: Note 0\n---\nSee **the** [hub](../hub.md).\n")
    (root / "journal").mkdir()
    (root / "journal" / "2026-11-29.md").write_text("---\ntitle: d\n---\n- *did* it\n")
    from okfpro.serve import export as render

    doc = render.draw(root, read_bundle(root), "ws")
    ids = _sections(doc)
    for view in ("index", "catalog", "files", "tags", "types", "stats", "graph", "board", "journal", "log", "lint"):
        assert view in ids, view
    assert {"c:hub", "c:notes/evil", "c:notes/n0", "j:2026-11-29"} <= set(ids)
    n0 = doc.split('id="c:notes/n0">', 1)[1].split("</section>", 1)[0]
    assert '<strong>the</strong>' in n0 and '<a class="link in" href="#c:hub" data-id="hub">' not in n0
    assert '<a class="link in" href="#c:hub">hub</a>' in n0
    evil = doc.split('id="c:notes/evil">', 1)[1].split("</section>", 1)[0]
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in evil and "&lt;img src=x onerror=alert(2)&gt;" in evil
    assert "ship" in doc.split('id="board">', 1)[1] and "<polyline" in doc.split('id="log">', 1)[1]
    scripts = re.findall(r"<script([^>]*)>", doc)
    assert scripts == [' type="application/json" id="okfpro-layout"', ""]  # the island and serve's own script
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', doc).group(1)
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "unsafe-inline" not in csp
    island = doc.split('id="okfpro-layout">', 1)[1].split("</script>", 1)[0]
    assert "<" not in island and "\u2028" not in island
    assert {n["id"] for n in _island(doc)["nodes"]} >= {"hub", "notes/evil"}
    assert not re.search(r'(src|href)="https?://', doc)  # nothing fetched, no link out but the bundle's own


def test_cli_writes_the_file_or_stdout_and_refuses_a_directory(tmp_path):
    root = _bundle(tmp_path)
    out = tmp_path / "page.html"
    proc = invoke("render", str(root), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout.strip() == f"wrote 8 concepts to {out}"
    assert "<title>ws — okfpro</title>" in out.read_text()
    stdout = invoke("render", str(root), "-t", "Mine")
    assert stdout.returncode == 0 and "<title>Mine — okfpro</title>" in stdout.stdout
    bad = invoke("render", str(root), "-o", str(tmp_path))
    assert bad.returncode == 2 and "is a directory" in bad.stderr


# --------------------------------------------------------------------------- a real browser

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None


def _png_pixels_vary(png: bytes) -> int:
    """How many distinct bytes the decompressed image rows hold (a blank page has a handful)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if kind == b"IDAT":
            idat += png[pos + 8:pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat)))


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); .ci/run installs it")
@pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed (pip install -e .[test])")
@pytest.mark.parametrize("flags", [[], ["--map", "-l", "https://example.org/x"], ["--layout", "concentric"]])
def test_a_2000_concept_file_in_headless_chromium(tmp_path, flags):
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    ws = generate(tmp_path / "big", 2000 if not flags else 300)
    page = tmp_path / "graph.html"
    proc = invoke("render", str(ws), "-o", str(page), *flags)
    assert proc.returncode == 0, proc.stderr
    shots = Path(os.environ.get("OKFPRO_TEST_ARTIFACTS") or cache_dir("artifacts")) / "render"
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            pg = browser.new_page(viewport={"width": 1300, "height": 850})
            errors: list[str] = []
            fetched: list[str] = []
            pg.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.on("request", lambda r: None if r.url.startswith("file:") else fetched.append(r.url))
            pg.goto(page.as_uri())
            assert pg.locator("section.view:visible").first.get_attribute("id") == "index"
            for view in ("Catalog", "Files", "Tags", "Types", "Stats", "Board", "Journal", "Log", "Lint", "Graph"):
                pg.click(f"header nav a:text-is('{view}')")
                assert pg.locator("section.view:visible").first.get_attribute("id") == view.lower()
            pg.wait_for_function("() => document.getElementById('graph-canvas').dataset.drawn > 0", timeout=30000)
            hub = _island(page.read_text())["nodes"][0]["id"]
            at = pg.evaluate(f"() => document.getElementById('graph-canvas').centre({json.dumps(hub)})")
            box = pg.locator("#graph-canvas").bounding_box()
            pg.mouse.click(box["x"] + at[0], box["y"] + at[1])
            pg.wait_for_function("() => location.hash.startsWith('#c:')")
            shown = pg.locator("section.view:visible").first.get_attribute("id")
            assert shown.startswith("c:") and pg.locator("section.view:visible article[data-id]").count() == 1
            shot = shots / f"render-{'-'.join(flags) or 'default'}.png".replace("/", "_").replace(":", "")
            pg.click("header nav a:text-is('Graph')")
            pg.screenshot(path=str(shot))
            if "-l" in flags:
                assert pg.locator("a[href='https://example.org/x']").count() == 1
            assert not errors, errors[:3]
            assert not fetched, fetched[:3]
        finally:
            browser.close()
    assert _png_pixels_vary(shot.read_bytes()) > 50


def test_the_png_check_can_fail():
    """A uniform image reads as blank (the screenshot check is not vacuous)."""
    width, height = 64, 64
    rows = b"".join(b"\x00" + b"\xff\xff\xff" * width for _ in range(height))

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    assert _png_pixels_vary(png) < 5
    assert os.sep


# --------------------------------------------------------------------------- layouts and the Map view
@pytest.mark.parametrize("name", _render.LAYOUTS)
def test_every_layout_places_every_node_apart_and_the_map_boxes_hold_them(tmp_path, name):
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    ws = generate(tmp_path / "gen", 200)
    bundle = read_bundle(ws / ".okf" if (ws / ".okf").is_dir() else ws)
    g = _render.layout(bundle, name)
    assert g["layout"] == name and g == _render.layout(bundle, name)  # deterministic
    spots = {(n["x"], n["y"]) for n in g["nodes"]}
    assert len(spots) == len(g["nodes"])  # no two concepts drawn on the same spot
    boxes = {b["dir"]: b for b in g["boxes"]}
    assert sum(b["count"] for b in g["boxes"]) == len(g["nodes"])
    for n in g["nodes"]:
        b = boxes[n["dir"]]
        assert b["x"] < n["mx"] < b["x"] + b["w"] and b["y"] < n["my"] < b["y"] + b["h"], n["id"]
    bs = g["boxes"]
    for i, a in enumerate(bs):
        for b in bs[i + 1:]:
            apart = a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or a["y"] + a["h"] <= b["y"] \
                or b["y"] + b["h"] <= a["y"]
            assert apart, (a["dir"], b["dir"])


def test_layouts_mean_what_they_say(tmp_path):
    root = _bundle(tmp_path)
    bundle = read_bundle(root)
    at = {name: {n["id"]: n for n in _render.layout(bundle, name)["nodes"]} for name in _render.LAYOUTS}
    hub = "hub"
    # concentric: the most linked-to concept is the centre
    assert (at["concentric"][hub]["x"], at["concentric"][hub]["y"]) == (0, 0)
    # breadthfirst: what links to the hub sits a row above it
    assert all(at["breadthfirst"][f"notes/n{i}"]["y"] < at["breadthfirst"][hub]["y"] for i in range(6))
    # circle: one ring
    radii = {round(math.hypot(n["x"], n["y"])) for n in at["circle"].values()}
    assert len(radii) == 1
    # grid: rows and columns
    assert len({n["x"] for n in at["grid"].values()}) <= math.ceil(math.sqrt(len(at["grid"])))
    with pytest.raises(ValueError):
        _render.layout(bundle, "spring")


def test_cli_layout_map_and_link_flags(tmp_path):
    root = _bundle(tmp_path)
    proc = invoke("render", str(root), "--layout", "circle", "--map", "-l", "https://example.org/repo")
    assert proc.returncode == 0, proc.stderr
    data = _island(proc.stdout)
    assert "boxes" in data and 'href="https://example.org/repo"' in proc.stdout
    assert "boxes" not in _island(invoke("render", str(root)).stdout)
    for bad in (["--layout", "spring"], ["-l", "javascript:alert(1)"], ["-l", "file:///etc/passwd"]):
        refused = invoke("render", str(root), *bad)
        assert refused.returncode == 2 and refused.stdout == "", bad
