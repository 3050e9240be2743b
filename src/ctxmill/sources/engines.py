"""Raw OCR-engine text -> clean Markdown pages (issue 14).

Every OCR or document-AI engine writes its own dialect: MinerU puts every heading at ``#``,
docling at ``##``; marker leaves ``<span id="page-3-1"></span>`` anchors and ``(#page-3-1)``
links; Nougat writes ``\\( \\)`` math, ``\\begin{tabular}`` tables and ``[MISSING_PAGE...]``;
Mistral OCR (through paper2llm) ``#### Page 7`` markers and ``${ }^{1}$`` superscripts;
PaddleOCR-VL HTML ``<div>``/``<img>``/``<table>``; DeepSeek-OCR grounding lines
``<|ref|>title<|/ref|><|det|>[[x1, y1, x2, y2]]<|/det|>`` and ``<--- Page Split --->``.

:func:`sniff_engine` recognises the family from the text (and the file name); :func:`to_pages`
turns any of them into one canonical Markdown text per page: headings kept as headings with
their level re-derived from the section numbering (``## 3``, ``### 3.2``; the one title at
``#``), tables as GFM pipe tables, math as ``$...$`` / ``$$...$$``, figures as image
placeholders, superscript markers as ``[^n]``, no engine markup. The compile stages read that
Markdown like any other; nothing here decides what a paragraph *means* beyond the headings.
"""

from __future__ import annotations

import bisect
import functools
import html
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from itertools import compress, islice, repeat
from pathlib import Path

from ctxmill.accents import combine
from ctxmill.linescan import sub_at_line_starts

# name -> what it is; "plain" is text lines without Markdown (one OCR paragraph a line, the
# sample's `── PAGE 2 / 46 ──` style), "markdown" a Markdown OCR output of no known engine.
ENGINES = {
    "deepseek-ocr": "DeepSeek-OCR (grounding tags, <--- Page Split --->)",
    "dots-ocr": "dots.ocr (JSON list of {bbox, category, text} layout blocks)",
    "docling-json": "docling's DoclingDocument JSON (the lossless export: body $refs into texts, tables, groups)",
    "textract-json": "Amazon Textract JSON (DetectDocumentText / AnalyzeDocument: Blocks of PAGE, LINE, LAYOUT_*, TABLE)",
    "grobid-tei": "GROBID TEI XML (teiHeader title / authors / abstract, body divs with numbered heads, listBibl)",
    "docai-json": "Google Document AI Document JSON, OCR processors (one text, pages as textAnchor offsets)",
    "docai-layout-json": "Google Document AI Layout Parser JSON (documentLayout blocks: heading-N, paragraph, header)",
    "azure-di-json": "Azure Document Intelligence analyze result JSON (content, paragraphs with roles, tables)",
    "s2orc-json": "S2ORC JSON of allenai's doc2json (title, authors, body_text paragraphs naming their section, bib_entries)",
    "adobe-extract-json": "Adobe PDF Extract API structuredData.json (elements in reading order, each a //Document Path)",
    "alto-xml": "ALTO XML (ABBYY FineReader, Tesseract, Kraken...: TextBlock / TextLine / String CONTENT)",
    "page-xml": "PAGE XML (OCR-D, Calamari, Transkribus, Kraken: TextRegion / TextLine / TextEquiv / Unicode)",
    "chandra": "Chandra OCR (HTML: one <div data-bbox data-label> per layout block)",
    "doctags": "DocTags (docling, SmolDocling / granite-docling: <section_header_level_1><loc_N>...)",
    "mineru-json": "MinerU content_list.json (JSON list of {type, text, text_level, page_idx})",
    "marker-json": "marker JSON (a Document -> Page -> block tree of {block_type, html, children})",
    "hocr": "hOCR (Tesseract and others: ocr_page / ocr_par / ocr_line / ocrx_word elements)",
    "unstructured-json": "Unstructured element JSON (a list of {type, element_id, text, metadata.page_number})",
    "paddleocr-vl-json": "PaddleOCR-VL JSON result ({parsing_res_list: [{block_label, block_content}]} a page)",
    "marker": "marker (span anchors, #page-N-M links)",
    "docling": "docling (## headings, <!-- image --> placeholders)",
    "nougat": "Nougat (.mmd: \\( \\) math, LaTeX tables, [MISSING_PAGE])",
    "mistral": "Mistral OCR (#### Page N markers, ${ }^{n}$ superscripts)",
    "paddleocr-vl": "PaddleOCR-VL (HTML <div>/<img>/<table>)",
    "mineru": "MinerU / magic-pdf (# headings, images/<sha>.jpg)",
    "olmocr": "olmOCR (YAML front matter)",
    "azure-di": "Azure Document Intelligence (<!-- PageBreak -->)",
    "mathpix": "GOT-OCR 2.0 format / Mathpix Markdown (\\title{}, \\section{})",
    "text": "plain text with wrapped lines (Tesseract, pdftotext, Document AI text)",
    "unstructured-md": "Unstructured's Markdown (one element a line, no blank line between blocks, every Title '# ')",
    "pymupdf4llm": "PyMuPDF4LLM's Markdown (bold-line headings with the section number bold apart: **3.1** **Title**)",
    "markdown": "Markdown OCR output of no known engine",
    "plain": "plain OCR text lines",
}

KNOWN_HEADINGS = {
    "abstract", "references", "bibliography", "acknowledgments", "acknowledgements", "acknowledgment",
    "acknowledgement", "appendix", "appendices", "supplementary material", "supplementary materials",
    "literature cited", "works cited", "keywords", "key words", "index terms", "ccs concepts", "contents",
    "table of contents", "funding", "author contributions", "data availability", "limitations",
    "ethics statement", "broader impact", "conflict of interest", "declaration of competing interest",
    "related work", "conclusion", "conclusions", "introduction", "discussion", "summary",
}

# --------------------------------------------------------------------------- sniffing

_XML_PROLOGUE = (r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]{0,2000}?-->\s*)*"
                 r"(?:<!DOCTYPE[^\[>]*(?:\[[\s\S]{0,200000}?\])?\s*>\s*)?(?:<!--[\s\S]{0,2000}?-->\s*)*")
_SNIFF = [  # (engine, pattern, hits needed, strings one of which every match holds) -- first match wins,
    # most specific first; a pattern is searched only where one of its strings is (an `in` test is a
    # fast scan, and most text holds none of them: the ^-anchored patterns are tried at every line)
    # (first: a JSON export names its schema at its top, and its texts may quote any other engine's tags)
    ("docling-json", re.compile(r'\A\s*\{[^{}]{0,400}?"schema_name"\s*:\s*"DoclingDocument"'), 1, ('"DoclingDocument"',)),
    # (a response, or a list of an asynchronous job's responses: "Blocks" whose first block has a
    # BlockType, keys in Textract's order or sorted, BlockType first either way)
    ("textract-json", re.compile(r'\A\s*\[?\s*\{[\s\S]{0,5000}?"Blocks"\s*:\s*\[\s*\{\s*"BlockType"\s*:\s*"[A-Z_]+"'), 1,
     ('"BlockType"',)),
    # (GROBID's TEI: the TEI root in its namespace, after an optional XML declaration and comments)
    ("grobid-tei", re.compile(r'\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]{0,2000}?-->\s*)*'
                              r'<(?:tei:)?TEI\b[^>]*xmlns(?::tei)?="http://www\.tei-c\.org/ns/1\.0"'), 1, ("<TEI", "<tei:TEI")),
    # (ALTO and PAGE XML: the root element, namespaced or not, after an optional declaration, comments and
    # a document type, which the reader refuses with its reason: entities are never expanded)
    ("alto-xml", re.compile(_XML_PROLOGUE + r"<(?:[\w.-]+:)?alto\b"), 1, ("<alto", ":alto")),
    ("page-xml", re.compile(_XML_PROLOGUE + r"<(?:[\w.-]+:)?PcGts\b"), 1, ("PcGts",)),
    ("deepseek-ocr", re.compile(r"<\|ref\|>|<\|det\|>|^<--- Page Split --->\s*$", re.M), 1,
     ("<|ref|>", "<|det|>", "<--- Page Split --->")),
    # layout engines that label every block, as DeepSeek-OCR's grounding does, in another syntax
    ("dots-ocr", re.compile(r'\A\s*\[\s*\{\s*"bbox"\s*:\s*\[[\d.,\s]+\]\s*,\s*"category"\s*:'), 1, ('"category"',)),
    ("chandra", re.compile(r'<div data-bbox="[\d.\s]+" data-label="[A-Za-z-]+"'), 1, ('data-label="',)),
    ("doctags", re.compile(r"<doctag>|<(?:title|text|section_header_level_\d|page_header|caption|list_item)><loc_\d+>"),
     1, ("<doctag>", "><loc_")),
    ("mineru-json", re.compile(r'\A\s*\[\s*\{\s*"type"\s*:\s*"(?:text|title|image|table|equation|list|code|discarded)"'),
     1, ('"page_idx"',)),
    ("hocr", re.compile(r"""class=["'](?:ocr_page|ocrx_word|ocr_line)["']"""), 1, ("ocr_page", "ocrx_word")),
    # (its element keys in either order: some of its outputs sort them, "element_id" first)
    ("unstructured-json", re.compile(r'\A\s*\[\s*\{\s*"(?:type|element_id)"\s*:'), 1, ('"element_id"',)),
    ("paddleocr-vl-json", re.compile(r'\A\s*[\[{][\s\S]{0,2000}?"parsing_res_list"\s*:\s*\[\s*\{\s*"block_label"'), 1,
     ('"parsing_res_list"',)),
    ("marker-json", re.compile(r'\A\s*\{\s*"children"\s*:\s*\[\s*\{\s*"id"\s*:\s*"/page/\d+/'), 1, ('"block_type"',)),
    ("marker", re.compile(r'<span id="page-\d+-\d+">|\]\(#page-\d+-\d+\)|!\[\]\(_page_\d+_(?:Figure|Picture)_\d+'), 1,
     ('<span id="page-', "](#page-", "![](_page_")),
    ("nougat", re.compile(r"\[MISSING_PAGE_(?:EMPTY|FAIL|POST)[^\]]*\]|^###### Abstract\s*$", re.M), 1,
     ("[MISSING_PAGE_", "###### Abstract")),
    ("mistral", re.compile(r"^#{1,6} Page \d+\s*$|\$\{\s*\}\^\{|!\[img-\d+\.(?:jpe?g|png)\]\(img-\d+\.", re.M), 1,
     ("# Page ", "${", "![img-")),
    ("paddleocr-vl", re.compile(r'<div style="text-align: center;">|<img src="imgs/img_in_'), 1,
     ('<div style="text-align: center;">', '<img src="imgs/img_in_')),
    ("docling", re.compile(r"<!-- image -->|<!-- formula-not-decoded -->"), 1,
     ("<!-- image -->", "<!-- formula-not-decoded -->")),
    ("azure-di", re.compile(r"<!-- PageBreak -->|<!-- PageHeader=|<!-- PageNumber="), 1, ("<!-- Page",)),
    ("mineru", re.compile(r"!\[\]\(images/[0-9a-f]{16,}\.(?:jpe?g|png)\)"), 1, ("![](images/",)),
    ("mathpix", re.compile(r"^\\(?:title|section\*?|subsection\*?)\{|^\\begin\{abstract\}", re.M), 1,
     ("\\title{", "\\section", "\\subsection", "\\begin{abstract}")),
    ("olmocr", re.compile(r"\A---\s*\n(?:.*\n){0,8}?\s*(?:primary_language|is_rotation_valid|is_table|is_diagram):",
                          re.M), 1, ("---",)),
]
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
# (the blanks before a page line are its own line's, [^\S\n]*, not \s*: \s* crosses line ends, and a run
# of N blank lines was read from each of its N line starts, N^2/2 steps: round33_fuzz_rule.md C1; a
# search's answer is the same, its match starting at the page line instead of a blank line before it)
_PAGED_TEXT = re.compile(r"^[^\S\n]*[─━—–=\-]{1,}\s*PAGE\s+\d+\s*(?:/|of)\s*\d+\s*[─━—–=\-]{1,}\s*$", re.M | re.I)


def sniff_engine(text: str, name: str | None = None) -> str | None:
    """The engine family of raw OCR text, "markdown" for Markdown with OCR traits, "plain" for
    OCR text lines, or None for ordinary Markdown/text that no OCR engine wrote."""
    sample = text[:300_000]
    docai = _docai_shape(text, sample) or _azure_shape(text, sample) or _s2orc_shape(text, sample) or \
        _adobe_shape(text, sample)
    if docai:
        return docai
    for engine, rx, _, needles in _SNIFF:
        if any(n in sample for n in needles) and rx.search(sample):
            return engine
    if "** **" in sample and len(_BOLD_NUMBER_HEAD.findall(sample)) >= 3:
        return "pymupdf4llm"  # (its maker's mark: a heading's number bold apart from its bold words)
    suffix = Path(name).suffix.lower() if name else ""
    if suffix == ".mmd":
        return "nougat"
    # (a heading line starts with "#": a sample without one has none, and costs no line split)
    heads = [len(m.group(1)) for m in map(_MD_HEADING.match, sample.splitlines()) if m] if "#" in sample else []
    if _PAGED_TEXT.search(sample) and len(heads) < 2:
        return "plain"
    # every heading at one level, and the headings of a paper among them: docling writes all at
    # ##, MinerU all at # (a Markdown page of sections at ## alone is no evidence)
    one_level = len(heads) >= 3 and len(set(heads)) == 1  # (the paper test only where it can decide)
    paperish = one_level and bool(re.search(
        r"^#{1,2} +(?:\d{1,2}\.? +[A-Z]|(?:Abstract|ABSTRACT|References|REFERENCES)\s*$)", sample, re.M))
    if one_level and heads[0] == 2 and paperish:
        return "docling"  # docling writes every heading, the title too, at ##
    if len(heads) >= 2 and set(heads) == {1} and _one_block_a_line(sample, len(heads)):
        return "unstructured-md"  # (every Title element "# ", one element a line, no blank line anywhere)
    if "\\(" in sample or re.search(r"\\begin\{tabular\}", sample):
        if len(heads) >= 2:
            return "nougat"
        # paragraphs set apart by blank lines are Markdown (GPT-4o, olmOCR write them so), one
        # paragraph a line OCR lines (round33_ocr_rule.md G)
        return "markdown" if _blank_separated(sample) else "plain"
    if one_level and heads[0] == 1 and paperish:
        return "mineru"
    if not heads and (_wrapped_text(sample) or _double_spaced(sample)):
        return "text"
    # Markdown with the traits of an OCR transcript of a paper (LaTeX math, a bold "References"
    # line, a numbered bibliography) but no engine's signature: cleaned the generic way
    # (each searched only where the sample holds the character every match of it starts with)
    traits = sum((
        "$" in sample and bool(re.search(r"\$[^$\n]*\\[a-zA-Z]+[^$\n]*\$|^\$\$", sample, re.M)),
        "**" in sample and bool(re.search(r"^\*\*(?:References|Bibliography|Acknowledge?ments?)\*\*\s*$", sample,
                                          re.M | re.I)),
        "(" in sample and bool(re.search(r"\([A-Z][a-z]+(?: et al\.)?,? (?:19|20)\d\d[a-z]?[;)]", sample)),
        "|" in sample and bool(re.search(r"^\|.*\|\s*\n\|[\s:|-]+\|\s*$", sample, re.M)),
    ))
    if traits >= 2:
        return "markdown"
    return None


_DOCAI_KEYS = ('"textAnchor"', '"text_anchor"', '"documentLayout"', '"document_layout"')


# PyMuPDF4LLM writes a section head as bold spans, the number bold apart: "**3.2.1** **Scaled Attention**"
_BOLD_NUMBER_HEAD = re.compile(r"^\*\*(\d{1,2}(?:\.\d{1,2}){0,3})\.?\*\*[ \t]+\*\*([^*\n]+?)\*\*[ \t]*$", re.M)
_BOLD_LINE = re.compile(r"^\*\*([^*\n]{2,80}?)\*\*[ \t]*$")
_BOLD_LEAD = re.compile(r"^\*\*([^*\n]{2,40}?)\*\*[ \t]+(\S.*)$")
_BOLD_NAME = re.compile(r"^\*\*([^*\n\d]{2,60}?)\*\*[ \t]*(_\[[^\]\w\s]{1,4}\]_)?[ \t]*$")
_HASH_BOLD = re.compile(r"^(#{1,6})[ \t]+\*\*([^*\n]+?)\*\*[ \t]*$")
_RUN_IN_LABELS = {"keywords", "key words", "index terms", "ccs concepts"}


