"""Build small PDFs for tests with pypdfium2 (standard 14 fonts, no files from outside)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as c


def make_pdf(path: Path, pages: list[list[tuple]], size=(612, 792)) -> Path:
    """pages: per page a list of (text, x, y_from_top, font_size, font_name) tuples."""
    pdf = pdfium.PdfDocument.new()
    fonts: dict[str, object] = {}
    for lines in pages:
        page = pdf.new_page(*size)
        for item in lines:
            text, x, y, fsize = item[:4]
            fname = item[4] if len(item) > 4 else "Helvetica"
            rotated = len(item) > 5 and item[5]
            obj = c.FPDFPageObj_NewTextObj(pdf.raw, fname.encode(), ctypes.c_float(fsize))
            ws = ctypes.create_unicode_buffer(text)
            buf = (ctypes.c_ushort * (len(text) + 1))(*[ord(ch) for ch in text], 0)
            del ws
            c.FPDFText_SetText(obj, buf)
            if rotated:
                c.FPDFPageObj_Transform(obj, 0, 1, -1, 0, x, size[1] - y)
            else:
                c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x, size[1] - y)
            c.FPDFPage_InsertObject(page.raw, obj)
        c.FPDFPage_GenerateContent(page.raw)
        page.close()
    pdf.save(str(path))
    pdf.close()
    del fonts
    return path


# Drawing on a page of a letter-size pdfium document (y measured from the top, as a reader sees it):
# the figure and caption tests build their pages object by object with these.
LETTER_HEIGHT = 792


def draw_text(pdf, page, text, x, y, size=10.0, font="Helvetica"):
    obj = c.FPDFPageObj_NewTextObj(pdf.raw, font.encode(), ctypes.c_float(size))
    buf = (ctypes.c_ushort * (len(text) + 1))(*[ord(ch) for ch in text], 0)
    c.FPDFText_SetText(obj, buf)
    c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x, LETTER_HEIGHT - y)
    c.FPDFPage_InsertObject(page.raw, obj)


def draw_rect(page, x0, top, x1, bottom, rgb):
    path = c.FPDFPageObj_CreateNewRect(ctypes.c_float(x0), ctypes.c_float(LETTER_HEIGHT - bottom),
                                       ctypes.c_float(x1 - x0), ctypes.c_float(bottom - top))
    c.FPDFPageObj_SetFillColor(path, *rgb, 255)
    c.FPDFPath_SetDrawMode(path, c.FPDF_FILLMODE_ALTERNATE, False)
    c.FPDFPage_InsertObject(page.raw, path)


def draw_image(pdf, page, x0, top, x1, bottom, rgb):
    from PIL import Image

    img = pdfium.PdfImage.new(pdf)
    img.set_bitmap(pdfium.PdfBitmap.from_pil(Image.new("RGB", (40, 30), rgb)))
    img.set_matrix(pdfium.PdfMatrix().scale(x1 - x0, bottom - top).translate(x0, LETTER_HEIGHT - bottom))
    page.insert_obj(img)


def blank_pages_pdf(path: Path, n: int, text: str = "Page text") -> Path:
    """n pages each with one short line (for the large-input test)."""
    single = path.with_suffix(".one.pdf")
    make_pdf(single, [[(text, 72, 100, 11)]])
    src = pdfium.PdfDocument(str(single))
    dst = pdfium.PdfDocument.new()
    done = 0
    while done < n:
        k = min(n - done, 1)
        dst.import_pages(src, [0] * k)
        done += k
    dst.save(str(path))
    dst.close()
    src.close()
    single.unlink()
    return path


def _assemble(objs: list[bytes], trailer_extra: bytes = b"", version: bytes = b"1.4") -> bytes:
    """A PDF of ``objs`` (object 1 the catalog) with a correct cross-reference table."""
    out = b"%PDF-" + version + b"\n"
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer<</Size %d/Root 1 0 R" % (len(objs) + 1) + trailer_extra + b">>\nstartxref\n%d\n%%%%EOF\n" % xref
    return out


ZERO_PAGE_PDF = _assemble([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"])


def encrypted_pdf(path: Path) -> Path:
    """A PDF whose /Encrypt dictionary does not open with the empty password."""
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>",
        b"<</Filter/Standard/V 1/R 2/Length 40/P -4/O<" + b"11" * 32 + b">/U<" + b"22" * 32 + b">>>",
    ]
    path.write_bytes(_assemble(objs, b"/Encrypt 4 0 R/ID[<" + b"ab" * 16 + b"><" + b"ab" * 16 + b">]"))
    return path


# TrueType pages (text in any script): the round 37-38 layout tests build their pages with this.
DEJAVU = {"R": Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"),
          "B": Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf")}


def load_ttf(pdf, font: Path, keep: list):
    """A TrueType font file embedded in ``pdf``; its bytes go into ``keep``, which must outlive the save."""
    raw = font.read_bytes()
    buf = (ctypes.c_uint8 * len(raw)).from_buffer_copy(raw)
    keep.append(buf)
    return c.FPDFText_LoadFont(pdf.raw, buf, len(raw), c.FPDF_FONT_TRUETYPE, True)


def ttf_text(pdf, font, size: float, text: str):
    """A text object of ``text`` in a loaded TrueType font (not yet placed on a page)."""
    obj = c.FPDFPageObj_CreateTextObj(pdf.raw, font, ctypes.c_float(size))
    c.FPDFText_SetText(obj, (ctypes.c_ushort * (len(text) + 1))(*map(ord, text), 0))
    return obj


def make_ttf_pdf(path: Path, pages: list[list[tuple]], page_size=(595.0, 842.0)) -> Path:
    """A4 pages set in DejaVu Serif (a TrueType font with Cyrillic glyphs; the test skips where it is not
    installed). pages: per page (text, x, top, font size[, font "R"|"B"[, width]]): a line whose width is given
    is scaled across to it (a justified line, from x to x + width)."""
    if not all(p.exists() for p in DEJAVU.values()):
        import pytest

        pytest.skip("DejaVu fonts are not installed")
    pdf = pdfium.PdfDocument.new()
    keep, fonts = [], {}
    for rows in pages:
        page = pdf.new_page(*page_size)
        for text, x, top, font_size, *rest in rows:
            key = rest[0] if rest else "R"
            if key not in fonts:
                fonts[key] = load_ttf(pdf, DEJAVU[key], keep)
            obj = ttf_text(pdf, fonts[key], font_size, text)
            scale = 1.0
            if len(rest) > 1:
                lo, bo, ro, to = (ctypes.c_float() for _ in range(4))
                c.FPDFPageObj_GetBounds(obj, lo, bo, ro, to)
                scale = rest[1] / (ro.value - lo.value)
            c.FPDFPageObj_Transform(obj, scale, 0, 0, 1, x, page_size[1] - top)
            c.FPDFPage_InsertObject(page.raw, obj)
        c.FPDFPage_GenerateContent(page.raw)
        page.close()
    pdf.save(str(path))
    pdf.close()
    return path
