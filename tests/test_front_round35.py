"""Round 35's front-matter cases (compile/front.py, compile/metadata.py, compile/logos.py), each a
small PDF made here with pdfium from one property of a real layout: a byline printing family
names in capitals ('Ethan DENG'), the LaTeX logo (a raised small 'A' between 'L' and 'TEX') in a
title and in running text, an unlabelled abstract under affiliations keyed by the byline's marks
(REVTeX aip's '1)Dept. ...'). The Chinese cases (an abstract under '摘 要', a numbered head
'1 模板介绍', CJK lines of one paragraph) are read from title-page lines, blocks and pages made in
the test: the standard PDF fonts the other cases draw with have no CJK glyphs, and no CJK font can
be assumed on a user's machine, so none of them needs one (nothing is skipped)."""

from __future__ import annotations

from ctxmill.compile import front, metadata
from ctxmill.compile.blocks import span_text
from ctxmill.compile.normalize import join_lines
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_stream
from ctxmill.model import Block, Kind, Line, Page, PageStream, Span
from test_front_round34 import compile_page, names  # (one title-page builder for the front tests)


def logo(word_before: str, x: float, y: float, size: float, font: str = "Times-Roman") -> list[tuple]:
    """'<word_before>L' 'A' 'TEX' as TeX sets \\LaTeX: the A in 0.7 of the size, raised, kerned
    over the L; 'TEX' right after it (its E lowered in TeX; level here)."""
    w = len(word_before + "L") * 0.5 * size
    return [(word_before + "L", x, y, size, font), ("A", x + w - 0.3 * size, y - 0.25 * size, 0.7 * size, font),
            ("TEX", x + w + 0.15 * size, y, size, font)]


def test_a_byline_with_family_names_in_capitals_names_its_authors(tmp_path):
    # two authors side by side, each over an affiliation line, the family name in capitals
    doc = compile_page(tmp_path, [
        ("A Working Paper Template for Economists", 140, 120, 17, "Times-Bold"),
        ("Ethan DENG", 200, 165, 10, "Times-Roman"), ("Dongsheng DENG", 320, 165, 10, "Times-Roman"),
        ("Fudan University", 195, 181, 10, "Times-Roman"), ("PA Technology", 325, 181, 10, "Times-Roman"),
        ("Abstract", 280, 260, 10, "Times-Bold"),
        ("This template is made for working papers, so that the author may think of the writing alone.",
         72, 285, 10, "Times-Roman"),
    ], body_top=330)
    assert names(doc) == ["Ethan DENG", "Dongsheng DENG"]


def test_family_in_capitals_is_told_from_an_organisation():
    assert front._clean_name("Ethan DENG") == "Ethan DENG"
    assert front._clean_name("Jean-Pierre DUPONT") == "Jean-Pierre DUPONT"
    # an acronym leading a word, following two words, a short one after a company's name, or
    # one that cannot be spoken: organisations, as before
    for org in ("ISM Connect", "Peter Staar IBM", "Meta AI", "Google NTT", "PA Technology"):
        assert front._clean_name(org) is None, org


def test_the_latex_logo_in_a_title_and_in_running_text_reads_latex(tmp_path):
    doc = compile_page(tmp_path, [
        ("An Elegant", 150, 120, 17, "Times-Bold"), *logo("", 250, 120, 17, "Times-Bold"),
        ("Template", 300, 120, 17, "Times-Bold"),
        ("Jane Roe", 260, 160, 10, "Times-Roman"),
        ("Abstract", 280, 220, 10, "Times-Bold"),
        ("This template is built on the article class of", 72, 245, 10, "Times-Roman"),
        *logo("", 280, 245, 10), ("and compiles with", 312, 245, 10, "Times-Roman"),
        *logo("pdf", 400, 245, 10), (".", 440, 245, 10, "Times-Roman"),
    ], body_top=330)
    assert doc.metadata.title == "An Elegant LaTeX Template"
    assert names(doc) == ["Jane Roe"]
    assert "class of LaTeX and compiles with pdfLaTeX" in doc.metadata.abstract
    text = "\n".join(b.text for b in doc.blocks)
    assert "[^A]" not in text and "<sup>A</sup>" not in text and "LTEX" not in text


def test_a_raised_a_that_is_no_logo_stays_a_mark():
    def sp(t, x0, x1, size=10.0, sup=False, top=100.0):
        return Span(text=t, bbox=(x0, top, x1, top + size), size=size, superscript=sup)

    # "Wang^A" then "TEXAS": a mark after a name that ends in no 'L' (and a word after it)
    line = Line(text="WangA TEXAS", bbox=(72, 100, 200, 110),
                spans=[sp("Wang", 72, 95), sp("A", 95, 100, 7, True, 97), sp(" TEXAS", 100, 140)])
    assert "[^A]" in span_text(line)
    # 'L' 'A' 'TEX' far apart: three things, not a logo
    line = Line(text="L A TEX", bbox=(72, 100, 200, 110),
                spans=[sp("L", 72, 78), sp("A", 110, 115, 7, True, 97), sp("TEX", 150, 170)])
    assert "LaTeX" not in span_text(line)


