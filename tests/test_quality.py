"""QA checks and the score formula, on documents we build here and on the bundled sample."""

from __future__ import annotations

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.quality import assess, score
from ctxmill.model import (
    Block,
    BlockKind,
    Document,
    Line,
    Mention,
    Page,
    PageStream,
    QACheck,
    Reference,
    Section,
    Unresolved,
)

WORDS = " ".join(f"word{i}" for i in range(150)) + "."


def doc_with(md, pages=2, declared=None, **kw):
    stream = PageStream(pages=[Page(number=i + 1, lines=[Line(text="x")]) for i in range(pages)], kind="ocr_text",
                        declared_pages=declared)
    doc = Document(stream=stream, **kw)
    doc.markdown = md
    b = Block(kind=BlockKind.PARAGRAPH, text=md, page=1, id="b0", section_id="s1")
    doc.blocks = [b]
    doc.block_spans = {"b0": (0, len(md))}
    return doc


def ids(report):
    return [c.id for c in report.checks]


def test_score_formula_caps_each_kind():
    checks = [QACheck("a", "error", "x")] * 3 + [QACheck("b", "warning", "y")] * 10 + [QACheck("c", "info", "z")]
    assert score(checks) == 100 - 40 - 12
    assert score([QACheck("a", "error", "x"), QACheck("b", "warning", "y")]) == 76
    assert score([]) == 100


def test_missing_pages_and_absent_reference_list():
    doc = doc_with("Text (Hughes, 2026).", pages=16, declared=46)
    doc.unresolved = [Unresolved("Hughes, 2026", "citation", "no reference list found", 3)]
    rep = assess(doc, CompileOptions())
    by = {c.id: c for c in rep.checks}
    assert by["pages_missing"].severity == "error" and by["pages_missing"].location == {"pages": [17, 46]}
    assert "17-46" in by["pages_missing"].message
    assert by["no_reference_list"].severity == "error"
    # one root cause, one finding: the callouts are counted in the error, not listed one by one
    assert "1 citation callouts unresolved: no reference list found" in by["no_reference_list"].message
    assert "unresolved_citation" not in by
    assert rep.score <= 100 - 40


def test_artefacts_mojibake_hyphenation_and_empty_pages():
    md = "Left \\( x \\) and <td>cell</td> and ── PAGE 3 / 9 ── and cafÃ© and hyphen- ation and pre- and post-war."
    doc = doc_with(md)
    doc.stream.pages.append(Page(number=3, lines=[]))
    doc.stream.pages.append(Page(number=4, has_text_layer=False))
    rep = assess(doc, CompileOptions())
    got = ids(rep)
    for want in ("latex_math_delimiters", "html_tag", "page_marker", "mojibake", "broken_hyphenation",
                 "empty_page", "image_only_page"):
        assert want in got, want
    hy = [c for c in rep.checks if c.id == "broken_hyphenation"]
    assert len(hy) == 1 and "hyphen- ation" in hy[0].message  # "pre- and" is a suspended hyphen
    span = next(c for c in rep.checks if c.id == "mojibake").location["char_span"]
    assert md[span[0] : span[1]].startswith("Ã")


def test_uncited_references_missing_figures_and_short_sections():
    doc = doc_with("See Figure 9 (Roe, 2020).")
    doc.references = [Reference(id="ref-1", raw="a"), Reference(id="ref-2", raw="b")]
    doc.mentions = [Mention("Roe, 2020", ["ref-1"], "s1", 1)]
    doc.unresolved = [Unresolved("Figure 9", "crossref", "no figure numbered 9", 1, "s1")]
    doc.sections = [Section(id="s1", level=2, title="Intro", page_start=1, page_end=1),
                    Section(id="s2", level=3, title="Tiny", page_start=1, page_end=1, parent_id="s1")]
    rep = assess(doc, CompileOptions())
    by = {c.id: c for c in rep.checks}
    assert by["uncited_references"].location == {"reference_ids": ["ref-2"]}
    assert "Figure 9" in by["missing_figure_or_table"].message
    assert by["short_section"].location["section_id"] == "s2"


