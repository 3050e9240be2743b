"""Raw OCR lines and reference lists (issue 26, round thirteen, speed only): each rewritten step
gives what the step it replaced gave. The old steps are kept here as references; the new ones
are compared with them on generated inputs (hypothesis) and on a compile of generated raw OCR
text with a page marker every 40 lines."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import Counted
from ctxmill.compile import blocks, conservation, structure
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Block, Kind

# ------------------------------------------------------------------ conservation._find_words


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_words_are_the_patterns(text):
    # the bytes table and str.split() against the pattern they replaced, on any ASCII text
    for t in (text, text.lower()):
        assert conservation._find_words(t) == re.findall(r"[a-z0-9]+", t)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_other_text_keeps_the_unicode_pattern(text):
    low = text.lower()
    assert conservation._find_words(low) == re.findall(r"[^\W_]+", low)


# ------------------------------------------------------------------ blocks._as_blocks


def test_blocks_by_position_are_the_keyword_blocks():
    assert blocks._POSITIONAL  # (model.Block's fields as _as_blocks passes them: the fast road is the one tested)
    items = ["line one", Block(Kind.HEADING, "A heading", 3, level=2), "line two"]
    got = blocks._as_blocks(items, 3)
    want = [Block(Kind.PARAGRAPH, "line one", 3, attrs={"_line_texts": ["line one"]}), items[1],
            Block(Kind.PARAGRAPH, "line two", 3, attrs={"_line_texts": ["line two"]})]
    assert got == want
    assert got[1] is items[1]
    assert got[0].attrs is not got[2].attrs and got[0].attrs["_line_texts"] is not got[2].attrs["_line_texts"]


# ------------------------------------------------------------------ structure._sections


def _sections_page_ends_before(blocks_: list[Block]) -> list[int]:
    """The open sections' page_end as _sections set it before: a max() per open section, block
    by block (only the page ends: the rest of _sections did not change)."""
    stack: list[list] = []  # [level, page_end]
    out: list[list] = []
    current = None
    for b in blocks_:
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            while stack and stack[-1][0] >= (b.level or 2):
                stack.pop()
            sec = [b.level or 2, b.page]
            out.append(sec)
            stack.append(sec)
            current = sec
        if current is not None:
            for s in stack:
                s[1] = max(s[1], b.last_page)
    return [s[1] for s in out]


_KINDS = [Kind.PARAGRAPH, Kind.PARAGRAPH, Kind.HEADING, Kind.LIST_ITEM, Kind.TABLE, Kind.FIGURE, Kind.EQUATION]


@st.composite
def _block_runs(draw):
    out = []
    for i in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(_KINDS))
        page = draw(st.integers(1, 9))
        end = draw(st.one_of(st.none(), st.integers(1, 12)))
        b = Block(kind, f"text {i}", page, page_end=end, id=f"b{i}",
                  level=draw(st.one_of(st.none(), st.integers(1, 4))) if kind is Kind.HEADING else None)
        if kind is Kind.HEADING and draw(st.integers(0, 9)) == 0:
            b.attrs["title"] = True
        out.append(b)
    return out


@settings(max_examples=600, deadline=None)
@given(_block_runs())
def test_section_page_ends_are_the_per_block_max(blocks_):
    want = _sections_page_ends_before(blocks_)
    got = [s.page_end for s in structure._sections([_copy(b) for b in blocks_], 9)]
    # (_sections then stretches each to the next section's start: only ever later, as before)
    assert len(got) == len(want)
    assert all(g >= w for g, w in zip(got, want, strict=True))
    if blocks_:
        last = max(b.last_page for b in blocks_)
        stretched = _stretch(blocks_, want, last)
        assert got == stretched


def _stretch(blocks_: list[Block], ends: list[int], last_page: int) -> list[int]:
    """_sections' second pass (unchanged), over the page ends the old first pass gave."""
    secs = []
    for b in blocks_:
        if b.kind is Kind.HEADING and not b.attrs.get("title"):
            secs.append([b.level or 2, b.page])
    for s, e in zip(secs, ends, strict=True):
        s.append(e)
    after: list[list] = []
    for s in reversed(secs):
        while after and after[-1][0] > s[0]:
            after.pop()
        end = max(s[1], after[-1][1]) if after else last_page
        s[2] = max(s[2], min(end, last_page))
        after.append(s)
    return [s[2] for s in secs]


def _copy(b: Block) -> Block:
    return Block(b.kind, b.text, b.page, page_end=b.page_end, id=b.id, level=b.level, number=b.number,
                 attrs=dict(b.attrs))


# ------------------------------------------------------------------ structure._merge_continuations


