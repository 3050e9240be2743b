"""Figures as images: find each figure's drawing on its PDF page and crop it to a PNG.

Two halves, because the PDF is only ever opened inside the sandbox child:

- :func:`crop_pages` runs in the child (``sources/sandbox.py`` calls it after the text layer is
  read) and :func:`page_figures` does one page. Only pages with a caption line ("Figure 3", "Fig. 2", "Table 4") are looked at. The
  page's graphics (image, form, path and shading objects from pdfium) are grouped into
  clusters on a coarse grid; the cluster nearest a caption, above it (or below it, where the
  caption is printed on top) is the figure. Labels drawn as text just outside the drawing
  (axis titles) widen the box. The box is rendered with pypdfium2 at a modest resolution and
  returned as PNG bytes with the caption line's box, so the compiler can match it.
- :func:`run` is a compile stage: it gives every figure block (and every table block that is
  only a picture: no rows were read from it) the crop whose caption sits in the block, names it
  ``figures/fig-<n>.png`` / ``figures/table-<n>.png``, and keeps the bytes in
  ``doc.attrs["figure_images"]`` for the Markdown renderer to write.

Tables printed as text are never cropped: their rules are paths, but only image objects count
for a table caption. ``CTXMILL_FIGURE_DPI`` (default 150) sets the resolution; 0 turns
cropping off.
"""

from __future__ import annotations

import ctypes
import io
import os
import re

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, Kind

# the start of a caption line; blocks.py decides which of them really are captions. The label in
# capitals too (REVTeX's "FIG. 1.", WileyNJD's and IEEE Access's "FIGURE 1", "TABLE II"), and "Fig"
# without its point (PLOS's "Fig 1.", imsart's "FIG 1."): blocks.py reads all of them as captions
CAPTION_START = re.compile(r"^(Figure|Fig\.?|Table|FIGURE|FIG\.?|TABLE)\s*(\d+|[A-Z]\.?\d+|[IVX]+)\b")

# Caption labels outside English, by language, as babel's \figurename and \tablename (and a word
# processor's caption style) print them, the way references.py keeps the bibliography's names:
# (figure words, table words). Languages that set the label after the number (Hungarian "1. ábra",
# Lithuanian "1 pav.", Latvian "1. attēls") are left out: running text starts lines so. Turkish's
# "Şekil"/"Tablo" and Korean's "그림"/"표" are left out for now (round39_tCap_rule.md): with them a
# deck frame's title over its figure was read as the figure's label text (structure._figure_text),
# and a table under "표 3.2:" took the numbered heading after it as its last row (tables.table_after).
CAPTION_WORDS_BY_LANGUAGE = {
    "de": (("Abbildung", "Abb."), ("Tabelle", "Tab.")),
    "fr": ((), ("Tableau",)),
    "es": (("Figura",), ("Tabla", "Cuadro")),
    "it": (("Figura",), ("Tabella",)),
    "pt": (("Figura",), ("Tabela",)),
    "ca": (("Figura",), ("Taula",)),
    "ro": (("Figura",), ("Tabelul",)),
    "nl": (("Figuur",), ("Tabel",)),
    "sv/da/no": (("Figur",), ("Tabell", "Tabel")),
    "fi": (("Kuva",), ("Taulukko",)),
    "et": (("Joonis",), ("Tabel",)),
    "pl": (("Rysunek", "Rys."), ("Tabela", "Tab.")),
    "cs/sk": (("Obrázek", "Obrázok", "Obr."), ("Tabulka", "Tabuľka")),
    "hr/sr/sl": (("Slika",), ("Tablica", "Tabela")),
    "id/ms": (("Gambar", "Rajah"), ("Tabel", "Jadual")),
    "vi": (("Hình",), ("Bảng",)),
    "ru/uk/bg": (("Рисунок", "Рис.", "Фигура"), ("Таблица", "Таблиця", "Табл.")),
    "sr-cyrl": (("Слика",), ("Табела",)),
    "el": (("Σχήμα", "Εικόνα"), ("Πίνακας",)),
    "zh/ja": (("图", "圖", "図"), ("表",)),
}
_FOREIGN_KIND = {w: kind for figs, tabs in CAPTION_WORDS_BY_LANGUAGE.values()
                 for kind, words in (("Figure", figs), ("Table", tabs)) for w in words}
