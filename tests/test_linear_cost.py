"""Cost linear in the input, whatever its shape (issue 26).

These tests count work instead of timing it (speed is measured by `benchmarks/fuzz.py
--scaling`): a stage that rescans the rest of the input from every line does work that grows
with the square of the input, and the count shows it on any machine, loaded or not.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _slices import slices
from ctxmill.compile import blocks
from ctxmill.compile.pipeline import compile_document


def _count_calls(monkeypatch, module, name):
    calls = {"n": 0}
    real = getattr(module, name)

    def counted(*a, **k):
        calls["n"] += 1
        return real(*a, **k)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("line", ["# Heading", "// a comment", "x = foo(y)"])
def test_a_long_run_of_code_like_lines_is_scored_once_per_line(monkeypatch, line):
    # 1,500 "# Heading" lines: every one starts a run of comment-like lines; the run test
    # rescanned the run from each of them (4.6 million code scores for 2,142 lines)
    calls = _count_calls(monkeypatch, blocks, "_code_score")
    n = 1500
    text = "".join(f"{line} {i}\n" for i in range(n))
    doc = compile_document(text.encode(), kind="ocr_text", name="runs.txt")
    assert calls["n"] <= 2 * n
    assert doc.blocks  # it compiled, it did not just stop early


def test_a_long_run_of_tiny_paragraphs_becomes_few_blocks_and_keeps_every_word():
    # every stage costs about the same per block: 10,000 one-letter paragraphs were 10,000
    # blocks, 200 times the cost of the same bytes of prose
    text = "An opening paragraph of ordinary prose, long enough to be one.\n\n" + "".join(
        f"{'abcdefghij'[i % 10]}{i}\n\n" for i in range(10_000)) + "A closing paragraph.\n"
    doc = compile_document(text.encode(), name="tiny.md")
    assert len(doc.blocks) < 100
    words = doc.markdown.split()
    assert all(f"{'abcdefghij'[i % 10]}{i}" in words for i in range(0, 10_000, 97))
    assert sum(w[:1] in "abcdefghij" and w[1:].isdigit() for w in words) == 10_000


def test_a_short_run_of_tiny_paragraphs_stays_as_written():
    text = "Intro paragraph of prose here.\n\n" + "".join(f"x{i}\n\n" for i in range(20)) + "The end.\n"
    doc = compile_document(text.encode(), name="short.md")
    assert "\n\nx7\n\n" in doc.markdown


def _join_lines_reference(lines, vocab=None):
    """join_lines as it was written first: one growing string, searched whole per line."""
    import re

    out = ""
    for raw in lines:
        t = raw.strip()
        if not t:
            continue
        if not out:
            out = t
            continue
        if out.endswith("-") and len(out) >= 2 and out[-2].isalpha() and t[:1].isalpha():
            head, tail = re.search(r"(\w+)-$", out), re.match(r"(\w+)", t)
            keep = False
            if head and tail:
                h, w = head.group(1), tail.group(1)
                if vocab is not None and vocab.get((h + w).lower(), 0) > 0:
                    keep = False
                elif vocab is not None and vocab.get(f"{h}-{w}".lower(), 0) > 0:
                    keep = True
                elif vocab is not None and len(h) >= 4 and len(w) >= 4 and vocab.get(h.lower(), 0) > 0 \
                        and vocab.get(w.lower(), 0) > 0:
                    keep = True
                elif t[:1].isupper() and h[:1].isupper():
                    keep = True
            out = out + t if keep else out[:-1] + t
        else:
            out += " " + t
    return out


_PIECES = ["a", "B", "-", " ", "x-", "Co-", "de", "1", "é", "-y", "", "con-", "servation", "Ab"]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=4).map("".join), max_size=10),
       st.sets(st.sampled_from(["conservation", "abde", "con-servation", "code", "co-de", "abab"])))
def test_join_lines_re_flows_as_before(lines, words):
    from collections import Counter

    from ctxmill.compile.normalize import join_lines

    vocab = Counter(words)
    assert join_lines(lines, vocab) == _join_lines_reference(lines, vocab)


def test_re_flowing_a_paragraph_of_hyphenated_lines_looks_back_a_bounded_way(monkeypatch):
    # 'cona-\nconb-\n...' is one word growing by a line at a time: the search for the word
    # before each hyphen went over the whole paragraph so far (200 KB: 37 s)
    from ctxmill.compile import normalize

    seen = []
    real = normalize._HYPHEN_END_RE

    class Spy:
        def search(self, s, *a):
            seen.append(len(s))
            return real.search(s, *a)

    monkeypatch.setattr(normalize, "_HYPHEN_END_RE", Spy())
    lines = [f"con{'abcdefg'[i % 7]}-" for i in range(20_000)]
    out = normalize.join_lines(lines)
    assert len(seen) == len(lines) - 1 and max(seen) <= normalize._LONGEST_WORD + 2
    assert out.startswith("conaconbconc") and len(out) == 4 * 20_000 + 1


class _CountingSet(set):
    probes = 0

    def __contains__(self, item):
        _CountingSet.probes += 1
        return super().__contains__(item)


def test_section_ids_of_many_sections_with_one_title_are_found_in_linear_probes():
    from ctxmill.compile.structure import section_id

    _CountingSet.probes = 0
    used, next_k = _CountingSet(), {}
    ids = [section_id(None, "Notes", used, next_k) for _ in range(3000)]
    assert ids[:3] == ["s-notes", "s-notes-2", "s-notes-3"] and ids[-1] == "s-notes-3000"
    assert _CountingSet.probes <= 3 * 3000  # it was 4.5 million: every suffix tried again


def test_many_sections_with_one_title_compile_with_unique_ids():
    text = "Intro.\n\n" + "## Notes\n\nSome text here.\n\n" * 2000
    doc = compile_document(text.encode(), name="notes.md")
    ids = [s.id for s in doc.sections]
    assert len(ids) == 2000 and len(set(ids)) == 2000 and ids[1999] == "s-notes-2000"


# --- plain lines skip the block rules; they must not change what the rules decide ------------

_LINES = ["", "", "a", "word", "Hello world, this is prose.", "    x = 1", "- item", "1. one", "a) x", "(ii) y",
          "for x in y:", "def f(x):", "}", "x,", "foo(bar)", "# Heading", "## H2", "Table 1: cap", "1 Introduction",
          "A.1 Appendix", "References", "Abstract", "$$", "$$ x $$", "[^1]: note", "| a | b |", "|---|---|",
          "<table><tr><td>1</td></tr></table>", "```py", "~~~", "![a](b.png)", "// c", "int x;", "٣ arabic",
          "\u3000wide", "x" * 17, "Σ", "• bullet", "return y", "import os", "if", "  indented text"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=150), st.integers(1, 3), st.booleans())
def test_plain_lines_take_the_short_road_to_the_same_blocks(lines, repeat, markdown):
    from ctxmill.model import Line, Page

    lines = lines * repeat  # repeats make runs of 64+ tiny paragraphs
    page = Page(number=2, lines=[Line(text=t) for t in lines])
    fast = blocks._coalesce_tiny(blocks._text_blocks(page, markdown), 2)
    every_rule = blocks._coalesce_tiny(blocks._text_blocks(page, markdown, set(range(len(lines)))), 2)
    assert fast == every_rule


def test_the_block_rules_run_on_few_lines_of_a_page_of_plain_lines(monkeypatch):
    calls = _count_calls(monkeypatch, blocks, "_code_score")
    text = "Title line here\n\n" + "word\n" * 20_000 + "\nx = f(y)\n"
    doc = compile_document(text.encode(), name="words.md")
    assert calls["n"] <= 5
    assert doc.markdown.count("word") == 20_000


# --- token offsets of a long text, window by window -------------------------------------------

_CHARS = list("abc XYZ  .,;-'\"\t") + ["é", "e\u0301", "ﬁ", "\u00a0", "¨", "ﾞ", "가", "😀", "𝐀", "٣", "\u3000", "   ",
                                       "'s", "'ll", "\u2028", "ǆ", "Σ", "12", "$", "|"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_CHARS), max_size=400).map("".join), st.sampled_from([8, 40, 200]))
def test_windowed_token_offsets_are_the_offsets_of_the_whole_text(text, window):
    from ctxmill.render import chunks
    from ctxmill.tokens import token_offsets

    old = chunks._WINDOW
    chunks._WINDOW = window
    try:
        got = [a + y for a, ends in chunks._offsets(text) for y in ends]
    finally:
        chunks._WINDOW = old
    assert got == [y for _, y in token_offsets(text)]


# --- a long run of bodiless Markdown headings is no outline --------------------------------------


def test_a_long_run_of_bodiless_headings_is_read_as_lines_of_text():
    # 35,000 "# Heading n" lines were 35,000 sections (ids, graph nodes, every stage's share):
    # 0.17 MB/s against prose 0.5
    text = "".join(f"# Heading {i}\n" for i in range(3000)) + "\n## Closing part\n\nSome text under it.\n"
    doc = compile_document(text.encode(), name="many-headings.md")
    assert [s.title for s in doc.sections] == ["Closing part"]
    words = doc.markdown.split()
    assert sum(w == "Heading" for w in words) == 3000 and "2999" in words
    assert len(doc.blocks) < 100


def test_a_run_of_headings_shorter_than_the_limit_stays_an_outline():
    from ctxmill.compile.blocks import HEADING_RUN

    text = "".join(f"## Part {i}\n\n" for i in range(HEADING_RUN)) + "Text.\n"
    doc = compile_document(text.encode(), name="outline.md")
    assert len(doc.sections) == HEADING_RUN  # the last one has text under it; the rest are < HEADING_RUN
    text = "Intro.\n\n" + "".join(f"## Part {i}\n\nBody {i}.\n\n" for i in range(200))
    assert len(compile_document(text.encode(), name="sections.md").sections) == 200


# --- ASCII text counted piece by piece ----------------------------------------------------------

_ASCII = list("aZ09 .,-'\"|#\t\n\r\x0b\x0c\x00\x1c\x1f\x7f~") + ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "  ",
                                                                "\n\n", " \n ", "word", " 123", "x" * 30]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_ASCII), max_size=200).map("".join), min_size=1, max_size=4))
def test_ascii_text_counted_piece_by_piece_has_the_tokenizers_counts_and_ends(texts):
    from ctxmill.render import token_pieces
    from ctxmill.tokens import count_many, token_offsets

    assert token_pieces.usable()
    assert token_pieces.count_ascii(texts) == count_many(texts)
    for t in texts:
        assert token_pieces.ends_ascii(t) == [e for _, e in token_offsets(t)]


def test_piece_cache_stays_bounded_and_correct_past_its_limit(monkeypatch):
    from ctxmill.render import token_pieces
    from ctxmill.tokens import count_many

    def word(n: int) -> str:  # a letters-only word per number: one piece each, none seen before
        return "qz" + "".join("abcdefghijklmnopqrstuvwxy"[int(d)] for d in str(n))

    monkeypatch.setattr(token_pieces, "_CACHE_MAX", 50)
    texts = [" ".join(word(1000 * i + j) for j in range(40)) for i in range(5)]
    assert token_pieces.count_ascii(texts) == count_many(texts)
    assert len(token_pieces._count) <= 50 + 40 * 5  # cleared, then this call's pieces kept
    assert token_pieces.count_ascii(texts[:1]) == count_many(texts[:1])


# --- a bibliography longer than any real one: parsed up to MAX_PARSED_REFERENCES ----------------


def test_references_past_the_parsed_limit_keep_their_text_and_are_named_in_qa(monkeypatch):
    from ctxmill.compile import references
    from ctxmill.compile.options import CompileOptions

    monkeypatch.setattr(references, "MAX_PARSED_REFERENCES", 5)
    import ctxmill.limits

    monkeypatch.setattr(ctxmill.limits, "MAX_PARSED_REFERENCES", 5)
    entries = [f"[{i}] A. Author and B. Writer. A study of thing {i}. In Proc. of X, 20{i % 10 + 10}."
               for i in range(1, 13)]
    text = "Intro text citing [3] and [11].\n\nReferences\n\n" + "\n".join(entries) + "\n"
    doc = compile_document(text.encode(), CompileOptions(), name="refs.txt")
    refs = doc.references
    assert len(refs) == 12
    assert all(r.title for r in refs[:5])  # parsed
    assert all(r.title is None and not r.authors and r.raw.startswith(f"[{i}]")
               for i, r in enumerate(refs[5:], start=6))  # kept whole, not parsed
    assert all(e.split("] ", 1)[1] in doc.markdown for e in entries)  # no text dropped
    check = next(c for c in doc.qa.checks if c.id == "references_not_parsed")
    assert check.severity == "warning" and "7 of 12" in check.message
    cited = {rid for m in doc.mentions for rid in m.reference_ids}
    assert {"ref-3", "ref-11"} <= cited  # an unparsed entry still takes its citations


def test_a_real_length_bibliography_is_parsed_whole():
    from ctxmill.limits import MAX_PARSED_REFERENCES

    assert MAX_PARSED_REFERENCES >= 1000  # a long survey's list is parsed entry by entry


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_ASCII), min_size=1, max_size=120).map("".join), st.data())
def test_a_slice_of_text_tokenized_once_has_the_tokens_of_the_slice_alone(text, data):
    from ctxmill.render import token_pieces
    from ctxmill.tokens import count_tokens, token_offsets

    whole = token_pieces.Tokenized(text)
    for s, e in slices(data, text):
        n, ends = whole.count(s, e), whole.ends_of(s, e)
        if s < e and text[e - 1] in " \t\n\x0b\x0c\r":
            assert n is None and ends is None  # the caller tokenizes such a slice itself
            continue
        assert n == count_tokens(text[s:e])
        assert ends == [y for _, y in token_offsets(text[s:e])]


_LONG_PIECES = ["Con-", "con-", "ab", "X", "-", "", "de-", "Word", "é-", " ", "x y-", "1-"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_LONG_PIECES), max_size=3).map("".join), min_size=40, max_size=160),
       st.sets(st.sampled_from(["conde", "abx", "word", "con-de"])))
def test_join_lines_knowing_the_longest_word_re_flows_as_without_it(lines, words):
    # a word before a hyphen longer than any vocabulary word skips the window search
    from collections import Counter

    from ctxmill.compile.normalize import join_lines

    vocab = Counter(words)
    longest = max(map(len, vocab), default=0)
    assert join_lines(lines, vocab, longest) == join_lines(lines, vocab)


def test_join_lines_of_one_endless_hyphenated_word_takes_the_short_road_to_the_same_text():
    import random
    from collections import Counter

    from ctxmill.compile import normalize

    for seed in range(20):
        rnd = random.Random(seed)
        lines = [rnd.choice(["Con-", "con-", "Abcde-", "x-", "Q-"]) for _ in range(rnd.randint(50, 400))]
        lines += ["End of it.", "Next-", "line"]
        vocab = Counter({"conx": 1, "abcde": 2, "nextline": 1})
        assert normalize.join_lines(lines, vocab, 9) == normalize.join_lines(lines, vocab)


# --- text that is not ASCII, counted piece by piece where the tokenizer's own answers allow ----

# accents, other scripts, marks that compose and marks that do not, digits and spaces that are
# not ASCII, characters NFKC changes (superscripts, ligatures, full-width letters, no-break
# space), a lone surrogate
_WIDE = ["a", "Z", "9", " ", "  ", "\n", ".", "'s", "'", "é", "Ω", "ß", "—", "日本", "한", "\u0301", "\u2028",
         "\x85", "٣", "\u200b", "€", "😀", "x\u0308", "\t", "!", "1", "Привет", "नमस्ते", "١٢٣", "\u0915\u093c",
         "\ufeff", "“", "…", "\u0300", " é", "\r\n", "\x0b", "\x00", "ｶ", "\u00ad", "‑", "０", "¹", "²", "₃",
         "ﬁ", "\xa0", "½", "\u3000", "e\u0301", "\u1100", "\u1161", "ǅ", "Å", "ｓ", "＇", "'ｓ", "：", "⁾"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WIDE), min_size=1, max_size=60).map("".join), st.data())
def test_a_slice_of_text_not_all_ascii_read_from_one_cut_has_the_tokenizers_count(text, data):
    from ctxmill.render import token_pieces
    from ctxmill.tokens import count_tokens

    if not token_pieces.usable():
        return
    whole = token_pieces.Tokenized(text)
    for s, e in slices(data, text):
        n, any_end = whole.count(s, e), whole.count_any(s, e)
        if s == e:
            assert n == any_end == 0
            continue
        if not whole.can_count(s, e):
            assert n is None and any_end is None  # the caller asks the tokenizer
            continue
        assert any_end == count_tokens(text[s:e])
        assert n == (None if s < e and text[e - 1] in whole.ws else any_end)


def test_a_text_in_other_scripts_is_read_from_one_cut():
    from ctxmill.render import token_pieces

    if not token_pieces.usable():
        return
    text = "Привет, мир! 日本語のテキスト² and café — naïve ¹ ０ one: ﬁne"
    whole = token_pieces.Tokenized(text)
    assert whole.can_count(0, text.index("ﬁ"))  # all but the ligature NFKC makes two letters of
    assert not whole.can_count(0, len(text))
