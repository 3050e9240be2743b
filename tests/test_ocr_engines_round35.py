"""Round 35's OCR-engine readers (benchmarks/results/round35_tOCR_rule.md): docling's lossless
DoclingDocument JSON, the QA check for a document that is its input's syntax, an upper-case heading
line glued to its paragraph (and the title it would have cost), and a wrapped-text heading of
upper-case lines running into prose. Every snippet is written for these tests in the engine's
format; nothing is copied from a benchmark document."""

from __future__ import annotations

import json
import re

from ctxmill.sources.engines import sniff_engine
from ctxmill.sources.markdown import plain_headings
from test_ocr_engines_round34 import compile_text, dropped, headings  # (one text compiler for the OCR tests)

BODY = ("Old letters hold many words, and counting them by hand takes a long time; this paper "
        "describes a small tool that counts them from page images instead.")


def _text(k: int, label: str, text: str, page: int = 1, parent: str = "#/body", **extra) -> dict:
    return {"self_ref": f"#/texts/{k}", "parent": {"$ref": parent}, "children": [], "label": label,
            "content_layer": extra.pop("layer", "body"), "prov": [{"page_no": page, "charspan": [0, len(text)]}],
            "orig": text, "text": text, **extra}


def _cell(r: int, c: int, text: str, rs: int = 1, cs: int = 1, head: bool = False) -> dict:
    return {"text": text, "start_row_offset_idx": r, "end_row_offset_idx": r + rs, "start_col_offset_idx": c,
            "end_col_offset_idx": c + cs, "row_span": rs, "col_span": cs, "column_header": head}


def docling_document() -> dict:
    texts = [
        _text(0, "page_header", "Counting Words, a Preprint", layer="furniture"),
        _text(1, "title", "Counting Words in Old Letters"),
        _text(2, "section_header", "1 Introduction", level=1),
        _text(3, "text", BODY),
        _text(4, "list_item", "pages are photographed once", parent="#/groups/0", marker="-", enumerated=False),
        _text(5, "list_item", "words are counted twice", parent="#/groups/0", marker="-", enumerated=False),
        _text(6, "caption", "Table 1. Letters and their words.", parent="#/tables/0"),
        _text(7, "section_header", "1.1 Method", page=2, level=2),
        _text(8, "text", "The tool reads each page image and counts the words it finds on it, line by line.",
              page=2),
        _text(9, "page_footer", "2", page=2, layer="furniture"),
        _text(10, "text", "A sentence the body never points at, kept all the same.", page=2),
    ]
    table = {"self_ref": "#/tables/0", "parent": {"$ref": "#/body"}, "children": [], "label": "table",
             "content_layer": "body", "prov": [{"page_no": 1}], "captions": [{"$ref": "#/texts/6"}],
             "footnotes": [], "data": {"num_rows": 3, "num_cols": 3, "table_cells": [
                 _cell(0, 0, "Letter", rs=2, head=True), _cell(0, 1, "Words", cs=2, head=True),
                 _cell(1, 1, "counted", head=True), _cell(1, 2, "printed", head=True),
                 _cell(2, 0, "First & one"), _cell(2, 1, "120"), _cell(2, 2, "118")]}}
    group = {"self_ref": "#/groups/0", "parent": {"$ref": "#/body"}, "label": "list", "name": "list",
             "content_layer": "body", "children": [{"$ref": "#/texts/4"}, {"$ref": "#/texts/5"}]}
    body = ["#/texts/0", "#/texts/1", "#/texts/2", "#/texts/3", "#/groups/0", "#/tables/0", "#/texts/7", "#/texts/8",
            "#/texts/9"]
    return {"schema_name": "DoclingDocument", "version": "1.10.0", "name": "letters",
            "origin": {"mimetype": "application/pdf", "filename": "letters.pdf"},
            "furniture": {"self_ref": "#/furniture", "children": [], "content_layer": "furniture", "label": "unspecified",
                          "name": "_root_"},
            "body": {"self_ref": "#/body", "children": [{"$ref": r} for r in body], "content_layer": "body",
                     "label": "unspecified", "name": "_root_"},
            "groups": [group], "texts": texts, "pictures": [], "tables": [table], "key_value_items": [],
            "form_items": [], "pages": {"1": {"page_no": 1}, "2": {"page_no": 2}}}


def test_a_docling_document_json_is_read_as_its_tree_not_as_text():
    text = json.dumps(docling_document(), indent=2)
    assert sniff_engine(text, "letters.json") == "docling-json"
    doc = compile_text(text, name="letters.json")
    md = doc.markdown
    assert '"schema_name"' not in md and "$ref" not in md
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert headings(md) == [(1, "Counting Words in Old Letters"), (2, "1 Introduction"), (3, "1.1 Method")]
    assert "- pages are photographed once" in md and "- words are counted twice" in md
    # the table from its cells: the column span's text in its first cell, the row span's below it empty
    assert "| Letter | Words |   |" in md and "|   | counted | printed |" in md and "| First & one | 120 | 118 |" in md
    assert md.index("Table 1") < md.index("| Letter")  # the caption above its table
    # furniture to removed.json; a text the body never reaches is kept; nothing lost
    assert ("page-header", "Counting Words, a Preprint") in dropped(doc)
    assert "A sentence the body never points at" in md
    assert doc.pages == 2
    assert doc.attrs["conservation"]["words_lost"] == 0
    assert not any(c.id == "input_syntax" for c in doc.qa.checks)