_FOREIGN_WORDS = "|".join(sorted(map(re.escape, _FOREIGN_KIND), key=len, reverse=True))
# (the number as CAPTION_RE reads it, a full-width colon after it too: "图 1：")
FOREIGN_CAPTION_RE = re.compile(rf"^({_FOREIGN_WORDS})\s*(\d+(?:\.\d+)?(?=[\s:.|：]|$)|\d+|[A-Z]\.?\d+|[IVX]+)"
                                r"\s*[:.|：]?\s*(.*)$", re.S)


def caption_start(text: str) -> re.Match | None:
    """A caption label at the start of a line (English, capitals, or another language's), for the crop
    finder: the pages to locate figures on and the caption boxes there."""
    text = text.lstrip()
    return CAPTION_START.match(text) or FOREIGN_CAPTION_RE.match(text)


def foreign_label(word: str) -> str | None:
    """"Figure" or "Table" for a caption label word of another language ("Abbildung", "Рис.", "表")."""
    return _FOREIGN_KIND.get(word)


CELL = 6.0  # grid cell (points) for clustering graphics; boxes closer than ~a cell join
MAX_SIDE_PX = 1800  # a crop is scaled down to at most this many pixels on its long side
MIN_W, MIN_H = 36.0, 24.0  # smaller drawings are marks or icons, not figures


def dpi() -> int:
    try:
        return max(0, int(os.environ.get("CTXMILL_FIGURE_DPI", "150")))
    except ValueError:
        return 150


# ------------------------------------------------------------------ child side: geometry


def _graphics(page_raw, width: float, height: float) -> list[tuple[float, float, float, float, bool]]:
    """(x0, top, x1, bottom, is_image) of every drawing object, top-left origin, on the page.

    A form object as big as a quarter of the page is often a wrapper around half the page
    (text and all): its own objects are read instead, mapped through its matrix."""
    import pypdfium2.raw as pdfium_c

    kinds = {pdfium_c.FPDF_PAGEOBJ_IMAGE: True, pdfium_c.FPDF_PAGEOBJ_FORM: True,
             pdfium_c.FPDF_PAGEOBJ_PATH: False, pdfium_c.FPDF_PAGEOBJ_SHADING: False}
    left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    out: list[tuple[float, float, float, float, bool]] = []
    page_area = width * height

    def bounds(obj, m) -> tuple[float, float, float, float] | None:
        if not pdfium_c.FPDFPageObj_GetBounds(obj, ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right),
                                              ctypes.byref(top)):
            return None
        xs, ys = [], []
        for x, y in ((left.value, bottom.value), (right.value, top.value), (left.value, top.value),
                     (right.value, bottom.value)):
            if m is not None:  # a form's child: its bounds are in the form's space
                x, y = m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]
            xs.append(x)
            ys.append(y)
        return max(0.0, min(xs)), max(0.0, height - max(ys)), min(width, max(xs)), min(height, height - min(ys))

    def walk(objs, m, depth: int) -> None:
        for obj in objs:
            image = kinds.get(pdfium_c.FPDFPageObj_GetType(obj))
            if image is None:
                continue
            b = bounds(obj, m)
            if b is None:
                continue
            x0, y0, x1, y1 = b
            w, h = x1 - x0, y1 - y0
            if w < 0 or h < 0 or w * h > 0.8 * page_area:
                continue  # off the page, or a page background
            is_form = pdfium_c.FPDFPageObj_GetType(obj) == pdfium_c.FPDF_PAGEOBJ_FORM
            if is_form and depth < 2 and w * h > 0.25 * page_area:
                fm = pdfium_c.FS_MATRIX()
                if pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(fm)):
                    own = (fm.a, fm.b, fm.c, fm.d, fm.e, fm.f)
                    if m is not None:  # compose: child space -> this form -> the outer form
                        own = (m[0] * own[0] + m[2] * own[1], m[1] * own[0] + m[3] * own[1],
                               m[0] * own[2] + m[2] * own[3], m[1] * own[2] + m[3] * own[3],
                               m[0] * own[4] + m[2] * own[5] + m[4], m[1] * own[4] + m[3] * own[5] + m[5])
                    n = pdfium_c.FPDFFormObj_CountObjects(obj)
                    walk((pdfium_c.FPDFFormObj_GetObject(obj, k) for k in range(max(0, n))), own, depth + 1)
                    continue
            if not image and min(w, h) < 3 and max(w, h) > 0.45 * width:
                continue  # a long rule: page furniture or a table's line, not a drawing
            out.append((x0, y0, x1, y1, image))

    walk((pdfium_c.FPDFPage_GetObject(page_raw, i) for i in range(pdfium_c.FPDFPage_CountObjects(page_raw))),
         None, 0)
    return out


