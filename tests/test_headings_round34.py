"""Headings on layouts no fix was tuned on (round 34, benchmarks/results/round34_head_rule.md), each
rebuilt as a small PDF with the one property that failed: bold labels in a margin column beside
the text (JOSS's page-1 sidebar: 'Editor:', 'Reviewers:', 'Submitted:'), sections numbered 0.1
before a book's first chapter that the outline bookmarks at the chapters' level (Quarto over
scrbook), and numbered algorithm lines that read like numbered sections (algorithm2e in a
tufte-book whose outline holds the real ones)."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import OutlineEntry
from ctxmill.sources import load_source

BODY = ("Running text of the introduction, long enough to read as the body of a paper and not as a "
        "title or a name, which goes on for a line or two and then some more.")


def body_lines(top: float, n: int = 6, x: float = 72, size: float = 10, width: int = 88) -> list[tuple]:
    return [(BODY[:width], x, top + 12 * k, size, "Times-Roman") for k in range(n)]


def compile_with_outline(tmp_path, pages, outline=None):
    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    if outline is not None:
        stream.outline = [OutlineEntry(title=t, level=lvl, page=p) for t, lvl, p in outline]
    return compile_stream(stream, CompileOptions(fast=True))


def headings(doc):
    return [line for line in doc.markdown.splitlines() if line.startswith("#")]


def joss_page() -> list[tuple]:
    """A JOSS first page: the text column at x 170, a sidebar left of it at x 28 with bold sans
    labels in small type, one run into its value ('Editor: Open Journals')."""
    rows = [("A modular library for adaptive mesh refinement", 170, 70, 17, "Helvetica-Bold"),
            ("Ada Lovelace and Charles Babbage", 170, 100, 11, "Helvetica-Bold")]
    y = 140
    for lead, rest in (("Editor:", "Open Journals"), ("Reviewers:", ""), ("Submitted:", "01 January 1970")):
        rows.append((lead, 28, y, 8.7, "Helvetica-Bold"))
        if rest:
            rows.append((rest, 28 + 5.2 * len(lead) + 3, y, 9, "Helvetica"))
        y += 26
    rows += [("Summary", 170, 140, 14, "Helvetica-Bold"), *body_lines(160, 8, x=170, width=70)]
    y = 270
    # run-in subsections in the text column, in the same bold sans: these stay headings
    for lead in ("Results.", "Discussion."):
        rows.append((lead, 170, y, 10, "Helvetica-Bold"))
        rows.append((BODY[:50], 170 + 6.2 * len(lead) + 4, y, 10, "Times-Roman"))
        rows += [(BODY[:70], 170, y + 12 * k, 10, "Times-Roman") for k in range(1, 5)]
        y += 80
    return rows


def test_bold_labels_in_a_margin_column_are_no_run_in_headings(tmp_path):
    doc = compile_with_outline(tmp_path, [joss_page()])
    heads = headings(doc)
    assert not [h for h in heads if h.lstrip("# ").startswith(("Editor", "Reviewers", "Submitted"))], heads
    # the labels stay in the text, and run-in leads in the text column are still headings
    assert "Open Journals" in doc.markdown and "Reviewers" in doc.markdown
    assert "### Results" in heads and "### Discussion" in heads


def book_pages() -> list[list[tuple]]:
    p1 = [("A Sample Title of a Book", 72, 60, 22, "Helvetica-Bold"),
          ("0.1 Additions for themes", 72, 110, 14, "Helvetica-Bold"), *body_lines(130, 4),
          ("0.1.1 Background image", 72, 190, 12, "Helvetica-Bold"), *body_lines(210, 4),
          ("0.2 Document classes", 72, 270, 14, "Helvetica-Bold"), *body_lines(290, 4)]
    pages = [p1]
    for n, title in enumerate(("Introduction", "Materials and Methods", "Results", "Discussion", "Conclusion"), 1):
        page = [(f"{n} {title}", 72, 80, 20, "Helvetica-Bold"), *body_lines(110, 5)]
        if n <= 2:
            page += [(f"{n}.1 Study part {n}", 72, 190, 14, "Helvetica-Bold"), *body_lines(210, 5)]
        pages.append(page)
    return pages


BOOK_OUTLINE = [("0.1 Additions for themes", 1, 1), ("0.1.1 Background image", 2, 1), ("0.2 Document classes", 1, 1),
                ("1 Introduction", 1, 2), ("1.1 Study part 1", 2, 2), ("2 Materials and Methods", 1, 3),
                ("2.1 Study part 2", 2, 3), ("3 Results", 1, 4), ("4 Discussion", 1, 5), ("5 Conclusion", 1, 6)]


def test_sections_numbered_before_the_first_chapter_take_their_numbers_depth(tmp_path):
    # hyperref bookmarks 0.1 at the level of chapter 1; the number says one level deeper
    doc = compile_with_outline(tmp_path, book_pages(), BOOK_OUTLINE)
    heads = headings(doc)
    assert heads[1:5] == ["### 0.1 Additions for themes", "#### 0.1.1 Background image",
                          "### 0.2 Document classes", "## 1 Introduction"], heads
    assert "### 1.1 Study part 1" in heads and "## 5 Conclusion" in heads


def algorithm_pages() -> list[list[tuple]]:
    p1 = [("Randomized Algorithms", 72, 60, 22, "Helvetica-Bold"),
          ("1 Introduction", 72, 100, 20, "Helvetica-Bold"), *body_lines(130, 4),
          ("1.1 Minimum cut", 72, 190, 14, "Helvetica-Bold"), *body_lines(210, 4),
          # an algorithm's numbered lines in the body's type, each a line of its own
          ("1 repeat", 72, 280, 10, "Times-Bold"),
          ("2 Choose e uniformly at random from G", 72, 300, 10, "Times-Roman"),
          ("3 until only two vertices remain; return the edges between them", 72, 320, 10, "Times-Roman"),
          *body_lines(345, 3),
          # a subsubsection the outline leaves out: the text still finds it
          ("1.1.1 Perfect matchings", 72, 400, 11, "Helvetica-Bold"), *body_lines(420, 4)]
    p2 = [("2 Random variables", 72, 80, 20, "Helvetica-Bold"), *body_lines(110, 5),
          ("2.1 Maxcut", 72, 190, 14, "Helvetica-Bold"), *body_lines(210, 5)]
    return [p1, p2]


def test_a_numbered_line_whose_number_an_outline_heading_carries_is_no_heading(tmp_path):
    outline = [("Introduction", 1, 1), ("Minimum cut", 2, 1), ("Random variables", 1, 2), ("Maxcut", 2, 2)]
    doc = compile_with_outline(tmp_path, algorithm_pages(), outline)
    heads = headings(doc)
    assert heads[1:] == ["## 1 Introduction", "### 1.1 Minimum cut", "#### 1.1.1 Perfect matchings",
                         "## 2 Random variables", "### 2.1 Maxcut"], heads
    assert "2 Choose e uniformly at random from G" in doc.markdown


def apa_rows() -> list[tuple]:
    """APA-style running text: no space between paragraphs, each paragraph's first line indented
    half an inch; a one-line paragraph, then paragraphs opening with a bold run-in head."""
    rows = [("An Example Manuscript Including Basic Instructions", 100, 60, 16, "Times-Bold"),
            ("Printing R output", 250, 110, 12, "Times-Bold")]
    y = 134
    rows.append(("But, surely, this is not what you want your submission to look like.", 100.8, y, 10, "Times-Roman"))
    for lead, first in (("Print tables.", "For prettier tables, try the table function of the package,"),
                        ("Embed plots.", "As usual in R Markdown, you can embed generated plots here,")):
        y += 14
        rows.append((lead, 100.8, y, 10, "Times-Bold"))
        rows.append((first, 100.8 + 5.0 * len(lead) + 4, y, 10, "Times-Roman"))
        for _ in range(3):
            y += 14
            rows.append((BODY[:88], 72, y, 10, "Times-Roman"))
        y += 14
        rows.append(("and the paragraph ends here.", 72, y, 10, "Times-Roman"))
    y += 14
    rows.append((BODY[:82], 100.8, y, 10, "Times-Roman"))
    for _ in range(3):
        y += 14
        rows.append((BODY[:88], 72, y, 10, "Times-Roman"))
    return rows


def test_indented_paragraphs_after_an_indented_first_line_are_paragraphs_of_their_own(tmp_path):
    # papaja's double-spaced APA text: the paragraph before the head opened indented itself, so the
    # head's indent was measured from it and the head glued to the end of that paragraph
    doc = compile_with_outline(tmp_path, [apa_rows()])
    paras = [p for p in doc.markdown.split("\n\n") if not p.startswith("#")]
    assert "But, surely, this is not what you want your submission to look like." in paras, paras
    assert any(p.startswith(("Print tables.", "**Print tables.**", "For prettier tables")) for p in paras), paras
    assert any(p.startswith(("Embed plots.", "**Embed plots.**", "As usual in R Markdown")) for p in paras), paras
    assert not any("look like. Print tables" in p or "ends here. Embed plots" in p for p in paras)


def test_apa_run_in_heads_the_outline_names_are_headings(tmp_path):
    outline = [("Printing R output", 1, 1), ("Print tables", 2, 1), ("Embed plots", 2, 1)]
    doc = compile_with_outline(tmp_path, [apa_rows()], outline)
    assert headings(doc)[1:] == ["## Printing R output", "### Print tables", "### Embed plots"], headings(doc)
    assert "For prettier tables, try the table function" in doc.markdown
