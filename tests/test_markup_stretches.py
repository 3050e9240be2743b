"""Cost per text shape, the markup and line stages (issue 26, round 24, part B): work counts,
not times, each checked against the plain road that does all the work."""

from __future__ import annotations

import random
from itertools import compress

from _counting import Counted, CountedCall
from ctxmill.compile import blocks, structure
from ctxmill.model import Line, Page
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