def clusters(boxes: list[tuple[float, float, float, float]], width: float = 0.0, height: float = 0.0,
             cell: float = CELL) -> list[tuple[float, float, float, float]]:
    """Group boxes that touch or nearly touch (within ``cell`` points): the union box of each group.

    One sweep left to right adds each box to every group it touches (merging them), then
    groups are merged until none touch. A plot of thousands of marks becomes one group early,
    so the sweep stays short."""
    groups: list[list[float]] = []
    for x0, y0, x1, y1 in sorted(boxes):
        hit = None
        for g in groups:
            if x0 <= g[2] + cell and x1 >= g[0] - cell and y0 <= g[3] + cell and y1 >= g[1] - cell:
                if hit is None:
                    hit = g
                    g[0], g[1], g[2], g[3] = min(g[0], x0), min(g[1], y0), max(g[2], x1), max(g[3], y1)
                else:
                    hit[0], hit[1], hit[2], hit[3] = min(hit[0], g[0]), min(hit[1], g[1]), max(hit[2], g[2]), max(hit[3], g[3])
                    g[0] = None  # merged into hit
        if hit is None:
            groups.append([x0, y0, x1, y1])
        else:
            groups = [g for g in groups if g[0] is not None]
    merged = True
    while merged:  # a group that grew may now touch one made before it
        merged = False
        for i, a in enumerate(groups):
            for b in groups[i + 1:]:
                if a[0] <= b[2] + cell and a[2] >= b[0] - cell and a[1] <= b[3] + cell and a[3] >= b[1] - cell:
                    a[0], a[1], a[2], a[3] = min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
                    groups.remove(b)
                    merged = True
                    break
            if merged:
                break
    return [tuple(g) for g in groups]


def _hoverlap(a, b) -> float:
    return min(a[2], b[2]) - max(a[0], b[0])


def _grow(region: list[float], pool: list[tuple], limit_top: float, limit_bottom: float, gap: float,
          cap: tuple) -> None:
    """Absorb the clusters stacked on or beside the region (sub-figures), within the limits: a
    cluster near the region, or one in the region's band over the caption's width."""
    changed = True
    while changed:
        changed = False
        for c in list(pool):
            if c[1] < limit_top - 1 or c[3] > limit_bottom + 1:
                continue
            vgap = max(c[1] - region[3], region[1] - c[3])
            near = vgap <= gap and _hoverlap(c, region) >= -gap
            lo, hi = min(region[0], c[0]), max(region[2], c[2])
            beside = vgap < 0 and (_hoverlap(c, cap) > 0.5 * (c[2] - c[0])
                                   # (a row of sub-figures with the caption centred under the row)
                                   or _hoverlap(c, cap) > 0 and abs(lo + hi - cap[0] - cap[2]) <= 0.1 * (hi - lo))
            if not (near or beside):
                continue
            region[0], region[1] = min(region[0], c[0]), min(region[1], c[1])
            region[2], region[3] = max(region[2], c[2]), max(region[3], c[3])
            pool.remove(c)
            changed = True


