"""PAGE XML (PRImA's Page Analysis and Ground-truth Elements: OCR-D, Calamari, Kraken, Transkribus, Tesseract's
PAGE renderer, eScriptorium) -> labelled blocks in reading order.

A ``PcGts`` root (namespaced ``http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15`` ..
``2019-07-15``) holds ``Metadata`` (``Creator``, dates) and a ``Page`` (an image) of ``TextRegion``s (the
region's ``type``: ``paragraph``, ``heading``, ``header``, ``footer``, ``page-number``, ``caption``,
``footnote``, ``marginalia``, ``catch-word``, ``signature-mark`` ...), each of ``TextLine``s of ``Word``s of
``Glyph``s. Every level may carry a ``TextEquiv`` whose ``Unicode`` is the text read there: a region's
repeats its lines', a line's its words'. The ``ReadingOrder`` (``OrderedGroup`` of ``RegionRefIndexed``)
says the order of the regions; regions it does not name follow in the file's order.

A region is one block: its lines' texts (a line's own TextEquiv, else its words' joined by spaces; the
region's own only where it has no line text), joined, a word hyphenated with ``-`` at a line end joined
again. A heading region is a heading; a running head, a footer, a page number, a catchword and a signature
mark are page furniture (removed.json); a caption, a footnote are those. XML is read by
:func:`ctxmill.sources.alto_xml.parse` (no document type, no entity expanded).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ctxmill.sources.alto_xml import _paragraph, paged_blocks

_TYPES = {"heading": "section_header", "header": "page_header", "footer": "page_footer",
          "page-number": "page_footer", "catch-word": "page_footer", "signature-mark": "page_footer",
          "caption": "caption", "footnote": "footnote", "footnote-continued": "footnote", "endnote": "footnote"}


def maker(root: ET.Element) -> str:
    """Who wrote the file, as its Metadata says (``Creator``), or ""."""
    meta = root.find("Metadata")
    return " ".join((meta.findtext("Creator") or "").split()) if meta is not None else ""


def _equiv(el: ET.Element) -> str:
    """The element's own TextEquiv (the first by its ``index``, the engine's best reading)."""
    equivs = [e for e in el if e.tag == "TextEquiv"]
    if not equivs:
        return ""
    best = min(equivs, key=lambda e: int(e.get("index")) if (e.get("index") or "").isdigit() else 0)
    return " ".join("".join(u.text or "" for u in best if u.tag == "Unicode").split())


def _line_text(line: ET.Element) -> str:
    return _equiv(line) or " ".join(t for t in (_equiv(w) for w in line if w.tag == "Word") if t)


def _region_text(region: ET.Element) -> str:
    lines = [t for t in (_line_text(ln) for ln in region if ln.tag == "TextLine") if t]
    if lines:
        return _paragraph([[t] for t in lines])
    if any(r.tag == "TextRegion" for r in region):  # (its own reading repeats its child regions', read apart)
        return ""
    return _equiv(region)


def _order(page: ET.Element) -> list[str]:
    """The region ids in the page's reading order (RegionRefIndexed by index, RegionRef as listed)."""
    ro = page.find("ReadingOrder")
    if ro is None:
        return []
    ids: list[str] = []

    def walk(group: ET.Element) -> None:
        kids = [k for k in group if k.tag in ("RegionRefIndexed", "OrderedGroupIndexed", "UnorderedGroupIndexed",
                                              "RegionRef", "OrderedGroup", "UnorderedGroup")]
        if any(k.get("index") is not None for k in kids):
            kids.sort(key=lambda k: int(k.get("index")) if (k.get("index") or "").isdigit() else 10**9)
        for k in kids:
            if k.get("regionRef"):
                ids.append(k.get("regionRef") or "")
            if k.tag.endswith("Group") or k.tag.endswith("GroupIndexed"):
                walk(k)

    for group in ro:
        if group.get("regionRef"):  # (a group may stand for a region itself)
            ids.append(group.get("regionRef") or "")
        walk(group)
    return ids


def _page_blocks(page: ET.Element) -> list[tuple[str, str]]:
    """A page's regions in its reading order (those it does not name after, in the file's order), one block each,
    labelled by the region's type."""
    regions = [r for r in page.iter("TextRegion")]
    by_id = {r.get("id"): r for r in regions if r.get("id")}
    order = [by_id[i] for i in dict.fromkeys(_order(page)) if i in by_id]
    seen = {id(r) for r in order}
    order += [r for r in regions if id(r) not in seen]
    found: list[tuple[str, str]] = []
    for region in order:
        body = _region_text(region)
        if body:
            found.append((_TYPES.get((region.get("type") or "").strip().lower(), "text"), body))
    return found


def blocks(text: str) -> list[tuple[str, str]]:
    """The blocks of a PAGE XML file."""
    return paged_blocks(text, "the PAGE XML", _page_blocks)
