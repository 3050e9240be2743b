"""One-page PDFs of the kinds people bring, written byte by byte (no PDF library needed).

Used by tests/test_conservation.py and benchmarks/conservation.py. Each maker returns the words
that the page's text layer holds (or, for scans without one, the words drawn on the picture), so
a caller can check that they reach document.md. Every page has one property from issue 21's
first table: a scan with an invisible OCR layer (render mode 3), text among vector drawings
inside a form XObject (as notes and slide exports write it), a poster with a few text runs over
a picture, a low-confidence scanned letter, a page of stamps and running lines.
"""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

from _pdfgen import _assemble

FONT_PATHS = ["/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]

PROSE = (
    "The harbour lay quiet under a grey morning sky while fishermen mended their nets along the "
    "stone wall. Gulls circled the masts and called to one another above the water. Down by the "
    "market the traders opened their stalls and laid out bread cheese apples and dried fish for "
    "the first customers of the day. A cart rolled slowly over the cobbles carrying barrels of "
    "salt toward the warehouse near the old customs house where the clerks kept their ledgers."
).split()


def _esc(text: str) -> bytes:
    return text.encode("cp1252", "replace").replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _font(size: int):
    from PIL import ImageFont

    for p in FONT_PATHS:
        if Path(p).is_file():
            return ImageFont.truetype(p, size)
    return ImageFont.load_default(size=size)


def write_pdf(path: Path, width: float, height: float, content: bytes, *, images: dict[str, object] | None = None,
              forms: dict[str, tuple[bytes, tuple[float, float, float, float]]] | None = None) -> Path:
    """A one-page PDF: ``content`` is the page's content stream; Helvetica is /F1, Helvetica-Bold /F2.

    images: name -> a Pillow image (stored as JPEG); forms: name -> (content, bbox) form XObjects
    that may use the same fonts and images.
    """
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    add(b"<< /Type /Catalog /Pages 2 0 R >>")
    add(b"")  # pages, filled below
    add(b"")  # page
    f1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    f2 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    xobjects: dict[str, int] = {}
    for name, img in (images or {}).items():
        buf = io.BytesIO()
        img.convert("L").save(buf, format="JPEG", quality=85)
        jpeg = buf.getvalue()
        xobjects[name] = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                             b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n"
                             % (img.width, img.height, len(jpeg)) + jpeg + b"\nendstream")
    res_x = b" ".join(b"/%s %d 0 R" % (n.encode(), i) for n, i in xobjects.items())
    fonts = b"/Font << /F1 %d 0 R /F2 %d 0 R >>" % (f1, f2)
    for name, (body, bbox) in (forms or {}).items():
        z = zlib.compress(body)
        xobjects[name] = add(b"<< /Type /XObject /Subtype /Form /BBox [%g %g %g %g] /Resources << %s /XObject << %s >> >> "
                             b"/Filter /FlateDecode /Length %d >>\nstream\n" % (*bbox, fonts, res_x, len(z))
                             + z + b"\nendstream")
    res_all = b" ".join(b"/%s %d 0 R" % (n.encode(), i) for n, i in xobjects.items())
    z = zlib.compress(content)
    contents = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(z) + z + b"\nendstream")
    objs[1] = b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
    objs[2] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << %s /XObject << %s >> >> "
               b"/Contents %d 0 R >>" % (width, height, fonts, res_all, contents))
    Path(path).write_bytes(_assemble(objs, version=b"1.7"))
    return Path(path)


def text_ops(lines: list[tuple[str, float, float, float]], height: float, *, mode: int = 0, font: str = "F1") -> bytes:
    """BT..ET for (text, x, y_from_top, size) lines; mode 3 is invisible text (an OCR layer)."""
    out = [b"BT %d Tr" % mode]
    for text, x, y, size in lines:
        out.append(b"/%s %g Tf 1 0 0 1 %g %g Tm (%s) Tj" % (font.encode(), size, x, height - y, _esc(text)))
    out.append(b"ET")
    return b"\n".join(out) + b"\n"


