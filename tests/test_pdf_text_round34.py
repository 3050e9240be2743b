"""Text a reader relies on in PDFs of math and drafts (round 34, round33_unseen_heldout.md D):
a math-italic letter (outside the BMP) inside a raised or mixed-font word is read as itself, not
as two U+FFFD; the space the PDF has between a word and a math letter stays; a running two-line
footer repeated on every page leaves the body and is listed as removed."""

from __future__ import annotations

from pathlib import Path

from _pdfgen import _assemble, make_pdf
from ctxmill.compile.blocks import span_text
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Line, Span
from ctxmill.render.removed import removed_dict
from ctxmill.sources import load_source

MATH_T, MATH_M, MATH_N = "\U0001d461", "\U0001d45a", "\U0001d45b"  # 𝑡 𝑚 𝑛 (math italic)


def _math_pdf(path: Path, content: bytes) -> Path:
    """One page: F1 Helvetica as is; F2 Times-Italic whose codes A, W, C map (ToUnicode) to the math
    italic letters 𝑡, 𝑚, 𝑛, characters pdfium hands back as two UTF-16 halves, two indexes each."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /M def /CMapType 2 def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"3 beginbfchar <41> <D835DC61> <57> <D835DC5A> <43> <D835DC5B> endbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R/F2 6 0 R>>>>>>",
        b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream\n",
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
        b"<</Type/Font/Subtype/Type1/BaseFont/Times-Italic/ToUnicode 7 0 R>>",
        b"<</Length %d>>stream\n" % len(cmap) + cmap + b"\nendstream\n",
    ]
    path.write_bytes(_assemble(objs))
    return path


def test_math_letters_in_a_superscript_are_read_whole(tmp_path):
    # "Pr[e^{tm}] is small": the exponent's two math letters are a text object of their own in
    # smaller type, raised, with the "]" after them, so the reader takes "tm]" character by
    # character; the m is wider than 0.6 em of the line (as LibertineMath's at 7.3 pt over 10 pt)
    content = (b"BT /F1 12 Tf 72 700 Td (The bound Pr[e) Tj ET "
               b"BT /F2 10 Tf 154.8 705 Td (AW) Tj ET "
               b"BT /F1 12 Tf 169.4 700 Td (] is small for every value we try here.) Tj ET")
    pdf = _math_pdf(tmp_path / "sup.pdf", content)
    [line] = load_source(pdf).pages[0].lines
    assert "\ufffd" not in line.text
    assert MATH_T + MATH_M in line.text
    sup = [s for s in line.spans if s.superscript]
    assert [s.text for s in sup] == [MATH_T + MATH_M]
    doc = compile_document(pdf)
    assert "\ufffd" not in doc.markdown
    assert MATH_T + MATH_M in doc.markdown


def test_space_before_a_math_letter_stays(tmp_path):
    # "check if 𝑛 is prime": the space is in the PDF (a character of the first string), but the math
    # letter is set only 0.1 em after "if" (its loose box starts left of where a space would end)
    content = (b"BT /F1 12 Tf 72 700 Td (We check if ) Tj ET "
               b"BT /F2 12 Tf 135.22 700 Td (C) Tj ET "
               b"BT /F1 12 Tf 144 700 Td ( is prime or not, as the test says.) Tj ET")
    pdf = _math_pdf(tmp_path / "gap.pdf", content)
    [line] = load_source(pdf).pages[0].lines
    assert "if " + MATH_N in line.text  # the reader keeps it
    doc = compile_document(pdf)
    assert "if " + MATH_N + " is prime" in doc.markdown
    assert "if" + MATH_N not in doc.markdown


def test_span_text_keeps_the_lines_space_and_adds_none():
    a = Span(text="check if", bbox=(0, 0, 40, 10), size=10)
    b = Span(text=MATH_N, bbox=(41, 0, 46, 10), size=10)  # 0.1 em after "if"
    c = Span(text="is prime", bbox=(49, 0, 80, 10), size=10)
    assert span_text(Line(text=f"check if {MATH_N} is prime", spans=[a, b, c])) == f"check if {MATH_N} is prime"
    # where the line's text has no space there, the gap alone decides (as before): none added
    assert span_text(Line(text=f"check if{MATH_N} is prime", spans=[a, b, c])) == f"check if{MATH_N} is prime"
    # spans that do not spell the line's text: the gap alone decides
    assert span_text(Line(text="other text", spans=[a, b, c])) == f"check if{MATH_N} is prime"


FOOT1 = "Holm et al. (2031). A library for adaptive meshes at scale. Journal of Open Software, VOL(ISSUE), PAGE."
FOOT2 = "https://doi.org/10.0000/draft."


def test_two_line_running_footer_leaves_the_body_and_is_listed(tmp_path):
    pages = []
    for p in range(7):
        lines = [(f"Section {p + 1} text line {k} about meshes, trees and the refinement of cells in parallel.",
                  72, 100 + 14 * k, 10) for k in range(12)]
        lines += [(FOOT1, 40, 745, 8), (FOOT2, 40, 755, 8), (str(p + 1), 540, 745, 8)]
        pages.append(lines)
    pdf = make_pdf(tmp_path / "foot.pdf", pages, size=(612, 792))
    assert len(FOOT1) + len(FOOT2) > 120  # longer than a two-line head may be
    doc = compile_document(pdf)
    assert "Holm et al. (2031)" not in doc.markdown
    assert "adaptive meshes at scale" not in doc.markdown
    assert "refinement of cells" in doc.markdown
    gone = [r for r in removed_dict(doc)["removed"] if "Holm et al. (2031)" in r["text"]]
    assert len(gone) == 7
    assert all(FOOT2 in r["text"] for r in gone)


def test_two_line_block_at_the_foot_of_one_page_stays(tmp_path):
    # a two-line paragraph at the bottom of one page only is text, not furniture
    pages = []
    for p in range(7):
        lines = [(f"Section {p + 1} text line {k} about meshes, trees and the refinement of cells in parallel.",
                  72, 100 + 14 * k, 10) for k in range(12)]
        if p == 3:
            lines += [(FOOT1, 40, 745, 8), (FOOT2, 40, 755, 8)]
        pages.append(lines)
    doc = compile_document(make_pdf(tmp_path / "once.pdf", pages, size=(612, 792)))
    assert "adaptive meshes at scale" in doc.markdown
