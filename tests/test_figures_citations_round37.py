"""Round 37 (benchmarks/results/round37_tCit_rule.md): IEEE's table captions in capitals with a roman number and a
colon ("TABLE II: ..."), under a grid of one column and over a grid across both columns of a two-column page."""

from __future__ import annotations

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import BlockKind, Line, Page, PageStream, Span

_WORDS = ("the joint optimization of the problem stated above is non trivial since it is generally non convex and "
          "an alternating method is adopted to obtain a suboptimal solution iteratively in each round").split()


def _line(x0, top, x1, text, size=12.0, gaps=None):
    """A line of one span, or of several spans (cells) at the x positions in gaps."""
    if gaps:
        spans = [Span(text=t, bbox=(a, top, a + 6 * len(t), top + size * 0.95), size=size, font="Times-Roman")
                 for a, t in gaps]
        return Line(text="  ".join(t for _, t in gaps), bbox=(spans[0].bbox[0], top, spans[-1].bbox[2],
                                                              top + size * 0.95), spans=spans)
    return Line(text=text, bbox=(x0, top, x1, top + size * 0.95),
                spans=[Span(text=text, bbox=(x0, top, x1, top + size * 0.95), size=size, font="Times-Roman")])


def _prose(x0, x1, y, n, size=12.0, first=None):
    out = []
    for k in range(n):
        text = first if first and k == 0 else " ".join(_WORDS[(k * 4) % 24:(k * 4) % 24 + 10])
        out.append(_line(x0, y, x1, text, size))
        y += size * 1.2
    return out, y


def _compile(lines):
    page = Page(number=1, lines=lines, width=612, height=792)
    return compile_stream(PageStream(pages=[page], kind="pdf"), CompileOptions())


def test_a_caps_table_caption_with_a_roman_number_under_its_grid_is_the_tables_caption():
    # ieeetran-irs: "TABLE II: Parameters for fading and path loss" centred under its grid stayed a paragraph, so
    # "Table (II)" in the text was no cross-reference at all
    lines, y = _prose(72, 540, 60, 14)
    lines.append(_line(72, y, 540, "The illumination parameters are concluded in Table (II) for the two strategies."))
    y += 30
    # (its cells are math the text layer scatters: no grid the table finders vouch for)
    for x0, text in ((120, "ρ Rd Rr κ"), (150, "S1 : 4d"), (300, "√ √"), (160, "M π"), (380, "49")):
        lines.append(_line(x0, y, x0 + 6 * len(text), text))
        y += 14
    y += 12
    lines.append(_line(190, y, 422, "TABLE II: Parameters for fading and path loss"))
    y += 30
    more, _ = _prose(72, 540, y, 6)
    doc = _compile(lines + more)
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.number == "II"]
    assert [t.attrs["caption"] for t in tables] == ["Parameters for fading and path loss"]
    assert not any(b.text.startswith("TABLE II") for b in doc.blocks if b.kind is BlockKind.PARAGRAPH)
    assert [(x.text, x.target_id) for x in doc.crossrefs if x.kind == "table"] == [("Table (II)", tables[0].id)]


def test_a_caps_table_caption_centred_over_both_columns_is_the_tables_caption():
    # iiswc: a full-width table at the top of a two-column page, "TABLE I: OpenCL API ..." centred between the
    # page's text edges (in no one column), over cells of several lines: a paragraph, "Table I" resolved to nothing
    lines = [_line(197, 60, 423, "TABLE I: OpenCL API Functionalities and Extensions", size=10.0)]
    y = 82
    for row in (["Feature", "API Function", "Extension", "Future"], ["Discovery", "clGetPlatformIDs", "List remote",
                                                                     "List all"],
                ["Selection", "clCreateContext", "Configure", "Multiple"], ["Transfer", "clCreateBuffer", "Caching",
                                                                            "Compression"]):
        lines.append(_line(0, y, 0, "", size=7.0, gaps=list(zip((100, 200, 330, 450), row, strict=True))))
        y += 10
    left, _ = _prose(49, 301, 200, 30, size=10.0, first="each functionality to support remote offloading. Table I sums")
    right, _ = _prose(319, 571, 200, 30, size=10.0)
    doc = _compile(lines + left + right)
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.number == "I"]
    assert [t.attrs["caption"] for t in tables] == ["OpenCL API Functionalities and Extensions"]
    assert [(x.text, x.target_id) for x in doc.crossrefs if x.kind == "table"] == [("Table I", tables[0].id)]


