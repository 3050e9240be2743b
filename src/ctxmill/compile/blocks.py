"""Pages -> typed blocks.

Two roads, one output. Pages with geometry (a PDF text layer, OCR with boxes) are grouped into
blocks by vertical gaps, font changes, indentation and captions; tables are rebuilt from the
column positions of their text. Pages of plain text lines (raw OCR text, Markdown) are read
line by line: a MinerU-style OCR line is one paragraph, HTML tables and image placeholders are
recognised, Markdown syntax is honoured.

Blocks carry private working attributes (keys starting with ``_``) that the later compile
stages (normalize, structure, metadata) use and :mod:`ctxmill.compile.structure` removes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import fields
from itertools import compress, repeat
from math import isfinite
from operator import attrgetter

from ctxmill.compile import conservation, layout, logos, slides, tables
from ctxmill.compile import figures as floats
from ctxmill.compile.headings import parse_number
from ctxmill.compile.normalize import CJK_CHAR_RE, cjk_seam
from ctxmill.compile.options import CompileOptions
from ctxmill.linescan import line_hits, line_hits_group
from ctxmill.model import Block, Document, Kind, Line, Page, Span

# the number may be a chapter's or section's ("Figure 2.1:", numbered within sections)
CAPTION_RE = re.compile(r"^(Table|Figure|Fig\.?|Listing|Algorithm)\s*(\d+(?:\.\d+)?(?=[\s:.|]|$)|\d+|[A-Z]\.?\d+|[IVX]+)"
                        r"\s*[:.|]?\s*(.*)$", re.S)
# A label in capitals, numbered in figures: WileyNJD's "FIGURE 1 Prior dose-response ...", REVTeX's
# "FIG. 2. (a) Phase space ..." (IEEE's "TABLE I" over a title line is read by structure.py); a roman
# number only with a stop after it: IEEE's "TABLE II: Parameters ..." (no running text sets that)
_CAPS_CAPTION_RE = re.compile(r"^(TABLE|FIGURE|FIG\.?)\s*(\d+(?=[\s.:|])|[IVXLC]+(?=[.:]\s))\s*[:.|]?\s*(.*)$", re.S)
_CAPS_LABELS = {"TABLE": "Table", "FIGURE": "Figure", "FIG.": "Fig.", "FIG": "Fig."}
LIST_RE = re.compile(r"^\s*(?:([•●○◦▪‣∙·\-–*])|(\(?\d{1,2}[.)])|(\(?[a-z][.)])|(\([ivx]{1,4}\)))\s+(\S.*)$", re.S)
HEADING_NUM_RE = re.compile(r"^((?:\d{1,2}(?:\.\d{1,2}){0,3})|(?:[A-Z](?:\.\d{1,2}){0,3}))\.?\s+(\S.{0,160})$", re.S)
UNNUMBERED_HEADINGS = {
    "abstract", "references", "bibliography", "acknowledgments", "acknowledgements", "acknowledgment",
    "acknowledgement", "appendix", "appendices", "related work", "conclusion", "conclusions",
    "introduction", "supplementary material", "literature cited", "works cited",
}
BIBLIOGRAPHY_TITLES = {"references", "bibliography", "literature cited", "works cited", "reference list"}
_BBOX = attrgetter("bbox")
_SPANS = attrgetter("spans")


def _fix(box):
    return tuple(v if isfinite(v) else 0.0 for v in box)


def finite_geometry(pages: list[Page]) -> None:
    """A damaged PDF can give a coordinate or a font size that is NaN or infinite (a flipped
    byte in a content stream): it becomes 0, so that no stage's arithmetic (round, int) fails
    on it and the page still compiles. (The sum of four finite numbers is finite but for an
    overflow, which only moves a box through _fix unchanged.)"""
    for page in pages:
        if not (isfinite(page.width) and isfinite(page.height)):
            page.width, page.height = _fix((page.width, page.height))
        if page.images and not all(isfinite(sum(b)) for b in page.images):
            page.images = [_fix(b) for b in page.images]
        for ln in page.lines:
            if ln.bbox is not None and not isfinite(sum(ln.bbox)):
                ln.bbox = _fix(ln.bbox)
            for sp in ln.spans:
                if sp.bbox is not None and not isfinite(sum(sp.bbox)):
                    sp.bbox = _fix(sp.bbox)
                if not isfinite(sp.size):
                    sp.size = 0.0


def run(doc: Document, options: CompileOptions) -> None:
    pages = doc.stream.pages
    if doc.stream.kind == "pdf":  # (text input has no coordinates)
        finite_geometry(pages)
    ctx = _Context(pages)
    blocks: list[Block] = []
    markdown = doc.stream.kind == "markdown"
    numbered: dict = {}  # the margin column of line numbers so far and its last number
    for page in pages:
        if not page.lines:
            continue
        # (the bbox scan first: it runs in C, and a page of text input has no bbox at all)
        if any(map(_BBOX, page.lines)) and any(line.bbox is not None and line.spans for line in page.lines):
            before = [ln.text for ln in page.lines]
            if layout.strip_line_numbers(page, numbered):  # review copies: "282 5.1 Ablation Study"
                conservation.note_dropped(doc, page.number, "line-number", before, page.lines)
            g = layout.split_columns(page)  # a line across the gutter becomes two
            layout.order_columns(page, g)  # interleaved two-column streams read column by column
            ctx.columns = layout.column_bounds(page, g, ctx.left, ctx.right)
            blocks.extend(_geo_blocks(page, ctx, doc))
        else:
            blocks.extend(_coalesce_tiny(_text_blocks(page, markdown), page.number, runs=not markdown))
    for i, b in enumerate(blocks):
        b.id = f"b{i}"
    doc.blocks = blocks


# ====================================================================== geometry


class _Context:
    """Document-wide font statistics used to read each page."""

    def __init__(self, pages: list[Page]):
        sizes: Counter[float] = Counter()
        lefts: Counter[int] = Counter()
        rights: Counter[int] = Counter()
        fonts: Counter[tuple[float, str]] = Counter()
        for p in pages:  # only lines with spans or a box count: filter() skips the rest in C
            for ln in filter(_SPANS, p.lines):
                for s in ln.spans:
                    if not s.superscript:
                        sizes[round(s.size, 1)] += len(s.text)
                        fonts[round(s.size, 1), s.font] += len(s.text)
            for ln in filter(_BBOX, p.lines):
                if len(ln.text) > 40:
                    lefts[round(ln.bbox[0])] += 1
                    rights[round(ln.bbox[2])] += 1
        self.body_size = sizes.most_common(1)[0][0] if sizes else 10.0
        # the body's family: sans (Helvetica, BeraSans) or not; a line wholly in the other
        # family may be a heading set in the body's size (bmcart's sans \subsection* over serif text)
        sans = sum(n for (size, font), n in fonts.items() if size == self.body_size and _sans_face(font))
        self.body_sans = 2 * sans > sizes.get(self.body_size, 0)
        self.left = lefts.most_common(1)[0][0] if lefts else 72
        self.right = max((x for x, c in rights.items() if c >= max(2, rights.most_common(1)[0][1] // 4)),
                         default=540) if rights else 540
        self.width = max(100.0, self.right - self.left)
        self.columns: list[tuple[float, float]] = [(self.left, self.right)]  # of the page being read
        self.pitch, self.gap = _body_spacing(pages, self.body_size)


def _body_spacing(pages: list[Page], body: float) -> tuple[float, float]:
    """The usual baseline-to-baseline pitch and white gap between two lines of body text: 1.2
    times the type in most papers, about twice it in a double-spaced thesis or referee copy."""
    pitches: Counter[float] = Counter()
    gaps: Counter[float] = Counter()
    for p in pages[:40]:  # (enough pages to know the spacing)
        prev = None
        for ln in filter(_BBOX, p.lines):
            size = max((s.size for s in ln.spans if not s.superscript), default=0.0) if ln.spans else 0.0
            if abs(size - body) > 0.3 or len(ln.text) < 30:
                prev = None
                continue
            if prev is not None and ln.bbox[0] < prev.bbox[2] and ln.bbox[2] > prev.bbox[0]:
                pitch = ln.bbox[3] - prev.bbox[3]
                if 0 < pitch < 3 * body:
                    pitches[round(pitch * 2) / 2] += 1
                    gaps[round((ln.bbox[1] - prev.bbox[3]) * 2) / 2] += 1
            prev = ln
    if not pitches:
        return 1.2 * body, 0.2 * body
    return pitches.most_common(1)[0][0], gaps.most_common(1)[0][0]


class _L:
    """A line with its derived features."""

    __slots__ = ("line", "text", "x0", "x1", "top", "bottom", "size", "bold", "mono", "italic", "wide", "page",
                 "first_bold", "lead_bold", "caps", "smallcaps")

    def __init__(self, line: Line, page: int):
        self.line = line
        self.page = page
        self.text = t = line.text
        x0, top, x1, bottom = line.bbox
        self.x0, self.x1, self.top, self.bottom = x0, x1, top, bottom
        if len(line.spans) == 1 and not line.spans[0].superscript:
            # (two lines in three) one span: what the loops below give for it, without a Counter
            s = line.spans[0]
            some = bool(s.text.strip())  # its share of the line's characters is all or nothing
            self.size = round(s.size, 1)
            self.bold, self.mono, self.italic = some and bool(s.bold), some and bool(s.mono), some and bool(s.italic)
            self.first_bold = s.bold
            self.caps = t.isupper() and sum(1 for c in t if c.isalpha()) >= 3
            self.smallcaps = False  # (capitals in two sizes)
            self.lead_bold = s.text.strip() if s.bold else ""
            self.wide = False  # (a gap between two spans)
            return
        counts: Counter[float] = Counter()
        bold = mono = italic = total = 0
        margin_no = _margin_line_number(line.spans)
        for s in line.spans:
            if s.superscript:
                continue
            n = len(s.text.strip())
            counts[round(s.size, 1)] += n
            total += n
            if s.bold:
                bold += n
            if s.mono or s is margin_no:
                mono += n
            if s.italic:
                italic += n
        total = max(total, 1)
        self.size = counts.most_common(1)[0][0] if counts else 0.0
        self.bold = bold / total >= 0.85
        self.mono = mono / total >= 0.85
        self.italic = italic / total >= 0.85
        spans = [s for s in line.spans if not s.superscript]
        self.first_bold = bool(spans) and spans[0].bold
        # all capitals ("I. INTRODUCTION"); small capitals are capitals in two sizes, the
        # line's true size being the larger one
        t = line.text  # str.isupper() first: no per-character loop for ordinary lines
        self.caps = t.isupper() and sum(1 for c in t if c.isalpha()) >= 3
        self.smallcaps = self.caps and len(counts) >= 2 and min(counts) >= 0.6 * max(counts)
        self.lead_bold = spans[0].text.strip() if spans and spans[0].bold else ""
        self.wide = False
        prev = None
        for s in line.spans:
            if prev is not None and s.bbox and prev.bbox and s.bbox[0] - prev.bbox[2] > max(self.size, 6.0):
                self.wide = True
                break
            prev = s


# a superscript run of numbers with blanks after its commas: "1, 2", "3, 5, 7"
_SPACED_NUMBERS = re.compile(r"\d{1,4}(?:,\s*\d{1,4})+")


def span_text(line: Line, *, footnote_marks: bool = True) -> str:
    """Line text with superscripts written as ``[^n]`` (footnote style)."""
    if not line.spans:
        return line.text
    if len(line.spans) == 1 and not line.spans[0].superscript:  # (two lines in three)
        return _one_space(line.spans[0].text)
    line = logos.latex_line(line)  # the LaTeX logo's raised A is no mark
    parts: list[str] = []
    prev = None
    spans: list[Span] = []
    said: set[int] = set()  # spans the line's text has a space before
    spaced = _spaced_spans(line)
    for i, s in enumerate(line.spans):  # neighbouring superscript runs ("1" "," "2") form one marker
        if s.superscript and spans and spans[-1].superscript:
            spans[-1] = Span(text=spans[-1].text.strip() + s.text.strip(), bbox=spans[-1].bbox, size=spans[-1].size,
                             superscript=True)
        else:
            spans.append(s)
            if spaced is not None and spaced[i]:
                said.add(id(s))
    for s in spans:
        t = s.text
        if prev is not None and s.bbox and prev.bbox:
            gap = s.bbox[0] - prev.bbox[2]
            if (gap > max(s.size, prev.size) * 0.18 or id(s) in said and _level(prev, s)) \
                    and not (parts and parts[-1].endswith(" ")):
                if not s.superscript:
                    parts.append(" ")
        if s.superscript and footnote_marks:
            mark = t.strip()
            if ", " in mark and _SPACED_NUMBERS.fullmatch(mark):
                mark = mark.replace(" ", "")  # one run "1, 2" (Scientific Data): the blank broke the mark
            if mark and len(mark) <= 8 and re.fullmatch(r"[\w,*†‡§¶∗⋆]+", mark) and mark.strip(","):
                parts.append(f"[^{mark.strip(',')}]")
            else:
                parts.append(f"^{mark}")
        else:
            parts.append(t)
        prev = s
    return _one_space("".join(parts))


def _spaced_spans(line: Line) -> list[bool] | None:
    """For each span, whether the line's text has a space before it; None where the spans do
    not spell the line's text. The reader put that space where the PDF has one (a space
    character, real or pdfium's), which the gap between two boxes can miss: a math-italic
    letter's box starts left of its advance ("if 𝑛", "of 𝐺" are 0.13 em apart)."""
    text = line.text
    pos = 0
    out = []
    for s in line.spans:
        j = pos
        while j < len(text) and text[j] == " ":
            j += 1
        if not text.startswith(s.text, j):
            return None
        out.append(j > pos)
        pos = j + len(s.text)
    return out


