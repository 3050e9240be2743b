"""Amazon Textract's JSON response (DetectDocumentText / AnalyzeDocument) -> labelled blocks in reading order.

A response is a flat list of ``Blocks``, each with a ``BlockType`` (PAGE, LINE, WORD, TABLE, CELL,
MERGED_CELL, SELECTION_ELEMENT, LAYOUT_TITLE, LAYOUT_SECTION_HEADER, LAYOUT_TEXT, LAYOUT_LIST, LAYOUT_HEADER,
LAYOUT_FOOTER, LAYOUT_PAGE_NUMBER, LAYOUT_FIGURE, LAYOUT_TABLE, LAYOUT_KEY_VALUE ...), an ``Id``, a
``Geometry.BoundingBox`` (left, top, width, height as fractions of the page) and ``Relationships`` whose
``CHILD`` ids point at the blocks it is made of (a PAGE at its LINEs and layout blocks, a LINE at its WORDs, a
layout block at its LINEs, a TABLE at its CELLs, a CELL at its WORDs).

Where the response has layout blocks (AnalyzeDocument with the LAYOUT feature) they give the reading order and
the roles. Otherwise (DetectDocumentText: lines only, in Textract's own order, which interleaves the lines of
side-by-side columns) the order and the roles are read from the lines' geometry: the lines of the top and bottom
edge of the page set apart by a gap are its running heads and folios; rows of lines side by side are read column
by column; a vertical gap ends a paragraph; a first paragraph in clearly taller type is the title, a line that
stands alone and reads like a heading is a section heading.

:func:`blocks` gives ``(category, text)`` pairs as engines.py's other layout readers do; every LINE's text is
written somewhere (the body, a table's flat text, or the furniture that goes to removed.json).
"""

from __future__ import annotations

import bisect
import re
import statistics

from ctxmill.sources.tables import html_table

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page

# layout block types -> the block categories engines._BLOCK_LABELS reads
_LAYOUT = {"LAYOUT_TITLE": "title", "LAYOUT_SECTION_HEADER": "section_header", "LAYOUT_HEADER": "page_header",
           "LAYOUT_FOOTER": "page_footer", "LAYOUT_PAGE_NUMBER": "page_footer", "LAYOUT_TEXT": "text",
           "LAYOUT_KEY_VALUE": "text", "LAYOUT_LIST": "list", "LAYOUT_FIGURE": "image", "LAYOUT_TABLE": "table"}
_BULLET = re.compile(r"[-•·◦▪*–]\s|\(?[0-9A-Za-z]{1,3}[.)]\s")


def is_response(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("Blocks"), list)


def blocks(data) -> list[tuple[str, str]]:
    """The blocks of a Textract response (already parsed JSON; a list of responses, as an
    asynchronous job's paginated results are saved, is read as one)."""
    parts = data if isinstance(data, list) else [data]
    raw = [b for r in parts if is_response(r) for b in r["Blocks"] if isinstance(b, dict)]
    doc = _Response(raw)
    out: list[tuple[str, str]] = []
    for page in doc.pages():
        got = doc.layout_page(page) if doc.has_layout(page) else doc.geometry_page(page)
        if got and out:
            out.append((PAGE_BREAK, ""))
        out += got
    return out


def _box(b: dict) -> tuple[float, float, float, float] | None:
    """(left, top, right, bottom) of a block, None where its geometry is missing or broken."""
    g = b.get("Geometry")
    box = g.get("BoundingBox") if isinstance(g, dict) else None
    if not isinstance(box, dict):
        return None
    try:
        left, top = float(box.get("Left", 0)), float(box.get("Top", 0))
        w, h = float(box.get("Width", 0)), float(box.get("Height", 0))
    except (TypeError, ValueError):
        return None
    if not all(map(_finite, (left, top, w, h))) or w < 0 or h < 0:
        return None
    return left, top, left + w, top + h


def _finite(x: float) -> bool:
    return x == x and abs(x) < 1e6


def _text(b: dict) -> str:
    t = b.get("Text")
    return " ".join(t.split()) if isinstance(t, str) else ""