def test_clean_sample_scores_high(tmp_path):
    from pathlib import Path

    from ctxmill.compile.pipeline import compile_document

    sample = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "samples" / "tidal-caching.txt"
    doc = compile_document(sample, CompileOptions())
    assert doc.qa.score >= 90
    assert not [c for c in doc.qa.checks if c.severity == "error"]


# ---- QA that tells the truth (issue 13, issue 21 item 5)


def structured(pages=6, sections=None, title="A Real Title", md=None):
    """A document of `pages` pages with a title, some text and the given sections."""
    doc = doc_with(md if md is not None else WORDS, pages=pages)
    doc.metadata.title = title
    doc.sections = sections if sections is not None else [
        Section(id=f"s{i}", level=2, title=f"Part {i}", page_start=1, page_end=1, number=str(i)) for i in (1, 2, 3)]
    for s in doc.sections:
        doc.blocks.append(Block(kind=BlockKind.HEADING, text=s.title, page=1, id=f"h{s.id}", level=s.level))
        doc.blocks.append(Block(kind=BlockKind.PARAGRAPH, text=WORDS, page=1, id=f"p{s.id}", section_id=s.id))
    return doc


def test_empty_document_scores_at_most_20_with_an_error():
    rep = assess(doc_with(""), CompileOptions())
    err = [c for c in rep.checks if c.severity == "error"]
    assert [c.id for c in err] == ["empty_document"]
    assert rep.score <= 20


def test_a_few_words_are_not_a_perfect_document():
    rep = assess(doc_with("hello world", pages=1), CompileOptions())
    assert "too_little_text" in ids(rep)
    assert rep.score < 100 and rep.score <= 40  # two words: an error, held at the ceiling
    some = assess(doc_with(" ".join(["word"] * 60) + ".", pages=1), CompileOptions())
    assert [c.severity for c in some.checks if c.id == "too_little_text"] == ["warning"] and some.score < 100
    full = assess(structured(pages=1), CompileOptions())
    assert "too_little_text" not in ids(full) and full.score == 100


def test_four_pages_without_headings_is_an_error():
    rep = assess(structured(pages=4, sections=[]), CompileOptions())
    assert "no_headings" in ids(rep) and rep.score < 70
    short = assess(structured(pages=3, sections=[]), CompileOptions())
    assert "no_headings" not in ids(short)  # a three-page note may have none
    assert assess(structured(pages=4), CompileOptions()).score == 100


def test_a_title_that_is_a_running_head_or_a_date_is_an_error():
    for bad in ("DRAFT VERSION JULY 3, 2020", "July 3, 2020", "Preprint. Under review.",
                "arXiv:2501.00001v1 [cs.CL] 7 Jan 2025", "Typeset using LaTeX twocolumn style in AASTeX62"):
        rep = assess(structured(title=bad), CompileOptions())
        assert "title_suspect" in ids(rep), bad
        assert rep.score < 70 and bad in next(c.message for c in rep.checks if c.id == "title_suspect")
    assert "title_suspect" not in ids(assess(structured(title="PTFO 8-8695: Two Stars, Two Signals"),
                                             CompileOptions()))


