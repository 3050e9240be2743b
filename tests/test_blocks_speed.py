"""The blocks stage's shortcut for a line of one span (issue 13, speed only): two lines in three
of a PDF page hold one span, and their features and text must be what the general path gives."""

from __future__ import annotations

import itertools
import re

from ctxmill.compile.blocks import _L, span_text
from ctxmill.model import Line, Span

TEXTS = ["Introduction", "  2.1  Results\tand  more ", "I. INTRODUCTION", "ABC def", "", "   ", "x",
         "A  B", "tab\there", "MIXED Case WORDS", "ÉTUDE DES CAS", "1 2 3"]
ATTRS = ("size", "bold", "mono", "italic", "first_bold", "caps", "smallcaps", "lead_bold", "wide", "text",
         "x0", "x1", "top", "bottom", "page")


def _general(span: Span, text: str) -> _L:
    # a second span that is an empty superscript without a box changes none of the features,
    # and sends the line through the general loops
    blank = Span(text="", bbox=None, size=span.size, superscript=True)
    return _L(Line(text=text, bbox=(72.0, 100.0, 300.0, 110.0), spans=[span, blank]), 3)


def test_one_span_line_features_are_the_general_paths():
    for text, size, (bold, mono, italic) in itertools.product(TEXTS, (9.96, 10.0, 12.04),
                                                              itertools.product((False, True), repeat=3)):
        span = Span(text=text, bbox=(72.0, 100.0, 300.0, 110.0), size=size, bold=bold, italic=italic, mono=mono)
        fast = _L(Line(text=text, bbox=(72.0, 100.0, 300.0, 110.0), spans=[span]), 3)
        slow = _general(span, text)
        for name in ATTRS:
            assert getattr(fast, name) == getattr(slow, name), (text, size, bold, mono, italic, name)
            assert type(getattr(fast, name)) is type(getattr(slow, name)), (text, name)


def test_one_span_line_text_collapses_blanks_as_the_regex_did():
    for text in [*TEXTS, "a \t b", "\t", "a  ", "  a", "a\u00a0 b", "two  spaces  twice"]:
        line = Line(text=text, bbox=(0.0, 0.0, 10.0, 10.0), spans=[Span(text=text, bbox=(0.0, 0.0, 10.0, 10.0))])
        assert span_text(line) == re.sub(r"[ \t]+", " ", text).strip()
    # several spans: the same collapsing after the spans are joined
    spans = [Span(text="Deep  ", bbox=(0.0, 0.0, 20.0, 10.0), size=10), Span(text="\tlearning", bbox=(20.0, 0.0, 60.0, 10.0), size=10)]
    assert span_text(Line(text="Deep learning", bbox=(0.0, 0.0, 60.0, 10.0), spans=spans)) == "Deep learning"
