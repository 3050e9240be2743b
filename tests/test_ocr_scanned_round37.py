"""Round 37, the scanned-PDF road (benchmarks/results/round36_scanned.md S1, S2): page assembly of
OCR'd pages, on pages these tests draw and on hOCR written here.

S1: a reference list that hangs its labels in a column of their own comes out of Tesseract as a
run of lone label lines beside one unlabelled block of entries; the labels are set back in front
of the entry lines on their rows. S2: a tall letter (a small-caps heading's capital, an ascender
boxed high) is no footnote mark: a mark is small and ends above the baseline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.sources import ocr

needs_tesseract = pytest.mark.skipif(ocr.tesseract_command() is None, reason="tesseract is not installed")

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SERIF_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
needs_fonts = pytest.mark.skipif(not Path(SERIF).is_file() or not Path(SERIF_BOLD).is_file(),
                                 reason="DejaVu fonts are not installed")

ENTRIES = [
    ["A. Author and B. Writer. A study of scanned pages and", "their reference lists. Journal of Tests, 12(3):1-9, 2019."],
    ["C. Reader. Columns of labels beside the entries they", "belong to. In Proceedings of Layout, pages 5-17, 2020."],
    ["D. Printer, E. Setter, and F. Binder. Hanging labels", "in two-column papers. Press of Pages, 2018."],
    ["G. Scanner. Optical reading of bracketed numbers.", "Letters on Recognition, 7:33-41, 2021."],
    ["H. Folio and I. Margin. The reading order of blocks", "on a page. Transactions on Documents, 4(2), 2017."],
    ["J. Index. Counting what a list holds. Notes on", "Bibliographies, 2016."],
]


def _reference_page(dpi: int = 150):
    """A reference list as ACM and IEEE print it: [n] in a column, the entry's lines beside it."""
    from PIL import Image, ImageDraw, ImageFont

    k = dpi / 72
    img = Image.new("L", (int(612 * k), int(400 * k)), 255)
    d = ImageDraw.Draw(img)
    body, head = ImageFont.truetype(SERIF, int(9 * k)), ImageFont.truetype(SERIF_BOLD, int(11 * k))
    d.text((60 * k, 40 * k), "REFERENCES", font=head, fill=0)
    y = 62 * k
    for n, lines in enumerate(ENTRIES, 1):
        d.text((60 * k, y), f"[{n}]", font=body, fill=0)
        for line in lines:
            d.text((84 * k, y), line, font=body, fill=0)
            y += 11.5 * k
        y += 4 * k
    return img


@needs_tesseract
@needs_fonts
def test_a_column_of_labels_opens_the_entries_beside_it(tmp_path, monkeypatch):
    from ctxmill.compile.pipeline import compile_document

    pdf = tmp_path / "refs.pdf"
    _reference_page().save(str(pdf), "PDF", resolution=150.0)  # a scan: one JPEG, no text layer
    doc = compile_document(pdf, CompileOptions())
    assert doc.stream.pages[0].ocr
    refs = [r.raw for r in doc.references]
    assert len(refs) == len(ENTRIES)
    for n, (raw, lines) in enumerate(zip(refs, ENTRIES, strict=True), 1):
        assert raw.startswith(f"[{n}] ")
        assert lines[0].split(".")[0][:2] in raw  # each entry under its own label
    assert "References" in doc.markdown or "REFERENCES" in doc.markdown


def _line(words: list[tuple[str, tuple[int, int, int, int]]], size: float = 30.0) -> ocr.TextLine:
    ws = [ocr.Word(t, b, 0.9) for t, b in words]
    box = (min(b[0] for _, b in words), min(b[1] for _, b in words), max(b[2] for _, b in words),
           max(b[3] for _, b in words))
    return ocr.TextLine(words=ws, box=box, size=size)


def _texts(lines: list[ocr.TextLine]) -> list[str]:
    return [" ".join(w.text for w in ln.words) for ln in lines]


def test_label_column_misreads_are_put_right_from_their_neighbours():
    rows = [100, 200, 300, 400, 500, 600, 700, 800, 900]
    read = ["[1]", "2]", "(3", None, "[5]", "1)", "{7}", "[8]", "(4)"]  # None: a speck the engine dropped ("i]")
    labels = [_line([(t, (20, y, 50, y + 26))]) for t, y in zip(read, rows, strict=True) if t]
    loose = [_line([("i]", (20, 400, 50, 426))])]
    entries = [_line([(f"Entry{k}", (68, y, 400, y + 25)), ("text.", (410, y, 470, y + 25))]) for k, y in
               enumerate(rows, 1)]
    heading = [_line([("7.", (5, 40, 30, 66))]), _line([("REFERENCES", (45, 40, 300, 66))])]
    out = ocr.attach_label_column(heading + labels + entries, loose)
    assert _texts(out) == ["7. REFERENCES"] + [f"[{k}] Entry{k} text." for k in range(1, 10)]


