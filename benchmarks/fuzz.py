"""Seeded fuzzing of every entry point: compile PDF, compile text, apply, index + search.

    .venv/bin/python benchmarks/fuzz.py                      # 1,000 cases per entry point
    .venv/bin/python benchmarks/fuzz.py --cases 50 --only apply,text
    .venv/bin/python benchmarks/fuzz.py --scaling-only       # throughput per text shape
    .venv/bin/python benchmarks/fuzz.py --scaling-only --peer ../old/src --in-process
                                                  # beside another checkout's code, and in process

Each case runs the real command line (``ctxmill.cli.main``) in a long-lived worker process, so
interpreter start is paid once; a case that runs past ``--timeout`` kills the worker (counted
as a timeout) and a fresh one takes over. Outcomes per entry point: exit 0 / 2 / 3 / 1,
timeout, and half-written output (a failed compile that left an output folder, a refused
``apply --write`` that changed the file, a successful compile without its files). Every
exit-1, timeout and half-written case is saved as a reproducer under
``benchmarks/.cache/fuzz/<entry>/`` with the command that replays it.

Inputs: mutants of ../shared/corpus PDFs (byte flips, truncation, block deletion and
duplication, xref and stream-length damage; without ../shared, small PDFs it makes), generated
text (many lines, many headings, long lines, control characters, wrong encodings, markup of OCR
engines), apply pairs cut from this repository's own files, and folder trees with hostile
names, broken ignore rules, symlink loops, FIFOs and binaries. ``--scaling`` compiles each text
shape at two sizes through the ``ctxmill`` command and prints MB/s, the command's CPU seconds
(MB per CPU-second) and the doubling ratio of each, beside ordinary prose. Prints one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
CACHE = REPO / "benchmarks" / ".cache" / "fuzz"
CTXMILL = Path(sys.executable).with_name("ctxmill")
ENTRIES = ("pdf", "text", "apply", "index")
# the background server's refusal of a search past its time limit (ctxmill.server.daemon): a
# search that ran away, counted as a search timeout
SEARCH_LIMIT = "CTXMILL_SERVER_SEARCH_SECONDS"


def source_state(root: Path | None = None) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every .py file of the ctxmill a case runs (the first on sys.path,
    as the worker and the PDF sandbox child find it). The worker imports the compile stages
    once, the sandbox child imports them anew for every PDF case: a tree edited during a
    campaign mixes two versions of the code (582 PDF cases exited 1 so, seed 1217)."""
    if root is None:
        import importlib.util

        spec = importlib.util.find_spec("ctxmill")
        root = Path(next(iter(spec.submodule_search_locations)))
    out = {}
    for p in sorted(Path(root).rglob("*.py")):
        st = p.stat()
        out[str(p.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return out


def changed_files(before: dict, after: dict) -> list[str]:
    """Files added, removed or changed between two :func:`source_state` results."""
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


# ----------------------------------------------------------------------------- the worker

def worker() -> None:
    """Run one CLI invocation per stdin line; answer {code, err} per line on stdout."""
    import contextlib
    import io

    from ctxmill.cli import main

    out = os.fdopen(os.dup(1), "w")
    devnull = open(os.devnull, "w")
    for line in sys.stdin:
        case = json.loads(line)
        err = io.StringIO()
        code = 0
        with contextlib.redirect_stdout(devnull), contextlib.redirect_stderr(err):
            if case.get("keep_stdout"):
                kept = io.StringIO()
                stack = contextlib.redirect_stdout(kept)
            else:
                kept = None
                stack = contextlib.nullcontext()
            try:
                with stack:
                    main(case["args"], standalone_mode=False)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # click's own errors: usage
                code = 2 if type(exc).__name__.endswith(("UsageError", "BadParameter", "NoSuchOption")) else 1
                err.write(f"{type(exc).__name__}: {exc}")
        tail = err.getvalue().strip().splitlines()
        out.write(json.dumps({"code": code, "err": tail[-1][:300] if tail else "",
                              "stdout": kept.getvalue()[:200_000] if kept is not None else ""}) + "\n")
        out.flush()


def tree_cpu(pid: int) -> float | None:
    """CPU seconds (user + system, all threads) of process ``pid`` and of every process under
    it, the exited ones its live members have waited for included; None without /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                raw = fh.read()
        except OSError:  # gone meanwhile
            continue
        f = raw[raw.rfind(b")") + 2:].split()
        # after "(comm)": state ppid ... utime(11) stime(12) cutime(13) cstime(14), in ticks
        stats[int(name)] = (int(f[1]), (int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])) / tick)
    if pid not in stats:
        return None
    kids: dict[int, list[int]] = {}
    for p, (ppid, _) in stats.items():
        kids.setdefault(ppid, []).append(p)
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += stats[p][1]
        todo.extend(kids.get(p, ()))
    return total


class Runner:
    """One long-lived worker; a case is a timeout when its CPU seconds (the worker's and its
    children's: the PDF sandbox, OCR processes) pass ``timeout``, or its wall time passes
    ``wall_timeout`` (a case that waits without using the CPU). CPU time is the verdict because a
    worker at nice 19 on a machine at load 20-28 got a few percent of a core: three PDF cases
    that replay in 2-5 s passed 60 s of wall time there."""

    def __init__(self, timeout: float, wall_timeout: float | None = None):
        self.timeout = timeout
        self.wall_timeout = wall_timeout if wall_timeout is not None else 10 * timeout
        self.proc: subprocess.Popen | None = None
        self.last_stdout = ""
        # the campaign's own background server (index + search cases start one, as a user's
        # commands do), not the user's: it is stopped at the end (finish)
        self.run_dir = tempfile.mkdtemp(prefix="ctxmill-fuzz-run-")
        self.env = dict(os.environ, CTXMILL_DEBUG="", XDG_RUNTIME_DIR=self.run_dir)

    def _start(self) -> None:
        env = self.env
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def run(self, args: list[str], keep_stdout: bool = False) -> tuple[str, str, float, float | None]:
        """(outcome, last stderr line, wall seconds, CPU seconds or None) of one case; with
        ``keep_stdout`` what the command printed is in ``last_stdout`` (the first 200,000 characters)."""
        self.last_stdout = ""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        pid = self.proc.pid
        c0 = tree_cpu(pid)
        t = time.perf_counter()
        self.proc.stdin.write(json.dumps({"args": args, "keep_stdout": keep_stdout}) + "\n")
        self.proc.stdin.flush()
        cpu = None
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            took = time.perf_counter() - t
            c1 = tree_cpu(pid)
            cpu = c1 - c0 if c0 is not None and c1 is not None else None
            if ready:
                break
            # without /proc the wall clock alone decides, at ``timeout``
            if (cpu is not None and cpu > self.timeout) or took > (self.wall_timeout if cpu is not None
                                                                   else self.timeout):
                self.close()
                return "timeout", f"{took:.1f} s wall, {cpu} s CPU", took, cpu
        line = self.proc.stdout.readline()
        if not line:  # the worker died (a signal, the OOM killer)
            self.close()
            return "exit_1", "worker died", took, cpu
        ans = json.loads(line)
        self.last_stdout = ans.get("stdout", "")
        return f"exit_{ans['code']}", ans["err"], took, cpu

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def finish(self) -> None:
        """The worker and the campaign's server stopped, its runtime folder removed."""
        self.close()
        subprocess.run([sys.executable, "-c", "from ctxmill.entry import main; main()", "server", "stop"], env=self.env,
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(self.run_dir, ignore_errors=True)


# ----------------------------------------------------------------------------- inputs

def corpus_pdfs() -> list[bytes]:
    pdfs = sorted((CORPUS / "papers").glob("*/paper.pdf"))
    pdfs = [p for p in pdfs if p.stat().st_size < 3_000_000]
    if pdfs:
        return [p.read_bytes() for p in pdfs]
    sys.path.insert(0, str(REPO / "tests"))
    from _pdfgen import blank_pages_pdf  # type: ignore

    tmp = Path(tempfile.mkdtemp())
    out = []
    for n in (1, 3):
        p = tmp / f"g{n}.pdf"
        blank_pages_pdf(p, n, text="A small page of text for the fuzzer to damage.")
        out.append(p.read_bytes())
    return out


def mutate_pdf(rnd: random.Random, data: bytes, kind: str | None = None) -> tuple[str, bytes]:
    b = bytearray(data)
    kind = kind or rnd.choice(["flip", "flip_many", "truncate", "delete_block", "duplicate_block", "xref", "length",
                               "header", "zero_block"])
    n = len(b)
    if kind == "flip":
        for _ in range(rnd.randint(1, 20)):
            b[rnd.randrange(n)] = rnd.randrange(256)
    elif kind == "flip_many":
        for _ in range(rnd.randint(50, 500)):
            b[rnd.randrange(n)] = rnd.randrange(256)
    elif kind == "truncate":
        b = b[: rnd.randint(0, n)]
    elif kind in ("delete_block", "duplicate_block", "zero_block"):
        i = rnd.randrange(n)
        j = min(n, i + rnd.randint(1, max(2, n // 20)))
        if kind == "delete_block":
            del b[i:j]
        elif kind == "duplicate_block":
            b[i:i] = b[i:j]
        else:
            b[i:j] = bytes(j - i)
    elif kind == "xref":
        at = data.rfind(b"startxref")
        if at > 0:
            b[at + 10: at + 20] = str(rnd.randrange(n)).encode().ljust(10)
    elif kind == "length":
        ms = list(re.finditer(rb"/Length (\d+)", data))
        for m in rnd.sample(ms, min(len(ms), rnd.randint(1, 5))):
            new = str(max(0, int(m.group(1)) + rnd.randint(-500, 5000))).encode()
            b[m.start(1): m.end(1)] = new.ljust(len(m.group(1)))[: max(len(new), len(m.group(1)))]
            break  # offsets move after the first edit
    elif kind == "header":
        b[:8] = rnd.choice([b"%PDF-9.9", b"%PDF-1.", b"\x00\x00\x00\x00", b"PK\x03\x04"]).ljust(8)
    return kind, bytes(b)


PROSE = ("The cache keeps recently used keys in memory and evicts the coldest ones when the load "
         "rises during the day. We measured the hit rate on three traces and found it stable. ")


def text_shape(rnd: random.Random, shape: str, size: int) -> bytes:
    """One input of a named shape, about ``size`` bytes."""
    if shape == "prose":
        paras = []
        n = 0
        while n < size:
            p = PROSE * rnd.randint(1, 4)
            paras.append(p)
            n += len(p) + 2
        return "\n\n".join(paras).encode()
    if shape == "one_word_lines":
        return ("word\n" * (size // 5)).encode()
    if shape == "headings":
        return "".join(f"# Heading {i}\n" for i in range(size // 14)).encode()
    if shape == "blank_pairs":
        return ("a\n\n" * (size // 3)).encode()
    if shape == "long_line":
        return ("x" * size).encode()
    if shape == "long_words_line":
        return ("word " * (size // 5)).encode()
    if shape == "numbered":
        return "".join(f"{i}. item number {i}\n" for i in range(size // 20)).encode()
    if shape == "table_rows":
        return "".join(f"| {i} | {i * 2} | x |\n" for i in range(size // 16)).encode()
    if shape == "refs":
        return ("References\n\n" + "".join(f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020.\n"
                                           for i in range(size // 60))).encode()
    if shape == "hyphen_lines":  # every line ends in a hyphen: one paragraph re-flowed word by word
        return "".join(f"con{'abcdefg'[i % 7]}-\n" for i in range(size // 6)).encode()
    if shape == "code_comments":  # comment-like lines: each starts a run the code test scans
        return "".join(f"// note {i}\n" for i in range(size // 12)).encode()
    if shape == "emails":  # a paragraph per address: every one listed once in metadata.json
        return "".join(f"contact user{i}@example{i % 97}.org now\n\n" for i in range(size // 37)).encode()
    if shape == "urls":  # a paragraph per link: every one listed once in metadata.json
        return "".join(f"see https://example.org/page/{i} here\n\n" for i in range(size // 38)).encode()
    if shape == "crossrefs":  # a paragraph of cross-references to nothing: each unresolved
        return "".join(f"See Section {i} and Figure {i * 7 % 1000} and Table {i % 100}.\n\n"
                       for i in range(size // 50)).encode()
    if shape == "ocr_lines":  # raw OCR text (page markers): one paragraph per line
        per = 4000
        out, n, page = [], 0, 1
        while n < size:
            out.append(f"── PAGE {page} / 9999 ──\n")
            out.append("".join(f"line {i} of the page\n" for i in range(per // 21)))
            n += per
            page += 1
        return "".join(out).encode()
    if shape == "soup":  # the campaign's HTML/LaTeX soup (--kinds wide), grown to size
        out, n = [], 0
        while n < size:
            out.append(_soup(rnd, 2_000))
            n += len(out[-1])
        return "".join(out).encode()
    if shape == "latex_tables":  # Nougat's tables (captions after, nested header tabulars, one
        # tabular nested two deep, stray ends) between paragraphs, then in the last 5% \\begin
        # lines never closed (each was scanned to the end of the text); no stray \\begin before,
        # where it would swallow the text up to the next table's \\end
        out, n, i = ["# A Paper of Tables\n\n"], 0, 0
        while n < size:
            i += 1
            parts = _LATEX_TABLE_PARTS if n < size * 0.95 else _LATEX_STRAY_BEGINS
            out.append(rnd.choice(parts).replace("{i}", str(i)))
            n += len(out[-1])
        return "".join(out).encode()
    if shape == "one_char_refs":  # --kinds wide2's list: a small paper, then one character a line after References
        return (_doc(rnd, 40) + "\nReferences\n\n" + "".join(rnd.choice(["x\n", "[1] x\n", "- x\n", "1. x\n", ".\n"])
                                                               for _ in range(size * 5 // 19))).encode()
    if shape == "blank_run":  # a paragraph, a run of blank lines (size bytes of them), a paragraph
        return (PROSE + "\n" + "\n" * size + PROSE + "\n").encode()
    if shape == "chandra":  # one Chandra page (it writes one per image) of ordinary blocks, grown to size
        out, n, i = [], 0, 0
        while n < size:
            i += 1
            out.append(_CHANDRA_UNITS[i % len(_CHANDRA_UNITS)].format(i=i, prose=PROSE))
            n += len(out[-1])
        return "".join(out).encode()
    if shape == "chandra_hostile":  # --kinds wide3's broken Chandra pieces, each grown with the size:
        # 20 ordinary blocks, 20 broken ones of size/20 bytes each (round32's slowest pages, 585-732 KB)
        out = []
        for i in range(40):
            head = f'<div data-bbox="{i} 2 3 4" data-label="{"Text" if i % 2 else "Weird-Label"}">'
            if i % 2:
                out.append(head + f"<p>{PROSE}{i}</p></div>")
                continue
            unit, start = _CHANDRA_BROKEN[(i // 2) % len(_CHANDRA_BROKEN)]
            out.append(head + start + unit * max(1, size // 20 // len(unit)) + "</div>")
        return "\n".join(out).encode()
    if shape in REAL_SHAPES:
        return _real_text(shape, size)
    raise ValueError(shape)


_CHANDRA_UNITS = (
    '<div data-bbox="10 20 30 40" data-label="Text"><p>{prose}{i}</p></div>\n',
    '<div data-bbox="10 20 30 40" data-label="Section-Header"><h2>{i} Results</h2></div>\n',
    '<div data-bbox="10 20 30 40" data-label="Table"><table><tr><th>Run</th><th>Score</th></tr>'
    '<tr><td>{i}</td><td>0.{i}</td></tr></table></div>\n',
    '<div data-bbox="10 20 30 40" data-label="Equation-Block"><math display="block">x_{i} = \\frac{{a}}{{b}}</math></div>\n',
    '<div data-bbox="10 20 30 40" data-label="Text"><p>See <a href="#">{i}</a> and <sup>1</sup>.</p><hr/></div>\n',
    '<div data-bbox="10 20 30 40" data-label="Caption"><p>Figure {i}: a caption.</p></div>\n')
# (the repeated unit, what comes before it): the broken blocks of wide3's _chandra
_CHANDRA_BROKEN = (("<div>", ""), ("</div>", ""), ("<table>", ""), ("<sup>", ""), ("<", ""), ('a="', "<p "),
                   ("<li>x", "<ul>"), ("\\frac{", '<math display="block">'), ("/y", '<a href="http://x'), ("x ", "<h1>"),
                   (" word", "<!--"))




def _real_text(shape: str, size: int) -> bytes:
    if shape == "ocr_sample":
        texts = [(CORPUS / "dive-into-claude-code" / "ocr-pages-1-16.txt").read_text(encoding="utf-8").rstrip("\n")]
    else:
        texts = [f.read_text(encoding="utf-8").rstrip("\n") for f in sorted((CORPUS / "ocr").glob("*/source.*"))]
    unit = ("\n\n".join(texts) + "\n\n").encode()
    whole = unit * (size // len(unit) + 1)
    return whole[:whole.rfind(b"\n", 0, size) + 1]  # cut at a line end, so twice the size is twice the bytes


_LATEX_TABLE_PARTS = (
    "\\begin{table}\n\\centering\n\\begin{tabular}{lcc}\n\\toprule\n"
    "Model & \\begin{tabular}{c} GPU Power \\\\ consumption \\end{tabular} & Score \\\\\n\\midrule\n"
    "A{i} & 1.{i} & \\textbf{9{i}} \\\\\nB & \\multicolumn{2}{c}{n/a} \\\\\n\\bottomrule\n\\end{tabular}\n"
    "\\end{table}\nTable {i}: Results of run {i}.\n\n",
    "Some prose about table {i} and its numbers, as a paper has between its floats.\n\n",
    "## Results of part {i}\n\n",
    "\\begin{table*}\\caption{Wide table {i}}\\begin{tabularx}{\\textwidth}{XX} a & b \\\\ c & d \\end{tabularx}"
    "\\end{table*}\n\n",
    "\\begin{tabular}{c} \\begin{tabular}{c} x{i} \\\\ \\begin{tabular}{c} deep \\end{tabular} \\end{tabular}"
    " & y \\\\ \\end{tabular}\n\n",
    "\\begin{longtable}{ll} k{i} & v \\\\ \\end{longtable}\n\n",
    "\\end{tabular} stray end {i}\n\n", "\\caption{unclosed caption {i}\n\n",
)
_LATEX_STRAY_BEGINS = ("\\begin{table} a float never closed {i}\n\n", "\\begin{tabular}{cc} never closed {i} & x\n\n",
                       "\\begin{longtable}{l} never closed {i}\n\n", "Text after them {i}.\n\n")


# Real text of ../shared/corpus, repeated to the size: what "ordinary" text costs. The generated
# prose above is one two-sentence paragraph over and over (no headings, references, citations or
# math), the cheapest input there is; issue 26's "ordinary" was OCR text (0.7-1 MB/s when filed).
# ocr_sample: the sample paper's raw OCR text (pages 1-16: page markers, LaTeX, HTML tables, citations);
# ocr_engines: the ten OCR-engine outputs of corpus/ocr/ (seven engines' markup), one after another.
REAL_SHAPES = ("ocr_sample", "ocr_engines")

SHAPES = ("prose", "one_word_lines", "headings", "blank_pairs", "long_line", "long_words_line", "numbered",
          "table_rows", "refs", "hyphen_lines", "code_comments", "ocr_lines", "emails", "urls",
          "crossrefs")
# measured by --scaling only (the classic generator draws from SHAPES: its seeds replay unchanged)
SCALING_SHAPES = SHAPES + ("soup", "latex_tables", "one_char_refs") + (REAL_SHAPES if CORPUS.is_dir() else ())
# round 33's shapes, run only when --shapes names them (outputs_identical.py compiles every shape of
# SCALING_SHAPES at 1 MB on both sides: blank_run costs a tree without round33_fuzz_rule.md C1's fix ~20 min)
EXTRA_SHAPES = ("chandra", "chandra_hostile", "blank_run")
JUNK = ["<|ref|>title<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>", "<--- Page Split --->", "── PAGE 3 / 9 ──",
        "\\begin{tabular}{cc} a & b \\\\ \\end{tabular}", "<table><tr><td>1</td></tr></table>", "$$x^2$$",
        "\\( \\alpha \\)", "[MISSING_PAGE_EMPTY:1]", "<span id=\"page-3-1\"></span>", "![](images/0.jpg)",
        "#### Page 7", "\x0c", "\x1b[31m", "\u202e", "\ufeff", "\ud7ff", "\U0001f600", "&amp;", "```",
        "# ", "#" * 7, "- [1] ", "* ", "|---|", "References", "Abstract", "1 Introduction", "\t\t\t"]


def gen_text(rnd: random.Random) -> bytes:
    r = rnd.random()
    if r < 0.02:  # at a limit: one line just over or just under MAX_LINE_CHARS, refused or compiled
        from ctxmill.limits import MAX_LINE_CHARS

        return b"Title\n\n" + b"w " * ((MAX_LINE_CHARS + rnd.choice([-4000, 10])) // 2)
    if r < 0.3:
        return text_shape(rnd, rnd.choice(SHAPES), rnd.choice([10, 200, 5_000, 60_000]))
    if r < 0.75:
        parts = []
        for _ in range(rnd.randint(1, 400)):
            c = rnd.random()
            parts.append(rnd.choice(JUNK) if c < 0.4 else PROSE[: rnd.randint(0, len(PROSE))] if c < 0.8
                         else "\n" * rnd.randint(1, 4))
        text = "".join(p + rnd.choice(["", " ", "\n", "\n\n"]) for p in parts)
        enc = rnd.choice(["utf-8"] * 6 + ["utf-16", "latin-1", "cp1252"])
        return text.encode(enc, errors="replace")
    if r < 0.85:
        return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 4000)))
    if r < 0.9:  # text with a stray NUL: binary by git's rule
        return PROSE.encode()[: rnd.randint(0, 200)] + b"\x00" + PROSE.encode()
    return rnd.choice([b"", b"\n", b" ", b"\x00" * 100, b"\xff\xfe", b"%PDF-1.4\n", b"\xef\xbb\xbf"])


def apply_pair(rnd: random.Random, files: list[Path]) -> tuple[bytes, bytes]:
    src = rnd.choice(files).read_bytes()
    lines = src.decode("utf-8", "replace").splitlines(keepends=True)
    marker = rnd.choice(["# ... existing code ...\n", "// ... existing code ...\n", "# ...\n", "...\n"])
    sk = list(lines)
    for _ in range(rnd.randint(0, 6)):
        if not sk:
            break
        i = rnd.randrange(len(sk))
        op = rnd.random()
        if op < 0.4:
            j = min(len(sk), i + rnd.randint(1, 60))
            sk[i:j] = [marker]
        elif op < 0.6:
            sk[i] = rnd.choice(JUNK) + "\n"
        elif op < 0.8:
            sk.insert(i, "    " * rnd.randint(0, 4) + "new_line = 1\n")
        else:
            del sk[i]
    sketch = "".join(sk)
    r = rnd.random()
    if r < 0.05:
        sketch = sketch.replace("\n", "\r\n")
    elif r < 0.1:
        sketch = "\t" + sketch.replace("\n", "\n\t")
    orig = src
    r = rnd.random()
    if r < 0.03:
        orig = bytes(rnd.randrange(256) for _ in range(500))
    elif r < 0.06:
        orig = b""
    return orig, sketch.encode("utf-8", "surrogatepass")


def make_tree(rnd: random.Random, root: Path, files: list[Path]) -> None:
    root.mkdir(parents=True)
    for i in range(rnd.randint(1, 25)):
        depth = rnd.randint(0, 4)
        d = root.joinpath(*[f"d{rnd.randint(0, 3)}" for _ in range(depth)])
        d.mkdir(parents=True, exist_ok=True)
        r = rnd.random()
        name = rnd.choice(["a.py", "b.js", "c.rs", "d.go", "README.md", "e.txt", "f.json", "g.c", ".hidden.py"])
        if r < 0.1:
            with open(os.path.join(os.fsencode(d), bytes([rnd.randrange(128, 256)]) + b".py"), "wb") as fh:
                fh.write(b"def odd_name():\n    pass\n")
            continue
        if r < 0.15:
            (d / f"bin{i}.dat").write_bytes(bytes(rnd.randrange(256) for _ in range(3000)))
            continue
        if r < 0.2:
            try:
                os.symlink("..", d / f"loop{i}")
            except OSError:
                pass
            continue
        if r < 0.23:
            try:
                os.mkfifo(d / f"fifo{i}")
            except OSError:
                pass
            continue
        if r < 0.3:
            (d / ".gitignore").write_bytes(rnd.choice([b"[z-a]\n", b"\\\n", b"*.txt\n!e.txt\n", bytes(
                rnd.randrange(256) for _ in range(50)), b"d1/\n", b"**\n!*/\n"]))
            continue
        if r < 0.35:
            (d / f"latin{i}.py").write_bytes("café = 'é'\n".encode("latin-1"))
            continue
        src = rnd.choice(files)
        (d / (f"{i}_" + name)).write_bytes(src.read_bytes()[: rnd.randint(0, 20_000)])


# ----------------------------------------------------------------------------- wider inputs (--kinds wide)
# Kinds the first campaigns did not make (round eleven). They sit behind their own names and are
# drawn only with --kinds wide (or all), so a seed of the classic campaign replays the same cases.

WORDS = ("cache", "keys", "memory", "evicts", "load", "trace", "rate", "stable", "section", "figure", "table",
         "Smith", "2020", "et", "al.", "Proc.", "see", "[1]", "(2)", "Eq.", "x", "=", "+", "—", "é", "ß", "Ω")
JAPANESE = "これは日本語の文章です。キャッシュは最近使われた鍵を記憶に保ち、負荷が上がると最も冷たいものを追い出す。"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"
ODD_BREAKS = ["\r", "\r\n", "\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def _words(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def _doc(rnd: random.Random, paras: int = 20) -> str:
    """A small document with the parts the stages look for: title, headings, list, references."""
    out = ["A Title of the Paper", "", "Jane Doe, John Roe", "", "Abstract", "", _words(rnd, 40), ""]
    for i in range(1, paras + 1):
        if i % 5 == 1:
            out += [f"{i // 5 + 1} Section {i}", ""]
        out += [_words(rnd, rnd.randint(5, 60)) + f" [{rnd.randint(1, 9)}].", ""]
    out += ["References", ""] + [f"[{i}] A. Author. Title {i}. Venue, 20{i:02d}." for i in range(1, 10)]
    return "\n".join(out) + "\n"


def _giant(rnd: random.Random) -> str:
    n = rnd.choice([30, 400, 4_300, 5_000, 50_000])
    big = "".join(rnd.choice("0123456789") for _ in range(n))
    one = "1" + "0" * (n - 1)
    return rnd.choice([
        f"# {big} Introduction\n\ntext under it\n",
        f"{big}. an item\n{big}1. another\n",
        f"Title\n\nSee [{big}] and [{one}-{big}].\n\nReferences\n\n[{big}] A. Author. A title. 2020.\n",
        f"── PAGE {big} / {big} ──\nline one\n── PAGE 2 / 9 ──\nline two\n",
        f"Title\n\nSee Figure {big} and Section {'.'.join(['1'] * min(n, 5000))}.\n\nFigure {big}: a caption\n",
        f"Title\n\nA footnote[^{big}].\n\n[^{big}]: the note.\n",
        f"Title\n\n1e{big} and -{big}.{big} and 0x{big} and {big}%\n",
        f"Title\n\nPublished {big}. arXiv:{big[:4]}.{big[4:9]}v{big} doi:10.{big}/x\n",
        f"Title\n\nPage {big} of {big}\n\ntext\n\n{big}\n\nmore text\n",
    ])


def _nested(rnd: random.Random) -> str:
    depth = rnd.choice([100, 1_000, 10_000])
    kind = rnd.choice(["list", "quote", "mixed", "ordered", "fence_in_quote"])
    if kind == "list":
        return "".join("  " * i + f"- item {i}\n" for i in range(depth))
    if kind == "ordered":
        return "".join("   " * i + f"{i + 1}. item {i}\n" for i in range(depth))
    if kind == "quote":
        return ">" * depth + " deep text\n" + "".join("> " * i + f"line {i}\n" for i in range(0, depth, 7))
    if kind == "fence_in_quote":
        return "".join("> " * (i % 50) + ("```" if i % 3 == 0 else f"code {i}") + "\n" for i in range(depth))
    return "".join(("> " if i % 2 else "- ") * (i // 2 + 1) + f"x {i}\n" for i in range(depth))


def _wide_table(rnd: random.Random) -> str:
    cols = rnd.choice([100, 1_000, 5_000])
    rows = rnd.choice([1, 3, 50])
    head = "|" + "|".join(f" c{i} " for i in range(cols)) + "|\n"
    sep = "|" + "|".join("---" for _ in range(cols)) + "|\n"
    body = "".join("|" + "|".join(f" {r * i} " for i in range(cols)) + "|\n" for r in range(rows))
    ragged = "|" + "|".join("x" for _ in range(rnd.randint(0, cols * 2))) + "\n"
    return "Title\n\n" + head + sep + body + (ragged if rnd.random() < 0.5 else "")


def _soup(rnd: random.Random, n: int | None = None) -> str:
    tags = ["<div>", "</div>", "<table>", "<tr>", "<td>", "</td>", "<br>", "<p>", "<!--", "-->", "<script>",
            "</script>", "<![CDATA[", "]]>", "&nbsp;", "&#0;", "&#xD800;", "&#1114112;", "<img src=x onerror=1>",
            "\\begin{itemize}", "\\end{itemize}", "\\item", "\\section{", "}", "{", "$", "$$", "\\[", "\\]",
            "\\frac{", "\\\\", "&", "\\begin{tabular}{" + "c" * 50 + "}", "\\end{tabular}", "\\cite{a,b}",
            "\\ref{x}", "\\footnote{", "%", "\\verb|", "<sup>1</sup>", "<sub>", "</sub>", "<h1>", "</h1>"]
    n = n or rnd.choice([50, 2_000, 20_000])
    return "".join(rnd.choice(tags) + (_words(rnd, rnd.randint(0, 3)) if rnd.random() < 0.5 else "")
                   + ("\n" if rnd.random() < 0.2 else "") for _ in range(n))


def _json_line(rnd: random.Random) -> str:
    target = rnd.choice([2_000, 200_000, 990_000, 20_000_000])
    item = '{"id": 123, "name": "x\\u00e9\\ud800", "v": [1.5e308, -0, null, true], "s": "a\\"b"}, '
    return "[" + item * (target // len(item)) + "{}]"


def _breaks(rnd: random.Random) -> str:
    lines = _doc(rnd).split("\n")
    mode = rnd.choice(["cr", "mixed", "odd", "ff_pages", "vt"])
    if mode == "cr":
        return "\r".join(lines)
    if mode == "mixed":
        return "".join(ln + rnd.choice(["\r", "\r\n", "\n", "\n\r"]) for ln in lines)
    if mode == "odd":
        return "".join(ln + rnd.choice(ODD_BREAKS) for ln in lines)
    if mode == "vt":
        return "".join(ln + rnd.choice(["\x0b", "\n"]) + ("\x0b" * rnd.randint(0, 3)) for ln in lines)
    return "\x0c".join("\n".join(lines[i:i + 7]) for i in range(0, len(lines), 7))


def _sprinkle(rnd: random.Random, text: str, chars: str, rate: float) -> str:
    return "".join(ch + (rnd.choice(chars) if rnd.random() < rate else "") for ch in text)


def wide_text(rnd: random.Random) -> tuple[str, bytes]:
    """(kind, bytes) of one text input of a kind the classic generator does not make."""
    kind = rnd.choice(["utf16", "utf32", "latin1", "shift_jis", "nul", "surrogates", "breaks", "zero_width",
                       "combining", "nested", "wide_table", "soup", "json_line", "giant_numbers", "astral",
                       "controls", "bom_mix", "long_heading", "long_word"])
    doc = _doc(rnd, rnd.choice([5, 40, 300]))
    if kind in ("utf16", "utf32"):
        enc = rnd.choice([f"{kind}", f"{kind}-le", f"{kind}-be"])  # "utf16" writes a BOM, -le/-be none
        text = doc + rnd.choice(["", JAPANESE, "é ß Ω \U0001f600"])
        data = text.encode(enc.replace("utf", "utf-"))
        return f"{kind}:{enc}", data[: len(data) - rnd.choice([0, 0, 1])]  # sometimes an odd byte short
    if kind == "latin1":
        return kind, (doc + "café naïve Œuvre ½ ¼ ©\n").encode("latin-1", errors="replace")
    if kind == "shift_jis":
        return kind, ((JAPANESE + "\n\n") * rnd.randint(1, 200) + doc).encode("shift_jis", errors="replace")
    if kind == "nul":
        return kind, _sprinkle(rnd, doc, "\x00", rnd.choice([0.001, 0.05, 0.5])).encode()
    if kind == "surrogates":
        raw = rnd.choice([b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xff"])
        esc = rnd.choice(["\\ud800", "\\udfff", "&#xD800;", "\\x00", "%00"])
        parts = doc.split(" ")
        return kind, b" ".join(p.encode() + (raw if rnd.random() < 0.1 else esc.encode() if rnd.random() < 0.1
                                              else b"") for p in parts)
    if kind == "breaks":
        return kind, _breaks(rnd).encode()
    if kind == "zero_width":
        return kind, _sprinkle(rnd, doc, ZERO_WIDTH, rnd.choice([0.01, 0.3, 1.0])).encode()
    if kind == "combining":
        n = rnd.choice([10, 1_000, 100_000])
        storm = "a" + "".join(chr(rnd.randrange(0x300, 0x370)) for _ in range(n))
        return kind, (doc[:500] + storm + " " + doc[500:]).encode()
    if kind == "nested":
        return kind, _nested(rnd).encode()
    if kind == "wide_table":
        return kind, _wide_table(rnd).encode()
    if kind == "soup":
        return kind, _soup(rnd).encode()
    if kind == "json_line":
        return kind, _json_line(rnd).encode()
    if kind == "giant_numbers":
        return kind, _giant(rnd).encode()
    if kind == "astral":
        return kind, _sprinkle(rnd, doc, "\U0001f600\U000e0001\U0010fffd\ue000\U0001d400\u0000"[: -1], 0.2).encode()
    if kind == "controls":
        return kind, _sprinkle(rnd, doc, "".join(map(chr, range(1, 32))) + "\x7f\x80\x9f", 0.05).encode(
            "utf-8", "surrogatepass")
    if kind == "bom_mix":
        return kind, rnd.choice([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00"]) + doc.encode()
    if kind == "long_heading":
        n = rnd.choice([1_000, 100_000, 900_000])
        return kind, ("# " + _words(rnd, n // 6) + "\n\ntext\n\n## " + "x" * n + "\n").encode()
    n = rnd.choice([10_000, 500_000])  # long_word: one token of n letters among words, a URL, an e-mail
    word = rnd.choice(["x" * n, "https://example.org/" + "a/" * (n // 2), "a" * n + "@" + "b" * 10 + ".org",
                       "10." + "1" * n + "/x", "-" * n, "." * n, "=" * n, "_" * n])
    return kind, (doc[:300] + " " + word + " " + doc[300:]).encode()


def _pdf(objs: list[bytes], trailer_extra: bytes = b"", root: int = 1, prev: bytes = b"") -> bytes:
    """A PDF of ``objs`` (object ``root`` the catalog) with a correct cross-reference table;
    ``prev``: bytes it is appended to as an incremental update (objects renumbered after them)."""
    out = bytearray(prev or b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")  # (bytes += bytes copies: quadratic in objects)
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += (b"trailer\n<</Size %d/Root %d 0 R" % (len(objs) + 1, root) + trailer_extra
            + b">>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return bytes(out)


def _stream(body: bytes, extra: bytes = b"") -> bytes:
    return b"<</Length %d%s>>stream\n" % (len(body), extra) + body + b"\nendstream"


_FONT = b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>"


def _text_ops(rnd: random.Random, lines: int = 12) -> bytes:
    out = [b"BT /F1 11 Tf 14 TL 72 720 Td"]
    for i in range(lines):
        words = _words(rnd, rnd.randint(3, 12)).encode("latin-1", "replace")
        words = words.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
        out.append(b"(" + (b"%d Section" % i if i % 6 == 0 else words) + b") '")
    out.append(b"ET")
    return b"\n".join(out)


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    i = j = 0
    out = bytearray()
    for ch in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(ch ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def _encrypted_empty_password(rnd: random.Random) -> bytes:
    """RC4 40-bit (R2) with an empty user password: any reader opens it without asking."""
    import hashlib

    ident = bytes(rnd.randrange(256) for _ in range(16))
    owner_key = hashlib.md5(_PAD).digest()[:5]  # owner password empty too
    o = _rc4(owner_key, _PAD)
    p = -4
    key = hashlib.md5(_PAD + o + p.to_bytes(4, "little", signed=True) + ident).digest()[:5]
    u = _rc4(key, _PAD)
    body = _text_ops(rnd)
    obj_key = hashlib.md5(key + (4).to_bytes(3, "little") + (0).to_bytes(2, "little")).digest()[:10]
    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>",
            _stream(_rc4(obj_key, body)), _FONT,
            b"<</Filter/Standard/V 1/R 2/Length 40/P %d/O<%s>/U<%s>>>" % (p, o.hex().encode(), u.hex().encode())]
    return _pdf(objs, b"/Encrypt 6 0 R/ID[<%s><%s>]" % (ident.hex().encode(), ident.hex().encode()))


def _one_page(rnd: random.Random, page_extra: bytes = b"", box: bytes = b"[0 0 612 792]",
              content: bytes | None = None, more: list[bytes] | None = None) -> bytes:
    objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
            b"<</Type/Page/Parent 2 0 R/MediaBox" + box + b"/Resources<</Font<</F1 5 0 R>>"
            + (b"/XObject<</Im1 6 0 R>>" if more else b"") + b">>/Contents 4 0 R" + page_extra + b">>",
            _stream(content if content is not None else _text_ops(rnd)), _FONT, *(more or [])]
    return _pdf(objs)


def wide_pdf(rnd: random.Random, corpus: list[bytes]) -> tuple[str, bytes]:
    """(kind, bytes) of one PDF of a kind the corpus mutants do not make: built structure."""
    kind = rnd.choice(["zero_pages", "page_loop", "many_pages", "box", "rotate", "annots", "no_tounicode",
                       "thin_image", "odd_filters", "incremental", "encrypted_empty", "zip_named_pdf",
                       "two_pdfs", "deep_tree", "huge_content", "bad_objects"])
    if kind == "zero_pages":
        return kind, _pdf([b"<</Type/Catalog/Pages 2 0 R>>", rnd.choice([
            b"<</Type/Pages/Kids[]/Count 0>>", b"<</Type/Pages/Kids[]/Count 5>>", b"<</Type/Pages>>", b"null"])])
    if kind == "page_loop":  # the page tree points back at itself
        return kind, _pdf([b"<</Type/Catalog/Pages 2 0 R>>", rnd.choice([
            b"<</Type/Pages/Kids[2 0 R]/Count 1>>", b"<</Type/Pages/Kids[3 0 R 2 0 R]/Count 2>>",
            b"<</Type/Pages/Kids[3 0 R]/Count 1000000000>>"]),
            b"<</Type/Pages/Parent 2 0 R/Kids[2 0 R 3 0 R]/Count 1>>"])
    if kind == "many_pages":  # tiny pages sharing one content stream and font
        n = rnd.choice([200, 2_000, 5_000, 5_001, 10_000])
        kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(n))
        objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[" + kids + b"]/Count %d>>" % n,
                _stream(b"BT /F1 9 Tf 20 20 Td (p) Tj ET"), _FONT]
        objs += [b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 50 50]/Resources<</Font<</F1 4 0 R>>>>/Contents 3 0 R>>"
                 for _ in range(n)]
        return f"{kind}:{n}", _pdf(objs)
    if kind == "box":
        box = rnd.choice([b"[0 0 14400000 14400000]", b"[0 0 -612 -792]", b"[0 0 0 0]", b"[612 792 0 0]",
                          b"[0 0 1e400 5]", b"[0 0 612]", b"[/a /b /c /d]", b"[0 0 3 3]", b"[0 0 200 14400]",
                          b"[-1e30 -1e30 1e30 1e30]"])
        extra = rnd.choice([b"", b"/CropBox[900 900 1000 1000]", b"/UserUnit 75000", b"/CropBox[0 0 0 0]"])
        return f"{kind}:{box.decode()}", _one_page(rnd, extra, box)
    if kind == "rotate":
        rot = rnd.choice([b"90", b"180", b"270", b"45", b"-90", b"3600000000", b"1e9", b"/x"])
        return f"{kind}:{rot.decode()}", _one_page(rnd, b"/Rotate " + rot)
    if kind == "annots":
        n = rnd.choice([100, 3_000, 20_000])
        field = rnd.choice([b"/Subtype/Link/A<</S/URI/URI(https://example.org/%d)>>",
                            b"/Subtype/Widget/FT/Tx/T(f%d)/V(value)", b"/Subtype/Text/Contents(note %d)"])
        annots = b"[" + b" ".join(b"<</Type/Annot/Rect[10 10 20 20]" + (field % i if b"%d" in field else field)
                                  + b">>" for i in range(n)) + b"]"
        return f"{kind}:{n}", _one_page(rnd, b"/Annots" + annots)
    if kind == "no_tounicode":  # a font whose codes mean other glyphs, nothing to map them back
        objs = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>",
                _stream(_text_ops(rnd, 30)),
                b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding<</Differences[32 "
                + b" ".join(b"/g%d" % i for i in range(200)) + b"]>>>>"]
        if rnd.random() < 0.5:
            objs[4] = (b"<</Type/Font/Subtype/Type0/BaseFont/Nope/Encoding/Identity-H/DescendantFonts[<</Type/Font"
                       b"/Subtype/CIDFontType2/BaseFont/Nope/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)"
                       b"/Supplement 0>>/FontDescriptor<</Type/FontDescriptor/FontName/Nope/Flags 4/FontBBox"
                       b"[0 0 1000 1000]/ItalicAngle 0/Ascent 800/Descent -200/CapHeight 700/StemV 80>>>>]>>")
        return kind, _pdf(objs)
    if kind in ("thin_image", "odd_filters"):
        if kind == "thin_image":
            w, h = rnd.choice([(1, 100_000), (100_000, 1), (1, 1), (65_535, 65_535), (10 ** 9, 10 ** 9)])
            raw = bytes(rnd.randrange(256) for _ in range(min(w * h, 100_000)))
            filt = b""
            desc = f"{w}x{h}"
        else:
            w, h = rnd.choice([(100, 100), (2_000, 3_000)])
            name = rnd.choice([b"JBIG2Decode", b"CCITTFaxDecode", b"JPXDecode", b"DCTDecode", b"LZWDecode",
                               b"RunLengthDecode", b"ASCII85Decode", b"Crypt", b"Nope"])
            raw = bytes(rnd.randrange(256) for _ in range(rnd.choice([0, 50, 5_000])))
            filt = b"/Filter/" + name + (b"/DecodeParms<</K -1/Columns %d>>" % w if name == b"CCITTFaxDecode" else b"")
            desc = name.decode()
        img = _stream(raw, b"/Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray"
                      b"/BitsPerComponent %d" % (w, h, 1 if b"JBIG2" in filt or b"CCITT" in filt else 8) + filt)
        text = _text_ops(rnd) if rnd.random() < 0.5 else b""
        content = text + b"\nq 500 0 0 500 50 50 cm /Im1 Do Q"
        return f"{kind}:{desc}", _one_page(rnd, content=content, more=[img])
    if kind == "incremental":  # an update appended: page 1's content replaced, the old one left behind
        base = rnd.choice(corpus) if corpus and rnd.random() < 0.5 else _one_page(rnd)
        m = re.search(rb"startxref\s+(\d+)", base[-2048:])
        prev = int(m.group(1)) if m else 0
        roots = re.findall(rb"/Root\s*(\d+\s+\d+\s+R)", base)
        upd = (b"\n99990 0 obj\n" + _stream(_text_ops(rnd)) + b"\nendobj\n")
        xref_at = len(base) + len(upd)
        upd += (b"xref\n99990 1\n%010d 00000 n \ntrailer\n<</Size 99991/Prev %d/Root %s>>\nstartxref\n%d\n%%%%EOF\n"
                % (len(base) + 1, prev, roots[-1] if roots else b"1 0 R", xref_at))
        return kind, base + upd
    if kind == "encrypted_empty":
        return kind, _encrypted_empty_password(rnd)
    if kind == "zip_named_pdf":  # a ZIP holding a PDF, under a .pdf name
        import io
        import zipfile

        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("paper.pdf", rnd.choice(corpus) if corpus else _one_page(rnd))
        return kind, buf.getvalue()
    if kind == "two_pdfs":  # two whole files one after the other (a bad concatenation)
        a = rnd.choice(corpus) if corpus else _one_page(rnd)
        return kind, a + _one_page(rnd)
    if kind == "deep_tree":  # a page tree 2,000 levels deep
        depth = rnd.choice([50, 2_000])
        objs = [b"<</Type/Catalog/Pages 2 0 R>>"]
        for i in range(depth):
            objs.append(b"<</Type/Pages/Kids[%d 0 R]/Count 1%s>>" % (i + 3, b"/Parent %d 0 R" % (i + 1) if i else b""))
        n = len(objs) + 1
        objs.append(b"<</Type/Page/Parent %d 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 %d 0 R>>>>"
                    b"/Contents %d 0 R>>" % (n - 1, n + 2, n + 1))
        objs += [_stream(_text_ops(rnd)), _FONT]
        return f"{kind}:{depth}", _pdf(objs)
    if kind == "huge_content":  # one page drawing 200,000 tiny strings, or one string of 2 MB
        if rnd.random() < 0.5:
            body = b"BT /F1 1 Tf " + b"".join(b"1 0 0 1 %d %d Tm (a) Tj " % (i % 600, (i // 600) % 790)
                                             for i in range(rnd.choice([2_000, 200_000]))) + b"ET"
        else:
            body = b"BT /F1 1 Tf 10 10 Td (" + b"w " * rnd.choice([1_000, 1_000_000]) + b") Tj ET"
        return kind, _one_page(rnd, content=body)
    # bad_objects: references to missing objects, a content stream that is an array of junk, a
    # dictionary nested 100,000 deep
    junk = rnd.choice([b"[4 0 R 99 0 R 4 0 R]", b"<<" * 100_000 + b">>" * 100_000, b"[" * 100_000 + b"]" * 100_000,
                       b"(" + b"\\(" * 10_000 + b")", b"<</Length -5>>stream\nxx\nendstream"])
    return kind, _pdf([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                       b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>", junk])


def wide_apply_pair(rnd: random.Random, files: list[Path]) -> tuple[str, bytes, bytes]:
    """(kind, file, sketch) of an apply pair of a kind ``apply_pair`` does not make."""
    kind = rnd.choice(["only_markers", "crlf_mismatch", "tabs_spaces", "identical_lines", "binary", "reversed",
                       "bom", "cr_only", "no_final_newline", "huge_line", "marker_soup", "nul_file",
                       "sketch_of_other_file", "unicode_lines", "duplicated_sketch"])
    src = rnd.choice(files).read_bytes()
    text = src.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    marker = rnd.choice(["# ... existing code ...\n", "// ... existing code ...\n", "# ...\n", "...\n",
                         "/* ... existing code ... */\n", "<!-- ... existing code ... -->\n"])

    def edited(ls: list[str]) -> str:  # one line changed, with three lines of context each side, markers around
        if len(ls) < 10:
            return "".join(ls) + "new_line = 1\n"
        i = rnd.randrange(4, len(ls) - 4)
        nl = "\r\n" if ls[i].endswith("\r\n") else "\n"
        return (marker + "".join(ls[i - 3:i]) + ls[i].rstrip("\r\n") + "  # changed" + nl + "".join(ls[i + 1:i + 4])
                + marker)

    if kind == "only_markers":
        return kind, src, (marker * rnd.choice([1, 2, 50, 10_000])).encode()
    if kind == "crlf_mismatch":  # the file in CRLF, the sketch in LF, or the other way round
        if rnd.random() < 0.5:
            return kind, text.replace("\n", "\r\n").encode(), edited(lines).encode()
        return kind, src, edited([ln.replace("\n", "\r\n") for ln in lines]).encode()
    if kind == "tabs_spaces":  # the file indented with tabs, the sketch with spaces (or the reverse)
        tabbed = [re.sub(r"^(    )+", lambda m: "\t" * (len(m.group(0)) // 4), ln) for ln in lines]
        if rnd.random() < 0.5:
            return kind, "".join(tabbed).encode(), edited(lines).encode()
        return kind, src, edited(tabbed).encode()
    if kind == "identical_lines":  # 100,000 identical lines, a sketch that changes one of them
        n = rnd.choice([1_000, 100_000])
        line = rnd.choice(["x = 1\n", "\n", "    pass\n", "}\n"])
        body = line * n
        sk = rnd.choice([body, line * 3 + marker + "y = 2\n" + marker + line * 3, marker + "y = 2\n" + marker,
                         line * (n // 2) + "y = 2\n" + line * (n - n // 2)])
        return f"{kind}:{n}", body.encode(), sk.encode()
    if kind == "binary":
        blob = bytes(rnd.randrange(256) for _ in range(rnd.choice([100, 5_000])))
        return kind, rnd.choice([blob, src]), rnd.choice([blob, src[:200] + blob, b"\x00" * 50 + src])
    if kind == "reversed":  # the sketch is the file's lines in reverse order
        return kind, src, "".join(reversed(lines)).encode()
    if kind == "bom":
        return kind, rnd.choice([b"\xef\xbb\xbf" + src, src]), (rnd.choice(["\ufeff", ""]) + edited(lines)).encode()
    if kind == "cr_only":
        return kind, text.replace("\n", "\r").encode(), rnd.choice([edited(lines), edited(lines).replace("\n", "\r")]
                                                                   ).encode()
    if kind == "no_final_newline":
        return kind, src.rstrip(b"\n"), edited(lines).rstrip("\n").encode()
    if kind == "huge_line":  # one line of 2 MB in the file, the sketch keeps it by a marker
        big = "data = '" + "x" * rnd.choice([10_000, 2_000_000]) + "'\n"
        return kind, (text + big).encode(), (edited(lines) + rnd.choice([marker, big])).encode()
    if kind == "marker_soup":  # markers of every language and partial markers between real lines
        soup = ["...\n", "# ...\n", "// ...\n", "/* ... */\n", "# ... existing code ...\n", "…\n",
                "# .. existing code ..\n", "    # ... existing code ...\n", "\t// ... rest of the file ...\n"]
        sk = [rnd.choice(soup) if rnd.random() < 0.5 else ln for ln in lines[: rnd.randint(1, 200)]]
        return kind, src, "".join(sk).encode()
    if kind == "nul_file":
        return kind, src.replace(b"\n", b"\x00\n", rnd.randint(1, 5)), edited(lines).encode()
    if kind == "sketch_of_other_file":
        other = rnd.choice(files).read_text(errors="replace").splitlines(keepends=True)
        return kind, src, edited(other).encode()
    if kind == "unicode_lines":  # line breaks str.splitlines knows and Python source does not
        odd = rnd.choice(["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"])
        lines2 = [ln.replace(" = ", " =" + odd + " ", 1) if rnd.random() < 0.3 else ln for ln in lines]
        return kind, "".join(lines2).encode(), rnd.choice([edited(lines2), "".join(lines2)]).encode()
    # duplicated_sketch: the edit shown twice, or the whole file twice
    e = edited(lines)
    return kind, src, rnd.choice([e + e, text + text]).encode()


def wide_tree(rnd: random.Random, root: Path, files: list[Path]) -> str:
    """A folder of a kind ``make_tree`` does not make; returns the kind."""
    root.mkdir(parents=True)
    kind = rnd.choice(["nul_source", "minified", "many_empty", "deep_path", "big_ignore", "newline_names",
                       "odd_names", "many_small", "ignore_everything", "binary_as_source", "utf16_source",
                       "same_content", "long_lines", "dot_dirs"])
    src = rnd.choice(files).read_bytes()
    if kind == "nul_source":
        (root / "a.py").write_bytes(src[:2000] + b"\x00" + src[2000:5000])
        (root / "b.js").write_bytes(b"\x00" * 1000)
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "minified":  # one line of JavaScript, under and over the size limit
        n = rnd.choice([50_000, 900_000, 2_000_000])
        body = "".join(f"var a{i}=function(b){{return b+{i}}};" for i in range(n // 30))
        (root / "app.min.js").write_text(body[:n])
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "many_empty":
        n = rnd.choice([100, 3_000, 20_000])
        for i in range(n):
            (root / f"e{i}.py").write_bytes(b"")
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "deep_path":  # folders down to the path-length limit (4,096 bytes on Linux)
        d = root
        try:
            while len(os.fsencode(d)) < 4_000:
                d = d / ("d" * rnd.choice([1, 50, 200]))
                d.mkdir()
                if rnd.random() < 0.1:
                    (d / "mid.py").write_bytes(b"def mid():\n    pass\n")
        except OSError:
            pass
        for name in ("deep.py", "x" * 255):
            try:
                (d / name).write_bytes(b"def deep_function():\n    pass\n")
            except OSError:
                pass
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "big_ignore":
        n = rnd.choice([1_000, 100_000])
        pats = [rnd.choice([f"*.{i}", f"dir{i}/", f"!keep{i}", f"**/x{i}/**", f"[a-z]{i}*", f"file{i}.py"])
                for i in range(n)]
        (root / ".gitignore").write_text("\n".join(pats) + "\n")
        for i in range(20):
            (root / f"file{i}.py").write_bytes(b"def f():\n    return %d\n" % i)
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "newline_names":
        for name in ["a\nb.py", "\n.py", "x\r.py", "tab\t.py", " lead.py", "trail .py", "-n.py", "--help.py",
                     "*.py", "[a].py", "?.py", "back\\slash.py", "é.py", "e\u0301.py", "\u202egnp.py"]:
            (root / name).write_bytes(b"def odd_named():\n    return 1\n")
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "odd_names":
        for name in [b"\xff\xfe.py", b"\xc3(.py", b"\xed\xa0\x80.py", b"x" * 250 + b".py", b".py", b"..py", b"...",
                     b"\x01\x02.py", b"\x7f.js"]:
            try:
                with open(os.path.join(os.fsencode(root), name), "wb") as fh:
                    fh.write(b"def odd_bytes():\n    return 1\n")
            except OSError:
                pass
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "many_small":
        for i in range(rnd.choice([500, 3_000])):
            d = root / f"p{i % 37}"
            d.mkdir(exist_ok=True)
            (d / f"m{i}.py").write_bytes(b"def f%d():\n    return %d\n" % (i, i))
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "ignore_everything":
        (root / ".gitignore").write_text(rnd.choice(["*\n", "/*\n", "**\n", "*\n!good.py\n", "!*\n*\n"]))
        (root / ".ctxmillignore").write_text(rnd.choice(["", "*\n", "[\n"]))
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "binary_as_source":
        for ext in ("py", "js", "rs", "go", "c", "md", "json", "ts", "java", "rb"):
            (root / f"bin.{ext}").write_bytes(bytes(rnd.randrange(256) for _ in range(rnd.choice([10, 20_000]))))
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "utf16_source":
        (root / "w.py").write_bytes(src[:5000].decode("utf-8", "replace").encode(rnd.choice(["utf-16", "utf-32",
                                                                                            "utf-16-le"])))
        (root / "l.py").write_bytes("café = 'ü'\n".encode("latin-1"))
        (root / "s.py").write_bytes("名前 = 'テスト'\n".encode("shift_jis"))
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "same_content":  # hundreds of copies of one file: one content, many paths
        for i in range(rnd.choice([10, 500])):
            (root / f"copy{i}.py").write_bytes(src[:20_000])
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    elif kind == "long_lines":
        (root / "wide.py").write_bytes(b"x = [" + b"1, " * rnd.choice([1_000, 300_000]) + b"]\n")
        (root / "deep.py").write_bytes(b"x = " + b"(" * 5_000 + b"1" + b")" * 5_000 + b"\n")
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    else:  # dot_dirs: .git, node_modules, hidden folders, a file named like the index's own state
        for d in (".git", "node_modules", ".venv", ".ctxmill", "__pycache__", ".hidden"):
            (root / d).mkdir()
            (root / d / "x.py").write_bytes(b"def hidden_one():\n    pass\n")
        (root / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
        (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    return kind


# ----------------------------------------------------------------------------- round twelve (--kinds wide2)
# What a reviewer's different campaign would throw: deep nesting for the code chunker in every
# language, syntax-error soup, one-line files, generated CSS/SQL/YAML/JSON, notebooks with huge
# outputs, mixed encodings per line, RTL and emoji text, unclosed Markdown, 100,000 footnotes or
# one-character references, conflict markers, hostile search queries. Drawn only with --kinds
# wide2, from a random stream of its own: classic and wide seeds replay unchanged.

LANG_EXT = (".py", ".js", ".ts", ".go", ".rs", ".java", ".c", ".cpp", ".rb", ".ex", ".php", ".cs", ".kt", ".swift",
            ".lua", ".sh", ".scala", ".hs", ".ml", ".sql", ".css", ".html", ".yaml", ".json", ".toml", ".md")
RTL = ("مرحبا بالعالم هذا نص عربي طويل عن الذاكرة المؤقتة", "שלום עולם זהו טקסט בעברית על זיכרון מטמון",
       "سلام دنیا این یک متن فارسی است")
EMOJI = ("\U0001f600", "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466", "\U0001f1fa\U0001f1f8",
         "\u2764\ufe0f", "\U0001f44d\U0001f3fd", "\U0001faf6", "\U0001f9d1\u200d\U0001f4bb")


def _deep_code(rnd: random.Random, ext: str, n: int) -> str:
    """n nested brackets, parens or blocks in the syntax of ``ext`` (or the nearest open/close)."""
    kind = rnd.choice(["paren", "bracket", "brace", "block"])
    o, c = {"paren": ("(", ")"), "bracket": ("[", "]"), "brace": ("{", "}")}.get(kind, ("", ""))
    if kind == "block":
        if ext == ".py":
            return "".join("    " * min(i, 200) + f"if x{i}:\n" for i in range(min(n, 5000))) + "    " * 200 + "pass\n"
        if ext in (".rb", ".ex", ".lua"):
            return "def f\n" + "begin\n" * n + "1\n" + "end\n" * n + "end\n"
        o, c = "{", "}"
    head = {".py": "x = ", ".js": "let x = ", ".ts": "let x = ", ".go": "package main\nvar x = ",
            ".rs": "fn main() { let x = ", ".java": "class A { int x = ", ".c": "int x = ", ".rb": "x = ",
            ".ex": "x = ", ".php": "<?php $x = "}.get(ext, "")
    tail = {".rs": "; }", ".java": "; }", ".c": ";", ".php": ";", ".js": ";", ".ts": ";"}.get(ext, "")
    return head + o * n + "1" + c * n + tail + "\n"


def _syntax_soup(rnd: random.Random, n: int) -> str:
    toks = ["def", "class", "fn", "func", "{", "}", "(", ")", "[", "]", "=>", "->", ":", ";", "'", '"', '"""', "`",
            "/*", "*/", "//", "#", "<<EOF", "end", "do", "\n", "\n    ", "\t", "@", "$", "\\", "<", ">", "<?php",
            "</script>", "import", "from", "x", "y1", "0x", "1e", "...", "#[", "r#\"", "%{", "?>", "\u00e9", "\x0c"]
    return "".join(rnd.choice(toks) + rnd.choice(["", " "]) for _ in range(n))


def _generated(rnd: random.Random, kind: str, size: int) -> str:
    """Minified or generated CSS, SQL, YAML or JSON of about ``size`` characters."""
    if kind == "css":
        one = ".c{i}{{color:#{i:06x};margin:0 {i}px}}@media(max-width:{i}px){{.d{i}>a:hover{{top:-{i}px}}}}"
        return "".join(one.format(i=i % 16_777_215) for i in range(size // 70))
    if kind == "sql":
        return "INSERT INTO t VALUES " + ",".join(f"({i},'v{i}',NULL,{i}.5)" for i in range(size // 20)) + ";"
    if kind == "yaml":
        return "".join("  " * (i % 40) + f"k{i}: [v{i}, {{a: {i}}}]\n" for i in range(size // 40))
    return json.dumps({f"k{i}": [i, f"v{i}", None, {"n": i}] for i in range(size // 30)}, separators=(",", ":"))


def _notebook(rnd: random.Random, out_bytes: int) -> str:
    big = "iVBORw0KGgo" + "A" * out_bytes
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# A notebook\n", "Some text."]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["def good_nb():\n", "    return 1\n"],
              "outputs": [{"output_type": "display_data", "data": {"image/png": big, "text/plain": ["<Figure>"]},
                           "metadata": {}},
                          {"output_type": "stream", "name": "stdout", "text": ["line\n"] * (out_bytes // 5000 + 1)}]}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def _mixed_lines(rnd: random.Random, doc: str) -> bytes:
    """Each line in an encoding of its own: UTF-8, Latin-1, cp1252, UTF-16, Shift-JIS, invalid bytes."""
    out = []
    for ln in doc.split("\n"):
        enc = rnd.choice(["utf-8", "utf-8", "latin-1", "cp1252", "utf-16-le", "shift_jis", "bad"])
        if enc == "bad":
            out.append(ln.encode() + b"\xc3\x28\xa0\xa1\xff")
        else:
            out.append((ln + rnd.choice(["", " café", " 日本"])).encode(enc, "replace"))
    return b"\n".join(out)


def wide2_text(rnd: random.Random) -> tuple[str, bytes]:
    kind = rnd.choice(["rtl_emoji", "md_unclosed", "footnotes", "citations", "one_char_refs", "mixed_enc_lines",
                       "generated", "notebook", "latex_tables", "deep_markdown", "syntax_soup", "long_rule"])
    doc = _doc(rnd, rnd.choice([5, 40, 300]))
    if kind == "rtl_emoji":
        lines = doc.split("\n")
        return kind, "\n".join(ln + " " + rnd.choice(RTL) + " " + "".join(rnd.choice(EMOJI) for _ in range(
            rnd.randint(0, 30))) + rnd.choice(["", "\u200f", "\u202b"]) for ln in lines).encode()
    if kind == "md_unclosed":
        opener = rnd.choice(["```python\n", "~~~\n", "$$\n", "<!-- ", "<div>\n", "\\[\n", "<details>\n", "[link](",
                             "| a | b |\n|---|", "> ", "<script>\n", "``` ``` ```\n"])
        at = rnd.randrange(len(doc))
        return kind, (doc[:at] + opener * rnd.choice([1, 3, 1000]) + doc[at:]).encode()
    if kind == "footnotes":
        n = rnd.choice([100, 10_000, 100_000])
        body = "".join(f"Claim {i}[^{i}]. " for i in range(n))
        return kind, ("Title\n\n" + body + "\n\n" + "".join(f"[^{i}]: note {i}\n" for i in range(n))).encode()
    if kind == "citations":
        n = rnd.choice([100, 10_000, 100_000])
        body = " ".join(f"as shown [{i}] and ({rnd.choice(['Smith', 'Lee'])} et al., {1900 + i % 120})"
                        for i in range(n))
        return kind, ("Title\n\n" + body + "\n\nReferences\n\n" + "".join(
            f"[{i}] A. Author. T{i}. 2020.\n" for i in range(min(n, 3000)))).encode()
    if kind == "one_char_refs":
        n = rnd.choice([1_000, 100_000])
        return kind, (doc + "\nReferences\n\n" + "".join(rnd.choice(["x\n", "[1] x\n", "- x\n", "1. x\n", ".\n"])
                                                        for _ in range(n))).encode()
    if kind == "mixed_enc_lines":
        return kind, _mixed_lines(rnd, doc)
    if kind == "generated":
        return kind, ("Title\n\n" + _generated(rnd, rnd.choice(["css", "sql", "yaml", "json"]),
                                               rnd.choice([10_000, 900_000]))).encode()
    if kind == "notebook":
        return kind, _notebook(rnd, rnd.choice([1_000, 900_000])).encode()
    if kind == "latex_tables":
        return kind, text_shape(rnd, "latex_tables", rnd.choice([5_000, 300_000]))
    if kind == "deep_markdown":
        n = rnd.choice([1_000, 100_000])
        deep = rnd.choice(["*" * n + "x" + "*" * n, "[" * n + "x" + "](" * n, "`" * n, "<b>" * n + "x",
                           "![" * n, "\\(" * n, "{" * n, "> " * (n // 10) + "x"])
        return kind, (doc[:200] + "\n\n" + deep + "\n\n" + doc[200:]).encode()
    if kind == "syntax_soup":
        return kind, _syntax_soup(rnd, rnd.choice([1_000, 100_000])).encode()
    return kind, (rnd.choice(["-", "=", "*", "_", "~", "#", "."]) * rnd.choice([70_000, 500_000]) + "\n\n" + doc).encode()


def wide2_apply_pair(rnd: random.Random, files: list[Path]) -> tuple[str, bytes, bytes]:
    kind = rnd.choice(["conflict_file", "conflict_sketch", "long_sketch_line", "deep_code", "mixed_enc",
                       "rtl_emoji", "marker_in_string", "huge_sketch"])
    src = rnd.choice(files).read_bytes()
    lines = src.decode("utf-8", "replace").splitlines(keepends=True) or ["x = 1\n"]
    i = rnd.randrange(len(lines))
    # the changed line a comment at the line's indentation (a statement there may break the parse)
    pad = re.match(r"[ \t]*", lines[i]).group(0)
    ctx = "".join(lines[max(0, i - 3):i]) + pad + "# changed_line\n" + "".join(lines[i + 1:i + 4])
    marker = "# ... existing code ...\n"
    if kind == "conflict_file":
        f = "".join(lines[:i]) + "<<<<<<< HEAD\n" + "".join(lines[i:i + 3]) + "=======\nother = 2\n>>>>>>> b\n" + "".join(
            lines[i + 3:])
        return kind, f.encode(), (marker + ctx + marker).encode()
    if kind == "conflict_sketch":
        return kind, src, (marker + "<<<<<<< ours\n" + ctx + "=======\n" + ctx + ">>>>>>> theirs\n" + marker).encode()
    if kind == "long_sketch_line":
        return kind, src, (marker + "".join(lines[max(0, i - 3):i]) + "x = '" + "y" * rnd.choice([10_000, 2_000_000])
                           + "'\n" + "".join(lines[i + 1:i + 4]) + marker).encode()
    if kind == "deep_code":
        deep = _deep_code(rnd, ".py", rnd.choice([1_000, 100_000]))
        return kind, (deep + "".join(lines)).encode(), (marker + ctx + marker).encode()
    if kind == "mixed_enc":
        return kind, _mixed_lines(rnd, "".join(lines)), (marker + ctx + marker).encode()
    if kind == "rtl_emoji":
        return kind, src, (marker + ctx.replace("# changed_line", f"# {rnd.choice(RTL)} {rnd.choice(EMOJI)}")
                           + marker).encode()
    if kind == "marker_in_string":
        return kind, src, (marker + ctx.replace("# changed_line", "s = '# ... existing code ...'") + marker).encode()
    return kind, src, ((marker + ctx) * rnd.choice([100, 20_000])).encode()


def wide2_tree(rnd: random.Random, root: Path) -> str:
    root.mkdir(parents=True)
    kind = rnd.choice(["deep_nesting", "syntax_soup", "one_line", "generated", "notebook", "mixed_enc_lines",
                       "rtl_emoji_code", "conflict_markers"])
    exts = rnd.sample(LANG_EXT, rnd.choice([1, 4, len(LANG_EXT)]))
    for ext in exts:
        if kind == "deep_nesting":
            data = _deep_code(rnd, ext, rnd.choice([1_000, 100_000])).encode()
        elif kind == "syntax_soup":
            data = _syntax_soup(rnd, rnd.choice([1_000, 60_000])).encode()
        elif kind == "one_line":  # 0.9 MB (indexed) or 5 MB (over the size limit) on one line
            data = (_syntax_soup(rnd, 200).replace("\n", " ") * 200)[: rnd.choice([900_000, 5_000_000])].encode()
        elif kind == "generated":
            data = _generated(rnd, rnd.choice(["css", "sql", "yaml", "json"]), rnd.choice([10_000, 900_000])).encode()
        elif kind == "notebook":
            ext = ".ipynb"
            data = _notebook(rnd, rnd.choice([1_000, 900_000])).encode()
        elif kind == "mixed_enc_lines":
            data = _mixed_lines(rnd, "def f():\n    return 'é'\n\nclass K:\n    pass\n" * 50)
        elif kind == "rtl_emoji_code":
            data = "".join(f"def f{i}_{rnd.choice(['é', 'ß', '日本', 'ñ'])}():\n    return '{rnd.choice(RTL)} "
                           f"{rnd.choice(EMOJI)}'  # {rnd.choice(EMOJI)}\n\n" for i in range(200)).encode()
        else:
            data = ("def a():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> b\n" * 200).encode()
        (root / f"hostile{ext}").write_bytes(data)
    (root / "good.py").write_bytes(b"def good_function():\n    return 1\n")
    return kind


def hostile_query(rnd: random.Random) -> str:
    return rnd.choice(["x" * 100_000, " ".join(["good_function"] * 20_000), "\x01\x02\x1b[31m\x7f",
                       "a\u0000b", "\u202e" * 100, "".join(EMOJI) * 1000, "NEAR(", '"', "*", "OR AND NOT",
                       "(((((((", "a" * 5000 + '"', "-", "::", "\\", "%", "é" * 50_000, "col:val", "^x"])


def _meddler(rnd: random.Random, root: Path):
    """A thread that, after a short random wait, removes or renames a folder of ``root`` or cuts
    a file short, while ``ctxmill index`` walks and reads the tree."""
    import threading

    action = rnd.choice(["remove_dir", "rename_dir", "shrink_file", "remove_file", "grow_file"])
    delay = rnd.uniform(0.0, 1.0)
    pick = rnd.random()

    def act() -> None:
        time.sleep(delay)
        try:
            dirs = sorted(p for p in root.rglob("*") if p.is_dir() and not p.is_symlink())
            files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
            if action in ("remove_dir", "rename_dir") and dirs:
                d = dirs[int(pick * len(dirs))]
                if action == "remove_dir":
                    shutil.rmtree(d, ignore_errors=True)
                else:
                    d.rename(d.with_name(d.name + "-renamed"))
            elif files:
                f = files[int(pick * len(files))]
                if action == "shrink_file":
                    os.truncate(f, f.stat().st_size // 3)
                elif action == "remove_file":
                    f.unlink()
                else:
                    with open(f, "ab") as fh:
                        fh.write(b"\n# grown\n" * 10_000)
        except OSError:
            pass

    return threading.Thread(target=act, name=action, daemon=True)


# ----------------------------------------------------------------------------- round thirty-two (--kinds wide3)
# The OCR-engine readers the compiler gained after the third campaign (sources/engines.py): DeepSeek
# grounding blocks, dots.ocr JSON, Chandra HTML, DocTags, MinerU content_list JSON, each malformed
# (unclosed tags, truncated JSON, wrong types), huge or nested deep; olmOCR front matter and engine page markers mixed. Every case plants words of its own
# ("zq" and letters) in blocks that are ordinary text: each must reach document.md or removed.json
# (the conservation rule), else the case counts as good input lost. Text entry only (other entry
# points draw wide2's kinds under --kinds wide3), from a random stream of its own.

def _plant(rnd: random.Random, planted: list[str]) -> str:
    """A paragraph of ordinary words with one new planted word in it."""
    n = len(planted)
    word = "zq" + "".join(chr(97 + (n // 26 ** k) % 26) for k in range(4)) + "x"
    planted.append(word)
    return _words(rnd, rnd.randint(4, 30)).capitalize() + f" {word} " + _words(rnd, rnd.randint(2, 20)) + "."


_WEIRD_NUMBERS = ("nan", "-1e308", "1e999", "\"12\"", "null", "[]", "{}", "-0", "99999999999999999999999",
                  "1.5", "true")


def _reps(rnd: random.Random, blocks: int, big: int) -> int:
    """How many times a malformed piece repeats: up to ``big`` in a small document, a few in a large
    one (a 40,000-block document of 30,000-fold pieces would be gigabytes)."""
    return rnd.choice([3, 300, big]) if blocks <= 40 else rnd.choice([2, 3, 30])


def _bbox(rnd: random.Random) -> str:
    if rnd.random() < 0.8:
        return ", ".join(str(rnd.randint(0, 999)) for _ in range(4))
    return ", ".join(rnd.choice(_WEIRD_NUMBERS) for _ in range(rnd.randint(0, 6)))


def _deepseek(rnd: random.Random, blocks: int, planted: list[str]) -> str:
    labels = ["text", "title", "sub_title", "table", "image", "header", "footer", "equation", "list", "caption",
              "unknown_label", "", "a" * 5000, "text|>", "<|ref|>"]
    out = []
    for _b in range(blocks):
        r = rnd.random()
        good = r < 0.5
        label = "text" if good else rnd.choice(labels)
        ref = f"<|ref|>{label}<|/ref|><|det|>[[{_bbox(rnd)}]]<|/det|>"
        if not good:
            ref = rnd.choice([ref, f"<|ref|>{label}<|det|>[[{_bbox(rnd)}]]", f"<|ref|>{label}<|/ref|><|det|>[[",
                              "<|ref|>" * _reps(rnd, blocks, 5000) + label, f"<|det|>[[{_bbox(rnd)}]]<|/det|>",
                              "<|/ref|><|/det|>", f"<|ref|>{label}<|/ref|>" * _reps(rnd, blocks, 300),
                              "<|grounding|><image>\\n", "<|ref|>" + _words(rnd, 8) + "<|/ref|><|det|>[[1,2,3,4]]<|/det|>"])
        body = _plant(rnd, planted) if good else rnd.choice([_words(rnd, 12), "", "<|/det|>" * 3, "| a | b |",
                                                             "$$x$$", "<table><tr><td>1"])
        out.append(ref + "\n" + body + "\n")
        if rnd.random() < 0.05:
            out.append("<--- Page Split --->\n" * (rnd.choice([1, 1, 1000]) if blocks <= 40 else 1))
    return "\n".join(out)


def _dots(rnd: random.Random, blocks: int, planted: list[str]) -> tuple[str, list[str]]:
    """A dots.ocr list; truncated or with wrong types. The words planted in blocks cut off by the
    truncation are not counted (the model never wrote them out in full)."""
    cats = ["Text", "Title", "Section-header", "Table", "Picture", "Caption", "Formula", "List-item",
            "Page-header", "Page-footer", "Footnote"]
    items, words = [], []
    for b in range(blocks):
        good = b == 0 or rnd.random() < 0.5
        if good:
            at = len(planted)
            body = _plant(rnd, planted)  # (numbered on from every word planted so far: no word twice)
            items.append((json.dumps({"bbox": [rnd.randint(0, 900) for _ in range(4)], "category": "Text",
                                      "text": body}), planted[at:]))
            continue
        bad = rnd.choice(["cat_type", "text_type", "bbox", "extra", "nested", "string", "huge"])
        if bad == "cat_type":
            d = {"bbox": [1, 2, 3, 4], "category": rnd.choice([7, None, ["Text"], {"a": 1}, True, ""]),
                 "text": _words(rnd, 6)}
        elif bad == "text_type":
            d = {"bbox": [1, 2, 3, 4], "category": rnd.choice(cats),
                 "text": rnd.choice([None, 12, ["a", "b"], {"t": "x"}, 1e308, False])}
        elif bad == "bbox":
            d = {"bbox": rnd.choice([None, "x", [], [1e308] * 9, [[1, 2], [3]]]), "category": rnd.choice(cats),
                 "text": _words(rnd, 6)}
        elif bad == "extra":
            d = {"category": rnd.choice(cats), "text": _words(rnd, 6), "children": [{"text": "y"}] * 3}
        elif bad == "nested":
            n = _reps(rnd, blocks, 200_000)
            items.append(("[" * n + "]" * n, []))
            continue
        elif bad == "string":
            items.append((rnd.choice(['"just a string"', "42", "null", "[]", '{"category": "Text"}']), []))
            continue
        else:
            d = {"bbox": [1, 2, 3, 4], "category": "Text", "text": _words(rnd, _reps(rnd, blocks, 150_000))}
        items.append((json.dumps(d), []))
    text = "[" + ", ".join(s for s, _ in items) + "]"
    cut = len(text)
    if rnd.random() < 0.5:
        cut = rnd.randrange(1, len(text))
        text = text[:cut]
    at = 1
    for s, w in items:
        if at + len(s) <= cut:
            words += w
        at += len(s) + 2
    planted[:] = words
    return text, words


def _chandra(rnd: random.Random, blocks: int, planted: list[str]) -> str:
    labels = ["Text", "Section-Header", "Title", "Table", "Image", "Caption", "Page-Header", "Page-Footer",
              "List-Group", "Equation-Block", "Footnote", "Weird-Label"]
    out = []
    for _b in range(blocks):
        good = rnd.random() < 0.5
        label = "Text" if good else rnd.choice(labels)
        head = f'<div data-bbox="{rnd.randint(0, 900)} 2 3 4" data-label="{label}">'
        if good:
            body = rnd.choice(["<p>{}</p>", "{}", "<p>{}", "<span>{}</span>"]).format(_plant(rnd, planted))
        else:
            n = _reps(rnd, blocks, 30_000)
            body = rnd.choice([
                "<table><tr><td>" + "<td>".join(_words(rnd, 2) for _ in range(rnd.randint(1, 40))),
                "<div>" * n + _words(rnd, 5), "<ul>" + "<li>x" * n, "<h9>odd</h9>", "<h1>" + "x " * n,
                '<math display="block">' + "\\frac{" * n, '<a href="http://x' + "/y" * n, "<img src=" * 3,
                "</div>" * n, "<" * n, "<p " + 'a="' * n, "<!--" + _words(rnd, 8), "<table>" * n,
                "<math>x" * 50, "<sup>" * n + "1"])
        out.append(head + body + rnd.choice(["</div>", "", "</div></div>"]))
    return "\n".join(out)


def _doctags(rnd: random.Random, blocks: int, planted: list[str]) -> str:
    tags = ["text", "title", "section_header_level_1", "caption", "page_header", "list_item", "otsl", "picture",
            "formula", "code", "footnote", "page_footer"]
    out = ["<doctag>"]
    for _b in range(blocks):
        good = rnd.random() < 0.5
        tag = "text" if good else rnd.choice(tags)
        loc = "".join(f"<loc_{rnd.randint(0, 500)}>" for _ in range(4))
        if good:
            out.append(f"<{tag}>{loc}{_plant(rnd, planted)}</{tag}>")
        else:
            n = _reps(rnd, blocks, 30_000)
            out.append(rnd.choice([f"<{tag}>{loc}" + _words(rnd, 6), f"<{tag}>" * n + "x",
                                   "<otsl>" + "<fcel>a<ecel><nl>" * n, f"<loc_{'9' * n}>",
                                   "<page_break>" * n, f"</{tag}>" * n, loc * n]))
    if rnd.random() < 0.5:
        out.append("</doctag>")
    return "\n".join(out)


def _mineru_list(rnd: random.Random, blocks: int, planted: list[str]) -> str:
    items = []
    for b in range(blocks):
        if rnd.random() < 0.5:
            items.append({"type": "text", "text": _plant(rnd, planted), "page_idx": b // 20})
            continue
        items.append(rnd.choice([
            {"type": rnd.choice([None, 3, ["text"], "table", "image", "equation", "?"]), "text": _words(rnd, 5)},
            {"type": "text", "text": _words(rnd, 4), "text_level": rnd.choice(["x", -3, 1e9, None, [1]])},
            {"type": "text", "text": rnd.choice([None, 5, {"a": "b"}]), "page_idx": rnd.choice([-1, "2", 1e308])},
            {"type": "table", "table_body": "<table><tr><td>" * _reps(rnd, blocks, 500), "table_caption": [None, 3]},
            {"type": "image", "img_path": "images/" + "a" * 64 + ".jpg", "img_caption": "not a list"},
            {"type": "equation", "text": "$$" + "\\frac{" * _reps(rnd, blocks, 2000), "text_format": "latex"}]))
    text = json.dumps(items)
    if rnd.random() < 0.7:
        return text
    planted.clear()  # cut short: which planted words the cut left whole is not tracked
    return text[:rnd.randrange(1, len(text))]


def _front_matter(rnd: random.Random, paras: int, planted: list[str]) -> str:
    fm = rnd.choice(["---\nprimary_language: en\nis_rotation_valid: True\nrotation_correction: 0\n"
                     "is_table: False\nis_diagram: False\n---\n",
                     "---\nprimary_language: en\nis_rotation_valid: [[[[\n",  # never closed
                     "---\n" + "key: value\n" * rnd.choice([10, 50_000]) + "---\n",
                     "---\nprimary_language: " + "{" * 5000 + "\n---\n",
                     "---\n---\n---\n" * 100, "+++\ntitle = 'x'\n+++\n"])
    return fm + "\n\n".join(_plant(rnd, planted) for _ in range(paras))


def _engine_mix(rnd: random.Random, paras: int, planted: list[str]) -> str:
    marks = ['<span id="page-3-1"></span>', "[text](#page-2-0)", "#### Page 4", "${ }^{1}$", "<!-- PageBreak -->",
             "<!-- PageHeader=\"x\" -->", "<!-- image -->", "[MISSING_PAGE_FAIL:2]", "![](images/" + "0f" * 10 + ".jpg)",
             '<div style="text-align: center;">', "\\section{Intro}", "\\title{T", "<--- Page Split --->",
             "<|ref|>text<|/ref|>", "── PAGE 2 / 9 ──", "###### Abstract", "\\begin{tabular}{cc}", "<table>"]
    out = []
    for _ in range(paras):
        if rnd.random() < 0.5:
            out.append(_plant(rnd, planted))
        else:
            out.append(" ".join(rnd.choice(marks) for _ in range(rnd.randint(1, 6))) * (rnd.choice([1, 1, 200]) if paras <= 40 else 1))
    return "\n\n".join(out)


W3_KINDS = ("deepseek", "dots", "chandra", "doctags", "mineru_list", "front_matter", "engine_mix")


def wide3_text(rnd: random.Random) -> tuple[str, bytes, list[str]]:
    """(kind, input bytes, the planted words that must be kept or accounted for)."""
    kind = rnd.choice(W3_KINDS)
    size = rnd.choice([3, 40, 400, 4_000, 15_000]) if kind != "front_matter" else rnd.choice([3, 40, 400])
    planted: list[str] = []
    if kind == "deepseek":
        text = _deepseek(rnd, size, planted)
    elif kind == "dots":
        text, _ = _dots(rnd, size, planted)
    elif kind == "chandra":
        text = _chandra(rnd, size, planted)
    elif kind == "doctags":
        text = _doctags(rnd, size, planted)
    elif kind == "mineru_list":
        text = _mineru_list(rnd, size, planted)
    elif kind == "front_matter":
        text = _front_matter(rnd, size, planted)
    else:
        text = _engine_mix(rnd, size, planted)
    return f"{kind}:{size}", text.encode("utf-8", errors="replace"), planted


# ----------------------------------------------------------------------------- round thirty-three (--kinds wide4)
# The two readers of round thirty-two that wide3 has no kind for (sources/engines.py): marker's JSON
# (Document -> Page -> blocks of {block_type, html, children}) and hOCR (ocr_page / ocr_par / ocr_line /
# ocrx_word elements). Malformed JSON and XML, wrong types, nesting deep, huge blocks, entities, wrong
# encodings, truncation; a case in two names the reader with --from. Words are planted as wide3's are
# (in blocks that are ordinary text: each must reach document.md or removed.json). Text entry only,
# from a random stream of its own ({seed}:text:wide4), so wide3's seeds replay unchanged.

def _marker_block(page: int, kind: object, k: int, html: object, children: object = None) -> dict:
    return {"id": f"/page/{page}/{kind}/{k}", "block_type": kind, "html": html, "polygon": [[0.0, 0.0]],
            "bbox": [0.0, 0.0, 1.0, 1.0], "children": children, "section_hierarchy": {}, "images": {}}


_ENTITIES = ("&amp;", "&lt;", "&gt;", "&#12345678;", "&#x110000;", "&#0;", "&bogus;", "&amp", "&#xD800;", "&nbsp;",
             "&#x1F600;", "&&&", "&#;")


def _marker_json(rnd: random.Random, blocks: int, planted: list[str]) -> tuple[str, list[str]]:
    """marker's JSON tree; blocks of wrong types, broken HTML, deep or huge. Truncated (a case in
    four): the words planted in a block the cut reaches are not counted, as wide3's dots lists."""
    pages: list[list] = []  # per page: (block, the words planted in it)
    pages_n = max(1, blocks // rnd.choice([5, 20, 400]))
    for b in range(blocks):
        p = b * pages_n // max(blocks, 1)
        if len(pages) < p + 1:
            pages.append([])
        page = pages[p]
        if b == 0 or rnd.random() < 0.5:
            at = len(planted)
            body = _plant(rnd, planted)
            html = rnd.choice(["<p>{}</p>", '<p block-type="Text">{}</p>', "{}", "<li>{}</li>",
                               "<blockquote><p>{}</p></blockquote>"]).format(body)
            page.append((_marker_block(p, "Text", b, html), planted[at:]))
            continue
        n = _reps(rnd, blocks, 30_000)
        bad = rnd.choice(["type", "html_type", "children_type", "nested", "huge", "html", "entities", "ref",
                          "string", "figure"])
        if bad == "type":
            d = _marker_block(p, rnd.choice([7, None, ["Text"], {"a": 1}, True, "", "Weird", "Page", "Document"]), b,
                              "<p>" + _words(rnd, 6) + "</p>")
        elif bad == "html_type":
            d = _marker_block(p, rnd.choice(["Text", "SectionHeader", "Table"]), b,
                              rnd.choice([None, 12, ["<p>a</p>"], {"h": "x"}, 1e308, False]))
        elif bad == "children_type":
            d = _marker_block(p, rnd.choice(["ListGroup", "Page", "TableGroup"]), b,
                              "<content-ref src='/page/0/Text/1'></content-ref>",
                              rnd.choice(["not a list", 5, {"block_type": "Text"}, [None, 3, "x"], [[{}]]]))
        elif bad == "nested":  # (written as text: json.dumps stops at the interpreter's recursion limit)
            k = n if blocks <= 40 else 50
            page.append(('{"block_type": "ListGroup", "html": "<content-ref src=\'x\'></content-ref>", "children": ['
                         * k + '{"block_type": "Text", "html": "", "children": null}' + "]}" * k, []))
            continue
        elif bad == "huge":
            d = _marker_block(p, "Text", b, "<p>" + _words(rnd, _reps(rnd, blocks, 150_000)) + "</p>")
        elif bad == "html":
            d = _marker_block(p, rnd.choice(["Text", "Table", "SectionHeader", "Equation"]), b, rnd.choice([
                "<p " + 'a="' * n, "<img src=" * 3, "<table>" * n, "<tr><td>" * n, "<h1>" + "x " * n,
                "<math>" + "\\frac{" * n, "<p>" * n + "x", "</p>" * n, "<" * n, "<!--" + _words(rnd, 8),
                "<![CDATA[" + _words(rnd, 4), "<script>" + _words(rnd, 4), "<li>x" * n, "<sup>" * n + "1"]))
        elif bad == "entities":
            d = _marker_block(p, "Text", b, "<p>" + " ".join(rnd.choice(_ENTITIES) for _ in range(min(n, 5000))) + "</p>")
        elif bad == "ref":
            d = _marker_block(p, "Page", b, "<content-ref src='" + "/page" * min(n, 5000) + "'>", [])
        elif bad == "string":
            page.append((rnd.choice(['"just a string"', "42", "null", "[]", "{}", '{"children": "x"}']), []))
            continue
        else:
            d = _marker_block(p, rnd.choice(["Figure", "Picture"]), b, "", None)
        page.append((d, []))
    # the JSON written by hand around the blocks' own dumps, so the planted words' places are known
    # (marker writes its JSON indented, a key a line: one line of it all would be refused over
    # MAX_LINE_CHARS before the reader saw it; a case in four is written on one line all the same)
    indent = rnd.choice([None, 1, 2, 2])
    nl = "" if indent is None else "\n"
    parts, words_at = ['{"children": ['], []
    pos = len(parts[0])
    for p, blist in enumerate(pages):
        head = (("" if p == 0 else "," + nl) + f'{{"id": "/page/{p}/Page/999", "block_type": "Page", '
                f'"html": "<content-ref src=\'/page/{p}/Text/0\'></content-ref>", "children": [')
        parts.append(head)
        pos += len(head)
        for j, (blk, w) in enumerate(blist):
            s = ("," + nl if j else nl) + (blk if isinstance(blk, str) else json.dumps(blk, indent=indent))
            parts.append(s)
            if w:
                words_at.append((pos + len(s), w))
            pos += len(s)
        tail = nl + '], "section_hierarchy": {}, "images": {}}'
        parts.append(tail)
        pos += len(tail)
    parts.append('], "block_type": "Document"}')
    text = "".join(parts)
    if rnd.random() < 0.25:
        cut = rnd.randrange(1, len(text))
        text = text[:cut]
        planted[:] = [x for end, w in words_at if end <= cut for x in w]
    return text, planted


def _hocr_word(w: str, conf: int = 95) -> str:
    return f"<span class='ocrx_word' title='bbox 0 0 1 1; x_wconf {conf}'>{w}</span>"


def _hocr(rnd: random.Random, blocks: int, planted: list[str]) -> str:
    """Tesseract's hOCR: paragraphs of lines of words; pages, unclosed and nested elements, broken
    attributes, entities, comments, CDATA and script, giant words, truncation."""
    out = ["<?xml version='1.0' encoding='" + rnd.choice(["UTF-8", "ISO-8859-1", "bogus"]) + "'?>\n"
           "<html xmlns='http://www.w3.org/1999/xhtml'><head><title></title>"
           "<meta name='ocr-system' content='tesseract 5.3.0' /></head><body>\n"]
    per_page = rnd.choice([5, 40, 400])
    ends: list[tuple[int, list[str]]] = []
    size = len(out[0])
    for b in range(blocks):
        piece = ""
        if b % per_page == 0:
            piece += ("</div>\n" if b else "") + f"<div class='ocr_page' id='page_{b // per_page + 1}' title='bbox 0 0 2480 3508'>\n"
        w: list[str] = []
        if b == 0 or rnd.random() < 0.5:
            at = len(planted)
            text = _plant(rnd, planted)
            w = planted[at:]
            words = text.split()
            lines = [" ".join(words[k:k + 8]) for k in range(0, len(words), 8)]  # eight words a line, each whole
            piece += f"<p class='ocr_par' id='par_{b}' title='bbox 0 0 9 9'>" + "".join(
                f"<span class='ocr_line' id='line_{b}_{i}' title='bbox 0 {i} 9 {i + 1}'>"
                + " ".join(_hocr_word(x, rnd.choice([95, 95, 3, 0])) for x in ln.split()) + "</span>\n"
                for i, ln in enumerate(lines)) + "</p>\n"
        else:
            n = _reps(rnd, blocks, 30_000)
            piece += rnd.choice([
                "<p class='ocr_par'>" + "<span class='ocr_line'>" * n + _hocr_word("x"),  # unclosed, nested
                "<span class='ocrx_word' title='bbox 0 0 1 1" + " x" * min(n, 3000),  # an attribute never closed
                "<span class='ocrx_word'>" + "w" * (n * 10) + "</span>",  # one giant word
                "<p class='ocr_par'><span class='ocr_line'>" + " ".join(
                    _hocr_word(rnd.choice(_ENTITIES)) for _ in range(min(n, 3000))) + "</span></p>",
                "</span>" * n, "</p></div>" * min(n, 3000), "<" * n, "<!--" + _words(rnd, 6) + "-->",
                "<![CDATA[" + _words(rnd, 4) + "]]>", "<script>var a = '<p>';</script>", "<style>p{}</style>",
                "<div class='ocr_page'>" * min(n, 3000), "<span class=ocrx_word>" + _words(rnd, 3) + "</span>",
                "<p class='ocr_par' title=\"bbox 1 2\">" + _words(rnd, 5) + "</p>",
                "<span class='ocr_line'><span class='ocrx_word'>" + _words(rnd, 2) + "</span>",  # line never closed
                "<img src='x.png'><br><hr><meta>", "<span class='ocr_line'></span>" * min(n, 3000)])
        out.append(piece)
        size += len(piece)
        if w:
            ends.append((size, w))
    out.append("</div>\n</body></html>\n")
    text = "".join(out)
    if rnd.random() < 0.25:
        cut = rnd.randrange(1, len(text))
        text = text[:cut]
        planted[:] = [x for end, w in ends if end <= cut for x in w]
    return text


W4_KINDS = ("marker_json", "hocr")
W4_ENGINES = {"marker_json": "marker-json", "hocr": "hocr"}


def wide4_text(rnd: random.Random) -> tuple[str, bytes, list[str], list[str]]:
    """(kind, input bytes, the planted words, extra arguments: ``--from ENGINE`` in a case of two)."""
    kind = rnd.choice(W4_KINDS)
    # (an hOCR block of 30 words is ~2.5 KB of markup: 2,000 blocks ~5 MB)
    size = rnd.choice([3, 40, 400, 4_000, 15_000] if kind == "marker_json" else [3, 40, 400, 2_000])
    planted: list[str] = []
    if kind == "marker_json":
        text, _ = _marker_json(rnd, size, planted)
    else:
        text = _hocr(rnd, size, planted)
    # (the planted words are ASCII: an encoding that is not UTF-8 need lose none of them)
    enc = rnd.choice(["utf-8"] * 6 + ["utf-8-sig", "utf-16", "latin-1", "cp1252"])
    data = text.encode(enc, errors="replace")
    extra = ["--from", W4_ENGINES[kind]] if rnd.random() < 0.5 else []
    return f"{kind}:{size}:{enc}", data, planted, extra


# ----------------------------------------------------------------------------- round thirteen: PDF kinds of wide2
# What real hostile PDFs hold and the corpus mutants and wide's built structures do not: Type3
# fonts, XFA forms, 100,000-entry outlines, huge name trees, object streams and cross-reference
# streams with wrong offsets and widths, Form XObjects nested deep or in a loop, millions of
# operators, inline images of the wrong length, ToUnicode maps to surrogates and controls,
# annotation text in odd encodings, wrong linearization hints, rotations that are not quarter
# turns, a 1 MB Info string, a PDF embedded in a PDF, JavaScript and launch actions. Built by
# _pdf (and _xref_stream_pdf for the compressed structure), from --kinds wide2's own random
# stream: cheap (under a second each) and the same bytes for the same seed.

def _flate(data: bytes, extra: bytes = b"") -> bytes:
    import zlib

    return _stream(zlib.compress(data, 6), b"/Filter/FlateDecode" + extra)


def _page_objs(content: bytes, page_extra: bytes = b"", res_extra: bytes = b"", font: bytes = _FONT,
               box: bytes = b"[0 0 612 792]", catalog_extra: bytes = b"", pages_extra: bytes = b"") -> list[bytes]:
    """Objects 1-5 of a one-page PDF (catalog, pages, page, content, font F1); more follow from 6."""
    return [b"<</Type/Catalog/Pages 2 0 R" + catalog_extra + b">>",
            b"<</Type/Pages/Kids[3 0 R]/Count 1" + pages_extra + b">>",
            b"<</Type/Page/Parent 2 0 R/MediaBox" + box + b"/Resources<</Font<</F1 5 0 R>>" + res_extra
            + b">>/Contents 4 0 R" + page_extra + b">>",
            _flate(content) if len(content) > 4096 else _stream(content), font]


def _pdf_string(rnd: random.Random, text: str) -> bytes:
    """``text`` as a PDF string in one of the encodings real files use (and some they should not)."""
    enc = rnd.choice(["pdfdoc", "utf16be_bom", "utf16le_bom", "utf8_bom", "utf16_odd", "lone_surrogate", "hex",
                      "raw_high", "controls"])
    if enc == "pdfdoc":
        raw = text.encode("latin-1", "replace")
    elif enc == "utf16be_bom":
        raw = b"\xfe\xff" + text.encode("utf-16-be")
    elif enc == "utf16le_bom":  # (not in the standard: some writers do it)
        raw = b"\xff\xfe" + text.encode("utf-16-le")
    elif enc == "utf8_bom":  # PDF 2.0
        raw = b"\xef\xbb\xbf" + text.encode()
    elif enc == "utf16_odd":  # a UTF-16 mark and an odd number of bytes after it
        raw = b"\xfe\xff" + text.encode("utf-16-be") + b"\x41"
    elif enc == "lone_surrogate":
        raw = b"\xfe\xff" + text[: len(text) // 2].encode("utf-16-be") + b"\xd8\x00" + b"\xdc\x00\xdc\x00" + \
            text[len(text) // 2:].encode("utf-16-be")
    elif enc == "raw_high":  # bytes 0x7f-0xa0: undefined or odd in PDFDocEncoding
        raw = bytes(rnd.choice(b"\x7f\x80\x81\x8d\x9f\xa0\xad") if rnd.random() < 0.3 else ord(c) % 128
                    for c in text)
    elif enc == "controls":
        raw = bytes(rnd.randrange(0, 32) if rnd.random() < 0.2 else ord(c) % 128 for c in text)
    else:  # hex, of UTF-16 with a mark
        return b"<" + (b"\xfe\xff" + text.encode("utf-16-be", "surrogatepass")).hex().encode() + b">"
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _xref_stream_pdf(objs: list[bytes], packed: set[int] = frozenset(), widths: bytes | None = None,
                     damage: str = "", rnd: random.Random | None = None) -> bytes:
    """A PDF 1.5 file of ``objs`` (object 1 the catalog) indexed by a cross-reference stream; the
    objects numbered in ``packed`` (dictionaries, not streams) go into one object stream.
    ``widths``: the /W written in the stream's dictionary (the rows are always 1 4 2 wide);
    ``damage``: "offsets" (the object stream's offsets moved), "first" (/First wrong), "count"
    (/N far too large), "index" (rows for objects that are not in it), "size" (a huge /Size)."""
    rnd = rnd or random.Random(0)
    n = len(objs)
    stm, xref_num = n + 1, n + 2
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    rows: dict[int, tuple[int, int, int]] = {0: (0, 0, 65535)}
    inside = [i for i in range(1, n + 1) if i in packed]
    for i in range(1, n + 1):
        if i not in packed:
            rows[i] = (1, len(out), 0)
            out += b"%d 0 obj\n" % i + objs[i - 1] + b"\nendobj\n"
    if inside:
        head, body = [], bytearray()
        for k, i in enumerate(inside):
            off = len(body)
            if damage == "offsets":
                off = max(0, off + rnd.choice([-7, -1, 1, 3, 10_000, -10_000]))
            head.append(b"%d %d" % (i, off))
            body += objs[i - 1] + b"\n"
            rows[i] = (2, stm, k)
        hdr = b" ".join(head) + b"\n"
        first = len(hdr) + (rnd.choice([-5, 2, 999_999]) if damage == "first" else 0)
        count = len(inside) * (rnd.choice([1_000, 10 ** 7]) if damage == "count" else 1)
        rows[stm] = (1, len(out), 0)
        out += b"%d 0 obj\n" % stm + _flate(hdr + bytes(body), b"/Type/ObjStm/N %d/First %d" % (count, first)) + \
            b"\nendobj\n"
    rows[xref_num] = (1, len(out), 0)
    data = b"".join(bytes([t]) + f.to_bytes(4, "big") + g.to_bytes(2, "big") for t, f, g in
                    (rows[i] for i in range(xref_num + 1)))
    size = xref_num + 1
    index = b""
    if damage == "index":
        index = rnd.choice([b"/Index[0 %d 500 10]" % size, b"/Index[5 %d]" % size, b"/Index[0 1000000]"])
    if damage == "size":
        size = rnd.choice([10 ** 9, 2 ** 31, 0])
    w = widths if widths is not None else b"[1 4 2]"
    xref = len(out)
    out += b"%d 0 obj\n" % xref_num + _flate(data, b"/Type/XRef/Size %d/W%s/Root 1 0 R" % (size, w) + index) + \
        b"\nendobj\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def _type3(rnd: random.Random) -> tuple[str, bytes]:
    """A page set in a Type3 font (glyphs drawn by content streams of the file itself)."""
    variant = rnd.choice(["plain", "no_tounicode", "recursive", "degenerate_matrix", "huge_matrix", "many_glyphs",
                          "image_glyphs"])
    names = [b"g%d" % i for i in range(256 if variant == "many_glyphs" else 26)]
    matrix = {"degenerate_matrix": b"[0 0 0 0 0 0]", "huge_matrix": b"[1e30 0 0 1e30 0 0]"}.get(
        variant, b"[0.001 0 0 0.001 0 0]")
    first = 6 + (1 if variant != "no_tounicode" else 0)  # the glyph procedures' first object
    glyph = b"750 0 0 0 600 700 d1 50 0 500 700 re f"
    if variant == "recursive":  # a glyph that draws text in its own font
        glyph = b"750 0 d0 BT /T3 1 Tf (abc) Tj ET"
    elif variant == "image_glyphs":
        glyph = b"750 0 0 0 600 700 d1 q 600 0 0 700 0 0 cm BI /W 8 /H 8 /BPC 1 /IM true ID " + bytes(8) + b" EI Q"
    procs = b"".join(b"/%s %d 0 R" % (g, first + k) for k, g in enumerate(names))
    lo = 0 if variant == "many_glyphs" else 97
    font = (b"<</Type/Font/Subtype/Type3/FontBBox[0 0 750 750]/FontMatrix" + matrix + b"/CharProcs<<" + procs
            + b">>/Encoding<</Type/Encoding/Differences[%d " % lo + b" ".join(b"/" + g for g in names) + b"]>>"
            + b"/FirstChar %d/LastChar %d/Widths[" % (lo, lo + len(names) - 1)
            + b" ".join(b"750" for _ in names) + b"]/Resources<</Font<</T3 5 0 R>>>>"
            + (b"/ToUnicode 6 0 R" if variant != "no_tounicode" else b"") + b">>")
    words = [_words(rnd, rnd.randint(3, 9)).encode("ascii", "ignore").lower() for _ in range(20)]
    if variant == "many_glyphs":
        words = [bytes(rnd.randrange(256) for _ in range(40)) for _ in range(20)]
    body = b"BT /T3 12 Tf 14 TL 72 720 Td " + b" ".join(
        b"(" + w.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b") '" for w in words) + b" ET"
    objs = _page_objs(body, font=font)
    objs[2] = objs[2].replace(b"/F1 5 0 R", b"/T3 5 0 R")
    if variant != "no_tounicode":
        pairs = b"".join(b"<%02x> <%04x>\n" % (lo + k, (ord("a") + k) if variant != "many_glyphs" else
                                                (0x20 + k) % 0x7f or 0x20) for k in range(min(len(names), 100)))
        cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3 def "
                b"1 begincodespacerange <00> <ff> endcodespacerange %d beginbfchar\n" % min(len(names), 100)
                + pairs + b"endbfchar endcmap CMapName currentdict /CMap defineresource pop end end")
        objs.append(_stream(cmap))
    objs += [_stream(glyph) for _ in names]
    return f"type3:{variant}", _pdf(objs)


def _xfa(rnd: random.Random) -> tuple[str, bytes]:
    """An XFA form of up to 50,000 fields (the XML packet), beside up to 20,000 AcroForm widgets."""
    n = rnd.choice([1_000, 10_000, 50_000])
    widgets = rnd.choice([0, 100, 5_000, 20_000])
    xml = (b'<?xml version="1.0"?><xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template xmlns="http://www.xfa.org'
           b'/schema/xfa-template/3.3/"><subform name="form1">' + b"".join(
               b'<field name="f%d"><ui><textEdit/></ui><value><text>value %d &amp; &#xD800; &#0;</text></value>'
               b'</field>' % (i, i) for i in range(n)) + b"</subform></template>"
           + rnd.choice([b"</xdp:xdp>", b"", b"<!DOCTYPE x [<!ENTITY a 'aaaa'>]>"]))
    first = 7
    kids = b" ".join(b"%d 0 R" % (first + i) for i in range(widgets))
    xfa_ref = rnd.choice([b"/XFA 6 0 R", b"/XFA[(template) 6 0 R (datasets) 6 0 R]", b"/XFA[(template) 6 0 R"
                                                                                     b" (x) 99999 0 R]"])
    objs = _page_objs(_text_ops(rnd), page_extra=b"/Annots[" + kids + b"]" if widgets else b"",
                      catalog_extra=b"/AcroForm<</Fields[" + kids + b"]" + xfa_ref + b"/NeedsRendering true>>")
    objs.append(_flate(xml))
    for i in range(widgets):
        objs.append(b"<</Type/Annot/Subtype/Widget/FT/Tx/T(f%d)/V(value %d)/Rect[%d %d %d %d]/P 3 0 R>>"
                    % (i, i, i % 500, i % 700, i % 500 + 10, i % 700 + 10))
    return f"xfa:{n}:{widgets}", _pdf(objs)


def _outline_kind(rnd: random.Random) -> tuple[str, bytes]:
    """An outline of up to 100,000 entries: flat, one deep chain, a loop, or odd titles."""
    n = rnd.choice([1_000, 20_000, 100_000])
    shape = rnd.choice(["flat", "deep", "loop", "odd_titles", "bad_count"])
    first = 7  # outline root is 6, entries from 7
    objs = _page_objs(_text_ops(rnd), catalog_extra=b"/Outlines 6 0 R/PageMode/UseOutlines")
    objs.append(b"<</Type/Outlines/First %d 0 R/Last %d 0 R/Count %d>>" % (
        first, first if shape == "deep" else first + n - 1, -n if shape == "bad_count" else n))
    for k in range(n):
        num = first + k
        if shape == "deep":  # each entry the only child of the one before
            links = (b"/Parent %d 0 R" % (num - 1 if k else 6)) + (b"/First %d 0 R/Last %d 0 R/Count 1" % (
                num + 1, num + 1) if k < n - 1 else b"")
        else:
            links = b"/Parent 6 0 R" + (b"/Prev %d 0 R" % (num - 1) if k else b"")
            if k < n - 1:
                links += b"/Next %d 0 R" % (num + 1)
            elif shape == "loop":
                links += b"/Next %d 0 R" % first  # the last entry points back at the first
        title = b"(Section %d)" % k if shape != "odd_titles" else _pdf_string(rnd, f"Sec\u00e9tion {k} \u202e")
        objs.append(b"<</Title" + title + links + b"/Dest[3 0 R/XYZ 0 %d 0]>>" % (k % 792))
    return f"outline:{shape}:{n}", _pdf(objs)


def _name_tree(rnd: random.Random) -> tuple[str, bytes]:
    """A /Dests, /JavaScript or /EmbeddedFiles name tree of up to 100,000 names: one leaf, a
    two-level tree, a tree whose kids loop back, or names out of order with wrong limits; links
    on the page name some of them."""
    n = rnd.choice([5_000, 50_000, 100_000])
    tree = rnd.choice(["Dests", "Dests", "JavaScript", "EmbeddedFiles"])
    shape = rnd.choice(["leaf", "two_level", "loop", "unsorted"] + (["old_dests"] if tree == "Dests" else []))
    if tree == "Dests":
        val = [b"[3 0 R/XYZ 0 %d 0]" % (i % 792) for i in range(n)]
    elif tree == "JavaScript":
        val = [b"<</S/JavaScript/JS(app.alert(%d))>>" % i for i in range(n)]
    else:
        val = [b"<</Type/Filespec/F(f%d.txt)>>" % i for i in range(n)]
    names = [b"n%07d" % i for i in range(n)]
    if shape == "unsorted":
        rnd.shuffle(names)
    links = rnd.choice([0, 50, 3_000])
    annots = b"/Annots[" + b" ".join(b"<</Type/Annot/Subtype/Link/Rect[10 %d 50 %d]/Dest(n%07d)>>" % (
        i % 700, i % 700 + 9, rnd.randrange(n)) for i in range(links)) + b"]" if links else b""
    objs = _page_objs(_text_ops(rnd), page_extra=annots)
    if shape == "old_dests":  # PDF 1.1's dictionary of names
        objs[0] = b"<</Type/Catalog/Pages 2 0 R/Dests 6 0 R>>"
        objs.append(b"<<" + b"".join(b"/" + k + b" " + v for k, v in zip(names, val, strict=True)) + b">>")
        return f"name_tree:{tree}:{shape}:{n}", _pdf(objs)
    objs[0] = b"<</Type/Catalog/Pages 2 0 R/Names<</%s 6 0 R>>>>" % tree.encode()

    def leaf(lo: int, hi: int, lim: bool = True) -> bytes:
        ks = names[lo:hi]
        limits = b"/Limits[(%s)(%s)]" % (min(ks), max(ks)) if lim and ks else b""
        if shape == "unsorted" and lim:
            limits = b"/Limits[(zzz)(aaa)]"
        return b"<<" + limits + b"/Names[" + b" ".join(b"(" + k + b") " + v for k, v in zip(
            ks, val[lo:hi], strict=True)) + b"]>>"

    if shape in ("leaf", "unsorted"):
        objs.append(leaf(0, n, lim=False))
    else:
        per = 500
        kids = list(range(0, n, per))
        refs = b" ".join(b"%d 0 R" % (7 + j) for j in range(len(kids)))
        if shape == "loop":
            refs += b" 6 0 R"  # the root among its own kids
        objs.append(b"<</Kids[" + refs + b"]>>")
        objs += [leaf(lo, min(n, lo + per)) for lo in kids]
    return f"name_tree:{tree}:{shape}:{n}", _pdf(objs)


def _compressed_structure(rnd: random.Random) -> tuple[str, bytes]:
    """Object streams with broken offsets, cross-reference streams with a wrong /W, /Index or /Size."""
    objs = _page_objs(_text_ops(rnd))
    objs += [b"<</Type/Annot/Subtype/Text/Rect[10 10 20 20]/Contents(note %d)>>" % i for i in range(20)]
    objs[2] = objs[2].replace(b"/Contents 4 0 R", b"/Contents 4 0 R/Annots[" + b" ".join(
        b"%d 0 R" % (6 + i) for i in range(20)) + b"]")
    packed = {1, 2, 3, 5} | set(range(6, 26))
    what = rnd.choice(["ok", "offsets", "first", "count", "index", "size", "w"])
    widths = None
    if what == "w":
        widths = rnd.choice([b"[1 2 1]", b"[0 0 0]", b"[1 4]", b"[4 4 4]", b"[1 99999999 1]", b"[-1 4 2]",
                             b"[1 4 2 3]", b"[2 4 2]", b"[1 3 2]", b"/x", b"[1.5 4 2]"])
    data = _xref_stream_pdf(objs, packed, widths, "" if what in ("ok", "w") else what, rnd)
    return f"xref_stream:{what}" + (f":{widths.decode()}" if widths else ""), data


def _form_nesting(rnd: random.Random) -> tuple[str, bytes]:
    """Form XObjects drawing Form XObjects: a chain up to 10,000 deep, a loop, or each level
    drawing the next twice (2^depth draws)."""
    shape = rnd.choice(["chain", "loop", "self", "fanout"])
    depth = {"chain": rnd.choice([100, 1_000, 10_000]), "loop": rnd.choice([2, 50]), "self": 1,
             "fanout": rnd.choice([20, 32, 64])}[shape]
    first = 6
    objs = _page_objs(b"q /X0 Do Q " + _text_ops(rnd), res_extra=b"/XObject<</X0 6 0 R>>")
    for k in range(depth):
        nxt = first + k + 1
        if shape == "self":
            nxt = first
        elif shape == "loop" and k == depth - 1:
            nxt = first
        last = shape in ("chain", "fanout") and k == depth - 1
        draw = b"" if last else (b"q 0.9 0 0 0.9 5 5 cm /N Do Q " * (2 if shape == "fanout" else 1))
        body = draw + b"BT /F1 9 Tf 10 %d Td (level %d) Tj ET" % (k % 700 + 20, k)
        objs.append(_stream(body, b"/Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>"
                            + (b"" if last else b"/XObject<</N %d 0 R>>" % nxt) + b">>"))
    return f"form_nesting:{shape}:{depth}", _pdf(objs)


def _many_operators(rnd: random.Random) -> tuple[str, bytes]:
    """One page of 1-4 million operators (Flate-compressed: a small file)."""
    n = rnd.choice([1_000_000, 2_000_000, 4_000_000])
    op = rnd.choice([b"q Q\n", b"0 0 m 1 1 l S\n", b"1 0 0 1 0 0 cm\n", b"0.5 g\n", b"/F1 9 Tf\n", b"n\n",
                     b"BT ET\n", b"(a) Tj\n", b"[(a) 10 (b)] TJ\n"])
    text_op = op in (b"(a) Tj\n", b"[(a) 10 (b)] TJ\n", b"/F1 9 Tf\n")
    body = (b"BT /F1 9 Tf 72 700 Td\n" + op * n + b"ET\n" if text_op else op * n) + _text_ops(rnd)
    return f"many_operators:{op.strip().decode()}:{n}", _pdf(_page_objs(body))


def _inline_images(rnd: random.Random) -> tuple[str, bytes]:
    """Inline images whose data is shorter or longer than their size says, hold "EI" inside,
    declare a wrong /L, never end, or are 10,000 in a row."""
    shape = rnd.choice(["short", "long", "ei_inside", "wrong_L", "no_end", "many", "huge_dims", "bad_filter"])
    w, h = 40, 40
    good = bytes(rnd.randrange(256) for _ in range(w * h))
    head = b"BI /W %d /H %d /BPC 8 /CS /G " % (w, h)
    if shape == "short":
        img = head + b"ID " + good[: rnd.randrange(1, w * h)] + b" EI"
    elif shape == "long":
        img = head + b"ID " + good * rnd.choice([2, 50]) + b" EI"
    elif shape == "ei_inside":
        img = head + b"ID " + good[:500] + b" EI " + good[500:] + b" EI"
    elif shape == "wrong_L":
        img = head + b"/L %d ID " % rnd.choice([0, 5, 10 ** 9, -1]) + good + b" EI"
    elif shape == "no_end":
        img = head + b"ID " + good
    elif shape == "many":
        img = b" ".join(b"q 5 0 0 5 %d %d cm " % (i % 600, (i // 600) % 780) + b"BI /W 2 /H 2 /BPC 8 /CS /G ID "
                        + bytes(rnd.randrange(256) for _ in range(4)) + b" EI Q" for i in range(10_000))
    elif shape == "huge_dims":
        img = b"BI /W %d /H %d /BPC 8 /CS /RGB ID " % rnd.choice([(10 ** 6, 10 ** 6), (65_536, 65_536),
                                                                (2 ** 31, 2)]) + good + b" EI"
    else:
        img = head + rnd.choice([b"/F /AHx ", b"/F /A85 ", b"/F /Fl ", b"/F /DCT ", b"/F [/AHx /Fl] ", b"/F /CCF "
                                 b"/DP <</K -1 /Columns 40>> "]) + b"ID " + good + b" EI"
    if shape not in ("many",):
        img = b"q 300 0 0 300 100 100 cm " + img + b" Q"
    body = _text_ops(rnd) + b"\n" + img  # (no_end: the content stream ends inside the image data)
    return f"inline_image:{shape}", _pdf(_page_objs(body))


_BAD_UNICODE = [b"D800", b"DFFF", b"DBFF", b"0000", b"001B", b"0008", b"FFFE", b"FFFF", b"FEFF", b"202E", b"2028",
                b"0085", b"00AD", b"200B", b"FFFD", b"D83DDE00", b"DBFFDFFF", b"D800D800", b"0041" * 1_000]


def _broken_cmap(rnd: random.Random) -> tuple[str, bytes]:
    """A ToUnicode map sending glyph codes to lone surrogates, controls, noncharacters, bidi
    overrides, thousands of characters for one glyph, a range over the whole code space; or a
    map whose syntax is broken or that uses itself."""
    variant = rnd.choice(["bad_targets", "bad_targets", "huge_range", "long_targets", "syntax", "usecmap_loop",
                          "empty"])
    cid = rnd.random() < 0.5  # a Type0 font with two-byte codes, else a simple font with one-byte codes
    width = 4 if cid else 2
    codes = list(range(1, 60))
    if variant == "bad_targets":
        body = b"%d beginbfchar\n" % len(codes) + b"".join(
            b"<%0*X> <%s>\n" % (width, c, rnd.choice(_BAD_UNICODE[:-1]) if rnd.random() < 0.6 else b"%04X" % (
                0x61 + c % 26)) for c in codes) + b"endbfchar\n"
    elif variant == "huge_range":
        body = (b"1 beginbfrange\n<%s> <%s> <%s>\nendbfrange\n" % (b"0" * width, b"F" * width,
                                                                   rnd.choice([b"D7F0", b"0000", b"FFF0", b"0041"])))
    elif variant == "long_targets":
        body = b"%d beginbfchar\n" % len(codes) + b"".join(b"<%0*X> <%s>\n" % (width, c, b"0041" * rnd.choice(
            [100, 5_000])) for c in codes) + b"endbfchar\n"
    elif variant == "syntax":
        body = rnd.choice([b"1000000000 beginbfchar\n<01> <0041>\n", b"beginbfrange <01> <0041>",
                           b"2 beginbfchar <01 <0041> <02> 0042> endbfchar", b"1 beginbfrange <05> <01> [<0041> <0042>]"
                           b" endbfrange", b"1 beginbfrange <0001> <FFFF> [" + b"<0041> " * 70_000 + b"] endbfrange",
                           b"\x00\xff" * 1000])
    elif variant == "usecmap_loop":
        body = b"/T1 usecmap 1 beginbfchar <01> <0041> endbfchar\n"
    else:
        body = b""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T1 def /CMapType 2 def "
            b"1 begincodespacerange <%s> <%s> endcodespacerange\n" % (b"0" * width, b"F" * width) + body
            + b"endcmap CMapName currentdict /CMap defineresource pop end end")
    if cid:
        font = (b"<</Type/Font/Subtype/Type0/BaseFont/Hostile/Encoding/Identity-H/ToUnicode 6 0 R/DescendantFonts[<<"
                b"/Type/Font/Subtype/CIDFontType2/BaseFont/Hostile/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)"
                b"/Supplement 0>>/FontDescriptor<</Type/FontDescriptor/FontName/Hostile/Flags 4/FontBBox[0 0 1000 1000]"
                b"/ItalicAngle 0/Ascent 800/Descent -200/CapHeight 700/StemV 80>>/DW 500>>]>>")
        lines = [b"<" + b"".join(b"%04X" % rnd.choice(codes) for _ in range(rnd.randint(3, 30))) + b"> Tj T*"
                 for _ in range(25)]
    else:
        font = b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/ToUnicode 6 0 R>>"
        lines = [b"<" + b"".join(b"%02X" % rnd.choice(codes) for _ in range(rnd.randint(3, 30))) + b"> Tj T*"
                 for _ in range(25)]
    content = b"BT /F1 11 Tf 14 TL 72 720 Td " + b" ".join(lines) + b" ET " + _text_ops(rnd, 4)
    objs = _page_objs(content, font=font)
    objs.append(_stream(cmap))
    return f"broken_cmap:{variant}:{'cid' if cid else 'simple'}", _pdf(objs)


def _annot_text(rnd: random.Random) -> tuple[str, bytes]:
    """Annotations (notes, free text, widgets, links) whose /Contents, /T, /RC and /URI are in
    odd encodings, or 1 MB long."""
    n = rnd.choice([10, 500, 5_000])
    annots = []
    for i in range(n):
        sub = rnd.choice(["Text", "FreeText", "Widget", "Link", "Link", "Square", "Popup"])
        text = rnd.choice(["note é ß 日本 \U0001f600", "\u202egnirts", "x" * rnd.choice([10, 2_000]), "a\u0000b",
                           "line\rbreak\nand\u2028more"])
        a = b"<</Type/Annot/Subtype/%s/Rect[%d %d %d %d]/Contents" % (
            sub.encode(), i % 500, i % 700, i % 500 + 40, i % 700 + 12) + _pdf_string(rnd, text)
        if sub == "Widget":
            a += b"/FT/Tx/T" + _pdf_string(rnd, f"field{i}") + b"/V" + _pdf_string(rnd, text)
        if sub == "FreeText":
            a += b"/DA(/Helv 12 Tf 0 g)/RC" + _pdf_string(rnd, "<body><p>" + text + "</p></body>")
        if sub == "Link":
            a += b"/A<</S/URI/URI" + rnd.choice([_pdf_string(rnd, "https://example.org/é/" + text),
                                                 b"(javascript:alert\\(1\\))", b"(" + b"a/" * 2_000 + b")",
                                                 b"<FEFF00680074007400700073003A002F002F0078>", b"()",
                                                 b"(http://\xff\xfe\x00bad)"]) + b">>"
        annots.append(a + b">>")
    if rnd.random() < 0.2:  # one annotation with 1 MB of contents, one link to a 1 MB address
        annots.append(b"<</Type/Annot/Subtype/Text/Rect[1 1 9 9]/Contents" + _pdf_string(rnd, "w " * 500_000) + b">>")
        annots.append(b"<</Type/Annot/Subtype/Link/Rect[1 1 9 9]/A<</S/URI/URI(https://x.org/" + b"a" * 1_000_000
                      + b")>>>>")
    return f"annot_text:{n}", _pdf(_page_objs(_text_ops(rnd), page_extra=b"/Annots[" + b" ".join(annots) + b"]"))


def _linearized(rnd: random.Random) -> tuple[str, bytes]:
    """A file that says it is linearized, with a hint table, /L, /H, /O, /E, /N or /T that are wrong."""
    what = rnd.choice(["hint_junk", "hint_offsets", "length", "first_page", "page_count", "main_xref"])
    objs = [b"<</Linearized 1/L %(L)s/H[%(H)s]/O 4 0 R/E 100/N %(N)s/T %(T)s>>",
            b"<</Type/Catalog/Pages 3 0 R>>", b"<</Type/Pages/Kids[4 0 R]/Count 1>>",
            b"<</Type/Page/Parent 3 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 6 0 R>>>>/Contents 5 0 R>>",
            _stream(_text_ops(rnd)), _FONT,
            _stream(bytes(rnd.randrange(256) for _ in range(rnd.choice([0, 40, 4_000]))), b"/S 20")]
    # the true values first (twice: writing them moves the offsets after object 1), then one made wrong
    vals = {"L": b"0", "H": b"0 0", "N": b"1", "T": b"0"}
    for _ in range(2):
        data = _pdf([objs[0] % {k.encode(): v for k, v in vals.items()}] + objs[1:], root=2)
        vals.update(L=b"%d" % len(data), H=b"%d %d" % (data.find(b"7 0 obj"), 60), T=b"%d" % data.rfind(b"xref"))
    hint_at = data.find(b"7 0 obj")
    if what == "hint_offsets":
        vals["H"] = rnd.choice([b"%d 999999999" % hint_at, b"999999999 10", b"-5 -5", b"0 0", b"1 2 3 4 5 6"])
    elif what == "length":
        vals["L"] = rnd.choice([b"10", b"999999999", b"0", b"-1"])
    elif what == "first_page":
        objs[0] = objs[0].replace(b"/O 4 0 R", rnd.choice([b"/O 2 0 R", b"/O 999 0 R", b"/O(x)"]))
    elif what == "page_count":
        vals["N"] = rnd.choice([b"0", b"1000000", b"-3"])
    elif what == "main_xref":
        vals["T"] = rnd.choice([b"5", b"999999999", b"0"])
    objs[0] = objs[0] % {k.encode(): v for k, v in vals.items()}
    return f"linearized:{what}", _pdf(objs, root=2)


def _odd_geometry(rnd: random.Random) -> tuple[str, bytes]:
    """Pages with text on them and a /Rotate that is not a quarter turn (or inherited, or huge),
    boxes that are negative, inverted or outside one another."""
    rot = rnd.choice([b"45", b"-45", b"450", b"-270", b"1e10", b"90.5", b"-2147483648", b"2147483647", b"89", b"0"])
    box = rnd.choice([b"[0 0 612 792]", b"[-612 -792 0 0]", b"[612 792 0 0]", b"[0 792 612 0]", b"[-1e6 -1e6 -1e6 -1e6]",
                      b"[-300 -400 312 392]", b"[0 0 612 -792]", b"[0 0 0.001 0.001]"])
    extra = rnd.choice([b"", b"/CropBox[100 100 -100 -100]", b"/CropBox[5000 5000 6000 6000]", b"/TrimBox[0 0 1 1]"
                        b"/BleedBox[-1 -1 -2 -2]/ArtBox[9 9 9 9]", b"/UserUnit -1", b"/UserUnit 0"])
    inherit = rnd.random() < 0.4
    objs = _page_objs(_text_ops(rnd, 20), page_extra=(b"" if inherit else b"/Rotate " + rot) + extra, box=box,
                      pages_extra=b"/Rotate " + rot if inherit else b"")
    return f"odd_geometry:{rot.decode()}:{box.decode()}", _pdf(objs)


def _big_info(rnd: random.Random) -> tuple[str, bytes]:
    """An Info dictionary with a 1 MB string, 10,000 keys, values of the wrong type, odd
    encodings, or itself as a value; sometimes a large XMP packet beside it."""
    what = rnd.choice(["mb_title", "mb_title", "many_keys", "wrong_types", "odd_encodings", "self", "xmp"])
    if what == "mb_title":
        key = rnd.choice([b"Title", b"Author", b"Subject", b"Keywords", b"Producer"])
        info = b"<</%s" % key + _pdf_string(rnd, rnd.choice(["A title ", "x", "é", "\U0001f600"]) * rnd.choice(
            [100_000, 500_000])) + b">>"
    elif what == "many_keys":
        info = b"<<" + b"".join(b"/Key%d(value %d)" % (i, i) for i in range(10_000)) + b"/Title(Real title)>>"
    elif what == "wrong_types":
        info = rnd.choice([b"<</Title 5/Author[1 2 3]/Subject<</a 1>>/CreationDate(D:99999999999999)>>",
                           b"<</Title true/ModDate(D:2020-13-45)/Trapped/Maybe>>", b"[1 2 3]", b"(a string)",
                           b"<</Title 4 0 R>>"])
    elif what == "odd_encodings":
        info = b"<<" + b"".join(b"/" + k + _pdf_string(rnd, "Ünïcödé \u202e \ud7ff 日本 " + k.decode()) for k in (
            b"Title", b"Author", b"Subject", b"Keywords", b"Creator", b"Producer")) + b">>"
    elif what == "self":
        info = b"<</Title(Loop)/Next 6 0 R/Author 6 0 R>>"
    else:
        info = b"<</Title(XMP)>>"
    xmp = b""
    if what == "xmp" or rnd.random() < 0.2:
        xmp = b"/Metadata 7 0 R"
    objs = _page_objs(_text_ops(rnd), catalog_extra=xmp)
    objs.append(info)
    if xmp:
        packet = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
                  b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description dc:title="'
                  + b"T" * rnd.choice([100, 2_000_000]) + b'"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
        objs.append(_stream(packet, b"/Type/Metadata/Subtype/XML"))
    return f"big_info:{what}", _pdf(objs, b"/Info 6 0 R")


def _embedded_pdf(rnd: random.Random, corpus: list[bytes]) -> tuple[str, bytes]:
    """A PDF holding a PDF (an embedded file, a file-attachment annotation, a portfolio), up to
    five levels deep."""
    depth = rnd.choice([1, 1, 2, 5])
    inner = rnd.choice(corpus) if corpus and rnd.random() < 0.5 else _one_page(rnd)
    how = rnd.choice(["names", "attachment", "portfolio"])
    for _ in range(depth):
        ef = _flate(inner, b"/Type/EmbeddedFile/Subtype/application#2Fpdf/Params<</Size %d>>" % len(inner))
        spec = b"<</Type/Filespec/F(inner.pdf)/UF(inner.pdf)/EF<</F 7 0 R>>>>"
        cat = b"/Names<</EmbeddedFiles<</Names[(inner.pdf) 6 0 R]>>>>"
        page_extra = b""
        if how == "portfolio":
            cat += b"/Collection<</View/D/Schema<<>>>>"
        if how == "attachment":
            cat = b""
            page_extra = b"/Annots[<</Type/Annot/Subtype/FileAttachment/Rect[10 10 30 30]/FS 6 0 R/Contents(file)>>]"
        objs = _page_objs(_text_ops(rnd), page_extra=page_extra, catalog_extra=cat)
        objs += [spec, ef]
        inner = _pdf(objs)
    return f"embedded_pdf:{how}:{depth}", inner


def _actions(rnd: random.Random) -> tuple[str, bytes]:
    """JavaScript (open action, page actions, a name tree), Launch, SubmitForm, ImportData, GoToR,
    named actions and /Next chains of actions that are long or loop, on links too."""
    acts = [b"<</S/JavaScript/JS(while\\(true\\){app.alert\\(1\\)})>>", b"<</S/JavaScript/JS 8 0 R>>",
            b"<</S/Launch/F(cmd.exe)/Win<</F(cmd.exe)/P(/c calc)>>/NewWindow true>>",
            b"<</S/Launch/F<</Type/Filespec/F(/bin/sh)>>>>", b"<</S/SubmitForm/F<</FS/URL/F(http://127.0.0.1:1/)>>>>",
            b"<</S/ImportData/F(/etc/passwd)>>", b"<</S/GoToR/F(other.pdf)/D[0/Fit]/NewWindow true>>",
            b"<</S/GoToE/T<</R/C/N(x)>>/D[0/Fit]>>", b"<</S/Named/N/Print>>", b"<</S/ResetForm>>",
            b"<</S/URI/URI(file:///etc/passwd)>>", b"<</S/GoTo/D[99 0 R/Fit]>>", b"<</S/Hide/T(x)>>",
            b"<</S/Rendition/JS(app.launchURL\\('http://x'\\))>>"]
    chain = rnd.choice([0, 0, 100, 10_000])
    loop = rnd.random() < 0.3
    open_action = rnd.choice(acts)
    page_aa = b"/AA<</O %s/C %s>>" % (rnd.choice(acts), rnd.choice(acts))
    links = b"/Annots[" + b" ".join(b"<</Type/Annot/Subtype/Link/Rect[10 %d 90 %d]/A %s>>" % (
        i * 14, i * 14 + 10, rnd.choice(acts)) for i in range(40)) + b"]"
    first = 9
    if chain:  # object 6: the first of a chain of actions, each naming the next
        open_ref = b"6 0 R"
    else:
        open_ref = open_action
    objs = _page_objs(_text_ops(rnd), page_extra=page_aa + links,
                      catalog_extra=b"/OpenAction " + open_ref + b"/Names<</JavaScript<</Names[(a) 7 0 R]>>>>"
                      + b"/AA<</WC " + rnd.choice(acts) + b">>")
    objs.append(b"<</S/JavaScript/JS(1)/Next %d 0 R>>" % first if chain else b"null")
    objs.append(b"<</S/JavaScript/JS(app.alert\\('named'\\))>>")
    objs.append(_stream(b"this.exportDataObject({cName:'x', nLaunch:2});" * 100))
    for k in range(chain):
        nxt = first + k + 1 if k < chain - 1 else (6 if loop else None)
        objs.append(rnd.choice(acts)[:-2] + (b"/Next %d 0 R>>" % nxt if nxt else b">>"))
    return f"actions:{chain}{':loop' if loop else ''}", _pdf(objs)


def wide2_pdf(rnd: random.Random, corpus: list[bytes]) -> tuple[str, bytes]:
    """(kind, bytes) of one PDF of a kind round thirteen added (see above)."""
    kind = rnd.choice(["type3", "xfa", "outline", "name_tree", "xref_stream", "form_nesting", "many_operators",
                       "inline_image", "broken_cmap", "annot_text", "linearized", "odd_geometry", "big_info",
                       "embedded_pdf", "actions"])
    if kind == "embedded_pdf":
        return _embedded_pdf(rnd, corpus)
    return {"type3": _type3, "xfa": _xfa, "outline": _outline_kind, "name_tree": _name_tree,
            "xref_stream": _compressed_structure, "form_nesting": _form_nesting, "many_operators": _many_operators,
            "inline_image": _inline_images, "broken_cmap": _broken_cmap, "annot_text": _annot_text,
            "linearized": _linearized, "odd_geometry": _odd_geometry, "big_info": _big_info,
            "actions": _actions}[kind](rnd)



# ----------------------------------------------------------------------------- the campaign

def campaign(entry: str, n: int, seed: int, timeout: float, work: Path, wall_timeout: float | None = None,
             kinds: str = "classic", progress: Path | None = None) -> dict:
    """``kinds``: classic (the first rounds' generators: a seed replays the same cases), wide (the
    kinds round eleven added, from a random stream of their own) or all (the two in turn). With
    ``progress``, the counts so far are written there every 20 cases (a long campaign stopped
    early still tells what it ran)."""
    rnd = random.Random(f"{seed}:{entry}")
    wrnd = random.Random(f"{seed}:{entry}:wide")
    w2rnd = random.Random(f"{seed}:{entry}:wide2")
    w3rnd = random.Random(f"{seed}:{entry}:wide3")
    w4rnd = random.Random(f"{seed}:{entry}:wide4")
    wide3 = kinds == "wide3" and entry == "text"
    wide4 = kinds == "wide4" and entry == "text"
    if kinds in ("wide3", "wide4") and entry != "text":
        kinds = "wide2"  # round thirty-two's and thirty-three's kinds are text; the other entry points draw wide2's
    by_kind: dict[str, dict[str, int]] = {}
    rebuilt: dict[str, int] = {}  # PDF cases compiled from a rebuilt copy, by kind
    runner = Runner(timeout, wall_timeout)
    counts: dict[str, int] = {}
    reasons: dict[str, int] = {}
    slow: list[tuple[float, str, int, float | None]] = []
    failures = []
    pdfs = corpus_pdfs() if entry == "pdf" else []
    code_files = sorted((REPO / "src" / "ctxmill").rglob("*.py")) + sorted((REPO / "docs").glob("*.md"))
    try:
        for i in range(n):
            case_dir = work / entry / str(i)
            case_dir.mkdir(parents=True)
            half = False
            lost = False
            desc = ""
            # (PDF: three cases in four of round thirteen's kinds, the fourth of wide's)
            wide2 = kinds == "wide2" and (entry != "pdf" or i % 4 != 3)
            planted: list[str] = []
            extra: list[str] = []  # (wide4: --from ENGINE in a case of two)
            wide = kinds == "wide" or (kinds == "all" and i % 2 == 1) or (kinds == "wide2" and not wide2)
            kind = "classic"
            if entry in ("pdf", "text"):
                if entry == "pdf":
                    if wide2:
                        kind, data = wide2_pdf(w2rnd, pdfs)
                        desc = f"{kind} {len(data)} bytes"
                        inp = case_dir / w2rnd.choice(["input.pdf", "input.pdf", "input.PDF", "input"])
                    elif wide:
                        kind, data = wide_pdf(wrnd, pdfs)
                        desc = f"{kind} {len(data)} bytes"
                        inp = case_dir / wrnd.choice(["input.pdf", "input.pdf", "input.PDF", "input"])
                    else:
                        desc, data = mutate_pdf(rnd, rnd.choice(pdfs))
                        inp = case_dir / "input.pdf"
                elif wide4:
                    kind, data, planted, extra = wide4_text(w4rnd)
                    desc = f"{kind} {len(data)} bytes" + (f" {' '.join(extra)}" if extra else "")
                    inp = case_dir / w4rnd.choice(["input.json", "input.hocr", "input.html", "input.txt", "input"])
                elif wide3:
                    kind, data, planted = wide3_text(w3rnd)
                    desc = f"{kind} {len(data)} bytes"
                    inp = case_dir / w3rnd.choice(["input.txt", "input.md", "input.mmd", "input", "input.json",
                                                   "input.html"])
                elif wide2:
                    kind, data = wide2_text(w2rnd)
                    desc = f"{kind} {len(data)} bytes"
                    inp = case_dir / w2rnd.choice(["input.txt", "input.md", "input.mmd", "input"])
                elif wide:
                    kind, data = wide_text(wrnd)
                    desc = f"{kind} {len(data)} bytes"
                    inp = case_dir / wrnd.choice(["input.txt", "input.md", "input.mmd", "input"])
                else:
                    data = gen_text(rnd)
                    desc = f"{len(data)} bytes"
                    inp = case_dir / rnd.choice(["input.txt", "input.md", "input.mmd", "input"])
                inp.write_bytes(data)
                out = case_dir / "out"
                args = ["compile", str(inp), "-o", str(out), "--json", *extra]
                outcome, err, took, cpu = runner.run(args)
                if outcome == "exit_0":
                    half = not ((out / "document.md").is_file() and (out / "qa.json").is_file())
                    # a PDF pdfium refused, read from its copy rebuilt from its objects (sources/pdf_repair.py)
                    if entry == "pdf" and not half and "was rebuilt from its" in (out / "qa.json").read_text(
                            errors="replace"):
                        key = kind if kind != "classic" else f"classic:{desc.split()[0] if desc else ''}"
                        rebuilt[key] = rebuilt.get(key, 0) + 1
                    if planted and not half:  # conservation: each planted word kept or accounted for
                        kept = (out / "document.md").read_text(errors="replace")
                        if (out / "removed.json").is_file():
                            kept += (out / "removed.json").read_text(errors="replace")
                        missing = [w for w in planted if w not in kept]
                        lost = bool(missing)
                        if lost:
                            err = f"{len(missing)} of {len(planted)} planted words lost, e.g. {missing[:3]}"
                else:
                    half = out.exists() and any(out.iterdir())
                slow.append((took, f"{entry} {i} {desc}", len(data), cpu))
            elif entry == "apply":
                if wide2:
                    kind, orig, sketch = wide2_apply_pair(w2rnd, code_files)
                    desc = kind
                elif wide:
                    kind, orig, sketch = wide_apply_pair(wrnd, code_files)
                    desc = kind
                else:
                    orig, sketch = apply_pair(rnd, code_files)
                f = case_dir / "file.py"
                f.write_bytes(orig)
                s = case_dir / "sketch.py"
                s.write_bytes(sketch)
                args = ["apply", str(f), str(s), "--write", "--json"]
                outcome, err, took, cpu = runner.run(args)
                if outcome != "exit_0":
                    half = f.read_bytes() != orig
                leftovers = [p.name for p in case_dir.iterdir() if p.name.endswith(".ctxmill")]
                half = half or bool(leftovers)
                slow.append((took, f"apply {i} {desc}".rstrip(), len(orig) + len(sketch), cpu))
            else:
                tree = case_dir / "tree"
                db = case_dir / "index.db"
                meddle = None
                if wide2:
                    kind = desc = wide2_tree(w2rnd, tree)
                elif wide:
                    kind = wide_tree(wrnd, tree, code_files)
                    desc = kind
                    if wrnd.random() < 0.15:  # a folder removed, renamed or a file cut short while indexing
                        meddle = _meddler(wrnd, tree)
                        desc += f" +{meddle.name}"
                        meddle.start()
                else:
                    make_tree(rnd, tree, code_files)
                outcome, err, took, cpu = runner.run(["index", str(tree), "--db", str(db), "--json", "-q"])
                if meddle is not None:
                    meddle.join()
                if outcome == "exit_0" and wide2:  # a hostile query first: answered or refused, never a crash
                    q = hostile_query(w2rnd)
                    o2, err2, t2, c2 = runner.run(["search", q, "--root", str(tree), "--db", str(db), "--json"])
                    if o2 == "exit_3" and SEARCH_LIMIT in err2:
                        o2 = "timeout"  # the server stopped it at its time limit: a runaway search, not a refusal
                    if o2 not in ("exit_0", "exit_3"):
                        outcome, err = f"search_{o2}", err2
                    took += t2
                    cpu = cpu + c2 if cpu is not None and c2 is not None else None
                if outcome == "exit_0":
                    query = "good_function" if wide or wide2 else rnd.choice(["def", "odd name", "cache", "é"])
                    o2, err2, t2, c2 = runner.run(["search", query, "--root", str(tree), "--db", str(db), "--json"],
                                                  keep_stdout=wide or wide2)
                    if o2 == "exit_3" and SEARCH_LIMIT in err2:
                        o2 = "timeout"
                    if o2 != "exit_0":
                        outcome, err = f"search_{o2}", err2
                    elif (wide or wide2) and kind != "ignore_everything" and meddle is None:
                        # the good part: one ordinary file beside the hostile ones is found
                        lost = '"good.py"' not in runner.last_stdout
                    took += t2
                    cpu = cpu + c2 if cpu is not None and c2 is not None else None
                slow.append((took, f"index {i} {desc}".rstrip(), 0, cpu))
            counts[outcome] = counts.get(outcome, 0) + 1
            kc = by_kind.setdefault(kind, {})
            kc[outcome] = kc.get(outcome, 0) + 1
            if outcome == "exit_3":
                why = re.sub(r"\d+", "N", err.split(": ", 3)[-1])[:70]
                reasons[why] = reasons.get(why, 0) + 1
            if half:
                counts["half_written"] = counts.get("half_written", 0) + 1
            if lost:
                counts["good_part_lost"] = counts.get("good_part_lost", 0) + 1
            bad = outcome.endswith("exit_1") or outcome.endswith("timeout") or half or lost
            if bad:
                dest = CACHE / entry / f"seed{seed}-{i}"
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(case_dir, dest, symlinks=True, ignore=lambda d, names: [
                    x for x in names if x == "out" or not (os.path.isdir(os.path.join(d, x)) or
                                                           os.path.isfile(os.path.join(d, x)))])
                (dest / "REPRO.json").write_text(json.dumps(
                    {"outcome": outcome, "half_written": half, "error": err, "case": desc,
                     "replay": "ctxmill " + " ".join(a.replace(str(case_dir), str(dest)) for a in args)
                     if entry != "index" else f"ctxmill index {dest / 'tree'}"}, indent=1))
                failures.append({"case": i, "outcome": outcome, "half_written": half, "good_part_lost": lost,
                                 "error": err, "input": desc, "repro": str(dest)})
            shutil.rmtree(case_dir, ignore_errors=True)
            if progress is not None and (i + 1) % 20 == 0:
                _write_json(progress, {"entry": entry, "seed": seed, "kinds": kinds, "cases_done": i + 1,
                                       "outcomes": counts, "by_kind": by_kind, "rebuilt": rebuilt,
                                       "failures": failures[:30],
                                       "at": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())})
    finally:
        runner.finish()
    slow.sort(key=lambda x: x[0], reverse=True)
    by_family: dict[str, dict[str, int]] = {}  # kinds without their variant (type3:recursive -> type3)
    for k, kc in by_kind.items():
        fam = by_family.setdefault(k.split(":")[0], {})
        for o, c in kc.items():
            fam[o] = fam.get(o, 0) + c
    return {"cases": n, "kinds": kinds, "outcomes": counts, "by_family": dict(sorted(by_family.items())),
            "by_kind": dict(sorted(by_kind.items())), "rebuilt": dict(sorted(rebuilt.items())),
            "timeout": {"cpu_seconds": timeout, "wall_seconds": runner.wall_timeout},
            "refusal_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:12]),
            "slowest": [{"seconds": round(t, 3), "cpu_seconds": round(c, 3) if c is not None else None, "case": d,
                         "mb_per_s": round(b / 1e6 / t, 3) if b and t else None} for t, d, b, c in slow[:5]],
            "failures": failures[:30]}


def _write_json(path: Path, obj: dict) -> None:
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    os.replace(tmp, path)


def _child_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# Runs a ctxmill from another source tree (--peer: e.g. a git worktree at an older commit):
# that tree's src/ replaces this checkout's on sys.path (ctxmill is a namespace package, so the
# two must not both be on it).
_PEER_MAIN = ("import sys; src = sys.argv.pop(1); here = sys.argv.pop(1); "
              "sys.path = [src] + [p for p in sys.path if p.rstrip('/') != here]; "
              "from ctxmill.entry import main; sys.argv[0] = 'ctxmill'; sys.exit(main())")
# In process: imports and a first small compile (the tokenizer loaded) outside the timing, then
# compile_document + write_outputs of the file, as the command runs them; prints seconds and
# CPU seconds (this process's, all threads).
_IN_PROCESS = """
import json, sys, tempfile, time
from pathlib import Path
src, here, f, dest = sys.argv[1:5]
if src:
    sys.path = [src] + [p for p in sys.path if p.rstrip('/') != here]
import ctxmill.cli
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs
write_outputs(compile_document(b"Title\\n\\nSome words of text.\\n", name="warm.txt"), Path(tempfile.mkdtemp()))
t, c = time.perf_counter(), time.process_time()
write_outputs(compile_document(Path(f)), Path(dest))
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c}))
"""


def _timed(cmd: list[str], timeout: float) -> tuple[float, float, object, str]:
    """Wall and CPU seconds (user + system, threads too) of one child, its exit code, stdout."""
    t = time.perf_counter()
    c0 = _child_cpu()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        code, out = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        code, out = "timeout", ""
    return time.perf_counter() - t, _child_cpu() - c0, code, out


def _ratios(shapes: dict) -> None:
    prose = shapes["prose"]["x2"]["mb_per_s"]
    prose_cpu = shapes["prose"]["x2"]["mb_per_cpu_s"]
    # beside real OCR text too, where it ran: the generated prose is the cheapest input there is
    ordinary = shapes.get("ocr_sample", {}).get("x2", {})
    for row in shapes.values():
        row["vs_prose"] = round(row["x2"]["mb_per_s"] / prose, 2) if prose else None
        row["cpu_vs_prose"] = round(row["x2"]["mb_per_cpu_s"] / prose_cpu, 2) if prose_cpu else None
        if ordinary.get("mb_per_cpu_s"):
            row["vs_ocr_sample"] = round(row["x2"]["mb_per_s"] / ordinary["mb_per_s"], 2)
            row["cpu_vs_ocr_sample"] = round(row["x2"]["mb_per_cpu_s"] / ordinary["mb_per_cpu_s"], 2)
        row["cpu_doubling_ratio"] = round(row["x2"]["cpu_seconds"] / row["x1"]["cpu_seconds"], 2)


def scaling(size: int, timeout: float, repeat: int = 1, peer: str | None = None,
            in_process: bool = False, stat: str = "median", this: str | None = None) -> dict:
    """Each text shape at ``size`` and ``2*size`` bytes through the ctxmill command: the
    median of ``repeat`` runs, MB/s, the doubling ratio, the ratio to prose of the same run,
    and the three slowest stages (from metrics.json) of the larger input. With ``peer`` (the
    src/ folder of another checkout) each input is compiled by both, in turn, in the same run;
    with ``in_process`` each also gets the compile's own time without the interpreter's start
    and imports (``in_process`` rows)."""
    import statistics

    # the median, or the least of the runs (--stat min: on a shared machine the run the other
    # jobs disturbed least, the steadier figure for comparing two trees)
    pick = min if stat == "min" else statistics.median
    rnd = random.Random(0)
    out_stat = {"stat": stat, "repeat": repeat}
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-scale-"))
    out: dict = {"load_average": [round(x, 1) for x in os.getloadavg()], **out_stat, "this_src": this}
    here = str(REPO / "src")
    # --this SRC: "this" side from another src/ folder too (a copy of the base with only some
    # files changed), run the way the peer is, so that the comparison isolates those files
    sides = {"this": str(Path(this).resolve()) if this else None}
    if peer:
        sides["peer"] = str(Path(peer).resolve())
    results: dict = {side: {} for side in sides}
    inproc: dict = {side: {} for side in sides}
    # Byte code written up front for both trees, as an installed package has it: a shell with
    # PYTHONDONTWRITEBYTECODE=1 would otherwise compile every changed module in every run
    for src in (here, *[v for v in sides.values() if v]):
        subprocess.run([sys.executable, "-m", "compileall", "-q", src], capture_output=True, timeout=600)
    try:
        for shape in SCALING_SHAPES:
            for side in sides:
                results[side][shape] = {}
                inproc[side][shape] = {}
            for mult in (1, 2):
                data = text_shape(rnd, shape, size * mult)
                f = tmp / f"{shape}-{mult}.txt"
                f.write_bytes(data)
                runs: dict = {side: ([], [], None, {}) for side in sides}
                ins: dict = {side: ([], []) for side in sides}
                for r in range(repeat):
                    # alternate which side goes first, so neither always meets the warmer cache
                    order = list(sides) if r % 2 == 0 else list(reversed(sides))
                    for side in order:
                        dest = tmp / f"o-{side}-{shape}-{mult}"
                        shutil.rmtree(dest, ignore_errors=True)
                        src = sides[side]
                        cmd = ([str(CTXMILL)] if src is None else [sys.executable, "-c", _PEER_MAIN, src, here])
                        took, cpu, code, _ = _timed([*cmd, "compile", str(f), "-o", str(dest)], timeout)
                        wall, cpus, _, stages = runs[side]
                        wall.append(took)
                        cpus.append(cpu)
                        try:
                            st = json.loads((dest / "metrics.json").read_text())["stages"]
                            stages = {k: round(v["seconds"], 2) for k, v in st.items()}
                        except (OSError, ValueError, KeyError):
                            stages = {}
                        runs[side] = (wall, cpus, code, stages)
                        if in_process:
                            shutil.rmtree(dest, ignore_errors=True)
                            _, _, _, o = _timed([sys.executable, "-c", _IN_PROCESS, src or "", here, str(f), str(dest)],
                                                timeout)
                            try:
                                got = json.loads(o.strip().splitlines()[-1])
                                ins[side][0].append(got["seconds"])
                                ins[side][1].append(got["cpu"])
                            except (ValueError, IndexError, KeyError):
                                pass
                for side in sides:
                    wall, cpus, code, stages = runs[side]
                    took, cpu = pick(wall), pick(cpus)
                    row = results[side][shape]
                    # CPU seconds of the command (user + system, its threads too): what the load of a
                    # shared machine changes least; MB per CPU second is the throughput one core gives
                    row[f"x{mult}"] = {"bytes": len(data), "seconds": round(took, 3), "exit": code,
                                       "mb_per_s": round(len(data) / 1e6 / took, 3),
                                       "cpu_seconds": round(cpu, 3), "mb_per_cpu_s": round(len(data) / 1e6 / cpu, 3)}
                    if mult == 2:
                        row["slowest_stages"] = dict(sorted(stages.items(), key=lambda kv: -kv[1])[:3])
                    if ins[side][0]:
                        w, c = pick(ins[side][0]), pick(ins[side][1])
                        inproc[side][shape][f"x{mult}"] = {
                            "seconds": round(w, 3), "mb_per_s": round(len(data) / 1e6 / w, 3),
                            "cpu_seconds": round(c, 3), "mb_per_cpu_s": round(len(data) / 1e6 / c, 3)}
            for side in sides:
                row = results[side][shape]
                row["doubling_ratio"] = round(row["x2"]["seconds"] / row["x1"]["seconds"], 2)
                if inproc[side][shape].get("x2") and inproc[side][shape].get("x1"):
                    ir = inproc[side][shape]
                    ir["doubling_ratio"] = round(ir["x2"]["seconds"] / ir["x1"]["seconds"], 2)
                    ir["cpu_doubling_ratio"] = round(ir["x2"]["cpu_seconds"] / ir["x1"]["cpu_seconds"], 2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    shapes = results["this"]
    out["load_average_end"] = [round(x, 1) for x in os.getloadavg()]
    out["apply_identical_sketch"] = apply_scaling(size, timeout, rnd=rnd)
    for side in sides:
        _ratios(results[side])
    out["shapes"] = shapes
    if peer:
        out["peer"] = {"src": sides["peer"], "shapes": results["peer"]}
    if in_process:
        out["in_process"] = inproc
    def line(v, i):
        s = (f"{v['x2']['mb_per_s']} MB/s ({v['x2']['mb_per_cpu_s']} MB per CPU-s), x{v['doubling_ratio']} "
             f"on doubling (CPU x{v['cpu_doubling_ratio']}), {v['vs_prose']} of prose (CPU {v['cpu_vs_prose']})")
        if "cpu_vs_ocr_sample" in v:
            s += f", {v['vs_ocr_sample']} of the sample's OCR text (CPU {v['cpu_vs_ocr_sample']})"
        if i.get("x2"):
            s += f"; in process {i['x2']['mb_per_s']} MB/s ({i['x2']['mb_per_cpu_s']} per CPU-s)"
        return s

    out["summary"] = {k: line(v, inproc["this"].get(k, {})) for k, v in shapes.items()}
    if peer:
        out["peer_summary"] = {k: line(v, inproc["peer"].get(k, {})) for k, v in results["peer"].items()}
    return out


# One ignore file of N lines (the campaign's big_ignore kind) built into the walk's rules and
# asked about paths, in a child of the tree under test (its _Spec), CPU seconds printed as JSON.
_IGNORE_CHILD = """
import hashlib, json, random, sys, time
src = sys.argv[1]
here = sys.argv[2]
sys.path = [src] + [p for p in sys.path if p.rstrip('/') != here]
from ctxmill.sources.repo import _Spec
n, paths = int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(26)
lines = [rnd.choice([f"*.{i}", f"dir{i}/", f"!keep{i}", f"**/x{i}/**", f"[a-z]{i}*", f"file{i}.py"]) for i in range(n)]
asked = [rnd.choice([f"file{rnd.randrange(n)}.py", f"src/dir{rnd.randrange(n)}/m.py", f"pkg/mod{i}.py",
                     f"a/x{rnd.randrange(n)}/b.c", f"q{rnd.randrange(n)}.txt", "good.py"]) for i in range(paths)]
t = time.process_time()
spec = _Spec("", lines)
build = time.process_time() - t
t = time.process_time()
verdicts = [spec.decide(p) for p in asked]
per = (time.process_time() - t) / paths
print(json.dumps({"build_cpu_s": round(build, 3), "per_path_us": round(per * 1e6, 1),
                  "ignored": sum(1 for v in verdicts if v),
                  "verdicts_hash": hashlib.sha1("".join("-" if v is None else "10"[v] for v in verdicts).encode()).hexdigest()[:16]}))
"""


def ignore_scaling(lines: int, paths: int, repeat: int, timeout: float, peer: str | None = None) -> dict:
    """Build the ignore rules of a ``lines``-line .gitignore and ask ``paths`` paths, at ``lines``
    and twice that, in this checkout (and ``peer``'s src/, in turn): the least CPU of ``repeat``
    runs of each, the doubling ratio of the build, and whether both trees gave the same verdicts."""
    here = str(REPO / "src")
    sides = {"this": here, **({"peer": str(Path(peer).resolve())} if peer else {})}
    out: dict = {"load_average": [round(x, 1) for x in os.getloadavg()], "repeat": repeat, "paths": paths,
                 "stat": "min"}
    for side, src in sides.items():
        rows = {}
        for mult in (1, 2):
            runs = []
            for _ in range(repeat):
                p = subprocess.run([sys.executable, "-c", _IGNORE_CHILD, src, here, str(lines * mult), str(paths)],
                                   capture_output=True, text=True, timeout=timeout)
                if p.returncode:
                    raise RuntimeError(p.stderr[-500:])
                runs.append(json.loads(p.stdout))
            rows[f"x{mult}"] = {"lines": lines * mult, "build_cpu_s": min(r["build_cpu_s"] for r in runs),
                                "per_path_us": min(r["per_path_us"] for r in runs),
                                "ignored": runs[0]["ignored"], "verdicts_hash": runs[0]["verdicts_hash"]}
        rows["build_doubling_ratio"] = round(rows["x2"]["build_cpu_s"] / max(rows["x1"]["build_cpu_s"], 1e-6), 2)
        out[side] = rows
    if peer:
        out["same_verdicts"] = all(out["this"][k]["verdicts_hash"] == out["peer"][k]["verdicts_hash"]
                                   for k in ("x1", "x2"))
    out["load_average_end"] = [round(x, 1) for x in os.getloadavg()]
    return out


def damaged_pdfs(n: int, seed: int, timeout: float, peer: str | None = None) -> dict:
    """``n`` of mutate_pdf's truncation and header mutants (in turn) of the corpus PDFs, compiled
    through the ctxmill command (and, with ``peer``, another checkout's): exit codes, pages, QA
    warnings, and how much of the undamaged paper's text each gives (the share of the words of
    its document.md, counted with repeats, found in the mutant's)."""
    from collections import Counter

    rnd = random.Random(f"{seed}:damaged")
    paths = sorted(p for p in (CORPUS / "papers").glob("*/paper.pdf") if p.stat().st_size < 3_000_000)
    here = str(REPO / "src")
    sides = {"this": [str(CTXMILL)]}
    if peer:
        sides["peer"] = [sys.executable, "-c", _PEER_MAIN, str(Path(peer).resolve()), here]
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-damaged-"))

    def compile_(side: str, pdf: Path, out: Path) -> tuple[object, dict, Counter]:
        took, _, code, stdout = _timed([*sides[side], "compile", str(pdf), "-o", str(out), "--json"], timeout)
        info = json.loads(stdout) if code == 0 else {}
        md = out / "document.md"
        words = Counter(md.read_text(errors="replace").split()) if code == 0 and md.exists() else Counter()
        return code, {"pages": info.get("pages"), "seconds": round(took, 2),
                      "warnings": [w[:160] for w in info.get("warnings", [])]}, words

    whole: dict[str, Counter] = {}
    cases = []
    try:
        for i in range(n):
            pdf = rnd.choice(paths)
            kind, data = mutate_pdf(rnd, pdf.read_bytes(), "truncate" if i % 2 == 0 else "header")
            slug = pdf.parent.name
            if slug not in whole:
                _, _, whole[slug] = compile_("this", pdf, tmp / f"whole-{slug}")
            inp = tmp / f"case{i}.pdf"
            inp.write_bytes(data)
            row: dict = {"case": i, "kind": kind, "paper": slug, "kept": round(len(data) / pdf.stat().st_size, 3),
                         "head": data[:8].decode("latin-1")}
            for side in sides:
                code, info, words = compile_(side, inp, tmp / f"out-{side}-{i}")
                total = sum(whole[slug].values())
                row[side] = {"exit": code, **info,
                             "text_share": round(sum((words & whole[slug]).values()) / total, 3) if total else None}
                shutil.rmtree(tmp / f"out-{side}-{i}", ignore_errors=True)
            cases.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summary: dict = {}
    for kind in ("truncate", "header"):
        for side in sides:
            rows = [c for c in cases if c["kind"] == kind]
            done = [c[side] for c in rows if c[side]["exit"] == 0]
            summary[f"{kind}_{side}"] = {
                "cases": len(rows), "exit0": len(done),
                "exits": dict(Counter(str(c[side]["exit"]) for c in rows)),
                "pages": sum(d["pages"] or 0 for d in done),
                "text_share_mean_all": round(sum(c[side]["text_share"] or 0 for c in rows) / len(rows), 3) if rows else None,
                "text_share_mean_compiled": round(sum(d["text_share"] or 0 for d in done) / len(done), 3) if done else None}
    return {"seed": seed, "load_average": [round(x, 1) for x in os.getloadavg()], "summary": summary, "cases": cases}


def apply_scaling(size: int, timeout: float, repeat: int = 1, stat: str = "median",
                  rnd: random.Random | None = None, peer: str | None = None) -> dict:
    """``ctxmill apply`` of a sketch identical to a large file of few distinct lines (the
    stretch matcher's worst case), at two sizes (up to 2.3 and 4.6 MB, under APPLY_MAX_BYTES):
    wall and CPU seconds (the median or least of ``repeat`` runs, the sizes interleaved so that
    both meet the same load) and the doubling ratio of each. With ``peer`` (another checkout's
    src/) the same inputs through that ctxmill too, in turn, in the same run."""
    import statistics

    pick = min if stat == "min" else statistics.median
    rnd = rnd or random.Random(0)
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-apply-scale-"))
    row: dict = {"load_average": [round(x, 1) for x in os.getloadavg()], "stat": stat, "repeat": repeat}
    here = str(REPO / "src")
    sides = {"this": [str(CTXMILL)]}
    if peer:
        sides["peer"] = [sys.executable, "-c", _PEER_MAIN, str(Path(peer).resolve()), here]
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(peer).resolve())], capture_output=True,
                       timeout=600)
    try:
        files = {}
        for mult in (1, 2):
            lines = ["x = 1", "", "    pass", "return y", "foo(bar)", "}", "{", "# comment"]
            text = "".join(rnd.choice(lines) + (f" {rnd.randint(0, 50)}" if rnd.random() < 0.5 else "") + "\n"
                           for _ in range(min(5 * size, 2_500_000) * mult // 8))  # up to 5 MB, under APPLY_MAX_BYTES
            f = tmp / f"apply-{mult}.txt"
            f.write_text(text)
            sk = tmp / f"apply-{mult}.sketch"
            sk.write_text(text)
            files[mult] = (f, sk, len(text))
        runs: dict = {(side, mult): ([], [], None) for side in sides for mult in (1, 2)}
        for r in range(repeat):
            order = [(side, mult) for mult in (1, 2) for side in sides]
            for side, mult in (order if r % 2 == 0 else list(reversed(order))):
                f, sk, _ = files[mult]
                took, cpu, code, _ = _timed([*sides[side], "apply", str(f), str(sk)], timeout)
                wall, cpus, _ = runs[(side, mult)]
                runs[(side, mult)] = ([*wall, took], [*cpus, cpu], code)
        for side in sides:
            out = row if side == "this" else row.setdefault("peer", {"src": str(Path(peer).resolve())})
            for mult in (1, 2):
                wall, cpus, code = runs[(side, mult)]
                n = files[mult][2]
                out[f"x{mult}"] = {"bytes": n, "seconds": round(pick(wall), 3), "exit": code,
                                   "mb_per_s": round(n / 1e6 / pick(wall), 3), "cpu_seconds": round(pick(cpus), 3),
                                   "runs_seconds": [round(x, 3) for x in wall], "runs_cpu": [round(x, 3) for x in cpus]}
            out["doubling_ratio"] = round(out["x2"]["seconds"] / out["x1"]["seconds"], 2)
            out["cpu_doubling_ratio"] = round(out["x2"]["cpu_seconds"] / out["x1"]["cpu_seconds"], 2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    row["load_average_end"] = [round(x, 1) for x in os.getloadavg()]
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", type=int, default=1000, help="cases per entry point")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=",".join(ENTRIES), help="entry points: " + ",".join(ENTRIES))
    ap.add_argument("--progress", metavar="FILE", help="write each entry point's counts so far to FILE.<entry>.json "
                    "every 20 cases, and its result when it ends")
    ap.add_argument("--kinds", choices=("classic", "wide", "all", "wide2", "wide3", "wide4"), default="classic",
                    help="classic: the first rounds' generators (a seed replays the same cases); wide: the kinds "
                    "round eleven added (encodings, odd line breaks, nesting, giant numbers, built PDF structures, "
                    "apply and folder shapes, a tree changed while indexed); all: the two in turn; wide2: round twelve's kinds "
                    "(deep nesting and syntax soup in every language, one-line and generated files, notebooks, mixed "
                    "encodings per line, RTL and emoji, unclosed Markdown, 100,000 footnotes, one-character "
                    "references, conflict markers, hostile search queries; PDF: round thirteen's kinds in three cases of four, "
                    "Type3 fonts, XFA forms, 100,000-entry outlines, huge name trees, broken object and "
                    "cross-reference streams, nested and looping Form XObjects, millions of operators, inline images "
                    "of the wrong length, ToUnicode maps to surrogates, odd annotation encodings, wrong "
                    "linearization, odd rotations, a 1 MB Info string, embedded PDFs, JavaScript and launch actions; "
                    "wide's in the fourth); wide3: round thirty-two's text kinds (DeepSeek grounding, dots.ocr JSON, "
                    "Chandra HTML, DocTags, MinerU content_list, front matter, engine markers mixed: malformed, huge, "
                    "deep, with planted words that must be kept), wide2's for the other entry points; wide4: round "
                    "thirty-three's text kinds (marker JSON and hOCR: malformed JSON and XML, wrong types, nesting, "
                    "huge blocks, entities, wrong encodings, truncation, --from in a case of two; planted words), "
                    "wide2's for the other entry points")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="CPU seconds per case (the worker's and its children's; scaling: wall seconds per run)")
    ap.add_argument("--wall-timeout", type=float, default=None,
                    help="wall seconds per case (default 10 x --timeout: a case that waits without using the CPU)")
    ap.add_argument("--scaling", type=int, default=2_000_000, metavar="BYTES",
                    help="size of the smaller input per text shape (0: skip)")
    ap.add_argument("--scaling-only", action="store_true")
    ap.add_argument("--apply-scaling", action="store_true",
                    help="only ctxmill apply of an identical sketch at two sizes (--repeat runs, --stat) and its "
                    "doubling ratio, wall and CPU")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scaling input (the median is kept)")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="scaling: keep the median of the --repeat runs, or the least")
    ap.add_argument("--shapes", help="scaling: only these text shapes (comma-separated; prose is always run); "
                    "chandra, chandra_hostile and blank_run are run only when named here")
    ap.add_argument("--peer", metavar="SRC", help="scaling: also run the ctxmill of this src/ folder (another "
                    "checkout, e.g. a git worktree at an older commit) on every input, in turn, in the same run")
    ap.add_argument("--this", metavar="SRC", help="scaling: run \"this\" side from this src/ folder (as --peer "
                    "runs its own) instead of the checkout's ctxmill command")
    ap.add_argument("--in-process", action="store_true",
                    help="scaling: also time each compile in process (no interpreter start or imports)")
    ap.add_argument("--ignore-scaling", type=int, metavar="LINES",
                    help="only the ignore rules: a LINES-line .gitignore (and twice that) built and asked about "
                    "--ignore-paths paths, CPU seconds (least of --repeat), with --peer in turn")
    ap.add_argument("--damaged-pdfs", type=int, metavar="N",
                    help="only N truncation and header mutants of the corpus PDFs (in turn), compiled through the "
                    "command (and --peer's): exits, pages and the share of the undamaged paper's text")
    ap.add_argument("--ignore-paths", type=int, default=2000, help="paths asked per --ignore-scaling run")
    args = ap.parse_args()
    if args.ignore_scaling:
        print(json.dumps({"ignore_rules": ignore_scaling(args.ignore_scaling, args.ignore_paths, args.repeat,
                                                         max(args.timeout, 600), args.peer)}, indent=1))
        return
    if args.worker:
        worker()
        return
    if args.damaged_pdfs:
        print(json.dumps({"damaged_pdfs": damaged_pdfs(args.damaged_pdfs, args.seed, max(args.timeout, 300), args.peer)},
                         indent=1))
        return
    if args.apply_scaling:
        print(json.dumps({"apply_identical_sketch": apply_scaling(args.scaling or 2_000_000, args.timeout, args.repeat,
                                                                  args.stat, peer=args.peer)}, indent=1))
        return
    result: dict = {"seed": args.seed}
    work = Path(tempfile.mkdtemp(prefix="ctxmill-fuzz-"))
    try:
        if not args.scaling_only:
            for entry in args.only.split(","):
                t = time.perf_counter()
                before = source_state()
                prog = Path(f"{args.progress}.{entry}.json") if args.progress else None
                result[entry] = campaign(entry, args.cases, args.seed, args.timeout, work, args.wall_timeout,
                                         args.kinds, prog)
                result[entry]["seconds"] = round(time.perf_counter() - t, 1)
                # (an entry point's counts mean nothing for code that changed under it: run a
                # campaign on a frozen copy, PYTHONPATH=copy/src, when others edit the tree)
                moved = changed_files(before, source_state())
                if moved:
                    result[entry]["source_changed_during_run"] = moved
                    print(f"fuzz.py: warning: {len(moved)} source files changed during the {entry} "
                          f"campaign ({', '.join(moved[:5])}...): its outcomes mix two versions", file=sys.stderr)
                if prog is not None:
                    _write_json(prog, {"entry": entry, "seed": args.seed, "done": True, **result[entry]})
        if args.scaling:
            if args.shapes:
                global SCALING_SHAPES
                SCALING_SHAPES = ("prose", *[x for x in args.shapes.split(",") if x != "prose"])
            result["scaling"] = scaling(args.scaling, args.timeout, args.repeat, args.peer, args.in_process, args.stat,
                                        args.this)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
