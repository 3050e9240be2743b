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
import inspect
import os
import time
import typing
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ctxmill.errors import CtxmillError, InputRefused
from ctxmill.redact import redact, redact_obj

FRESH_SECONDS = 5.0  # `search` syncs a root first when its last sync is older than this
READ_MAX_LINES = 2000  # per read call: agents page through longer files
# Every tool result stays under this many characters of text (6-10k tokens: ~4 characters a
# token in prose, ~2.5 in minified code; Claude Code refuses a result over 25,000 tokens by default).
RESULT_MAX_CHARS = 24_000
SEARCH_MAX_K = 50
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
    "a QA report; `outline` and `citations` answer from the same compile. `references` finds "
    "where a symbol is defined and used, `find_related` what else relates to a file and line, "
    "`status` what is indexed and how fresh. Every result is bounded (about 8k tokens): a cut "
    "result says so and how to ask for the rest. Secrets are redacted."
)

# Parameter types with their descriptions and bounds: the schema an agent reads.
RootArg = Annotated[str | None, Field(
    description="one of the allowed roots (absolute, or relative to the first); default: the first root "
                "(search: all roots)")]
PathArg = Annotated[str, Field(description="file path, relative to the root (or absolute inside it)")]
DocArg = Annotated[str, Field(description="a .pdf, .txt or .md file, relative to the root (or absolute inside it)")]


# ------------------------------------------------------------------------------ results


class Hit(BaseModel):
    path: str = Field(description="relative to the root")
    root: str | None = Field(default=None, description="the root the path is relative to (searches over several roots)")
    start_line: int = Field(description="1-based, inclusive")
    end_line: int = Field(description="1-based, inclusive")
    score: float
    kind: str
    symbol: str | None = None
    text: str
    text_truncated: bool = Field(default=False, description="text cut to keep the result small: `read` the lines")


class SearchResult(BaseModel):
    root: str
    query: str
    hits: list[Hit]


class ReadResult(BaseModel):
    path: str = Field(description="relative to the root when inside one")
    root: str
    start_line: int
    end_line: int
    start_column: int = Field(default=1, description="1-based character of start_line where text begins")
    end_column: int | None = Field(default=None, description="last character of end_line in text, when the "
                                   "line was cut (a line longer than the budget)")
    total_lines: int
    text: str
    truncated: bool = Field(description="true when more of the file follows")
    next_start_line: int | None = Field(default=None, description="pass as start_line to read on")
    next_start_column: int | None = Field(default=None, description="pass as start_column with next_start_line")
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
    # fields of the reference labeller (docs/outputs.md, "Reference fields, BibTeX and CSL-JSON")
    people: list[dict[str, str]] = Field(default=[], description="authors as {family, given} or {literal}")
    container: str | None = Field(default=None, description="journal, book or proceedings")
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    type: str | None = Field(default=None, description="BibTeX entry type: article, inproceedings, book, misc ...")
    confidence: float | None = Field(default=None, description="the labeller's confidence in these fields, 0-1")
    doubtful: str | None = Field(default=None, description="why the fields are not to be trusted, if so")
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
    references_total: int = 0
    mentions_total: int
    unresolved_total: int = 0
    offset: int = 0
    truncated: bool = Field(description="true when more references or callouts follow: call again with next_offset")
    next_offset: int | None = None
    most_cited: list[ReferenceItem] = Field(default_factory=list, description="summary mode: the most cited references")


class Place(BaseModel):
    path: str
    line: int = Field(description="1-based")
    kind: str
    text: str = Field(description="the line, stripped")
    symbol: str | None = None
    end_line: int | None = None


class ReferencesResult(BaseModel):
    root: str
    symbol: str
    definitions: list[Place]
    uses: list[Place]
    definitions_total: int
    uses_total: int
    truncated: bool


class NextEdit(BaseModel):
    path: str
    start_line: int = Field(description="1-based, inclusive, in the file as it is now")
    end_line: int = Field(description="1-based, inclusive; start_line - 1 means insert before start_line")
    replacement: str = Field(description="the full new text of those lines")
    reason: str
    confidence: float


class NextEditResult(BaseModel):
    root: str
    suggestions: list[NextEdit]
    truncated: bool


class BuildProgress(BaseModel):
    files_done: int
    files_total: int
    current: str
    seconds: float


