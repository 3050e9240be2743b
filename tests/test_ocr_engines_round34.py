"""Round 34's OCR-engine readers (benchmarks/results/round34_ocr_rule.md): a byline whose marks OCR
read as glyphs, arXiv's margin stamp read as spaced characters, a title in chunked Unstructured
JSON, PaddleOCR-VL's title labelled header, a section number on a line of its own above its title
(GOT-OCR), and a references heading in wrapped text. Every snippet is written for these tests in
the engine's format; nothing is copied from a benchmark document."""

from __future__ import annotations

import json
import re

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.sources.engines import sniff_engine


def compile_text(text: str, name: str = "paste.md"):
    return compile_document(text.encode(), CompileOptions(chunks=False), name=name)


def headings(md: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#{1,6}) (.+)$", md, re.M)]


def dropped(doc) -> set[tuple[str, str]]:
    return {(r["reason"], r["text"]) for r in doc.attrs["removed"] if r.get("dropped")}


def element(kind: str, text: str, page: int = 1) -> dict:
    return {"type": kind, "element_id": f"e{abs(hash((kind, text))) % 10**8}", "text": text,
            "metadata": {"page_number": page, "filetype": "application/pdf"}}


BODY = ("Old letters hold many words, and counting them by hand takes a long time; this paper "
        "describes a small tool that counts them from page images instead.")


def test_a_byline_with_marks_read_as_glyphs_gives_its_authors_and_lists_the_marks():
    # Unstructured's hi_res OCR reads superscript affiliation marks as glyphs ("!", "”", "?",
    # "®") and an ORCID icon as "(4)": the names are written alone, the marks listed (U1)
    els = [element("Title", "Counting Words in Old Letters"),
           element("NarrativeText", "Maria Lopez! (4), Tom Becker”, Ana Silva?, and Jon Weiss®"),
           element("NarrativeText", "1 Example University 2 Other Institute 3 Third College"),
           element("Title", "1 Introduction"), element("NarrativeText", BODY)]
    text = json.dumps(els)
    assert sniff_engine(text, "paper.pdf.json") == "unstructured-json"
    doc = compile_text(text, name="paper.pdf.json")
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert [a.name for a in doc.metadata.authors] == ["Maria Lopez", "Tom Becker", "Ana Silva", "Jon Weiss"]
    assert "Maria Lopez, Tom Becker, Ana Silva, and Jon Weiss" in doc.markdown
    assert ("byline-marks", "! (4) ” ? ®") in dropped(doc)
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_byline_typed_title_is_no_heading():
    # Unstructured types a byline Title now and then: written as the byline, not a "##" heading
    els = [element("Title", "Counting Words in Old Letters"), element("Image", ""),
           element("UncategorizedText", "(Qx"),
           element("Title", "Maria Lopez†, Tom Becker‡"),
           element("Title", "1 Introduction"), element("NarrativeText", BODY)]
    doc = compile_text(json.dumps(els), name="paper.pdf.json")
    assert [t for _, t in headings(doc.markdown)] == ["Counting Words in Old Letters", "1 Introduction"]
    assert [a.name for a in doc.metadata.authors] == ["Maria Lopez", "Tom Becker"]
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_byline_whose_marks_the_metadata_stage_reads_is_left_as_it_is():
    # a star or a number alone is no OCR glyph: the line is not rewritten
    md = "# Counting Words in Old Letters\n\nMaria Lopez*, Tom Becker1\n\n## 1 Introduction\n\n" + BODY + "\n"
    doc = compile_text(md)
    assert not any(reason == "byline-marks" for reason, _ in dropped(doc))


def test_chunked_unstructured_json_finds_its_title_under_the_arxiv_stamp():
    # chunked output keeps no element types; arXiv's margin stamp, read across the page as
    # spaced characters (backwards), stood before the title, so none was found (U2, U3); a
    # spacing breve before its letter ("Du˘gan" -> "Duğan") is composed, the engine's spelling listed
    stamp = "9 1 0 2\n\nn a J 5\n\n] L C . s c [\n\n1 v 7 6 5 4 0 . 1 0 9 1 : v i X r a"
    text = (stamp + "\n\nCounting Words in Old Letters\n\nMaria Lopez∗, Emre Du˘gan∗, Ana Silva†\n\n"
            "Example University\n\nAbstract\n\n" + BODY + "\n\n1 Introduction\n\n" + BODY)
    chunks = json.dumps([{"type": "CompositeElement", "element_id": "c1", "text": text,
                          "metadata": {"page_number": 1, "filetype": "application/pdf"}}])
    assert sniff_engine(chunks, "paper.pdf.json") == "unstructured-json"
    doc = compile_text(chunks, name="paper.pdf.json")
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert [a.name for a in doc.metadata.authors] == ["Maria Lopez", "Emre Duğan", "Ana Silva"]
    gone = dropped(doc)
    assert ("arxiv-stamp", "1 v 7 6 5 4 0 . 1 0 9 1 : v i X r a") in gone and ("arxiv-stamp", "9 1 0 2") in gone
    assert ("byline-respelled", "Emre Du˘gan") in gone
    assert "v i X r a" not in doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_letter_spaced_words_that_spell_no_arxiv_stamp_stay():
    # Elsevier's letter-spaced labels ("a r t i c l e i n f o") are text, not a stamp
    md = ("# Counting Words in Old Letters\n\na r t i c l e i n f o\n\na b s t r a c t\n\n"
          + BODY + "\n\n## 1 Introduction\n\n" + BODY + "\n")
    doc = compile_text(md)
    assert "a r t i c l e i n f o" in doc.markdown
    assert not any(reason == "arxiv-stamp" for reason, _ in dropped(doc))


def test_paddleocr_vl_title_labelled_header_is_the_title():
    # no doc_title on the page, its first block labelled header above the paragraph titles:
    # that is the title the engine took for a running head (P1); the headings are peers
    page = {"parsing_res_list": [
        {"block_label": "header", "block_content": "Counting Words in Old Letters", "block_bbox": [60, 70, 650, 120]},
        {"block_label": "paragraph_title", "block_content": "## Method", "block_bbox": [60, 180, 300, 210]},
        {"block_label": "text", "block_content": BODY, "block_bbox": [60, 240, 770, 300]},
        {"block_label": "paragraph_title", "block_content": "### Notes", "block_bbox": [60, 850, 150, 880]},
        {"block_label": "text", "block_content": "Each count was made twice.", "block_bbox": [60, 900, 770, 940]}],
        "layout_det_res": {"boxes": []}}
    text = json.dumps(page)
    assert sniff_engine(text, "page.json") == "paddleocr-vl-json"
    doc = compile_text(text, name="page.json")
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert headings(doc.markdown) == [(1, "Counting Words in Old Letters"), (2, "Method"), (2, "Notes")]
    # a header with a number in it is a running head still
    page["parsing_res_list"][0]["block_content"] = "Journal of Letters 12 (2020)"
    doc = compile_text(json.dumps(page), name="page.json")
    assert ("page-header", "Journal of Letters 12 (2020)") in dropped(doc)


def test_a_section_number_on_its_own_line_heads_the_title_line_under_it():
    # GOT-OCR: a line per printed line, no blank line, the number above its title (G1)
    cells = "Year\nLetters\nWords\n1850\n12\n4.1k\n1851\n19\n6.3k\n1852\n7\n2.2k\nTotal\n38\n12.6k\n"
    text = (cells + "Table 2 Counts per year, read from the scanned letters of the collection.\n"
            "2.3.1\n"
            "Reading the letters: the first pass\n"
            "We read each letter twice, once for its words and once for its dates, and we wrote\n"
            "down what each reading found so that the two passes could be compared line by line.\n"
            "2.3.2\n"
            "Counting the words\n"
            "The counts of the two passes were then set side by side, and where they differed the\n"
            "letter was read a third time by someone who had seen neither count before then.\n")
    assert sniff_engine(text, "page.md") is None
    doc = compile_text(text, name="page.md")
    assert headings(doc.markdown) == [(4, "2.3.1 Reading the letters: the first pass"), (4, "2.3.2 Counting the words")]
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_references_heading_in_wrapped_text_heads_its_numbered_entries():
    # wrapped text (Gemini, Tesseract): an upper-case line opening a block, straight above "1 ...",
    # is the list's heading, and the wrapped entries are one each ("18 http..." is a wrap) (T1)
    prose = ("We counted the words of old letters by hand and by machine, and the two counts\n"
             "agree on most pages of the collection, as the tables of the next pages show in\n"
             "detail for every year from the first letter to the last one we could read.\n")
    text = (prose + "\n" + prose + "\n" + prose + "\nREFERENCES\n"
            "1 Lopez M. Counting words in letters. Journal of Letters 2001;3:1-9.\n"
            "2 Becker T. Reading old hands. The Archive (Bonn) 2004; May\n"
            "18 http://example.org/letters/2004/05/reading.html.\n"
            "3 Silva A. Machines that read. Review of Reading 2010;7:44-59.\n")
    assert sniff_engine(text, "page.txt") == "text"
    doc = compile_text(text, name="page.txt")
    assert ("REFERENCES" in [t for _, t in headings(doc.markdown)])
    assert len(doc.references) == 3
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_bare_numbered_references_under_an_upper_case_heading_are_one_entry_each():
    # olmOCR writes "1 Author ..." one a line, GOT-OCR the number alone above its entry's lines:
    # the references stage read bare numbers as running text and joined the entries (O2)
    prose = ("We counted the words of old letters by hand and by machine, and the two counts agree on "
             "most pages of the collection, as the tables of the next pages show in detail.")
    one_a_line = (prose + "\n\nREFERENCES\n"
                  "1 Lopez M. Counting words in letters. Journal of Letters 2001;3:1-9.\n"
                  "2 Becker T. Reading old hands. The Archive (Bonn) 2004; May 18 http://example.org/a.html\n"
                  "3 Silva A. Machines that read. Review of Reading 2010;7:44-59.\n")
    number_alone = (prose + "\nREFERENCES\n1\nLopez M. Counting words in letters. Journal of Letters\n"
                    "2001;3:1-9.\n2\nBecker T. Reading old hands. The Archive (Bonn) 2004; May\n"
                    "18 http://example.org/a.html\n3\nSilva A. Machines that read. Review of Reading 2010;7:44-59.\n"
                    "LETTERS AND READERS\nThe next piece starts here.\n")
    for text in (one_a_line, number_alone):
        assert sniff_engine(text, "page.md") is None
        doc = compile_text(text, name="page.md")
        assert "REFERENCES" in [t for _, t in headings(doc.markdown)]
        assert len(doc.references) == 3, doc.markdown
        assert "[2] Becker T. Reading old hands." in doc.markdown
        assert doc.attrs["conservation"]["words_lost"] == 0
