"""Issue 26, speed-only rewrites of the text path hold their old results: each short cut is
checked against the slow way it replaced, on generated input (the shapes of benchmarks/fuzz.py
and random text). Timing itself is measured in benchmarks/fuzz.py, not here."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.compile import conservation
from ctxmill.compile.pipeline import compile_document
from ctxmill.sources import engines

_PIECES = ["", " ", "\t", "\u00a0", "\u2003", "-", "=", "─", "—", "#", "##", "<", "<!--", "-->", "{", "}", "[", "]",
           "Page", "PAGE", "page", "3", "12", "/", "of", "MISSING_PAGE_EMPTY", ":", "break", "Split", "word", "x",
           "é", "Ä", "ǅ", "K", "İ", "_", "ﬁ", "²", "\u200b", "Footnote", "***", "---", "___"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_page_markers_start_with_a_marker_character(parts):
    # to_pages tries the marker patterns only on lines whose first non-blank character is in
    # _MARKER_FIRST: no line without one matches any of them
    line = "".join(parts)
    hit = any(rx.match(line) for rx in engines._PAGE_MARKERS) or engines._MISSING_PAGE.match(line)
    if hit:
        assert line.lstrip()[:1] in engines._MARKER_FIRST
    if engines._MISSING_PAGE.match(line):
        assert line.lstrip()[:1] == "["


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ09_ -\n.éÄǅKİﬁ²\u00a0\u0660ª")), max_size=60))
def test_ascii_word_pattern_finds_the_same_words(text):
    low = text.lower()
    assert conservation._find_words(low) == conservation._WORD.findall(low)


def _pages_with_headers(rnd: random.Random, pages: int, header_words: int) -> bytes:
    """Raw OCR text whose pages start with the same running header of ``header_words`` words:
    the header is furniture, so each page's words reach conservation's removal reasons."""
    head = "the " + " ".join(f"z{i}" for i in range(header_words))  # (under 100 characters)
    out = []
    for p in range(1, pages + 1):
        out.append(f"── PAGE {p} / {pages} ──\n{head}\n")
        out.extend(f"line {rnd.randint(0, 40)} of page text\n" for _ in range(12))
    return "".join(out).encode()


def test_conservation_places_removed_words_the_same_either_way(monkeypatch):
    # the first copy of a word taken for a removal reason is found by list.index for the first
    # _SCANS words of a page and from a table of every word's places after that: both give the
    # same removal order and counts as the table alone
    rnd = random.Random(26)
    for header_words in (2, 24):
        doc = compile_document(_pages_with_headers(rnd, 8, header_words), name="headers.txt")
        got = conservation.measure(doc)
        monkeypatch.setattr(conservation, "_SCANS", 0)  # the table for every word (the old way)
        table = conservation.measure(doc)
        monkeypatch.setattr(conservation, "_SCANS", 10**9)  # list.index for every word
        scans = conservation.measure(doc)
        monkeypatch.undo()
        assert got == table == scans
        rows = got[0]["pages"]
        # 2 words: list.index only; 25: past _SCANS, the table too
        assert max(row["words_removed"] for row in rows) == header_words + 1


def test_engine_text_lines_keep_their_page_markers_and_footnotes():
    text = ("intro line\n  ── PAGE 2 / 3 ──\nsecond page\n\u2003<!-- PageBreak -->\nthird\n[MISSING_PAGE_EMPTY:4]\n"
            "Footnote 1: a note\n## References\n- [^3]: A. Author. Title. 2020.\n")
    got = engines.to_pages(text, "nougat")
    assert [n for n, _ in got.pages][:2] == [None, 2]
    assert got.missing_pages == [4]
    body = "\n".join(b for _, b in got.pages)
    assert "[^1]: a note" in body and "[3] A. Author" in body
    assert not re.search(r"PAGE 2|PageBreak|MISSING", body)


def test_addresses_and_links_are_listed_once_in_first_seen_order():
    # metadata keeps them in sets/dicts now (a list's `in` made 20,000 addresses take 68 CPU-s):
    # the same lists as before, each once, in the order the text first gives them
    lines = []
    for i in range(300):
        lines.append(f"contact u{i % 120}@ex{i % 7}.org. and https://ex.org/p/{i % 90}, again https://ex.org/p/{i % 90}")
    doc = compile_document(("A Title\n\n" + "\n\n".join(lines) + "\n").encode(), name="many.txt")
    want_emails = list(dict.fromkeys(f"u{i % 120}@ex{i % 7}.org" for i in range(300)))
    want_urls = list(dict.fromkeys(f"https://ex.org/p/{i % 90}" for i in range(300)))
    assert doc.metadata.emails == want_emails
    assert doc.metadata.urls == want_urls


def test_unresolved_cross_references_are_split_by_reason():
    # quality splits them once by reason (a list's `not in` of dataclasses was 10 million
    # comparisons for 6,000 of them): figures/tables that are not there, other targets apart
    text = "A Title\n\n# Introduction\n\n" + "".join(
        f"See Section {i + 5} and Figure {i + 3} and Table {i + 2}.\n\n" for i in range(40))
    doc = compile_document(text.encode(), name="xrefs.md")
    checks = {c.id: c for c in doc.qa.checks}
    figtab = [u for u in doc.unresolved if u.kind == "crossref" and re.search(r"no (figure|table)", u.reason)]
    rest = [u for u in doc.unresolved if u.kind == "crossref" and u not in figtab]
    assert figtab and rest
    assert "missing_figure_or_table" in checks and "missing_target" in checks


def test_a_pdf_page_with_nan_coordinates_compiles():
    # benchmarks/fuzz.py seed 1203, PDF case 482 (a flipped byte): a span at x0 = NaN made
    # layout's round() raise, exit 1 for the whole document
    from ctxmill.compile.pipeline import compile_stream
    from ctxmill.model import Line, Page, PageStream, Span

    nan, inf = float("nan"), float("inf")
    lines = []
    for i in range(12):
        y = 100.0 + 14 * i
        x0 = nan if i % 3 == 0 else 72.0
        spans = [Span(f"{200 + i}", (x0, y, 80.0, y + 10), size=9.0),
                 Span(f"Line {i} of the damaged page with some words.", (100.0, y, inf if i == 4 else 400.0, y + 10),
                      size=nan if i == 5 else 10.0)]
        lines.append(Line(" ".join(s.text for s in spans), (x0, y, 400.0, y + 10), spans))
    page = Page(1, lines, width=612.0, height=nan, images=[(nan, 0.0, 10.0, 10.0)])
    doc = compile_stream(PageStream(pages=[page], kind="pdf"))
    assert "Line 7 of the damaged page" in doc.markdown


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_PIECES + ["<--- Page Split --->", "{12}--------", "<!-- page 3 -->",
                                            "<!-- PageBreak -->", "[MISSING_PAGE_EMPTY:2]", "PAGE 2 / 9"]),
                max_size=8))
def test_page_markers_by_first_character(parts):
    # to_pages tries on a line only the markers listed for its first non-blank character, in the
    # order of _PAGE_MARKERS: the same first match as trying them all
    line = "".join(parts)
    first = line.lstrip()[:1]
    every = next((rx for rx in engines._PAGE_MARKERS if rx.match(line)), None)
    if first not in engines._MARKER_FIRST:
        assert every is None
        return
    assert next((rx for rx in engines._MARKERS_BY_FIRST[first] if rx.match(line)), None) is every
