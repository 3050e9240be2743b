"""blocks._text_blocks reads a run of Markdown headings past its first HEADING_RUN in bulk (issue
26, round 23, speed only): windows of lines searched once, not a strip and a match per line (a
file of "# ..." lines, 285,000 a MB). Counted, not timed; the blocks are those of the loop that
reads each heading line by line."""

from __future__ import annotations

import random

from _counting import Counted
from ctxmill.compile import blocks
from ctxmill.model import Line, Page


def _page(lines: list[str]) -> Page:
    return Page(number=1, lines=[Line(t) for t in lines])


def _line_by_line(page: Page, monkeypatch) -> list:
    with monkeypatch.context() as m:
        m.setattr(blocks, "_more_headings", lambda lines, i, *rest: i)  # (the loop reads on from i)
        return blocks._as_blocks(blocks._text_blocks(page, True), 1)


def test_a_file_of_headings_is_not_matched_line_by_line(monkeypatch):
    lines = [f"# Heading {i}" for i in range(1000)] + ["", "Some text."]
    spy = Counted(blocks.MD_HEADING_RE)
    monkeypatch.setattr(blocks, "MD_HEADING_RE", spy)
    got = blocks._as_blocks(blocks._text_blocks(_page(lines), True), 1)
    assert spy.calls <= 2 * blocks.HEADING_RUN  # 1,000 at d4b1b17: one a line
    monkeypatch.undo()
    assert got == _line_by_line(_page(lines), monkeypatch)
    assert got[-2].kind is blocks.Kind.HEADING and got[-2].text == "Heading 999"


def test_runs_of_odd_headings_read_as_the_loop_reads_them(monkeypatch):
    # marks and blanks MD_HEADING_RE reads its own way: closing "#"s, a text of "#"s, tabs, blanks
    # that are no line break ("\xa0", "\x0b"); between the runs lines that end one (seven marks,
    # no blank after the marks, a blank line, a list item)
    heads = ["# a", "## b ##", "# c # d", "# #", "## ##", "#  # e #  ", "  ### f\t", "# g\xa0#", "#\x0bh",
             "###### i", "# l ## m ###", "# 1.", "# n#", "#\t#\t#"]
    others = ["####### j", "#k", "- item", "", "Some text."]
    rnd = random.Random(26)
    for _ in range(60):
        lines = []
        for _ in range(rnd.randint(1, 4)):  # runs of headings, long and short, with other lines between
            lines += [rnd.choice(heads) for _ in range(rnd.choice((3, 63, 64, 65, 130, 400)))]
            lines += [rnd.choice(others) for _ in range(rnd.randint(0, 3))]
        page = _page(lines)
        assert blocks._as_blocks(blocks._text_blocks(page, True), 1) == _line_by_line(page, monkeypatch), lines