def _level(a: Span, b: Span) -> bool:
    """A word and a word (a letter or a digit each side) in one type size on one line: where the
    line's space between two spans is the PDF's word space. (pdfium also puts one where the text
    steps up or down, before a superscript or a subscript: "E^miss_T", "S_G" stay whole; and after
    a comma in math, "S_G,T_G", which stays as it was read.)"""
    if a.superscript or b.superscript or abs(a.size - b.size) > 0.15 * max(a.size, b.size):
        return False
    if not (a.text[-1:].isalnum() and b.text[:1].isalnum()) or a.bbox is None or b.bbox is None:
        return False
    return min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1]) >= 0.5 * min(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1])


_BLANKS = re.compile(r"[ \t]+")


def _one_space(text: str) -> str:
    """``text`` with each run of spaces and tabs one space, stripped; without a regex pass where
    it has no such run longer than one space (most lines)."""
    if "\t" in text or "  " in text:
        text = _BLANKS.sub(" ", text)
    return text.strip()


def _inside(box, area, margin=2.0) -> bool:
    cx = (box[0] + box[2]) / 2
    cy = (box[1] + box[3]) / 2
    if not (area[0] - margin <= cx <= area[2] + margin and area[1] - margin <= cy <= area[3] + margin):
        return False
    # most of the line's width too: a heading that starts in the margin left of a figure's
    # box and runs into it is text beside the figure, not a label in it
    w = box[2] - box[0]
    return w <= 0 or min(box[2], area[2] + margin) - max(box[0], area[0] - margin) >= 0.8 * w


def _geo_blocks(page: Page, ctx: _Context, doc: Document | None = None) -> list[Block]:
    body = ctx.body_size
    ls: list[_L] = []
    figure_text: list[tuple[int, str]] = []
    rotated: list[Line] = []
    figures = conservation.figure_boxes(page)  # (a page-size scan or background is no figure)
    figures = layout.drop_text_frames(figures, page.lines, body, ctx.width, page.ocr)
    # a deck's frame title over a picture that runs under the title band is the frame's title
    # (round30_deck_rule.md D5); an overlay build's page has none (its title went as a repeat)
    title = slides.frame_title(page, body) if figures and doc is not None and doc.attrs.get("slide_deck") \
        and page.number not in doc.attrs.get("_overlay_pages", ()) else None
    cap_run: tuple[int, Line, float] | None = None  # a caption inside a figure's box: (figure, last line, size)
    # the PDF's bookmarks of this page: a line that one names is a heading set over (or beside) a
    # picture, as a word processor places an inline picture right under its head, no figure's label
    marked = {" ".join(e.title.casefold().split()) for e in doc.stream.outline if e.page == page.number} \
        if figures and doc is not None else ()
    for line in page.lines:
        if line.bbox is None or not line.spans:
            rotated.append(line)
            continue
        if figures and line is not title and any(_inside(line.bbox, im) for im in figures) \
                and not (marked and " ".join(line.text.casefold().split()) in marked):
            # text drawn inside an included figure (labels of a diagram)
            idx = next(i for i, im in enumerate(figures) if _inside(line.bbox, im))
            size = max((s.size for s in line.spans if not s.superscript), default=0.0)
            wraps = cap_run is not None and cap_run[0] == idx and abs(size - cap_run[2]) <= 0.3 \
                and -0.3 * size <= line.bbox[1] - cap_run[1].bbox[3] <= 0.8 * size and line.bbox[0] >= cap_run[1].bbox[0] - 3
            if wraps or floats.caption_in_box(line.spans, line.text, body):
                # a caption the figure's box runs under, and the lines it wraps to, stay text
                cap_run = (idx, line, cap_run[2] if wraps else size)
                ls.append(_L(line, page.number))
                continue
            cap_run = None
            figure_text.append((idx, line.text))
            continue
        cap_run = None
        ls.append(_L(line, page.number))
    if figure_text and not ls:  # a page's only text is its text, not a figure's labels (issue 21)
        ls = [_L(line, page.number) for line in page.lines if line.bbox is not None and line.spans]
        figure_text = []
    code_starts = _code_runs(ls, body)
    out: list[Block] = []
    for line in rotated:
        out.append(Block(Kind.PARAGRAPH, line.text, page.number, attrs={"_rotated": True}))
    i = 0
    n = len(ls)
    above = tables.tables_above_captions(ls, body, ctx)  # grids printed over their caption
    colon_tables = tables.colon_captions(ls, body, ctx)  # "Table 1.2: ..." in body type over a grid
    while i < n:
        cur = ls[i]
        if i in above:
            k, cells, tlines = above[i]
            out.append(Block(Kind.TABLE, "", page.number, bbox=_union([x.line.bbox for x in tlines]),
                             attrs={"caption": "", **cells}))
            i = k
            continue
        head = tables.label_over_title(ls, i)
        if head:  # IEEE's "TABLE II" alone over its centred title: the table's caption, its rows below
            j, number = head
            k, cells, tlines = tables.table_under_title(ls, j, body, ctx)
            out.append(Block(Kind.TABLE, "", page.number, number=number,
                             bbox=_union([x.line.bbox for x in ls[i:j] + tlines]),
                             attrs={"caption": _join([span_text(x.line) for x in ls[i + 1:j]]), **cells,
                                    "_label": f"Table {number}"}))
            i = k
            continue
        cap = _caption_match(cur.text)
        colon = bool(cap) and cur.text[cap.end(2):cap.end(2) + 1] in (":", "：")
        apart = bool(cap) and floats.label_apart(cur.line.spans, cap.group(1), cap.group(2))
        alone = bool(cap) and _label_over_title(cur, cap, ls[i + 1] if i + 1 < n else None)
        hang = bool(cap) and i + 1 < n and _caption_hangs(cur, cap, ls[i + 1])
        if cap and (cur.first_bold or cur.size < body - 0.3 or apart or alone or hang
                    or _float_colon(cur.text, cap) or i in colon_tables
                    or colon and (_centered([cur], ctx.columns) or _centered([cur], [(ctx.left, ctx.right)])
                                  or cap.group(1).isupper() and _centered([cur], [_extent(ls)]))) \
                and (_caption_label_ok(cur, cap) or apart or alone or colon):
            # (a figure's label in the body's own type counts with a colon after its number:
            # "Figure 1: ...", as JSS and A&A print it; running text does not put one there. A
            # table's is left to the table finders, which read the grid around it, unless the
            # caption line is centred ("Table 3.1: Table of numbers." over a small grid). A
            # label in a face of its own (APA's italic "Figure 1."), or alone over an italic
            # title line (APA's "Table 1"), is a caption too. After a colon the title may
            # start in lower case: "Figure 2.1: the study area". A label in capitals with its colon,
            # centred between the page's text edges, is a full-width float's over both columns of a
            # two-column page: IEEE's "TABLE I: ...")
            kind = floats.float_kind(cap.group(1))
            j = i + 1
            lines = [cur]
            if alone:
                lines.append(ls[j])
                j += 1
            while j < n and _continues_caption(lines, ls[j], ctx, ls[j + 1] if j + 1 < n else None) \
                    and not (kind and (ls[j].lead_bold or _ALGO_LINE.match(ls[j].text))) \
                    and not (ls[j].first_bold and (CAPTION_RE.match(ls[j].text) or floats.FOREIGN_CAPTION_RE.match(ls[j].text))) \
                    and not (hang and (len(lines) >= 2 and ls[j].x0 < lines[1].x0 - 6 or _caption_match(ls[j].text))):
                # (an algorithm's "Input:" or "1: x ← 0" line is its body, not its caption; the next
                # caption's bold "Figure 3" starts a caption of its own: a list of figure legends; a
                # line back at a hanging caption's label edge is the next caption's or the text's)
                lines.append(ls[j])
                j += 1
            caption = _join([span_text(x.line) for x in lines])
            label, number, rest = _caption_label(cap.group(1)), cap.group(2), cap.re.match(caption).group(3)
            if doc is not None:
                _note_label(doc, page.number, cap.group(1), "Table" if label == "Table" else floats.FLOAT_LABELS.get(kind or "", "Figure"))
            if label == "Table":
                if alone:  # (APA's label line over its title: only a grid the uncaptioned finder vouches for)
                    k, cells, tlines = tables.table_at(ls, j, body, ctx) or (j, {"rows": []}, []) if j < n \
                        else (j, {"rows": []}, [])
                else:
                    k, cells, tlines = tables.table_after(ls, j, body, ctx)
                    if len(cells["rows"]) < 2 and not (cur.first_bold or cur.size < body - 0.3 or apart):
                        # a caption in the body's own type vouches for no one-row grid (sub-figure
                        # labels "(a) ... (b) ..." under a table set above its caption)
                        k, cells, tlines = j, {"rows": []}, []
                prev = out[-1] if out else None
                if not tlines and prev is not None and prev.kind is Kind.TABLE and not prev.attrs.get("caption"):
                    # the caption under its table (found by tables.table_at)
                    prev.number, prev.attrs["caption"], prev.attrs["_label"] = number, rest.strip(), f"{label} {number}"
                    prev.bbox = _union([prev.bbox] + [x.line.bbox for x in lines])
                    i = j
                    continue
                blk = Block(Kind.TABLE, "", page.number, number=number,
                            bbox=_union([x.line.bbox for x in lines + tlines]),
                            attrs={"caption": rest.strip(), **cells, "_label": f"{label} {number}"})
                out.append(blk)
                i = k
                continue
            fig_texts = [t for _, t in figure_text]
            out.append(Block(Kind.FIGURE, "", page.number, number=number, bbox=_union([x.line.bbox for x in lines]),
                             attrs={"caption": rest.strip(), "image": None, "_label": f"{label} {number}",
                                    "figure_text": fig_texts, **({"float": kind} if kind else {})}))
            figure_text = []
            i = j
            continue
        # code: a run of monospace lines
        j, code = _mono_run(ls, i, body)
        if code:
            code_lines = _indented(ls[i:j])
            out.append(Block(Kind.CODE, "\n".join(code_lines), page.number,
                             bbox=_union([x.line.bbox for x in ls[i:j]]), attrs={"language": None}))
            i = j
            continue
        found = tables.table_at(ls, i, body, ctx)  # a table nobody captioned (a 10-K statement)
        if found:
            k, cells, tlines = found
            out.append(Block(Kind.TABLE, "", page.number, bbox=_union([x.line.bbox for x in tlines]),
                             attrs={"caption": "", **cells}))
            i = k
            continue
        # paragraph (or heading candidate, list item)
        j = i + 1
        lines = [cur]
        while j < n and j not in code_starts and j not in above and j not in colon_tables \
                and not _breaks(lines, ls[j], ctx, ls[j + 1] if j + 1 < n else None):
            lines.append(ls[j])
            j += 1
        out.append(_para_block(lines, page, ctx))
        i = j
    if doc is not None:  # labels of a figure whose caption is elsewhere: listed in removed.json
        for _, t in figure_text:
            conservation.note_removed(doc, page.number, "figure-text", t)
    return tables.attach_captions(out)


