"""Round 36's front matter: a wide title in body type, a collaboration's byline, CJK bylines and
abstract labels in more languages, and QA's title test for titles in any script."""

from __future__ import annotations

from ctxmill.compile import front, metadata, quality
from ctxmill.model import Block, Kind, Line, Page, Span

BODY = "The model is solved for every case and the results are compared with the measurements of"


def line(text: str, x0: float, top: float, size: float = 10.0, bold: bool = False, marks: str = "",
         width: float | None = None) -> Line:
    """One line of one span (its width ``width``, or half the type size a character), a raised mark after it."""
    w = width if width is not None else 0.5 * size * len(text)
    spans = [Span(text=text, bbox=(x0, top, x0 + w, top + size), size=size, font="Sans", bold=bold)]
    if marks:
        spans.append(Span(text=marks, bbox=(x0 + w, top - 2, x0 + w + 4, top + 5), size=7.0, font="Sans",
                          superscript=True))
    return Line(text=text + marks, bbox=(x0, top, spans[-1].bbox[2], top + size), spans=spans)


def page(lines: list[Line]) -> Page:
    return Page(number=1, lines=lines, width=612, height=792)


def body(top: float) -> list[Line]:
    """Two columns of running text under the front matter: the text block is 36-576 pt."""
    return [line(BODY[:60], x, top + 12 * k, width=240) for k in range(8) for x in (36, 336)]


def test_a_long_bold_title_in_body_type_nearly_as_wide_as_the_text_block_is_the_title():
    # a title in the body's size set apart by bold capitals, centred, 0.88 of the 540 pt block
    # (narrower titles in body type were found before): its byline under it is read as well
    title = "WIDGETS: A LONG TITLE IN BOLD CAPITALS SET ON ONE LINE ACROSS THE PAGE"
    tp = front.read(page([
        line("Presented to the course team 2023", 395, 36, 9.1, bold=True, width=181),
        line(title, 68, 166, 10.0, bold=True, width=476),
        line("Jane Roe", 180, 201, 9.1, bold=True, marks="1", width=50),
        line(", John Doe", 234, 201, 9.1, bold=True, marks="1", width=55),
        line("Abstract", 36, 275, 9.1, bold=True, width=50),
    ] + body(290)), {}, 10.0)
    assert tp.title == title
    assert [n for n, _ in tp.authors] == ["Jane Roe", "John Doe"]


def test_a_wide_centred_line_in_the_body_face_is_still_no_title():
    # the same width in the body's regular face (an indented quotation, a line of running text)
    tp = front.read(page([line("a line of plain running text set in the body face across", 68, 166, 10.0,
                                width=476)] + body(290)), {}, 10.0)
    assert tp.title == ""


def test_a_speaker_on_behalf_of_a_collaboration_is_the_author():
    tp = front.read(page([
        line("Measurement of a Cross Section with the Detector", 83, 164, 17.2, bold=True),
        line("Jane Roe, on behalf of the ATLAS Collaboration", 83, 319, 10.9, bold=True, marks="∗"),
        line("University of Somewhere, Some National Lab", 83, 337),
        line("E-mail: jane.roe@example.org", 83, 350),
    ] + body(400)), {}, 10.0)
    assert [n for n, _ in tp.authors] == ["Jane Roe"]
    assert front._ON_BEHALF_RE.match("for the CMS Collaboration") and not front._ON_BEHALF_RE.match("Forrest Gump")


def test_a_japanese_byline_names_its_author_and_its_abstract_label_ends_the_byline():
    tp = front.read(page([
        line("文化資産としてのゲームの保存", 113, 105, 18.4, bold=True, width=18.4 * 14),
        line("羽田 久一", 265, 152, 11.3, marks="1", width=65),
        line("概要：コンピュータゲーム産業の発展とともに，ゲームの文化的価値は増大している．", 97, 204, 8.5, width=400),
        line("しながら，コンピュータゲームのうちコンシューマゲームと呼ばれる", 97, 217, 8.5, width=400),
    ] + body(400)), {}, 10.0)
    assert [n for n, _ in tp.authors] == ["羽田 久一"]
    assert front._clean_name("田中　さくら") == "田中 さくら"  # (an ideographic space; a given name in kana)
    assert front._clean_name("摘 要") is None and front._clean_name("目 次") is None  # two characters: a label
    assert front._is_abstract_line(front.TLine("概要：本稿では", [("概要：本稿では", [])], 8.5, False, 0, 8, 0, 90))