def wrap(words: list[str], per_line: int) -> list[str]:
    return [" ".join(words[i:i + per_line]) for i in range(0, len(words), per_line)]


# ------------------------------------------------------------------------------ the pages


def scanned_book_page(path: Path, width: float = 180, height: float = 300, dpi: int = 200) -> list[str]:
    """A small scanned page (A6-like) whose picture covers it, with an invisible OCR text layer
    over it, as OCRmyPDF, the Internet Archive and Google Books write them."""
    from PIL import Image, ImageDraw

    k = dpi / 72.0
    img = Image.new("L", (int(width * k), int(height * k)), 250)
    draw = ImageDraw.Draw(img)
    size = 7.0
    lines = wrap(PROSE, 5)
    placed = []
    y = 24.0
    for t in lines:
        draw.text((14 * k, y * k), t, font=_font(int(size * k)), fill=20)
        placed.append((t, 14.0, y + size, size))
        y += size * 1.45
    content = b"q %g 0 0 %g 0 0 cm /Im1 Do Q\n" % (width, height) + text_ops(placed, height, mode=3)
    write_pdf(path, width, height, content, images={"Im1": img})
    return " ".join(lines).split()


def notes_page(path: Path) -> list[str]:
    """A page of notes: 42 text runs among 65 vector drawings (boxes, arrows, underlines), all
    inside one form XObject that covers the page, as note apps and slide exports write them."""
    w, h = 612.0, 792.0
    rnd = random.Random(7)
    words = []
    ops = [b"0.2 w 0 0 0 RG"]
    texts = []
    drawings = 0
    for i in range(42):
        col, row = i % 3, i // 3
        x, y = 40 + col * 190, 60 + row * 50
        t = " ".join(rnd.sample(PROSE, 2))
        words += t.split()
        texts.append((t, x + 6, y + 14, 10.0))
        ops.append(b"%g %g 170 24 re S" % (x, h - y - 24))
        drawings += 1
        if drawings < 65 and i % 2 == 0:
            ops.append(b"%g %g m %g %g l S" % (x + 170, h - y - 12, x + 190, h - y - 12))
            drawings += 1
    while drawings < 65:
        ops.append(b"%g %g m %g %g l S" % (40, 40 + drawings, 560, 40 + drawings))
        drawings += 1
    form = b"\n".join(ops) + b"\n" + text_ops(texts, h)
    write_pdf(path, w, h, b"q /Fm1 Do Q\n", forms={"Fm1": (form, (0, 0, w, h))})
    return words


def poster_page(path: Path) -> list[str]:
    """A poster: three text runs over a picture and drawings that cover most of the page."""
    from PIL import Image, ImageDraw

    w, h = 600.0, 800.0
    img = Image.new("L", (600, 800), 200)
    d = ImageDraw.Draw(img)
    for i in range(0, 600, 40):
        d.ellipse((i, 300 + (i % 120), i + 80, 380 + (i % 120)), fill=90)
    lines = [("Summer Science Fair", 60, 120, 36.0), ("Saturday in the town hall", 60, 560, 18.0),
             ("Free entry for families", 60, 600, 14.0)]
    content = (b"q %g 0 0 %g 0 0 cm /Im1 Do Q\n" % (w, h) + b"1 0 0 rg 40 40 520 40 re f 0 g\n"
               + text_ops(lines[:1], h, font="F2") + text_ops(lines[1:], h))
    write_pdf(path, w, h, content, images={"Im1": img})
    return " ".join(t for t, *_ in lines).split()


