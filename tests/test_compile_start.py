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
        "print(loaded, m is not None and (m._native is not None or m._weights is not None))\n"
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


def test_text_layer_child_imports_neither_numpy_nor_hashlib(tmp_path):
    """The sandbox child of a text-layer PDF (30 pages: page workers; 2 pages: none) never
    imports numpy (the OCR module loads it only for a page it renders) nor hashlib (the
    sources package hashes in the parent only); it collects garbage as the command does."""
    from _pdfgen import blank_pages_pdf

    code = (
        "import json, sys\n"
        "from ctxmill.sources import sandbox\n"
        "sandbox.die_with_parent = lambda: None\n"
        "sandbox._child()\n"
        "import gc\n"
        "sys.stderr.write(json.dumps([[m for m in ('numpy', 'hashlib') if m in sys.modules],\n"
        "                             gc.get_threshold()[0], gc.get_freeze_count() > 0]) + '\\n')\n"
    )
    for n in (30, 2):
        pdf = blank_pages_pdf(tmp_path / f"p{n}.pdf", n, text="Plain text of a page with a text layer")
        request = {"path": str(pdf), "options": sandbox._options_to_json(__import__("ctxmill.compile.options", fromlist=["x"]).CompileOptions()),
                   "limits": sandbox.limits(), "progress": False}
        r = subprocess.run([sys.executable, "-c", code], input=json.dumps(request), capture_output=True, text=True,
                           timeout=120, env=sandbox.child_env())
        assert r.returncode == 0, r.stderr
        stream = sandbox.decode_stream(json.loads(r.stdout.splitlines()[0])["stream"])
        assert len(stream.pages) == n and stream.pages[0].lines
        # and it collects as the command does (threshold 50,000), its imports frozen out
        assert json.loads(r.stderr.strip().splitlines()[-1]) == [[], 50_000, True]


def test_alnum_count_is_the_regex_count():
    """ocr._alnum_count and the whitespace split: the counts re.sub gave, on every code point
    and on random strings mixing ASCII, Latin, symbols, private use and surrogates."""
    import random
    import re

    from ctxmill.sources import ocr

    for c in range(0x110000):
        ch = chr(c)
        assert ocr._alnum_count(ch) == len(re.sub(r"[\W_]+", "", ch)), hex(c)
        assert "".join(ch.split()) == re.sub(r"\s+", "", ch), hex(c)
    rng = random.Random(13)
    pool = [chr(c) for c in [*range(0x250), *range(0x2000, 0x2070), 0xFB01, 0xFFFD, 0xE000, 0x3000, 0x1D461, 0xD800]]
    for _ in range(5000):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(0, 80)))
        assert ocr._alnum_count(s) == len(re.sub(r"[\W_]+", "", s))
        assert "".join(s.split()) == re.sub(r"\s+", "", s)


