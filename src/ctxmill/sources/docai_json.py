"""Google Cloud Document AI's ``Document`` JSON -> page text or labelled blocks.

Two shapes, told apart by their keys (the REST API's camelCase or the Python client's snake_case,
bare or inside a ``ProcessResponse``'s ``document``):

- the OCR processors' (Document OCR, Form Parser, the specialised parsers): the whole text in one
  ``text`` string, each page a ``pages[]`` entry whose ``layout.textAnchor.textSegments`` give its
  span of that text as offsets; a page's ``paragraphs`` (where the processor found them) the
  same way. :func:`ocr_text` gives the text a page a form feed apart, a blank line between the
  paragraphs the engine found, for the plain-text road (engine "text").
- the Layout Parser's: ``documentLayout.blocks[]``, each a ``textBlock`` (``text``, ``type``:
  ``heading-1`` .. ``heading-6``, ``paragraph``, ``header``, ``footer``, ``title``; nested
  ``blocks``), a ``tableBlock`` (``headerRows`` / ``bodyRows`` of ``cells`` holding blocks) or a
  ``listBlock``, with its ``pageSpan``. :func:`layout_blocks` gives ``(category, text)`` pairs as
  engines.py's other layout readers do. (The ``chunkedDocument`` repeats the same text as chunks
  for retrieval: not read.)

In both, a line or block that opens or closes three pages or more with the same words (a running
head, a scanner's stamp) or is a bare page number there is furniture, whatever the engine typed
it: it goes to removed.json. The Layout Parser types a running head as a heading as readily as a
chapter's title; the test is the one the PDF road makes (repeated at the page's edge).
"""

from __future__ import annotations

import re
from collections import Counter

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page
_FOLIO = re.compile(r"[-–—]?\s*(?:\d{1,4}|[ivxlcdmIVXLCDM]{1,7})\s*[-–—]?")
_HEADING = re.compile(r"heading-([1-6])")
_ORNAMENT = re.compile(r"[*∗⁂·•~\s]+")
_CHAPTER = re.compile(r"(?:CHAPTER|Chapter|PART|Part)\s+(?:[IVXLC]{1,7}|\d{1,3})\.?")


def _get(d, *names):
    """The value under the first of ``names`` (camelCase, snake_case) that ``d`` has."""
    if isinstance(d, dict):
        for n in names:
            if n in d:
                return d[n]
    return None


def document(data):
    """The Document of a parsed JSON value (a ProcessResponse's ``document`` unwrapped), or None."""
    if isinstance(data, dict) and isinstance(data.get("document"), dict):
        data = data["document"]
    return data if isinstance(data, dict) else None


def shape(data) -> str | None:
    """"layout" (documentLayout blocks), "ocr" (text + pages with text anchors) or None."""
    doc = document(data)
    if doc is None:
        return None
    layout = _get(doc, "documentLayout", "document_layout")
    if isinstance(layout, dict) and isinstance(layout.get("blocks"), list):
        return "layout"
    pages = doc.get("pages")
    if isinstance(doc.get("text"), str) and isinstance(pages, list) and any(
            isinstance(_get(_get(p, "layout"), "textAnchor", "text_anchor"), dict) for p in pages[:50]):
        return "ocr"
    return None