def _pymupdf4llm(text: str) -> str:
    """PyMuPDF4LLM's Markdown -> Markdown with its headings marked: a bold number apart from bold
    words is that section's heading ("**3.1** **Encoder**" -> "## 3.1 Encoder"); a "#" heading loses
    its bold; after the first section, a bold line of its own ("**Attention Maps**") is a heading,
    and so anywhere is a standard section's name alone in bold, or leading its paragraph in bold
    ("**Acknowledgements** We thank ..."; other bold leads, "**Encoder:**", stay run-in). A fenced
    block of e-mail addresses only (its monospace type) is plain lines: a byline's."""
    lines = text.split("\n")
    out: list[str] = []
    seen_section = in_code = False
    fence_at = -1
    byline: int | None = None
    names: list[str] = []
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            if not in_code:
                fence_at = len(out)
            else:
                inner = [x.strip() for x in out[fence_at + 1:] if x.strip()]
                if inner and all(re.fullmatch(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+[,;]?", x) for x in inner):
                    # (the opening fence out, the closing one not written; unindented: no code block)
                    out[fence_at:] = [x.strip() for x in out[fence_at + 1:]]
                    in_code = False
                    continue
            in_code = not in_code
            out.append(line)
            continue
        if in_code or "**" not in line:
            out.append(line)
            continue
        m = _BOLD_NUMBER_HEAD.match(line)
        if m:
            out.append(f"## {m.group(1)} {m.group(2).strip()}")
            seen_section = True
            continue
        m = _HASH_BOLD.match(line)
        if m:
            out.append(f"{m.group(1)} {m.group(2).strip()}")
            continue
        m = _BOLD_NAME.match(line) if not seen_section else None
        if m and (m.group(2) or (i + 1 < len(lines) and lines[i + 1].strip())):
            # a byline's name in bold over its affiliation, its marks (symbols only) after it: the
            # names of the stacked blocks go together on one line where the first stood (a byline),
            # each block's affiliation and e-mail stay where they are
            if byline is None:
                byline = len(out)
                out += ["", ""]
            names.append(m.group(1).strip())
            out[byline] = ", ".join(names)
            continue
        alone = not (lines[i - 1].strip() if i else "") and not (lines[i + 1].strip() if i + 1 < len(lines) else "")
        m = _BOLD_LINE.match(line)
        name = _norm(m.group(1)) if m else ""
        if m and alone and (name in KNOWN_HEADINGS or (seen_section and not re.search(r"[.:,;]$", m.group(1)))):
            out.append("## " + m.group(1).strip())
            continue
        m = _BOLD_LEAD.match(line)
        if m and (name := _norm(m.group(1))) in KNOWN_HEADINGS and name not in _RUN_IN_LABELS and not (
                lines[i - 1].strip() if i else ""):
            out += ["## " + m.group(1).strip(), "", m.group(2)]
            continue
        out.append(line)
    return "\n".join(out)


def _docai_shape(text: str, sample: str) -> str | None:
    """Document AI's Document JSON, told by its shape (its keys are in no fixed order, and a
    minified one is a megabyte on one line: the whole text is parsed, only where the sample opens
    a JSON object and names one of its keys)."""
    # (the whole text searched for the keys: a minified output's one text field may fill the sample)
    if not sample.lstrip("\ufeff \t\r\n")[:1] == "{" or not any(k in text for k in _DOCAI_KEYS):
        return None
    from ctxmill.sources import docai_json

    got = docai_json.shape(_json_value(text))
    return {"ocr": "docai-json", "layout": "docai-layout-json"}.get(got) if got else None


def _azure_shape(text: str, sample: str) -> str | None:
    """Azure Document Intelligence's analyze result: a JSON object holding ``content`` and
    ``paragraphs`` (bare or under ``analyzeResult``), told by its shape as Document AI's is."""
    if not sample.lstrip("\ufeff \t\r\n")[:1] == "{" or '"paragraphs"' not in text or '"content"' not in text:
        return None
    from ctxmill.sources import azure_di_json

    return "azure-di-json" if azure_di_json.result(_json_value(text)) is not None else None


def _s2orc_shape(text: str, sample: str) -> str | None:
    """allenai doc2json's S2ORC JSON (and CORD-19's): a JSON object whose paragraphs are a
    ``body_text`` list, told by its shape as Document AI's is (its ``header.generated_with`` names
    S2ORC, but CORD-19's files carry no header)."""
    if not sample.lstrip("\ufeff \t\r\n")[:1] == "{" or '"body_text"' not in text:
        return None
    from ctxmill.sources import s2orc_json

    return "s2orc-json" if s2orc_json.paper(_json_value(text)) is not None else None


def _adobe_shape(text: str, sample: str) -> str | None:
    """Adobe PDF Extract's structuredData.json: a JSON object whose ``elements`` hold ``//Document``
    Paths, beside Adobe's ``version`` record (``json_export``) or ``extended_metadata``."""
    if not sample.lstrip("\ufeff \t\r\n")[:1] == "{" or '"elements"' not in text or '"//Document' not in text:
        return None
    from ctxmill.sources import adobe_extract_json

    return "adobe-extract-json" if adobe_extract_json.elements(_json_value(text)) is not None else None


def _json_value(text: str):
    import json

    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _one_block_a_line(sample: str, heads: int) -> bool:
    """Ten lines or more, not one blank line among them, and the headings (``heads``) at most half
    of them: a writer that puts one element on each line, as Unstructured's Markdown renderer does
    (Markdown sets blocks apart with blank lines; a list of headings alone is no document's shape)."""
    lines = sample.rstrip("\n").split("\n")
    return len(lines) >= 10 and 2 * heads <= len(lines) and all(ln.strip() for ln in lines)


def _blank_separated(sample: str) -> bool:
    """Four non-blank lines or more, at least half of them followed by a blank line."""
    lines = sample.split("\n")
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    apart = sum(1 for i in nonblank if i + 1 < len(lines) and not lines[i + 1].strip())
    return len(nonblank) >= 4 and 2 * apart >= len(nonblank)


def _double_spaced(sample: str) -> bool:
    """Wrapped text with a blank line after every printed line (Apache Tika's text of a PDF): at least
    three in four lines followed by one blank line and a line, the lines of wrapped text's length, and a
    sentence running on over the blank line often (the next line opens in lower case): not Markdown of
    one paragraph a line, whose lines are long and end their sentences."""
    lines = sample.split("\n")
    idx = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(idx) < 40:
        return False
    apart = [i for i in idx if i + 2 < len(lines) and not lines[i + 1].strip() and lines[i + 2].strip()]
    if 4 * len(apart) < 3 * len(idx):
        return False
    lengths = sorted(len(lines[i].strip()) for i in idx)
    if not (40 <= lengths[len(lengths) // 2] <= 110 and lengths[int(len(lengths) * 0.9)] <= 140):
        return False  # (a list of short items, one a paragraph, is no wrapped text)
    runs_on = sum(1 for i in apart if lines[i + 2].lstrip()[:1].islower())
    return 4 * runs_on >= len(apart)


def _undouble(text: str) -> str:
    """The blank line after every line of double-spaced text taken out (a run of two or more stays):
    one printed line a line, as _LinePages reads it. Such text has no page breaks, so a running head
    (a line of three words or more that recurs three times or more, its folio aside) is marked for
    removed.json here: between a page's last line and the next page's first it joined the two."""
    text = re.sub(r"(?<=\S)([^\S\n]*)\n[^\S\n]*\n(?=[^\S\n]*\S)", r"\1\n", text)
    lines = text.split("\n")
    keys = [_FOLIO_ENDS.sub("", ln.strip()) for ln in lines]
    seen: dict[str, int] = {}
    for k in keys:
        if len(k.split()) >= 3 and len(k) <= 80:
            seen[k] = seen.get(k, 0) + 1
    body = sum(1 for k in keys if k)
    heads = {k for k, n in seen.items() if 3 <= n and 20 * n <= body}  # (one a page: rare among the lines)
    if not heads:
        return text
    return "\n".join(_removed_line("running-head", ln) if k in heads else ln for ln, k in zip(lines, keys, strict=True))


_FOLIO_ENDS = re.compile(r"^\d{1,4}\s+|\s+\d{1,4}$")


def _wrapped_text(sample: str) -> bool:
    """Plain text whose paragraphs are wrapped over several lines (Tesseract, pdftotext), as
    opposed to one OCR paragraph a line: form feeds between pages, or short lines that run on."""
    lines = [ln for ln in sample.split("\n") if ln.strip()]
    # (a table row has two pipes: a lone "|" is a rule an OCR engine read in a figure)
    if len(lines) < 8 or re.search(r"^[^\S\n]*(?:#|\|[^\n]*\|)|\$\$|\\\(|<table", sample, re.M):  # ([^\S\n]*: C1 above)
        return False
    if "\f" in sample:
        return True
    lengths = sorted(map(len, lines))
    median = lengths[len(lengths) // 2]
    if not (30 <= median <= 110 and lengths[int(len(lengths) * 0.9)] <= 140):
        return False  # (the line lengths decide most samples: no pass over line pairs)
    runs_on = sum(1 for a, b in zip(sample.split("\n"), sample.split("\n")[1:], strict=False) if a.strip() and b.strip())
    return runs_on >= 0.5 * len(lines)


# --------------------------------------------------------------------------- output


@dataclass
class EngineText:
    pages: list[tuple[int | None, str]]  # (printed page number from the marker, Markdown)
    engine: str
    missing_pages: list[int] = field(default_factory=list)
    info: dict = field(default_factory=dict)  # what the engine's wrapper said (bibtex title ...)
    # what the reader left out on purpose: (index into pages, reason, text); the compile lists it in
    # removed.json (a page header an engine labelled, a page marker), so no word is lost in silence
    removed: list[tuple[int, str, str]] = field(default_factory=list)


# A line dropped inside the text is written as this mark, its reason, the mark, its text: it travels
# with its page until to_pages cuts the pages and takes it out into EngineText.removed
_REMOVED = "\x00"


def _removed_line(reason: str, text: str) -> str:
    return f"{_REMOVED}{reason}{_REMOVED}{' '.join(text.split())}"


# page markers of every style; group "n" is the page number where the marker gives one
_PAGE_MARKERS = [
    re.compile(r"^\s*<--- Page Split --->\s*$"),  # DeepSeek-OCR
    re.compile(r"^\s*#{1,6}\s*Page\s+(?P<n>\d+)\s*$", re.I),  # Mistral via paper2llm
    re.compile(r"^\s*[─━—–=\-]{1,}\s*PAGE\s+(?P<n>\d+)\s*(?:(?:/|of)\s*(?P<t>\d+))?\s*[─━—–=\-]{1,}\s*$", re.I),
    re.compile(r"^\s*\{(?P<n>\d+)\}-{8,}\s*$"),  # marker --paginate_output
    re.compile(r"^\s*<!--\s*(?:PageBreak|page[ _-]?break)\s*-->\s*$", re.I),  # Azure DI, docling
    re.compile(r"^\s*<!--\s*page\s+(?P<n>\d+)\s*-->\s*$", re.I),
]
_PAGE_NUMBER_LINE = re.compile(r"^\s*(?:page\s+)?[-–—]?\s*(?:\d{1,4}|[ivxlc]{1,6})\s*[-–—]?\s*(?:(?:/|of)\s*\d{1,4})?\s*$", re.I)
_MISSING_PAGE = re.compile(r"^\s*\[MISSING_PAGE_(?:EMPTY|FAIL|POST)(?::(?P<n>\d+))?\]\s*$")
# the first character after the blanks of every line a page marker or _MISSING_PAGE matches (and
# of a line dropped before the pages are cut: _REMOVED)
_MARKER_FIRST = frozenset("<#─━—–=-{[\x00")
# the page markers a line can match, by that character, in _PAGE_MARKERS' order (a line of a
# reference list, "[12] ...", is tried against none of them, only against _MISSING_PAGE)
_MARKERS_BY_FIRST = {"<": [_PAGE_MARKERS[0], _PAGE_MARKERS[4], _PAGE_MARKERS[5]], "#": [_PAGE_MARKERS[1]],
                     "{": [_PAGE_MARKERS[3]], "[": [], **dict.fromkeys("─━—–=-", [_PAGE_MARKERS[2]])}


def to_pages(text: str, engine: str) -> EngineText:
    """Split on page markers and clean each page into canonical Markdown."""
    info: dict = {}
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace(_REMOVED, "")
    head_removed: list[str] = []
    text = _strip_wrappers(text, info, head_removed)
    if engine == "pymupdf4llm":  # its headings marked, then read as the Markdown of no other engine
        text, engine = _pymupdf4llm(text), "markdown"
    if engine == "docai-json":  # the OCR processors' one text: the plain-text road, pages cut at its offsets
        from ctxmill.sources import docai_json

        text, title = docai_json.ocr_text(_json_value(text))
        text, engine = text.replace("\r\n", "\n").replace("\r", "\n"), "text"
        if title:
            info["title"] = title
    spaced = engine == "text" and _double_spaced(text[:300_000])
    if spaced:
        text = _undouble(text)
    if engine in _LAYOUT_ENGINES:
        text = _layout_blocks(text, engine)
    if engine in ("alto-xml", "page-xml"):  # (pages of a scanned book: a title only where a region is typed one)
        info["title_typed_only"] = True
    if engine == "deepseek-ocr" or engine in _LAYOUT_ENGINES or "<|ref|>" in text:
        text = _grounding(text)
    raw: list[tuple[int | None, list[str]]] = [(None, [])]
    missing: list[int] = []
    dropped: list[tuple[int, str, str]] = [(0, "engine-metadata", t) for t in head_removed]  # (raw page, ...)
    for line in text.split("\n"):
        parts = line.split("\f")
        for k, part in enumerate(parts):
            if k:
                raw.append((None, []))
            first = part.lstrip()[:1]
            if first not in _MARKER_FIRST:  # (most lines: no marker can start with their first character)
                raw[-1][1].append(part)
                continue
            if first == _REMOVED:  # a line dropped above: listed with this page, a blank line in its place
                reason, _, piece = part.lstrip()[1:].partition(_REMOVED)
                dropped.append((len(raw) - 1, reason, piece))
                raw[-1][1].append("")
                continue
            m = None
            for rx in _MARKERS_BY_FIRST[first]:
                m = rx.match(part)
                if m:
                    break
            # a page number of more than 9 digits is no page number (int() refuses 4,300 digits
            # and more: the compile exited 1): the line is text
            if m and len(m.groupdict().get("n") or "") <= 9:
                n = m.groupdict().get("n")
                raw.append((int(n) if n else None, []))
                if any(map(str.isalnum, part)):
                    dropped.append((len(raw) - 1, "page-marker", part.strip()))
                continue
            mm = _MISSING_PAGE.match(part) if first == "[" else None
            if mm and len(mm.group("n") or "") <= 9:
                if mm.group("n"):
                    missing.append(int(mm.group("n")))
                raw.append((None, []))
                continue
            raw[-1][1].append(part)
    pages: list[tuple[int | None, str]] = []
    at: list[int] = []  # the raw page each of pages comes from
    lined = _LinePages(raw, spaced) if engine == "text" else None
    for i, (num, lines) in enumerate(raw):
        lines = _drop_rules_at_edges(lines)
        if lined is not None and lined.on and any(map(str.strip, lines)):
            # (before the page numbers are taken: a section number opens a page as a folio does)
            lines = _drop_rules_at_edges(lined.page(lines, first=not pages))
        if engine == "text":  # the printed page number on its own line at the top or bottom
            while lines and _PAGE_NUMBER_LINE.match(lines[-1]):
                dropped.append((i, "page-number", lines[-1].strip()))
                lines = _drop_rules_at_edges(lines[:-1])
            while lines and _PAGE_NUMBER_LINE.match(lines[0]):
                dropped.append((i, "page-number", lines[0].strip()))
                lines = _drop_rules_at_edges(lines[1:])
        body = "\n".join(lines)
        if not body.strip():
            continue
        pages.append((num, body))
        at.append(i)
    cleaned = [(n, clean_markdown(body, engine)) for n, body in pages]
    late: list[tuple[int, str, str]] = []  # what relevel and tidy leave out: (index into cleaned, reason, text)
    if cleaned:
        cleaned[0] = (cleaned[0][0], _arxiv_stamp(cleaned[0][1], late))
    cleaned = tidy(relevel(cleaned, engine, info, late), engine, late)
    dropped += [(at[k], reason, piece) for k, reason, piece in late]
    kept = [k for k, (_, b) in enumerate(cleaned) if b.strip()]
    return EngineText(pages=[cleaned[k] for k in kept], engine=engine, missing_pages=missing, info=info,
                      removed=_on_pages(dropped, [at[k] for k in kept]))


_BARE_NUMBER = re.compile(r"\d{1,2}(?:\.\d{1,2}){0,3}\.?")
_CAPTION_LINE = re.compile(r"(?:Figure|Fig\.|Table)\s*\d{1,3}[.:]\s")  # ("Figure 4. Similar ...", not "Figure 4 shows")
_NUMBERED_LINE = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3}\.?)[ \t]+(\S.*)")
# a line that ends on a full date ("Draft version January 4, 2022"): a preprint's or journal's stamp, no title
_DATED_LINE = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2},?\s+(?:19|20)\d\d\s*$"
                         r"|\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+(?:19|20)\d\d\s*$")
_ENTRY_LABEL = re.compile(r"\[\d{1,3}\]\s")


class _LinePages:
    """Plain text of one printed line a line and no blank line anywhere (PyMuPDF's OCR textpage,
    pdftotext without -layout): its paragraphs and headings read from the lines' shapes, as
    blank lines and "#" marks the text road then reads. A line much shorter than the text's
    lines ends its paragraph when a sentence ends on it or the next line opens with a capital
    (a byline's lines, a list's, each its own); a bare section number over a short capitalised
    line is that section's heading ("3.1" / "Encoder and Decoder Stacks") when it comes next in
    the numbering (a folio or a table's number over a label does not); a standard section's name
    alone on a line is a heading; a reference's "[n]" opens a paragraph; on the first page, the
    first short capitalised line after nothing but sentences (a licence notice) is the title."""

    def __init__(self, raw: list[tuple[int | None, list[str]]], spaced: bool = False):
        # (double-spaced text, undoubled: "2.3. Name" heads on a line, captions and a broken word
        # before a capitalised line as paragraph ends, a dated stamp no title; round38_tOCR_rule.md)
        self.spaced = spaced
        flat = [ln for _, lines in raw for ln in _drop_rules_at_edges(lines)]
        inner = [ln.strip() for ln in flat]
        text = [t for t in inner if t]
        blanks = sum(1 for a, b in zip(inner, inner[1:], strict=False) if not b and a)
        lengths = sorted(map(len, text))
        # (a full line's length: the upper quartile, as a paper's figure labels and table cells,
        # one a line, may be half its lines)
        self.full = lengths[3 * len(lengths) // 4] if lengths else 0
        self.on = len(text) >= 20 and blanks <= len(text) // 50 and self.full >= 30
        self.last: list[int] = []  # the last section number taken
        self.listing = False  # under a References heading: a "[n]" line opens an entry

    def _title_like(self, s: str) -> bool:
        return 1 <= len(s.split()) <= 12 and s[:1].isupper() and s[-1:] not in ".,;:" and "@" not in s \
            and len(s) < 0.8 * self.full

    def _next_number(self, n: list[int]) -> bool:
        last = self.last
        if not last:
            return n == [1]
        return n == last + [1] or any(n == last[:k] + [last[k] + 1] for k in range(len(last)))

    def _numbered_head(self, label: str, title: str, out: list[str], gap) -> bool:
        """Write '2.3 Title' as a heading of its depth when 2.3 comes next in the numbering."""
        number = [int(x) for x in label.rstrip(".").split(".")]
        if not self._next_number(number):
            return False
        self.last, self.listing = number, False
        gap()
        out += ["#" * min(6, 1 + len(number)) + f" {label.rstrip('.')} {title}", ""]
        return True

    def page(self, lines: list[str], first: bool) -> list[str]:
        items = [ln.strip() for ln in lines if ln.strip()]
        out: list[str] = []
        titled = not first

        def gap() -> None:
            if out and out[-1]:
                out.append("")

        i = 0
        while i < len(items):
            s = items[i]
            nxt = items[i + 1] if i + 1 < len(items) else ""
            if _BARE_NUMBER.fullmatch(s) and self._title_like(nxt) and _norm(nxt) not in KNOWN_HEADINGS \
                    and re.search(r"[^\W\d_]{3}", nxt) or \
                    _BARE_NUMBER.fullmatch(s) and _norm(nxt) in KNOWN_HEADINGS and len(nxt.split()) <= 4:
                if self._numbered_head(s, nxt, out, gap):
                    titled = True
                    i += 2
                    continue
            m = _NUMBERED_LINE.fullmatch(s) if self.spaced else None
            if m and self._title_like(m.group(2)) and re.search(r"[^\W\d_]{3}", m.group(2)) and len(s) < 0.8 * self.full \
                    and (i == 0 or re.search(r"[.!?:]\d{0,2}$", items[i - 1]) or items[i - 1].startswith("#")):
                # "2.3. Statistical Approach" on a line of its own after a sentence's end (and its
                # footnote mark): that section's heading when it comes next in the numbering (a
                # list's "1 Ms" does not)
                if self._numbered_head(m.group(1), m.group(2), out, gap):
                    titled = True
                    i += 1
                    continue
            if len(s.split()) <= 4 and _norm(s.rstrip(".:")) in KNOWN_HEADINGS:
                gap()
                out += ["## " + s.rstrip(".:"), ""]
                self.listing = _norm(s.rstrip(".:")) in ("references", "bibliography", "literature cited")
                titled = True
                i += 1
                continue
            if not titled and self._title_like(s) and len(s.split()) >= 2 and \
                    not (self.spaced and _DATED_LINE.search(s)) and \
                    (i == 0 or items[i - 1][-1:] in ".!?") and i <= 8:
                gap()
                out += ["# " + s, ""]
                titled = True
                i += 1
                names, rest, i = _stacked_byline(items, i)
                if names:  # (the names on one line, as the metadata stage reads a byline)
                    out += [", ".join(names), ""] + [x for group in rest for x in (*group, "")]
                continue
            if self.listing and i == 0 and self._title_like(s) and len(s.split()) >= 2 and \
                    not any(_ENTRY_LABEL.match(x) for x in items[1:6]):
                # a page after the list that opens with a heading and holds no entry: an appendix
                out += ["## " + s, ""]
                self.listing = False
                i += 1
                continue
            if self.listing and _ENTRY_LABEL.match(s) or self.spaced and (_CAPTION_LINE.match(s) or (
                    out and re.search(r"[^\W\d_]-$", out[-1]) and re.match(r"[A-Z][a-z]", s))):
                # a caption opens its own paragraph, and so does a capitalised line after a word broken
                # at a line end (a word goes on in lower case: a page's last line before a footnote)
                gap()
            if self.listing and out and len(out[-1]) >= 2 and out[-1][-1] == "-" and out[-1][-2].isalpha() \
                    and s[:1].islower():
                out[-1] = out[-1][:-1] + s  # (a word broken over an entry's lines: the list keeps no hyphen)
            else:
                out.append(s)
            if self.listing:  # (an entry's lines run on to the next "[n]")
                pass
            elif len(s) < 0.7 * self.full and (s[-1:] in ".!?:)\"”" or nxt[:1].isupper()):
                out.append("")
            i += 1
        return out


_EMAIL_LINE = re.compile(r"\S+@\S+\.\w+")
_STACKED_NAME = re.compile(r"((?:[A-ZŁ][\w'’\-]*\.?|[A-Z]\.)(?:\s+(?:[A-Z][\w'’\-]*\.?|van|von|de|der)){1,4})\s*[∗*†‡§¶]*")


def _stacked_byline(items: list[str], i: int) -> tuple[list[str], list[list[str]], int]:
    """A byline set as a stack of blocks under the title, each a name, its affiliation's lines and
    an e-mail (NeurIPS' style): (the names without their marks, each block's other lines, the index
    after the stack). No names where fewer than two blocks read so."""
    names: list[str] = []
    rest: list[list[str]] = []
    k = i
    while k < len(items) and len(names) < 40:
        end = next((j for j in range(k, min(k + 5, len(items))) if _EMAIL_LINE.fullmatch(items[j])), None)
        m = _STACKED_NAME.fullmatch(items[k]) if end is not None else None
        if m is None or end == k or _INSTITUTION.search(items[k]):
            break
        names.append(m.group(1))
        rest.append(items[k + 1:end + 1])
        k = end + 1
    return (names, rest, k) if len(names) >= 2 else ([], [], i)


def _on_pages(dropped: list[tuple[int, str, str]], raw_of: list[int]) -> list[tuple[int, str, str]]:
    """Each dropped piece of raw page i on the last page kept at or before i (the first page
    when none is): a page that held only its header and number keeps them on its neighbour."""
    if not raw_of:
        return []
    return [(max(0, bisect.bisect_right(raw_of, i) - 1), reason, text) for i, reason, text in dropped if text.strip()]


def _drop_rules_at_edges(lines: list[str]) -> list[str]:
    """paper2llm frames each '#### Page N' marker with '---' rules: they are not content."""
    # (the edges found first, one slice after: a slice a line copied the list each time, quadratic
    # in a page of 200,000 blank lines: 79 s)
    a, b = 0, len(lines)
    while a < b and (not lines[a].strip() or _RULE_LINE.fullmatch(lines[a])):
        a += 1
    while b > a and (not lines[b - 1].strip() or _RULE_LINE.fullmatch(lines[b - 1])):
        b -= 1
    return lines[a:b] if (a, b) != (0, len(lines)) else lines


_RULE_LINE = re.compile(r"\s*(?:-{3,}|\*{3,}|_{3,})\s*")


def _strip_wrappers(text: str, info: dict, removed: list[str]) -> str:
    """What an engine's wrapper puts around the paper: a bibtex header block, YAML front matter
    (each block's text added to ``removed``)."""
    m = re.match(r"\A\s*```(?:bibtex|bib)?\s*\n(@\w+\{.*?)\n```\s*\n", text, re.S)
    if m:
        removed.append(" ".join(m.group(1).split()))
        for key in ("title", "author", "year", "journal", "doi"):
            f = re.search(rf"^\s*{key}\s*=\s*\{{(.*)\}},?\s*$", m.group(1), re.M | re.I)
            if f:
                info[f"bibtex_{key}"] = f.group(1).strip()
        text = text[m.end():]
    m = re.match(r"\A---\s*\n((?:[A-Za-z_]+:.*\n){1,20})---\s*\n", text)
    if m:
        removed.append(" ".join(m.group(1).split()))
        text = text[m.end():]
    return text


# --------------------------------------------------------------------------- DeepSeek grounding

_REF_LINE = re.compile(r"<\|ref\|>(?P<label>[^<]*)<\|/ref\|>\s*(?:<\|det\|>.*?<\|/det\|>)?\s*")
# grounding labels of page furniture: dropped, listed in removed.json under these reasons
_DROP_LABELS = {"header": "page-header", "page_header": "page-header", "footer": "page-footer",
                "page_footer": "page-footer", "page_number": "page-number", "number": "page-number",
                "discarded": "engine-discarded",  # (MinerU's own judgement: what its Markdown leaves out)
                # the words Unstructured's OCR read inside a picture: no prose, listed (not lost)
                "figure_text": "figure-text",
                # a table's flat text where its HTML reading is written instead (Unstructured)
                "table_text": "table-text"}
_LABELS = set(_DROP_LABELS) | {
    "title", "sub_title", "subtitle", "section_title", "text", "paragraph", "table", "table_caption",
    "table_footnote", "image", "image_caption", "figure", "figure_caption", "figure_title", "caption", "equation",
    "formula", "interline_equation", "list", "list_item", "code", "footnote", "reference", "abstract", "author",
    "aside_text", "algorithm", "chart", "seal"}


def _grounding(text: str) -> str:
    """DeepSeek-OCR: each block follows a ``<|ref|>label<|/ref|><|det|>[[box]]<|/det|>`` line. The
    label is a structure hint: title -> ``#``, sub_title -> ``##`` (levels re-derived later),
    image -> a figure placeholder, header/footer/page_number -> dropped."""
    out: list[str] = []
    label: str | None = None
    for line in text.split("\n"):
        refs = list(_REF_LINE.finditer(line))
        if refs and (len(refs) > 1 or refs[0].group("label").strip().lower() not in _LABELS):
            # grounded OCR mode: the ref holds the recognised text itself, the box follows it
            out.append(_REF_LINE.sub(lambda r: r.group("label").strip() + " ", line).strip())
            continue
        m = refs[0] if refs else None
        if m:
            label = m.group("label").strip().lower()
            rest = (line[:m.start()] + line[m.end():]).strip()
            if label in ("image", "figure", "chart"):
                out += ["", "![](image)", ""]
            elif rest:
                out.append(_grounded(rest, label))
            else:
                out.append("")
            continue
        if any(rx.match(line) for rx in _PAGE_MARKERS):
            out.append(line)
            label = None
            continue
        line = re.sub(r"<\|det\|>.*?<\|/det\|>|<\|[a-z_/]+\|>|<image>", "", line)
        out.append(_grounded(line, label) if line.strip() and label else line)
        if not line.strip():
            label = label if label in ("table",) else None
    return "\n".join(out)


def _grounded(line: str, label: str | None) -> str:
    if label in _DROP_LABELS:
        return _removed_line(_DROP_LABELS[label], line) if line.strip() else ""
    s = line.strip()
    if label == "title" and not s.startswith("#"):
        return "# " + s
    if label in ("sub_title", "subtitle", "section_title") and not s.startswith("#"):
        return "## " + s
    return line


# --------------------------------------------------------------------------- labelled layout blocks

# dots.ocr categories and Chandra data-labels -> the grounding labels _grounding reads (a page
# header or footer is dropped as DeepSeek-OCR's are, and listed in removed.json)
_BLOCK_LABELS = {
    "title": "title", "section_header": "sub_title", "page_header": "page_header", "page_footer": "page_footer",
    "picture": "image", "figure": "image", "image": "image", "caption": "caption", "list_item": "list_item",
    "list_group": "list", "table": "table", "formula": "equation", "equation": "equation",
    "equation_block": "equation", "footnote": "footnote", "code": "code", "code_block": "code", "text": "text",
    # DocTags, MinerU's content list, marker's block types (the part not above)
    "chart": "image", "discarded": "discarded", "sectionheader": "sub_title", "pageheader": "page_header", "pagefooter": "page_footer", "listitem": "list_item",
    "textinlinemath": "text", "tableofcontents": "text", "complexregion": "text", "handwriting": "text",
    "form": "table", "figure_text": "figure_text", "table_text": "table_text"}
# (reading order kept: a block of another label is text)
_LAYOUT_ENGINES = ("dots-ocr", "chandra", "doctags", "mineru-json", "marker-json", "hocr", "unstructured-json",
                   "paddleocr-vl-json", "docling-json", "textract-json", "grobid-tei", "docai-layout-json",
                   "azure-di-json", "s2orc-json", "adobe-extract-json", "alto-xml", "page-xml")
# the readers that parse their input whole (JSON, XML): the text-line limit is no measure of them
STRUCTURED_ENGINES = frozenset({"dots-ocr", "mineru-json", "marker-json", "unstructured-json", "paddleocr-vl-json",
                                "docling-json", "textract-json", "grobid-tei", "docai-json", "docai-layout-json",
                                "azure-di-json", "s2orc-json", "adobe-extract-json", "alto-xml", "page-xml"})
_CHANDRA_BLOCK = re.compile(r'<div data-bbox="[\d.\s]+" data-label="([A-Za-z-]+)"[^<>]*>')
_CHANDRA_HEADING = re.compile(r"<h([1-6])\b[^<>]*>(.*?)</h\1>", re.S | re.I)
_CHANDRA_LINK = re.compile(r"<a\b([^>]*)>(.*?)</a>", re.S | re.I)
_HREF = re.compile(r'href="(https?://[^"]+)"', re.I)
_CHANDRA_MATH = re.compile(r'<math\b([^>]*)>(.*?)</math>', re.S | re.I)


def _layout_blocks(text: str, engine: str) -> str:
    """dots.ocr (a JSON list of ``{"bbox", "category", "text"}``) and Chandra OCR (one ``<div
    data-bbox data-label>`` per block, HTML inside) label each block as DeepSeek-OCR's grounding
    does: written here in that form (``<|ref|>label<|/ref|>`` then the block), read by _grounding."""
    blocks = {"dots-ocr": _dots_blocks, "chandra": _chandra_blocks, "doctags": _doctags_blocks,
              "mineru-json": _mineru_blocks, "marker-json": _marker_blocks, "hocr": _hocr_blocks,
              "unstructured-json": _unstructured_blocks, "paddleocr-vl-json": _paddle_blocks,
              "docling-json": _docling_json_blocks, "textract-json": _textract_json_blocks,
              "grobid-tei": _tei_blocks, "docai-layout-json": _docai_layout_blocks,
              "azure-di-json": _azure_blocks, "s2orc-json": _s2orc_blocks,
              "adobe-extract-json": _adobe_blocks, "alto-xml": _alto_blocks, "page-xml": _page_xml_blocks}[engine](text)
    out = []
    for category, body in blocks:
        if category == _PAGE_BREAK:  # the engine's own page boundary: a form feed, as to_pages splits
            out.append("\f")
            continue
        label = _BLOCK_LABELS.get(re.sub(r"[\s-]+", "_", category.strip().lower()), "text")
        body = body.strip()
        if label in ("title", "sub_title"):  # one line: _grounding marks every line of a title block
            body = " ".join(body.split())
        out.append(f"<|ref|>{label}<|/ref|>\n{body}\n")
    return "\n".join(out)


def _docling_json_blocks(text: str) -> list[tuple[str, str]]:
    """docling's DoclingDocument JSON: see :mod:`ctxmill.sources.docling_json`."""
    from ctxmill.sources import docling_json

    data = _json_or_prefix(text)
    return docling_json.blocks(data) if isinstance(data, dict) else []


def _textract_json_blocks(text: str) -> list[tuple[str, str]]:
    """Amazon Textract's JSON response: see :mod:`ctxmill.sources.textract_json`."""
    from ctxmill.sources import textract_json

    data = _json_or_prefix(text)
    return textract_json.blocks(data) if isinstance(data, (dict, list)) else []


def _tei_blocks(text: str) -> list[tuple[str, str]]:
    """GROBID's TEI XML: see :mod:`ctxmill.sources.tei_xml` (XML that does not parse: its text, as text)."""
    from ctxmill.sources import tei_xml

    root = tei_xml.parse(text)
    if root is None:
        return [("text", ln) for ln in re.sub(r"<[^<>]*>", " ", text).split("\n") if ln.strip()]
    return tei_xml.blocks(root)


def _docai_layout_blocks(text: str) -> list[tuple[str, str]]:
    """Document AI's Layout Parser JSON: see :mod:`ctxmill.sources.docai_json`."""
    from ctxmill.sources import docai_json

    return docai_json.layout_blocks(_json_value(text))


def _azure_blocks(text: str) -> list[tuple[str, str]]:
    """Azure Document Intelligence's analyze result: see :mod:`ctxmill.sources.azure_di_json`."""
    from ctxmill.sources import azure_di_json

    return azure_di_json.blocks(_json_value(text))


def _s2orc_blocks(text: str) -> list[tuple[str, str]]:
    """doc2json's S2ORC JSON: see :mod:`ctxmill.sources.s2orc_json`."""
    from ctxmill.sources import s2orc_json

    return s2orc_json.blocks(_json_value(text))


def _adobe_blocks(text: str) -> list[tuple[str, str]]:
    """Adobe PDF Extract's structuredData.json: see :mod:`ctxmill.sources.adobe_extract_json`."""
    from ctxmill.sources import adobe_extract_json

    return adobe_extract_json.blocks(_json_value(text))


def _alto_blocks(text: str) -> list[tuple[str, str]]:
    """ALTO XML: see :mod:`ctxmill.sources.alto_xml`."""
    from ctxmill.sources import alto_xml

    return alto_xml.blocks(text)


def _page_xml_blocks(text: str) -> list[tuple[str, str]]:
    """PAGE XML: see :mod:`ctxmill.sources.page_xml`."""
    from ctxmill.sources import page_xml

    return page_xml.blocks(text)


def _dots_blocks(text: str) -> list[tuple[str, str]]:
    """The blocks of a dots.ocr list; one the model did not close is read up to its last block."""
    data = _json_or_prefix(text)
    return [(str(b.get("category") or "text"), str(b.get("text") or "")) for b in data if isinstance(b, dict)]


_PAGE_BREAK = "\f"  # a category of its own in the block lists below: the next block is on a new page


def _json_or_prefix(text: str):
    """The JSON value of ``text``; an output the model stopped in the middle of is read up to its
    last complete object (dots.ocr's lists are left unclosed)."""
    import json

    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # (nesting deeper than the parser's stack: no engine writes it)
        data, at, dec = [], text.find("{"), json.JSONDecoder()
        budget = 4 * len(text) + 1_000_000  # characters read by failed tries: a bounded cost
        while at >= 0:
            try:
                obj, end = dec.raw_decode(text, at)
            except ValueError as exc:
                # a block that is not JSON (cut short, a bad escape): read on at the next "{", so
                # one bad block does not drop every block after it (round32_fuzz_rule.md F2)
                budget -= max(getattr(exc, "pos", at) - at, 1)
                if budget < 0:
                    break
                at = text.find("{", at + 1)
                continue
            except RecursionError:  # nested past the limit: on past the whole run of brackets
                budget -= 20_000  # (about what a try that reaches the limit reads)
                if budget < 0:
                    break
                end = at
                while end < len(text) and text[end] in "[{ \n\t":
                    end += 1
                at = text.find("{", end)
                continue
            data.append(obj)
            at = text.find("{", end)
        return data


_DOCTAG_LOC = re.compile(r"<loc_\d+>")
_DOCTAG_OPEN = re.compile(r"<page_break>|<([a-z][a-z_0-9]*)>")
# the opening tags of block elements: an element whose body holds one was left unclosed, and is
# read as unclosed (round32_fuzz_rule.md F4: ``<picture>`` never closed ran to a later
# ``</picture>``, every block between read as the picture's and dropped)
_DOCTAG_BLOCK_OPEN = re.compile(r"<(?:text|title|section_header_level_\d+|list_item|code|formula|page_header|"
                                r"page_footer|footnote|picture|chart|otsl|paragraph|page_break|reference)>")
_DOCTAG_TAG = re.compile(r"</?[a-z][a-z_0-9]*>")
_DOCTAG_CAPTION = re.compile(r"<caption>(.*?)</caption>", re.S)
_DOCTAG_CODE_LANG = re.compile(r"<_[^<>\s]{1,30}_>")
_OTSL_CELL = re.compile(r"<(fcel|ecel|lcel|ucel|xcel|ched|rhed|srow|nl)>")


def _doctags_blocks(text: str) -> list[tuple[str, str]]:
    """DocTags (docling's export, the markup SmolDocling / granite-docling write): one element per
    block, its location tokens first; lists and the document are containers, a picture or an OTSL
    table holds its caption, ``<page_break>`` ends a page."""
    text = _DOCTAG_LOC.sub("", text)
    text = re.sub(r"</?(?:doctag|ordered_list|unordered_list)>", "\n", text)
    out: list[tuple[str, str]] = []
    # each element from its opening tag to its closing one, found with str.find; an opening tag
    # never closed is skipped, and a tag that found no closing one from a place finds none from
    # any later place (a lazy pattern rescanned the rest of the text for every unclosed tag:
    # 300 KB of them took 27 s)
    unclosed: dict[str, int] = {}
    closes: dict[str, tuple[int, int]] = {}  # tag -> (searched from, its first closing tag there)
    at = last = 0
    block_at = -1  # where the next block's opening tag is, at or after the place last asked from

    def gap(upto: int) -> None:  # the words outside every element (an unclosed one's): text, not dropped
        words = " ".join(_DOCTAG_TAG.sub(" ", text[last:upto]).split())
        if words:
            out.append(("text", words))

    while (m := _DOCTAG_OPEN.search(text, at)) is not None:
        tag = m.group(1)
        if tag is None:
            gap(m.start())
            out.append((_PAGE_BREAK, ""))
            at = last = m.end()
            continue
        if m.end() >= unclosed.get(tag, len(text) + 1):
            end = -1
        elif tag in closes and closes[tag][0] <= m.end() <= closes[tag][1]:
            end = closes[tag][1]  # (the same first closing tag: not searched again)
        else:
            end = text.find(f"</{tag}>", m.end())
            closes[tag] = (m.end(), end)
        if end < 0:
            unclosed[tag] = min(unclosed.get(tag, len(text) + 1), m.end())
            at = m.end()
            continue
        if block_at < m.end():
            b = _DOCTAG_BLOCK_OPEN.search(text, m.end())
            block_at = b.start() if b else len(text)
        if block_at < end:  # another block starts before this one closes: this one is unclosed
            at = m.end()
            continue
        gap(m.start())
        body = text[m.end():end]
        at = last = end + len(tag) + 3
        captions = [c.strip() for c in _DOCTAG_CAPTION.findall(body)] if tag in ("picture", "chart", "otsl") else []
        body = _DOCTAG_CAPTION.sub("", body) if captions else body
        if tag == "otsl":
            out += [("caption", c) for c in captions]
            out.append(("table", _otsl_table(body)))
            continue
        if tag in ("picture", "chart"):
            out.append(("picture", ""))
            out += [("caption", c) for c in captions]
            continue
        if tag == "title":
            out.append(("title", body))
        elif tag.startswith("section_header_level_"):  # kept as a heading of that depth under the title
            depth = int(tag.rsplit("_", 1)[1]) if tag[-1].isdigit() else 1
            out.append(("text", "#" * min(6, depth + 1) + " " + " ".join(body.split())))
        elif tag == "code":
            out.append(("code", "```\n" + _DOCTAG_CODE_LANG.sub("", body).strip("\n") + "\n```"))
        elif tag == "list_item":
            out.append(("list_item", "- " + body.strip().lstrip("-•· ").strip()))
        else:
            out.append((tag, body))
    gap(len(text))
    return out


def _otsl_table(body: str) -> str:
    """OTSL (docling's table tokens) -> a pipe table: a row per ``<nl>``, a cell per token; a cell
    merged into its left or upper neighbour (lcel, ucel, xcel) is empty, as an HTML span is."""
    rows: list[list[str]] = [[]]
    parts = _OTSL_CELL.split(body)
    for k in range(1, len(parts), 2):
        tok, cell = parts[k], parts[k + 1] if k + 1 < len(parts) else ""
        if tok == "nl":
            rows.append([])
        else:
            rows[-1].append(" ".join(cell.split()) if tok in ("fcel", "ched", "rhed", "srow") else "")
    return pipe_table([r for r in rows if r])


def _mineru_blocks(text: str) -> list[tuple[str, str]]:
    """MinerU's content_list.json: a list of blocks in reading order with their page index; a
    heading has a ``text_level``, a table its HTML body and captions, an image its captions;
    'discarded' is what MinerU judged no content (page headers, footers, notes)."""
    data = _json_or_prefix(text)
    out: list[tuple[str, str]] = []
    page = None
    in_bib = False  # after a bibliography title MinerU glued to its first entries
    for b in data if isinstance(data, list) else []:
        if not isinstance(b, dict):
            continue
        if page is not None and b.get("page_idx") not in (None, page):
            out.append((_PAGE_BREAK, ""))
        page = b.get("page_idx", page)
        kind = str(b.get("type") or "text")
        strings = functools.partial(_strings_of, b)
        level = b.get("text_level")
        level = level if isinstance(level, int) and not isinstance(level, bool) else None  # (a number or nothing)
        if kind in ("text", "title") and level:
            in_bib = False
            out.append(("text", "#" * max(2, min(6, level + 1)) + " " + " ".join(str(b.get("text", "")).split())))
        elif kind == "image":
            out.append(("image", ""))
            out += [("caption", c) for c in strings("image_caption") + strings("image_footnote")]
        elif kind == "table":
            out += [("caption", c) for c in strings("table_caption")]
            out.append(("table", str(b.get("table_body") or "")))
            out += [("footnote", c) for c in strings("table_footnote")]
        elif kind == "list":
            out.append(("list", "\n".join("- " + x for x in strings("list_items"))))
        elif kind == "code":
            out += [("caption", c) for c in strings("code_caption")]
            out.append(("code", "```\n" + str(b.get("code_body") or "").strip("\n") + "\n```"))
        elif kind == "text" and (head := _bibliography_lead(str(b.get("text") or ""))):
            # MinerU writes a bibliography's title as the first words of its first entries' block,
            # with no text_level: the title becomes the heading the reference stage looks for, and
            # the entries it ran together are one paragraph each
            out.append(("text", "## " + head[0]))
            out.append(("text", _AUTHOR_YEAR_ENTRY.sub("\n\n", head[1])))
            in_bib = True
        elif kind == "text" and in_bib:
            out.append(("text", _AUTHOR_YEAR_ENTRY.sub("\n\n", str(b.get("text") or ""))))
        else:
            out.append((kind, str(b.get("text") or "")))
    return out


# where one author-year entry ends and the next begins in a run MinerU joined with a blank:
# "... D267–D270. Chen, Q.; Li, X.; ..." / "... 1637–1645. Le, D.-H. 2025." (a surname, a comma,
# initials, then a ';', ',', ' and' or the year)
_AUTHOR_YEAR_ENTRY = re.compile(
    r"(?<=\.)[ \t]+(?=[A-Z][\w'’\-]+(?: [A-Z][\w'’\-]+)?, (?:[A-Z]\.(?:-[A-Z]\.)?[ ]?)+(?:[;,]| and | ?(?:19|20)\d\d))")


def _bibliography_lead(text: str) -> tuple[str, str] | None:
    """("References", "Bodenreider, O. 2004. ...") for a block that starts with a bibliography's
    title and goes on with an entry (a capital, a digit or a bracketed label after it)."""
    from ctxmill.compile.references import is_bibliography_title

    # the first four words, read once: a word's start gives the rest after the words before it, as
    # text.split(None, n)[n] would
    words = list(islice(re.finditer(r"\S+", text), 4))
    for n in (1, 2, 3):
        if len(words) <= n:
            return None
        head = " ".join(w.group() for w in words[:n])
        rest = text[words[n].start():]
        if is_bibliography_title(head) and re.match(r"[A-Z0-9\[]", rest):
            return head, rest
    return None


def _strings_of(block: dict, key: str) -> list[str]:
    v = block.get(key)
    v = [v] if isinstance(v, str) else v  # one caption as a string, not a list: kept (round32_fuzz_rule.md F3)
    return [str(x) for x in v if str(x).strip()] if isinstance(v, list) else []


def _marker_blocks(text: str) -> list[tuple[str, str]]:
    """marker's JSON: Document -> Page -> blocks, each with its ``block_type`` and ``html``; a
    block whose html is made of ``<content-ref>`` to its children (a page, a list group) is read
    from them, a table from its own html (its cells are children too)."""
    data = _json_or_prefix(text)
    out: list[tuple[str, str]] = []
    # a tree cut short does not parse: the prefix reader gives its complete objects in order (each
    # whole page, the complete blocks of the page the cut fell in), read as the document's children
    # (they were dropped, the file refused as holding no text: round33_fuzz_rule.md M1)
    roots = [data] if isinstance(data, dict) else [b for b in data if isinstance(b, dict)] if isinstance(data, list) else []
    todo = roots[::-1]  # depth first, in order (no recursion: any depth)
    while todo:
        b = todo.pop()
        kind = str(b.get("block_type") or "")
        if kind == "Page" and out:
            out.append((_PAGE_BREAK, ""))
        body = str(b.get("html") or "")
        if body and "<content-ref" not in body:
            out.append((kind, _html_block(body)))
            continue
        if not body and kind in ("Figure", "Picture"):
            out.append((kind, ""))
        children = b.get("children")
        todo += [c for c in reversed(children) if isinstance(c, dict)] if isinstance(children, list) else []
    return out


def _unstructured_blocks(text: str) -> list[tuple[str, str]]:
    """Unstructured's element JSON: a list of elements in reading order, each with its ``type``
    (Title for any heading, NarrativeText, ListItem, Header, Image, Table ...), ``text`` and
    ``metadata.page_number``; a table's HTML is ``metadata.text_as_html``; a picture's ``text`` is
    what its OCR read inside it. Chunked output (``CompositeElement``) joins elements with blank
    lines, which stay paragraph breaks."""
    data = _json_or_prefix(text)
    elems: list[tuple[object, str, str, dict]] = []  # (page number, type, text, metadata)
    page = None
    for b in data if isinstance(data, list) else []:
        if not isinstance(b, dict):
            continue
        meta = b.get("metadata") if isinstance(b.get("metadata"), dict) else {}
        number = meta.get("page_number")
        page = number if number is not None and not isinstance(number, (dict, list)) else page
        elems.append((page, str(b.get("type") or ""), str(b.get("text") or ""), meta))
    furniture = _running_heads(elems)
    out: list[tuple[str, str]] = []
    for k, (page, kind, body, meta) in enumerate(elems):
        if kind == "PageBreak" or (k and page != elems[k - 1][0]):
            out.append((_PAGE_BREAK, ""))
        if kind == "PageBreak":
            continue
        if k in furniture:
            out.append((furniture[k], body))
        elif kind == "Image":
            out.append(("image", ""))
            if body.strip():
                out.append(("figure_text", body))
        elif kind == "Table" and isinstance(meta.get("text_as_html"), str) and "<table" in meta["text_as_html"]:
            # the HTML is a second reading of the table (its structure model's), whose words may
            # differ from the element's text: the table is written, the flat text listed (not lost)
            out.append(("table", meta["text_as_html"]))
            if body.strip():
                out.append(("table_text", body))
        else:
            out.append((_UNSTRUCTURED_TYPES.get(kind, "text"), body))
    return out


# Unstructured's element types -> the block categories above (its Title is any heading: relevel
# finds the document's title among them, as for MinerU's content list); any other type is text
_UNSTRUCTURED_TYPES = {"Title": "section_header", "ListItem": "list_item", "FigureCaption": "caption",
                       "Header": "page_header", "Footer": "page_footer", "PageNumber": "page_footer",
                       "Table": "table", "Formula": "formula", "CodeSnippet": "code"}


def _running_heads(elems: list[tuple[object, str, str, dict]]) -> dict[int, str]:
    """The elements that are page furniture whatever type Unstructured gave them (its hi_res
    model types a running head Title, ListItem or NarrativeText): among the first two or last two
    elements of a page, a text that, less its digits, stands so on three pages or more (a running
    head), or that is the page's own number -> "page_header" / "page_footer"."""
    edge: dict[int, str] = {}  # element -> its text less digits and blanks, lowercased
    pages: dict[str, set] = {}
    starts = [k for k in range(len(elems)) if not k or elems[k][0] != elems[k - 1][0]] + [len(elems)]
    out: dict[int, str] = {}
    for a, b in zip(starts, starts[1:], strict=False):
        for k in {*range(a, min(a + 2, b)), *range(max(a, b - 2), b)}:
            page, kind, body, _ = elems[k]
            if kind in ("Table", "Image", "PageBreak") or not body.strip() or len(body) > 200:
                continue
            if body.strip() == str(page):
                out[k] = "page_footer"
                continue
            key = re.sub(r"[\d\W_]+", "", body.lower())
            if key:
                edge[k] = key
                pages.setdefault(key, set()).add(page)
    out.update({k: "page_header" for k, key in edge.items() if len(pages[key]) >= 3})
    return out


def _paddle_blocks(text: str) -> list[tuple[str, str]]:
    """PaddleOCR-VL's JSON result of a page: ``parsing_res_list``, its layout blocks in reading
    order, each a ``block_label`` and a ``block_content`` already in Markdown (``## Heading``) or
    HTML (a ``<table>``, a centred ``<div>`` caption); several pages as a list of results or as the
    service's ``layoutParsingResults[].prunedResult``."""
    data = _json_or_prefix(text)
    if isinstance(data, dict):
        data = data.get("result", data) if isinstance(data.get("result"), dict) else data
        data = data.get("layoutParsingResults", [data]) if isinstance(data, dict) else data
    results = []
    for r in data if isinstance(data, list) else []:
        r = r.get("prunedResult", r) if isinstance(r, dict) and isinstance(r.get("prunedResult"), dict) else r
        if isinstance(r, dict) and isinstance(r.get("parsing_res_list"), list):
            results.append(r["parsing_res_list"])
    out: list[tuple[str, str]] = []
    title_at = _paddle_title_header(results)
    for k, blocks in enumerate(results):
        if k:
            out.append((_PAGE_BREAK, ""))
        for m, b in enumerate(blocks):
            if not isinstance(b, dict):
                continue
            label = str(b.get("block_label") or "text")
            body = str(b.get("block_content") or "")
            kind = "title" if (k, m) == title_at else _PADDLE_LABELS.get(label, "text")
            if kind == "section_header":
                body = body.strip().lstrip("#").strip()
            elif kind == "caption":
                body = _PADDLE_DIV.sub(" ", body)
            elif kind == "image":
                out.append(("image", ""))
                kind, body = "figure_text", _PADDLE_DIV.sub(" ", re.sub(r"<img\b[^>]*>", " ", body))
            out.append((kind, body))
    return out


def _paddle_title_header(results: list[list]) -> tuple[int, int] | None:
    """(page, block) of a title PaddleOCR-VL labelled ``header``: where no page has a
    ``doc_title``, the first block of the first page, labelled header, above a
    ``paragraph_title`` of that page, and reading like a title (2+ words, no digit, under 150
    characters) is the title, which the engine took for a running head (round34_ocr_rule.md P1)."""
    if not results or any(isinstance(b, dict) and b.get("block_label") == "doc_title" for r in results for b in r):
        return None
    blocks = [b for b in results[0] if isinstance(b, dict)]
    if not blocks or blocks[0].get("block_label") != "header":
        return None
    text = " ".join(str(blocks[0].get("block_content") or "").split())
    if not (2 <= len(text.split()) and len(text) < 150) or any(c.isdigit() for c in text) \
            or not any(b.get("block_label") == "paragraph_title" for b in blocks[1:]):
        return None
    return 0, results[0].index(blocks[0])


# PaddleOCR-VL's block labels -> the block categories above; any other label is text (kept: its
# own Markdown leaves out page furniture only, which is listed here)
_PADDLE_LABELS = {"doc_title": "title", "paragraph_title": "section_header", "table": "table",
                  "figure_title": "caption", "table_title": "caption", "chart_title": "caption",
                  "figure_table_chart_title": "caption", "formula": "formula", "display_formula": "formula",
                  "image": "image", "chart": "image", "header": "page_header", "header_image": "page_header",
                  "footer": "page_footer", "footer_image": "page_footer", "number": "page_footer",
                  "footnote": "footnote", "vision_footnote": "footnote", "algorithm": "code"}
_PADDLE_DIV = re.compile(r"</?div\b[^>]*>", re.I)


class _Hocr(HTMLParser):
    """hOCR -> [(category, text)]: a "text" block per paragraph (``ocr_par``; a line outside any
    paragraph is one), its lines joined by spaces as printed, a page break at each ``ocr_page``
    after the first. Every word is kept (no confidence filter: a word dropped here is lost)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, str]] = []
        self.pages = 0
        self._stack: list[str] = []  # the hOCR class of each open element ("" for others)
        # how many of them are paragraphs, and hOCR elements at all (counted, not searched: a
        # text of unclosed elements made each search as long as the stack)
        self._pars = self._marked = 0
        self._lines: list[list[str]] = []  # the open paragraph's lines

    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        kind = next((c for c in cls if c in ("ocr_page", "ocr_par", "ocr_line", "ocrx_line", "ocr_header",
                                             "ocr_caption", "ocr_textfloat")), "")
        if tag in ("br", "meta", "img", "input", "hr", "link"):
            return  # (void elements have no end tag)
        if kind == "ocr_page":
            self._flush()
            if self.pages:
                self.blocks.append((_PAGE_BREAK, ""))
            self.pages += 1
        elif kind == "ocr_par":
            self._flush()
        elif kind and not self._pars:
            self._flush()  # a line of its own: a block of its own
        if kind and kind not in ("ocr_page", "ocr_par"):
            self._lines.append([])
        self._stack.append(kind)
        self._pars += kind == "ocr_par"
        self._marked += bool(kind)

    def handle_endtag(self, tag):
        if tag in ("br", "meta", "img", "input", "hr", "link") or not self._stack:
            return
        kind = self._stack.pop()
        self._pars -= kind == "ocr_par"
        self._marked -= bool(kind)
        if kind == "ocr_par":
            self._flush()

    def handle_data(self, data):
        if self._lines and self._marked and data.strip():
            self._lines[-1].append(data.strip())

    def _flush(self):
        text = " ".join(" ".join(line) for line in self._lines if line)
        if text.strip():
            self.blocks.append(("text", " ".join(text.split())))
        self._lines = []

    def close(self):
        super().close()
        self._flush()


def _hocr_blocks(text: str) -> list[tuple[str, str]]:
    p = _Hocr()
    p.feed(text)
    p.close()
    return p.blocks


def _chandra_link(a: re.Match) -> str:
    """A link to a web address stays a link; ``<a href="#">4</a>`` (a citation or a reference to
    a table) is its text."""
    href = _HREF.search(a.group(1))
    return f"[{a.group(2)}]({href.group(1)})" if href else a.group(2)


def _chandra_blocks(text: str) -> list[tuple[str, str]]:
    """The blocks of a Chandra page: the HTML between one block's ``<div>`` and the next's, its
    block-level tags made Markdown (tables, images and inline tags are left to clean_markdown)."""
    marks = list(_CHANDRA_BLOCK.finditer(text))
    out = []
    for k, m in enumerate(marks):
        body = text[m.end():marks[k + 1].start() if k + 1 < len(marks) else len(text)]
        body = re.sub(r"\s*</div>\s*$", "", body)
        out.append((m.group(1), _html_block(body)))
    return out


def _html_block(body: str) -> str:
    """One layout block's HTML (Chandra, marker's JSON): its block-level tags made Markdown
    (tables, images and inline tags are left to clean_markdown)."""
    body = _CHANDRA_HEADING.sub(lambda h: "#" * int(h.group(1)) + " " + " ".join(h.group(2).split()), body)
    body = _CHANDRA_LINK.sub(_chandra_link, body)
    body = _CHANDRA_MATH.sub(lambda x: f"$${x.group(2)}$$" if "block" in x.group(1) else f"${x.group(2)}$", body)
    # (a tag holds no "<" or ">": an unclosed one, ``<p class="x``, ends at the next "<" and is
    # left as text, not read on to the next ">" with the words between)
    body = re.sub(r"\s*<li\b[^<>]*>\s*", "\n- ", body, flags=re.I)
    body = re.sub(r"\s*<hr\b[^<>]*>\s*", "\n\n", body, flags=re.I)  # a rule between paragraphs: no words
    # (marker's JSON sets indented paragraphs in <blockquote>: paragraphs, as its Markdown's are)
    return re.sub(r"\s*</?(?:ul|ol|p|blockquote)\b[^<>]*>\s*|\s*</li>\s*", "\n\n", body, flags=re.I)


# --------------------------------------------------------------------------- one page

_FENCE = re.compile(r"^\s*(```+|~~~+)")


# The patterns of the rewrites run per line, per cell or per heading (a MB of LaTeX or HTML soup
# makes ~120,000 such calls): compiled once here, not looked up in re's cache at every call
_MISTRAL_QUOTE = re.compile(r"^\s*>\s?")
_CAPTION_EMPHASIS = re.compile(r"^(\s*(?:\*\*)?(?:Table|Figure|Fig\.)\s*[\dA-Z.]+\s*[:.|]?(?:\*\*)?)\s*(\*\*|\*|_)(.+?)\2")
_BOLD_CAPTION_LABEL = re.compile(r"^\*\*((?:Table|Figure|Fig\.)\s*[\dA-Z.]+\s*[:.|]?)\*\*")
_BOLD_LINE = re.compile(r"\s*\*\*([A-Za-z][A-Za-z ]{2,40}?)[.:]?\*\*\s*")
_ANCHOR_A = re.compile(r"<a\s+(?:id|name)=[\"'][^\"']*[\"']\s*>\s*</a>", re.I)
_ANCHOR_SPAN = re.compile(r"<span\s+id=[\"'][^\"']*[\"']\s*>\s*</span>", re.I)
_PAGE_LINK = re.compile(r"\[((?:[^\[\]]|\\\[|\\\])*)\]\(#[^)\s]*\)")
_ESCAPED_NUMBER = re.compile(r"\\\[(\s*\d[\d,\s–\-]*)\\\]")
_SUP_DOLLAR = re.compile(r"[ \t]*\$\s*(?:\{\s*\})?\s*\^\s*\{\s*([\w*†‡§¶,\s]{1,12}|\\dagger|\\ast|\\star|\\ddagger)\s*\}\s*\$")
_SUP_DOLLAR_ONE = re.compile(r"\$\s*\^\s*([\w*])\s*\$")
_SUP_PAREN = re.compile(r"\\\(\s*(?:\{\s*\})?\s*\^\s*\{\s*([\w*†‡§¶,\s]{1,12}|\\dagger|\\ast|\\star)\s*\}\s*\\\)")
_SUP_TAG = re.compile(r"<sup>\s*([^<]{1,12}?)\s*</sup>", re.I)
_SUB_TAG = re.compile(r"<sub>\s*([^<]{1,40}?)\s*</sub>", re.I)
_BOLD_TAG = re.compile(r"</?(?:b|strong)>", re.I)
_ITALIC_TAG = re.compile(r"</?(?:i|em)>", re.I)
_BR_TAG = re.compile(r"\s*<br\s*/?>\s*", re.I)
_INLINE_TAG = re.compile(r"</?(?:span|font|u|p|center|small|big|html|body)\b[^<>]*>", re.I)
_HTML_COMMENT = re.compile(r"<!--.*?-->")
_PROMPT_TOKENS = re.compile(r"(?:<image>|<\|[a-z_/]+\|>)(?:\\n|[^\s\"'<]|<\|[a-z_/]+\|>)*")
_DISPLAY_SPLIT = re.compile(r"(\$\$.*?\$\$)")
_DOLLAR_SPLIT = re.compile(r"(?<!\\)\$")
_MATH_SPLIT = re.compile(r"(\$\$.*?\$\$|\$[^$]+\$)")
_COLUMN_SPEC = re.compile(r"^\s*\{[^{}]*\}")
_CELL_SPLIT = re.compile(r"\\\\|&")
_NESTED_COLUMN_SPEC = re.compile(r"^\s*\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
_TABLE_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\}|cmidrule(?:\([^)]*\))?\{[^}]*\})")
_ROW_SPLIT = re.compile(r"\\\\")
_AMP_SPLIT = re.compile(r"(?<!\\)&")
_MULTICOLUMN = re.compile(r"\s*\\multicolumn\{(\d+)\}\{[^}]*\}\{(.*)\}\s*$", re.S)
_MULTIROW = re.compile(r"\s*\\multirow\{[^}]*\}\{[^}]*\}\{(.*)\}\s*$", re.S)
_LATEX_UNWRAP = re.compile(r"\\(?:textbf|textit|emph|text|mathrm|mathbf|underline|textsc|texttt)\{([^{}]*)\}")
_LATEX_SIZES = re.compile(r"\\(?:centering|small|footnotesize|scriptsize|tiny|normalsize|bf|it|rm)\b")
_LATEX_LABEL = re.compile(r"\\label\{[^}]*\}")
_BLANKS = re.compile(r"\s+")
_EMPHASIS_MARKS = re.compile(r"[*_`]")
_NOT_LOWER = re.compile(r"[^a-z ]+")
# The replacement of the per-line and per-cell rewrites that keep a group: a callable, not a
# template (r"\1"), which Python 3.11's re hands back to re._subx at every sub() call, match or
# none, and expands in Python at every match (a MB of LaTeX tables or soup makes ~40,000 such calls)
_GROUP_1 = operator.methodcaller("group", 1)


def _bracketed_1(m: re.Match) -> str:
    return "[" + m.group(1) + "]"


def clean_markdown(text: str, engine: str) -> str:
    """One page of an engine's Markdown -> canonical Markdown (headings not yet re-levelled)."""
    text = _latex_tables(text)
    text = _html_tables(text)
    text = _html_markup(text)
    text = _latex_structure(text)
    if engine in ("nougat", "markdown", "plain", "olmocr", "deepseek-ocr", "dots-ocr", "chandra", "mathpix",
                  "text"):  # the others escape "[" as "\\[" and use $$
        text = _display_math(text)
    if "\\begin{" in text or "\\includegraphics" in text or "\\caption" in text:
        text = _latex_envs(text)
    out: list[str] = []
    in_code = False
    fenced = "```" in text or "~~~" in text  # (no line can be a fence otherwise: no pattern per line)
    for line in text.split("\n"):
        if fenced and _FENCE.match(line):
            in_code = not in_code
            out.append(line)
            continue
        if in_code or not line:  # (an empty line is what _clean_line makes of it)
            out.append(line)
            continue
        out.extend(_clean_line(line, engine).split("\n"))
        if line.endswith("  ") and line.strip() and not line.lstrip().startswith("|"):
            out.append("")  # a Markdown hard break (MinerU ends every line so): the next line stands apart
    text = "\n".join(_pipe_runs(out))
    if "\n\n\n" in text:
        text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


def _pipe_runs(lines: list[str]) -> list[str]:
    """A run of pipe rows is a table even when the engine lost its header rule (or put the
    rule elsewhere): one rule after the first row, none inside."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        # (a rule row holds a "-": a row of cells is not tried against the pattern)
        rows = [r for r in lines[i:j] if "-" not in r or not _TABLE_RULE.match(r)]
        width = max((r.strip().strip("|").count("|") + 1 for r in rows), default=0)
        if rows and width == 1:  # a one-column "table" is text; GFM needs two columns
            out += [""] + [r.strip().strip("|").strip() for r in rows] + [""]
        elif rows:
            width = max(1, rows[0].strip().strip("|").count("|") + 1)
            if out and out[-1].strip():
                out.append("")
            out += [rows[0], "|" + "|".join(["---"] * width) + "|"] + rows[1:]
            if j < len(lines) and lines[j].strip():
                out.append("")
        i = j
    return out


_ESCAPES = re.compile(r"\\([#&{}%_*\[\]$<>|~`!])")


_TABLE_RULE = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")


_RULE_LINE = re.compile(r"\s*(?:-{3,}|\*{3,}|_{3,})\s*")
_NOUGAT_FOOTNOTE = re.compile(r"^\s*Footnote\s+(\d{1,3}):\s*(.*)$")


def _clean_line(line: str, engine: str) -> str:
    s = line.rstrip()
    if _RULE_LINE.fullmatch(s):
        return ""  # a rule: paper2llm frames pages with them; no paper prints one as content
    if s.lstrip().startswith("|"):
        if "-" in s and _TABLE_RULE.match(s):  # docling writes "| - | - |": the block reader wants "---"
            return "|" + "|".join("---" for _ in range(max(1, s.strip().strip("|").count("|") + 1))) + "|"
        return _clean_inline(s.strip(), engine, cell=True)
    # marker-style Markdown escapes of bracketed numbers: [\[20\]](#page-8-0) -> [20]
    s = _MISTRAL_QUOTE.sub("", s) if engine == "mistral" else s  # '> **Image description.**'
    # Nougat footnotes: "Footnote 1: text" -> a Markdown footnote definition
    m = _NOUGAT_FOOTNOTE.match(s) if "Footnote" in s else None
    if m:
        return f"[^{m.group(1)}]: {_clean_inline(m.group(2), engine)}"
    # "Table 2: **Model sizes ...**" (Nougat): the caption text without the emphasis, so that
    # the structure stage reads the line as Table 2's caption
    if "*" in s or "_" in s:  # the three rewrites below all need emphasis marks
        s = _CAPTION_EMPHASIS.sub(lambda m: f"{m.group(1)} {m.group(3)} ", s).rstrip()
        s = _BOLD_CAPTION_LABEL.sub(_GROUP_1, s)
        # a bold line that names a standard section is that section's heading (olmOCR, docling)
        m = _BOLD_LINE.fullmatch(s)
        if m and _norm(m.group(1)) in KNOWN_HEADINGS:
            return "## " + m.group(1).strip()
    return _clean_inline(s, engine)


_INLINE_MARKUP = frozenset("<[\\$&")  # every rewrite below needs one of these characters


def _clean_inline(s: str, engine: str, cell: bool = False) -> str:
    if _INLINE_MARKUP.isdisjoint(s):  # plain text: nothing to rewrite (most lines; 18 regexes saved)
        return s.rstrip() if not cell else s
    # Each rewrite runs only where the characters its pattern needs are there (tested on the
    # text as it stands: no rewrite brings in "<", "$", "^" or a backslash): a line of "[12]"
    # references paid 16 regex calls for nothing.
    if "<" in s:
        # anchors and internal links (marker): the text stays, the target goes
        low = _caseless(s)
        if "<a" in low:
            s = _ANCHOR_A.sub("", s)
        if "<span" in low:
            s = _ANCHOR_SPAN.sub("", s)
    if "](#" in s:
        s = _PAGE_LINK.sub(_GROUP_1, s)
    if "\\[" in s:
        s = _ESCAPED_NUMBER.sub(_bracketed_1, s)  # \[20\] -> [20]
    # superscript markers in every notation -> [^n]: ${ }^{1,2}$, $^{a}$, <sup>1</sup>
    if "^" in s and "$" in s:
        s = _SUP_DOLLAR.sub(lambda m: _mark(m.group(1)), s)
        s = _SUP_DOLLAR_ONE.sub(lambda m: _mark(m.group(1)), s)
    if "^" in s and "\\(" in s:
        s = _SUP_PAREN.sub(lambda m: _mark(m.group(1)), s)
    if "<" in s:
        s = _tags(s, cell)
        if engine != "deepseek-ocr" and ("<image>" in s or "<|" in s):
            # a prompt quoted in a paper ("<image>\\n<|grounding|>..."): text, as code
            s = _PROMPT_TOKENS.sub(lambda m: f"`{m.group(0)}`", s)
    # space-padded inline math (PaddleOCR-VL): "$ x $" -> "$x$"
    s = _unpad_math(s)
    # entities last, so that "&lt;b&gt;" stays text and is not read as a tag
    if "&" in s:
        s = html.unescape(s)
    if engine in ("mistral", "marker", "paddleocr-vl", "mineru", "docling") and "\\" in s:
        s = _unescape_outside_math(s)
    if s.rstrip().endswith("  "):
        s = s.rstrip()
    return s.rstrip() if not cell else s


def _caseless(s: str) -> str:
    """``s`` lower-cased, for a test whether a case-blind ASCII pattern can match in it: the
    non-ASCII letters that re.IGNORECASE matches with an ASCII one ("K", "İ", "ı", "ſ", found
    by trying every code point) are read as that one."""
    if s.isascii():
        return s.lower()
    return s.replace("İ", "i").replace("ı", "i").replace("ſ", "s").lower()


def _tags(s: str, cell: bool) -> str:
    """The inline HTML rewrites of _clean_inline, each run only where its tag is in the text
    as it stands (a line of HTML soup holds one or two of the seven: each ran on every line with
    a "<"); the text is lower-cased again after a rewrite that changed it (re.sub gives back
    the text itself where nothing matched)."""
    low = _caseless(s)
    if "<sup>" in low:
        t = _SUP_TAG.sub(lambda m: _mark(m.group(1)), s)
        if t is not s:
            s, low = t, _caseless(t)
    if "<sub>" in low:
        t = _SUB_TAG.sub(_GROUP_1, s)
        if t is not s:
            s, low = t, _caseless(t)
    if "<b>" in low or "/b>" in low or "strong>" in low:  # (_BOLD_TAG's four tags: "b>" ends "<sub>")
        t = _BOLD_TAG.sub("**", s)
        if t is not s:
            s, low = t, _caseless(t)
    if "i>" in low or "em>" in low:
        t = _ITALIC_TAG.sub("*", s)
        if t is not s:
            s, low = t, _caseless(t)
    if "<br" in low:
        s = _BR_TAG.sub(" " if cell else "\n\n", s)
    s = _INLINE_TAG.sub("", s)
    if "<!--" in s:
        s = _HTML_COMMENT.sub("", s)
    return s


def _unpad_math(s: str) -> str:
    """"$ 10\\times $" -> "$10\\times$": dollars are paired in order, so the text between two
    formulas is never read as one; a line with an odd count is left alone."""
    if "$ " not in s and " $" not in s:
        return s
    parts = _DISPLAY_SPLIT.split(s)
    out = []
    for part in parts:
        if part.startswith("$$"):
            out.append(part)
            continue
        pieces = _DOLLAR_SPLIT.split(part)
        if len(pieces) % 2 == 0:  # odd number of "$": not math we understand
            out.append(part)
            continue
        out.append("".join(p if k % 2 == 0 else "$" + p.strip() + "$" for k, p in enumerate(pieces)))
    return "".join(out)


def _mark(body: str) -> str:
    body = body.replace("\\dagger", "†").replace("\\ddagger", "‡").replace("\\ast", "*").replace("\\star", "*")
    parts = [p.strip() for p in body.split(",") if p.strip()]
    return "[^" + ",".join(parts) + "]" if parts else ""


def _unescape_outside_math(s: str) -> str:
    pieces = _MATH_SPLIT.split(s)
    return "".join(p if p.startswith("$") else _ESCAPES.sub(_GROUP_1, p) for p in pieces)


def _display_math(text: str) -> str:
    """``\\[ ... \\]`` (Nougat) -> ``$$`` blocks; ``\\tag{n}`` stays inside as the equation's number."""
    def block(m: re.Match) -> str:
        body = m.group(1).strip()
        return f"\n\n$$\n{body}\n$$\n\n"
    # only up to the last "\\]": no match ends after it, and each opener after it was scanned to the
    # end of the text (100,000 unclosed "\\[" on a line: minutes; fuzz --kinds wide2, round thirteen)
    end = text.rfind("\\]") + 2
    if end > 1:
        text = _DISPLAY_OPEN.sub(block, text[:end]) + text[end:]
    # "$$ x $$" on one line, or "$$x" ... "y$$": fences on their own lines for the block reader
    if "$$" in text:
        text = _DISPLAY_LINE.sub(lambda m: f"\n$$\n{m.group(1)}\n$$", "\n" + text)[1:]
    return text


# Both patterns start with a literal, which re searches for: "\\[" not after a backslash or a
# word character (the look-behind, first in the pattern, was tried at every position of the text),
# and a line of display math from the line break before it (as "^" under re.M, which was tried at
# every position; a match holds no line break, so none takes the next line's)
_DISPLAY_OPEN = re.compile(r"\\(?<![\\\w]\\)\[(?!\s*\d[\d,\s–\-]*\\\])(.+?)\\\]", re.S)
_DISPLAY_LINE = re.compile(r"\n[ \t]*\$\$[ \t]*(\S.*?)[ \t]*\$\$[ \t]*$", re.M)


# --------------------------------------------------------------------------- HTML

_TABLE_RE = re.compile(r"<table\b.*?</table>", re.S | re.I)
_TABLE_END_RE = re.compile(r"</table>", re.I)


class _Table(HTMLParser):
    """HTML table -> rows, with colspan and rowspan expanded (the text goes to the first cell)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._spans: dict[int, int] = {}  # column -> rows still covered by a rowspan above
        self._col = 0
        self._colspan = self._rowspan = 1

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self._row, self._col = [], 0
        elif tag in ("td", "th"):
            if self._row is None:
                self._row, self._col = [], 0
            self._cell = []
            self._colspan = _int(a.get("colspan"))
            self._rowspan = _int(a.get("rowspan"))
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def _fill_spans(self):
        while self._spans.get(self._col, 0) > 0:
            self._spans[self._col] -= 1
            self._row.append("")
            self._col += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._fill_spans()
            text = _BLANKS.sub(" ", "".join(self._cell)).strip()
            for k in range(self._colspan):
                self._row.append(text if k == 0 else "")
                if self._rowspan > 1:
                    self._spans[self._col] = self._rowspan - 1
                self._col += 1
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._fill_spans()
            for c in sorted(k for k, v in self._spans.items() if v > 0 and k >= self._col):
                while self._col < c:
                    self._row.append("")
                    self._col += 1
                self._fill_spans()
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _int(v) -> int:
    try:
        return max(1, min(50, int(v or 1)))
    except ValueError:
        return 1


def pipe_table(rows: list[list[str]]) -> str:
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cell = lambda c: (c.replace("|", "\\|").replace("\n", " ").strip() or " ")  # noqa: E731
    lines = ["| " + " | ".join(cell(c) for c in rows[0] + [""] * (width - len(rows[0]))) + " |",
             "|" + "|".join(["---"] * width) + "|"]
    for r in rows[1:]:
        lines.append("| " + " | ".join(cell(c) for c in r + [""] * (width - len(r))) + " |")
    return "\n".join(lines)


def _html_tables(text: str) -> str:
    def conv(m: re.Match) -> str:
        p = _Table()
        p.feed(m.group(0))
        p.close()
        return "\n\n" + pipe_table(p.rows) + "\n\n"
    # no table ends after the last "</table>": each "<table" past it made the lazy pattern scan
    # to the end of the text, quadratic in a text of unclosed tables (fuzz seed 1311, HTML
    # soup: 0.43 MB 9.8 CPU-s); the matches before it are the same
    end = max((m.end() for m in _TABLE_END_RE.finditer(text)), default=0)
    if not end:
        return text
    return _TABLE_RE.sub(conv, text[:end]) + text[end:]


_IN_TAG = r"(?:[^<>\n]|\n(?![ \t]*\n))"  # one character inside an HTML tag: no "<", ">" or blank line


def _html_markup(text: str) -> str:
    """Block-level HTML of layout engines: ``<div>`` wrappers unwrapped (centred captions become
    their own paragraphs), ``<img>`` -> image placeholders, docling ``<!-- image -->`` too."""
    text = re.sub(r"<figure\b[^<>]*>(.*?)</figure>", _figure_element, text, flags=re.S | re.I)
    text = re.sub(r":(?:un)?selected:", "", text)  # Azure DI checkbox marks
    # (a tag holds no "<", ">" or blank line: ``<img src=`` never closed ends there, not at the
    # next ">" pages on with every word between dropped: round32_fuzz_rule.md)
    text = re.sub(r"<img\b" + _IN_TAG + r"*?src=[\"']([^\"'<>\n]+)[\"']" + _IN_TAG + "*>",
                  lambda m: f"\n\n![]({m.group(1)})\n\n", text, flags=re.I)
    text = re.sub(r"<img\b" + _IN_TAG + "*>", "\n\n![](image)\n\n", text, flags=re.I)
    text = re.sub(r"</?(?:div|figure|figcaption|center|section|article)\b" + _IN_TAG + "*>", "\n\n", text,
                  flags=re.I)
    if "<!--" in text:  # (a pattern from "^" under re.M is tried at every position)
        text = sub_at_line_starts(*_IMAGE_COMMENT_LINE, "![](image)", text)
    text = re.sub(r"<!--\s*(?:formula-not-decoded|Page(?:Header|Footer|Number)=.*?)\s*-->", "", text, flags=re.I)
    return text


def _figure_element(m: re.Match) -> str:
    """Azure DI ``<figure>``: the text OCR'd inside the picture is no running text; the
    ``<figcaption>`` is the caption."""
    cap = re.search(r"<figcaption\b[^<>]*>(.*?)</figcaption>", m.group(1), re.S | re.I)
    caption = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cap.group(1))).strip() if cap else ""
    return "\n\n![](image)\n\n" + (caption + "\n\n" if caption else "")


_LATEX_HEADS = {"title": 1, "section": 2, "subsection": 3, "subsubsection": 4}
# A brace group's content, one level of braces inside it. Possessive: the group can only end
# where its longest run does (no shorter run is followed by a "}"), so giving characters back
# finds no other match; it only cost a second pass over each unclosed \caption{ (a broken
# Nougat caption ran on, brace group by brace group, through the tables after it, one
# alternation step a character, then back)
_BRACED = r"(?:[^{}]++|\{[^{}]*+\})*+"


# The rewrites of whole lines that start "^\s*" under re.M (round33_fuzz_rule.md C1): \s* crosses line
# ends, so re.sub tried such a pattern at every line start of a run of N blank lines and read the rest
# of the run each time (N^2/2 steps: 40,000 blank lines, 16 CPU s). linescan.sub_at_line_starts gives the same
# text in one pass over the run.
# (each with the start of its part after the blanks: a regex every match of that part starts with)
_IMAGE_COMMENT_LINE = (re.compile(r"^\s*<!--\s*image\s*-->\s*$", re.M | re.I), "<!--")
_LATEX_HEAD_LINE = (re.compile(r"^\s*\\(title|section|subsection|subsubsection)\*?\{(" + _BRACED + r")\}\s*$", re.M),
                    r"\\(?:title|section|subsection|subsubsection)")
_LATEX_AUTHOR_LINE = (re.compile(r"^\s*\\author\{(" + _BRACED + r")\}\s*$", re.M | re.S), r"\\author\{")
_LATEX_ABSTRACT_LINE = (re.compile(r"^\s*\\begin\{abstract\}\s*", re.M), r"\\begin\{abstract\}")
_LATEX_LIST = r"\\(?:end\{abstract\}|begin\{(?:itemize|enumerate|document)\}|end\{(?:itemize|enumerate|document)\}|maketitle)"
_LATEX_LIST_LINE = (re.compile(r"^\s*" + _LATEX_LIST + r"\s*$", re.M), _LATEX_LIST)
_LATEX_ITEM_LINE = (re.compile(r"^(\s*)\\item\s+", re.M), r"\\item")
_LATEX_PARAGRAPH_LINE = (re.compile(r"^\s*\\paragraph\*?\{([^{}]*)\}\s*", re.M), r"\\paragraph")


def _latex_structure(text: str) -> str:
    """Mathpix Markdown (GOT-OCR's format mode, Nougat now and then): ``\\title{}``,
    ``\\section*{}``, ``\\begin{abstract}``, itemize/enumerate -> Markdown."""
    if "\\" not in text:
        return text

    def head(m: re.Match) -> str:
        return "\n\n" + "#" * _LATEX_HEADS[m.group(1)] + " " + _latex_text(m.group(2)) + "\n\n"

    # Each rewrite runs only where its command is in the text (a pattern that starts at "^" under
    # re.M is tried at every position: ~18 ms a MB each, and LaTeX tables or soup hold few of
    # these commands). No rewrite brings in a command that a later one needs.
    if "\\title" in text or "section" in text:
        text = sub_at_line_starts(*_LATEX_HEAD_LINE, head, text)
    if "\\author{" in text:
        text = sub_at_line_starts(
            *_LATEX_AUTHOR_LINE, lambda m: "\n\n" + re.sub(r"\s*\\\\\s*|\s*\\and\s*", "\n\n", m.group(1)).strip() + "\n\n",
            text)
    if "\\begin{abstract}" in text:
        text = sub_at_line_starts(*_LATEX_ABSTRACT_LINE, "\n\n## Abstract\n\n", text)
    if "\\end{" in text or "\\begin{" in text or "\\maketitle" in text:
        text = sub_at_line_starts(*_LATEX_LIST_LINE, "", text)
    if "\\item" in text:
        text = sub_at_line_starts(*_LATEX_ITEM_LINE, r"\1- ", text)
    if "\\paragraph" in text:
        text = sub_at_line_starts(*_LATEX_PARAGRAPH_LINE, r"**\1** ", text)
    return text


_MATH_ENVS = r"(?:equation|align|gather|multline|eqnarray|displaymath)\*?"


# _latex_envs' patterns, compiled once (a soup's text has a piece between two $$ blocks every
# few lines: 8,000 pieces a MB, each looked up in re's cache five times), each with what it needs
_ENV_FIGURE = re.compile(r"\\begin\{figure\*?\}(.*?)\\end\{figure\*?\}", re.S)
_ENV_MATH = re.compile(rf"\\begin\{{({_MATH_ENVS})\}}.*?\\end\{{\1\}}", re.S)
_ENV_CODE = re.compile(r"\\begin\{(algorithm\*?|algorithmic|lstlisting|verbatim|minted)\}(?:\{[^}]*\})?(.*?)\\end\{\1\}",
                       re.S)
_ENV_CAPTION = re.compile(r"\\caption\{(" + _BRACED + r")\}")
_ENV_COMMANDS = re.compile(r"\\(?:begin|end)\{[a-zA-Z*]+\}(?:\[[^\]]*\])?(?:\{[^{}]*\})?"
                           r"|\\includegraphics(?:\[[^\]]*\])?\{[^}]*\}|\\label\{[^}]*\}|\\centering\b")
_DISPLAY_PIECES = re.compile(r"(\$\$.*?\$\$)", re.S)
_INLINE_MATH = re.compile(r"((?<![\\$])\$[^$\n]+\$)")


def _latex_envs(text: str) -> str:
    """LaTeX environments outside math (Mathpix, Nougat): a figure -> its placeholder and
    caption, an equation or align -> a ``$$`` block, an algorithm or listing -> code; any other
    environment's ``\\begin``/``\\end`` lines go and its text stays."""
    pieces = _DISPLAY_PIECES.split(text)
    for k in range(0, len(pieces), 2):  # even pieces are outside $$ blocks
        t = pieces[k]
        if "\\" not in t:  # (every pattern below starts at a backslash; none brings one in)
            continue
        if "\\begin{" in t:  # (the first three need one; the caption rewrite below brings none in)
            t = _ENV_FIGURE.sub(_latex_figure, t)
            t = _ENV_MATH.sub(lambda m: f"\n\n$$\n{m.group(0).strip()}\n$$\n\n", t)
            t = _ENV_CODE.sub(lambda m: "\n\n```\n" + m.group(2).strip("\n") + "\n```\n\n", t)
        if "\\caption{" in t:
            t = _ENV_CAPTION.sub(lambda m: "\n\n" + _latex_text(m.group(1)) + "\n\n", t)
        if "$" in t:  # an environment inside inline math is math: its commands stay (round33_ocr_rule.md W3)
            t = "".join(p if j % 2 else _ENV_COMMANDS.sub("", p) for j, p in enumerate(_INLINE_MATH.split(t)))
        else:
            t = _ENV_COMMANDS.sub("", t)
        pieces[k] = t
    return "".join(pieces)


def _latex_figure(m: re.Match) -> str:
    cap = _ENV_CAPTION.search(m.group(1))
    return "\n\n![](image)\n\n" + (_latex_text(cap.group(1)) + "\n\n" if cap else "")


# --------------------------------------------------------------------------- LaTeX tables

_LATEX_TABLE = re.compile(r"\\begin\{(table\*?|tabular\*?|tabularx|longtable)\}.*?\\end\{\1\}", re.S)


# (compiled once: a MB of Nougat tables is ~5,000 blocks, each looked this up in re's cache)
_TABULAR_IN_BLOCK = re.compile(r"\\begin\{(tabular\*?|tabularx|longtable)\}(.*?)\\end\{\1\}", re.S)


def _latex_table_block(block: str) -> str:
    """One ``\\begin{table}...\\end{table}`` (or tabular) block -> caption + GFM table."""
    caption = ""
    c = block.find("\\caption{")
    if c >= 0:
        caption = _braced(block, c + 8)
    out = []
    for tab in _TABULAR_IN_BLOCK.finditer(block):
        out.append(pipe_table(_tabular_rows(tab.group(2))))
    parts = []
    if caption:
        parts.append(_latex_text(caption))
    parts += [t for t in out if t]
    if not parts:
        return ""
    return "\n\n" + "\n\n".join(parts) + "\n\n"


_TABLE_CAPTION_AFTER = re.compile(
    r"(\\begin\{table\*?\})(.*?\\end\{table\*?\})[ \t]*\n((?:Table|TABLE)\s+[\dA-Z]+[:.][^\n]*)", re.S)
_TABLE_END = re.compile(r"\\end\{table\*?\}")
_CAPTION_TAIL = re.compile(r"\\end\{table\*?\}[ \t]*\n(?:Table|TABLE)\s+[\dA-Z]+[:.]")
_TABLE_BEGIN = re.compile(r"\\begin\{table\*?\}")
_LATEX_BEGIN = re.compile(r"\\begin\{(table\*?|tabular\*?|tabularx|longtable)\}")


def _latex_tables(text: str) -> str:
    """``\\begin{table}...\\begin{tabular}...\\end{table}`` (Nougat) -> caption + GFM table."""
    if "\\begin{" not in text:
        return text
    text = _flatten_inner_tabulars(text)
    text = _captions_first(text)
    return _tables_to_pipes(text)


def _captions_first(text: str) -> str:
    """Nougat writes the caption on the line after \\end{table}: it goes before the table, where
    the structure stage looks first, so that out-of-order floats keep their own captions.

    ``_TABLE_CAPTION_AFTER.sub`` itself, but a \\begin{table} with no captioned \\end{table}
    after it is not tried: the pattern scanned each such one to the end of the text (quadratic in
    the tables of a LaTeX soup)."""
    good = [m.start() for m in _TABLE_END.finditer(text) if _CAPTION_TAIL.match(text, m.start())]
    if not good:
        return text
    out: list[str] = []
    done = at = 0  # text[:done] is in out; the next match is searched from at
    while True:
        b = _TABLE_BEGIN.search(text, at)
        if b is None or b.end() > good[-1]:  # no captioned end after it, nor after any later begin
            break
        m = _TABLE_CAPTION_AFTER.match(text, b.start())
        if m is None:  # (a captioned end follows, so it matches) the pattern's own verdict
            at = b.start() + 1
            continue
        out.append(text[done:b.start()])
        out.append(f"\n\n{m.group(3)}\n\n{m.group(1)}{m.group(2)}")
        done = at = m.end()
    out.append(text[done:])
    return "".join(out)


def _tables_to_pipes(text: str) -> str:
    """Each table or tabular environment, leftmost first, -> ``_latex_table_block``: what
    ``_LATEX_TABLE.sub`` gives, but a \\begin with no \\end{kind} after it is passed over at
    once (the pattern scanned each one to the end of the text: quadratic in a LaTeX soup).

    A replacement is not searched again. It was, one match per pass until nothing changed, and a
    table whose unclosed \\caption{ took the rest of its block (tables and all) grew the text on
    every pass without end: a 10 KB soup did not finish in 10 minutes."""
    out: list[str] = []
    done = at = 0  # text[:done] is in out; the next match is searched from at
    last_end: dict[str, int] = {}  # kind -> where its last \end{kind} starts (-1: none)
    while True:
        m = _LATEX_BEGIN.search(text, at)
        if m is None:
            break
        kind = m.group(1)
        close = "\\end{" + kind + "}"
        if kind not in last_end:
            last_end[kind] = text.rfind(close)
        if last_end[kind] < m.end():  # no \end{kind} after it: the pattern fails here
            at = m.start() + 1
            continue
        e = text.find(close, m.end()) + len(close)  # the lazy .*?: the first \end{kind} after it
        out.append(text[done:m.start()])
        out.append(_latex_table_block(text[m.start():e]))
        done = at = e
    out.append(text[done:])
    return "".join(out)


_TAB_TOKEN = re.compile(r"\\(begin|end)\{(?:tabular\*?|tabularx)\}")


class _Flat:
    """A tabular flattened into its cell's text: the parts, joined by one space when written
    (a part is a text or a tabular that was nested in it)."""

    __slots__ = ("parts", "blank")

    def __init__(self, parts: list, blank: bool):
        self.parts = parts
        self.blank = blank


def _flatten_inner_tabulars(text: str) -> str:
    """A tabular inside a cell (Nougat's two-line headers ``\\begin{tabular}{c} GPU Power \\\\
    consumption \\end{tabular}``) becomes the cell's text, so the outer table parses.

    One pass over the tokens, innermost first. A tabular nested in a nested one (no OCR engine
    writes that; a LaTeX soup does) is kept as its flat text inside its parent's, not cleaned
    again with the parent's: the text was rebuilt and searched again from its start once per
    nested tabular, and each level cleaned all the levels in it (quadratic). For one level of
    nesting the result is the same text."""
    if "\\begin{tabular" not in text:
        return text
    out: list = []  # texts, tokens and _Flat
    stack: list[int] = []  # index in out of each open \begin's own piece
    done = 0  # text[:done] is in out
    nested = False
    for m in _TAB_TOKEN.finditer(text):
        out.append(text[done:m.start()])
        done = m.end()
        if m.group(1) == "begin":
            stack.append(len(out))
            out.append(m.group(0))
            continue
        i = stack.pop() if stack else -1
        if i < 0 or not stack:  # a stray \end, or one that closes an outermost tabular
            out.append(m.group(0))
            continue
        flat = _flat(out[i + 1:])
        del out[i:]
        out.append(flat)
        nested = True
    if not nested:
        return text
    out.append(text[done:])
    return "".join(_written(out))


def _flat(items: list) -> _Flat:
    parts: list = []
    raw: list[str] = []

    def cells(first: bool) -> None:
        inner = "".join(raw)
        raw.clear()
        if first:
            inner = _COLUMN_SPEC.sub("", inner, count=1)  # the column spec
        parts.extend(_latex_text(x) for x in _CELL_SPLIT.split(inner) if x.strip())

    first = bool(items) and not isinstance(items[0], _Flat)
    for it in items:
        if isinstance(it, _Flat):
            if raw:
                cells(first)
                first = False
            if not it.blank:
                parts.append(it)
        else:
            raw.append(it)
    if raw:
        cells(first)
    blank = all(p.blank if isinstance(p, _Flat) else not p.strip() for p in parts)
    return _Flat(parts, blank)


def _written(items: list) -> list[str]:
    """The texts of ``items`` in order, each _Flat written as its parts joined by a space
    (without recursion: a soup nests tabulars 100,000 deep)."""
    res: list[str] = []
    todo: list[tuple[list, int, str]] = [(items, 0, "")]
    while todo:
        parts, k, sep = todo.pop()
        if k >= len(parts):
            continue
        if k and sep:
            res.append(sep)
        todo.append((parts, k + 1, sep))
        p = parts[k]
        if isinstance(p, _Flat):
            todo.append((p.parts, 0, " "))
        else:
            res.append(p)
    return res


def _braced(s: str, i: int) -> str:
    """Content of the brace group that opens at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return s[i + 1:j]
    return s[i + 1:]


def _tabular_rows(body: str) -> list[list[str]]:
    body = _NESTED_COLUMN_SPEC.sub("", body, count=1)  # the column spec {l|cc}
    body = _TABLE_RULES.sub("", body)
    rows = []
    for raw in _ROW_SPLIT.split(body):
        if not raw.strip():
            continue
        cells = []
        for cell in _AMP_SPLIT.split(raw):
            m = _MULTICOLUMN.match(cell)
            if m:
                cells.append(_latex_text(m.group(2)))
                cells += [""] * (int(m.group(1)) - 1)
                continue
            m = _MULTIROW.match(cell)
            cells.append(_latex_text(m.group(1) if m else cell))
        rows.append(cells)
    return rows


def _latex_text(s: str) -> str:
    """Text of a LaTeX table cell or caption: formatting commands unwrapped, math as $...$."""
    if "\\" not in s and "~" not in s:  # no command or tie: only the white space to collapse
        return " ".join(s.split())  # (str.split's white space is the pattern's \s)
    prev = None
    while prev != s and "{" in s:  # (a command unwrapped needs its brace)
        prev = s
        s = _LATEX_UNWRAP.sub(_GROUP_1, s)
    s = _LATEX_SIZES.sub("", s)
    if "\\label{" in s:
        s = _LATEX_LABEL.sub("", s)
    s = s.replace("\\%", "%").replace("\\&", "&").replace("\\_", "_").replace("\\#", "#").replace("~", " ")
    return " ".join(s.split())  # (_BLANKS' \s is str.split's white space, as above)


# --------------------------------------------------------------------------- heading levels

_NUMBER = re.compile(r"^(?P<num>(?:\d{1,2}(?:\.\d{1,2}){0,4})|(?:[A-Z](?:\.\d{1,2}){0,3})|(?:[IVX]{1,5}))"
                     r"(?P<dot>\.?)\s+(?P<title>\S.*)$")
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Algorithm|Listing)\s*\d", re.I)


def _norm(s: str) -> str:
    s = _EMPHASIS_MARKS.sub("", s)
    return _BLANKS.sub(" ", _NOT_LOWER.sub(" ", s.lower())).strip()


def _number(text: str, roman_doc: bool, letters: bool = True) -> tuple[str, int] | None:
    """("3.2", depth 2) for a numbered heading; roman and letter numbers as IEEE papers use them.
    A bare capital without a dot ("A Framework for ...") counts only where ``letters`` says an
    appendix can start (after numbered sections)."""
    m = _NUMBER.match(text)
    if not m:
        return None
    num, title = m.group("num"), m.group("title")
    if not (title[:1].isupper() or title[:1].isdigit() or title[:1] in "\"'(“"):
        return None
    if re.fullmatch(r"[IVX]{1,5}", num):
        if not m.group("dot") and num not in ("I",) and not roman_doc:
            return None
        return num, 1
    if re.fullmatch(r"[A-Z]", num):
        if not m.group("dot") and (not letters or len(title.split()) > 12):
            return None
        return num, 2 if roman_doc else 1
    if num[0].isalpha():
        return num, len(num.split("."))
    return num, len(num.split("."))


def relevel(pages: list[tuple[int | None, str]], engine: str, info: dict,
            removed: list[tuple[int, str, str]] | None = None) -> list[tuple[int | None, str]]:
    """Re-derive every heading's level: the title ``#``, numbered sections from their number,
    standard sections (Abstract, References ...) ``##``, unnumbered others relative to the
    numbered section they sit in. Headings that are no sections (a label ending in a colon,
    text drawn inside a figure) become paragraphs; a heading repeating the title (paper2llm's
    '<title> - Backmatter') is left out, and added to ``removed`` as (page index, reason, text)."""
    lines_by_page = [(n, body.split("\n")) for n, body in pages]
    heads: list[tuple[int, int, int, str]] = []  # (page index, line index, engine level, text)
    in_code = False
    for pi, (_, lines) in enumerate(lines_by_page):
        # (a fence needs its marks in the page, a heading a "#" first: most lines are tried by neither)
        if "```" in pages[pi][1] or "~~~" in pages[pi][1]:  # the "#" lines outside the fences
            hashed = []
            for li, line in enumerate(lines):
                if _FENCE.match(line):
                    in_code = not in_code
                elif not in_code and line[:1] == "#":
                    hashed.append(li)
        else:  # the page's "#" lines, picked in C (none inside a fence left open on a page before)
            hashed = () if in_code else _hash_lines(lines)
        for li in hashed:
            m = _MD_HEADING.match(lines[li])
            if m:
                heads.append((pi, li, len(m.group(1)), m.group(2).strip()))
    if not heads and engine not in ("plain",):
        heads = _promote_numbered_lines(lines_by_page)
        if engine == "text":
            heads = sorted(heads + _upper_list_heads(lines_by_page) + _upper_prose_heads(lines_by_page))
        # (markdown: no "#" anywhere, round33_ocr_rule.md G; Unstructured's chunked JSON, whose
        # records keep no element type: round34_ocr_rule.md U3)
        if engine in ("text", "markdown", "unstructured-json"):
            heads = _text_title(lines_by_page, heads, one_line=engine != "text") + heads
    if engine == "unstructured-md":
        heads = _split_heads(heads, lines_by_page)
        heads = _folio_head(heads, lines_by_page, removed)
        heads = _labelled_siblings(heads, lines_by_page)
    roman = sum(1 for *_, t in heads if re.match(r"^[IVX]{1,5}\.\s", t)) >= 2
    numbered = [h for h in heads if _number(h[3], roman, letters=False)]
    title_text = _title_of(heads, numbered, lines_by_page, roman)
    if engine in ("textract-json", "grobid-tei", "docai-layout-json", "azure-di-json", "s2orc-json") and heads and heads[0][2] != 1:
        title_text = None  # (its reader writes a title "#" only where the layout or the type says so)
    plain_levels = sorted({e for pi, li, e, t in heads[1 if title_text else 0:]})
    ranks = {e: k + 1 for k, e in enumerate(plain_levels)}
    flat = len({e for _, _, e, _ in heads}) == 1
    cur: tuple[int, int] | None = None  # (engine level, our level) of the numbered section we are in
    seen_title = seen_sections = False
    title_norm = _norm(title_text) if title_text else ""  # (read at every heading: worked out once)
    for pi, li, elevel, text in heads:
        lines = lines_by_page[pi][1]
        t = text.strip()
        norm = _norm(t) if title_text else None  # (the title test's, kept for the names test)
        new: str | None
        num = _number(t, roman, letters=cur is not None or seen_sections)
        if title_text is not None and not seen_title and t == title_text:
            seen_title = True
            new = "# " + re.sub(r"(?<=\w)\.$", "", t)  # docling keeps the full stop of "Transformers."
        elif title_text and (norm == title_norm or norm.startswith(title_norm + " ")):
            rest = t[len(title_text):].strip(" -–—:") if t.startswith(title_text) else ""
            # paper2llm splits a paper into parts with '# <title> - Backmatter' / '- Appendix'
            new = None if not rest or _norm(rest) in ("backmatter", "appendix", "main") else "## " + rest
            if new is None and removed is not None:  # listed in removed.json, not lost in silence
                removed.append((pi, "repeated-title", " ".join(t.split())))
            cur = None
        elif not t or len(t) > 200 or t.endswith(":") or _CAPTION.match(t):
            new = t  # a label or a caption set as a heading: a paragraph
        elif num:
            level = min(6, 1 + num[1])
            new = "#" * level + " " + t
            cur = (elevel, level)
            seen_sections = True
        elif (norm := _norm(t) if norm is None else norm) in KNOWN_HEADINGS or _norm(t.rstrip(". ")) in KNOWN_HEADINGS:
            new = "## " + t.rstrip(" .:")
            if norm not in ("abstract", "keywords", "index terms", "ccs concepts"):
                cur = None
        elif cur is None and not numbered and ranks:
            new = "#" * min(6, 1 + ranks.get(elevel, 1)) + " " + t  # no numbering anywhere: the engine's own nesting
        elif cur is None:
            new = "## " + t
        elif elevel > cur[0] or (flat and len(numbered) >= 3):
            # deeper than its section, or the engine wrote every heading at one level (docling,
            # MinerU) in a numbered paper: an unnumbered heading after section 5 is inside it
            new = "#" * min(6, cur[1] + 1) + " " + t
        elif elevel == cur[0] or len(numbered) < 3 or engine == "mistral":
            new = "#" * cur[1] + " " + t
        else:
            new = t  # shallower than the numbered section it sits in: text inside a figure
        lines[li] = new if new is not None else ""
    _gap_headings(lines_by_page)
    return [(n, "\n".join(lines)) for n, lines in lines_by_page]


_SHORT_LINE = re.compile(r"^[A-Z][A-Za-z][A-Za-z -]{1,38}$")
_GAP_NUMBERED = re.compile(r"^## (\d{1,2})\.?\s+\S")
_GAP_HEADING = re.compile(r"^#{1,6} ")


# a heading line that ends on a word that cannot end one ("... ENDOPHENOTYPES OF"): the writer cut it
_OPEN_END = re.compile(r"\b(?:of|and|the|in|for|to|with|on|a|an|by|from|at|or|as|via|into|between|among|under|its|their)"
                       r"[ \t]*$", re.I)


def _split_heads(heads: list[tuple[int, int, int, str]], lines_by_page) -> list[tuple[int, int, int, str]]:
    """Two heading lines one after the other at one level, the first ending on a word no heading
    ends on: one heading cut over two lines by a writer that puts one element on each line; its
    words joined on the first line, the second line emptied."""
    out: list[tuple[int, int, int, str]] = []
    for h in heads:
        if out and out[-1][0] == h[0] and out[-1][1] + 1 == h[1] and out[-1][2] == h[2] \
                and _OPEN_END.search(out[-1][3]) and len(out[-1][3]) + len(h[3]) <= 200:
            pi, li, level, text = out[-1]
            joined = text + " " + h[3]
            lines_by_page[pi][1][li] = "#" * level + " " + joined
            lines_by_page[h[0]][1][h[1]] = ""
            out[-1] = (pi, li, level, joined)
            continue
        out.append(h)
    return out


_LABELLED = re.compile(r"([A-Z]{0,2})(\d{1,3})\.[ \t]+(\S.*)")


def _labelled_siblings(heads, lines_by_page) -> list[tuple[int, int, int, str]]:
    """A heading labelled in a sequence ("S6. SLEEP ...", upper case) makes the plain lines that
    carry the sequence's next labels ("S7. ...", "S8. ...") in the same case headings at its level:
    the engine typed the first a title and the others text."""
    if not any(_LABELLED.fullmatch(h[3]) for h in heads):
        return heads
    plain: dict[str, list[tuple[int, int, str]]] = {}  # label -> the plain upper-case lines it opens, in order
    for pj, (_, lines) in enumerate(lines_by_page):
        for lj, line in enumerate(lines):
            if line[:1].isalnum() and (n := _LABELLED.fullmatch(line)) and _upper_words(n.group(3)) and len(line) <= 200:
                plain.setdefault(f"{n.group(1)}{int(n.group(2))}.", []).append((pj, lj, line))
    found = []
    for pi, li, level, text in heads:
        m = _LABELLED.fullmatch(text)
        if not m or not _upper_words(m.group(3)):
            continue
        at, k = (pi, li), int(m.group(2)) + 1
        # the first line after ``at`` that opens with the next label (a line taken leaves its list)
        while (cands := plain.get(f"{m.group(1)}{k}.")) and \
                (x := bisect.bisect_right(cands, at, key=lambda c: c[:2])) < len(cands):
            pj, lj, t = cands.pop(x)
            lines_by_page[pj][1][lj] = "#" * level + " " + t
            found.append((pj, lj, level, t))
            at, k = (pj, lj), k + 1
    return sorted(heads + found) if found else heads


def _upper_words(t: str) -> bool:
    """Three words or more in upper case (no lower-case letter), no sentence's end."""
    return len(t.split()) >= 3 and not any(c.islower() for c in t) and t[-1] not in ".,;"


_FOLIO_END = re.compile(r"\S.*[^\W\d_].*\S[ \t]+(\d{1,4})")


def _folio_head(heads, lines_by_page, removed) -> list[tuple[int, int, int, str]]:
    """The text's first line, a heading of words ending in a page number, over a page that
    begins in the middle of its piece (a paragraph before the next heading starts in lower case,
    its sentence begun on the page before): the page's running head and folio, which a page
    reader labelled a title. Taken out (removed.json: ``running-head``), never a title or heading."""
    if not heads or heads[0][0] != 0:
        return heads
    pi, li, _, text = heads[0]
    lines = lines_by_page[0][1]
    if any(ln.strip() for ln in lines[:li]) or not _FOLIO_END.fullmatch(text) or len(text) > 120:
        return heads
    end = heads[1][1] if len(heads) > 1 and heads[1][0] == 0 else len(lines)
    if not any(ln.strip()[:1].islower() for ln in lines[li + 1:end]):
        return heads
    lines[li] = ""
    if removed is not None:
        removed.append((pi, "running-head", " ".join(text.split())))
    return heads[1:]


def _hash_lines(lines: list[str]) -> Iterable[int]:
    """Indexes of the ``lines`` that start with "#" (the test made in C, not a step a line)."""
    return compress(range(len(lines)), map(str.startswith, lines, repeat("#")))


def _gap_headings(lines_by_page) -> None:
    """Section 2 missing between "## 1 ..." and "## 3 ..." while one short line of its own
    ("Approach") stands between section 1's heading and the next heading: the engine wrote
    that section's heading as text (Nougat does). It becomes the heading, without a number
    the text does not print."""
    heads = []  # (index of the line among all pages' lines, its section number)
    base = 0
    for _, lines in lines_by_page:
        for li in _hash_lines(lines):  # (both patterns start with "#")
            line = lines[li]
            m = _GAP_NUMBERED.match(line)
            if _GAP_HEADING.match(line):
                heads.append((base + li, int(m.group(1)) if m else None))
        base += len(lines)
    tops = [(k, n) for k, n in heads if n is not None]
    if not any(c == a + 2 for (_, a), (_, c) in zip(tops, tops[1:], strict=False)):
        return  # (no section missing: the lines of every page are not listed)
    flat = [(pi, li) for pi, (_, lines) in enumerate(lines_by_page) for li in range(len(lines))]
    for (k, a), (_, c) in zip(tops, tops[1:], strict=False):
        if c != a + 2:
            continue
        nxt = next((h for h, _ in heads if h > k), len(flat))
        cands = []
        body = False  # section a has text of its own before the missing heading
        for j in range(k + 1, nxt):
            pi, li = flat[j]
            lines = lines_by_page[pi][1]
            s = lines[li].strip()
            alone = (li == 0 or not lines[li - 1].strip()) and (li + 1 >= len(lines) or not lines[li + 1].strip())
            if s and alone and _SHORT_LINE.match(s) and len(s.split()) <= 4:
                if body:
                    cands.append((pi, li, s))
            elif len(s) > 60:
                body = True
        if len(cands) == 1:
            pi, li, s = cands[0]
            lines_by_page[pi][1][li] = "## " + s


def _title_of(heads, numbered, lines_by_page, roman) -> str | None:
    """The first heading is the title when it comes first on the first page, is no numbered or
    standard section and little text comes before it; partial input has none."""
    if not heads:
        return None
    pi, li, _, text = heads[0]
    if pi != 0 or _number(text, roman, letters=False) or _norm(text) in KNOWN_HEADINGS or len(text.split()) < 2:
        return None
    before = "\n".join(lines_by_page[0][1][:li])
    if len(re.sub(r"\s+", "", before)) > 400:
        return None
    return text


def _text_title(lines_by_page, heads, one_line: bool = False) -> list[tuple[int, int, int, str]]:
    """Plain wrapped text: the first paragraph of the first page is the title when it is short,
    comes before the first heading and reads like one (no full stop, capitalised). ``one_line``:
    Markdown, whose writers do not wrap lines: the first line alone (a subtitle line under it
    stays text)."""
    if not lines_by_page:
        return []
    lines = lines_by_page[0][1]
    start = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if start is None or (heads and heads[0][0] == 0 and heads[0][1] <= start):
        return []
    end = start
    while end < len(lines) and lines[end].strip() and not lines[end].startswith("#") and not (one_line and end > start):
        end += 1
    text = " ".join(ln.strip() for ln in lines[start:end])
    if not (8 <= len(text) <= 200 and len(text.split()) >= 2 and text[:1].isupper()) \
            or re.search(r"[.:;,]$", text) or _norm(text) in KNOWN_HEADINGS or _NUMBER.match(text) \
            or "@" in text or end - start > 3:
        return []
    lines[start] = "# " + text
    for k in range(start + 1, end):
        lines[k] = ""
    return [(0, start, 1, text)]


_LIST_LINE = re.compile(r"\d{1,3}\.?\s+[A-Z]")


def _upper_list_heads(lines_by_page) -> list[tuple[int, int, int, str]]:
    """Wrapped text (Gemini, Tesseract): an upper-case line that starts a block and runs straight
    into a numbered list ("REFERENCES" above "1 An Organisation, Report ...") is that list's
    heading, as sources/markdown.plain_headings reads one in unwrapped text (round34_ocr_rule.md T1)."""
    heads = []
    for pi, (_, lines) in enumerate(lines_by_page):
        for li in range(len(lines) - 1):
            t = lines[li].strip()
            if not t or len(t) > 80 or t[-1] in ".,;" or (li and lines[li - 1].strip()) \
                    or not (t.isupper() and sum(map(str.isupper, t)) >= 4) or not _LIST_LINE.match(lines[li + 1].strip()):
                continue
            lines[li] = "## " + t
            heads.append((pi, li, 2, t))
            _join_entries(lines, li + 1)
    return heads


def _upper_prose_heads(lines_by_page) -> list[tuple[int, int, int, str]]:
    """Wrapped text: an upper-case run of one to three lines that starts a block after a sentence's
    end and runs straight into wrapped prose ("METHODS OF THE FIELD SURVEY:" / "SAMPLING" /
    "The survey ran ... in" / "spring ...") is that section's heading. Prose is three full lines
    (each at least 60% of the text's median line, the first opening a sentence): a rubric over a
    title ("NEWS ANALYSIS" / "A title set in ...:" / "what next?") is not, its title's last line
    being short."""
    lengths = sorted(len(ln.strip()) for _, lines in lines_by_page for ln in lines if ln.strip())
    if len(lengths) < 8:
        return []
    full = max(30, 0.6 * lengths[len(lengths) // 2])
    heads = []
    for pi, (_, lines) in enumerate(lines_by_page):
        before = ""  # the last non-blank line above (one pass: no look back over a run of blanks)
        li = 0
        while li < len(lines):
            if not lines[li].strip() or (li and lines[li - 1].strip()):
                before = lines[li].strip() or before
                li += 1
                continue
            run = li
            while run < len(lines) and run - li < 3 and _upper_line(lines[run]):
                run += 1
            prose = lines[run:run + 3]
            if run == li or (before and before[-1] not in ".!?)\"”") or len(prose) < 3 \
                    or not all(len(p.strip()) >= full and not _upper_line(p) for p in prose) \
                    or not prose[0].strip()[:1].isupper() or sum(map(str.isupper, "".join(lines[li:run]))) < 4:
                before = lines[li].strip()
                li += 1
                continue
            text = " ".join(ln.strip() for ln in lines[li:run])
            lines[li] = "## " + text + "\n"  # (a blank line after it: the prose is its own paragraph)
            for k in range(li + 1, run):
                lines[k] = ""
            heads.append((pi, li, 2, text))
            before = text
            li = run
    return heads


def _upper_line(line: str) -> bool:
    t = line.strip()
    return bool(t) and len(t) <= 80 and t[-1] not in ".,;" and not any(map(str.islower, t)) \
        and any(map(str.isupper, t))


def _join_entries(lines: list[str], at: int) -> None:
    """The wrapped numbered list from ``lines[at]`` to the block's end -> one line per entry,
    labelled "[n]": a line opens an entry where it starts with the next number in sequence
    ("17 http://..." after entry 2 is the wrap of "May 17"), any other line goes on the entry
    before (the lines it joins are left blank)."""
    end = at
    while end < len(lines) and lines[end].strip():
        end += 1
    m = _LIST_NUMBER.match(lines[at].strip())
    if m is None:
        return
    expect = int(m.group(1))
    entry = at
    parts: list[str] = []  # the open entry's pieces, joined once (+= on a list item copies it each time)
    for k in range(at, end):
        s = lines[k].strip()
        m = _LIST_NUMBER.match(s)
        if m and int(m.group(1)) == expect:
            if parts:
                lines[entry] = " ".join(parts)
            # the label as a reference list writes it ("[2] Wroe D. ..."): the references stage
            # reads a bare "2 Wroe D." as running text, and joins the entries into one
            entry, expect = k, expect + 1
            parts = [f"[{m.group(1)}] " + s[m.end():]]
        else:
            parts.append(s)
            lines[k] = ""
    lines[entry] = " ".join(parts)


_LIST_NUMBER = re.compile(r"(\d{1,3})\.?\s")


_PLAIN_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^.!?]{2,90})$")


def _promote_numbered_lines(lines_by_page) -> list[tuple[int, int, int, str]]:
    """Markdown without a single ``#`` (olmOCR on one page): a short line of its own that starts
    with a section number ("2.1.1 Pretraining data: OLMo 2 Mix 1124") is a heading."""
    heads = []
    for pi, (_, lines) in enumerate(lines_by_page):
        for li, line in enumerate(lines):
            s = line.strip()
            alone = (li == 0 or not lines[li - 1].strip()) and (li + 1 >= len(lines) or not lines[li + 1].strip())
            if alone and len(s.split()) <= 4 and _norm(s.rstrip(".:")) in KNOWN_HEADINGS:
                lines[li] = "## " + s.rstrip(".:")
                heads.append((pi, li, 2, s.rstrip(".:")))
                continue
            m = _PLAIN_NUMBERED.match(s)
            if not m or len(s.split()) > 14 or s.endswith((",", ";")):
                continue
            alone = (li == 0 or not lines[li - 1].strip()) and (li + 1 >= len(lines) or not lines[li + 1].strip())
            if not alone or ("." not in m.group(1) and len(s.split()) > 8):
                continue
            lines[li] = "#" * min(6, 1 + len(m.group(1).split("."))) + " " + s
            heads.append((pi, li, 1 + len(m.group(1).split(".")), s))
    return heads


# --------------------------------------------------------------------------- front matter, references

_INSTITUTION = re.compile(r"universit|institut|college|school|laborator|\blab\b|department|academy|research|"
                          r"centre|center|inc\b|ltd|corporation|foundation|hospital|faculty|gmbh", re.I)
_NAME = re.compile(r"^[A-Z][\w'’.\-]*(?:\s+[A-Z][\w'’.\-]*){0,4}(?:\s*\[\^[^\]]+\])?$")


_GLUED_NAME = re.compile(r"([A-Z][^,]*?[a-z])([a-z](?:,(?:[a-z]|\*))*|\*)(?:,\s*|$)")


def _glued_marks(lines: list[str]) -> list[str]:
    """MinerU glues affiliation letters to names and institutions ("Patrick N.J. Lanea,c,*, ...
    aSchool of Forest ..."): written back as markers, "Lane[^a,c,*]" and "[^a] School of ...",
    when every name of the line carries them."""
    title = next((i for i, s in enumerate(lines) if s.startswith("# ")), None)
    if title is None:
        return lines
    i = next((k for k in range(title + 1, len(lines)) if lines[k].strip()), None)
    if i is None or _MD_HEADING.match(lines[i]):
        return lines
    text = re.sub(r"\s+", " ", lines[i].strip())
    cut = re.search(r"\s([a-z])(?=[A-Z][A-Za-z]{2,})", text)
    head, tail = (text[:cut.start()].strip(), text[cut.start():]) if cut else (text, "")
    names = list(_GLUED_NAME.finditer(head))
    if len(names) < 2 or "".join(m.group(0) for m in names).strip() != head.strip() \
            or not any("," in m.group(2) or "*" in m.group(2) for m in names):
        return lines
    out = ", ".join(f"{m.group(1).strip()}[^{m.group(2)}]" for m in names)
    if tail:
        out += "\n\n" + re.sub(r"\s([a-z])(?=[A-Z][A-Za-z]{2,})", lambda m: f"\n\n[^{m.group(1)}] ", tail).strip()
    lines[i] = out
    return lines


# round34_ocr_rule.md U1: a byline whose superscript marks OCR read as glyphs ("Zejiang Shen! (4),
# Ruochen Zhang”, Melissa Dell?", "Barlas O˘guz∗"): the names are written alone, the marks
# listed in removed.json. A piece is a name of 2-5 capitalised words (or particles), then its
# marks: glyphs, a number, "(4)". (A star read as a lone letter, "Omotayo Sanni n", is left: the
# metadata stage cuts the name after it, "Abimbola Patricia I. Popoola", at its initial.)
_NAME_WORD = r"[A-Z](?:[^\W\d_]|['’.\-])*"
_MARK_GLYPHS = "!?”“\"®©∗*†‡§¶#°"
_ODD_GLYPHS = frozenset(_MARK_GLYPHS) - {"*"}  # (a star or a number alone the metadata stage reads)
_BYLINE_PIECE = re.compile(
    rf"({_NAME_WORD}(?:\s+(?:{_NAME_WORD}|van|von|de|der|da|bin|al|la|le|di|du)){{1,4}})"
    rf"((?:\s*(?:[{re.escape(_MARK_GLYPHS)}]|\(\d{{1,2}}\)|\d))*)")
# (one glyph or digit a step: "[!?]+" or "\d{1,2}" inside the repeat would try every split of a
# long run before failing)
_BYLINE_MARK_ONLY = re.compile(rf"(?:\s*(?:[{re.escape(_MARK_GLYPHS)}]|\(\d{{1,2}}\)|\d))+")
_BYLINE_SPLIT = re.compile(r"(,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)")
# a spacing accent before its letter, as a PDF text layer spells "Oğuz": "O˘guz" (the accent and
# the letter composed: the name test reads letters)
_SPACING_ACCENT = re.compile("([\u02d8\u00a8\u00b4\u02c6\u02dc\u02c7\u02da])([A-Za-z])")


def _byline_marks(lines: list[str], removed: list[tuple[int, str, str]] | None) -> list[str]:
    """The line after the ``#`` title (past up to three crumbs: a picture, a logo's OCR), when it is a byline of 2+ names carrying marks OCR read as glyphs, is written with
    the names alone (a "#" that made it a heading taken off: Unstructured types bylines Title);
    its marks, and a name's spelling before its accent was composed, go to ``removed``."""
    title = next((i for i, s in enumerate(lines[:400]) if s.startswith("# ")), None)
    if title is None:
        return lines
    i, crumbs = title + 1, 0
    while i < len(lines) and (not lines[i].strip() or crumbs < 3 and _crumb(lines[i].strip())):
        crumbs += bool(lines[i].strip())
        i += 1
    if i >= len(lines) or (i + 1 < len(lines) and lines[i + 1].strip()):
        return lines  # (a byline is a line of its own)
    text = re.sub(r"^#{1,6}\s+", "", lines[i].strip())
    if len(text) > 600 or "[^" in text or "<sup>" in text or "$" in text:
        return lines
    parts = _BYLINE_SPLIT.split(text)
    names: list[str] = []
    marks: list[str] = []
    respelled: list[str] = []
    odd = False
    out: list[str] = []
    for k, part in enumerate(parts):
        if k % 2:
            out.append(part)
            continue
        piece = part.strip()
        if names and _BYLINE_MARK_ONLY.fullmatch(piece):  # "Shen1,2": the ",2" is the name's mark
            marks.append(piece)
            odd = odd or any(c in _ODD_GLYPHS for c in piece)
            out.pop()  # (its separator goes with it)
            continue
        spelled = _SPACING_ACCENT.sub(lambda m: combine(m.group(2), m.group(1)), piece)
        m = _BYLINE_PIECE.fullmatch(spelled)
        if m is None:
            return lines
        names.append(m.group(1))
        if spelled != piece:
            respelled.append(piece[:len(piece) - len(m.group(2))])  # (the name as the engine spelled it)
        if m.group(2).strip():
            marks.append(m.group(2).strip())
            odd = odd or any(c in _ODD_GLYPHS or c == "(" for c in m.group(2))
        out.append(m.group(1))
    if len(names) < 2 or not odd:
        return lines
    lines[i] = "".join(out).strip()
    if removed is not None:
        removed.append((0, "byline-marks", " ".join(marks)))
        removed += [(0, "byline-respelled", p) for p in respelled]
    return lines


def _crumb(s: str) -> bool:
    """What stands between a title and its byline and is neither: a picture's placeholder, or
    under 8 characters of a logo's OCR ("(Jee", CrossMark's)."""
    return len(s) < 8 or bool(_IMAGE_LINE.fullmatch(s))


_IMAGE_LINE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


def _arxiv_stamp(body: str, removed: list[tuple[int, str, str]]) -> str:
    """arXiv's margin stamp read across the page as spaced characters ("0 2 0 2", "p e S 0 3",
    "3 v 6 0 9 4 0 . 4 0 0 2 : v i X r a": "arXiv:2004.04906v3 ... 30 Sep 2020" backwards): a run
    of such lines, blank lines between, whose characters spell "arXiv" forwards or backwards,
    is taken out and listed (round34_ocr_rule.md U2)."""
    if " X " not in body and " x " not in body and "X r" not in body and "r X" not in body:
        return body  # (every stamp holds "X" or "x" between blanks, or "X r" / "r X": most pages none)
    lines = body.split("\n")
    k = 0
    while k < len(lines):
        if not _spaced(lines[k]):
            k += 1
            continue
        run = [k]
        j = k + 1
        while j < len(lines) and (not lines[j].strip() or _spaced(lines[j])):
            if lines[j].strip():
                run.append(j)
            j += 1
        chars = "".join("".join(lines[r].split()) for r in run).lower()
        if "arxiv" in chars or "arxiv" in chars[::-1]:
            for r in run:
                removed.append((0, "arxiv-stamp", lines[r].strip()))
                lines[r] = ""
        k = j
    return "\n".join(lines)


def _spaced(line: str) -> bool:
    """A line of three or more single characters with blanks between ("p e S 0 3")."""
    toks = line.split()
    return len(toks) >= 3 and all(len(t) == 1 for t in toks)


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PERSON = re.compile(r"^([A-Z][a-z][\w'’-]*(?:\s+[A-Z]\.)?(?:\s+[A-Z][a-z][\w'’-]*))\s+(\S.*)$")


def _split_person(chunk: str) -> tuple[str, str] | None:
    """"Birgit Pfitzmann IBM Research Rueschlikon, Switzerland" -> (name, affiliation): a given
    name, an optional initial and a family name, then the institution."""
    m = _PERSON.match(chunk.strip(" ,;"))
    if not m or not re.search(r"[A-Z]", m.group(2)):
        return None
    return m.group(1), m.group(2).strip(" ,;")


# academic degrees and credentials printed after a name ("Name, PhD, role")
_DEGREES = frozenset("""phd md mlis ms msc ma mba drph scd dphil dsc bsc ba bs jd pharmd dds dvm rn np pa mpa mfa
    msw mph edd psyd mbbs frcp facs mrcp llm mcs meng beng""".split())
_DEGREE_LINE = re.compile(r"([A-Z][\w'’-]+(?:\s+[A-Z]\.)*(?:\s+[A-Z][\w'’-]+){1,3}),\s+(\S.*)")


def _degree_lines(lines: list[str]) -> list[str]:
    """Author lines under the title, one person a line with degrees and a role ("Ada Lovelace,
    PhD, Chief Analyst"; Unstructured's Markdown writes each so): one author line with markers,
    each person's degrees and role a note of its own, the form the metadata stage reads; every
    word kept."""
    title = next((i for i, s in enumerate(lines) if s.startswith("# ")), None)
    if title is None:
        return lines
    people, k = [], title + 1
    while k < len(lines) and len(people) < 12:
        t = lines[k].strip()
        if not t:
            if people:
                break
            k += 1
            continue
        m = _DEGREE_LINE.fullmatch(t)
        # (the person's first credential comes right after the name: "PhD", "M.D.")
        if not m or m.group(2).split(",")[0].strip().replace(".", "").lower() not in _DEGREES:
            break
        people.append((k, m.group(1), m.group(2)))
        k += 1
    if not people:
        return lines
    out = list(lines)
    out[people[0][0]] = ", ".join(f"{name}[^{n + 1}]" for n, (_, name, _) in enumerate(people)) + "\n\n" + \
        "\n\n".join(f"[^{n + 1}] {note}" for n, (_, _, note) in enumerate(people)) + "\n"
    for at, _, _ in people[1:]:
        out[at] = ""
    return out


def _flattened_authors(lines: list[str], repeated: list[str] | None = None) -> list[str]:
    """An author block that the engine flattened into running text ("Name Institution email Name
    Institution email ..."; docling on ACM papers, marker) -> one author line with markers and
    one line per affiliation, the form the metadata stage reads. An affiliation printed again
    after a later name is written once: each repeat is added to ``repeated``."""
    title = next((i for i, s in enumerate(lines) if s.startswith("# ")), None)
    if title is None:
        return lines
    end = next((i for i in range(title + 1, len(lines)) if _MD_HEADING.match(lines[i])
                or _CAPTION.match(lines[i].strip()) or lines[i].startswith("![")), len(lines))
    body = [i for i in range(title + 1, end) if lines[i].strip()]
    text = " ".join(lines[i].strip() for i in body)
    if not body or len(text) > 1200 or not _EMAIL.search(text) or "[^" in text:
        return lines
    chunks = [c for c in re.split(r"\s*(?:\{[^{}]*\}|[\w.+-]+)\s*@[\w-]+(?:\.[\w-]+)+\s*", text) if c.strip()]
    people = [_split_person(c) for c in chunks]
    if not people or any(p is None for p in people) or len(chunks) != len(_EMAIL.findall(text)):
        return lines
    affs: list[str] = []
    names = []
    for name, aff in people:
        if aff not in affs:
            affs.append(aff)
        elif repeated is not None:
            repeated.append(aff)
        names.append(f"{name}[^{affs.index(aff) + 1}]")
    for i in body:
        lines[i] = ""
    # emails before the affiliations: an affiliation line may become a footnote (a float), and
    # text after a float that does not start a sentence is joined back to the line before it
    block = ", ".join(names) + "\n\n" + ", ".join(_EMAIL.findall(text)) + "\n\n" \
        + "\n\n".join(f"[^{k + 1}] {a}" for k, a in enumerate(affs))
    lines[body[0]] = block
    return lines


def tidy(pages: list[tuple[int | None, str]], engine: str = "",
         removed: list[tuple[int, str, str]] | None = None) -> list[tuple[int | None, str]]:
    """Two layout habits of engines that hide structure from the compile stages: an author
    block written one name per paragraph (or in bold lines), and reference lists written as
    Markdown bullets ('- [1] ...', '* Author ...'), one entry per paragraph here. What is left
    out (an affiliation repeated after each name, written once) goes to ``removed``."""
    out = []
    for pi, (n, body) in enumerate(pages):
        lines = body.split("\n")
        if pi == 0:
            repeated: list[str] = []
            if engine == "unstructured-md":  # (before the passes that join short name lines)
                lines = _degree_lines(lines)
            lines = _flattened_authors(_authors_block(_author_groups(lines)), repeated)
            if removed is not None:
                removed += [(pi, "repeated-affiliation", a) for a in repeated]
            if engine == "mineru":
                lines = _glued_marks(lines)
            lines = _byline_marks(lines, removed)
        out.append((n, "\n".join(lines)))
    # (the two passes change only the lines after a heading of their names: the headings read
    # once for both, a LaTeX or HTML soup or a text of tables has 100,000 lines and neither)
    contents, references = _headed(out, _CONTENTS_NAMES, _REFERENCES_NAMES)
    if contents:
        out = _contents_lists(out)
    if references:
        out = _reference_bullets(out)
    return _superscripts(out)


_SECTION_HEADING = re.compile(r"^#{2,6} ")
_SECTION_AT = re.compile(r"\n#{2,6} ")  # (_SECTION_HEADING at a line after the first)
# a footnote's definition at the start of a line, after a first break ("^" under re.M was tried
# at every position of the text)
_FOOTNOTE_DEF = re.compile(r"\n\[\^([^\]]+)\]:")
_FOOTNOTE_MARK = re.compile(r"\[\^([^\]]+)\](?!:)")
_SUP = str.maketrans("0123456789abcdefghijklmnoprstuvwxyz,", "⁰¹²³⁴⁵⁶⁷⁸⁹ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ˒")


def _superscripts(pages: list[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
    """``[^n]`` markers stay footnote references where the text defines footnote n, and in the
    front matter (author -> affiliation markers, read by the metadata stage); elsewhere the
    engine's superscript is a superscript ("where b^ ..." -> "ᵇ"), not a dangling footnote."""
    # (only the lines holding "[^" change: a page without one is read for the heading that ends
    # the front matter alone, and a text without one not at all)
    if not any("[^" in body for _, body in pages):
        return pages
    defs = {m.group(1) for _, body in pages if "[^" in body for m in _FOOTNOTE_DEF.finditer("\n" + body)}
    front = True
    out = []
    for n, body in pages:
        if "[^" not in body:
            front = front and not ((body[:1] == "#" and _SECTION_HEADING.match(body)) or _SECTION_AT.search(body))
            out.append((n, body))
            continue
        lines = []
        for line in body.split("\n"):
            if front and line[:1] == "#" and _SECTION_HEADING.match(line):
                front = False
            if not front and "[^" in line:
                line = _FOOTNOTE_MARK.sub(lambda m: m.group(0) if set(m.group(1).split(",")) <= defs
                                          else m.group(1).translate(_SUP), line)
            lines.append(line)
        out.append((n, "\n".join(lines)))
    return out


# a person's name alone on a line (a heading for marker), a mark after it (Mistral's "\\*", "∗", "†")
_NAME_LINE = re.compile(r"^(?:#{1,6}[ \t]+)?(?:\*\*)?([A-Z][\w'’.\-]*(?:[ \t]+[A-Z][\w'’.\-]*){1,3})(?:\*\*)?"
                        r"[ \t]*(?:\\?[*∗†‡]|\[\^[^\]]+\])*[ \t]*$")
_ORCID = re.compile(r"\s*\[\d{4}\s*-\s*?-?\d{4}\s*-\s*?-?\d{4}\s*-\s*?-?\d{3}[\dX]\]")


def _author_groups(lines: list[str]) -> list[str]:
    """One block per author after the title -- the name on a line of its own (marker writes it as
    a heading, Mistral as the first of its ``<br>`` lines), then its affiliation and e-mail lines
    -> one names line with ``[^k]`` markers, the e-mails, one ``[^k] affiliation`` line each: the
    form _flattened_authors writes and the metadata stage reads. ORCID ids after names go."""
    title = next((i for i, s in enumerate(lines[:40]) if s.startswith("# ")), None)
    if title is None:
        return lines
    groups: list[tuple[int, str, list[str], list[str]]] = []  # (line, name, affiliation lines, e-mails)
    span = []
    for i in range(title + 1, min(len(lines), title + 80)):
        s = lines[i].strip()
        if not s:
            continue
        if "[" in s and _ORCID.search(s):
            # (the ids stay, on a line after the names: an id lost is a word lost)
            ids = [re.sub(r"[\s\[\]]+", "", m.group(0)) for m in _ORCID.finditer(s)]
            s = re.sub(r"\s+,", ",", _ORCID.sub("", s)).strip(" ,")
            # "A B [id] , C D [id] , [id]" then "and E F" on a line of its own: one names line
            nxt = next((j for j in range(i + 1, min(len(lines), i + 4)) if lines[j].strip()), None)
            if nxt is not None and re.match(r"^and\s+[A-Z]", lines[nxt].strip()):
                s = s + ", " + lines[nxt].strip()
                lines[nxt] = ""
            lines[i] = s + "\n\nORCID: " + ", ".join(ids)
            continue
        name = _NAME_LINE.match(s)
        if name and not _INSTITUTION.search(name.group(1)) and not _EMAIL.search(s):
            if groups and not (groups[-1][2] or groups[-1][3]):
                return lines  # two names in a row: not this shape
            groups.append((i, name.group(1), [], []))
        elif groups and not s.startswith("#") and len(s) <= 160 and (_EMAIL.search(s) or _INSTITUTION.search(s)
                                                                        or re.search(r",\s*[A-Z]", s)):
            emails = _EMAIL.findall(s)
            rest = _EMAIL.sub("", s).strip(" ,;")
            groups[-1][3].extend(emails)
            if rest:
                groups[-1][2].append(rest)
        else:
            break
        span.append(i)
    if len(groups) < 2 or not all(g[2] or g[3] for g in groups) or not any(g[2] for g in groups):
        return lines
    # one affiliation line per author, as printed (two authors of one department: two lines;
    # merged, the second's words would be lost in silence)
    affs: list[str] = []
    names = []
    for _, name, aff, _emails in groups:
        if aff:
            affs.append(", ".join(aff))
        names.append(f"{name}[^{len(affs)}]" if aff else name)
    emails = [e for g in groups for e in g[3]]
    for i in span:
        lines[i] = ""
    lines[span[0]] = ", ".join(names) + ("\n\n" + ", ".join(emails) if emails else "") + "\n\n" \
        + "\n\n".join(f"[^{k + 1}] {a}" for k, a in enumerate(affs))
    return lines


def _authors_block(lines: list[str]) -> list[str]:
    title = next((i for i, s in enumerate(lines) if s.startswith("# ")), None)
    if title is None:
        return lines
    end = next((i for i in range(title + 1, len(lines)) if _MD_HEADING.match(lines[i])), len(lines))
    names: list[int] = []
    for i in range(title + 1, end):
        s = lines[i].strip()
        if not s:
            continue
        bare = re.sub(r"^\*\*(.*)\*\*$", r"\1", s).strip()
        parts = [p.strip() for p in re.split(r",\s*|\s+and\s+", bare) if p.strip()]
        last = _split_person(parts[-1]) if len(parts) >= 2 else None
        if last and _INSTITUTION.search(last[1]) and not _EMAIL.search(bare) and all(
                _NAME.match(p) and not _INSTITUTION.search(p) for p in parts[:-1]):
            # "A B, C D, E F IBM Research": the institution glued to the last name goes apart
            lines[i] = ", ".join(parts[:-1] + [last[0]]) + "\n\n" + last[1]
            break
        if parts and all(_NAME.match(p) and len(p.split()) <= 5 and not _INSTITUTION.search(p) for p in parts):
            lines[i] = bare
            names.append(i)
        elif names:
            break
    if len(names) >= 2:
        joined = ", ".join(lines[i].strip() for i in names)
        for i in names:
            lines[i] = ""
        lines[names[0]] = joined
    return lines


_HEADING_AT = re.compile(r"\n(#{1,6}[ \t][^\n]*)")  # (the lines _MD_HEADING may match, after a first break)
_CONTENTS_NAMES = ("contents", "table of contents")
_REFERENCES_NAMES = ("references", "bibliography", "literature cited", "works cited", "reference list")


def _headed(pages: list[tuple[int | None, str]], *groups: tuple[str, ...]) -> list[bool]:
    """For each of ``groups`` (names), whether a Markdown heading of ``pages`` is named one of
    them (as _norm reads it): the passes below change only the lines after such a heading, and
    read every line of every page to find none. Each heading is read once for all the groups, up
    to the one that completes them (_contents_lists changes no heading: the answers hold after it)."""
    found = [False] * len(groups)
    for _, body in pages:
        if "#" in body:
            for h in _HEADING_AT.finditer("\n" + body):
                m = _MD_HEADING.match(h.group(1))
                if m:
                    name = _norm(m.group(2))
                    for g, names in enumerate(groups):
                        found[g] = found[g] or name in names
                    if all(found):
                        return found
    return found


def _contents_lists(pages: list[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
    """A table of contents ("1 Introduction 3") is a list, not a run of section headings (tidy
    calls it where a heading is named so)."""
    inside = False
    out = []
    for n, body in pages:
        lines = []
        for line in body.split("\n"):
            m = _MD_HEADING.match(line) if line[:1] == "#" else None
            if m:
                inside = _norm(m.group(2)) in _CONTENTS_NAMES
            elif inside and line.strip() and not line.lstrip().startswith(("-", "*", "|", "!")):
                line = "- " + line.strip()
            lines.append(line)
        out.append((n, "\n".join(lines)))
    return out


_BULLET_ENTRY = re.compile(r"^\s*[-*+•]\s+(\S.*)$")
_ENDNOTE_LABEL = re.compile(r"^\[\^(\d{1,4})\]:?\s*")


def _reference_bullets(pages: list[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
    """A reference list written as Markdown bullets ('- [1] ...') is one entry a paragraph (tidy
    calls it where a heading names a reference list)."""
    bullets: list[tuple[int, int]] = []  # (page index, line index) of each entry written as a bullet
    inside = False
    level = 2
    out = []
    for n, body in pages:
        lines = []
        for line in body.split("\n"):
            m = _MD_HEADING.match(line) if line[:1] == "#" else None
            if m:
                name = _norm(m.group(2))
                if name in _REFERENCES_NAMES:
                    inside, level = True, len(m.group(1))
                elif inside and len(m.group(1)) <= level:
                    inside = False
                lines.append(line)
                continue
            if inside and line.strip() and not line.lstrip().startswith(("|", "$$", "!")):
                # one block per line: the references stage groups lines into entries
                b = _BULLET_ENTRY.match(line)
                if lines and lines[-1].strip():
                    lines.append("")
                entry = b.group(1) if b else line.strip()
                # numbered endnotes ("${ }^{1}$ Author ...", "\\( ^{1} \\) ..."): the mark is the label
                if entry.startswith("[^"):
                    entry = _ENDNOTE_LABEL.sub(r"[\1] ", entry)
                lines.append(entry)
                if b:
                    bullets.append((len(out), len(lines) - 1))
                continue
            lines.append(line)
        out.append((n, "\n".join(lines)))
    return _number_bullets(out, bullets)


_REF_LABEL = re.compile(r"^\[(\d{1,4})\]\s")
_PSEUDO_LABEL = re.compile(r"^[A-Z][\w'’-]+(?: et al\.| and [A-Z][\w'’-]+)? \[(?:19|20)\d\d[a-z]?\]\s+(?=[A-Z])")


def _number_bullets(pages: list[tuple[int | None, str]], bullets: list[tuple[int, int]]) -> list[tuple[int | None, str]]:
    """A numbered bibliography written as a Markdown list where some items lost their number
    (Nougat writes "Rajeswaran et al. [2019] ..." for [29]): each bullet is one entry, so when
    exactly b-a-1 unnumbered entries sit between [a] and [b] they are [a+1] ... [b-1]. Numbers
    out of sequence count as lost; nothing is numbered where the count does not add up."""
    if len(bullets) < 4:
        return pages
    rows = [pages[p][1].split("\n") for p in range(len(pages))]
    items = [(p, i, rows[p][i]) for p, i in bullets]
    labels = [int(m.group(1)) if (m := _REF_LABEL.match(t)) else None for _, _, t in items]
    if sum(x is not None for x in labels) < len(labels) // 2:
        return pages
    # the increasing run of labels: a label smaller than the one before is an OCR misread
    seq: list[int | None] = []
    last = 0
    for x in labels:
        seq.append(x if x is not None and x > last else None)
        if seq[-1] is not None:
            last = x
    entry = [bool(re.match(r"^(?:\[\d|[A-Z])", t)) for _, _, t in items]  # continuations start otherwise
    k = 0
    while k < len(items):
        if seq[k] is None:
            k += 1
            continue
        j = k + 1
        while j < len(items) and seq[j] is None:
            j += 1
        gap = [g for g in range(k + 1, j) if entry[g]]
        if j < len(items) and gap and len(gap) == seq[j] - seq[k] - 1:
            for num, g in enumerate(gap, start=seq[k] + 1):
                p, i, t = items[g]
                t = _REF_LABEL.sub("", t, count=1)
                t = _PSEUDO_LABEL.sub("", t, count=1)  # "Gamma et al. [2003] C. Gamma ..." -> the entry itself
                rows[p][i] = f"[{num}] {t}"
        k = j
    return [(pages[p][0], "\n".join(rows[p])) for p in range(len(pages))]