def test_compile_command_skips_interpreter_shutdown(small_pdf, tmp_path):
    """A finished `ctxmill compile` leaves by os._exit after flushing: atexit handlers run, the
    interpreter's teardown (module clearing, a last full collection) does not. Exit codes stay
    those of the command: 0 done, 3 refused with its one line."""
    script = (
        "import atexit, sys\n"
        "class Late:\n"
        "    def __del__(self):\n"
        "        sys.stderr.write('torn down\\n')\n"
        "late = Late()\n"
        "atexit.register(lambda: sys.stderr.write('atexit ran\\n'))\n"
        "from ctxmill.entry import main\n"
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", script, "compile", str(small_pdf), "-o", str(tmp_path / "out"), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["title"] == "A Small Test Document"
    assert (tmp_path / "out" / "document.md").read_text().startswith("# A Small Test Document")
    assert "atexit ran" in r.stderr and "torn down" not in r.stderr
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(small_pdf.read_bytes()[:100])  # cut before its first page: nothing to rebuild
    r = subprocess.run([sys.executable, "-c", script, "compile", str(cut), "-o", str(tmp_path / "cut")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 3
    assert r.stderr.splitlines()[0].startswith("ctxmill: refused: ") and "truncated" in r.stderr
    assert "torn down" not in r.stderr
    r = subprocess.run([sys.executable, "-c", script, "search"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "torn down" in r.stderr  # other commands: the ordinary exit


def test_stream_sends_a_lone_span_once():
    """encode_stream sends a line's only span without its text and box when they are the
    line's (two lines in three of a PDF page); decode_stream gives back the same objects as
    for any line: boxes rounded to 2 places, texts as they were."""
    import json

    from ctxmill.model import Line, Page, PageStream, Span

    def span(text, box, size=10.0):
        return Span(text=text, bbox=box, size=size, font="Times", bold=False, italic=False, mono=False)

    box = (72.004, 100.5, 300.126, 110.0)
    lines = [
        Line(text="One span", bbox=box, spans=[span("One span", box)]),
        Line(text="One span", bbox=box, spans=[span("One span ", box)]),  # text differs: sent
        Line(text="Moved", bbox=box, spans=[span("Moved", (72.0, 100.5, 300.126, 110.0))]),  # box differs
        Line(text="Two  spans", bbox=box, spans=[span("Two", (72.0, 100.5, 90.0, 110.0)),
                                                 span("spans", (95.0, 100.5, 300.126, 110.0), 8.0)]),
        Line(text="No box", bbox=None, spans=[span("No box", None)]),
    ]
    stream = PageStream(pages=[Page(number=1, lines=lines, width=612.0, height=792.0)], kind="pdf", path="x.pdf")
    sent = sandbox.encode_stream(stream)
    assert sent["pages"][0]["l"][0][3] == [[None, None, 0, 0]]
    assert sent["pages"][0]["l"][4][3] == [[None, None, 0, 0]]
    assert [s[0] for s in sent["pages"][0]["l"][1][3]] == ["One span "]
    back = sandbox.decode_stream(json.loads(json.dumps(sent)))

    def rounded(b):
        return None if b is None else tuple(round(x, 2) for x in b)

    for got, want in zip(back.pages[0].lines, lines, strict=True):
        assert (got.text, got.bbox) == (want.text, rounded(want.bbox))
        assert [(s.text, s.bbox, s.size, s.font) for s in got.spans] == \
            [(s.text, rounded(s.bbox), s.size, s.font) for s in want.spans]


def test_tokenizer_loads_after_the_childs_request(small_pdf, tmp_path, monkeypatch):
    """tokenizers' load holds the GIL for ~0.4 G instructions: started before the PDF child's
    request was written, it could hold back the request while the child waited. The request
    goes first; text input (no child) starts the load once, after it is read."""
    from ctxmill import tokens
    from ctxmill.compile import pipeline
    from ctxmill.compile.options import CompileOptions

    events: list[str] = []
    monkeypatch.setattr(tokens, "preload", lambda: events.append("tokenizer"))
    take = sandbox._take_child

    def take_child(env):
        proc = take(env)
        write = proc.stdin.write

        class Stdin:  # the request's write, seen
            def write(self, data):
                events.append("request")
                return write(data)

            def close(self):
                proc.stdin_real.close()

        proc.stdin_real, proc.stdin = proc.stdin, Stdin()
        return proc

    monkeypatch.setattr(sandbox, "_take_child", take_child)
    pipeline.compile_document(small_pdf, CompileOptions())
    assert events == ["request", "tokenizer"]
    events.clear()
    text = tmp_path / "notes.md"
    text.write_text("# Notes\n\nA paragraph of text that is long enough.\n")
    monkeypatch.setattr(pipeline, "import_stages", lambda options: events.append("meanwhile"))
    pipeline.compile_document(text, CompileOptions())
    assert events == ["tokenizer"]
    events.clear()
    pipeline.compile_document(small_pdf, CompileOptions(chunks=False))
    assert "tokenizer" not in events
