"""Floats and captions (round 34, tFloat): algorithm and listing floats keep their own label and
are what the text's "Algorithm 2" points at; captions in a body-type face that the caption
finder refused (a chapter number with a colon and a lower-case title, a centred "Table 3.1:",
APA's italic "Figure 1." and its "Table 1" over an italic title line); a caption that an
included figure's box runs under stays in the text. Small PDFs drawn with pypdfium2."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

from _pdfgen import draw_image, draw_rect, draw_text
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs

BODY = ("The method reads every page once and keeps each float beside its caption so that a reader "
        "always finds it.")



def _text(pdf, page, text, x, y, size=10.0, font="Times-Roman"):
    draw_text(pdf, page, text, x, y, size, font)


def _para(pdf, page, y, n=5, text=BODY):
    for _ in range(n):
        _text(pdf, page, text, 72, y)
        y += 13
    return y + 10


def _compile(pdf, path: Path, tmp_path: Path):
    pdf.save(str(path))
    pdf.close()
    options = CompileOptions()
    doc = compile_document(path, options)
    write_outputs(doc, tmp_path / "out", options)
    out = tmp_path / "out"
    return (out / "document.md").read_text(), json.loads((out / "citations.json").read_text()), \
        json.loads((out / "qa.json").read_text()), out


def _dangling(qa: dict) -> list[str]:
    return [ch["message"] for ch in qa["checks"] if ch["id"] in ("missing_target", "missing_figure_or_table")]


def _resolved(cits: dict, text: str) -> bool:
    return any(x["text"] == text and x.get("target_id") for x in cits["crossrefs"])


def test_algorithm_float_keeps_its_label_and_its_references_resolve(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    # algorithm2e: the label bold, the title roman, the body led by a bold keyword and line numbers
    _text(pdf, page, "Algorithm 1:", 80, y, 10, "Times-Bold")
    _text(pdf, page, "Primality Test by Random Witnesses", 137, y)
    _text(pdf, page, "Input:", 86, y + 14, 10, "Times-Bold")
    _text(pdf, page, "Integer n", 116, y + 14)
    _text(pdf, page, "1", 78, y + 32, 7, "Times-Bold")
    _text(pdf, page, "Choose a uniformly at random", 90, y + 32)
    _text(pdf, page, "2", 78, y + 46, 7, "Times-Bold")
    _text(pdf, page, "return prime", 90, y + 46)
    y = _para(pdf, page, y + 70, 3)
    _text(pdf, page, "Algorithm 2:", 80, y, 10, "Times-Bold")
    _text(pdf, page, "Contract Random Edges", 137, y)
    _text(pdf, page, "Input:", 86, y + 14, 10, "Times-Bold")
    _text(pdf, page, "Graph G with n vertices", 116, y + 14)
    y = _para(pdf, page, y + 40, 2)
    _text(pdf, page, "We show that Algorithm 2 returns a minimum cut and that Algorithm 1 errs rarely, as in Figure 1.",
          72, y)
    draw_rect(page, 150, y + 30, 300, y + 110, (220, 30, 30))
    _text(pdf, page, "Figure 1: A drawing that is a figure.", 150, y + 124, 9)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "algo.pdf", tmp_path)
    assert "**Algorithm 1:** Primality Test by Random Witnesses\n" in md
    assert "**Algorithm 2:** Contract Random Edges\n" in md
    assert "Input: Integer n" in md  # the body's first line stays text, not part of the caption
    assert "Figure 1: A drawing that is a figure." in md  # a figure keeps its own word and number
    assert "Figure 2" not in md and "Figure 3" not in md
    assert _resolved(cits, "Algorithm 2") and _resolved(cits, "Algorithm 1") and _resolved(cits, "Figure 1")
    assert not _dangling(qa), _dangling(qa)


def test_listing_float_keeps_its_label(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    _text(pdf, page, "Listing 1: Constructing a timing object.", 150, y, 9)
    _text(pdf, page, "var to = new TimingObject();", 100, y + 20, 9, "Courier")
    y = _para(pdf, page, y + 44, 2)
    _text(pdf, page, "Listing 1 shows how a timing object is made; the rest of the text follows it here.", 72, y)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "listing.pdf", tmp_path)
    assert "**Listing 1:** Constructing a timing object." in md
    assert "Figure 1" not in md
    assert _resolved(cits, "Listing 1")


def test_chapter_numbered_captions_with_a_colon_in_body_type(tmp_path):
    """Quarto/bookdown: 'Figure 2.1: the study area' (a lower-case title) under a drawing and a
    centred 'Table 3.1: Table of numbers.' over a small grid, both in the body's own type."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "See Figure 2.1 for a picture of the study area and Table 3.1 for the numbers we read.", 72, y)
    y += 30
    draw_rect(page, 220, y, 390, y + 90, (30, 30, 220))
    _text(pdf, page, "Figure 2.1: the study area", 246, y + 104)
    y = _para(pdf, page, y + 130, 3)
    _text(pdf, page, "Table 3.1: Table of numbers.", 240, y)
    for k, (a, b, d) in enumerate((("Thing", "Value", "Count"), ("A", "42", "18"), ("B", "15", "18"),
                                   ("C", "34", "17"))):
        _text(pdf, page, a, 250, y + 18 + 14 * k)
        _text(pdf, page, b, 300, y + 18 + 14 * k)
        _text(pdf, page, d, 350, y + 18 + 14 * k)
    _para(pdf, page, y + 90, 3)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "quarto.pdf", tmp_path)
    assert "Figure 2.1: the study area" in md and "\nFigure 2.1: the study area\n" not in md  # not a paragraph
    assert "**Table 3.1:** Table of numbers." in md
    assert _resolved(cits, "Figure 2.1") and _resolved(cits, "Table 3.1")
    assert not _dangling(qa), _dangling(qa)


