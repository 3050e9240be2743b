/* ctxmill web page: submit a compile, follow its progress (SSE), show every output.
   Plain JS, no framework, nothing fetched from outside this server. */
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const STAGE_LABELS = {
  source: "read source", blocks: "blocks", normalize: "normalise", structure: "structure",
  metadata: "metadata", references: "references", figures: "figures", markdown: "Markdown", chunks: "chunks",
  citations: "citations", conservation: "words kept", quality: "QA checks", llm: "LLM (optional)", write: "write outputs",
};

const state = {
  file: null,       // the File chosen for upload, or null (then the text area is compiled)
  job: null,        // the finished job object from the API
  data: {},         // parsed outputs of the current job, by file name
  stages: [],       // expected stage names, from /api/config
  maxUpload: null,  // bytes, from /api/config: a larger file is refused before it is sent
  source: null,     // the EventSource of the running job
};

// ------------------------------------------------------------------------------ input

function chooseFile(file) {
  state.file = file;
  const chosen = $("#file-chosen");
  if (file) {
    chosen.hidden = false;
    chosen.textContent = `Selected: ${file.name} (${formatBytes(file.size)})`;
    $("#compile").textContent = `Compile ${file.name}`;
    $("#clear-file").hidden = false;
    $("#drop").classList.add("has-file");
  } else {
    chosen.hidden = true;
    $("#file").value = "";
    $("#compile").textContent = "Compile the text";
    $("#clear-file").hidden = true;
    $("#drop").classList.remove("has-file");
  }
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function setupInput() {
  const drop = $("#drop");
  const input = $("#file");
  drop.addEventListener("click", () => input.click());
  drop.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); } });
  input.addEventListener("change", () => chooseFile(input.files[0] || null));
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  for (const ev of ["dragleave", "drop"]) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.remove("over"); });
  }
  drop.addEventListener("drop", (e) => {
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) chooseFile(f);
  });
  $("#clear-file").addEventListener("click", () => chooseFile(null));
  $("#opt-fast").addEventListener("change", (e) => {
    $("#opt-chunks").disabled = e.target.checked;
    $("#opt-citations").disabled = e.target.checked;
  });
  $("#compile").addEventListener("click", submit);
  $("#cancel").addEventListener("click", cancel);
}

function formData() {
  const fd = new FormData();
  if (state.file) {
    fd.append("file", state.file, state.file.name);
  } else {
    // Sent as a file part: form text fields are capped at 1 MiB by the server's form parser.
    const text = $("#text");
    const name = text.value === text.defaultValue && $("#sample-name").dataset.name ? $("#sample-name").dataset.name : "pasted.txt";
    fd.append("file", new Blob([text.value], { type: "text/plain" }), name);
  }
  fd.append("fast", $("#opt-fast").checked);
  fd.append("chunks", $("#opt-chunks").checked);
  fd.append("citations", $("#opt-citations").checked);
  fd.append("include_source_text", $("#opt-source").checked);
  fd.append("ignore_pdf_links", $("#opt-ignore-links").checked);
  fd.append("chunk_tokens", $("#opt-chunk-tokens").value || "400");
  const url = $("#opt-llm-url").value.trim();
  if (url) {
    fd.append("llm_url", url);
    fd.append("llm_model", $("#opt-llm-model").value.trim());
    fd.append("llm_max_tokens", $("#opt-llm-max").value || "8192");
    const key = $("#opt-llm-key").value;
    if (key) fd.append("llm_api_key", key);
  }
  return fd;
}

async function submit() {
  const msg = $("#submit-msg");
  msg.textContent = "";
  msg.className = "msg";
  if (!state.file && !$("#text").value.trim()) {
    msg.textContent = "Paste some text or choose a file first.";
    msg.classList.add("bad");
    return;
  }
  if (state.file && state.maxUpload && state.file.size > state.maxUpload) {
    msg.textContent = `${state.file.name} is ${formatBytes(state.file.size)}, larger than the upload limit of ` +
      `${formatBytes(state.maxUpload)}; nothing was uploaded.`;
    msg.classList.add("bad");
    return;
  }
  if (state.source) { state.source.close(); state.source = null; }
  state.submits = (state.submits || 0) + 1;  // a reopen still loading must not take the page back
  $("#compile").disabled = true;
  clearResults();
  resetProgress();
  $("#progress").scrollIntoView({ block: "nearest" });
  let resp, body;
  try {
    resp = await fetch("/api/jobs", { method: "POST", body: formData() });
    body = await resp.json().catch(() => ({}));
  } catch (err) {
    showError(`Could not reach the server: ${err}`);
    $("#compile").disabled = false;
    return;
  }
  if (resp.status !== 202) {
    // plain words from the server; the status code stays in the JSON API
    showError(detail(body) || `The server could not take this file (${resp.statusText}).`);
    $("#compile").disabled = false;
    return;
  }
  history.replaceState(null, "", `?job=${body.id}`);  // a reload or a shared link comes back here
  follow(body);
  loadRecent();
}

// A job named in the URL: reopen it live, or show it finished.
async function reopen(id) {
  const submits = state.submits || 0;
  let resp;
  try { resp = await fetch(`/api/jobs/${encodeURIComponent(id)}`); } catch { return; }
  if ((state.submits || 0) !== submits) return;  // a new compile started while the job was asked for
  if (!resp.ok) {
    showError("That job is no longer on this server (finished jobs are kept for a while, and a restart " +
      "clears them). Compile the document again.");
    return;
  }
  const job = await resp.json();
  if ((state.submits || 0) !== submits) return;
  resetProgress();
  for (const st of job.stages || []) stageEvent({ stage: st.name, state: st.state, t: 0 });
  if (["done", "failed", "cancelled"].includes(job.status)) finished(job);
  else follow(job);
}

