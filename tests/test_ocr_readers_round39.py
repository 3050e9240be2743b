"""Round 39 (OCR set 8, H8-1 / H8-2 / H8-7): readers of Adobe PDF Extract's structuredData.json, ALTO XML and PAGE
XML. Every input here is written for the test in the engine's own schema (no benchmark text)."""

from __future__ import annotations

import json

import pytest

from ctxmill.errors import InputRefused
from ctxmill.sources.engines import sniff_engine
from test_ocr_engines_round34 import compile_text, dropped, headings

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


ALTO = """\ufeff<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#" xmlns:xlink="http://www.w3.org/1999/xlink">
<Description><MeasurementUnit>pixel</MeasurementUnit>
<OCRProcessing ID="OCR_0"><ocrProcessingStep><processingSoftware><softwareCreator>Test</softwareCreator>
<softwareName>Tesseract</softwareName><softwareVersion>5.3.0</softwareVersion></processingSoftware></ocrProcessingStep>
</OCRProcessing></Description>
<Layout><Page ID="p1" PHYSICAL_IMG_NR="1" HEIGHT="3000" WIDTH="2000">
<PrintSpace HEIGHT="3000" WIDTH="2000" VPOS="0" HPOS="0">
<TextBlock ID="b0"><TextLine ID="l0"><String CONTENT="57" HPOS="990" VPOS="80" WIDTH="40" HEIGHT="30"/></TextLine></TextBlock>
<TextBlock ID="b1">
<TextLine ID="l1"><String CONTENT="The"/><SP/><String CONTENT="keeper"/><SP/><String CONTENT="wrote"/><SP/><String CONTENT="every"/><SP/><String CONTENT="ship"/><SP/><String CONTENT="in"/><SP/><String CONTENT="the"/><SP/><String CONTENT="book"/><SP/><String CONTENT="with"/><SP/><String CONTENT="care-"/></TextLine>
<TextLine ID="l2"><String CONTENT="ful"/><SP/><String CONTENT="hands"/><SP/><String CONTENT="and"/><SP/><String CONTENT="a"/><SP/><String CONTENT="quill"/><SP/><String CONTENT="pen"/><SP/><String CONTENT="at"/><SP/><String CONTENT="the"/><SP/><String CONTENT="har"/><HYP CONTENT="&#173;"/></TextLine>
<TextLine ID="l3"><String CONTENT="bour"/><SP/><String CONTENT="office"/><SP/><String CONTENT="&amp;"/><SP/><String CONTENT="quay."/></TextLine>
</TextBlock>
<TextBlock ID="b2"><TextLine ID="l4"><String CONTENT="A"/><SP/><String CONTENT="second"/><SP/><String CONTENT="block"/><SP/><String CONTENT="of"/><SP/><String CONTENT="prose."/></TextLine></TextBlock>
</PrintSpace></Page>
<Page ID="p2" PHYSICAL_IMG_NR="2"><PrintSpace>
<TextBlock ID="b3"><TextLine ID="l5"><String CONTENT="Page"/><SP/><String CONTENT="two"/><SP/><String CONTENT="begins."/></TextLine></TextBlock>
</PrintSpace></Page></Layout></alto>
"""


def test_alto_is_named_and_read_block_by_block():
    assert sniff_engine(ALTO, "page.xml") == "alto-xml"
    doc = compile_text(ALTO, "page.xml")
    md = doc.markdown
    assert "The keeper wrote every ship in the book with careful hands and a quill pen at the harbour office & quay." in md
    assert "A second block of prose." in md and "Page two begins." in md
    assert "<String" not in md and "CONTENT" not in md
    assert ("page-footer", "57") in dropped(doc)  # the folio alone in its block: furniture
    assert doc.metadata.pages == 2 and doc.metadata.title == ""
    assert doc.metadata.source["engine"] == "alto-xml"


PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">
<Metadata><Creator>test</Creator><Created>2024-01-01T00:00:00</Created><LastChange>2024-01-01T00:00:00</LastChange></Metadata>
<Page imageFilename="p.png" imageWidth="2000" imageHeight="3000">
<ReadingOrder><OrderedGroup id="ro1">
<RegionRefIndexed index="0" regionRef="r2"/><RegionRefIndexed index="1" regionRef="r1"/><RegionRefIndexed index="2" regionRef="r3"/>
</OrderedGroup></ReadingOrder>
<TextRegion id="r1" type="paragraph"><Coords points="100,400 1900,400 1900,900 100,900"/>
<TextLine id="r1l1"><Coords points="100,400 1900,400 1900,450 100,450"/>
<Word id="w1"><Coords points="0,0 1,1"/><TextEquiv><Unicode>Second</Unicode></TextEquiv></Word>
<TextEquiv><Unicode>Second region in reading or-</Unicode></TextEquiv></TextLine>
<TextLine id="r1l2"><Coords points="100,460 1900,460 1900,510 100,510"/>
<TextEquiv conf="0.9"><Unicode>der, read after the first.</Unicode></TextEquiv></TextLine>
<TextEquiv><Unicode>Second region in reading or-
der, read after the first.</Unicode></TextEquiv></TextRegion>
<TextRegion id="r2" type="paragraph"><Coords points="100,100 1900,100 1900,300 100,300"/>
<TextLine id="r2l1"><Coords points="100,100 1900,100 1900,150 100,150"/>
<TextEquiv><Unicode>First region of the page &amp; its words.</Unicode></TextEquiv></TextLine>
<TextEquiv><Unicode>First region of the page &amp; its words.</Unicode></TextEquiv></TextRegion>
<TextRegion id="r3" type="page-number"><Coords points="900,2900 1000,2900 1000,2950 900,2950"/>
<TextLine id="r3l1"><Coords points="900,2900 1000,2900 1000,2950 900,2950"/><TextEquiv><Unicode>12</Unicode></TextEquiv></TextLine>
</TextRegion>
<TextRegion id="r4" type="paragraph"><Coords points="0,0 1,1"/><TextEquiv><Unicode>A region with no lines.</Unicode></TextEquiv></TextRegion>
</Page></PcGts>
"""


def test_page_xml_is_named_and_read_in_its_reading_order_once():
    assert sniff_engine(PAGE, "page.xml") == "page-xml"
    doc = compile_text(PAGE, "page.xml")
    md = doc.markdown
    first, second = md.find("First region of the page & its words."), md.find("Second region in reading order,")
    assert 0 <= first < second  # the ReadingOrder, not the file's order; the line-end hyphen joined
    assert md.count("read after the first.") == 1  # a region's own TextEquiv repeats its lines: read once
    assert "A region with no lines." in md  # (its own TextEquiv where it has no lines)
    assert ("page-footer", "12") in dropped(doc)
    assert "<TextLine" not in md and "Unicode" not in md
    assert doc.metadata.title == ""  # a page-image OCR format types its title: no guess from a line
    assert doc.metadata.source["engine"] == "page-xml"


def test_page_xml_prefixed_namespace_and_cut_short():
    prefixed = PAGE.replace("<PcGts xmlns=", "<pc:PcGts xmlns:pc=").replace("</PcGts>", "</pc:PcGts>")
    import re

    prefixed = re.sub(r"<(/?)(?!pc:|\?)([A-Za-z])", r"<\1pc:\2", prefixed)
    assert sniff_engine(prefixed, "p.xml") == "page-xml"
    assert "First region of the page & its words." in compile_text(prefixed, "p.xml").markdown
    cut = PAGE[:PAGE.index('<TextRegion id="r3"')]  # a file cut short keeps the regions read before the cut
    md = compile_text(cut, "p.xml").markdown
    assert "First region of the page & its words." in md and "read after the first." in md


LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE alto [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e SYSTEM "file:///etc/passwd">]>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v3#"><Layout><Page><PrintSpace><TextBlock><TextLine>
<String CONTENT="&d;"/><String CONTENT="&e;"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>
"""


@pytest.mark.parametrize("xml", [LAUGHS, LAUGHS.replace("alto", "PcGts")])
def test_xml_with_entities_is_refused_not_expanded(xml):
    with pytest.raises(InputRefused, match="entities are never expanded"):
        compile_text(xml, "page.xml")


# H8-3: an engine's Markdown that types its title "##", its byline and sections "###", arXiv's stamp "#"
STAMPED = """## Counting Ships in Old Harbour Ledgers

### Ada Quill∗, Ben Marsh∗†, Cora Lind†

School of Records, Harbour University {ada, ben}@harbour.ac.uk

# arXiv:2401.01234v2 [cs.CL] 3 Jan 2024

### Abstract

We count the ships in the ledgers of a small harbour and find that the dues rose over the century.

### 1 Introduction

""" + PARA + "\n"


def test_title_typed_at_the_one_top_level_under_an_arxiv_stamp():
    doc = compile_text(STAMPED, "page.md")
    hs = headings(doc.markdown)
    assert doc.metadata.title == "Counting Ships in Old Harbour Ledgers"
    assert hs[0] == (1, "Counting Ships in Old Harbour Ledgers")
    assert not any("arXiv" in t or "Ada Quill" in t for _, t in hs)  # the stamp furniture, the byline text
    assert doc.metadata.arxiv_id == "2401.01234v2"
    assert "Ada Quill" in doc.markdown  # (kept as the front matter's text)


def test_a_page_from_the_middle_is_not_given_a_title_from_its_top_heading():
    middle = "## 2 Methods\n\n" + PARA + "\n\n### 2.1 Sources\n\n" + PARA + "\n\n### 2.2 Counting\n\n" + PARA + "\n"
    assert compile_text(middle, "page.md").metadata.title == ""
    named = "## Discussion\n\n" + PARA + "\n\n### Limits\n\n" + PARA + "\n\n### Further work\n\n" + PARA + "\n"
    assert compile_text(named, "page.md").metadata.title == ""
