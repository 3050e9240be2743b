"""A paragraph broken inside a parenthesis runs on past the break (round32_citations_rule.md F): aastex's
"... APOGEE-2 (Gunn et al." at a column's foot, a footnote under it, "2006; Majewski et al. 2017; ...)" atop
the next column. The "et al." before the break is no sentence's end, and the footnote goes after the
paragraph instead of into the citation."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.blocks import runs_on
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document

BODY = ("Running text of the introduction, long enough to read as the body of a paper and not as a "
        "title or a name, which goes on for a line or two and then some more.")


def test_an_open_parenthesis_closed_after_the_break_runs_on():
    assert runs_on(["These authors combined spectra from APOGEE-2 (Gunn et al."],
                   "2006; Majewski et al. 2017; Blanton et al. 2017; Zasowski et al. 2017; Cottle et al. 2018). They")
    assert runs_on(["as measured before (see"], "Smith 2001). The next")


def test_a_closed_or_unclosed_parenthesis_decides_nothing_new():
    # closed before the break: the sentence ended there
    assert not runs_on(["The model is fitted (see Section 2)."], "Results follow in Table 1 (below).")
    # open, but the next text opens its own parenthesis before any closes: no evidence they are one
    assert not runs_on(["We used the archive (Gaia."], "The results (above) show it.")
    # open, and nothing closes it soon after the break
    assert not runs_on(["A list of things (a, b."], "Another paragraph begins here and goes on without a bracket.")


def test_a_footnote_does_not_split_a_citation_broken_over_a_page(tmp_path):
    page1 = [("A Study of Stars", 72, 88, 20, "Times-Bold"), ("1 Data", 72, 150, 12, "Times-Bold"),
             *[(BODY[:88], 72, 170 + 12 * k, 10, "Times-Roman") for k in range(40)],
             ("These authors combined astrometric data with spectra from APOGEE-2 (Gunn et al.", 72, 662, 10,
              "Times-Roman"),
             ("2", 72, 700, 6, "Times-Roman"), ("gea.esac.esa.int/archive/", 76, 702, 8, "Times-Roman")]
    page2 = [("2006; Majewski et al. 2017; Cottle et al. 2018). They performed a hierarchical clustering.", 72, 72,
              10, "Times-Roman"), *[(BODY[:88], 72, 84 + 12 * k, 10, "Times-Roman") for k in range(6)]]
    doc = compile_document(make_pdf(tmp_path / "p.pdf", [page1, page2]), CompileOptions(fast=True))
    assert "APOGEE-2 (Gunn et al. 2006; Majewski et al. 2017; Cottle et al. 2018). They" in doc.markdown, doc.markdown


def test_a_superscript_run_of_numbers_with_a_blank_after_its_comma_is_one_mark():
    # scidata-wlscirep-urban-form "framework1, 2": one superscript span "1, 2" was written "^1, 2" with no
    # closing caret, so neither the footnote reader nor the citation finder took it (round32_citations_rule.md S)
    from ctxmill.compile.blocks import span_text
    from ctxmill.model import Line, Span

    line = Line(text="In this paper, we use the framework1, 2", bbox=(71.6, 480.3, 299.0, 491.1),
                spans=[Span(text="In this paper, we use the framework", bbox=(71.6, 482.1, 288.9, 491.1), size=9.96),
                       Span(text="1, 2", bbox=(288.9, 480.3, 299.0, 486.9), size=7.37, superscript=True)])
    assert span_text(line) == "In this paper, we use the framework[^1,2]"