async function loadRecent() {
  let jobs = [];
  try { jobs = await (await fetch("/api/jobs")).json(); } catch { return; }
  const list = $("#recent-list");
  list.replaceChildren(...jobs.slice(0, 5).map((j) => el("li", {},
    el("a", { href: `?job=${j.id}`, text: j.name || j.id.slice(0, 8) }),
    el("span", { class: "muted", text: j.status }))));
  $("#recent").hidden = jobs.length === 0;
}

// The previous document's results leave the page when a new compile starts, fails or is cancelled.
function clearResults() {
  state.job = null;
  state.data = {};
  $("#results").classList.remove("ready");
  for (const id of ["panel-metadata", "panel-sections", "panel-qa", "panel-speed", "panel-download"]) {
    missing($(`#${id}`), "Compile a document to see this.");
  }
  const summary = $("#summary");
  if (summary) summary.replaceChildren();
  $("#doc-html").replaceChildren(el("p", { class: "muted", text: "Compile a document to see it here." }));
  $("#chunk-list").replaceChildren();
  $("#chunk-count").textContent = "";
  $("#chunk-more").hidden = true;
  $("#graph").replaceChildren();
  $("#graph-count").textContent = "";
  if (state.graphView && state.graphView.stop) state.graphView.stop();
  state.graphView = null;
  state.graphHidden = null; // a new job shows every kind of node again
  delete state.pageShare;
  $("#graph-search").value = "";
  $("#graph-found").textContent = "";
}

function detail(body) {
  if (!body) return "";
  if (typeof body.detail === "string") return body.detail;
  if (Array.isArray(body.detail)) return body.detail.map((d) => `${(d.loc || []).slice(-1)[0]}: ${d.msg}`).join("; ");
  return "";
}

// ------------------------------------------------------------------------------ progress

function resetProgress() {
  $("#progress").hidden = false;
  $("#error").hidden = true;
  $("#error").textContent = "";
  $("#bar-fill").style.width = "0%";
  $("#job-status").textContent = "submitting";
  $("#job-status").className = "status running";
  const list = $("#stages");
  list.replaceChildren();
  for (const name of state.stages) {
    list.append(el("li", { "data-stage": name, class: "pending" },
      el("span", { class: "dot" }), el("span", { class: "name", text: STAGE_LABELS[name] || name }),
      el("span", { class: "secs" })));
  }
}

function showError(text) {
  const box = $("#error");
  box.hidden = false;
  box.textContent = text;
  $("#job-status").textContent = "failed";
  $("#job-status").className = "status failed";
  $("#progress").hidden = false;
}

function stageEvent(ev) {
  let li = $(`#stages li[data-stage="${ev.stage}"]`);
  if (!li) {
    li = el("li", { "data-stage": ev.stage }, el("span", { class: "dot" }),
      el("span", { class: "name", text: STAGE_LABELS[ev.stage] || ev.stage }), el("span", { class: "secs" }));
    $("#stages").append(li);
  }
  li.className = ev.state === "done" ? "done" : "running";
  if (ev.state === "start") li.dataset.t0 = ev.t;
  if (ev.state === "done" && li.dataset.t0) {
    $(".secs", li).textContent = `${((ev.t - Number(li.dataset.t0)) * 1000).toFixed(0)} ms`;
  }
  if (ev.state === "done" && ev.stage === "source") delete state.pageShare;
  moveBar();
}

function moveBar() {
  const all = $$("#stages li");
  const done = all.filter((x) => x.classList.contains("done")).length + (state.pageShare || 0);
  $("#bar-fill").style.width = `${Math.round((100 * done) / Math.max(all.length, 1))}%`;
}

// Pages of a PDF read (and OCRed) so far, while "read source" runs: shown beside the stage,
// and the bar moves through the stage page by page.
function pagesEvent(ev) {
  const li = $('#stages li[data-stage="source"]');
  if (!li || li.classList.contains("done")) return;
  $(".secs", li).textContent = `${ev.what === "ocr" ? "OCR" : "page"} ${ev.done} of ${ev.total}`;
  li.dataset.pages = `${ev.what}:${ev.done}/${ev.total}`;
  // reading is the first half of the stage when OCR follows, else all of it
  state.pageShare = Math.min(0.99, ev.what === "ocr" ? 0.5 + ev.done / ev.total / 2 : ev.done / ev.total);
  moveBar();
}

function follow(job) {
  $("#job-status").textContent = job.status;
  $("#job-status").dataset.job = job.id;
  state.running = job;
  $("#cancel").hidden = false;
  const es = new EventSource(job.links.events);
  state.source = es;
  es.addEventListener("stage", (e) => stageEvent(JSON.parse(e.data)));
  es.addEventListener("pages", (e) => pagesEvent(JSON.parse(e.data)));
  es.addEventListener("status", (e) => {
    const ev = JSON.parse(e.data);
    $("#job-status").textContent = ev.status;
  });
  es.addEventListener("end", (e) => {
    es.close();
    state.source = null;
    finished(JSON.parse(e.data));
  });
  es.onerror = () => {
    // The stream broke (proxy, restart): fall back to polling the job.
    if (es.readyState === EventSource.CLOSED && state.source === es) {
      state.source = null;
      poll(job.links.self);
    }
  };
}

