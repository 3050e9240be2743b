"""Raw OCR lines (issue 26, round eleven): the passes over text input that read only the blocks or
lines one search finds (structure._hits, headings.toc_blocks, blocks._rule_lines, the OCR text
reader's markers) never skip one a rule would take, and the passes that work in C over the blocks
(normalize's first pass, conservation's page texts) give what the loops over blocks gave."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _ocrgen import ocr_pages
from ctxmill.compile import headings, structure
from ctxmill.compile.blocks import UNNUMBERED_HEADINGS
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, Kind

# characters every pass's first-character rules look at, and some that look like them
_ALPHABET = list("0123456789ABCTFLPcpasxlineof .:)([^]-–•*©\t\x0b\x1c\xa0\u3000é²İK’\n") + ["Chapter ", "Part ",
                                                                                          "Table ", "Figure "]
_TITLES = sorted(UNNUMBERED_HEADINGS) + ["appendix", "Appendices", "a.p.p.e.n.d.i.x", "References"]


@st.composite
def _lines(draw):
    if draw(st.booleans()):
        title = draw(st.sampled_from(_TITLES))
        pad = st.sampled_from(["", " ", ".", ":", " 1", "\t", "-", "é", "\n"])
        if draw(st.booleans()):
            title = title.upper()
        return draw(pad) + title.replace(" ", draw(st.sampled_from([" ", "  ", " - ", "_"]))) + draw(pad)
    return "".join(draw(st.lists(st.sampled_from(_ALPHABET), max_size=12)))


def _blocks(texts: list[str]) -> list[Block]:
    return [Block(Kind.PARAGRAPH, t, 1) for t in texts]


def _found(text: str, pattern) -> bool:
    """``text`` read as a block between two plain lines is among the pattern's hits."""
    return 1 in structure._hits(_blocks(["plain line one", text, "plain line two"]), pattern)


@settings(max_examples=3000, deadline=None)
@given(_lines())
def test_no_block_a_rule_takes_is_skipped(text):
    b = Block(Kind.PARAGRAPH, text, 1)
    if structure._heading_candidate(b, 0.0) is not None or structure._appendix_word(text):
        assert _found(text, structure._MAYBE_HEADING_RE)
    c = text[:1]
    if structure._CHAPTER_ONLY_RE.match(text.strip()):  # what _chapter_titles takes
        assert _found(text, structure._MAYBE_CHAPTER_RE)
    if c in structure._CAPTION_FIRST or c.isspace():
        assert _found(text, structure._MAYBE_CAPTION_RE)
    if text.startswith("[^"):
        assert _found(text, structure._MAYBE_NOTE_RE)
    if structure._list_start(text):
        assert _found(text, structure._MAYBE_LIST_RE)
    low = text.lower()
    if len(text) < 40 and headings._TOC_TITLE_LETTERS.match(low) and \
            headings._NOT_TITLE_CHAR_RE.sub("", low).strip() in headings.TOC_TITLES:
        assert _found(text, headings.MAYBE_TOC_TITLE_RE)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["line 3 of the page", "Contents", "TABLE OF CONTENTS", "List of Figures",
                                 "1 Introduction 3", "2 Method 7", "A.1 Proofs iv", "Table 2: x", "", "content",
                                 "3 Results 12\n4 Talk 15\n5 End 19", "Figures 4"]), max_size=30))
def test_toc_blocks_reading_the_hits_finds_the_same(texts):
    blocks = _blocks(texts)
    for k in range(0, len(blocks), 4):  # some of them with their lines kept, as the text road does
        blocks[k].attrs["_line_texts"] = blocks[k].text.split("\n")
    maybe = structure._hits(blocks, headings.MAYBE_TOC_TITLE_RE)
    assert headings.toc_blocks(blocks, 0.0, maybe) == headings.toc_blocks(blocks, 0.0)


