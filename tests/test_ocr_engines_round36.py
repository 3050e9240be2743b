"""Round 36: Amazon Textract's JSON response (DetectDocumentText lines only; AnalyzeDocument with LAYOUT and
TABLES) is read as its blocks, not as text. The responses below are written here by Textract's documented schema
(Blocks with BlockType, Id, Geometry.BoundingBox, Relationships CHILD; CELL RowIndex/ColumnIndex/RowSpan/
ColumnSpan/EntityTypes; MERGED_CELL), not copied from any engine output of a benchmark set."""

from __future__ import annotations

import itertools
import json

from ctxmill.sources.engines import sniff_engine
from test_ocr_engines_round34 import compile_text, dropped, headings


class Response:
    """A Textract response under construction: each block gets an Id and a box (fractions of the page)."""

    def __init__(self):
        self.blocks: list[dict] = []
        self.ids = (f"b{k:04d}-0000-4000-8000-000000000000" for k in itertools.count())
        self.page: dict | None = None

    def add(self, kind: str, box=None, children=(), **extra) -> dict:
        b = {"BlockType": kind, "Id": next(self.ids), **extra}
        if box is not None:
            left, top, w, h = box
            b["Geometry"] = {"BoundingBox": {"Width": w, "Height": h, "Left": left, "Top": top},
                             "Polygon": [{"X": left, "Y": top}, {"X": left + w, "Y": top},
                                         {"X": left + w, "Y": top + h}, {"X": left, "Y": top + h}]}
        if children:
            b["Relationships"] = [{"Type": "CHILD", "Ids": [c["Id"] for c in children]}]
        self.blocks.append(b)
        return b

    def new_page(self, number: int | None = None) -> dict:
        self.page = self.add("PAGE", (0, 0, 1, 1), **({"Page": number} if number else {}))
        return self.page

    def line(self, text: str, left: float, top: float, width: float, height: float = 0.012) -> dict:
        words, x, step = [], left, width / max(1, len(text.split()))
        for w in text.split():
            words.append(self.add("WORD", (x, top, step * 0.9, height), Text=w, TextType="PRINTED", Confidence=99.0))
            x += step
        ln = self.add("LINE", (left, top, width, height), words, Text=text, Confidence=99.0)
        self.page.setdefault("Relationships", [{"Type": "CHILD", "Ids": []}])[0]["Ids"].append(ln["Id"])
        return ln

    def json(self, pages: int = 1) -> str:
        # Textract's order: PAGE, then its LINEs and WORDs (and layout blocks, tables)
        return json.dumps({"DocumentMetadata": {"Pages": pages}, "Blocks": self.blocks,
                           "DetectDocumentTextModelVersion": "1.0"}, indent=2)


LEFT = ["Counting words in old letters by hand", "takes a long time, and the counts of", "two readers rarely agree."]
RIGHT = ["A tool that reads the page images", "counts them the same way each time,", "and keeps a record of them."]


def two_column_page() -> str:
    """A title in tall type, a running head and a folio, an intro line, a heading set apart, then a
    two-column passage whose lines Textract lists interleaved (left, right, left ...), then one column."""
    r = Response()
    r.new_page()
    r.line("Journal of Letter Studies", 0.08, 0.03, 0.25)
    r.line("Counting Words in Old Letters", 0.08, 0.12, 0.60, height=0.03)
    r.line("This page reads the same words in two different ways and compares the two counts.", 0.08, 0.18, 0.84)
    r.line("Method of Counting", 0.08, 0.24, 0.22)
    for k in range(3):
        r.line(LEFT[k], 0.08, 0.28 + 0.015 * k, 0.38)
        r.line(RIGHT[k], 0.54, 0.28 + 0.015 * k, 0.38)
    r.line("After both columns, the page returns to one column of text for its closing lines, read", 0.08, 0.36, 0.84)
    r.line("last of all, as the reader expects, with a word split over two lines at the end of the non-", 0.08,
           0.375, 0.84)
    r.line("trivial page.", 0.08, 0.39, 0.15)
    r.line("7", 0.49, 0.95, 0.02)
    return r.json()


