"""Chunks on small documents we build here (the real-paper checks are in test_chunks_dive.py)."""

from __future__ import annotations

import json

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Block, BlockKind, Document, PageStream, Section
from ctxmill.render import chunks
from ctxmill.tokens import count_tokens


def make_doc(items):
    """items: (kind, text, attrs) in reading order; headings are (HEADING, text, {level, number})."""
    doc = Document(stream=PageStream(pages=[], kind="markdown"))
    parts, pos = [], 0
    sid = None
    for n, (kind, text, attrs) in enumerate(items):
        b = Block(kind=kind, text=text, page=1 + n // 10, id=f"b{n}", attrs=dict(attrs))
        if kind is BlockKind.HEADING:
            sid = f"s{n}"
            b.level = attrs.get("level", 2)
            doc.sections.append(Section(id=sid, level=b.level, title=text, page_start=b.page, page_end=b.page,
                                        number=attrs.get("number"), block_id=b.id,
                                        parent_id=attrs.get("parent")))
            rendered = "#" * b.level + " " + (f"{attrs['number']} " if attrs.get("number") else "") + text
        else:
            rendered = text
        b.section_id = sid
        doc.blocks.append(b)
        if parts:
            pos += 2
        doc.block_spans[b.id] = (pos, pos + len(rendered))
        parts.append(rendered)
        pos += len(rendered)
    doc.markdown = "\n\n".join(parts)
    return doc


def sentences(n, word="alpha"):
    return " ".join(f"Sentence {i} talks about {word} retrieval and chunking in detail." for i in range(n))


def table(rows):
    lines = ["| Name | Value | Note |", "|---|---|---|"]
    lines += [f"| row{i} | {i * 17} | some note about row {i} of the table |" for i in range(rows)]
    return "\n".join(lines)


def check_invariants(doc, budget):
    assert doc.chunks
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0] : c.char_span[1]] == c.text
        assert not all(ln.startswith("#") or not ln.strip() for ln in c.text.splitlines())
        full = (c.context + "\n" + c.text) if c.context else c.text
        assert c.tokens == count_tokens(full)
        assert c.tokens <= budget, (c.tokens, c.text[:80])


def test_sections_never_straddled_and_headings_travel_with_text():
    doc = make_doc([
        (BlockKind.HEADING, "Intro", {"number": "1"}),
        (BlockKind.PARAGRAPH, sentences(2), {}),
        (BlockKind.HEADING, "Method", {"number": "2"}),
        (BlockKind.HEADING, "Data", {"number": "2.1", "level": 3, "parent": "s2"}),
        (BlockKind.PARAGRAPH, sentences(2, "beta"), {}),
    ])
    chunks.run(doc, CompileOptions(chunk_tokens=400))
    check_invariants(doc, 400)
    assert len(doc.chunks) == 2
    assert doc.chunks[0].text.startswith("## 1 Intro") and "beta" not in doc.chunks[0].text
    assert doc.chunks[1].section_path == ["2 Method", "2.1 Data"]
    assert doc.chunks[1].text.startswith("### 2.1 Data")  # the bodiless "2 Method" lives in the path


def test_long_paragraph_split_at_sentences_within_budget():
    doc = make_doc([(BlockKind.HEADING, "Long", {}), (BlockKind.PARAGRAPH, sentences(60), {})])
    chunks.run(doc, CompileOptions(chunk_tokens=120))
    check_invariants(doc, 120)
    assert len(doc.chunks) > 3
    for c in doc.chunks[:-1]:
        assert c.text.endswith(".")  # cut at a sentence end


def test_table_split_between_rows_with_header_repeated():
    doc = make_doc([
        (BlockKind.HEADING, "Results", {}),
        (BlockKind.CAPTION, "Table 1: Many rows.", {}),
        (BlockKind.TABLE, table(40), {}),
        (BlockKind.PARAGRAPH, "After the table.", {}),
    ])
    chunks.run(doc, CompileOptions(chunk_tokens=150))
    check_invariants(doc, 150)
    tparts = [c for c in doc.chunks if c.kind == "table"]
    assert len(tparts) > 2
    assert "Table 1: Many rows." in tparts[0].text and "| Name |" in tparts[0].text
    for c in tparts[1:]:
        assert c.context == "| Name | Value | Note |\n|---|---|---|"
        assert c.text.startswith("| row")  # split between rows, never inside one
    rows = [ln for c in tparts for ln in c.text.splitlines() if ln.startswith("| row")]
    assert len(rows) == 40


def test_small_table_keeps_caption_and_code_stays_whole():
    code = "\n".join(f"    step_{i}()" for i in range(10))
    doc = make_doc([
        (BlockKind.HEADING, "Stuff", {}),
        (BlockKind.PARAGRAPH, sentences(3), {}),
        (BlockKind.CAPTION, "Table 2: Small.", {}),
        (BlockKind.TABLE, table(3), {}),
        (BlockKind.CODE, "```\n" + code + "\n```", {}),
    ])
    chunks.run(doc, CompileOptions(chunk_tokens=80))
    check_invariants(doc, 80)
    t = [c for c in doc.chunks if "| Name |" in c.text]
    assert len(t) == 1 and "Table 2: Small." in t[0].text
    assert sum(1 for c in doc.chunks if "step_0()" in c.text and "step_9()" in c.text) == 1


def test_ids_stable_and_position_sensitive(tmp_path):
    items = [(BlockKind.HEADING, "A", {}), (BlockKind.PARAGRAPH, sentences(30), {})]
    d1, d2 = make_doc(items), make_doc(items)
    chunks.run(d1, CompileOptions(chunk_tokens=100))
    chunks.run(d2, CompileOptions(chunk_tokens=100))
    assert [c.id for c in d1.chunks] == [c.id for c in d2.chunks]
    assert len({c.id for c in d1.chunks}) == len(d1.chunks)
    names = chunks.write(d1, tmp_path, CompileOptions())
    lines = (tmp_path / names[0]).read_text().splitlines()
    row = json.loads(lines[0])
    assert set(row) >= {"id", "text", "tokens", "kind", "section_path", "pages", "char_span", "citations"}


def test_heading_only_document_gives_no_chunk():
    doc = make_doc([(BlockKind.HEADING, "Only", {}), (BlockKind.HEADING, "Headings", {})])
    chunks.run(doc, CompileOptions())
    assert doc.chunks == []


def test_a_table_row_longer_than_the_budget_stays_whole():
    long_row = "| big | " + " ".join(["word"] * 200) + " | end |"
    doc = make_doc([
        (BlockKind.HEADING, "T", {}),
        (BlockKind.TABLE, "| Name | Value | Note |\n|---|---|---|\n| a | 1 | x |\n" + long_row + "\n| b | 2 | y |", {}),
    ])
    chunks.run(doc, CompileOptions(chunk_tokens=60))
    over = [c for c in doc.chunks if c.tokens > 60]
    assert len(over) == 1 and over[0].text == long_row and over[0].kind == "table"
    for c in doc.chunks:
        assert doc.markdown[c.char_span[0] : c.char_span[1]] == c.text
