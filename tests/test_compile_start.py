"""A fresh `ctxmill compile` of a PDF: what runs beside the sandbox child instead of after it
(issue 13, the command's start): the child is started before the command's own imports, and
the parent imports every stage and renderer and loads the reference parser meanwhile."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from _pdfgen import make_pdf
from ctxmill import entry
from ctxmill.sources import load_source, sandbox


@pytest.fixture()
def small_pdf(tmp_path):
    pages = [[("A Small Test Document", 72, 80, 20, "Helvetica-Bold"), ("1 Introduction", 72, 140, 13, "Helvetica-Bold"),
              ("Body text of the first section that is long enough to be a paragraph line.", 72, 170, 10)]]
    return make_pdf(tmp_path / "small.pdf", pages)


def test_compile_input_read_from_the_arguments(small_pdf, tmp_path):
    pdf = str(small_pdf)
    text = tmp_path / "notes.txt"
    text.write_text("Some text\n")
    assert entry._compile_pdf([pdf]) == pdf
    assert entry._compile_pdf(["-o", "out", pdf, "--json"]) == pdf
    assert entry._compile_pdf(["--ocr", "never", "--chunk-tokens=300", pdf, "--fast"]) == pdf
    assert entry._compile_pdf(["-o", pdf]) is None  # the output folder is no input
    assert entry._compile_pdf([str(text)]) is None  # not a PDF
    assert entry._compile_pdf([str(tmp_path)]) is None  # a folder: a batch
    assert entry._compile_pdf([pdf, pdf]) is None
    assert entry._compile_pdf(["-"]) is None
    assert entry._compile_pdf([pdf, "--help"]) is None
    assert entry._compile_pdf([str(tmp_path / "missing.pdf")]) is None


def test_early_child_environment_is_the_sandbox_one():
    assert entry._pdf_child_env() == sandbox.child_env()


def test_early_child_reads_the_first_pdf(small_pdf, monkeypatch):
    """The child the command starts first is the one that reads the file (no second start);
    one that is never used is stopped."""
    sandbox._drop_spare()
    monkeypatch.setitem(sandbox._reads, "count", 0)
    plain = load_source(small_pdf)
    monkeypatch.setitem(sandbox._reads, "count", 0)  # a first read: it starts no spare after it
    entry._start_pdf_child()
    assert len(sandbox._spare) == 1
    early = sandbox._spare[0][0]
    spawned = []
    monkeypatch.setattr(sandbox, "_spawn", lambda env: spawned.append(env))
    stream = load_source(small_pdf)
    assert not spawned
    early.wait(timeout=30)
    assert early.returncode == 0
    assert [[ln.text for ln in p.lines] for p in stream.pages] == [[ln.text for ln in p.lines] for p in plain.pages]
    monkeypatch.undo()
    entry._start_pdf_child()
    unused = sandbox._spare[0][0]
    sandbox._drop_spare()
    assert unused.poll() is not None and unused.returncode != 0


def test_command_starts_one_child(small_pdf, tmp_path):
    """`ctxmill compile X.pdf` starts its sandbox child once, before its imports."""
    out = tmp_path / "out"
    script = (
        "import sys\n"
        "from ctxmill.sources import sandbox\n"
        "spawn = sandbox._spawn\n"
        "calls = []\n"
        "sandbox._spawn = lambda env: calls.append(1) or spawn(env)\n"
        "import atexit\n"
        "atexit.register(lambda: sys.stderr.write(f'spawned {len(calls)}\\n'))\n"
        "from ctxmill.entry import main\n"
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", script, "compile", str(small_pdf), "-o", str(out), "--json"],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "CTXMILL_PDF_SANDBOX": "1"})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["title"] == "A Small Test Document"
    assert "spawned 0" in r.stderr  # the child entry started read it


def test_stage_imports_include_renderers_and_reference_parser():
    """What the parent does while the child reads: every stage and renderer module imported,
    the reference parser's model loaded (only when citations are on)."""
    code = (
        "import sys\n"
        "from ctxmill.compile import pipeline\n"
        "from ctxmill.compile.options import CompileOptions\n"
        "pipeline.import_stages(CompileOptions(citations=sys.argv[1] == 'on'))\n"
        "from ctxmill.render import RENDERERS\n"
        "loaded = all(t.split(':')[0] in sys.modules for t, w in RENDERERS if w(CompileOptions()) or True)\n"
        "m = sys.modules.get('ctxmill.compile.refparse.model')\n"
        "print(loaded, m is not None and m._weights is not None)\n"
    )
    on = subprocess.run([sys.executable, "-c", code, "on"], capture_output=True, text=True, timeout=120)
    assert on.stdout.split() == ["True", "True"], on.stderr
    off = subprocess.run([sys.executable, "-c", code, "off"], capture_output=True, text=True, timeout=120)
    assert off.stdout.split()[1] == "False", off.stderr


def test_figures_located_as_pages_are_read(corpus_dir):
    """The sandbox child no longer opens every page with a caption a second time: the page
    workers (or the child, for a short file) locate figure boxes while the page is open. Same
    boxes as figures.locate after extract (46 pages: workers; 6 pages: one process)."""
    from ctxmill.compile.figures import locate
    from ctxmill.sources.pdf import extract
    from ctxmill.sources.sandbox import encode_stream

    short = corpus_dir.parent / "papers" / "icml-workshop-spn" / "paper.pdf"
    for pdf in [corpus_dir / "paper.pdf", short]:
        if not pdf.is_file():
            continue
        before = extract(pdf)
        locate(str(pdf), before.pages)
        after = extract(pdf, figures=True)
        assert sum(len(p.figures) for p in after.pages) > 0
        assert json.dumps(encode_stream(after)) == json.dumps(encode_stream(before))
