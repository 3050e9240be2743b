"""Cost per text shape, the markup and line stages (issue 26, round nineteen): work counts, not
times. Each test counts what a step does per line (objects made, patterns looked up or tried,
a tokenizer load started) on one input and on one of twice its lines, and checks the answers
against the rules the step skips."""

from __future__ import annotations

import re

import pytest

from _counting import Counted
from ctxmill.compile import blocks
from ctxmill.errors import InputRefused
from ctxmill.model import Block, Kind, Line, Page
from ctxmill.sources import engines
from ctxmill.sources.markdown import text_lines


def _blocks_made(monkeypatch, lines: list[str]) -> tuple[list, int]:
    made = []

    def counted(*args, **kwargs):
        made.append(1)
        return Block(*args, **kwargs)

    monkeypatch.setattr(blocks, "Block", counted)
    out = blocks._text_blocks(Page(number=1, lines=[Line(t) for t in lines]), True)
    monkeypatch.undo()
    return out, len(made)


def test_a_run_of_headings_makes_no_block_per_heading(monkeypatch):
    # 2,000 "# ..." lines in a row are no outline (_no_outline): their texts become lines of text,
    # and only the last, with text under it, stays a heading. Each made a Block that was thrown away.
    lines = [f"# Heading {i}" for i in range(2000)] + ["Some text under the last one."]
    out, made = _blocks_made(monkeypatch, lines)
    assert made == 1
    assert out[:1999] == [f"Heading {i}" for i in range(1999)]
    assert isinstance(out[1999], Block) and out[1999].kind is Kind.HEADING
    assert (out[1999].text, out[1999].level, out[1999].attrs) == ("Heading 1999", 1, {"_markup": True})
    assert out[2000:] == [["Some text under the last one."]] or out[2000:] == ["Some text under the last one."]


def test_a_few_headings_stay_headings_in_place(monkeypatch):
    lines = ["# Title", "", "Text.", "", "## 1 Intro", "Body.", "", "### 1.1 More", "", "- item", "End."]
    out, made = _blocks_made(monkeypatch, lines)
    heads = [(b.text, b.level) for b in out if isinstance(b, Block) and b.kind is Kind.HEADING]
    assert heads == [("Title", 1), ("1 Intro", 2), ("1.1 More", 3)]
    assert made == 3
    assert [type(b).__name__ for b in out] == ["Block", "str", "Block", "str", "Block", "tuple", "str"]


def test_tiny_lines_with_a_capital_first_try_no_pattern(monkeypatch):
    # "Heading 12", "Word 7": a capital, then a letter. HEADING_NUM_RE needs a dot or a blank after
    # the capital and CAPTION_RE a caption word: neither is tried (100,000 a file of headings)
    calls: list = []
    monkeypatch.setattr(blocks, "HEADING_NUM_RE", Counted(blocks.HEADING_NUM_RE, calls))
    monkeypatch.setattr(blocks, "CAPTION_RE", Counted(blocks.CAPTION_RE, calls))
    texts = [f"{w} {i}" for i in range(500) for w in ("Heading", "Word", "Xy")]
    assert all(blocks._tiny_text(t) for t in texts)
    assert calls == []
    # the lines the patterns decide are still tried, and still refused
    for t in ("A. Threat model", "B Results", "3 Method", "Table 2: x", "Figure 1", "Fig. 3", "Algorithm 1"):
        assert blocks._tiny_text(t) is False
    assert calls
    for t in ("Abstract", "Tables", "A", "Zebra"):
        assert blocks._tiny_text(t) == (t.lower() not in blocks.UNNUMBERED_HEADINGS)


class _CountingRe:
    """The ``re`` module as engines sees it, its module-level calls counted (each one looks the
    pattern up in re's cache before it runs)."""

    def __init__(self, calls: list):
        self.calls = calls

    def __getattr__(self, name):
        real = getattr(re, name)
        if name in ("sub", "match", "search", "fullmatch", "split", "findall", "finditer"):
            def counted(*args, **kwargs):
                self.calls.append(name)
                return real(*args, **kwargs)
            return counted
        return real


_MARKUP_LINES = [
    'A result<sup>1</sup> of <b>bold</b> and <i>it</i> text<br>with a break and <span id="page-3-1"></span>an anchor.',
    "Cited as \\[12\\] and [see](#page-2-1) with $^{a}$ a mark and ${ }^{1,2}$ more &amp; an entity.",
    "| cell <sub>2</sub> | $ x $ | \\( ^{3} \\) |",
    "Table 3: **Model sizes** of the runs.",
    "**References**",
    "Footnote 2: a note with <em>emphasis</em>.",
]


@pytest.mark.parametrize("engine", ["nougat", "marker", "mistral", "markdown"])
def test_markup_rewrites_look_up_no_pattern_per_line(monkeypatch, engine):
    def calls_for(n: int) -> tuple[int, str]:
        calls: list = []
        monkeypatch.setattr(engines, "re", _CountingRe(calls))
        text = "\n\n".join(_MARKUP_LINES * n)
        out = engines.clean_markdown(text, engine)
        monkeypatch.setattr(engines, "re", re)
        return len(calls), out

    few, small = calls_for(50)
    many, big = calls_for(100)
    assert few == many  # the whole page's rewrites only, not a lookup per line, cell or mark
    assert big.count("[^1]") == 2 * small.count("[^1]") == 100
    assert "<" not in big.replace("&lt;", "")


