"""Tables of the common kinds come out of a PDF as Markdown tables with the right cells (issue 21).

Each PDF is made here (tests/_tablepdf.py) with its cells known: a 10-K statement without rules
or caption, a paper data table (6 columns, 9 rows, a group row, a total row), a fully ruled grid,
booktabs with a spanning header, a caption set under its table; and pages that only look
tabular (a grid of author names, aligned equations) stay text.
"""

from __future__ import annotations

import re

import pytest

from _tablepdf import TableSpec, write_table_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import BlockKind

OPTIONS = CompileOptions(chunks=False, citations=False)


def compile_spec(spec: TableSpec, tmp_path):
    doc = compile_document(write_table_pdf(spec, tmp_path / f"{spec.name}.pdf"), OPTIONS)
    return doc, doc.blocks_of(BlockKind.TABLE)


def gfm(md: str) -> list[list[list[str]]]:
    """The GFM pipe tables of a Markdown text, as rows of cell texts."""
    out, cur = [], None
    for line in md.splitlines():
        if line.startswith("|"):
            if re.fullmatch(r"\|(---\|)+", line):
                continue
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            if cur is None:
                cur = []
                out.append(cur)
            cur.append(cells)
        else:
            cur = None
    return out


def test_10k_borderless_statement(tmp_path):
    # the page of issue 21: "Year Ended" over three dates, "(In millions)", "$" apart from its number
    rows = [["", ("Year Ended", 3)], ["(In millions)", "Jan 26, 2025", "Jan 28, 2024", "Jan 29, 2023"],
            ["Cost of revenue", "$ 178", "$ 141", "$ 138"], ["Research and development", "2,129", "1,912", "1,704"],
            ["Sales, general and administrative", "778", "712", "645"],
            ["Total operating expenses", "$ 3,085", "$ 2,765", "$ 2,487"]]
    doc, tables = compile_spec(TableSpec("10k", "financial", rows, header_rows=2, currency_rows={2, 5},
                                         total_rows={5}), tmp_path)
    assert len(tables) == 1
    t = tables[0]
    assert t.attrs["rows"] == [["", "Year Ended", "", ""], ["(In millions)", "Jan 26, 2025", "Jan 28, 2024", "Jan 29, 2023"],
                               ["Cost of revenue", "$ 178", "$ 141", "$ 138"],
                               ["Research and development", "2,129", "1,912", "1,704"],
                               ["Sales, general and administrative", "778", "712", "645"],
                               ["Total operating expenses", "$ 3,085", "$ 2,765", "$ 2,487"]]
    assert t.attrs["header_rows"] == 2 and t.attrs["spans"] == [[0, 1, 3]]
    md = doc.markdown
    # the header spans, so the table is HTML: both header rows in <thead>, numbers in their columns
    assert '<thead>\n<tr><th></th><th colspan="3">Year Ended</th></tr>' in md
    assert "<tr><th>(In millions)</th><th>Jan 26, 2025</th><th>Jan 28, 2024</th><th>Jan 29, 2023</th></tr>\n</thead>" in md
    assert "<tr><td>Cost of revenue</td><td>$ 178</td><td>$ 141</td><td>$ 138</td></tr>" in md
    assert "Cost of revenue $ 178 $ 141" not in md  # not the run-on paragraph of before
    assert "The results below were collected" in md  # the prose around it is still prose


def test_paper_data_table_with_group_and_total_rows(tmp_path):
    rows = [["Source", "Docs", "Words", "Tokens", "Avg. len", "Share"],
            ["Encyclopedic", "", "", "", "", ""],
            ["Wikipedia", "6.2M", "3.7B", "3.16B", "16.2B", "6.17M"],
            ["Textbooks", "0.4M", "1.1B", "0.98B", "2.5B", "1.02M"],
            ["Web", "", "", "", "", ""],
            ["Common Crawl", "210M", "94.3B", "80.2B", "410B", "66.1M"],
            ["C4", "365M", "20.1B", "17.5B", "156B", "12.0M"],
            ["News", "12M", "6.8B", "5.9B", "42.7B", "3.3M"],
            ["Total", "594M", "126.0B", "107.7B", "627.4B", "88.6M"]]
    spec = TableSpec("data", "borderless", rows, caption="Table 2: Composition of the pre-training corpus.",
                     group_rows={1, 4}, total_rows={8})
    doc, tables = compile_spec(spec, tmp_path)
    assert len(tables) == 1 and tables[0].attrs["rows"] == rows and tables[0].number == "2"
    md = doc.markdown
    (table,) = gfm(md)
    assert table == [[c or "" for c in r] for r in rows]
    # the caption stays with its table: the line right above it
    assert "**Table 2:** Composition of the pre-training corpus.\n\n| Source | Docs | Words | Tokens | Avg. len | Share |" in md
    assert "| Encyclopedic |   |   |   |   |   |" in md and "| Total | 594M | 126.0B |" in md


