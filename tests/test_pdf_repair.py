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


# ----------------------------------------------------------------------------- the rebuild
# A PDF whose object stream holding the catalog has a wrong /First, moved offsets or a huge /N
# was refused whole at dd05bb5 (pdfium, pikepdf and pypdf recover none); now it is rebuilt from
# its objects (sources/pdf_repair.py) and compiled, and the QA report says so.

CTXMILL = Path(sys.executable).with_name("ctxmill")
TEXT = b"The catalog sits in a broken object stream."


def _broken_object_stream(damage: str, seed: int = 3) -> bytes:
    objs = fuzz._page_objs(b"BT /F1 11 Tf 72 720 Td (" + TEXT + b") Tj ET")
    objs += [b"<</Type/Annot/Subtype/Text/Rect[10 10 20 20]/Contents(note %d)>>" % i for i in range(3)]
    objs[2] = objs[2].replace(b"/Contents 4 0 R", b"/Contents 4 0 R/Annots[6 0 R 7 0 R 8 0 R]")
    return fuzz._xref_stream_pdf(objs, {1, 2, 3, 5, 6, 7, 8}, None, damage, random.Random(seed))


def _refused_by_pdfium(data: bytes) -> bool:
    import pypdfium2 as pdfium

    try:
        pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return True
    return False


@pytest.mark.timeout(120)
@pytest.mark.parametrize("damage,seed,sandbox", [("first", 3, "1"), ("offsets", 3, "1"), ("offsets", 5, "1"),
                                                 ("first", 3, "0")])
def test_a_broken_object_stream_holding_the_catalog_is_rebuilt_and_compiled(tmp_path, damage, seed, sandbox):
    import json
    import os
    import subprocess

    data = _broken_object_stream(damage, seed)
    assert _refused_by_pdfium(data)  # (what the test is about: pdfium alone refuses it)
    f = tmp_path / "broken.pdf"
    f.write_bytes(data)
    out = tmp_path / "out"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.run([str(CTXMILL), "compile", str(f), "-o", str(out)], capture_output=True, text=True,
                       timeout=100, env={**os.environ, "TMPDIR": str(tmp), "CTXMILL_PDF_SANDBOX": sandbox})
    assert p.returncode == 0, p.stderr[-500:]
    assert TEXT.decode() in (out / "document.md").read_text()
    qa = json.loads((out / "qa.json").read_text())
    notes = [(c["message"], c["severity"]) for c in qa["checks"] if c["id"] == "source_warning"]
    # a warning, not info: the file was damaged, and the QA report says so where a reader looks
    assert any("rebuilt from its 8 objects (7 of them from object streams)" in n and sev == "warning"
               for n, sev in notes), notes
    assert list(tmp.iterdir()) == []  # the rebuilt copy is gone


@pytest.mark.parametrize("seed", range(40))
def test_every_broken_object_stream_of_the_campaign_is_rebuilt_with_its_page(seed):
    # fuzz.py's own kind (xref_stream: offsets, first, count...): each file pdfium refuses is
    # rebuilt into one pdfium reads, with its one page of text and its 20 annotations
    import pypdfium2 as pdfium

    from ctxmill.sources.pdf_repair import rebuild

    kind, data = fuzz._compressed_structure(random.Random(seed))
    if not _refused_by_pdfium(data):
        return
    got = rebuild(data)
    assert got is not None, kind
    doc = pdfium.PdfDocument(got.data)
    assert len(doc) == 1
    assert len(doc[0].get_textpage().get_text_range()) > 20
    assert len(list(doc[0].get_objects())) >= 1
    assert got.packed == 24, kind


def _first_moved(data: bytes, which: int | None) -> bytes:
    import re

    b = bytearray(data)
    ms = list(re.finditer(rb"/First (\d+)(?!\s+\d+\s+R)", data))  # (an object stream's, not an outline's)
    for k, m in enumerate(ms):
        if which is None or k == which:
            v = str(int(m.group(1)) + 3).encode()
            if len(v) == len(m.group(1)):
                b[m.start(1):m.end(1)] = v
    return bytes(b)


def _texts(doc) -> list[str]:
    return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]


@pytest.mark.timeout(300)
def test_corpus_papers_with_a_wrong_first_are_rebuilt_page_for_page(shared_dir):
    # a real paper whose object streams all have a wrong /First: pdfium refuses it; the rebuild
    # gives every page with the text pdfium reads from the undamaged paper. And the undamaged
    # paper rebuilt (as if refused) loses nothing either: same pages, same text
    import pypdfium2 as pdfium

    from ctxmill.sources.pdf_repair import rebuild

    papers = sorted((shared_dir / "corpus").glob("papers/*/paper.pdf"))
    assert papers
    rebuilt = 0
    for f in papers:
        data = f.read_bytes()
        good = _texts(pdfium.PdfDocument(data))
        same = rebuild(data)
        assert same is not None and _texts(pdfium.PdfDocument(same.data)) == good, f
        bad = _first_moved(data, None)
        if bad == data or not _refused_by_pdfium(bad):
            continue
        got = rebuild(bad)
        assert got is not None, f
        assert _texts(pdfium.PdfDocument(got.data)) == good, f
        rebuilt += 1
    assert rebuilt >= 10


