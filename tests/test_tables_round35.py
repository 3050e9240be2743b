"""Round 35: tables, captions and floats on pages built here (pypdfium2, standard fonts).

Each test draws the kind of page a failure came from (described by its kind, no benchmark text)
and asserts what a reader of the outputs relies on: a float's kind in graph.json, a table's
caption and rows, references that resolve."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as c

from _pdfgen import LETTER_HEIGHT, draw_rect
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs
from test_figures_round34 import BODY, _para, _text  # (one page builder for the float tests)


def _compile(pdf, path: Path, tmp_path: Path) -> Path:
    pdf.save(str(path))
    pdf.close()
    options = CompileOptions()
    doc = compile_document(path, options)
    write_outputs(doc, tmp_path / "out", options)
    return tmp_path / "out"


def floats_page(tmp_path: Path, sentence: str, figure: bool = False) -> Path:
    """A page of prose holding an algorithm2e float ("Algorithm 1:" bold, its body led by a bold
    keyword) and a listing float, then ``sentence`` (and, with ``figure``, a drawn Figure 1 under
    it), compiled; the output folder."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72)
    _text(pdf, page, "Algorithm 1:", 80, y, 10, "Times-Bold")
    _text(pdf, page, "Primality Test by Random Witnesses", 137, y)
    _text(pdf, page, "Input:", 86, y + 14, 10, "Times-Bold")
    _text(pdf, page, "Integer n", 116, y + 14)
    y = _para(pdf, page, y + 40, 2)
    _text(pdf, page, "Listing 1: Constructing a timing object.", 150, y, 9)
    _text(pdf, page, "var to = new TimingObject();", 100, y + 20, 9, "Courier")
    y = _para(pdf, page, y + 44, 2)
    _text(pdf, page, sentence, 72, y)
    if figure:
        draw_rect(page, 150, y + 30, 300, y + 110, (220, 30, 30))
        _text(pdf, page, "Figure 1: A drawing that is a figure.", 150, y + 124, 9)
    page.gen_content()
    page.close()
    return _compile(pdf, tmp_path / "floats.pdf", tmp_path)


def _dangling(out: Path) -> list[str]:
    qa = json.loads((out / "qa.json").read_text())
    return [ch["message"] for ch in qa["checks"] if ch["id"] in ("missing_target", "missing_figure_or_table")]


def test_graph_nodes_of_algorithm_and_listing_floats_carry_their_kind(tmp_path):
    out = floats_page(tmp_path, "Algorithm 1 and Listing 1 are shown above, and Figure 1 below holds a drawing.",
                      figure=True)
    graph = json.loads((out / "graph.json").read_text())
    # figure nodes all (the contract's node kinds), each with its float's kind and printed label
    floats = {n["label"]: (n["kind"], n.get("float")) for n in graph["nodes"]
              if n["kind"] not in ("document", "section", "reference")}
    assert floats == {"Algorithm 1": ("figure", "algorithm"), "Listing 1": ("figure", "listing"),
                      "Figure 1": ("figure", None)}, floats
    # the GraphML carries the same
    graphml = (out / "graph.graphml").read_text()
    assert '<data key="float">algorithm</data>' in graphml and '<data key="float">listing</data>' in graphml
    # the references to them still find their nodes
    ids = {n["id"]: n.get("float") or n["kind"] for n in graph["nodes"]}
    refers = {ids.get(e["target"]) for e in graph["edges"] if e["kind"] == "refers_to"}
    assert {"algorithm", "listing", "figure"} <= refers, refers


def _grid(pdf, page, y, rows, xs, size=7.0, step=10.0, font="Times-Roman"):
    """Rows of cells at the column lefts xs, one line per row; a cell may be a list of lines
    (a wrapped cell, its lines under each other)."""
    for row in rows:
        height = 1
        for x, cell in zip(xs, row, strict=True):
            parts = cell if isinstance(cell, list) else [cell]
            for n, part in enumerate(parts):
                _text(pdf, page, part, x, y + n * (size + 1.5), size, font)
            height = max(height, len(parts))
        y += step + (height - 1) * (size + 1.5)
    return y


def _centred(pdf, page, text, y, size, centre=306.0, font="Times-Roman"):
    """A line centred on x = centre: the text object's own bounds give its width."""
    obj = c.FPDFPageObj_NewTextObj(pdf.raw, font.encode(), ctypes.c_float(size))
    buf = (ctypes.c_ushort * (len(text) + 1))(*[ord(ch) for ch in text], 0)
    c.FPDFText_SetText(obj, buf)
    box = [ctypes.c_float() for _ in range(4)]
    c.FPDFPageObj_GetBounds(obj, *[ctypes.byref(v) for v in box])
    width = box[2].value - box[0].value
    c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, centre - width / 2, LETTER_HEIGHT - y)
    c.FPDFPage_InsertObject(page.raw, obj)