def test_what_is_no_label_column_is_left_alone():
    entries = [_line([("Some", (68, y, 200, y + 25)), ("words", (210, y, 300, y + 25))]) for y in (100, 200, 300)]
    # numbers in no order beside a table's cells
    table = [_line([(t, (20, y, 50, y + 26))]) for t, y in zip(["[7]", "[2]", "[9]"], (100, 200, 300), strict=True)]
    assert _texts(ocr.attach_label_column(table + entries)) == _texts(table + entries)
    # labels with nothing on their row to the right (a column gap away)
    far = [_line([(f"[{k}]", (20, y, 50, y + 26))]) for k, y in ((1, 100), (2, 200), (3, 300))]
    away = [_line([("Text", (200, y, 400, y + 25))]) for y in (100, 200, 300)]
    assert _texts(ocr.attach_label_column(far + away)) == _texts(far + away)
    # letters in brackets are a list's items, not reference labels
    items = [_line([(f"({c})", (20, y, 50, y + 26))]) for c, y in (("a", 100), ("b", 200), ("c", 300))]
    assert _texts(ocr.attach_label_column(items + entries)) == _texts(items + entries)
    # two labels are no column; and specks in no column are dropped
    two = far[:2] + entries[:2]
    speck = [_line([("i]", (20, 900, 50, 926))])]
    assert _texts(ocr.attach_label_column(two, speck)) == _texts(two)


def _hocr_line(chars: list[tuple[str, tuple[int, int, int, int]]], words: list[int]) -> bytes:
    """One hOCR line (baseline at y=132) of words made of the given character boxes; ``words``: how
    many characters each word takes."""
    out, k = [], 0
    for n in words:
        part = chars[k:k + n]
        k += n
        x0, y0 = min(b[0] for _, b in part), min(b[1] for _, b in part)
        x1, y1 = max(b[2] for _, b in part), max(b[3] for _, b in part)
        cs = "".join(f"<span class='ocrx_cinfo' title='x_bboxes {b[0]} {b[1]} {b[2]} {b[3]}; x_conf 95'>{c}</span>"
                     for c, b in part)
        out.append(f"<span class='ocrx_word' title='bbox {x0} {y0} {x1} {y1}; x_wconf 90'>{cs}</span>")
    return ("<html><body><div class='ocr_page' title='bbox 0 0 2000 400'>"
            "<span class='ocr_line' title='bbox 100 90 1500 140; baseline 0 -8; x_size 30'>"
            + "".join(out) + "</span></div></body></html>").encode()


def _caps(text: str, x: int, top: int = 112, bottom: int = 132, w: int = 18) -> list:
    return [(c, (x + i * (w + 2), top, x + i * (w + 2) + w, bottom)) for i, c in enumerate(text)]


def test_a_tall_letter_on_the_baseline_is_no_marker_but_a_small_raised_one_is():
    # "1 INTRODUCTION" in small caps: the I is a full capital (it starts well above the small
    # capitals and stands on the baseline); it was split off and read as a mark "1"
    chars = [("1", (100, 98, 116, 132))] + [("I", (140, 98, 150, 132))] + _caps("NTRODUCTION", 152)
    line = ocr.parse_hocr(_hocr_line(chars, [1, 12])).lines[0]
    assert [(w.text, w.superscript) for w in line.words] == [("1", False), ("INTRODUCTION", False)]
    # a word with a tall ascender boxed high ("learning"): one word
    chars = [("l", (100, 96, 108, 132))] + _caps("earning", 110, top=118) + _caps("WORDS", 300)
    line = ocr.parse_hocr(_hocr_line(chars, [8, 5])).lines[0]
    assert [w.text for w in line.words] == ["learning", "WORDS"]
    # ... while a small mark that ends above the baseline is split off as before ("Liu1", "2Dept")
    chars = _caps("LIU", 100) + [("1", (162, 100, 170, 112))] + [("2", (300, 100, 308, 112))] + _caps("DEPT", 310)
    line = ocr.parse_hocr(_hocr_line(chars, [4, 5])).lines[0]
    assert [(w.text, w.superscript) for w in line.words] == [("LIU", False), ("1", True), ("2", True),
                                                             ("DEPT", False)]


@needs_tesseract
@needs_fonts
def test_a_small_caps_heading_is_read_whole():
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    dpi = 200
    k = dpi / 72
    img = Image.new("L", (int(400 * k), int(160 * k)), 255)
    d = ImageDraw.Draw(img)
    big, small = ImageFont.truetype(SERIF, int(12 * k)), ImageFont.truetype(SERIF, int(9.5 * k))
    lift = big.getmetrics()[0] - small.getmetrics()[0]
    x, y = 40 * k, 40 * k
    for word in ["1", "Introduction"]:  # \textsc: a full capital, then small capitals on one baseline
        d.text((x, y), word[0], font=big, fill=0)
        x += d.textlength(word[0], font=big)
        d.text((x, y + lift), word[1:].upper(), font=small, fill=0)
        x += d.textlength(word[1:].upper(), font=small) + d.textlength(" ", font=big)
    d.text((40 * k, 80 * k), "Learning deep models takes data and time.", font=ImageFont.truetype(SERIF, int(10 * k)),
           fill=0)
    text = ocr.read_inked(ocr.TesseractEngine(), np.asarray(img), dpi, 60)
    words = [(w.text, w.superscript) for ln in text.lines for w in ln.words]
    assert ("INTRODUCTION", False) in words and not any(sup for _, sup in words)
