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


def frames():
    return [[(t, 40, 40, 30, "Helvetica-Bold")] + [(f"Point {j} of frame {k} is said here.", 60, 120 + 34 * j, 18)
                                                    for j in range(3)] for k, t in enumerate(NAMES)]


def test_supervisors_under_a_plural_label_are_no_authors(tmp_path):
    # item 6: a thesis defence's title page names the candidate, then 'Relatori' (Italian: the supervisors)
    # over two names, then the university and its department: one author, not four
    title = [("Reading decks as documents", 160, 60, 30, "Helvetica-Bold"), ("Ada Lovelace", 300, 150, 22),
             ("Relatori", 350, 200, 16), ("Dott. Charles Babbage", 300, 222, 16),
             ("Prof.ssa Mary Somerville", 295, 244, 16), ("Università di Torino", 320, 290, 12),
             ("Dipartimento di Informatica", 300, 306, 12), ("Torino, 7 ottobre 2022", 320, 340, 12)]
    doc = compiled(tmp_path / "deck.pdf", [title] + frames())
    assert [a.name for a in doc.metadata.authors] == ["Ada Lovelace"], doc.metadata.authors


def test_a_supervisor_label_over_one_name_leaves_the_next_author(tmp_path):
    # the guard: a singular label owns the one name under it; an author after it stays an author
    title = [("Reading decks as documents", 160, 60, 30, "Helvetica-Bold"), ("Ada Lovelace", 300, 150, 22),
             ("Grace Hopper", 300, 180, 22), ("Supervisor", 340, 230, 16), ("Dr. Charles Babbage", 300, 252, 16)]
    doc = compiled(tmp_path / "deck.pdf", [title] + frames())
    assert [a.name for a in doc.metadata.authors] == ["Ada Lovelace", "Grace Hopper"], doc.metadata.authors


def test_a_section_page_under_a_head_bar_and_its_first_frame(tmp_path):
    # item 4 (and the 'Parte N' pages): a university theme prints the current section's name in its head
    # bar, linked to the section's page, which holds a label ('Part 1') over the section's name; the
    # section's first frame is titled as the section. That frame was read as a build of the section page
    # (it repeats the name twice: the bar's and its title) and lost its title; the label ('Session 1') a frame
    from test_slide_decks import _linked_deck

    sections = {2: "Introduction", 5: "Method"}
    frames = {3: "Introduction", 4: "Scope of the work", 6: "Data we read", 7: "Analysis of pages"}
    pages = [([("Decks as documents", 60, 110, 20, True), ("A. Speaker", 60, 150, 11, False)], [])]
    for n in range(2, 8):
        start = max(k for k in sections if k <= n)
        rows, links = [(sections[start], 360, 7, 5, False)], [(358, 1, 400, 9, start)]
        if n in sections:
            rows += [(f"Session {len([k for k in sections if k <= n])}", 200, 95, 14, True), (sections[n], 190, 122, 14, True)]
        else:
            rows += [(frames[n], 10, 30, 14, True)] + [(f"Point {j} of the frame on page {n} is said in a line.", 20,
                                                        90 + 14 * j, 10, False) for j in range(4)]
        pages.append((rows, links))
    doc = compile_stream(load_source(_linked_deck(tmp_path / "deck.pdf", pages, size=(454, 255))),
                         CompileOptions(chunks=False))
    assert headings(doc)[1:] == ["## Introduction", "### Introduction", "### Scope of the work", "## Method",
                                 "### Data we read", "### Analysis of pages"], headings(doc)


def test_a_contents_frame_whose_entries_all_link_to_one_page_places_no_section(tmp_path):
    # item 5: a deck that declares every section before its first frame (they fill the contents frame only)
    # has every contents link point at one page; the sections were placed there, as headings over nothing
    from test_slide_decks import _linked_deck

    entries = [("Why read decks", 30), ("Pages and frames", 45), ("Builds", 30), ("Furniture", 45)]
    contents = [("Contents", 10, 30, 14, True)] + [(t, x, 80 + 25 * k, 10, False) for k, (t, x) in enumerate(entries)]
    links = [(x - 2, 70 + 25 * k, x + 150, 83 + 25 * k, 2) for k, (_, x) in enumerate(entries)]
    pages = [([("Decks as documents", 60, 110, 20, True), ("A. Speaker", 60, 150, 11, False)], []), (contents, links)]
    for n, t in enumerate(["Scope of the work", "Data we read", "Analysis of pages"]):
        pages.append(([(t, 10, 30, 14, True)] + [(f"Point {j} of frame {n} is said in a line.", 20, 90 + 14 * j, 10,
                                                  False) for j in range(4)], []))
    doc = compile_stream(load_source(_linked_deck(tmp_path / "deck.pdf", pages, size=(454, 255))),
                         CompileOptions(chunks=False))
    assert headings(doc)[1:] == ["## Contents", "## Scope of the work", "## Data we read", "## Analysis of pages"], \
        headings(doc)