def _margin_line_number(spans) -> object | None:
    """A numbered listing's margin number: the line's first span a bare integer in a roman face with
    typewriter text after it (docstrip's and listings' ``numbers=left``, ``14 \\begingroup``). It does
    not count against the line's monospace share, else a short code line (``7 \\else``) falls under it
    and cuts the listing into paragraphs; it stays in the text."""
    spans = [s for s in spans if not s.superscript and s.text.strip()]
    if len(spans) < 2 or spans[0].mono or not _LINE_NO.fullmatch(spans[0].text.strip()):
        return None
    return spans[0] if all(s.mono for s in spans[1:]) else None


_LINE_NO = re.compile(r"\d{1,5}")


def _code_runs(ls: list[_L], body: float) -> set[int]:
    """Indexes where a run of at least three monospace lines starts (a code block)."""
    starts: set[int] = set()
    i = 0
    while i < len(ls):
        j, code = _mono_run(ls, i, body)
        if code:
            starts.add(i)
        i = j
    return starts


def _mono_run(ls: list[_L], i: int, body: float) -> tuple[int, bool]:
    """The run of monospace lines that line i opens: where it ends (i + 1 where line i opens none)
    and whether it is a code block (three lines or more that are not a list of URLs)."""
    x = ls[i]
    if not (x.mono and not x.wide and x.size <= body + 0.5):
        return i + 1, False
    j = i + 1
    while j < len(ls) and ls[j].mono and (ls[j].top - ls[j - 1].bottom < 1.2 * max(x.size, 4) or _blank_code_line(ls, i, j)):
        j += 1
    return j, j - i >= 3 and not _urls_only(ls[i:j])


def _blank_code_line(ls: list[_L], i: int, j: int) -> bool:
    """Line j goes on the monospace run ls[i:j] over one blank line (its baseline at most two of the
    run's line pitches under the line before): a listing's empty line (a notebook cell's, a
    program's between its functions), the next line set at a left edge the run already has, in its
    size."""
    x, y = ls[i], ls[j]
    if j - i < 2 or abs(y.size - x.size) > 0.5:
        return False
    pitch = ls[i + 1].bottom - x.bottom
    return (0 < pitch < 2.0 * max(x.size, 4) and y.bottom - ls[j - 1].bottom <= 2 * pitch + 0.15 * x.size
            and any(abs(y.x0 - z.x0) <= 1.0 for z in ls[i:j]))


def _urls_only(lines: list[_L]) -> bool:
    """A run of monospace lines that lists URLs (notes or items whose ``\\url`` is set in typewriter
    type): at least half the lines hold one and every other line is a URL's broken tail (no space)."""
    with_url = sum(1 for x in lines if _URL_BIT.search(x.text))
    return with_url * 2 >= len(lines) and all(_URL_BIT.search(x.text) or " " not in x.text.strip() for x in lines)


def _indented(lines: list[_L]) -> list[str]:
    """Monospace lines -> text with 4-space indentation per distinct left edge."""
    levels: list[float] = []
    for x in sorted(x.x0 for x in lines):
        if not levels or x - levels[-1] > max(lines[0].size * 0.8, 2.0):
            levels.append(x)

    def level(x0: float) -> int:
        return max(i for i, v in enumerate(levels) if v <= x0 + max(lines[0].size * 0.8, 2.0))

    return ["    " * level(x.x0) + x.text for x in lines]


def _caption_match(text: str) -> re.Match | None:
    """A caption's label at the line's start: English ("Figure 2:", "Fig. 3.", "Table 1"), in
    capitals ("FIG. 1.", "TABLE II:"), or another language's (figures.CAPTION_WORDS_BY_LANGUAGE:
    "Abbildung 4.3:", "Rys. 1.", "Рис. 2.", "图 1:")."""
    return CAPTION_RE.match(text) or _CAPS_CAPTION_RE.match(text) or floats.FOREIGN_CAPTION_RE.match(text)


def _caption_label(word: str) -> str:
    """The label a caption's printed word is written with: "Figure" for "FIGURE" and "Abbildung",
    "Table" for "TABLE" and "Tabelle"; English's own words ("Fig.", "Listing") as printed."""
    return _CAPS_LABELS.get(word) or floats.foreign_label(word) or word


def _note_label(doc: Document, page: int, printed: str, written: str) -> None:
    """The Markdown writes a caption's label as "Figure 2" / "Table 1": the printed word it does not
    repeat ("Fig.", "Abbildung", "Рис.") is listed in removed.json, so no word of the page is lost."""
    if conservation.words(printed) != conservation.words(written):
        conservation.note_removed(doc, page, "caption-label", printed)


def _caption_label_ok(line: _L, m: re.Match) -> bool:
    """"Table 3 summarizes ..." in running text is not a caption: the label must stand out."""
    if line.lead_bold and line.lead_bold.startswith(m.group(1)):
        return True
    rest = m.group(3)
    return bool(rest) and line.size > 0 and not rest[:1].islower()


def _float_colon(text: str, m: re.Match) -> bool:
    """A figure's, an algorithm's or a listing's label with a colon after its number ("Figure 1:
    ..."): a caption even in the body's own type, where running text puts no colon there."""
    return _caption_label(m.group(1))[0] in "FAL" and text[m.end(2):m.end(2) + 1] in (":", "：")


_ALGO_LINE = re.compile(r"\d{1,3}:\s")  # algorithmicx's numbered line "1: (A, X) ← initial values"


def _label_over_title(line: _L, m: re.Match, nxt: _L | None) -> bool:
    """APA's float label: "Table 1" alone on its line, the title in italics on the next (or in a
    font of its own: a sans label over a lighter sans title)."""
    if m.group(3).strip() or nxt is None or nxt.page != line.page or line.italic:
        return False
    if not nxt.italic and not floats.label_apart(line.line.spans[:1] + nxt.line.spans[:1], m.group(1), m.group(2)):
        return False
    return abs(nxt.size - line.size) <= 0.6 and 0 <= nxt.top - line.bottom <= 2.0 * max(line.size, 4) \
        and abs(nxt.x0 - line.x0) <= 3 and m.group(1) in ("Table", "Figure")


_LEADERS_END = re.compile(r"(?:\.\s*){3,}\d*$|\s\d{1,4}$")


def _caption_hangs(line: _L, m: re.Match, nxt: _L) -> bool:
    """A caption in the body's own type set with a hanging indent ("Fig. 6. Average controller ..." over
    "as a function of ...", 20 pt in: IFAC's, the caption package's "hang"): its label closed by a
    stop or a colon, its next line in the same type, one line lower, indented under the label, as no
    paragraph of running text is. (A list of figures' wrapped entry ends in its page number.)"""
    sep = m.string[m.end(2):m.end(2) + 1]
    return sep in ".:" and nxt.page == line.page and abs(nxt.size - line.size) <= 0.3 \
        and 8 <= nxt.x0 - line.x0 <= 40 and 0 < nxt.bottom - line.bottom <= 1.6 * max(line.size, 4.0) \
        and not _LEADERS_END.search(nxt.text) and not _LEADERS_END.search(line.text)


def _continues_caption(lines: list[_L], nxt: _L, ctx: _Context, after: _L | None) -> bool:
    prev = lines[-1]
    if abs(nxt.size - prev.size) > 0.6 or nxt.wide:
        return False
    if _same_line_piece(prev, nxt):
        return True
    gap_most = 0.8 * max(prev.size, 4)
    if ctx.pitch > 1.3 * ctx.body_size and prev.size <= ctx.body_size + 0.6:
        # a caption in a double-spaced manuscript's body type, or in its smaller type (REVTeX's
        # preprint sets its captions double-spaced too)
        gap_most = max(gap_most, ctx.gap + 0.45 * prev.size)
    if nxt.top - prev.bottom > gap_most \
            and not _steady_wrap(lines, nxt, after, nxt.bottom - prev.bottom, ctx):  # (a double-spaced caption)
        return False
    if nxt.bold and not prev.bold:
        return False
    if len(lines) >= 2 and _hung(lines[0], lines[1]) and nxt.x0 < lines[1].x0 - 6:
        return False  # (back at a hanging caption's label edge: the text after it)
    return nxt.x0 < prev.x0 + 40 or _hangs_under_title(lines[0], nxt) \
        or len(lines) == 1 and _hanging_block(lines[0], nxt, after) \
        or nxt.x1 - nxt.x0 < prev.x1 - prev.x0 and abs((nxt.x0 + nxt.x1) - (prev.x0 + prev.x1)) <= 8
    # (a shorter line centred under the one before: a caption whose last line is centred, JFM's)


def _hung(first: _L, second: _L) -> bool:
    """The caption's second line stands right of its first, within the label's width or so, and
    ends no further right: a hanging indent, not a shorter line centred under the first."""
    return 8 <= second.x0 - first.x0 <= 6 * max(first.size, 4) and second.x1 <= first.x1 + 2 \
        and abs((second.x0 + second.x1) - (first.x0 + first.x1)) > 8


def _hanging_block(first: _L, nxt: _L, after: _L | None) -> bool:
    """A caption set with a hanging indent whose title shares a span with its label (classicthesis'
    "Figure 11: The hierarchical ..." over lines 47 pt in): the next line stands under the title, and
    the line after it starts at the same edge at the same pitch, as no paragraph after a caption does
    (its second line goes back to the margin)."""
    return after is not None and _hung(first, nxt) and after.page == nxt.page and abs(after.x0 - nxt.x0) <= 1.5 \
        and abs(after.size - nxt.size) <= 0.3 \
        and abs((after.bottom - nxt.bottom) - (nxt.bottom - first.bottom)) <= 0.2 * max(first.size, 4)


def _same_line_piece(prev: _L, nxt: _L) -> bool:
    """The rest of the caption's line, split off by the text layer at a radical or a raised
    glyph ("... Re =" then "√" then "We/Oh. The three ..."): it starts where the line before it
    ends, within two letters' width, on that line's height, and is no caption of its own."""
    return nxt.page == prev.page and 0 <= nxt.x0 - prev.x1 + 2 <= 2 * max(prev.size, 4) + 2 \
        and nxt.top < prev.bottom and nxt.bottom > prev.top and not _caption_match(nxt.text)


def _hangs_under_title(first: _L, nxt: _L) -> bool:
    """A caption set with a hanging indent (KOMA's, the caption package's "hang"): its next lines
    start where the title starts after the label ("Listing 3.2: Simplified ..." / "benchmark")."""
    spans = [s for s in first.line.spans if not s.superscript and s.text.strip() and s.bbox]
    return len(spans) >= 2 and abs(spans[1].bbox[0] - nxt.x0) <= 2.0