def test_a_textract_line_response_is_read_in_column_order_with_its_furniture_removed():
    text = two_column_page()
    assert sniff_engine(text, "page.json") == "textract-json"
    assert sniff_engine(text, "page.txt") == "textract-json"  # (by its shape, not its name)
    doc = compile_text(text, name="page.json")
    md = doc.markdown
    assert '"BlockType"' not in md and "Geometry" not in md
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert headings(md) == [(1, "Counting Words in Old Letters"), (2, "Method of Counting")]
    # the left column's lines before the right column's, each column one paragraph
    assert " ".join(LEFT) in md and " ".join(RIGHT) in md
    assert md.index(LEFT[-1]) < md.index(RIGHT[0]) < md.index("After both columns")
    assert "the non-trivial page." in md
    # the running head and the folio are furniture: listed, not in the text
    assert "Journal of Letter Studies" not in md
    removed = dropped(doc)
    assert ("page-header", "Journal of Letter Studies") in removed and ("page-footer", "7") in removed
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_page_with_no_title_type_takes_no_section_heading_as_its_title():
    r = Response()
    r.new_page()
    r.line("The page opens with a paragraph of ordinary text that runs across the page and", 0.08, 0.10, 0.84)
    r.line("on to a second line before it ends.", 0.08, 0.115, 0.40)
    r.line("A Heading Set Apart", 0.08, 0.16, 0.20)
    r.line("More text follows the heading, a paragraph of one line that ends the page here.", 0.08, 0.20, 0.84)
    doc = compile_text(r.json(), name="page.json")
    assert doc.metadata.title == ""
    assert headings(doc.markdown) == [(2, "A Heading Set Apart")]


def layout_response() -> str:
    """AnalyzeDocument with LAYOUT and TABLES on two pages: layout blocks give the order and the roles."""
    r = Response()
    layout = []
    r.new_page(1)
    head = r.line("Proceedings of a Small Workshop", 0.3, 0.02, 0.4)
    title = r.line("Words in Letters and Ledgers", 0.1, 0.08, 0.8, 0.03)
    sec = r.line("1 Introduction", 0.1, 0.15, 0.2)
    p1 = [r.line("Letters and ledgers both hold words that someone wrote by hand long ago.", 0.1, 0.18, 0.8),
          r.line("We count them.", 0.1, 0.195, 0.2)]
    items = [r.line("• letters are photographed once", 0.12, 0.23, 0.5),
             r.line("• ledgers are photographed twice", 0.12, 0.245, 0.5)]
    cap = r.line("Table 1: Words counted per source", 0.1, 0.3, 0.5)
    cells_text = [["Source", "Words"], ["Letters", "120"], ["Ledgers", "340"]]
    table_lines = [r.line(f"{a} {b}", 0.1, 0.33 + 0.02 * k, 0.5) for k, (a, b) in enumerate(cells_text)]
    cells = []
    for i, row in enumerate(cells_text):
        for j, t in enumerate(row):
            word = r.add("WORD", (0.1 + 0.25 * j, 0.33 + 0.02 * i, 0.2, 0.012), Text=t)
            cells.append(r.add("CELL", (0.1 + 0.25 * j, 0.33 + 0.02 * i, 0.25, 0.02), [word], RowIndex=i + 1,
                               ColumnIndex=j + 1, RowSpan=1, ColumnSpan=1,
                               **({"EntityTypes": ["COLUMN_HEADER"]} if i == 0 else {})))
    table = r.add("TABLE", (0.1, 0.33, 0.5, 0.06), cells)
    folio = r.line("1", 0.49, 0.96, 0.02)
    layout += [r.add("LAYOUT_HEADER", (0.3, 0.02, 0.4, 0.012), [head]),
               r.add("LAYOUT_TITLE", (0.1, 0.08, 0.8, 0.03), [title]),
               r.add("LAYOUT_SECTION_HEADER", (0.1, 0.15, 0.2, 0.012), [sec]),
               r.add("LAYOUT_TEXT", (0.1, 0.18, 0.8, 0.03), p1)]
    lt = [r.add("LAYOUT_TEXT", (0.12, 0.23 + 0.015 * k, 0.5, 0.012), [ln]) for k, ln in enumerate(items)]
    layout += [r.add("LAYOUT_LIST", (0.12, 0.23, 0.5, 0.03), lt), r.add("LAYOUT_TEXT", (0.1, 0.3, 0.5, 0.012), [cap]),
               r.add("LAYOUT_TABLE", (0.1, 0.33, 0.5, 0.06), table_lines),
               r.add("LAYOUT_PAGE_NUMBER", (0.49, 0.96, 0.02, 0.012), [folio])]
    r.page["Relationships"][0]["Ids"] += [b["Id"] for b in layout + [table]]
    r.new_page(2)
    sec2 = r.line("2 Counting", 0.1, 0.1, 0.2)
    p2 = r.line("The counts of both readers agree on every page of the ledgers.", 0.1, 0.13, 0.8)
    stray = r.line("A line no layout block names is kept.", 0.1, 0.5, 0.5)
    two = [r.add("LAYOUT_SECTION_HEADER", (0.1, 0.1, 0.2, 0.012), [sec2]), r.add("LAYOUT_TEXT", (0.1, 0.13, 0.8, 0.012),
                                                                               [p2])]
    r.page["Relationships"][0]["Ids"] += [b["Id"] for b in two]
    assert stray["Id"] in r.page["Relationships"][0]["Ids"]
    return r.json(pages=2)


