/* A small force-directed graph in SVG for the citation graph (no library, no CDN).
   CtxGraph.draw(svg, nodes, edges, {onSelect}) -> {start(), fit()}
   nodes: [{id, kind, label, ...}]; edges: [{source|from, target|to, kind|type}] */
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
    const nodes = nodesIn.map((n, i) => {
      const a = (2 * Math.PI * i) / Math.max(nodesIn.length, 1);
      const r = 40 + 6 * Math.sqrt(i);
      return { ...n, x: r * Math.cos(a), y: r * Math.sin(a), vx: 0, vy: 0, deg: 0, fixed: false };
    });
    const byId = new Map(nodes.map((n) => [String(n.id), n]));
    const edges = [];
    for (const e of edgesIn) {
      const s = byId.get(String(e.source ?? e.from));
      const t = byId.get(String(e.target ?? e.to));
      if (!s || !t || s === t) continue;
      edges.push({ s, t, kind: e.kind || e.type || "" });
      s.deg++; t.deg++;
    }
    const radius = (n) => (n.kind === "document" ? 10 : 3.5 + Math.min(7, Math.sqrt(n.deg) * 1.3));

    const view = mk("g", { class: "view" }, svg);
    const edgeLayer = mk("g", { class: "edges" }, view);
    const nodeLayer = mk("g", { class: "nodes" }, view);
    for (const e of edges) e.el = mk("line", { class: `edge ${e.kind}` }, edgeLayer);
    for (const n of nodes) {
      n.el = mk("g", { class: `node ${n.kind}`, tabindex: "0", "data-id": n.id }, nodeLayer);
      mk("circle", { r: radius(n), fill: color(n.kind) }, n.el);
      mk("title", {}, n.el).textContent = `${n.kind}: ${n.label}`;
      // Labels for the document and top-level sections; the rest appear when zoomed in.
      const major = n.kind === "document" || (n.kind === "section" && (n.level || 2) <= 2);
      mk("text", { x: radius(n) + 3, y: 4, class: major ? "label" : "label minor" }, n.el).textContent = short(n.label);
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
      const pad = 40;
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
        const dx = e.t.x - e.s.x, dy = e.t.y - e.s.y;
        const d = Math.sqrt(dx * dx + dy * dy) || 1;
        const f = (spring * (d - rest) * alpha) / d;
        e.s.vx += dx * f; e.s.vy += dy * f; e.t.vx -= dx * f; e.t.vy -= dy * f;
      }
      for (const a of nodes) {
        a.vx -= a.x * gravity * alpha; a.vy -= a.y * gravity * alpha;
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
      else { running = false; fit(); svg.dataset.settled = "1"; }
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

    return { start, fit, select: (id) => byId.has(String(id)) && select(byId.get(String(id))), nodes, edges };
  }

  function short(s) {
    s = String(s || "");
    return s.length > 28 ? `${s.slice(0, 27)}…` : s;
  }

  window.CtxGraph = { draw, clear, color };
})();
