"""PDF pages holding one table each, with the cells known (tests/test_tables.py, benchmarks/tables.py).

The kinds people bring: a fully ruled grid (stroked lines, as word processors write it), booktabs
(three filled rules, as LaTeX draws them, optionally a spanning header with a partial rule), a
borderless financial statement (multi-line column headers over three years, "$" set apart from
right-aligned numbers, a units stub), a paper data table (6 columns, a group row, a total row)
and a table with a units row. Each table sits between lines of prose, so a finder must also
find where it ends. Written with pypdfium2 (standard 14 fonts) so text widths are exact.

A table spec's ``rows`` is the truth: one list per row, a cell is a string or ``(text, colspan)``.
"""

from __future__ import annotations

import ctypes
import random
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as c

PAGE = (612.0, 792.0)
PROSE = ("The results below were collected over three independent runs on the same machine, and "
         "every figure in the table is the median of those runs unless the text says otherwise.")


@dataclass
class TableSpec:
    name: str
    kind: str  # ruled | booktabs | borderless | financial
    rows: list[list]
    header_rows: int = 1
    caption: str = ""  # "Table 3: ..." (empty: no caption, as in a 10-K)
    caption_below: bool = False
    group_rows: set[int] = field(default_factory=set)  # a label in the stub only, set in bold
    total_rows: set[int] = field(default_factory=set)  # a rule above (booktabs / financial)
    currency_rows: set[int] = field(default_factory=set)  # financial: "$" at the left of the cell
    indent_rows: set[int] = field(default_factory=set)  # stub text indented (line items under a group)
    size: float = 9.0
    rotate: bool = False  # a landscape page: /Rotate 90, the text drawn turned in page space

    @property
    def ncols(self) -> int:
        return max(sum(_span(x) for x in r) for r in self.rows)


def _span(cell) -> int:
    return cell[1] if isinstance(cell, tuple) else 1


def _text(cell) -> str:
    return cell[0] if isinstance(cell, tuple) else cell


def grid(spec: TableSpec) -> list[list[tuple[int, str]]]:
    """The truth as a grid of (cell id, text); a spanning cell fills every column it covers."""
    out = []
    k = 0
    for r in spec.rows:
        row = []
        for cell in r:
            for _ in range(_span(cell)):
                row.append((k, _text(cell)))
            k += 1
        row += [(-1, "")] * (spec.ncols - len(row))
        out.append(row)
    return out


class _Writer:
    def __init__(self):
        self.pdf = pdfium.PdfDocument.new()
        self.page = self.pdf.new_page(*PAGE)

    def width(self, text: str, size: float, font: str = "Helvetica") -> float:
        obj = self._obj(text, size, font)
        w = self._bounds(obj)
        c.FPDFPageObj_Destroy(obj)
        return w[2] - w[0]

    def _obj(self, text, size, font):
        obj = c.FPDFPageObj_NewTextObj(self.pdf.raw, font.encode(), ctypes.c_float(size))
        buf = (ctypes.c_ushort * (len(text) + 1))(*[ord(ch) for ch in text], 0)
        c.FPDFText_SetText(obj, buf)
        return obj

    @staticmethod
    def _bounds(obj):
        a, b, d, e = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
        c.FPDFPageObj_GetBounds(obj, ctypes.byref(a), ctypes.byref(b), ctypes.byref(d), ctypes.byref(e))
        return a.value, b.value, d.value, e.value

    def text(self, text: str, x: float, baseline: float, size: float, font: str = "Helvetica") -> None:
        """baseline measured from the top of the page."""
        if not text:
            return
        obj = self._obj(text, size, font)
        c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x, PAGE[1] - baseline)
        c.FPDFPage_InsertObject(self.page.raw, obj)

    def hline(self, x0: float, x1: float, y: float, width: float, filled: bool) -> None:
        if filled:  # TeX draws \hrule as a filled rectangle
            obj = c.FPDFPageObj_CreateNewRect(x0, PAGE[1] - y - width / 2, x1 - x0, width)
            c.FPDFPageObj_SetFillColor(obj, 0, 0, 0, 255)
            c.FPDFPath_SetDrawMode(obj, c.FPDF_FILLMODE_WINDING, False)
        else:
            obj = c.FPDFPageObj_CreateNewPath(x0, PAGE[1] - y)
            c.FPDFPath_LineTo(obj, x1, PAGE[1] - y)
            c.FPDFPageObj_SetStrokeWidth(obj, width)
            c.FPDFPageObj_SetStrokeColor(obj, 0, 0, 0, 255)
            c.FPDFPath_SetDrawMode(obj, 0, True)
        c.FPDFPage_InsertObject(self.page.raw, obj)

    def vline(self, x: float, y0: float, y1: float, width: float) -> None:
        obj = c.FPDFPageObj_CreateNewPath(x, PAGE[1] - y0)
        c.FPDFPath_LineTo(obj, x, PAGE[1] - y1)
        c.FPDFPageObj_SetStrokeWidth(obj, width)
        c.FPDFPageObj_SetStrokeColor(obj, 0, 0, 0, 255)
        c.FPDFPath_SetDrawMode(obj, 0, True)
        c.FPDFPage_InsertObject(self.page.raw, obj)

    def rotate(self) -> None:
        """Turn the page into one stored landscape with /Rotate 90 that displays as laid out
        (a sidewaystable): every object is taken from display to page space."""
        page = self.pdf.new_page(PAGE[1], PAGE[0])
        while c.FPDFPage_CountObjects(self.page.raw):
            obj = c.FPDFPage_GetObject(self.page.raw, 0)
            c.FPDFPage_RemoveObject(self.page.raw, obj)
            # display (x, y) -> page (PAGE[1] - y, x): clockwise 90 degrees back
            c.FPDFPageObj_Transform(obj, 0, 1, -1, 0, PAGE[1], 0)
            c.FPDFPage_InsertObject(page.raw, obj)
        c.FPDFPage_SetRotation(page.raw, 1)
        self.page.close()
        c.FPDFPage_Delete(self.pdf.raw, 0)
        self.page = page

    def save(self, path: Path) -> Path:
        c.FPDFPage_GenerateContent(self.page.raw)
        self.page.close()
        self.pdf.save(str(path))
        self.pdf.close()
        return path


