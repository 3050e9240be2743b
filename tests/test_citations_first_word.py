"""citations._first_word is the first word of citations.norm(text), whatever the text (issue
26: an entry past MAX_PARSED_REFERENCES has no authors, and its first word stands in for a
callout's name; ASCII text is read with one pattern instead of normalised)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.compile.citations import _first_word, norm

_chars = st.sampled_from(list("aZ9_ &'`.,-\t\n\x00\x1c()[]’éß") + ["ﬁ", "Å"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(_chars, max_size=14).map("".join) | st.text(max_size=14))
def test_first_word_of_norm(text):
    words = norm(text).split()
    assert _first_word(text) == (words[0] if words else None)


def test_a_numbered_entry():
    assert _first_word("[2001] A. Author, B. Writer. A title. 2020.") == "2001"
    assert _first_word("  O'Neil & Co_x") == "oneil"
    assert _first_word("& then") == "and"
    assert _first_word("... --- ") is None