def _continues_before(prev: Block, nxt: Block) -> bool:
    """structure._continues as it was (SENTENCE_END_RE searched over the whole text)."""
    a = prev.text.rstrip()
    c = nxt.text.lstrip()
    if not a or not c:
        return False
    if structure.SENTENCE_END_RE.search(a):
        return False
    if a.endswith("-") and c[:1].isalpha():
        return True
    return c[:1].islower() or (c[:1] in "(" and not a.endswith(".")) or (a.endswith(",") and not c[:1].isupper())


def _merge_before(blocks_: list[Block]) -> list[Block]:
    """_merge_continuations as it was (a _new_column call for every paragraph after another,
    the text joined at each page)."""
    out: list[Block] = []
    last_para = None
    for b in blocks_:
        if b.kind is Kind.PARAGRAPH and last_para is not None:
            prev = out[last_para]
            if (b.page != prev.page or last_para + 1 < len(out) or structure._new_column(prev, b)) \
                    and prev.kind in (Kind.PARAGRAPH, Kind.LIST_ITEM) and len(prev.text) >= 60 \
                    and not prev.attrs.get("title") and not prev.attrs.get("front") \
                    and all(x.kind in structure.FLOATS or x.kind is Kind.CODE or x.attrs.get("_foot_text")
                            for x in out[last_para + 1:]) and _continues_before(prev, b):
                if prev.text.endswith("-") and b.text[:1].islower():
                    prev.text = prev.text[:-1] + b.text.lstrip()
                else:
                    prev.text = prev.text.rstrip() + " " + b.text.lstrip()
                prev.page_end = b.last_page
                continue
        out.append(b)
        if b.kind in (Kind.PARAGRAPH, Kind.LIST_ITEM) and not b.attrs.get("_foot_text"):
            last_para = len(out) - 1
        elif b.kind in (Kind.HEADING, Kind.EQUATION):
            last_para = None
    return out


_TEXTS = ["a sentence that runs on and on over the break of the page without a stop at its end and",
          "continues here in lower case.", "A new paragraph.", "hyphen-", "ated word goes on", "(a bracket",
          "short", "ends with a comma, and it is long enough to be joined with what follows it here,",
          "a sentence that runs on and on over the break of the page without a stop at its end, ",
          ")", "-", "closes a quote and a bracket.\u201d)", "ends in a blank after a mark. ) ", "ends a line\n",
          "and then a long run-on part that goes on past sixty characters of text so that it is long -"]
_MKINDS = [Kind.PARAGRAPH] * 4 + [Kind.LIST_ITEM, Kind.HEADING, Kind.EQUATION, Kind.FIGURE, Kind.CODE,
                                  Kind.FOOTNOTE, Kind.CAPTION]


@st.composite
def _merge_runs(draw):
    out = []
    for i in range(draw(st.integers(0, 40))):
        kind = draw(st.sampled_from(_MKINDS))
        box = draw(st.one_of(st.none(), st.tuples(st.sampled_from([50.0, 120.0, 320.0]), st.sampled_from([80.0, 400.0]),
                                                  st.just(500.0), st.just(700.0))))
        b = Block(kind, draw(st.sampled_from(_TEXTS)), draw(st.integers(1, 3)), id=f"b{i}", bbox=box)
        flag = draw(st.integers(0, 12))
        if flag == 0:
            b.attrs["_foot_text"] = True
        elif flag == 1:
            b.attrs["title"] = True
        elif flag == 2:
            b.attrs["front"] = True
        out.append(b)
    return out


@settings(max_examples=600, deadline=None)
@given(_merge_runs())
def test_merge_continuations_is_the_old_loop(blocks_):
    a = structure._merge_continuations([_copy_box(b) for b in blocks_])
    b = _merge_before([_copy_box(b) for b in blocks_])
    assert [(x.id, x.text, x.page_end) for x in a] == [(x.id, x.text, x.page_end) for x in b]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text(alphabet="ab .!?:;,'\"\u201d\u2019)]\n\t-(", max_size=8), min_size=1, max_size=6))
def test_sentence_end_from_the_end_is_the_pattern(parts):
    # read from the end of the parts, as the pattern over the parts joined and right-stripped
    want = bool(structure.SENTENCE_END_RE.search("".join(parts).rstrip()))
    assert blocks.ends_sentence(parts) == want


def test_a_paragraph_running_on_over_every_page_is_read_once(monkeypatch):
    # 400 pages, each one line of a sentence with no stop: the paragraph runs on over every page
    # break. The sentence-end test read the whole paragraph so far at each break (quadratic:
    # ~40 million characters here; 13.5 CPU-s for 2,000 such pages, 1 MB)
    pages = 400
    text = "".join(f"\u2500\u2500 PAGE {p} / {pages} \u2500\u2500\n" + "word " * 99 + "word\n" for p in range(1, pages + 1))
    counting = Counted(structure.SENTENCE_END_RE)
    monkeypatch.setattr(structure, "SENTENCE_END_RE", counting)
    doc = compile_document(text.encode(), kind="ocr_text", name="runon.txt")
    paras = [b for b in doc.blocks if b.kind is Kind.PARAGRAPH]
    assert max(len(b.text) for b in paras) > 100 * 499  # (it did run on over the pages)
    assert counting.chars <= 4 * len(text)


