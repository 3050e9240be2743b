"""Round 36 (benchmarks/results/round36_tCit_rule.md): a list labelled by raised numbers (aiaa.bst), an ABNT list
followed by labelled appendix chapters, and a bibliography head under a line whose math glyph box hangs into it."""

from __future__ import annotations

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import BlockKind, Line, Page, PageStream, Span
from test_citations import make_doc
from test_references import _compile_bib, _heading, _pdf_block


def _note(num, text, y):
    """A footnote as structure's footnote reader leaves an entry of a raised-number list at a page's foot."""
    b = _pdf_block([(92, f"[^{num}]{text}")], y=y, kind=BlockKind.FOOTNOTE)
    b.text, b.number = text, str(num)
    return b


def test_a_list_labelled_by_raised_numbers_is_read_entry_by_entry():
    # T1 (aiaa-tc): "¹Reissner, E., ..." -- entries 1-2 taken for footnotes at the page's foot, the others one
    # paragraph whose lines open with the marks: 3 entries came out for 10
    blocks = [_heading("References"),
              _note(1, "Reissner, E., “On one-dimensional beam theory,” Studies in Applied Mathematics, 1973, pp. 87–95.",
                    100),
              _note(2, "Simo, J. C., “A finite strain beam formulation,” Computer Methods, Vol. 49, 1985, pp. 55–70.",
                    112),
              _pdf_block([(92, "[^3]Sprague, M. and Jonkman, B., “FAST modular wind turbine CAE tool,” Proceed-"),
                          (72, "ings of the 32nd ASME Wind Energy Symposium, January 2014."),
                          (92, "[^4]Bauchau, O. A., Flexible Multibody Dynamics, Springer, 2010."),
                          (89, "[^5]Yu, W. and Blair, M., “GEBT: A general-purpose analysis tool,” Composite Structures,"),
                          (72, "Vol. 94, 2012, pp. 2677–2689.")], page=2, y=80)]
    doc = _compile_bib(blocks, pages=2)
    assert [r.title for r in doc.references] == [
        "On one-dimensional beam theory", "A finite strain beam formulation", "FAST modular wind turbine CAE tool",
        "Flexible Multibody Dynamics", "GEBT: A general-purpose analysis tool"]
    assert [r.year for r in doc.references] == ["1973", "1985", "2014", "2010", "2012"]


def test_footnotes_under_an_ordinary_list_stay_footnotes():
    # the guard: a list whose first entry opens with no raised 1 takes no footnote for an entry
    blocks = [_heading("References"),
              _pdf_block([(72, "[1] A. Smith. A paper on things. J. Things, 1(2):3-4, 2001.")], y=100),
              _note(2, "Simo, J. C., “A finite strain beam formulation,” Computer Methods, Vol. 49, 1985, pp. 55–70.",
                    700)]
    doc = _compile_bib(blocks)
    assert len(doc.references) == 1
    assert [b.kind for b in doc.blocks if b.number == "2"] == [BlockKind.FOOTNOTE]


def test_raised_callouts_link_to_entries_but_exponents_do_not():
    doc = make_doc(["Proposed by Reissner[^1] and Simo[^2], at a wind speed of 12 m/s[^2] and an error "
                    "[U - V][^2] squared, where (x)<sup>0</sup> is a derivative."],
                   bib=["[1] Reissner, E., On beams, Studies, 1973.", "[2] Simo, J. C., A beam formulation, CMAME, 1985."])
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("[^1]", ["ref-1"]), ("[^2]", ["ref-2"])]
    assert not [u for u in doc.unresolved if "0" in u.text]  # a raised 0 is a prime, no callout


def test_a_labelled_appendix_chapter_ends_the_list():
    # T2 (abntex2): the ABNT list (flush left, entries apart by space) ran on into "APÊNDICE A – ..." and
    # "ANEXO A – ...", memoir chapters left as paragraphs; their indented paragraphs made 37 entries of 6
    entry = [(72, "ARAUJO, L. C. A classe abntex2: Modelo canônico de trabalhos acadêmicos"),
             (72, "brasileiros. [S.l.], 2015. Disponível em: <http://www.abntex.net.br/>."),
             (72, "Citado 2 vezes nas páginas 2 e 5.")]
    other = [(72, "WILSON, P.; MADSEN, L. The Memoir Class for Configurable Typesetting -"),
             (72, "User Guide. Normandy Park, WA, 2010. Citado na página 4.")]
    para = [(110, "Nunc velit. Nullam elit sapien, eleifend eu, commodo nec, semper sit amet,"),
            (72, "elit. Nulla lectus risus, condimentum ut, laoreet eget, viverra nec, odio. Proin"),
            (72, "lobortis. Curabitur dictum arcu vel wisi. Cras id nulla venenatis tortor congue")]
    third = [(72, "ARAUJO, L. C. Como customizar o abnTeX2. 2015. Wiki do abnTeX2. Disponível"),
             (72, "em: <https://github.com/abntex/abntex2/wiki>. Acesso em: 27 abr 2015."),
             (72, "Citado na página 2.")]
    blocks = [_heading("Referências"), _pdf_block(entry, y=100), _pdf_block(third, y=125), _pdf_block(other, y=150),
              _pdf_block([(90, "APÊNDICE A – Nullam elementum urna vel imperdiet sodales elit ipsum pharetra"),
                          (90, "ligula ac pretium ante justo a nulla curabitur tristique arcu eu metus")], y=200),
              _pdf_block(para, y=240), _pdf_block(para, y=290),
              _pdf_block([(90, "ANEXO A – Cras non urna sed feugiat cum sociis natoque penatibus")], y=340),
              _pdf_block(para, y=360)]
    doc = _compile_bib(blocks)
    assert [r.raw[:22] for r in doc.references] == ["ARAUJO, L. C. A classe", "ARAUJO, L. C. Como cus",
                                                    "WILSON, P.; MADSEN, L."]
    assert doc.references[2].raw.endswith("Citado na página 4.")
    assert sum(1 for b in doc.blocks if b.text.startswith("Nunc velit")) == 3  # the appendix text stays text