def test_a_gap_in_the_section_numbering_names_the_missing_numbers():
    secs = [Section(id=f"s{n}", level=n.count(".") + 2, title=f"T{n}", page_start=1, page_end=1, number=n)
            for n in ("1", "2", "2.1", "3.1", "4")]  # 3 is missing (3.1 has no parent)
    rep = assess(structured(sections=secs), CompileOptions())
    gap = next(c for c in rep.checks if c.id == "heading_numbering_gap")
    assert gap.severity == "error" and gap.location["missing"] == ["3"] and rep.score < 70
    secs = [Section(id=f"s{n}", level=2, title=f"T{n}", page_start=1, page_end=1, number=n)
            for n in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12")]
    one = assess(structured(sections=secs), CompileOptions())
    gap = next(c for c in one.checks if c.id == "heading_numbering_gap")
    assert gap.severity == "warning" and gap.location["missing"] == ["11"]  # one of twelve: a warning
    roman = [Section(id=f"s{n}", level=2, title=f"T{n}", page_start=1, page_end=1, number=n)
             for n in ("I", "II", "III", "IV", "A", "B")]
    assert "heading_numbering_gap" not in ids(assess(structured(sections=roman), CompileOptions()))


def test_a_page_whose_text_vanished_is_an_error_naming_it():
    doc = structured(pages=3)
    doc.stream.pages[1].lines = [Line(text="This page had a whole paragraph of text on it, more than fifty "
                                           "characters long, and none of it came out.")]
    for b in doc.blocks:
        b.page = 1  # every block comes from page 1: page 2's text is gone
    rep = assess(doc, CompileOptions())
    lost = [c for c in rep.checks if c.id == "page_text_lost"]
    assert [c.location["page"] for c in lost] == [2] and lost[0].severity == "error" and "page 2" in lost[0].message
    assert rep.score < 70
    kept = next(c for c in rep.checks if c.id == "text_kept")
    assert "%" in kept.message


def test_repeated_findings_with_one_cause_are_reported_once_with_a_count():
    doc = structured()
    doc.references = [Reference(id="ref-1", raw="a")]
    # 27 callouts, each naming its own number, one cause: the list has no entries past [1]
    doc.unresolved = [Unresolved(f"[{n}]", "citation", f"no entry numbered {n}", n % 5 + 1) for n in range(2, 29)]
    rep = assess(doc, CompileOptions())
    un = [c for c in rep.checks if c.id == "unresolved_citation"]
    assert len(un) == 1 and un[0].location["count"] == 27
    assert un[0].message.startswith("27 citation callouts resolve to nothing: no entry numbered … ('[2]', '[3]'")
    assert un[0].location["pages"] == [1, 5]
    assert rep.score == 100 - 12  # counted 27 times, capped as one kind of warning


def _page_doc(rows):
    """A one-column page built line by line: rows of (text, top, bold, kind) -> stream lines and
    blocks with the same boxes, as the blocks stage leaves them."""
    from ctxmill.model import Span

    lines, blocks = [], []
    for i, (text, top, bold, kind) in enumerate(rows):
        box = (72.0, float(top), 72.0 + 5 * len(text), float(top) + 10)
        lines.append(Line(text=text, bbox=box, spans=[Span(text=text, bbox=box, size=10.0, bold=bold)]))
        blocks.append(Block(kind=kind, text=text, page=2, id=f"b{i}", bbox=box, level=2 if kind is BlockKind.HEADING
                            else None))
    doc = structured(pages=4)
    doc.stream.pages[1] = Page(number=2, lines=lines, width=612, height=792)
    doc.blocks = [b for b in doc.blocks if b.kind is BlockKind.HEADING][:1] + blocks
    return doc


PROSE = "Running text of the body that goes on for a while so that it reads as a paragraph of prose."


def test_many_artefacts_of_one_kind_are_one_finding_and_html_tables_are_not_artefacts():
    md = WORDS + " " + " ".join(f"cell<td>{i}</td>" for i in range(10))
    doc = doc_with(md)
    doc.metadata.title = "Cells"
    rep = assess(doc, CompileOptions())
    html = [c for c in rep.checks if c.id == "html_tag"]
    assert len(html) == 1 and html[0].location["count"] == 20 and html[0].location["block_ids"] == ["b0"]
    assert html[0].message.startswith("20 times HTML tag left in the text: '<td>', '</td>'")
    assert rep.score == 100 - 12
    few = assess(doc_with("one <td>x</td> here"), CompileOptions())
    assert [c.location["char_span"] for c in few.checks if c.id == "html_tag"] == [[4, 8], [9, 14]]
    table = doc_with("<table><tr><td>1</td></tr></table>")
    table.blocks[0].kind = BlockKind.TABLE  # a table written as HTML on purpose (cells that span)
    assert "html_tag" not in ids(assess(table, CompileOptions()))


def test_heading_like_lines_left_in_the_body_are_named():
    P, H = BlockKind.PARAGRAPH, BlockKind.HEADING
    # bold lines of their own, and a plain line set off by space above and below (svjour3's
    # \subsection*), each followed by its paragraph at the same left edge
    doc = _page_doc([("2 Methods", 100, True, H), (PROSE, 114, False, P), ("Setting the scene", 140, True, P),
                     (PROSE, 153, False, P), ("Issues in file conversion", 190, False, P), (PROSE, 215, False, P)])
    rep = assess(doc, CompileOptions())
    found = next(c for c in rep.checks if c.id == "heading_like_text")
    assert found.severity == "error" and found.message.startswith("2 lines set like headings were read as body text")
    assert "'Setting the scene' (p. 2), 'Issues in file conversion' (p. 2)" in found.message and rep.score < 70
    # the same words as running text (no bold, no space around them) are not headings, nor are
    # front-matter labels or a line with no paragraph after it (a figure label)
    plain = _page_doc([("2 Methods", 100, True, H), (PROSE, 114, False, P), ("Setting the scene", 126, False, P),
                       (PROSE, 138, False, P), ("Keywords", 170, True, P), (PROSE, 183, False, P),
                       ("Userspace Kernel", 300, True, P)])
    assert "heading_like_text" not in ids(assess(plain, CompileOptions()))
    # a section title repeated at the top of its pages is a running head left in the body, and a
    # contents line ("6 Conclusions 39") is no heading
    doc = _page_doc([("2 Methods", 100, True, H), (PROSE, 114, False, P), ("2 Methods", 140, True, P),
                     (PROSE, 153, False, P), ("6 Conclusions 39", 190, True, P), (PROSE, 203, False, P)])
    doc.sections.append(Section(id="s2m", level=2, title="Methods", page_start=2, page_end=2, number="2"))
    rep = assess(doc, CompileOptions())
    assert "heading_like_text" not in ids(rep)
    head = next(c for c in rep.checks if c.id == "running_head_in_body")
    assert head.severity == "warning" and "'2 Methods' (p. 2)" in head.message


def test_the_ocr_threshold_is_the_ocr_modules_without_importing_it(monkeypatch):
    import sys

    from ctxmill.compile.quality import _low_confidence
    from ctxmill.sources import ocr

    monkeypatch.delitem(sys.modules, "ctxmill.sources.ocr")  # as in a process whose OCR ran in the sandbox
    assert _low_confidence() == ocr.LOW_CONFIDENCE
    assert "ctxmill.sources.ocr" not in sys.modules  # read from its source, not imported (numpy)


def test_page_loss_and_words_kept_come_from_the_conservation_stage_when_it_ran():
    doc = structured(pages=3)
    doc.attrs["conservation"] = {
        "words_in": 1000, "words_out": 700, "words_removed": 50, "words_lost": 250, "share": 0.75,
        "pages": [{"page": 1, "chars_in": 3000, "words_in": 500, "words_out": 500, "words_removed": 0},
                  {"page": 2, "chars_in": 2400, "words_in": 450, "words_out": 0, "words_removed": 30,
                   "removed": {"figure-text": 30}},
                  {"page": 3, "chars_in": 40, "words_in": 50, "words_out": 0, "words_removed": 0}]}
    rep = assess(doc, CompileOptions())
    lost = [c for c in rep.checks if c.id == "page_text_lost"]
    assert [c.location["page"] for c in lost] == [2]  # page 3 held under 50 characters
    assert "page 2 had 2400 characters" in lost[0].message and "figure-text" in lost[0].message
    kept = next(c for c in rep.checks if c.id == "text_kept")
    assert kept.severity == "warning" and "700 of the 1000 words" in kept.message and "250 are unaccounted" in kept.message


def test_renderers_own_escapes_are_no_left_over_markup():
    # a paragraph line "0) text" or "[1]: text" is written "0\) text" / "\[1]: text" by the renderer so that
    # Markdown keeps it a paragraph; that backslash is ours, not OCR's math delimiter. OCR's own "\[ x \]" still counts.
    from ctxmill.render.markdown import escape_paragraph

    ours = escape_paragraph("the decomposition\n0) tng\n[1]: for each\n" + WORDS)
    assert "0\\)" in ours and "\\[1]" in ours
    assert "latex_math_delimiters" not in ids(assess(doc_with(ours), CompileOptions()))
    theirs = ours + "\n\\[ x \\]"  # OCR's display math on a line of its own: both delimiters, no more
    found = [c.message for c in assess(doc_with(theirs), CompileOptions()).checks if c.id == "latex_math_delimiters"]
    assert len(found) == 2 and found[0].endswith("'\\\\['") and found[1].endswith("'\\\\]'")
