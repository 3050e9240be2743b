"""Files that are not PDFs or text are named in plain words; images are read with OCR like a
scanned page (issue 16), through the command line and the Python API alike."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ctxmill.sources.filetype import identify
from test_ocr import BODY, needs_tesseract, page_image

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


DOCX = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"})
XLSX = _zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>"})
EPUB = _zip({"mimetype": b"application/epub+zip", "OEBPS/content.opf": b"<package/>"})
PNG_HEAD = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


@pytest.mark.parametrize("data, words", [
    (DOCX, "Word document"), (XLSX, "Excel workbook"), (EPUB, "EPUB e-book"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, "older Microsoft Office"),
    (b"{\\rtf1\\ansi hello}", "Rich Text"), (b"\x7fELF\x02\x01\x01" + b"\x00" * 100, "program"),
    (_zip({"a.txt": b"x"}), "ZIP archive"),
])
def test_unsupported_files_are_named_with_what_to_do(tmp_path, data, words):
    f = tmp_path / "upload.pdf"  # a wrong extension must not matter
    f.write_bytes(data)
    r = subprocess.run([str(CTXMILL), "compile", str(f), "-o", str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 3
    assert words in r.stderr and "ctxmill reads PDFs, images" in r.stderr
    assert not (tmp_path / "out").exists()


def test_identify_knows_images_pdfs_and_text():
    assert identify(b"%PDF-1.7\n...")[0] == "pdf"
    assert identify(PNG_HEAD) == ("image", "PNG image")
    assert identify(b"\xff\xd8\xff\xe0" + b"\x00" * 20) == ("image", "JPEG image")
    assert identify(b"II*\x00" + b"\x00" * 20) == ("image", "TIFF image")
    assert identify(b"# A heading\n\nSome text.")[0] == "text"
    assert identify(b"MZ is a short word")[0] == "text"


@needs_tesseract
def test_a_png_photo_of_a_page_is_read_with_ocr(tmp_path):
    pytest.importorskip("PIL")
    img = page_image("1 Introduction", BODY)
    f = tmp_path / "scan.png"
    img.save(f, dpi=(200, 200))
    out = tmp_path / "out"
    r = subprocess.run([str(CTXMILL), "compile", str(f), "-o", str(out), "--json"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    md = (out / "document.md").read_text()
    assert "scanned pages into clean text" in md
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["pages"] == 1


@needs_tesseract
def test_a_multipage_tiff_gives_one_page_per_frame(tmp_path):
    pytest.importorskip("PIL")
    frames = [page_image(f"{n} Part", BODY, dpi=150) for n in (1, 2)]
    f = tmp_path / "pages.tiff"
    frames[0].save(f, save_all=True, append_images=frames[1:], dpi=(150, 150))
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    doc = compile_document(f, CompileOptions(fast=True))
    assert doc.pages == 2 and all(p.ocr for p in doc.stream.pages)


def test_a_damaged_image_is_refused_with_a_reason(tmp_path):
    f = tmp_path / "broken.png"
    f.write_bytes(PNG_HEAD + b"garbage" * 10)
    r = subprocess.run([str(CTXMILL), "compile", str(f)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 3 and "image could not be read" in r.stderr
