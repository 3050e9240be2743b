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
    assert "unresolved_citation" in by
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
