"""Raw OCR lines (issue 26, round twelve): structure._MAYBE_HEADING_RE and headings.MAYBE_TOC_TITLE_RE
with each title's first letter as a class of its two cases, outside the case-blind part (re skips
an alternation's branch at a class, not at a case-blind letter or a repeat), find the lines the
patterns of 542b635 (rebuilt here) found (the heading pattern: those a rule can take), on generated
lines and on real OCR text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.compile import headings, structure
from ctxmill.compile.blocks import UNNUMBERED_HEADINGS
from ctxmill.compile.headings import TOC_TITLES

_OLD_HEADING = re.compile(
    r"\n(?=[\t\x0b\x0c\r\x1c-\x1f ]*[0-9A-Zcpas]|[\x00-\x09\x0b-\x7f]*+[^\x00-\x7f]"
    r"|[^\w\n]*(?i:" + "|".join(r"[^\w\n]+".join(map(re.escape, h.split())) for h in sorted(UNNUMBERED_HEADINGS))
    + r")[^\w\n]*(?![^\n])|(?i:[^a-z\n]*" + "[^a-z\\n]*".join("appendi")
    + r"[^a-z\n]*(?:x|c[^a-z\n]*e[^a-z\n]*s)[^a-z\n]*)(?![^\n]))")
_OLD_TOC = re.compile(
    r"\n(?=[\x00-\x09\x0b-\x7f]*+[^\x00-\x7f]|(?i:"
    + "|".join("[^a-z\\n]*" + "[^a-z\\n]*".join(c for c in t if c != " ") + "[^a-z\\n]*" for t in sorted(TOC_TITLES))
    + r")(?![^\n]))")

_PIECES = sorted(UNNUMBERED_HEADINGS | TOC_TITLES) + [
    "APPENDIX", "a p p e n d i x", "Appendices", "REFERENCES", "Table of Contents", "LIST OF FIGURES", "(", ".", " ",
    "\t", "-", "_", "1", "x", "line", "İ", "é", "K", "ſ", "\n"]


def _starts(pattern: re.Pattern, text: str) -> list[int]:
    return [m.start() for m in pattern.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=6).map("".join))
def test_the_same_lines_as_before(line):
    text = "\nplain line\n" + line + "\nplain line"
    _no_heading_lost(text)
    assert _starts(headings.MAYBE_TOC_TITLE_RE, text) == _starts(_OLD_TOC, text)


def _no_heading_lost(text: str) -> None:
    """The heading pattern finds a subset of the old one's lines (since round eighteen only lines
    that can start a number or its keyword, not every capital), and every line it no longer finds
    is one no rule takes as a heading."""
    from ctxmill.model import Block, Kind

    new, old = _starts(structure._MAYBE_HEADING_RE, text), _starts(_OLD_HEADING, text)
    assert set(new) <= set(old)
    for at in set(old) - set(new):
        line = text[at + 1:].split("\n", 1)[0]
        assert structure._heading_candidate(Block(Kind.PARAGRAPH, line, 1), 0.0) is None, line
        assert not structure._appendix_word(line), line


def test_the_same_lines_of_real_ocr_text(shared_dir):
    paths = sorted((shared_dir / "corpus" / "ocr").glob("*/source.m*"))
    paths.append(shared_dir / "corpus" / "dive-into-claude-code" / "ocr-pages-1-16.txt")
    paths = [p for p in paths if Path(p).is_file()]
    if not paths:
        pytest.skip("no OCR text in ../shared")
    for p in paths:
        text = "\n" + p.read_text()
        _no_heading_lost(text)
        assert _starts(headings.MAYBE_TOC_TITLE_RE, text) == _starts(_OLD_TOC, text), p


_ASCII = ["1 Introduction", "References", "appendix", "a p p e n d i x", "Table of Contents", "line 3 of the page",
          " ", "\t", "(", ".", "x", "Chapter 2", "Figure 1: a plot", "[^1] note", "- item", "\x1c", "\x7f", "\n"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_ASCII), max_size=4).map("".join), max_size=12))
def test_ascii_texts_are_searched_without_the_branch_for_other_characters(texts):
    # (structure._hits drops the branch for a character outside ASCII where the joined text has none)
    from ctxmill.compile.structure import _hits
    from ctxmill.linescan import line_hits
    from ctxmill.model import Block, Kind

    blocks = [Block(Kind.PARAGRAPH, t, 1) for t in texts]
    for pattern in (structure._MAYBE_HEADING_RE, headings.MAYBE_TOC_TITLE_RE):
        assert structure._ascii_form(pattern) is not pattern
        joined = "\n" + "\n".join(texts)
        if joined.count("\n") == len(texts):
            assert _hits(blocks, pattern) == line_hits(pattern, joined)
        assert set(_hits(blocks, pattern)) >= {k for k, t in enumerate(texts) if "\n" in t}
