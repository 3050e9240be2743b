"""Cost per text shape, the markup and line stages (issue 26, round 24, part B): work counts,
not times, each checked against the plain road that does all the work."""

from __future__ import annotations

import random
import re
from itertools import compress

import pytest

from _counting import Counted, CountedCall
from ctxmill import linescan
from ctxmill.compile import blocks, normalize, structure
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, Line, Page
from ctxmill.sources import load_source
from test_markup_line_work import _reference


def test_dot_leaders_read_only_in_their_stretches(monkeypatch):
    # a contents block of 3,000 one-character lines (a reference list of "x" entries ends each
    # line in a roman page number) with one leader: the pattern, which starts with blanks, was
    # tried at every position of the block's text
    lines = ["x", "[1] x", "- x", "1. x"] * 750
    lines[1500:1500] = ["Related Work . . . . . 50"]
    text = " ".join(lines)
    spy = Counted(structure._DOT_LEADER_RE)
    monkeypatch.setattr(structure, "_DOT_LEADER_RE", spy)
    got = structure._undot(text)
    assert got == spy.real.sub(" ", text)
    assert "Related Work 50" in got
    assert spy.calls == 1 and spy.chars < 20  # " . . . . . 5": the stretch and the character after it


def test_dot_leaders_rewritten_as_the_pattern_does():
    rnd = random.Random(24)
    rx = structure._DOT_LEADER_RE
    for _ in range(20_000):
        text = "".join(rnd.choice(" \t.x\n\x0b\u00a0\r..  ") for _ in range(rnd.randint(0, 40)))
        assert structure._undot(text) == rx.sub(" ", text), repr(text)


def test_repeated_rule_lines_read_by_text(monkeypatch):
    # a reference list of one-character entries: 600 of its 1,000 lines are rule lines ("[1] x",
    # "- x", "1. x") of three texts, every one read alone; they were listed, index by index, only
    # for _past_rules to take their texts and keep none
    rnd = random.Random(26)
    lines = ["References", ""] + [rnd.choice(["x", "[1] x", "- x", "1. x", "."]) for _ in range(1_000)]
    listed = CountedCall(compress)
    monkeypatch.setattr(blocks, "compress", listed)
    out = blocks._coalesce_tiny(blocks._text_blocks(Page(number=1, lines=[Line(t) for t in lines]), True), 1)
    monkeypatch.undo()
    assert listed.calls == 0
    assert [(b.kind, b.text, b.attrs) for b in out] == [(b.kind, b.text, b.attrs) for b in _reference(lines)]


def test_a_link_no_blank_breaks_is_not_searched_for_breaks(monkeypatch):
    # a page of links, one a paragraph: each line went through both URL-break searches, finding
    # nothing, where one search for a "/" beside a blank answers for both
    spies = [Counted(normalize._BLANK_SLASHES_RE), Counted(normalize._SLASH_BLANK_RE)]
    monkeypatch.setattr(normalize, "_BLANK_SLASHES_RE", spies[0])
    monkeypatch.setattr(normalize, "_SLASH_BLANK_RE", spies[1])
    assert normalize.clean_inline(" see https://example.org/page/7 here ") == "see https://example.org/page/7 here"
    assert spies[0].calls + spies[1].calls == 0
    assert normalize.clean_inline("see https: //example.org/ page/7") == "see https://example.org/page/7"


def test_links_cleaned_as_the_searches_do(monkeypatch):
    rnd = random.Random(24)
    tokens = ["http", "https", "://", "/", " ", "  ", "\t", "x", "example.org", "//", "\n", "&amp;", "é", "\\(",
              "a/ b", ":", "\x0b", "page"]
    texts = ["".join(rnd.choice(tokens) for _ in range(rnd.randint(0, 12))) for _ in range(20_000)]
    fast = list(map(normalize.clean_inline, texts))
    monkeypatch.setattr(normalize, "_SLASH_GAP_RE", re.compile(""))  # (every text with a "/" searched)
    assert fast == list(map(normalize.clean_inline, texts))


def test_the_passes_join_the_same_texts_once(monkeypatch):
    # a page of links, one a paragraph: six passes of the structure stage searched the blocks'
    # texts, each joining them again, where the texts had not changed since the pass before
    text = "A Page of Links\n\n" + "".join(f"see https://example.org/page/{i} here\n\n" for i in range(500))
    opts = CompileOptions()
    doc = Document(stream=load_source(text.encode(), opts, name="links.txt"))
    blocks.run(doc, opts)
    normalize.run(doc, opts)
    searched = CountedCall(linescan.line_hits)
    joined = CountedCall(structure._hits_text)
    monkeypatch.setattr(structure, "line_hits", searched)
    monkeypatch.setattr(structure, "_hits_text", joined)
    structure.run(doc, opts)
    assert searched.calls == 6 and joined.calls == 1
    assert structure._LAST_HITS == [None]  # (not held after the document)
    assert [b.text for b in doc.blocks[1:3]] == ["see https://example.org/page/0 here", "see https://example.org/page/1 here"]


def test_the_joined_texts_are_not_held_after_a_failed_stage(monkeypatch):
    # a pass that raises after the searches: the texts they joined go with the error
    text = "A Page of Links\n\n" + "".join(f"see https://example.org/page/{i} here\n\n" for i in range(50))
    opts = CompileOptions()
    doc = Document(stream=load_source(text.encode(), opts, name="links.txt"))
    blocks.run(doc, opts)

    def fails(_blocks):
        assert structure._LAST_HITS != [None]  # (the searches before it kept their joined text)
        raise RuntimeError("a pass failed")

    monkeypatch.setattr(structure, "_footnote_refs", fails)
    with pytest.raises(RuntimeError):
        structure.run(doc, opts)
    assert structure._LAST_HITS == [None]
