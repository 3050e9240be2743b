"""The MCP server: ctxmill's index and document compiler as tools for coding agents.

Built on the official Python SDK (``mcp`` 2.x, ``MCPServer``). Tools call the same core
functions as the CLI (DESIGN.md: surfaces are thin):

- ``search``: hybrid search of a root's index (read-only for the user's files; it brings the
  index up to date first when the last sync is more than a few seconds old)
- ``read``: lines of a file, confined to the allowed roots (and compiled outputs)
- ``sync``: bring an index up to date, returns the counts
- ``compile_document``: a PDF/text inside a root -> outputs in ctxmill's cache, with paths
- ``outline`` / ``citations``: the sections / references and citation callouts of a document

Everything a tool returns passes through secret redaction. Bad input (a path outside the
roots, a missing file) is a tool error with the reason — never a crashed server. ``run_stdio``
keeps stdout for the protocol only (the SDK points fd 1 at stderr while it serves).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ctxmill.errors import CtxmillError, InputRefused
from ctxmill.redact import redact, redact_obj

FRESH_SECONDS = 5.0  # `search` syncs a root first when its last sync is older than this
READ_MAX_LINES = 2000  # per read call: agents page through longer files
READ_MAX_BYTES = 5 * 1024 * 1024
DOC_SUFFIXES = {".pdf", ".txt", ".md", ".markdown", ".text"}
DOC_MAX_BYTES = 200 * 1024 * 1024
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")

INSTRUCTIONS = (
    "ctxmill gives you the indexed code and compiled documents of the allowed roots. "
    "Use `search` to find code or document passages (hits carry path and 1-based line ranges), "
    "then `read` to see exact lines. Search picks up edits by itself within seconds; `sync` "
    "forces it and returns the counts. "
    "For a PDF or long text, `compile_document` writes clean Markdown, chunks, references and "
    "a QA report; `outline` and `citations` answer from the same compile. Secrets are redacted."
)


# ------------------------------------------------------------------------------ results


class Hit(BaseModel):
    path: str = Field(description="relative to the root")
    start_line: int = Field(description="1-based, inclusive")
    end_line: int = Field(description="1-based, inclusive")
    score: float
    kind: str
    symbol: str | None = None
    text: str


class SearchResult(BaseModel):
    root: str
    query: str
    hits: list[Hit]


class ReadResult(BaseModel):
    path: str = Field(description="relative to the root when inside one")
    root: str
    start_line: int
    end_line: int
    total_lines: int
    text: str
    truncated: bool = Field(description="true when more lines follow end_line")
    redactions: int = Field(description="secrets replaced by [REDACTED:rule] in this text")


class SyncResult(BaseModel):
    model_config = ConfigDict(extra="allow")  # the index may report more counts
    root: str
    files_scanned: int
    files_changed: int
    files_deleted: int
    chunks_total: int
    chunks_embedded: int
    seconds: float


class CompileResult(BaseModel):
    source: str
    out: str = Field(description="folder holding the outputs (readable with `read`)")
    files: dict[str, str] = Field(description="output file name -> path")
    title: str
    pages: int
    sections: int
    references: int
    chunks: int
    qa_score: int
    qa_issues: list[str] = Field(description="error and warning messages of the QA report")
    seconds: float


class OutlineSection(BaseModel):
    id: str
    level: int
    number: str | None = None
    title: str
    page_start: int
    page_end: int


class OutlineResult(BaseModel):
    source: str
    title: str
    pages: int
    sections: list[OutlineSection]


class ReferenceItem(BaseModel):
    id: str
    raw: str
    authors: list[str] = []
    year: str | None = None
    title: str | None = None
    doi: str | None = None
    url: str | None = None
    arxiv_id: str | None = None
    cited: int = Field(description="how many callouts in the text point at this reference")


class MentionItem(BaseModel):
    text: str
    reference_ids: list[str]
    page: int
    section_id: str | None = None


class UnresolvedItem(BaseModel):
    text: str
    kind: str
    reason: str
    page: int


class CitationsResult(BaseModel):
    source: str
    references: list[ReferenceItem]
    mentions: list[MentionItem]
    unresolved: list[UnresolvedItem]
    mentions_total: int
    truncated: bool


# ------------------------------------------------------------------------------ roots


def docs_dir() -> Path:
    """Where compile_document writes outputs (CTXMILL_DOCS_DIR, else the user cache dir)."""
    env = os.environ.get("CTXMILL_DOCS_DIR")
    if env:
        return Path(env).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_cache_dir("ctxmill")) / "documents"


class Roots:
    """The folders a client may touch; every path is resolved (symlinks too) and checked."""

    def __init__(self, roots: Sequence[str | Path]) -> None:
        resolved = []
        for r in roots or ["."]:
            p = Path(r).expanduser().resolve()
            if not p.is_dir():
                raise InputRefused(f"{r}: not a folder")
            resolved.append(p)
        self.roots = list(dict.fromkeys(resolved))

    def root(self, root: str | None) -> Path:
        if not root:
            return self.roots[0]
        p = Path(root).expanduser()
        p = (p if p.is_absolute() else self.roots[0] / p).resolve()
        for r in self.roots:
            if p == r:
                return r
        raise InputRefused(f"{root}: not one of the allowed roots ({', '.join(map(str, self.roots))})")

    def path(self, path: str, root: str | None = None, *, extra: Sequence[Path] = ()) -> tuple[Path, Path]:
        """(resolved file, the allowed folder it lies in) or InputRefused."""
        if not path or "\x00" in path:
            raise InputRefused("empty or invalid path")
        base = self.root(root)
        p = Path(path).expanduser()
        p = (p if p.is_absolute() else base / p).resolve()  # resolves .. and symlinks
        for allowed in [base, *self.roots, *extra]:
            if p == allowed or p.is_relative_to(allowed):
                return p, allowed
        raise InputRefused(f"{path}: outside the allowed roots")


def _refusals(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn ctxmill's errors (and file errors) into tool errors with the reason."""
    from mcp.server.mcpserver.exceptions import ToolError

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ToolError:
            raise
        except (CtxmillError, ValueError) as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"{exc.strerror or type(exc).__name__}: {exc.filename or ''}".rstrip(": ")) from None

    return wrapper


