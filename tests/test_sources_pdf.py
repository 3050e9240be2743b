"""PDF text layer through the sandbox: lines, spans, fonts, superscripts, links, bad files."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from _pdfgen import ZERO_PAGE_PDF, blank_pages_pdf, encrypted_pdf, make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.errors import InputRefused
from ctxmill.sources import load_source
from ctxmill.sources.pdf import extract


@pytest.fixture()
def small_pdf(tmp_path):
    body = "Body text of the first section that is long enough to be a paragraph line."
    pages = [
        [
            ("A Small Test Document", 72, 80, 20, "Helvetica-Bold"),
            ("1 Introduction", 72, 140, 13, "Helvetica-Bold"),
            (body, 72, 170, 10),
            ("It continues on a second line and ends here", 72, 182, 10),
            ("x = compute(a, b)", 90, 210, 9, "Courier"),
            ("return x", 90, 221, 9, "Courier"),
            ("print(x)", 90, 232, 9, "Courier"),
            ("1", 300, 760, 10),
        ],
        [
            ("1.1 Details", 72, 80, 11, "Helvetica-Bold"),
            ("More body text on the second page of this little document, again long.", 72, 110, 10),
            ("2", 300, 760, 10),
        ],
    ]
    return make_pdf(tmp_path / "small.pdf", pages)


def test_extract_lines_and_fonts(small_pdf):
    s = extract(small_pdf)
    assert s.kind == "pdf" and len(s.pages) == 2
    p1 = s.pages[0]
    texts = [ln.text for ln in p1.lines]
    assert texts[0] == "A Small Test Document"
    assert "1 Introduction" in texts
    title = p1.lines[0].spans[0]
    assert title.bold and abs(title.size - 20) < 0.5
    code = next(ln for ln in p1.lines if ln.text.startswith("x = compute"))
    assert code.spans[0].mono
    assert p1.width == 612 and p1.height == 792
    assert all(ln.bbox is not None for ln in p1.lines)


def test_sandboxed_compile_end_to_end(small_pdf):
    doc = compile_document(small_pdf, CompileOptions(fast=True))
    md = doc.markdown
    assert md.startswith("# A Small Test Document\n")
    assert "## 1 Introduction" in md and "### 1.1 Details" in md
    assert "\n1\n" not in md and "\n2\n" not in md  # page numbers are furniture
    assert "```\nx = compute(a, b)\nreturn x\nprint(x)\n```" in md
    assert [s.id for s in doc.sections] == ["s1", "s1.1"]
    assert doc.sections[0].page_end == 2


def test_refuses_bad_pdfs(tmp_path):
    zero = tmp_path / "zero.pdf"
    zero.write_bytes(ZERO_PAGE_PDF)
    cases = {
        zero: "zero pages",
        encrypted_pdf(tmp_path / "enc.pdf"): "encrypted",
    }
    fake = tmp_path / "fake.pdf"
    fake.write_text("this is not a pdf at all")
    cases[fake] = "not a PDF"
    good = make_pdf(tmp_path / "good.pdf", [[("Hello there", 72, 72, 12)]])
    trunc = tmp_path / "trunc.pdf"
    # cut before its page: nothing to rebuild (a cut after the page compiles: test_hostile_round18)
    trunc.write_bytes(good.read_bytes()[:100])
    cases[trunc] = "truncated"
    for path, reason in cases.items():
        with pytest.raises(InputRefused) as exc:
            load_source(path)
        assert reason in str(exc.value), (path, exc.value)
        assert "\n" not in str(exc.value)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sandbox_memory_limit(tmp_path, monkeypatch, workers):
    pdf = blank_pages_pdf(tmp_path / "many.pdf", 300)
    monkeypatch.setenv("CTXMILL_PDF_MEMORY_MB", "24")
    monkeypatch.setenv("CTXMILL_PDF_WORKERS", workers)
    with pytest.raises(InputRefused) as exc:
        load_source(pdf)
    assert "memory limit" in str(exc.value)


def test_sandbox_time_limit(tmp_path, monkeypatch):
    pdf = blank_pages_pdf(tmp_path / "many.pdf", 2000)
    # far below what starting the parser and reading 2,000 pages takes on any machine
    monkeypatch.setenv("CTXMILL_PDF_TIMEOUT_SECONDS", "0.05")
    monkeypatch.setenv("CTXMILL_PDF_CPU_SECONDS", "1")
    with pytest.raises(InputRefused) as exc:
        load_source(pdf)
    assert "limit" in str(exc.value)


def test_cli_exit_codes(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_bytes(os.urandom(4000))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "ctxmill.cli", "compile", str(junk), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert r.stderr.strip().count("\n") == 0 and "refused" in r.stderr
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


@pytest.mark.slow
def test_two_thousand_pages(tmp_path):
    big = blank_pages_pdf(tmp_path / "big.pdf", 2000)
    s = load_source(big)
    assert len(s.pages) == 2000


def test_rotated_arxiv_stamp_and_superscripts(tmp_path):
    pages = [[
        ("arXiv:2501.00001v1 [cs.CL] 7 Jan 2025", 30, 500, 16, "Times-Roman", True),
        ("Stamped Paper Title Here", 72, 80, 20, "Helvetica-Bold"),
        ("Ann Author", 72, 120, 11),
        ("1", 128, 116, 7),
        (", Bob Writer", 131, 120, 11),
        ("2", 194, 116, 7),
        ("1", 72, 136, 7),
        ("First University", 76, 140, 10),
        ("2", 72, 152, 7),
        ("Second Institute of Research", 76, 156, 10),
        ("1 Introduction", 72, 200, 13, "Helvetica-Bold"),
        ("Text of the introduction, long enough to count as running text of the body.", 72, 225, 10),
    ]]
    doc = compile_document(make_pdf(tmp_path / "stamp.pdf", pages), CompileOptions(fast=True))
    m = doc.metadata
    assert m.arxiv_id == "2501.00001v1" and m.categories == ["cs.CL"] and m.date == "2025-01-07"
    assert [(a.name, a.affiliations) for a in m.authors] == [
        ("Ann Author", ["First University"]), ("Bob Writer", ["Second Institute of Research"])]
    assert "arXiv:" not in doc.markdown


def test_two_columns(tmp_path):
    left = ["1 Introduction"] + [f"left column line {i} of running text that goes" for i in range(1, 6)]
    right = [f"right column line {i} continues the sentence" for i in range(1, 4)] + ["and ends here."]
    items = [(left[0], 60, 100, 12, "Helvetica-Bold")]
    items += [(t, 60, 120 + 12 * i, 9) for i, t in enumerate(left[1:])]
    items += [(t, 320, 100 + 12 * i, 9) for i, t in enumerate(right)]
    items = [("Two Column Paper", 60, 60, 18, "Helvetica-Bold")] + items
    doc = compile_document(make_pdf(tmp_path / "cols.pdf", [items]), CompileOptions(fast=True))
    md = doc.markdown
    assert "left column line 5 of running text that goes right column line 1 continues" in md
    assert md.index("left column line 1") < md.index("right column line 1")


def test_sandbox_child_dies_with_its_caller(tmp_path):
    """A caller killed with SIGKILL must not leave a PDF parser running on."""
    import os
    import signal
    import subprocess
    import sys
    import time

    fifo = tmp_path / "stdin.fifo"
    os.mkfifo(fifo)
    caller = (
        "import subprocess, sys, time\n"
        f"f = open({str(fifo)!r}, 'rb')\n"
        "p = subprocess.Popen([sys.executable, '-m', 'ctxmill.sources.sandbox'], stdin=f, start_new_session=True)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", caller], stdout=subprocess.PIPE, text=True)
    writer = os.open(fifo, os.O_WRONLY)  # keeps the child's stdin open: only its caller's death can end it
    try:
        child = int(proc.stdout.readline())
        time.sleep(1.0)  # let the child reach its prctl call
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                os.waitpid(child, os.WNOHANG)
            except ChildProcessError:
                pass
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            with open(f"/proc/{child}/stat") as st:
                if st.read().split()[2] == "Z":
                    break
            time.sleep(0.1)
        else:
            os.kill(child, signal.SIGKILL)
            raise AssertionError("the sandbox child outlived its killed caller")
    finally:
        os.close(writer)


def test_meanwhile_runs_while_the_child_reads(small_pdf, monkeypatch):
    """The caller's own start-up work (a fresh process importing the compile stages) runs while
    the sandbox child reads the PDF, not after it: when meanwhile() runs, the child has its
    request and its reply is not read yet (it may have finished already on a loaded machine:
    the order is the contract, not the timing)."""
    import ctxmill.compile.pipeline as pipeline
    from ctxmill.sources import sandbox

    taken: list[subprocess.Popen] = []
    take = sandbox._take_child
    monkeypatch.setattr(sandbox, "_take_child", lambda env: taken.append(take(env)) or taken[-1])
    read = sandbox._Reader.first
    order: list[str] = []
    monkeypatch.setattr(sandbox._Reader, "first", lambda self: order.append("reply read") or read(self))

    def meanwhile():
        proc = taken[-1]
        order.append("meanwhile")
        assert proc.stdin.closed and proc.returncode is None  # (request sent; not reaped, its reply unread)
        assert any("ctxmill.sources.sandbox" in str(a) for a in proc.args)

    stream = load_source(small_pdf, meanwhile=meanwhile)
    assert order == ["meanwhile", "reply read"]
    plain = load_source(small_pdf)
    assert [[ln.text for ln in p.lines] for p in stream.pages] == [[ln.text for ln in p.lines] for p in plain.pages]
    # compile_document hands the stage imports to the source as its meanwhile work
    called = []
    monkeypatch.setattr(pipeline, "import_stages", lambda options: called.append(options))
    compile_document(small_pdf, CompileOptions(fast=True))
    assert len(called) == 1


def test_spare_child_from_the_second_pdf_on(small_pdf, monkeypatch):
    """One PDF read starts no spare child (a one-shot command); from the second on, a started
    child waits for the next read, which uses it (same stream); a changed environment is not
    given to a spare started before it (the spare is stopped, a fresh child reads)."""
    from ctxmill.sources import sandbox

    sandbox._drop_spare()
    monkeypatch.setitem(sandbox._reads, "count", 0)
    first = load_source(small_pdf)
    assert not sandbox._spare
    load_source(small_pdf)
    assert len(sandbox._spare) == 1
    spare = sandbox._spare[0][0]
    assert spare.poll() is None
    third = load_source(small_pdf)
    spare.wait(timeout=30)  # it read the third PDF and exited
    assert spare.returncode == 0
    assert [[ln.text for ln in p.lines] for p in third.pages] == [[ln.text for ln in p.lines] for p in first.pages]
    assert len(sandbox._spare) == 1 and sandbox._spare[0][0] is not spare
    stale = sandbox._spare[0][0]
    monkeypatch.setenv("CTXMILL_PDF_WORKERS", "1")
    load_source(small_pdf)
    assert stale.poll() is not None and stale.returncode != 0  # stopped, not used
    sandbox._drop_spare()
    assert not sandbox._spare
