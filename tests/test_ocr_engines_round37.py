"""Round 37: GROBID's TEI XML, Google Document AI's Document JSON (the OCR processors' text with its page
offsets, and the Layout Parser's blocks), a minified JSON engine output over the text-line limit, XML that no
reader takes flagged by QA, and plain OCR text of one printed line a line (PyMuPDF's OCR textpage) read into
paragraphs and headings. Every input is written here by the engine's documented schema (TEI P5 as GROBID writes
it; Document AI's Document: text, pages[].layout.textAnchor.textSegments, documentLayout.blocks[].textBlock);
nothing is copied from a benchmark document."""

from __future__ import annotations

import json

import pytest

from ctxmill.errors import InputRefused
from ctxmill.sources import docling_json, textract_json
from ctxmill.sources.engines import sniff_engine
from test_ocr_engines_round34 import compile_text, headings

# ---------------------------------------------------------------- GROBID TEI

TEI_HEAD = '<TEI xmlns="http://www.tei-c.org/ns/1.0" xmlns:xlink="http://www.w3.org/1999/xlink">'


def person(first: str, last: str, aff: str = "", email: str = "") -> str:
    out = f"<author><persName><forename type=\"first\">{first}</forename><surname>{last}</surname></persName>"
    if email:
        out += f"<email>{email}</email>"
    if aff:
        out += (f'<affiliation><orgName type="department">{aff}</orgName>'
                '<orgName type="institution">Harbour University</orgName>'
                "<address><settlement>Portsea</settlement><country>UK</country></address></affiliation>")
    return out + "</author>"


def bibl(k: int, title: str, journal: str, year: int, surname: str) -> str:
    return (f'<biblStruct xml:id="b{k}"><analytic><title level="a" type="main">{title}</title>'
            f'<author><persName><forename type="first">J</forename><surname>{surname}</surname></persName></author>'
            f'</analytic><monogr><title level="j">{journal}</title><imprint><biblScope unit="volume">{k + 3}</biblScope>'
            f'<biblScope unit="page" from="{k * 10 + 1}" to="{k * 10 + 9}"/><date type="published" when="{year}">{year}'
            '</date></imprint></monogr></biblStruct>')


def tei(declaration: bool) -> str:
    para = ("Counting the words of old ledgers by hand takes a long time, and two readers rarely agree "
            "on the count of a page; we describe a tool that reads the page images instead <ref type=\"bibr\" "
            "target=\"#b0\">[1]</ref>.")
    refs = "".join(bibl(k, f"Ledger study number {k + 1} of the harbour archive", "Journal of Old Paper",
                        2000 + k, s) for k, s in enumerate(["Quill", "Marsh", "Ferris", "Lowe", "Dent"]))
    body = f"""
<text xml:lang="en"><body>
<div><head n="1">Introduction</head><p>{para}</p></div>
<div><head n="2">Method</head><p>{para}</p>
  <div><head>Scanner Bay</head></div><div><head>Light Table</head></div>
  <div><head n="2.1">Reading the Pages</head><p>{para}</p></div>
  <div><head n="2.1.1">Columns</head><p>{para}</p></div></div>
<figure xml:id="fig_0"><head>Figure 1 .</head><label>1</label><figDesc>Figure 1. The scanner bay.</figDesc></figure>
<figure type="table" xml:id="tab_0"><head>Table 1 .</head><label>1</label><figDesc>Counts per reader.</figDesc>
  <table><row><cell>Reader</cell><cell>Words</cell></row><row><cell>Ada</cell><cell>412</cell></row></table></figure>
<div><head n="3">Results</head><p>{para}</p></div>
</body><back>
<div type="acknowledgement"><div><head>Acknowledgments</head><p>We thank the archive staff.</p></div></div>
<div type="annex"><div><head>A Sample Pages</head><p>{para}</p></div></div>
<div type="references"><listBibl>{refs}</listBibl></div>
</back></text>"""
    header = f"""
<teiHeader xml:lang="en"><fileDesc><titleStmt><title level="a" type="main">Counting Words in Old Ledgers</title>
</titleStmt><publicationStmt><publisher>Harbour Press</publisher></publicationStmt><sourceDesc><biblStruct><analytic>
{person("Ada", "Quill", "School of Records", "ada@harbour.ac.uk")}{person("Ben", "Mars")}{person("Ben", "Marsh", "School of Records")}
<title level="a" type="main">Counting Words in Old Ledgers</title></analytic><monogr><imprint><date/></imprint></monogr>
<idno type="MD5">0123456789ABCDEF0123456789ABCDEF</idno><idno type="DOI">10.1234/ledgers.2024</idno>
</biblStruct></sourceDesc></fileDesc>
<encodingDesc><appInfo><application version="0.8.1" ident="GROBID" when="2024-01-01"><desc>GROBID</desc>
</application></appInfo></encodingDesc>
<profileDesc><abstract><div><p>We count the words of old ledgers from their page images.</p></div></abstract>
</profileDesc></teiHeader>"""
    xml = TEI_HEAD + header + body + "</TEI>\n"
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + xml) if declaration else xml


