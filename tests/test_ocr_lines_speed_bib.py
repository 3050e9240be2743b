"""Raw OCR lines (issue 26, round twelve): references.mark_bibliography asks is_bibliography_title
only of the blocks one search of all the texts finds (references._maybe_bib_titles, through
ctxmill.linescan.text_hits), and steps outside a list from one heading, title paragraph or
untitled start to the next. Every text the test takes is among the hits (hypothesis), and the
blocks come out as the block-by-block loop (kept here as the reference, as it was at 542b635)
left them, on generated and real OCR text."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _ocrgen import ocr_pages
from ctxmill import linescan
from ctxmill.compile import references
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, BlockKind, Document, Kind

# --- the reference: mark_bibliography's loop over every block at 542b635 ------------------------

def _mark_bibliography_slow(blocks: list[Block]) -> None:
    """Mark the blocks of every bibliography in the document (``attrs["bibliography"]``).

    A bibliography starts at a heading or a short paragraph that is a bibliography title
    (a paragraph only when an entry follows it: the heading finder may have missed a small-caps
    "REFERENCES"; it becomes a heading here), or, when the document has no such title, at a
    run of entries numbered [1], [2], [3] in the second half of the text (REVTeX prints its
    list without one). It ends at the next heading of the same or a higher level, at an
    appendix, or at the end. Several bibliographies (one per chapter) are each marked; their
    blocks carry ``attrs["bib_part"]`` so the reference stage restarts label sequences.
    Visual lines with their left edges go to ``attrs["bib_lines"]`` for entry segmentation.
    """
    heads = [b.level for b in blocks if b.kind is BlockKind.HEADING and not b.attrs.get("title") and b.level]
    top = min(heads, default=2)
    references._split_tables_holding_a_list(blocks, top)
    # the short paragraphs that read as a bibliography title, found once (the loop below asks of
    # every one, the search for a title of the ones before it; no step of the loop changes a
    # later block's text or kind): a page of raw OCR text has a paragraph per line, and a cache
    # of 4,096 titles holds few of 47,000 lines. Longer ones are asked only until a title is found
    paragraph = BlockKind.PARAGRAPH
    titled = {i for i, b in enumerate(blocks)
              if b.kind is paragraph and len(b.text) <= 40 and references.is_bibliography_title(b.text)}
    found = any(
        (b.kind is BlockKind.HEADING and references.is_bibliography_title(b.attrs.get("_title") or b.text))
        or (b.kind is paragraph and (i in titled if len(b.text) <= 40 else references.is_bibliography_title(b.text))
            and references._entry_follows(blocks, i))
        for i, b in enumerate(blocks)
    )
    start_at = None if found else _untitled_start_slow(blocks)
    inside = False
    level = 2
    part = entries = 0
    list_box = None  # the type and width of a list's first entry
    for i, b in enumerate(blocks):
        if i == start_at:
            inside, level, part, entries = True, top, part + 1, 0
        if b.kind is BlockKind.HEADING:
            if references.is_bibliography_title(b.attrs.get("_title") or b.text):
                if references._first_on_page(blocks, i) and (part and ((inside and entries) or not references._entry_follows(blocks, i))
                                                  or not part and references._later_list(blocks, i)):
                    # the running head of a long list, read as a heading ("Bibliography"),
                    # also on the pages of whatever follows the list, or before it: "6
                    # REFERENCES" atop the page whose body ends the text before the list
                    b.kind = BlockKind.FURNITURE
                    b.attrs["furniture"] = "running_header"
                    continue
                if not inside and references._later_list(blocks, i):
                    # running text under it and the list under a later one: a section about
                    # references (tufte-handout's "References" b-head on citing), not the list
                    continue
                inside, level, part, entries = True, b.level or 2, part + 1, 0
                b.attrs["bibliography"] = True
                continue
            number = b.number or ""
            if inside and ((b.level or 2) <= level or number[:1].isalpha() or references._APPENDIX_START.match(b.text)):
                inside = False
            continue
        if i in titled and len(b.text) <= 40:
            if inside or (part and references._first_on_page(blocks, i) and not references._entry_follows(blocks, i)):
                # the running head of a long list ("Bibliography", "Bibliography 62")
                b.kind = BlockKind.FURNITURE
                b.attrs["furniture"] = "running_header"
                continue
            # "Bibliography 61" is a contents line or a running head unless a labelled entry follows
            numbered_line = bool(re.search(r"\d\s*$", b.text))
            if references._entry_follows(blocks, i, labelled=numbered_line):
                entries = 0
                b.kind = BlockKind.HEADING
                b.level = top
                b.number = None
                b.text = re.sub(r"(?:\s+\d{1,4})+$", "", b.text.strip())
                b.attrs["_title"] = b.text
                b.attrs["bibliography"] = True
                inside, level, part = True, top, part + 1
                continue
        if inside and b.kind is BlockKind.TABLE and b.bbox and references._rows_read_like_entries(b.attrs.get("rows") or []):
            # a page of the list found as a table (two columns of lines that align): it is
            # read from the page's lines like any other region of the list
            b.kind = BlockKind.PARAGRAPH
            b.text = " ".join(c for row in b.attrs.pop("rows") for c in row if c.strip())
            b.attrs["bib_region"] = ""
        if not inside or b.kind not in (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM):
            continue
        if b.kind is BlockKind.PARAGRAPH and len(b.text) < 80 and references._APPENDIX_START.match(b.text):
            inside = False
            continue
        if b.kind is BlockKind.PARAGRAPH and (b.attrs.get("_mono") and " " in b.text.strip()
                                              and not references._URL_BIT.search(b.text)
                                              or b.attrs.get("_rotated") or references._FLOAT_LABEL.match(b.text)):
            # a float set on the list's page: its caption ("Figure 8: ..."), a code line, a plot's
            # turned labels. An entry's URL, or its tail broken onto a line of its own in
            # typewriter type ("1007/s10902-009-9150-9": no space in it), stays
            continue
        size = b.attrs.get("_size")
        if b.kind is BlockKind.PARAGRAPH and list_box and b.bbox and b.bbox[1] > 0.9 * (b.attrs.get("_page_height") or 792) \
                and ((size or 0) < 0.85 * list_box[0] or b.bbox[2] - b.bbox[0] > 1.5 * list_box[1]):
            # the page's foot under the list, in smaller type or across both columns ("Smith et
            # al. | Running title here bioRxiv | 3", a running foot the furniture finder left): no entry
            continue
        if b.kind is BlockKind.LIST_ITEM:
            if b.number:
                b.text = f"{b.number} {b.text}" if not b.number.startswith("[") else b.text
            elif b.bbox is None:
                b.attrs["bib_item"] = True  # a Markdown/OCR list item: one entry, labelled or not
            b.kind = BlockKind.PARAGRAPH
        b.attrs["bibliography"] = True
        b.attrs["bib_part"] = part
        if not entries and size and b.bbox:
            list_box = (size, b.bbox[2] - b.bbox[0])
        entries += 1
        lines = references._visual_lines(b)
        if lines:
            b.attrs["bib_lines"] = lines


def _untitled_start_slow(blocks: list[Block]) -> int | None:
    """The first block of a list numbered [1], [2], [3]... in the second half of the document,
    or of a run of alphabetic labels in alphabetical order ("[AKV13] ...", "[BC11] ...", "[BJJS11]
    ...": an amsart or elsarticle thebibliography printed without a title)."""
    half = len(blocks) // 2
    for i in range(half, len(blocks)):
        if blocks[i].kind is not BlockKind.PARAGRAPH or "[" not in blocks[i].text[:3]:
            continue
        if re.match(r"\s*\[1\]\s", blocks[i].text):
            seen = [references.entry_label(b.text) for b in blocks[i + 1 : i + 12] if b.kind is BlockKind.PARAGRAPH]
            # entries set close together come as one block ("[1] R. J. Gaitskell, ... (2004). [2]
            # V. Trimble, ..." in REVTeX's PRL letters): labels after an entry's closing stop count
            seen += references._INLINE_LABEL.findall(blocks[i].text)
            if "2" in seen and "3" in seen:
                return i
        elif references._alpha_run(blocks, i):
            return i
    return None


# --- the tests --------------------------------------------------------------------------------------

_PIECES = ["References", "REFERENCES", "R e f e r e n c e s", "Bibliography", "BIBLIOGRAPHY", "Literature Cited",
           "Works Cited", "cited", "Reference List", "Références", "ReFeReNcEs", "re-fer-en-ces", "refer_ences",
           "Bibliographie", "literatur", "İndex", "<b>References</b>", "[1]", "[^1] Refs", "7.", "VII", "62",
           " ", "  ", "\t", ".", ":", "-", "é", "\u00a0", "\n", "line", "of", "the", "page", "A.", "x"]


@st.composite
def _texts(draw):
    return "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=5)))


@settings(max_examples=3000, deadline=None)
@given(_texts(), st.booleans())
def test_every_title_the_test_takes_is_among_the_hits(text, long_lines):
    plain = "plain line of the page" * (10 if long_lines else 1)
    blocks = [Block(Kind.PARAGRAPH, t, 1) for t in (plain, text, plain)]
    hits = references._maybe_bib_titles(blocks)
    if references.is_bibliography_title(text):
        assert 1 in hits
    if "[" in text:
        assert 1 in hits
    assert 0 not in hits and 2 not in hits or isinstance(hits, range)


@settings(max_examples=500, deadline=None)
@given(st.lists(_texts(), max_size=30))
def test_text_hits_are_the_texts_a_search_of_each_finds(texts):
    full, key = references._BIB_FULL_TEST, references._MAYBE_BIB_KEY
    got = linescan.text_hits(texts, full, key)
    want = [k for k, t in enumerate(texts)
            if full.search(t) or key.search(t.replace("\u0130", "I").lower()) or "\n" in t]
    assert got == want


def test_text_hits_of_a_pattern_at_the_line_break():
    texts = ["a", "[1] x", "b [", "[", "", "c"]
    assert linescan.text_hits(texts, re.compile(r"\n(?=[^\n]{0,2}\[)")) == [1, 2, 3]
    assert linescan.text_hits(texts + ["d\n[e"], re.compile(r"\n(?=[^\n]{0,2}\[)")) == [1, 2, 3, 6]


def _ocr_text(rnd: random.Random, pages: int) -> str:
    """Raw OCR text with bibliographies titled and untitled, running heads, appendices."""
    kinds = ["line {i} of the page", "References", "REFERENCES", "Bibliography {i}", "{i} References",
             "[{i}] A. Author. A title. In Proc. X, 2020.", "[1] B. Writer. Another title, 2019.",
             "[2] C. Third. More, 2018.", "[3] D. Fourth. Last, 2017.", "[AB{i}] E. Alpha. Title, 2001.",
             "A. Author, B. Writer (2020). A title. Journal 3:1-9.", "Appendix A Proofs", "A Proofs",
             "{i} Introduction", "Literature Cited", "Works cited in the text {i}", "Figure {i}: a plot",
             "- [{i}] an item", "Références", "continued text without an end", "Acknowledgments"]
    return ocr_pages(rnd, pages, kinds)


def _structure(text: str, monkeypatch, slow: bool):
    from ctxmill.compile import blocks as blocks_stage
    from ctxmill.compile import normalize, structure
    from ctxmill.sources.ocr_text import read_ocr_text

    with monkeypatch.context() as m:
        if slow:
            m.setattr(references, "mark_bibliography", _mark_bibliography_slow)
        doc = Document(stream=read_ocr_text(text))
        opts = CompileOptions()
        blocks_stage.run(doc, opts)
        normalize.run(doc, opts)
        structure.run(doc, opts)
    return [(b.kind, b.text, b.page, b.level, b.number, b.section_id, sorted(b.attrs.items(), key=str))
            for b in doc.blocks]


@pytest.mark.parametrize("seed", range(12))
def test_bibliographies_of_ocr_text_are_marked_as_block_by_block(seed, monkeypatch):
    text = _ocr_text(random.Random(seed), pages=2 + seed)
    assert _structure(text, monkeypatch, False) == _structure(text, monkeypatch, True)


@pytest.mark.parametrize("name", ["dive-into-claude-code/ocr-pages-1-16.txt", "ocr/nougat-llama/source.mmd",
                                  "ocr/marker-multicolcnn/source.md", "ocr/docling-doclaynet/source.md",
                                  "ocr/olmocr-math-2503-04086/source.md", "ocr/mistral-paper2llm-identifiability/source.md"])
def test_bibliographies_of_real_ocr_text_are_marked_as_block_by_block(corpus_dir, name, monkeypatch):
    path = corpus_dir.parent / name
    if not path.is_file():
        pytest.skip(f"{name} is not present")
    text = path.read_text()
    assert _structure(text, monkeypatch, False) == _structure(text, monkeypatch, True)
