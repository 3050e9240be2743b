"""Issue 26, part C (this round): the chunks stage's work per text shape, counted, not timed.

Acceptance criterion, fixed before any change was measured (05:58 UTC, start commit bcea6c2):
- every output file identical to bcea6c2 (metrics.json and bundle.zip aside) on the corpus
  (the 17 papers, the sample PDF and its OCR text, the 10 OCR-engine texts: each compiled
  through both trees, output folders diffed) and on the 18 fuzz shapes at 1 MB
  (benchmarks/fuzz.py's text_shape);
- a change stays only if the chunks stage's CPU (cProfile / process_time at 4 MB, in process)
  falls against bcea6c2 in the same run, no shape's MB per CPU-s through the command
  (fuzz.py --scaling-only --repeat 3 --stat min --peer /work/peer-s20/src) falls below 0.97 of
  the peer's in the same run, and prose is not slower;
- token counts and offsets stay exactly the tokenizer's (tests/test_linear_cost.py and the
  tests here hold them together); conservation stays whole.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from _counting import Counted
from _slices import slices
from ctxmill.model import BlockKind
from ctxmill.render import chunks, token_pieces
from ctxmill.tokens import count_tokens
from test_chunk_speed_shapes import _exact, _spy
from test_chunks import make_doc

P = BlockKind.PARAGRAPH


def _soup(n, rnd):
    # every paragraph holds non-ASCII text: accents, Greek, a dash, the replacement character,
    # and a superscript one (NFKC makes it "1"), as an OCR engine's HTML rendered gives them
    words = ["cache", "é", "Ω", "ß—", "x¹", "<td>", "\\item", "Proc.", "�", "2020", "rate", "(2)"]
    return [(P, " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 40))) + ".", {}) for _ in range(n)]


def test_text_that_is_not_ascii_is_counted_from_one_cut_not_by_the_tokenizer(monkeypatch):
    if not token_pieces.usable():
        return
    doc = make_doc(_soup(600, random.Random(7)))
    assert not doc.markdown.isascii()
    tokenizer = _spy(monkeypatch, chunks, "count_many")
    doc.chunks = chunks.build_chunks(doc, 120)
    _exact(doc, 120)
    # bcea6c2: most units were not ASCII, so document.md was not cut once and every unit and
    # chunk went to the tokenizer (~600 texts, the whole text and more); now none does
    assert tokenizer["chars"] <= len(doc.markdown) // 20


def test_characters_nfkc_changes_into_letters_or_many_are_left_to_the_tokenizer(monkeypatch):
    if not token_pieces.usable():
        return
    items = _soup(200, random.Random(8))
    items[50] = (P, "a ﬁne paragraph with a ligature and ½ of a no-break\xa0space.", {})
    doc = make_doc(items)
    tokenizer = _spy(monkeypatch, chunks, "count_many")
    doc.chunks = chunks.build_chunks(doc, 120)
    _exact(doc, 120)
    assert 0 < tokenizer["texts"] <= 4  # the chunk and unit with them, no other


_OLD_SENT_END = (  # bcea6c2's pattern: the lookahead for the mark first
    r"(?=[.!?])(?<!\bet al)(?<!\be\.g)(?<!\bi\.e)(?<!\bFig)(?<!\bNo)(?<!\bvs)(?<!\bSec)(?<!\bEq)(?<!\b[A-Z])"
    r"[.!?][\"”’)\]]*\s+(?=[A-Z0-9(\[\"“*_`$])"
)
_SENT_BITS = ["et al", "e.g", "i.e", "Fig", "No", "vs", "Sec", "Eq", "A", "x", ".", "!", "?", " ", "\n", "\"", "”",
              ")", "]", "B", "1", "(", "[", "“", "*", "_", "`", "$", "é", "-", "a", "\t", "xet al", "Figs"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_SENT_BITS), max_size=40).map("".join))
def test_sentence_ends_starting_at_the_mark_are_the_old_patterns(text):
    import re

    old = re.compile(_OLD_SENT_END)
    assert [m.span() for m in chunks._SENT_END.finditer(text)] == [m.span() for m in old.finditer(text)]


def test_many_new_pieces_are_mapped_at_once_and_one_holding_the_separator_alone():
    if not token_pieces.usable():
        return
    from ctxmill.tokens import count_many

    texts = [f" {i} x{i}y \x01{i}\x01 z" for i in range(300)]  # (\x01 in a piece: mapped one by one)
    token_pieces._count.clear()
    assert token_pieces.count_ascii(texts) == count_many(texts)
    texts = [f" {i} w{i}q" for i in range(300)]
    token_pieces._count.clear()
    assert token_pieces.count_ascii(texts) == count_many(texts)


def test_sentences_of_a_long_paragraph_are_counted_without_matching_their_first_piece(monkeypatch):
    if not token_pieces.usable():
        return
    spy = Counted(token_pieces._PIECE)
    monkeypatch.setattr(token_pieces, "_PIECE", spy)
    rnd = random.Random(3)
    text = " ".join(f"{rnd.choice(['Word', 'A', '[1]', '(2)', 'x'])} {rnd.choice(['cache', 'y', 'z'])}."
                    for _ in range(2_000))  # sentence ends after ". " before a capital, "[" or "("
    doc = make_doc([(P, text, {})])
    doc.chunks = chunks.build_chunks(doc, 64)
    _exact(doc, 64)
    # bcea6c2: each sentence's first piece (" Word" in the whole text, "Word" alone) was matched
    # again, one call per sentence (> 1,500); now it is the whole text's piece without its space
    assert spy.by_method["match"] < 100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "Zb", "9", " ", "  ", "\n", ". ", "'s", " 's", "'", " '", "é", " é", " —",
                                 "x¹", " ¹", " [1]", " (", "\t", " \t", " 'll", " !", " 12", "ﬁ", " \u2028"]),
                min_size=1, max_size=40).map("".join), st.data())
def test_a_slice_starting_after_a_space_has_the_tokenizers_count(text, data):
    if not token_pieces.usable():
        return
    whole = token_pieces.Tokenized(text)
    starts = [i + 1 for i, c in enumerate(text) if c == " "] or [0]
    for s, e in slices(data, text, 8, starts):
        n, any_end = whole.count(s, e), whole.count_any(s, e)
        if any_end is not None:
            assert any_end == count_tokens(text[s:e])
        if n is not None:
            assert n == count_tokens(text[s:e])