@pytest.mark.parametrize("declaration", [True, False])
def test_grobid_tei_gives_title_authors_sections_by_their_numbers_and_the_references(declaration):
    text = tei(declaration)
    assert sniff_engine(text, "paper.xml") == "grobid-tei"
    doc = compile_text(text, "paper.tei.xml")
    assert doc.metadata.source.get("engine") == "grobid-tei"
    assert doc.metadata.title == "Counting Words in Old Ledgers"
    # (GROBID wrote one author twice, the name cut short: one author, the longer spelling)
    assert [a.name for a in doc.metadata.authors] == ["Ada Quill", "Ben Marsh"]
    heads = headings(doc.markdown)
    assert heads[0] == (1, "Counting Words in Old Ledgers")
    assert (2, "1 Introduction") in heads and (3, "2.1 Reading the Pages") in heads and (4, "2.1.1 Columns") in heads
    assert (2, "Acknowledgments") in heads and (2, "A Sample Pages") in heads
    # a figure's box labels that GROBID took for heads are no sections, but their words stay
    assert not any(t in ("Scanner Bay", "Light Table") for _, t in heads)
    assert "Scanner Bay" in doc.markdown
    assert "<" not in doc.markdown.replace("<br>", "")  # no TEI tag left
    assert len(doc.references) == 5
    assert doc.references[2].title and "Ledger study number 3" in doc.references[2].title
    assert doc.references[2].year == "2002"
    assert "| Ada | 412 |" in doc.markdown.replace("  ", " ")
    # nothing lost in silence: the second spelling of a name, the publisher are listed in removed.json
    removed = " ".join(r["text"] for r in doc.attrs["removed"])
    assert "Mars" in removed.split() and "Harbour Press" in removed


def test_xml_that_no_reader_takes_is_flagged_as_input_syntax_with_or_without_a_declaration():
    body = "<inventory>\n" + "".join(f"  <item id=\"{k}\">Ledger page {k} of the harbour archive</item>\n"
                                     for k in range(12)) + "</inventory>\n"
    for text in (body, '<?xml version="1.0"?>\n' + body):
        doc = compile_text(text, "inventory.txt")
        assert any(c.id == "input_syntax" for c in doc.qa.checks), text[:30]
    # an ordinary Markdown text that happens to start with an inline tag is no XML document
    doc = compile_text("<b>Note</b> on the ledgers.\n\nThe ledgers were counted twice by two readers.\n", "n.md")
    assert not any(c.id == "input_syntax" for c in doc.qa.checks)


# ---------------------------------------------------------------- Document AI, the OCR processors

