"""Slide decks, round 36 (benchmarks/results/round36_tDeck_rule.md): a deck whose PDF outline names its frames
(Typst writes a bookmark for each slide's heading) has for each frame's title the line the outline names, though a
small label line stands above it; a frame continued on the next page under the same title is one heading; a page
read by OCR gives no title that does not read as words; a deck that sets its frames' titles in several sizes
(xaringan's '#', '##', '###') keeps them as levels. Every PDF here is built in the test; the outline and the OCR
mark are set on the page stream the PDF source reads, as sources/pdf.py and sources/ocr.py set them."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.compile.slides import reads_as_words
from ctxmill.model import OutlineEntry
from ctxmill.sources import load_source

WIDE = (800, 450)  # a 16:9 page


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def compiled(path, pages, outline=(), ocr=()):
    stream = load_source(make_pdf(path, pages, size=WIDE))
    stream.outline = [OutlineEntry(level, title, page) for level, title, page in outline]
    for p in stream.pages:
        p.ocr = p.number in ocr
    return compile_stream(stream, CompileOptions(chunks=False))


TITLE_PAGE = [("Five shapes of data and how to store them", 56, 120, 34, "Helvetica-Bold"),
              ("Ada Lovelace", 56, 200, 24)]
FRAMES = [("Rows", "Tables of rows"), ("Rows", "Keys and joins"), ("Columns", "Columns stored apart"),
          ("Columns", "What is fast and what is slow"), ("Graphs", "Nodes and edges"), ("Graphs", "Queries on paths")]


def labelled(label, title, k):
    """A slide: a small label at the top left, its title under it, body lines in the body size."""
    return [(label, 56, 36, 15), (title, 56, 80, 30, "Helvetica-Bold"),
            (f"The first point of slide {k} is told here.", 56, 150, 25),
            (f"The second point of slide {k} follows it.", 56, 190, 25),
            (f"{k} / 7", 700, 440, 15)]


def test_a_title_under_a_label_line_is_the_title_the_outline_names(tmp_path):
    # each slide prints a small label ('Rows') above its title: the label is the page's top line, and
    # the outline (a bookmark per slide heading) says the line under it is the slide's title
    pages = [TITLE_PAGE] + [labelled(label, title, k + 2) for k, (label, title) in enumerate(FRAMES)]
    outline = [(1, TITLE_PAGE[0][0], 1)] + [(2, title, k + 2) for k, (_, title) in enumerate(FRAMES)]
    doc = compiled(tmp_path / "deck.pdf", pages, outline)
    assert headings(doc) == [f"# {TITLE_PAGE[0][0]}"] + [f"## {title}" for _, title in FRAMES], headings(doc)
    assert "Rows" in doc.markdown  # the label stays the slide's text


def test_without_an_outline_the_label_deck_is_read_as_before(tmp_path):
    # the guard: no outline, no frame titles named; nothing is made up from the label lines
    pages = [TITLE_PAGE] + [labelled(label, title, k + 2) for k, (label, title) in enumerate(FRAMES)]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert not any(h.startswith("## ") and h[3:] in {"Rows", "Columns", "Graphs"} for h in headings(doc))


def plain(title, lines, k):
    return [(title, 20, 44, 24, "Helvetica-Bold")] + [(t, 40, 140 + 40 * i, 20) for i, t in enumerate(lines)] \
        + [(f"{k} / 9", 760, 440, 15)]


CONTINUED = [("Drawing by hand", ["Boxes placed with the mouse", "Arrows dragged one by one"]),
             ("Drawing by hand", ["A diagram tool saves a picture", "Changing it means drawing again"]),
             ("Diagrams as text", ["A file of nodes and edges", "A layout engine places them"]),
             ("Which one to choose", ["Text for what changes often", "A picture for a poster"]),
             ("Layout engines", ["Layered graphs drawn top down", "Orthogonal edges"])]


def test_a_frame_continued_under_its_title_is_one_heading(tmp_path):
    # the outline names 'Drawing by hand' at its first page only: the next page under the same title
    # continues that frame (touying's '---'), one heading for both pages
    pages = [TITLE_PAGE] + [plain(t, lines, k + 2) for k, (t, lines) in enumerate(CONTINUED)]
    outline = [(2, "Drawing by hand", 2), (2, "Diagrams as text", 4), (2, "Which one to choose", 5),
               (2, "Layout engines", 6)]
    doc = compiled(tmp_path / "deck.pdf", pages, outline)
    assert headings(doc) == [f"# {TITLE_PAGE[0][0]}", "## Drawing by hand", "## Diagrams as text",
                             "## Which one to choose", "## Layout engines"], headings(doc)
    assert "Changing it means drawing again" in doc.markdown


def test_two_frames_of_one_title_the_outline_names_twice_stay_two(tmp_path):
    # the guard: the outline names the title on both pages (two slides of one heading), two headings
    pages = [TITLE_PAGE] + [plain(t, lines, k + 2) for k, (t, lines) in enumerate(CONTINUED)]
    outline = [(2, "Drawing by hand", 2), (2, "Drawing by hand", 3), (2, "Diagrams as text", 4),
               (2, "Which one to choose", 5), (2, "Layout engines", 6)]
    doc = compiled(tmp_path / "deck.pdf", pages, outline)
    assert headings(doc).count("## Drawing by hand") == 2, headings(doc)


def test_an_ocr_line_that_reads_as_no_words_is_no_frame_title(tmp_path):
    # a page with no text of its own, read by OCR (a meme, a picture of a slide): its top line came out as
    # letters, brackets and signs; it is no frame title. The outline names the page's title: that is it.
    pages = [TITLE_PAGE] + [plain(t, lines, k + 2) for k, (t, lines) in enumerate(CONTINUED[2:])]
    pages.append([("me Melie=mal laa) itcieslitas)", 20, 44, 26), ("A BER (Tay", 150, 330, 29)])
    outline = [(2, "Diagrams as text", 2), (2, "Which one to choose", 3), (2, "Layout engines", 4),
               (2, "A picture of the moment", 5)]
    doc = compiled(tmp_path / "deck.pdf", pages, outline, ocr={5})
    assert headings(doc)[-1] == "## A picture of the moment", headings(doc)
    assert not any("laa)" in h for h in headings(doc))
    # without an outline: no title on that page, the OCR text stays text
    doc = compiled(tmp_path / "bare.pdf", pages, ocr={5})
    assert not any("laa)" in h for h in headings(doc)), headings(doc)
    assert "laa)" in doc.markdown


def test_reads_as_words():
    assert reads_as_words("Layout engines")
    assert reads_as_words("Что если переменных очень много?")
    assert reads_as_words("L'état de l'art, (en bref)")
    assert not reads_as_words("me Melie=mal laa) itcieslitas)")
    assert not reads_as_words("AQHHbIe GOABWOU PA3SMEOPHOCMU")  # a Cyrillic page read with a Latin model


SIZED = [("Plan of the lecture", 41), ("Alternatives to least squares", 34), ("Selecting predictors", 26),
         ("Shrinkage methods", 34), ("Ridge regression", 26), ("The lasso", 26),
         ("Plan of the lecture", 41), ("Reducing dimensions", 34), ("Principal components", 26)]


def test_a_deck_of_three_title_sizes_keeps_them_as_levels(tmp_path):
    # Markdown slides: '#', '##' and '###' titles print in three sizes; each is a level under the document title
    pages = [[("Lecture four: regularised regression", 100, 160, 46, "Helvetica-Bold"), ("Ada Lovelace", 180, 300, 26)]]
    pages += [[(t, 90, 54, z, "Helvetica-Bold"), ("The slide's first point is set in the body size.", 90, 160, 16),
               ("Its second point is set in the body size too.", 90, 200, 16)] for t, z in SIZED]
    doc = compiled(tmp_path / "deck.pdf", pages)
    marks = {41: "##", 34: "###", 26: "####"}
    assert headings(doc)[1:] == [f"{marks[z]} {t}" for t, z in SIZED], headings(doc)


def test_a_deck_of_one_title_size_keeps_one_level(tmp_path):
    # the guard: titles of nearly one size (one shrunk to fit) are one level
    sized = [(t, 30 if k % 3 else 28) for k, (t, _) in enumerate(SIZED)]
    pages = [[("Lecture four: regularised regression", 100, 160, 46, "Helvetica-Bold"), ("Ada Lovelace", 180, 300, 26)]]
    pages += [[(t, 90, 54, z, "Helvetica-Bold"), ("The slide's first point is set in the body size.", 90, 160, 16),
               ("Its second point is set in the body size too.", 90, 200, 16)] for t, z in sized]
    doc = compiled(tmp_path / "deck.pdf", pages)
    assert headings(doc)[1:] == [f"## {t}" for t, _ in sized], headings(doc)


def _speaker_deck(tmp_path, byline):
    pages = [[("Five shapes of data and how to store them", 56, 110, 34, "Helvetica-Bold"), (byline, 56, 200, 24),
              ("18 July 2025, a conference", 56, 260, 20)]]
    pages += [plain(t, lines, k + 2) for k, (t, lines) in enumerate(CONTINUED[2:])]
    return compiled(tmp_path / "deck.pdf", pages)


def test_a_one_word_speaker_with_pronouns_is_the_author(tmp_path):
    # a talk's byline: the speaker's one name and their pronouns ('Sam (they / he)'); the pronouns say
    # it is a person, the name is the author
    doc = _speaker_deck(tmp_path, "Sam (they / he)")
    assert [a.name for a in doc.metadata.authors] == ["Sam"]


def test_a_one_word_line_without_pronouns_names_no_one(tmp_path):
    # the guard: one word in brackets that are no pronouns ('Rows (part one)') is no byline
    doc = _speaker_deck(tmp_path, "Rows (part one)")
    assert doc.metadata.authors == []
