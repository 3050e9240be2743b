"""The shared vocabulary of ctxmill.

Sources produce a :class:`PageStream` (PDF, raw OCR text and Markdown all meet here).
Compile stages turn it into one :class:`Document` of typed :class:`Block` objects and refine
that document in place. Renderers only read the document and write files.

Every type is a plain dataclass so that stages stay small, testable functions and the JSON
outputs are a direct ``to_dict`` away.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from itertools import compress, repeat
from operator import attrgetter, is_
from types import SimpleNamespace
from typing import Any

BBox = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, origin top-left


# ---------------------------------------------------------------------------- pages


@dataclass
class Span:
    """A run of characters in one font on one line (PDF text layer or OCR word boxes)."""

    text: str
    bbox: BBox | None = None
    size: float = 0.0  # font size in points (OCR: line height)
    font: str = ""
    bold: bool = False
    italic: bool = False
    mono: bool = False
    superscript: bool = False


@dataclass
class Line:
    """One visual line. Raw OCR text has no geometry: ``bbox`` is None and ``spans`` empty."""

    text: str
    bbox: BBox | None = None
    spans: list[Span] = field(default_factory=list)
    confidence: float | None = None  # OCR engines only


@dataclass
class Link:
    """A PDF link annotation: an external URI or an internal destination."""

    bbox: BBox
    uri: str | None = None
    dest_page: int | None = None  # 1-based
    dest_name: str | None = None


@dataclass
class Page:
    number: int  # 1-based physical page number in the stream
    lines: list[Line] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    links: list[Link] = field(default_factory=list)
    images: list[BBox] = field(default_factory=list)
    has_text_layer: bool = True
    ocr: bool = False  # text came from OCR (engine output or pasted OCR text)
    ocr_confidence: float | None = None
    printed_number: str | None = None  # the page number printed on the page, when seen
    declared_total: int | None = None  # "PAGE 2 / 46" says 46
    invisible_chars: int = 0  # text-layer characters drawn invisibly (render mode 3: a scan's OCR layer)
    error: str | None = None  # the page could not be read at all (damaged): why; the other pages still compile
    # figure crops made in the PDF child (compile/figures.py): {label, caption: BBox, bbox: BBox, png: bytes}
    figures: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class OutlineEntry:
    level: int  # 1-based
    title: str
    page: int | None = None


@dataclass
class PageStream:
    """What every source produces; no stage below knows which source it came from."""

    pages: list[Page]
    kind: str  # "pdf" | "ocr_text" | "markdown"
    path: str = ""
    sha256: str = ""
    outline: list[OutlineEntry] = field(default_factory=list)
    declared_pages: int | None = None  # pages the source says exist (may exceed len(pages))
    info: dict[str, Any] = field(default_factory=dict)  # PDF info dict and the like
    input_chars: int = 0
    warnings: list[str] = field(default_factory=list)
    # pages the OCR engine says it could not read (Nougat's [MISSING_PAGE_EMPTY:n]), 1-based
    # printed numbers; QA reports them as missing pages
    missing_pages: list[int] = field(default_factory=list)
    # text the source reader left out of the pages on purpose, {page, reason, text} (an OCR
    # engine's labelled page header, its page markers): conservation counts its words as in and
    # removed, removed.json lists it
    removed: list[dict[str, Any]] = field(default_factory=list)


# ---------------------------------------------------------------------------- document


class BlockKind(str, Enum):  # noqa: UP042 -- str() of a member stays "BlockKind.X"
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    FIGURE = "figure"
    CAPTION = "caption"
    EQUATION = "equation"
    CODE = "code"
    FOOTNOTE = "footnote"
    REFERENCE = "reference"  # one bibliography entry
    FURNITURE = "furniture"  # running header/footer, page number: kept in the model, never rendered


# The same members under plain attribute names (``Kind.HEADING is BlockKind.HEADING``): Python
# 3.11 finds each ``BlockKind.X`` through EnumType.__getattr__ (~0.25 us), and the compile
# stages test block kinds several times per block, on texts of 50,000 blocks a MB.
Kind = SimpleNamespace(**BlockKind.__members__)


@dataclass
class Block:
    kind: BlockKind
    text: str  # Markdown-ready inline text (math already as $...$)
    page: int  # first page
    page_end: int | None = None  # last page when the block crosses a page break
    id: str = ""
    level: int | None = None  # headings: section depth (1 = title); list items: nesting
    number: str | None = None  # heading "3.2", table "1", figure "4", footnote "2", list "1."
    section_id: str | None = None  # the section this block belongs to
    bbox: BBox | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    # attrs by kind:
    #   table:    rows: list[list[str]] (first row is the header), caption: str
    #   figure:   caption: str, image: str | None
    #   code:     language: str | None
    #   list_item: ordered: bool
    #   any:      llm: True when the text was written by an LLM

    @property
    def last_page(self) -> int:
        return self.page_end if self.page_end is not None else self.page


@dataclass
class Author:
    name: str
    affiliations: list[str] = field(default_factory=list)
    email: str | None = None


@dataclass
class Metadata:
    title: str = ""
    authors: list[Author] = field(default_factory=list)
    affiliations: list[str] = field(default_factory=list)
    abstract: str = ""
    arxiv_id: str | None = None
    categories: list[str] = field(default_factory=list)
    date: str | None = None  # ISO yyyy-mm-dd
    doi: str | None = None
    urls: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    pages: int = 0
    source: dict[str, Any] = field(default_factory=dict)  # {path, sha256, kind}


@dataclass
class Section:
    id: str
    level: int
    title: str
    page_start: int
    page_end: int
    number: str | None = None
    block_id: str | None = None  # the heading block
    parent_id: str | None = None


@dataclass
class Reference:
    id: str
    raw: str
    authors: list[str] = field(default_factory=list)
    year: str | None = None  # with suffix letter: "2025a"
    title: str | None = None
    venue: str | None = None
    doi: str | None = None
    url: str | None = None
    arxiv_id: str | None = None
    page: int | None = None
    block_id: str | None = None
    # Fields of the trained reference labeller (compile/refparse), beside the strings above:
    people: list[dict[str, str]] = field(default_factory=list)  # [{family, given?} | {literal}]
    editors: list[dict[str, str]] = field(default_factory=list)
    container: str | None = None  # journal, book or proceedings the work appeared in
    collection: str | None = None  # series
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None  # "389-400" or "S08003"
    publisher: str | None = None
    location: str | None = None
    edition: str | None = None
    isbn: str | None = None
    note: str | None = None
    type: str | None = None  # BibTeX entry type: article, inproceedings, book, misc ...
    confidence: float | None = None  # mean marginal probability of the labels (0-1)
    doubtful: str | None = None  # why the parse is not to be trusted ("low confidence 0.62"), or None


@dataclass
class Mention:
    """An in-text citation callout linked to bibliography entries."""

    text: str
    reference_ids: list[str]
    section_id: str | None
    page: int
    chunk_id: str | None = None
    block_id: str | None = None
    char_span: tuple[int, int] | None = None  # within document.md


@dataclass
class CrossRef:
    text: str
    kind: str  # section | figure | table | equation | footnote | appendix
    target_id: str | None
    section_id: str | None
    page: int
    block_id: str | None = None


@dataclass
class Unresolved:
    text: str
    kind: str  # citation | crossref
    reason: str
    page: int
    section_id: str | None = None


@dataclass
class Chunk:
    id: str
    text: str
    tokens: int
    kind: str  # text | table | figure | code | equation | references | mixed
    section_path: list[str]
    pages: tuple[int, int]
    char_span: tuple[int, int]
    citations: list[str] = field(default_factory=list)
    context: str | None = None  # optional LLM-written context header (marked as such)
    context_llm: bool = False  # True when `context` was written by an LLM (--llm)


@dataclass
class QACheck:
    id: str
    severity: str  # error | warning | info
    message: str
    location: dict[str, Any] | None = None  # {page?, section_id?, block_id?, char_span?}


@dataclass
class QAReport:
    score: int = 100
    checks: list[QACheck] = field(default_factory=list)


@dataclass
class Metrics:
    stages: dict[str, float] = field(default_factory=dict)  # stage name -> seconds
    total_seconds: float = 0.0
    pages: int = 0
    input_chars: int = 0
    chunks: int = 0
    llm: dict[str, Any] | None = None

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.total_seconds if self.total_seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stages": {name: {"seconds": round(s, 6)} for name, s in self.stages.items()},
            "total_seconds": round(self.total_seconds, 6),
            "pages": self.pages,
            "pages_per_second": round(self.pages_per_second, 3),
            "input_chars": self.input_chars,
            "chunks": self.chunks,
        }
        if self.llm is not None:
            out["llm"] = self.llm
        return out


@dataclass
class Document:
    """One compiled document. Stages fill it in order; renderers only read it."""

    stream: PageStream
    blocks: list[Block] = field(default_factory=list)
    metadata: Metadata = field(default_factory=Metadata)
    sections: list[Section] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    crossrefs: list[CrossRef] = field(default_factory=list)
    unresolved: list[Unresolved] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    qa: QAReport = field(default_factory=QAReport)
    metrics: Metrics = field(default_factory=Metrics)
    markdown: str = ""  # document.md, set by the markdown stage
    block_spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # block id -> span in markdown
    # stage results without a type of their own: "removed" (text left out of document.md on
    # purpose, with page and reason) and "conservation" (per-page word counts), compile/conservation.py
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return len(self.stream.pages)

    def blocks_of(self, kind: BlockKind) -> list[Block]:
        return list(of_kind(self.blocks, kind))


_KIND = attrgetter("kind")


def of_kind(blocks, kind: BlockKind):
    """The blocks of ``kind``, in order, picked in C (no Python step a block: raw OCR text has
    47,000 one-line paragraphs a MB, and several stages pick their kind out of them)."""
    return compress(blocks, map(is_, map(_KIND, blocks), repeat(kind)))


def to_jsonable(obj: Any) -> Any:
    """dataclasses/enums/tuples -> plain JSON types."""
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if hasattr(obj, "__dataclass_fields__"):
        return {k: to_jsonable(v) for k, v in asdict(obj).items()}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return obj