def test_an_unlabelled_abstract_under_keyed_affiliations_is_found(tmp_path):
    # REVTeX aip: the byline with its marks, the affiliations each opening with "n)", then the
    # abstract with no label over it
    rows = [("Evidence of Widget Segregation in Annealed Films", 120, 60, 14, "Times-Bold"),
            ("J. Roe,", 150, 80, 10, "Times-Roman"), ("1", 180, 77, 7, "Times-Roman"),
            ("K. Doe,", 186, 80, 10, "Times-Roman"), ("2", 216, 77, 7, "Times-Roman"),
            ("and L. Poe", 222, 80, 10, "Times-Roman"), ("1", 268, 77, 7, "Times-Roman")]
    affs = ["Dept. Electronic and Electrical Engineering, Centre for High-Resolution Imaging and Spectroscopy,",
            "University of Sheffield, North Campus, Wheeldon Street, Sheffield S3 7HQ, United Kingdom",
            "Institute of Materials Science, University of Stuttgart, Heisenbergstr 3, 70569 Stuttgart,",
            "Germany"]
    rows += [("1)", 80, 95, 7, "Times-Roman"), (affs[0], 88, 97, 9, "Times-Italic"),
             (affs[1], 88, 108, 9, "Times-Italic"),
             ("2)", 80, 119, 7, "Times-Roman"), (affs[2], 88, 121, 9, "Times-Italic"),
             (affs[3], 88, 132, 9, "Times-Italic")]
    abstract = ["Analytical scanning transmission electron microscopy has been applied to study widget",
                "films doped with terbium and annealed at high temperature. Correlation of the maps of the",
                "two elements proves that they co-segregate, replacing the host atoms, respectively. This",
                "agrees well with modelling which predicted the existence of such complexes in the films."]
    rows += [(t, 90, 160 + 11 * k, 10, "Times-Roman") for k, t in enumerate(abstract)]
    rows += [("I. INTRODUCTION", 140, 230, 10, "Times-Bold")]
    doc = compile_page(tmp_path, rows, body_top=250)
    assert names(doc) == ["J. Roe", "K. Doe", "L. Poe"]
    assert doc.metadata.abstract.startswith("Analytical scanning transmission electron microscopy")


def test_a_note_set_first_on_the_title_page_is_still_no_abstract():
    # a raised mark no author carries, over text naming no institution (memoir's note on the title)
    assert not metadata._keyed_affiliations("[^1] Hello, here is some text without a meaning, a long note.", {"1"})
    assert not metadata._keyed_affiliations("^◦ Hello, here is some text without a meaning.", {"1"})
    assert metadata._keyed_affiliations("^1)Dept. of Physics, University of Ulm, Germany", {"1", "2"})


def tl(text, top, size=10.0, x0=200.0):
    return front.TLine(text=text, pieces=[(text, [])], size=size, bold=False, top=top, bottom=top + size,
                       x0=x0, x1=x0 + 8 * len(text))


def test_a_chinese_abstract_head_and_numbered_head_end_the_byline():
    # '摘 要' (the two characters spaced apart, centred) is an abstract's label; '1 模板介绍' a
    # numbered section head: either ends the author region
    assert front._is_abstract_line(tl("摘  要", 263))
    assert front._is_abstract_line(tl("摘要：本文为说明文档。", 263))
    assert front.HEADING_RE.match("1 模板介绍") and front.HEADING_RE.match("1.1 全局选项")
    assert not front.HEADING_RE.match("2019 年 10 月 10 日")
    assert front._is_abstract_line(tl("Zusammenfassung", 263)) and front._is_abstract_line(tl("Résumé", 263))


def test_a_chinese_abstract_is_read_under_its_head_up_to_the_keywords():
    blocks = [Block(Kind.PARAGRAPH, "摘 要", 1), Block(Kind.PARAGRAPH, "本文为说明文档。此模板基于 LaTeX 的 article 类。", 1),
              Block(Kind.PARAGRAPH, "如果你有其他问题，可以留言。", 1), Block(Kind.PARAGRAPH, "关键词: 工作论文，模板", 1),
              Block(Kind.HEADING, "1 模板介绍", 1, level=1)]
    parts, empty = metadata._abstract_blocks(blocks, 3)
    assert [b.text for b in parts] == [blocks[1].text, blocks[2].text] and not empty


def test_trim_org_keeps_an_initial_with_its_stop():
    assert metadata._trim_org("Abimbola Patricia I. Popoola") == "Abimbola Patricia I. Popoola"
    assert metadata._trim_org("Peter Staar IBM Research") == "Peter Staar"


