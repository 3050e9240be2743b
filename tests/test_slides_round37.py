"""Slide decks, round 37 (benchmarks/results/round37_tDeck_rule.md): section slides are a family (one-line pages
set alike, larger than the body, each its own line); a lone one-line page is a statement slide, a frame at the
frames' level; a one-line page repeated through the deck is a divider, no heading; a deck's title size says which
line is a frame's title below the top fifth (Slidev centres a slide) and which top line of an untitled frame is
none; a Beamer outline adds the subsections a head bar does not show. Every PDF here is built in the test."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import OutlineEntry
from ctxmill.sources import load_source
from test_slide_decks import _linked_deck

WIDE = (800, 450)  # a 16:9 page
TITLE = [("Reading decks as documents", 60, 150, 40, "Helvetica-Bold"), ("Ada Lovelace", 60, 230, 22)]


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def compiled(path, pages, outline=(), size=WIDE, linked=False):
    made = _linked_deck(path, pages, size) if linked else make_pdf(path, pages, size=size)
    stream = load_source(made)
    if outline:
        stream.outline = [OutlineEntry(level, title, page) for level, title, page in outline]
    return compile_stream(stream, CompileOptions(chunks=False))


def frame(title, k, top=40, x=40, size=30):
    """A frame: its title at (x, top), three body lines in 18 pt under it."""
    return [(title, x, top, size, "Helvetica-Bold")] + \
        [(f"Point {j} of frame {k} is said in a line of body text.", 60, top + 60 + 34 * j, 18) for j in range(3)]


def one_line(text, size=48, top=200, x=120):
    return [(text, x, top, size, "Helvetica-Bold")]


NAMES = ["Why decks", "What a page holds", "Titles and bodies", "Builds and overlays", "Furniture",
         "Sections", "Closing"]


def test_a_lone_one_line_page_is_a_statement_slide_at_the_frames_level(tmp_path):
    # round36_decks_heldout6.md cause 4: a Slidev statement slide ('# Reclaim your content') set larger
    # than the titles stood a level above every frame, so every frame's level was off
    pages = [TITLE] + [frame(t, k) for k, t in enumerate(NAMES[:3])] + [one_line("Own your words")] \
        + [frame(t, k) for k, t in enumerate(NAMES[3:], 3)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES[:3]] + ["## Own your words"] \
        + [f"## {t}" for t in NAMES[3:]], headings(doc)


def test_section_slides_set_alike_are_sections(tmp_path):
    # the guard: a theme's section slides, two or more in one size, each its own name, stay sections
    pages = [TITLE, one_line("Background")] + [frame(t, k) for k, t in enumerate(NAMES[:3])] \
        + [one_line("Method")] + [frame(t, k) for k, t in enumerate(NAMES[3:], 3)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == ["## Background"] + [f"### {t}" for t in NAMES[:3]] + ["## Method"] \
        + [f"### {t}" for t in NAMES[3:]], headings(doc)


def test_a_divider_repeated_through_the_deck_is_no_heading(tmp_path):
    # cause 8: `\Huge Exemplo` printed alone before each example (dark-minted: 'Exemplo' x11, 'Caso real'
    # x6) were read as section slides; a unique statement set in the dividers' size is one of them
    pages = [TITLE]
    for k, t in enumerate(NAMES):
        pages.append(frame(t, k))
        if k in (1, 3, 5):
            pages.append(one_line("Example"))
    pages.append(one_line("Code is read more than it is written"))
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)
    assert doc.markdown.count("\nExample\n") == 3, doc.markdown  # the dividers stay the deck's text
    assert "\nCode is read more than it is written\n" in doc.markdown


def test_a_list_line_alone_on_a_page_is_no_section(tmp_path):
    # cause 5: a frame whose only text is one list line ('I Resultado Final:'), in the body size or a
    # little larger than the captions that set the body size, smaller than the frames' titles
    for size in (18, 21):
        pages = [TITLE] + [frame(t, k) for k, t in enumerate(NAMES[:4])] \
            + [[("Final result:", 60, 200, size)]] + [frame(t, k) for k, t in enumerate(NAMES[4:], 4)]
        doc = compiled(tmp_path / f"deck{size}.pdf", pages)
        assert headings(doc)[1:] == [f"## {t}" for t in NAMES], (size, headings(doc))
        assert "\nFinal result:\n" in doc.markdown


def test_a_title_below_the_top_fifth_in_the_title_size_is_the_title(tmp_path):
    # cause 3: Slidev centres a short slide's content, title and all: 'create vite app' stands at
    # y 227 of 810, under the top fifth, in the size every other title is set in
    tops = [40, 40, 180, 40, 200, 40, 40]
    pages = [TITLE] + [frame(t, k, top=tops[k]) for k, t in enumerate(NAMES)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)


def test_an_untitled_frame_s_first_line_is_no_title(tmp_path):
    # cause 5: Dresden's untitled frames continuing the one before open with a body line set a little
    # larger than the captions, indented where the list stands, not where the titles do
    pages = [TITLE] + [frame(t, k) for k, t in enumerate(NAMES[:3])] \
        + [[("Or to compose films where actors meet models.", 60, 40, 20),
            ("A picture of an actor stands under the line.", 60, 300, 18)]] \
        + [frame(t, k) for k, t in enumerate(NAMES[3:], 3)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t in NAMES], headings(doc)
    assert "Or to compose films where actors meet models." in doc.markdown


def test_a_beamer_outline_adds_the_subsection_the_head_bar_does_not_show(tmp_path):
    # cause 2 / 9 (Dresden): the head bar links the sections only; the current subsection's name stands
    # under the bar, small, as a link on its two pages (too few for a navigation slot) above the frame's
    # title; Beamer's outline names sections and the subsection
    sections = [("Motivation", 8, 2), ("Method", 200, 4)]
    frames = {2: "Why read slides", 3: "A frame of its own", 4: "What a frame holds", 5: "Inspiration first",
              6: "Links say where", 7: "Closing remarks"}
    pages = []
    for n in range(1, 8):
        rows = [(name, x, 12, 6, False) for name, x, _ in sections]
        links = [(x - 1, 4, x + 40, 14, dest) for _, x, dest in sections]
        if n == 1:
            rows += [("Decks as documents", 60, 110, 20, True), ("A. Speaker", 60, 150, 11, False)]
        else:
            if n in (5, 6):
                rows.append(("Models", 8, 22, 6, False))
                links.append((7, 18, 40, 26, n))
            rows += [(frames[n], 8, 40, 14, True), (f"The body of frame {n} says one thing.", 20, 90, 10, False),
                     (f"A second line of frame {n} says more.", 20, 110, 10, False)]
        rows.append((f"A. Speaker  Decks as documents  {n} / 7", 150, 248, 6, False))
        pages.append((rows, links))
    outline = [(1, "Motivation", 2), (1, "Method", 4), (2, "Models", 5)]
    doc = compiled(tmp_path / "deck.pdf", pages, outline, size=(453, 255), linked=True)
    assert headings(doc)[1:] == ["## Motivation", "#### Why read slides", "#### A frame of its own", "## Method",
                                 "#### What a frame holds", "### Models", "#### Inspiration first",
                                 "#### Links say where", "#### Closing remarks"], headings(doc)