def test_apa_labels_in_their_own_face(tmp_path):
    """papaja (APA): '*Figure 1*. Title' with the label in italics, and 'Table 1' alone on its
    line over the title in italics; double-spaced text."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(3):
        _text(pdf, page, BODY, 72, y, 12)
        y += 24
    _text(pdf, page, "The template is shown in Figure 1 and the statistics in Table 1 of this manuscript.", 72, y, 12)
    y += 40
    _text(pdf, page, "Table 1", 186, y, 12)
    _text(pdf, page, "Descriptive statistics of correct recall by dosage.", 187, y + 24, 12, "Times-Italic")
    for k, row in enumerate((("Dosage", "Mean", "Median", "SD"), ("A", "14.19", "14.00", "4.45"),
                             ("B", "13.50", "14.00", "5.15"), ("C", "19.19", "19.00", "3.52"))):
        for m, cell in enumerate(row):
            _text(pdf, page, cell, 193 + 70 * m, y + 62 + 24 * k, 12)
    y += 190
    for _ in range(2):
        _text(pdf, page, BODY, 72, y, 12)
        y += 24
    draw_rect(page, 150, y + 10, 400, y + 120, (220, 30, 30))
    _text(pdf, page, "Figure 1", 72, y + 140, 12, "Times-Italic")
    _text(pdf, page, ". papaja's template is available through the menus.", 118, y + 140, 12)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "apa.pdf", tmp_path)
    assert "**Table 1:** Descriptive statistics of correct recall by dosage." in md
    assert "Figure 1: papaja's template is available through the menus." in md
    assert "\nFigure 1. papaja" not in md
    assert _resolved(cits, "Figure 1") and _resolved(cits, "Table 1")


def test_caption_under_a_picture_box_that_runs_over_it_stays_text(tmp_path):
    """IEEE's title page: the included picture's box reaches under 'Fig. 1. ...' (8 pt, three
    lines); the caption is the figure's, not a label drawn in it."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(30):
        _text(pdf, page, "Text of the left column runs down the page.", 54, y)
        y += 12
    draw_image(pdf, page, 313, 150, 558, 440, (30, 160, 60))
    _text(pdf, page, "(a) Textile skin on the arm", 340, 300, 9)
    _text(pdf, page, "Fig. 1.", 313, 403, 8)
    _text(pdf, page, "Textile and printed sensors for a mobile manipulator robot", 340, 403, 8)
    _text(pdf, page, "enabling force-sensitive manipulation across different tasks.", 313, 412, 8)
    y = 460
    for _ in range(10):
        _text(pdf, page, "Text of the right column as Fig. 1 shows it runs here.", 313, y)
        y += 12
    page.gen_content()
    page.close()
    md, cits, qa, out = _compile(pdf, tmp_path / "ieee.pdf", tmp_path)
    assert "Textile and printed sensors for a mobile manipulator robot enabling force-sensitive" in md
    assert "Figure 1:" in md
    removed = json.loads((out / "removed.json").read_text())
    items = removed["removed"] if isinstance(removed, dict) else removed
    assert not any("Textile and printed sensors" in x.get("text", "") for x in items)
    assert any("(a) Textile skin" in x.get("text", "") for x in items)  # the figure's own label is still its text
    assert _resolved(cits, "Fig. 1")