def _clean(model: BaseModel) -> BaseModel:
    """Redact every string of a result before it leaves for the client."""
    return type(model).model_validate(redact_obj(model.model_dump()))


# ------------------------------------------------------------------------------ server


class Tools:
    """The tool implementations, plain methods so that tests can call them directly too."""

    def __init__(self, roots: Sequence[str | Path]) -> None:
        self.roots = Roots(roots)
        self._synced: dict[Path, float] = {}  # root -> time.monotonic() of its last sync here
        self._docs: OrderedDict[str, Any] = OrderedDict()  # sha256 -> Document (small LRU)
        self._outputs: list[Path] = []  # output folders this server wrote: readable too

    # -- code index

    def search(self, query: str, path: str | None = None, k: int = 10, root: str | None = None) -> SearchResult:
        """Search the index of a root: code and document chunks, best first.

        `path` keeps only hits under that folder or file prefix (relative to the root). Code
        hits carry 1-based line ranges for `read`; for document hits (kind "document", e.g. a
        PDF) the range is pages: `compile_document` the file and `read` its document.md.
        """
        if not query.strip():
            raise InputRefused("empty query")
        base = self.roots.root(root)
        from ctxmill import index

        # Agents edit files between searches: keep the index fresh without a `sync` call. A
        # sync with nothing changed is a stat walk (tens of ms on a small repo), so do it at
        # most every FRESH_SECONDS.
        if time.monotonic() - self._synced.get(base, float("-inf")) > FRESH_SECONDS:
            index.sync_index(base)
            self._synced[base] = time.monotonic()
        k = max(1, min(int(k), 50))
        hits = index.search(query, base, path_prefix=path or None, k=k)
        out = []
        for h in hits:
            d = h.to_dict() if hasattr(h, "to_dict") else dict(h)
            out.append(Hit(path=d["path"], start_line=d["start_line"], end_line=d["end_line"],
                           score=float(d.get("score") or 0.0), kind=str(d.get("kind") or ""),
                           symbol=d.get("symbol"), text=d.get("text") or ""))
        return _clean(SearchResult(root=str(base), query=query, hits=out))

    def read(self, path: str, start_line: int = 1, end_line: int | None = None,
             root: str | None = None) -> ReadResult:
        """Lines start_line..end_line (1-based, inclusive) of a file inside the allowed roots."""
        file, allowed = self.roots.path(path, root, extra=self._outputs)
        if not file.exists() and "\\" in path:  # a search hit's name for a file whose name is not UTF-8
            from ctxmill.sources.repo import fs_name

            file, allowed = self.roots.path(fs_name(path), root, extra=self._outputs)
        if not file.is_file():
            raise InputRefused(f"{path}: no such file")
        if file.stat().st_size > READ_MAX_BYTES:
            raise InputRefused(f"{path}: larger than {READ_MAX_BYTES // (1024 * 1024)} MB")
        data = file.read_bytes()
        if b"\x00" in data[:8192]:
            raise InputRefused(f"{path}: binary file")
        lines = data.decode("utf-8", errors="replace").splitlines()
        start = max(1, int(start_line))
        if lines and start > len(lines):
            raise InputRefused(f"{path}: has {len(lines)} lines; start_line {start} is past the end")
        end = len(lines) if end_line is None else min(int(end_line), len(lines))
        if end < start and lines:
            raise InputRefused(f"end_line {end_line} is before start_line {start}")
        end = min(end, start + READ_MAX_LINES - 1)
        r = redact("\n".join(lines[start - 1:end]))
        return ReadResult(path=str(file.relative_to(allowed)), root=str(allowed), start_line=start,
                          end_line=end, total_lines=len(lines), text=r.text,
                          truncated=end < len(lines), redactions=len(r.findings))

    def sync(self, root: str | None = None) -> SyncResult:
        """Bring the index of a root up to date (only changed files are re-read)."""
        base = self.roots.root(root)  # refuse before importing anything heavy
        from ctxmill import index

        report = index.sync_index(base)
        self._synced[base] = time.monotonic()
        d = report.to_dict() if hasattr(report, "to_dict") else dict(report)
        return _clean(SyncResult(root=str(base), **d))

    # -- documents

    def _source(self, path: str, root: str | None) -> tuple[Path, str]:
        file, _ = self.roots.path(path, root)
        if not file.is_file():
            raise InputRefused(f"{path}: no such file")
        if file.suffix.lower() not in DOC_SUFFIXES:
            raise InputRefused(f"{path}: not a document ({', '.join(sorted(DOC_SUFFIXES))})")
        if file.stat().st_size > DOC_MAX_BYTES:
            raise InputRefused(f"{path}: larger than {DOC_MAX_BYTES // (1024 * 1024)} MB")
        return file, hashlib.sha256(file.read_bytes()).hexdigest()

    def _compiled(self, file: Path, sha: str, fast: bool = False):
        from ctxmill.compile.options import CompileOptions
        from ctxmill.compile.pipeline import compile_document

        key = f"{sha}:{fast}"
        if fast and f"{sha}:False" in self._docs:  # a full compile answers a fast question too
            key = f"{sha}:False"
        if key in self._docs:
            self._docs.move_to_end(key)
            return self._docs[key]
        options = CompileOptions(fast=fast)
        doc = compile_document(file, options, name=str(file))
        self._docs[key] = (doc, options)
        while len(self._docs) > 4:
            self._docs.popitem(last=False)
        return doc, options

    def compile_document(self, path: str, fast: bool = False, root: str | None = None) -> CompileResult:
        """Compile a PDF, OCR text or Markdown file inside a root into ctxmill's outputs.

        Writes document.md, metadata/sections/chunks/references/citations/graph, qa and metrics
        into a cache folder and returns their paths (read them with `read`).
        """
        from ctxmill.render import write_outputs

        file, sha = self._source(path, root)
        doc, options = self._compiled(file, sha, fast)
        out = docs_dir() / f"{file.stem}-{sha[:12]}"
        written = write_outputs(doc, out, options)
        if out.resolve() not in self._outputs:
            self._outputs.append(out.resolve())
        issues = [c.message for c in doc.qa.checks if c.severity in ("error", "warning")]
        return _clean(CompileResult(
            source=str(file), out=str(out), files={n: str(p) for n, p in written.items()},
            title=doc.metadata.title or file.stem, pages=doc.pages, sections=len(doc.sections),
            references=len(doc.references), chunks=len(doc.chunks), qa_score=int(doc.qa.score),
            qa_issues=issues[:20], seconds=round(doc.metrics.total_seconds, 4)))

    def outline(self, path: str, root: str | None = None) -> OutlineResult:
        """The section tree of a document (title, numbered sections, page ranges)."""
        file, sha = self._source(path, root)
        doc, _ = self._compiled(file, sha, fast=True)
        return _clean(OutlineResult(
            source=str(file), title=doc.metadata.title or file.stem, pages=doc.pages,
            sections=[OutlineSection(id=s.id, level=s.level, number=s.number, title=s.title,
                                     page_start=s.page_start, page_end=s.page_end) for s in doc.sections]))

    def citations(self, path: str, reference_id: str | None = None, limit: int = 200,
                  root: str | None = None) -> CitationsResult:
        """References of a document with how often each is cited, and the citation callouts.

        With `reference_id`, only the callouts that point at that reference.
        """
        file, sha = self._source(path, root)
        doc, _ = self._compiled(file, sha)
        counts: dict[str, int] = {}
        for m in doc.mentions:
            for rid in m.reference_ids:
                counts[rid] = counts.get(rid, 0) + 1
        mentions = [m for m in doc.mentions if reference_id is None or reference_id in m.reference_ids]
        refs = [r for r in doc.references if reference_id is None or r.id == reference_id]
        if reference_id is not None and not refs:
            raise InputRefused(f"{reference_id}: no such reference in {path}")
        limit = max(1, min(int(limit), 1000))
        return _clean(CitationsResult(
            source=str(file),
            references=[ReferenceItem(id=r.id, raw=r.raw, authors=r.authors, year=r.year, title=r.title,
                                      doi=r.doi, url=r.url, arxiv_id=r.arxiv_id, cited=counts.get(r.id, 0))
                        for r in refs],
            mentions=[MentionItem(text=m.text, reference_ids=m.reference_ids, page=m.page,
                                  section_id=m.section_id) for m in mentions[:limit]],
            unresolved=[UnresolvedItem(text=u.text, kind=u.kind, reason=u.reason, page=u.page)
                        for u in doc.unresolved[:limit]] if reference_id is None else [],
            mentions_total=len(mentions), truncated=len(mentions) > limit))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxmill")
    except PackageNotFoundError:
        return "0"