def test_ieee_table_label_alone_over_its_title_heads_the_rows_under_it(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    # IEEE: "TABLE I" alone, centred, the title in capitals under it, a grid of prose cells
    _centred(pdf, page, "TABLE I", 50, 8)
    _centred(pdf, page, "COMPARISON OF SENSING SYSTEMS REPORTED BY EACH SOURCE", 60, 6.4)
    y = _grid(pdf, page, 80, [
        ["Related Works", "Reported Sensing Layout", "Required Equipment"],
        ["Smith et al. [1]", "ten pressure taxels per module; calibrated.", "Custom boards, fabric"],
        ["Jones et al. [2]", ["sixteen taxels per prototype; relative", "force signal with a threshold."],
         "Industrial knitting machine"],
        ["Brown et al. [3]", "eleven sensors per module; readings at rate.", "Sensor modules"],
    ], [99, 195, 400])
    # the next table right under it, its own label and title
    _centred(pdf, page, "TABLE II", y + 14, 8)
    _centred(pdf, page, "PARAMETERS OF THE TWO DESIGNS", y + 24, 6.4)
    y = _grid(pdf, page, y + 44, [
        ["Design", "Pitch", "Material cost"],
        ["Textile sensor", "20 mm", "under ten dollars"],
        ["Printed sensor", "20 mm", "printer filament"],
    ], [150, 260, 380])
    y = _para(pdf, page, y + 30, 8, BODY[:98])
    _text(pdf, page, "Table I compares these systems and Table II lists the designs.", 72, y)
    page.gen_content()
    page.close()
    out = _compile(pdf, tmp_path / "ieee.pdf", tmp_path)
    md = (out / "document.md").read_text()
    assert "**Table I:** COMPARISON OF SENSING SYSTEMS REPORTED BY EACH SOURCE" in md, md
    assert "| Jones et al. [2] | sixteen taxels per prototype; relative force signal with a threshold. " \
           "| Industrial knitting machine |" in md, md
    assert "**Table II:** PARAMETERS OF THE TWO DESIGNS" in md, md
    assert "| Printed sensor | 20 mm | printer filament |" in md, md
    assert "TABLE II" not in md  # the second label is no row of the first table
    assert not _dangling(out), _dangling(out)


def test_table_caption_in_body_type_with_a_colon_over_a_grid(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    # a thesis class: double-spaced body, the caption a full-width single-spaced paragraph in the
    # body's own type ("Table 1.2: ..."), a grid of figures under it
    y = 100
    for n in range(6):
        _text(pdf, page, BODY[:88] if n < 5 else "locations in your document.", 108, y, 12)
        y += 24
    y += 4
    caption = ["Table 1.2: This is an example of a table having a long caption whose caption in the",
               "list of tables is much shorter. Correlation coefficient comparison between the",
               "parameters and the average ranking."]
    for line in caption:
        _text(pdf, page, line, 108, y, 12)
        y += 14.5
    y = _grid(pdf, page, y + 20, [
        ["Measure", "Overall", "Score"],
        ["Translation", "0.68", "0.28"],
        ["Rotation", "0.34", "0.17"],
        ["Scale", "0.59", "0.27"],
    ], [236, 306, 387], size=10.9, step=24.0)
    _text(pdf, page, "As Table 1.2 shows, the translation matters most of all the parameters measured.", 108, y + 30,
          12)
    page.gen_content()
    page.close()
    out = _compile(pdf, tmp_path / "thesis.pdf", tmp_path)
    md = (out / "document.md").read_text()
    assert "**Table 1.2:** This is an example of a table having a long caption" in md, md
    assert "| Rotation | 0.34 | 0.17 |" in md, md
    assert "locations in your document." in md and "document. Table 1.2" not in md
    assert not _dangling(out), _dangling(out)


def test_listing_and_algorithm_of_one_number_are_two_targets(tmp_path):
    out = floats_page(tmp_path, "Listing 1 builds the object that Algorithm 1 then tests.")
    graph = json.loads((out / "graph.json").read_text())
    by_label = {n["label"]: n["id"] for n in graph["nodes"]}
    cits = json.loads((out / "citations.json").read_text())
    targets = {x["text"]: x["target_id"] for x in cits["crossrefs"]}
    assert targets.get("Listing 1") == by_label["Listing 1"], (targets, by_label)
    assert targets.get("Algorithm 1") == by_label["Algorithm 1"], (targets, by_label)


def test_rows_of_a_contents_list_are_no_table():
    # (a contents page drawn by hand here is read as headings by the structure stage before a
    # table finder sees it; the grid the table finder builds from a real one is these rows)
    from ctxmill.compile.tables import _contents

    toc = [["2 Simplified model phenomenology", "", "3"], ["2.1", "Model descriptions", "3"],
           ["2.2", "The signatures", "4"], ["2.3", "Mass and coupling points", "5"],
           ["", "3.1.1 Parton matching scheme", "9"], ["3.2", "Mono-jet constraints", "10"]]
    assert _contents(toc)
    leaders = [["4 General commands", "", "", "13"], ["4.1", "Inline-only settings", ". . . . . . . .", "13"],
               ["4.2", "Custom formatting for inline commands", "", ""]]
    assert _contents(leaders)
    # data: numbers first and last, but the last column falls, or no entry leads with a number
    data = [["1", "baseline", "0.71", "45"], ["2", "ours", "0.75", "38"], ["3", "ours + prior", "0.79", "52"]]
    assert not _contents(data)
    years = [["Revenue", "1,200", "1,350", "2021"], ["Costs", "800", "900", "2022"], ["Profit", "400", "450", "2023"]]
    assert not _contents(years)
    counts = [["0", "15", "0", "3"], ["0", "1", "54", "4"], ["1", "0", "45", "4"], ["2", "19", "0", "5"]]
    assert not _contents(counts)  # a matrix of counts: numbers first and last, no titles


def test_a_grid_over_its_caption_at_the_top_of_a_page_under_the_running_head(tmp_path):
    pdf = pdfium.PdfDocument.new()
    for n in range(2):
        page = pdf.new_page(612, 792)
        # a running head (page number, author in small capitals) over a table at the page's top,
        # its caption under it in the body's own type
        _text(pdf, page, str(n + 5), 72, 75, 10)
        _text(pdf, page, "A. N. AUTHOR", 220, 76.5, 8)
        y = _grid(pdf, page, 98, [
            ["Model", "Metric", "Dataset", "Value"],
            ["Jacobi Weight", "MSE", "Training", "1.8331"],
            ["Jacobi Weight", "MSE", "Testing", "1.8396"],
            ["Jacobi Weight", "L1", "Training", "2.9254"],
            ["Jacobi Weight", "L1", "Testing", "2.9271"],
            ["Convergence Factor", "MSE", "Training", "1.4839"],
            ["Convergence Factor", "MSE", "Testing", "1.5171"],
            ["Convergence Factor", "L1", "Training", "2.3908"],
            ["Convergence Factor", "L1", "Testing", "2.3865"],
        ], [133, 230, 290, 340], size=10.0, step=12.0)
        _text(pdf, page, f"Table {n + 1}.1: Final training and testing loss values for the two models. Lower values",
              72, y + 2)
        _text(pdf, page, "correspond to higher model accuracy.", 72, y + 15)
        _para(pdf, page, y + 40, 10, BODY[:98])
        _text(pdf, page, f"The losses of Table {n + 1}.1 are low on both sets of data.", 72, y + 200)
        page.gen_content()
        page.close()
    out = _compile(pdf, tmp_path / "top.pdf", tmp_path)
    md = (out / "document.md").read_text()
    assert "**Table 1.1:** Final training and testing loss values" in md, md
    assert "| Convergence Factor | L1 | Testing | 2.3865 |" in md, md
    assert not _dangling(out), _dangling(out)


def test_figure_legends_listed_one_after_another_are_each_a_caption(tmp_path):
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = _para(pdf, page, 72, 6, BODY[:98])
    _text(pdf, page, "As Figure 2 and Figure 3 show, the clusters hold; Figure 4 gives the curve.", 72, y)
    page.gen_content()
    page.close()
    # a journal's figure legends at the end: "Figure n" in bold, the legend in roman after it,
    # each legend's lines under each other and the next legend right under the last line
    page = pdf.new_page(612, 792)
    _text(pdf, page, "FIGURE LEGENDS", 45, 60, 12.9, "Times-Bold")
    y = 90
    for n, words in ((2, "Graphical representation of three clustering algorithms collapsing the genotypes"),
                     (3, "Minimum spanning networks of the segment of the viral DNA from the package"),
                     (4, "A dendrogram generated from the genetic distance on fifteen breeds of cattle")):
        _text(pdf, page, f"Figure {n}", 56, y, 12, "Times-Bold")
        _text(pdf, page, words, 108, y, 12)
        _text(pdf, page, "for the loci representing the lineages; every point shows the threshold at which", 48, y + 12, 12)
        _text(pdf, page, "one observes a given number of genotypes.", 48, y + 24, 12)
        y += 42
    page.gen_content()
    page.close()
    out = _compile(pdf, tmp_path / "legends.pdf", tmp_path)
    md = (out / "document.md").read_text()
    assert "**Figure 2:** Graphical representation" in md, md
    assert "**Figure 3:** Minimum spanning networks" in md, md
    assert "**Figure 4:** A dendrogram" in md, md
    assert not _dangling(out), _dangling(out)
