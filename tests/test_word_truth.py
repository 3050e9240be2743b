"""benchmarks/word_truth.py: the word-processor PDF set's truth, read from a .docx / .odt with the standard library.

Small documents written here (zipfile + minimal XML) check what the set's scores rest on: heading levels from the
style chain (a localised style id, a custom style based on a heading, an outline level on a style or a paragraph),
the title from the Title style, the table of contents and the bibliography's own head left out, and the reference
count (one per paragraph, one per table row for Word's BIBLIOGRAPHY field).
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import word_truth  # noqa: E402

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _style(sid: str, name: str, based: str | None = None, outline: int | None = None) -> str:
    return (f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/>'
            + (f'<w:basedOn w:val="{based}"/>' if based else "")
            + (f'<w:pPr><w:outlineLvl w:val="{outline}"/></w:pPr>' if outline is not None else "")
            + "</w:style>")


def _p(text: str, style: str | None = None, outline: int | None = None, runs: str = "") -> str:
    ppr = ""
    if style or outline is not None:
        ppr = ("<w:pPr>" + (f'<w:pStyle w:val="{style}"/>' if style else "")
               + (f'<w:outlineLvl w:val="{outline}"/>' if outline is not None else "") + "</w:pPr>")
    return f"<w:p>{ppr}{runs}<w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"


def _docx(body: str, styles: str, creator: str = "") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", f'<w:document xmlns:w="{W_NS}"><w:body>{body}</w:body></w:document>')
        z.writestr("word/styles.xml", f'<w:styles xmlns:w="{W_NS}">{styles}</w:styles>')
        z.writestr("docProps/core.xml",
                   '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"'
                   f' xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>{creator}</dc:creator></cp:coreProperties>')
    return buf.getvalue()


STYLES = "".join([
    _style("Title", "Title"),
    _style("Heading1", "heading 1"),
    _style("berschrift2", "heading 2"),  # a German Word's style id; the built-in name stays 'heading 2'
    _style("Kapitel", "Kapitel", based="Heading1"),  # a custom style based on Heading 1: level 1
    _style("Deep", "Deep", outline=2),  # a custom style with its own outline level: level 3
    _style("TOC1", "toc 1"),
    _style("Body", "Body Text"),
])


def _toc() -> str:
    begin = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> TOC \\o "1-3" </w:instrText></w:r>'
             '<w:r><w:fldChar w:fldCharType="separate"/></w:r>')
    return (f'<w:p><w:pPr><w:pStyle w:val="TOC1"/></w:pPr>{begin}<w:r><w:t>Introduction 1</w:t></w:r></w:p>'
            '<w:p><w:pPr><w:pStyle w:val="TOC1"/></w:pPr><w:r><w:t>Methods 2</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')


def test_docx_heading_levels_title_and_references():
    body = "".join([
        _p("A Study of Things", "Title"),
        _p("Ada Lovelace", "Body"),
        _p("Contents", "Heading1"),  # the table of contents' own head: no section
        _toc(),
        _p("Abstract", "Body"),  # a body-style label opens the abstract
        _p("We study things and find more things.", "Body"),
        _p("Introduction", "Heading1"),
        _p("Some text.", "Body"),
        _p("Background", "berschrift2"),
        _p("Methods", "Kapitel"),
        _p("Fine detail", "Deep"),
        _p("Run-in head", "Body", outline=1),  # an outline level on the paragraph itself: level 2
        _p("References", "Heading1"),  # the bibliography's own head: a section (printed so), its paragraphs the entries
        _p("[1] A. Author. A title. 2020.", "Body"),
        _p("[2] B. Author. Another title. 2021.", "Body"),
        _p("[3] C. Author. A third title. 2022.", "Body"),
        _p("Appendix A", "Heading1"),
        _p("Tables.", "Body"),
    ])
    paras, props = word_truth.docx_paragraphs(_docx(body, STYLES, creator="Ada Lovelace"))
    truth = word_truth.derive_truth(paras, props, first_page="A Study of Things\nAda Lovelace\n")
    assert truth["title"] == "A Study of Things"
    assert truth["authors"] == ["Ada Lovelace"]
    assert [(s["level"], s["title"]) for s in truth["sections"]] == [
        (1, "Introduction"), (2, "Background"), (1, "Methods"), (3, "Fine detail"), (2, "Run-in head"),
        (1, "References"), (1, "Appendix A")]
    assert truth["n_references"] == 3 == truth["n_bibliography_entries_printed_estimate"]
    assert truth["abstract"] == "We study things and find more things."


def test_docx_creator_not_printed_is_no_author():
    paras, props = word_truth.docx_paragraphs(_docx(_p("Title here", "Title"), STYLES, creator="Template Maker"))
    assert word_truth.derive_truth(paras, props, first_page="Title here\nSomeone Else")["authors"] == []


def test_docx_bibliography_field_table_counts_rows():
    """Word's BIBLIOGRAPHY field in IEEE style is a two-column table ('[1]' | entry): one reference a row."""
    rows = "".join(f"<w:tr><w:tc>{_p(f'[{i}]')}</w:tc><w:tc>{_p(f'Entry {i}.')}</w:tc></w:tr>" for i in (1, 2))
    body = (_p("Intro", "Heading1")
            + '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> BIBLIOGRAPHY </w:instrText></w:r>'
              '<w:r><w:fldChar w:fldCharType="separate"/></w:r></w:p>'
            + f"<w:tbl>{rows}</w:tbl>"
            + '<w:p><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')
    paras, props = word_truth.docx_paragraphs(_docx(body, STYLES))
    assert word_truth.derive_truth(paras, props)["n_references"] == 2