def docai_ocr(pages: list[list[str]], snake: bool = False) -> dict:
    text, out = "", []
    for k, lines in enumerate(pages):
        start = len(text)
        text += "\n".join(lines) + "\n"
        seg = {"startIndex": str(start), "endIndex": str(len(text))} if start else {"endIndex": str(len(text))}
        if snake:
            seg = {"start_index": start, "end_index": len(text)}
        anchor = {"text_anchor" if snake else "textAnchor": {"text_segments" if snake else "textSegments": [seg]}}
        out.append({"pageNumber": k + 1, "layout": {**anchor, "confidence": 0.97},
                    "dimension": {"width": 1600, "height": 2500, "unit": "pixels"}})
    return {"mimeType": "application/pdf", "text": text, "pages": out, "shardInfo": {"shardCount": "1"}}


PROSE = ["the ledgers of the harbour office were kept in a fair hand for", "forty years, and each page holds the",
         "names of the ships that came in, their cargo and the dues", "they paid to the harbour master."]


def book_pages() -> list[list[str]]:
    pages = [["THE HARBOUR BOOK", "BY ADA QUILL", "Harbour Press"]]
    pages.append(["Introduction", "This book gathers what the ledgers say.", *PROSE, "Scanned by Archive"])
    for n in range(2, 9):
        head = "THE HARBOUR BOOK" if n % 2 == 0 else "SHIPS AND DUES"
        pages.append([str(n), head, *PROSE, "Scanned by Archive"])
    return pages


@pytest.mark.parametrize("snake", [False, True])
def test_document_ai_ocr_json_is_read_by_its_page_offsets_with_running_heads_and_folios_removed(snake):
    text = json.dumps(docai_ocr(book_pages(), snake))
    assert sniff_engine(text, "book.json") == "docai-json"
    doc = compile_text(text, "book.json")
    assert doc.metadata.source.get("engine") == "docai-json"
    assert doc.pages == 9
    assert doc.metadata.title == "THE HARBOUR BOOK"  # (the title page's first line, which the running heads repeat)
    assert (2, "Introduction") in headings(doc.markdown)
    md = doc.markdown
    assert "SHIPS AND DUES" not in md and "Scanned by Archive" not in md
    assert "\\n" not in md and "textAnchor" not in md  # the text, not the JSON
    removed = [(r["reason"], r["text"]) for r in doc.attrs["removed"]]
    assert ("running-head", "SHIPS AND DUES") in removed and ("page-number", "4") in removed
    assert md.count("forty years") == 8


# ---------------------------------------------------------------- Document AI, the Layout Parser

def block(k: int, kind: str, text: str, page: int, children=()) -> dict:
    return {"blockId": str(k), "pageSpan": {"pageStart": page, "pageEnd": page},
            "textBlock": {"text": text, "type": kind, "blocks": list(children)}}


def layout_parser() -> dict:
    k = iter(range(1, 1000))
    inner = [block(next(k), "paragraph", "The harbour office kept its ledgers for forty years.", 1)]
    for page in range(2, 9):
        head = "THE HARBOUR BOOK" if page % 2 == 0 else "SHIPS AND DUES"
        inner += [block(next(k), "header", str(page), page), block(next(k), "paragraph", head, page),
                  block(next(k), "paragraph", f"Page {page} tells of the ships and the dues they paid.", page)]
    # the engine types a running head as a heading too, at the top of a page
    inner.append(block(next(k), "heading-1", "THE HARBOUR BOOK", 10, [
        block(next(k), "paragraph", "The last ship came in on a grey morning.", 10)]))
    table = {"blockId": "t1", "pageSpan": {"pageStart": 7, "pageEnd": 7}, "tableBlock": {
        "headerRows": [{"cells": [{"blocks": [block(900, "paragraph", "Ship", 7)], "rowSpan": 1, "colSpan": 1},
                                  {"blocks": [block(901, "paragraph", "Dues", 7)], "rowSpan": 1, "colSpan": 1}]}],
        "bodyRows": [{"cells": [{"blocks": [block(902, "paragraph", "Mary Ann", 7)]},
                                {"blocks": [block(903, "paragraph", "12 shillings", 7)]}]}]}}
    chapter = block(next(k), "heading-1", "CHAPTER ONE", 1, inner)
    return {"documentLayout": {"blocks": [chapter, table]},
            "chunkedDocument": {"chunks": [{"chunkId": "c1", "content": "# CHAPTER ONE ..."}]}}