def find_regions(captions: list[tuple[str, tuple]], graphics: list[tuple], lines: list[tuple],
                 width: float, height: float) -> list[tuple[int, tuple[float, float, float, float]]]:
    """For each caption (label, line box) the box of its drawing: [(caption index, box)].

    ``graphics`` are (x0, top, x1, bottom, is_image); ``lines`` the text boxes of the page.
    A figure is looked for above its caption first, a table below it first; a table takes
    only images. Each cluster serves one caption."""
    caps = [c for _, c in captions]
    # a box around a caption is a frame or a background (often half the page), not a drawing
    graphics = [g for g in graphics if not any(g[0] <= c[0] + 1 and g[2] >= c[2] - 1 and g[1] <= c[1] + 1
                                               and g[3] >= c[3] - 1 for c in caps)]
    draw = clusters([g[:4] for g in graphics])
    pictures = clusters([g[:4] for g in graphics if g[4]]) if any(label == "Table" for label, _ in captions) else []
    out = []
    taken: list[list[float]] = []  # the figures' regions: a picture in one is no table's
    # (figures first: a table caption over a figure's picture, its own grid printed as text,
    # must not take the picture that the figure's caption under it names)
    for ci in sorted(range(len(captions)), key=lambda k: captions[k][0] == "Table"):
        label, cap = captions[ci]
        table = label == "Table"
        pool = pictures if table else draw
        if table and taken:
            pictures[:] = [c for c in pictures if not any(min(c[2], r[2]) > max(c[0], r[0])
                                                          and min(c[3], r[3]) > max(c[1], r[1]) for r in taken)]
        # the nearest other caption above / below in the same column bounds the search (a
        # figure never spans one; one in the other column of the page is no bound)
        col = [c for c in caps if c is not cap and _hoverlap(c, cap) > 0]
        above_limit = max([c[3] for c in col if c[3] <= cap[1] + 0.5] or [0.0])
        below_limit = min([c[1] for c in col if c[1] >= cap[3] - 0.5] or [height])
        sides = ("below", "above") if table else ("above", "below")
        for side in sides:
            if side == "above":
                cand = [c for c in pool if c[3] <= cap[1] + 2 and c[1] >= above_limit - 1 and _hoverlap(c, cap) > 0]
                key = lambda c: -c[3]  # noqa: E731 -- nearest first
            else:
                cand = [c for c in pool if c[1] >= cap[3] - 2 and c[3] <= below_limit + 1 and _hoverlap(c, cap) > 0]
                key = lambda c: c[1]  # noqa: E731
            cand = [c for c in cand if c[2] - c[0] >= MIN_W and c[3] - c[1] >= MIN_H]
            if not cand:
                continue
            first = min(cand, key=key)
            if (cap[1] - first[3] if side == "above" else first[1] - cap[3]) > 0.3 * height:
                continue  # too far from its caption to be its drawing
            pool.remove(first)
            region = list(first)
            if side == "above":
                _grow(region, pool, above_limit, cap[1] + 2, 3 * CELL, cap)
            else:
                _grow(region, pool, cap[3] - 2, below_limit, 3 * CELL, cap)
            _take_labels(region, lines, cap, side)
            # never into the caption itself (a frame or a plot's margin can reach under it)
            if side == "above":
                region[3] = min(region[3], cap[1] - 3.5)
            else:
                region[1] = max(region[1], cap[3] + 3.5)
            if not table:
                taken.append(region)
            out.append((ci, _pad(region, width, height)))
            break
    return sorted(out)


def _take_labels(region: list[float], lines: list[tuple], cap: tuple, side: str) -> None:
    """Widen the box to text lines that poke out of it (axis titles, legends), not running text."""
    near = 8.0
    x0, y0, x1, y1 = region
    w = x1 - x0
    for ln in lines:
        if ln == cap or ln[2] - ln[0] > 0.7 * w:
            continue  # running text (or a title as wide as the drawing), not a label
        if ln[0] >= x0 and ln[2] <= x1 and ln[1] >= y0 and ln[3] <= y1:
            continue  # inside already
        if ln[0] > x1 + near or ln[2] < x0 - near or ln[1] > y1 + near or ln[3] < y0 - near:
            continue
        if side == "above" and ln[3] > cap[1] + 1:
            continue
        if side == "below" and ln[1] < cap[3] - 1:
            continue
        region[0], region[1] = min(region[0], ln[0]), min(region[1], ln[1])
        region[2], region[3] = max(region[2], ln[2]), max(region[3], ln[3])


def _pad(r, width: float, height: float, pad: float = 3.0) -> tuple[float, float, float, float]:
    return (round(max(0.0, r[0] - pad), 2), round(max(0.0, r[1] - pad), 2),
            round(min(width, r[2] + pad), 2), round(min(height, r[3] + pad), 2))


def render_png(page, box: tuple[float, float, float, float], width: float, height: float, at_dpi: int) -> bytes:
    """The box of the page (points, top-left origin) as PNG bytes."""
    x0, y0, x1, y1 = box
    scale = at_dpi / 72.0
    scale = min(scale, MAX_SIDE_PX / max(1.0, x1 - x0, y1 - y0))
    # RGB byte order straight from pdfium: to_pil() then has no channels to swap
    bitmap = page.render(scale=scale, crop=(x0, height - y1, width - x1, y0), rev_byteorder=True)
    try:
        img = bitmap.to_pil()
    finally:
        bitmap.close()
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)  # a few times faster than the default; the bytes matter less
    return buf.getvalue()


