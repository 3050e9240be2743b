"""Issue 26, round twenty, the item stages' cost per text shape (speed only): a page of lines
that each end in a hyphen, a text of ASCII lines with a few that are not, and a paragraph of
'con-' lines are read without a Python step a line. Work is counted, never timed; each new road
is compared with the old one (kept here, or reached by its own switch) on generated inputs."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import Counted
from ctxmill.compile import conservation, normalize
from ctxmill.model import Line, Page

# ------------------------------------------------------------------ conservation._page_words


def _page_words_loop(page: Page, markup: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """bcea6c2's line loop: each line's words; a line ending in a hyphen carries its last word
    to the first word of the next line (a pair), lost where that line holds no word."""
    texts = [ln.text for ln in page.lines]
    line_words = [conservation.words(conservation._strip_markup(t) if markup else t) for t in texts]
    out, pairs, carry = [], [], None
    for i, ws in enumerate(line_words):
        if carry is not None and ws:
            pairs.append((carry, ws[0]))
            ws = ws[1:]
        carry = None
        if ws and re.search(r"\w-[^\S\n]*$", texts[i]):
            carry = ws.pop()
        out.extend(ws)
    if carry is not None:
        out.append(carry)
    return out, pairs


_PIECES = ["con", "cat", "-", " ", "  ", "a", "Σ", "ΑΣ", "é", "x_y", "_", "<b>", "</b>", "\\foo", "&amp;",
           "![a-b](c)", "12", "ﬁ", "²", "\t", "ß", "--", "-\t", "word", "Ⅷ", "٣", "\x01"]
_LINE = st.builds(lambda ps, end: "".join(ps) + end, st.lists(st.sampled_from(_PIECES), max_size=5),
                  st.sampled_from(["", "", "-", "- ", "a-", "Σ-", "b-\t"]))


@settings(max_examples=800, deadline=None)
@given(st.lists(_LINE, max_size=12), st.booleans())
def test_page_words_are_the_line_loop(lines, markup):
    page = Page(number=1, lines=[Line(text=t) for t in lines])
    out, firsts, seconds = conservation._page_words(page, markup)
    assert (out, list(zip(firsts, seconds, strict=True))) == _page_words_loop(page, markup)


@settings(max_examples=500, deadline=None)
@given(st.lists(_LINE, max_size=30))
def test_page_words_run_by_run_are_the_line_loop(lines):
    # the marked runs on every page, however dense its marks (a page is read whole past 1 in 8)
    page = Page(number=1, lines=[Line(text=t) for t in lines])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(conservation, "_RUNS_UNDER", 0)
        out, firsts, seconds = conservation._page_words(page, True)
    assert (out, list(zip(firsts, seconds, strict=True))) == _page_words_loop(page, True)


def test_a_page_of_hyphen_ends_is_read_in_one_scan(monkeypatch):
    # fuzz.py's hyphen_lines: every line ends in a hyphen, each pair of lines is a broken word
    page = Page(number=1, lines=[Line(text=f"con{'abcdefg'[i % 7]}-") for i in range(20_000)])
    expect = _page_words_loop(page, True)
    ascii_, unicode_ = Counted(conservation._WORD_ASCII), Counted(conservation._WORD)
    monkeypatch.setattr(conservation, "_WORD_ASCII", ascii_)
    monkeypatch.setattr(conservation, "_WORD", unicode_)
    out, firsts, seconds = conservation._page_words(page, True)
    assert (out, list(zip(firsts, seconds, strict=True))) == expect
    assert len(expect[1]) == 10_000
    # bcea6c2: one findall a line (20,000)
    assert ascii_.calls + unicode_.calls <= 2, (ascii_.calls, unicode_.calls)


def test_the_pairs_pattern_reads_the_marked_lines_not_the_page(monkeypatch):
    # a page of OCR-engine text with a few words broken at a line end, runs of marked lines among
    # them, one at the page's end: the pairs pattern was tried at every letter of the page
    lines = [f"Σome plain words of line {i} here" for i in range(3000)]
    for i, end in ((10, "con-"), (11, "ser-"), (12, "va-"), (500, "word-  "), (501, ""), (2000, "αβ-"), (2999, "last-")):
        lines[i] += " " + end
    page = Page(number=1, lines=[Line(text=t) for t in lines])
    expect = _page_words_loop(page, True)
    pairs = Counted(conservation._PAIRS)
    monkeypatch.setattr(conservation, "_PAIRS", pairs)
    out, firsts, seconds = conservation._page_words(page, True)
    assert (out, list(zip(firsts, seconds, strict=True))) == expect
    assert len(expect[1]) == 5  # (and "last" carried off the page's end)
    # four runs: the marked lines and the line after each, 9 of 3,000 lines (298a037: the page)
    assert pairs.calls == 4 and pairs.chars < 10 * 45, (pairs.calls, pairs.chars)


def test_ascii_lines_around_a_few_others_are_split_not_matched(monkeypatch):
    # fuzz.py's one_char_refs: a small paper with accented names, then a long ASCII list
    text = "Émile Zoë and Σ\n" + "".join(f"[{i}] x\n" for i in range(50_000)) + "naïve\n" + "- x\n" * 1000
    low = text.lower()
    expect = re.findall(r"[^\W_]+", low)
    pattern = Counted(conservation._WORD)
    monkeypatch.setattr(conservation, "_WORD", pattern)
    assert conservation._find_words(low) == expect
    # only the two lines outside ASCII go to the pattern (bcea6c2: all ~400,000 characters)
    assert pattern.chars < 50, pattern.chars


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["ab\n", "é\n", "x y\n", "\n", "Σσ z\n", "a_b\n", "²\n", "12 c"]), max_size=30),
       st.sampled_from([1, 3, 4096]))
def test_words_in_pieces_are_the_patterns(lines, gap):
    low = "".join(lines).lower()
    old = conservation._ASCII_GAP, conservation._DENSE
    conservation._ASCII_GAP, conservation._DENSE = gap, 0  # (pieces however dense)
    try:
        assert conservation._find_words(low) == re.findall(r"[^\W_]+", low)
    finally:
        conservation._ASCII_GAP, conservation._DENSE = old


# ------------------------------------------------------------------ normalize.join_lines

_WORDS = ["con", "cat", "ab", "x", "Con", "A", "é", "1", "_", " ", "-", "word", "q" * 60, "Z" * 70, "ß", "(", "a-b"]
_PARA_LINE = st.builds(lambda ws, end: "".join(ws) + end, st.lists(st.sampled_from(_WORDS), max_size=3),
                       st.sampled_from(["-", "", "a-", "b-", "B-"]))
_CHAIN_LINE = st.builds(lambda w, end: w + end, st.sampled_from(["con", "a", "ab", "xyz", "Ab", "a1", "a_b", "é"]),
                        st.sampled_from(["a-", "b-", "-", "B-"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(_PARA_LINE, max_size=10), st.lists(_CHAIN_LINE, min_size=0, max_size=150),
       st.lists(_PARA_LINE, max_size=10),
       st.lists(st.sampled_from(["conacon", "cat", "con", "ab", "word", "concat", "a-b"]), max_size=4))
def test_join_lines_with_the_longest_word_is_the_lookups(before, chain, after, known):
    # ``longest`` lets join_lines skip lookups (and, this round, take a run-on word's lines in
    # one step); without it every junction is looked up: the two must agree
    lines = before + chain + after
    vocab = Counter(dict.fromkeys(known, 1))
    longest = max(map(len, vocab), default=0)
    assert normalize.join_lines(lines, vocab, longest) == normalize.join_lines(lines, vocab, None)


def test_a_paragraph_of_broken_lines_is_reflowed_without_a_step_a_line(monkeypatch):
    # fuzz.py's hyphen_lines: one paragraph of 20,000 'con-' lines is one word, re-flowed
    lines = [f"con{'abcdefg'[i % 7]}-" for i in range(20_000)]
    expect = normalize.join_lines(lines, Counter(), None)
    assert expect == "".join(t[:-1] for t in lines[:-1]) + lines[-1]
    runs = Counted(normalize._WORD_RUN_RE)
    monkeypatch.setattr(normalize, "_WORD_RUN_RE", runs)
    assert normalize.join_lines(lines, Counter(), 0) == expect
    # a step a line until the word outgrows every word (200 characters), then none
    # (bcea6c2: 20,000)
    assert runs.calls < 100, runs.calls


# ------------------------------------------------------------------ citations: cross-references


def test_unresolved_fields_by_position_are_the_named_ones():
    # citations._add_crossref builds Unresolved by position (a call with keywords costs more,
    # 240,000 times in 4 MB of cross-references): the model's field order is what it relies on
    from ctxmill.model import Unresolved

    assert Unresolved("Section 9", "crossref", "no section numbered 9", 3, "s1") == Unresolved(
        text="Section 9", kind="crossref", reason="no section numbered 9", page=3, section_id="s1")


def test_a_cross_reference_to_one_number_is_not_scanned_again(monkeypatch):
    # fuzz.py's crossrefs: paragraphs of "See Section i and Figure j and Table k." to nothing
    from ctxmill.compile import citations
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    text = "".join(f"See Section {i} and Figure {i * 7 % 1000} and Table {i % 100}.\n\n" for i in range(1, 1001))
    numbers = Counted(citations._XREF_NUM)
    monkeypatch.setattr(citations, "_XREF_NUM", numbers)
    doc = compile_document(text.encode(), CompileOptions(chunks=False), kind="markdown", name="x.md")
    xrefs = [u for u in doc.unresolved if u.kind == "crossref"]
    assert len(xrefs) == 3000
    assert [u.text for u in xrefs[:3]] == ["Section 1", "Figure 7", "Table 1"]
    # a list of one number is its own number (bcea6c2: the number pattern run over each, 3,000)
    assert numbers.calls == 0, numbers.calls


def test_a_block_the_mark_scan_found_is_not_searched_again(monkeypatch):
    # fuzz.py's crossrefs: the scan of document.md for marks finds each block's first one; the
    # block loop does not search the block again for a mark (298a037: a second search a block)
    from ctxmill.compile import citations
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    text = "".join(f"See Section {i} and Figure {i * 7 % 1000} and Table {i % 100}.\n\n" for i in range(1, 1001))
    marks = Counted(citations._ANY_MARK)
    monkeypatch.setattr(citations, "_ANY_MARK", marks)
    doc = compile_document(text.encode(), CompileOptions(chunks=False), kind="markdown", name="x.md")
    assert sum(u.kind == "crossref" for u in doc.unresolved) == 3000
    assert marks.calls <= 1001, marks.calls


# ------------------------------------------------------------------ references.reads_as_reference


def _reads_as_reference_scans(text: str) -> bool:
    """bcea6c2's test: every pattern run over the entry's text."""
    from ctxmill.compile import references as r

    t = text.lstrip()
    m = r._LABEL.match(t) or r._ALPHA_LABEL.match(t) or r._ay_label(t)
    if m:
        t = t[m.end():]
    return bool(r._REF_WORD.search(t) or r._ANY_YEAR.search(t) or r._DOI.search(t))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["x", "[1] ", "[2019] ", "1. ", "- ", ".", " ", "19", "20", "2020", "1999a",
                                 "10.", "10.1234/abc", "doi:", "/", "ab", "é", "٢٠٢٠", "\n", "(12)"]), max_size=8))
def test_reads_as_reference_is_the_scans(pieces):
    from ctxmill.compile import references

    text = "".join(pieces)
    assert references.reads_as_reference(text) == _reads_as_reference_scans(text)


def test_one_character_entries_are_not_scanned_for_years_or_dois(monkeypatch):
    # fuzz.py's one_char_refs: a list of one-character lines holds no year and no DOI
    from ctxmill.compile import references

    years, dois = Counted(references._ANY_YEAR), Counted(references._DOI)
    monkeypatch.setattr(references, "_ANY_YEAR", years)
    monkeypatch.setattr(references, "_DOI", dois)
    entries = ["x", "[1] x", "- x", "1. x", ".", "x\n- x\n.\n1. x"] * 200
    assert not any(references.reads_as_reference(t) for t in entries)
    assert references.reads_as_reference("[3] x 2020") and references.reads_as_reference("10.1234/5678")
    # (bcea6c2: both patterns run over each of the 1,200 entries)
    assert years.calls == 1 and dois.calls == 1, (years.calls, dois.calls)


# ------------------------------------------------------------------ citations: round twenty-two


def test_the_marks_of_a_bibliography_are_not_searched_one_by_one(monkeypatch):
    # fuzz.py's refs: every entry holds a "[": each was found by its own search, and the block
    # then skipped by the loop that reads the blocks found
    from ctxmill.compile import citations
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    marks = Counted(citations._ANY_MARK)
    monkeypatch.setattr(citations, "_ANY_MARK", marks)
    text = "A Paper\n\nSee Section 2 and the work [1].\n\nReferences\n\n" + "".join(
        f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020.\n" for i in range(1, 501))
    doc = compile_document(text.encode(), CompileOptions(chunks=False), name="x.txt")
    assert len(doc.references) == 500
    assert [(m.text, m.reference_ids) for m in doc.mentions] == [("[1]", ["ref-1"])]
    assert [u.text for u in doc.unresolved] == ["Section 2"]
    # (e5b411b: 503, a search for each entry's mark)
    assert marks.calls < 10, marks.calls


def test_entries_without_year_or_authors_are_not_labelled(monkeypatch):
    # every entry past MAX_PARSED_REFERENCES holds its text alone: its one label (a word) can
    # neither be linked with a year nor cited alone (that needs a blank), so none is worked out
    from ctxmill.compile import citations
    from ctxmill.model import Reference

    words = []
    first_word = citations._first_word
    monkeypatch.setattr(citations, "_first_word", lambda t: words.append(t) or first_word(t))
    refs = [Reference(id=f"ref-{i}", raw=f"Entry number {i} of the list") for i in range(1, 1001)]
    refs.append(Reference(id="ref-1001", raw="Kwa et al. Measuring things.", authors=["Kwa et al."]))
    refs.append(Reference(id="ref-1002", raw="Anonymous page, 2020.", year="2020"))
    linker = citations.Linker(refs, {})
    assert "kwa et al" in linker.labels["ref-1001"]
    assert linker.labels["ref-1002"] == {"anonymous"}
    assert linker.label_index()[0] == [("kwa et al", ["ref-1001"])]
    assert linker.link("Anonymous", "2020") == (["ref-1002"], None)
    # (e5b411b: 1,001, one for each entry without authors)
    assert len(words) == 1, len(words)


# ------------------------------------------------------------------ references: a line its own entry


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=12), st.integers(1, 3), st.sampled_from([None, 1, 2, 3]), st.sampled_from([None, 2]),
       st.sampled_from([None, "4."]), st.sampled_from([{}, {"bibliography": True, "bib_part": 2, "bib_item": True}]))
def test_a_block_made_its_own_entry_is_the_entry_block(text, page, page_end, level, number, attrs):
    import copy

    from ctxmill.compile import references
    from ctxmill.model import Block, BlockKind

    b = Block(BlockKind.PARAGRAPH, text, page, page_end=page_end, id="b7", level=level, number=number,
              section_id="s2", bbox=(1.0, 2.0, 3.0, 4.0), attrs=attrs)
    want = references._entry_block(b, references.join_lines([b.text]), b.last_page, 1, b.id)
    assert references._block_as_entry(copy.deepcopy(b)) == want


def test_a_list_of_one_entry_a_line_keeps_the_lines_blocks():
    # fuzz.py's refs: "References", then an entry a line; each line's block becomes its entry
    # (298a037: a second Block built for each, the line's own dropped), the same entries
    from ctxmill.compile import pipeline
    from ctxmill.compile.options import CompileOptions
    from ctxmill.model import BlockKind, Document
    from ctxmill.sources import load_source

    text = "References\n\n" + "".join(f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020.\n" for i in range(300))
    options = CompileOptions()
    doc = Document(stream=load_source(text.encode(), options, name="refs.txt"))
    for name, target, _ in pipeline.STAGES:
        if name == "references":
            break
        pipeline._resolve(target)(doc, options)
    before = list(doc.blocks)  # (kept alive: no id of theirs is another object's)
    lines = set(map(id, before))
    pipeline._resolve("ctxmill.compile.references:run")(doc, options)
    entries = [b for b in doc.blocks if b.kind is BlockKind.REFERENCE]
    assert [e.text for e in entries] == [f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020." for i in range(300)]
    assert [e.attrs for e in entries[:2]] == [{"bibliography": True, "lines": 1, "bib_part": 1, "reference_id": "ref-1"},
                                              {"bibliography": True, "lines": 1, "bib_part": 1, "reference_id": "ref-2"}]
    assert all(id(e) in lines for e in entries)


# ------------------------------------------------------------------ report: counts once


def test_the_report_counts_once_for_qa_md_and_metrics(tmp_path, monkeypatch):
    # qa.md and metrics.json print the same counts (ctxmill.counts), each of which reads every
    # unresolved item: counted once for both (298a037: twice)
    import json
    from unittest import mock

    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import report

    text = "".join(f"See Section {i} and Figure {i * 7 % 100} and Table {i % 10}.\n\n" for i in range(1, 301))
    doc = compile_document(text.encode(), name="x.txt")
    spy = mock.Mock(wraps=report.counts)
    monkeypatch.setattr(report, "counts", spy)
    report.write(doc, tmp_path, None)
    assert spy.call_count == 1
    monkeypatch.undo()
    assert (tmp_path / "qa.md").read_text() == report.qa_markdown(doc)
    assert json.loads((tmp_path / "metrics.json").read_text()) == json.loads(json.dumps(report.metrics_json(doc)))
    assert report.metrics_json(doc)["counts"]["crossrefs_unresolved"] == 900


# ------------------------------------------------------------------ metadata: a byline's words

_OLD_NAME_WORDS = (r"[A-Z][\w'’.\-]*(?:\s+(?:[A-Z][\w'’.\-]*|van|von|de|der|da|bin|al|la|le|di|du)){1,4}"
                   r"[\s,;*]*(?:\Z|[,;]|\[\^|<sup>|and\s)")  # (298a037's, without the look-ahead)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Ann", "Lee", "Section", "Figure", "Brand", "van", "de", "delta", "and",
                                           "3", "O'Neil", "J.", "é", "Émile", "x", "[^1]", "<sup>2</sup>", "’"]),
                          st.sampled_from([" ", "", "  ", "\n", "\t", ", ", " and ", "*", ";", "-", "\u00a0"])),
                max_size=10))
def test_the_name_words_look_ahead_finds_what_the_pattern_found(parts):
    # fuzz.py's crossrefs: a capitalised word before a number ("Section 3") is refused by the
    # look-ahead, where the pattern gave the word back a letter at a time; the same matches
    from ctxmill.compile import metadata

    text = "".join(a + b for a, b in parts)
    old_words, old_piece = re.compile(_OLD_NAME_WORDS), re.compile(r"(?:\A|[,;\]>]|\sand\s)[\s,;*]*" + _OLD_NAME_WORDS)
    for new, old in ((metadata._NAME_WORDS_RE, old_words), (metadata._NAME_PIECE_RE, old_piece)):
        got, want = new.search(text), old.search(text)
        assert (got and got.span()) == (want and want.span()), text