def _numeric(text: str) -> bool:
    t = text.replace("$", "").replace(",", "").replace("%", "").replace("(", "").replace(")", "").strip()
    return bool(t) and (t[0].isdigit() or t[0] in "-.—–") and len(t) < 14


def _prose(w: _Writer, y: float, n: int) -> float:
    words = (PROSE + " ") * 3
    for _ in range(n):
        line = words[: 96].rsplit(" ", 1)[0]
        words = words[len(line) + 1:] + line + " "
        w.text(line, 72, y, 10, "Times-Roman")
        y += 13
    return y


def write_table_pdf(spec: TableSpec, path: Path) -> Path:
    """One page: prose, the table (caption above or below), prose."""
    w = _Writer()
    size = spec.size
    bold = "Helvetica-Bold"
    ncols = spec.ncols
    pad = 7.0 if spec.kind == "ruled" else 10.0
    # column widths from single-column cells; currency cells need room for "$ " at the left
    widths = [0.0] * ncols
    for ri, r in enumerate(spec.rows):
        col = 0
        for cell in r:
            if _span(cell) == 1:
                font = bold if ri < spec.header_rows or ri in spec.group_rows else "Helvetica"
                t = _text(cell)
                extra = 12 if ri in spec.indent_rows and col == 0 else 0
                widths[col] = max(widths[col], w.width(t, size, font) + extra + (8 if "$" in t else 0))
            col += _span(cell)
    if spec.kind == "financial":  # wide stub, numbers spread out as in a filing
        widths[0] = max(widths[0], 170)
        widths[1:] = [max(x, 52) for x in widths[1:]]
    xs = [72.0]
    for x in widths:
        xs.append(xs[-1] + x + 2 * pad)
    left, right = xs[0], xs[-1]
    pitch = size * 1.45
    y = _prose(w, 90, 3) + 10
    if spec.caption and not spec.caption_below:
        label, rest = spec.caption.split(":", 1)
        w.text(label + ":", left, y, size)
        w.text(rest.strip(), left + w.width(label + ":", size) + size * 0.28, y, size)
        y += pitch * 1.4
    top = y
    rule = spec.kind in ("booktabs", "ruled")
    if rule:
        w.hline(left, right, top, 0.8, filled=spec.kind == "booktabs")
    y += pitch * 0.9
    baselines = []
    for ri, r in enumerate(spec.rows):
        if ri in spec.total_rows and spec.kind in ("booktabs", "financial"):
            w.hline(xs[1] if spec.kind == "financial" else left, right, y - pitch * 0.75, 0.5,
                    filled=spec.kind == "booktabs")
            y += 2
        baselines.append(y)
        col = 0
        header = ri < spec.header_rows
        for cell in r:
            span = _span(cell)
            t = _text(cell)
            x0, x1 = xs[col] + pad, xs[col + span] - pad
            font = bold if header or ri in spec.group_rows or ri in spec.total_rows and spec.kind == "financial" else "Helvetica"
            if ri in spec.currency_rows and t.startswith("$ "):
                w.text("$", x0, y, size, font)
                t = t[2:]
            tw = w.width(t, size, font)
            if span > 1 or (header and col > 0):
                x = (x0 + x1 - tw) / 2 if spec.kind != "financial" else x1 - tw
                if span > 1 and spec.kind == "booktabs":
                    w.hline(xs[col] + 3, xs[col + span] - 3, y + size * 0.45, 0.4, filled=True)  # \cmidrule
                if span > 1 and spec.kind == "financial":
                    x = (x0 + x1 - tw) / 2
            elif col > 0 and _numeric(t):
                x = x1 - tw
            else:
                x = x0 + (12 if ri in spec.indent_rows and col == 0 else 0)
            w.text(t, x, y, size, font)
            col += span
        y += pitch
        if spec.kind == "booktabs" and ri == spec.header_rows - 1:
            w.hline(left, right, y - pitch * 0.6, 0.5, filled=True)
            y += 3
        if spec.kind == "financial" and ri == spec.header_rows - 1:
            w.hline(xs[1], right, y - pitch * 0.6, 0.5, filled=False)
    bottom = y - pitch * 0.5
    if rule:
        w.hline(left, right, bottom, 0.8, filled=spec.kind == "booktabs")
    if spec.kind == "ruled":
        for yy in baselines[1:]:
            w.hline(left, right, yy - pitch * 0.72, 0.5, filled=False)
        for x in xs:
            w.vline(x, top, bottom, 0.5)
    y = bottom + pitch * 1.2
    if spec.caption and spec.caption_below:
        label, rest = spec.caption.split(":", 1)
        w.text(label + ":", left, y, size)
        w.text(rest.strip(), left + w.width(label + ":", size) + size * 0.28, y, size)
        y += pitch * 1.4
    _prose(w, y + 12, 4)
    if spec.rotate:
        w.rotate()
    return w.save(path)


