"""Cheap tests put before exact ones for speed (issue 26) never skip a text the exact test
accepts: headings.toc_blocks asks its letters pattern before the contents-title test."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.compile import headings
from ctxmill.compile.headings import _NOT_TITLE_CHAR_RE, _TOC_TITLE_LETTERS, TOC_TITLES, toc_blocks
from ctxmill.model import Block, Kind

_noise = st.sampled_from(list(" .-1:\t\nİK’é") + [""])


@st.composite
def _titles(draw):
    """A contents title with noise between its characters and around it, in any case."""
    title = draw(st.sampled_from(sorted(TOC_TITLES)))
    text = "".join(c + draw(_noise) for c in title)
    text = draw(_noise) + text + draw(_noise)
    return text.upper() if draw(st.booleans()) else text


@settings(max_examples=1500, deadline=None)
@given(_titles() | st.text(max_size=30) | st.text(alphabet="contesabliguvz .-", max_size=24))
def test_the_letters_pattern_passes_every_title(text):
    low = text.lower()
    if _NOT_TITLE_CHAR_RE.sub("", low).strip() in TOC_TITLES:
        assert _TOC_TITLE_LETTERS.match(low)


def test_contents_found_and_lines_skipped():
    blocks = [Block(kind=Kind.PARAGRAPH, text=t, page=1) for t in
              ["line 12 of the page", "Table of Contents", "1 Introduction 3", "2 Method 7", "A line of text."]]
    assert toc_blocks(blocks) == {1, 2, 3}
    assert headings._TOC_TITLE_LETTERS.match("line 12 of the page") is None