def build_server(roots: Sequence[str | Path]):
    """An MCPServer with ctxmill's tools over ``roots`` (the first is the default root)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    tools = Tools(roots)
    server = MCPServer("ctxmill", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def ann(title: str, *, read_only: bool, idempotent: bool, destructive: bool = False) -> ToolAnnotations:
        # Nothing here reaches beyond the local roots and ctxmill's own cache: openWorldHint False.
        return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                               idempotent_hint=idempotent, open_world_hint=False)

    server.add_tool(_refusals(tools.search), name="search", structured_output=True,
                    annotations=ann("Search code and documents", read_only=True, idempotent=True))
    server.add_tool(_refusals(tools.read), name="read", structured_output=True,
                    annotations=ann("Read file lines", read_only=True, idempotent=True))
    server.add_tool(_refusals(tools.sync), name="sync", structured_output=True,
                    annotations=ann("Sync the index", read_only=False, idempotent=True))
    server.add_tool(_refusals(tools.compile_document), name="compile_document", structured_output=True,
                    annotations=ann("Compile a document", read_only=False, idempotent=True))
    server.add_tool(_refusals(tools.outline), name="outline", structured_output=True,
                    annotations=ann("Document outline", read_only=True, idempotent=True))
    server.add_tool(_refusals(tools.citations), name="citations", structured_output=True,
                    annotations=ann("Document references and citations", read_only=True, idempotent=True))
    server.ctxmill_tools = tools  # type: ignore[attr-defined]
    return server


def run_stdio(roots: Sequence[str | Path]) -> None:
    """Serve MCP on stdin/stdout until the client closes the stream."""
    build_server(roots).run("stdio")


# ------------------------------------------------------------------------------ HTTP


class _MCPHttpApp:
    """ASGI app serving streamable HTTP at whatever path it is mounted on.

    Starlette does not run the lifespan of mounted sub-apps, so the SDK's session manager is
    started on the first request when no lifespan event reached us (and on lifespan startup
    when one does), and stopped on lifespan shutdown.
    """

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self._started = False
        self._lock: asyncio.Lock | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    async def _start(self) -> None:
        if self._started:
            return
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self._started:
                return
            ready = asyncio.Event()
            self._stop = asyncio.Event()

            async def keep_running() -> None:
                async with self.manager.run():
                    ready.set()
                    await self._stop.wait()

            self._task = asyncio.create_task(keep_running())
            await ready.wait()
            self._started = True

    async def _shutdown(self) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._task is not None:
            await self._task

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await self._start()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self._shutdown()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await self._start()
        await self.manager.asgi_app(scope, receive, send)


def http_app(
    roots: Sequence[str | Path] | None = None,
    *,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
):
    """An ASGI app for MCP over streamable HTTP (``ctxmill serve`` mounts it at ``/mcp``).

    Host and Origin headers are validated (DNS-rebinding protection): by default only
    localhost names are accepted; a server bound elsewhere adds its names explicitly.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(roots or ["."])
    hosts = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
               "http://127.0.0.1", "http://localhost"]
    if host not in LOCAL_HOSTS and host not in ("0.0.0.0", "::"):
        hosts += [host, f"{host}:*"]
        origins += [f"http://{host}:*", f"https://{host}:*", f"http://{host}", f"https://{host}"]
    # An explicit opt-in for other names (a LAN address, a reverse proxy): comma-separated.
    extra = [h.strip() for h in os.environ.get("CTXMILL_MCP_ALLOWED_HOSTS", "").split(",") if h.strip()]
    hosts += extra + [f"{h}:*" for h in extra]
    origins += [f"{scheme}://{h}{port}" for h in extra for scheme in ("http", "https") for port in ("", ":*")]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *allowed_hosts],
        allowed_origins=[*origins, *allowed_origins],
    )
    # Stateless: every POST stands alone, so a restart of `ctxmill serve` never strands a client.
    server.streamable_http_app(stateless_http=True, transport_security=security, host=host)
    app = _MCPHttpApp(server.session_manager)
    app.server = server  # type: ignore[attr-defined]
    return app
