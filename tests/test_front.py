"""The title page read from its type (compile/front.py): title, authors, what is neither.
PDFs made here with pdfium, one property of a real layout each; the corpus floors are in
tests/test_corpus_metadata.py."""

from __future__ import annotations

from _front_pages import BODY, compile_pages, names
from ctxmill.accents import compose_accents


def compile_page(tmp_path, rows):
    rows = rows + [("1 Introduction", 72, 430, 12, "Helvetica-Bold"), (BODY[:90], 72, 450, 10, "Times-Roman"),
                   (BODY[90:], 72, 462, 10, "Times-Roman")]
    return compile_pages(tmp_path, [rows])


def test_running_heads_are_not_titles_and_upper_case_authors_with_and(tmp_path):
    # AASTeX: a draft line and a typeset line above a title in body type, upper-case authors
    # with superscript affiliation numbers and an "AND" before the last
    doc = compile_page(tmp_path, [
        ("DRAFT VERSION JULY 3, 2020", 60, 60, 8, "Times-Roman"),
        ("Typeset using LaTeX twocolumn style in AASTeX62", 60, 70, 8, "Times-Roman"),
        ("Two Stars, Two Signals, No Planet", 230, 118, 10, "Times-Bold"),
        ("L. G. BOUMA,", 150, 140, 9, "Times-Roman"), ("1", 210, 136, 6, "Times-Roman"),
        ("J. N. WINN,", 216, 140, 9, "Times-Roman"), ("1", 270, 136, 6, "Times-Roman"),
        ("AND G. R. RICKER", 276, 140, 9, "Times-Roman"), ("2", 360, 136, 6, "Times-Roman"),
        ("1", 150, 156, 6, "Times-Roman"), ("Department of Astrophysical Sciences, Princeton University", 154, 160, 8),
        ("2", 150, 170, 6, "Times-Roman"), ("Kavli Institute, Massachusetts Institute of Technology", 154, 174, 8),
        ("ABSTRACT", 280, 220, 10, "Times-Roman"),
    ])
    m = doc.metadata
    assert m.title == "Two Stars, Two Signals, No Planet"
    assert names(doc) == ["L. G. BOUMA", "J. N. WINN", "G. R. RICKER"]
    assert m.authors[2].affiliations == ["Kavli Institute, Massachusetts Institute of Technology"]
    assert not doc.markdown.startswith("# DRAFT")
    assert doc.markdown.startswith("# Two Stars, Two Signals, No Planet")


def test_a_two_line_title_is_one_title_and_a_grid_of_authors_is_read_in_rows(tmp_path):
    # USENIX/NeurIPS: each author a column of name over affiliation, side by side
    doc = compile_page(tmp_path, [
        ("Systematic Protection of Things", 150, 80, 17, "Helvetica-Bold"),
        ("Against Other Things", 200, 102, 17, "Helvetica-Bold"),
        ("Atri Bhattacharyya", 100, 150, 12, "Times-Roman"), ("EPFL", 130, 165, 12, "Times-Roman"),
        ("Uros Tesic", 260, 150, 12, "Times-Roman"), ("Nvidia", 270, 165, 12, "Times-Roman"),
        ("Mathias Payer", 400, 150, 12, "Times-Roman"), ("EPFL", 420, 165, 12, "Times-Roman"),
        ("Abstract", 100, 220, 12, "Times-Bold"),
    ])
    assert doc.metadata.title == "Systematic Protection of Things Against Other Things"
    assert names(doc) == ["Atri Bhattacharyya", "Uros Tesic", "Mathias Payer"]


def test_an_anonymous_submission_has_no_authors(tmp_path):
    doc = compile_page(tmp_path, [
        ("A Multiplicative Governance Equation", 150, 80, 14, "Helvetica-Bold"),
        ("Anonymous ACL submission", 220, 140, 12, "Helvetica-Bold"),
        ("Abstract", 100, 220, 12, "Times-Bold"),
    ])
    assert doc.metadata.title == "A Multiplicative Governance Equation"
    assert doc.metadata.authors == []


def test_a_thesis_title_page_gives_the_candidate_not_the_supervisor(tmp_path):
    doc = compile_page(tmp_path, [
        ("MASTER'S THESIS", 380, 300, 17, "Helvetica"),
        ("Ohua as an Alternative for Shared State", 180, 340, 17, "Helvetica"),
        ("Felix Wittwer", 430, 380, 14, "Helvetica"),
        ("Supervisor", 85, 395, 12, "Helvetica"), ("Prof. Francesco Ranzato", 85, 410, 12, "Helvetica"),
        ("July 20, 2020", 440, 400, 12, "Helvetica"),
    ])
    assert doc.metadata.title == "Ohua as an Alternative for Shared State"
    assert names(doc) == ["Felix Wittwer"]


def test_separate_accents_join_their_letters():
    assert compose_accents("Jo˜ao Lud¨ascher T´ecnico") == "João Ludäscher Técnico"


def test_a_block_that_runs_from_the_title_into_the_authors_keeps_the_authors():
    # the blocks stage may read a title and the byline right under it as one paragraph
    from ctxmill.compile.front import TitlePage
    from ctxmill.compile.metadata import _place_title
    from ctxmill.model import Block, BlockKind, Document, PageStream

    doc = Document(stream=PageStream(pages=[], kind="pdf"))
    doc.blocks = [Block(BlockKind.PARAGRAPH, "Compact Title Here Ann Author, Bob Writer", 1, id="b0",
                        bbox=(200, 68, 400, 110)),
                  Block(BlockKind.PARAGRAPH, "Body text.", 1, id="b1", bbox=(72, 200, 500, 240))]
    _place_title(doc, TitlePage(page=1, title="Compact Title Here", title_box=(200, 68, 380, 86)))
    assert [(b.kind, b.text) for b in doc.blocks] == [
        (BlockKind.HEADING, "Compact Title Here"), (BlockKind.PARAGRAPH, "Ann Author, Bob Writer"),
        (BlockKind.PARAGRAPH, "Body text.")]
    assert doc.blocks[0].attrs["title"] and doc.blocks[0].level == 1
