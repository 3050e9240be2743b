"""Headings and reading order on any layout: roman and lettered numbering, all caps, appendices,
chapters, tables of contents that are not headings, two-column pages read column by column.

The unit tests build small PDFs here; the corpus floors use the `corpus_papers` fixture (every
../shared/corpus/papers/*/paper.pdf compiled once per run, scored against its LaTeX truth) and
skip cleanly without ../shared.
"""

from __future__ import annotations

import re
import statistics

from _pdfgen import make_pdf
from ctxmill.compile.headings import parse_number, roman_value
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import BlockKind

BODY = ("The method reads every page of the document and keeps the order of the text so that "
        "readers and programs see the same content in the same order as it was printed")


def _paragraph(y: float, x: float = 72, width_chars: int = 95, lines: int = 3, font: str = "Times-Roman",
               text: str = BODY) -> list[tuple]:
    words = (text + " ") * 4
    out, pos = [], 0
    for k in range(lines):
        chunk = words[pos:pos + width_chars].strip()
        pos += width_chars
        out.append((chunk, x, y + 12 * k, 10, font))
    return out


def _headings(doc) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in doc.blocks if b.kind is BlockKind.HEADING and not b.attrs.get("title")]


def _page(items_by_y: list[tuple], y0: float = 100) -> list[tuple]:
    """Headings (text, font, size) each followed by a paragraph, down one page."""
    out, y = [], y0
    for text, font, size in items_by_y:
        out.append((text, 72, y, size, font))
        out.extend(_paragraph(y + 18))
        y += 18 + 3 * 12 + 16
    return out


# ---------------------------------------------------------------------------- numbering


def test_parse_number_reads_every_scheme():
    cases = {
        "3.2 Design": ("arabic", "3.2", "Design"),
        "2.2.1. Astrometric measurements": ("arabic", "2.2.1", "Astrometric measurements"),
        "IV. METHODOLOGY": ("roman", "IV", "METHODOLOGY"),
        "A. Threat Model": ("letter", "A", "Threat Model"),
        "B.2 Proofs": ("letter", "B.2", "Proofs"),
        "Appendix A: Derivations": ("letter", "A", "Derivations"),
        "Chapter 3 Results": ("arabic", "3", "Results"),
    }
    for text, (kind, number, title) in cases.items():
        n = parse_number(text)
        assert n is not None and (n.kind, n.text, n.title) == (kind, number, title), text
    assert parse_number("The method") is None
    assert parse_number("12") is None  # a bare number is a page number
    assert roman_value("XIV") == 14 and roman_value("IIII") is None


# ---------------------------------------------------------------------------- heading styles


def test_roman_sections_with_lettered_subsections(tmp_path):
    # IEEE style: "I. INTRODUCTION" in body-size capitals, "A. Threat Model" in italics
    pdf = make_pdf(tmp_path / "ieee.pdf", [
        [("Offloading Workloads to the Cloud", 150, 60, 20, "Times-Roman")] + _page([
            ("I. INTRODUCTION", "Times-Roman", 10),
            ("II. BACKGROUND", "Times-Roman", 10),
            ("A. Threat Model", "Times-Italic", 10),
            ("B. Offloading Framework", "Times-Italic", 10),
            ("III. EVALUATION", "Times-Roman", 10),
        ], 120),
    ])
    doc = compile_document(pdf)
    assert _headings(doc) == [(2, "INTRODUCTION"), (2, "BACKGROUND"), (3, "Threat Model"),
                              (3, "Offloading Framework"), (2, "EVALUATION")]
    # the printed numbers stay with the sections
    assert [s.number for s in doc.sections] == ["I", "II", "A", "B", "III"]
    assert [s.id for s in doc.sections] == ["sI", "sII", "sII.A", "sII.B", "sIII"]
    assert doc.sections[2].parent_id == "sII"


