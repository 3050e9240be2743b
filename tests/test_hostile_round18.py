"""Issue 26, round eighteen: truncated and header-less PDFs reach pdfium and the rebuild instead
of being refused by the ``%%EOF``/``%PDF`` checks, and text whose lines are in different
encodings is decoded line by line instead of refused as binary. Each test of a new behaviour
fails at a83d785 (the file was refused); the refusals kept (a file that is no PDF, binary data)
are guarded beside them. The damaged inputs are made as benchmarks/fuzz.py makes them."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from _pdfgen import make_pdf
from ctxmill.errors import InputRefused
from ctxmill.sources import REBUILT_NOTE, decode_text, load_source

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fuzz  # noqa: E402

LINES = [("A Damaged Report", 72, 80, 18), ("The first line of its body text.", 72, 140, 11),
         ("A second line with more words in it.", 72, 160, 11)]


@pytest.fixture
def good_pdf(tmp_path) -> Path:
    return make_pdf(tmp_path / "good.pdf", [LINES, [("Page two says goodbye.", 72, 100, 11)]])


def _text(stream) -> list[str]:
    return [ln.text for p in stream.pages for ln in p.lines]


def _compile(inp: Path, out: Path) -> tuple[subprocess.CompletedProcess, dict]:
    r = subprocess.run([sys.executable, "-m", "ctxmill.cli", "compile", str(inp), "-o", str(out), "--json"],
                       capture_output=True, text=True, timeout=300)
    return r, (json.loads(r.stdout) if r.returncode == 0 else {})


# --------------------------------------------------------------------------- truncated PDFs

def test_a_pdf_cut_short_after_its_pages_compiles_with_its_text(good_pdf, tmp_path):
    data = good_pdf.read_bytes()
    cut = tmp_path / "cut.pdf"
    # the cross-reference table and trailer lost (pdfium rebuilds a lost table itself), then
    # the last object cut too (pdfium refuses it: rebuilt from its objects)
    for end in (data.rfind(b"xref"), data.rfind(b"endobj")):
        cut.write_bytes(data[:end])
        s = load_source(cut)
        assert _text(s) == _text(load_source(good_pdf))
        note = next(w for w in s.warnings if w.startswith((REBUILT_NOTE, "the PDF is damaged")))
        assert "truncated" in note and "%%EOF" in note


def test_a_truncated_pdf_is_a_qa_warning_through_the_command(good_pdf, tmp_path):
    data = good_pdf.read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[:-150])
    r, info = _compile(cut, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert info["pages"] == 2
    assert "The first line of its body text." in (tmp_path / "out" / "document.md").read_text()
    qa = json.loads((tmp_path / "out" / "qa.json").read_text())
    checks = [c for c in qa["checks"] if c["id"] == "source_warning" and "truncated" in c["message"]]
    assert checks and checks[0]["severity"] == "warning"


def test_a_pdf_cut_before_its_first_page_is_refused_as_truncated(good_pdf, tmp_path):
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(good_pdf.read_bytes()[:60])
    out = tmp_path / "out"
    r, _ = _compile(cut, out)
    assert r.returncode == 3 and r.stderr.count("\n") == 1 and "truncated" in r.stderr
    assert not out.exists()


# --------------------------------------------------------------------------- header-less PDFs

@pytest.mark.parametrize("head", [b"\x00\x00\x00\x00    ", b"PK\x03\x04    ", b"garbage!"])
def test_a_pdf_whose_header_is_overwritten_compiles(good_pdf, tmp_path, head):
    # fuzz.py's header mutants (PK: the first bytes of a ZIP archive, so of a Word file)
    data = bytearray(good_pdf.read_bytes())
    data[:8] = head
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(bytes(data))
    s = load_source(bad)
    assert _text(s) == _text(load_source(good_pdf))
    assert any(w.startswith(REBUILT_NOTE) and "header is missing" in w for w in s.warnings)


def test_a_headerless_pdf_under_another_name_is_read_as_a_pdf(good_pdf, tmp_path):
    data = bytearray(good_pdf.read_bytes())
    data[:8] = b"\x00" * 8
    bad = tmp_path / "scan"
    bad.write_bytes(bytes(data))
    assert _text(load_source(bad)) == _text(load_source(good_pdf))


@pytest.mark.parametrize("body", [b"this is not a pdf at all\n" * 40, bytes(range(256)) * 300,
                                  b"PK\x03\x04" + bytes(2000)])
def test_a_file_that_is_no_pdf_is_still_refused_at_once(tmp_path, body, monkeypatch):
    import ctxmill.sources.sandbox as sandbox

    def never(*a, **k):
        raise AssertionError("a file that is no PDF reached the PDF reader")

    monkeypatch.setattr(sandbox, "load_pdf", never)  # refused before any PDF reader starts
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(body)
    with pytest.raises(InputRefused) as exc:
        load_source(fake)
    assert "\n" not in str(exc.value)
    assert "not a PDF" in str(exc.value) or "ZIP" in str(exc.value)


def test_corpus_papers_truncated_and_headerless(corpus_dir):
    # a real paper: its header overwritten gives every page's text; cut at 90 % it gives its
    # first page's words (a font object after the cut may be lost: a few lines break otherwise)
    pdf = corpus_dir.parent / "papers" / "acl-review-aatif" / "paper.pdf"
    if not pdf.is_file():
        pytest.skip("the corpus paper is not present")
    data = pdf.read_bytes()
    whole = load_source(pdf)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "headless.pdf"
        bad.write_bytes(b"\x00" * 8 + data[8:])
        s = load_source(bad)
        assert [[ln.text for ln in p.lines] for p in s.pages] == [[ln.text for ln in p.lines] for p in whole.pages]
        cut = Path(tmp) / "cut.pdf"
        cut.write_bytes(data[:int(len(data) * 0.9)])
        s = load_source(cut)
        words = " ".join(ln.text for ln in whole.pages[0].lines).split()
        got = set(" ".join(ln.text for ln in s.pages[0].lines).split())
        assert s.pages and sum(w in got for w in words) >= 0.9 * len(words)


def test_data_after_a_whole_pdfs_last_eof_is_no_truncation(good_pdf, tmp_path):
    # (some mailers and uploaders append bytes after the file's end: no object, nothing lost)
    from ctxmill.sources import pdf_damage

    data = good_pdf.read_bytes()
    tail = tmp_path / "tail.pdf"
    tail.write_bytes(data + b"\r\n" + b"-- appended by a mail gateway --\n" * 300)
    assert pdf_damage(tail.read_bytes(), "tail.pdf") == ""
    s = load_source(tail)
    assert _text(s) == _text(load_source(good_pdf))
    assert not any("truncated" in w for w in s.warnings)
    # an incremental update cut after the first %%EOF: its object follows, so it was cut
    cut = data + b"\n9 0 obj\n<< /Type /Annot >>\nendobj\n" + b" " * 5000
    assert "truncated" in pdf_damage(cut, "cut.pdf")


# --------------------------------------------------------------------------- mixed encodings

def _mixed(seed: int) -> tuple[list[str], bytes]:
    rnd = random.Random(seed)
    doc = fuzz._doc(rnd, 40)
    data = fuzz._mixed_lines(rnd, doc)
    return doc.split("\n"), data


@pytest.mark.parametrize("seed", range(6))
def test_lines_in_different_encodings_are_decoded_line_by_line(seed):
    _, data = _mixed(seed)
    notes: list[str] = []
    text = decode_text(data, "mixed.txt", notes)
    raw = data.split(b"\n")
    got = text.split("\n")
    assert len(got) == len(raw)
    utf8 = 0
    for ln, out in zip(raw, got, strict=True):
        try:
            s = ln.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if b"\x00" not in ln:  # every UTF-8 line as written
            assert out == s
            utf8 += 1
    assert len(notes) == 1 and notes[0].startswith("the text mixes encodings")
    assert f"{len(raw) - utf8:,} of {len(raw):,} lines" in notes[0]


def test_a_utf16_line_among_utf8_lines_keeps_its_text():
    utf8 = "Title café\n" + "A line of plain prose, well over the UTF-16 one in length.\n" * 3
    data = utf8.encode() + "A line written in UTF-16 here".encode("utf-16-le") + b"\n" + "Back to UTF-8: naïve\n".encode()
    notes: list[str] = []
    assert decode_text(data, "x.txt", notes) == utf8 + "A line written in UTF-16 here\nBack to UTF-8: naïve\n"
    assert "utf-16-le" in notes[0].lower()


def test_mixed_encodings_compile_with_a_qa_warning(tmp_path):
    _, data = _mixed(3)
    inp = tmp_path / "mixed.md"
    inp.write_bytes(data)
    r, info = _compile(inp, tmp_path / "out")
    assert r.returncode == 0, r.stderr
    qa = json.loads((tmp_path / "out" / "qa.json").read_text())
    checks = [c for c in qa["checks"] if c["id"] == "source_warning"]
    assert checks and checks[0]["severity"] == "warning" and "lines are not UTF-8" in checks[0]["message"]


def test_one_legacy_encoding_throughout_is_read_whole_as_before():
    # cp1252 throughout (no line of UTF-8 beyond ASCII): the file's one encoding, no note
    data = "Résumé of the café\nPlain line\nÉtude à Noël\n".encode("cp1252")
    notes: list[str] = []
    assert decode_text(data, "x.txt", notes) == data.decode("cp1252") and notes == []


@pytest.mark.parametrize("data", [bytes(range(256)) * 20, b"\x00\x01\x02garbage\x00" * 100,
                                  b"abc\x00def\n" * 100, "UTF-8 line é\n".encode() + b"\x00\x01\x02\x03\x04\x05\x06\x07"])
def test_binary_data_is_still_refused(data):
    with pytest.raises(InputRefused, match="binary data"):
        decode_text(data, "b.txt")


# --------------------------------------------------------------------------- apply: linear cost

class _Counted(list):
    """A list that counts the items its slices copy."""

    copied = 0

    def __getitem__(self, k):
        got = super().__getitem__(k)
        if isinstance(k, slice):
            _Counted.copied += len(got)
        return got


@pytest.mark.parametrize("change", [None, 0.5, 0.999])
def test_the_common_head_and_tail_of_an_identical_sketch_cost_linear_copies(change):
    # apply's diff trims the common head and tail of two line lists; a binary search over the
    # whole length copied O(n log n) items (the diff stage of an identical 4.6 MB sketch
    # doubled x2.95); block by block it copies at most a few times n
    from ctxmill.apply.check import common_prefix, common_suffix

    n = 200_000
    a = _Counted(f"line {i % 97}\n" for i in range(n))
    b = _Counted(a)
    if change is not None:
        b[int(n * change)] = "changed\n"
    _Counted.copied = 0
    p = common_prefix(a, b)
    q = common_suffix(a, b, p)
    assert (p, q) == ((n, 0) if change is None else (int(n * change), n - int(n * change) - 1))
    assert _Counted.copied <= 4 * n


def test_apply_collects_garbage_less_often_while_merging(monkeypatch):
    import gc

    import ctxmill.apply.sketch as sketch

    seen = []
    real = sketch._apply

    def spy(*a, **k):
        seen.append(gc.get_threshold()[0])
        return real(*a, **k)

    monkeypatch.setattr(sketch, "_apply", spy)
    before = gc.get_threshold()
    r = sketch.apply_sketch("a = 1\nb = 2\n", "a = 1\nb = 3\n", path="x.py")
    assert r.applied and r.result == "a = 1\nb = 3\n"
    assert seen and seen[0] >= 50_000 and gc.get_threshold() == before
