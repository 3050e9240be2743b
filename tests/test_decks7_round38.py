"""Slide decks, round 38 (benchmarks/results/round38_tDeck_rule.md, round37_decks_heldout7.md's failures).
Every PDF here is built in the test."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.sources import load_source

WIDE = (800, 450)  # a 16:9 page
TITLE = [("Reading decks as documents", 60, 150, 40, "Helvetica-Bold"), ("Ada Lovelace", 60, 230, 22)]
NAMES = ["Why decks", "What a page holds", "Titles and bodies", "Builds and overlays", "Furniture"]


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def compiled(path, pages, size=WIDE):
    return compile_stream(load_source(make_pdf(path, pages, size=size)), CompileOptions(chunks=False))


def frame(title, k, top=40, x=40, size=30):
    """A frame: its title's baseline at (x, top), three body lines in 18 pt under it."""
    return [(title, x, top, size, "Helvetica-Bold")] + \
        [(f"Point {j} of frame {k} is said in a line of body text.", 60, top + 80 + 34 * j, 18) for j in range(3)]


def test_a_title_flush_with_the_top_edge_is_the_frames_title(tmp_path):
    # round37_decks_heldout7.md item 1: a theme that sets its frame title flush with the page's top edge has
    # the title's line box start a point above the page; it was taken for a build's hidden line (drawn far
    # outside the page) and no frame had a title
    pages = [TITLE] + [frame(t, k, top=24) for k, t in enumerate(NAMES)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)


def test_a_line_drawn_far_outside_the_page_is_still_no_title(tmp_path):
    # the guard: a build's line not shown yet lies wholly outside the page, above the title
    pages = [TITLE] + [[("Shown on a later build only", 40, -900, 30, "Helvetica-Bold")] + frame(t, k)
                       for k, t in enumerate(NAMES)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)