def test_document_ai_layout_parser_blocks_are_read_and_a_running_head_typed_heading_is_furniture():
    text = json.dumps(layout_parser(), indent=1)
    assert sniff_engine(text) == "docai-layout-json"
    doc = compile_text(text, "layout.json")
    assert doc.metadata.source.get("engine") == "docai-layout-json"
    assert headings(doc.markdown) == [(2, "CHAPTER ONE")]
    assert doc.metadata.title == ""
    md = doc.markdown
    assert "THE HARBOUR BOOK" not in md and "SHIPS AND DUES" not in md
    assert "| Mary Ann | 12 shillings |" in md
    assert "# CHAPTER ONE ..." not in md  # (the chunked copy is not read)
    reasons = {r["reason"] for r in doc.attrs["removed"] if "HARBOUR BOOK" in r["text"]}
    assert reasons  # listed, not lost


# ---------------------------------------------------------------- the text-line limit

def test_a_minified_json_engine_output_over_the_line_limit_compiles_and_a_long_text_line_is_still_refused():
    prose = "The harbour office kept its ledgers in a fair hand for forty years. " * 16_000  # ~1.1 MB
    data = docai_ocr([[prose[k:k + 90_000] for k in range(0, len(prose), 90_000)]])
    text = json.dumps(data, separators=(",", ":"))
    assert "\n" not in text and len(text) > 1_000_000
    doc = compile_text(text, "minified.json")
    assert doc.metadata.source.get("engine") == "docai-json"
    assert "forty years" in doc.markdown
    with pytest.raises(InputRefused, match="MAX_LINE_CHARS"):
        compile_text(prose, "one-line.txt")
    with pytest.raises(InputRefused, match="MAX_LINE_CHARS"):  # (JSON-looking text that is no engine's)
        compile_text('{"note": "' + prose + '"}', "note.json")


# ---------------------------------------------------------------- plain OCR text, one line a line

def lined_paper() -> str:
    wrap = ["Counting the words of old ledgers by hand takes a long time, and two readers rarely",
            "agree on the count of a page. We describe a tool that reads the page images and counts",
            "the words the same way each time, and we compare its counts with those of the readers",
            "on two hundred pages of the harbour archive."]
    p1 = ["Permission is granted to reproduce the figures of this paper for teaching and",
          "scholarly work.", "Counting Words in Old Ledgers", "Ada Quill∗", "Harbour University",
          "ada@harbour.ac.uk", "Ben Marsh†", "Portsea College", "ben@portsea.ac.uk", "Abstract", *wrap,
          "1", "Introduction", *wrap]
    p2 = ["2", "Method", *wrap, "2.1", "Reading the Pages", *wrap, "7", "Scanner", *wrap, "2"]
    p3 = ["3", "Results", *wrap, "References", "[1] Ada Quill and Ben Marsh. Counting ledgers by hand. Journal of",
          "Old Paper, 3:1-9, 2001.", "[2] Cyril Dent. The harbour archive. Harbour Press, 2003.",
          "[3] Eve Ferris. Reading scans of ledgers. In Proceedings of the Archive Conference,", "pages 4-8, 2005.", "3"]
    return "\f".join("\n".join(p) + "\n" for p in (p1, p2, p3)) + "\f"


def test_plain_ocr_lines_without_blank_lines_get_paragraphs_headings_a_title_and_a_byline():
    text = lined_paper()
    assert sniff_engine(text, "paper.txt") == "text"
    doc = compile_text(text, "paper.txt")
    assert doc.pages == 3  # (the form feed after the last page opens no page)
    assert doc.metadata.title == "Counting Words in Old Ledgers"
    assert [a.name for a in doc.metadata.authors] == ["Ada Quill", "Ben Marsh"]
    heads = headings(doc.markdown)
    assert [h for h in heads if h[0] > 1] == [(2, "Abstract"), (2, "1 Introduction"), (2, "2 Method"),
                                              (3, "2.1 Reading the Pages"), (2, "3 Results"), (2, "References")]
    # (a number over a word that does not come next in the numbering is no heading: "7" / "Scanner")
    assert len(doc.references) == 3
    paras = [p for p in doc.markdown.split("\n\n") if p.startswith("Counting the words")]
    assert len(paras) == 6  # each run of wrapped lines one paragraph, not one paragraph a page


