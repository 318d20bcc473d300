// okfpro serve: keeps the open page live and draws the graph.  Every text reaches the DOM through
// textContent or as markup the server rendered and escaped; this script builds no markup from data.
"use strict";
(function () {
  const body = document.body;
  const errors = [];
  window.addEventListener("error", e => { errors.push(String(e.message)); body.dataset.errors = errors.join(" | "); });

  // ---------------------------------------------------------------- live: poll the version, swap <main>
  const versionUrl = body.dataset.versionUrl;
  let swapping = false;
  async function check() {
    if (swapping || !versionUrl) return;
    let v;
    try { const r = await fetch(versionUrl, { cache: "no-store" }); if (!r.ok) return; v = (await r.text()).trim(); }
    catch (e) { body.dataset.offline = "1"; return; }
    delete body.dataset.offline;
    if (!v || v === body.dataset.version) return;
    swapping = true;
    try {
      const r = await fetch(location.href, { cache: "no-store", headers: { Accept: "text/html" } });
      const doc = new DOMParser().parseFromString(await r.text(), "text/html");
      const fresh = doc.getElementById("main");
      if (fresh) {
        const keep = window.scrollY;
        document.getElementById("main").replaceWith(document.adoptNode(fresh));
        document.title = doc.title;
        body.dataset.version = doc.body.dataset.version || v;
        body.dataset.swaps = String(Number(body.dataset.swaps || 0) + 1);
        window.scrollTo(0, keep);
        start();
      }
    } finally { swapping = false; }
  }
  if (versionUrl) setInterval(check, 700);

  // ---------------------------------------------------------------- the graph, drawn progressively
  const palette = ["#2457c5", "#c5402a", "#1d8a5a", "#9b59b6", "#d68910", "#16a0a8", "#7f8c8d", "#b03a6f"];
  function graph(canvas) {
    const status = document.getElementById("graph-status");
    let G = null, scale = 1, ox = 0, oy = 0, frame = 0;
    const island = document.getElementById("okfpro-layout");
    const ready = island ? Promise.resolve(JSON.parse(island.textContent)) : fetch(canvas.dataset.src, { cache: "no-store" }).then(r => r.json());
    const ctx = canvas.getContext("2d");
    function size() {
      const dpr = window.devicePixelRatio || 1;
      canvas.width = canvas.clientWidth * dpr; canvas.height = canvas.clientHeight * dpr;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    function fit() {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const grow = (a, b, c, d) => { x0 = Math.min(x0, a); y0 = Math.min(y0, b); x1 = Math.max(x1, c); y1 = Math.max(y1, d); };
      if (G.boxes) G.boxes.forEach(b => grow(b.x, b.y, b.x + b.w, b.y + b.h));
      else G.clusters.forEach(c => grow(c.x - c.r, c.y - c.r, c.x + c.r, c.y + c.r));
      if (x0 === Infinity) { x0 = y0 = -1; x1 = y1 = 1; }
      const w = canvas.clientWidth, h = canvas.clientHeight;
      scale = Math.min(w / (x1 - x0 + 40), h / (y1 - y0 + 40));
      ox = w / 2 - scale * (x0 + x1) / 2; oy = h / 2 - scale * (y0 + y1) / 2;
    }
    const sx = x => x * scale + ox, sy = y => y * scale + oy;
    function draw() {
      const mine = ++frame, w = canvas.clientWidth, h = canvas.clientHeight;
      if (!w || !h) return;  // hidden (a section of the exported file not shown yet)
      if (!(scale > 0) || !isFinite(scale)) fit();
      ctx.clearRect(0, 0, w, h);
      if (G.boxes) G.boxes.forEach((b, i) => {
        ctx.fillStyle = palette[i % palette.length] + "14"; ctx.fillRect(sx(b.x), sy(b.y), b.w * scale, b.h * scale);
        ctx.strokeStyle = palette[i % palette.length] + "88"; ctx.strokeRect(sx(b.x), sy(b.y), b.w * scale, b.h * scale);
        if (b.w * scale > 40) { ctx.fillStyle = "#3b4456"; ctx.font = "12px system-ui"; ctx.textAlign = "left";
          ctx.fillText((b.dir === "." ? "(root)" : b.dir + "/") + " " + b.count, sx(b.x) + 4, sy(b.y) + 13); }
      });
      else G.clusters.forEach((c, i) => {
        ctx.beginPath(); ctx.arc(sx(c.x), sy(c.y), c.r * scale, 0, 2 * Math.PI);
        ctx.fillStyle = palette[i % palette.length] + "14"; ctx.fill(); ctx.strokeStyle = palette[i % palette.length] + "55"; ctx.stroke();
        if (c.r * scale > 18) { ctx.fillStyle = "#3b4456"; ctx.font = "12px system-ui"; ctx.textAlign = "center";
          ctx.fillText((c.dir === "." ? "(root)" : c.dir + "/") + " " + c.count, sx(c.x), sy(c.y - c.r) - 4); }
      });
      // nodes then edges in slices, a frame each: a 10,000-concept graph never blocks the page
      const nodes = G.nodes, edges = G.edges, step = 4000;
      let i = 0, j = 0;
      function slice() {
        if (mine !== frame) return;
        const end = Math.min(nodes.length, i + step);
        for (; i < end; i++) { const n = nodes[i]; ctx.beginPath();
          ctx.arc(sx(n.x), sy(n.y), Math.max(1.2, n.r * Math.sqrt(scale)), 0, 2 * Math.PI);
          ctx.fillStyle = palette[n.c % palette.length]; ctx.fill(); }
        if (i >= nodes.length) {
          ctx.lineWidth = 0.5; ctx.strokeStyle = "rgba(90,100,117,.16)"; ctx.beginPath();
          const e2 = Math.min(edges.length, j + 4 * step);
          for (; j < e2; j++) { const a = nodes[edges[j][0]], b = nodes[edges[j][1]]; ctx.moveTo(sx(a.x), sy(a.y)); ctx.lineTo(sx(b.x), sy(b.y)); }
          ctx.stroke();
        }
        if (i < nodes.length || j < edges.length) requestAnimationFrame(slice);
        else { status.textContent = nodes.length + " concepts · " + edges.length + " links · " + G.clusters.length + " directories"; canvas.dataset.drawn = String(nodes.length); }
      }
      slice();
    }
    function nodeAt(qx, qy) {
      let best = -1, bestD = Infinity;
      G.nodes.forEach((n, i) => { const d = Math.hypot(sx(n.x) - qx, sy(n.y) - qy);
        if (d <= Math.max(5, n.r * Math.sqrt(scale)) + 2 && d < bestD) { best = i; bestD = d; } });
      return best;
    }
    ready.then(data => {
      G = data; size(); fit(); draw();
      let drag = null, moved = false;
      canvas.addEventListener("mousedown", e => { drag = [e.offsetX, e.offsetY, ox, oy]; moved = false; });
      canvas.addEventListener("mousemove", e => {
        if (drag) { const dx = e.offsetX - drag[0], dy = e.offsetY - drag[1]; if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
          if (moved) { ox = drag[2] + dx; oy = drag[3] + dy; draw(); } return; }
        const k = nodeAt(e.offsetX, e.offsetY); canvas.title = k >= 0 ? G.nodes[k].t + " · " + G.nodes[k].id : "";
        canvas.style.cursor = k >= 0 ? "pointer" : "grab";
      });
      window.addEventListener("mouseup", () => { drag = null; });
      canvas.addEventListener("click", e => { if (moved) return; const k = nodeAt(e.offsetX, e.offsetY);
        if (k >= 0) location.href = canvas.dataset.concept + encodeURIComponent(G.nodes[k].id).replace(/%2F/g, "/"); });
      canvas.addEventListener("wheel", e => { e.preventDefault(); const f = Math.exp(-e.deltaY * 0.0015);
        ox = e.offsetX - (e.offsetX - ox) * f; oy = e.offsetY - (e.offsetY - oy) * f; scale *= f; draw(); }, { passive: false });
      window.addEventListener("resize", () => { size(); draw(); });
      window.addEventListener("hashchange", () => { size(); if (location.hash === "#graph") { scale = 0; } draw(); });
      canvas.centre = id => { const n = G.nodes.find(m => m.id === id); if (!n) return null; ox = canvas.clientWidth / 2 - n.x * scale; oy = canvas.clientHeight / 2 - n.y * scale; draw(); return [canvas.clientWidth / 2, canvas.clientHeight / 2]; };
    }).catch(e => { status.textContent = "the graph could not be drawn: " + e; });
  }
  function start() { const c = document.getElementById("graph-canvas"); if (c) graph(c); }
  start();
})();
