"""blocks._text_blocks reads a run of code-like lines that cannot be code as running text (issue
26, round 23, speed only): a run needs two strong lines for the code test, so a page of "// note"
comment lines (each scores 1) is not walked through the rule loop line by line, and the search
for lines _one_rule must read leaves out the "$$" / "[^" scan where no line holds either, and
repeated lines that score nothing are not listed for scoring. Counted, not timed; the blocks are
the rule loop's own (every line a rule line)."""

from __future__ import annotations

import random

from _counting import Counted
from ctxmill.compile import blocks
from ctxmill.model import Line, Page


def _page(lines: list[str]) -> Page:
    return Page(number=1, lines=[Line(t) for t in lines])


def _reference(page: Page, markdown: bool) -> list:
    return blocks._as_blocks(blocks._text_blocks(page, markdown, set(range(len(page.lines)))), 1)


def test_comment_lines_are_not_walked_through_the_rules(monkeypatch):
    lines = [f"// note {i}" for i in range(500)]
    spy = Counted(blocks.LIST_RE)
    monkeypatch.setattr(blocks, "LIST_RE", spy)
    fast = blocks._as_blocks(blocks._text_blocks(_page(lines), True), 1)
    # the rule loop tried each line as a list item after its failed code test: 500 at 60a8663
    assert spy.calls == 0
    assert fast == _reference(_page(lines), True)
    assert [b.text for b in fast] == ["\n".join(lines)]


def test_runs_with_two_strong_lines_are_still_code():
    lines = ["Some text, here.", "", "// setup", "x = 1", "// then", "y = f(x)", "", "// a remark", "// alone", "",
             "- an item", "// after it", "z = 2", "", "# comment heading", "// c", "w = g(1)", "v = 3"]
    for markdown in (True, False):
        page = _page(lines)
        got = blocks._as_blocks(blocks._text_blocks(page, markdown), 1)
        assert got == _reference(page, markdown)
        assert [b.text for b in got if b.kind is blocks.Kind.CODE][:1] == ["// setup\nx = 1\n// then\ny = f(x)"]


def test_mixed_pages_read_as_the_rule_loop_reads_them():
    pieces = ["// c", "# h", "x = 1", "f(x)", "return y", "- a", "1. b", "", "    ind = 1", "$$", "[^1]: n", "| a |",
              "|---|", "Text", "if x:", "}", "```", "<p>", "![](i)", "w,", "// note, with = sign"]
    rnd = random.Random(23)
    for _ in range(200):
        lines = [rnd.choice(pieces) for _ in range(rnd.randint(1, 40))]
        for markdown in (True, False):
            page = _page(lines)
            assert blocks._as_blocks(blocks._text_blocks(page, markdown), 1) == _reference(page, markdown), lines


def test_the_line_scan_for_marks_runs_only_where_a_mark_is(monkeypatch):
    spies = {key: Counted(rx) for key, rx in blocks._NOT_ALONE.items()}
    monkeypatch.setattr(blocks, "_NOT_ALONE", spies)
    lines = [f"see [{i}], and more" for i in range(400)]  # rule lines (a bracket, a comma), no "$$" or "[^"
    blocks._text_blocks(_page(lines), True)
    used = [rx.pattern for rx in spies.values() if rx.calls]
    # the pattern with the scan of each line to its end for "$$" or "[^" was the one searched at 60a8663
    assert used and all("\\$\\$" not in p for p in used)
    for rx in spies.values():
        rx.calls = 0
    blocks._text_blocks(_page(lines + ["a [^1] mark"]), True)
    assert all("\\$\\$" in rx.pattern for rx in spies.values() if rx.calls)


def test_repeated_lines_that_score_nothing_are_not_listed_for_scoring():
    # a reference list of one-character entries: "[1] x" is a rule line the code group marks (its
    # bracket), and scores 0; its 210,000 lines a 4 MB file were listed, sorted and looked up
    lines = ["References", ""] + ["[1] x", "x", "- x", "x = 1", "."] * 200
    rule, code = blocks._rule_and_code_lines(lines)
    assert code == {k for k, t in enumerate(lines) if t == "x = 1"}  # every "[1] x" line too at 60a8663
    assert rule >= code and 2 in rule  # ("[1] x" stays a rule line)
    for markdown in (True, False):
        page = _page(lines)
        assert blocks._as_blocks(blocks._text_blocks(page, markdown), 1) == _reference(page, markdown)
