"""Caption labels (round 39, tCap): a figure whose caption's label is printed in capitals
(REVTeX's "FIG. 1.", WileyNJD's "FIGURE 1"), as "Fig 1." without its point (PLOS's), or in
another language ("Abbildung 2:", "Rys. 3.", "Рис. 4.") gets its drawing cropped and written as
an image line labelled "Figure N", the printed word listed in removed.json; running text that
starts a line with "Fig 3 shows" or "Abbildung 3 zeigt" stays text. Small PDFs drawn with pypdfium2."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from _pdfgen import DEJAVU, LETTER_HEIGHT, draw_rect, draw_text, load_ttf, make_ttf_pdf, ttf_text
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs

BODY = ("The method reads every page once and keeps each float beside its caption so that a reader "
        "always finds it.")


def _para(pdf, page, y, n=5, text=BODY, font="Times-Roman"):
    for _ in range(n):
        draw_text(pdf, page, text, 72, y, 10, font)
        y += 13
    return y + 10


def _figure_page(pdf, label: str, title: str, size: float = 8.0, font: str = "Times-Roman"):
    """Body text, a drawing, its caption in smaller type under it, more body text."""
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    draw_rect(page, 150, y + 10, 400, y + 150, (30, 90, 200))
    draw_text(pdf, page, f"{label} {title}", 90, y + 166, size, font)
    draw_text(pdf, page, "of the quantities that the model predicts for every sample.", 90, y + 176, size, font)
    _para(pdf, page, y + 200, 4)
    page.gen_content()
    page.close()


def _compile(pdf, path: Path, tmp_path: Path) -> tuple[str, Path]:
    pdf.save(str(path))
    pdf.close()
    options = CompileOptions()
    doc = compile_document(path, options)
    out = tmp_path / "out"
    write_outputs(doc, out, options)
    return (out / "document.md").read_text(), out


def _image_lines(md: str) -> list[str]:
    return [ln for ln in md.splitlines() if ln.startswith("![")]


def test_capital_label_fig_point_gets_its_crop(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "FIG. 1.", "Typical values of the spreading ratio against the impact speed,")
    md, out = _compile(pdf, tmp_path / "revtex.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 1: Typical values of the spreading ratio"), images[0]
    assert "of the quantities that the model predicts" in images[0]
    assert (out / "figures" / "fig-1.png").stat().st_size > 100


def test_capital_label_figure_word_gets_its_crop(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "FIGURE 2", "Prior dose response surface with the interaction terms set,")
    md, out = _compile(pdf, tmp_path / "wiley.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 2: Prior dose response surface"), images[0]
    assert (out / "figures" / "fig-2.png").exists()


def test_fig_without_point_is_a_caption_with_its_crop(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "Fig 3.", "Example of gathering columns that hold the same variable,", 9.0, "Times-Bold")
    md, out = _compile(pdf, tmp_path / "plos.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 3: Example of gathering columns"), images[0]
    assert (out / "figures" / "fig-3.png").exists()


def test_capital_fig_without_point_is_a_caption(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "FIG 4.", "Pathway of the biosynthesis in the fungus under study,")
    md, _ = _compile(pdf, tmp_path / "imsart.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 4: Pathway of the biosynthesis"), images[0]


def test_running_text_fig_without_point_stays_text(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    # a paragraph whose wrapped line starts with "Fig 3 shows": body type, lower-case verb
    draw_text(pdf, page, "The numbers below come from the same runs as the ones before them, and", 72, y, 10,
              "Times-Roman")
    draw_text(pdf, page, "Fig 3 shows how the spread of the runs grows with the size of the input that", 72, y + 13,
              10, "Times-Roman")
    draw_text(pdf, page, "each run was given, which the reader can check against the table.", 72, y + 26, 10,
              "Times-Roman")
    _para(pdf, page, y + 50, 3)
    page.gen_content()
    page.close()
    md, _ = _compile(pdf, tmp_path / "body.pdf", tmp_path)
    assert "**Figure 3:**" not in md and not _image_lines(md), md
    assert "and Fig 3 shows how the spread" in md


def _removed(out: Path, reason: str) -> list[str]:
    return [r["text"] for r in json.loads((out / "removed.json").read_text())["removed"] if r.get("reason") == reason]


def test_printed_label_word_is_listed_as_removed(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "FIG. 1.", "Typical values of the spreading ratio against the impact speed,")
    _, out = _compile(pdf, tmp_path / "revtex.pdf", tmp_path)
    assert _removed(out, "caption-label") == ["FIG."]


def test_german_label_gets_its_crop(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "Abbildung 2:", "Aufbau der Messung mit dem Sensor und dem Verstärker,", 9.0)
    md, out = _compile(pdf, tmp_path / "de.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 2: Aufbau der Messung mit dem Sensor"), images[0]
    assert (out / "figures" / "fig-2.png").exists()
    assert _removed(out, "caption-label") == ["Abbildung"]


def test_polish_label_with_chapter_number_is_a_caption(tmp_path):
    pdf = pdfium.PdfDocument.new()
    _figure_page(pdf, "Rys. 3.1.", "Zakladany tor lotu ciala w polu grawitacyjnym,", 8.0)
    md, _ = _compile(pdf, tmp_path / "pl.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 3.1: Zakladany tor lotu"), images[0]


def test_german_table_label_is_a_table_caption(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    draw_text(pdf, page, "Tabelle 1: Messwerte der drei Proben bei Raumtemperatur", 72, y + 10, 9, "Times-Bold")
    _para(pdf, page, y + 40, 3)
    page.gen_content()
    page.close()
    md, _ = _compile(pdf, tmp_path / "tab.pdf", tmp_path)
    assert "**Table 1:** Messwerte der drei Proben bei Raumtemperatur" in md, md


def test_cyrillic_label_gets_its_crop(tmp_path):
    if not DEJAVU["R"].exists():
        pytest.skip("DejaVu fonts are not installed")
    pdf = pdfium.PdfDocument.new()
    keep: list = []
    font = load_ttf(pdf, DEJAVU["R"], keep)
    page = pdf.new_page(612, 792)

    def put(text, x, top, size):
        obj = ttf_text(pdf, font, size, text)
        pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, ctypes.c_double(x), ctypes.c_double(LETTER_HEIGHT - top))
        pdfium_c.FPDFPage_InsertObject(page.raw, obj)

    y = 72
    for _ in range(5):
        put("Метод читает каждую страницу один раз и держит рисунок рядом с подписью.", 72, y, 10)
        y += 13
    draw_rect(page, 150, y + 10, 400, y + 150, (30, 90, 200))
    put("Рис. 4. Граф блоков программы и связи между ними", 90, y + 166, 8)
    y += 200
    for _ in range(4):
        put("Метод читает каждую страницу один раз и держит рисунок рядом с подписью.", 72, y, 10)
        y += 13
    page.gen_content()
    page.close()
    md, out = _compile(pdf, tmp_path / "ru.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert images[0].startswith("![Figure 4: Граф блоков программы"), images[0]
    assert (out / "figures" / "fig-4.png").exists()


def test_running_text_in_german_stays_text(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    draw_text(pdf, page, "Die Werte stammen aus denselben Messreihen wie die vorigen, und", 72, y, 10, "Times-Roman")
    draw_text(pdf, page, "Abbildung 3 zeigt, wie die Streuung der Messungen mit der Dauer der Messung", 72, y + 13, 10,
              "Times-Roman")
    draw_text(pdf, page, "zunimmt, was der Leser an der Tabelle nachprüfen kann.", 72, y + 26, 10, "Times-Roman")
    _para(pdf, page, y + 50, 3)
    page.gen_content()
    page.close()
    md, _ = _compile(pdf, tmp_path / "body_de.pdf", tmp_path)
    assert "**Figure 3:**" not in md and not _image_lines(md), md
    assert "und Abbildung 3 zeigt, wie die Streuung" in md


def test_running_text_above_the_picture_does_not_take_its_crop(tmp_path):
    # "Figure 2 is a ..." in the text right over the drawing, the caption under it: the caption
    # gets the crop (the body line named no drawing)
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    draw_text(pdf, page, "Figure 2 is a simplified excerpt of the model that the tool reads from its input", 72, y, 10,
              "Times-Roman")
    draw_text(pdf, page, "files, and the reader can follow each of its classes below.", 72, y + 13, 10, "Times-Roman")
    draw_rect(page, 150, y + 40, 400, y + 180, (30, 90, 200))
    draw_text(pdf, page, "Figure 2: Simplified excerpt of the model read by the tool", 160, y + 196, 9, "Times-Roman")
    _para(pdf, page, y + 230, 3)
    page.gen_content()
    page.close()
    md, out = _compile(pdf, tmp_path / "body_over.pdf", tmp_path)
    images = _image_lines(md)
    assert images == ["![Figure 2: Simplified excerpt of the model read by the tool](figures/fig-2.png)"], md
    assert (out / "figures" / "fig-2.png").exists()


def _put(pdf, page, text, x, top, size, font="Times-Roman") -> float:
    """Place a line of text; returns its right edge (points)."""
    obj = pdfium_c.FPDFPageObj_NewTextObj(pdf.raw, font.encode(), ctypes.c_float(size))
    pdfium_c.FPDFText_SetText(obj, (ctypes.c_ushort * (len(text) + 1))(*map(ord, text), 0))
    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, ctypes.c_double(x), ctypes.c_double(LETTER_HEIGHT - top))
    pdfium_c.FPDFPage_InsertObject(page.raw, obj)
    lo, bo, ro, to = (ctypes.c_float() for _ in range(4))
    pdfium_c.FPDFPageObj_GetBounds(obj, lo, bo, ro, to)
    return ro.value


def test_caption_line_split_at_a_radical_keeps_its_rest(tmp_path):
    # the text layer splits a caption line at a raised radical: the pieces right of it, on the
    # same line, go on with the caption, and so do the lines under them
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    draw_rect(page, 150, y + 10, 400, y + 150, (30, 90, 200))
    _put(pdf, page, "Figure 3: Spreading ratio of the drops against the impact speed for all the runs,", 72, y + 166, 9)
    end = _put(pdf, page, "plotted over the Reynolds number Re =", 72, y + 177, 9)
    end = _put(pdf, page, "\u221a", end + 1, y + 173, 9, "Symbol")  # raised off the line
    _put(pdf, page, "We/Oh with the three fitted lines.", end + 1, y + 177, 9)
    _put(pdf, page, "The grey band marks the runs where the drop splashed.", 72, y + 188, 9)
    _para(pdf, page, y + 215, 4)
    page.gen_content()
    page.close()
    md, _ = _compile(pdf, tmp_path / "radical.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert "Re =" in images[0] and "We/Oh with the three fitted lines" in images[0], images[0]
    assert "The grey band marks the runs where the drop splashed" in images[0], images[0]


def test_double_spaced_caption_in_smaller_type_is_one_caption(tmp_path):
    # a preprint set double-spaced: body 12 pt at a 24 pt pitch, the caption in 10.9 pt at a
    # 21 pt pitch (its gaps wider than a single-spaced caption's)
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(6):
        draw_text(pdf, page, "The method reads every page once and keeps each float beside its caption so", 72, y, 12,
                  "Times-Roman")
        y += 24
    draw_rect(page, 150, y, 400, y + 140, (30, 90, 200))
    y += 160
    for text in ("Figure 4: Phase space of the impact regimes in the plane of the two numbers, with",
                 "the simulated points marked and the three regime lines drawn through them, each",
                 "line labelled with its fitted slope and its uncertainty."):
        draw_text(pdf, page, text, 72, y, 10.9, "Times-Roman")
        y += 21
    y += 14
    for _ in range(4):
        draw_text(pdf, page, "The method reads every page once and keeps each float beside its caption so", 72, y, 12,
                  "Times-Roman")
        y += 24
    page.gen_content()
    page.close()
    md, _ = _compile(pdf, tmp_path / "preprint.pdf", tmp_path)
    images = _image_lines(md)
    assert len(images) == 1, md
    assert "line labelled with its fitted slope and its uncertainty" in images[0], images[0]



def test_hanging_caption_with_label_and_title_in_one_span(tmp_path):
    # classicthesis' hanging captions, justified: "Figure 11: The ..." and the next lines 47 pt in,
    # under the title, to the same right edge; the paragraph after the caption (back at the
    # margin, in the body's type) is text again
    body = "The method reads every page once and keeps each float beside its caption so that"
    rows = [(body, 72, 72 + 14 * k, 10.9, "R", 400) for k in range(5)]
    rows += [("Figure 11: The hierarchical rank data structure. The first level is", 72, 160, 10, "R", 400),
             ("made of superblocks that store the absolute ranks, the second", 119, 172.5, 10, "R", 353),
             ("of blocks that store their ranks relative to the superblock, and", 119, 185, 10, "R", 353),
             ("the last a lookup table shared by all.", 119, 197.5, 10)]
    rows += [(body, 72, 226 + 14 * k, 10.9, "R", 400) for k in range(4)]
    path = make_ttf_pdf(tmp_path / "hang.pdf", [rows], page_size=(612.0, 792.0))
    options = CompileOptions()
    out = tmp_path / "out"
    write_outputs(compile_document(path, options), out, options)
    md = (out / "document.md").read_text()
    caption = next((ln for ln in md.splitlines() if ln.startswith(("**Figure 11:**", "![Figure 11:"))), "")
    assert "the last a lookup table shared by all." in caption, md
    assert "The method reads" not in caption, caption
