"""Raw OCR lines (issue 26, round twelve): normalize's last furniture pass (arXiv stamps, stray page
numbers) reads only the paragraphs one search of all their texts finds (ctxmill.linescan.text_hits
with normalize._MAYBE_PAGE_NUM_OR_STAMP_RE): every text the pass could take is among the hits
(hypothesis), and normalize gives what reading every paragraph gave, on generated and real OCR text."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import Counted
from _ocrgen import ocr_pages
from ctxmill.compile import normalize
from ctxmill.compile.options import CompileOptions
from ctxmill.linescan import text_hits
from ctxmill.model import Document

_PIECES = ["12", "7", "iv", "XII", "Page", "PAGE", "page ", "of", " of ", "/", "-", "–", "—", " ", "\t", "\u00a0",
           "\u2003", "\x1c", "\n", "ı", "İ", "٣", "arXiv:2101.00001v2 [cs.CL] 3 Jan 2021", ":", "line", "x", "a", "m",
           "ARXIV: 2101.00001 [hep-th] 12 March 2021", "see https://example.org/page/3 here"]


@st.composite
def _texts(draw):
    return "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=6)))


@settings(max_examples=4000, deadline=None)
@given(_texts())
def test_every_text_the_pass_could_take_is_among_the_hits(text):
    hits = text_hits(["plain line of the page", text, "plain line of the page"], normalize._MAYBE_PAGE_NUM_OR_STAMP_RE)
    if normalize.PAGE_NUM_RE.match(text) or normalize.ARXIV_STAMP_RE.match(text.replace("\n", " ")):
        assert 1 in hits
    assert 0 not in hits and 2 not in hits


def _ocr_text(rnd: random.Random, pages: int) -> str:
    kinds = ["line {i} of the page", "{i}", "- {i} -", "Page {i}", "page {i} of 9", "iv", "XII", "– 3 –",
             "arXiv:2101.0000{i}v2 [cs.CL] 3 Jan 2021", "Note: a colon {i}", "{i} / 9", "  {i}  ", "lid",
             "mix of text {i}", "٣"]
    return ocr_pages(rnd, pages, kinds, lines=(3, 30), share=0.4, i=(1, 400))


def _normalized(text: str, monkeypatch, every: bool):
    from ctxmill.compile import blocks as blocks_stage
    from ctxmill.sources.ocr_text import read_ocr_text

    with monkeypatch.context() as m:
        if every:  # the pass as it was: every paragraph read
            m.setattr(normalize, "text_hits", lambda texts, pattern, folded=None: list(range(len(texts))))
        doc = Document(stream=read_ocr_text(text))
        opts = CompileOptions()
        blocks_stage.run(doc, opts)
        normalize.run(doc, opts)
    return [(b.kind, b.text, b.page, sorted(b.attrs.items(), key=str)) for b in doc.blocks]


@pytest.mark.parametrize("seed", range(10))
def test_normalize_of_ocr_text_is_the_same_as_reading_every_paragraph(seed, monkeypatch):
    text = _ocr_text(random.Random(seed), pages=3 + seed)
    got = _normalized(text, monkeypatch, False)
    assert any(b[0] == "furniture" for b in got)
    assert got == _normalized(text, monkeypatch, True)


@pytest.mark.parametrize("name", ["dive-into-claude-code/ocr-pages-1-16.txt", "ocr/nougat-llama/source.mmd",
                                  "ocr/marker-multicolcnn/source.md", "ocr/olmocr-olmo2-pg4/source.md"])
def test_normalize_of_real_ocr_text_is_the_same(corpus_dir, name, monkeypatch):
    path = corpus_dir.parent / name
    if not path.is_file():
        pytest.skip(f"{name} is not present")
    text = path.read_text()
    assert _normalized(text, monkeypatch, False) == _normalized(text, monkeypatch, True)


def test_a_page_of_links_is_not_read_for_stamps(monkeypatch):
    # fuzz.py's urls: every paragraph holds the ":" of "https:", and each was read for an arXiv
    # stamp; a stamp opens its line with "arXiv:"
    stamps = Counted(normalize.ARXIV_STAMP_RE)
    monkeypatch.setattr(normalize, "ARXIV_STAMP_RE", stamps)
    text = "".join(f"see https://example.org/page/{i} here\n\n" for i in range(60))
    text += "arXiv:2101.00001v2 [cs.CL] 3 Jan 2021\n\nthe end\n"
    from ctxmill.compile import blocks as blocks_stage
    from ctxmill.sources.ocr_text import read_ocr_text

    doc = Document(stream=read_ocr_text(text))
    blocks_stage.run(doc, CompileOptions())
    normalize.run(doc, CompileOptions())
    assert [b.text for b in doc.blocks if b.attrs.get("furniture") == "arxiv_stamp"] == [
        "arXiv:2101.00001v2 [cs.CL] 3 Jan 2021"]
    assert len(doc.blocks) == 62
    assert stamps.calls == 1, stamps.calls  # 61 at e5b411b


def test_no_texts_no_hits():
    # (the joined text of no texts is one line break: a pattern that matches an empty line
    # found it, and the pass read a paragraph that does not exist)
    assert text_hits([], normalize._MAYBE_PAGE_NUM_OR_STAMP_RE) == []
    assert text_hits([""], normalize._MAYBE_PAGE_NUM_OR_STAMP_RE) == [0]