def test_all_caps_numbered_and_unnumbered_in_the_same_style(tmp_path):
    # ACM/MNRAS style: bold capitals; ACKNOWLEDGMENTS unnumbered but printed like the sections
    pdf = make_pdf(tmp_path / "caps.pdf", [
        [("A Study of Merger Signatures", 150, 60, 20, "Times-Bold")] + _page([
            ("1 INTRODUCTION", "Times-Bold", 10),
            ("2 DATA", "Times-Bold", 10),
            ("2.1 Selection", "Times-Bold", 10),
            ("3 RESULTS", "Times-Bold", 10),
            ("ACKNOWLEDGMENTS", "Times-Bold", 10),
        ], 120),
    ])
    heads = _headings(compile_document(pdf))
    assert heads == [(2, "1 INTRODUCTION"), (2, "2 DATA"), (3, "2.1 Selection"), (2, "3 RESULTS"),
                     (2, "ACKNOWLEDGMENTS")]


def test_appendix_after_the_numbered_sections(tmp_path):
    pdf = make_pdf(tmp_path / "app.pdf", [
        [("Counting Happiness in Tweets", 150, 60, 20, "Helvetica-Bold")] + _page([
            ("1 Introduction", "Helvetica-Bold", 12),
            ("2 Method", "Helvetica-Bold", 12),
            ("Appendix A", "Helvetica-Bold", 12),
            ("A.1 Word Lists", "Helvetica-Bold", 11),
        ], 120),
    ])
    heads = _headings(compile_document(pdf))
    assert heads == [(2, "1 Introduction"), (2, "2 Method"), (2, "Appendix A"), (3, "A.1 Word Lists")]


def test_chapters_are_the_top_level_of_a_book(tmp_path):
    # "CHAPTER 1" above the chapter title, sections numbered inside the chapter
    chapter = [("CHAPTER 1", 72, 100, 14, "Times-Roman"), ("BACKGROUND", 400, 130, 14, "Times-Roman")]
    pdf = make_pdf(tmp_path / "book.pdf", [
        [("Abstract Hoare Logic", 150, 200, 22, "Times-Bold")],
        chapter + _page([("1.1 Order theory", "Times-Bold", 12), ("1.2 Lattices", "Times-Bold", 12)], 170),
        [("CHAPTER 2", 72, 100, 14, "Times-Roman"), ("THE FRAMEWORK", 380, 130, 14, "Times-Roman")]
        + _page([("2.1 The language", "Times-Bold", 12)], 170),
    ])
    doc = compile_document(pdf)
    assert _headings(doc) == [(2, "1 BACKGROUND"), (3, "1.1 Order theory"), (3, "1.2 Lattices"),
                              (2, "2 THE FRAMEWORK"), (3, "2.1 The language")]
    assert "CHAPTER 1" not in doc.markdown  # joined to its title, not a stray line


def test_table_of_contents_is_not_headings(tmp_path):
    toc = [("Contents", 72, 100, 20, "Times-Bold")]
    entries = ["1 Introduction", "1.1 Motivation", "2 Related Work", "3 Design", "3.1 Overview"]
    for k, e in enumerate(entries):
        toc.append((f"{e} {'.' * 30} {k * 3 + 1}", 72, 140 + 16 * k, 10, "Times-Roman"))
    body = _page([("1 Introduction", "Times-Bold", 14), ("1.1 Motivation", "Times-Bold", 12),
                  ("2 Related Work", "Times-Bold", 14), ("3 Design", "Times-Bold", 14),
                  ("3.1 Overview", "Times-Bold", 12)], 100)
    pdf = make_pdf(tmp_path / "toc.pdf", [[("A Thesis on Transactions", 120, 200, 22, "Times-Bold")], toc, body])
    doc = compile_document(pdf)
    heads = _headings(doc)
    assert [t for _, t in heads] == entries
    assert all(b.page == 3 for b in doc.blocks if b.kind is BlockKind.HEADING and not b.attrs.get("title"))
    assert not any("Contents" in t for _, t in heads)
    assert "1.1 Motivation 4" in doc.markdown and "...." not in doc.markdown  # entries kept, leaders gone


# ---------------------------------------------------------------------------- reading order


