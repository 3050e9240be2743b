"""Adobe PDF Extract API's ``structuredData.json`` -> labelled blocks in reading order.

The Extract API writes one object: ``version`` (``json_export``, ``structure``, ``schema`` ...),
``extended_metadata`` (``page_count``, ``pdf_version`` ...), ``pages`` (their sizes) and ``elements``, a
flat list in reading order. Each element names its place in the PDF's structure tree by a ``Path``
(``//Document/Title``, ``//Document/H1[4]``, ``//Document/Sect[3]/Sect/H2``, ``//Document/L/LI/LBody``,
``//Document/Table/TR[2]/TD[3]/P``, ``//Document/Footnote``) and holds its ``Text`` and its ``Page``
(from 0), or, where the style changes inside it, ``Kids``: the pieces in order, each with its own
Path (``.../P[4]/StyleSpan``, ``.../P[4]/HyphenSpan`` for the hyphen at a line end, ``.../LI/Lbl`` for a
list item's bullet), whose texts run together as Adobe cut them (``CO`` + ``2``).

A piece belongs to the block named by the last block tag of its Path (a paragraph, a heading, a list
item, a table cell, a footnote); pieces of one block, consecutive, are one block. ``H1`` .. ``H6`` are
written as Markdown headings at their depth (``H1`` a section, ``##``), the ``Title`` as the title; a
heading right after the title that lists people's names is the byline Adobe tagged as a heading, and a
heading right after a ``Keywords`` head is the keywords themselves: both are text. A line-end hyphen
(``HyphenSpan``) joins its word's halves. A table's cells are gathered into one table. Nothing Adobe
wrote is dropped: every piece's text is in a block.
"""

from __future__ import annotations

import re

from ctxmill.sources.tables import html_table

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page
# the tags that make a block of their own (the others, Span, StyleSpan, ParagraphSpan, Sub, Reference,
# Link, Lbl, LBody, ExtraCharSpan, HyphenSpan, are pieces of the block above them)
_BLOCK_TAGS = {"Title", "H", "H1", "H2", "H3", "H4", "H5", "H6", "P", "LI", "TD", "TH", "Footnote", "Caption",
               "TOCI", "Figure", "Formula", "Aside", "Note", "BibEntry", "Code", "Quote", "BlockQuote"}
_SEGMENT = re.compile(r"([A-Za-z][A-Za-z0-9]*)(?:\[(\d{1,9})\])?")
_HEADING_TAG = re.compile(r"H([1-6])?")
_BULLET = re.compile(r"[•◦▪▫‣∙·●○■□➢►\-–—*]\s*")
_LABEL = re.compile(r"\(?[0-9A-Za-z]{1,3}[.)]")
_NAME = re.compile(r"(?:[A-Z][\w'’\-]*\.?|[A-Z]\.)(?:\s+(?:[A-Z][\w'’\-]*\.?|[A-Z]\.|van|von|de|der|da|di|del|la|le)){1,4}")
_KEYWORDS = {"keywords", "key words", "index terms", "keyword"}
_MAX_DEPTH = 200  # Kids nested deeper than any structure tree Adobe writes: their text is read flat


def elements(data) -> list | None:
    """The element list of a parsed structuredData.json, or None when ``data`` is not one: an object
    whose ``elements`` are objects with a ``//Document`` Path, beside Adobe's ``version`` record or its
    ``extended_metadata``."""
    if not isinstance(data, dict) or not isinstance(data.get("elements"), list):
        return None
    version = data.get("version")
    if not (isinstance(version, dict) and "json_export" in version) and not isinstance(
            data.get("extended_metadata"), dict):
        return None
    els = [e for e in data["elements"][:50] if isinstance(e, dict)]
    if not els or not all(isinstance(e.get("Path"), str) and e["Path"].startswith("//Document") for e in els):
        return None
    return data["elements"]


def maker(data) -> str:
    """Adobe's own record of the export (``json_export 171, structure 1.939.0``), or ""."""
    version = data.get("version") if isinstance(data, dict) else None
    if not isinstance(version, dict):
        return ""
    return ", ".join(f"{k} {v}" for k, v in version.items() if isinstance(v, (str, int)) and k in
                     ("json_export", "structure"))


def _segments(path: str) -> list[tuple[str, str]]:
    """``//Document/Sect[3]/H2`` -> [("Document", ""), ("Sect", "3"), ("H2", "")]."""
    return [(m.group(1), m.group(2) or "") for m in map(_SEGMENT.fullmatch, path.strip("/").split("/")) if m]


def _block_of(path: str) -> tuple[str, str]:
    """(the Path of the block a piece belongs to, that block's tag)."""
    segs = _segments(path)
    last = max((k for k, (tag, _) in enumerate(segs) if tag in _BLOCK_TAGS), default=len(segs) - 1)
    if last < 0:
        return path, ""
    # a list item's own text is its label and its body (Lbl, LBody); a paragraph inside the body
    # (LBody/P) is a block of its own, and so is a nested list's item (LBody/L/LI)
    key = "/".join(t + (f"[{n}]" if n else "") for t, n in segs[:last + 1])
    return key, segs[last][0]


def _leaves(elements: list):
    """(path, text, page, is_hyphen) of every piece with text, and (path, None, page, False) of a
    figure, in order (Kids read depth first, without recursion)."""
    stack = [(e, 0) for e in reversed(elements)]
    while stack:
        e, depth = stack.pop()
        if not isinstance(e, dict):
            continue
        path = e.get("Path") if isinstance(e.get("Path"), str) else ""
        page = e.get("Page") if isinstance(e.get("Page"), int) and not isinstance(e.get("Page"), bool) else None
        text = e.get("Text")
        kids = e.get("Kids")
        if isinstance(text, str):
            tail = path.rsplit("/", 1)[-1]
            yield path, text, page, tail.startswith("HyphenSpan") and text.strip() in ("-", "\u00ad", "‐")
        elif not isinstance(kids, list) and re.search(r"/Figure(?:\[\d+\])?$", path):
            yield path, None, page, False
        if isinstance(kids, list) and depth < _MAX_DEPTH:
            stack.extend((k, depth + 1) for k in reversed(kids))


