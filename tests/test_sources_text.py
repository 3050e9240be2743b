"""Sources for text inputs: kind sniffing, decoding, OCR page markers, Markdown."""

from __future__ import annotations

import pytest

from ctxmill.errors import InputRefused
from ctxmill.sources import decode_text, load_source, sniff_kind
from ctxmill.sources.ocr_text import read_ocr_text

OCR = """arXiv:2401.00001v1 [cs.CL] 2 Jan 2024
A Tiny Paper
Intro text \\( ^{1} \\) here.
1
── PAGE 2 / 3 ──
More text.
2
── PAGE 3 / 3 ──
Last page.
3
"""


def test_sniff_kinds():
    assert sniff_kind(b"%PDF-1.7\n...", "x.txt") == "pdf"
    assert sniff_kind(b"hello", "paper.pdf") == "pdf"  # refused later by the PDF reader
    assert sniff_kind(OCR.encode(), "x.txt") == "ocr_text"
    assert sniff_kind(b"<table><tr><td>a</td></tr></table> text", None) == "ocr_text"
    assert sniff_kind(b"# Title\n\nSome *markdown* text.\n", "x.md") == "markdown"


def test_ocr_pages_and_printed_numbers():
    s = read_ocr_text(OCR)
    assert [p.number for p in s.pages] == [1, 2, 3]
    assert [p.printed_number for p in s.pages] == ["1", "2", "3"]
    assert s.declared_pages == 3
    assert all(p.ocr for p in s.pages)
    assert [ln.text for ln in s.pages[1].lines] == ["More text."]
    assert not any("PAGE" in ln.text for p in s.pages for ln in p.lines)


def test_load_source_bytes_and_sha():
    s = load_source(OCR.encode(), name="paste.txt")
    assert s.kind == "ocr_text" and len(s.sha256) == 64 and s.path == "paste.txt"
    md = load_source(b"# T\n\nBody.\n")
    assert md.kind == "markdown"


@pytest.mark.parametrize("data,reason", [
    (b"", "empty"),
    (b"   \n\n\t ", "empty"),
    (bytes(range(256)) * 20, "binary"),
    (b"\x00\x01\x02garbage\x00" * 100, "binary"),
])
def test_refuses_junk(data, reason):
    with pytest.raises(InputRefused) as exc:
        load_source(data, name="bad.txt")
    assert reason in str(exc.value)
    assert "\n" not in str(exc.value)


def test_decodes_legacy_encodings():
    assert decode_text("Café résumé naïve text".encode("cp1252")) == "Café résumé naïve text"
    assert decode_text("Grüße aus Köln, mit Text".encode("utf-16")) == "Grüße aus Köln, mit Text"
    assert decode_text("\ufeffBOM text here".encode("utf-8")) == "BOM text here"
    assert decode_text(b"line one\r\nline two\r\n") == "line one\nline two\n"


def test_missing_and_folder(tmp_path):
    with pytest.raises(InputRefused):
        load_source(tmp_path / "nope.txt")
    with pytest.raises(InputRefused):
        load_source(tmp_path)
