"""Figures as images: the compiler crops each figure's drawing from its PDF page (compile/figures.py)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from _pdfgen import draw_image, draw_rect, draw_text
from ctxmill.compile.figures import clusters, find_regions
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs

BODY = ("The method reads every page once and keeps the drawing of each figure beside its caption so "
        "that a reader sees it.")



def figure_pdf(path: Path) -> Path:
    """One page: running text, a vector drawing (two boxes and a label) over 'Figure 1', running
    text, 'Table 1' over a table printed as a picture, running text."""
    pdf = pdfium.PdfDocument.new()
    page = pdf.new_page(612, 792)
    y = 72
    for _ in range(6):
        draw_text(pdf, page, BODY, 72, y)
        y += 13
    draw_rect(page, 150, 170, 300, 260, (220, 30, 30))  # the drawing: a red box, a blue box, a label
    draw_rect(page, 320, 190, 460, 260, (30, 30, 220))
    draw_text(pdf, page, "input", 200, 272, 8)  # an axis-like label just under the boxes
    draw_text(pdf, page, "Figure 1: Two boxes drawn as vector paths, side by side, with a label under the left "
                     "one.", 72, 292, 9)
    y = 320
    for _ in range(5):
        draw_text(pdf, page, BODY, 72, y)
        y += 13
    draw_text(pdf, page, "Table 1: A table that was pasted as a picture.", 72, 400, 9)
    draw_image(pdf, page, 150, 410, 450, 500, (30, 160, 60))
    y = 530
    for _ in range(5):
        draw_text(pdf, page, BODY, 72, y)
        y += 13
    page.gen_content()
    page.close()
    pdf.save(str(path))
    pdf.close()
    return path


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    root = tmp_path_factory.mktemp("figures")
    pdf = figure_pdf(root / "figs.pdf")
    options = CompileOptions()
    doc = compile_document(pdf, options)
    written = write_outputs(doc, root / "out", options)
    return doc, root / "out", written


def _colour_share(png: bytes, rgb, tol=40) -> float:
    import numpy as np

    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    return float((np.abs(px - np.array(rgb)) <= tol).all(axis=2).mean())


def test_vector_figure_is_cropped_and_linked_under_its_caption(compiled):
    doc, out, written = compiled
    md = (out / "document.md").read_text()
    assert "![Figure 1: Two boxes drawn as vector paths, side by side, with a label under the left one.](figures/fig-1.png)" in md
    png = (out / "figures" / "fig-1.png").read_bytes()
    im = Image.open(io.BytesIO(png))
    # 310 x ~105 points at 150 dpi (a few points of padding and the label)
    assert 620 <= im.width <= 700 and 200 <= im.height <= 260, im.size
    assert _colour_share(png, (220, 30, 30)) > 0.25 and _colour_share(png, (30, 30, 220)) > 0.2
    assert "figures/fig-1.png" in written


def test_table_printed_as_a_picture_is_cropped_below_its_caption(compiled):
    doc, out, _ = compiled
    md = (out / "document.md").read_text()
    assert "![Table 1: A table that was pasted as a picture.](figures/table-1.png)" in md
    png = (out / "figures" / "table-1.png").read_bytes()
    assert _colour_share(png, (30, 160, 60)) > 0.8


def test_bundle_and_chunks_keep_the_figures(compiled):
    doc, out, _ = compiled
    with zipfile.ZipFile(out / "bundle.zip") as z:
        names = z.namelist()
        assert {"figures/fig-1.png", "figures/table-1.png"} <= set(names)
        assert z.read("figures/fig-1.png") == (out / "figures" / "fig-1.png").read_bytes()
    md = (out / "document.md").read_text()
    chunks = [json.loads(x) for x in (out / "chunks.jsonl").read_text().splitlines()]
    fig = [ch for ch in chunks if "Two boxes drawn as vector paths" in ch["text"]]
    assert fig, "the caption is in a chunk"
    s, e = fig[0]["char_span"]
    assert "Two boxes drawn as vector paths" in md[s:e]


def test_ocr_text_keeps_its_placeholders(tmp_path):
    text = "── PAGE 1 / 1 ──\n\n# A paper\n\nSome text here.\n\n![](images/0.jpg)\n\nFigure 1: A plot.\n\nMore text.\n"
    options = CompileOptions()
    doc = compile_document(text.encode(), options, kind="ocr_text", name="x.txt")
    written = write_outputs(doc, tmp_path / "out", options)
    assert not (tmp_path / "out" / "figures").exists()
    assert not any(n.startswith("figures/") for n in written)
    assert "figures/" not in (tmp_path / "out" / "document.md").read_text()


def test_dpi_zero_turns_cropping_off(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXMILL_FIGURE_DPI", "0")
    pdf = figure_pdf(tmp_path / "f.pdf")
    doc = compile_document(pdf, CompileOptions(fast=True))
    write_outputs(doc, tmp_path / "out", CompileOptions(fast=True))
    md = (tmp_path / "out" / "document.md").read_text()
    assert "Two boxes drawn as vector paths" in md and "figures/" not in md
    assert not (tmp_path / "out" / "figures").exists()


def test_clusters_join_near_boxes_and_keep_far_ones_apart():
    boxes = [(10, 10, 20, 20), (22, 10, 30, 20), (100, 100, 110, 110), (31, 21, 40, 30)]
    got = sorted(clusters(boxes))
    assert got == [(10, 10, 40, 30), (100, 100, 110, 110)]


def test_a_caption_takes_the_drawing_above_and_a_table_only_a_picture_below():
    graphics = [(100, 100, 300, 200, False),  # figure drawing above "Figure 1"
                (100, 260, 300, 262.5, False), (100, 300, 300, 302, False),  # a text table's rules
                (100, 420, 300, 500, True)]  # a picture under "Table 2"
    captions = [("Figure", (100, 210, 300, 220)), ("Table", (100, 240, 300, 250)),
                ("Table", (100, 400, 300, 410))]
    got = dict(find_regions(captions, graphics, [], 612, 792))
    assert got[0] == (97, 97, 303, 203)
    assert 1 not in got  # the ruled text table is not a picture
    assert got[2] == (97, 417, 303, 503)


def test_sample_paper_has_nine_figure_images(corpus_dir, tmp_path):
    options = CompileOptions(fast=True)
    doc = compile_document(corpus_dir / "paper.pdf", options)
    written = write_outputs(doc, tmp_path / "out", options)
    pngs = sorted(n for n in written if n.startswith("figures/"))
    truth = json.loads((corpus_dir / "truth.json").read_text())
    assert len(pngs) >= truth["counts"]["figures"] == 9
    for n in pngs:
        im = Image.open(tmp_path / "out" / n)
        assert im.width >= 300 and im.height >= 150  # a readable picture, not a sliver
    md = (tmp_path / "out" / "document.md").read_text()
    assert all(f"]({n})" in md for n in pngs)


def test_a_caption_with_brackets_stays_one_image_and_reads_like_no_latex():
    from markdown_it import MarkdownIt

    from ctxmill.compile.quality import _ARTEFACTS
    from ctxmill.render.markdown import _image_line

    for caption in ["Accuracy of [14] and [15, 16].", "A lone ] and a lone [ here", "ends with \\"]:
        line = _image_line("Figure 2", caption, "figures/fig-2.png")
        tok = MarkdownIt().parseInline(line)[0].children
        assert [t.type for t in tok] == ["image"] and tok[0].attrGet("src") == "figures/fig-2.png", line
        assert tok[0].content.replace("\\", "").rstrip() == f"Figure 2: {caption}".replace("\\", "").rstrip()
    balanced = _image_line("Figure 2", "Accuracy of [14] and [15, 16].", "figures/fig-2.png")
    assert not any(rx.search(balanced) for _, rx, _ in _ARTEFACTS)  # no \[ for QA to flag as LaTeX