def test_interleaved_two_column_page_reads_column_by_column(tmp_path):
    # a full-width title and abstract, then two columns written line by line across the page
    # (left line, right line, left line, ...), as some producers draw them
    left = [f"left column sentence number {k} goes on here" for k in range(14)]
    right = [f"right column sentence number {k} goes on here" for k in range(14)]
    items = [("Reading Order of Two Columns", 150, 60, 20, "Times-Bold"),
             ("This abstract spans the whole width of the page above both of the columns below it.", 72, 100, 10,
              "Times-Roman")]
    for k in range(14):
        items.append((left[k], 72, 140 + 12 * k, 10, "Times-Roman"))
        items.append((right[k], 320, 140 + 12 * k, 10, "Times-Roman"))
    doc = compile_document(make_pdf(tmp_path / "cols.pdf", [items]))
    md = doc.markdown
    positions = [md.index(t) for t in left + right]
    assert positions == sorted(positions), "columns interleaved"
    assert md.index("This abstract spans") < positions[0]


def test_term_and_definition_rows_keep_their_order(tmp_path):
    # a glossary alternates sides line by line too, but it is rows, not two columns of text
    items = [("Abbreviations Used in This Report", 150, 60, 16, "Times-Bold")]
    for k in range(14):
        items.append((f"ABR{k}", 72, 100 + 14 * k, 10, "Times-Roman"))
        items.append((f"the expanded name of abbreviation number {k}", 320, 100 + 14 * k, 10, "Times-Roman"))
    md = compile_document(make_pdf(tmp_path / "gloss.pdf", [items])).markdown
    order = [md.index(f"ABR{k}") for k in range(14)] + [md.index(f"abbreviation number {k}") for k in range(14)]
    for k in range(13):
        assert order[k] < order[14 + k] < order[k + 1], "a term moved away from its definition"


def test_table_across_two_columns_keeps_its_rows(tmp_path):
    # a wide table at the top of a two-column page: its rows cross the gutter and alternate
    # sides, but they are rows; the columns below are read as LaTeX wrote them
    items = [("Table 1: Thresholds per dataset", 72, 60, 9, "Times-Bold")]
    for k in range(10):
        items.append((f"dataset name {k}", 110, 80 + 11 * k, 9, "Times-Roman"))
        items.append((f"{k}.5 2.{k} 0.{k}0 1{k}.8", 340, 80 + 11 * k, 9, "Times-Roman"))
    for side, x in (("left", 72), ("right", 320)):
        for k in range(20):
            items.append((f"{side} column body text line {k} runs to the edge", x, 210 + 12 * k, 10, "Times-Roman"))
    md = compile_document(make_pdf(tmp_path / "wide.pdf", [items])).markdown
    for k in range(10):
        a, b = md.index(f"dataset name {k}"), md.index(f"{k}.5 2.{k}")
        assert a < b < md.index("left column body text line 0"), k
    assert md.index("left column body text line 19") < md.index("right column body text line 0")


def test_margin_line_numbers_are_removed(tmp_path):
    # review copies: a line number in the margin on every text line
    items = [("Review Copy of a Paper", 150, 60, 20, "Times-Bold"), ("1 Introduction", 72, 100, 12, "Times-Bold")]
    for k in range(12):
        items.append((str(100 + k), 30, 120 + 12 * k, 7, "Times-Roman"))
        items.append((f"body text line {k} of the introduction keeps going to the column end", 72, 120 + 12 * k,
                      10, "Times-Roman"))
    doc = compile_document(make_pdf(tmp_path / "review.pdf", [items]))
    assert _headings(doc) == [(2, "1 Introduction")]
    assert not re.search(r"\b10[0-9] body text", doc.markdown)


# ---------------------------------------------------------------------------- corpus floors


def test_corpus_heading_floors(corpus_papers):
    scores = {slug: p["score"]["headings"] for slug, p in corpus_papers.items()}
    refused = {slug: p["error"] for slug, p in corpus_papers.items() if p["error"]}
    assert not refused, refused
    recall = statistics.fmean(h["recall"] for h in scores.values())
    precision = statistics.fmean(h["precision"] for h in scores.values())
    levels = statistics.fmean(h["level_accuracy"] for h in scores.values())
    low = {slug: (h["recall"], h["missing"]) for slug, h in scores.items() if h["recall"] < 0.85}
    assert recall >= 0.95, (recall, scores)
    assert precision >= 0.92, (precision, {s: h["extra"] for s, h in scores.items()})
    assert levels >= 0.97, levels
    assert not low, low
