"""Chunk cost per text shape (issue 26, round eighteen): work counts, not timings.

- document.md with a few non-ASCII characters is cut into pieces once, like an ASCII one: the
  units and chunks that are all ASCII are read from that cut, only the others are tokenized;
- a long text cut every ``budget - 1`` tokens works out the token ends of the pieces where the
  cuts fall, not of every piece (a one-line paragraph of 30,000 distinct numbers);
- a piece that is only counted never has its token ends worked out;
- a long unit with no sentence end is searched for one once, not twice;
- the cyclic garbage collector is paused while the chunks are built (they make no cycles).

Every count stays exact (checked against the tokenizer on every chunk and slice)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from _slices import slices
from ctxmill.model import BlockKind
from ctxmill.render import chunks, token_pieces
from ctxmill.tokens import count_tokens, token_offsets
from test_chunks import make_doc

P = BlockKind.PARAGRAPH
WS = " \t\n\x0b\x0c\r"


def _exact(doc, budget):
    assert doc.chunks
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0] : c.char_span[1]] == c.text
        assert c.tokens == count_tokens((c.context + "\n" + c.text) if c.context else c.text)
        assert c.tokens <= budget


def _spy(monkeypatch, module, name):
    """Count the texts and characters given to ``module.name`` (a function of a list of texts)."""
    seen = {"texts": 0, "chars": 0}
    real = getattr(module, name)

    def counted(texts, *a, **k):
        texts = list(texts)
        seen["texts"] += len(texts)
        seen["chars"] += sum(map(len, texts))
        return real(texts, *a, **k)

    monkeypatch.setattr(module, name, counted)
    return seen


def _paper(n, accent_every):
    rnd = random.Random(n)
    items = []
    for i in range(n):
        words = " ".join(rnd.choice(["cache", "keys", "rate", "load", "(2)", "[1]", "42", "x."]) for _ in range(30))
        if accent_every and i % accent_every == 0:
            words += " café — naïve"
        items.append((P, f"Paragraph {i}: {words}.", {}))
    return make_doc(items)


def test_a_paper_with_some_accents_is_cut_into_pieces_once(monkeypatch):
    if not token_pieces.usable():
        return
    doc = _paper(400, accent_every=40)  # 10 of 400 paragraphs hold a non-ASCII character
    ascii_texts = _spy(monkeypatch, token_pieces, "count_ascii")
    tokenizer_texts = _spy(monkeypatch, chunks, "count_many")
    doc.chunks = chunks.build_chunks(doc, 120)
    _exact(doc, 120)
    # a83d785: every one of the 400 units and every chunk went through count_ascii (each cut
    # into pieces again); now only the slices that hold an accent reach a tokenizer
    assert ascii_texts["texts"] <= 10
    assert tokenizer_texts["texts"] <= 3 * 10


def test_a_text_mostly_not_ascii_is_left_to_the_tokenizer_and_counted_exactly():
    doc = make_doc([(P, " ".join(["ß Ω é —"] * 20 + [f"plain {i}."]), {}) for i in range(60)])
    doc.chunks = chunks.build_chunks(doc, 64)
    _exact(doc, 64)


def test_a_long_line_of_distinct_numbers_works_out_token_ends_only_where_it_is_cut(monkeypatch):
    if not token_pieces.usable():
        return
    token_pieces._count.clear()
    # (a83d785 kept every piece's token lengths, in _lens; now _ends, and only for pieces cut)
    ends_cache = vars(token_pieces).get("_ends", vars(token_pieces).get("_lens"))
    ends_cache.clear()
    line = "".join(f"| {i} | {i * 2} | x " for i in range(20_000))  # one line, no sentence end
    doc = make_doc([(P, line, {})])
    doc.chunks = chunks.build_chunks(doc, 200)
    _exact(doc, 200)
    assert len(doc.chunks) > 100
    assert len(token_pieces._count) > 20_000  # every distinct number counted
    assert len(ends_cache) <= 2 * len(doc.chunks)  # a83d785: > 20,000


def test_counting_text_never_works_out_token_ends():
    if not token_pieces.usable():
        return
    token_pieces._count.clear()
    ends_cache = vars(token_pieces).get("_ends", vars(token_pieces).get("_lens"))
    ends_cache.clear()
    texts = [f" {i} item {i * 7}" for i in range(3_000)]
    assert token_pieces.count_ascii(texts) == [count_tokens(t) for t in texts[:50]] + token_pieces.count_ascii(texts[50:])
    assert len(ends_cache) == 0  # a83d785: one entry per distinct piece


def test_a_long_unit_with_no_sentence_end_is_searched_once(monkeypatch):
    scanned = {"chars": 0}
    real = chunks._SENT_END

    class Counting:
        def search(self, text, *a):
            scanned["chars"] += len(text)
            return real.search(text, *a)

        def finditer(self, text, *a):
            scanned["chars"] += len(text)
            return real.finditer(text, *a)

    monkeypatch.setattr(chunks, "_SENT_END", Counting())
    line = " ".join(f"item {i}. number {i}" for i in range(5_000))  # marks, but no sentence end
    doc = make_doc([(P, line, {})])
    doc.chunks = chunks.build_chunks(doc, 100)
    _exact(doc, 100)
    assert scanned["chars"] <= len(line) + 1_000  # a83d785: twice (_no_cut, then _pieces)


_MIXED = ["word", " ", "  ", "\n", ".", ". ", "x", "[1]", "1.", "-", "'s", "'re", "'ll", "'d", "'x", "'", "\t", "A", "12345", " 678",
          "é", " ß", "—", "ﬁ", "Ω ", "café"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_MIXED), min_size=1, max_size=80).map("".join), st.data())
def test_a_slice_of_a_text_with_some_non_ascii_is_exact_or_left_to_the_tokenizer(text, data):
    if not token_pieces.usable():
        return
    whole = token_pieces.Tokenized(text)
    for s, e in slices(data, text):
        piece = text[s:e]
        n, any_end, ends = whole.count(s, e), whole.count_any(s, e), whole.ends_of(s, e)
        if not piece.isascii():
            # counted from the cut when token_pieces.read_as reads the text and the slice holds
            # none of its unread characters (as "ﬁ", which NFKC changes), else left to the
            # tokenizer; token ends are never read for it
            want = count_tokens(piece)
            if not whole.can_count(s, e):
                assert n is None and any_end is None
            else:
                assert any_end == want and n in (None, want) and (n is None) == (piece[-1] in WS)
            assert ends is None
            continue
        want = [y for _, y in token_offsets(piece)]
        first, step = data.draw(st.integers(0, 5)), data.draw(st.integers(1, 7))
        assert any_end == len(want) == count_tokens(piece)
        assert whole.ends_every(s, e, first, step, any_end=True) == want[first::step]
        if piece and piece[-1] in WS:
            assert n is None and ends is None
            continue
        assert n == len(want) and ends == want
        assert whole.ends_every(s, e, first, step) == want[first::step]


def test_the_collector_paused_for_the_chunks_is_running_again_after_them(monkeypatch):
    import gc

    from ctxmill.compile.options import CompileOptions

    doc = _paper(20, accent_every=0)
    assert gc.isenabled()
    chunks.run(doc, CompileOptions())
    assert doc.chunks and gc.isenabled()

    def boom(*a):
        assert not gc.isenabled()  # paused while the chunks are built
        raise RuntimeError("boom")

    monkeypatch.setattr(chunks, "build_chunks", boom)
    try:
        chunks.run(doc, CompileOptions())
    except RuntimeError:
        pass
    assert gc.isenabled()  # also after an error
    gc.disable()
    try:
        monkeypatch.undo()
        chunks.run(doc, CompileOptions())
        assert not gc.isenabled()  # a caller's own choice is left as it was
    finally:
        gc.enable()
