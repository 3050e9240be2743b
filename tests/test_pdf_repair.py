"""Issue 26, round seventeen, the PDF side: the Form XObject count reads the file through an
mmap (no second copy of the PDF in the compile), with the same counts as from bytes. The tests
fail at dd05bb5 (its reader needs ``bytes.startswith``, which an mmap lacks, and it copied the
file). The PDFs are built by the campaign's own builder (benchmarks/fuzz.py)."""

from __future__ import annotations

import mmap
import random
import sys
import tracemalloc
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402


def _mapped(data: bytes, tmp_path: Path, name: str = "f.pdf") -> mmap.mmap:
    f = tmp_path / name
    f.write_bytes(data)
    with open(f, "rb") as fh:
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.mark.parametrize("seed", range(12))
def test_the_count_through_an_mmap_is_the_count_from_bytes(tmp_path, seed):
    # fuzz.py's form shapes (chain, loop, self, fan-out; in the body and in object streams)
    from ctxmill.limits import MAX_PAGE_FORM_DRAWS
    from ctxmill.sources.pdf_forms import page_form_draws

    rnd = random.Random(seed)
    _, data = fuzz._form_nesting(rnd)
    if seed % 2:
        _, data = fuzz._compressed_structure(rnd)
    m = _mapped(data, tmp_path)
    try:
        assert page_form_draws(m, MAX_PAGE_FORM_DRAWS) == page_form_draws(data, MAX_PAGE_FORM_DRAWS)
    finally:
        m.close()  # (nothing of the map is kept by the count: closing it does not raise)


def test_corpus_counts_through_an_mmap_are_the_counts_from_bytes(shared_dir, tmp_path):
    from ctxmill.limits import MAX_PAGE_FORM_DRAWS
    from ctxmill.sources.pdf_forms import page_form_draws

    papers = sorted((shared_dir / "corpus").glob("**/paper.pdf"))
    assert papers
    counted = 0
    for f in papers:
        with open(f, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            got = page_form_draws(m, MAX_PAGE_FORM_DRAWS)
        assert got == page_form_draws(f.read_bytes(), MAX_PAGE_FORM_DRAWS), f
        counted += got is not None
    assert counted >= 10


def test_the_compile_does_not_copy_the_file_to_count_its_forms(tmp_path):
    # a page whose forms draw forms (so the whole count runs), then 16 MB of an unused stream:
    # the count allocates far less than the file (dd05bb5 read it whole: 16 MB and more)
    from ctxmill.sources.pdf import _form_fanout

    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</XObject<</X0 5 0 R>>>>/Contents 4 0 R>>",
            fuzz._stream(b"q /X0 Do Q /X0 Do"),
            fuzz._stream(b"/N Do /N Do", b"/Type/XObject/Subtype/Form/BBox[0 0 9 9]/Resources<</XObject<</N 6 0 R>>>>"),
            fuzz._stream(b"0 0 m 9 9 l S", b"/Type/XObject/Subtype/Form/BBox[0 0 9 9]"),
            fuzz._stream(bytes(random.Random(1).randbytes(16 << 20)))]
    f = tmp_path / "big.pdf"
    f.write_bytes(fuzz._pdf(objs))
    tracemalloc.start()
    try:
        assert _form_fanout(str(f), 1) == frozenset()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20, peak


def test_a_fan_out_is_still_found_through_the_map(tmp_path):
    # page 1 draws 2^20 - 1 forms: over MAX_PAGE_FORM_DRAWS, so page index 0 is spared pdfium
    from ctxmill.sources.pdf import _form_fanout

    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</XObject<</X0 5 0 R>>>>/Contents 4 0 R>>",
            fuzz._stream(b"q /X0 Do Q")]
    for k in range(20):
        last = k == 19
        objs.append(fuzz._stream(b"" if last else b"/N Do /N Do", b"/Type/XObject/Subtype/Form/BBox[0 0 9 9]"
                                 + (b"" if last else b"/Resources<</XObject<</N %d 0 R>>>>" % (6 + k))))
    f = tmp_path / "fan.pdf"
    f.write_bytes(fuzz._pdf(objs))
    assert _form_fanout(str(f), 1) == frozenset({0})
    assert _form_fanout(str(tmp_path / "missing.pdf"), 1) == frozenset()
    (tmp_path / "empty.pdf").write_bytes(b"")
    assert _form_fanout(str(tmp_path / "empty.pdf"), 1) == frozenset()
