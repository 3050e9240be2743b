"""Any text a PDF library returns is valid input: surrogates, controls and private-use glyphs
reach every stage as valid str, and a document holding them compiles instead of being refused."""

from __future__ import annotations

from pathlib import Path

from _pdfgen import _assemble
from ctxmill.compile.pipeline import compile_document
from ctxmill.sources import load_source
from ctxmill.sources.clean_text import clean


def test_clean_joins_pairs_replaces_lone_halves_and_drops_controls():
    assert clean("time \ud835\udc61 end") == "time \U0001d461 end"  # a pair becomes its character
    assert clean("lone \ud835 high, \udc61 low") == "lone \ufffd high, \ufffd low"
    assert clean("bell\x07 tab\there\x00") == "bell tab here"
    assert clean("private \ue000 glyph") == "private \ue000 glyph"  # valid text, kept
    plain = "nothing to repair"
    assert clean(plain) is plain
    for s in ("\ud835\udc61\ud835", "\udc61\ud835\udc61", "a\x1fb\ud800"):
        clean(s).encode("utf-8")  # never raises


def _tounicode_pdf(path: Path) -> Path:
    """One line whose glyphs map (ToUnicode) to a surrogate pair, a lone surrogate and BEL:
    what pdfium hands back for math-italic letters and broken fonts in real papers."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def /CMapType 2 def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"3 beginbfchar <41> <D835DC61> <42> <D835> <43> <0007> endbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    content = b"BT /F1 12 Tf 72 700 Td (time A and lone B and bell C end) Tj ET"
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
        b"<</Length %d>>stream\n" % len(content) + content + b"\nendstream\n",
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/ToUnicode 6 0 R>>",
        b"<</Length %d>>stream\n" % len(cmap) + cmap + b"\nendstream\n",
    ]
    path.write_bytes(_assemble(objs))
    return path


def test_pdf_with_surrogates_passes_the_sandbox_and_compiles(tmp_path):
    pdf = _tounicode_pdf(tmp_path / "math.pdf")
    stream = load_source(pdf)  # through the sandbox child and its JSON reply
    [line] = stream.pages[0].lines
    assert line.text.startswith("time \U0001d461 and lone \ufffd and bell")
    assert all(s.text.encode("utf-8") for s in line.spans)
    doc = compile_document(pdf)
    assert "\U0001d461" in doc.markdown
    doc.markdown.encode("utf-8")


def test_corpus_papers_with_math_italic_are_read(shared_dir):
    # these three were refused ("surrogates not allowed") before the text was repaired
    for slug in ("acm-sigconf-fpga-training", "cvpr-face-bias", "mnras-merger-splash"):
        pdf = shared_dir / "corpus" / "papers" / slug / "paper.pdf"
        if not pdf.exists():
            continue
        stream = load_source(pdf)
        text = "\n".join(line.text for p in stream.pages for line in p.lines)
        text.encode("utf-8")
        assert len(text) > 10000, slug