def test_hits_map_matches_to_blocks():
    texts = ["line 1 of the page", "1 Introduction", "", "two\nlines", "Table 2: x", "plain", "Figure 1: y"]
    # (2: an empty text is read as a blank first character, a superset; 3: several lines)
    assert structure._hits(_blocks(texts), structure._MAYBE_CAPTION_RE) == [2, 3, 4, 6]
    one_line = [t for t in texts if "\n" not in t]
    assert structure._hits(_blocks(one_line), structure._MAYBE_CAPTION_RE) == [2, 3, 5]
    # (only "1 Introduction" can start a number or a keyword: "Table 2: x" and "Figure 1: y" cannot)
    assert structure._hits(_blocks(one_line), structure._MAYBE_HEADING_RE) == [1]
    assert structure._hits(_blocks(["line 0 of the page"] * 1000), structure._MAYBE_HEADING_RE) == []


def _ocr_text(rnd: random.Random, pages: int) -> str:
    """Raw OCR text whose lines start every way a rule of structure can fire on, among plain ones."""
    kinds = ["line {i} of the page", "The results on page {i} were stable.", "{i} Introduction", "{i}.{j} Method",
             "Table {i}: Sizes of the runs", "Figure {i}. The cache at rest", "- an item", "• a bullet {i}",
             "a) first point", "(ii) second point", "[^{i}] A note on the method.", "Chapter {i}", "Part II",
             "References", "APPENDIX", "A Proofs", "Appendices", "Acknowledgments", "  indented line {i}",
             "Références {i}", "ﬁnal line", "continued text without an end", "Contents", "1 Intro 3", "2 Body 7",
             "List of Tables", "3 Results {i}", "Table of Contents"]
    return ocr_pages(rnd, pages, kinds, share=0.4, j=(1, 4))


def _structure(stream_text: str, monkeypatch, every_block: bool):
    from ctxmill.compile import blocks as blocks_stage
    from ctxmill.compile import normalize
    from ctxmill.model import Document
    from ctxmill.sources.ocr_text import read_ocr_text

    with monkeypatch.context() as m:
        if every_block:  # the passes as they were: every block read
            m.setattr(structure, "_hits", lambda blocks, pattern: list(range(len(blocks))))
        doc = Document(stream=read_ocr_text(stream_text))
        opts = CompileOptions()
        blocks_stage.run(doc, opts)
        normalize.run(doc, opts)
        structure.run(doc, opts)
    return ([(b.kind, b.text, b.page, b.page_end, b.level, b.number, b.section_id, sorted(b.attrs)) for b in doc.blocks],
            [(s.id, s.level, s.title, s.number, s.page_start, s.page_end) for s in doc.sections])


@pytest.mark.parametrize("seed", range(12))
def test_structure_of_ocr_text_is_the_same_as_reading_every_block(seed, monkeypatch):
    text = _ocr_text(random.Random(seed), pages=3 + seed)
    fast = _structure(text, monkeypatch, every_block=False)
    assert fast == _structure(text, monkeypatch, every_block=True)
    assert any(k is Kind.HEADING for k, *_ in fast[0]) and any(k is Kind.LIST_ITEM for k, *_ in fast[0])


def test_structure_of_the_sample_ocr_text_is_the_same(corpus_dir, monkeypatch):
    path = corpus_dir / "ocr-pages-1-16.txt"
    if not path.exists():
        pytest.skip("no sample OCR text")
    text = path.read_text(encoding="utf-8")
    assert _structure(text, monkeypatch, every_block=False) == _structure(text, monkeypatch, every_block=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(list("ab &:/htp\t\\([]é\u00a0\x0b1") + ["http", "://", "\\(", "&amp;", "ﬁ"]),
                         max_size=20).map("".join), min_size=1, max_size=8))
def test_a_one_line_paragraph_is_its_clean_inline(texts):
    """normalize's inline test before clean_inline gives what clean_inline gives."""
    from ctxmill.compile import normalize
    from ctxmill.model import Document, PageStream

    doc = Document(stream=PageStream(pages=[], kind="ocr_text"))
    doc.blocks = [Block(Kind.PARAGRAPH, t, 1, attrs={"_line_texts": [t]}) for t in texts]
    normalize.run(doc, CompileOptions())
    for t, b in zip(texts, doc.blocks, strict=True):
        if b.kind is Kind.PARAGRAPH:
            assert b.text == normalize.clean_inline(normalize.fold(t).strip())


