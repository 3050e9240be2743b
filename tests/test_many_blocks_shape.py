"""Many tiny blocks (issue 26, round sixteen, cost per shape): a Markdown list of items with no
word of two letters ("- x", "1. x") between one-character lines, as fuzz.py's one_char_refs
shape writes after "References", ran every item through every stage as its own block (0.2 MB
per CPU-s). Work counts, not timings: the blocks the builder hands on, the characters the
sentence-end test copies, the lines the contents test reads; and the rewritten steps give what
the old ones gave."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import recorded
from _slices import slices
from ctxmill.compile import blocks, headings, references
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Block, Document, Kind, Line, Page, PageStream

JUNK = ["x", "[1] x", "- x", "1. x", "."]


def _tail(lines: int, seed: int = 5) -> list[str]:
    rnd = random.Random(seed)
    return [rnd.choice(JUNK) for _ in range(lines)]


def _markdown_page(lines: list[str]) -> Page:
    return Page(number=1, lines=[Line(text=t) for t in lines])


def _built(lines: list[str]) -> list[Block]:
    doc = Document(stream=PageStream(kind="markdown", pages=[_markdown_page(lines)]))
    blocks.run(doc, None)
    return doc.blocks


# ------------------------------------------------------------------ blocks: runs of tiny blocks


def test_a_list_of_wordless_items_between_short_lines_is_a_few_paragraphs():
    tail = _tail(20_000)
    got = _built(["# A Paper", "", "Some text of the paper.", "", "# References", ""] + tail)
    # dd05bb5: ~12,800 blocks (8,000 list items, the lines between them paragraphs)
    assert len(got) <= 4 + len(tail) // blocks.TINY_GROUP + 2
    joined = [b for b in got if b.kind is Kind.PARAGRAPH and b.attrs.get("_line_texts") and len(b.attrs["_line_texts"]) > 1]
    # every line as written, its list marker too, in order
    assert [t for b in joined for t in b.attrs["_line_texts"]] == tail
    assert all(b.text == "\n".join(b.attrs["_line_texts"]) for b in joined)


def test_a_list_of_short_items_with_words_stays_a_list():
    items = [f"- item {i}" for i in range(100)] + [f"{i}. ab" for i in range(100)]
    got = _built(["# Things", ""] + items)
    assert sum(b.kind is Kind.LIST_ITEM for b in got) == 200
    assert [b.text for b in got if b.kind is Kind.LIST_ITEM][:2] == ["item 0", "item 1"]


def test_a_short_run_of_wordless_items_stays_a_list():
    got = _built(["# Things", ""] + ["- x"] * (blocks.TINY_RUN - 1) + ["", "A closing paragraph of words."])
    assert sum(b.kind is Kind.LIST_ITEM for b in got) == blocks.TINY_RUN - 1


def test_the_shape_compiles_with_every_character_kept():
    tail = _tail(6_000)
    text = ("A Title of the Paper\n\nAbstract\n\nA short abstract of the paper.\n\n1 Introduction\n\n"
            "Words of the paper about caches and keys.\n\nReferences\n\n" + "\n".join(tail) + "\n")
    doc = compile_document(text.encode(), name="refs.md")
    cons = doc.attrs["conservation"]
    assert cons["words_lost"] == 0 and cons["words_removed"] == 0
    bib = doc.markdown.split("## References")[-1]
    # each line's word, and the markers that hold one (dd05bb5: a lone "x" was read as a roman
    # page number and removed, each "- " dropped). (Runs of "." lines read as a dot leader and a
    # "-" line start re-flowed by normalize are the paragraph readings of those stages.)
    for mark in ("x", "[1]", "1."):
        assert bib.count(mark) == sum(t.count(mark) for t in tail)
    assert bib.count("- x") >= 0.9 * tail.count("- x")
    assert not doc.references
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0]:c.char_span[1]] == c.text


# ------------------------------------------------------------------ references._sentence_end


def _sentence_end_before(text: str, start: int) -> int:
    """references._sentence_end as it was (three str.find calls, the rest of the text copied)."""
    i = start
    n = len(text)
    while i < n:
        j = text.find(".", i)
        q = text.find("?", i)
        x = text.find("!", i)
        cands = [c for c in (j, q, x) if c != -1]
        if not cands:
            return n
        k = min(cands)
        after = text[k + 1: k + 3]
        if k + 1 >= n:
            return n
        if not after.startswith(" "):
            i = k + 1
            continue
        seg = text[start:k]
        prev = seg.rsplit(None, 1)[-1] if seg and not seg[-1].isspace() else ""
        rest = text[k + 2:]
        if text[k] == "." and (
            re.fullmatch(r"[A-Z]|[A-Z]\.[A-Z]|v|vs|no|vol|pp|eds?|Jr|Sr|St|Dr|Mr|Ms|Mrs|e\.g|i\.e|cf|U\.S|al", prev)
        ):
            if prev == "al":
                return k + 1
            i = k + 1
            continue
        if text[k] in "?!" and rest[:1].islower() and not references._VENUE_START.match(rest):
            i = k + 1
            continue
        return k + 1
    return n


_PARTS = ["x", " ", ". ", "? ", "! ", "al", "et al. ", "J. ", "U.S. ", "Mrs. ", "vs. ", "In ", "in ", "arXiv",
          "word", "2.0", "?", "!", ".", "e.g. ", "ABCDEFG. ", "\n", "  ", "Technical report", "a"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=30).map("".join), st.data())
def test_sentence_end_is_the_old_loop(text, data):
    start = data.draw(st.integers(0, len(text)))
    assert references._sentence_end(text, start) == _sentence_end_before(text, start)


class _Copies(str):
    """A str that counts the characters its slices copy and its find() calls read."""

    read = 0

    def __getitem__(self, k):
        got = str.__getitem__(self, k)
        _Copies.read += len(got)
        return got

    def find(self, sub, *args):
        got = str.find(self, sub, *args)
        start = args[0] if args else 0
        _Copies.read += (got if got != -1 else len(self)) - start
        return got


def test_counting_the_sentences_of_a_long_paragraph_reads_it_about_once():
    # the bibliography's one-character lines joined: 20,000 "sentences" of one character. Each
    # sentence-end read the rest of the text (a missing "?" and "!", and a copy of the rest at
    # every stop): ~100 million characters at dd05bb5
    text = _Copies(" ".join(_tail(20_000)))
    _Copies.read = 0
    n = references._count_sentences(text)
    assert n > 2_000
    assert _Copies.read <= 20 * len(text)


# ------------------------------------------------------------------ headings.toc_blocks


def test_contents_entries_are_read_once_a_line(monkeypatch):
    # a contents page of 40 blocks of 50 lines each, 10 distinct lines (repeated lines are read
    # once each; a block of mostly distinct lines is read line by line, as before)
    calls = recorded(monkeypatch, headings, "_entry_line")
    lines = [f"{k % 10}.1 Section title {k % 10} ..... {k % 10 + 3}" for k in range(50)]
    blocks_ = [Block(Kind.PARAGRAPH, "\n".join(lines), 1, attrs={"_line_texts": lines}) for _ in range(40)]
    out = headings.toc_blocks(blocks_)
    assert out == set(range(40))
    assert len(calls) <= 10  # dd05bb5: 2,000 (every line of every block)


def test_contents_shares_with_a_memo_are_the_shares():
    rnd = random.Random(7)
    kinds = ["Intro 3", "x", "2.1 Methods 14", "see Fig. 4", "Appendix xii", "", "A line of text.", "Results . . . 9"]
    for _ in range(300):
        lines = [rnd.choice(kinds) for _ in range(rnd.randint(1, 12))]
        b = Block(Kind.PARAGRAPH, "\n".join(lines), 1, attrs={"_line_texts": lines})
        memo: dict = {}
        assert headings._entry_share(b, memo) == headings._entry_share(b) == headings._entry_share(b, memo)


# ------------------------------------------------------------------ token_pieces.Tokenized.count_any


_ASCII = ["word", " ", "  ", "\n", "\n\n", ".", ". ", "x", "[1]", "1.", "-", "'s", "\t", "A", "99", "(", ")", "é"[:0]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_ASCII), min_size=1, max_size=120).map("".join), st.data())
def test_a_slice_ending_in_white_space_counts_as_the_tokenizer_counts_it(text, data):
    from ctxmill.render import token_pieces
    from ctxmill.tokens import count_tokens

    if not token_pieces.usable():
        return
    whole = token_pieces.Tokenized(text)
    for s, e in slices(data, text):
        assert whole.count_any(s, e) == count_tokens(text[s:e])
