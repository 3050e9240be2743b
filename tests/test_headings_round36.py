"""Round 36: paragraphs that Markdown would read as block syntax; headings the structure pass missed."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from ctxmill.render.markdown import escape_paragraph

_MD = MarkdownIt("commonmark")

# a paragraph's text, as the PDF's text layer may give it: each would be block syntax unescaped
BLOCK_STARTERS = [
    "```` j j",  # a fence (a glyph the text layer maps to '`')
    "```",
    "~~~ x",
    "#",  # an empty ATX heading
    "###",
    "# 3",
    "> quoted",
    "-",  # an empty list item
    "* item",
    "+",
    "1.",
    "3) third",
    "***",
    "_ _ _",
    "- - -",
    "===",
    "<div class='x'>",
    "<!-- a comment",
    "<table>",
    "<x>",
    "</x>",
    "[1]: http://example.org",
    "| a | b |",
]


def _only_paragraph(text: str) -> str:
    """The text of the one paragraph CommonMark reads from ``text``, or fail."""
    tokens = _MD.parse(text)
    kinds = [t.type for t in tokens if t.nesting >= 0 and t.type != "inline"]
    assert kinds == ["paragraph_open"], (text, kinds)
    return next(t for t in tokens if t.type == "inline").content


@pytest.mark.parametrize("text", BLOCK_STARTERS)
def test_paragraph_line_stays_a_paragraph(text):
    out = escape_paragraph(text)
    _only_paragraph(out)
    # its text is kept: the escape is a backslash before one ASCII punctuation mark
    assert out.replace("\\", "", 1) == text


def test_every_line_of_a_paragraph_is_escaped():
    text = "The matrix is\n#\nand the rows\n```` j j\nend"
    out = escape_paragraph(text)
    tokens = _MD.parse(out + "\n\n## After\n")
    assert [t.type for t in tokens if t.type.endswith("_open")] == ["paragraph_open", "heading_open"]


def test_a_setext_underline_inside_a_paragraph_is_escaped():
    for under in ("=", "==", "-", "---"):
        out = escape_paragraph("Total\n" + under)
        assert _only_paragraph(out).startswith("Total")


def test_plain_paragraphs_unchanged():
    for text in ("Results are shown in Table 2.", "1999 was a year", "#hashtag", "-5 degrees", "<sup>1</sup> MIT",
                 "[12] is cited", "3.5 times faster", "=", "*emphasis* here", "__init__ is called"):
        assert escape_paragraph(text) == text


def test_a_heading_after_a_fence_like_paragraph_survives(tmp_path):
    """The document.md of a document whose paragraph starts with a fence keeps the heading after it."""
    from ctxmill.model import Block, Kind
    from ctxmill.render.markdown import render_block

    parts = [render_block(Block(id="b1", kind=Kind.PARAGRAPH, text="```` j j 1.27 1.14", page=1)),
             render_block(Block(id="b2", kind=Kind.HEADING, level=2, text="6 Uncertainties", page=1))]
    tokens = _MD.parse("\n\n".join(parts) + "\n")
    heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert heads == ["6 Uncertainties"]


# --- B1: a numbered head whose title starts with a letter that has no case ---------------------

def _cjk_pdf(path, rows):
    """A one-page PDF: rows of (text, x, y_from_top, size, bold). Bold rows are set in a simple
    font whose codes 128+ print CJK characters through a ToUnicode map (what upLaTeX/dvipdfmx
    output gives a text layer); the others in Times-Roman."""
    from _pdfgen import _assemble

    cjk = sorted({ch for text, *_ in rows for ch in text if ord(ch) > 127})
    codes = {ch: 128 + i for i, ch in enumerate(cjk)}

    def encode(text):
        return "".join(f"{codes.get(ch, ord(ch)):02X}" for ch in text).encode()

    content = b""
    for text, x, y, size, bold in rows:
        content += b"BT /F%d %.1f Tf 1 0 0 1 %.2f %.2f Tm <%s> Tj ET\n" % (2 if bold else 1, size, x, 792 - y,
                                                                          encode(text))
    bf = "".join(f"<{codes[ch]:02X}> <{ord(ch):04X}>\n" for ch in cjk)
    bf += "".join(f"<{k:02X}> <{k:04X}>\n" for k in range(32, 127))
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def "
            "1 begincodespacerange <00> <FF> endcodespacerange "
            f"{len(cjk) + 95} beginbfchar\n{bf}endbfchar endcmap CMapName currentdict /CMap defineresource pop end end")
    widths = " ".join("1000" if k >= 128 else "556" for k in range(32, 128 + len(cjk))).encode()
    diffs = " ".join(f"{codes[ch]}/g{codes[ch]}" for ch in cjk).encode()
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R/F2 6 0 R>>>>>>",
        b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream",
        b"<</Type/Font/Subtype/Type1/BaseFont/Times-Roman>>",
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica-Bold/FirstChar 32/LastChar %d/Widths[%s]"
        % (127 + len(cjk), widths) + b"/Encoding<</Type/Encoding/Differences[" + diffs + b"]>>/ToUnicode 7 0 R>>",
        b"<</Length %d>>stream\n" % len(cmap) + cmap.encode() + b"\nendstream",
    ]
    path.write_bytes(_assemble(objs))
    return path


_JA_BODY = "Running text of the section, long enough to read as the body of a paper here and there."


def _ja_rows():
    rows, y = [], 100
    for head in ("1. はじめに", "2. 保存の方法", "2.1 家庭用の問題", "3. まとめ"):
        rows.append((head, 72, y, 11, True))
        y += 18
        for _ in range(4):
            rows.append((_JA_BODY, 72, y, 10, False))
            y += 12
        y += 10
    return rows


def test_numbered_heads_whose_titles_have_no_case(tmp_path):
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.sources import load_source

    pdf = _cjk_pdf(tmp_path / "ja.pdf", _ja_rows())
    assert "1. はじめに" in [ln.text for ln in load_source(pdf).pages[0].lines]
    doc = compile_document(pdf)
    tokens = _MD.parse(doc.markdown)
    heads = [(int(t.tag[1]), tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert heads == [(2, "1 はじめに"), (2, "2 保存の方法"), (3, "2.1 家庭用の問題"), (2, "3 まとめ")]


def test_a_numbered_cjk_sentence_is_no_head(tmp_path):
    from ctxmill.compile.pipeline import compile_document

    rows = _ja_rows()
    rows[0] = ("1. はじめに述べる。", *rows[0][1:])  # a sentence: ends in a full stop
    doc = compile_document(_cjk_pdf(tmp_path / "ja.pdf", rows))
    numbers = [b.number for b in doc.blocks if b.kind.value == "heading"]
    assert "1" not in numbers


# --- B2: a chapter-style label before a bookmark's title ----------------------------------------

_BODY = ("Running text of the section, long enough to read as the body of a paper and not as a title "
         "or a name, which goes on for a line or two and then some more.")


def _body(top: float, n: int = 6, x: float = 72) -> list[tuple]:
    return [(_BODY[:88], x, top + 12 * k, 10, "Times-Roman") for k in range(n)]


def _with_outline(tmp_path, pages, outline):
    from _pdfgen import make_pdf
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_stream
    from ctxmill.model import OutlineEntry
    from ctxmill.sources import load_source

    stream = load_source(make_pdf(tmp_path / "p.pdf", pages), CompileOptions())
    stream.outline = [OutlineEntry(title=t, level=lvl, page=p) for t, lvl, p in outline]
    return compile_stream(stream, CompileOptions(fast=True))


def test_a_labelled_appendix_head_is_its_bookmark(tmp_path):
    # abnTeX2's appendix and annex chapters print "APÊNDICE A – Title" and "ANEXO A – Title"; the
    # bookmark holds the title alone. Long titles (the label makes the block longer than any
    # unnumbered head) are still the bookmark's heading, the label printed with them
    t1 = "Nullam elementum urna vel imperdiet sodales elit ipsum pharetra ligula"
    t2 = "Cras non urna sed feugiat cum sociis natoque penatibus et magnis"
    pages = [[("1 Introdução", 72, 80, 14, "Helvetica-Bold"), *_body(100, 20)],
             [(f"APÊNDICE A – {t1}", 72, 80, 17, "Helvetica-Bold"), *_body(120, 8),
              (f"ANEXO A – {t2}", 72, 260, 17, "Helvetica-Bold"), *_body(300, 8)]]
    doc = _with_outline(tmp_path, pages, [("1 Introdução", 1, 1), (t1, 1, 2), (t2, 1, 2)])
    tokens = _MD.parse(doc.markdown)
    heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert f"APÊNDICE A – {t1}" in heads and f"ANEXO A – {t2}" in heads, heads
    titles = [(s.number, s.title) for s in doc.sections]
    assert ("A", t1) in titles and ("A", t2) in titles


def test_an_unlabelled_line_is_no_bookmark_match(tmp_path):
    # the same title after a word in lower case is a sentence, not the labelled head
    t1 = "Nullam elementum urna vel imperdiet sodales elit ipsum pharetra ligula"
    pages = [[("1 Introdução", 72, 80, 14, "Helvetica-Bold"), *_body(100, 20)],
             [(f"Veja A – {t1}", 72, 80, 10, "Times-Roman"), *_body(100, 8)]]
    doc = _with_outline(tmp_path, pages, [("1 Introdução", 1, 1), (t1, 1, 2)])
    assert not [s for s in doc.sections if s.title == t1]


# --- B4: a numbered head over a lead in its type ------------------------------------------------

def test_a_numbered_head_over_a_bold_lead_is_its_own_block(tmp_path):
    from _pdfgen import make_pdf
    from ctxmill.compile.pipeline import compile_document

    rows = [("1 Method", 72, 80, 12, "Helvetica-Bold"), *_body(100, 8),
            ("2 Results", 72, 210, 12, "Helvetica-Bold"), *_body(230, 4),
            ("2.1 Key Results", 72, 290, 9, "Helvetica-Bold"), ("Best options:", 72, 302, 9, "Helvetica-Bold"),
            ("Option 4: value 30.69", 90, 314, 10, "Times-Roman"), ("Option 6: value 24.44", 90, 326, 10, "Times-Roman"),
            *_body(350, 4)]
    doc = compile_document(make_pdf(tmp_path / "b4.pdf", [rows]))
    tokens = _MD.parse(doc.markdown)
    heads = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "2.1 Key Results" in heads, heads
    assert "Best options:" in doc.markdown
