"""Azure AI Document Intelligence's analyze result JSON (the prebuilt-layout / prebuilt-read models,
API 2023-07-31 and later) -> labelled blocks in reading order.

An ``analyzeResult`` (bare, or inside the operation's ``{"status": "succeeded", "analyzeResult": ...}``)
holds the whole text in ``content`` and lists ``paragraphs`` in reading order, each with its ``content``,
its ``spans`` (offsets into ``content``), its ``boundingRegions`` (page numbers) and, where the model
knows it, a ``role``: ``title``, ``sectionHeading``, ``pageHeader``, ``pageFooter``, ``pageNumber``,
``footnote``, ``formulaBlock``. ``tables`` hold ``cells`` (``rowIndex``, ``columnIndex``, ``rowSpan``,
``columnSpan``, ``content``, ``kind`` ``columnHeader``) and ``spans``; a table's cells are paragraphs too,
so the paragraphs inside a table's spans are written as that table, once, where its first one stands.

:func:`blocks` gives ``(category, text)`` pairs as engines.py's other layout readers do; page headers,
footers and numbers go to removed.json.
"""

from __future__ import annotations

import bisect

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page
_ROLES = {"title": "title", "sectionHeading": "section_header", "pageHeader": "page_header",
          "pageFooter": "page_footer", "pageNumber": "page_footer", "footnote": "footnote",
          "formulaBlock": "formula"}


def result(data):
    """The analyze result of a parsed JSON value, or None."""
    if isinstance(data, dict) and isinstance(data.get("analyzeResult"), dict):
        data = data["analyzeResult"]
    if isinstance(data, dict) and isinstance(data.get("paragraphs"), list) and isinstance(data.get("content"), str):
        return data
    return None


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**9 else None


def _start(item: dict) -> int | None:
    spans = item.get("spans")
    if isinstance(spans, list) and spans and isinstance(spans[0], dict):
        return _int(spans[0].get("offset"))
    return None


def _extent(item: dict) -> tuple[int, int] | None:
    spans = [s for s in item.get("spans") or [] if isinstance(s, dict)]
    ends = [(_int(s.get("offset")), _int(s.get("length"))) for s in spans]
    ends = [(a, a + n) for a, n in ends if a is not None and n is not None]
    return (min(a for a, _ in ends), max(b for _, b in ends)) if ends else None


def _page(item: dict) -> int | None:
    regions = item.get("boundingRegions")
    if isinstance(regions, list) and regions and isinstance(regions[0], dict):
        return _int(regions[0].get("pageNumber"))
    return None


def _table_rows(table: dict) -> list[list[tuple[str, int, int, bool]]]:
    placed: dict[tuple[int, int], tuple[str, int, int, bool]] = {}
    covered: set[tuple[int, int]] = set()
    for c in table.get("cells") or []:
        if not isinstance(c, dict):
            continue
        r, col = _int(c.get("rowIndex")), _int(c.get("columnIndex"))
        if r is None or col is None or r >= 10_000 or col >= 10_000 or (r, col) in placed or (r, col) in covered:
            continue
        rs, cs = min(_int(c.get("rowSpan")) or 1, 50), min(_int(c.get("columnSpan")) or 1, 50)
        text = c.get("content") if isinstance(c.get("content"), str) else ""
        placed[(r, col)] = (text, rs, cs, c.get("kind") == "columnHeader")
        covered.update((r + i, col + j) for i in range(rs) for j in range(cs) if i or j)
    return [[placed[k] for k in sorted(k for k in placed if k[0] == r)] for r in sorted({r for r, _ in placed})]


def blocks(data) -> list[tuple[str, str]]:
    """The blocks of an analyze result (already parsed JSON), a page break where the page changes."""
    from ctxmill.sources.tables import html_table

    res = result(data) or {}
    tables = [t for t in res.get("tables") or [] if isinstance(t, dict) and _extent(t)]
    tables.sort(key=lambda t: _extent(t)[0])
    starts = [_extent(t)[0] for t in tables]
    written: set[int] = set()
    out: list[tuple[str, str]] = []
    last_page = None

    def turn(page: int | None) -> None:
        nonlocal last_page
        if page is not None and last_page is not None and page != last_page and out:
            out.append((PAGE_BREAK, ""))
        last_page = page if page is not None else last_page

    for p in res.get("paragraphs") or []:
        if not isinstance(p, dict) or not isinstance(p.get("content"), str):
            continue
        at = _start(p)
        k = bisect.bisect_right(starts, at) - 1 if at is not None else -1
        if k >= 0 and at < _extent(tables[k])[1]:  # a cell's paragraph: the table, once
            if k not in written:
                written.add(k)
                turn(_page(tables[k]))  # (its caption is a paragraph of its own, outside its spans)
                rows = _table_rows(tables[k])
                if rows:
                    out.append(("table", html_table(rows)))
            continue
        if not p["content"].strip():
            continue
        turn(_page(p))
        out.append((_ROLES.get(str(p.get("role") or ""), "text"), p["content"]))
    for k, t in enumerate(tables):  # a table no paragraph points into: after the text
        if k not in written and (rows := _table_rows(t)):
            out.append(("table", html_table(rows)))
    return out
