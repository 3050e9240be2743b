"""benchmarks/ocr_heldout.py's words-in readers for set 6's shapes (round 36): a Document AI Document's text, a
Layout Parser's nested blocks (not its chunks, which repeat them), GROBID TEI less GROBID's own metadata."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import ocr_heldout  # noqa: E402


def test_document_ai_ocr_text_is_read_once(tmp_path):
    doc = {"text": "A Title\nFirst line of text\n", "pages": [{"pageNumber": 1}],
           "entities": [{"type": "title", "mentionText": "A Title"}]}
    src = tmp_path / "source.json"
    src.write_text(json.dumps(doc))
    assert ocr_heldout._words(ocr_heldout.content(src)) == ["a", "title", "first", "line", "of", "text"]


def test_layout_parser_blocks_in_order_and_chunks_not_read(tmp_path):
    doc = {"documentLayout": {"blocks": [
        {"textBlock": {"text": "CHAPTER I", "type": "heading-1", "blocks": [
            {"textBlock": {"text": "Once upon a time", "type": "paragraph"}},
            {"tableBlock": {"bodyRows": [{"cells": [{"blocks": [{"textBlock": {"text": "cell"}}]}]}]}}]}}]},
        "chunkedDocument": {"chunks": [{"content": "# CHAPTER I\n\nOnce upon a time"}]}}
    src = tmp_path / "source.json"
    src.write_text(json.dumps(doc))
    assert ocr_heldout._words(ocr_heldout.content(src)) == ["chapter", "i", "once", "upon", "a", "time", "cell"]


def test_grobid_tei_less_its_application_and_file_hash(tmp_path):
    tei = ('<?xml version="1.0"?><TEI><teiHeader><encodingDesc><appInfo><application version="0.8.2" ident="GROBID">'
           '<desc>GROBID - A machine learning software</desc></application></appInfo></encodingDesc>'
           '<idno type="MD5">17D4EB15</idno><idno type="DOI">10.1/x</idno></teiHeader>'
           '<text><body><div><head n="1">Introduction</head><p>Words here.</p></div></body></text></TEI>')
    src = tmp_path / "source.xml"
    src.write_text(tei)
    words = ocr_heldout._words(ocr_heldout.content(src))
    assert "grobid" not in words and "17d4eb15" not in words
    assert words[-3:] == ["introduction", "words", "here"]


def test_s2orc_json_paragraphs_with_each_heading_once_captions_and_references(tmp_path):
    # round 37 (set 7): doc2json's S2ORC JSON repeats the section name in every paragraph; the heading is words
    # of the document once, not once a paragraph, and the ids and spans are not words at all
    para = {"cite_spans": [{"start": 0, "end": 4, "text": "[1]", "ref_id": "BIBREF0"}], "ref_spans": [], "eq_spans": []}
    doc = {"paper_id": "x", "title": "A Title", "authors": [{"first": "Ann", "last": "Lee"}],
           "pdf_parse": {"abstract": [dict(para, text="We study it.", section="Abstract", sec_num=None)],
                         "body_text": [dict(para, text="First one.", section="Introduction", sec_num="1"),
                                       dict(para, text="Second one.", section="Introduction", sec_num="1")],
                         "back_matter": [dict(para, text="Thanks.", section="Acknowledgements", sec_num=None)],
                         "ref_entries": {"FIGREF0": {"text": "A figure.", "type_str": "figure"}},
                         "bib_entries": {"BIBREF0": {"title": "Old", "raw_text": "Lee, A. Old work. 2001."}}}}
    src = tmp_path / "source.json"
    src.write_text(json.dumps(doc))
    assert ocr_heldout._words(ocr_heldout.content(src)) == [
        "a", "title", "abstract", "we", "study", "it", "1", "introduction", "first", "one", "second", "one",
        "acknowledgements", "thanks", "a", "figure", "lee", "a", "old", "work", "2001"]


def test_adobe_extract_elements_kids_run_together_and_hyphen_span_is_a_line_end_hyphen(tmp_path):
    # round 38 (set 8): Adobe PDF Extract's structuredData.json; a paragraph's Kids are cut at style changes
    # ("CO" + "2": one word, which the counter splits at a glued number as it does everywhere) and at line-end
    # hyphens (a HyphenSpan "-"): their texts run together, the hyphen reads as a line-end hyphen
    doc = {"version": {"json_export": "171"}, "extended_metadata": {"page_count": 1}, "elements": [
        {"Path": "//Document/Title", "Text": "A Title ", "Page": 0},
        {"Path": "//Document/P", "Page": 0, "Kids": [
            {"Path": "//Document/P", "Text": "Emissions of CO"}, {"Path": "//Document/P/Sub", "Text": "2 "},
            {"Path": "//Document/P", "Text": "harm so"}, {"Path": "//Document/P/HyphenSpan", "Text": "-"},
            {"Path": "//Document/P", "Text": "cieties."}]},
        {"Path": "//Document/Figure", "Page": 0}]}
    src = tmp_path / "source.json"
    src.write_text(json.dumps(doc))
    text = ocr_heldout.content(src)
    assert "so-\ncieties" in text
    assert ocr_heldout._words(text) == ["a", "title", "emissions", "of", "co", "2", "harm", "so", "cieties"]


def test_alto_words_are_attributes_and_page_xml_lines_are_read_once(tmp_path):
    # round 38 (set 8): ALTO keeps each word in a String's CONTENT attribute (no element text at all); PAGE XML
    # repeats a region's lines in the region's own TextEquiv, so only the lines are words (a region without lines
    # is read by its own)
    alto = ('<?xml version="1.0"?><alto xmlns="http://www.loc.gov/standards/alto/ns-v2#"><Layout><Page><PrintSpace>'
            '<TextBlock><TextLine><String CONTENT="die"/><SP/><String CONTENT="über" SUBS_TYPE="HypPart1"/>'
            '<HYP CONTENT="\u00ad"/></TextLine><TextLine><String CONTENT="sichtlich" SUBS_TYPE="HypPart2"/>'
            '<SP/><String CONTENT="Alge"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>')
    src = tmp_path / "source.xml"
    src.write_text(alto)
    assert ocr_heldout.content(src) == "die über-\n\nsichtlich Alge"
    page = ('<?xml version="1.0"?><pc:PcGts xmlns:pc="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">'
            '<pc:Page><pc:TextRegion id="r1"><pc:TextLine id="l1"><pc:TextEquiv><pc:Unicode>erste Zeile</pc:Unicode>'
            '</pc:TextEquiv></pc:TextLine><pc:TextLine id="l2"><pc:TextEquiv><pc:Unicode>zweite</pc:Unicode>'
            '</pc:TextEquiv></pc:TextLine><pc:TextEquiv><pc:Unicode>erste Zeile\nzweite</pc:Unicode></pc:TextEquiv>'
            '</pc:TextRegion><pc:TextRegion id="r2"><pc:TextEquiv><pc:Unicode>Folio</pc:Unicode></pc:TextEquiv>'
            '</pc:TextRegion></pc:Page></pc:PcGts>')
    src.write_text(page)
    assert ocr_heldout._words(ocr_heldout.content(src)) == ["erste", "zeile", "zweite", "folio"]


def test_jats_article_element_text_without_its_hyphenated_tag_names(tmp_path):
    # round 39 (set 9): CERMINE's JATS XML; its tag names carry hyphens (<article-title>, <contrib-group>), which the
    # HTML tag pattern does not take out, so they would count as words in; the words are the element text only
    jats = ('<article xmlns:xlink="http://www.w3.org/1999/xlink">\n<front>\n<article-meta>\n'
            '<article-id pub-id-type="doi">10.1/x</article-id>\n'
            '<title-group>\n<article-title>A Title</article-title>\n</title-group>\n'
            '<contrib-group>\n<contrib contrib-type="author">\n<string-name>Ann Lee</string-name>\n</contrib>\n'
            '</contrib-group>\n</article-meta>\n</front>\n<body>\n<sec id="sec-1">\n<title>1. Introduction</title>\n'
            '<p>Words <italic>here</italic>.</p>\n</sec>\n</body>\n<back>\n<ref-list>\n<ref id="ref1">\n'
            '<mixed-citation>[1] <string-name>B. Kay</string-name>, Old work</mixed-citation>\n</ref>\n</ref-list>\n'
            '</back>\n</article>\n')
    src = tmp_path / "source.xml"
    src.write_text(jats)
    assert ocr_heldout._words(ocr_heldout.content(src)) == [
        "10", "1", "x", "a", "title", "ann", "lee", "1", "introduction", "words", "here", "1", "b", "kay", "old", "work"]


def test_papermage_document_symbols_are_read_once(tmp_path):
    # round 39 (set 9): papermage's Document JSON holds its text once, in "symbols"; tokens, rows and pages are
    # spans into it (no text of their own), so the words are the symbols' words
    doc = {"symbols": "A Title\nFirst line", "metadata": {}, "relations": {},
           "entities": {"tokens": [{"spans": [[0, 1]], "boxes": [[0.1, 0.1, 0.1, 0.1, 0]]}],
                        "rows": [{"spans": [[0, 7]]}], "pages": [{"spans": [[0, 18]]}]}}
    src = tmp_path / "source.json"
    src.write_text(json.dumps(doc))
    assert ocr_heldout._words(ocr_heldout.content(src)) == ["a", "title", "first", "line"]
