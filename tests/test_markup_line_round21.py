"""The markup and line stages, round twenty-one (issue 26, speed only): each rewritten step gives
what the step it replaced gave, on generated inputs (hypothesis), and does less work where a
shape of text input made it read line by line (counted, not timed)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmill.compile import headings
from ctxmill.model import Block, Kind

# ------------------------------------------------------------------ headings._entry_share


def _share_line_by_line(texts: list[str]) -> float:
    """_entry_share as it read every line (a6b339d, without its memo): the reference."""
    lines = [t.strip() for t in texts if t.strip()]
    if not lines:
        return 0.0
    return sum(1 for t in lines if headings._entry_line(t)) / len(lines)


_PIECES = ["Intro", "Heading", "// note", "| 1 | 2 |", "2.1 Methods", "see Fig.", "Fig.", "Figs.", "Eq.", "pp.",
           "app.", "Vol.", "No.", "xFig.", "Results . . .", "Appendix", " ", "", ".", "\t", "\r", "\xa0", "x" * 200,
           "é", "ǅ", "²", "٣", "ii", "xii", "cl", "v", "1", "12", "123", "1234", "12345", "iv", "Ch.", "A line."]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map(" ".join)
                | st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map("".join),
                min_size=1, max_size=40), st.booleans())
def test_entry_share_is_the_share_line_by_line(texts, strip):
    # stripped, non-empty lines (a block joined from tiny lines) take the joined road; others not
    if strip:
        texts = [t.strip() for t in texts if t.strip()] or ["x"]
    b = Block(Kind.PARAGRAPH, "\n".join(texts), 1, attrs={"_line_texts": texts})
    assert headings._entry_share(b) == _share_line_by_line(texts)
    assert headings._entry_share(b, {}) == _share_line_by_line(texts)


def test_a_block_of_many_distinct_lines_is_read_in_one_search(monkeypatch):
    # a file of "# Heading N" lines (no outline) or "// note N" comments: blocks of 256 distinct
    # lines, 1,117 of them a MB, each line read by _entry_line (two searches) at a6b339d
    calls = []
    real = headings._entry_line

    def counting(t):
        calls.append(t)
        return real(t)

    monkeypatch.setattr(headings, "_entry_line", counting)
    for make, share in ((lambda k: f"Heading {k}", 1.0), (lambda k: f"// note {k}", 1.0),
                        (lambda k: f"| {k} | {2 * k} | x |", 0.0), (lambda k: f"see Fig. {k}", 0.0)):
        lines = [make(k) for k in range(256)]
        b = Block(Kind.PARAGRAPH, "\n".join(lines), 1, attrs={"_line_texts": lines})
        assert headings._entry_share(b, {}) == share
        assert headings.toc_blocks([b], maybe=[]) == ({0} if share >= 0.6 else set())
        if share:
            assert calls == []  # a6b339d: 512 (each line, by _entry_share and again by toc_blocks)
    # lines ending in a cited number ("see Fig. 12") are the one case still read line by line
    assert len(calls) == 2 * 256
