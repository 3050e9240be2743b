"""Slide decks (round30_deck_rule.md): a deck is told from a paper, and a frame's overlay builds
(Beamer's \\pause, \\item<2->, \\only<n>) are read once. Every PDF here is built in the test."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile import slides
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.sources import load_source

WIDE = (453, 255)  # a 16:9 Beamer page
FOOT = "A. Speaker  Decks as documents  {} / 6"


def frame(title, lines, n):
    rows = [(title, 20, 30, 14, "Helvetica-Bold")]
    rows += [(text, 30, 70 + 20 * k, 10, "Helvetica") for k, text in enumerate(lines)]
    return rows + [(FOOT.format(n), 150, 248, 6, "Helvetica")]


def deck_pages():
    bullets = ["First point builds the argument up.", "Second point adds another remark.",
               "Third point closes the list here."]
    return [
        frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
        # one frame over three pages: each build repeats the title and the points shown so far
        frame("Overlays", bullets[:1], 2),
        frame("Overlays", bullets[:2], 2),
        frame("Overlays", bullets, 2),
        # \only<1>{...} \only<2>{...}: a text each build shows once, beside a line both show
        frame("Only on one build", ["Both builds show this line.", "Shown on the first build only."], 3),
        frame("Only on one build", ["Both builds show this line.", "Shown on the second build only."], 3),
        # two frames with one body under two titles are two frames
        frame("Two columns", ["Lorem ipsum dolor sit amet, consetetur.", "Sed diam nonumy eirmod tempor."], 4),
        frame("Column break", ["Lorem ipsum dolor sit amet, consetetur.", "Sed diam nonumy eirmod tempor."], 5),
        frame("Questions", ["Thank you for listening."], 6),
    ]


def test_overlay_builds_of_a_frame_are_read_once(tmp_path):
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", deck_pages(), size=WIDE), CompileOptions())
    md = doc.markdown
    assert md.count("Overlays") == 1, md
    for text in ("First point builds", "Second point adds", "Third point closes", "Both builds show"):
        assert md.count(text) == 1, (text, md)
    # what a build shows once stays, in the order of the builds
    assert 0 < md.index("first build only") < md.index("second build only")
    # two titles over one body: both frames, both bodies
    assert md.count("Lorem ipsum dolor") == 2 and "Column break" in md
    # the repeats are counted as removed, nothing is lost
    removed = [r for r in doc.attrs["removed"] if r["reason"] == "overlay-repeat"]
    assert sorted({r["page"] for r in removed}) == [3, 4, 6]
    assert doc.attrs["conservation"]["words_lost"] == 0
    # an overlay build whose text all stands on the page before is no lost page
    assert not [c for c in doc.qa.checks if c.id == "page_text_lost"]


def test_a_paper_is_no_deck_and_keeps_its_pages(tmp_path):
    # portrait pages that repeat a title and a line page after page (a running head, a form) are a paper's
    pages = [[("Report on repeated lines", 72, 60, 14, "Helvetica-Bold"),
              ("The same sentence stands on every page of this report.", 72, 100, 10, "Helvetica"),
              (f"Page {k} has a sentence of its own as well.", 72, 120, 10, "Helvetica")] for k in range(1, 5)]
    path = make_pdf(tmp_path / "paper.pdf", pages)
    assert not slides.is_deck(load_source(path, CompileOptions()))
    doc = compile_document(path, CompileOptions())
    assert "slide_deck" not in doc.attrs
    assert not [r for r in doc.attrs["removed"] if r["reason"] == "overlay-repeat"]


def test_a_landscape_deck_is_a_deck(tmp_path):
    path = make_pdf(tmp_path / "deck.pdf", deck_pages(), size=WIDE)
    assert slides.is_deck(load_source(path, CompileOptions()))


def test_a_decks_section_slides_frames_and_contents(tmp_path):
    # title slide, a contents frame (numbered entries), a section slide (one line in the middle of the
    # page), frames with a title in the top band, a numbered list, a frame holding only its title (a
    # picture's frame), a closing "Questions?" slide
    pages = [
        [("Decks as documents", 120, 90, 20, "Helvetica-Bold"), ("A. Speaker", 180, 130, 11, "Helvetica")],
        frame("Outline", ["1 Motivation", "2 Method", "3 Results"], 1),
        [("Motivation", 180, 120, 20, "Helvetica-Bold")],
        frame("Why slides matter", ["Talks and lectures are what people bring most.",
                                    "2 Second numbered point of a list on the slide", "3 Third numbered point"], 2),
        frame("A picture alone", [], 3),
        [("Method", 180, 120, 20, "Helvetica-Bold")],
        frame("How we read them", ["Page by page, with the frame's title as the heading."], 4),
        [("Questions?", 180, 120, 20, "Helvetica-Bold")],
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads == ["# Decks as documents", "### Outline", "## Motivation", "### Why slides matter",
                     "### A picture alone", "## Method", "### How we read them"], heads
    assert "2 Method" in doc.markdown  # a contents entry stays, as text


def _with_pictures(path, boxes, size=WIDE, pixels=(64, 48), prefix="pictures-"):
    """Draw a picture (``pixels`` wide and high) at each (page number, x0, top, x1, bottom) of the PDF
    at ``path``; the result is saved beside it under ``prefix``."""
    import pypdfium2 as pdfium
    from PIL import Image

    pdf = pdfium.PdfDocument(str(path))
    for n, x0, top, x1, bottom in boxes:
        page = pdf[n - 1]
        img = pdfium.PdfImage.new(pdf)
        img.set_bitmap(pdfium.PdfBitmap.from_pil(Image.new("RGB", pixels, (40, 90, 160))))
        img.set_matrix(pdfium.PdfMatrix().scale(x1 - x0, bottom - top).translate(x0, size[1] - bottom))
        page.insert_obj(img)
        page.gen_content()
        page.close()
    out = path.with_name(prefix + path.name)
    pdf.save(str(out))
    pdf.close()
    return out


def test_a_frames_title_over_a_picture_stays_its_title(tmp_path):
    # a frame whose picture runs under its title band (a full-page screenshot bleeding over the top of
    # the page, as OsloMet p. 41): the title is the frame's, not a label drawn inside the picture
    pages = [frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
             frame("A first approach", [], 2),
             frame("Questions", ["Thank you for listening."], 3)]
    path = _with_pictures(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), [(2, 15, -5.5, 330, 236)])
    doc = compile_document(path, CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert "## A first approach" in heads, heads
    assert not [r for r in doc.attrs["removed"] if r["reason"] == "figure-text"]


def test_a_long_build_and_two_frames_under_one_title(tmp_path):
    # one frame over four pages whose \only text is replaced build by build (OsloMet's `Metrics`): the
    # last build shares most of the one before's lines but under half of all the frame showed; then two
    # frames under one title, a picture's credit and a list (OsloMet pp. 13/14): the title alone
    # shared is no build
    pages = [
        frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
        frame("Metrics", ["Tier 0: methodology metrics", "Tier 1: primitive detection", "Only on build one."], 2),
        frame("Metrics", ["Tier 0: methodology metrics", "Tier 1: primitive detection", "precision = P / G",
                          "recall = P / R"], 2),
        frame("Metrics", ["Tier 0: methodology metrics", "Tier 1: primitive detection", "error rate = E / G",
                          "its second formula"], 2),
        frame("Metrics", ["Tier 0: methodology metrics", "Tier 1: primitive detection", "pitch shift = S / M",
                          "Tier 2: structure reconstruction"], 2),
        frame("Why a new format?", ["Standards by XKCD, CC-BY-NC 2.5"], 3),
        frame("Why a new format?", ["Reason 1", "Fair evaluation must be possible.",
                                    "Whatever the system puts out."], 4),
        frame("Questions", ["Thank you for listening."], 5),
    ]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads.count("## Metrics") == 1, heads
    assert heads.count("## Why a new format?") == 2, heads
    for text in ("Tier 0: methodology", "Tier 1: primitive", "Only on build one", "Tier 2: structure", "pitch shift",
                 "Standards by XKCD", "Fair evaluation"):
        assert doc.markdown.count(text) == 1, (text, doc.markdown)
    assert doc.attrs["conservation"]["words_lost"] == 0



def _with_icons(path, icons, size=WIDE):
    """Draw a small picture at each (page number, x0, top, x1, bottom) of the PDF at ``path``: the
    item icons Beamer's bibliography template sets beside each entry's first line."""
    return _with_pictures(path, icons, size, pixels=(24, 24), prefix="icons-")


def test_a_decks_reference_list_is_cut_at_its_item_icons(tmp_path):
    # Beamer's bibliography (abbrv): every \newblock on a line of its own at one left edge, no label,
    # no hanging indent, an icon beside each entry's first line; the line above an icon may reach
    # into its height (the entry before's last line)
    entries = [["P. Erdos.", "A selection of problems and results in combinatorics.",
                "Cambridge Univ. Press, Cambridge, 1995."],
               ["R. Graham, D. Knuth, and O. Patashnik.", "Concrete mathematics.",
                "Addison-Wesley, Reading, MA, 1989."],
               ["D. Knuth.", "Two notes on notation.", "Amer. Math. Monthly, 99:403-422, 1992."]]
    rows, icons, y = [("References", 20, 30, 14, "Helvetica-Bold")], [], 60
    for entry in entries:
        icons.append((4, 20.8, y - 14, 45.4, y + 10.6))
        for line in entry:
            rows.append((line, 47.3, y, 9, "Helvetica"))
            y += 13.5
        y += 5
    pages = [frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
             frame("What it cites", ["Erdos and Graham wrote on combinatorics, Knuth on notation."], 2),
             frame("Questions", ["Thank you for listening."], 3),
             rows + [(FOOT.format(4), 150, 248, 6, "Helvetica")]]
    path = _with_icons(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), icons)
    doc = compile_document(path, CompileOptions())
    assert doc.attrs.get("slide_deck")
    assert [r.raw for r in doc.references] == [" ".join(e) for e in entries], [r.raw for r in doc.references]


def test_a_papers_reference_list_ignores_pictures_beside_it(tmp_path):
    # the same list in a paper (portrait pages): no deck, so pictures beside lines cut nothing
    entries = ["P. Erdos. A selection of problems.", "Cambridge Univ. Press, Cambridge, 1995.",
               "D. Knuth. Two notes on notation.", "Amer. Math. Monthly, 99:403-422, 1992."]
    body = [("Some text of the paper, long enough to be read as a paragraph of it.", 72, 100 + 14 * k, 10,
             "Helvetica") for k in range(8)]
    rows = body + [("References", 72, 250, 12, "Helvetica-Bold")]
    rows += [(t, 97.3, 280 + 20 * k, 9, "Helvetica") for k, t in enumerate(entries)]
    before = compile_document(make_pdf(tmp_path / "paper.pdf", [rows], size=(612, 792)), CompileOptions())
    path = _with_icons(make_pdf(tmp_path / "paper.pdf", [rows], size=(612, 792)),
                       [(1, 70.8, 280 - 14, 95.4, 280 + 10.6), (1, 70.8, 320 - 14, 95.4, 320 + 10.6)],
                       size=(612, 792))
    after = compile_document(path, CompileOptions())
    assert "slide_deck" not in after.attrs
    assert [r.raw for r in after.references] == [r.raw for r in before.references]


def test_frames_are_told_by_the_decks_frame_counter(tmp_path):
    # round31_deck_rule.md F1. A deck printing a frame counter (`5 / 32`) says which pages are one
    # frame: a build that shares only its title (OsloMet p. 8) is the frame's; two frames under one
    # title, each holding a title over a picture (OsloMet pp. 39/40), are two
    counted = [
        frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
        frame("A taxonomy", ["MIDI keeps the notes.", "MusicXML keeps the score."], 2),
        frame("A taxonomy", ["Missing elements in every one of them!"], 2),
        frame("A baseline: dataset", [], 3),
        frame("A baseline: dataset", [], 4),
        frame("Questions", ["Thank you for listening."], 5),
    ]
    doc = compile_document(make_pdf(tmp_path / "counted.pdf", counted, size=WIDE), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads.count("## A taxonomy") == 1, heads
    assert heads.count("## A baseline: dataset") == 2, heads
    for text in ("MIDI keeps", "MusicXML keeps", "Missing elements"):
        assert doc.markdown.count(text) == 1, (text, doc.markdown)
    assert doc.attrs["conservation"]["words_lost"] == 0



def test_a_frame_holding_only_a_figure_is_no_section_slide(tmp_path):
    # round31_deck_rule.md F3 (metropolis-infolines p. 19): a page whose one block is a figure with its
    # caption was read as a section slide, an empty `## ` heading that took the caption with it
    pages = [frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
             frame("Lists", ["Milk, eggs and potatoes are on the list."], 2),
             [("Figure 1: Rotated square from texample.net.", 120, 205, 9, "Helvetica"),
              (FOOT.format(3), 150, 248, 6, "Helvetica")],
             frame("Questions", ["Thank you for listening."], 4)]
    path = _with_pictures(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), [(3, 140, 70, 300, 190)])
    doc = compile_document(path, CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert all(h.strip("# ") for h in heads), heads
    assert "Rotated square from texample.net" in doc.markdown, doc.markdown
    assert doc.attrs["conservation"]["words_lost"] == 0


def _linked_deck(path, pages, size=WIDE):
    """A deck whose pages hold (text, x, y_from_top, size, font) rows and (x0, top, x1, bottom, page)
    internal links, as Beamer's head bars link each section's name to its first page."""
    w, h = size
    n = len(pages)
    objs = [b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[" + b" ".join(b"%d 0 R" % (5 + 3 * k) for k in range(n)) + b"]/Count %d>>" % n,
            b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>", b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica-Bold>>"]
    for k, (rows, links) in enumerate(pages):
        text = b" ".join(b"BT /F%d %d Tf %d %d Td (%s) Tj ET" % (2 if bold else 1, fs, x, h - y, t.encode())
                         for t, x, y, fs, bold in rows)
        annots = b" ".join(b"<</Type/Annot/Subtype/Link/Border[0 0 0]/Rect[%d %d %d %d]/Dest[%d 0 R/XYZ 0 %d 0]>>"
                           % (x0, h - bottom, x1, h - top, 5 + 3 * (dest - 1), h) for x0, top, x1, bottom, dest in links)
        objs += [b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 %d %d]/Resources<</Font<</F1 3 0 R/F2 4 0 R>>>>"
                 b"/Contents %d 0 R/Annots %d 0 R>>" % (w, h, 6 + 3 * k, 7 + 3 * k),
                 b"<</Length %d>>stream\n" % len(text) + text + b"\nendstream", b"[" + annots + b"]"]
    info = len(objs) + 1
    objs.append(b"<</Creator(LaTeX with Beamer class)/Producer(pdfTeX)>>")
    from _pdfgen import _assemble

    path.write_bytes(_assemble(objs, b"/Info %d 0 R" % info))
    return path


def test_sections_printed_only_in_the_head_bar_are_read_from_its_links(tmp_path):
    # round32_deck_rule.md N1: Warsaw / Berlin / miniframes print the sections (and the current
    # subsection) in a head bar only, each name a link to the section's first page; the bar is tall
    # enough to push the frame's title under the top fifth of the page (Warsaw: y 55 of 272)
    sections = [("Motivation", 8, 2), ("Method", 200, 5)]
    current = {2: ("Background", 2), 3: ("Background", 2), 4: ("Scope", 4), 5: ("Reading", 5), 6: ("Reading", 5)}
    frames = {2: "Why read slides", 3: "A second frame", 4: "What a frame holds", 5: "Links say where",
              6: "Closing remarks"}
    pages = []
    for n in range(1, 7):
        rows = [(name, x, 12, 6, False) for name, x, _ in sections]
        links = [(x - 1, 4, x + 40, 14, dest) for _, x, dest in sections]
        if n == 1:
            rows += [("Decks as documents", 60, 110, 20, True), ("A. Speaker", 60, 150, 11, False)]
        else:
            sub, dest = current[n]
            rows += [(sub, 8, 46, 6, False), (frames[n], 10, 66, 14, True),
                     (f"The body of frame {n} says one thing.", 20, 110, 10, False),
                     (f"A second line of frame {n} says more.", 20, 130, 10, False)]
            links.append((7, 38, 60, 48, dest))
        rows.append((f"A. Speaker  Decks as documents  {n} / 6", 150, 248, 6, False))
        pages.append((rows, links))
    doc = compile_document(_linked_deck(tmp_path / "deck.pdf", pages), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads[1:] == ["## Motivation", "### Background", "#### Why read slides", "#### A second frame",
                         "### Scope", "#### What a frame holds", "## Method", "### Reading",
                         "#### Links say where", "#### Closing remarks"], heads
    # the bar's own text is navigation (removed.json), not the frames' text
    assert "Background\n" not in doc.markdown.replace("### Background\n", "")
    assert {"page": 4, "reason": "navigation", "text": "Scope"} in doc.attrs["removed"], doc.attrs["removed"]
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_frame_continued_by_allowframebreaks_is_one_heading(tmp_path):
    # round32_deck_rule.md N4: Beamer titles each page of an allowframebreaks frame with the
    # continuation's numeral (Falkor pp. 13-24: `Complete Sources (advanced.tex) I` ... `XII`)
    pages = [frame("Why read slides", ["A deck is a document too, with a title on every frame."], 1),
             frame("Complete Sources I", ["line one of the listing", "line two of the listing"], 2),
             frame("Complete Sources II", ["line three of the listing", "line four of the listing"], 3),
             frame("Complete Sources III", ["line five of the listing", "line six of the listing"], 4),
             frame("Chapter V", ["A title that ends in a numeral alone is a title."], 5),
             frame("Questions", ["Thank you for listening."], 6)]
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads[1:] == ["## Complete Sources I", "## Chapter V", "## Questions"], heads
    lines = doc.markdown.splitlines()
    for text in ("Complete Sources II", "Complete Sources III", "line six of the listing"):
        assert lines.count(text) == 1, (text, doc.markdown)  # the later pages' titles stay their text
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_the_score_matches_headings_of_no_latin_letter_by_their_text(tmp_path):
    # benchmarks/corpus_score.py (round33_deck_rule.md M): a Chinese deck's headings normalised to ''
    # all matched one another, so any heading of ours counted as a hit of any truth heading
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from corpus_score import norm, score
    (tmp_path / "document.md").write_text("# 面向对象程序设计\n\n## 课程概况\n\nText.\n\n## 参考资料\n\nMore.\n")
    truth = {"title": "面向对象程序设计", "authors": [],
             "sections": [{"level": 1, "title": "课程概况"}, {"level": 1, "title": "关于我"}]}
    heads = score(tmp_path, truth)["headings"]
    assert (heads["recall"], heads["missing"], heads["extra"]) == (0.5, ["关于我"], ["参考资料"])
    assert norm("2.1 Über Abschnitte") == "ber abschnitte"  # Latin texts normalise as before


def test_sections_printed_only_in_contents_frames_are_read_from_their_links(tmp_path):
    # round33_deck_rule.md C1: Boadilla prints no section slide and no head bar; the \AtBeginSection
    # frame's \tableofcontents lists the sections (and the current one's subsections, indented), each
    # entry a link to the page where it starts. A subsection holding one frame of its own name is
    # that frame's heading, not a second one.
    toc = [("1 Motivation", 20, 2), ("Why read slides", 40, 3), ("A deck of sections", 40, 4),
           ("2 Method", 20, 5), ("Links say where", 40, 6)]
    frames = {3: "Why read slides", 4: "Frames hold text", 6: "Links say where"}
    pages = []
    for n in range(1, 7):
        rows, links = [], []
        if n == 1:
            rows += [("Decks as documents", 60, 110, 20, True), ("A. Speaker", 60, 150, 11, False)]
        elif n in (2, 5):
            rows.append(("Outline", 10, 30, 14, True))
            for k, (text, x, dest) in enumerate(toc):
                rows.append((text, x, 70 + 22 * k, 10, False))
                links.append((x - 1, 60 + 22 * k, x + 120, 73 + 22 * k, dest))
        else:
            rows += [(frames[n], 10, 30, 14, True), (f"The body of frame {n} says one thing.", 20, 110, 10, False),
                     (f"A second line of frame {n} says more.", 20, 130, 10, False)]
        rows.append((f"A. Speaker  Decks as documents  {n} / 6", 150, 248, 6, False))
        pages.append((rows, links))
    doc = compile_document(_linked_deck(tmp_path / "deck.pdf", pages), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads[1:] == ["## 1 Motivation", "#### Outline", "#### Why read slides", "### A deck of sections",
                         "#### Frames hold text", "## 2 Method", "#### Outline", "#### Links say where"], heads
    assert doc.attrs["conservation"]["words_lost"] == 0


def test_a_frame_title_repeated_on_many_frames_is_still_their_title(tmp_path):
    # round33_deck_rule.md C2: each \AtBeginSection outline frame is titled 'Outline' (RPI: 14 of 39
    # pages), which the running-head count took for furniture: no outline frame had a heading
    contents = ["1 Motivation", "2 Method", "3 Results"]
    bodies = {3: "Why read slides", 4: "What a frame holds", 6: "Links say where", 7: "Titles repeat",
              9: "What was found", 10: "Questions"}
    pages = [[("Decks as documents", 60, 110, 20, "Helvetica-Bold"), ("A. Speaker", 60, 150, 11, "Helvetica")]]
    for n in range(2, 11):
        if n in (2, 5, 8):
            rows = [("Outline", 20, 30, 14, "Helvetica-Bold")]
            rows += [(text, 40, 80 + 20 * k, 10, "Helvetica") for k, text in enumerate(contents)]
        else:
            rows = [(bodies[n], 20, 30, 14, "Helvetica-Bold"),
                    (f"The body of frame {n} says one thing here.", 30, 80, 10, "Helvetica"),
                    (f"A second line of frame {n} says more.", 30, 100, 10, "Helvetica")]
        pages.append(rows + [(f"A. Speaker  Decks as documents  {n} / 10", 150, 248, 6, "Helvetica")])
    doc = compile_document(make_pdf(tmp_path / "deck.pdf", pages, size=WIDE), CompileOptions())
    heads = [ln for ln in doc.markdown.splitlines() if ln.startswith("#")]
    assert heads[1:] == ["## Outline", "## Why read slides", "## What a frame holds", "## Outline",
                         "## Links say where", "## Titles repeat", "## Outline", "## What was found",
                         "## Questions"], heads