def _foot(prev: _L, nxt: _L) -> float:
    """The bottom of a line for its spacing to the next: its own, unless the line ends a sentence and
    one glyph alone (a math face's "O" whose box a font gives a deep descent) hangs well below its
    other spans and into the next line's box, where a glyph that truly went so deep would have pushed
    the next line down."""
    spans = prev.line.spans
    if nxt.top >= prev.bottom or len(spans) < 2 or prev.text.rstrip()[-1:] not in ".:!?":
        return prev.bottom  # (a line of math going on, "= ∫ ..." over its limits, keeps its glyphs' depth)
    feet = sorted(((s.bbox[3], len(s.text.strip())) for s in spans if s.bbox and not s.superscript), reverse=True)
    if len(feet) >= 2 and feet[0][1] <= 1 and feet[0][0] - feet[1][0] > 0.4 * max(prev.size, 4.0):
        return feet[1][0]
    return prev.bottom


def _breaks(lines: list[_L], nxt: _L, ctx: _Context, after: _L | None = None) -> bool:
    prev = lines[-1]
    first = lines[0]
    size = max(prev.size, 4.0)
    bottom = _foot(prev, nxt)
    pitch = nxt.bottom - bottom
    most, gap_most = 1.45 * size, 0.8 * size
    if ctx.pitch > 1.3 * ctx.body_size and abs(size - ctx.body_size) <= 0.6:
        if _stands_in_line(lines, nxt, ctx):
            # double- or one-and-a-half-spaced body text: lines at the usual pitch are one paragraph
            most, gap_most = max(most, ctx.pitch + 0.45 * size), max(gap_most, ctx.gap + 0.45 * size)
    elif CJK_CHAR_RE.search(prev.text) and CJK_CHAR_RE.search(nxt.text) and nxt.x0 <= first.x0 + 3 \
            and not _CJK_END_RE.search(prev.text) and prev.x1 >= _column(prev, ctx)[1] - 1.5 * size:
        # CJK text is set looser than Latin (ctex: 1.3 times the Latin leading, ~1.7 times the type):
        # a full CJK line that ends in no sentence stop goes on to the next one at that pitch, where
        # it does not step right (a first-line indent)
        most, gap_most = max(most, 1.9 * size), max(gap_most, 1.2 * size)
    if pitch < -0.5 * size or (pitch > most or nxt.top - bottom > gap_most) \
            and not _steady_wrap(lines, nxt, after, pitch, ctx):
        return True
    if abs(nxt.size - prev.size) > 0.6:
        return True
    if len(lines) == 1 and len(nxt.text.split()) >= 3 and _face_head(first, ctx) and not _face_head(nxt, ctx) \
            and any(_sans_face(s.font) == ctx.body_sans for s in nxt.line.spans if not s.superscript):
        return True  # a typeface-only heading over its paragraph (a double-spaced draft's pitch allows the step)
    if nxt.bold != prev.bold and (nxt.bold and _heading_like(nxt) or prev.bold and _heading_like(first)):
        return True
    if len(lines) == 1 and _two_heads(first, nxt, ctx):
        return True
    if len(lines) == 1 and (first.italic != nxt.italic or first.caps != nxt.caps) and len(first.text) < 100 \
            and not re.search(r"[.,;]$", first.text) and parse_number(first.text) is not None:
        return True  # "4.5. Reproducibility" in italics, the paragraph right below it
    if len(lines) == 1 and len(first.text) < 100 and len(nxt.text) < 100 and parse_number(first.text) is not None \
            and parse_number(nxt.text) is not None and not re.search(r"[.,;]$", nxt.text):
        return True  # "4.1 Data Quantization" right above "4.2 Advanced Pruning": two headings
    if LIST_RE.match(nxt.text) and nxt.x0 <= first.x0 + 30 and _list_marker_span(nxt):
        return True
    cap = CAPTION_RE.match(nxt.text) or floats.FOREIGN_CAPTION_RE.match(nxt.text)
    if cap and (nxt.first_bold or _float_colon(nxt.text, cap)):
        return True  # (a caption in body type with a colon, "Figure 2: ...", under a row of sub-figure labels)
    # hanging indent lists and bibliographies: a line that returns to the left edge after
    # indented continuation lines starts a new entry
    if len(lines) >= 2 and nxt.x0 < lines[1].x0 - 6 and abs(nxt.x0 - first.x0) < 3:
        return True
    # a first-line indent after a short line ending a sentence starts a paragraph; the block's own
    # first line may be a paragraph's indented one, so the indent counts from the block's left edge
    # where the next line stands as far in as that first line (one line alone: the edge the line
    # after the next returns to, in the same type)
    if len(lines) > 1:
        edge = min(x.x0 for x in lines)
    else:
        edge = after.x0 if after is not None and abs(after.size - nxt.size) <= 0.3 else first.x0
    if (nxt.x0 > first.x0 + 6 or nxt.x0 > edge + 6 and abs(nxt.x0 - first.x0) <= 1.5) \
            and prev.x1 < ctx.right - 30 and (re.search(r"[.!?:;)\]”\"']$", prev.text) or _CJK_END_RE.search(prev.text)):
        return True
    return False


# CJK ideographs, kana and their full-width punctuation (Hangul not: Korean spaces its words)
_CJK_END_RE = re.compile(r"[。！？：；]\s*$")  # a CJK sentence (or a lead-in to a list) ends


_FOLIO_RE = re.compile(r"\d{1,4}|[ivxlcdm]{1,7}|[IVXLCDM]{1,7}")


def _stands_in_line(lines: list[_L], nxt: _L, ctx: _Context) -> bool:
    """Whether the next line may go on with the block at a double-spaced body's pitch: not below a
    page number alone on its line, and not starting well left of every line of the block unless
    both are centred on one centre (a centred head over its paragraph). Double spacing puts a
    folio, a centred head in body type and the paragraph under it at the body's pitch; only their
    places tell them apart (a dissertation class that forbids bold and larger heads)."""
    prev = lines[-1]
    if len(lines) == 1 and _FOLIO_RE.fullmatch(prev.text.strip()):
        return False  # a page number alone on its line is never the start of a paragraph
    if nxt.x0 >= min(x.x0 for x in lines) - 25:
        return True  # (from the block's left edge, a first-line indent or a list's hang, or right of it)
    if len(lines) == 1 and prev.x0 - nxt.x0 <= max(3 * max(ctx.body_size, 4.0), 40.0):
        # a paragraph's first line indented wider than 25 pt (a Russian thesis's 1.25 cm), full to the
        # column's right edge, over a line from its left edge; in any type size, as a word processor's
        # default indent is 1.25 cm or half an inch (35.4-36 pt) set in 11 or 12 pt type
        lft, right = _column(nxt, ctx)
        if abs(nxt.x0 - lft) <= 2 and abs(prev.x1 - right) <= 2:
            return True
    return abs(nxt.x0 + nxt.x1 - prev.x0 - prev.x1) <= 6  # the next line of a centred head or title


_ROMAN_END = re.compile(r"\s(?:[ivxlcdm]+|[IVXLCDM]+)$")  # a front-matter page number ("Tabellenverzeichnis V")


def _column(line: _L, ctx: _Context) -> tuple[float, float]:
    """The left and right edges of the column ``line`` starts in."""
    return next(((a, b) for a, b in ctx.columns if a - 5 <= line.x0 <= b), (ctx.left, ctx.right))


def _steady_wrap(lines: list[_L], nxt: _L, after: _L | None, pitch: float, ctx: _Context) -> bool:
    """A justified line wraps: the next line, in the same type from the
    same left edge, goes on with the paragraph when it keeps the spacing of the lines around it,
    however wide (a double-spaced abstract in smaller type, a summary box set looser than the body).
    A paragraph's gap differs from its lines' spacing, so two paragraphs stay two."""
    prev = lines[-1]
    # (a paragraph's first line may be indented)
    same_left = abs(nxt.x0 - prev.x0) <= 3 or len(lines) == 1 and 0 < prev.x0 - nxt.x0 < 25
    if not same_left or abs(nxt.size - prev.size) > 0.3 or pitch > 2.6 * max(prev.size, 4.0):
        return False
    # justified: it ends where a neighbour ends (an indented abstract has its own right edge), in a
    # word, not in a page number, leaders or a bracketed note set flush right (contents lists, the
    # reasons beside a derivation), and it is no short line (two list items may end together)
    # (CJK text wraps after a comma of its own too, "，" "、" "；")
    if not (prev.text[-1:].isalpha() or prev.text[-1:] in "-,;，、；") or _ROMAN_END.search(prev.text):
        return False
    if CJK_CHAR_RE.search(prev.text) and CJK_CHAR_RE.search(nxt.text) and (after is None or CJK_CHAR_RE.search(after.text)) \
            and (len(lines) == 1 or CJK_CHAR_RE.search(lines[-2].text)):
        # lines of CJK text are measured by their tops, where the ideographs' square boxes stand: their
        # bottoms step with the Latin words' descenders set among them ("a4paper", the TeX logo's E)
        def at(x: _L) -> float:
            return x.top
        pitch = nxt.top - prev.top
    else:
        def at(x: _L) -> float:
            return x.bottom
    lft, right = _column(prev, ctx)
    ends = [x.x1 for x in (lines[-2] if len(lines) > 1 else None, nxt, after) if x is not None]
    if prev.x1 - prev.x0 < 0.6 * (right - lft) or not any(abs(prev.x1 - e) <= 1 for e in ends):
        return False
    if len(lines) > 1:
        return abs(at(prev) - at(lines[-2]) - pitch) <= 0.6
    return after is not None and abs(after.size - nxt.size) <= 0.3 and abs(after.x0 - nxt.x0) <= 3 \
        and abs(at(after) - at(nxt) - pitch) <= 0.6


def _list_marker_span(line: _L) -> bool:
    spans = [s for s in line.line.spans if not s.superscript]
    if not spans:
        return False
    m = LIST_RE.match(line.text)
    marker = (m.group(1) or m.group(2) or m.group(3) or m.group(4) or "").strip()
    # the marker stands apart: its own span, or the line is indented relative to the margin
    return spans[0].text.strip() == marker or spans[0].text.strip().startswith(marker)


def _heading_like(line: _L) -> bool:
    return len(line.text) < 160 and line.bold


def _two_heads(first: _L, nxt: _L, ctx: _Context) -> bool:
    """Two short bold lines in one type from one left edge, where the second's first word would
    have fit on the first: no heading wrapping but two headings in a row (bmcart's empty
    \\section*{Addendum (Alex)} right over \\section*{Conventions})."""
    if not (first.bold and nxt.bold) or abs(first.size - nxt.size) > 0.3 or abs(first.x0 - nxt.x0) > 2 \
            or first.size > 1.3 * ctx.body_size or first.size < 0.85 * ctx.body_size:
        return False
    head, second = first.text, nxt.text
    num = parse_number(head) if second.endswith(":") else None
    if num is not None and num.title:
        # a numbered head over a lead in its type ("5.1 Key Results" over "Best options:", an
        # unnumbered head or a run-in label): two blocks, as two heads are
        head, second = num.title, second[:-1]
    elif first.size < ctx.body_size - 0.5:
        return False
    for t in (head, second):
        if len(t.split()) > 8 or not t[:1].isupper() or re.search(r"[.,;:\-]$", t) or re.search(r"[:,]\s", t):
            return False  # (a label and its text, "Methodology: SKA, LW": lines of a list)
    lft, right = next(((a, b) for a, b in ctx.columns if a - 5 <= first.x0 <= b), (ctx.left, ctx.right))
    word = nxt.text.split()[0]
    per_char = (nxt.x1 - nxt.x0) / max(len(nxt.text), 1)
    return first.x1 + per_char * (len(word) + 1) < right - 0.1 * (right - lft)