class StatusResult(BaseModel):
    model_config = ConfigDict(extra="allow")
    root: str
    indexed: bool
    files: int = 0
    chunks: int = 0
    last_sync_age_seconds: float | None = None
    complete: bool = False
    embedder: str | None = None
    building: BuildProgress | None = Field(default=None, description="an index build under way in this server")
    warnings: list[str] = Field(default_factory=list)


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

    def prefix(self, prefix: str | None, base: Path) -> str | None:
        """A search ``path`` prefix, checked to stay inside ``base``."""
        if not prefix:
            return None
        p = Path(prefix)
        full = (p if p.is_absolute() else base / p).resolve()
        if full != base and not full.is_relative_to(base):
            raise InputRefused(f"path {prefix!r} leaves the root {base}: give a folder or file prefix inside it")
        rel = full.relative_to(base).as_posix()
        return None if rel == "." else rel + ("/" if prefix.endswith("/") and rel else "")

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
        raise InputRefused(f"{path}: outside the allowed roots ({', '.join(map(str, self.roots))}); "
                           "compiled outputs are readable under " + str(docs_dir()))


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


def _with_progress(method: Callable[..., Any]) -> Callable[..., Any]:
    """A tool that reports progress to a client that asked for it, and stops when cancelled.

    The SDK runs a sync tool in a worker thread; the progress callback hops back onto the
    event loop for each notification and checks there whether the call was cancelled (then
    the work stops at its next step instead of running on unseen).
    """
    import anyio.from_thread
    from mcp.server.mcpserver import Context

    refusing = _refusals(method)

    @functools.wraps(method)
    def wrapper(*args: Any, ctx: Context | None = None, **kwargs: Any) -> Any:
        last = [0.0]

        def progress(done: float, total: float | None, message: str) -> None:
            anyio.from_thread.check_cancelled()
            now = time.monotonic()
            # the session sends nothing unless the client gave a progress token; an index build
            # (it reports every file) sends a few notifications a second at most
            if ctx is not None and (now - last[0] >= 0.2 or done == total or (total or 0) <= 50):
                last[0] = now
                anyio.from_thread.run(functools.partial(ctx.report_progress, done, total, message[:200]))

        return refusing(*args, progress=progress, **kwargs)

    # The SDK reads the tool's schema from its signature: the method's, resolved (this module
    # has postponed annotations), without `progress` and with the SDK's Context added.
    hints = typing.get_type_hints(method, include_extras=True)
    sig = inspect.signature(method)
    params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values()
              if p.name != "progress"]
    params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Context))
    wrapper.__signature__ = sig.replace(parameters=params, return_annotation=hints["return"])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in params}, "return": hints["return"]}
    del wrapper.__wrapped__  # or inspect would follow it back to the method's own signature
    return wrapper


def _json_len(text: str) -> int:
    """Characters ``text`` takes inside the compact JSON a client receives (escapes counted)."""
    import json

    return len(json.dumps(text, ensure_ascii=False)) - 2