def test_algorithmicx_numbered_lines_are_the_body_and_text_does_not_run_on_through_the_float(tmp_path):
    """algorithmicx: 'Algorithm 1 Building a tree' (bold label, no colon) over '1: T <- build(S)';
    a paragraph that ends with a comma on the page before does not swallow the algorithm's body."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(50):
        _text(pdf, page, BODY, 72, y)
        y += 13
    _text(pdf, page, "The space for the bitmaps and the pointers of the tree, which we count next,", 72, y)
    page.gen_content()
    page.close()
    page = pdf.new_page(612, 792)
    _text(pdf, page, "Algorithm 1", 137, 72, 10, "Times-Bold")
    _text(pdf, page, "Building a wavelet tree", 196, 72)
    _text(pdf, page, "1: T <- build(S, n, 1, s)", 148, 88)
    _text(pdf, page, "2: return T", 148, 102)
    _text(pdf, page, "function", 148, 116, 10, "Times-Bold")
    _text(pdf, page, "build(S, n, a, b)", 190, 116)
    y = _para(pdf, page, 150, 4)
    _text(pdf, page, "The tree is built by Algorithm 1 in time linear in the length of the text.", 72, y)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "algx.pdf", tmp_path)
    assert "**Algorithm 1:** Building a wavelet tree\n" in md
    assert "1: T <- build(S, n, 1, s)" in md
    assert "which we count next, 1: T" not in md and "which we count next, function" not in md
    assert _resolved(cits, "Algorithm 1")


def test_a_capitals_figure_caption_under_a_table_ends_its_rows(tmp_path):
    """IEEE Access: 'TABLE 1.' over its grid, then a figure's 'FIGURE 1.' caption under the grid:
    the caption is the figure's, not a row of the table."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "Fig. 1 shows the distribution and Table 1 lists the schemes we compare.", 72, y)
    y += 30
    _text(pdf, page, "TABLE 1.", 72, y, 7, "Helvetica-Bold")
    _text(pdf, page, "Comparison of the schemes.", 110, y, 7)
    for k, row in enumerate((("Reference", "Scheme", "Cost"), ("Liang", "RSBS", "Low"), ("Liu", "BVBS", "High"),
                             ("Arora", "Pair", "Low"))):
        for m, cell in enumerate(row):
            _text(pdf, page, cell, 80 + 90 * m, y + 16 + 11 * k, 8)
    _text(pdf, page, "FIGURE 1.", 72, y + 76, 7, "Helvetica-Bold")
    _text(pdf, page, "Distribution of the number of permissions.", 112, y + 76, 7)
    _para(pdf, page, y + 100, 4)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "access.pdf", tmp_path)
    assert "**Figure 1:** Distribution of the number of permissions." in md
    assert "<td>FIGURE 1." not in md and "| FIGURE 1." not in md
    assert _resolved(cits, "Fig. 1")


def test_a_double_spaced_caption_keeps_its_second_line(tmp_path):
    """A manuscript in double spacing: the caption's second line sits a double-spaced line under its first."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(6):
        _text(pdf, page, BODY, 72, y, 12)
        y += 24
    draw_rect(page, 150, y, 400, y + 100, (220, 30, 30))
    _text(pdf, page, "Figure 3", 72, y + 120, 12, "Times-Italic")
    _text(pdf, page, ". Bee plot of the example data set. Small points represent observations,", 118, y + 120, 12)
    _text(pdf, page, "large points represent means, and bars represent confidence intervals.", 72, y + 144, 12)
    y += 190
    for _ in range(4):
        _text(pdf, page, BODY, 72, y, 12)
        y += 24
    page.gen_content()
    page.close()
    md, _, _, _ = _compile(pdf, tmp_path / "double.pdf", tmp_path)
    assert "Figure 3: Bee plot of the example data set. Small points represent observations, large points " \
           "represent means, and bars represent confidence intervals." in md


def test_a_caption_with_a_hanging_indent_keeps_its_second_line(tmp_path):
    """KOMA's hanging caption: the second line starts under the title, right of the label."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 4)
    _text(pdf, page, "Listing 3.2:", 120, y, 10, "Helvetica-Bold")
    _text(pdf, page, "Simplified first implementation of a recursive algorithm for the labyrinth", 181, y)
    _text(pdf, page, "benchmark", 181, y + 12)
    _para(pdf, page, y + 36, 4)
    page.gen_content()
    page.close()
    md, _, _, _ = _compile(pdf, tmp_path / "hang.pdf", tmp_path)
    assert "**Listing 3.2:** Simplified first implementation of a recursive algorithm for the labyrinth benchmark" in md


