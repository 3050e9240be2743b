"""Chunk contract on the real paper and its OCR text (skips without ../shared)."""

from __future__ import annotations

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.tokens import count_tokens

ATOMIC = {"table", "figure", "code", "equation"}


@pytest.mark.slow
@pytest.mark.parametrize("name,budget", [("paper.pdf", 400), ("ocr-pages-1-16.txt", 400), ("paper.pdf", 150)])
def test_chunk_contract(corpus_dir, name, budget):
    opts = CompileOptions(chunk_tokens=budget, ignore_pdf_links=True)
    d1 = compile_document(corpus_dir / name, opts)
    d2 = compile_document(corpus_dir / name, opts)
    md = d1.markdown
    assert len(d1.chunks) > 10
    for c in d1.chunks:
        assert md[c.char_span[0] : c.char_span[1]] == c.text
        assert not all(ln.startswith("#") or not ln.strip() for ln in c.text.splitlines()), c.id
        assert c.tokens == count_tokens((c.context + "\n" + c.text) if c.context else c.text)
        assert c.tokens <= budget or c.kind in ATOMIC, (c.id, c.tokens)
        assert c.pages[0] <= c.pages[1]
    assert sum(c.tokens > budget for c in d1.chunks) == 0
    assert [c.id for c in d1.chunks] == [c.id for c in d2.chunks]
    # never two sections in one chunk: no heading starts inside a chunk
    starts = [d1.block_spans[b.id][0] for b in d1.blocks if b.kind.value == "heading" and b.id in d1.block_spans]
    for c in d1.chunks:
        assert not [s for s in starts if c.char_span[0] < s < c.char_span[1]], c.id
    # the breadcrumb names the numbered section the text is in
    assert any(c.section_path and c.section_path[-1].startswith("3.2 ") for c in d1.chunks)
    # citations listed per chunk are those of the mentions inside it
    inside = {}
    for m in d1.mentions:
        inside.setdefault(m.chunk_id, set()).update(m.reference_ids)
    for c in d1.chunks:
        assert set(c.citations) == inside.get(c.id, set())