class _Response:
    def __init__(self, raw: list[dict]):
        self.raw = raw
        self.by_id = {b["Id"]: b for b in raw if isinstance(b.get("Id"), str)}
        self.used: set[int] = set()  # the LINE blocks written so far (by identity: an Id may be missing)

    def children(self, b: dict, kind: str = "CHILD") -> list[dict]:
        out = []
        for rel in b.get("Relationships") or [] if isinstance(b.get("Relationships"), list) else []:
            if isinstance(rel, dict) and rel.get("Type") == kind and isinstance(rel.get("Ids"), list):
                out += [self.by_id[i] for i in rel["Ids"] if isinstance(i, str) and i in self.by_id]
        return out

    def pages(self) -> list[list[dict]]:
        """Each page's blocks in the response's order: by a block's ``Page`` number where it has one,
        else by the PAGE block that names it as a child, else by the PAGE block before it."""
        numbers = {}  # id(PAGE block) -> its page number (its own, else its place among the PAGE blocks)
        for k, b in enumerate(x for x in self.raw if x.get("BlockType") == "PAGE"):
            numbers[id(b)] = _index(b, "Page") or k + 1
        owner: dict[str, int] = {}
        for b in self.raw:
            if id(b) in numbers:
                for c in self.children(b):
                    owner.setdefault(c.get("Id"), numbers[id(b)])
        pages: dict[int, list[dict]] = {}
        last = 1
        for b in self.raw:
            kind = b.get("BlockType")
            if id(b) in numbers:
                last = numbers[id(b)]
            elif kind in ("LINE", "TABLE") or (isinstance(kind, str) and kind.startswith("LAYOUT_")):
                pages.setdefault(_index(b, "Page") or owner.get(b.get("Id")) or last, []).append(b)
        return [pages[k] for k in sorted(pages)]

    def has_layout(self, page: list[dict]) -> bool:
        return any(str(b.get("BlockType", "")).startswith("LAYOUT_") for b in page)

    def lines_of(self, b: dict) -> list[dict]:
        """The LINE blocks under a block (through a LAYOUT_LIST's items), each once (a stack and a
        seen set: a broken response whose layout blocks point at each other is walked once)."""
        out, seen = [], {id(b)}
        todo = list(reversed(self.children(b)))
        while todo:
            c = todo.pop()
            kind = c.get("BlockType")
            if kind == "LINE" and id(c) not in self.used:
                self.used.add(id(c))
                out.append(c)
            elif isinstance(kind, str) and kind.startswith("LAYOUT_") and id(c) not in seen:
                seen.add(id(c))
                todo += reversed(self.children(c))
        return out

    # ----------------------------------------------------------------- with layout blocks

    def layout_page(self, page: list[dict]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        tables = [b for b in page if b.get("BlockType") == "TABLE"]
        nested = {id(c) for b in page if b.get("BlockType") == "LAYOUT_LIST" for c in self.children(b)}
        for b in page:
            kind = b.get("BlockType")
            if not isinstance(kind, str) or not kind.startswith("LAYOUT_") or id(b) in nested:
                continue
            cat = _LAYOUT.get(kind, "text")
            if cat == "list":
                for item in self.children(b):
                    text = _join([_text(ln) for ln in self.lines_of(item)])
                    if text:
                        out.append(("list_item", text if _BULLET.match(text + " ") else "- " + text))
                text = _join([_text(ln) for ln in self.lines_of(b)])  # (lines straight under the list)
                if text:
                    out.append(("list_item", text if _BULLET.match(text + " ") else "- " + text))
                continue
            lines = self.lines_of(b)
            if cat == "image":
                out.append(("image", ""))
                out += [("figure_text", _text(ln)) for ln in lines if _text(ln)]
            elif cat == "table":
                table = _overlapping(b, tables)
                if table is not None:
                    tables = [t for t in tables if t is not table]
                    out.append(("table", self.table_html(table)))
                    out += [("table_text", _text(ln)) for ln in lines if _text(ln)]
                elif lines:
                    out.append(("text", "\n".join(_text(ln) for ln in lines)))
            elif lines:
                texts = [_text(ln) for ln in lines if _text(ln)]
                out.append((cat, "\n".join(texts) if cat in ("page_header", "page_footer") else _join(texts)))
        for table in tables:  # a table no layout block holds: after the page's text
            out.append(("table", self.table_html(table)))
        rest = [ln for ln in page if ln.get("BlockType") == "LINE" and id(ln) not in self.used and _text(ln)]
        if rest:  # lines no layout block names: kept, in the geometry's order
            out += self.geometry_page(rest, furniture=False)
        return out

    # ----------------------------------------------------------------- tables

    def cell_text(self, cell: dict) -> str:
        words = []
        for c in self.children(cell):
            if c.get("BlockType") == "WORD":
                words.append(_text(c))
            elif c.get("BlockType") == "SELECTION_ELEMENT":
                words.append("☒" if c.get("SelectionStatus") == "SELECTED" else "☐")
        return " ".join(w for w in words if w)

    def table_html(self, table: dict) -> str:
        cells = [c for c in self.children(table) if c.get("BlockType") == "CELL"]
        placed: dict[tuple[int, int], tuple[str, int, int, bool]] = {}
        covered: set[tuple[int, int]] = set()
        # a merged cell (a span Textract found over several cells) is written once, at its first cell
        for m in self.children(table, "MERGED_CELL") + [c for c in self.children(table) if
                                                        c.get("BlockType") == "MERGED_CELL"]:
            r, col = _index(m, "RowIndex"), _index(m, "ColumnIndex")
            if r is None or col is None or (r, col) in placed:
                continue
            rs, cs = _index(m, "RowSpan") or 1, _index(m, "ColumnSpan") or 1
            text = " ".join(t for t in (self.cell_text(c) for c in self.children(m)) if t)
            placed[(r, col)] = (text, min(rs, 50), min(cs, 50), "COLUMN_HEADER" in (m.get("EntityTypes") or []))
            covered.update((r + i, col + j) for i in range(min(rs, 50)) for j in range(min(cs, 50)) if i or j)
        for c in cells:
            r, col = _index(c, "RowIndex"), _index(c, "ColumnIndex")
            if r is None or col is None or (r, col) in placed or (r, col) in covered:
                continue
            rs, cs = min(_index(c, "RowSpan") or 1, 50), min(_index(c, "ColumnSpan") or 1, 50)
            placed[(r, col)] = (self.cell_text(c), rs, cs, "COLUMN_HEADER" in (c.get("EntityTypes") or []))
            covered.update((r + i, col + j) for i in range(rs) for j in range(cs) if i or j)
        if not placed:
            return ""
        rows = []
        for r in sorted({r for r, _ in placed}):
            rows.append([placed[k] for k in sorted(k for k in placed if k[0] == r)])
        return html_table(rows)

    # ----------------------------------------------------------------- from the lines' geometry

    def geometry_page(self, page: list[dict], furniture: bool = True) -> list[tuple[str, str]]:
        lines = []
        for b in page:
            if b.get("BlockType") == "LINE" and _text(b) and id(b) not in self.used:
                self.used.add(id(b))
                lines.append(_Line(_text(b), _box(b)))
        tables = [(t, _box(t)) for t in page if t.get("BlockType") == "TABLE" and _box(t)]
        out: list[tuple[str, str]] = []
        boxed = [ln for ln in lines if ln.box is not None]
        # (lines with no geometry keep Textract's order, after the rest)
        loose = [ln for ln in lines if ln.box is None]
        if not boxed:
            return [("text", ln.text) for ln in loose]
        h = statistics.median(ln.height for ln in boxed) or 0.01
        items: list[_Line] = []
        for t, box in tables:  # the lines inside a table are its flat text: the table is written in their place
            inside = [ln for ln in boxed if _inside(ln.box, box)]
            boxed = [ln for ln in boxed if not _inside(ln.box, box)]
            items.append(_Line("", box, table=self.table_html(t), flat=[ln.text for ln in inside]))
        items += boxed
        items.sort(key=_top)
        top, bottom = (_edge_band(items, h, True), _edge_band(items, h, False)) if furniture else ([], [])
        edge = set(map(id, top)) | set(map(id, bottom))
        body = [ln for ln in items if id(ln) not in edge]
        out += [("page_header", ln.text) for row in _rows(sorted(top, key=_top), h) for ln in row]
        heights = [ln.height for ln in body if not ln.table]
        h = statistics.median(heights) if heights else h
        paras = _paragraphs(_reading_order(body, h), h)
        first = True
        for para in paras:
            if para[0].table:
                out.append(("table", para[0].table))
                out += [("table_text", t) for t in para[0].flat]
                first = False
                continue
            text = _join([ln.text for ln in para])
            tall = min(ln.height for ln in para) >= 1.3 * h
            if first and tall and len(para) <= 3 and _heading_like(text):
                out.append(("title", text))
            elif len(para) <= 2 and _heading_like(text) and (
                    min(ln.height for ln in para) >= 1.15 * h or (len(para) == 1 and para is not paras[-1]
                                                                   and len(text.split()) <= 10)):
                out.append(("section_header", text))
            else:
                out.append(("text", text))
            first = False
        out += [("page_footer", ln.text) for row in _rows(sorted(bottom, key=_top), h) for ln in row]
        out += [("text", ln.text) for ln in loose]
        return out


class _Line:
    __slots__ = ("text", "box", "table", "flat")

    def __init__(self, text: str, box, table: str = "", flat: list[str] | None = None):
        self.text, self.box, self.table, self.flat = text, box, table, flat or []

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def _top(ln: _Line) -> tuple[float, float]:
    return ln.box[1], ln.box[0]


def _index(b: dict, key: str) -> int | None:
    v = b.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 10_000 else None


def _overlapping(b: dict, tables: list[dict]) -> dict | None:
    """The TABLE block whose box overlaps the layout block's most (None when none does)."""
    box = _box(b)
    best, area = None, 0.0
    for t in tables:
        tb = _box(t)
        if box is None or tb is None:
            continue
        a = max(0.0, min(box[2], tb[2]) - max(box[0], tb[0])) * max(0.0, min(box[3], tb[3]) - max(box[1], tb[1]))
        if a > area:
            best, area = t, a
    return best


def _inside(box, table) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return table[0] <= cx <= table[2] and table[1] <= cy <= table[3]


def _edge_band(items: list[_Line], h: float, top: bool) -> list[_Line]:
    """The lines of the page's top (or bottom) tenth that a gap of more than a line's height sets
    apart from the text: running heads, folios, footers. A line set in taller type than the body's
    (a title at the top of a page) is no running head."""
    order = items if top else items[::-1]
    band: list[_Line] = []
    for ln in order:
        edge = ln.box[3] <= 0.1 if top else ln.box[1] >= 0.9
        if not edge or ln.table or ln.height > 1.2 * h:
            break
        band.append(ln)
    if not band or len(band) == len(items):
        return []
    inband = set(map(id, band))
    rest = [ln for ln in items if id(ln) not in inband]
    gap = (min(ln.box[1] for ln in rest) - max(ln.box[3] for ln in band)) if top else \
        (min(ln.box[1] for ln in band) - max(ln.box[3] for ln in rest))
    return band if gap > h else []


def _rows(items: list[_Line], h: float) -> list[list[_Line]]:
    """Lines on one baseline (their vertical middles within half a line) -> a row, left to right; a
    line cut in two by a wide word space is one fragment again."""
    rows: list[list[_Line]] = []
    total = 0.0  # the sum of the last row's middles (its mean kept as lines join it)
    for ln in items:
        mid = (ln.box[1] + ln.box[3]) / 2
        if rows and not ln.table and not rows[-1][0].table and abs(mid - total / len(rows[-1])) < 0.5 * h:
            rows[-1].append(ln)
            total += mid
        else:
            rows.append([ln])
            total = mid
    for r in rows:
        r.sort(key=lambda ln: ln.box[0])
    return rows


def _fragments(row: list[_Line], h: float) -> list[tuple[float, float]]:
    """The row's horizontal extents, pieces closer than half a line's height merged."""
    out: list[list[float]] = []
    for ln in row:
        if out and ln.box[0] - out[-1][1] < 0.5 * h:
            out[-1][1] = max(out[-1][1], ln.box[2])
        else:
            out.append([ln.box[0], ln.box[2]])
    return [(a, b) for a, b in out]


def _merge(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _crosses(span: tuple[float, float], columns: list[tuple[float, float]]) -> bool:
    """A span that reaches into two columns (more than a sliver of each) crosses the gutter."""
    return sum(1 for a, b in columns if min(span[1], b) - max(span[0], a) > 0.01) > 1


def _reading_order(items: list[_Line], h: float) -> list[list[_Line]]:
    """Runs of lines in reading order: a run of rows with pieces side by side (and the rows between
    them that stay in one column) is read column by column; any other row is a run of its own."""
    rows = _rows(items, h)
    frags = [_fragments(r, h) for r in rows]
    runs: list[list[_Line]] = []
    flowing = False  # the last run is single-column text that the next such row continues
    i = 0
    while i < len(rows):
        if len(frags[i]) < 2 or rows[i][0].table:
            if runs and flowing and not rows[i][0].table and not runs[-1][-1].table:
                runs[-1] = runs[-1] + rows[i]  # (one column on from the row above: one run)
            else:
                runs.append(rows[i])
            flowing = True
            i += 1
            continue
        columns = _merge(frags[i])
        j = i + 1
        while j < len(rows) and not rows[j][0].table:
            if len(frags[j]) >= 2:
                wider = _merge(columns + frags[j])
                if len(wider) < 2:
                    break
                columns = wider
            elif _crosses(frags[j][0], columns):
                break
            j += 1
        by_column: dict[int, list[_Line]] = {}
        starts = [a for a, _ in columns]
        for r in rows[i:j]:
            for ln in r:
                by_column.setdefault(_column_of(ln, columns, starts), []).append(ln)
        runs += [sorted(by_column[k], key=lambda ln: ln.box[1]) for k in sorted(by_column)]
        flowing = False
        i = j
    return runs


def _column_of(ln: _Line, columns: list[tuple[float, float]], starts: list[float]) -> int:
    """The index of the column (sorted, apart) the line overlaps most: only those from the one it
    starts in to the last that starts before its end are tried."""
    k = max(0, bisect.bisect_right(starts, ln.box[0]) - 1)
    best, most = k, float("-inf")
    while k < len(columns) and (k == best or columns[k][0] < ln.box[2]):
        overlap = min(ln.box[2], columns[k][1]) - max(ln.box[0], columns[k][0])
        if overlap > most:
            best, most = k, overlap
        k += 1
    return best


def _paragraphs(runs: list[list[_Line]], h: float) -> list[list[_Line]]:
    """Each run cut where the gap to the next line is more than half a line's height (or where
    its type is taller or shorter by a fifth: a heading right above its text)."""
    out: list[list[_Line]] = []
    for run in runs:
        cur: list[_Line] = []
        for ln in run:
            if cur and (ln.table or cur[-1].table or ln.box[1] - cur[-1].box[3] > 0.5 * h
                        or not 0.8 <= ln.height / max(cur[-1].height, 1e-6) <= 1.25):
                out.append(cur)
                cur = []
            cur.append(ln)
        if cur:
            out.append(cur)
    return out


def _join(texts: list[str]) -> str:
    """A paragraph's lines as one line; a word hyphenated at a line's end ('non-' / 'trivial') is
    joined with its hyphen and no space (whether the hyphen is the word's own is not known here)."""
    parts: list[str] = []
    for t in texts:
        if not t:
            continue
        if parts:
            last = parts[-1]
            broken = len(last) >= 2 and last[-1] == "-" and last[-2].isalpha() and t[:1].islower()
            parts.append(t if broken else " " + t)
        else:
            parts.append(t)
    return "".join(parts)


def _heading_like(text: str) -> bool:
    """Words that read as a heading: short, a capital or a number first, no sentence's end."""
    t = text.strip()
    return 2 <= len(t) <= 150 and (t[0].isupper() or t[0].isdigit()) and not re.search(r"[.,;:!?]$", t) \
        and len(t.split()) <= 20