def test_odt_heading_levels_and_title():
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    style = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    content = (f'<office:document-content xmlns:office="{office}" xmlns:text="{text}" xmlns:style="{style}">'
               '<office:automatic-styles><style:style style:name="P1" style:family="paragraph" '
               'style:parent-style-name="Title"/></office:automatic-styles><office:body><office:text>'
               '<text:p text:style-name="P1">An Odt Title</text:p>'
               '<text:table-of-content><text:index-body><text:p>Chapter one<text:tab/>3</text:p></text:index-body>'
               '</text:table-of-content>'
               '<text:h text:outline-level="1"><text:number>1</text:number>Chapter one</text:h>'
               '<text:p>Body <text:note><text:note-body><text:p>a footnote</text:p></text:note-body></text:note>text.</text:p>'
               '<text:h text:outline-level="2">Section<text:s text:c="2"/>two</text:h>'
               # a paragraph in the Heading 4 style that LibreOffice keeps out of the outline: still a level-4 head
               '<text:p text:style-name="Heading_20_4">Run-in method</text:p>'
               '<text:h text:outline-level="1">Bibliography</text:h><text:p>One entry.</text:p>'
               '</office:text></office:body></office:document-content>')
    styles = (f'<office:document-styles xmlns:office="{office}" xmlns:style="{style}"><office:styles>'
              '<style:style style:name="Title" style:family="paragraph"/>'
              '<style:style style:name="Heading_20_4" style:display-name="Heading 4" style:family="paragraph"/>'
              '</office:styles></office:document-styles>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("content.xml", content)
        z.writestr("styles.xml", styles)
    paras, props = word_truth.odt_paragraphs(buf.getvalue())
    truth = word_truth.derive_truth(paras, props)
    assert truth["title"] == "An Odt Title"
    assert [(s["level"], s["title"]) for s in truth["sections"]] == [(1, "Chapter one"), (2, "Section two"),
                                                                           (4, "Run-in method"), (1, "Bibliography")]
    assert truth["n_references"] == 1
    assert "a footnote" not in " ".join(p["text"] for p in paras)


def test_levels_from_numbering():
    assert word_truth.numbering_depth("3.1.3.1 Organização") == 4
    assert word_truth.numbering_depth("REFERÊNCIAS") is None
    paras = [{"text": t, "style": "Nivel", "level": 2, "numbered": False, "in_toc": False,
              "bibliography_field": False, "row": None} for t in ("1 INTRODUÇÃO", "1.1 Objetivos", "2.2.1 Plataforma")]
    truth = word_truth.derive_truth(paras, {}, levels_from_numbering=True)
    assert [s["level"] for s in truth["sections"]] == [1, 2, 3]


CACHE = REPO / "benchmarks" / ".cache" / "wordpdf"


@pytest.mark.skipif(not (CACHE.is_dir() and any(CACHE.glob("*/truth.json"))),
                    reason="the word-processor set is not built (benchmarks/word_truth.py)")
def test_built_truths_are_found_in_their_pdfs():
    """Every built truth's section titles are printed in its PDF's text layer, and each names its producer."""
    for truth_file in sorted(CACHE.glob("*/truth.json")):
        truth = json.loads(truth_file.read_text())
        found, total = map(int, truth["sanity"]["sections_found"].split("/"))
        assert total > 0 and found == total, truth["slug"]
        assert truth["source"]["producer"], truth["slug"]