async function poll(url) {
  for (;;) {
    const resp = await fetch(url);
    if (!resp.ok) { showError(`lost the job (${resp.status})`); $("#compile").disabled = false; return; }
    const job = await resp.json();
    for (const st of job.stages) stageEvent({ stage: st.name, state: st.state, t: 0 });
    if (["done", "failed", "cancelled"].includes(job.status)) { finished(job); return; }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function cancel() {
  const job = state.running;
  if (!job) return;
  if (state.source) { state.source.close(); state.source = null; }
  await fetch(job.links.self, { method: "DELETE" }).catch(() => null);
  // the bar stays where the job stopped; the previous document's results go
  finished({ ...job, status: "cancelled", error_kind: "cancelled", error: "cancelled by you; its files are deleted" });
  loadRecent();
}

async function finished(job) {
  state.running = null;
  $("#cancel").hidden = true;
  $("#compile").disabled = false;
  if (job.status !== "done") {
    clearResults();
    $("#job-status").className = `status ${job.status}`;
    const what = { refused: "Refused", cancelled: "Cancelled", timeout: "Stopped" }[job.error_kind] || "Failed";
    showError(`${what}: ${job.error || "the compile failed"}`);
    $("#job-status").textContent = job.status;
    return;
  }
  $("#bar-fill").style.width = "100%";
  for (const li of $$("#stages li.pending")) li.className = "skipped";
  state.job = job;
  state.data = {};
  await loadOutputs(job);
  if (state.job !== job) return;  // a newer compile owns the page now
  // "done" only once every tab holds this job's outputs (the browser tests wait on it too)
  $("#job-status").textContent = job.status;
  $("#job-status").className = `status ${job.status}`;
  $("#progress").scrollIntoView({ block: "start" });
}

// ------------------------------------------------------------------------------ outputs

async function fetchText(name, job = state.job) {
  const url = job && job.links.files[name];
  if (!url) return null;
  const resp = await fetch(url);
  return resp.ok ? resp.text() : null;
}

async function fetchJSON(name, job = state.job) {
  const text = await fetchText(name, job);
  if (text === null) return null;
  try { return JSON.parse(text); } catch { return null; }
}

async function loadOutputs(job) {
  const [md, html, meta, sections, citations, graph, qa, metrics, chunksText, refs] = await Promise.all([
    fetchText("document.md", job),
    fetch(job.links.document_html).then((r) => (r.ok ? r.text() : null)),
    fetchJSON("metadata.json", job), fetchJSON("sections.json", job), fetchJSON("citations.json", job),
    fetchJSON("graph.json", job), fetchJSON("qa.json", job), fetchJSON("metrics.json", job),
    fetchText("chunks.jsonl", job), fetchJSON("references.json", job),
  ]);
  if (state.job !== job) return;  // another compile started (or a cancel cleared) while these loaded
  const chunks = chunksText === null ? null : chunksText.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  Object.assign(state.data, { md, html, meta, sections, citations, graph, qa, metrics, chunks, refs });
  renderSummary(job);
  renderDocument();
  renderMetadata();
  renderSections();
  renderChunks();
  renderGraph();
  renderQA();
  renderSpeed();
  renderDownload();
  $("#results").classList.add("ready");
}

function missing(panel, what) {
  panel.replaceChildren(el("p", { class: "muted", text: what }));
}

// Below 70 the QA report has found missing structure (docs/outputs.md, "Score"): red, not grey.
function qaClass(score) {
  return score >= 85 ? "good" : score >= 70 ? "warn" : "bad";
}

function renderSummary(job) {
  const s = job.summary || {};
  const parts = [
    el("strong", { class: "title", text: s.title || job.name || "untitled" }),
    el("span", { class: "stat", id: "stat-pages", text: `${s.pages} pages compiled` }),
  ];
  if (s.declared_pages && s.declared_pages > s.pages) parts.push(el("span", { class: "stat warn", text: `of ${s.declared_pages} declared` }));
  parts.push(el("span", { class: !s.sections && s.pages >= 4 ? "stat bad" : "stat", id: "stat-sections", text: `${s.sections} sections` }));
  if (state.data.chunks) parts.push(el("span", { class: "stat", text: `${s.chunks} chunks` }));
  if (state.data.refs) parts.push(el("span", { class: "stat", text: `${s.references} references` }));
  // the same counts as the CLI summary and metrics.json (ctxmill.counts): every callout, linked or not
  if (state.data.citations && s.citations !== undefined) {
    parts.push(el("span", { class: s.citations_unresolved ? "stat warn" : "stat", id: "stat-citations",
      text: `${s.citations} citations${s.citations_unresolved ? ` (${s.citations_unresolved} unresolved)` : ""}` }));
  }
  // QA in the colour of its verdict, so a failed compile never looks like a good one
  if (state.data.qa) {
    // red when QA found an error, whatever the score; amber for a middling score
    const errors = (state.data.qa.checks || []).filter((c) => c.severity === "error").length;
    parts.push(el("span", { class: `stat ${errors ? "bad" : qaClass(s.qa_score)}`, id: "stat-qa",
      title: errors ? "QA found errors: see the QA report tab" : "",
      text: `QA ${s.qa_score}/100${errors ? ` · ${errors} error${errors === 1 ? "" : "s"}` : ""}` }));
  }
  parts.push(el("span", { class: "stat", text: `${Number(s.seconds).toFixed(2)} s` }));
  if (job.files.includes("bundle.zip")) {
    parts.push(el("a", { class: "button primary", id: "download-top", href: job.links.bundle, download: "", text: "Download bundle" }));
  }
  $("#summary").replaceChildren(...parts);
}

// Document ---------------------------------------------------------------------

function renderDocument() {
  const { md, html } = state.data;
  $("#md-link").href = state.job.links.files["document.md"] || "#";
  $("#doc-raw").textContent = md || "";
  const art = $("#doc-html");
  art.innerHTML = html || "<p class='muted'>document.md was not produced.</p>"; // server-rendered, raw HTML escaped
  showRaw(false);
}

function showRaw(raw) {
  $("#doc-raw").hidden = !raw;
  $("#doc-html").hidden = raw;
  $("#md-raw").classList.toggle("on", raw);
  $("#md-rendered").classList.toggle("on", !raw);
}

// Jump to a place in document.md: {char_span?, section_id?, line?, page?}, most precise first.
function goTo(loc) {
  selectTab("document");
  showRaw(false);
  let target = null;
  let line = loc.line;
  const md = state.data.md || "";
  if (line === undefined && loc.char_span) line = md.slice(0, loc.char_span[0]).split("\n").length - 1;
  if (line === undefined && loc.section_id) target = document.getElementById(`sec-${loc.section_id}`);
  if (!target && line === undefined && loc.page) {
    const chunk = (state.data.chunks || []).find((c) => c.pages[0] <= loc.page && loc.page <= c.pages[1]);
    if (chunk) line = md.slice(0, chunk.char_span[0]).split("\n").length - 1;
    else {
      const sec = (state.data.sections || []).find((s) => s.page_start <= loc.page && loc.page <= s.page_end);
      if (sec) target = document.getElementById(`sec-${sec.id}`);
    }
  }
  if (!target && line !== undefined) {
    let best = null;
    for (const node of $$("#doc-html [data-line]")) {
      if (Number(node.dataset.line) <= line) best = node; else break;
    }
    target = best;
  }
  if (target) {
    target.scrollIntoView({ block: "center" });
    target.classList.remove("flash");
    void target.offsetWidth;
    target.classList.add("flash");
  }
}

// Metadata ---------------------------------------------------------------------

function renderMetadata() {
  const panel = $("#panel-metadata");
  const m = state.data.meta;
  if (!m) return missing(panel, "metadata.json was not produced.");
  const rows = [];
  const row = (k, v) => { if (v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length)) rows.push(el("dt", { text: k }), el("dd", {}, v)); };
  row("Authors", el("ul", { class: "authors" }, (m.authors || []).map((a) =>
    el("li", {}, el("strong", { text: a.name }),
      (a.affiliations || []).length ? el("span", { class: "muted", text: ` — ${a.affiliations.join("; ")}` }) : null,
      a.email ? el("span", {}, " ", el("a", { href: `mailto:${a.email}`, text: a.email })) : null))));
  row("Affiliations", (m.affiliations || []).length ? el("ol", {}, m.affiliations.map((x) => el("li", { text: x }))) : null);
  row("Abstract", m.abstract ? el("p", { class: "abstract", text: m.abstract }) : null);
  row("arXiv", m.arxiv_id || null);
  row("Categories", (m.categories || []).join(", "));
  row("Date", m.date || null);
  row("DOI", m.doi || null);
  row("Emails", (m.emails || []).join(", "));
  row("URLs", (m.urls || []).length ? el("ul", {}, m.urls.map((u) => el("li", {}, el("a", { href: u, target: "_blank", rel: "noopener noreferrer", text: u })))) : null);
  row("Pages", String(m.pages ?? ""));
  if (m.source) row("Source", `${m.source.kind || ""} ${m.source.path || ""} sha256 ${(m.source.sha256 || "").slice(0, 16)}…`);
  if (m.source && m.source.engine) row("OCR engine", m.source.engine);  // raw OCR text: who wrote it (issue 14)
  panel.replaceChildren(
    el("h2", { id: "meta-title", text: m.title || "(no title found)" }),
    el("dl", { class: "meta" }, rows),
    el("details", {}, el("summary", { text: "metadata.json" }), el("pre", { class: "raw", text: JSON.stringify(m, null, 2) })),
  );
}

// Sections ---------------------------------------------------------------------

function renderSections() {
  const panel = $("#panel-sections");
  const secs = state.data.sections;
  if (!secs) return missing(panel, "sections.json was not produced.");
  const list = el("ul", { class: "outline" }, secs.map((s) =>
    el("li", { style: `--lvl:${Math.max(0, s.level - 1)}`, "data-section": s.id },
      el("a", { href: `#sec-${s.id}`, onclick: (e) => { e.preventDefault(); goTo({ section_id: s.id }); } },
        el("span", { class: "num", text: s.number || "" }), " ", s.title),
      el("span", { class: "muted pages", text: s.page_start === s.page_end ? `p. ${s.page_start}` : `pp. ${s.page_start}–${s.page_end}` }))));
  panel.replaceChildren(el("p", { class: "muted", text: `${secs.length} sections` }), list);
}

// Chunks -----------------------------------------------------------------------

const CHUNK_PAGE = 50;
let chunkShown = CHUNK_PAGE;

function renderChunks() {
  const chunks = state.data.chunks;
  const list = $("#chunk-list");
  if (!chunks) {
    $("#chunk-count").textContent = "";
    $("#chunk-more").hidden = true;
    list.replaceChildren(el("p", { class: "muted", text: "No chunks: turned off (fast mode / no chunks) or not produced." }));
    return;
  }
  const kinds = [...new Set(chunks.map((c) => c.kind))].sort();
  const sel = $("#chunk-kind");
  sel.replaceChildren(el("option", { value: "", text: "all kinds" }), ...kinds.map((k) => el("option", { value: k, text: k })));
  chunkShown = CHUNK_PAGE;
  drawChunks();
}

function drawChunks() {
  const chunks = state.data.chunks || [];
  const q = $("#chunk-filter").value.trim().toLowerCase();
  const kind = $("#chunk-kind").value;
  const hits = chunks.filter((c) => (!kind || c.kind === kind) && (!q ||
    c.text.toLowerCase().includes(q) || c.section_path.join(" / ").toLowerCase().includes(q) ||
    (c.citations || []).some((r) => r.toLowerCase().includes(q))));
  $("#chunk-count").textContent = `${hits.length} of ${chunks.length} chunks`;
  const refs = new Map((state.data.refs || []).map((r) => [r.id, r]));
  $("#chunk-list").replaceChildren(...hits.slice(0, chunkShown).map((c) => el("article", { class: "chunk", "data-chunk": c.id },
    el("header", {},
      el("span", { class: "badge", text: c.kind }),
      el("span", { class: "tokens", text: `${c.tokens} tokens` }),
      el("span", { class: "pages", text: c.pages[0] === c.pages[1] ? `p. ${c.pages[0]}` : `pp. ${c.pages[0]}–${c.pages[1]}` }),
      el("a", { href: "#", class: "path", onclick: (e) => { e.preventDefault(); goTo({ char_span: c.char_span }); }, text: c.section_path.join(" › ") || "(front matter)" }),
      el("code", { class: "muted id", text: c.id })),
    c.context ? el("p", { class: "context", text: `${c.context_llm ? "LLM-written context" : "context"}: ${c.context}` }) : null,
    el("pre", { class: "chunk-text", text: c.text }),
    (c.citations || []).length ? el("footer", {}, "cites ", c.citations.map((r) =>
      el("span", { class: "cite", title: `${r}: ${(refs.get(r) || {}).raw || ""}`, text: refLabel(refs.get(r), r),
        onclick: () => showInGraph(r) }))) : null)));
  $("#chunk-more").hidden = hits.length <= chunkShown;
}

// "Okafor et al. 2023" for a reference, its id when it has no parsed authors.
function refLabel(ref, id) {
  if (!ref || !(ref.authors || []).length) return id;
  const surname = (a) => a.replace(/,.*$/, "").trim().split(/\s+/).slice(-1)[0];
  const a = ref.authors;
  const who = a.length === 1 ? surname(a[0]) : a.length === 2 ? `${surname(a[0])} & ${surname(a[1])}` : `${surname(a[0])} et al.`;
  return ref.year ? `${who} ${ref.year}` : who;
}

function showInGraph(id) {
  if (!state.graphView) return;
  selectTab("graph");
  state.graphView.select(id);
}

// Citation graph ---------------------------------------------------------------

function renderGraph() {
  const g = state.data.graph;
  if (!g) {
    $("#graph-count").textContent = "No citation graph: turned off (fast mode / no citation graph) or not produced.";
    window.CtxGraph.clear($("#graph"));
    return;
  }
  const all = g.nodes || [];
  const allEdges = g.edges || g.links || [];
  // the kinds switched off in the legend (kept across re-draws of the same job's graph)
  const hidden = state.graphHidden || (state.graphHidden = new Set());
  const nodes = all.filter((n) => !hidden.has(nodeKind(n)));
  const shown = new Set(nodes.map((n) => String(n.id)));
  const edges = allEdges.filter((e) => shown.has(String(e.source ?? e.from)) && shown.has(String(e.target ?? e.to)));
  $("#graph-count").textContent = nodes.length === all.length ? `${nodes.length} nodes, ${edges.length} edges`
    : `${nodes.length} of ${all.length} nodes, ${edges.length} edges`;
  $("#graph-count").dataset.nodes = nodes.length;
  const counts = new Map();
  for (const n of all) counts.set(nodeKind(n), (counts.get(nodeKind(n)) || 0) + 1);
  $("#graph-legend").replaceChildren(...[...counts].map(([k, c]) => el("button", {
    class: "key", type: "button", "data-kind": k, "aria-pressed": String(!hidden.has(k)),
    title: `${hidden.has(k) ? "Show" : "Hide"} ${k} nodes`,
    onclick: () => { hidden.has(k) ? hidden.delete(k) : hidden.add(k); renderGraph(); },
  }, el("i", { style: `background:${window.CtxGraph.color(k)}` }), `${k} ${c}`)));
  const refs = new Map((state.data.refs || []).map((r) => [r.id, r]));
  state.graphView = window.CtxGraph.draw($("#graph"), nodes.map((n) => {
    const kind = nodeKind(n), label = nodeLabel(n);
    return { ...n, kind, label, short: shortLabel({ ...n, kind, label }, refs.get(n.id)) };
  }), edges, { onSelect: showNode });
  // Lay out only when the tab is visible (a hidden SVG has no size).
  if (!$("#panel-graph").hidden) state.graphView.start();
  findInGraph();
}

// The search box: matching nodes stay bright (the rest dim); Enter opens the best match.
function findInGraph(open = false) {
  const q = $("#graph-search").value;
  if (!state.graphView) return;
  const hits = state.graphView.find(q);
  $("#graph-found").textContent = q.trim() ? `${hits.length} found` : "";
  if (open && hits.length) state.graphView.select(hits[0].id);
}

function nodeKind(n) { return n.kind || n.type || "node"; }
function nodeLabel(n) { return n.label || n.title || n.name || n.id; }

// What the graph prints beside a node: short enough to sit beside its neighbours, and
// readable on its own. A reference's graph label can be just a year ("2020") or the start
// of its raw text, so it is rebuilt from references.json: "[4] Arlitt et al. 1997" --
// the printed number, first author's surname, year -- or the title when there are no authors.
function shortLabel(n, ref) {
  const cut = (t, m) => (t.length > m ? `${t.slice(0, m - 1).trimEnd()}…` : t);
  if (n.kind === "document") return cut(n.label, 32);
  if (n.kind !== "reference" || !ref) return cut(n.label, 26);
  const num = (ref.raw || "").match(/^\s*\[(\w{1,6})\]/);
  const authors = ref.authors || [];
  let who = "";
  if (authors.length) {
    const parts = authors[0].replace(/,.*$/, "").trim().split(/\s+/).filter((w) => !/^(jr\.?|sr\.?|ii|iii)$/i.test(w));
    who = parts[parts.length - 1] + (authors.length > 2 ? " et al." : authors.length === 2 ? " & " + authors[1].trim().split(/\s+/).pop() : "");
  } else if (ref.title) {
    who = cut(ref.title, 18);
  } else {
    who = cut((ref.raw || n.label).replace(/^\s*\[\w{1,6}\]\s*/, ""), 18);
  }
  return cut([num ? `[${num[1]}]` : "", who, ref.year || ""].filter(Boolean).join(" "), 26);
}

// Where a node is: the pages it covers (document), the page it starts on, or for a
// reference the page of the bibliography that lists it.
function nodePage(node, ref) {
  if (node.kind === "document") {
    const p = (state.job && state.job.summary && state.job.summary.pages) || 0;
    return p ? `pp. 1–${p}` : "—";
  }
  const page = node.page || (ref && ref.page);
  if (!page) return "page not known";
  return node.kind === "reference" ? `listed on p. ${page}` : `p. ${page}`;
}

// The labelled fields of a reference (references.json): who, what, where, and its identifiers.
function refFields(ref) {
  const people = (ref.people || []).map((p) => p.literal || [p.given, p.family].filter(Boolean).join(" ")).filter(Boolean);
  const where = [ref.container, ref.volume && `${ref.volume}${ref.issue ? `(${ref.issue})` : ""}`,
    ref.pages && `pp. ${ref.pages}`, ref.publisher].filter(Boolean).join(", ");
  const rows = [
    ["Authors", people.join("; ")], ["Title", ref.title], ["In", where], ["Year", ref.year],
  ].filter(([, v]) => v);
  const links = [];
  if (ref.doi) links.push(el("a", { href: `https://doi.org/${ref.doi}`, target: "_blank", rel: "noopener", text: `doi:${ref.doi}` }));
  if (ref.arxiv_id) links.push(el("a", { href: `https://arxiv.org/abs/${ref.arxiv_id}`, target: "_blank", rel: "noopener", text: `arXiv:${ref.arxiv_id}` }));
  return el("div", { class: "ref-fields small", id: "ref-fields" },
    el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })])),
    links.length ? el("p", {}, ...links.flatMap((a, i) => (i ? [" · ", a] : [a]))) : null,
    ref.doubtful ? el("p", { class: "badge warn", title: ref.doubtful, text: `doubtful parse: ${ref.doubtful}` }) : null);
}

