"""Issue 26, round thirteen: what the PDF and text campaigns of `benchmarks/fuzz.py --kinds wide2`
found (its new PDF kinds: Type3 fonts, XFA forms, huge outlines and name trees, broken object and
cross-reference streams, nested forms, millions of operators, inline images, broken ToUnicode
maps, odd annotation encodings, wrong linearization, odd geometry, huge Info strings, embedded
PDFs, actions). Each test fails on the code before its fix (1d26ed8). Time limits here are safety
nets against a stall, not speed assertions (benchmarks/fuzz.py measures speed). The PDFs are
built by the campaign's own builder (benchmarks/fuzz.py ``_pdf``)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402

# ---------------------------------------------------------------------------- PDF 1.1 /Dests


def _old_dests_pdf(n: int, links: int) -> bytes:
    """Two pages; the catalog's /Dests a PDF 1.1 dictionary of n names (no name tree); ``links``
    link annotations on page 1 naming destinations spread over the dictionary, and one naming
    a destination that does not exist."""
    text = b"BT /F1 11 Tf 72 720 Td (A page of text with links) Tj ET"
    picks = [(i * 7919) % n for i in range(links)] + ([n - 1] if links else [])
    annots = b" ".join(b"<</Type/Annot/Subtype/Link/Rect[10 %d 60 %d]/Dest(d%06d)>>" % (k % 700, k % 700 + 9, j)
                       for k, j in enumerate(picks))
    if links:
        annots += b" <</Type/Annot/Subtype/Link/Rect[10 5 60 14]/Dest(nowhere)>>"
    objs = [b"<</Type/Catalog/Pages 2 0 R/Dests 7 0 R>>", b"<</Type/Pages/Kids[3 0 R 6 0 R]/Count 2>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R"
            b"/Annots[" + annots + b"]>>",
            fuzz._stream(text), fuzz._FONT,
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>",
            b"<<" + b"".join(b"/d%06d[%d 0 R/XYZ 0 %d 0]" % (i, 3 if i % 2 else 6, i % 792) for i in range(n)) + b">>"]
    return fuzz._pdf(objs)


@pytest.mark.timeout(150)
@pytest.mark.parametrize("links", [0, 40])
def test_a_pdf11_dests_dictionary_of_100000_names_does_not_stall(tmp_path, links):
    # fuzz seed 8, PDF case 166 (name_tree:Dests:old_dests:100000): over 60 CPU-s, where reading
    # the name -> page table asked pdfium for each name by its index, and pdfium walks PDF 1.1's
    # dictionary from its start for each (~190 CPU-s for 100,000), with or without a link to use it
    from ctxmill.sources.pdf import extract

    f = tmp_path / "dests.pdf"
    f.write_bytes(_old_dests_pdf(100_000, links))
    t = time.process_time()
    doc = extract(f)
    took = time.process_time() - t
    # (odd names point at page 1, even ones at page 2; the link to "nowhere" resolves to nothing)
    picks = [(i * 7919) % 100_000 for i in range(links)] + ([99_999] if links else [])
    assert [k.dest_page for k in doc.pages[0].links] == [1 if j % 2 else 2 for j in picks]
    assert took < 20, took


def test_links_resolve_the_same_with_a_table_read_in_part(tmp_path, monkeypatch):
    # the table read stops at its CPU budget; a name it lacks goes to pdfium's own lookup, which
    # gives the same page as the table would: a budget of zero changes no link
    import pypdfium2 as pdfium

    from ctxmill.sources import pdf as P

    f = tmp_path / "dests.pdf"
    f.write_bytes(_old_dests_pdf(3_000, 60))
    doc = pdfium.PdfDocument(str(f))
    page = doc[0]
    h = page.get_size()[1]
    full = P._links(doc.raw, page.raw, h, P._named_dests(doc.raw))
    monkeypatch.setattr(P, "_NAMED_DESTS_CPU_S", 0.0)
    part_table = P._named_dests(doc.raw)
    part = P._links(doc.raw, page.raw, h, part_table)
    assert len(part_table) < 3_000  # stopped early
    assert part == full == P._links(doc.raw, page.raw, h)
    assert [k.dest_page for k in full[:3]] == [1 if (i * 7919) % 3000 % 2 else 2 for i in range(3)]
    page.close()
    doc.close()


# ---------------------------------------------------------------------------- a page of millions of characters


def _two_pages(first_ops: bytes) -> bytes:
    """Page 1 drawn by ``first_ops``, page 2 one ordinary line of text."""
    objs = fuzz._page_objs(first_ops)
    objs[1] = b"<</Type/Pages/Kids[3 0 R 6 0 R]/Count 2>>"
    objs.append(b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 7 0 R>>")
    objs.append(fuzz._stream(b"BT /F1 11 Tf 72 720 Td (The second page is ordinary text.) Tj ET"))
    return fuzz._pdf(objs)


def test_a_page_over_max_page_chars_is_an_error_of_its_own(tmp_path, monkeypatch):
    # the mechanism, at a small limit: the page over it becomes an error naming the limit, and
    # the page after it is read
    from ctxmill.sources import pdf as P

    monkeypatch.setattr(P, "MAX_PAGE_CHARS", 100)
    f = tmp_path / "two.pdf"
    f.write_bytes(_two_pages(b"BT /F1 9 Tf 72 700 Td " + b"(ab ) Tj " * 60 + b"ET"))
    doc = P.extract(f)
    assert "over MAX_PAGE_CHARS (100)" in (doc.pages[0].error or "")
    assert not doc.pages[0].lines
    assert [ln.text for ln in doc.pages[1].lines] == ["The second page is ordinary text."]
    assert doc.pages[1].error is None


@pytest.mark.timeout(300)
def test_a_page_of_a_million_tj_operators_leaves_the_other_pages(tmp_path):
    # fuzz seed 1527, --kinds wide2, PDF cases 324 and others (many_operators: 4,000,000 "TJ" on
    # one page, 8 million characters): pdfium's text page took 3 GB, our reader the rest of the
    # 4 GB limit, and the whole PDF was refused. Here 1.2 million characters (over the limit,
    # under the memory): the page is a damaged_page error, page 2 is compiled, exit 0
    import json
    import subprocess

    f = tmp_path / "ops.pdf"
    f.write_bytes(_two_pages(b"BT /F1 9 Tf 72 700 Td\n" + b"[(a) 10 (b)] TJ\n" * 600_000 + b"ET\n"))
    out = tmp_path / "out"
    p = subprocess.run([str(Path(sys.executable).with_name("ctxmill")), "compile", str(f), "-o", str(out)],
                       capture_output=True, text=True, timeout=280)
    assert p.returncode == 0, p.stderr[-500:]
    qa = json.loads((out / "qa.json").read_text())
    damaged = [c for c in qa["checks"] if c["id"] == "damaged_page"]
    assert damaged and "MAX_PAGE_CHARS" in damaged[0]["message"] and damaged[0]["location"] == {"page": 1}
    assert "The second page is ordinary text." in (out / "document.md").read_text()


# ---------------------------------------------------------------------------- unclosed LaTeX math in text


@pytest.mark.timeout(120)
@pytest.mark.parametrize("opener", ["\\(", "\\["])
def test_a_line_of_100000_unclosed_math_openers_compiles_in_linear_time(opener):
    # fuzz seed 1528, --kinds wide2, text case 200 (deep_markdown, 0.25 MB): 100,000 "\(" on one
    # line of a .mmd file took over 60 CPU-s; the inline-math pattern scanned from every opener
    # to the end of the text for a "\)" that is not there
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    body = " ".join(["cache keys memory load trace rate stable"] * 200)
    text = "A Title\n\n" + body + " \\(x^2\\) done.\n\n" + opener * 100_000 + "\n\n" + body + "\n"
    t = time.process_time()
    doc = compile_document(text.encode(), CompileOptions(), name="in.mmd")
    assert doc is not None
    assert time.process_time() - t < 20


def _convert_latex_whole(text: str) -> str:
    """normalize.convert_latex as it was (each pattern over the whole text): the reference."""
    import re

    from ctxmill.compile import normalize as N

    if "\\(" not in text and "\\[" not in text:
        return text
    text = N.DISPLAY_MATH_RE.sub(lambda m: "$$" + re.sub(r"\s+", " ", m.group(1)).strip() + "$$", text)
    out = N.INLINE_MATH_RE.sub(lambda m: N.latex_inline(m.group(1)), text)
    out = re.sub(r"\s+(\[\^[^\]]+\])", r"\1", out)
    out = re.sub(r"(\[\^[^\]]+\])\s+([.,;:!?)])", r"\1\2", out)
    return re.sub(r"(?<=\S) +([.,;:])(?=\s|$)", r"\1", out)


def test_math_converted_as_by_the_patterns_over_the_whole_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ctxmill.compile.normalize import convert_latex

    pieces = st.sampled_from(["\\(", "\\)", "\\[", "\\]", "x", "^2", " ", "\n", ".", "=", "{", "}", "\\alpha", "1"])

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(pieces, max_size=40).map("".join))
    def check(text):
        assert convert_latex(text) == _convert_latex_whole(text)

    check()


def test_display_math_blocks_found_as_by_the_pattern_over_the_whole_text():
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ctxmill.sources import engines as E

    pieces = st.sampled_from(["\\[", "\\]", "\\\\[", "x", "1", " ", "\n", "$$", "a\\[", ",", "\\tag{1}"])

    def whole(text):
        def block(m):
            return f"\n\n$$\n{m.group(1).strip()}\n$$\n\n"
        text = re.sub(r"(?<![\\\w])\\\[(?!\s*\d[\d,\s–\-]*\\\])(.+?)\\\]", block, text, flags=re.S)
        return re.sub(r"^[ \t]*\$\$[ \t]*(\S.*?)[ \t]*\$\$[ \t]*$", lambda m: f"$$\n{m.group(1)}\n$$", text,
                      flags=re.M)

    @settings(max_examples=2000, deadline=None)
    @given(st.lists(pieces, max_size=40).map("".join))
    def check(text):
        assert E._display_math(text) == whole(text)

    check()