def page_figures(page, lines, width: float, height: float) -> list[dict]:
    """Child side, per page: [{label, caption: line box, bbox}] for every caption's drawing."""
    captions = []
    for ln in lines:
        if ln.bbox is None:
            continue
        m = caption_start(ln.text)
        if m and not running_text(m):
            word = foreign_label(m.group(1)) or m.group(1)
            captions.append(("Table" if word in ("Table", "TABLE") else "Figure", tuple(ln.bbox)))
    if not captions:
        return []
    try:
        if page.get_rotation():
            return []  # crop boxes are in unrotated page space; not worth the arithmetic yet
    except Exception:  # noqa: BLE001 -- a page that cannot say its rotation keeps its captions only
        return []
    graphics = _graphics(page.raw, width, height)
    if not graphics:
        return []
    boxes = [tuple(ln.bbox) for ln in lines if ln.bbox is not None]
    out = []
    for ci, box in find_regions(captions, graphics, boxes, width, height):
        label, cap = captions[ci]
        out.append({"label": label, "caption": list(cap), "bbox": list(box)})
    return out


def running_text(m: re.Match) -> bool:
    """A line of running text that starts with a figure's label: "Figure 2 is a simplified ...",
    "Fig. 3 shows ...": no stop or colon after the number, a lower-case word next. It names no
    drawing (a caption's title starts with a capital or follows a colon: "Figure 2.1: the study
    area"), so it must not take the picture that the caption under it names."""
    rest = m.string[m.end(2):]
    return rest[:1].isspace() and rest.lstrip()[:1].islower()


def captioned(lines: list) -> bool:
    """A page of these lines holds a figure or table caption: the pages whose figures are located."""
    return any(ln.bbox is not None and caption_start(ln.text) for ln in lines)


def _wanted(pages: list) -> list:
    return [p for p in pages if p.has_text_layer and not p.ocr and not p.error and captioned(p.lines)]


def locate(path: str, pages: list) -> None:
    """Child side, cheap (no rendering): set ``page.figures`` on every page with a caption line."""
    wanted = _wanted(pages) if dpi() else []
    if not wanted:
        return
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        for p in wanted:
            page = pdf[p.number - 1]
            try:
                p.figures = page_figures(page, p.lines, p.width, p.height)
            finally:
                page.close()
    finally:
        pdf.close()


def render(path: str, pages: list) -> dict[str, bytes]:
    """Child side, after :func:`locate`: {"<page>:<index>": PNG bytes} for every located figure.

    The sandbox sends the page stream first and this afterwards, so the compile's stages run
    while the crops are drawn."""
    todo = [p for p in pages if p.figures]
    out: dict[str, bytes] = {}
    if not todo:
        return out
    import pypdfium2 as pdfium

    at_dpi = dpi() or 150
    pdf = pdfium.PdfDocument(path)
    try:
        for p in todo:
            page = pdf[p.number - 1]
            try:
                for i, f in enumerate(p.figures):
                    out[f"{p.number}:{i}"] = render_png(page, tuple(f["bbox"]), p.width, p.height, at_dpi)
            finally:
                page.close()
    finally:
        pdf.close()
    return out


def crop_pages(path: str, pages: list) -> None:
    """In one process (the sandbox switched off): locate and render, PNGs into ``page.figures``."""
    locate(path, pages)
    by_number = {p.number: p for p in pages}
    for key, png in render(path, pages).items():
        number, i = key.split(":")
        by_number[int(number)].figures[int(i)]["png"] = png


# ------------------------------------------------------------------ captions (read by blocks.py)

# floats that are not pictures: algorithm2e's / algorithmicx's "Algorithm 1:" boxes and
# listings' "Listing 2:" keep their own kind (a figure block with ``attrs["float"]``), so the
# Markdown says "Algorithm 1" and the text's "Algorithm 1" finds them
FLOAT_KINDS = {"Algorithm": "algorithm", "Listing": "listing"}
FLOAT_LABELS = {v: k for k, v in FLOAT_KINDS.items()}


def float_kind(label: str) -> str | None:
    """"algorithm" / "listing" for a caption's label word, None for a figure or a table."""
    return FLOAT_KINDS.get(label)


def float_label(attrs: dict) -> str:
    """The word a figure block's caption is printed with: "Figure", "Algorithm", "Listing"."""
    return FLOAT_LABELS.get(attrs.get("float") or "", "Figure")


