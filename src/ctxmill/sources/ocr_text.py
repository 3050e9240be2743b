"""Raw OCR text (MinerU-style) -> pages.

The text is split on its page markers (``── PAGE 2 / 46 ──``); the text before the first marker
is page 1. The printed page number that such pipelines leave on its own line just before each
marker (and at the very end) is taken out of the text and kept as ``Page.printed_number``. Lines
stay as they are (one OCR paragraph per line); the compile stages do the rest.
"""

from __future__ import annotations

import re

from ctxmill.linescan import line_hits
from ctxmill.model import Page, PageStream
from ctxmill.sources.markdown import text_lines

PAGE_MARKER = re.compile(
    r"^\s*[─━—–=\-]{1,}\s*PAGE\s+(\d+)\s*(?:/|of)\s*(\d+)\s*[─━—–=\-]{1,}\s*$", re.I
)
PRINTED_NUMBER = re.compile(r"^\s*(?:[-–—]\s*)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s*[-–—])?\s*$", re.I)


def _take_printed_number(lines: list[str]) -> tuple[list[str], str | None]:
    i = len(lines) - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    if i >= 0 and PRINTED_NUMBER.match(lines[i]):
        return lines[:i], lines[i].strip().strip("-–— ")
    return lines, None


# a line PAGE_MARKER may match: its first non-blank character is one of the rule's (found
# after the line break before it, in the text after a first one: the lines between are not read)
_MAYBE_MARKER = re.compile(r"\n(?=[^\S\n]*[─━—–=\-])")


def _marker_lines(text: str, lines: list[str]) -> list[tuple[int, re.Match]]:
    """(index, match) of the lines of ``text`` (``lines``, its split on line breaks) that are
    page markers: one search of the text for the lines that can start one, instead of a
    pattern call per line (47,000 lines a MB of raw OCR text, 250 of them markers)."""
    out = []
    for k in line_hits(_MAYBE_MARKER, "\n" + text):
        mark = PAGE_MARKER.match(lines[k])
        # a page number of more than 9 digits is no page number (int() refuses 4,300 digits
        # and more: the compile exited 1): the line is text
        if mark and max(len(g or "") for g in mark.groups()) <= 9:
            out.append((k, mark))
    return out


def read_ocr_text(text: str) -> PageStream:
    raw_pages: list[tuple[int, int | None, list[str]]] = []
    number, total = 1, None
    lines = text.split("\n")
    at = 0
    for k, m in _marker_lines(text, lines):
        raw_pages.append((number, total, lines[at:k]))
        number, total = int(m.group(1)), int(m.group(2))
        at = k + 1
    raw_pages.append((number, total, lines[at:]))
    # a first "page" that is empty means the text started with a marker
    if raw_pages and raw_pages[0][0] == 1 and not any(s.strip() for s in raw_pages[0][2]) and len(raw_pages) > 1:
        raw_pages = raw_pages[1:]
    declared = None
    pages: list[Page] = []
    for idx, (num, tot, lines) in enumerate(raw_pages):
        if tot:
            declared = max(declared or 0, tot)
        lines, printed = _take_printed_number(lines)
        page = Page(
            number=num if num >= 1 else idx + 1,
            # (a line is blank when its rstrip is empty: the others, right-stripped, in C)
            lines=text_lines(filter(None, map(str.rstrip, lines))),
            has_text_layer=True, ocr=True, printed_number=printed, declared_total=tot,
        )
        pages.append(page)
    if declared is None and pages:
        declared = len(pages)
    # first page inherits the declared total of the others
    for p in pages:
        if p.declared_total is None and declared:
            p.declared_total = declared
    # physical numbers must be unique and increasing; fall back to positions if not
    nums = [p.number for p in pages]
    if len(set(nums)) != len(nums) or nums != sorted(nums):
        for i, p in enumerate(pages):
            p.number = i + 1
    return PageStream(pages=pages, kind="ocr_text", declared_pages=declared, input_chars=len(text),
                      info={"markers": len(raw_pages) - 1})


def read_engine_text(text: str, engine: str) -> PageStream:
    """Markdown-writing OCR engines (MinerU, marker, docling, Nougat, olmOCR, PaddleOCR-VL,
    Mistral, DeepSeek-OCR ...) -> pages of clean Markdown, read by the Markdown road of the
    blocks stage. See :mod:`ctxmill.sources.engines` for what is cleaned per engine."""
    from ctxmill.sources.engines import to_pages

    et = to_pages(text, engine)
    pages: list[Page] = []
    for i, (num, body) in enumerate(et.pages):
        pages.append(Page(number=i + 1, lines=text_lines(list(map(str.rstrip, body.split("\n")))),
                          has_text_layer=True, ocr=True, printed_number=str(num) if num is not None else None))
    if not any(ln.text.strip() and not re.fullmatch(r"\s*!\[[^\]]*\]\([^)]*\)\s*", ln.text)
               for p in pages for ln in p.lines):  # image placeholders alone are no document
        from ctxmill.errors import InputRefused

        raise InputRefused(f"{engine} output holds no text once its page markers and markup are removed")
    # kind "markdown": the blocks stage reads its Markdown syntax; source.engine says who wrote it
    stream = PageStream(pages=pages, kind="markdown", declared_pages=len(pages), input_chars=len(text),
                        info={"engine": engine, "markers": max(0, len(pages) - 1), **et.info})
    stream.missing_pages = list(et.missing_pages)
    stream.removed = [{"page": k + 1, "reason": reason, "text": piece} for k, reason, piece in et.removed]
    for n in et.missing_pages:
        stream.warnings.append(f"page {n} is missing from the OCR text (the engine marked it as not recognised)")
    if et.info.get("bibtex_title") or et.info.get("title"):  # (a wrapper's bibtex, a reader's title page)
        stream.info.setdefault("Title", et.info.get("bibtex_title") or et.info["title"])
    return stream
