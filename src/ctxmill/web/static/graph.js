/* A small force-directed graph in SVG for the citation graph (no library, no CDN).
   CtxGraph.draw(svg, nodes, edges, {onSelect}) -> {start(), fit()}
   nodes: [{id, kind, label, short?, ...}]; edges: [{source|from, target|to, kind|type}]
   Sections anchor the layout on a grid shaped like the frame; references start among the
   sections that cite them. Sections and the most-cited references get bold labels ("major").
   find(query) dims what does not match. Every node shows its label (`short`, else the label cut to 28 characters). Labels keep their
   size at any zoom, so once the layout settles a declutter pass moves nodes apart on screen
   until no two labels (or a label and a circle) overlap at the fitted zoom. */
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const COLORS = {
    document: "#2d3748", section: "#3b6fd4", subsection: "#6a93e0", reference: "#d9822b",
    figure: "#2f9e62", table: "#8e44ad", footnote: "#b7950b", equation: "#c0392b", appendix: "#5d6d7e",
  };
  const color = (kind) => COLORS[kind] || "#7f8c8d";

  function mk(tag, attrs, parent) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    if (parent) parent.append(n);
    return n;
  }

  function clear(svg) {
    while (svg.firstChild) svg.firstChild.remove();
  }

  function draw(svg, nodesIn, edgesIn, opts = {}) {
    clear(svg);
    svg.style.height = ""; // a previous big graph may have made the frame taller (declutter)
    delete svg.dataset.settled;
    const nodes = nodesIn.map((n, i) => {
      const a = (2 * Math.PI * i) / Math.max(nodesIn.length, 1);
      const r = 40 + 6 * Math.sqrt(i);
      return { ...n, x: r * Math.cos(a), y: r * Math.sin(a), vx: 0, vy: 0, deg: 0, cited: 0, fixed: false };
    });
    const byId = new Map(nodes.map((n) => [String(n.id), n]));
    const edges = [];
    for (const e of edgesIn) {
      const s = byId.get(String(e.source ?? e.from));
      const t = byId.get(String(e.target ?? e.to));
      if (!s || !t || s === t) continue;
      const kind = e.kind || e.type || "";
      edges.push({ s, t, kind, weight: Number(e.weight) || 1 });
      s.deg++; t.deg++;
      if (kind === "cites") t.cited += Number(e.weight) || 1;
    }
    anchor(svg, nodes, edges);
    // labels that matter most at a glance: every section and the most-cited references
    const refs = nodes.filter((n) => n.kind === "reference").sort((a, b) => b.cited - a.cited);
    const top = new Set(refs.slice(0, Math.max(5, Math.ceil(refs.length / 10))).filter((n) => n.cited > 0));
    for (const n of nodes) n.major = n.kind === "section" || n.kind === "subsection" || n.kind === "document" || top.has(n);
    const radius = (n) => (n.kind === "document" ? 10 : 3.5 + Math.min(7, Math.sqrt(n.deg) * 1.3));

    const view = mk("g", { class: "view" }, svg);
    const edgeLayer = mk("g", { class: "edges" }, view);
    const nodeLayer = mk("g", { class: "nodes" }, view);
    for (const e of edges) e.el = mk("line", { class: `edge ${e.kind}` }, edgeLayer);
    for (const n of nodes) {
      n.el = mk("g", { class: `node ${n.kind}${n.major ? " major" : ""}`, tabindex: "0", "data-id": n.id }, nodeLayer);
      mk("circle", { r: radius(n), fill: color(n.kind) }, n.el);
      mk("title", {}, n.el).textContent = `${n.kind}: ${n.label}`;
      n.text = mk("text", { x: radius(n) + 3, y: 4, class: "label" }, n.el);
      n.text.textContent = n.short || short(n.label);
      n.r = radius(n);
      n.left = false; // label side: set by declutter()
    }

    // --- transform (pan/zoom)
    // Positions are mapped to the screen in paint() (not with an SVG scale) so that node
    // sizes and labels stay readable at any zoom.
    let tx = 0, ty = 0, k = 1;
    const apply = () => { svg.classList.toggle("zoomed", k > 1.8); paint(); };
    function size() {
      const r = svg.getBoundingClientRect();
      return [r.width || 800, r.height || 500];
    }
    function fit() {
      if (!nodes.length) return;
      const [w, h] = size();
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const n of nodes) { x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y); x1 = Math.max(x1, n.x); y1 = Math.max(y1, n.y); }
      const pad = 24;
      k = Math.min((w - 2 * pad) / Math.max(x1 - x0, 1), (h - 2 * pad) / Math.max(y1 - y0, 1), 4);
      tx = w / 2 - k * (x0 + x1) / 2;
      ty = h / 2 - k * (y0 + y1) / 2;
      apply();
    }

    function paint() {
      const X = (n) => (tx + k * n.x).toFixed(1), Y = (n) => (ty + k * n.y).toFixed(1);
      for (const e of edges) {
        e.el.setAttribute("x1", X(e.s)); e.el.setAttribute("y1", Y(e.s));
        e.el.setAttribute("x2", X(e.t)); e.el.setAttribute("y2", Y(e.t));
      }
      for (const n of nodes) n.el.setAttribute("transform", `translate(${X(n)},${Y(n)})`);
    }

    // --- simulation: repulsion between all pairs, springs on edges, gravity to the centre
    let alpha = 1, running = false, started = false, ticks = 0;
    function tick() {
      const n = nodes.length;
      const rep = 900, spring = 0.04, rest = 45, gravity = 0.012;
      for (let i = 0; i < n; i++) {
        const a = nodes[i];
        for (let j = i + 1; j < n; j++) {
          const b = nodes[j];
          let dx = a.x - b.x, dy = a.y - b.y;
          let d2 = dx * dx + dy * dy;
          if (d2 < 0.01) { dx = Math.random() - 0.5; dy = Math.random() - 0.5; d2 = 0.5; }
          if (d2 > 250000) continue; // far apart: negligible
          const f = (rep * alpha) / d2;
          a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
        }
      }
      for (const e of edges) {
        if (e.s.ax !== undefined && e.t.ax !== undefined) continue; // two sections: the grid places them
        const dx = e.t.x - e.s.x, dy = e.t.y - e.s.y;
        const d = Math.sqrt(dx * dx + dy * dy) || 1;
        const f = (spring * (d - rest) * alpha) / d;
        e.s.vx += dx * f; e.s.vy += dy * f; e.t.vx -= dx * f; e.t.vy -= dy * f;
      }
      for (const a of nodes) {
        if (a.ax !== undefined) { // a section: pulled to its place on the grid that fills the frame
          a.vx += (a.ax - a.x) * 0.08 * alpha; a.vy += (a.ay - a.y) * 0.08 * alpha;
        } else {
          a.vx -= a.x * gravity * 0.3 * alpha; a.vy -= a.y * gravity * 0.3 * alpha;
        }
        if (a.fixed) { a.vx = a.vy = 0; continue; }
        a.vx *= 0.6; a.vy *= 0.6;
        const v = Math.hypot(a.vx, a.vy);
        if (v > 30) { a.vx *= 30 / v; a.vy *= 30 / v; }
        a.x += a.vx; a.y += a.vy;
      }
      alpha *= 0.985;
      ticks++;
    }
    function loop() {
      for (let i = 0; i < 3; i++) tick();
      paint();
      if (ticks < 40) fit();
      if (alpha > 0.02) requestAnimationFrame(loop);
      else { running = false; fit(); declutter(); svg.dataset.settled = "1"; }
    }
    function reheat(a = 0.3) {
      alpha = Math.max(alpha, a);
      if (!running) { running = true; requestAnimationFrame(loop); }
    }
    function start() {
      if (started) return;
      if (!svg.getBoundingClientRect().width) return; // hidden tab: lay out when shown
      started = true;
      paint();
      fit();
      reheat(1);
    }

    // --- declutter: labels are a fixed size on screen, so overlaps are resolved in screen
    // pixels at the fitted zoom. Each label points towards the centre (it never leaves the
    // frame); overlapping boxes push their nodes apart along the axis that overlaps least
    // (mostly vertically: labels are wide and short); then the view is refitted, which may
    // zoom out and bring back overlaps, so the two repeat until nothing overlaps.
    function boxes() {
      const [w] = size();
      return nodes.map((n) => {
        if (n.tb === undefined) {
          // a label wider than half a narrow frame (a phone) fits on neither side: shorten it
          let b = n.text.getBBox();
          while (b.width > 0.45 * w && n.text.textContent.length > 8) {
            n.text.textContent = `${n.text.textContent.slice(0, -2).trimEnd()}…`.replace(/……$/, "…");
            b = n.text.getBBox();
          }
          n.tb = { w: b.width, y0: b.y, y1: b.y + b.height };
        }
        const sx = tx + k * n.x, sy = ty + k * n.y;
        // towards the centre (the document's to the right), unless only the other side fits
        const fitsRight = sx + n.r + 3 + n.tb.w <= w - 2, fitsLeft = sx - n.r - 3 - n.tb.w >= 2;
        n.left = (sx > w / 2 && n.kind !== "document") ? (fitsLeft || !fitsRight) : (!fitsRight && fitsLeft);
        const lx0 = n.left ? -(n.r + 3 + n.tb.w) : n.r + 3;
        return { n, x0: sx + Math.min(-n.r, lx0), x1: sx + Math.max(n.r, lx0 + n.tb.w),
                 y0: sy + Math.min(-n.r, n.tb.y0), y1: sy + Math.max(n.r, n.tb.y1) };
      });
    }
    function overlaps(bs, gap = 2) {
      const out = [];
      for (let i = 0; i < bs.length; i++) {
        const a = bs[i];
        for (let j = i + 1; j < bs.length; j++) {
          const b = bs[j];
          if (a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap) out.push([a, b]);
        }
      }
      return out;
    }
    // Vertical pushes make the layout tall and narrow, and fitting a tall layout zooms out;
    // stretching it back to the frame's shape spreads the (wide) labels apart instead.
    function stretch() {
      const [w, h] = size();
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const n of nodes) { x0 = Math.min(x0, n.x); y0 = Math.min(y0, n.y); x1 = Math.max(x1, n.x); y1 = Math.max(y1, n.y); }
      const f = ((w / h) * (y1 - y0)) / Math.max(x1 - x0, 1);
      if (f > 1.05) for (const n of nodes) n.x = (x0 + x1) / 2 + (n.x - (x0 + x1) / 2) * Math.min(f, 1.5);
    }
    function separate() {
      for (let round = 0; round < 60; round++) {
        let clashes = 0;
        for (let it = 0; it < 30; it++) {
          const pairs = overlaps(boxes());
          clashes = pairs.length;
          if (!clashes) break;
          for (const [a, b] of pairs) {
            const dx = Math.min(a.x1 - b.x0, b.x1 - a.x0) + 3, dy = Math.min(a.y1 - b.y0, b.y1 - a.y0) + 3;
            const ca = (a.y0 + a.y1) / 2, cb = (b.y0 + b.y1) / 2, xa = (a.x0 + a.x1) / 2, xb = (b.x0 + b.x1) / 2;
            // move both half the overlap, in graph units; ties go by position so nothing is stuck
            if (dy <= dx * 1.5) {
              const s = (ca < cb || (ca === cb && a.n.x < b.n.x)) ? -1 : 1;
              a.n.y += (s * dy) / (2 * k); b.n.y -= (s * dy) / (2 * k);
            } else {
              const s = (xa < xb || (xa === xb && a.n.y < b.n.y)) ? -1 : 1;
              a.n.x += (s * dx) / (2 * k); b.n.x -= (s * dx) / (2 * k);
            }
          }
        }
        stretch();
        fit();
        if (!clashes && !overlaps(boxes()).length) return true;
      }
      return false;
    }
    function declutter() {
      // A frame too small for its labels cannot be decluttered: a big graph gets a taller
      // frame, sized so that the labels cover about a quarter of it, and a little more
      // each time the pushes below do not settle.
      const [w, h] = size();
      const area = boxes().reduce((a, b) => a + (b.x1 - b.x0 + 4) * (b.y1 - b.y0 + 4), 0);
      let height = Math.max(h, Math.min(1600, Math.ceil(area / 0.25 / w)));
      for (let grow = 0; grow < 6; grow++) {
        if (height > size()[1]) { svg.style.height = `${height}px`; fit(); }
        if (separate()) break;
        height = Math.min(1600, Math.ceil(size()[1] * 1.15));
      }
      for (const n of nodes) {
        n.text.setAttribute("x", n.left ? -(n.r + 3) : n.r + 3);
        n.text.setAttribute("text-anchor", n.left ? "end" : "start");
      }
    }

    // --- interaction: select, drag nodes, pan the background, wheel zoom
    const toGraph = (ev) => {
      const r = svg.getBoundingClientRect();
      return [(ev.clientX - r.left - tx) / k, (ev.clientY - r.top - ty) / k];
    };
    let drag = null;
    svg.onpointerdown = (ev) => {
      const g = ev.target.closest && ev.target.closest("g.node");
      if (g) {
        const node = byId.get(g.dataset.id);
        drag = { node, moved: false };
        node.fixed = true;
      } else {
        drag = { pan: true, x: ev.clientX, y: ev.clientY, tx, ty };
      }
      svg.setPointerCapture(ev.pointerId);
    };
    svg.onpointermove = (ev) => {
      if (!drag) return;
      if (drag.node) {
        [drag.node.x, drag.node.y] = toGraph(ev);
        drag.moved = true;
        paint();
        reheat(0.1);
      } else {
        tx = drag.tx + ev.clientX - drag.x; ty = drag.ty + ev.clientY - drag.y;
        apply();
      }
    };
    svg.onpointerup = (ev) => {
      if (drag && drag.node) {
        drag.node.fixed = false;
        if (!drag.moved) select(drag.node);
      }
      drag = null;
      if (svg.hasPointerCapture(ev.pointerId)) svg.releasePointerCapture(ev.pointerId);
    };
    svg.onwheel = (ev) => {
      ev.preventDefault();
      const r = svg.getBoundingClientRect();
      const mx = ev.clientX - r.left, my = ev.clientY - r.top;
      const f = Math.exp(-ev.deltaY * 0.0015);
      tx = mx - (mx - tx) * f; ty = my - (my - ty) * f; k *= f;
      apply();
    };
    svg.onkeydown = (ev) => {
      const g = ev.target.closest && ev.target.closest("g.node");
      if (g && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); select(byId.get(g.dataset.id)); }
    };

    // --- search: matching nodes stay bright, the rest dim; returns the matches, best first
    function find(q) {
      q = String(q || "").trim().toLowerCase();
      const hits = q ? nodes.filter((n) => `${n.short || ""} ${n.label || ""} ${n.id}`.toLowerCase().includes(q)) : [];
      hits.sort((a, b) => b.deg - a.deg);
      const set = new Set(hits);
      for (const n of nodes) {
        n.el.classList.toggle("match", set.has(n));
        n.el.classList.toggle("dim", Boolean(q) && !set.has(n));
        n.el.classList.remove("selected");
      }
      for (const e of edges) e.el.classList.remove("hot");
      return hits;
    }

    function select(node) {
      const near = new Set([node]);
      for (const e of edges) {
        if (e.s === node) near.add(e.t);
        if (e.t === node) near.add(e.s);
      }
      for (const n of nodes) {
        n.el.classList.toggle("selected", n === node);
        n.el.classList.toggle("dim", !near.has(n));
      }
      for (const e of edges) e.el.classList.toggle("hot", e.s === node || e.t === node);
      if (opts.onSelect) opts.onSelect(node);
    }

    return { start, fit, declutter, find, select: (id) => byId.has(String(id)) && select(byId.get(String(id))), nodes, edges };
  }

  // Sections are the anchors: laid out in reading order on a grid with the frame's shape
  // (a snake, so neighbouring sections stay neighbours), and every other node starts beside
  // the sections it is linked to (a reference among the sections that cite it, a figure by
  // its section), so the layout fills the frame and groups references by where they are cited.
  function anchor(svg, nodes, edges) {
    const secs = nodes.filter((n) => n.kind === "section" || n.kind === "subsection");
    if (secs.length < 3) return;
    const r = svg.getBoundingClientRect();
    const aspect = (r.width || 800) / (r.height || 500);
    const cols = Math.max(1, Math.round(Math.sqrt(secs.length * aspect)));
    const rows = Math.ceil(secs.length / cols);
    const sx = 120, sy = rows > 1 ? Math.max(50, ((cols - 1) * sx) / ((rows - 1) * aspect)) : sx;
    secs.forEach((n, i) => {
      const row = Math.floor(i / cols), c = i % cols;
      const col = row % 2 ? cols - 1 - c : c;
      n.ax = (col - (cols - 1) / 2) * sx;
      n.ay = (row - (rows - 1) / 2) * sy;
      n.x = n.ax; n.y = n.ay;
    });
    const sum = new Map();
    for (const e of edges) {
      for (const [a, b] of [[e.s, e.t], [e.t, e.s]]) {
        if (a.ax === undefined || b.ax !== undefined) continue;
        const w = e.weight;
        const acc = sum.get(b) || { x: 0, y: 0, w: 0 };
        acc.x += a.ax * w; acc.y += a.ay * w; acc.w += w;
        sum.set(b, acc);
      }
    }
    let k = 0;
    for (const n of nodes) {
      if (n.ax !== undefined) continue;
      const acc = sum.get(n);
      const ang = 2.4 * k++, rad = 14 + 3 * Math.sqrt(k % 40);
      n.x = (acc ? acc.x / acc.w : 0) + rad * Math.cos(ang);
      n.y = (acc ? acc.y / acc.w : 0) + rad * Math.sin(ang);
    }
  }

  function short(s) {
    s = String(s || "");
    return s.length > 28 ? `${s.slice(0, 27)}…` : s;
  }

  window.CtxGraph = { draw, clear, color };
})();
