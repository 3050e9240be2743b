"""Cost linear in the input, whatever its shape (issue 26).

These tests count work instead of timing it (speed is measured by `benchmarks/fuzz.py
--scaling`): a stage that rescans the rest of the input from every line does work that grows
with the square of the input, and the count shows it on any machine, loaded or not.
"""

from __future__ import annotations

import pytest

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
    # 3,000 "# Heading" lines: every one starts a run of comment-like lines; the run test
    # rescanned the run from each of them (4.6 million code scores for 2,142 lines)
    calls = _count_calls(monkeypatch, blocks, "_code_score")
    n = 3000
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