def _join(pieces: list[tuple[str, bool]]) -> str:
    """The pieces' texts run together; a line-end hyphen joins the halves of its word."""
    out = ""
    hyphen = False
    for text, is_hyphen in pieces:
        if is_hyphen:
            hyphen = True
            continue
        if hyphen and out and out[-1:].isalpha() and text[:1].isalpha():
            out = out.rstrip() + text.lstrip()
        else:
            out += ("-" if hyphen else "") + text
        hyphen = False
    if hyphen:
        out += "-"
    return " ".join(out.split())


def _names(text: str) -> bool:
    """Whether ``text`` is a list of people's names (a byline): two or more names apart by commas or
    "and", each two to five capitalised words; no digit, no sentence."""
    text = re.sub(r"[∗*†‡§¶]+|\s\d{1,2}(?=,|$)", "", text).strip().rstrip(",")
    if not text or re.search(r"\d|[:;!?]", text):
        return False
    parts = [p.strip() for p in re.split(r",|\band\b|&", text) if p.strip()]
    return len(parts) >= 2 and all(_NAME.fullmatch(p) for p in parts)


def _list_item(text: str) -> str:
    m = _BULLET.match(text)
    if m and not _LABEL.match(text):
        return "- " + text[m.end():]
    return text if _LABEL.match(text) else "- " + text


def _table(cells: list[tuple[str, str, str]]) -> str:
    """cells: (row key, cell key, text) in order -> an HTML table (engines reads it as a table)."""
    rows: dict[str, dict[str, list[str]]] = {}
    for row, cell, text in cells:
        rows.setdefault(row, {}).setdefault(cell, []).append(text)
    grid = [[(" ".join(t for t in texts if t), 1, 1, False) for texts in r.values()] for r in rows.values()]
    return html_table([r for r in grid if any(t for t, *_ in r)]) if grid else ""


def blocks(data) -> list[tuple[str, str]]:
    """The blocks of an Adobe PDF Extract structuredData.json (already parsed JSON)."""
    els = elements(data)
    if els is None:
        return []
    # the pieces grouped into blocks: (key, tag, page, [(text, is_hyphen)]) in reading order
    grouped: list[tuple[str, str, int | None, list[tuple[str, bool]]]] = []
    for path, text, page, is_hyphen in _leaves(els):
        if text is None:
            grouped.append((path, "Figure", page, []))
            continue
        key, tag = _block_of(path)
        if grouped and grouped[-1][0] == key and tag != "Figure":
            grouped[-1][3].append((text, is_hyphen))
        else:
            grouped.append((key, tag, page, [(text, is_hyphen)]))
    out: list[tuple[str, str]] = []
    last_page: int | None = None
    previous = ""  # what the block before was: "title", "keywords", or ""
    table: tuple[str, list[tuple[str, str, str]]] | None = None

    def flush_table() -> None:
        nonlocal table
        if table is not None:
            html = _table(table[1])
            if html:
                out.append(("table", html))
            table = None

    for key, tag, page, pieces in grouped:
        text = _join(pieces)
        if page is not None and last_page is not None and page > last_page:
            flush_table()
            out.append((PAGE_BREAK, ""))
        if page is not None:
            last_page = page if last_page is None else max(last_page, page)
        segs = _segments(key)
        t_at = next((k for k, (t, _) in enumerate(segs) if t == "Table"), None)
        if t_at is not None and tag in ("TD", "TH", "P", "LI", "H", "H1", "H2", "H3", "H4", "H5", "H6"):
            # a table's cell (or a paragraph inside one): gathered by its table, row and cell
            tkey = "/".join(t + (f"[{n}]" if n else "") for t, n in segs[:t_at + 1])
            row = next((f"{t}[{n}]" for t, n in segs[t_at + 1:] if t == "TR"), "")
            cell = "/".join(f"{t}[{n}]" for t, n in segs[t_at + 1:] if t in ("TR", "TD", "TH"))
            if table is None or table[0] != tkey:
                flush_table()
                table = (tkey, [])
            table[1].append((row, cell, text))
            continue
        flush_table()
        if tag == "Figure":
            out.append(("image", ""))
            if text:
                out.append(("text", text))
            continue
        if not text:
            continue
        m = _HEADING_TAG.fullmatch(tag)
        if tag == "Title":
            out.append(("title", text))
            previous = "title"
            continue
        if m:
            name = " ".join(re.sub(r"[^\w ]+", " ", text.lower()).split())
            if previous == "title" and _names(text):
                out.append(("text", text))  # a byline Adobe tagged as a heading
                previous = ""
                continue
            if previous == "keywords" and name not in _KEYWORDS:
                out.append(("text", text))  # the keywords themselves, tagged one level below their head
                previous = ""
                continue
            level = int(m.group(1) or 1)
            out.append(("text", "#" * min(6, level + 1) + " " + text))
            previous = "keywords" if name in _KEYWORDS else ""
            continue
        previous = ""
        if tag == "LI":
            out.append(("list_item", _list_item(text)))
        elif tag == "Footnote":
            out.append(("footnote", text))
        elif tag == "Caption":
            out.append(("caption", text))
        elif tag == "Formula":
            out.append(("formula", text))
        else:
            out.append(("text", text))
    flush_table()
    return out
