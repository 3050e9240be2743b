"""The web page and its JSON API: ``create_app()`` returns a FastAPI app.

A thin surface (DESIGN.md): it takes an upload or pasted text, hands it to a
:class:`~ctxmill.web.jobs.JobStore` (one child process per compile), streams the progress,
and serves the files ``write_outputs`` wrote. The only thing computed here is the HTML view
of ``document.md`` (markdown-it-py, raw HTML disabled, so uploaded text cannot inject markup).
The page itself is plain HTML/JS/CSS from ``static/``: nothing is fetched from the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import importlib.util
import json
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles

from ctxmill.web.jobs import JOB_TIMEOUT_S, JOB_TTL_S, MAX_JOBS, STAGE_ORDER, WORKERS, Job, JobStore

log = logging.getLogger("ctxmill.web")

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "samples"

# The page may load and connect to nothing but this server (uploaded Markdown cannot make
# it fetch from elsewhere); inline style attributes are used for the outline's indents.
PAGE_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")

MEDIA_TYPES = {
    ".md": "text/markdown; charset=utf-8",
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".graphml": "application/xml",
    ".zip": "application/zip",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
}


# ------------------------------------------------------------------------------ helpers


def find_sample() -> Path | None:
    """The bundled sample document (ctxmill.samples.sample_path(), else the first text file there)."""
    try:
        from ctxmill.samples import sample_path

        path = sample_path()
        if path.is_file():
            return path
    except ImportError:
        pass
    if not SAMPLES.is_dir():
        return None
    files = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix.lower() in (".txt", ".md"))
    return files[0] if files else None


def display_name(name: str | None) -> str:
    """A harmless label for an uploaded file name: shown and recorded, never used as a path."""
    if not name:
        return ""
    base = PurePosixPath(name.replace("\\", "/")).name
    return re.sub(r"[^\w.\- ]", "_", base)[:120].strip(". ") or ""


def sniff(data: bytes, filename: str, content_type: str | None) -> str:
    """'pdf', 'image' or 'text' from the bytes themselves; HTTP 415 with what the file is
    (in plain words, for the page to show as it is) when it is none of them."""
    from ctxmill.errors import InputRefused
    from ctxmill.sources import decode_text, holds_pdf_objects
    from ctxmill.sources.filetype import READS, identify

    kind, what = identify(data, filename)
    declared_pdf = filename.lower().endswith(".pdf") or (content_type or "").split(";")[0].strip() in (
        "application/pdf", "application/x-pdf")
    # a PDF whose first bytes were lost or overwritten still holds its objects: the compiler
    # reads it (and rebuilds it if need be), as `ctxmill compile` does
    if kind == "unsupported" and not (declared_pdf and holds_pdf_objects(data)):
        raise HTTPException(415, what[0].upper() + what[1:] + ".")
    if kind in ("pdf", "image"):
        return kind
    if declared_pdf:
        if holds_pdf_objects(data):
            return "pdf"
        raise HTTPException(415, f"This file is named as a PDF but is not one (it does not start with %PDF-). {READS}.")
    if b"\x00" in data[:65536] and data[:2] not in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 text has NULs
        try:  # (lines of UTF-16 among others: the compiler decodes them line by line)
            decode_text(data, filename)
        except InputRefused:
            raise HTTPException(415, f"This file is binary data of a kind ctxmill does not know. {READS}.") from None
    return "text"  # UTF-8, UTF-16 or a legacy 8-bit encoding: the compiler decodes it (or says why not)


class BodyLimit:
    """Pure ASGI middleware: 413 for request bodies over ``limit`` bytes, before parsing them.

    Checks Content-Length first and also counts streamed (chunked) bodies, so an upload is
    refused without being spooled to disk in full.
    """

    def __init__(self, app, limit: int, message: str) -> None:
        self.app = app
        self.limit = limit
        self.message = message

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT"):
            return await self.app(scope, receive, send)
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() and int(value) > self.limit:
                return await self._refuse(send)
        seen = 0
        started = False
        too_large = False

        class TooLarge(Exception):
            pass

        async def counting_receive():
            nonlocal seen, too_large
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    too_large = True
                    raise TooLarge
            return msg

        async def guarded_send(msg):
            # The form parser may turn our TooLarge into its own 400: answer 413 instead.
            nonlocal started
            if too_large:
                if msg["type"] == "http.response.start" and not started:
                    started = True
                    await self._refuse(send)
                return
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except TooLarge:
            if not started:
                await self._refuse(send)

    async def _refuse(self, send):
        body = json.dumps({"detail": self.message}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"connection", b"close"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class _MCPNoSlash:
    """``POST /mcp`` (the URL clients are told) is served as ``/mcp/``: a mounted app would
    answer it with a 307 redirect, which some MCP clients do not follow for a POST."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope.get("path") == "/mcp":
            scope = {**scope, "path": "/mcp/", "raw_path": b"/mcp/"}
        await self.app(scope, receive, send)


