"""The graph's layout and the log's Snapshot history, for ``okfpro serve`` and ``okfpro render``.

Pure and deterministic (the same bundle gives the same picture, and tests can check it): each
directory is a cluster — its concepts on a sunflower spiral, hubs in the middle — and the clusters
are packed largest first along a spiral around the centre without overlapping; the reference's
other layout names and the Map view's boxes are computed here too.  The pages that draw them are
:mod:`okfpro.serve.pages` (``render`` writes those pages as one file: :mod:`okfpro.serve.export`).
"""

from __future__ import annotations

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
    packer = _Packer(clusters[0]["r"] if clusters else 1.0)
    for c in clusters:
        c["x"], c["y"] = packer.place(c)
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


class _Packer:
    """Clusters placed largest first along one spiral around the centre, none overlapping.

    Each cluster walks the spiral from where the one before it landed (a cluster is never larger
    than the one before it, so the stretch before was tried by a larger one), and is checked only
    against the placed clusters in the grid cells around it (a cell is as wide as the two largest
    clusters side by side): at 50,000 concepts in 250 directories the walk checked every placed
    cluster at every step, ~90 million distance tests.
    """

    def __init__(self, largest: float) -> None:
        self.cell = 2 * largest + 8
        self.grid: dict[tuple[int, int], list[dict[str, Any]]] = {}
        self.step = 0.0
        self.any = False

    def _near(self, x: float, y: float) -> list[dict[str, Any]]:
        cx, cy = int(math.floor(x / self.cell)), int(math.floor(y / self.cell))
        return [p for i in (-1, 0, 1) for j in (-1, 0, 1) for p in self.grid.get((cx + i, cy + j), ())]

    def place(self, c: dict[str, Any]) -> tuple[float, float]:
        r = c["r"]
        x = y = 0.0
        if self.any:
            step = max(0.0, self.step - 1.0)
            while True:
                step += 1.0
                angle = step * 0.35
                dist = 6.0 * step ** 0.5 * 8
                x, y = dist * math.cos(angle), dist * math.sin(angle)
                if all(math.hypot(x - p["x"], y - p["y"]) >= r + p["r"] + 8 for p in self._near(x, y)):
                    break
            self.step = step
        self.any = True
        key = (int(math.floor(x / self.cell)), int(math.floor(y / self.cell)))
        self.grid.setdefault(key, []).append({"x": x, "y": y, "r": r})
        return x, y


def log_snapshots(log_text: str) -> list[dict[str, Any]]:
    """The log's Snapshot history as chart points, oldest first."""
    from okfpro.core import log as _log
    from okfpro.core import snapshot as _snapshot

    log = _log.parse(log_text)
    days = []
    for day in log.days:
        line = log.snapshot_line(day)
        if line is not None:
            days.append((day, _snapshot.parse(line)))
    return snapshot_history(days)


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