def test_a_textract_layout_response_reads_its_layout_blocks_and_its_table_cells():
    text = layout_response()
    assert sniff_engine(text, "analyze.json") == "textract-json"
    doc = compile_text(text, name="analyze.json")
    md = doc.markdown
    assert doc.metadata.title == "Words in Letters and Ledgers"
    assert headings(md) == [(1, "Words in Letters and Ledgers"), (2, "1 Introduction"), (2, "2 Counting")]
    assert "Letters and ledgers both hold words that someone wrote by hand long ago. We count them." in md
    assert "letters are photographed once" in md and "ledgers are photographed twice" in md
    # the table from its CELLs (a header row), after its caption; its lines' flat text is not the body
    assert "| Source | Words |" in md and "| Ledgers | 340 |" in md
    assert md.index("Table 1") < md.index("| Source")
    assert "Letters 120" not in md
    removed = dropped(doc)
    assert ("page-header", "Proceedings of a Small Workshop") in removed and ("page-footer", "1") in removed
    assert "A line no layout block names is kept." in md
    assert md.index("2 Counting") > md.index("| Ledgers")
    assert doc.pages == 2
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_textract_table_with_a_merged_cell_writes_its_text_once_across_the_span():
    r = Response()
    r.new_page()
    r.line("A short paragraph above a table of counts, written as one line of text here.", 0.1, 0.1, 0.8)
    cells = []
    grid = [["Source", "Counted", ""], ["", "first", "second"], ["Letters", "120", "118"]]
    for i, row in enumerate(grid):
        for j, t in enumerate(row):
            kids = [r.add("WORD", (0.1 + 0.2 * j, 0.2 + 0.02 * i, 0.15, 0.012), Text=t)] if t else []
            cells.append(r.add("CELL", (0.1 + 0.2 * j, 0.2 + 0.02 * i, 0.2, 0.02), kids, RowIndex=i + 1,
                               ColumnIndex=j + 1, RowSpan=1, ColumnSpan=1))
    merged = r.add("MERGED_CELL", (0.3, 0.2, 0.4, 0.02), [cells[1], cells[2]], RowIndex=1, ColumnIndex=2, RowSpan=1,
                   ColumnSpan=2)
    table = r.add("TABLE", (0.1, 0.2, 0.6, 0.06), cells)
    table["Relationships"].append({"Type": "MERGED_CELL", "Ids": [merged["Id"]]})
    for i, row in enumerate(grid):
        r.line(" ".join(t for t in row if t), 0.1, 0.2 + 0.02 * i, 0.5)
    r.line("The text goes on below the table in a paragraph of its own, as pages do.", 0.1, 0.3, 0.8)
    doc = compile_text(r.json(), name="t.json")
    md = doc.markdown
    assert "| Letters | 120 | 118 |" in md and "first" in md
    assert md.index("A short paragraph") < md.index("| Source") < md.index("The text goes on")
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_other_json_with_a_blocks_key_is_not_textract():
    assert sniff_engine(json.dumps({"Blocks": [{"Kind": "LINE", "Text": "a"}]}), "x.json") != "textract-json"
    assert sniff_engine("Blocks: a plain line\n\nthat names BlockType in prose", "x.txt") != "textract-json"