def _line(spans, size=10.0):
    text = " ".join(s.text for s in spans)
    x0, top = min(s.bbox[0] for s in spans), min(s.bbox[1] for s in spans)
    x1, bottom = max(s.bbox[2] for s in spans), max(s.bbox[3] for s in spans)
    return Line(text=text, bbox=(x0, top, x1, bottom), spans=spans)


def _span(text, x0, top, x1, bottom, size=10.0):
    return Span(text=text, bbox=(x0, top, x1, bottom), size=size, font="Times-Roman")


def test_a_head_under_a_line_whose_math_glyph_box_hangs_low_is_its_own_block():
    # T3 (ifacconf): a calligraphic "O" whose glyph box reaches 7 pt below its line made the centred
    # "REFERENCES" under it read as the paragraph's next line: no bibliography was found
    words = ("the controller performance of the distributed model predictive schemes was then evaluated in "
             "simulation and compared to the centralized benchmark case for both of the systems").split()
    lines, y = [], 60.0
    for k in range(24):
        t = " ".join(words[(k * 3) % 20:(k * 3) % 20 + 9])
        lines.append(_line([_span(t, 72, y, 322, y + 14.1)]))
        y += 11.0
    lines.append(_line([_span("matrix generation is", 72, y, 160, y + 14.1), _span("O", 163, y + 3.5, 171, y + 20.8),
                        _span("(n) in the number of states.", 172, y, 297, y + 14.1)]))
    y += 20.3
    lines.append(_line([_span("REFERENCES", 163, y, 231, y + 14.1)]))
    y += 17.0
    for a, b in (("Bentaleb, T. (2015). Model-Based Control Techniques for", "Compressors. PhD thesis, Siena."),
                 ("Jones, K. (2016). Distributed model predictive control of", "compressor systems. Master's thesis."),
                 ("Scattolini, R. (2009). Architectures for distributed and", "hierarchical control. J. Proc. Control.")):
        lines.append(_line([_span(a, 72, y, 322, y + 14.1)]))
        lines.append(_line([_span(b, 82, y + 11, 300, y + 25.1)]))
        y += 22.0
    page = Page(number=1, lines=lines, width=612, height=792)
    doc = compile_stream(PageStream(pages=[page], kind="pdf"), CompileOptions())
    assert [r.year for r in doc.references] == ["2015", "2016", "2009"]
    assert not any(b.text.rstrip().endswith("REFERENCES") for b in doc.blocks if b.kind is BlockKind.PARAGRAPH)


def test_a_caption_in_body_type_set_with_a_hanging_indent_is_a_caption():
    # ifacconf: "Fig. 6. Average controller computation time per iteration," over "as a function of ...", 20 pt in,
    # in the body's own type and face: read as a paragraph, so "Figure 6" in the text pointed at nothing
    text = ("the controller performance of the distributed model predictive schemes was then evaluated in "
            "simulation and compared to the centralized benchmark case for both of the systems").split()
    lines, y = [], 60.0
    for k in range(12):
        lines.append(_line([_span(" ".join(text[(k * 3) % 20:(k * 3) % 20 + 9]), 72, y, 322, y + 14.1)]))
        y += 11.0
    lines.append(_line([_span("As shown in Figure 2, the distributed controllers converge within three", 72, y, 322,
                              y + 14.1)]))
    y += 30.0
    lines.append(_line([_span("Fig. 2. Comparison of parallel system time responses of", 72, y, 322, y + 14.1)]))
    lines.append(_line([_span("centralized and distributed controllers using 3 solver", 92, y + 11, 322, y + 25.1)]))
    lines.append(_line([_span("iterations.", 92, y + 22, 140, y + 36.1)]))
    lines.append(_line([_span("The cooperative controller response is similar to that of the centralized", 72, y + 40,
                              322, y + 54.1)]))
    lines.append(_line([_span("controller in the time response of both compressors of the system.", 72, y + 51,
                              322, y + 65.1)]))
    page = Page(number=1, lines=lines, width=612, height=792)
    doc = compile_stream(PageStream(pages=[page], kind="pdf"), CompileOptions())
    figs = [b for b in doc.blocks if b.kind is BlockKind.FIGURE]
    assert [(f.number, f.attrs["caption"]) for f in figs] == [
        ("2", "Comparison of parallel system time responses of centralized and distributed controllers using 3 "
              "solver iterations.")]
    assert any(b.text.startswith("The cooperative controller") for b in doc.blocks)  # the text after it stays text
    assert [x.target_id for x in doc.crossrefs if x.kind == "figure"] == [figs[0].id]