def test_a_subtitle_naming_a_document_part_is_no_author():
    # KOMA's subtitle under the title ("Zusammenfassung von Elementen": a summary of elements)
    assert front._clean_name("Zusammenfassung von Elementen") is None


def cjk_page(rows: list[tuple[str, float, float]], size: float = 10.9) -> Page:
    """A page of CJK lines as ctex sets them: (text, x0, top) each, one span a line, the lines
    1.68 times the type apart (ideographs each one character: no font with CJK glyphs is needed)."""
    lines = []
    for text, x0, top in rows:
        box = (x0, top, x0 + size * len(text), top + size)
        lines.append(Line(text=text, bbox=box, spans=[Span(text=text, bbox=box, size=size, font="FandolSong")]))
    return Page(number=1, lines=lines, width=595, height=842)


def test_cjk_lines_of_one_paragraph_are_joined_without_a_space():
    # two paragraphs, each a first line indented two ideographs; their lines wrap mid-phrase (no
    # sentence stop) and after a full-width comma; the second paragraph's first line steps right
    p1 = ["此模板定义了一个语言选项可以选择英文模式或者中文模式当选择中文模式时图表的标题引",
          "导词以及参考文献，定理引导词等信息会变成中文，你可以通过下面两种方式来选择语言模式，",
          "好。"]
    p2 = ["注意英文模式下由于没有添加中文宏包无法输入中文如果需要输入中文可以通过在导言区引",
          "入中文宏包或者加入宏包后自行设置字体。"]
    x0, right = 72.0, 72.0 + 10.9 * len(p2[0]) + 21.8
    rows = [(p1[0], x0 + 21.8, 100.0), (p1[1], x0, 118.3), (p1[2], x0, 136.6),
            (p2[0], x0 + 21.8, 154.9), (p2[1], x0, 173.2)]
    assert abs(x0 + 21.8 + 10.9 * len(p1[0]) - right) < 1 and abs(x0 + 10.9 * len(p1[1]) - right) < 1
    doc = compile_stream(PageStream(pages=[cjk_page(rows)], kind="pdf"), CompileOptions(fast=True))
    paras = [b.text for b in doc.blocks if b.kind is Kind.PARAGRAPH]
    assert paras == ["".join(p1), "".join(p2)]


def test_join_lines_puts_no_space_between_two_cjk_characters():
    assert join_lines(["专为工作论文写作而", "设计。This is", "Latin text，中文"]) == "专为工作论文写作而设计。This is Latin text，中文"


def test_a_labelled_byline_names_its_author_and_another_label_names_none(tmp_path):
    # an exam sheet: "Created by: Tommy O." (the family name an initial) under the title, then a
    # reviewer's labelled line that names someone in another role
    doc = compile_page(tmp_path, [
        ("Exam Title (Solution)", 72, 92, 17, "Times-Bold"),
        ("Created by: Tommy O.", 72, 112, 12, "Times-Roman"),
        ("Checked with: Anna Berg", 72, 150, 12, "Times-Roman"),
    ], body_top=200)
    assert names(doc) == ["Tommy O."]


def test_a_labelled_author_over_the_title_is_read_where_none_is_under_it(tmp_path):
    # lecture notes: a header box over the title names the course, the instructor and the scribe
    doc = compile_page(tmp_path, [
        ("University of Somewhere", 108, 108, 10, "Times-Roman"),
        ("CS 289 Communication Complexity", 108, 121, 10, "Times-Roman"),
        ("Instructor: Alexander Sherstov", 108, 142, 10, "Times-Roman"),
        ("Scribe: Pratik Chaudhari", 108, 155, 10, "Times-Roman"),
        ("Log-rank Conjecture and Nondeterministic Complexity", 140, 259, 17, "Times-Bold"),
    ], body_top=333)
    assert doc.metadata.title == "Log-rank Conjecture and Nondeterministic Complexity"
    assert names(doc) == ["Pratik Chaudhari"]


def test_a_power_on_a_one_letter_name_stays_in_the_abstract(tmp_path):
    # "M^2 and its variants ...": the raised 2 is the metric's name (M squared), no note's mark
    doc = compile_page(tmp_path, [
        ("An Alignment-Free Score for Error Correction", 120, 100, 16, "Times-Bold"),
        ("Jane Roe", 260, 130, 11, "Times-Roman"),
        ("Abstract", 280, 170, 11, "Times-Bold"),
        ("M", 90, 190, 10, "Times-Roman"), ("2", 99, 186, 7, "Times-Roman"),
        ("and its variants are the most widely used automatic metrics for error correction.", 105, 190, 10,
         "Times-Roman"),
    ], body_top=260)
    assert doc.metadata.abstract.startswith("M² and its variants are")