function showNode(node) {
  const info = $("#graph-info");
  info.classList.add("open"); // on a phone the panel slides over the graph
  const cit = state.data.citations || {};
  const mentions = (cit.mentions || []).filter((m) => (m.reference_ids || []).includes(node.id));
  const crossrefs = (cit.crossrefs || []).filter((c) => c.target_id === node.id);
  const callouts = [...mentions, ...crossrefs];
  const ref = (state.data.refs || []).find((r) => r.id === node.id);
  const secTitle = new Map((state.data.sections || []).map((s) => [s.id, `${s.number ? s.number + " " : ""}${s.title}`]));
  // replaceChildren() would print a null as "null": absent parts are filtered out first
  info.replaceChildren(...[
    el("button", { class: "close-info", type: "button", "aria-label": "Close", text: "×",
      onclick: () => info.classList.remove("open") }),
    el("h3", { id: "node-label", text: node.kind === "reference" && node.short ? node.short : node.label }),
    el("p", { class: "node-where" }, el("span", { class: "badge", id: "node-kind", text: node.kind }), " ",
      el("code", { class: "muted", text: node.id }), " ", el("span", { class: "muted", id: "node-page", text: nodePage(node, ref) })),
    node.title && node.title !== node.label ? el("p", { text: node.title }) : null,
    node.caption ? el("p", { class: "small", text: node.caption }) : null,
    ref ? el("p", { class: "small muted", text: ref.raw }) : null,
    ref ? refFields(ref) : null,
    el("p", { id: "callout-count", text: `${callouts.length} callout${callouts.length === 1 ? "" : "s"}` }),
    el("ul", { class: "callouts" }, callouts.map((c) => el("li", {},
      el("a", { href: "#", onclick: (e) => { e.preventDefault(); goTo({ char_span: c.char_span, section_id: c.section_id, page: c.page }); } }, `“${c.text}”`),
      el("span", { class: "muted", text: ` p. ${c.page}${c.section_id && secTitle.has(c.section_id) ? " · " + secTitle.get(c.section_id) : ""}` })))),
  ].filter(Boolean));
}

