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
            try:
                main(case["args"], standalone_mode=False)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # click's own errors: usage
                code = 2 if type(exc).__name__.endswith(("UsageError", "BadParameter", "NoSuchOption")) else 1
                err.write(f"{type(exc).__name__}: {exc}")
        tail = err.getvalue().strip().splitlines()
        out.write(json.dumps({"code": code, "err": tail[-1][:300] if tail else ""}) + "\n")
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
        # the campaign's own background server (index + search cases start one, as a user's
        # commands do), not the user's: it is stopped at the end (finish)
        self.run_dir = tempfile.mkdtemp(prefix="ctxmill-fuzz-run-")
        self.env = dict(os.environ, CTXMILL_DEBUG="", XDG_RUNTIME_DIR=self.run_dir)

    def _start(self) -> None:
        env = self.env
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def run(self, args: list[str]) -> tuple[str, str, float, float | None]:
        """(outcome, last stderr line, wall seconds, CPU seconds or None) of one case."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        pid = self.proc.pid
        c0 = tree_cpu(pid)
        t = time.perf_counter()
        self.proc.stdin.write(json.dumps({"args": args}) + "\n")
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


def mutate_pdf(rnd: random.Random, data: bytes) -> tuple[str, bytes]:
    b = bytearray(data)
    kind = rnd.choice(["flip", "flip_many", "truncate", "delete_block", "duplicate_block", "xref", "length",
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
    raise ValueError(shape)


SHAPES = ("prose", "one_word_lines", "headings", "blank_pairs", "long_line", "long_words_line", "numbered",
          "table_rows", "refs", "hyphen_lines", "code_comments", "ocr_lines", "emails", "urls",
          "crossrefs")
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


# ----------------------------------------------------------------------------- the campaign

def campaign(entry: str, n: int, seed: int, timeout: float, work: Path, wall_timeout: float | None = None) -> dict:
    rnd = random.Random(f"{seed}:{entry}")
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
            desc = ""
            if entry in ("pdf", "text"):
                if entry == "pdf":
                    desc, data = mutate_pdf(rnd, rnd.choice(pdfs))
                    inp = case_dir / "input.pdf"
                else:
                    data = gen_text(rnd)
                    desc = f"{len(data)} bytes"
                    inp = case_dir / rnd.choice(["input.txt", "input.md", "input.mmd", "input"])
                inp.write_bytes(data)
                out = case_dir / "out"
                args = ["compile", str(inp), "-o", str(out), "--json"]
                outcome, err, took, cpu = runner.run(args)
                if outcome == "exit_0":
                    half = not ((out / "document.md").is_file() and (out / "qa.json").is_file())
                else:
                    half = out.exists() and any(out.iterdir())
                slow.append((took, f"{entry} {i} {desc}", len(data), cpu))
            elif entry == "apply":
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
                slow.append((took, f"apply {i}", len(orig) + len(sketch), cpu))
            else:
                tree = case_dir / "tree"
                make_tree(rnd, tree, code_files)
                db = case_dir / "index.db"
                outcome, err, took, cpu = runner.run(["index", str(tree), "--db", str(db), "--json", "-q"])
                if outcome == "exit_0":
                    o2, err2, t2, c2 = runner.run(["search", rnd.choice(["def", "odd name", "cache", "é"]),
                                               "--root", str(tree), "--db", str(db), "--json"])
                    if o2 != "exit_0":
                        outcome, err = f"search_{o2}", err2
                    took += t2
                    cpu = cpu + c2 if cpu is not None and c2 is not None else None
                slow.append((took, f"index {i}", 0, cpu))
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome == "exit_3":
                why = re.sub(r"\d+", "N", err.split(": ", 3)[-1])[:70]
                reasons[why] = reasons.get(why, 0) + 1
            if half:
                counts["half_written"] = counts.get("half_written", 0) + 1
            bad = outcome.endswith("exit_1") or outcome == "timeout" or half
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
                failures.append({"case": i, "outcome": outcome, "half_written": half, "error": err,
                                 "input": desc, "repro": str(dest)})
            shutil.rmtree(case_dir, ignore_errors=True)
    finally:
        runner.finish()
    slow.sort(key=lambda x: x[0], reverse=True)
    return {"cases": n, "outcomes": counts, "timeout": {"cpu_seconds": timeout, "wall_seconds": runner.wall_timeout},
            "refusal_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:12]),
            "slowest": [{"seconds": round(t, 3), "cpu_seconds": round(c, 3) if c is not None else None, "case": d,
                         "mb_per_s": round(b / 1e6 / t, 3) if b and t else None} for t, d, b, c in slow[:5]],
            "failures": failures[:30]}


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
    for row in shapes.values():
        row["vs_prose"] = round(row["x2"]["mb_per_s"] / prose, 2) if prose else None
        row["cpu_vs_prose"] = round(row["x2"]["mb_per_cpu_s"] / prose_cpu, 2) if prose_cpu else None
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
        for shape in SHAPES:
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
    # apply: a sketch identical to a large file of few distinct lines (the stretch matcher's worst case)
    apply_row: dict = {}
    tmp.mkdir(exist_ok=True)
    try:
        for mult in (1, 2):
            lines = ["x = 1", "", "    pass", "return y", "foo(bar)", "}", "{", "# comment"]
            text = "".join(rnd.choice(lines) + (f" {rnd.randint(0, 50)}" if rnd.random() < 0.5 else "") + "\n"
                           for _ in range(min(5 * size, 2_500_000) * mult // 8))  # up to 5 MB, under APPLY_MAX_BYTES
            f = tmp / f"apply-{mult}.txt"
            f.write_text(text)
            sk = tmp / f"apply-{mult}.sketch"
            sk.write_text(text)
            t = time.perf_counter()
            try:
                code = subprocess.run([str(CTXMILL), "apply", str(f), str(sk)], capture_output=True,
                                      timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
            took = time.perf_counter() - t
            apply_row[f"x{mult}"] = {"bytes": len(text), "seconds": round(took, 3), "exit": code,
                                     "mb_per_s": round(len(text) / 1e6 / took, 3)}
        apply_row["doubling_ratio"] = round(apply_row["x2"]["seconds"] / apply_row["x1"]["seconds"], 2)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["apply_identical_sketch"] = apply_row
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
        if i.get("x2"):
            s += f"; in process {i['x2']['mb_per_s']} MB/s ({i['x2']['mb_per_cpu_s']} per CPU-s)"
        return s

    out["summary"] = {k: line(v, inproc["this"].get(k, {})) for k, v in shapes.items()}
    if peer:
        out["peer_summary"] = {k: line(v, inproc["peer"].get(k, {})) for k, v in results["peer"].items()}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", type=int, default=1000, help="cases per entry point")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=",".join(ENTRIES), help="entry points: " + ",".join(ENTRIES))
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="CPU seconds per case (the worker's and its children's; scaling: wall seconds per run)")
    ap.add_argument("--wall-timeout", type=float, default=None,
                    help="wall seconds per case (default 10 x --timeout: a case that waits without using the CPU)")
    ap.add_argument("--scaling", type=int, default=2_000_000, metavar="BYTES",
                    help="size of the smaller input per text shape (0: skip)")
    ap.add_argument("--scaling-only", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scaling input (the median is kept)")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="scaling: keep the median of the --repeat runs, or the least")
    ap.add_argument("--shapes", help="scaling: only these text shapes (comma-separated; prose is always run)")
    ap.add_argument("--peer", metavar="SRC", help="scaling: also run the ctxmill of this src/ folder (another "
                    "checkout, e.g. a git worktree at an older commit) on every input, in turn, in the same run")
    ap.add_argument("--this", metavar="SRC", help="scaling: run \"this\" side from this src/ folder (as --peer "
                    "runs its own) instead of the checkout's ctxmill command")
    ap.add_argument("--in-process", action="store_true",
                    help="scaling: also time each compile in process (no interpreter start or imports)")
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    result: dict = {"seed": args.seed}
    work = Path(tempfile.mkdtemp(prefix="ctxmill-fuzz-"))
    try:
        if not args.scaling_only:
            for entry in args.only.split(","):
                t = time.perf_counter()
                before = source_state()
                result[entry] = campaign(entry, args.cases, args.seed, args.timeout, work, args.wall_timeout)
                result[entry]["seconds"] = round(time.perf_counter() - t, 1)
                # (an entry point's counts mean nothing for code that changed under it: run a
                # campaign on a frozen copy, PYTHONPATH=copy/src, when others edit the tree)
                moved = changed_files(before, source_state())
                if moved:
                    result[entry]["source_changed_during_run"] = moved
                    print(f"fuzz.py: warning: {len(moved)} source files changed during the {entry} "
                          f"campaign ({', '.join(moved[:5])}...): its outcomes mix two versions", file=sys.stderr)
        if args.scaling:
            if args.shapes:
                global SHAPES
                SHAPES = ("prose", *[x for x in args.shapes.split(",") if x != "prose"])
            result["scaling"] = scaling(args.scaling, args.timeout, args.repeat, args.peer, args.in_process, args.stat,
                                        args.this)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