def _copy_box(b: Block) -> Block:
    c = _copy(b)
    c.bbox = b.bbox
    return c


# ------------------------------------------------------------------ a whole compile


def _raw_ocr(rnd: random.Random, pages: int) -> bytes:
    kinds = ["line {i} of the page", "{i}", "Figure {i}: a caption", "1. Introduction", "References",
             "[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020.", "a line that runs on over the",
             "continued line in lower case {i}", "hyphen-", "ated {i}", "Page {i}", "İstanbul ı {i}", "x"]
    out = []
    for p in range(1, pages + 1):
        out.append(f"── PAGE {p} / {pages} ──")
        out.extend(rnd.choice(kinds).format(i=k) for k in range(40))
    return ("\n".join(out) + "\n").encode()


def test_compile_of_generated_raw_ocr_text_is_consistent():
    # the rewritten steps inside a compile: every word conserved as the pages hold them, the
    # sections' pages inside the document, chunks exact slices of document.md
    doc = compile_document(_raw_ocr(random.Random(13), 30), kind="ocr_text", name="gen.txt")
    cons = doc.attrs["conservation"]
    assert cons["words_lost"] == 0 and cons["words_in"] > 3000
    assert all(1 <= s.page_start <= s.page_end <= doc.pages for s in doc.sections)
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0]:c.char_span[1]] == c.text


# ------------------------------------------------------------------ blocks._join_runs (raw OCR lines)


def _ocr_page(lines: list[str]) -> bytes:
    return ("\u2500\u2500 PAGE 1 / 1 \u2500\u2500\n" + "\n".join(lines) + "\n").encode()


def _paragraphs(doc) -> list[str]:
    return [b.text for b in doc.blocks if b.kind is Kind.PARAGRAPH]


def test_raw_ocr_lines_that_run_on_are_one_paragraph():
    # the lines of a page as an engine wrote them: none ends a sentence, each next starts in lower
    # case. 100 one-line paragraphs before (each a block through every stage), one now
    lines = ["The opening words of a paragraph"] + [f"line {i} of the page that goes on" for i in range(99)]
    doc = compile_document(_ocr_page(["A Title Line"] + lines + ["The End"]), kind="ocr_text", name="lines.txt")
    paras = _paragraphs(doc)
    assert " ".join(lines) in paras
    assert "line 50 of the page that goes on line 51 of the page" in doc.markdown
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0]:c.char_span[1]] == c.text


def test_lines_that_end_a_sentence_stay_paragraphs():
    # an engine's paragraph a line (each ends in a stop), and a chain one line short of TINY_RUN
    stops = [f"paragraph {i} ends here." for i in range(100)]
    doc = compile_document(_ocr_page(["A Title Line"] + stops), kind="ocr_text", name="stops.txt")
    assert sum(t.startswith("paragraph ") for t in _paragraphs(doc)) == 100
    short = [f"part {i} goes on over the line" for i in range(blocks.TINY_RUN - 1)] + ["The end."]
    doc = compile_document(_ocr_page(["A Title Line."] + short), kind="ocr_text", name="short.txt")
    assert "goes on over the line" in doc.markdown and "goes on over the line part" not in doc.markdown


def test_markdown_lines_between_blank_lines_stay_paragraphs():
    # in Markdown a blank line is the writer's paragraph break: never joined
    text = "# Title\n\n" + "\n\n".join(f"part {i} goes on over the line" for i in range(100)) + "\n"
    doc = compile_document(text.encode(), kind="markdown", name="parts.md")
    assert sum(t.startswith("part ") for t in _paragraphs(doc)) == 100


def test_join_runs_groups_chains_only():
    items = ["head of the page"] + ["x goes on"] * 70 + ["stops."] + ["y goes on"] * 10 \
        + [Block(Kind.HEADING, "H", 1, level=2)] + ["z goes on"] * 601 + ["foot of the page"]
    out = blocks._join_runs(items, 1)
    # the page's first and last lines stay lines (a running head or foot sits there); the 70 lines
    # and the stop line they run into: one paragraph; the 10 stay; the 601: 256, 256 and 89
    assert out[0] == "head of the page" and out[-1] == "foot of the page"
    assert type(out[1]) is Block and out[1].attrs["_line_texts"] == ["x goes on"] * 70 + ["stops."]
    assert out[2:12] == ["y goes on"] * 10 and out[12] is items[82]
    assert [len(b.attrs["_line_texts"]) for b in out[13:-1]] == [256, 256, 89]
