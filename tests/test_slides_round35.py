"""Slide decks, round 35 (benchmarks/results/round35_tDeck_rule.md): a deck with no title page (its first page
a frame like the others), and a section's name printed beside the frame counter in the foot line on too few
pages to be called a running head. Every PDF here is built in the test."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document

WIDE = (453, 255)  # a 16:9 Beamer page


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def frame(title, lines, n, total):
    """A frame: its title in the head band, a few body lines, the frame counter in the foot."""
    return [(title, 8, 16, 14, "Helvetica-Bold")] + [(text, 30, 70 + 22 * k, 10, "Helvetica")
                                                     for k, text in enumerate(lines)] \
        + [(f"{n} / {total}", 430, 250, 6, "Helvetica")]


def test_a_deck_without_a_title_page_keeps_its_first_frame_title_at_the_frames_level(tmp_path):
    # a handout that opens on its first frame (no \titlepage): the first page's title is set where and as
    # every other frame's title is, so it is a frame title like theirs, one level for all of them, not the
    # document's title heading with every other frame under it
    titles = ["What the root file does", "The document class", "Loading packages", "Custom colours",
              "Boxes for content", "Including content files"]
    pages = [frame(t, [f"The {t.lower()} holds the setup of the lecture series.",
                       "Each line is explained on the slide that follows it."], k + 1, len(titles))
             for k, t in enumerate(titles)]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = headings(doc)
    assert heads == [f"## {t}" for t in titles], heads


def test_a_deck_with_a_title_page_keeps_it(tmp_path):
    # the same frames after a title page (the title larger and lower, centred): the title page stays the
    # document's title, the frames under it
    titles = ["What the root file does", "The document class", "Loading packages", "Custom colours"]
    pages = [[("Writing lectures in Beamer", 90, 110, 20, "Helvetica-Bold"), ("Ada Lovelace", 170, 150, 11)]]
    pages += [frame(t, [f"The {t.lower()} holds the setup of the lecture series."], k + 2, len(titles) + 1)
              for k, t in enumerate(titles)]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    assert headings(doc) == ["# Writing lectures in Beamer"] + [f"## {t}" for t in titles], headings(doc)
    assert doc.metadata.title == "Writing lectures in Beamer"


def test_a_section_named_in_the_foot_beside_the_counter_on_two_pages_is_furniture(tmp_path):
    # a theme printing 'section n/N' in its foot line: the sections of many frames are running heads, but
    # a section of two pages (its section slide and one frame) is too short for that; its foot line is the
    # same furniture (same place, size, counter total), and the section slide holds one line: a section
    total = 11

    def foot(section, n):
        return (f"{section} {n}/{total}", 4, 258, 6, "Helvetica")

    def sframe(section, title, n):
        return [(title, 14, 20, 20, "Helvetica-Bold"), (f"A first point about {title.lower()} on this frame.",
                                                          30, 80, 12), ("And a second point under it.", 30, 104, 12),
                foot(section, n)]

    def section_slide(section, n):
        return [(section, 140, 130, 20, "Helvetica-Bold"), foot(section, n)]

    pages = [[("How to use this template", 40, 120, 24, "Helvetica-Bold"), ("April 2016", 300, 250, 6)],
             section_slide("Introduction", 2), sframe("Introduction", "What is Beamer", 3),
             sframe("Introduction", "Presentation tools", 4), sframe("Introduction", "Using pandoc", 5),
             section_slide("Method", 6), sframe("Method", "My way to write slides", 7),
             section_slide("Results", 8), sframe("Results", "Lists and blocks", 9),
             sframe("Results", "Code highlighting", 10), sframe("Results", "Two columns", 11)]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=(363, 272)), CompileOptions())
    heads = headings(doc)
    assert "## Method" in heads and heads.index("## Method") + 1 == heads.index("### My way to write slides"), heads
    assert "Method 6/11" not in doc.markdown and "Method 7/11" not in doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0