def _int(v) -> int | None:
    """An offset: Document AI writes int64 as a string ("141"); a missing startIndex is 0."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.isdigit() and len(v) <= 12:
        return int(v)
    return None


def _spans(layout, n: int) -> list[tuple[int, int]]:
    anchor = _get(layout, "textAnchor", "text_anchor")
    out = []
    for seg in _get(anchor, "textSegments", "text_segments") or []:
        a = _int(_get(seg, "startIndex", "start_index")) if _get(seg, "startIndex", "start_index") is not None else 0
        b = _int(_get(seg, "endIndex", "end_index"))
        if a is not None and b is not None and 0 <= a < b <= n:
            out.append((a, b))
    return out


def ocr_text(data) -> tuple[str, str | None]:
    """The OCR shape's text, one page after another a form feed apart; the engine's paragraphs a
    blank line apart where it gives them; the lines that are page furniture marked as removed
    (:func:`furniture`); and the title where a title page shows one (:func:`_title`). Text no
    page's anchor covers is kept after the last page."""
    doc = document(data) or {}
    text = doc.get("text") if isinstance(doc.get("text"), str) else ""
    text = text.replace("\x00", "")  # (the mark of a removed line below: none of the engine's own)
    pages: list[list[str]] = []
    covered: list[tuple[int, int]] = []
    for p in doc.get("pages") or []:
        spans = _spans(_get(p, "layout"), len(text))
        if not spans:
            continue
        covered += spans
        paras = []
        for para in p.get("paragraphs") or [] if isinstance(p, dict) else []:
            paras += _spans(_get(para, "layout"), len(text))
        if paras:
            paras.sort()
            lines: list[str] = []
            at = spans[0][0]
            for a, b in paras:
                if a < at:
                    continue
                lines += text[at:a].split("\n")  # (text between paragraphs: kept as lines)
                lines += text[a:b].split("\n") + [""]
                at = b
            end = max(b for _, b in spans)
            lines += text[at:end].split("\n")
        else:
            lines = "".join(text[a:b] for a, b in spans).split("\n")
        pages.append(lines)
    if not pages:
        return text, None
    # (text between or after the pages' spans: the engine's, so kept, on the last page)
    covered.sort()
    at, rest = 0, []
    for a, b in covered:
        if a > at and text[at:a].strip():
            rest.append(text[at:a])
        at = max(at, b)
    if text[at:].strip():
        rest.append(text[at:])
    if rest:
        pages[-1] += "\n".join(rest).split("\n")
    title = _title(pages)
    pages = furniture(pages)
    if title is not None and sum(len(s.split()) for s in pages[0]) <= 60:
        # a title page (a few short lines: the title, a byline, a publisher): each line a paragraph
        pages[0] = [x for s in pages[0] for x in (s, "")]
    return PAGE_BREAK.join("\n".join(lines) for lines in pages), title


def _title(pages: list[list[str]]) -> str | None:
    """The first page's first line where the running heads of the later pages repeat it (a book's
    title page)."""
    if len(pages) < 2:
        return None
    first = next((s.strip() for s in pages[0] if s.strip()), "")
    return " ".join(first.split()) if first and _key(first) in running(pages) else None