def test_a_caps_label_in_running_text_across_the_column_stays_text():
    # the guard: a line that opens with "TABLE II:" but fills its column (not centred) is a paragraph's
    lines, y = _prose(72, 540, 60, 10)
    lines.append(_line(72, y, 540, "TABLE II: the second of the tables lists the parameters for the fading and the"))
    lines.append(_line(72, y + 14.4, 540, "path loss as the joint optimization of the problem stated above is"))
    more, _ = _prose(72, 540, y + 28.8, 6)
    doc = _compile(lines + more)
    assert not [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert any("TABLE II: the second" in b.text for b in doc.blocks if b.kind is BlockKind.PARAGRAPH)


def _bold(x0, top, x1, text, size=12.0):
    return Line(text=text, bbox=(x0, top, x1, top + size * 0.95),
                spans=[Span(text=text, bbox=(x0, top, x1, top + size * 0.95), size=size, font="Times-Bold",
                            bold=True)])


def _figure_page(labels):
    """A page of text, a figure's sub-figure labels in the caption's type over its caption, a bibliography."""
    lines, y = _prose(72, 540, 60, 12, size=10.0)
    y += 20
    for x0 in (150, 270, 395):  # the plots' own text, in their type
        lines.append(_line(x0, y, x0 + 80, "1e-04 1e-03 1e-02 1e-01", size=6.0))
        lines.append(_line(x0 + 30, y + 7, x0 + 45, "FPR", size=6.0))
    y += 18
    for x0, text in labels:
        lines.append(_line(x0, y, x0 + 5 * len(text), text, size=9.0))
    y += 20
    lines.append(_line(90, y, 520, "Figure 7: DET curves for different CNNs with different backbones. Lower is",
                       size=9.0))
    lines.append(_line(90, y + 11, 300, "better for each of the backbones.", size=9.0))
    more, y = _prose(72, 540, y + 40, 8, size=10.0)
    lines += more
    lines.append(_bold(72, y + 10, 150, "References"))
    y += 30
    for num, entry in ((1, "K. He, X. Zhang, S. Ren, and J. Sun. Deep residual learning. In CVPR, 2016."),
                       (2, "J. Hu, L. Shen, and G. Sun. Squeeze-and-excitation networks. In CVPR, 2018."),
                       (3, "K. Simonyan and A. Zisserman. Very deep convolutional networks. In ICLR, 2015."),
                       (4, "Y. Taigman, M. Yang, and L. Wolf. DeepFace: closing the gap. In CVPR, 2014.")):
        lines.append(_line(72, y, 540, f"[{num}] {entry}", size=9.0))
        y += 12
    return _compile(lines)


def test_sub_figure_labels_that_cite_join_the_caption_and_their_callouts_link():
    # cvpr: "(a) VGG16 [31]", "(b) ResNet50 [14]", "(c) SENet [15]" under the plots, over "Figure 7: ...": moved
    # out of the text as the figure's labels, so the three callouts were missed
    doc = _figure_page([(159, "(a) VGG16 [3]"), (280, "(b) ResNet50 [1]"), (404, "(c) SENet [2]")])
    fig = next(b for b in doc.blocks if b.kind is BlockKind.FIGURE)
    assert fig.attrs["caption"].endswith("(a) VGG16 [3] (b) ResNet50 [1] (c) SENet [2]")
    assert [m.text for m in doc.mentions if m.page == 1][-3:] == ["[3]", "[1]", "[2]"]
    assert [m.reference_ids for m in doc.mentions][-3:] == [["ref-3"], ["ref-1"], ["ref-2"]]


def test_sub_figure_labels_without_a_callout_stay_the_figures_labels():
    # the guard: labels that cite nothing stay out of the caption (the figure's text, as before)
    doc = _figure_page([(159, "(a) VGG16"), (280, "(b) ResNet50"), (404, "(c) SENet")])
    fig = next(b for b in doc.blocks if b.kind is BlockKind.FIGURE)
    assert "VGG16" not in fig.attrs["caption"]
    assert not any("VGG16" in b.text for b in doc.blocks if b.kind is BlockKind.PARAGRAPH)
