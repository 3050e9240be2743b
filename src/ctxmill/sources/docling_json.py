"""docling's lossless JSON export (a ``DoclingDocument``) -> labelled blocks in reading order.

The export is a tree, not a text: ``body.children`` lists ``{"$ref": "#/texts/3"}`` pointers, in
reading order, into the item lists ``texts`` (each with a ``label``: title, section_header and its
``level``, text, list_item and its ``marker``, caption, footnote, page_header, page_footer, formula,
code ...), ``tables`` (cells with their row and column offsets), ``pictures`` and ``groups`` (a
list, an inline run, a chapter: containers whose own ``children`` are pointers again). Captions
and footnotes hang under their table or picture. What docling put in the furniture layer (running
heads, folios) is labelled so and goes to removed.json like any engine's page header.

:func:`blocks` gives ``(category, text)`` pairs as engines.py's other layout readers do (dots.ocr,
MinerU's content list); the engines module writes them as grounding blocks and cleans them the one
way. Every text item is written somewhere: one the body never points at is added at the end.
"""

from __future__ import annotations

import re

from ctxmill.sources.tables import html_table

PAGE_BREAK = "\f"  # engines._PAGE_BREAK: the next block is on a new page

_REF = re.compile(r"#/(texts|tables|pictures|groups|key_value_items|form_items)/(\d+)\Z")
# docling's text labels -> the block categories engines._BLOCK_LABELS reads (a label not here is text)
_LABELS = {"title": "title", "page_header": "page_header", "page_footer": "page_footer", "caption": "caption",
           "footnote": "footnote", "list_item": "list_item", "formula": "formula", "code": "code",
           "text": "text", "paragraph": "text", "reference": "text", "checkbox_selected": "text",
           "checkbox_unselected": "text", "handwritten_text": "text", "document_index": "text"}
_ORDERED_MARKER = re.compile(r"\(?[0-9A-Za-z]{1,4}[.)]\Z")


def blocks(data: dict) -> list[tuple[str, str]]:
    """The blocks of a DoclingDocument (already parsed JSON) in its body's reading order."""
    doc = _Doc(data)
    furniture = data.get("furniture") if isinstance(data.get("furniture"), dict) else {}
    body = data.get("body") if isinstance(data.get("body"), dict) else {}
    for root, layer in ((furniture, "furniture"), (body, "body")):
        for child in _children(root):
            doc.visit(child, layer)
    # an item no pointer reached (a broken or partial tree) is still the engine's text: kept, at the end
    for kind in ("tables", "pictures", "texts"):
        for k in range(len(doc.items(kind))):
            doc.visit({"$ref": f"#/{kind}/{k}"}, "body")
    return doc.out


def _children(node: dict) -> list:
    kids = node.get("children") if isinstance(node, dict) else None
    return kids if isinstance(kids, list) else []


