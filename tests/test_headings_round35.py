"""Headings, running heads and page furniture on layouts round 34's second held-out set showed
(benchmarks/results/round34_unseen_heldout2.md, B1/B3/C1), each rebuilt as a small PDF with the one
property that failed: slanted (sheared, unrotated) type, a running head on a short document, and
double-spaced text whose heads have no bold or size cue."""

from __future__ import annotations

from pathlib import Path

from _pdfgen import _assemble, make_pdf
from ctxmill.compile.pipeline import compile_document
from ctxmill.render.removed import removed_dict
from ctxmill.sources import load_source


def _one_page(path: Path, content: bytes) -> Path:
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R/F2 6 0 R>>>>>>",
        b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream\n",
        b"<</Type/Font/Subtype/Type1/BaseFont/Times-Roman>>",
        b"<</Type/Font/Subtype/Type1/BaseFont/Courier>>",
    ]
    path.write_bytes(_assemble(objs))
    return path


def test_slanted_type_stays_in_its_line(tmp_path):
    # an e-mail line set in a typewriter face slanted by its text matrix (a synthetic oblique:
    # shear c = 0.2, no rotation) between two upright lines: it is upright text, read in place
    content = (b"BT /F1 12 Tf 72 700 Td (Department of Computing, Example University) Tj ET "
               b"BT /F2 10 Tf 1 0 0.2 1 72 684 Tm (ada@example.org; bob@example.org) Tj ET "
               b"BT /F1 12 Tf 72 668 Td (Abstract text follows the byline of the paper here.) Tj ET")
    pdf = _one_page(tmp_path / "slant.pdf", content)
    lines = [ln.text for ln in load_source(pdf).pages[0].lines]
    assert lines == ["Department of Computing, Example University", "ada@example.org; bob@example.org",
                     "Abstract text follows the byline of the paper here."]
    md = compile_document(pdf).markdown
    assert md.index("Example University") < md.index("ada@example.org") < md.index("Abstract text")


BODY = ("Running text of the section, long enough to read as the body of a paper and not as a title "
        "or a name, which goes on for a line or two and then some more words.")


def body_lines(top: float, n: int = 8, x: float = 72, size: float = 10, width: int = 90) -> list[tuple]:
    return [(BODY[:width], x, top + 12 * k, size, "Times-Roman") for k in range(n)]


def test_running_head_of_a_three_page_document_is_furniture(tmp_path):
    # a preprint style's head on pages 2 and 3 (not on the title page), at the same place: too few
    # pages for a repeat count, but the same line at the same place on every page but the first
    head = ("Short Template  A PREPRINT", 330, 40, 9, "Times-Roman")
    pages = [[("A Template for a Short Preprint", 150, 90, 16, "Times-Bold"), *body_lines(140)],
             [head, *body_lines(90), ("2", 304, 750, 10, "Times-Roman")],
             [head, *body_lines(90), ("3", 304, 750, 10, "Times-Roman")]]
    doc = compile_document(make_pdf(tmp_path / "short.pdf", pages))
    assert "PREPRINT" not in doc.markdown
    removed = [(r["page"], r["reason"], r["text"]) for r in removed_dict(doc)["removed"]]
    assert (2, "running-header", "Short Template A PREPRINT") in removed
    assert (3, "running-header", "Short Template A PREPRINT") in removed


def test_a_line_at_different_places_of_a_short_document_stays(tmp_path):
    # the same short line near the top of pages 2 and 3 but at different places is text, not a head
    pages = [[("A Template for a Short Preprint", 150, 90, 16, "Times-Bold"), *body_lines(140)],
             [("Short Template  A PREPRINT", 330, 40, 9, "Times-Roman"), *body_lines(90)],
             [("Short Template  A PREPRINT", 72, 52, 9, "Times-Roman"), *body_lines(90)]]
    doc = compile_document(make_pdf(tmp_path / "short.pdf", pages))
    assert doc.markdown.count("PREPRINT") == 2


def _double_spaced_page(folio: str | None, head: str, top: float = 84) -> list[tuple]:
    """A page of a dissertation class that forbids bold and larger heads: the folio at the top
    right, a head centred in the body's 12 pt type, the paragraph under it double-spaced (24 pt)."""
    width = 6.0 * len(head)  # (Times-Roman capitals and digits run about 6 pt at 12 pt)
    rows = [(folio, 534, top - 24, 12, "Times-Roman")] if folio else []
    rows.append((head, 324 - width / 2, top, 12, "Times-Roman"))
    text = "The body of the section runs on in the same plain type as its head, double spaced as asked."
    rows += [(text, 108, top + 24 + 24 * k, 12, "Times-Roman") for k in range(6)]
    return rows


def test_double_spaced_heads_in_body_type_stand_apart(tmp_path):
    # the page number, the head and the paragraph sit at the body's double-spaced pitch; only their
    # places (top right, centred, the text's left edge) tell them apart
    title_page = [("DOUBLE SPACING IN THESES", 250, 200, 12, "Times-Roman"), ("by", 318, 260, 12, "Times-Roman"),
                  ("Ada Lovelace", 290, 300, 12, "Times-Roman")]
    pages = [title_page, _double_spaced_page(None, "CHAPTER 1: INTRODUCTION", top=140),
             _double_spaced_page("3", "1.1 Problem Statement"),
             _double_spaced_page("4", "1.2 Related Work"),
             _double_spaced_page("5", "APPENDIX A: DATA TABLES"), _double_spaced_page("6", "A.1 Section in Appendix")]
    doc = compile_document(make_pdf(tmp_path / "thesis.pdf", pages))
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert "### 1.1 Problem Statement" in heads and "### 1.2 Related Work" in heads
    # an appendix's numbered sections in the same plain type, once its appendix A is found
    assert "### A.1 Section in Appendix" in heads
    assert "\n3\n" not in doc.markdown and "3 1.1" not in doc.markdown
    paras = [p for p in doc.markdown.split("\n\n") if p.startswith("The body of the section")]
    assert len(paras) == 5  # each paragraph whole, apart from its head


def test_recto_head_with_its_page_number_on_two_pages_is_furniture(tmp_path):
    # a five-page paper: the recto head "A SHORT RUNNING TITLE n" on pages 3 and 5 only (the verso
    # pages print their folio alone): too few for the repeat count, but each number is its page's
    pages = [[("A Paper of Five Pages", 200, 90, 16, "Times-Bold"), *body_lines(140)]]
    for n in range(2, 6):
        head = ("A SHORT RUNNING TITLE " + str(n), 330, 45, 9, "Times-Roman") if n % 2 else (str(n), 72, 45, 9, "Times-Roman")
        pages.append([head, (f"{n - 1} Section {n - 1}", 72, 80, 12, "Times-Bold"), *body_lines(100)])
    doc = compile_document(make_pdf(tmp_path / "five.pdf", pages))
    assert "RUNNING TITLE" not in doc.markdown
    removed = [(r["page"], r["reason"], r["text"]) for r in removed_dict(doc)["removed"]]
    assert (3, "running-header", "A SHORT RUNNING TITLE 3") in removed
    assert (5, "running-header", "A SHORT RUNNING TITLE 5") in removed