// QA ---------------------------------------------------------------------------

function renderQA() {
  const panel = $("#panel-qa");
  const qa = state.data.qa;
  if (!qa) return missing(panel, "qa.json was not produced.");
  const order = ["error", "warning", "info"];
  const groups = order.map((sev) => [sev, (qa.checks || []).filter((c) => c.severity === sev)]);
  const scoreClass = qaClass(qa.score);
  panel.replaceChildren(
    el("div", { class: `score ${scoreClass}`, id: "qa-score" }, el("strong", { text: String(qa.score) }), el("span", { text: "/ 100" })),
    el("p", {}, el("a", { href: state.job.links.files["qa.md"] || "#", target: "_blank", text: "qa.md" })),
    ...groups.map(([sev, checks]) => el("section", { class: `qa-group ${sev}` },
      el("h3", { text: `${sev} (${checks.length})` }),
      checks.length ? el("ul", {}, sameChecks(checks).map((same) => same.length === 1
        ? el("li", {}, el("code", { class: "muted", text: same[0].id }), " ", same[0].message, " ", locationLink(same[0].location))
        // a finding repeated on many pages is one line with a count; its places fold out
        : el("li", { class: "qa-repeated", "data-id": same[0].id },
          el("details", {}, el("summary", {}, el("code", { class: "muted", text: same[0].id }), " ",
            el("span", { class: "badge", text: `×${same.length}` }), " ", same[0].message),
          el("ul", {}, same.map((c) => el("li", {}, c.message, " ", locationLink(c.location))))))))
        : el("p", { class: "muted", text: "none" }))),
  );
}

