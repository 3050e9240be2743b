"""Random slices of one text, for the hypothesis tests of token_pieces.Tokenized (a slice counted
from one cut of the whole text must agree with the tokenizer on the slice alone).

Each slice is (start, end), drawn with the test's own ``st.data()`` so a failure shrinks and
replays; the draws are lazy, so a test may draw more inside its loop between two slices."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import strategies as st


def slices(data, text: str, n: int = 10, starts: list[int] | None = None) -> Iterator[tuple[int, int]]:
    """``n`` slices of ``text``: a start anywhere (or one of ``starts``), an end at or after it."""
    for _ in range(n):
        s = data.draw(st.sampled_from(starts) if starts else st.integers(0, len(text)))
        yield s, data.draw(st.integers(s, len(text)))