def test_merge_continuations_reads_the_same():
    """A paragraph runs on across a page break or a float, never into the next one on its page."""
    long = "a paragraph long enough to run on past the end of its page, without a stop"
    blocks = [Block(Kind.PARAGRAPH, long, 1), Block(Kind.PARAGRAPH, "continues here.", 2),
              Block(Kind.PARAGRAPH, long, 2), Block(Kind.PARAGRAPH, "on the same page", 2),
              Block(Kind.PARAGRAPH, long, 2), Block(Kind.FIGURE, "", 2), Block(Kind.PARAGRAPH, "after a float", 2),
              Block(Kind.LIST_ITEM, long, 3), Block(Kind.PARAGRAPH, "after a list item", 4)]
    out = structure._merge_continuations(blocks)
    assert [b.text for b in out] == [long + " continues here.", long, "on the same page", long + " after a float",
                                     Block(Kind.FIGURE, "", 2).text, long + " after a list item"]


def _pages_line_by_line(text: str) -> list[tuple[int, int | None, list[str]]]:
    """The reader's split as it was: every line asked of PAGE_MARKER."""
    from ctxmill.sources.ocr_text import PAGE_MARKER

    raw, number, total, cur = [], 1, None, []
    for line in text.split("\n"):
        m = PAGE_MARKER.match(line)
        if m:
            raw.append((number, total, cur))
            number, total, cur = int(m.group(1)), int(m.group(2)), []
            continue
        cur.append(line)
    raw.append((number, total, cur))
    return raw


_MARKERS = ["── PAGE 2 / 9 ──", " -- page 3 of 9 --", "\u00a0== PAGE 4 / 9 ==", "\t— PAGE 5 / 9 —\r", "- a list item",
            "── PAGE x / 9 ──", "text ── PAGE 6 / 9 ──", "━ PAGE 7/9 ━ ", "-", ""]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_MARKERS + ["line 1 of the page", "  ", "12", "é ligne", "\x0b", "\x1c- PAGE 8 / 9 -"]),
                max_size=25).map("\n".join))
def test_reader_finds_the_markers_line_by_line_would(text):
    from ctxmill.sources.ocr_text import read_ocr_text

    lines = text.split("\n")
    from ctxmill.sources import ocr_text

    found = [(k, m.groups()) for k, m in ocr_text._marker_lines(text, lines)]
    slow = [(k, ocr_text.PAGE_MARKER.match(x).groups()) for k, x in enumerate(lines) if ocr_text.PAGE_MARKER.match(x)]
    assert found == slow
    want = _pages_line_by_line(text)
    if any(s.strip() for _, _, ls in want for s in ls) or len(want) > 1:
        stream = read_ocr_text(text)
        kept = [[s.rstrip() for s in ls if s.strip()] for _, _, ls in want]
        got = [[ln.text for ln in p.lines] for p in stream.pages]
        # (the reader drops an empty first page and a printed page number at a page's end)
        assert all(g == k[:len(g)] for g, k in zip(got, kept[len(kept) - len(got):], strict=True))


def test_rule_lines_finds_the_lines_the_line_start_pattern_did():
    """blocks._rule_lines' one search (a break and a lookahead) finds the lines re.M's '^' finds."""
    import re

    from ctxmill.compile import blocks

    old = re.compile(r"^(?:[^\S\n]*(?:[`~<|!#$\[(\d/)\]}•●○◦▪‣∙·\-–*]|[a-z][.)]|(?:" + blocks._CODE_KEYWORDS + r")\b)"
                     r"|    |[^\n]*[=(){}\[\],;#]|[^\n]*:[^\S\n]*$)", re.M)  # (a colon counts at the line's end)
    rnd = random.Random(26)
    alpha = list("ab x1=(){}[]:,;#`~<|!$/-–*•\t.)é\u00a0\r\x0b") + ["    ", "if ", "while", "def", "import x"]
    for _ in range(3000):
        lines = ["".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 8))) for _ in range(rnd.randint(1, 12))]
        text = "\n".join(lines)
        want = {text.count("\n", 0, m.start()) for m in old.finditer(text)}
        assert blocks._rule_lines(lines) == want, lines