def test_a_broken_docling_tree_loses_no_text_and_does_not_loop():
    d = docling_document()
    d["groups"][0]["children"].append({"$ref": "#/groups/0"})  # a cycle
    d["body"]["children"].insert(0, {"$ref": "#/texts/99"})  # a pointer past the list
    d["tables"][0]["data"]["table_cells"].append(_cell(9000, 9000, "far away"))  # offsets far apart
    doc = compile_text(json.dumps(d), name="letters.json")
    assert "pages are photographed once" in doc.markdown and "far away" in doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_json_input_no_reader_knows_is_flagged_by_qa():
    data = {"DocumentMetadata": {"Pages": 1}, "Items": [{"Kind": "LINE", "Text": "Counting words in old letters"},
                                                        {"Kind": "LINE", "Text": BODY}]}
    doc = compile_text(json.dumps(data, indent=2), name="response.json")
    checks = [c for c in doc.qa.checks if c.id == "input_syntax"]
    assert checks and checks[0].severity == "error" and "JSON" in checks[0].message
    assert doc.qa.score <= 80
    # XML the same way
    xml = '<?xml version="1.0"?>\n<page><line>Counting words in old letters</line><line>' + BODY + "</line></page>\n"
    assert any(c.id == "input_syntax" for c in compile_text(xml, name="page.xml").qa.checks)
    # a Markdown document that shows some JSON is a document
    md = "# Counting Words\n\n" + BODY + "\n\n```json\n{\"words\": 12}\n```\n"
    assert not any(c.id == "input_syntax" for c in compile_text(md).qa.checks)


TOP = ("Counting words in old letters: a small tool?\n\nM Lopez\n\n" + BODY + "\n\n" + BODY + "\n\n")


def test_an_upper_case_heading_line_glued_to_its_paragraph_is_a_heading():
    text = TOP + "METHODS AND MATERIALS\n" + BODY + "\n\n" + BODY + "\n"
    out = plain_headings(text)
    assert "## METHODS AND MATERIALS\n\n" + BODY in out
    doc = compile_text(text)
    assert headings(doc.markdown) == [(1, "Counting words in old letters: a small tool?"), (2, "METHODS AND MATERIALS")]
    assert doc.metadata.title == "Counting words in old letters: a small tool?"


def test_the_title_line_is_marked_only_over_a_byline():
    # a caption first (a page from the middle of a paper), or no byline under the first line: no title
    page = "Table 2: Letters and their words.\n\nM Lopez\n\n" + BODY + "\n\nMETHODS AND MATERIALS\n" + BODY + "\n"
    assert plain_headings(page).startswith("Table 2:")
    page = "Counting words in old letters\n\n" + BODY + "\n\nMETHODS AND MATERIALS\n" + BODY + "\n"
    assert plain_headings(page).startswith("Counting words")
    # an upper-case line glued to a short line is no heading (a label over a list, a table head)
    text = "NOTES\nsee below\n\n" + BODY + "\n"
    assert plain_headings(text) == text


WRAP = ("Old letters hold many words, and counting them by hand\n"
        "takes a long time; this paper describes a small tool\n"
        "that counts them from page images instead of by hand.\n")


def test_upper_case_lines_running_into_wrapped_prose_are_a_heading_a_rubric_over_a_title_is_not():
    text = ("RESEARCH NOTE\n"
            "Counting words in old letters with a tool:\n"
            "a first report\n"
            "M Lopez\n" + WRAP + "\n" + WRAP + "\n" + WRAP + "\n"
            "WORDS IN OLD LETTERS:\n"
            "THE BACKGROUND\n" + WRAP + WRAP + "\n" + WRAP)
    assert sniff_engine(text) == "text"
    doc = compile_text(text, name="page.txt")
    assert (2, "WORDS IN OLD LETTERS: THE BACKGROUND") in headings(doc.markdown)
    assert not any(t.startswith("RESEARCH NOTE") for _, t in headings(doc.markdown))
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_rules_and_blanks_at_a_page_edge_are_dropped_as_before():
    from ctxmill.sources.engines import _drop_rules_at_edges

    def slow(lines):  # the definition before round 35 (a slice a line)
        while lines and (not lines[0].strip() or re.fullmatch(r"\s*(?:-{3,}|\*{3,}|_{3,})\s*", lines[0])):
            lines = lines[1:]
        while lines and (not lines[-1].strip() or re.fullmatch(r"\s*(?:-{3,}|\*{3,}|_{3,})\s*", lines[-1])):
            lines = lines[:-1]
        return lines

    for lines in ([], [""], ["---"], ["", "---", "text", "***", ""], ["text"], ["a", "", "b"], ["___", " ", "x", "--"],
                  [""] * 5000 + ["word"] + ["---"] * 3):
        assert _drop_rules_at_edges(list(lines)) == slow(list(lines))