// QA checks of one severity grouped by their id, in the order each id first appears.
function sameChecks(checks) {
  const by = new Map();
  for (const c of checks) {
    if (!by.has(c.id)) by.set(c.id, []);
    by.get(c.id).push(c);
  }
  return [...by.values()];
}

// A QA location as a link to its place: text spans and sections in the document,
// references in the graph; page ranges (e.g. missing pages) are only described.
function locationLink(loc) {
  if (!loc) return null;
  const parts = [];
  if (loc.page) parts.push(`p. ${loc.page}`);
  if (loc.pages) parts.push(`pp. ${loc.pages[0]}–${loc.pages[loc.pages.length - 1]}`);
  if (loc.section_id) {
    const s = (state.data.sections || []).find((x) => x.id === loc.section_id);
    parts.push(s ? `§ ${s.number ? s.number + " " : ""}${s.title}` : loc.section_id);
  }
  if (!loc.page && !loc.section_id && loc.char_span) parts.push(`chars ${loc.char_span[0]}–${loc.char_span[1]}`);
  const refs = loc.reference_ids || (loc.reference_id ? [loc.reference_id] : []);
  const nodes = [];
  if (loc.char_span || loc.section_id || loc.page) {
    nodes.push(el("a", { href: "#", class: "loc", onclick: (e) => { e.preventDefault(); goTo(loc); } }, `→ ${parts.join(" · ")}`));
  } else if (parts.length) {
    nodes.push(el("span", { class: "muted", text: `(${parts.join(" · ")})` }));
  }
  if (state.graphView) {
    for (const r of refs.slice(0, 12)) {
      nodes.push(" ", el("a", { href: "#", class: "loc ref", onclick: (e) => { e.preventDefault(); showInGraph(r); } }, `→ ${r}`));
    }
  }
  return nodes.length ? el("span", {}, " ", ...nodes) : null;
}