def test_fully_ruled_grid_without_caption(tmp_path):
    rows = [["Country", "Capital", "Population", "Area (km²)"], ["France", "Paris", "68,170,228", "551,695"],
            ["Norway", "Oslo", "5,550,203", "385,207"], ["Chile", "Santiago", "19,629,590", "756,102"]]
    doc, tables = compile_spec(TableSpec("ruled", "ruled", rows), tmp_path)
    assert [t.attrs["rows"] for t in tables] == [rows]
    assert gfm(doc.markdown) == [rows]
    assert "header_rows" not in tables[0].attrs  # one header row: plain GFM


def test_booktabs_spanning_header_and_units_row(tmp_path):
    rows = [["", ("Dev", 2), ("Test", 2)], ["Model", "EM", "F1", "EM", "F1"],
            ["BERT-base", "80.8", "88.5", "81.2", "88.9"], ["RoBERTa", "86.5", "92.1", "86.8", "92.4"],
            ["Ours", "87.9", "93.0", "88.1", "93.3"]]
    doc, tables = compile_spec(TableSpec("bt", "booktabs", rows, header_rows=2, caption="Table 3: Results."), tmp_path)
    (t,) = tables
    assert t.attrs["spans"] == [[0, 1, 2], [0, 3, 2]] and t.attrs["header_rows"] == 2
    assert t.attrs["rows"][1:] == rows[1:]
    assert '<tr><th></th><th colspan="2">Dev</th><th colspan="2">Test</th></tr>' in doc.markdown
    assert "<tr><td>RoBERTa</td><td>86.5</td><td>92.1</td><td>86.8</td><td>92.4</td></tr>" in doc.markdown

    units = [["Model", "Params", "Latency", "Accuracy"], ["", "(M)", "(ms)", "(%)"],
             ["small", "60", "4.1", "71.2"], ["base", "220", "9.8", "78.5"], ["large", "770", "31.0", "82.4"]]
    doc, tables = compile_spec(TableSpec("units", "booktabs", units, header_rows=2, caption="Table 4: Cost."), tmp_path)
    assert tables[0].attrs["rows"] == units and tables[0].attrs["header_rows"] == 2
    assert "<tr><th></th><th>(M)</th><th>(ms)</th><th>(%)</th></tr>\n</thead>" in doc.markdown


def test_caption_under_its_table(tmp_path):
    rows = [["Split", "Images", "Boxes", "Classes"], ["train", "118,287", "860,001", "80"],
            ["val", "5,000", "36,781", "80"], ["test", "40,670", "—", "80"]]
    doc, tables = compile_spec(TableSpec("below", "booktabs", rows, caption="Table 7: Dataset splits.",
                                         caption_below=True), tmp_path)
    assert len(tables) == 1 and tables[0].number == "7" and tables[0].attrs["rows"] == rows
    assert "**Table 7:** Dataset splits.\n\n| Split | Images | Boxes | Classes |" in doc.markdown


@pytest.mark.parametrize("lines", [
    # a title page's grid of authors: aligned, but names, not figures
    [("Alice Martin", 90), ("Bruno Costa", 250), ("Chen Wei", 410)],
    # aligned display equations with their numbers
    [("x = a + b", 200), ("(1)", 520)],
])
def test_aligned_text_is_not_a_table(tmp_path, lines):
    from _pdfgen import make_pdf

    items = [("An introduction that runs across the page as ordinary prose does in a paper.", 72, 80, 10)]
    for row in range(4):
        for text, x in lines:
            items.append((text.replace("1", str(row + 1)) if text.startswith("(") else f"{text} {row}", x,
                          120 + row * 14, 10))
    items.append(("The text goes on after the block, as prose again, to the end of the page.", 72, 200, 10))
    doc = compile_document(make_pdf(tmp_path / "aligned.pdf", [items]), OPTIONS)
    assert not doc.blocks_of(BlockKind.TABLE)
    assert "<table>" not in doc.markdown and "|---" not in doc.markdown


def test_balance_sheet_two_dates_group_and_indented_rows(tmp_path):
    # two date columns in the middle of the page: the gap between them is a column gap inside
    # the table, not the gutter of a two-column page
    rows = [["(In millions)", "Jan 26, 2025", "Jan 28, 2024"], ["Current assets:", "", ""],
            ["Cash and cash equivalents", "8,589", "3,389"], ["Marketable securities", "34,621", "9,907"],
            ["Accounts receivable, net", "23,065", "9,999"], ["Total current assets", "80,126", "44,345"],
            ["Property and equipment, net", "6,283", "3,914"], ["Total assets", "$ 111,601", "$ 65,728"]]
    doc, tables = compile_spec(TableSpec("balance", "financial", rows, group_rows={1}, indent_rows={2, 3, 4},
                                         total_rows={5, 7}, currency_rows={7}), tmp_path)
    assert [t.attrs["rows"] for t in tables] == [rows]
    assert gfm(doc.markdown) == [rows]