def _norm(text: str) -> str:
    text = re.sub(r"[*_`$\\]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def render_math(latex: str, opts: dict[str, Any]) -> str:
    """$...$ and $$...$$ as MathML, which Chromium, Firefox and Safari render natively, made
    here on the server (latex2mathml): nothing to download, no script. The LaTeX stays in the
    element's ``data-latex`` (and its tooltip); what the converter cannot read is shown raw."""
    display = bool(opts.get("display_mode"))
    try:
        from latex2mathml.converter import convert

        mathml = convert(latex, display="block" if display else "inline")
    except Exception:  # an OCR-garbled formula, a macro it does not know
        return f'<code class="math-raw">{html.escape(latex)}</code>'
    tag = "div" if display else "span"
    src = html.escape(latex, quote=True)
    return f'<{tag} class="math{" display" if display else ""}" data-latex="{src}" title="{src}">{mathml}</{tag}>'


def _anchor(ref_id: str) -> str:
    """The HTML id of a reference entry: references.json ids already read 'ref-N'."""
    return html.escape(ref_id if ref_id.startswith("ref-") else f"ref-{ref_id}", quote=True)


def _outside_tag(doc: str, pos: int) -> bool:
    return doc.rfind("<", 0, pos) <= doc.rfind(">", 0, pos)


def link_citations(doc: str, markdown: str, mentions: list[dict[str, Any]], references: list[dict[str, Any]]) -> str:
    """Callouts in the rendered document become links to their reference entry (the entry's
    text as the tooltip), and each entry gets its id (``ref-N``) as anchor. A callout is found from
    its ``char_span`` in document.md: its line leads to the rendered block (``data-line``) that
    holds it, and the callout's text is looked up from there; an entry is the first place its
    own opening words appear."""
    import bisect
    import re

    line_starts = [0] + [m.end() for m in re.finditer("\n", markdown)]
    blocks = sorted((int(m.group(1)), m.start()) for m in re.finditer(r'data-line="(\d+)"', doc))
    block_lines = [b[0] for b in blocks]

    def html_block(char: int) -> tuple[int, int]:
        """Where the rendered block holding document.md's ``char`` starts and ends."""
        line = bisect.bisect_right(line_starts, char) - 1
        i = bisect.bisect_right(block_lines, line) - 1
        return (blocks[i][1] if i >= 0 else 0), (blocks[i + 1][1] if i + 1 < len(blocks) else len(doc))

    inserts: list[tuple[int, int, str, str]] = []  # (start, end, before, after)
    anchored: set[str] = set()
    for ref in references:
        rid, raw = ref.get("id"), (ref.get("raw") or "").strip()
        if not rid or len(raw) < 12:
            continue
        needle = html.escape(raw[:48], quote=False)
        at = doc.find(needle)
        while at >= 0 and not _outside_tag(doc, at):
            at = doc.find(needle, at + 1)
        if at >= 0:
            inserts.append((at, at, f'<span class="ref-anchor" id="{_anchor(rid)}"></span>', ""))
            anchored.add(rid)
    by_id = {r.get("id"): (r.get("raw") or "") for r in references}
    cursor = 0
    for m in sorted(mentions, key=lambda m: (m.get("char_span") or [0])[0]):
        ids = [i for i in m.get("reference_ids") or [] if i in anchored]
        text = m.get("text") or ""
        if not ids or not text:
            continue
        needle = html.escape(text, quote=False)
        span = m.get("char_span")
        lo, hi = html_block(span[0]) if span else (cursor, len(doc))
        at = doc.find(needle, max(cursor, lo), hi)
        while at >= 0 and not _outside_tag(doc, at):
            at = doc.find(needle, at + 1, hi)
        if at < 0:  # the callout's text is split by markup there: left as text
            continue
        tip = html.escape(" | ".join(by_id[i][:300] for i in ids), quote=True)
        inserts.append((at, at + len(needle), f'<a class="cite" href="#{_anchor(ids[0])}" title="{tip}">', "</a>"))
        cursor = at + len(needle)
    if not inserts:
        return doc
    inserts.sort()
    out, pos = [], 0
    for s, e, before, after in inserts:
        if s < pos:  # overlaps an earlier insert: leave this one out
            continue
        out.append(doc[pos:s])
        out.append(before + doc[s:e] + after)
        pos = e
    out.append(doc[pos:])
    return "".join(out)


def render_markdown(markdown: str, sections: list[dict[str, Any]], files: str | None = None,
                    figures: set[str] | frozenset[str] = frozenset()) -> str:
    """document.md as HTML: headings get ``id="sec-<section id>"`` (matched to sections.json in
    reading order) and top-level blocks ``data-line`` (0-based line in document.md) so the QA
    report and the outline can link to their place. Figure crops the job wrote (``figures``,
    served under the URL prefix ``files``) become pictures with their caption below."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    md = (MarkdownIt("commonmark", {"html": False, "linkify": False})
          .enable("table").enable("strikethrough")
          .use(footnote_plugin).use(dollarmath_plugin, renderer=render_math,
                                    label_renderer=lambda label: f'<span class="eqno">({html.escape(label)})</span>'))
    # Other images in document.md point at files we do not have (OCR placeholders) or at other
    # sites: show the alt text instead of an <img> the browser would try to fetch.
    def image(renderer, tokens, idx, options, env):
        alt = html.escape(renderer.renderInlineAsText(tokens[idx].children or [], options, env))
        src = tokens[idx].attrGet("src") or ""
        if files is not None and src in figures:
            url = html.escape(files + src)
            anchor = html.escape(Path(src).stem)
            return (f'<span class="figure" id="{anchor}"><a href="{url}" target="_blank" rel="noopener">'
                    f'<img src="{url}" alt="{alt}" loading="lazy"></a>'
                    f'<span class="figcaption">{alt}</span></span>')
        return f'<span class="img-placeholder" title="image not included">{alt or "image"}</span>'

    md.add_render_rule("image", image)
    tokens = md.parse(markdown)
    pos = 0
    for i, tok in enumerate(tokens):
        if tok.map is not None and tok.level == 0 and tok.nesting in (0, 1):
            tok.attrSet("data-line", str(tok.map[0]))
        if tok.type == "heading_open" and i + 1 < len(tokens):
            text = _norm(tokens[i + 1].content)
            for j in range(pos, min(pos + 4, len(sections))):
                sec = sections[j]
                title = _norm(sec.get("title", ""))
                label = _norm(f"{sec.get('number') or ''} {sec.get('title', '')}")
                if text and (text == label or text == title or (title and text.endswith(title))):
                    tok.attrSet("id", f"sec-{sec['id']}")
                    pos = j + 1
                    break
    return md.renderer.render(tokens, md.options, {})


# ------------------------------------------------------------------------------ the app


def create_app(
    index_path: str | Path | None = None,
    *,
    jobs_root: str | Path | None = None,
    workers: int = WORKERS,
    max_upload_mb: float = 64,
    job_ttl: float = JOB_TTL_S,
    job_timeout: float = JOB_TIMEOUT_S,
    max_jobs: int = MAX_JOBS,
    sample_path: str | Path | None = None,
    mount_mcp: bool = True,
    host: str = "127.0.0.1",
) -> FastAPI:
    """Build the web app.

    ``index_path`` is the root of an indexed folder (``ctxmill index ROOT``) for the search
    tab; ``jobs_root`` the temp area (default: a fresh folder under the system temp dir,
    removed on shutdown); ``workers`` how many compiles run at once; ``host`` the address
    the server listens on (the MCP endpoint at /mcp checks Host headers against it).
    """
    store = JobStore(jobs_root, workers=workers, ttl=job_ttl, max_jobs=max_jobs, job_timeout=job_timeout)
    max_bytes = int(max_upload_mb * 1024 * 1024)
    index_root = Path(index_path).resolve() if index_path else None
    sample = Path(sample_path) if sample_path else find_sample()

    # /mcp is built on first use (and in the background once the server is up): importing
    # the MCP SDK and its pydantic models took ~2-3 s of every `ctxmill serve` start.
    mcp_app = None
    if mount_mcp and importlib.util.find_spec("mcp") is not None:
        def build_mcp():
            from ctxmill.mcp import http_app

            return http_app([index_root] if index_root else None, host=host)

        mcp_app = _LazyMCP(build_mcp)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        warm = asyncio.create_task(mcp_app.warm(delay=0.5)) if mcp_app is not None else None
        try:
            yield
        finally:
            if warm is not None:
                warm.cancel()
            if mcp_app is not None:
                await mcp_app.shutdown()
            await asyncio.to_thread(store.close)

    app = FastAPI(
        docs_url=None,  # our own /docs below serves Swagger UI from a package, not a CDN
        redoc_url=None,
        title="ctxmill",
        summary="Compile PDFs and raw OCR text into clean Markdown, chunks, a citation graph and a QA report.",
        version=_version(),
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.index_root = index_root
    from ctxmill.web.indexing import LOOPBACK, Indexer

    indexer = Indexer(index_root)  # the search root; a server without one can index a folder from the page
    app.state.indexer = indexer
    app.state.max_upload_bytes = max_bytes
    # DNS-rebinding guard: a web site cannot point its own name at 127.0.0.1 and read this
    # server (the search tab can expose an indexed codebase). Bound to all interfaces, any
    # Host is accepted.
    if host not in ("0.0.0.0", "::", ""):
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        allowed = ["127.0.0.1", "localhost", "::1", "[::1]"]
        if host not in allowed:
            allowed.append(host)
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed)
    app.add_middleware(
        BodyLimit, limit=max_bytes + 256 * 1024,  # room for the multipart envelope and the options
        message=f"This file is larger than the upload limit of {max_upload_mb:g} MiB.",
    )
    swagger = _swagger_ui_path()
    if swagger is not None:
        app.mount("/static/swagger", StaticFiles(directory=swagger), name="swagger")

        @app.get("/docs", include_in_schema=False)
        def docs() -> HTMLResponse:
            from fastapi.openapi.docs import get_swagger_ui_html

            return get_swagger_ui_html(
                openapi_url="/openapi.json", title="ctxmill API",
                swagger_js_url="/static/swagger/swagger-ui-bundle.js",
                swagger_css_url="/static/swagger/swagger-ui.css", swagger_favicon_url="data:,",
            )

    else:

        @app.get("/docs", include_in_schema=False)
        def docs_fallback() -> HTMLResponse:
            return HTMLResponse('<!doctype html><title>ctxmill API</title><p>The API is described in '
                                '<a href="/openapi.json">/openapi.json</a> (install swagger-ui-py for a browsable page).')

    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    if mcp_app is not None:
        app.mount("/mcp", mcp_app)
        app.add_middleware(_MCPNoSlash)

    def job_or_404(job_id: str) -> Job:
        job = store.get(job_id)
        if job is None:
            raise HTTPException(404, "no such job (finished jobs are kept for a limited time)")
        return job

    def job_json(job: Job) -> dict[str, Any]:
        out = job.to_dict()
        base = f"/api/jobs/{job.id}"
        out["links"] = {
            "self": base, "events": f"{base}/events", "bundle": f"{base}/bundle",
            "document_html": f"{base}/document.html",
            "files": {name: f"{base}/files/{name}" for name in job.files},
        }
        return out

    # -------------------------------------------------------------------- page

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        text = sample.read_text(encoding="utf-8") if sample and sample.is_file() else ""
        values = {
            "SAMPLE_TEXT": html.escape(text),
            "SAMPLE_NAME": html.escape(sample.name if sample else ""),
            "INDEX_ROOT": html.escape(str(indexer.root) if indexer.root else ""),
            "INDEX_FROM_PAGE": "1" if host in LOOPBACK else "",
            "MAX_UPLOAD_MB": f"{max_upload_mb:g}",
            "VERSION": html.escape(_version()),
        }
        body = (HERE / "templates" / "index.html").read_text(encoding="utf-8")
        body = re.sub(r"\{\{(\w+)\}\}", lambda m: values.get(m.group(1), m.group(0)), body)
        return HTMLResponse(body, headers={"Content-Security-Policy": PAGE_CSP})

    # -------------------------------------------------------------------- API

    @app.get("/api/config", tags=["info"])
    def config() -> dict[str, Any]:
        """Limits, defaults and what this server offers."""
        return {
            "version": _version(),
            "max_upload_bytes": max_bytes,
            "workers": store.workers,
            "job_ttl_seconds": store.ttl,
            "job_timeout_seconds": store.job_timeout,
            "search": indexer.root is not None,
            "index_root": str(indexer.root) if indexer.root else None,
            "index_from_page": host in LOOPBACK,
            "mcp": mcp_app is not None,
            "sample": sample.name if sample else None,
            "stages": STAGE_ORDER,
        }

    @app.get("/api/sample", tags=["info"])
    def get_sample() -> dict[str, Any]:
        """The bundled sample document (raw OCR text) that the page opens with."""
        if not sample or not sample.is_file():
            raise HTTPException(404, "no sample document is installed")
        return {"name": sample.name, "text": sample.read_text(encoding="utf-8")}

    @app.post("/api/jobs", status_code=202, tags=["jobs"])
    async def submit(
        file: Annotated[UploadFile | None, File(description="A PDF, or a UTF-8 text file of raw OCR or Markdown")] = None,
        text: Annotated[str | None, Form(description="Raw OCR or Markdown text (instead of a file)")] = None,
        fast: Annotated[bool, Form(description="Skip chunks and the citation graph")] = False,
        chunks: Annotated[bool, Form()] = True,
        citations: Annotated[bool, Form()] = True,
        include_source_text: Annotated[bool, Form()] = False,
        ignore_pdf_links: Annotated[bool, Form()] = False,
        chunk_tokens: Annotated[int, Form(ge=32, le=8192)] = 400,
        llm_url: Annotated[str | None, Form(description="Optional OpenAI-compatible endpoint")] = None,
        llm_model: Annotated[str | None, Form()] = None,
        llm_max_tokens: Annotated[int, Form(ge=256, le=40960)] = 8192,
        llm_api_key: Annotated[str | None, Form(description="Passed to the compile only; never stored")] = None,
    ) -> JSONResponse:
        """Start a compile. Returns 202 with the job; follow ``links.events`` (SSE) or poll
        ``links.self``. 413: too large; 415: not a PDF / not text."""
        if file is not None and file.filename is not None:
            data = await file.read(max_bytes + 1)
            name = display_name(file.filename)
            content_type = file.content_type
        elif text is not None:
            data = text.encode("utf-8")
            name, content_type = "pasted.txt", "text/plain"
        else:
            raise HTTPException(400, "send a file (field 'file') or text (field 'text')")
        if len(data) > max_bytes:
            raise HTTPException(413, f"This file is larger than the upload limit of {max_upload_mb:g} MiB.")
        if not data.strip():
            raise HTTPException(400, "the input is empty")
        kind = sniff(data, file.filename if file is not None and file.filename else "", content_type)
        options = {
            "fast": fast, "chunks": chunks, "citations": citations,
            "include_source_text": include_source_text, "ignore_pdf_links": ignore_pdf_links,
            "chunk_tokens": chunk_tokens, "llm_url": llm_url or None, "llm_model": llm_model or None,
            "llm_max_tokens": llm_max_tokens,
        }
        job = await asyncio.to_thread(store.submit, data, kind, options, display_name=name,
                                      api_key=llm_api_key or None)
        return JSONResponse(job_json(job), status_code=202)

    @app.get("/api/jobs", tags=["jobs"])
    def list_jobs() -> list[dict[str, Any]]:
        """Jobs still held in the temp area, newest first."""
        return [job_json(j) for j in store.list()]

    @app.get("/api/jobs/{job_id}", tags=["jobs"])
    def get_job(job_id: str) -> dict[str, Any]:
        """Status, per-stage progress, the error (if any), the files written and a summary."""
        return job_json(job_or_404(job_id))

    @app.delete("/api/jobs/{job_id}", tags=["jobs"])
    def delete_job(job_id: str) -> dict[str, Any]:
        """Stop a job if it runs and delete its files."""
        if not store.cancel(job_id):
            raise HTTPException(404, "no such job")
        return {"deleted": job_id}

    @app.get("/api/jobs/{job_id}/events", tags=["jobs"])
    async def events(job_id: str, request: Request) -> StreamingResponse:
        """Server-sent events: ``stage`` ({stage, state}), ``status``, then one ``end`` with
        the final job object. A reconnecting client sends Last-Event-ID and misses nothing."""
        job = job_or_404(job_id)
        since = request.headers.get("last-event-id", "0")
        cursor = int(since) if since.isdigit() else 0

        async def stream():
            nonlocal cursor
            last = time.monotonic()
            yield "retry: 1000\n\n"
            while True:
                while cursor < len(job.events):
                    ev = job.events[cursor]
                    cursor += 1
                    yield f"id: {cursor}\nevent: {ev['event']}\ndata: {json.dumps(ev)}\n\n"
                    last = time.monotonic()
                if job.ended and cursor >= len(job.events):
                    yield f"event: end\ndata: {json.dumps(job_json(job))}\n\n"
                    return
                if await request.is_disconnected():
                    return
                if time.monotonic() - last > 15:
                    yield ": keepalive\n\n"
                    last = time.monotonic()
                await asyncio.sleep(0.1)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @app.get("/api/jobs/{job_id}/files/{name:path}", tags=["outputs"])
    def get_file(job_id: str, name: str) -> FileResponse:
        """One output file by its contract name (document.md, metadata.json, figures/fig-1.png...)."""
        job = job_or_404(job_id)
        path = store.file_path(job, name)
        if path is None:
            raise HTTPException(404, f"{name} was not written by this job")
        return FileResponse(path, media_type=MEDIA_TYPES.get(path.suffix, "application/octet-stream"))

    @app.get("/api/jobs/{job_id}/bundle", tags=["outputs"])
    def get_bundle(job_id: str) -> FileResponse:
        """bundle.zip with every output, as a download."""
        job = job_or_404(job_id)
        path = store.file_path(job, "bundle.zip")
        if path is None:
            raise HTTPException(404, "this job has no bundle (not finished, or it failed)")
        stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(job.display_name or "document").stem)[:60] or "document"
        return FileResponse(path, media_type="application/zip", filename=f"{stem}-ctxmill.zip")

    @app.get("/api/jobs/{job_id}/document.html", response_class=HTMLResponse, tags=["outputs"])
    def get_document_html(job_id: str) -> HTMLResponse:
        """document.md rendered to an HTML fragment (raw HTML in the Markdown is escaped)."""
        job = job_or_404(job_id)
        path = store.file_path(job, "document.md")
        if path is None:
            raise HTTPException(404, "document.md was not written by this job")
        sections: list[dict[str, Any]] = []
        spath = store.file_path(job, "sections.json")
        if spath is not None:
            with contextlib.suppress(ValueError):
                sections = json.loads(spath.read_text(encoding="utf-8"))
        loaded: dict[str, Any] = {}
        for name, default in (("citations.json", {}), ("references.json", [])):
            fpath = store.file_path(job, name)
            loaded[name] = default
            if fpath is not None:
                with contextlib.suppress(ValueError):
                    loaded[name] = json.loads(fpath.read_text(encoding="utf-8"))
        markdown = path.read_text(encoding="utf-8")
        mentions = loaded["citations.json"].get("mentions", []) if isinstance(loaded["citations.json"], dict) else []
        figures = {n for n in job.files if n.startswith("figures/")}
        body = render_markdown(markdown, sections, f"/api/jobs/{job.id}/files/", figures)
        return HTMLResponse(link_citations(body, markdown, mentions, loaded["references.json"]))

    @app.get("/api/search", tags=["search"])
    def search(
        q: Annotated[str, Query(min_length=1, max_length=500, description="The query")],
        k: Annotated[int, Query(ge=1, le=100)] = 10,
        path: Annotated[str | None, Query(description="Only hits under this path prefix")] = None,
    ) -> dict[str, Any]:
        """Search the index given with ``ctxmill serve --index PATH``: hits best first, each
        ``{path, start_line, end_line, score, kind, symbol?, text}``."""
        index_root = indexer.root
        if index_root is None:
            raise HTTPException(404, "no index: start the server with `ctxmill serve --index PATH`, "
                                     "or index a folder from the Search tab")
        try:
            from ctxmill.index import search as index_search
        except ImportError:
            raise HTTPException(503, "search is not available in this build of ctxmill") from None
        from ctxmill.errors import InputRefused
        from ctxmill.model import to_jsonable

        t0 = time.perf_counter()
        try:
            from ctxmill.server import warm

            # the user's background server when one runs (its warm index), else this process
            hits = warm.search(q, index_root, path_prefix=path or None, k=k)
            if hits is None:
                hits = index_search(q, index_root, path_prefix=path or None, k=k)
        except InputRefused as exc:
            raise HTTPException(400, str(exc)) from None
        return {"query": q, "root": str(index_root), "seconds": round(time.perf_counter() - t0, 4),
                "hits": to_jsonable(list(hits))}

    @app.post("/api/index", status_code=202, tags=["search"])
    def start_index(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        """Index the folder ``{"folder": PATH}`` on this machine, then search it (a server bound to
        127.0.0.1 only, asked from this machine). Poll ``GET /api/index`` for progress."""
        client = request.client.host if request.client else ""
        if host not in LOOPBACK or client not in LOOPBACK:
            raise HTTPException(403, "Indexing a folder from the page is offered only on a local server "
                                     "(ctxmill serve on 127.0.0.1).")
        try:
            return indexer.start(str(body.get("folder") or ""))
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None

    @app.get("/api/index", tags=["search"])
    def index_progress() -> dict[str, Any]:
        """The search root and the last indexing run: ``state`` none | ready | running (with
        ``done``/``total`` files) | done (with the counts) | failed (with ``error``)."""
        return indexer.status()

    @app.get("/api/health", tags=["info"])
    def health() -> dict[str, Any]:
        jobs = store.list()
        return {"ok": True, "jobs": len(jobs), "running": sum(j.status == "running" for j in jobs)}

    return app


class _LazyMCP:
    """The /mcp ASGI app, built by ``build()`` in a thread on the first request or by warm().
    The built app (ctxmill.mcp.http_app) starts its session manager on its first request."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build
        self.app: Any = None
        self.error: str | None = None
        self._building: asyncio.Future | None = None

    def _build(self) -> None:
        try:
            self.app = self.build()
        except Exception as exc:  # the web page must come up even if MCP cannot
            log.warning("MCP endpoint not mounted: %s", exc)
            self.error = f"{type(exc).__name__}: {exc}"

    async def ready(self) -> Any:
        if self.app is None and self.error is None:
            if self._building is None:
                self._building = asyncio.ensure_future(asyncio.to_thread(self._build))
            await asyncio.shield(self._building)
        return self.app

    async def warm(self, delay: float) -> None:
        await asyncio.sleep(delay)  # let the first page load go first
        await self.ready()

    async def shutdown(self) -> None:
        if self._building is not None and not self._building.done():
            with contextlib.suppress(Exception):
                await self._building
        if self.app is not None and hasattr(self.app, "_shutdown"):
            await self.app._shutdown()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        app = await self.ready()
        if app is None:
            await PlainTextResponse(f"MCP endpoint unavailable: {self.error}", status_code=503)(scope, receive, send)
            return
        await app(scope, receive, send)


def _swagger_ui_path() -> Path | None:
    """Swagger UI's files as shipped in the swagger-ui-py package, when installed. Found
    without importing the package (its import cost ~0.3 s of every server start)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "static"
    return path if (path / "swagger-ui-bundle.js").is_file() else None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("ctxmill")
    except Exception:
        return "0"