# sans-serif faces by their PDF names (NimbusSanL-Bold, LMSans10-Bold, Helvetica-Bold, ArialMT, CMSSBX10)
_SANS_FONT_RE = re.compile(r"Sans|SanL|Helvetica|Arial|CMSS|Biolinum|Heros|Roboto|Verdana|Calibri|Myriad|Frutiger"
                           r"|Univers|Avenir|Futura|Lato-|Gill", re.I)
_SANS_CACHE: dict[str, bool] = {}


def _sans_face(font: str) -> bool:
    v = _SANS_CACHE.get(font)
    if v is None:
        v = _SANS_CACHE[font] = bool(_SANS_FONT_RE.search(font or ""))
    return v


def _face_head(line: _L, ctx: _Context) -> bool:
    """A short line wholly in the other family than the body's (sans over serif text), in the
    body's size, not bold, that does not fill its column and ends no sentence: a heading told from
    the text by its typeface only (bmcart's \\subsection*), not the start of the paragraph under it."""
    t = line.text
    if line.bold or line.mono or len(t) > 90 or not t[:1].isupper() or re.search(r"[.,;:]$", t) \
            or abs(line.size - ctx.body_size) > 0.6 or len(t.split()) > 10:
        return False
    spans = [s for s in line.line.spans if not s.superscript and s.text.strip()]
    if not spans or any(_sans_face(s.font) == ctx.body_sans for s in spans):
        return False
    lft, right = next(((a, b) for a, b in ctx.columns if a - 5 <= line.x0 <= b), (ctx.left, ctx.right))
    return line.x1 < right - 0.15 * (right - lft)


# a URL's or DOI's bits: a monospace line holding one is an entry's or a sentence's tail, no code
_URL_BIT = re.compile(r"https?:|www\.|doi|\.org|\.com")
# text that ends in a letter standing alone: a number raised over it is an exponent (M², O(k²), β²),
# neither a note's mark nor a citation's (those follow a word, a number or punctuation)
LONE_LETTER_END = re.compile(r"(?:^|[^\w\]])[^\W\d_]$")


def aside(b: Block) -> bool:
    """A paragraph set in a text's flow without being part of it: a plot's turned labels (this
    stage puts them first on their page), or a code line left a paragraph (every line monospace,
    a space in it and no URL: an entry's DOI tail in typewriter type, "1007/s10902-009-9150-9",
    is none). Structure joins text past it; the bibliography's reader takes it for no entry."""
    a = b.attrs
    return bool(a.get("_rotated") or (a.get("_mono") and " " in b.text.strip() and not _URL_BIT.search(b.text)))


def _bold_but_math(line: Line) -> bool:
    """A bold line but for its math: symbols and subscripts in math fonts, spans of one or two
    characters that are not bold ("Building the morphisms S_G, T_G"), the bold ones 60% or more of
    the line and 85% of the rest. Only structure's test for an unnumbered heading reads it; the
    line's own `bold`, which paragraphs are grouped by, stays as it is."""
    bold = short = total = 0
    for s in line.spans:
        if s.superscript:
            continue
        n = len(s.text.strip())
        total += n
        if s.bold:
            bold += n
        elif n <= 2:
            short += n
    return total > 0 and short > 0 and bold >= 0.6 * total and bold >= 0.85 * (total - short)


def _para_block(lines: list[_L], page: Page, ctx: _Context) -> Block:
    texts = [span_text(x.line) for x in lines]
    first = lines[0]
    attrs = {
        "_size": first.size, "_bold": all(x.bold for x in lines), "_x0": first.x0, "_mono": all(x.mono for x in lines),
        "_nlines": len(lines), "_top": first.top, "_bottom": lines[-1].bottom, "_hang": len(lines) >= 2 and lines[1].x0 > first.x0 + 4,
        "_width": max(x.x1 for x in lines) - min(x.x0 for x in lines), "_lead_bold": first.lead_bold,
        "_plain_first": first.text, "_x1": max(x.x1 for x in lines), "_wide": any(x.wide for x in lines),
        "_page_height": page.height, "_line_texts": texts, "_line_x0": [x.x0 for x in lines],
        "_italic": all(x.italic for x in lines), "_caps": all(x.caps for x in lines),
        "_size_max": max((s.size for x in lines for s in x.line.spans if not s.superscript), default=first.size),
        "_center": _centered(lines, ctx.columns),
        "_face": len(lines) == 1 and _face_head(first, ctx),
        "_bold_math": len(lines) == 1 and not first.bold and bool(first.lead_bold) and _bold_but_math(first.line),
    }
    if first.wide and len(lines) == 1:
        tail = _small_tail(first.line)
        if tail:
            attrs["_small_tail"] = tail
    return Block(Kind.PARAGRAPH, "\n".join(texts), page.number, bbox=_union([x.line.bbox for x in lines]),
                 attrs=attrs)


def _small_tail(line: Line) -> str:
    """The text set apart at a line's end, after a gap wider than its type, in type at most 0.6 of
    the line's largest ("one" in 30 pt, then far right "Day 1" in 13 pt: a chapter head's marker,
    no part of its title); "" when there is none."""
    spans = [s for s in line.spans if not s.superscript and s.bbox and s.text.strip()]
    big = max((s.size for s in spans), default=0.0)
    for k in range(len(spans) - 1, 0, -1):
        gap = spans[k].bbox[0] - spans[k - 1].bbox[2]
        if gap > max(spans[k].size, spans[k - 1].size, 6.0):
            tail = spans[k:]
            if all(s.size <= 0.6 * big for s in tail) and any(s.size > 0.6 * big for s in spans[:k]):
                return " ".join(s.text.strip() for s in tail)
            return ""
    return ""


def _extent(ls: list[_L]) -> tuple[float, float]:
    """The page's text block: from the leftmost line's left edge to the rightmost's right edge."""
    return min(x.x0 for x in ls), max(x.x1 for x in ls)


def _centered(lines: list[_L], columns: list[tuple[float, float]]) -> bool:
    """Every line sits in the middle of its column, well in from both edges (centred headings)."""
    for x in lines:
        col = next((c for c in columns if c[0] - 4 <= x.x0 and x.x1 <= c[1] + 4), None)
        if col is None:
            return False
        w = col[1] - col[0]
        if w <= 0 or x.x0 - col[0] < 0.08 * w or abs((x.x0 + x.x1) / 2 - (col[0] + col[1]) / 2) > max(4.0, 0.04 * w):
            return False
    return True


def _union(boxes):
    boxes = [b for b in boxes if b]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _join(texts: list[str]) -> str:
    out = ""
    for t in texts:
        t = t.strip()
        if not out:
            out = t
        elif out.endswith("-") and t[:1].islower() and len(out) > 1 and out[-2].isalpha():
            out = out + "\n" + t  # normalize decides between "per-session" and "persession"
        elif cjk_seam(out, t):
            out += t  # Chinese and Japanese put no space between words: a line break between two is none
        else:
            out += " " + t
    return out


# ====================================================================== plain text lines

HTML_TABLE_RE = re.compile(r"<table\b.*?</table>", re.S | re.I)
IMAGE_RE = re.compile(r"^\s*!\[([^\]]*)\]\(([^)]*)\)\s*$")
MD_HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE_RE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)\s*$")
MD_TABLE_SEP_RE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)+\|?\s*$")

_CODE_STRONG = re.compile(
    r"^\s*(?:(?:while|if|elif|for|def|class|return|continue|break|else|try|except|import|from|let|const|var|"
    r"function|async|await|yield|raise|with)\b.*|[\w.\[\]]+\s*(?:=|\+=|-=|:=)\s*\S.*|[\w.]+\(.*\)\s*(?:#.*)?|[)\]}]\s*,?"
    r"|[\w.]+,\s*(?:#.*)?|.*[{:(]\s*(?:#.*)?)$"
)


_COMMENT_RE = re.compile(r"^\s*(#|//)\s")
_WORD_RE = re.compile(r"[A-Za-z]+")
_BLOCK_KEYWORD_RE = re.compile(r"^\s*(while|if|for|def|class|else|elif|try|with)\b")
_PROSE_START_RE = re.compile(r"^\s*[A-Z][a-z]+(\s+[a-z]+){3,}")
_CODE_PUNCT_RE = re.compile(r"[=()]")
_INDENTED_CODE_RE = re.compile(r"[=(){}\[\];]")


def _code_score(text: str) -> int:
    s = text.rstrip()
    if not s:
        return 0
    if _COMMENT_RE.match(s):
        return 1  # a comment: code only next to code
    if len(s) > 140:
        return 0
    if _CODE_STRONG.match(s):
        # natural-language sentence ending with a colon is not code
        if s.endswith(":") and len(_WORD_RE.findall(s)) > 6 and not _BLOCK_KEYWORD_RE.match(s):
            return 0
        if _PROSE_START_RE.match(s) and not _CODE_PUNCT_RE.search(s):
            return 0
        return 2
    if s.startswith("    ") and _INDENTED_CODE_RE.search(s):
        return 2
    return 0


# Lines that some rule of _text_blocks below might read as more than running text: a fence, an
# HTML or pipe table, an image, a Markdown heading, display math, a footnote, indented code, a
# list marker, or a line _code_score could score (a comment start, a keyword start, one of
# its punctuation marks anywhere, or a colon at the end: a colon elsewhere is code only in
# ":=", which its "=" finds; every line of a page of links holds one in "https:"). Every other
# line is plain text, whatever the rules say, so one scan of the page finds the lines worth the rules' ~15 regex calls and the rest cost a
# strip() each (a page of 100,000 one-word lines spent 2 s in the rules). The pattern is a line
# break and a lookahead that reads no further than its line, searched in the lines joined after a
# first break: Python's re looks for the break's character, where a ``^`` under re.M is tried at
# every position of the page (raw OCR text: 9 ms a MB against 1)
_CODE_KEYWORDS = ("while|if|elif|for|def|class|return|continue|break|else|try|except|import|from|let|const|var|"
                  "function|async|await|yield|raise|with")
# The group "code" holds the lines _code_score may score above 0, a subset tried first (a comment
# or keyword start, a closing bracket, one of its punctuation marks anywhere, a colon at the end:
# every _CODE_STRONG alternative needs one, as its comment and indented-code tests do). The
# others (a table row "| 1 | 2 |", a list item "- x", "[12] ...") are rule lines that no code
# score is worked out for: 250,000 pipe rows were scored one by one, each 0. (The alternatives
# after the group are the rule pattern's that the group does not hold already: each line is
# scanned as often as before.)
_RULE_LINE_RE = re.compile(
    r"\n(?=(?P<code>[^\S\n]*(?:#|//|[)\]}]|(?:" + _CODE_KEYWORDS + r")\b)|[^\n=(){}\[\],;#]*+[=(){}\[\],;#]"
    r"|[^\n]*:[^\S\n]*+(?![^\n]))"
    r"|[^\S\n]*(?:[`~<|!#$\[(\d/)\]}•●○◦▪‣∙·\-–*]|[a-z][.)])|    )",
)


def _lines_repeat(lines: list[str], at: list[int] | None = None) -> bool:
    """Whether most lines (those at the sorted indexes ``at``, where given) repeat, judged from
    every 16th (no set of a page of distinct lines): where they do, each distinct line is tested
    once."""
    sample = lines[::16] if at is None else [lines[k] for k in at[::16]]
    return len(set(sample)) * 2 < len(sample)