def test_landscape_page_is_read_from_its_text_layer(tmp_path):
    # a sidewaystable: the page is stored landscape with /Rotate 90 and the text turned in page
    # space; it reads upright on screen, so its text layer is the page's text (no OCR)
    rows = [["Split", "Images", "Boxes", "Classes"], ["train", "118,287", "860,001", "80"],
            ["val", "5,000", "36,781", "80"], ["test", "40,670", "12,008", "80"]]
    spec = TableSpec("sideways", "booktabs", rows, caption="Table 2: Dataset splits.", rotate=True)
    doc, tables = compile_spec(spec, tmp_path)
    page = doc.stream.pages[0]
    assert page.has_text_layer and not page.ocr
    assert [t.attrs["rows"] for t in tables] == [rows] and tables[0].number == "2"
    assert "The results below were collected over three independent runs" in doc.markdown


def test_close_columns_stacked_rows_and_a_one_piece_header(tmp_path):
    # a dense results table as LaTeX sets it: the header row in one run of text whose only
    # gaps are word spaces, figures flush right under it less than an em apart, and two rows of
    # figures per stub label (\multirow: the label centred between them)
    from _tablepdf import _Writer

    size = 7.0
    header = ["State", "Mode", "Mode diff.", "Median", "Mean"]
    figures = [["6.58", "-0.10", "6.24", "6.00"], ["6.42", "-0.15", "6.24", "6.01"],
               ["6.48", "0.00", "6.22", "5.97"], ["6.39", "-0.09", "6.16", "5.89"]]
    w = _Writer()
    w.text("The results below were collected over three runs, as the text says.", 72, 90, 10)
    w.text(" ".join(header), 98, 120, size)
    rights = [98 + w.width(" ".join(header[: k + 1]), size) for k in range(1, len(header))]
    y = 132.0
    for label, pair in (("train", figures[:2]), ("test", figures[2:])):
        w.text(label, 98, y + 4, size)
        for vals in pair:
            for v, r in zip(vals, rights, strict=True):
                w.text(v, r - w.width(v, size), y, size)
            y += 8
        y += 4
    w.text("The text goes on after the table, as prose again, to the end of the page.", 72, y + 20, 10)
    doc = compile_document(w.save(tmp_path / "dense.pdf"), OPTIONS)
    (t,) = doc.blocks_of(BlockKind.TABLE)
    assert t.attrs["rows"] == [header, ["train", *figures[0]], ["", *figures[1]], ["test", *figures[2]],
                               ["", *figures[3]]]


def test_figures_a_word_space_from_the_names_before_them(tmp_path):
    # names set flush right, then a column of counts centred under its header a word space to
    # the right (a tight LaTeX table): the PDF has one run per row ("north dakota 445"), the
    # table two columns
    from _tablepdf import _Writer

    size = 8.0
    rows = [["State", "Tweets", "Rank", "Score"], ["colorado", "1854", "1", "6.58"], ["washington", "2855", "2", "6.42"],
            ["north dakota", "445", "4", "6.39"], ["new hampshire", "500", "9", "6.47"], ["iowa", "1992", "13", "6.45"]]
    w = _Writer()
    w.text("The results below were collected over three runs, as the text says.", 72, 90, 10)
    w.text("Table 1: Tweets per state.", 72, 110, size)
    names, space, tweets = 180.0, w.width("a b", size) - w.width("ab", size), w.width("Tweets", size)
    y = 126.0
    for name, count, rank, score in rows:
        w.text(name, names - w.width(name, size), y, size)
        w.text(count, names + space + (tweets - w.width(count, size)) / 2, y, size)
        w.text(rank, 240 - w.width(rank, size), y, size)
        w.text(score, 290 - w.width(score, size), y, size)
        y += 11
    w.text("The text goes on after the table, as prose again, to the end of the page.", 72, y + 20, 10)
    doc = compile_document(w.save(tmp_path / "glued.pdf"), OPTIONS)
    (t,) = doc.blocks_of(BlockKind.TABLE)
    assert t.attrs["rows"] == rows and t.number == "1"


def test_rows_of_short_lowercase_lists_stay_rows(tmp_path):
    # cells that start in lower case under a cell that does not end a sentence are still rows of
    # their own when they are short lists, not the wrapped lines of one long cell
    rows = [["Microbenchmark", "Top syscalls used"], ["File creation", "openat, fstat, write, close"],
            ["Thread/Process creation", "mmap, clone, exit, wait, futex"],
            ["Program launch", "mmap, execve, readlink, openat"], ["Mem alloc", "brk"]]
    doc, tables = compile_spec(TableSpec("sys", "borderless", rows, caption="Table 3: Syscalls per benchmark."),
                               tmp_path)
    assert [t.attrs["rows"] for t in tables] == [rows]