def _key(s: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", s.lower()).split())


def _edges(items: list[str], k: int = 2) -> list[int]:
    """The indexes of the first and last ``k`` non-blank items of a page."""
    idx = [i for i, s in enumerate(items) if s.strip()]
    return sorted(set(idx[:k] + idx[-k:]))


def running(pages: list[list[str]]) -> set[str]:
    """The keys of texts that open or close three pages or more (at least half of them when the
    output has fewer than six): running heads, stamps."""
    seen: Counter = Counter()
    for items in pages:
        seen.update({_key(items[i]) for i in _edges(items) if _key(items[i]) and not _FOLIO.fullmatch(items[i].strip())})
    need = 3 if len(pages) >= 6 else max(2, (len(pages) + 1) // 2)
    return {k for k, c in seen.items() if c >= need and len(k) <= 80}


def furniture(pages: list[list[str]]) -> list[list[str]]:
    """Each page's lines with its running heads, stamps and folios at its edges marked as removed
    (engines._removed_line's form: a NUL, the reason, a NUL, the text). A line of a running head's
    words elsewhere on a page is one too (the engine's reading order may put it after the page's
    first line); on the first page the first line is the title the running heads repeat, and
    stays. A short line that names a chapter or a standard section among a page's first lines is
    written as a heading."""
    from ctxmill.sources.engines import KNOWN_HEADINGS

    heads = running(pages) if len(pages) >= 2 else set()
    out = []
    for p, items in enumerate(pages):
        items = list(items)
        first = next((i for i, s in enumerate(items) if s.strip()), None)
        for i, line in enumerate(items):
            s = line.strip()
            if not s:
                continue
            if p == 0 and i == first and _key(s) in heads:
                continue  # (the title: ocr_text says so)
            elif i in _edges(items, 3) and _FOLIO.fullmatch(s) and len(pages) >= 2:
                items[i] = f"\x00page-number\x00{s}"
            elif _key(s) in heads:
                items[i] = f"\x00running-head\x00{' '.join(s.split())}"
        body = [i for i, s in enumerate(items) if s.strip() and s[:1] not in "\x00#"]
        for i in body[:3]:
            s = " ".join(items[i].split())
            if len(s) <= 40 and (_CHAPTER.fullmatch(s) or _key(s) in KNOWN_HEADINGS):
                items[i] = "## " + s
        out.append(items)
    return out


# ------------------------------------------------------------------ the Layout Parser's blocks

def layout_blocks(data) -> list[tuple[str, str]]:
    """The Layout Parser's blocks in reading order, a page break where a block starts a new page."""
    doc = document(data) or {}
    layout = _get(doc, "documentLayout", "document_layout") or {}
    flat: list[tuple[int | None, str, str]] = []  # (page, category, text)
    todo = list(reversed(layout.get("blocks") or []))
    while todo:  # (a stack: nesting 10,000 deep is a long walk, not a crash)
        b = todo.pop()
        if not isinstance(b, dict):
            continue
        span = _get(b, "pageSpan", "page_span")
        page = _int(_get(span, "pageStart", "page_start"))
        tb, table, lst = _get(b, "textBlock", "text_block"), _get(b, "tableBlock", "table_block"), \
            _get(b, "listBlock", "list_block")
        if isinstance(tb, dict):
            text = tb.get("text") if isinstance(tb.get("text"), str) else ""
            kind = str(tb.get("type") or "paragraph").lower()
            m = _HEADING.fullmatch(kind)
            if text.strip():
                if m:
                    flat.append((page, "heading", f"{m.group(1)}\t{text}"))
                elif kind in ("header", "footer", "title"):
                    flat.append((page, {"header": "page_header", "footer": "page_footer"}.get(kind, kind), text))
                else:
                    flat.append((page, "text", text))
            todo += reversed([c for c in tb.get("blocks") or [] if isinstance(c, dict)])
        elif isinstance(table, dict):
            rows = []
            for key in (("headerRows", "header_rows"), ("bodyRows", "body_rows")):
                for row in _get(table, *key) or []:
                    cells = []
                    for cell in _get(row, "cells") or []:
                        words = " ".join(t for _, _, t in _texts(_get(cell, "blocks") or []))
                        rs = _int(_get(cell, "rowSpan", "row_span")) or 1
                        cs = _int(_get(cell, "colSpan", "col_span")) or 1
                        cells.append((words, min(rs, 50), min(cs, 50), key[0] == "headerRows"))
                    if cells:
                        rows.append(cells)
            caption = table.get("caption") if isinstance(table.get("caption"), str) else ""
            if caption.strip():
                flat.append((page, "caption", caption))
            if rows:
                from ctxmill.sources.tables import html_table

                flat.append((page, "table", html_table(rows)))
        elif isinstance(lst, dict):
            for entry in _get(lst, "listEntries", "list_entries") or []:
                words = " ".join(t for _, _, t in _texts(_get(entry, "blocks") or []))
                if words.strip():
                    flat.append((page, "list_item", words if re.match(r"(?:[-•*]|\(?\w{1,3}[.)])\s", words)
                                 else "- " + words))
    return _layout_out(flat)


def _texts(blocks: list) -> list[tuple[int | None, str, str]]:
    out = []
    todo = list(reversed(blocks))
    while todo:
        b = todo.pop()
        tb = _get(b, "textBlock", "text_block")
        if isinstance(tb, dict):
            if isinstance(tb.get("text"), str) and tb["text"].strip():
                out.append((None, "text", " ".join(tb["text"].split())))
            todo += reversed([c for c in tb.get("blocks") or [] if isinstance(c, dict)])
    return out


def _layout_out(flat: list[tuple[int | None, str, str]]) -> list[tuple[str, str]]:
    by_page: dict[int | None, list[int]] = {}
    for k, (page, _, _) in enumerate(flat):
        by_page.setdefault(page, []).append(k)
    pages = [[_plain(flat[k]) for k in ks] for ks in by_page.values()]
    heads = running(pages) if len(pages) >= 2 else set()
    edge: dict[int, str] = {}  # index into flat -> why it is furniture
    for ks in by_page.values():
        items = [_plain(flat[k]) for k in ks]
        for i in _edges(items, 3):
            s = items[i].strip()
            if len(by_page) >= 2 and _FOLIO.fullmatch(s):
                edge[ks[i]] = "page-number"
            elif _key(s) in heads:
                edge[ks[i]] = "running-head"
    out: list[tuple[str, str]] = []
    last = None
    for k, (page, cat, text) in enumerate(flat):
        if page is not None and last is not None and page != last and out:
            out.append((PAGE_BREAK, ""))
        last = page if page is not None else last
        if k in edge or (cat == "heading" and _key(_plain(flat[k])) in heads):
            # (a heading repeating a running head is one too: the Layout Parser types the book's
            # title at a page's top 'heading-1'); its words to removed.json
            out.append(("page_header", _plain(flat[k])))
        elif cat == "text" and _ORNAMENT.fullmatch(text.strip()):
            out.append(("discarded", text))  # (a row of stars between scenes: an ornament, no text)
        elif cat == "heading":
            level, _, t = text.partition("\t")
            out.append(("text", "#" * min(6, int(level) + 1) + " " + " ".join(t.split())))
        else:
            out.append((cat, text))
    return out


def _plain(item: tuple[int | None, str, str]) -> str:
    _, cat, text = item
    return text.partition("\t")[2] if cat == "heading" else text
