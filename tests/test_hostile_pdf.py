"""One damaged page never takes the document down (issue 26): the other pages compile and the
QA report names the page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _pdfgen import _assemble

CTXMILL = Path(sys.executable).with_name("ctxmill")


def _content(text: bytes) -> bytes:
    s = b"BT /F1 12 Tf 72 700 Td (%s) Tj ET" % text
    return b"<</Length %d>>stream\n" % len(s) + s + b"\nendstream\n"


def damaged_middle_page_pdf(path: Path) -> Path:
    """Three pages; the second page object is not a dictionary, so pdfium cannot load it."""
    objs = [b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[3 0 R 4 0 R 5 0 R]/Count 3/MediaBox[0 0 612 792]/Resources<</Font<</F1 8 0 R>>>>>>",
            b"<</Type/Page/Parent 2 0 R/Contents 6 0 R>>",
            b"(not a page)",
            b"<</Type/Page/Parent 2 0 R/Contents 7 0 R>>",
            _content(b"The first page keeps its words."),
            _content(b"The third page keeps its words too."),
            b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>"]
    path.write_bytes(_assemble(objs))
    return path


def test_a_damaged_page_is_named_and_the_others_compile(tmp_path):
    pdf = damaged_middle_page_pdf(tmp_path / "damaged.pdf")
    out = tmp_path / "out"
    r = subprocess.run([str(CTXMILL), "compile", str(pdf), "-o", str(out), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    md = (out / "document.md").read_text()
    assert "The first page keeps its words." in md and "The third page keeps its words too." in md
    qa = json.loads((out / "qa.json").read_text())
    damaged = [c for c in qa["checks"] if c["id"] == "damaged_page"]
    assert len(damaged) == 1 and damaged[0]["severity"] == "error" and damaged[0]["location"]["page"] == 2
    assert qa["score"] < 70
    assert json.loads((out / "metadata.json").read_text())["pages"] == 3