def test_labels_set_apart_by_their_font(tmp_path):
    """A label in a font of its own ('Figure 2.' in another face over a title starting in lower
    case, JFM's small capitals), a roman 'Table 1:' before an italic title, and 'Table 3' alone in
    one face over its title in another."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "As Figure 2 shows and Table 1 and Table 3 list, the energy decays in time as expected.", 72, y)
    y += 30
    draw_rect(page, 150, y, 400, y + 90, (30, 30, 220))
    _text(pdf, page, "Figure 2.", 100, y + 104, 9, "Helvetica")
    _text(pdf, page, "log10(Gn) on a vertical slice of Case III at various times.", 145, y + 104, 9)
    y = _para(pdf, page, y + 130, 3)
    _text(pdf, page, "Table 1:", 72, y, 10)
    _text(pdf, page, "This is an example of a table", 110, y, 10, "Times-Italic")
    for k, (a, b) in enumerate((("Ratio", "Decibels"), ("1/10", "-20"), ("1/1", "0"), ("2", "3"))):
        _text(pdf, page, a, 120, y + 18 + 14 * k)
        _text(pdf, page, b, 200, y + 18 + 14 * k)
    y = _para(pdf, page, y + 90, 3)
    _text(pdf, page, "Table 3", 72, y, 9, "Helvetica")
    _text(pdf, page, "This is a test caption of a table set in a sans face.", 72, y + 11, 9, "Times-Roman")
    for k, (a, b, d) in enumerate((("Col 1", "Col 2", "Col 3"), ("A", "42", "18"), ("B", "15", "18"))):
        _text(pdf, page, a, 80, y + 28 + 12 * k, 9)
        _text(pdf, page, b, 160, y + 28 + 12 * k, 9)
        _text(pdf, page, d, 240, y + 28 + 12 * k, 9)
    _para(pdf, page, y + 80, 3)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "faces.pdf", tmp_path)
    assert "Figure 2: log10(Gn) on a vertical slice of Case III at various times." in md
    assert "**Table 1:** This is an example of a table" in md
    assert "**Table 3:** This is a test caption of a table set in a sans face." in md
    assert _resolved(cits, "Figure 2") and _resolved(cits, "Table 1") and _resolved(cits, "Table 3")


def test_body_type_listing_caption_and_a_caption_under_subfigure_labels(tmp_path):
    """USENIX's 'Listing 1: CVE-...' in the body's type, and BMVC's 'Figure 2: ...' right under
    the row of sub-figure labels (same type, no gap)."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "The code in Listing 1 has the bug; the results are in Figure 2 for both filters we ran.", 72, y)
    y += 30
    _text(pdf, page, "Listing 1: CVE-2016-6516: Vulnerable double fetch in the ioctl handler.", 72, y)
    _text(pdf, page, "ret = vfs_dedupe_file_range(file, same);", 90, y + 16, 9, "Courier")
    y = _para(pdf, page, y + 40, 3)
    draw_rect(page, 100, y, 250, y + 80, (30, 30, 220))
    draw_rect(page, 300, y, 450, y + 80, (220, 30, 30))
    _text(pdf, page, "Histogram filter localization", 110, y + 92)
    _text(pdf, page, "Particle filter localization", 310, y + 92)
    _text(pdf, page, "Figure 2: Localization simulation results", 190, y + 104)
    _para(pdf, page, y + 130, 3)
    page.gen_content()
    page.close()
    md, cits, qa, _ = _compile(pdf, tmp_path / "usenix.pdf", tmp_path)
    assert "**Listing 1:** CVE-2016-6516: Vulnerable double fetch in the ioctl handler." in md
    assert "Figure 2: Localization simulation results" in md
    assert "localization Figure 2:" not in md
    assert _resolved(cits, "Listing 1") and _resolved(cits, "Figure 2")