def test_the_abstract_in_the_documents_language_comes_first_and_ends_at_its_keywords():
    # abnTeX2: 'Resumo' (Portuguese) with its keywords, then the optional English 'Abstract'
    blocks = [Block(Kind.HEADING, "Resumo", 1, level=1),
              Block(Kind.PARAGRAPH, "Conforme a norma, o resumo no idioma do documento é elemento obrigatório.", 1),
              Block(Kind.PARAGRAPH, "Palavras-chave: latex. abntex. editoração de texto.", 1),
              Block(Kind.PARAGRAPH, "Abstract", 1),
              Block(Kind.PARAGRAPH, "According to the norm, an abstract in a foreign language is optional.", 1)]
    parts, empty = metadata._abstract_blocks(blocks, 2)
    assert [b.text for b in parts] == [blocks[1].text] and not empty
    # a second abstract's label alone ends the first (no keywords line between them)
    parts, _ = metadata._abstract_blocks(blocks[:2] + blocks[3:], 2)
    assert [b.text for b in parts] == [blocks[1].text]


def test_a_title_in_another_script_has_words():
    assert quality._title_problem("文化資産としてのコンピュータゲームの保存") is None
    assert quality._title_problem("Основы функционального программирования") is None
    assert quality._title_problem("12 345") == "no words"


def para(text: str, box: tuple[float, float, float, float], **attrs) -> Block:
    return Block(Kind.PARAGRAPH, text, 1, bbox=box, attrs=dict(attrs))


def test_an_abstract_broken_at_a_tall_glyph_gets_its_first_lines_back():
    # an unlabelled abstract whose second line holds a radical sign and a raised exponent taller
    # than the line: the paragraph is broken at each line it touches, and the part found first
    # opens mid-sentence ("presented. ...")
    blocks = [Block(Kind.HEADING, "A Measurement at the Collider", 1, level=1, attrs={"title": True}),
              para("Jane Roe, on behalf of the X Collaboration", (83, 319, 343, 331), front="authors"),
              para("University of Somewhere, Some National Lab", (83, 337, 378, 349)),
              para("The observation of the production of two jets in association with a boson pair using",
                   (105, 381, 490, 390)),
              para("139 fb^-1 of collision data at √ s = 13 TeV collected by the detector at the collider is",
                   (105, 388, 490, 407)),
              para("presented. Two different final states originating from the decays of the boson pair, one "
                   "containing four charged leptons, and the other two charged leptons and two neutrinos, are "
                   "considered.", (105, 411, 490, 435))]
    lead = metadata._broken_start(blocks, blocks[5])
    assert lead == blocks[3:5]
    # lines above that open no sentence (the one before them an address), or stand between other
    # edges, are no part of it
    assert metadata._broken_start(blocks[:3] + blocks[4:], blocks[5]) == []
    moved = para(blocks[3].text, (83, 381, 490, 390))
    assert metadata._broken_start(blocks[:3] + [moved] + blocks[4:], blocks[5]) == []


def test_a_radical_sign_drawn_taller_than_the_title_line_is_put_back_before_its_word():
    # the sign is a line of its own (no letters: furniture), its right edge at the start of "s"
    first = "Measurement of a Cross Section in Collisions at"
    second = "s = 13 TeV with the Detector"
    tp = front.read(page([
        line(first, 83, 212, 17.2, bold=True, width=406),
        line("√", 83, 223, 17.2, width=14.7),
        line(second, 97.7, 236.8, 17.2, bold=True, width=281.7),
        line("Jane Roe", 83, 319, 10.9, bold=True),
    ] + body(400)), {}, 10.0)
    assert tp.title == f"{first} √{second}"
    # in the middle of a line: before the word its right edge meets
    t = front.TLine("collisions at s = 13 TeV", [("collisions at s = 13 TeV", [])], 17.2, True, 236, 253, 100, 340)
    r = front.TLine("√", [("√", [])], 17.2, False, 223, 253, 222, 240)
    assert front._radical_back(t, [r]).text == "collisions at √s = 13 TeV"
    assert front._radical_back(t, [front.TLine("√", [("√", [])], 17.2, False, 100, 120, 222, 240)]).text == t.text