def scanned_letter(path: Path, dpi: int = 150, seed: int = 3) -> list[str]:
    """A scanned letter without a text layer, hard to read: faint ink, jitter, blur and speckle,
    so OCR reads it with low confidence."""
    from PIL import Image, ImageDraw, ImageFilter

    k = dpi / 72.0
    w, h = 612, 792
    img = Image.new("L", (int(w * k), int(h * k)), 235)
    draw = ImageDraw.Draw(img)
    rnd = random.Random(seed)
    lines = ["Dear Margaret,"] + wrap(PROSE[:40], 7) + ["With love, Thomas"]
    y = 90
    for t in lines:
        x = 72
        for word in t.split():
            draw.text((x * k, (y + rnd.uniform(-1.5, 1.5)) * k), word, font=_font(int(rnd.uniform(10, 13) * k)),
                      fill=rnd.randint(60, 110))
            x += (len(word) * 6.5 + 8) * rnd.uniform(0.95, 1.1)
        y += 24
    img = img.filter(ImageFilter.GaussianBlur(1.2))
    px = img.load()
    for _ in range(int(img.width * img.height * 0.012)):
        px[rnd.randrange(img.width), rnd.randrange(img.height)] = rnd.randint(60, 200)
    write_pdf(path, w, h, b"q %g 0 0 %g 0 0 cm /Im1 Do Q\n" % (w, h), images={"Im1": img})
    return " ".join(lines).split()


STAMPS = [
    "Downloaded from http://journals.example.org/ on March 3, 2015",
    "Download date: 12. Mar. 2021",
    "March 2014 | Volume 8 | Issue 3",
    "Published by Example University Press ScholarsArchive",
    "Revision: 2.4",
]


def stamped_page(path: Path, stamps: list[str] | None = None) -> tuple[list[str], list[str]]:
    """One page of body text with stamps and running lines in the top and bottom bands.

    Returns (body words, stamp lines)."""
    w, h = 612.0, 792.0
    stamps = STAMPS if stamps is None else stamps
    body = wrap(PROSE * 2, 12)
    lines = [(t, 72, 120 + 14 * i, 11.0) for i, t in enumerate(body)]
    top = [(s, 72, 24 + 10 * i, 7.5) for i, s in enumerate(stamps[:2])]
    bottom = [(s, 72, h - 40 + 10 * i, 7.5) for i, s in enumerate(stamps[2:])]
    content = text_ops(lines, h) + text_ops(top + bottom, h) + text_ops([("7", 300, h - 20, 9.0)], h)
    write_pdf(path, w, h, content)
    return " ".join(body).split(), stamps


def sized_text_page(path: Path, width: float, height: float) -> list[str]:
    """Plain body text on a page of any size (A6 180 x 300 pt up to A0 and beyond)."""
    size = max(6.0, min(40.0, width / 60))
    per = max(3, int(width / (size * 6)))
    body = wrap(PROSE, per)
    lines = [(t, width * 0.08, height * 0.1 + size * 1.5 * i, size) for i, t in enumerate(body)]
    write_pdf(path, width, height, text_ops(lines, height))
    return " ".join(body).split()


def blurred_letter(path: Path, dpi: int = 150) -> list[str]:
    """A scanned letter so soft that OCR is unsure of it (mean confidence well under 0.8)."""
    from PIL import Image, ImageDraw, ImageFilter

    k = dpi / 72.0
    w, h = 612, 792
    img = Image.new("L", (int(w * k), int(h * k)), 230)
    draw = ImageDraw.Draw(img)
    lines = ["Dear Margaret,"] + wrap(PROSE[:30], 6) + ["With love, Thomas"]
    for i, t in enumerate(lines):
        draw.text((72 * k, (90 + 22 * i) * k), t, font=_font(int(9 * k)), fill=120)
    img = img.filter(ImageFilter.GaussianBlur(2.2))
    write_pdf(path, w, h, b"q %g 0 0 %g 0 0 cm /Im1 Do Q\n" % (w, h), images={"Im1": img})
    return " ".join(lines).split()


