"""Round 39 (OCR set 8, H8-1 / H8-2 / H8-7): readers of Adobe PDF Extract's structuredData.json, ALTO XML and PAGE
XML. Every input here is written for the test in the engine's own schema (no benchmark text)."""

from __future__ import annotations

import json

from ctxmill.sources.engines import sniff_engine
from test_ocr_engines_round34 import compile_text, headings

PARA = ("The harbour ledgers of the town were kept by hand for two hundred years, and each page lists the ships, "
        "their cargo and the dues they paid at the quay.")


def _el(path: str, text: str | None = None, page: int = 0, kids: list | None = None) -> dict:
    e = {"Path": path, "Page": page, "Bounds": [10, 10, 500, 30], "attributes": {"LineHeight": 12}}
    if text is not None:
        e["Text"] = text
        e["Font"] = {"name": "Times", "embedded": True}
        e["TextSize"] = 10
    if kids is not None:
        e["Kids"] = kids
    return e


def adobe_doc() -> str:
    elements = [
        _el("//Document/P", kids=[_el("//Document/P/Span", "Harbour Studies Quarterly, 2021, 4, 10-19 ")]),
        _el("//Document/Title", "Counting Ships in Old Ledgers "),
        _el("//Document/H1", "Ada Quill, Ben Marsh, Cora Lind "),
        _el("//Document/P[2]", "School of Records, Harbour University "),
        _el("//Document/H1[2]", "Abstract "),
        _el("//Document/P[3]", kids=[_el("//Document/P[3]", "We count the ships in the ledgers of a small har"),
                                      _el("//Document/P[3]/HyphenSpan", "-"),
                                      _el("//Document/P[3]", "bour and find that CO"),
                                      _el("//Document/P[3]/StyleSpan", "2 "),
                                      _el("//Document/P[3]", "dues rose over the century. ")]),
        _el("//Document/H1[3]", "Keywords "),
        _el("//Document/H2", "Ledgers; Shipping "),
        _el("//Document/H1[4]", "1. Introduction ", page=1),
        _el("//Document/P[4]", PARA + " ", page=1),
        _el("//Document/L", page=1, kids=[_el("//Document/L/LI/Lbl", "• ", 1),
                                          _el("//Document/L/LI/LBody", "the east quay ledger ", 1),
                                          _el("//Document/L/LI[2]/Lbl", "• ", 1),
                                          _el("//Document/L/LI[2]/LBody", "the west quay ledger ", 1)]),
        _el("//Document/H2[2]", "1.1. Sources ", page=1),
        _el("//Document/P[5]", PARA + " ", page=1),
        _el("//Document/Table", page=1, kids=[_el("//Document/Table/TR/TH/P", "Quay ", 1),
                                              _el("//Document/Table/TR/TH[2]/P", "Ships ", 1),
                                              _el("//Document/Table/TR[2]/TD/P", "East ", 1),
                                              _el("//Document/Table/TR[2]/TD[2]/P", "412 ", 1)]),
        _el("//Document/Footnote", "A ledger is a book of accounts. ", page=1),
        _el("//Document/H1[5]", "References ", page=1),
        _el("//Document/P[6]", "Quill, A. (2019). Ships and Dues. Harbour Press. ", page=1),
        _el("//Document/P[7]", "Marsh, B. (2020). The East Quay. Journal of Ports, 3, 1-9. ", page=1),
    ]
    data = {"version": {"json_export": "171", "page_segmentation": "52", "schema": "1.0.0", "structure": "1.939.0",
                        "table_structure": "5"},
            "extended_metadata": {"page_count": 2, "pdf_version": "1.7", "language": "en"},
            "elements": elements, "pages": [{"page_number": 0, "width": 612, "height": 792},
                                            {"page_number": 1, "width": 612, "height": 792}]}
    return json.dumps(data, indent=4, ensure_ascii=True)


def test_adobe_extract_json_is_named_and_read_by_its_paths():
    text = adobe_doc()
    assert sniff_engine(text, "structuredData.json") == "adobe-extract-json"
    doc = compile_text(text, "structuredData.json")
    md = doc.markdown
    assert doc.metadata.title == "Counting Ships in Old Ledgers"
    assert [a.name for a in doc.metadata.authors] == ["Ada Quill", "Ben Marsh", "Cora Lind"]
    hs = headings(md)
    assert (2, "Abstract") in hs and (2, "Keywords") in hs and (2, "1 Introduction") in hs and (3, "1.1 Sources") in hs
    assert not any("Ada Quill" in t or "Ledgers; Shipping" in t for _, t in hs)  # byline, keywords: text
    # the Kids run together, the line-end hyphen joins its word, no JSON left
    assert "small harbour and find that CO2 dues" in md
    assert '"Path"' not in md and "//Document" not in md
    assert "- the east quay ledger" in md and "- the west quay ledger" in md
    assert "| Quay | Ships |" in md and "| East | 412 |" in md  # the cells gathered into one table
    assert len(doc.references) == 2
    assert doc.metadata.pages == 2
    assert doc.metadata.source["engine"] == "adobe-extract-json"


def test_adobe_json_of_another_shape_is_not_taken():
    # a JSON with "elements" that holds no //Document paths is no Adobe output
    other = json.dumps({"version": {"json_export": "1"}, "elements": [{"name": "a", "text": "b"}]})
    assert sniff_engine(other, "x.json") != "adobe-extract-json"
