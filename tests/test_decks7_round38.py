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


# Helvetica-Bold's advance widths (1/1000 em) of the letters set one glyph at a time below
BOLD = {"O": 778, "u": 611, "t": 333, "l": 278, "i": 278, "n": 611, "e": 556, " ": 278, "C": 722, "o": 611,
        "d": 611, "T": 611, "a": 556, "b": 611, "s": 556, "F": 611, "r": 389, "g": 611, "h": 611, "m": 889,
        "B": 722, "W": 944, "c": 556, "k": 556, "p": 611, "v": 556, "y": 556, "R": 722}


def letter_spaced(text, x, y, size, track=0.01):
    """A line as a browser prints CSS letter-spacing: each glyph its own text object, one tiny equal gap
    between glyphs, and a space written in the text layer before every other glyph, drawn over the glyph
    before (as pdfium reads 'O u tli n e' from a Marp deck); a word space stays a word space."""
    out, k = [], 0
    for ch in text:
        if ch == " ":
            x += BOLD[" "] / 1000 * size + track * size
            continue
        if k % 2:
            out.append((" " + ch, x - BOLD[" "] / 1000 * size, y, size, "Helvetica-Bold"))
        else:
            out.append((ch, x, y, size, "Helvetica-Bold"))
        x += BOLD[ch] / 1000 * size + track * size
        k += 1
    return out


def test_letter_spaced_glyphs_read_as_their_words(tmp_path):
    # round37_decks_heldout7.md item 3: a Marp theme's letter-spaced titles arrived one glyph or syllable per
    # word ('O u tli n e'); glyphs that touch as a word's letters do are one word, a word space stays
    pages = [letter_spaced("Outline", 40, 60, 30) + letter_spaced("Road to the code", 40, 140, 30)]
    lines = [ln.text for ln in load_source(make_pdf(tmp_path / "spaced.pdf", pages, size=WIDE)).pages[0].lines]
    assert lines == ["Outline", "Road to the code"], lines


def test_titles_centred_on_every_slide_are_the_frames_titles(tmp_path):
    # item 2: Marp centres a slide's content vertically, so each frame's title stands below the top fifth,
    # each as high as its slide's content is short; set in one size at one left edge, they are the titles
    pages = [TITLE]
    for k, t in enumerate(NAMES):
        top = 130 + 25 * (k % 3)
        pages.append(letter_spaced(t, 40, top, 30)
                     + [(f"Point {j} of frame {k} is said in a line.", 60, top + 70 + 34 * j, 18) for j in range(k % 3 + 1)])
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)
