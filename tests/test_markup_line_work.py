"""Cost per text shape, the markup and line stages (issue 26, round twenty): work counts, not
times. Each test counts a step's work (code scores worked out, bisections, line splits, pattern
substitutions) on an input where the answer needs none of it, and checks the answer against the
reference road that does all of it."""

from __future__ import annotations

import re

import pytest

from ctxmill import limits, linescan
from ctxmill.compile import blocks, structure
from ctxmill.compile.options import CompileOptions
from ctxmill.errors import InputRefused
from ctxmill.model import Document, Line, Page
from ctxmill.sources import load_source


def _scored(monkeypatch, lines: list[str], markdown: bool = True) -> tuple[list, list[str]]:
    calls: list[str] = []
    real = blocks._code_score

    def counted(text: str) -> int:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(blocks, "_code_score", counted)
    out = blocks._coalesce_tiny(blocks._text_blocks(Page(number=1, lines=[Line(t) for t in lines]), markdown), 1,
                                not markdown)
    monkeypatch.undo()
    return out, calls


def _reference(lines: list[str], markdown: bool = True) -> list:
    page = Page(number=1, lines=[Line(t) for t in lines])
    return blocks._coalesce_tiny(blocks._text_blocks(page, markdown, set(range(len(lines)))), 1, not markdown)


@pytest.mark.parametrize("markdown", [True, False])
def test_pipe_rows_list_items_and_numbered_lines_get_no_code_score(monkeypatch, markdown):
    # rule lines (each may start a table or a list) that no _CODE_STRONG alternative can match:
    # each was scored, each 0 (fuzz.py's table_rows: 250,000 rows a 4 MB file)
    lines = [f"| {i} | {i * 2} | x |" for i in range(300)] + [f"{i}. item number {i}" for i in range(300)] + \
        [f"- x {i}" for i in range(100)]
    out, calls = _scored(monkeypatch, lines, markdown)
    assert calls == []
    assert out == _reference(lines, markdown)


def test_code_lines_are_still_scored_and_read_as_code(monkeypatch):
    lines = ["Some text here.", "", "def f(x):", "    y = x + 1", "    return y", "", "| a | b |", "// a note",
             "if x:", "Note:", "]"]
    out, calls = _scored(monkeypatch, lines)
    assert {"def f(x):", "    y = x + 1", "    return y", "// a note", "if x:", "Note:", "]"} <= set(calls)
    assert "| a | b |" not in calls
    assert out == _reference(lines)
    assert any(b.kind.value == "code" and "return y" in b.text for b in out)


def test_rule_pattern_group_holds_every_line_that_scores():
    # the group is a superset of the lines _code_score scores above 0, and the pattern's lines
    # are the rule lines (a line matched by the group is one of them)
    samples = ["x = 1", "f(x)", "a, b", "}", "  ) ,", "# c", "// c", "while x", "import os", "Note:",
               "Note:  # c", "x := 2", "    a[1]", "| 1 | 2 |", "- x", "1. x", "[12] x", "word", "", "é = 1",
               "format it", "a) b", "Table 1: x"]
    for t in samples:
        m = blocks._RULE_LINE_RE.match("\n" + t)
        if blocks._code_score(t):
            assert m is not None and m.lastindex == 1, t
    assert blocks._rule_and_code_lines(["| 1 | 2 |", "x = 1", "word", "- x"]) == ({0, 1, 3}, {1})


def test_text_hits_places_no_match_by_bisection(monkeypatch):
    # a text of several lines is returned whatever is in it: each of its matches was placed by a
    # bisection, then thrown away (a LaTeX or HTML soup has one or more at most of its lines)
    calls: list[int] = []

    def counted(*args):
        calls.append(1)
        raise AssertionError("no bisection expected")

    monkeypatch.setattr(linescan, "bisect_right", counted, raising=False)
    texts = ["<b>a</b>\n<i>b</i>\n<p>", "plain", "x <y", "two\nlines", "Références", "last <"] * 50
    got = linescan.text_hits(texts, re.compile("<"), re.compile("ref"))
    assert calls == []
    want = [k for k, t in enumerate(texts) if "\n" in t or "<" in t or "ref" in t.lower()]
    assert got == want


class _SplitCounted(str):
    splits: list[int] = []

    def split(self, *args, **kwargs):
        _SplitCounted.splits.append(1)
        return str.split(self, *args, **kwargs)


def test_line_limit_check_splits_no_text_under_it():
    # a text over MAX_LINE_CHARS with no line over it: one search, no list of its lines (the
    # reader splits it later anyway)
    _SplitCounted.splits = []
    text = _SplitCounted(("word " * 30 + "\n") * 8_000)  # ~1.2 MB, lines of 151 characters
    assert len(text) > limits.MAX_LINE_CHARS
    limits.check_text_lines(text, "t.txt")
    assert _SplitCounted.splits == []
    # over it: refused as before, the line and its length named
    long = "a\n" + "b" * (limits.MAX_LINE_CHARS + 5) + "\nc"
    with pytest.raises(InputRefused, match=r"line 2 is 1,000,005 characters long, over MAX_LINE_CHARS"):
        limits.check_text_lines(long, "t.txt")
    first = "b" * (limits.MAX_LINE_CHARS + 1)
    with pytest.raises(InputRefused, match=r"line 1 is 1,000,001 characters long"):
        limits.check_text_lines(first, "t.txt")


class _SubCounted:
    def __init__(self, rx: re.Pattern, calls: list):
        self.rx, self.calls = rx, calls

    def sub(self, *args, **kwargs):
        self.calls.append(1)
        return self.rx.sub(*args, **kwargs)


def test_contents_dot_leaders_rewritten_only_where_there_are_dots(monkeypatch):
    # every block of a contents list had _DOT_LEADER_RE tried at every position of its text
    # (one_char_refs: 4,104 blocks of 256 lines read as contents entries)
    entries = [f"{i} Section number {i} {i + 2}" for i in range(1, 40)]
    text = "# A Book\n\nContents\n\n" + "\n\n".join(entries) + "\n\n7 Related Work . . . . . . 50\n\n" + \
        "# 1 Intro\n\nSome text of the introduction.\n"
    calls: list[int] = []
    monkeypatch.setattr(structure, "_DOT_LEADER_RE", _SubCounted(structure._DOT_LEADER_RE, calls))
    opts = CompileOptions()
    doc = Document(stream=load_source(text.encode(), opts, kind="markdown", name="toc.md"))
    from ctxmill.compile import normalize

    blocks.run(doc, opts)
    normalize.run(doc, opts)
    structure.run(doc, opts)
    tocs = [b for b in doc.blocks if b.attrs.get("toc")]
    assert len(tocs) >= 10  # the entries are read as contents
    assert len(calls) == 1  # only the entry with leaders
    assert any(b.text == "7 Related Work 50" for b in tocs)