@pytest.mark.parametrize("seed", range(4))
def test_conservation_of_ocr_text_is_the_same_as_block_by_block(seed, monkeypatch):
    """conservation.measure's page texts read by map in C count what the loop over blocks counts."""
    from ctxmill.compile import conservation, pipeline
    from ctxmill.model import Document
    from ctxmill.sources.ocr_text import read_ocr_text

    doc = Document(stream=read_ocr_text(_ocr_text(random.Random(seed), pages=4 + seed)))
    opts = CompileOptions()
    for name, target, _ in pipeline.STAGES:
        if name == "conservation":
            break
        pipeline._resolve(target)(doc, opts)
    fast = conservation.measure(doc)
    monkeypatch.setattr(conservation, "_PAGE_END", lambda b: 0)  # (no None: the loop over blocks)
    assert conservation.measure(doc) == fast
    assert fast[0]


def _fold_one_by_one(blocks: list[Block]) -> None:
    """normalize.run's first loop as it was: every block in turn."""
    from ctxmill.compile.normalize import clean_inline, fold, html_table_rows

    for b in blocks:
        if b.text and not b.text.isascii():
            b.text = fold(b.text)
        attrs = b.attrs
        lts = attrs.get("_line_texts")
        if lts is not None and not all(map(str.isascii, lts)):
            attrs["_line_texts"] = [fold(t) for t in lts]
        if b.kind is Kind.TABLE:
            if attrs.get("_html"):
                attrs["rows"] = html_table_rows(attrs.pop("_html"))
            else:
                attrs["rows"] = [[clean_inline(c) for c in r] for r in attrs.get("rows", [])]
        caption = attrs.get("caption")
        if isinstance(caption, str):
            attrs["caption"] = clean_inline(caption)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["line 3", "ﬁnal", "e\u0301t\u00e9", "", "a &amp; b", "x  y"]),
                          st.sampled_from([None, ["line 3"], ["ﬁ ne", "two"], []]),
                          st.sampled_from(["p", "table", "html", "figure", "caption"])), max_size=12))
def test_fold_blocks_is_the_loop_over_blocks(specs):
    import copy

    from ctxmill.compile.normalize import _fold_blocks

    blocks = []
    for text, lts, kind in specs:
        attrs = {} if lts is None else {"_line_texts": list(lts)}
        if kind == "table":
            attrs["rows"] = [["ﬁ  a", "b &amp; c"]]
        elif kind == "html":
            attrs["_html"] = "<table><tr><td>ﬁ</td></tr></table>"
        elif kind in ("figure", "caption"):
            attrs["caption"] = "Figure 1:  the ﬁt" if kind == "figure" else None
        k = Kind.TABLE if kind in ("table", "html") else Kind.FIGURE if kind == "figure" else Kind.PARAGRAPH
        blocks.append(Block(k, text, 1, attrs=attrs))
    want = copy.deepcopy(blocks)
    _fold_one_by_one(want)
    _fold_blocks(blocks)
    assert [(b.text, b.attrs) for b in blocks] == [(b.text, b.attrs) for b in want]


def test_long_blocks_are_read_one_by_one():
    """Paragraphs of prose (longer than _HITS_MAX_CHARS on average): every block, no search."""
    para = "A paragraph of running prose, long enough that reading it block by block costs less. " * 3
    assert structure._hits(_blocks([para, "1 Introduction", para]), structure._MAYBE_HEADING_RE) == [0, 1, 2]
    assert structure._hits(_blocks(["line", "1 Introduction", "line"]), structure._MAYBE_HEADING_RE) == [1]
