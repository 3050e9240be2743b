"""A slide deck's front matter, round 35 (benchmarks/results/round35_tX1_rule.md): a deck with no title page
prints no document title (neither its first frame's title nor the PDF's info-dictionary title, printed
nowhere), and a talk's byline that is one handle ('by' over '@jdoe') names its author. Every PDF here is built
in the test."""

from __future__ import annotations

import re

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from test_slides_round35 import WIDE, frame


def with_info_title(path, title: str):
    """Append an incremental update giving the PDF an info dictionary with ``title`` (what LaTeX's
    hyperref writes from \\title even where no title page prints it)."""
    data = path.read_bytes()
    size = int(re.findall(rb"/Size (\d+)", data)[-1])
    root = re.findall(rb"/Root (\d+ \d+ R)", data)[-1]
    prev = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    at = len(data) + 1
    obj = b"%d 0 obj\n<< /Title (%s) >>\nendobj\n" % (size, title.encode())
    xref_at = at + len(obj)
    tail = (b"xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n"
            % (size, at, size + 1, root, size, prev, xref_at))
    path.write_bytes(data + b"\n" + obj + tail)
    return path


TITLES = ["What the root file does", "The document class", "Loading packages", "Custom colours",
          "Boxes for content", "Including content files"]


def test_a_deck_without_a_title_page_has_no_document_title(tmp_path):
    # a handout opening on its first frame: that frame's title is one of the frames' titles, not the
    # document's, and the info dictionary's title (set by the template, printed on no page) is none either
    pages = [frame(t, [f"The {t.lower()} holds the setup of the lecture series.",
                       "Each line is explained on the slide that follows it."], k + 1, len(TITLES))
             for k, t in enumerate(TITLES)]
    pdf = with_info_title(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), "Title of the Lecture Series")
    doc = compile_document(pdf, CompileOptions())
    assert doc.stream.info.get("Title") == "Title of the Lecture Series"  # the update is read
    assert doc.metadata.title == ""
    assert doc.metadata.authors == []
    assert "no_title" not in {c.id for c in doc.qa.checks}  # no title printed is no title missed
    assert [ln for ln in doc.markdown.splitlines() if ln.startswith("#")] == [f"## {t}" for t in TITLES]


def test_a_deck_with_a_title_page_keeps_its_title(tmp_path):
    # the guard: a title page (larger, lower, centred title over the speaker) is the document's title
    pages = [[("Writing lectures in Beamer", 90, 110, 20, "Helvetica-Bold"), ("Ada Lovelace", 170, 150, 11)]]
    pages += [frame(t, [f"The {t.lower()} holds the setup of the lecture series."], k + 2, len(TITLES) + 1)
              for k, t in enumerate(TITLES)]
    pdf = with_info_title(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), "Writing lectures in Beamer")
    doc = compile_document(pdf, CompileOptions())
    assert doc.metadata.title == "Writing lectures in Beamer"
    assert [a.name for a in doc.metadata.authors] == ["Ada Lovelace"]


def _handle_deck(tmp_path, byline):
    pages = [[("How to use this template", 14, 110, 24, "Helvetica-Bold")] + byline
             + [("April 26, 2016", 300, 262, 6)]]
    pages += [frame(t, [f"The {t.lower()} holds the setup of the lecture series."], k + 2, len(TITLES) + 1)
              for k, t in enumerate(TITLES)]
    return compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=(363, 272)), CompileOptions())


def test_a_deck_byline_of_one_handle_names_the_author(tmp_path):
    # 'by' in small type over '@jdoe' set large: the speaker's handle is the name the deck gives its author
    doc = _handle_deck(tmp_path, [("by", 178, 197, 6), ("@jdoe", 150, 206, 20)])
    assert doc.metadata.title == "How to use this template"
    assert [a.name for a in doc.metadata.authors] == ["jdoe"]


def test_a_deck_byline_with_an_address_names_no_author(tmp_path):
    # an e-mail address alone is no name (it has a domain): the byline stays empty
    doc = _handle_deck(tmp_path, [("by", 178, 197, 6), ("jdoe@example.org", 120, 206, 20)])
    assert doc.metadata.authors == []
