"""ALTO XML (Library of Congress; ABBYY FineReader, Tesseract ``-c tessedit_create_alto``, Kraken, eScriptorium
and most library OCR pipelines write it) -> labelled blocks in reading order.

An ``alto`` root (namespaced ``http://www.loc.gov/standards/alto/ns-v2#`` .. ``ns-v4#``, or not) holds
``Description`` (``OCRProcessing`` / ``Processing``: the engine's name and version), ``Styles`` and
``Layout``: one ``Page`` an image, its ``TopMargin`` .. ``PrintSpace`` holding ``TextBlock``s (inside
``ComposedBlock``s too) of ``TextLine``s of ``String`` elements whose words are their ``CONTENT``
attributes, ``SP`` between them and ``HYP`` for the hyphen at a line end (or a ``String`` marked
``SUBS_TYPE="HypPart1"``). A text block is one paragraph, its lines joined, a word hyphenated at a line
end joined again; a block that is only a number (the folio), or one in the top or bottom margin, is page
furniture (removed.json); each page after the first starts on a new page.

The XML is parsed by :func:`parse`, which reads no document type declaration: an entity (the
"billion laughs", an external file) is never expanded; such input is refused.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ctxmill.errors import InputRefused

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page
_NS = re.compile(r"\{[^}]*\}")
_DTD = re.compile(r"<!DOCTYPE|<!ENTITY", re.I)
_FOLIO = re.compile(r"[-–—]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?", re.I)
# a word's last character that is a hyphen at a line end (ABBYY writes a soft hyphen as the HYP)
_HYPHENS = ("-", "\u00ad", "‐")


def parse(text: str, what: str) -> ET.Element | None:
    """The XML tree with its namespaces taken off the tag names. XML that does not parse (cut short) gives
    the tree read up to the fault (its complete elements are read as any others); None where not even
    its root was read. XML that declares a document type or entities is refused: no OCR engine writes
    one, and an entity expanded is the billion-laughs and external-file attack."""
    if _DTD.search(text):
        raise InputRefused(f"{what} declares a document type or entities (<!DOCTYPE / <!ENTITY), "
                           "which are not read: entities are never expanded")
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):  # (ValueError: a character XML cannot hold)
        root = _read_to_fault(text)
        if root is None:
            return None
    for el in root.iter():
        if isinstance(el.tag, str):
            el.tag = _NS.sub("", el.tag)
    return root


def _read_to_fault(text: str) -> ET.Element | None:
    """The tree a pull parser has built when it meets the fault."""
    parser = ET.XMLPullParser(events=("start",))
    root = None
    try:
        parser.feed(text)
        for _, el in parser.read_events():
            root = el if root is None else root
    except (ET.ParseError, ValueError):
        pass
    try:
        for _, el in parser.read_events():
            root = el if root is None else root
    except (ET.ParseError, ValueError):
        pass
    return root


def maker(root: ET.Element) -> str:
    """The software the ALTO names (``softwareName`` and ``softwareVersion``), or ""."""
    for soft in root.iter("processingSoftware"):
        name = " ".join((soft.findtext("softwareName") or "").split())
        version = " ".join((soft.findtext("softwareVersion") or "").split())
        if name:
            return f"{name} {version}".strip()
    return ""


def _lines(block: ET.Element) -> list[list[str]]:
    """The words of each TextLine of a block; a line-end hyphen (HYP, or HypPart1) kept on its word."""
    out = []
    for line in block.iter("TextLine"):
        words: list[str] = []
        for el in line:
            if el.tag == "String":
                content = " ".join((el.get("CONTENT") or "").split())
                if content:
                    words.append(content)
                if el.get("SUBS_TYPE") == "HypPart1" and words and not words[-1].endswith(_HYPHENS):
                    words[-1] += "-"
            elif el.tag == "HYP" and words and not words[-1].endswith(_HYPHENS):
                words[-1] += "-"
        if words:
            out.append(words)
    return out


def _paragraph(lines: list[list[str]]) -> str:
    """The lines of a block as one paragraph: a word broken at a line end (``Zell-`` / ``kern``) joined."""
    text = ""
    for words in lines:
        line = " ".join(words)
        if text.endswith(_HYPHENS) and text[-2:-1].isalpha() and line[:1].isalpha():
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return text


def furniture(page: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A page's blocks with the folio and the running head marked as page furniture: at the page's top or
    foot (before its first block of prose, after its last), a block that is only a number, or a short
    one whose characters are mostly no letters (a running head the OCR read as noise, ``ss ( 0)8``)."""
    def noise(body: str) -> bool:
        ink = [c for c in body if not c.isspace()]
        return bool(_FOLIO.fullmatch(body)) or (len(body) <= 40 and sum(map(str.isalpha, ink)) * 2 < len(ink))

    out = list(page)
    for order in (range(len(out)), range(len(out) - 1, -1, -1)):
        for k in order:
            kind, body = out[k]
            if kind != "text":
                continue
            if not noise(body):
                break
            out[k] = ("page_footer" if _FOLIO.fullmatch(body) or order.step < 0 else "page_header", body)
    return out


def paged_blocks(text: str, what: str, read_page) -> list[tuple[str, str]]:
    """The blocks of a page-image XML file (ALTO, PAGE): ``read_page(page)``'s blocks of each ``Page`` (the root
    where none is named), the page's furniture marked, each page after the first on a new page."""
    root = parse(text, what)
    if root is None:
        return []
    out: list[tuple[str, str]] = []
    for k, page in enumerate(list(root.iter("Page")) or [root]):
        if k:
            out.append((PAGE_BREAK, ""))
        out += furniture(read_page(page))
    return out


def _page_blocks(page: ET.Element) -> list[tuple[str, str]]:
    """A page's text blocks, one paragraph each; those in the top or bottom margin are running heads / feet."""
    found: list[tuple[str, str]] = []
    for area in page:
        margin = {"TopMargin": "page_header", "BottomMargin": "page_footer"}.get(area.tag)
        for block in area.iter("TextBlock"):
            body = _paragraph(_lines(block))
            if body:
                found.append((margin or "text", body))
    return found


def blocks(text: str) -> list[tuple[str, str]]:
    """The blocks of an ALTO file."""
    return paged_blocks(text, "the ALTO XML", _page_blocks)