def test_markup_rewrites_are_the_patterns_they_name():
    # the compiled patterns give what the inline rewrites gave at cf96838: a line of each kind
    got = engines._clean_inline(_MARKUP_LINES[0], "marker")
    assert got == "A result[^1] of **bold** and *it* text\n\nwith a break and an anchor."
    assert engines._clean_inline(_MARKUP_LINES[1], "marker") == \
        "Cited as [12] and see with[^a] a mark and[^1,2] more & an entity."
    # (the two blanks are the rewrite's own, as at cf96838)
    assert engines._clean_line("Table 3: **Model sizes** of the runs.", "nougat") == "Table 3: Model sizes  of the runs."
    assert engines._clean_line("**References**", "olmocr") == "## References"
    assert engines._latex_text("\\textbf{\\emph{Deep}} net~\\label{x} 5\\% \\small") == "Deep net 5%"


def test_text_lines_share_repeated_lines_only_where_most_repeat():
    same = text_lines(["word"] * 1000 + ["other"])
    assert len({id(x) for x in same}) == 2 and [x.text for x in same] == ["word"] * 1000 + ["other"]
    distinct = text_lines([f"# Heading {i}" for i in range(1000)] + ["", ""])
    assert [x.text for x in distinct] == [f"# Heading {i}" for i in range(1000)] + ["", ""]
    assert all(type(x) is Line and x.spans == [] and x.bbox is None for x in distinct)
    gen = text_lines(t for t in ("a", "a", "a"))  # any iterable, read once
    assert [x.text for x in gen] == ["a", "a", "a"]


def test_refused_text_starts_no_tokenizer_load(monkeypatch, tmp_path):
    # The chunk tokenizer's load (~0.1 CPU-s) ran on a thread beside the reading of text that the
    # limits then refused: a refusal cost twice its CPU whenever the thread got in first (the
    # 4 MB one-line input of fuzz.py's long_words_line row, x2.63 on doubling). It starts after
    # the text is read, and a refused text never starts it.
    from ctxmill import tokens
    from ctxmill.compile import pipeline
    from ctxmill.compile.options import CompileOptions
    from ctxmill.limits import MAX_LINE_CHARS

    events: list[str] = []
    monkeypatch.setattr(tokens, "preload", lambda: events.append("tokenizer"))
    long = tmp_path / "long.txt"
    long.write_bytes(b"word " * (MAX_LINE_CHARS // 5 + 2))
    with pytest.raises(InputRefused, match="MAX_LINE_CHARS"):
        pipeline.compile_document(long, CompileOptions())
    assert events == []
    ok = tmp_path / "ok.md"
    ok.write_text("# Notes\n\nA paragraph of text that is long enough.\n")
    pipeline.compile_document(ok, CompileOptions())
    assert events == ["tokenizer"]


def test_a_reference_list_of_repeated_lines_reads_each_distinct_line_once(monkeypatch):
    # one_char_refs' list: "[1] x" (a rule line for its bracket), "- x" and "1. x" (list items)
    # between one-character lines. Each distinct rule line is read once (_one_rule), not once per
    # line by the rule loop; the blocks are those of the rule loop itself, line by line.
    import random

    rnd = random.Random(19)
    lines = ["# Paper", "", "Text, with a comma.", "", "    code", "", "Text", "    more", "References", ""] + \
        [rnd.choice(["x", "[1] x", "- x", "1. x", ".", "", "$$", "| a |"]) for _ in range(3000)]
    page = Page(number=1, lines=[Line(t) for t in lines])
    calls: list = []
    monkeypatch.setattr(blocks, "LIST_RE", Counted(blocks.LIST_RE, calls))
    fast = blocks._text_blocks(page, True)
    tried = len(calls)  # the lines the rules need whole ("| a |", what "$$" leaves) and 3 distinct ones
    calls.clear()
    reference = blocks._text_blocks(page, True, set(range(len(lines))))
    assert tried * 5 < len(calls)  # ~750 list lines ("- x", "1. x") and 375 "[1] x" among the 3,000
    assert blocks._as_blocks(fast, 1) == blocks._as_blocks(reference, 1)
    for markdown in (True, False):
        want = blocks._coalesce_tiny(blocks._text_blocks(page, markdown, set(range(len(lines)))), 1, not markdown)
        assert blocks._coalesce_tiny(blocks._text_blocks(page, markdown), 1, not markdown) == want


def test_pipe_rows_with_no_separator_line_skip_the_rule_loop(monkeypatch):
    # fuzz.py's table_rows: "| 1 | 2 | x |" a line and no "|---|---|" anywhere, so no row can start
    # a pipe table: each is read as a line of text without the rule loop asking whether the next
    # line is a separator (250,000 a 4 MB file). With a separator in the page the loop reads the
    # "|" lines as before, and the blocks are the rule loop's own either way.
    rows = [f"| {i} | {i * 2} | x |" for i in range(400)]
    calls: list = []
    monkeypatch.setattr(blocks, "MD_TABLE_SEP_RE", Counted(blocks.MD_TABLE_SEP_RE, calls))
    for lines, asked in ((["# Rows", ""] + rows, False),
                         (["# Rows", "", "| a | b | c |", "|---|---|---|"] + rows, True)):
        page = Page(number=1, lines=[Line(t) for t in lines])
        calls.clear()
        fast = blocks._text_blocks(page, True)
        assert bool(calls) is asked
        reference = blocks._text_blocks(page, True, set(range(len(lines))))
        assert blocks._as_blocks(fast, 1) == blocks._as_blocks(reference, 1)
        kinds = {b.kind for b in blocks._as_blocks(fast, 1)}
        assert (Kind.TABLE in kinds) is asked
    ocr = Page(number=1, lines=[Line(t) for t in rows])  # OCR text: never a pipe table
    assert blocks._text_blocks(ocr, False) == blocks._text_blocks(ocr, False, set(range(len(rows))))