def _rule_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines a rule of _text_blocks may apply to (a superset: the rules decide)."""
    return _rule_and_code_lines(lines)[0]


def _lines_of(lines: list[str], texts) -> set[int]:
    """Indexes of the lines whose text is in ``texts`` (in C)."""
    return set(compress(range(len(lines)), map(texts.__contains__, lines)))


def _rule_and_code_lines(lines: list[str], by_text: dict[str, bool] | None = None) -> tuple[set[int] | None, set[int]]:
    """The rule lines (:func:`_rule_lines`) and those of them _code_score may score (a superset).
    With ``by_text``, lines that repeat give their rule lines by text: each distinct rule line's
    text (-> whether the code group matched) goes into ``by_text`` and the rule lines are None
    (_past_rules reads them by text: 631,000 rule lines of a reference list of one-character
    entries were listed only to be reduced to their five texts)."""
    text = "\n" + "\n".join(lines)
    if text.count("\n") != len(lines):  # a line holding a line break: take no short cut
        every = set(range(len(lines)))
        return every, every
    if _lines_repeat(lines):
        # lines that repeat (a reference list of one-character entries): each distinct line
        # tested once, where the search placed every match by counting the breaks before it
        found = {t: m.lastindex == 1 for t in set(lines) if (m := _RULE_LINE_RE.match("\n" + t))}
        if not found:
            return set(), set()
        if by_text is not None:
            by_text.update(found)
        rule = _lines_of(lines, found) if by_text is None else None
        # (of the texts the search marks, those _code_score does score, each asked once: the lines
        # of the others were listed, sorted and looked up one by one only to score 0 each, the
        # 210,000 "[1] x" lines of a reference list of one-character entries)
        code = {t for t, c in found.items() if c and _code_score(t)}
        return rule, (_lines_of(lines, code) if code else set())
    rule, code = line_hits_group(_RULE_LINE_RE, text)
    found = set(rule)
    return found, (found if len(code) == len(rule) else set(code))  # (every rule line may score: one set)


# a separator line anywhere in a page's joined text (a superset of the lines it matches alone)
_TABLE_SEP_ANYWHERE = re.compile(MD_TABLE_SEP_RE.pattern, re.M)


def _one_rule(raw: str, markdown: bool, pipes: bool = True) -> re.Match | bool:
    """What the rules of _text_blocks make of a line that scores no code, from the line alone:
    True for a line of running text (no fence, table, image, heading, display math, footnote,
    indented code or list item starts with it), the list item's match for a list item, False
    where the rules need the lines around it. Without ``pipes`` (OCR text, or a page with no
    separator line for a pipe table to start at) a line that starts with "|" is read alone too."""
    s = raw.strip()
    if not s or s[0] in "`~<!" or (s[0] == "|" and pipes):
        return False
    if not markdown:
        return True
    if s[0] == "#" or "$$" in s or "[^" in s or raw.startswith("    "):
        return False
    return LIST_RE.match(raw) or True


def _not_alone(markdown: bool, pipes: bool, marks: bool = True) -> re.Pattern:
    """The lines _one_rule may not read as running text (a superset: it decides), as a
    line_hits pattern: blank, or a fence, tag or image mark first ("|" where a pipe table can
    start); in Markdown also a heading mark, LIST_RE's first characters, four blanks, and with
    ``marks`` "$$" or "[^" anywhere in the line (without: the texts hold neither, and that
    alternative's scan of every line to its end finds nothing)."""
    first = r"\n`~<!" + ("|" if pipes else "") + (r"#•●○◦▪‣∙·\-–*(\d" if markdown else "")
    more = (r"|[a-z][.)])|    " + (r"|[^\n]*?(?:\$\$|\[\^)" if marks else "") + ")") if markdown else "))"
    return re.compile(r"\n(?=[^\S\n]*(?:[" + first + r"]|\Z" + more)


_NOT_ALONE = {(markdown, pipes, marks): _not_alone(markdown, pipes, marks)
              for markdown in (False, True) for pipes in (False, True) for marks in (False, True)}


def _past_rules(lines: list[str], rule_lines: set[int] | None, score: dict[int, int],
                markdown: bool, by_text: dict[str, bool] | None = None) -> tuple[set[int], dict[str, re.Match]]:
    """``rule_lines`` less the lines that score no code and that _one_rule reads alone (each
    distinct line once), and the list items among those (line -> match): the runs of plain
    lines take them, at a strip() or a lookup each. Every line of prose with a comma or a
    bracket is a rule line, as is each line of a reference list ("[12] ...", "- x"). ``rule_lines``
    None: they are the lines whose text is in ``by_text`` (lines that repeat), listed only where
    a line scores or a text is kept."""
    if rule_lines is None and score:
        rule_lines = _lines_of(lines, by_text)
    if rule_lines is None:  # (no line scores: the texts of the rule lines are by_text's)
        maybe = None
        texts = set(by_text)
    else:
        # (in C where no line scores: a reference list of 1,000,000 one-character lines has 600,000 rule lines)
        maybe = [k for k in rule_lines if k not in score] if score else list(rule_lines)
        if not maybe:
            return rule_lines, {}
        texts = set(map(lines.__getitem__, maybe))
    order = list(texts)
    joined = "\n" + "\n".join(order)
    # a "|" line starts a pipe table only where a separator line ("|---|---|") follows it: none
    # in OCR text, and none in a page whose joined text has no separator line (rows of "| a | b |"
    # with no header rule: each went through the rule loop). (Each text is read for a "|" first
    # only where one holds a "|": a page of comment lines has none.)
    pipes = markdown and "|" in joined and any(t.lstrip().startswith("|") for t in texts) and \
        _TABLE_SEP_ANYWHERE.search("\n".join(lines)) is not None
    # _one_rule reads only the texts one search finds (every other is running text, True): a
    # page of "| 1 | 2 | x |" rows or of prose lines with commas called it once per line. (Where
    # the search would find most of them, judged from every 16th, each is read: a LaTeX or HTML
    # soup's lines mostly start with a mark.)
    rx = _NOT_ALONE[markdown, pipes, markdown and ("$$" in joined or "[^" in joined)]
    sparse = len(rx.findall("\n" + "\n".join(order[::16]))) * 2 < len(order[::16])
    if sparse:
        sparse = joined.count("\n") == len(order)
    if sparse:
        asked = [order[k] for k in line_hits(rx, joined)]
        verdict = dict.fromkeys(order, True)
        verdict.update((t, _one_rule(t, markdown, pipes)) for t in asked)
    else:  # (most texts are found, or one holds a line break: each read)
        asked = order
        verdict = {t: _one_rule(t, markdown, pipes) for t in order}
    if not any(verdict.values()):
        return rule_lines if maybe is not None else _lines_of(lines, by_text), {}
    items = {t: v for t in asked if (v := verdict[t]) is not True and v}
    # (the lines kept: those that score, and those of a text _one_rule cannot read alone)
    alone_not = {t for t in asked if not verdict[t]}
    if maybe is None:  # (no line scores)
        return _lines_of(lines, alone_not) if alone_not else set(), items
    kept = {k for k in maybe if lines[k] in alone_not} if alone_not else set()
    return kept | (score.keys() & rule_lines), items


def _strong_runs(score: dict[int, int], lines: list[str], markdown: bool) -> dict[int, int]:
    """``score`` (line -> code score, ascending lines) less the runs of consecutive scored lines
    that hold fewer than two strong lines (2): the code test of _text_blocks needs two in the
    run from its line on, so no line of such a run starts code, and the lines are read by the
    other rules (_past_rules then reads them alone where it can, as lines that score nothing).
    A page of "// note" comment lines scores each 1, and each went through the rules' loop, one
    by one, only to fail that test. A Markdown "#" line stays (the heading rule reads it before
    that test; _past_rules would only ask of each that it is no running text: a file of headings)."""
    if list(score.values()).count(2) < 2:  # (in C: no run holds two strong lines)
        weak = list(score)
    else:
        weak = []
        run: list[int] = []
        strong = 0
        for k, v in score.items():
            if run and k != run[-1] + 1:  # a run ends
                if strong < 2:
                    weak += run
                run, strong = [], 0
            run.append(k)
            strong += v == 2
        if strong < 2:
            weak += run
    if markdown and weak:
        hashed = list(compress(weak, map(str.startswith, map(lines.__getitem__, weak), repeat("#"))))
        if len(hashed) == len(weak):  # (a file of headings: every weak line stays)
            return score
        if hashed:
            weak = set(weak).difference(hashed)
    if not weak:
        return score
    if len(weak) == len(score):
        return {}
    weak = set(weak)
    return {k: v for k, v in score.items() if k not in weak}


def _last_table_close(lines: list[str], cache: dict) -> int:
    """Index of the last line holding "</table>" (any case), -1 if none: one pass a page."""
    if "close" not in cache:
        cache["close"] = max((k for k, ln in enumerate(lines) if "</table>" in ln.lower()), default=-1)
    return cache["close"]


def _text_blocks(page: Page, markdown: bool, rule_lines: set[int] | None = None) -> list:
    lines = [ln.text for ln in page.lines]
    # Blocks, and a plain str for a one-line paragraph: most of a page of short lines ends up
    # joined by _coalesce_tiny, and a Block apiece was most of their cost
    out: list = []
    i = 0
    n = len(lines)
    pno = page.number
    para: list[str] = []
    given = rule_lines is not None
    by_text: dict[str, bool] = {}  # (lines that repeat: their rule lines by text, see _past_rules)
    # (a caller's own rule lines are all scored: the reference the tests compare with)
    rule_lines, code_lines = _rule_and_code_lines(lines, by_text) if rule_lines is None else (rule_lines, rule_lines)
    # index in out of a Markdown heading -> its text and level; out holds None there until the
    # end, where the headings that _no_outline did not read as text become Blocks (a file of
    # 100,000 "# ..." lines made a Block apiece, most of them thrown away)
    heading_lines: dict[int, tuple[str, int]] = {}
    cache: dict = {}  # _last_table_close's answer, worked out at the first "<table" line
    # code scores once per line, with where each run of code-like lines ends and a running
    # count of strong lines: the run test below is then O(1) per line, not a rescan of the
    # run from every line in it (10,000 "# comment" lines were 100 million regex matches).
    # Only rule lines can score.
    # (each distinct line scored once where lines repeat: a page of repeated short lines has a
    # handful; lines that are mostly distinct are scored as they come)
    # (whether they repeat judged from every 16th: a set of 333,000 distinct comment lines was
    # built only to find that they do not)
    code_sorted = sorted(code_lines)
    if _lines_repeat(lines, code_sorted):
        line_score = {t: _code_score(t) for t in {lines[k] for k in code_lines}}.__getitem__
    else:
        line_score = _code_score
    score = {k: sc for k in code_sorted if (sc := line_score(lines[k]))}
    # rule lines that no rule but the list item's acts on join the runs of plain lines below (a
    # caller's own set of rule lines is read line by line: the reference the tests compare with)
    items: dict[str, re.Match] = {}
    if not given:
        score = _strong_runs(score, lines, markdown)
        rule_lines, items = _past_rules(lines, rule_lines, score, markdown, by_text)
    # a run's end and its running count of strong lines are worked out when the loop below first
    # asks about a line of it (forward only: from that line on), once per run: a file of "# ..."
    # headings scores every line as a comment, but a heading is read before the run test
    run_end: dict[int, int] = {}
    strong_upto: dict[int, int] = {}  # strong lines of its run from the first line asked, up to k

    def fill_run(i: int) -> None:
        strong = 0
        k = i
        while k in score:
            strong += score[k] == 2
            strong_upto[k] = strong
            k += 1
        run_end.update(dict.fromkeys(range(i, k), k))

    def flush_para():
        if para:
            # a str (one line) or a list (the lines of a paragraph): a Block once _coalesce_tiny
            # has decided whether it joins a run of tiny blocks
            out.append(para[0] if len(para) == 1 else para[:])
            para.clear()

    rule_sorted = sorted(rule_lines)
    while i < n:
        raw = lines[i]
        if i not in rule_lines:  # plain text (or blank): the run of such lines up to the next rule line
            k = bisect_right(rule_sorted, i)
            j = rule_sorted[k] if k < len(rule_sorted) else n
            run = map(str.strip, lines[i:j])
            if not markdown:  # (an OCR line is a paragraph; para is only filled on the Markdown road)
                out.extend(filter(None, run))
            elif not items:  # a blank line ends a paragraph, the others join it
                add = para.append
                for s in run:
                    if s:
                        add(s)
                    elif para:
                        if len(para) == 1:
                            out.append(para.pop())
                        else:
                            flush_para()
            else:  # the same, and a list item among them is one (as below)
                add = para.append
                for raw in lines[i:j]:
                    m = items.get(raw)
                    if m is not None:
                        if para:
                            flush_para()
                        out.append((raw, m))
                        continue
                    s = raw.strip()
                    if s:
                        add(s)
                    elif para:
                        if len(para) == 1:
                            out.append(para.pop())
                        else:
                            flush_para()
            i = j
            continue
        s = raw.strip()
        if not s:
            flush_para()
            i += 1
            continue
        # a fence, an HTML or pipe table and an image each start with one of these (other lines,
        # "# Heading" and "// comment" runs among them, go straight to the tests below)
        if s[0] in "`~<|!":
            # fenced code (Markdown, or OCR that kept fences)
            m = FENCE_RE.match(raw)
            if m:
                flush_para()
                fence = m.group(1)
                j = i + 1
                body = []
                while j < n and not lines[j].strip().startswith(fence[:3]):
                    body.append(lines[j])
                    j += 1
                out.append(Block(Kind.CODE, "\n".join(body), pno, attrs={"language": m.group(2) or None}))
                i = j + 1
                continue
            # HTML table (possibly spanning lines)
            if s.lower().startswith("<table") and i <= _last_table_close(lines, cache):
                # (a "<table" that no "</table>" follows is text: as a table it swallowed the
                # rest of the page, headings and all, into one block that renders nothing)
                flush_para()
                # each line looked at once ("</table>" holds no line break, so it is in the joined
                # text only if it is in one line): lowering the whole buffer per line was
                # quadratic for a table never closed (fuzz seed 1311, HTML soup)
                parts = [s]
                j = i + 1
                closed = "</table>" in s.lower()
                while not closed and j < n:
                    parts.append(lines[j].strip())
                    closed = "</table>" in parts[-1].lower()
                    j += 1
                buf = "\n".join(parts)
                out.append(Block(Kind.TABLE, "", pno, attrs={"_html": buf, "rows": [], "caption": ""}))
                i = j
                continue
            # Markdown pipe table
            if markdown and s.startswith("|") and i + 1 < n and MD_TABLE_SEP_RE.match(lines[i + 1]):
                flush_para()
                rows = [_pipe_cells(s)]
                j = i + 2
                while j < n and lines[j].strip().startswith("|"):
                    rows.append(_pipe_cells(lines[j]))
                    j += 1
                out.append(Block(Kind.TABLE, "", pno, attrs={"rows": rows, "caption": ""}))
                i = j
                continue
            m = IMAGE_RE.match(s)
            if m:
                flush_para()
                out.append(Block(Kind.FIGURE, "", pno, attrs={"caption": m.group(1).strip(), "image": m.group(2).strip(),
                                                                   "_label": None}))
                i += 1
                continue
        if markdown:
            m = MD_HEADING_RE.match(s) if s[0] == "#" else None
            if m:
                flush_para()
                # the run of heading lines that follows, read here: each is what the loop would
                # make of it (a rule line whose stripped text starts with "#" and matches is a
                # heading, before any other rule), without the loop's tests (a file of "# ..."
                # lines, 285,000 a MB)
                first = i
                while True:
                    heading_lines[len(out)] = (m.group(2).strip(), len(m.group(1)))
                    out.append(None)
                    i += 1
                    if i - first == HEADING_RUN:  # no outline: the rest of the run read in bulk
                        i = _more_headings(lines, i, rule_lines, out, heading_lines)
                    if i == n or i not in rule_lines:
                        break
                    s = lines[i].strip()
                    m = MD_HEADING_RE.match(s) if s[:1] == "#" else None
                    if m is None:
                        break
                continue
            if "$$" in s and re.match(r"^\s*\$\$", s):
                flush_para()
                j = i
                buf = []
                while j < n:
                    buf.append(lines[j])
                    if j > i and lines[j].strip().endswith("$$") or (j == i and s.endswith("$$") and len(s) > 4):
                        break
                    j += 1
                out.append(Block(Kind.EQUATION, "\n".join(buf).strip().strip("$").strip(), pno))
                i = j + 1
                continue
            if "[^" in s and re.match(r"^\s*\[\^([^\]]+)\]:\s*", s):
                flush_para()
                m2 = re.match(r"^\s*\[\^([^\]]+)\]:\s*(.*)$", s)
                out.append(Block(Kind.FOOTNOTE, m2.group(2), pno, number=m2.group(1)))
                i += 1
                continue
            if raw.startswith("    ") and not para:
                j = i
                buf = []
                while j < n and (lines[j].startswith("    ") or not lines[j].strip()):
                    buf.append(lines[j][4:])
                    j += 1
                out.append(Block(Kind.CODE, "\n".join(buf).rstrip("\n"), pno, attrs={"language": None}))
                i = j
                continue
        # an unfenced code run (pseudocode in OCR text)
        if i in score:
            if i not in run_end:
                fill_run(i)
            j = run_end[i]
            strong = strong_upto[j - 1] - strong_upto[i] + (score[i] == 2)
            if j - i >= 3 and strong >= 2 and strong >= (j - i) * 0.5:
                flush_para()
                out.append(Block(Kind.CODE, "\n".join(lines[i:j]), pno, attrs={"language": None}))
                i = j
                continue
        if markdown:
            m = LIST_RE.match(raw)
            if m:
                if para:
                    flush_para()
                out.append((raw, m))  # a list item: a Block once _coalesce_tiny has decided
                i += 1
                continue
            para.append(s)
            i += 1
            continue
        # OCR text: one line is one paragraph (or heading, list item, caption, footnote)
        flush_para()
        out.append(s)
        i += 1
    flush_para()
    if len(heading_lines) >= HEADING_RUN:
        _no_outline(out, heading_lines)
    for k, (text, level) in heading_lines.items():
        if out[k] is None:
            out[k] = Block(Kind.HEADING, text, pno, level=level, attrs={"_markup": True})
    return out


# A run of this many Markdown headings in a row, with no text under any of them, is no outline:
# no real document has one (the longest in ../shared/corpus is 3), while a file of "# ..."
# comment lines, or generated junk, does. Its lines are read as lines of text (their words,
# without the "#" marks), not as 100,000 sections, each with its id, graph node and share of
# every later stage. The last heading of the run keeps its text under it and stays a heading.
HEADING_RUN = 64


# A line whose stripped text MD_HEADING_RE matches, in lines joined after a first line break: one
# to six "#", blanks, and the rest of the line from its first non-blank character (a stripped
# line that has blanks after its marks has text after them). Its blanks are no line break where
# MD_HEADING_RE has \s (the lines hold none), and none is tried again: no lazy group that tries the
# end of the pattern at each character of the line.
_MD_HEADING_LINES = re.compile(r"\n[^\S\n]*+(#{1,6})[^\S\n]++(\S[^\n]*+)")


def _more_headings(lines: list[str], i: int, rule_lines: set[int], out: list,
                   heading_lines: dict[int, tuple[str, int]]) -> int:
    """The heading loop of _text_blocks past the first HEADING_RUN headings of a run, in bulk:
    windows of lines (doubling from HEADING_RUN) in which every line is a rule line and a heading
    are each read by one search, not a strip, a test and a match per line (a file of "# ..."
    lines, 285,000 a MB; no real document has a run this long); a window that is not halves,
    down to HEADING_RUN lines. Returns the first line of the first such window that is not all
    headings: the loop reads on from there, line by line."""
    w = HEADING_RUN
    while i < len(lines):
        chunk = lines[i:i + w]
        joined = "\n" + "\n".join(chunk)
        if joined.count("\n") != len(chunk):
            return i  # (a line holding a break: line by line)
        found = _MD_HEADING_LINES.findall(joined)
        # (one match at most a line: else some line is no heading, or no rule line, which ends the run)
        if len(found) != len(chunk) or not all(map(rule_lines.__contains__, range(i, i + len(chunk)))):
            if w == HEADING_RUN:
                return i
            w //= 2  # (the run ends in this window: the loop reads at most HEADING_RUN lines of it)
            continue
        # MD_HEADING_RE's group is the shortest that leaves blanks, a run of "#" and blanks: the
        # longest such end, found by stripping from the right; its at least one character where
        # that takes all of them is the regex's own answer (stripped as the loop strips it)
        texts = [t.rstrip().rstrip("#").rstrip() for _, t in found]
        if "" in texts:
            texts = [t or MD_HEADING_RE.match(raw.strip()).group(2).strip() for t, raw in zip(texts, chunk, strict=True)]
        at = len(out)
        heading_lines.update(zip(range(at, at + len(found)), zip(texts, [len(h) for h, _ in found], strict=True),
                                 strict=True))
        out += [None] * len(found)
        i += len(chunk)
        w *= 2
    return i


def _no_outline(out: list, heading_lines: dict[int, tuple[str, int]]) -> None:
    i, n = 0, len(out)
    while i < n:
        if i not in heading_lines:
            i += 1
            continue
        j = i
        while j < n and j in heading_lines:
            j += 1
        end = j - 1 if j < n else j  # text follows the last one: a heading of its own
        if end - i >= HEADING_RUN:
            out[i:end] = [heading_lines[k][0] for k in range(i, end)]  # one-line paragraphs (str)
        i = j


# A run of this many paragraphs in a row, each this short, is joined into paragraphs of
# up to TINY_GROUP lines: every later stage costs about the same per block whatever its length,
# so 1,000,000 one-letter paragraphs cost 200 times what the same bytes of prose do. No real
# document has 64 such paragraphs in a row; a number table read one cell a line does, and
# reads as well joined. In Markdown a run may mix one-line paragraphs, paragraphs of tiny lines
# and list items with no word of two letters ("- x", "1. ."): a list of 100,000 such items with
# one-character lines between them ran every item through every stage as its own block (0.2 MB
# per CPU-s); joined, each keeps its line as written (its marker too) in the paragraph.
TINY_RUN = 64
TINY_CHARS = 16
TINY_GROUP = 256


def _tiny_text(t: str) -> bool:
    if len(t) > TINY_CHARS or "\n" in t:
        return False
    c = t[:1]
    # (both need a digit first, or a capital and then a dot, a blank or the rest of a caption
    # word: "Heading 12" and the like, 100,000 of them a file of headings, are tested by neither)
    if (c.isdigit() or "A" <= c <= "Z" and (t[1:2] == "." or t[1:2].isspace() or t.startswith(_CAPTION_WORDS))) \
            and (HEADING_NUM_RE.match(t) or CAPTION_RE.match(t)):
        return False
    return t.strip().lower() not in UNNUMBERED_HEADINGS


_CAPTION_WORDS = ("Table", "Fig", "Listing", "Algorithm")  # CAPTION_RE's words, "Figure" and "Fig." by "Fig"

# The lines _tiny_text may refuse, a superset, each found by the line break before it in the
# lines joined after a first break (the pattern reads no further than its line): longer than
# TINY_CHARS, a first character that is a digit (or not ASCII: str.isdigit takes "²"), a capital
# then a dot, a blank or the rest of a caption word, or an unnumbered heading's name, blanks
# around it, in any case (re's case-blind match takes "K" for "k" as lower() does; no other
# character lowers into ASCII but "İ", whose "i̇" is no name's)
_MAYBE_NOT_TINY = re.compile(
    r"\n(?=[^\n]{" + str(TINY_CHARS + 1) + r"}|[0-9\x80-\U0010ffff]|[A-Z](?:[.]|[^\S\n]|able|ig|isting|lgorithm)"
    r"|[^\S\n]*(?i:" + "|".join(map(re.escape, sorted(UNNUMBERED_HEADINGS, key=lambda h: (-len(h), h))))
    + r")[^\S\n]*(?:\n|\Z))")


def _tiny_flags(texts: list[str]) -> list[bool]:
    """``[len(t) <= TINY_CHARS and _tiny_text(t) for t in texts]`` for texts of one line: True
    but at the lines _MAYBE_NOT_TINY finds, which _tiny_text reads (a file of "# Heading N"
    lines: 285,000 distinct short lines a MB, each read by it)."""
    sample = texts[::16]
    # (mostly long lines, a page of "contact user@example.org now" lines, are refused by their
    # length alone, where the search would find every one of them; a text of several lines is
    # read line by line too)
    if sum(len(t) <= TINY_CHARS for t in sample) * 2 >= len(sample):
        joined = "\n" + "\n".join(texts)
        if joined.count("\n") == len(texts):
            flags = [True] * len(texts)
            for k in line_hits(_MAYBE_NOT_TINY, joined):
                t = texts[k]
                flags[k] = len(t) <= TINY_CHARS and _tiny_text(t)
            return flags
    return [len(t) <= TINY_CHARS and _tiny_text(t) for t in texts]


# A list item without a word of two letters or digits ("- x", "1. .") says nothing a list would
# keep apart from its neighbours: in a run of tiny blocks it is a line like the others
_WORD2_RE = re.compile(r"[^\W_]{2}")


def _tiny_item(item: tuple) -> bool:
    """A list line (raw, match) as _text_blocks leaves it: tiny, and no word in its text."""
    text = item[1].group(5)
    return len(text) <= TINY_CHARS and _tiny_text(text.strip()) and not _WORD2_RE.search(text)


def _tiny(b, line=_tiny_text, item=_tiny_item) -> bool:
    """Whether ``b`` (as _text_blocks leaves it: a str, a list line, a paragraph's lines, or a
    Block) is tiny; ``line`` the test of a line (a Block of lines joined by _join_runs is not),
    ``item`` that of a list line."""
    t = type(b)
    if t is str:
        return line(b)
    if t is tuple:
        return item(b)
    if t is list:  # a Markdown paragraph's lines: each of them tiny
        return all(map(line, b))
    return b.kind is Kind.PARAGRAPH and "\n" not in b.text and line(b.text)


def _tiny_lines(b) -> list[str]:
    """The lines a tiny item brings into a joined paragraph (a list line as written)."""
    t = type(b)
    if t is str:
        return [b]
    if t is tuple:
        return [b[0].strip()]
    if t is list:
        return b
    return b.attrs.get("_line_texts") or [b.text]


# Block's fields in order, as _as_blocks passes them (checked at import: a field added to or
# moved in model.Block takes the keyword road)
_POSITIONAL = [f.name for f in fields(Block)] == ["kind", "text", "page", "page_end", "id", "level", "number",
                                                 "section_id", "bbox", "attrs"]


def _as_blocks(items: list, page: int) -> list[Block]:
    """``items`` with each str (a one-line paragraph) made a Block: in one comprehension, with
    the fields by position (raw OCR text: 47,000 a MB; a call per item and the keyword
    argument cost a third of the Block itself)."""
    para = Kind.PARAGRAPH
    if _POSITIONAL:
        return [Block(para, b, page, None, "", None, None, None, None, {"_line_texts": [b]}) if type(b) is str
                else b if type(b) is Block else _made(b, page) for b in items]
    return [Block(para, b, page, attrs={"_line_texts": [b]}) if type(b) is str
            else b if type(b) is Block else _made(b, page) for b in items]


def _made(item: tuple | list, page: int) -> Block:
    """The Block of what _text_blocks left undecided: a list item's (line, match), or the lines
    of a Markdown paragraph."""
    if type(item) is tuple:
        return _list_block(item[0], page, item[1])
    return Block(Kind.PARAGRAPH, "\n".join(item), page, attrs={"_line_texts": item})


# what may close a sentence after its mark (structure.SENTENCE_END_RE's ['"”’)\]]*); none is a mark
_CLOSERS = "'\"”’)]"
# how far before a break a parenthesis may open, and after it close (a list of citations), for the text to
# run on through the break
_BRACKET_OPEN, _BRACKET_CLOSE = 80, 240


def ends_sentence(parts: list[str]) -> bool:
    """``structure.SENTENCE_END_RE.search`` of the parts joined and right-stripped, read from the
    end: the pattern can match only at the last character that is not a closer. (A paragraph
    that runs on over every page break was searched whole at each one: a text of 2,000 pages,
    one sentence without a stop, took 13.5 CPU-s a MB, 3.7 for half of it.)"""
    blank = True  # (trailing blanks are stripped, blanks between closers are not)
    for part in reversed(parts):
        t = part.rstrip() if blank else part
        if not t:
            continue
        blank = False
        u = t.rstrip(_CLOSERS)
        if u:
            return u[-1] in ".!?:;"
    return False


def _bracket_goes_on(a: str, c: str) -> bool:
    """A parenthesis left open at the break and closed early in the next text: "... APOGEE-2 (Gunn et al."
    at a column's foot, a footnote under it, "2006; Majewski et al. 2017; ...)" atop the next column. The
    citation's "et al." is no sentence's end and its year no new paragraph (round32_citations_rule.md F)."""
    tail = a[-_BRACKET_OPEN:]
    i = tail.rfind("(")
    if i < 0 or ")" in tail[i:]:
        return False
    head = c[:_BRACKET_CLOSE]
    j = head.find(")")
    return j > 0 and "(" not in head[:j]


def runs_on(parts: list[str], c: str) -> bool:
    """The text ``parts`` joined runs on into the next text ``c`` (left-stripped): no sentence
    end before the break, and a lower-case word, a bracket or the rest of a hyphenated word
    after it. (Several parts: the last holds a character that is not blank.) The test of a
    paragraph split by a page break (structure), and of raw OCR text's lines (below)."""
    a = parts[-1].rstrip()
    if not a or not c:
        return False
    if _bracket_goes_on(a, c):
        return True
    if ends_sentence(parts):
        return False
    if a.endswith("-") and c[:1].isalpha():
        return True
    return c[:1].islower() or (c[:1] in "(" and not a.endswith(".")) or (a.endswith(",") and not c[:1].isupper())


def _line_runs_on(a, c) -> bool:
    return type(a) is str and type(c) is str and runs_on([a], c)


def _join_runs(items: list, page: int) -> list:
    """Raw OCR text written as the lines of the page, not a paragraph a line: a chain of TINY_RUN
    or more one-line paragraphs, each running on into the next (the test of a paragraph split by
    a page break), is joined into paragraphs of TINY_GROUP lines, as the lines of a paragraph
    (normalize re-flows them). No OCR engine's text in ../shared/corpus has such a chain (each
    line there is a paragraph, ended by its stop); 1 MB of short lines that do ran 47,000
    paragraphs through every stage, half the speed of prose. The page's first and last lines
    stay lines of their own: a running head or foot sits there, and normalize finds it there."""
    flags = list(map(_line_runs_on, items, items[1:]))  # the line at k runs on into the one at k + 1
    if flags:
        flags[0] = flags[-1] = False
    out: list = []
    i, n = 0, len(flags)
    while i < n:
        try:
            k = flags.index(True, i)
        except ValueError:
            break
        try:
            j = flags.index(False, k)
        except ValueError:
            j = n
        # lines k..j: each up to j runs on into the next
        if j + 1 - k >= TINY_RUN:
            out.extend(items[i:k])
            for g in range(k, j + 1, TINY_GROUP):
                texts = items[g:min(j + 1, g + TINY_GROUP)]
                out.append(Block(Kind.PARAGRAPH, "\n".join(texts), page, attrs={"_line_texts": texts}))
        else:
            out.extend(items[i:j + 1])
        i = j + 1
    out.extend(items[i:])
    return out


def _coalesce_tiny(items: list, page: int, runs: bool = False) -> list[Block]:
    """Blocks of a page of text input (a str is a one-line paragraph), runs of TINY_RUN or more
    tiny paragraphs joined into paragraphs of TINY_GROUP lines; with ``runs`` (raw OCR text, where
    a line is the engine's), first chains of lines running on (_join_runs)."""
    if len(items) < TINY_RUN:
        return _as_blocks(items, page)
    if runs:
        items = _join_runs(items, page)
    seen: dict[str, bool] = {}

    def line(b: str) -> bool:  # _tiny_text, once per distinct short line (a page of "a" lines has one)
        if len(b) > TINY_CHARS:
            return False
        t = seen.get(b)
        if t is None:
            t = seen[b] = _tiny_text(b)
        return t

    items_seen: dict[str, bool] = {}

    def item(b: tuple) -> bool:  # _tiny_item, once per distinct list line
        v = items_seen.get(b[0])
        if v is None:
            v = items_seen[b[0]] = _tiny_item(b)
        return v

    def tiny(b) -> bool:  # (_tiny(b, line, item), a call less for a line or a list line: 670,000 a MB of them)
        t = type(b)
        if t is str:
            if len(b) > TINY_CHARS:
                return False
            v = seen.get(b)
            if v is None:
                v = seen[b] = _tiny_text(b)
            return v
        if t is tuple:
            v = items_seen.get(b[0])
            if v is None:
                v = items_seen[b[0]] = _tiny_item(b)
            return v
        return _tiny(b, line, item)

    if set(map(type, items)) == {str}:  # (a page of text lines: each distinct line tested once)
        # (tiny(t) of a str is _tiny_text(t), which is False past TINY_CHARS: no call for a long line)
        if _lines_repeat(items):  # (a page of distinct lines gains nothing by the memo)
            memo = {t: len(t) <= TINY_CHARS and _tiny_text(t) for t in set(items)}
            flags = list(map(memo.__getitem__, items))
        else:
            flags = _tiny_flags(items)
    else:
        flags = list(map(tiny, items))
    out: list[Block] = []
    i, n = 0, len(items)

    def upto(flag: bool, i: int) -> int:  # the first index from i whose flag is ``flag`` (n if none)
        try:
            return flags.index(flag, i)
        except ValueError:
            return n

    while i < n:
        if not flags[i]:
            j = upto(True, i)
            out.extend(_as_blocks(items[i:j], page))
            i = j
            continue
        j = upto(False, i)
        if j - i < TINY_RUN:
            out.extend(_as_blocks(items[i:j], page))
        else:
            texts: list[str] = []
            for b in items[i:j]:  # (_tiny_lines(b), written out for a line, a list line, a paragraph's lines)
                t = type(b)
                if t is str:
                    texts.append(b)
                elif t is tuple:
                    texts.append(b[0].strip())
                elif t is list:
                    texts.extend(b)
                else:
                    texts.extend(_tiny_lines(b))
                if len(texts) >= TINY_GROUP:
                    out.append(Block(Kind.PARAGRAPH, "\n".join(texts), page, attrs={"_line_texts": texts}))
                    texts = []
            if texts:
                out.append(Block(Kind.PARAGRAPH, "\n".join(texts), page, attrs={"_line_texts": texts}))
        i = j
    return out


_PIPE_SPLIT = re.compile(r"(?<!\\)\|")  # (compiled once: a row of a pipe table a call, 9,000 a MB of tables)


def _pipe_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip().replace("\\|", "|") for c in _PIPE_SPLIT.split(s)]  # (GFM's escaped pipe is a pipe)


def _list_block(text: str, page: int, m: re.Match | None = None) -> Block:
    m = m or LIST_RE.match(text)  # (the caller's match of the same line: 40,000 list lines were matched twice)
    indent = len(text) - len(text.lstrip())
    marker = (m.group(1) or m.group(2) or m.group(3) or m.group(4)).strip()
    ordered = not m.group(1)
    return Block(Kind.LIST_ITEM, m.group(5).strip(), page, level=1 + indent // 2, number=marker if ordered else None,
                 attrs={"ordered": ordered})
