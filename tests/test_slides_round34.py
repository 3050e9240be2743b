"""Slide decks, round 34 (benchmarks/results/round34_deck_rule.md): frames built by replacement in a deck
that numbers nothing, `subtitle | title` frame-title lines, the title page's other large lines. Every PDF
here is built in the test."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document

WIDE = (453, 255)  # a 16:9 Beamer page


def bare_frame(title, lines):
    """A frame of a deck that prints no frame or page number (Beamer's default theme, no footline)."""
    return [(title, 20, 30, 14, "Helvetica-Bold")] + [(text, 30, 80 + 22 * k, 10, "Helvetica")
                                                      for k, text in enumerate(lines)]


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def test_a_frame_built_by_replacements_in_an_unnumbered_deck_is_one_heading(tmp_path):
    # D1 / C1: \only<1>{..}\only<2>{..} builds keep the frame's title and replace its body; the deck
    # prints no counter, so nothing but the title says the pages are one frame. Each build's text is
    # kept as it printed (the line a build shares with an earlier one too), only the title is not
    # repeated, and nothing is lost
    pages = [
        bare_frame("Games as numbers", ["A game is a number when one player always wins it."]),
        bare_frame("A value between", ["Blue moves first and wins, so the value is above zero."]),
        bare_frame("A value between", ["Red moves first and wins, so the value is below one."]),
        bare_frame("A value between", ["Second player wins the sum, so the value is one half."]),
        bare_frame("Hotter games", ["The first player to move wins a hot game outright."]),
        bare_frame("Questions", ["Thank you for listening to this talk."]),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = headings(doc)
    assert heads.count("## A value between") == 1, heads
    for text in ("above zero", "below one", "one half"):
        assert doc.markdown.count(text) == 1, (text, doc.markdown)
    assert doc.markdown.index("above zero") < doc.markdown.index("below one") < doc.markdown.index("one half")
    assert "Hotter games" in " ".join(heads)
    removed = [r for r in doc.attrs["removed"] if r["reason"] == "overlay-repeat"]
    assert sorted({r["page"] for r in removed}) == [3, 4], removed
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_two_frames_under_one_title_in_a_deck_that_numbers_its_pages_stay_two(tmp_path):
    # a deck that prints `n / N` on every page, a new number on each (Falkor's `5 / 11`, `6 / 11`): two
    # frames under one title holding two different listings are two frames, as before
    def numbered(title, lines, n):
        return bare_frame(title, lines) + [(f"{n} / 6", 420, 248, 6, "Helvetica")]

    pages = [
        numbered("Games as numbers", ["A game is a number when one player always wins it."], 1),
        numbered("Setup instructions", ["git submodule add the theme into the slides repository"], 2),
        numbered("Setup instructions", ["rsync the example folder and rename its main file"], 3),
        numbered("Hotter games", ["The first player to move wins a hot game outright."], 4),
        numbered("Cooling", ["Cooling a game by t takes t from each move."], 5),
        numbered("Questions", ["Thank you for listening to this talk."], 6),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    assert headings(doc).count("## Setup instructions") == 2, headings(doc)


def test_subtitle_bar_title_lines_give_the_frames_title(tmp_path):
    # D2 / C2: a theme that prints `subtitle | title` on the frame's title line (the Chinese sidebar
    # deck's `\insertframesubtitle \hfill | \insertframetitle`): the part after the bar is the frame's
    # title, as the deck itself shows: one title stands over two frames with two subtitles. The
    # subtitle stays as the frame's text
    pages = [
        [("Object oriented programming", 60, 100, 20, "Helvetica-Bold"), ("Nine G.", 150, 140, 10)],
        bare_frame("Prerequisites | Course overview", ["C programming, calculus and some English."]),
        bare_frame("Reading | Course overview", ["Programming Abstractions in C++, Eric Roberts."]),
        bare_frame("Grading | Requirements", ["The final examination counts seventy percent."]),
        bare_frame("Contact | About me", ["Mail the teacher for an appointment."]),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = headings(doc)
    assert heads.count("## Course overview") == 2, heads
    assert "## Requirements" in heads and "## About me" in heads, heads
    assert not [h for h in heads if "|" in h], heads
    for sub in ("Prerequisites", "Reading", "Grading", "Contact"):
        assert doc.markdown.count(sub) == 1, (sub, doc.markdown)
    assert doc.markdown.index("Course overview") < doc.markdown.index("Prerequisites")
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_bar_in_titles_is_kept_where_the_deck_does_not_say_which_side_is_the_title(tmp_path):
    # no title over two frames with two subtitles: a bar in a frame's title is its text
    pages = [
        [("Pipes and filters", 60, 100, 20, "Helvetica-Bold"), ("A. Speaker", 150, 140, 10)],
        bare_frame("stdin | grep", ["A filter reads its input and writes its output."]),
        bare_frame("grep | sort", ["Sorting needs the whole input before its first line."]),
        bare_frame("Summary", ["Small tools joined by pipes."]),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = headings(doc)
    assert "## stdin | grep" in heads and "## grep | sort" in heads, heads


def test_the_title_pages_other_large_lines_are_no_headings(tmp_path):
    # D3 / C3: the speaker's name set as large as the title on the title page (Stanford) is text,
    # not a section of the deck
    pages = [
        [("Some cool sounding buzzwords", 60, 90, 20, "Helvetica-Bold"),
         ("A less buzzy subtitle that explains the talk", 60, 120, 10),
         ("Sanha Cheong", 60, 160, 14, "Helvetica-Bold"), ("Department of Physics", 60, 185, 10)],
        bare_frame("Goals", ["The main goals for this talk are two."]),
        bare_frame("Example", ["A useful function in this template."]),
        bare_frame("Summary", ["Thank you for listening to this talk."]),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = headings(doc)
    assert not [h for h in heads if "Sanha" in h], heads
    assert "Sanha Cheong" in doc.markdown
    assert "## Goals" in heads and "## Summary" in heads, heads