// Speed ------------------------------------------------------------------------

function renderSpeed() {
  const panel = $("#panel-speed");
  const m = state.data.metrics;
  if (!m) return missing(panel, "metrics.json was not produced.");
  const stages = Object.entries(m.stages || {}).map(([name, v]) => [name, typeof v === "number" ? v : v.seconds]);
  const max = Math.max(...stages.map(([, s]) => s), 1e-6);
  const W = 640, rowH = 24, left = 120, right = 90;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${stages.length * rowH + 10}`);
  svg.setAttribute("class", "bars");
  svg.setAttribute("id", "speed-chart");
  stages.forEach(([name, secs], i) => {
    const y = i * rowH + 5;
    const w = Math.max(1, ((W - left - right) * secs) / max);
    const mk = (tag, attrs, text) => {
      const n = document.createElementNS("http://www.w3.org/2000/svg", tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
      if (text) n.textContent = text;
      svg.append(n);
      return n;
    };
    mk("text", { x: left - 8, y: y + 15, "text-anchor": "end", class: "lbl" }, STAGE_LABELS[name] || name);
    mk("rect", { x: left, y: y + 3, width: w, height: rowH - 8, rx: 3, class: "bar" }).append(
      Object.assign(document.createElementNS("http://www.w3.org/2000/svg", "title"), { textContent: `${name}: ${secs.toFixed(4)} s` }));
    mk("text", { x: left + w + 6, y: y + 15, class: "val" }, fmtSecs(secs));
  });
  const facts = [
    ["total", fmtSecs(m.total_seconds)], ["pages", m.pages], ["pages/s", Number(m.pages_per_second).toFixed(1)],
    ["input chars", Number(m.input_chars).toLocaleString()], ["chunks", m.chunks],
  ];
  if (m.llm) {
    facts.push(["LLM calls", m.llm.calls], ["LLM tokens in / out", `${m.llm.prompt_tokens ?? 0} / ${m.llm.completion_tokens ?? 0}`],
      ["LLM tokens/s", Number(m.llm.tokens_per_second || 0).toFixed(1)]);
  }
  panel.replaceChildren(
    el("dl", { class: "facts" }, facts.map(([k, v]) => el("div", {}, el("dt", { text: k }), el("dd", { text: String(v) })))),
    el("h3", { text: "Seconds per stage" }), svg,
  );
}

function fmtSecs(s) { return s < 1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`; }

// Download ---------------------------------------------------------------------

function renderDownload() {
  const job = state.job;
  const files = Object.entries(job.links.files);
  $("#panel-download").replaceChildren(
    job.files.includes("bundle.zip")
      ? el("a", { class: "button primary big", id: "download-bundle", href: job.links.bundle, download: "", text: "Download bundle.zip" })
      : el("p", { class: "muted", text: "No bundle.zip was written." }),
    el("h3", { text: "Each file" }),
    el("ul", { class: "files" }, files.map(([name, url]) => el("li", {}, el("a", { href: url, target: "_blank", text: name })))),
    el("p", { class: "muted small", text: `Kept on the server for a limited time. API: ${job.links.self}` }),
  );
}