def label_apart(spans: list, label: str, number: str) -> bool:
    """The caption's label is set in its own face: "*Figure 1*. Title" (APA's italic label), a
    bold one, a label in small capitals (JFM's "FIGURE 2." in a font of its own), or a roman
    label before an italic title ("Table 1: *This is ...*"). Running text that starts a line with
    "Figure 1" sets it in the face of the words around it."""
    spans = [s for s in spans if not s.superscript and s.text.strip()]
    if len(spans) < 2:
        return False
    first, nxt = spans[0], spans[1]
    if first.text.strip().rstrip(".:") != f"{label} {number}":
        return False
    return first.italic != nxt.italic or first.bold != nxt.bold or _face(first.font) != _face(nxt.font)


def _face(font: str) -> str:
    """A font's face: its name without the subset tag and size digits ("ABCDEF+CMCSC10" -> "CMCSC"),
    weight and style kept ("Times-Bold" is not "Times-Roman"; structure._family drops them)."""
    return re.sub(r"\d+$", "", (font or "").split("+")[-1])


def caption_in_box(spans: list, text: str, body: float) -> bool:
    """A caption line that lies inside an included figure's box (a picture whose box runs
    under its caption): "Fig. 1. Textile and ..." in a type no bigger than the body's,
    its label set off by a point or a colon and its title starting with a capital. It is
    the caption, not a label drawn in the figure."""
    m = re.match(r"^(Figure|Fig\.|Table)\s*(\d+)\s*[.:]\s+(\S)", text.strip())
    if not m or not m.group(3)[:1].isupper():
        return False
    sizes = [s.size for s in spans if not s.superscript and s.text.strip()]
    return bool(sizes) and max(sizes) <= body + 0.3


# ------------------------------------------------------------------ compile stage


def _inside(cap, bbox) -> bool:
    """The caption line lies within the block's box (a block box is the union of its lines)."""
    return (cap[0] >= bbox[0] - 2 and cap[2] <= bbox[2] + 2 and cap[1] >= bbox[1] - 2 and cap[1] <= bbox[3] + 2)


def _name(kind: str, number: str | None, page: int, taken: set[str]) -> str:
    stem = ("table" if kind == "Table" else "fig") + "-" + (
        re.sub(r"[^A-Za-z0-9]+", "-", number).strip("-").lower() if number else f"p{page}")
    name, k = stem, 2
    while name in taken:
        name, k = f"{stem}-{k}", k + 1
    taken.add(name)
    return name


def run(doc: Document, options: CompileOptions) -> None:
    """Give figure blocks (and picture-only table blocks) the crop located for their caption.

    Only names are decided here; the PNG bytes may still be on their way from the PDF child
    (:func:`images` waits for them when the files are written)."""
    crops = {p.number: list(enumerate(p.figures)) for p in doc.stream.pages if p.figures}
    found: dict[str, tuple[int, int]] = {}
    doc.attrs["figure_images"] = found
    taken: set[str] = set()
    for b in doc.blocks:
        if b.bbox is None or b.page not in crops:
            continue
        if b.kind is Kind.FIGURE:
            want = "Figure"
        elif b.kind is Kind.TABLE and not b.attrs.get("rows") and b.number:
            want = "Table"
        else:
            continue
        pool = crops[b.page]
        hit = next(((i, f) for i, f in pool if f["label"] == want and _inside(f["caption"], b.bbox)), None)
        if hit is None:
            continue
        pool.remove(hit)
        name = f"figures/{_name(want, b.number, b.page, taken)}.png"
        b.attrs["image_file"] = name
        b.attrs["image_bbox"] = list(hit[1]["bbox"])
        found[name] = (b.page, hit[0])


def images(doc: Document) -> dict[str, bytes]:
    """{file name: PNG bytes} of the figures :func:`run` named, waiting for the PDF child's
    crops if they are still being drawn. A crop that never came is left out (its block keeps
    its caption; the renderer checks)."""
    found = doc.attrs.get("figure_images") or {}
    if not found:
        return {}
    pending = getattr(doc.stream, "figure_pngs", None)
    sent = pending() if pending is not None else {}
    pages = {p.number: p for p in doc.stream.pages}
    out = {}
    for name, (number, i) in found.items():
        png = pages[number].figures[i].get("png") or sent.get(f"{number}:{i}")
        if png:
            out[name] = png
    return out
