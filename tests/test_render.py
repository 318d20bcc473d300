"""`okfpro render`: the page builder in-process (layout, escaping, the workspace parts), and the
page itself in a real headless Chromium on a 2,000-concept workspace (bench/gen_bundle.py): it
draws, its key elements are there, a real click on a node through the hit test opens that
concept, search finds it, and nothing reaches the console as an error or asks the network."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from okfpro.core import render as _render
from okfpro.io.reader import read_bundle
from tests.helpers import REPO, invoke


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


def _data(document: str) -> dict:
    m = re.search(r'<script type="application/json" id="okfpro-data">(.*?)</script>', document, re.S)
    assert m
    return json.loads(m.group(1))


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


def test_the_page_carries_the_graph_and_the_workspace(tmp_path):
    root = _bundle(tmp_path)
    from okfpro.io.render import workspace_facts

    doc = _render.page("ws", read_bundle(root), workspace_facts(root))
    data = _data(doc)
    assert data["graph"]["hubs"][0] == {"id": "hub", "inbound": 6}
    assert {c["dir"] for c in data["graph"]["clusters"]} == {".", "notes"}
    ws = data["workspace"]
    assert {r["section"] for r in ws["board"]} == {"In flight", "Inbox"}
    assert any("ship" in r["text"] for r in ws["board"])
    assert [p["day"] for p in ws["snapshots"]] == ["2026-11-28", "2026-11-29"]
    assert ws["snapshots"][0]["inbox"] == 3 and ws["snapshots"][1]["in flight"] == 1
    assert ws["projects"] == ["alpha"]  # the closed one is not open
    # concept text cannot leave the data island, and reaches the DOM only as text
    island = doc.split('id="okfpro-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in island and "\u2028" not in island
    assert "innerHTML" not in doc and "http://" not in doc.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in doc
    assert _render.page("x", read_bundle(root), None).count("<script type=\"application/json\"") == 1


def test_cli_writes_the_file_or_stdout_and_refuses_a_directory(tmp_path):
    root = _bundle(tmp_path)
    out = tmp_path / "page.html"
    proc = invoke("render", str(root), "-o", str(out))
    assert proc.returncode == 0 and proc.stdout.strip() == f"wrote 8 concepts to {out}"
    assert _data(out.read_text())["title"] == "ws"
    stdout = invoke("render", str(root), "-t", "Mine")
    assert stdout.returncode == 0 and _data(stdout.stdout)["title"] == "Mine"
    bad = invoke("render", str(root), "-o", str(tmp_path))
    assert bad.returncode == 2 and "is a directory" in bad.stderr


# --------------------------------------------------------------------------- a real browser

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


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


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--no-first-run", "--disable-extensions", "--disable-sync", "--mute-audio",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--window-size=1400,900",
           "--virtual-time-budget=8000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); .ci/run installs it")
def test_a_2000_concept_page_in_headless_chromium(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    ws = generate(tmp_path / "big", 2000)
    page = tmp_path / "graph.html"
    proc = invoke("render", str(ws), "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    url = page.as_uri() + "#selftest"

    shot = tmp_path / "shot.png"
    dom = _chromium("--dump-dom", f"--screenshot={shot}", url, profile=tmp_path / "profile")  # one launch, both
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    body = re.search(r"<body([^>]*)>", html).group(1)
    assert 'data-selftest="done"' in body, body
    assert "data-errors" not in body, body
    clicked = re.search(r'data-clicked="([^"]+)"', body).group(1)
    assert f'data-shown="{clicked}"' in body  # a real click on the canvas opened that concept
    assert int(re.search(r'data-searched="(\d+)"', body).group(1)) >= 1
    for needle in ('id="graph"', 'id="search"', '<li><a>', 'class="sec">', "<polyline", 'id="projects"'):
        assert needle in html, needle
    assert "2008 concepts" in html or re.search(r"\d{4} concepts · \d+ links", html)
    for noise in ("Uncaught", "Refused to", "Content Security Policy", "ERR_"):
        assert noise not in dom.stderr, [l for l in dom.stderr.splitlines() if noise in l][:3]

    assert shot.is_file(), dom.stderr[-2000:]
    data = shot.read_bytes()
    assert len(data) > 20_000 and _png_pixels_vary(data) > 100


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
    data = _data(proc.stdout)
    assert (data["graph"]["layout"], data["view"], data["link"]) == ("circle", "map", "https://example.org/repo")
    assert _data(invoke("render", str(root)).stdout)["view"] == "graph"
    for bad in (["--layout", "spring"], ["-l", "javascript:alert(1)"], ["-l", "file:///etc/passwd"]):
        refused = invoke("render", str(root), *bad)
        assert refused.returncode == 2 and refused.stdout == "", bad


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium); .ci/run installs it")
@pytest.mark.parametrize("flags", [["--map"], ["--layout", "breadthfirst", "-l", "https://example.org/x"],
                                   ["--layout", "concentric", "--map"], ["--layout", "grid"], ["--layout", "circle"]])
def test_layouts_and_the_map_view_in_headless_chromium(tmp_path, flags):
    sys.path.insert(0, str(REPO / "bench"))
    from gen_bundle import generate

    ws = generate(tmp_path / "gen", 300)
    page = tmp_path / "graph.html"
    assert invoke("render", str(ws), "-o", str(page), *flags).returncode == 0
    shot = tmp_path / "shot.png"  # taken by the same launch, once the self-test has run
    dom = _chromium("--dump-dom", f"--screenshot={shot}", page.as_uri() + "#selftest", profile=tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", dom.stdout).group(1)
    assert 'data-selftest="done"' in body and "data-errors" not in body, body
    clicked = re.search(r'data-clicked="([^"]+)"', body).group(1)
    assert f'data-shown="{clicked}"' in body  # the hit test works in this layout / view
    started = "map" if "--map" in flags else "graph"
    assert f'data-started="{started}"' in body
    assert f'data-toggled="{"graph" if started == "map" else "map"}"' in body  # the button switches views
    if "-l" in flags:
        assert 'href="https://example.org/x"' in dom.stdout
    for noise in ("Uncaught", "Refused to", "Content Security Policy", "ERR_"):
        assert noise not in dom.stderr, [line for line in dom.stderr.splitlines() if noise in line][:3]
    assert shot.is_file() and _png_pixels_vary(shot.read_bytes()) > 50, dom.stderr[-2000:]