// Search -----------------------------------------------------------------------

// A local server started without an index: index a folder typed here (progress polled from
// GET /api/index), then the search form opens on it.
function setupIndexing(searchForm) {
  const form = $("#index-form");
  form.hidden = false;
  const note = $("#index-progress");
  async function poll() {
    const st = await (await fetch("/api/index")).json();
    if (st.state === "running") {
      note.textContent = st.total ? `indexing ${st.root}: ${st.done} of ${st.total} files…` : `indexing ${st.root}: reading the folder…`;
      setTimeout(poll, 300);
    } else if (st.state === "done") {
      note.textContent = "";
      form.hidden = true;
      searchForm.dataset.root = st.root;
      $("#search-note").textContent = `Index: ${st.root} (${st.files_scanned} files, ${st.chunks_total} chunks, ${fmtSecs(st.seconds)})`;
      for (const x of $$("input, button", searchForm)) x.disabled = false;
      $("#search-q").focus();
    } else if (st.state === "failed") {
      note.textContent = `Could not index ${st.root}: ${st.error}`;
      $("#index-start").disabled = false;
    }
  }
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    $("#index-start").disabled = true;
    note.textContent = "starting…";
    const resp = await fetch("/api/index", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ folder: $("#index-folder").value }) });
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) { note.textContent = detail(body) || resp.statusText; $("#index-start").disabled = false; return; }
    poll();
  });
}

function setupSearch() {
  const form = $("#search-form");
  const root = form.dataset.root;
  const local = Boolean($("#index-form").dataset.allowed);
  $("#search-note").textContent = root
    ? `Index: ${root}`
    : local ? "No index on this server yet. Type a folder on this computer to index it, then search it."
      : "No index on this server. Start it with `ctxmill serve --index PATH` (after `ctxmill index PATH`) to search.";
  if (!root) for (const x of $$("input, button", form)) x.disabled = true;
  if (!root && local) setupIndexing(form);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const params = new URLSearchParams({ q: $("#search-q").value, k: $("#search-k").value || "10" });
    const prefix = $("#search-path").value.trim();
    if (prefix) params.set("path", prefix);
    const out = $("#search-hits");
    out.replaceChildren(el("p", { class: "muted", text: "searching…" }));
    const resp = await fetch(`/api/search?${params}`);
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) { out.replaceChildren(el("p", { class: "error-box", text: detail(body) || resp.statusText })); return; }
    if (!body.hits.length) { out.replaceChildren(el("p", { class: "muted", text: "no hits" })); return; }
    out.replaceChildren(el("p", { class: "muted", text: `${body.hits.length} hits in ${fmtSecs(body.seconds)}` }),
      ...body.hits.map((h) => el("article", { class: "hit" },
        el("header", {}, el("code", { class: "path", text: `${h.path}:${h.start_line}-${h.end_line}` }), " ",
          h.symbol ? el("strong", { text: h.symbol }) : null, " ",
          el("span", { class: "badge", text: h.kind || "" }), " ",
          el("span", { class: "muted", text: `score ${Number(h.score).toFixed(3)}` })),
        codeWithLines(h.text || "", h.start_line || 1))));
  });
}

function codeWithLines(text, first) {
  const lines = text.replace(/\n$/, "").split("\n");
  return el("pre", { class: "code" }, lines.map((line, i) =>
    el("span", { class: "ln-row" }, el("span", { class: "ln", text: String(first + i) }), el("span", { text: line + "\n" }))));
}

// Tabs -------------------------------------------------------------------------

function selectTab(name) {
  for (const b of $$(".tabs [role=tab]")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
  for (const p of $$(".panel")) p.hidden = p.id !== `panel-${name}`;
  if (name === "graph" && state.graphView) state.graphView.start();
}

function setupTabs() {
  for (const b of $$(".tabs [role=tab]")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("#md-raw").addEventListener("click", () => showRaw(true));
  $("#md-rendered").addEventListener("click", () => showRaw(false));
  $("#chunk-filter").addEventListener("input", () => { chunkShown = CHUNK_PAGE; drawChunks(); });
  $("#chunk-kind").addEventListener("change", () => { chunkShown = CHUNK_PAGE; drawChunks(); });
  $("#chunk-more").addEventListener("click", () => { chunkShown += CHUNK_PAGE; drawChunks(); });
  $("#graph-fit").addEventListener("click", () => state.graphView && state.graphView.fit());
  $("#graph-search").addEventListener("input", () => findInGraph());
  $("#graph-search").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); findInGraph(true); } });
}

async function init() {
  // the job named in the URL, read before any wait: a compile started while the settings load
  // replaces it, and that compile owns the page (the reopen must not take it back)
  const jobId = new URLSearchParams(location.search).get("job");
  const submits = state.submits || 0;
  setupInput();
  setupTabs();
  setupSearch();
  try {
    const cfg = await (await fetch("/api/config")).json();
    state.stages = cfg.stages || [];
    state.maxUpload = cfg.max_upload_bytes || null;
  } catch { state.stages = []; }
  $("#results").hidden = false;
  for (const id of ["panel-metadata", "panel-sections", "panel-qa", "panel-speed", "panel-download"]) {
    missing($(`#${id}`), "Compile a document to see this.");
  }
  $("#doc-html").replaceChildren(el("p", { class: "muted", text: "Compile a document to see it here. The text box opens with our sample." }));
  loadRecent();
  if (jobId && (state.submits || 0) === submits) reopen(jobId);
}

document.addEventListener("DOMContentLoaded", init);
