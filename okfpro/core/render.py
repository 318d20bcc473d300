"""``okfpro render``: one self-contained HTML page of a bundle (and its workspace).

Pure: the shell hands in the parsed bundle and the workspace facts it read (board
rows, the log's Snapshot history, open projects); this module lays the graph out and
returns the page as text.  The page needs no network: its CSS and script are inline,
its data is one JSON island (``<`` escaped, so no concept text can close the script
element), and every concept text reaches the DOM through ``textContent`` only.

Layout (computed here, deterministic): each directory is a cluster — its concepts on
a sunflower spiral, sized by inbound links (hubs are drawn larger) — and the clusters
are packed largest first along a spiral around the centre without overlapping.  The
page draws on one canvas (pan with drag, zoom with the wheel), searches titles, ids
and tags as you type, and shows a clicked concept's text with its links in and out.
Beyond the reference's page: the workspace's board, the Snapshot history from the log
as a small chart, and the open projects.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
import posixpath
from typing import Any

from okfpro.core.concept import Bundle
from okfpro.core.views import graph_of, title_of

NODE_GAP = 14.0  # distance unit between neighbouring concepts of a cluster
CLUSTER_PAD = 26.0
GOLDEN = math.pi * (3 - math.sqrt(5))
CHART_KEYS = ("inbox", "in flight", "waiting", "backlog", "to read")


LAYOUTS = ("cose", "concentric", "breadthfirst", "circle", "grid")  # the reference's names


def layout(bundle: Bundle, name: str = "cose") -> dict[str, Any]:
    """Nodes with positions, edges as index pairs, clusters with centre and radius.

    ``name`` (the reference's layout names): ``cose`` directories as packed clusters (the
    default); ``concentric`` rings, the most linked-to concepts innermost; ``breadthfirst``
    rows by link depth from the concepts nothing links to; ``circle`` one ring in directory
    order; ``grid`` rows in directory order.  Every node also carries ``mx``/``my``, its place in
    the Map view (a box per directory, see :func:`map_boxes`), and ``boxes`` lists those boxes.
    """
    if name not in LAYOUTS:
        raise ValueError(f"unknown layout {name!r} (one of {', '.join(LAYOUTS)})")
    g = graph_of(bundle)
    by_dir: dict[str, list[str]] = {}
    for cid in g.ids:
        by_dir.setdefault(posixpath.dirname(g.concepts[cid].path) or ".", []).append(cid)
    clusters: list[dict[str, Any]] = []
    for d, ids in by_dir.items():
        ids.sort(key=lambda i: (-g.in_degree(i), i))  # hubs in the middle of their cluster
        radius = NODE_GAP * math.sqrt(len(ids)) + CLUSTER_PAD
        clusters.append({"dir": d, "ids": ids, "r": radius})
    clusters.sort(key=lambda c: (-len(c["ids"]), c["dir"]))
    placed: list[dict[str, Any]] = []
    for c in clusters:
        c["x"], c["y"] = _place(c["r"], placed)
        placed.append(c)
    index: dict[str, int] = {}
    nodes: list[dict[str, Any]] = []
    for ci, c in enumerate(clusters):
        for k, cid in enumerate(c["ids"]):
            dist = NODE_GAP * math.sqrt(k + 0.5) if len(c["ids"]) > 1 else 0.0
            angle = k * GOLDEN
            concept = g.concepts[cid]
            index[cid] = len(nodes)
            nodes.append({
                "id": cid,
                "title": title_of(concept),
                "type": concept.type or "Untyped",
                "tags": list(concept.tags),
                "description": concept.description,
                "body": concept.body.strip(),
                "dir": c["dir"],
                "cluster": ci,
                "inbound": g.in_degree(cid),
                "x": round(c["x"] + dist * math.cos(angle), 1),
                "y": round(c["y"] + dist * math.sin(angle), 1),
            })
    edges = [[index[s], index[t]] for s, t in g.edges if s in index and t in index]
    hubs = [{"id": h["id"], "inbound": h["inbound"]} for h in g.hubs(10)]
    if name != "cose":
        for n, (x, y) in zip(nodes, _positions(name, nodes, edges)):
            n["x"], n["y"] = round(x, 1), round(y, 1)
    boxes = map_boxes(nodes)
    return {
        "layout": name,
        "boxes": boxes,
        "nodes": nodes,
        "edges": edges,
        "clusters": [{"dir": c["dir"], "x": round(c["x"], 1), "y": round(c["y"], 1), "r": round(c["r"], 1),
                      "count": len(c["ids"])} for c in clusters],
        "hubs": hubs,
    }


def _positions(name: str, nodes: list[dict[str, Any]], edges: list[list[int]]) -> list[tuple[float, float]]:
    """(x, y) per node for the non-cluster layouts; deterministic (ties by directory, then id)."""
    n = len(nodes)
    gap = 2.2 * NODE_GAP
    order = sorted(range(n), key=lambda i: (nodes[i]["dir"], nodes[i]["id"]))
    pos: list[tuple[float, float]] = [(0.0, 0.0)] * n
    if name == "circle":
        r = max(4 * NODE_GAP, n * gap / (2 * math.pi))
        for k, i in enumerate(order):
            a = 2 * math.pi * k / max(n, 1) - math.pi / 2
            pos[i] = (r * math.cos(a), r * math.sin(a))
    elif name == "grid":
        cols = max(1, math.ceil(math.sqrt(n)))
        for k, i in enumerate(order):
            pos[i] = ((k % cols) * gap, (k // cols) * gap)
    elif name == "concentric":
        ranked = sorted(range(n), key=lambda i: (-nodes[i]["inbound"], nodes[i]["dir"], nodes[i]["id"]))
        ring, slot, cap = 0, 0, 1
        for i in ranked:
            if slot >= cap:
                ring, slot = ring + 1, 0
                cap = max(1, int(2 * math.pi * ring))
            r = ring * gap
            a = 2 * math.pi * slot / cap
            pos[i] = (r * math.cos(a), r * math.sin(a))
            slot += 1
    else:  # breadthfirst
        succ: list[list[int]] = [[] for _ in range(n)]
        indeg = [0] * n
        for s_, t in edges:
            succ[s_].append(t)
            indeg[t] += 1
        depth = [-1] * n
        for start in [i for i in order if indeg[i] == 0] + order:
            if depth[start] >= 0:
                continue
            depth[start] = 0  # a root, or the first of a cycle nothing outside reaches
            queue = [start]
            while queue:
                cur = queue.pop(0)
                for t in succ[cur]:
                    if depth[t] < 0:
                        depth[t] = depth[cur] + 1
                        queue.append(t)
        rows: dict[int, list[int]] = {}
        for i in order:
            rows.setdefault(depth[i], []).append(i)
        for d, members in rows.items():
            width = (len(members) - 1) * gap
            for k, i in enumerate(members):
                pos[i] = (k * gap - width / 2, d * 3 * gap)
    return pos


def map_boxes(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Map view: one box per directory (concepts in a grid inside it), boxes on shelves.

    Sets each node's ``mx``/``my`` and returns the boxes (``dir``, ``x``, ``y``, ``w``, ``h``,
    ``count``), largest directory first.
    """
    cell, pad, head = 2.2 * NODE_GAP, NODE_GAP, 1.6 * NODE_GAP
    by_dir: dict[str, list[dict[str, Any]]] = {}
    for node in nodes:
        by_dir.setdefault(node["dir"], []).append(node)
    groups = sorted(by_dir.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    sizes = []
    for d, members in groups:
        cols = max(1, math.ceil(math.sqrt(len(members) * 1.6)))
        rows = math.ceil(len(members) / cols)
        sizes.append((d, members, cols, cols * cell + 2 * pad, rows * cell + 2 * pad + head))
    target = math.sqrt(sum(w * h for *_, w, h in sizes)) * 1.4 if sizes else 0.0
    boxes: list[dict[str, Any]] = []
    x = y = shelf = 0.0
    for d, members, cols, w, h in sizes:
        if x > 0 and x + w > target:
            x, y, shelf = 0.0, y + shelf + pad, 0.0
        for k, node in enumerate(sorted(members, key=lambda m: m["id"])):
            node["mx"] = round(x + pad + (k % cols + 0.5) * cell, 1)
            node["my"] = round(y + head + pad + (k // cols + 0.5) * cell, 1)
        boxes.append({"dir": d, "x": round(x, 1), "y": round(y, 1), "w": round(w, 1), "h": round(h, 1),
                      "count": len(members)})
        x += w + pad
        shelf = max(shelf, h)
    return boxes


def _place(r: float, placed: list[dict[str, Any]]) -> tuple[float, float]:
    if not placed:
        return 0.0, 0.0
    step = 0.0
    while True:
        step += 1.0
        angle = step * 0.35
        dist = 6.0 * step ** 0.5 * 8
        x, y = dist * math.cos(angle), dist * math.sin(angle)
        if all(math.hypot(x - p["x"], y - p["y"]) >= r + p["r"] + 8 for p in placed):
            return x, y


def workspace(board_text: str, log_text: str, open_projects: list[str], today: _dt.date) -> dict[str, Any]:
    """The page's workspace from the texts the shell read: the board's rows, the log's Snapshot
    history as chart points, the open projects' slugs."""
    from okfpro.core import board as _board
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot

    rows = [{"section": r["section"], "text": r["text"]} for r in _board.rows_json(_board.parse(board_text), today)]
    log = _log.parse(log_text)
    days = []
    for day in log.days:
        line = log.snapshot_line(day)
        if line is not None:
            days.append((day, _snapshot.parse(line)))
    return {"board": rows, "snapshots": snapshot_history(days), "projects": open_projects}


def snapshot_history(days: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """``[(day, parsed counters)]`` from the log, oldest first, as chart points."""
    out = []
    for day, counters in sorted(days):
        point: dict[str, Any] = {"day": day}
        for key in CHART_KEYS:
            value = counters.get(key)
            point[key] = value if isinstance(value, int) else None
        out.append(point)
    return out


def page(title: str, bundle: Bundle, workspace: dict[str, Any] | None = None, *, layout_name: str = "cose",
         map_view: bool = False, link: str | None = None) -> str:
    """The whole HTML document.  ``workspace``: ``{"board": [rows], "snapshots": [points],
    "projects": [slugs]}`` or None when the bundle has no work state.  ``map_view``: open in the
    Map view (the reader can switch); ``link``: a source URL for the header (http or https only)."""
    if link is not None and not link.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {link!r}")
    data = {"title": title, "graph": layout(bundle, layout_name), "workspace": workspace,
            "chart_keys": list(CHART_KEYS), "view": "map" if map_view else "graph", "link": link}
    island = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    island = island.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    island = island.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return (TEMPLATE.replace("{{TITLE}}", html.escape(title)).replace("{{DATA}}", island))


TEMPLATE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{{TITLE}} — okfpro</title>
<style>
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;color:#1d2330;background:#f6f7f9;display:grid;grid-template-columns:1fr 380px;grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/3;display:flex;gap:12px;align-items:center;padding:8px 14px;background:#1d2330;color:#fff}
header h1{font-size:16px;margin:0;font-weight:600}
header .meta{opacity:.75;font-size:12px}
#source{color:#b9cdfa;font-size:12px}
#view{margin-left:auto;padding:4px 10px;border-radius:4px;border:0;font:inherit;cursor:pointer}
#search{width:280px;padding:6px 8px;border-radius:4px;border:0;font:inherit}
#stage{position:relative;overflow:hidden;background:#fff}
#graph{display:block;width:100%;height:100%;cursor:grab}
#results{position:absolute;left:10px;top:10px;max-height:45%;overflow:auto;background:rgba(255,255,255,.95);border:1px solid #d5d9e0;border-radius:4px;font-size:12px;min-width:220px;display:none}
#results li{cursor:pointer;padding:2px 8px;list-style:none}
#results li:hover{background:#e8eefc}
#results ul{margin:4px 0;padding:0}
aside{overflow:auto;border-left:1px solid #d5d9e0;padding:10px 14px;background:#fbfbfc}
aside h2{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:#5a6475;margin:14px 0 6px}
#concept .title{font-size:16px;font-weight:600}
#concept .sub{color:#5a6475;font-size:12px}
#concept pre{white-space:pre-wrap;word-wrap:break-word;font:12px/1.45 ui-monospace,Menlo,monospace;background:#fff;border:1px solid #e3e6eb;padding:8px;border-radius:4px;max-height:360px;overflow:auto}
.chips span{display:inline-block;background:#e8eefc;border-radius:9px;padding:0 7px;margin:0 4px 2px 0;font-size:11px}
.links a,#hubs a,#projects a{color:#2457c5;cursor:pointer;text-decoration:none}
ol,ul{padding-left:18px;margin:4px 0}
#board li{font-size:12px}
#board .sec{font-weight:600;margin-top:6px;font-size:12px}
#snapshots svg{width:100%;height:120px;background:#fff;border:1px solid #e3e6eb;border-radius:4px}
.legend span{font-size:11px;margin-right:8px}
.empty{color:#8a93a3;font-size:12px}
</style>
</head>
<body>
<header><h1 id="title"></h1><span class="meta" id="meta"></span>
<a id="source" rel="noreferrer"></a><button id="view" type="button"></button>
<input id="search" type="search" placeholder="Search titles, ids, tags…" autocomplete="off" aria-label="Search concepts"></header>
<div id="stage"><canvas id="graph" aria-label="knowledge graph"></canvas><div id="results"><ul></ul></div></div>
<aside>
<section id="concept"><p class="empty">Click a concept to read it.</p></section>
<h2>Hubs</h2><ol id="hubs"></ol>
<h2>Board</h2><div id="board"></div>
<h2>Snapshot history</h2><div id="snapshots"></div>
<h2>Open projects</h2><ul id="projects"></ul>
</aside>
<script type="application/json" id="okfpro-data">{{DATA}}</script>
<script>
"use strict";
(function () {
  const errors = [];
  window.addEventListener("error", e => { errors.push(String(e.message)); document.body.dataset.errors = errors.join(" | "); });
  const data = JSON.parse(document.getElementById("okfpro-data").textContent);
  const G = data.graph, nodes = G.nodes, edges = G.edges, clusters = G.clusters, boxes = G.boxes;
  let view = data.view === "map" ? "map" : "graph";
  const px = n => view === "map" ? n.mx : n.x, py = n => view === "map" ? n.my : n.y;
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  const byId = new Map(nodes.map((n, i) => [n.id, i]));
  const out = nodes.map(() => []), inn = nodes.map(() => []);
  edges.forEach(([s, t]) => { out[s].push(t); inn[t].push(s); });
  document.getElementById("title").textContent = data.title;
  const source = document.getElementById("source");
  if (data.link && /^https?:\/\//i.test(data.link)) { source.href = data.link; source.textContent = data.link; } else source.remove();
  const toggle = document.getElementById("view");
  function setView(v) { view = v; document.body.dataset.view = v; toggle.textContent = v === "map" ? "Graph view" : "Map view"; fit(); draw(); }
  toggle.addEventListener("click", () => setView(view === "map" ? "graph" : "map"));
  document.getElementById("meta").textContent = nodes.length + " concepts · " + edges.length + " links · " + clusters.length + " directories";
  const palette = ["#4e79a7","#f28e2b","#e15759","#76b7b2","#59a14f","#edc948","#b07aa1","#ff9da7","#9c755f","#bab0ac"];
  const colour = i => palette[i % palette.length];
  const radius = n => 3 + Math.min(12, Math.sqrt(n.inbound) * 2.2);
  const canvas = document.getElementById("graph"), ctx = canvas.getContext("2d");
  let scale = 1, ox = 0, oy = 0, selected = -1, matches = null;
  function fit() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const grow = (a, b, c, d) => { x0 = Math.min(x0, a); y0 = Math.min(y0, b); x1 = Math.max(x1, c); y1 = Math.max(y1, d); };
    if (view === "map") boxes.forEach(b => grow(b.x, b.y, b.x + b.w, b.y + b.h));
    else if (G.layout === "cose") clusters.forEach(c => grow(c.x - c.r, c.y - c.r, c.x + c.r, c.y + c.r));
    else nodes.forEach(n => grow(n.x - 20, n.y - 20, n.x + 20, n.y + 20));
    if (x0 === Infinity) { x0 = y0 = -1; x1 = y1 = 1; }
    scale = Math.min(w / (x1 - x0 + 40), h / (y1 - y0 + 40));
    ox = w / 2 - scale * (x0 + x1) / 2; oy = h / 2 - scale * (y0 + y1) / 2;
  }
  function resize() {
    const dpr = window.devicePixelRatio || 1;
    canvas.width = canvas.clientWidth * dpr; canvas.height = canvas.clientHeight * dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  const sx = x => x * scale + ox, sy = y => y * scale + oy;
  function draw() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    ctx.clearRect(0, 0, w, h);
    if (view === "map") boxes.forEach(b => {
      const i = clusters.findIndex(c => c.dir === b.dir);
      ctx.fillStyle = colour(i) + "14"; ctx.fillRect(sx(b.x), sy(b.y), b.w * scale, b.h * scale);
      ctx.strokeStyle = colour(i) + "88"; ctx.strokeRect(sx(b.x), sy(b.y), b.w * scale, b.h * scale);
      if (b.w * scale > 40) { ctx.fillStyle = "#3b4456"; ctx.font = "12px system-ui"; ctx.textAlign = "left";
        ctx.fillText((b.dir === "." ? "(root)" : b.dir + "/") + " " + b.count, sx(b.x) + 4, sy(b.y) + 13); }
    });
    else if (G.layout === "cose") clusters.forEach((c, i) => {
      ctx.beginPath(); ctx.arc(sx(c.x), sy(c.y), c.r * scale, 0, 2 * Math.PI);
      ctx.fillStyle = colour(i) + "14"; ctx.fill(); ctx.strokeStyle = colour(i) + "55"; ctx.stroke();
      if (c.r * scale > 18) { ctx.fillStyle = "#3b4456"; ctx.font = "12px system-ui"; ctx.textAlign = "center";
        ctx.fillText((c.dir === "." ? "(root)" : c.dir + "/") + " " + c.count, sx(c.x), sy(c.y - c.r) - 4); }
    });
    ctx.lineWidth = 0.6;
    edges.forEach(([s, t]) => {
      const hot = selected >= 0 && (s === selected || t === selected);
      if (!hot && (view === "map" || (matches && !(matches.has(s) || matches.has(t))))) return;  // the Map shows links on selection
      ctx.strokeStyle = hot ? "rgba(36,87,197,.9)" : "rgba(90,100,117,.18)";
      ctx.beginPath(); ctx.moveTo(sx(px(nodes[s])), sy(py(nodes[s]))); ctx.lineTo(sx(px(nodes[t])), sy(py(nodes[t]))); ctx.stroke();
    });
    nodes.forEach((n, i) => {
      const dim = matches && !matches.has(i);
      ctx.beginPath(); ctx.arc(sx(px(n)), sy(py(n)), Math.max(1.5, radius(n) * Math.sqrt(scale)), 0, 2 * Math.PI);
      ctx.fillStyle = dim ? "#d8dce3" : colour(n.cluster); ctx.fill();
      if (i === selected) { ctx.lineWidth = 2.5; ctx.strokeStyle = "#1d2330"; ctx.stroke(); ctx.lineWidth = 0.6; }
    });
  }
  function nodeAt(qx, qy) {
    let best = -1, bestD = Infinity;
    nodes.forEach((n, i) => { const d = Math.hypot(sx(px(n)) - qx, sy(py(n)) - qy); const r = Math.max(4, radius(n) * Math.sqrt(scale)) + 2;
      if (d <= r && d < bestD) { best = i; bestD = d; } });
    return best;
  }
  function linkList(title, ids) {
    const box = el("div", undefined, "links"); box.appendChild(el("div", title + " (" + ids.length + ")", "sub"));
    const ul = el("ul"); ids.slice(0, 50).forEach(j => { const li = el("li"); const a = el("a", nodes[j].title);
      a.dataset.id = nodes[j].id; a.addEventListener("click", () => select(j, true)); li.appendChild(a); ul.appendChild(li); });
    box.appendChild(ul); return box;
  }
  function select(i, centre) {
    selected = i; const box = document.getElementById("concept"); box.replaceChildren();
    if (i < 0) { box.appendChild(el("p", "Click a concept to read it.", "empty")); draw(); return; }
    const n = nodes[i]; box.dataset.id = n.id;
    box.appendChild(el("div", n.title, "title"));
    box.appendChild(el("div", n.id + " · " + n.type + " · " + (n.dir === "." ? "(root)" : n.dir + "/"), "sub"));
    const chips = el("div", undefined, "chips"); n.tags.forEach(t => chips.appendChild(el("span", t))); box.appendChild(chips);
    if (n.description) box.appendChild(el("p", n.description));
    box.appendChild(el("pre", n.body || "(no body)"));
    box.appendChild(linkList("Links out", out[i])); box.appendChild(linkList("Linked from", inn[i]));
    if (centre) { ox = canvas.clientWidth / 2 - px(n) * scale; oy = canvas.clientHeight / 2 - py(n) * scale; }
    draw();
  }
  const search = document.getElementById("search"), results = document.getElementById("results");
  search.addEventListener("input", () => {
    const q = search.value.trim().toLowerCase(); const ul = results.querySelector("ul"); ul.replaceChildren();
    if (!q) { matches = null; results.style.display = "none"; draw(); return; }
    const words = q.split(/\s+/);
    matches = new Set();
    nodes.forEach((n, i) => { const hay = (n.title + " " + n.id + " " + n.tags.join(" ")).toLowerCase();
      if (words.every(w => hay.includes(w))) matches.add(i); });
    [...matches].slice(0, 100).forEach(i => { const li = el("li", nodes[i].title + "  ·  " + nodes[i].id);
      li.dataset.id = nodes[i].id; li.addEventListener("click", () => select(i, true)); ul.appendChild(li); });
    results.style.display = "block"; results.dataset.count = String(matches.size); draw();
  });
  let drag = null, moved = false;
  canvas.addEventListener("mousedown", e => { drag = [e.offsetX, e.offsetY, ox, oy]; moved = false; });
  window.addEventListener("mousemove", e => { if (!drag) return; const dx = e.offsetX - drag[0], dy = e.offsetY - drag[1];
    if (Math.abs(dx) + Math.abs(dy) > 3) moved = true; if (moved && e.target === canvas) { ox = drag[2] + dx; oy = drag[3] + dy; draw(); } });
  window.addEventListener("mouseup", () => { drag = null; });
  canvas.addEventListener("click", e => { if (moved) return; select(nodeAt(e.offsetX, e.offsetY), false); });
  canvas.addEventListener("wheel", e => { e.preventDefault(); const k = Math.exp(-e.deltaY * 0.0015);
    ox = e.offsetX - (e.offsetX - ox) * k; oy = e.offsetY - (e.offsetY - oy) * k; scale *= k; draw(); }, { passive: false });
  const hubs = document.getElementById("hubs");
  G.hubs.forEach(h => { const li = el("li"); const a = el("a", h.id); a.addEventListener("click", () => select(byId.get(h.id), true));
    li.appendChild(a); li.appendChild(document.createTextNode(" ×" + h.inbound)); hubs.appendChild(li); });
  if (!G.hubs.length) hubs.appendChild(el("li", "no concept has an inbound link yet", "empty"));
  const ws = data.workspace;
  const board = document.getElementById("board"), snaps = document.getElementById("snapshots"), projects = document.getElementById("projects");
  if (!ws) { [board, snaps].forEach(b => b.appendChild(el("p", "no board.md: not a workspace", "empty"))); projects.appendChild(el("li", "none", "empty")); }
  else {
    let section = null, ul = null;
    ws.board.forEach(r => { if (r.section !== section) { section = r.section; board.appendChild(el("div", section, "sec")); ul = el("ul"); board.appendChild(ul); }
      ul.appendChild(el("li", r.text)); });
    if (!ws.board.length) board.appendChild(el("p", "the board is empty", "empty"));
    chart(snaps, ws.snapshots);
    ws.projects.forEach(p => projects.appendChild(el("li", p)));
    if (!ws.projects.length) projects.appendChild(el("li", "none open", "empty"));
  }
  function chart(box, points) {
    if (!points.length) { box.appendChild(el("p", "no Snapshot line in the log yet", "empty")); return; }
    const NS = "http://www.w3.org/2000/svg", W = 340, H = 110, P = 8;
    const svg = document.createElementNS(NS, "svg"); svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("role", "img");
    let max = 1; points.forEach(p => data.chart_keys.forEach(k => { if (p[k] != null) max = Math.max(max, p[k]); }));
    const x = i => P + (points.length === 1 ? (W - 2 * P) / 2 : i * (W - 2 * P) / (points.length - 1));
    const y = v => H - P - v * (H - 2 * P) / max;
    const legend = el("div", undefined, "legend");
    data.chart_keys.forEach((k, ki) => {
      const pts = points.map((p, i) => p[k] == null ? null : x(i).toFixed(1) + "," + y(p[k]).toFixed(1)).filter(Boolean);
      if (!pts.length) return;
      const line = document.createElementNS(NS, "polyline"); line.setAttribute("points", pts.join(" "));
      line.setAttribute("fill", "none"); line.setAttribute("stroke", palette[ki]); line.setAttribute("stroke-width", "2"); line.dataset.key = k;
      svg.appendChild(line);
      const s = el("span", "■ " + k); s.style.color = palette[ki]; legend.appendChild(s);
    });
    box.appendChild(svg); box.appendChild(legend);
    box.appendChild(el("div", points[0].day + " → " + points[points.length - 1].day + " (" + points.length + " days)", "empty"));
  }
  resize(); setView(view);
  window.addEventListener("resize", () => { resize(); draw(); });
  // A self-check a headless browser can read back from the DOM: click (a real event, through
  // the hit test) the biggest hub and report what the reading pane then shows.
  if (location.hash === "#selftest") {
    const target = G.hubs.length ? byId.get(G.hubs[0].id) : 0;
    if (nodes.length) {
      const r = canvas.getBoundingClientRect();
      ox = canvas.clientWidth / 2 - px(nodes[target]) * scale; oy = canvas.clientHeight / 2 - py(nodes[target]) * scale; draw();
      canvas.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: r.left + canvas.clientWidth / 2, clientY: r.top + canvas.clientHeight / 2 }));
      document.body.dataset.clicked = nodes[target].id;
      document.body.dataset.shown = document.getElementById("concept").dataset.id || "";
      search.value = nodes[target].title.split(/\s+/)[0]; search.dispatchEvent(new Event("input"));
      document.body.dataset.searched = results.dataset.count || "0";
    }
    document.body.dataset.started = view;
    toggle.click(); document.body.dataset.toggled = view;
    document.body.dataset.selftest = "done";
  }
})();
</script>
</body>
</html>
"""