def test_a_broken_textract_response_loses_no_line_and_does_not_loop():
    from ctxmill.sources import textract_json

    r = Response()
    r.new_page()
    ln = r.line("A line of text under two layout blocks that point at each other", 0.1, 0.1, 0.6)
    a = r.add("LAYOUT_TEXT", (0.1, 0.1, 0.6, 0.012), [ln])
    b = r.add("LAYOUT_LIST", (0.1, 0.1, 0.6, 0.012), [a])
    a["Relationships"][0]["Ids"].append(b["Id"])  # a cycle
    r.page["Relationships"][0]["Ids"] += [a["Id"], b["Id"]]
    doc = compile_text(r.json(), name="c.json")
    assert "A line of text under two layout blocks" in doc.markdown
    # lines with no Id and no usable geometry, a block that is no object: each line kept once
    got = textract_json.blocks({"Blocks": [{"BlockType": "LINE", "Text": "first line",
                                            "Geometry": {"BoundingBox": {"Left": "a"}}},
                                           {"BlockType": "PAGE"}, "junk", {"BlockType": "LINE", "Text": "second line"}]})
    assert [t for _, t in got] == ["first line", "second line"]


# ---------------------------------------------------------------- Markdown written one element a line

PROSE = ("Old letters hold many words, and counting them by hand takes a long time; this part of the report "
         "describes how a small tool counts them from page images instead, and what it gets wrong.")


def one_a_line(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def test_one_element_a_line_markdown_gets_its_title_authors_and_number_depths():
    text = one_a_line(
        "# Counting Words in Old Letters",
        "Ada Quill, PhD, Senior Archivist",
        "Ben T. Marsh, MLIS, Data Librarian",
        "# 2 Method",
        PROSE,
        "# 2.1 Reading the Pages",
        PROSE,
        "# 2.1.1 Scanning",
        PROSE,
        "# 2.2 Counting",
        PROSE,
        "# 3 Results",
        PROSE)
    assert sniff_engine(text, "report.md") == "unstructured-md"
    # the same text with blank lines between its blocks is ordinary Markdown: not this writer's shape
    assert sniff_engine(text.replace("\n", "\n\n"), "report.md") != "unstructured-md"
    doc = compile_text(text, name="report.md")
    assert doc.metadata.title == "Counting Words in Old Letters"
    assert [a.name for a in doc.metadata.authors] == ["Ada Quill", "Ben T. Marsh"]
    assert headings(doc.markdown) == [(1, "Counting Words in Old Letters"), (2, "2 Method"), (3, "2.1 Reading the Pages"),
                                      (4, "2.1.1 Scanning"), (3, "2.2 Counting"), (2, "3 Results")]
    assert "Senior Archivist" in doc.markdown and "Data Librarian" in doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_running_head_with_its_folio_over_a_page_from_the_middle_is_no_title():
    text = one_a_line(
        "# Counting Words in Old Letters 17",
        "and so the count of the second reader is higher on every page that holds a table, as shown below.",
        PROSE,
        "# 4.2 Errors",
        PROSE, PROSE, PROSE, PROSE, PROSE, PROSE)
    doc = compile_text(text, name="page.md")
    assert doc.metadata.title == ""
    assert headings(doc.markdown) == [(3, "4.2 Errors")]
    assert ("running-head", "Counting Words in Old Letters 17") in dropped(doc)
    # a title that ends in a number, over the start of a piece, stays the title
    text = one_a_line("# Counting Words with Python 3", PROSE, "# 1 Introduction", PROSE, PROSE, PROSE, PROSE,
                      PROSE, PROSE, PROSE)
    doc = compile_text(text, name="top.md")
    assert doc.metadata.title == "Counting Words with Python 3"


def test_a_heading_cut_over_two_lines_is_one_and_its_labelled_siblings_are_headings():
    text = one_a_line(
        "the end of an abstract from the page before, which runs on into this page for a line.",
        "# S6. COUNTING WORDS IN LETTERS OF",
        "# THE EIGHTEENTH CENTURY: A SMALL STUDY",
        "Ada Quill1, Ben Marsh2",
        PROSE,
        PROSE,
        "S7. READING LEDGERS WITH A TOOL THAT COUNTS",
        "Cy Lamb1",
        PROSE,
        "S8. NINE MORE LEDGERS READ TWICE",
        PROSE,
        "S10. A LABEL OUT OF SEQUENCE STAYS TEXT",
        PROSE)
    doc = compile_text(text, name="abstracts.md")
    heads = [t for _, t in headings(doc.markdown)]
    assert heads == ["S6. COUNTING WORDS IN LETTERS OF THE EIGHTEENTH CENTURY: A SMALL STUDY",
                     "S7. READING LEDGERS WITH A TOOL THAT COUNTS", "S8. NINE MORE LEDGERS READ TWICE"]
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_text_of_headings_alone_is_not_taken_for_one_element_a_line_markdown():
    assert sniff_engine("".join(f"# Heading {i}\n" for i in range(50)), "h.md") is None
