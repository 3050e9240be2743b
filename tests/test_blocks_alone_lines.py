"""blocks._past_rules asks _one_rule only about the lines one search finds (issue 26, round 22):
the others are running text. Work counts and answers, not times."""

from __future__ import annotations

import random

from ctxmill.compile import blocks
from ctxmill.linescan import line_hits
from ctxmill.model import Line, Page

# pieces of a line: every kind of blank str.strip() removes, list markers, marks _one_rule reads
PIECES = ["", " ", "\t", "\u00a0", "\u2028", "\x1c", "\x85", "    ", "x", "a.", "b)", "(i)", "(1)", "12.", "٣.",
          "•", "-", "–", "*", "#", "|", "`", "~", "<", "!", "$$", "$", "[^", "[", "^", "Text,", "[1]", "A", "z"]


def test_every_line_the_search_passes_over_is_running_text():
    rnd = random.Random(22)
    texts = sorted({"".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 4))) for _ in range(30_000)})
    # (without marks: the texts that hold no "$$" or "[^", which _past_rules searches with it)
    unmarked = [t for t in texts if "$$" not in t and "[^" not in t]
    for markdown, pipes, marks in ((False, False, False), (False, False, True), (True, False, True), (True, True, True),
                                   (True, False, False), (True, True, False)):
        some = texts if marks else unmarked
        found = set(line_hits(blocks._NOT_ALONE[markdown, pipes, marks], "\n" + "\n".join(some)))
        passed = [t for k, t in enumerate(some) if k not in found]
        assert len(passed) > 1000
        assert [t for t in passed if blocks._one_rule(t, markdown, pipes) is not True] == []


def test_rows_and_prose_lines_are_not_read_one_by_one(monkeypatch):
    # "| 1 | 2 | x |" rows with no separator line anywhere (fuzz.py's table_rows) and prose lines
    # with a comma are rule lines; _one_rule read each. Now only the list items, the blank-ish and
    # marked lines are read, and the blocks are the rule loop's own.
    lines = ["# Rows", ""] + [f"| {i} | {i * 2} | x |" for i in range(300)] + [""] + \
        [f"Line {i}, with a comma" for i in range(300)] + ["", "- an item", "1. another", "$$", "x", "$$", "[^1]: a note"]
    calls: list[str] = []
    one_rule = blocks._one_rule

    def counted(raw, *args):
        calls.append(raw)
        return one_rule(raw, *args)

    monkeypatch.setattr(blocks, "_one_rule", counted)
    page = Page(number=1, lines=[Line(t) for t in lines])
    fast = blocks._text_blocks(page, True)
    assert sorted(set(calls)) == sorted(["- an item", "1. another", "$$", "[^1]: a note"])
    reference = blocks._text_blocks(page, True, set(range(len(lines))))
    assert blocks._as_blocks(fast, 1) == blocks._as_blocks(reference, 1)
    ocr = Page(number=1, lines=[Line(t) for t in lines[2:]])  # raw OCR text: no Markdown marks
    calls.clear()
    assert blocks._text_blocks(ocr, False) == blocks._text_blocks(ocr, False, set(range(len(lines) - 2)))
    assert calls == []