def test_a_lone_pipe_line_does_not_make_wrapped_text_a_table():
    text = lined_paper().replace("2.1\n", "|\n2.1\n", 1)
    assert sniff_engine(text, "paper.txt") == "text"


# ---------------------------------------------------------------- one table writer

def test_docling_and_textract_write_tables_through_one_public_helper():
    from ctxmill.sources import tables

    assert not hasattr(docling_json, "_html_table")
    assert docling_json.html_table is tables.html_table and textract_json.html_table is tables.html_table
    assert tables.html_table([[("A & B", 1, 2, True)], [("1", 1, 1, False), ("2", 1, 1, False)]]) == (
        '<table><tr><th colspan="2">A &amp; B</th></tr><tr><td>1</td><td>2</td></tr></table>')


# ---------------------------------------------------------------- Azure Document Intelligence JSON

def azure_result() -> dict:
    content, paragraphs = "", []

    def para(text: str, page: int, role: str | None = None) -> dict:
        nonlocal content
        p = {"spans": [{"offset": len(content), "length": len(text)}], "content": text,
             "boundingRegions": [{"pageNumber": page, "polygon": [1, 1, 7, 1, 7, 2, 1, 2]}]}
        if role:
            p["role"] = role
        content += text + "\n"
        paragraphs.append(p)
        return p

    para("Harbour Review", 1, "pageHeader")
    para("Counting Words in Old Ledgers", 1, "title")
    para("1 Introduction", 1, "sectionHeading")
    para("The ledgers of the harbour office were kept in a fair hand for forty years.", 1)
    para("1", 1, "pageNumber")
    para("2 Counts", 2, "sectionHeading")
    para("Table 1: Words counted per reader.", 2)
    start = len(content)
    cells = []
    for r, row in enumerate([("Reader", "Words"), ("Ada", "412")]):
        for c, text in enumerate(row):
            p = para(text, 2)
            cells.append({"rowIndex": r, "columnIndex": c, "content": text, "spans": p["spans"],
                          **({"kind": "columnHeader"} if r == 0 else {})})
    table = {"rowCount": 2, "columnCount": 2, "cells": cells,
             "spans": [{"offset": start, "length": len(content) - start}],
             "boundingRegions": [{"pageNumber": 2, "polygon": [1, 3, 7, 3, 7, 5, 1, 5]}]}
    para("The two readers agree on most pages.", 2)
    return {"status": "succeeded", "analyzeResult": {
        "apiVersion": "2024-11-30", "modelId": "prebuilt-layout", "content": content, "paragraphs": paragraphs,
        "tables": [table], "pages": [{"pageNumber": 1, "spans": []}, {"pageNumber": 2, "spans": []}]}}


def test_azure_document_intelligence_json_is_read_by_its_paragraph_roles_and_tables():
    text = json.dumps(azure_result(), indent=2)
    assert sniff_engine(text, "result.json") == "azure-di-json"
    doc = compile_text(text, "result.json")
    assert doc.metadata.source.get("engine") == "azure-di-json"
    assert doc.metadata.title == "Counting Words in Old Ledgers"
    assert headings(doc.markdown) == [(1, "Counting Words in Old Ledgers"), (2, "1 Introduction"), (2, "2 Counts")]
    md = doc.markdown
    assert "| Ada | 412 |" in md.replace("  ", " ") and md.count("412") == 1  # (the cells' paragraphs: the table once)
    assert "Harbour Review" not in md
    assert ("page-header", "Harbour Review") in {(r["reason"], r["text"]) for r in doc.attrs["removed"]}
    assert doc.pages == 2