def test_what_is_not_rebuilt():
    from ctxmill.sources.pdf_repair import rebuild

    good = _broken_object_stream("first")
    assert rebuild(good) is not None
    # no PDF at all; objects without a catalog or without a page; an encrypted file
    assert rebuild(b"") is None
    assert rebuild(random.Random(1).randbytes(100_000)) is None
    assert rebuild(fuzz._pdf([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[]/Count 0>>"])) is None
    assert rebuild(fuzz._pdf([b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>"])) is None
    enc = good.replace(b"/Root 1 0 R", b"/Root 1 0 R/Encrypt<</Filter/Standard/V 1/R 2>>")
    assert rebuild(enc) is None


@pytest.mark.timeout(120)
def test_the_rebuild_stays_bounded_on_hostile_structure():
    # object streams that are Flate bombs (decoded up to the budget only), a header of a
    # million numbers for few objects, object numbers far apart (one xref subsection each, not
    # a table up to the largest), "obj" inside stream data (not read as objects). Each ends (a
    # hang guard, not a timing) with an answer pdfium reads or none
    import zlib

    import pypdfium2 as pdfium

    from ctxmill.sources import pdf_repair

    bomb = zlib.compress(b"1 0 " + b"\0" * (pdf_repair.MAX_DECODED_TOTAL + (1 << 20)), 9)
    stm = b"<</Type/ObjStm/N 1/First 4/Length %d/Filter/FlateDecode>>stream\n" % len(bomb) + bomb + b"\nendstream"
    base = _broken_object_stream("first")
    assert pdf_repair.rebuild(base + b"".join(b"%d 0 obj\n%s\nendobj\n" % (60 + k, stm) for k in range(3))) is not None
    head = zlib.compress(b" ".join(b"%d 0" % i for i in range(1_000_000)) + b" <</Type/Catalog>>")
    many = b"9 0 obj <</Type/ObjStm/N 1000000/First 3/Length %d/Filter/FlateDecode>>stream\n" % len(head) + head
    assert pdf_repair.rebuild(base + many + b"\nendstream endobj") is not None
    far = base.replace(b"5 0 obj", b"4000000 0 obj")  # (the font moves far away: still one rebuild)
    got = pdf_repair.rebuild(far)
    assert got is not None and len(got.data) < 2 * len(base) + 4096
    pdfium.PdfDocument(got.data)
    # dictionaries that never close, with no endobj after them: each once read to the end of the
    # file (quadratic: 33 CPU-s for 100,000 before the parse budget); 20,000 here
    for tail in (b"<</A [1 2 ", b"<</A [1 (x "):
        unclosed = base + b"".join(b"%d 0 obj %s" % (100 + i, tail) for i in range(20_000))
        assert pdf_repair.rebuild(unclosed) is not None
    inside = fuzz._stream(b"1 0 obj <</Type/Catalog/Pages 99 0 R>> endobj " * 1000)
    got = pdf_repair.rebuild(base + b"50 0 obj\n" + inside + b"\nendobj\n")
    assert got is not None and len(pdfium.PdfDocument(got.data)) == 1


def test_the_sandbox_removes_the_copy_of_a_child_it_kills(tmp_path, monkeypatch):
    # a child killed at its limit cannot remove its rebuilt copy: the parent does
    import subprocess
    import tempfile

    from ctxmill.sources import sandbox
    from ctxmill.sources.pdf import REBUILT_PREFIX

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    left = tmp_path / f"{REBUILT_PREFIX}{proc.pid}-1.pdf"
    left.write_bytes(b"%PDF-1.7")
    other = tmp_path / f"{REBUILT_PREFIX}{proc.pid + 1}-1.pdf"
    other.write_bytes(b"%PDF-1.7")
    sandbox._kill_group(proc)
    assert proc.poll() is not None
    assert not left.exists() and other.exists()


def _three_pages(lose: str) -> tuple[bytes, list[str]]:
    """A PDF 1.5 file of three pages (text "page one" ...), its catalog (``lose`` "catalog") or its
    catalog and page tree ("tree") in an object stream whose second half is cut off: the
    catalog is its last object."""
    import zlib

    words = ["page one", "page two", "page three"]
    objs = [b"<</Type/Pages/Kids[3 0 R 5 0 R 7 0 R]/Count 3/Resources<</Font<</F1 2 0 R>>>>/MediaBox[0 0 612 792]>>",
            fuzz._FONT]
    for k, w in enumerate(words):
        objs.append(b"<</Type/Page/Parent 1 0 R/Contents %d 0 R>>" % (4 + 2 * k))
        objs.append(fuzz._stream(b"BT /F1 11 Tf 72 720 Td (" + w.encode() + b") Tj ET"))
    # body: pages, fonts and contents; the object stream: the page tree (when lost) and the catalog
    filler = b"[" + b" ".join(b"%d" % random.Random(1).randrange(10**9) for _ in range(2000)) + b"]"
    inside = [(11, filler)] + ([(1, objs[0])] if lose == "tree" else [])
    inside.append((9, b"<</Type/Catalog/Pages 1 0 R>>"))
    out = bytearray(b"%PDF-1.7\n")
    for num, body in enumerate(objs, 1):
        if not (lose == "tree" and num == 1):
            out += b"%d 0 obj\n" % num + body + b"\nendobj\n"
    offsets, at = [], 0
    for _, b in inside:
        offsets.append(at)
        at += len(b) + 1
    head = b" ".join(b"%d %d" % (n, off) for (n, _), off in zip(inside, offsets, strict=True)) + b" "
    packed = zlib.compress(head + b" ".join(b for _, b in inside))
    cut = packed[:len(packed) // 3]  # (the filler cut: the objects after it are lost)
    out += b"10 0 obj\n<</Type/ObjStm/N %d/First %d/Length %d/Filter/FlateDecode>>stream\n" % (
        len(inside), len(head), len(cut)) + cut + b"\nendstream\nendobj\n"
    return bytes(out), words


@pytest.mark.parametrize("lose", ["catalog", "tree"])
def test_a_lost_catalog_is_made_for_the_pages_that_are_left(lose):
    import pypdfium2 as pdfium

    from ctxmill.sources.pdf_repair import rebuild

    data, words = _three_pages(lose)
    assert _refused_by_pdfium(data)
    got = rebuild(data)
    assert got is not None
    assert ("page tree were lost" in got.made) == (lose == "tree") and "catalog" in got.made
    doc = pdfium.PdfDocument(got.data)
    assert [t.strip() for t in _texts(doc)] == words  # (in the order of their object numbers)


def test_a_damaged_object_stream_gives_the_objects_before_the_damage():
    # bytes flipped in the second half of an object stream's Flate data: its first objects
    # (here the catalog and the page tree) are read, the damaged rest left out
    import zlib

    import pypdfium2 as pdfium

    from ctxmill.sources.pdf_repair import _decoded, rebuild

    words = [b"alpha", b"beta", b"gamma", b"delta", b"[1 2 3]", b"<</A 1>>", b"(text)"]
    rnd = random.Random(2)
    body = b"1 0 2 40 " + b"<</Type/Catalog/Pages 2 0 R>>".ljust(40) + b" ".join(
        rnd.choice(words) for _ in range(60_000))
    raw = bytearray(zlib.compress(body))
    for k in range(len(raw) // 2, len(raw) // 2 + 50):
        raw[k] ^= 0x5A
    got = _decoded({"Filter": "/FlateDecode"}, bytes(raw), [1 << 30], {})
    assert got is not None and not got[1]
    assert got[0].startswith(body[:60])  # (after the damage Flate may decode garbage until it fails)
    # and in a file: the object stream holding the catalog damaged past its first objects
    data = _broken_object_stream("first")
    at = data.index(b"/Type/ObjStm")
    start = data.index(b"stream\n", at) + 7
    end = data.index(b"endstream", start)
    damaged = bytearray(data)
    for k in range(end - 12, end - 1):  # (the last annotation and the checksum)
        damaged[k] ^= 0x5A
    got = rebuild(bytes(damaged))
    assert got is not None and len(pdfium.PdfDocument(got.data)) == 1


def test_a_file_pdfium_loads_is_never_rebuilt(tmp_path, monkeypatch):
    # the rebuild is only a road for what pdfium refuses: a readable file never reaches it
    from ctxmill.sources import pdf, pdf_repair

    def no(_data):
        raise AssertionError("rebuilt a file pdfium loads")

    monkeypatch.setattr(pdf_repair, "rebuild", no)
    f = tmp_path / "good.pdf"
    f.write_bytes(_broken_object_stream(""))
    stream = pdf.extract(f)
    assert TEXT.decode() in " ".join(ln.text for p in stream.pages for ln in p.lines)
    assert not any("rebuilt" in w for w in stream.warnings)
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(_broken_object_stream("first"))
    monkeypatch.undo()
    stream = pdf.extract(bad)
    assert any("rebuilt from its 8 objects" in w for w in stream.warnings)
    assert pdf.readable(bad) != str(bad)
    pdf.discard_repaired(bad)
    assert pdf.readable(bad) == str(bad)
