"""Round 34's title-page cases (compile/front.py), each a small PDF made here with pdfium from
one property of a real layout: a masthead line that opens with a number over the title, a
subtitle that reads as a sentence over the byline, a head ('Author Note') under the byline."""

from __future__ import annotations

from _front_pages import BODY, compile_pages, names
from _pdfgen import make_pdf
from ctxmill.compile import front
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document


def compile_page(tmp_path, rows, body_top=430):
    rows = rows + [(BODY[:90], 72, body_top, 10, "Times-Roman"), (BODY[90:], 72, body_top + 12, 10, "Times-Roman")] \
        + [(BODY[:90], 72, body_top + 24 + 12 * k, 10, "Times-Roman") for k in range(6)]
    return compile_pages(tmp_path, [rows])


def test_a_numbered_masthead_line_over_the_title_does_not_end_the_title_region(tmp_path):
    # a proceedings masthead: "21st International Workshop ..." (the raised "st" set apart, so the
    # line reads "21 International ...", a numbered heading's shape), a date and a place, then the
    # title in larger bold type and the byline
    doc = compile_page(tmp_path, [
        ("Prepared for submission to a journal", 72, 80, 10, "Times-Roman"),
        ("21", 72, 100, 11, "Times-Roman"), ("st", 84, 96, 7, "Times-Roman"),
        ("International Workshop on Radiation Detectors", 96, 100, 11, "Times-Roman"),
        ("Kolympari, Crete, Greece", 72, 114, 11, "Times-Roman"),
        ("Widget: a Fast Telescope for Beam Tests", 72, 150, 16, "Times-Bold"),
        ("and Its Commissioning", 72, 170, 16, "Times-Bold"),
        ("A. Author, B. Writer and C. Third", 72, 210, 10, "Times-Bold"),
        ("Abstract: The upgrade of the collider is expected to increase the rate by a factor of five,", 72, 260, 10,
         "Times-Roman"),
    ], body_top=300)
    assert doc.metadata.title == "Widget: a Fast Telescope for Beam Tests and Its Commissioning"
    assert names(doc) == ["A. Author", "B. Writer", "C. Third"]


def test_a_numbered_heading_with_no_larger_type_under_it_still_ends_the_title_region(tmp_path):
    # a page that starts mid-document: its section head is no title, nor the text under it
    doc = compile_page(tmp_path, [
        ("2 Methods of Measurement", 72, 80, 12, "Times-Bold"),
        ("Figure Label", 300, 200, 11, "Times-Roman"),
    ], body_top=100)
    assert doc.metadata.title != "Figure Label"


def test_a_larger_title_may_hold_two_short_sentences():
    assert front.title_shaped("Widget: a new fast telescope. Detector simulation and commissioning", 40)
    # running text cut from a paragraph: opens mid-sentence, ends with a stop, or runs long
    assert not front.title_shaped("of the detector. We then show that the rate is", 40)
    assert not front.title_shaped("The rate is high. We then show that the rate is low.", 40)
    assert not front.title_shaped("The rate of the detector is high in the forward region. We then show that the "
                                  "rate is low in the barrel", 40)
    # in body type a title never holds a sentence end (most 25)
    assert not front.title_shaped("Widget: a new fast telescope. Detector simulation and commissioning")


def test_a_subtitle_that_reads_as_a_sentence_does_not_end_the_byline_region(tmp_path):
    # a title page in 12 pt (body 10 pt): bold title, an italic subtitle of two sentences, the byline
    # with its affiliation numbers, then the numbered affiliations
    doc = compile_page(tmp_path, [
        ("A Sample Title About Stock Assessments", 140, 200, 12, "Times-Bold"),
        ("with non-English diacritics in the author names. See the documentation.", 140, 228, 12,
         "Times-Italic"),
        ("Jane Doe", 140, 290, 12, "Times-Roman"), ("1", 190, 285, 8, "Times-Roman"),
        (", Eva Novak", 195, 290, 12, "Times-Roman"), ("2", 258, 285, 8, "Times-Roman"),
        (" and Ashok Kumar", 263, 290, 12, "Times-Roman"), ("1", 356, 285, 8, "Times-Roman"),
        ("1. Minnesota Department of Natural Resources, Saint Paul", 140, 330, 12, "Times-Roman"),
        ("2. University of Minnesota, Department of Mathematics", 140, 345, 12, "Times-Roman"),
    ])
    assert doc.metadata.title == "A Sample Title About Stock Assessments"
    assert names(doc) == ["Jane Doe", "Eva Novak", "Ashok Kumar"]


def test_an_abstract_in_larger_type_under_the_title_still_ends_the_byline_region(tmp_path):
    # running text right under the title over several lines is no subtitle: the names under it are
    # the text's, not a byline
    doc = compile_page(tmp_path, [
        ("A Sample Title About Stock Assessments", 140, 120, 16, "Times-Bold"),
        ("this report describes the methods used in the assessment of the stock and", 72, 150, 12, "Times-Roman"),
        ("the data that were collected by the survey in the year before the assessment", 72, 164, 12,
         "Times-Roman"),
        ("Jane Doe", 140, 200, 12, "Times-Roman"),
    ])
    assert names(doc) == []


def test_an_author_note_head_under_the_byline_is_no_author(tmp_path):
    # APA manuscripts centre the head "Author Note" under the affiliation, in the byline's type
    doc = compile_page(tmp_path, [
        ("How to Use the Template: An Example Manuscript", 150, 200, 12, "Times-Roman"),
        ("Frederik Aust", 260, 240, 12, "Times-Roman"), ("1", 335, 236, 8, "Times-Roman"),
        ("1", 240, 274, 8, "Times-Roman"), ("University of Cologne", 246, 278, 12, "Times-Roman"),
        ("Author Note", 270, 360, 12, "Times-Roman"),
    ], body_top=400)
    assert names(doc) == ["Frederik Aust"]


def test_a_posters_block_heads_under_its_byline_are_no_authors(tmp_path):
    # a poster (body 27 pt): title 74 pt, the name and the institute under it, then the blocks'
    # heads in 51 pt bold, some side by side, each over its text
    text = "Running text of a block on the poster, long enough to read as the body of it and"
    rows = [("TEMPLATE POSTER", 1400, 120, 74, "Helvetica-Bold"),
            ("Jane Roe", 1590, 220, 43, "Helvetica-Bold"), ("Some Institute", 1600, 285, 36, "Helvetica-Bold"),
            ("Basic Block", 80, 450, 51, "Helvetica-Bold"), ("Large Column", 80, 700, 51, "Helvetica-Bold"),
            ("Smaller Column", 1400, 700, 51, "Helvetica-Bold"), ("Figure Block", 2070, 700, 51, "Helvetica-Bold")]
    rows += [(text, 80, 520 + 34 * k, 27, "Helvetica") for k in range(4)]
    rows += [(text, x, 770 + 34 * k, 27, "Helvetica") for x in (80, 1400, 2070) for k in range(6)]
    doc = compile_document(make_pdf(tmp_path / "poster.pdf", [rows], size=(3370, 2384)), CompileOptions(fast=True))
    assert doc.metadata.title == "TEMPLATE POSTER"
    assert names(doc) == ["Jane Roe"]


def test_a_date_placeholder_is_no_author():
    # a template's title page prints its date field unfilled
    assert front._clean_name("DD MM YYYY") is None
    assert front._clean_name("Month Year") is None
    assert front._clean_name("Dana Mmeli") == "Dana Mmeli"