def _bounded_hits(hits: Sequence[Any], roots: Sequence[str] | None = None) -> list[Hit]:
    """Index hits as result items, their texts cut so that the whole list, as the compact JSON
    the client receives, stays within the result budget at any ``k`` (1,000 characters are
    left for the rest of the result and for redaction markers)."""
    import json

    budget = RESULT_MAX_CHARS - 1000
    rows = [h.to_dict() if hasattr(h, "to_dict") else dict(h) for h in hits]
    per_hit = budget // max(1, len(rows))
    while True:
        out = []
        for n, d in enumerate(rows):
            text = d.get("text") or ""
            out.append(Hit(path=d["path"], root=roots[n] if roots else None, start_line=d["start_line"],
                           end_line=d["end_line"], score=float(d.get("score") or 0.0),
                           kind=str(d.get("kind") or ""), symbol=d.get("symbol"), text=text[:per_hit],
                           text_truncated=len(text) > per_hit))
        size = len(json.dumps([h.model_dump() for h in out], ensure_ascii=False, separators=(",", ":")))
        if size <= budget or per_hit == 0 or not out:
            return out
        # escaping and the fields around each text: take the excess off every text, and retry
        per_hit = max(0, per_hit - (size - budget) // len(out) - 1)


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
        # Compiled outputs of any ctxmill server of this user are readable: they are ours.
        self._outputs: list[Path] = [docs_dir()]
        self._building: dict[Path, dict] = {}  # root -> progress of an index build under way

    # -- code index

    def _sync(self, base: Path, progress: Callable | None = None):
        from ctxmill import index

        t0 = time.monotonic()
        state = {"files_done": 0, "files_total": 0, "current": "", "t0": t0}
        self._building[base] = state

        def step(done: int, total: int, current: str) -> None:
            state.update(files_done=done, files_total=total, current=current)
            if progress is not None:
                progress(done, total, f"indexing {current}")

        try:
            report = index.sync_index(base, progress=step)
        finally:
            self._building.pop(base, None)
        self._synced[base] = time.monotonic()
        return report

    def search(
        self,
        query: Annotated[str, Field(description="what to find: words, an identifier, or a question")],
        path: Annotated[str | None, Field(description="only hits under this folder or file prefix, relative to "
                                          "the root (e.g. 'src/' or 'src/app.py')")] = None,
        k: Annotated[int, Field(ge=1, le=SEARCH_MAX_K, description="number of hits")] = 10,
        root: RootArg = None,
        progress: Callable | None = None,
    ) -> SearchResult:
        """Search the index of a root: code and document chunks, best first.

        Code hits carry 1-based line ranges for `read`; for document hits (kind "document", e.g.
        a PDF) the range is pages: `compile_document` the file and `read` its document.md. Hit
        texts are cut to keep the whole result within the budget (`text_truncated`).
        """
        if not query.strip():
            raise InputRefused("empty query: give words, an identifier or a question")
        k = int(k)
        if not 1 <= k <= SEARCH_MAX_K:
            raise InputRefused(f"k={k}: ask for 1 to {SEARCH_MAX_K} hits")
        from ctxmill import index
        from ctxmill.server import warm

        bases = [self.roots.root(root)] if root or len(self.roots.roots) == 1 else list(self.roots.roots)
        found: list[tuple[Path, Any]] = []
        for base in bases:
            prefix = self.roots.prefix(path, base)
            # the user's background server, when one runs: its warm index, kept fresh by its watcher
            hits = warm.search(query, base, path_prefix=prefix, k=k)
            if hits is None:
                # Agents edit files between searches: keep the index fresh without a `sync` call.
                # A sync with nothing changed is a stat walk, so do it at most every FRESH_SECONDS.
                if time.monotonic() - self._synced.get(base, float("-inf")) > FRESH_SECONDS:
                    self._sync(base, progress)
                hits = index.search(query, base, path_prefix=prefix, k=k)
            found.extend((base, h) for h in hits)
        found.sort(key=lambda bh: -float(bh[1].score or 0.0))
        found = found[:k]
        out = _bounded_hits([h for _, h in found], [str(b) for b, _ in found] if len(bases) > 1 else None)
        return _clean(SearchResult(root=str(bases[0]) if len(bases) == 1 else ", ".join(map(str, bases)),
                                   query=query, hits=out))

    def read(
        self,
        path: PathArg,
        start_line: Annotated[int, Field(ge=1, description="first line to read, 1-based")] = 1,
        end_line: Annotated[int | None, Field(ge=1, description="last line, inclusive; default: as many as fit")] = None,
        start_column: Annotated[int, Field(ge=1, description="1-based character of start_line to begin at (to read "
                                           "a very long line in parts; use next_start_column)")] = 1,
        root: RootArg = None,
    ) -> ReadResult:
        """Lines of a text file inside the allowed roots (or a compiled output), within the budget.

        A result that stops early says `truncated` and where to go on (`next_start_line`,
        `next_start_column`).
        """
        file, allowed = self.roots.path(path, root, extra=self._outputs)
        if not file.exists() and "\\" in path:  # a search hit's name for a file whose name is not UTF-8
            from ctxmill.sources.repo import fs_name

            file, allowed = self.roots.path(fs_name(path), root, extra=self._outputs)
        if file.is_dir():
            raise InputRefused(f"{path}: is a folder; read a file in it, or `search` with path={path!r}")
        if not file.is_file():
            raise InputRefused(f"{path}: no such file (paths are relative to the root {allowed})")
        if file.stat().st_size > READ_MAX_BYTES:
            raise InputRefused(f"{path}: larger than {READ_MAX_BYTES // (1024 * 1024)} MB; `search` it instead")
        data = file.read_bytes()
        if b"\x00" in data[:8192] or data[:5] == b"%PDF-":
            if file.suffix.lower() == ".pdf" or data[:5] == b"%PDF-":
                raise InputRefused(f"{path}: a PDF; `compile_document` it, then read the document.md it returns")
            raise InputRefused(f"{path}: a binary file ({len(data)} bytes), not readable as text")
        lines = data.decode("utf-8", errors="replace").splitlines()
        start = int(start_line)
        if lines and start > len(lines):
            raise InputRefused(f"{path}: has {len(lines)} lines; start_line {start} is past the end")
        last = len(lines) if end_line is None else min(int(end_line), len(lines))
        if last < start and lines:
            raise InputRefused(f"end_line {end_line} is before start_line {start}")
        last = min(last, start + READ_MAX_LINES - 1)
        col = int(start_column)
        if lines and col > len(lines[start - 1]) + 1:
            raise InputRefused(f"line {start} has {len(lines[start - 1])} characters; start_column {col} is past it")
        parts: list[str] = []
        used = 0
        budget = RESULT_MAX_CHARS - 1000  # the text as JSON; the rest is for the result's other fields
        end, end_col, next_line, next_col = start, None, None, None
        for n in range(start, last + 1):
            line = lines[n - 1][col - 1:] if n == start else lines[n - 1]
            size = _json_len(line) + 2  # and its "\n"
            if used + size > budget:
                if not parts:  # one line longer than the budget: its first part
                    take = budget
                    while take > 1 and _json_len(line[:take]) > budget:
                        take = take * budget // _json_len(line[:take]) - 1
                    parts.append(line[:take])
                    end, end_col = n, col - 1 + take
                    next_line, next_col = n, end_col + 1
                else:
                    next_line, next_col = n, 1
                break
            parts.append(line)
            used += size
            end = n
        else:
            if last < len(lines):
                next_line, next_col = last + 1, 1
        if not lines:
            end = 0
        r = redact("\n".join(parts))
        truncated = next_line is not None and (end_line is None or next_line <= int(end_line))
        return ReadResult(path=str(file.relative_to(allowed)), root=str(allowed), start_line=start,
                          end_line=end, start_column=col, end_column=end_col, total_lines=len(lines), text=r.text,
                          truncated=truncated or (end_col is not None),
                          next_start_line=next_line, next_start_column=next_col if next_line is not None else None,
                          redactions=len(r.findings))

    def sync(self, root: RootArg = None, progress: Callable | None = None) -> SyncResult:
        """Bring the index of a root up to date (only changed files are re-read); returns the counts."""
        base = self.roots.root(root)  # refuse before importing anything heavy
        report = self._sync(base, progress)
        d = report.to_dict() if hasattr(report, "to_dict") else dict(report)
        return _clean(SyncResult(root=str(base), **d))

    def status(self, root: RootArg = None) -> StatusResult:
        """What is indexed for a root, how fresh it is, and any index build under way here."""
        from ctxmill import index

        base = self.roots.root(root)
        building = self._building.get(base)
        prog = None if building is None else BuildProgress(
            files_done=building["files_done"], files_total=building["files_total"], current=building["current"],
            seconds=round(time.monotonic() - building["t0"], 2))
        try:
            st = index.index_status(base)
        except InputRefused:
            return StatusResult(root=str(base), indexed=False, building=prog)
        return _clean(StatusResult(
            root=str(base), indexed=True, files=st["files"], chunks=st["chunks"],
            last_sync_age_seconds=st.get("age_seconds"), complete=bool(st.get("complete")),
            embedder=(st.get("embedder") or {}).get("name"), building=prog, warnings=st.get("warnings", [])[:50]))

    def references(
        self,
        symbol: Annotated[str, Field(description="an identifier: a function, class, method or variable name")],
        limit: Annotated[int, Field(ge=1, le=200, description="most definitions and uses to return")] = 50,
        root: RootArg = None,
    ) -> ReferencesResult:
        """Where a symbol is defined (tree-sitter definitions in the index) and every line that uses it."""
        from ctxmill import index

        base = self.roots.root(root)
        if time.monotonic() - self._synced.get(base, float("-inf")) > FRESH_SECONDS:
            self._sync(base)
        got = index.symbol_references(symbol, base, limit=int(limit))
        defs = [Place(**d) for d in got["definitions"]]
        uses = [Place(**u) for u in got["uses"]]
        while uses and sum(len(u.text) + len(u.path) + 40 for u in defs + uses) > RESULT_MAX_CHARS:
            uses = uses[: len(uses) * 3 // 4]
        return _clean(ReferencesResult(
            root=str(base), symbol=symbol, definitions=defs, uses=uses,
            definitions_total=got["definitions_total"], uses_total=got["uses_total"],
            truncated=len(uses) < got["uses_total"] or len(defs) < got["definitions_total"]))

    def find_related(
        self,
        path: PathArg,
        line: Annotated[int, Field(ge=1, description="1-based line in that file")],
        k: Annotated[int, Field(ge=1, le=SEARCH_MAX_K, description="number of hits")] = 10,
        root: RootArg = None,
    ) -> SearchResult:
        """Code and document passages related to the code at a file and line (its own chunk left out)."""
        from ctxmill import index

        base = self.roots.root(root)
        file, _ = self.roots.path(path, root)
        rel = file.relative_to(base).as_posix() if file.is_relative_to(base) else path
        if time.monotonic() - self._synced.get(base, float("-inf")) > FRESH_SECONDS:
            self._sync(base)
        hits = index.related(rel, int(line), base, k=int(k))
        return _clean(SearchResult(root=str(base), query=f"related to {rel}:{line}", hits=_bounded_hits(hits)))

    def next_edits(
        self,
        diff: Annotated[str, Field(description="unified diff of the edit just made (files under the root are "
                                   "already in their state after it)")],
        limit: Annotated[int, Field(ge=1, le=100, description="most suggestions")] = 20,
        root: RootArg = None,
    ) -> NextEditResult:
        """The other edits the edit in `diff` needs, best first: a renamed identifier's other uses, the calls of a
        changed signature, the same change at similar sites, a missing import. Each has a reason and a confidence."""
        from ctxmill.apply.next_edit import suggest

        base = self.roots.root(root)
        got = suggest(base, diff, limit=int(limit))
        items = [NextEdit(**s.to_dict()) for s in got]
        def size(part: list[NextEdit]) -> int:
            return len(NextEditResult(root=str(base), suggestions=part, truncated=True).model_dump_json())

        while items and size(items) > RESULT_MAX_CHARS - 1000:
            items = items[: len(items) * 3 // 4]
        return _clean(NextEditResult(root=str(base), suggestions=items, truncated=len(items) < len(got)))

    # -- documents

    def _source(self, path: str, root: str | None) -> tuple[Path, str]:
        file, _ = self.roots.path(path, root)
        if file.is_dir():
            raise InputRefused(f"{path}: is a folder; give one document in it")
        if not file.is_file():
            raise InputRefused(f"{path}: no such file")
        if file.suffix.lower() not in DOC_SUFFIXES:
            raise InputRefused(f"{path}: not a document ({', '.join(sorted(DOC_SUFFIXES))}); `read` it instead")
        if file.stat().st_size > DOC_MAX_BYTES:
            raise InputRefused(f"{path}: larger than {DOC_MAX_BYTES // (1024 * 1024)} MB")
        return file, hashlib.sha256(file.read_bytes()).hexdigest()

    def _compiled(self, file: Path, sha: str, fast: bool = False, progress: Callable | None = None):
        from ctxmill.compile.options import CompileOptions
        from ctxmill.compile.pipeline import STAGES, compile_document

        key = f"{sha}:{fast}"
        if fast and f"{sha}:False" in self._docs:  # a full compile answers a fast question too
            key = f"{sha}:False"
        if key in self._docs:
            self._docs.move_to_end(key)
            return self._docs[key]
        options = CompileOptions(fast=fast)
        total = 1 + sum(1 for _, _, when in STAGES if when(options))  # the source, then each stage that runs
        done = [0]

        def step(stage: str, state: str) -> None:
            if progress is not None and state == "done":
                done[0] += 1
                progress(done[0], total, f"compiled: {stage}")

        doc = compile_document(file, options, step, name=str(file))
        self._docs[key] = (doc, options)
        while len(self._docs) > 4:
            self._docs.popitem(last=False)
        return doc, options

    def compile_document(
        self,
        path: DocArg,
        fast: Annotated[bool, Field(description="skip chunks, references, citations and the graph "
                                    "(Markdown, outline, metadata and QA only; faster)")] = False,
        root: RootArg = None,
        progress: Callable | None = None,
    ) -> CompileResult:
        """Compile a PDF, OCR text or Markdown file inside a root into ctxmill's outputs.

        Writes document.md, metadata/sections/chunks/references/citations/graph, qa and metrics
        into ctxmill's document store (one folder per document content, and one more for a fast
        compile, so the two never overwrite each other) and returns their paths: `read` them.
        """
        from ctxmill.render import write_outputs

        file, sha = self._source(path, root)
        doc, options = self._compiled(file, sha, fast, progress)
        full = not options.fast
        out = docs_dir() / (f"{file.stem}-{sha[:12]}" if full else f"{file.stem}-{sha[:12]}-fast")
        written = write_outputs(doc, out, options)
        issues = [c.message for c in doc.qa.checks if c.severity in ("error", "warning")]
        return _clean(CompileResult(
            source=str(file), out=str(out), files={n: str(p) for n, p in written.items()},
            title=doc.metadata.title or file.stem, pages=doc.pages, sections=len(doc.sections),
            references=len(doc.references), chunks=len(doc.chunks), qa_score=int(doc.qa.score),
            qa_issues=[i[:300] for i in issues[:20]], seconds=round(doc.metrics.total_seconds, 4)))

    def outline(self, path: DocArg, root: RootArg = None) -> OutlineResult:
        """The section tree of a document (title, numbered sections, page ranges)."""
        file, sha = self._source(path, root)
        doc, _ = self._compiled(file, sha, fast=True)
        sections = [OutlineSection(id=s.id, level=s.level, number=s.number, title=s.title[:300],
                                   page_start=s.page_start, page_end=s.page_end) for s in doc.sections]
        while sections and sum(len(x.title) + len(x.id) + 80 for x in sections) > RESULT_MAX_CHARS:
            sections = [x for x in sections if x.level < max(y.level for y in sections)] or sections[:200]
        return _clean(OutlineResult(source=str(file), title=doc.metadata.title or file.stem, pages=doc.pages,
                                    sections=sections))

    def citations(
        self,
        path: DocArg,
        reference_id: Annotated[str | None, Field(description="only this reference and the callouts that cite "
                                                  "it (ids as in references.json, e.g. 'ref-12')")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="most references and most callouts per page")] = 50,
        offset: Annotated[int, Field(ge=0, description="skip this many references and callouts (paging: pass "
                                     "next_offset)")] = 0,
        summary: Annotated[bool, Field(description="counts and the 10 most cited references only")] = False,
        root: RootArg = None,
    ) -> CitationsResult:
        """References of a document with how often each is cited, and its citation callouts, in pages."""
        limit, offset = int(limit), int(offset)
        if not 1 <= limit <= 200:
            raise InputRefused(f"limit={limit}: ask for 1 to 200 items a page")
        if offset < 0:
            raise InputRefused(f"offset={offset}: must be 0 or more")
        file, sha = self._source(path, root)
        doc, _ = self._compiled(file, sha)
        counts: dict[str, int] = {}
        for m in doc.mentions:
            for rid in m.reference_ids:
                counts[rid] = counts.get(rid, 0) + 1
        mentions = [m for m in doc.mentions if reference_id is None or reference_id in m.reference_ids]
        refs = [r for r in doc.references if reference_id is None or r.id == reference_id]
        if reference_id is not None and not refs:
            raise InputRefused(f"{reference_id}: no such reference in {path} (ids are in references.json)")
        unresolved = list(doc.unresolved) if reference_id is None else []

        def item(r) -> ReferenceItem:
            return ReferenceItem(id=r.id, raw=r.raw[:600], authors=r.authors[:20], year=r.year,
                                 title=(r.title or None) and r.title[:300], doi=r.doi, url=r.url,
                                 arxiv_id=r.arxiv_id, people=r.people[:20], container=r.container,
                                 volume=r.volume, issue=r.issue, pages=r.pages, publisher=r.publisher,
                                 type=r.type, confidence=r.confidence, doubtful=r.doubtful,
                                 cited=counts.get(r.id, 0))

        totals = dict(references_total=len(refs), mentions_total=len(mentions), unresolved_total=len(unresolved))
        if summary:
            top = sorted(refs, key=lambda r: -counts.get(r.id, 0))[:10]
            return _clean(CitationsResult(source=str(file), references=[], mentions=[], unresolved=[],
                                          truncated=False, most_cited=[item(r) for r in top], **totals))
        page_refs = [item(r) for r in refs[offset:offset + limit]]
        page_mentions = [MentionItem(text=m.text[:300], reference_ids=m.reference_ids, page=m.page,
                                     section_id=m.section_id) for m in mentions[offset:offset + limit]]
        page_unres = [UnresolvedItem(text=u.text[:300], kind=u.kind, reason=u.reason[:200], page=u.page)
                      for u in unresolved[offset:offset + limit]]
        n = max(len(page_refs), len(page_mentions), len(page_unres))

        import json

        def cost(items: list[BaseModel]) -> list[int]:  # each item as the client receives it, comma included
            return [len(json.dumps(i.model_dump(), ensure_ascii=False, separators=(",", ":"))) + 1 for i in items]

        costs = [cost(page_refs), cost(page_mentions), cost(page_unres)]
        budget = RESULT_MAX_CHARS - 1000  # the rest of the result, and room for redaction markers
        while n > 1 and sum(sum(c[:n]) for c in costs) > budget:  # keep the page within the budget
            n -= 1
        more = offset + n < max(len(refs), len(mentions), len(unresolved))
        return _clean(CitationsResult(
            source=str(file), references=page_refs[:n], mentions=page_mentions[:n], unresolved=page_unres[:n],
            offset=offset, truncated=more, next_offset=offset + n if more else None, **totals))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ctxmill")
    except PackageNotFoundError:
        return "0"


def _describe(prop: dict[str, Any]) -> str:
    """What a parameter takes, from its schema: "a whole number from 1 to 50"."""
    options = prop.get("anyOf") or [prop]
    kinds = {o.get("type") for o in options} - {"null", None}
    lo = next((o["minimum"] for o in options if "minimum" in o), None)
    hi = next((o["maximum"] for o in options if "maximum" in o), None)
    enum = next((o["enum"] for o in options if "enum" in o), None)
    if enum:
        return "one of " + ", ".join(map(repr, enum))
    what = {"integer": "a whole number", "number": "a number", "boolean": "true or false",
            "string": "a string", "array": "a list", "object": "an object"}
    text = " or ".join(what.get(k, k) for k in sorted(kinds)) or "a value"
    if lo is not None and hi is not None:
        return f"{text} from {lo:g} to {hi:g}"
    if lo is not None:
        return f"{text} of at least {lo:g}"
    return text if hi is None else f"{text} of at most {hi:g}"


def argument_error(tool: str, schema: dict[str, Any], exc: Any) -> str:
    """A pydantic ValidationError on a tool's arguments as sentences an agent can act on.

    The SDK's own text is pydantic's report (type codes, a docs URL, "searchArguments"); an
    agent reads one sentence per argument that says what to send instead.
    """
    import json

    props = schema.get("properties", {})
    parts = []
    for err in exc.errors():
        name = ".".join(str(x) for x in err.get("loc", ())) or "arguments"
        prop = props.get(name.split(".")[0])
        if err.get("type") == "missing":
            want = f" ({_describe(prop)})" if prop else ""
            parts.append(f"`{name}` is required{want}")
        elif prop is None:
            known = ", ".join(f"`{k}`" for k in props) or "none"
            parts.append(f"`{name}` is not an argument of {tool} (its arguments: {known})")
        else:
            shown = json.dumps(err.get("input"), ensure_ascii=False, default=str)
            shown = shown if len(shown) <= 40 else shown[:37] + "..."
            parts.append(f"`{name}` must be {_describe(prop)}, not {shown}")
    return f"{tool}: " + "; ".join(parts) + "."


def _compact_text(result: Any) -> Any:
    """The text copy of a structured result as compact JSON (the SDK indents it by 2).

    Clients that read ``content`` rather than ``structuredContent`` (most agents today) pay
    for every indent: compact JSON is 8% fewer tokens on a 10-hit search and 23-27% on small
    results (benchmarks/agents.py ``result_tokens``). For ``read``, plain numbered lines
    would cost 9% more tokens than the JSON, whose ``text`` is the lines as they are.
    """
    import json

    from mcp.types import CallToolResult, TextContent

    if not isinstance(result, CallToolResult) or result.is_error or result.structured_content is None:
        return result
    if len(result.content) != 1 or not isinstance(result.content[0], TextContent):
        return result
    text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return result.model_copy(update={"content": [TextContent(type="text", text=text)]})


def _untitled(schema: Any) -> Any:
    """A JSON schema without pydantic's generated ``title`` strings ("Path" for ``path``): they
    repeat each name, and the tool list sits in every agent's context (6,835 -> 5,563 tokens)."""
    if isinstance(schema, dict):
        return {k: _untitled(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


def _server_class():
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ValidationError

    class CtxmillMCPServer(MCPServer):
        """MCPServer with plain-sentence argument errors and compact text results."""

        _listed: list | None = None

        async def list_tools(self) -> list:
            # the tools never change after build_server: agents list them often, build once
            if self._listed is None:
                self._listed = [t.model_copy(update={
                    "input_schema": _untitled(t.input_schema),
                    "output_schema": _untitled(t.output_schema) if t.output_schema else None,
                }) for t in await super().list_tools()]
            return self._listed

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            try:
                result = await super().call_tool(name, arguments, context)
            except ToolError as exc:
                tool = self._tool_manager.get_tool(name)
                if isinstance(exc.__cause__, ValidationError) and tool is not None:
                    raise ToolError(argument_error(name, tool.parameters, exc.__cause__)) from exc.__cause__
                raise
            return _compact_text(result)

    return CtxmillMCPServer


def build_server(roots: Sequence[str | Path]):
    """An MCPServer with ctxmill's tools over ``roots`` (the first is the default root)."""
    from mcp.types import ToolAnnotations

    tools = Tools(roots)
    server = _server_class()("ctxmill", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def ann(title: str, *, read_only: bool, idempotent: bool, destructive: bool = False) -> ToolAnnotations:
        # Nothing here reaches beyond the local roots and ctxmill's own cache: openWorldHint False.
        return ToolAnnotations(title=title, read_only_hint=read_only, destructive_hint=destructive,
                               idempotent_hint=idempotent, open_world_hint=False)

    # (name, wrapper, title, read-only): every tool is idempotent and reaches nothing outside
    tools_table = [
        ("search", _with_progress, "Search code and documents", True),
        ("read", _refusals, "Read file lines", True),
        ("sync", _with_progress, "Sync the index", False),
        ("status", _refusals, "Index status", True),
        ("references", _refusals, "Symbol definitions and uses", True),
        ("find_related", _refusals, "Related code and documents", True),
        ("next_edits", _refusals, "Next edits after an edit", True),
        ("compile_document", _with_progress, "Compile a document", False),
        ("outline", _refusals, "Document outline", True),
        ("citations", _refusals, "Document references and citations", True),
    ]
    for name, wrap, title, read_only in tools_table:
        fn = wrap(getattr(tools, name))
        # the docstring as the description, without its source indentation
        server.add_tool(fn, name=name, description=inspect.cleandoc(fn.__doc__ or ""), structured_output=True,
                        annotations=ann(title, read_only=read_only, idempotent=True))
    server.ctxmill_tools = tools  # type: ignore[attr-defined]
    return server


CLIENTS = ("claude-code", "cursor", "vscode", "zed", "json")


def client_config(client: str, roots: Sequence[str | Path] = ()) -> str:
    """A working registration snippet for ``client``, with absolute paths.

    Desktop apps and editors start stdio servers without the user's shell: no venv on PATH,
    another working folder, a short environment. So the command is this installation's
    absolute path, the root is absolute (or the editor's workspace variable), and the
    ``CTXMILL_*`` settings of this shell go into the config's ``env`` block (names that look
    like secrets are left for the user to add).
    """
    import json
    import shlex
    import sys

    if client not in CLIENTS:
        raise InputRefused(f"{client}: unknown client; one of {', '.join(CLIENTS)}")
    script = Path(sys.executable).with_name("ctxmill")
    command, pre = (str(script), []) if script.exists() else (sys.executable, ["-m", "ctxmill.cli"])
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith("CTXMILL_")
           and not any(w in k for w in ("KEY", "TOKEN", "SECRET", "PASSWORD"))}
    absolute = [str(Path(r).expanduser().resolve()) for r in roots] or [str(Path.cwd())]

    def args(workspace: str | None = None) -> list[str]:
        out = [*pre, "mcp"]
        for r in ([workspace] if workspace else absolute):
            out += ["--root", r]
        return out

    if client == "claude-code":
        flags = " ".join(f"-e {shlex.quote(f'{k}={v}')}" for k, v in env.items())
        return (f"claude mcp add ctxmill --scope project {flags} -- "
                f"{shlex.join([command, *args()])}").replace("  ", " ")
    if client == "cursor":  # .cursor/mcp.json in the project, or ~/.cursor/mcp.json
        cfg = {"mcpServers": {"ctxmill": {"command": command, "args": args("${workspaceFolder}"), "env": env}}}
    elif client == "vscode":  # .vscode/mcp.json
        cfg = {"servers": {"ctxmill": {"type": "stdio", "command": command, "args": args("${workspaceFolder}"),
                                       "env": env}}}
    elif client == "zed":  # settings.json
        cfg = {"context_servers": {"ctxmill": {"source": "custom", "command": command, "args": args(), "env": env}}}
    else:  # any client that reads the common mcpServers shape (Claude Desktop, Windsurf, ...)
        cfg = {"mcpServers": {"ctxmill": {"command": command, "args": args(), "env": env}}}
    return json.dumps(cfg, indent=2)


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
