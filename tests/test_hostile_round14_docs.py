"""Issue 26, round fourteen: what round thirteen's PDF campaign left (`benchmarks/fuzz.py --kinds
wide2`, family form_nesting:fanout): Form XObjects that each draw the next twice, 20-64 deep
(2^20-2^64 draws from a few KB), cost 18-30 CPU-s and the whole PDF was refused at the 4 GB
memory limit. Now the draws are counted from the file's bytes before pdfium loads the page
(ctxmill.sources.pdf_forms), and a page over MAX_PAGE_FORM_DRAWS is a damaged_page error of its
own while the other pages compile. The tests with the command fail at e7beac6. Time limits are
safety nets against a stall, not speed assertions. The PDFs are built by the campaign's own
builder (benchmarks/fuzz.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _two_pages_first_fanning_out(depth: int, packed: bool = False) -> bytes:
    """Page 1 draws form 8, each form draws the next twice, ``depth`` forms (2^depth - 1 draws);
    page 2 is one line of text. ``packed``: the catalog, the page tree and the pages in an object
    stream of a PDF 1.5 file (its cross-reference a stream)."""
    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R 6 0 R]/Count 2>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>/XObject<</X0 8 0 R>>>>"
            b"/Contents 4 0 R>>",
            fuzz._stream(b"q /X0 Do Q BT /F1 11 Tf 72 720 Td (The first page draws a form.) Tj ET"), fuzz._FONT,
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 7 0 R>>",
            fuzz._stream(b"BT /F1 11 Tf 72 720 Td (The second page is ordinary text.) Tj ET")]
    for k in range(depth):
        last = k == depth - 1
        draw = b"" if last else b"q 0.9 0 0 0.9 5 5 cm /N Do Q " * 2
        body = draw + b"BT /F1 9 Tf 10 %d Td (level %d) Tj ET" % (k % 700 + 20, k)
        objs.append(fuzz._stream(body, b"/Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>"
                                 + (b"" if last else b"/XObject<</N %d 0 R>>" % (9 + k)) + b">>"))
    return fuzz._xref_stream_pdf(objs, {1, 2, 3, 6}) if packed else fuzz._pdf(objs)


@pytest.mark.timeout(200)
@pytest.mark.parametrize("depth,packed", [(20, False), (64, False), (32, True)])
def test_a_page_whose_forms_fan_out_is_an_error_and_the_other_pages_compile(tmp_path, depth, packed):
    f = tmp_path / "fanout.pdf"
    f.write_bytes(_two_pages_first_fanning_out(depth, packed))
    out = tmp_path / "out"
    p = subprocess.run([str(CTXMILL), "compile", str(f), "-o", str(out)], capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-500:]
    qa = json.loads((out / "qa.json").read_text())
    damaged = [c for c in qa["checks"] if c["id"] == "damaged_page"]
    assert damaged and "MAX_PAGE_FORM_DRAWS" in damaged[0]["message"], damaged
    assert damaged[0]["location"] == {"page": 1}
    md = (out / "document.md").read_text()
    assert "The second page is ordinary text." in md
    assert "level 3" not in md  # nothing of the page that was not read


def test_draws_are_counted_per_page_through_nested_forms():
    from ctxmill.sources.pdf_forms import page_form_draws

    assert page_form_draws(_two_pages_first_fanning_out(5), 10**6) == [2**5 - 1, 0]
    assert page_form_draws(_two_pages_first_fanning_out(5, packed=True), 10**6) == [2**5 - 1, 0]
    assert page_form_draws(_two_pages_first_fanning_out(40), 1000) == [1001, 0]  # capped just over the limit


@pytest.mark.parametrize("seed", range(40))
def test_the_campaigns_form_shapes_are_counted_and_only_fan_out_is_over(seed):
    # fuzz.py's own kind (form_nesting: chain, loop, self, fanout): a chain of 10,000 is 10,000
    # draws (deeper than 64 is not followed: pdfium stops sooner), loops end, fan-out is over
    import pypdfium2 as pdfium

    from ctxmill.limits import MAX_PAGE_FORM_DRAWS
    from ctxmill.sources.pdf_forms import page_form_draws

    kind, data = fuzz._form_nesting(random.Random(seed))
    got = page_form_draws(data, MAX_PAGE_FORM_DRAWS)
    assert got is not None and len(got) == len(pdfium.PdfDocument(data))
    shape = kind.split(":")[1]
    if shape == "fanout":
        assert got[0] > MAX_PAGE_FORM_DRAWS, kind
    else:
        assert got[0] <= 100, (kind, got)


def test_a_file_without_forms_drawing_forms_is_not_parsed():
    from ctxmill.sources import pdf_forms

    data = fuzz._pdf(fuzz._page_objs(b"BT /F1 11 Tf 72 720 Td (text) Tj ET"))
    assert not pdf_forms.forms_draw_forms(data)
    assert pdf_forms.page_form_draws(data, 10) is None


def test_corpus_pages_are_far_under_the_limit_and_read_in_pdfiums_order(shared_dir):
    # no corpus paper loses a page to the limit, and the page tree walked here has pdfium's
    # page count wherever it is walked (a verdict is only given then)
    import pypdfium2 as pdfium

    from ctxmill.limits import MAX_PAGE_FORM_DRAWS
    from ctxmill.sources.pdf_forms import page_form_draws

    papers = sorted((shared_dir / "corpus").glob("**/paper.pdf"))
    assert papers
    walked = 0
    for f in papers:
        got = page_form_draws(f.read_bytes(), MAX_PAGE_FORM_DRAWS)
        if got is None:
            continue
        walked += 1
        assert len(got) == len(pdfium.PdfDocument(str(f))), f
        assert max(got) < MAX_PAGE_FORM_DRAWS // 100, (f, max(got))
    assert walked >= 10


@pytest.mark.timeout(120)
def test_the_count_itself_stays_bounded_on_hostile_structure():
    # what the reader of pdf_forms meets in a hostile file: 100,000 form dictionaries without a
    # stream, object streams that are Flate bombs (and the catalog missing, so they are read),
    # dictionaries nested 20,000 deep, stray delimiters. Each ends (a hang guard, not a timing)
    # with no verdict or the right one
    import zlib

    from ctxmill.sources.pdf_forms import page_form_draws

    form = b"<</Type/XObject/Subtype/Form/Resources<</XObject<</N 2 0 R>>>>/Length 6>>stream\n/N Do\nendstream"
    dicts = b"%PDF-1.7\n" + b"".join(b"%d 0 obj <</Subtype/Form/Resources<<>>>> endobj\n" % i for i in range(100_000))
    assert page_form_draws(dicts + b"9 0 obj <</Length 1>> stream\nx\nendstream endobj", 10) is None
    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    stms = [b"<</Type/ObjStm/N 1/First 4/Length %d/Filter/FlateDecode>>stream\n" % len(bomb) + bomb + b"\nendstream"
            for _ in range(20)]
    assert page_form_draws(fuzz._pdf([b"<</Type/Catalog/Pages 99 0 R>>", form, *stms]), 10) is None
    deep = fuzz._pdf([b"<</Type/Catalog/Pages 3 0 R>>", form, b"<<" * 20_000 + b"{ ) ] >" + b">>" * 20_000])
    assert page_form_draws(deep, 10) in (None, [0])
    pages = _two_pages_first_fanning_out(6).replace(b"/Count 2>>", b"/Count 2 /Junk [ { ) > ] (a(b)c) <0a>>>")
    assert page_form_draws(pages, 10**6) == [2**6 - 1, 0]
