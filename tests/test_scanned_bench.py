"""benchmarks/scanned.py's image-only copy: what a scanner gives (pictures of the pages, no text layer)."""

from __future__ import annotations

import sys
from pathlib import Path

import pypdfium2 as pdfium
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))


def _pages(pdf: Path) -> list[tuple[float, float, int, int]]:
    """(width, height, characters in the text layer, image objects) per page."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        out = []
        for page in doc:
            tp = page.get_textpage()
            images = sum(1 for o in page.get_objects() if o.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE)
            out.append((round(page.get_width()), round(page.get_height()), tp.count_chars(), images))
            tp.close()
        return out
    finally:
        doc.close()


@pytest.fixture(scope="module")
def paper(shared_dir) -> Path:
    pdf = shared_dir / "corpus" / "papers" / "iclr-workshop-compression" / "paper.pdf"
    if not pdf.is_file():
        pytest.skip("the corpus paper iclr-workshop-compression is not present")
    return pdf


def test_copy_is_image_only_with_the_same_pages(paper, tmp_path):
    import scanned

    copy = scanned.scan_copy(paper, tmp_path / "scan.pdf")
    orig, got = _pages(paper), _pages(copy)
    assert sum(c for _, _, c, _ in orig) > 1000  # the original has a text layer to lose
    assert len(got) == len(orig)
    assert [(w, h) for w, h, _, _ in got] == [(w, h) for w, h, _, _ in orig]
    assert all(chars == 0 for _, _, chars, _ in got), "the copy still has a text layer"
    assert all(images == 1 for _, _, _, images in got), "each page should be one picture"
    assert b"/DCTDecode" in copy.read_bytes()  # JPEG, as a scanner writes


def test_copy_is_deterministic_and_degradation_changes_it(paper, tmp_path):
    import scanned

    a = scanned.scan_copy(paper, tmp_path / "a.pdf", dpi=72, skew=1.5, noise=8, seed=3).read_bytes()
    b = scanned.scan_copy(paper, tmp_path / "b.pdf", dpi=72, skew=1.5, noise=8, seed=3).read_bytes()
    plain = scanned.scan_copy(paper, tmp_path / "c.pdf", dpi=72).read_bytes()
    assert a == b
    assert a != plain