class _Doc:
    def __init__(self, data: dict):
        self.data = data
        self.seen: set[tuple[str, int]] = set()
        self.out: list[tuple[str, str]] = []
        self.page: int | None = None

    def items(self, kind: str) -> list:
        v = self.data.get(kind)
        return v if isinstance(v, list) else []

    def resolve(self, ref) -> tuple[str, int, dict] | None:
        target = ref.get("$ref") if isinstance(ref, dict) else None
        m = _REF.match(target) if isinstance(target, str) else None
        if not m:
            return None
        kind, k = m.group(1), int(m.group(2))
        items = self.items(kind)
        if k >= len(items) or not isinstance(items[k], dict) or (kind, k) in self.seen:
            return None  # (a pointer past the list, or a second visit: a cycle in a broken tree)
        self.seen.add((kind, k))
        return kind, k, items[k]

    def emit(self, category: str, text: str, item: dict | None = None) -> None:
        page = _page_of(item) if item is not None else None
        if page is not None:
            if self.page is not None and page != self.page and self.out:
                self.out.append((PAGE_BREAK, ""))
            self.page = page
        self.out.append((category, text))

    def visit(self, ref, layer: str) -> None:
        """``ref`` and everything under it, depth first in its children's order (a stack, not
        recursion: a group nested 10,000 deep is a long walk, not a crash)."""
        todo: list[tuple[object, str]] = [(ref, layer)]
        while todo:
            ref, layer = todo.pop()
            hit = self.resolve(ref)
            if hit is None:
                continue
            kind, _, item = hit
            layer = item.get("content_layer") or layer
            later: list = _children(item)  # (a text's children: rare; a nested list under an item)
            if kind == "texts":
                self.text_item(item, layer)
            elif kind == "tables":
                self.table(item, layer)
            elif kind == "pictures":
                later = self.picture(item, layer)
            elif kind == "groups" and item.get("label") == "inline":
                self.inline(item, layer)
                later = []
            todo += [(c, layer) for c in reversed(later)]

    def inline(self, item: dict, layer: str) -> None:
        """An inline group is one paragraph of several runs (text, a formula, a code span)."""
        parts = []
        for child in _children(item):
            sub = self.resolve(child)
            if sub and sub[0] == "texts" and _text_of(sub[2]).strip():
                parts.append(" ".join(_text_of(sub[2]).split()))
        if parts:
            self.emit("text" if layer != "furniture" else "discarded", " ".join(parts), item)

    def text_item(self, item: dict, layer: str) -> None:
        label = str(item.get("label") or "text")
        text = _text_of(item)
        if not text.strip():
            return
        if layer == "furniture" and label not in ("page_header", "page_footer"):
            self.emit("discarded", text, item)  # (docling's own judgement: not the document's content)
        elif label == "section_header":
            level = item.get("level")
            level = level if isinstance(level, int) and not isinstance(level, bool) else 1
            self.emit("text", "#" * max(2, min(6, level + 1)) + " " + " ".join(text.split()), item)
        elif label == "list_item":
            marker = str(item.get("marker") or "").strip()
            marker = marker if _ORDERED_MARKER.fullmatch(marker) else "-"
            self.emit("list_item", f"{marker} {text.strip()}", item)
        elif label == "formula":
            self.emit("formula", "$$\n" + text.strip() + "\n$$", item)
        elif label == "code":
            self.emit("code", "```\n" + text.strip("\n") + "\n```", item)
        else:
            self.emit(_LABELS.get(label, "text"), text, item)

    def attached(self, item: dict, key: str, category: str) -> None:
        for ref in item.get(key) or [] if isinstance(item.get(key), list) else []:
            hit = self.resolve(ref)
            if hit and hit[0] == "texts" and _text_of(hit[2]).strip():
                self.emit(category, _text_of(hit[2]), hit[2])

    def table(self, item: dict, layer: str) -> None:
        self.attached(item, "captions", "caption")
        rows = _table_rows(item)
        if rows:
            self.emit("table" if layer != "furniture" else "discarded", html_table(rows), item)
        self.attached(item, "footnotes", "footnote")

    def picture(self, item: dict, layer: str) -> list:
        """The picture's placeholder and captions; the texts under it (what OCR read inside it: no
        prose) listed as figure text; its other children returned, to be walked as the body is."""
        self.emit("image", "", item)
        self.attached(item, "captions", "caption")
        self.attached(item, "footnotes", "footnote")
        rest = []
        for child in _children(item):
            target = child.get("$ref") if isinstance(child, dict) else None
            if isinstance(target, str) and target.startswith("#/texts/"):
                hit = self.resolve(child)
                if hit and _text_of(hit[2]).strip():
                    self.emit("figure_text", _text_of(hit[2]), hit[2])
            else:
                rest.append(child)
        return rest


def _text_of(item: dict) -> str:
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        text = item.get("orig")
    return text if isinstance(text, str) else ""


def _page_of(item: dict) -> int | None:
    prov = item.get("prov")
    if isinstance(prov, list) and prov and isinstance(prov[0], dict):
        n = prov[0].get("page_no")
        return n if isinstance(n, int) and not isinstance(n, bool) else None
    return None


def _offset(cell: dict, key: str) -> int | None:
    v = cell.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10_000 else None


def _table_rows(item: dict) -> list[list[tuple[str, int, int, bool]]]:
    """The table's rows of cells (text, rowspan, colspan, header?) from ``data.table_cells`` and
    their offsets: each cell at its start row and column, a position no cell starts at and no span
    covers an empty cell; a position a span covers is left out (the HTML reader fills it)."""
    data = item.get("data") if isinstance(item.get("data"), dict) else {}
    cells = [c for c in data.get("table_cells") or [] if isinstance(c, dict)]
    placed: dict[tuple[int, int], tuple[str, int, int, bool]] = {}
    covered: set[tuple[int, int]] = set()
    for c in cells:
        r, col = _offset(c, "start_row_offset_idx"), _offset(c, "start_col_offset_idx")
        if r is None or col is None or (r, col) in placed or (r, col) in covered:
            continue
        rs = max(1, min(50, (_offset(c, "end_row_offset_idx") or r + 1) - r))
        cs = max(1, min(50, (_offset(c, "end_col_offset_idx") or col + 1) - col))
        text = c.get("text") if isinstance(c.get("text"), str) else ""
        placed[(r, col)] = (text, rs, cs, bool(c.get("column_header")))
        covered.update((r + i, col + j) for i in range(rs) for j in range(cs) if i or j)
    if not placed:
        return []
    n_rows = max(r for r, _ in placed) + 1
    n_cols = max(col + cs for (_, col), (_, _, cs, _) in placed.items())
    if n_rows * n_cols > 4 * len(placed) + 10_000:  # offsets far apart (a broken file): no grid of blanks
        return [[cell for (r, _), cell in sorted(placed.items()) if r == row] for row in sorted({r for r, _ in placed})]
    rows: list[list[tuple[str, int, int, bool]]] = []
    for r in range(n_rows):
        row = []
        for col in range(n_cols):
            if (r, col) in placed:
                row.append(placed[(r, col)])
            elif (r, col) not in covered:
                row.append(("", 1, 1, False))
        rows.append(row)
    return rows

