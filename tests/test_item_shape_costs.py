"""Issue 26, round twenty-one, the item stages' cost per text shape (speed only): a page whose
words out are its words in is not counted, citations.json's rows are written a column at a
time, the QA report groups unresolved items without a step an item, and a block with no mark
a callout needs is not read for callouts. Work is counted (calls, Python frames, elements
counted), never timed; each new road is compared with what it replaces on the same input."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

import pytest

from _counting import Counted
from ctxmill.compile import citations, conservation, quality
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import Document, Mention, PageStream, Unresolved
from ctxmill.render import graph, jsonfmt, textfile


def _python_calls(fn, module=None) -> int:
    """Python frames entered (calls and generator resumes) while ``fn`` runs; with ``module``,
    only the comprehensions' and generators' of that module (a step an item in its loops)."""
    calls = 0
    where = module.__file__ if module is not None else None

    def prof(frame, event, arg):
        nonlocal calls
        if event == "call" and (where is None or (frame.f_code.co_filename == where
                                                  and frame.f_code.co_name.startswith("<"))):
            calls += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


# ------------------------------------------------------------------ conservation: words in = words out


class _CountingCounter(Counter):
    counted = 0

    def update(self, iterable=None, /, **kw):
        if isinstance(iterable, list):
            _CountingCounter.counted += len(iterable)
        super().update(iterable, **kw)


def _table_rows(n: int) -> bytes:
    return "".join(f"| {i} | {i * 2} | x |\n" for i in range(n)).encode()  # fuzz.py's table_rows


def test_a_page_whose_words_out_are_its_words_in_is_not_counted(monkeypatch):
    doc = compile_document(_table_rows(5_000), CompileOptions(chunks=False), name="t.txt")
    want = conservation.measure(doc)
    assert want[0]["words_in"] == want[0]["words_out"] == 15_000
    _CountingCounter.counted = 0
    monkeypatch.setattr(conservation, "Counter", _CountingCounter)
    assert conservation.measure(doc) == want
    # a6b339d: the page's 15,000 words and document.md's 15,000, each counted (30,000)
    assert _CountingCounter.counted < 1_000, _CountingCounter.counted


@pytest.mark.parametrize("text", [
    # words out in another order, or fewer: counted, as before (the figures must not change)
    "# Title\n\n" + "".join(f"word{i} and more words {i}\n\n" for i in range(300)),
    "".join(f"── PAGE {p} / 9 ──\n" + "".join(f"line {i} of the page\n" for i in range(50)) for p in range(1, 4)),
    "Intro text con-\nservation and more.\n\n<b>bold</b> &amp; x\n\n" * 40,
])
def test_conservation_counts_are_those_of_counting_every_page(text, monkeypatch):
    doc = compile_document(text.encode(), CompileOptions(chunks=False), name="t.txt")
    got = conservation.measure(doc)

    # the same pages through the counting road only: pools made from lists as a6b339d made them
    class Never(list):
        def __eq__(self, other):
            return False

        def __ne__(self, other):
            return True

    real_words = conservation.words
    monkeypatch.setattr(conservation, "words", lambda t: Never(real_words(t)))
    assert conservation.measure(doc) == got


# ------------------------------------------------------------------ citations.json, a column at a time


def test_citations_rows_are_written_without_a_python_step_a_row():
    doc = Document(stream=PageStream(pages=[], kind="markdown"))
    doc.unresolved = [Unresolved(f"Section {i}", "crossref", f"no section numbered {i}", 1 + i // 100, None)
                      for i in range(10_000)]
    doc.mentions = [Mention(text="[1]", reference_ids=["ref-1"], section_id="s1", page=1, chunk_id=None,
                            block_id="b1", char_span=(3, 6))]
    calls = _python_calls(lambda: graph.citations_text(doc))
    # a6b339d: a generator resumed and a list comprehension entered for every row (> 20,000)
    assert calls < 200, calls
    got = json.loads(graph.citations_text(doc))
    assert got["unresolved"][9_999] == {"text": "Section 9999", "kind": "crossref",
                                        "reason": "no section numbered 9999", "page": 100, "section_id": None}
    assert got["mentions"][0]["char_span"] == [3, 6]


_VALUES = ["a\"b", "é", "{}", "{x}", None, 3, -1, [1, 2], ["x"], True, False, 2.5, "", (4,), {"k": [1]}, "\n\\"]


@pytest.mark.parametrize("seed", range(40))
def test_columns_are_the_standard_library_text(seed):
    rnd = random.Random(seed)
    keys = ("text", "x{y}", "n", "none", "mixed")
    n = rnd.randint(0, 8)
    pools = [_VALUES, ["s", "t"], [1, 2, 30], [None], _VALUES]
    rows = [tuple(rnd.choice(pools[j] if rnd.random() < 0.8 else _VALUES) for j in range(5)) for _ in range(n)]
    cols = [[r[j] for r in rows] for j in range(5)]
    got = textfile.text(["{\n  \"a\": ", *jsonfmt.columns_segments(keys, cols, "  ", "  "), "\n}"])
    want = json.dumps({"a": [dict(zip(keys, r, strict=True)) for r in rows]}, indent=2, ensure_ascii=False)
    assert got == want


# ------------------------------------------------------------------ quality: unresolved items grouped


def _crossrefs(n: int) -> bytes:  # fuzz.py's crossrefs
    return "".join(f"See Section {i} and Figure {i * 7 % 10} and Table {i % 10}.\n\n" for i in range(n)).encode()


def test_a_group_of_unresolved_items_is_not_read_item_by_item_for_its_examples():
    doc = compile_document(_crossrefs(3_000), CompileOptions(chunks=False), kind="markdown", name="x.md")
    assert len(doc.unresolved) == 9_000
    want = [(c.id, c.message, c.location) for c in doc.qa.checks]
    found = [c for c in want if c[0] in ("missing_figure_or_table", "missing_target")]
    assert [c[2]["count"] for c in found] == [3_000, 3_000, 3_000]
    assert "('Figure 0', 'Figure 7', 'Figure 4', 'Figure 1', ...;" in found[0][1]
    calls = _python_calls(lambda: quality.run(doc, CompileOptions(chunks=False)), quality)
    assert [(c.id, c.message, c.location) for c in doc.qa.checks] == want
    # a6b339d: a generator resumed for each item of a group to list all its texts (9,000
    # resumes) where four are shown, and one to list its pages
    assert calls < 1_000, calls


# ------------------------------------------------------------------ citations: callouts need a mark


def test_a_block_without_a_callout_mark_is_not_read_for_callouts(monkeypatch):
    text = "".join(f"See Section {i} and Figure {i} and Table {i}.\n\n" for i in range(500))
    text += "As shown by Smith (2020) and in [3].\n\n"
    calls = []
    real = citations._find_callouts

    def spy(ctx, block, text, base):
        calls.append(text)
        return real(ctx, block, text, base)

    monkeypatch.setattr(citations, "_find_callouts", spy)
    doc = compile_document(text.encode(), CompileOptions(chunks=False), kind="markdown", name="x.md")
    assert len([u for u in doc.unresolved if u.kind == "crossref"]) == 1_500
    # a6b339d: each of the 500 blocks of cross-references (none holds "(", "[", "^", "<" or a
    # character outside ASCII, and no entry is cited by its label alone)
    assert calls == ["As shown by Smith (2020) and in [3]."], len(calls)


def test_a_block_is_found_by_its_first_mark(monkeypatch):
    # fuzz.py's crossrefs: three marks ("Sec", "Fig", "Tab") in each block
    text = _crossrefs(500).decode() + "No mark here at all.\n\n" * 100
    marks = Counted(citations._ANY_MARK)
    monkeypatch.setattr(citations, "_ANY_MARK", marks)
    doc = compile_document(text.encode(), CompileOptions(chunks=False), kind="markdown", name="x.md")
    assert len([u for u in doc.unresolved if u.kind == "crossref"]) == 1_500
    # a block holding a mark: the first found in document.md, then its own text's search (1,000);
    # a6b339d: every mark of document.md (1,500), then the blocks' (2,000)
    assert marks.matches <= 1_050, marks.matches


def _bibliography_title_before(text: str) -> bool:
    """a6b339d's is_bibliography_title with c72f579's roman-counted continuation ("References II"):
    the whole test, the reference the early exit must agree with."""
    from ctxmill.compile import references as r
    if text.isascii() and "<" not in text and "[" not in text:
        squashed = r._NOT_WORD.sub("", text.lower())
        if not any(k in squashed for k in r._BIB_KEYS):
            return False
    t = r._norm(text)
    if not t or len(t) > 40:
        return False
    t = r._BIB_NUMBER.sub("", t)
    t = r._BIB_TRAILING_PAGES.sub("", t)
    t = r._BIB_LEADING_PAGE.sub("", t)
    return t in r.BIB_TITLES or t.replace(" ", "") in r._BIB_SQUASHED or r._BIB_CONTINUED.sub("", t) in r.BIB_TITLES


def test_a_long_paragraph_is_no_bibliography_title_after_its_head(monkeypatch):
    # (code_comments and table_rows: one 4.9 MB paragraph was lowered and squashed whole, most
    # of their structure stage, to learn that it is longer than any title)
    from ctxmill.compile import references as r
    seen = []

    class _Counted:
        def sub(self, repl, s):
            seen.append(len(s))
            return r.re.compile(r"[^\w]+").sub(repl, s)

    monkeypatch.setattr(r, "_NOT_WORD", _Counted())
    para = "// x = 1 + 2; the value of the References list 42 |\n" * 20_000
    assert r.is_bibliography_title.__wrapped__(para) is False
    assert sum(seen) <= 1_000, seen


@pytest.mark.parametrize("seed", range(3))
def test_the_early_exit_agrees_with_the_whole_test(seed):
    from ctxmill.compile import references as r
    rng = random.Random(seed)
    words = ["References", "REFERENCES", "7.", "Bibliography", "Works", "Cited", "12", "iv", "a",
             "Literature", "of", "the", "—", "<b>", "[1]", "x" * 30, "::", "  ", "\t", "é", "Réf"]
    texts = ["References " + " " * 300, " " * 300 + "Bibliography", "." * 280 + "References 12",
             "References" + "-" * 400, "7 " * 200 + "References"]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(1, 120))) for _ in range(400)]
    for t in texts:
        assert r.is_bibliography_title.__wrapped__(t) is _bibliography_title_before(t), t[:80]
