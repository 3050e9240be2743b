"""Compile stages on small inputs written here: normalise, structure, metadata, Markdown."""

from __future__ import annotations

from ctxmill.compile.normalize import convert_latex, fold, html_table_rows, join_lines
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.model import BlockKind

OPTS = CompileOptions(fast=True)


def compile_text(text: str):
    return compile_document(text.encode(), OPTS, name="t.txt")


def test_fold_and_hyphenation():
    assert fold("e\ufb03cient \ufb01le") == "efficient file"
    assert join_lines(["the architec-", "ture is simple"]) == "the architecture is simple"
    from collections import Counter

    vocab = Counter({"open-source": 2})
    assert join_lines(["an open-", "source tool"], vocab) == "an open-source tool"


def test_latex_to_markdown():
    assert convert_latex(r"about \(27\%\) of tasks") == "about 27% of tasks"
    assert convert_latex(r"done \( ^{1} \) . Next") == "done[^1]. Next"
    assert convert_latex(r"Shang \( ^{1,2} \)") == "Shang[^1][^2]"
    assert convert_latex(r"keeps \( r_{p} \leftarrow \alpha x \) here") == r"keeps $r_{p} \leftarrow \alpha x$ here"
    assert "\\(" not in convert_latex(r"a \( x^2 + y^2 \) b")


def test_html_table_rows():
    rows = html_table_rows("<table><tr><td>A</td><td>B &amp; C</td></tr><tr><td>\\(5\\%\\)</td><td>x</td></tr></table>")
    assert rows == [["A", "B & C"], ["5%", "x"]]


OCR = """arXiv:2401.01234v2 [cs.LG] 5 Feb 2024
Learning Small Things Quickly
Ada Lovelace \\( ^{1} \\) , Alan Turing \\( ^{1,2} \\)
\\( ^{1} \\) Analytical Engine Institute,  \\( ^{2} \\) University of Manchester
Correspondence: ada@engine.example
We study how small things can be learned quickly. This abstract is long enough to be recognised as the abstract of the paper, with more words than any heading would ever have in it, and so on.
1 Introduction
Learning is hard (Smith and Jones, 2020). We show it is easier than expected \\( ^{1} \\) .
1. First contribution: a thing.
2. Second contribution: another thing.
This paragraph is split across the page break and its text runs on to the
\\( ^{1} \\) A footnote with detail.
1
── PAGE 2 / 2 ──
continued text from the previous page of the introduction.
2 Method
2.1 Setup
Table 1 Results of the method.
<table><tr><td>Model</td><td>Score</td></tr><tr><td>Ours</td><td>\\(91.2\\)</td></tr></table>
![](images/1.jpg)

Figure 1 The pipeline of the method.
while not done:
    x = step(x)
    done = check(x)
References
Smith, A. and Jones, B. Learning things. In Proc. Things, 2020.
Doe, J. Another paper. Journal of Stuff, 2019.
2
"""


def test_ocr_text_document():
    doc = compile_text(OCR)
    md = doc.markdown
    assert md.startswith("# Learning Small Things Quickly\n")
    assert "## 1 Introduction" in md and "## 2 Method" in md and "### 2.1 Setup" in md
    assert "1. First contribution: a thing." in md  # a list item, not a heading
    assert "expected[^1]." in md and "[^1]: A footnote with detail." in md
    assert "runs on to the continued text from the previous page" in md  # re-flowed across the page break
    assert "| Model | Score |\n|---|---|\n| Ours | 91.2 |" in md
    assert "**Table 1:** Results of the method." in md
    assert "**Figure 1:** The pipeline of the method." in md
    assert "```\nwhile not done:\n    x = step(x)\n    done = check(x)\n```" in md
    assert "\\(" not in md and "<td>" not in md and "PAGE" not in md
    m = doc.metadata
    assert m.title == "Learning Small Things Quickly"
    assert [a.name for a in m.authors] == ["Ada Lovelace", "Alan Turing"]
    assert m.authors[1].affiliations == ["Analytical Engine Institute", "University of Manchester"]
    assert m.arxiv_id == "2401.01234v2" and m.categories == ["cs.LG"] and m.date == "2024-02-05"
    assert m.emails == ["ada@engine.example"]
    assert m.abstract.startswith("We study how small things")
    bib = [b for b in doc.blocks if b.attrs.get("bibliography") and b.kind is BlockKind.PARAGRAPH]
    assert len(bib) == 2 and bib[0].text.startswith("Smith, A.")
    assert [s.id for s in doc.sections] == ["s1", "s2", "s2.1", "s-references"]
    tables = doc.blocks_of(BlockKind.TABLE)
    assert tables[0].number == "1" and tables[0].attrs["rows"][0] == ["Model", "Score"]


def test_block_spans_point_into_markdown():
    doc = compile_text(OCR)
    assert doc.block_spans
    for b in doc.blocks:
        if b.id not in doc.block_spans:
            assert b.kind is BlockKind.FURNITURE
            continue
        s, e = doc.block_spans[b.id]
        piece = doc.markdown[s:e]
        if b.kind in (BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.LIST_ITEM) and not b.attrs.get("front"):
            assert b.text[:20] in piece
        assert all(b.section_id is None or b.section_id.startswith("s") for b in doc.blocks)
    ids = [b.id for b in doc.blocks]
    assert len(ids) == len(set(ids))


def test_markdown_passthrough():
    md = "# Title Here\n\nSome intro text.\n\n## Background\n\nA paragraph\nthat wraps.\n\n- item one\n- item two\n\n```python\nx = 1\n```\n"
    doc = compile_document(md.encode(), OPTS, name="x.md")
    out = doc.markdown
    assert out.startswith("# Title Here")
    assert "## Background" in out
    assert "A paragraph that wraps." in out
    assert "- item one\n- item two" in out
    assert "```python\nx = 1\n```" in out


def test_markdown_numbered_headings_keep_number_apart():
    md = "# A Tiny Note\n\nIntro.\n\n## 1 Intro\n\nText.\n\n### 1.2 Detail\n\nMore.\n"
    doc = compile_document(md.encode(), OPTS, name="x.md")
    assert doc.metadata.title == "A Tiny Note"
    assert [(s.number, s.title, s.level) for s in doc.sections] == [("1", "Intro", 2), ("1.2", "Detail", 3)]
    assert "## 1 Intro" in doc.markdown and "### 1.2 Detail" in doc.markdown


def test_numbered_list_not_heading():
    text = "Intro Title For Test\n1 Overview\nWe do things.\n1. Users approve prompts.\n2. The gate asks the user.\n2 Results\nDone.\n"
    doc = compile_document(text.encode(), OPTS, kind="ocr_text")
    heads = [(b.number, b.level) for b in doc.blocks_of(BlockKind.HEADING) if not b.attrs.get("title")]
    assert heads == [("1", 2), ("2", 2)]
