"""Issue 26, part C (round 21): the chunks stage's work per text shape, counted, not timed.

Acceptance criterion, fixed before any change was measured (08:45 UTC, start commit a6b339d):
- every output file identical to a6b339d (metrics.json and bundle.zip aside) on the corpus
  (the 17 papers, the sample PDF and its OCR text, the 10 OCR-engine texts: each compiled
  through both trees, output folders diffed) and on the 18 fuzz shapes at 1 MB
  (benchmarks/fuzz.py's text_shape);
- a change stays only if the chunks stage's CPU (process_time at 4 MB, in process) falls
  against a6b339d in the same run, no shape's MB per CPU-s through the command
  (fuzz.py --scaling-only --repeat 3 --stat min --peer /work/peer-s21/src) falls below 0.97 of
  the peer's in the same run, and prose is not slower;
- token counts and offsets stay exactly the tokenizer's.

Here: a long piece (a word of 100,000 letters, as hyphen-ended lines re-flow to) is run through
the BPE in overlapping windows spliced at a token both share, never whole; its token ends are
the tokenizer's.
"""

from __future__ import annotations

import random
from itertools import accumulate

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.model import BlockKind
from ctxmill.render import chunks, token_pieces
from ctxmill.tokens import get_tokenizer, token_offsets
from test_chunk_speed_shapes import _exact
from test_chunks import make_doc

P = BlockKind.PARAGRAPH


def _bpe_ends(mapped):
    return tuple(accumulate(len(t.value) for t in get_tokenizer().model.tokenize(mapped)))


def _mapped(text):
    token_pieces._ends_of("a")  # (loads the byte map)
    return text.translate(token_pieces._map)


_ALPHABETS = ["ab", "abc", "aeiou", "aab", "0123456789", "abcdefghijklmnopqrstuvwxyz", "!#$%&()*+,-./:;<=>?@[]^_{|}~",
              "al", "a", "thequickbrownfox", "ing", "Tt"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_ALPHABETS), st.data(), st.integers(2, 64), st.integers(1, 32))
def test_a_piece_spliced_from_windows_has_the_tokens_of_the_whole(alphabet, data, span, overlap):
    if not token_pieces.usable() or not token_pieces._spliceable():
        return
    overlap = min(overlap, span)
    text = data.draw(st.lists(st.sampled_from(alphabet), min_size=1, max_size=600).map("".join))
    mapped = _mapped(text)
    got = token_pieces._spliced_ends(mapped, span, overlap)
    assert got is None or got == _bpe_ends(mapped)


def test_windows_of_real_words_almost_always_share_a_token():
    # (so the test above compares something: the splice is found, not left to the whole run)
    if not token_pieces.usable() or not token_pieces._spliceable():
        return
    rnd = random.Random(3)
    words = ["con", "inter", "nation", "al", "ization", "abcdefg", "the", "x", "qu", "ing", "ly", "ment"]
    found = 0
    for _ in range(60):
        mapped = _mapped("".join(rnd.choice(words) for _ in range(rnd.randint(200, 800))))
        got = token_pieces._spliced_ends(mapped, 64, 32)
        if got is not None:
            found += 1
            assert got == _bpe_ends(mapped)
    assert found >= 55


class _Model:
    """The tokenizer's BPE model, noting the length of each string it is asked to tokenize."""

    def __init__(self, real, seen):
        self.real, self.seen = real, seen

    def tokenize(self, s):
        self.seen.append(len(s))
        return self.real.tokenize(s)

    def __getattr__(self, name):
        return getattr(self.real, name)


class _Tok:
    def __init__(self, real, seen):
        self.real, self.model = real, _Model(real.model, seen)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _spy_bpe(monkeypatch):
    seen: list[int] = []
    tok = _Tok(get_tokenizer(), seen)
    monkeypatch.setattr(token_pieces, "get_tokenizer", lambda: tok)
    return seen


def test_a_long_word_is_run_through_the_bpe_in_windows_with_the_tokenizers_ends(monkeypatch):
    if not token_pieces.usable() or not token_pieces._spliceable():
        return
    rnd = random.Random(5)
    word = "".join(rnd.choice(["con", "a", "b", "cde", "fg", "ing"]) for _ in range(40_000))
    token_pieces._ends.pop(word, None)
    seen = _spy_bpe(monkeypatch)
    ends = token_pieces._ends_of(word)
    assert list(ends) == [e for _, e in token_offsets(word)]
    # a6b339d: one call of the whole word's length (~100,000 characters)
    assert seen and max(seen) <= token_pieces._SPAN + token_pieces._OVERLAP


def test_a_paragraph_of_one_endless_word_is_chunked_exactly_from_windows(monkeypatch):
    if not token_pieces.usable() or not token_pieces._spliceable():
        return
    word = "".join(f"con{'abcdefg'[i % 7]}" for i in range(20_000))
    doc = make_doc([(P, "A short paragraph first.", {}), (P, word, {}), (P, "And one after it.", {})])
    seen = _spy_bpe(monkeypatch)
    for piece in list(token_pieces._count):
        if len(piece) > token_pieces._LONG:  # (not counted by an earlier test: counted here)
            token_pieces._count.pop(piece)
            token_pieces._ends.pop(piece, None)
    doc.chunks = chunks.build_chunks(doc, 200)
    _exact(doc, 200)
    assert max(seen) <= token_pieces._SPAN + token_pieces._OVERLAP


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "Z", "7", " ", "\t", "\n", "\x01", "\x7f", "\x00", "!", "'", "é", "Ω"]),
                         min_size=1, max_size=6).map("".join), min_size=0, max_size=150))
def test_many_pieces_mapped_at_once_are_each_piece_mapped_alone(pieces):
    if not token_pieces.usable():
        return
    token_pieces._ends_of("a")  # (loads the byte map)
    for p in pieces:  # (the map holds a non-ASCII character once a text with it was read)
        for c in p:
            if ord(c) not in token_pieces._map:
                token_pieces._probe([c])
    pieces = [p for p in pieces if all(ord(c) in token_pieces._map for c in p)]
    assert token_pieces._mapped(pieces) == [p.translate(token_pieces._map) for p in pieces]


def test_new_pieces_are_learned_in_the_order_first_seen():
    # (a text's pieces are then looked up in about the order they were stored: a6b339d stored
    # them in set order, and 375,000 distinct numbers were looked up a third slower)
    if not token_pieces.usable():
        return
    rnd = random.Random(9)
    pieces = [f" {rnd.randrange(10**9)}x{k}" for k in range(9000)]
    pieces = pieces + pieces[::7]
    token_pieces._learn(pieces)
    fresh = list(dict.fromkeys(pieces))
    assert list(token_pieces._count)[-len(fresh):] == fresh


def test_a_long_word_that_repeats_runs_each_distinct_window_through_the_bpe_once(monkeypatch):
    if not token_pieces.usable() or not token_pieces._spliceable():
        return
    word = "".join(f"con{'abcdefg'[i % 7]}" for i in range(50_000))  # (a period of 28 characters)
    token_pieces._ends.pop(word, None)
    seen = _spy_bpe(monkeypatch)
    ends = token_pieces._ends_of(word)
    assert list(ends) == [e for _, e in token_offsets(word)]
    windows = len(word) // token_pieces._SPAN
    # a6b339d: one call of 200,000 characters; windows, each run once: 7 distinct here, of ~97
    assert max(seen) <= token_pieces._SPAN + token_pieces._OVERLAP and len(seen) <= 28 < windows
