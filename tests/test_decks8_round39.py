"""Slide decks, round 39 (benchmarks/results/round39_tDeck_rule.md; round38_decks_heldout8.md's failures).
Every PDF here is built in the test."""

from __future__ import annotations

import re

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.sources import load_source

WIDE = (800, 450)  # a 16:9 page
TITLE = [("Reading decks as documents", 60, 150, 40, "Helvetica-Bold")]


def headings(doc):
    return [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]


def compiled(path):
    return compile_stream(load_source(path), CompileOptions(chunks=False))


def frame(title, k, top=40, size=30, body=18):
    """A frame: its title's baseline at (40, top), three body lines under it."""
    return [(title, 40, top, size, "Helvetica-Bold")] + \
        [(f"Point {j} of frame {k} is said in a line of body text.", 60, top + 80 + 34 * j, body) for j in range(3)]


def with_info(path, **fields):
    """The PDF at ``path`` with an Info dictionary of ``fields`` (Author, Creator, ...), added as an
    incremental update (a new object, an xref section for it, a trailer pointing back)."""
    data = path.read_bytes()
    size = int(re.findall(rb"/Size\s+(\d+)", data)[-1])
    root = re.findall(rb"/Root\s+(\d+ \d+ R)", data)[-1]
    prev = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    entries = b"".join(b"/%s(%s)" % (k.encode(), v.encode()) for k, v in fields.items())
    at = len(data) + 1
    obj = b"\n%d 0 obj\n<<%s>>\nendobj\n" % (size, entries)
    xref = len(data) + len(obj)
    tail = (b"xref\n%d 1\n%010d 00000 n\r\ntrailer\n<</Size %d/Root %s/Info %d 0 R/Prev %d>>\nstartxref\n%d\n%%%%EOF\n"
            % (size, at, size + 1, root, size, prev, xref))
    out = path.with_name("info-" + path.name)
    out.write_bytes(data + obj + tail)
    return out


def with_pictures(path, boxes):
    """A picture at each (page number, x0, top, x1, bottom, colour) of the PDF at ``path``."""
    import pypdfium2 as pdfium
    from PIL import Image

    pdf = pdfium.PdfDocument(str(path))
    for n, x0, top, x1, bottom, rgb in boxes:
        page = pdf[n - 1]
        img = pdfium.PdfImage.new(pdf)
        img.set_bitmap(pdfium.PdfBitmap.from_pil(Image.new("RGB", (64, 48), rgb)))
        img.set_matrix(pdfium.PdfMatrix().scale(x1 - x0, bottom - top).translate(x0, WIDE[1] - bottom))
        page.insert_obj(img)
        page.gen_content()
        page.close()
    out = path.with_name("pictures-" + path.name)
    pdf.save(str(out))
    pdf.close()
    return out


def test_frame_titles_numbered_by_hand_are_titles_not_list_items(tmp_path):
    # round38_decks_heldout8.md item 1: a deck whose frames are the steps of a how-to, titled '1. ...',
    # '2. ...', '3. ...' by hand; a title line the heading finder refuses (it opens in lower case, or in a
    # script without case) read as a list item ('2.' its number) and was lost,
    # while the list of those steps on an earlier frame (set in the body's size) stays a list
    steps = [("How it goes", 40, 40, 30, "Helvetica-Bold")] + \
        [(f"{k}. Step {k} of the guide in a line.", 60, 120 + 40 * k, 20) for k in (1, 2, 3)]
    pages = [TITLE, steps, frame("1. Download it", 1), frame("2. edit the ‘file’", 2),
             frame("Fonts to choose", 3), frame("3. compile it", 4)]
    doc = compiled(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE))
    assert headings(doc)[1:] == ["## How it goes", "## 1. Download it", "## 2. edit the 'file'",
                                 "## Fonts to choose", "## 3. compile it"], headings(doc)
    assert "2. Step 2 of the guide in a line." in doc.markdown, doc.markdown