# ------------------------------------------------------------------------------- the set


def _money(rng: random.Random, lo=50, hi=9000) -> str:
    return f"{rng.randint(lo, hi):,}"


def specs(seed: int = 7) -> list[TableSpec]:
    """The generated set: each kind at least twice, the numbers drawn from ``seed``."""
    rng = random.Random(seed)
    out: list[TableSpec] = []

    # 10-K income statement: "Year Ended" over three dates, "(In millions)" in the stub
    for n, (years, items) in enumerate([
        (["Jan 26, 2025", "Jan 28, 2024", "Jan 29, 2023"],
         ["Cost of revenue", "Research and development", "Sales, general and administrative", "Acquisition termination cost"]),
        (["Dec 31, 2024", "Dec 31, 2023", "Dec 31, 2022"],
         ["Net sales", "Cost of sales", "Selling and marketing", "Interest expense, net", "Other income"]),
    ]):
        rows: list[list] = [["", ("Year Ended", 3)], ["(In millions)", *years]]
        for k, item in enumerate(items):
            vals = [_money(rng) for _ in range(3)]
            rows.append([item, *(f"$ {v}" if k == 0 else v for v in vals)])
        rows.append(["Total operating expenses", *(f"$ {_money(rng, 9000, 40000)}" for _ in range(3))])
        out.append(TableSpec(f"financial-income-{n}", "financial", rows, header_rows=2,
                             currency_rows={2, len(rows) - 1}, total_rows={len(rows) - 1}))

    # 10-K balance sheet: two dates, group rows, indented items, totals
    rows = [["(In millions)", "Jan 26, 2025", "Jan 28, 2024"], ["Current assets:", "", ""]]
    for item in ["Cash and cash equivalents", "Marketable securities", "Accounts receivable, net", "Inventories"]:
        rows.append([item, _money(rng), _money(rng)])
    rows.append(["Total current assets", _money(rng, 20000, 60000), _money(rng, 20000, 60000)])
    rows.append(["Property and equipment, net", _money(rng), _money(rng)])
    rows.append(["Total assets", f"$ {_money(rng, 60000, 90000)}", f"$ {_money(rng, 60000, 90000)}"])
    out.append(TableSpec("financial-balance", "financial", rows, header_rows=1, group_rows={1},
                         indent_rows={2, 3, 4, 5}, total_rows={6, 8}, currency_rows={8}))

    # the paper data table of issue 21: 6 columns, a group row, a total row
    def data_rows():
        rows = [["Source", "Docs", "Words", "Tokens", "Avg. len", "Share"]]
        groups = [("Encyclopedic", ["Wikipedia", "Wikibooks", "Textbooks"]), ("Web", ["Common Crawl", "C4", "News"])]
        for g, items in groups:
            rows.append([g, "", "", "", "", ""])
            for it in items:
                rows.append([it, f"{rng.uniform(0.1, 9):.1f}M", f"{rng.uniform(1, 9):.2f}B", f"{rng.uniform(1, 30):.1f}B",
                             f"{rng.randint(200, 4000)}", f"{rng.uniform(1, 40):.1f}%"])
        rows.append(["Total", "28.4M", "31.05B", "40.2B", "1,402", "100.0%"])
        return rows

    rows = data_rows()
    out.append(TableSpec("paper-data-booktabs", "booktabs", rows, caption="Table 2: Composition of the training corpus.",
                         group_rows={1, 5}, total_rows={len(rows) - 1}))
    rows = data_rows()
    out.append(TableSpec("paper-data-plain", "borderless", rows, caption="Table 4: Corpus statistics per source.",
                         group_rows={1, 5}, total_rows={len(rows) - 1}))
    rows = data_rows()
    out.append(TableSpec("paper-data-landscape", "booktabs", rows, caption="Table 7: The corpus, set sideways.",
                         group_rows={1, 5}, total_rows={len(rows) - 1}, rotate=True))
    rows = data_rows()
    out.append(TableSpec("paper-data-caption-below", "booktabs", rows, caption="Table 5: Sources, counted again.",
                         caption_below=True, group_rows={1, 5}, total_rows={len(rows) - 1}))

    # fully ruled grids (word-processor style)
    rows = [["Setting", "Batch", "Steps", "Loss", "Time (h)"]]
    for name in ["baseline", "wide", "deep", "wide + deep", "distilled", "pruned"]:
        rows.append([name, str(rng.choice([32, 64, 128, 256])), f"{rng.randint(10, 90)}k", f"{rng.uniform(1, 3):.3f}",
                     f"{rng.uniform(1, 40):.1f}"])
    out.append(TableSpec("ruled-grid", "ruled", rows, caption="Table 1: Training runs."))
    rows = [["Country", "Capital", "Population", "Area (km²)"]]
    for cty, cap in [("France", "Paris"), ("Spain", "Madrid"), ("Norway", "Oslo"), ("Chile", "Santiago"),
                     ("Kenya", "Nairobi")]:
        rows.append([cty, cap, f"{rng.randint(4, 70)},{rng.randint(100, 999)},{rng.randint(100, 999)}",
                     f"{rng.randint(100, 999)},{rng.randint(100, 999)}"])
    out.append(TableSpec("ruled-text", "ruled", rows))

    # booktabs with a spanning header over two column groups and a units row
    rows = [["", ("Dev", 2), ("Test", 2)], ["Model", "EM", "F1", "EM", "F1"]]
    for m in ["BiDAF", "BERT-base", "BERT-large", "RoBERTa", "Ours"]:
        rows.append([m, *(f"{rng.uniform(50, 95):.1f}" for _ in range(4))])
    out.append(TableSpec("booktabs-spanning", "booktabs", rows, header_rows=2, caption="Table 3: Results on the benchmark."))
    rows = [["Model", "Params", "Latency", "Memory", "Accuracy"], ["", "(M)", "(ms)", "(GB)", "(%)"]]
    for m in ["small", "base", "large", "xl"]:
        rows.append([m, str(rng.randint(10, 900)), f"{rng.uniform(1, 90):.1f}", f"{rng.uniform(0.5, 40):.1f}",
                     f"{rng.uniform(60, 95):.1f}"])
    out.append(TableSpec("units-row", "booktabs", rows, header_rows=2, caption="Table 6: Cost and accuracy."))
    return out