def letter_page(path: Path) -> list[str]:
    """A typed one-page letter with a letterhead, a date, an address block and a signature."""
    w, h = 612.0, 792.0
    head = [("Harbour Trading Company", 72, 60, 16.0)]
    rest = ["12 Quay Street, Port Ellen", "4 March 2024", "", "Dear Ms Fraser,"] + wrap(PROSE[:50], 11) + \
           ["", "Yours sincerely,", "Thomas Grant", "Harbour Master"]
    lines = [(t, 72, 100 + 15 * i, 11.0) for i, t in enumerate(rest) if t]
    write_pdf(path, w, h, text_ops(head, h, font="F2") + text_ops(lines, h))
    return " ".join(t for t, *_ in head + lines).split()


def invoice_page(path: Path) -> list[str]:
    """An invoice: a header block, a table of items in ruled columns, totals, a footer note."""
    w, h = 612.0, 792.0
    items = [("Salt barrels", "12", "4.50", "54.00"), ("Fishing nets", "3", "18.00", "54.00"),
             ("Dried fish crate", "5", "9.20", "46.00"), ("Apple cider keg", "2", "21.00", "42.00")]
    lines = [("INVOICE", 72, 60, 20.0), ("Invoice number 2024-0117", 72, 90, 10.0),
             ("Bill to: Customs House Stores, Port Ellen", 72, 104, 10.0)]
    y = 150
    cols = (72, 300, 380, 470)
    for t, x in zip(("Item", "Quantity", "Unit price", "Amount"), cols, strict=True):
        lines.append((t, x, y, 10.0))
    rules = [b"0.5 w 72 %g m 540 %g l S" % (h - y - 4, h - y - 4)]
    for r in items:
        y += 18
        for t, x in zip(r, cols, strict=True):
            lines.append((t, x, y, 10.0))
    y += 24
    lines += [("Total due", 380, y, 10.0), ("196.00", 470, y, 10.0),
              ("Payment within 30 days to the account named above", 72, y + 40, 9.0)]
    write_pdf(path, w, h, b"\n".join(rules) + b"\n" + text_ops(lines, h))
    return " ".join(t for t, *_ in lines).split()


def statement_page(path: Path) -> list[str]:
    """A financial statement: a borderless table with a stub column and three year columns."""
    w, h = 612.0, 792.0
    rows = [("Revenue", "1,204", "1,122", "998"), ("Cost of revenue", "178", "141", "138"),
            ("Research and development", "310", "287", "251"), ("Operating income", "716", "694", "609"),
            ("Net income", "522", "498", "431")]
    lines = [("Consolidated Statements of Income", 72, 60, 14.0), ("(In millions)", 72, 84, 9.0),
             ("Year Ended", 330, 110, 9.0), ("Jan 26, 2025", 330, 122, 9.0), ("Jan 28, 2024", 420, 122, 9.0),
             ("Jan 29, 2023", 500, 122, 9.0)]
    for i, r in enumerate(rows):
        y = 145 + 16 * i
        lines += [(r[0], 72, y, 10.0), (r[1], 340, y, 10.0), (r[2], 430, y, 10.0), (r[3], 510, y, 10.0)]
    write_pdf(path, w, h, text_ops(lines, h))
    return " ".join(t for t, *_ in lines).split()


def large_scan(path: Path, width: float = 2000, height: float = 2400, dpi: int = 30) -> list[str]:
    """An A0-like poster scanned without a text layer: big type on a big page."""
    from PIL import Image, ImageDraw

    k = dpi / 72.0
    img = Image.new("L", (int(width * k), int(height * k)), 255)
    draw = ImageDraw.Draw(img)
    lines = wrap(PROSE[:36], 6)
    for i, t in enumerate(lines):
        draw.text((150 * k, (300 + 140 * i) * k), t, font=_font(int(90 * k)), fill=0)
    write_pdf(path, width, height, b"q %g 0 0 %g 0 0 cm /Im1 Do Q\n" % (width, height), images={"Im1": img})
    return " ".join(lines).split()