def test_a_one_word_byline_the_pdf_names_as_its_author_is_the_author(tmp_path):
    # item 2: a talk signed with the speaker's handle alone ('Rivenhall'): one word is no name, unless the
    # PDF's own Author field says it is the author
    pages = [TITLE + [("Rivenhall", 60, 230, 22), ("http://blog.example.org", 60, 270, 16)]] + \
        [frame(f"Frame number {k}", k) for k in range(1, 5)]
    path = make_pdf(tmp_path / "deck.pdf", pages, size=WIDE)
    assert [a.name for a in compiled(with_info(path, Author="Rivenhall")).metadata.authors] == ["Rivenhall"]
    # the guard: without the Author field (or with another name in it) a one-word line is no byline
    assert compiled(path).metadata.authors == []
    assert compiled(with_info(path, Author="Someone Else")).metadata.authors == []


def test_a_byline_followed_by_its_affiliations_acronyms_is_the_name(tmp_path):
    # item 3: 'Jane Roe LAB TEAM UNIV' (a Markdown byline of links printed on one line): the acronyms after
    # the name are its affiliations, not part of it
    pages = [TITLE + [("Jane Roe LAB TEAM UNIV", 60, 230, 22)]] + [frame(f"Frame number {k}", k) for k in range(1, 5)]
    doc = compiled(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE))
    assert [a.name for a in doc.metadata.authors] == ["Jane Roe"]


def test_a_slides_smaller_sub_heads_are_headings_under_its_title(tmp_path):
    # item 5: Markdown slides ('###' title, '####' sub-heads) print two sub-heads on one slide in a size
    # between the title's and the body's; only the title was kept
    sub = [("Encoding", 40, 40, 34, "Helvetica-Bold"),
           ("Layered features", 40, 100, 29, "Helvetica-Bold"),
           ("One line of text under the first sub-head.", 40, 150, 24),
           ("Merging the patches", 40, 220, 29, "Helvetica-Bold"),
           ("One line of text under the second sub-head.", 40, 270, 24)]
    pages = [TITLE] + [frame(f"Frame number {k}", k, size=34, body=24) for k in (1, 2)] + [sub] + \
        [frame(f"Frame number {k}", k, size=34, body=24) for k in (3, 4)]
    doc = compiled(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE))
    assert headings(doc)[1:] == ["## Frame number 1", "## Frame number 2", "## Encoding", "### Layered features",
                                 "### Merging the patches", "## Frame number 3", "## Frame number 4"], headings(doc)


def test_two_picture_slides_under_one_title_are_two_slides_outside_tex(tmp_path):
    # item 6: a Marp deck shows two pictures on two slides of one title; taken for one frame's two builds
    # (Beamer's), the second slide's title was lost
    pages = [TITLE] + [frame(f"Frame number {k}", k) for k in (1, 2)] + \
        [[("The model", 40, 40, 30, "Helvetica-Bold")], [("The model", 40, 40, 30, "Helvetica-Bold")]] + \
        [frame(f"Frame number {k}", k) for k in (3, 4)]
    path = with_pictures(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE),
                         [(4, 60, 100, 500, 400, (40, 90, 160)), (5, 60, 100, 700, 400, (160, 90, 40))])
    marp = with_info(path, Creator="Created by Marp", Producer="Created by Marp")
    assert headings(compiled(marp)).count("## The model") == 2, headings(compiled(marp))
    # the guard: in a Beamer deck two such pages are one frame's builds (\includegraphics<2>), one title
    beamer = with_info(path, Creator="LaTeX with Beamer class", Producer="pdfTeX")
    assert headings(compiled(beamer)).count("## The model") == 1, headings(compiled(beamer))


def test_a_frame_title_centred_under_a_small_deck_title_line_is_its_title(tmp_path):
    # item 7: a theme's summary frame centres its title block on the page, the deck's title in small
    # print over it; the small line was taken for the page's top line and the frame had no title
    summary = [("Reading decks as documents", 40, 120, 8), ("Summary", 40, 145, 30, "Helvetica-Bold"),
               ("1. The first thing to take home.", 60, 190, 18), ("2. The second thing to take home.", 60, 220, 18)]
    pages = [TITLE] + [frame(f"Frame number {k}", k) for k in range(1, 5)] + [summary]
    doc = compiled(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE))
    assert headings(doc)[-1] == "## Summary", headings(doc)