def test_a_centred_last_line_stays_in_its_caption_and_a_one_row_grid_is_no_table(tmp_path):
    """JFM centres a caption's last line under the others; a body-type 'Table 1:' caption under
    its (unread) table does not make a one-row table of the sub-figure labels under it."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "Table 1 and Figure 2 show the slice and the model performance we measured in the end.", 72, y)
    y += 30
    draw_rect(page, 150, y, 400, y + 90, (30, 30, 220))
    _text(pdf, page, "Figure 2.", 100, y + 104, 9, "Helvetica")
    _text(pdf, page, "The energy on a vertical slice of Case III at various times. Only the upper", 145, y + 104, 9)
    _text(pdf, page, "quarter of the domain is plotted.", 197, y + 114, 9)  # (centred: 100-410 over 115 wide)
    y = _para(pdf, page, y + 140, 3)
    _text(pdf, page, "Table 1: Model performance", 226, y)  # (centred in 72-494)
    _text(pdf, page, "(a) True labels", 150, y + 30)
    _text(pdf, page, "(b) Predicted labels", 350, y + 30)
    _para(pdf, page, y + 60, 3)
    page.gen_content()
    page.close()
    md, _, _, _ = _compile(pdf, tmp_path / "jfm.pdf", tmp_path)
    assert "Figure 2: The energy on a vertical slice of Case III at various times. Only the upper quarter of " \
           "the domain is plotted." in md
    assert "**Table 1:** Model performance" in md
    assert "| (a) True labels" not in md


def test_a_table_caption_right_before_a_figure_is_kept(tmp_path):
    """A body-type 'Table 1:' caption whose grid was not read, right above a figure on its page,
    stays a table caption: it is not taken for a label drawn in the figure."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "Table 1 lists the scores and Figure 3 shows the labels we predicted for the test cloud.", 72, y)
    _text(pdf, page, "Table 1: Model performance", 226, y + 30)  # (centred in 72-494)
    draw_rect(page, 150, y + 60, 400, y + 150, (30, 30, 220))
    _text(pdf, page, "Figure 3: True and predicted labels for the cloud", 150, y + 164, 9)
    _para(pdf, page, y + 190, 3)
    page.gen_content()
    page.close()
    md, cits, _, _ = _compile(pdf, tmp_path / "aaai.pdf", tmp_path)
    assert "**Table 1:** Model performance" in md
    assert _resolved(cits, "Table 1") and _resolved(cits, "Figure 3")


def test_a_table_caption_does_not_take_the_picture_of_the_figure_under_it(tmp_path):
    """'Table 1:' (its grid unread) right over a picture whose own caption 'Figure 3:' sits under
    it: the picture is the figure's; the table gets no crop of it."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    _text(pdf, page, "Table 1 lists the scores and Figure 3 shows the labels we predicted for the test cloud.", 72, y)
    _text(pdf, page, "Table 1: Model performance", 226, y + 30)  # (centred in 72-494)
    draw_image(pdf, page, 150, y + 60, 400, y + 150, (30, 160, 60))
    _text(pdf, page, "Figure 3: True and predicted labels for the cloud", 150, y + 164, 9)
    _para(pdf, page, y + 190, 3)
    page.gen_content()
    page.close()
    md, _, _, out = _compile(pdf, tmp_path / "aaai2.pdf", tmp_path)
    assert "![Figure 3: True and predicted labels for the cloud](figures/fig-3.png)" in md
    assert "**Table 1:** Model performance" in md
    assert not (out / "figures" / "table-1.png").exists()


def test_a_caption_centred_under_two_sub_figures_crops_both(tmp_path):
    """Two pictures side by side, one per column, with 'Figure 3:' centred under the pair (its
    text reaching less than half of either): the crop holds both."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 3)
    draw_image(pdf, page, 51, y + 20, 284, y + 120, (30, 160, 60))
    draw_image(pdf, page, 328, y + 20, 561, y + 120, (220, 30, 30))
    _text(pdf, page, "Figure 3: True and predicted labels", 236, y + 134, 9)  # (centred at 306)
    _para(pdf, page, y + 160, 3)
    page.gen_content()
    page.close()
    md, _, _, out = _compile(pdf, tmp_path / "pair.pdf", tmp_path)
    assert "![Figure 3: True and predicted labels](figures/fig-3.png)" in md
    im = Image.open(out / "figures" / "fig-3.png")
    assert im.width > 3.5 * im.height  # both pictures (516 x 106 points with the padding), not one (239 x 106)
