"""benchmarks/ocr_text.py counts engine markup left in document.md: a namespaced XML tag (PAGE's <pc:TextLine>,
ALTO's <alto:String>) is a tag like <span>."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from ocr_text import leftover  # noqa: E402


def test_namespaced_tags_count_as_leftover_markup():
    md = 'Line one <pc:TextLine id="l1">court record</pc:TextLine> and <alto:String CONTENT="x"/> here.\n'
    assert leftover(md) == {"html_tag": 3}


def test_plain_text_with_colons_and_comparisons_is_no_markup():
    md = "Ratio: 3 < 4 and 5 > 2; see http://example.org/a:b and time 10:30.\n"
    assert leftover(md) == {}
