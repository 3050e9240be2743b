"""OCR benchmark: an image-only copy of a real paper, compiled, scored against its text layer.

    .venv/bin/python benchmarks/ocr.py [--pdf PAPER.pdf] [--scan-dpi 200] [--pages N]
                                       [--compare 1,3,20,40] [--compare-dpi 200,300]
                                       [--engines tesseract-api,tesseract-cli,rapidocr] [--no-compile]

1. Renders every page of the paper at ``--scan-dpi`` and writes a PDF of those images only
   (no text layer): what a scanner gives.
2. ``--compare PAGES``: each engine (Tesseract in process through tesserocr and as the command,
   RapidOCR; each when installed) reads those pages at
   each ``--compare-dpi``, one page at a time on one core; character error rate against the
   original page's text layer and seconds per page. This table chose the engine and the dpi.
3. Compiles the original (text layer) and the image-only copy with ctxmill, as the CLI does
   (sandboxed child, pages in parallel up to the core count), and reports: CER on the page
   stream and on body text, heading recall against truth.json's outline, title and authors,
   references found, mean OCR confidence, pages/s.

4. ``--command``: times ``ctxmill compile SCAN -o TMP --json`` as a user runs it, once per run
   for each ``--configs`` entry (environment settings, e.g. the command against in-process
   Tesseract) and, with ``--peer-src DIR``, the same with another checkout's ``src`` first on
   PYTHONPATH (the code before a change), interleaved run by run. Per configuration: median
   wall seconds, CPU seconds a page (the command, its sandbox child and every tesseract run),
   pages/s, pages/s if the cores were free (cores / CPU s a page), and title, authors and
   heading recall from the written metadata.json and sections.json.

Prints one JSON object. Speed numbers carry the load average: the machine may be shared.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(1, str(REPO / "benchmarks"))

from corpus_score import fold_case  # noqa: E402  (headings and titles compared case-folded, Turkish i too)

CORPUS = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared")) / "corpus" / "dive-into-claude-code"


# ------------------------------------------------------------------------------- scoring helpers


_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
                       "\u2212": "-", "\u00a0": " ", "\u2020": "+", "\u2217": "*"})


def norm(text: str) -> str:
    """Fold what is typography, not reading: ligatures, quote and dash shapes, spacing."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    text = re.sub(r"(\w)- (\w)", r"\1\2", text)  # a hyphen at a line end in one source, not the other
    return re.sub(r"\s+", " ", text).strip()


def levenshtein(a: str, b: str) -> int:
    """Edit distance, one numpy row at a time (insertions via a running minimum)."""
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return len(a)
    bb = np.array([ord(c) for c in b], dtype=np.int64)
    idx = np.arange(len(b) + 1, dtype=np.int64)
    prev = idx.copy()
    tmp = np.empty(len(b) + 1, dtype=np.int64)
    for i, ca in enumerate(a, 1):
        tmp[0] = i
        np.minimum(prev[:-1] + (bb != ord(ca)), prev[1:] + 1, out=tmp[1:])
        prev = np.minimum.accumulate(tmp - idx) + idx
    return int(prev[-1])


def cer(hyp: str, ref: str) -> tuple[int, int]:
    """(edits, reference chars). Long texts: align words first, then count chars in the gaps."""
    hyp, ref = norm(hyp), norm(ref)
    if len(ref) * max(len(hyp), 1) <= 2.5e7:
        return levenshtein(hyp, ref), len(ref)
    hw, rw = hyp.split(" "), ref.split(" ")
    edits = 0
    sm = difflib.SequenceMatcher(None, hw, rw, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        h, r = " ".join(hw[i1:i2]), " ".join(rw[j1:j2])
        edits += levenshtein(h, r) + (1 if h and r else 0)
    return edits, len(ref)


def title_key(t: str) -> str:
    t = fold_case(norm(t))
    t = re.sub(r"^(appendix\s+)?[a-z]?\d+(\.\d+)*\.?\s+|^[a-z]\s+", "", t)  # section numbers
    return re.sub(r"[^a-z0-9]+", " ", t).strip()


def heading_recall(outline: list[dict], sections: list) -> dict:
    keys = [title_key(s.title) for s in sections]
    found, missed = 0, []
    for o in outline:
        k = title_key(o["title"])
        best = max((difflib.SequenceMatcher(None, k, s).ratio() for s in keys), default=0.0)
        if best >= 0.9:
            found += 1
        else:
            missed.append(o["title"])
    return {"recall": round(found / len(outline), 3) if outline else None, "found": found,
            "outline": len(outline), "missed": missed[:10]}


def cpu_seconds() -> float:
    """CPU time of this process and every finished child (the sandbox, each tesseract run).

    On a shared machine wall time says more about the neighbours than about OCR; CPU time
    divided among the cores is what the pages cost.
    """
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


# ------------------------------------------------------------------------------- inputs


def make_image_pdf(src: Path, dst: Path, dpi: int, pages: int | None = None) -> int:
    """Render each page to a grayscale image and write a PDF of the images only."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(src))
    n = len(pdf) if pages is None else min(pages, len(pdf))
    images = []
    for i in range(n):
        page = pdf[i]
        images.append(page.render(scale=dpi / 72.0, grayscale=True).to_pil())
        page.close()
    pdf.close()
    # Pillow stores grayscale pages as JPEG, like most scanners; page size = pixels / dpi
    images[0].save(str(dst), "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return n


def first_pages(src: Path, dst: Path, n: int) -> None:
    """The first n pages with their text layer: the reference when only part is benchmarked."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(src))
    out = pdfium.PdfDocument.new()
    out.import_pages(pdf, list(range(min(n, len(pdf)))))
    out.save(str(dst))
    out.close()
    pdf.close()


def text_layer_pages(path: Path, n: int) -> list[str]:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    out = []
    for i in range(n):
        tp = pdf[i].get_textpage()
        out.append(tp.get_text_range())
        tp.close()
    pdf.close()
    return out


# ------------------------------------------------------------------------------- engine table


def compare_engines(original: Path, scan: Path, pages: list[int], dpis: list[int], names: list[str]) -> list[dict]:
    import pypdfium2 as pdfium

    from ctxmill.sources import ocr

    refs = text_layer_pages(original, max(pages))
    rows = []
    engines = []
    for name in names:
        try:
            if name == "rapidocr":
                engines.append(ocr.RapidEngine(threads=1))
            else:  # tesseract-api (tesserocr, in process) or tesseract-cli (the command)
                engines.append(ocr.TesseractEngine(backend=name.split("-", 1)[1] if "-" in name else None))
        except ocr.OcrUnavailable as exc:
            rows.append({"engine": name, "skipped": str(exc)})
    pdf = pdfium.PdfDocument(str(scan))
    for engine in engines:
        for dpi in dpis:
            edits = chars = 0
            secs = []
            cpus = []
            for n in pages:
                image = ocr.render(pdf[n - 1], dpi)
                t0, c0 = time.perf_counter(), cpu_seconds()
                text = engine.read(image, dpi, 600)
                secs.append(time.perf_counter() - t0)
                cpus.append(cpu_seconds() - c0)
                hyp = "\n".join(" ".join(w.text for w in ln.words)
                                for ln in sorted(text.lines, key=lambda t: (t.box[1], t.box[0])))
                e, c = cer(hyp, refs[n - 1])
                edits += e
                chars += c
            rows.append({"engine": f"{engine.name}-{getattr(engine, 'backend', '')}".rstrip("-"),
                         "version": engine.version(), "render_dpi": dpi,
                         "pages": pages, "cer": round(edits / chars, 4),
                         "seconds_per_page_1core": round(statistics.median(secs), 2),
                         "cpu_seconds_per_page": round(statistics.median(cpus), 2)})
    pdf.close()
    return rows


# ------------------------------------------------------------------------------- compile


def compile_stream(stream) -> tuple[object, float]:
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_stream

    t0 = time.perf_counter()
    doc = compile_stream(stream, CompileOptions())
    return doc, time.perf_counter() - t0


def body_text(doc) -> str:
    from ctxmill.model import BlockKind

    kinds = (BlockKind.PARAGRAPH, BlockKind.LIST_ITEM)
    return "\n".join(b.text for b in doc.blocks if b.kind in kinds)


def score(original: Path, scan: Path, n_pages: int, truth: dict | None) -> dict:
    from ctxmill.compile.options import CompileOptions
    from ctxmill.sources import ocr
    from ctxmill.sources.sandbox import load_pdf

    out: dict = {}
    # the page stream alone: what OCR produced, before any compile stage touches it
    t0, c0 = time.perf_counter(), cpu_seconds()
    stream = load_pdf(scan, CompileOptions())
    src_seconds = time.perf_counter() - t0
    src_cpu = cpu_seconds() - c0
    t0 = time.perf_counter()
    ref_stream = load_pdf(original, CompileOptions(ocr="never"))
    ref_src_seconds = time.perf_counter() - t0
    edits = chars = 0
    per_page = []
    for p, r in zip(stream.pages, ref_stream.pages[:n_pages], strict=False):
        e, c = cer("\n".join(ln.text for ln in p.lines), "\n".join(ln.text for ln in r.lines))
        edits += e
        chars += c
        per_page.append(round(e / c, 4) if c else None)
    confs = [p.ocr_confidence for p in stream.pages if p.ocr and p.ocr_confidence is not None]
    out["page_stream"] = {
        "pages": len(stream.pages), "ocr_pages": sum(p.ocr for p in stream.pages),
        "cer": round(edits / chars, 4) if chars else None, "worst_pages": sorted(
            ((c, i + 1) for i, c in enumerate(per_page) if c is not None), reverse=True)[:5],
        "mean_confidence": round(statistics.mean(confs), 3) if confs else None,
        "pages_below_confidence": [p.number for p in stream.pages if p.ocr and (p.ocr_confidence or 0) < ocr.LOW_CONFIDENCE],
        "seconds": round(src_seconds, 2), "pages_per_second": round(len(stream.pages) / src_seconds, 3),
        "cpu_seconds_per_page": round(src_cpu / len(stream.pages), 3),
        # what the same work gives when the cores are not shared: cores / CPU seconds per page
        "pages_per_second_if_cores_free": round(len(os.sched_getaffinity(0)) * len(stream.pages) / src_cpu, 3),
        "warnings": stream.warnings,
    }
    try:
        # the stages run on the streams read above, so OCR runs once; seconds include reading
        ref_doc, ref_s = compile_stream(ref_stream)
        doc, s = compile_stream(stream)
        ref_s += ref_src_seconds
        s += src_seconds
    except Exception as exc:  # noqa: BLE001 -- the compile stages belong to other work in progress
        out["compile"] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        return out
    e, c = cer(body_text(doc), body_text(ref_doc))
    comp = {
        "body_cer": round(e / c, 4) if c else None, "body_chars_text_layer": c,
        "seconds": round(s, 2), "pages_per_second": round(doc.pages / s, 3),
        "text_layer_seconds": round(ref_s, 2),
        "stages": {k: round(v, 2) for k, v in doc.metrics.stages.items()},
        "references": len(doc.references), "references_text_layer": len(ref_doc.references),
        "title": doc.metadata.title, "authors": [a.name for a in doc.metadata.authors],
    }
    if truth:
        comp["headings"] = heading_recall(truth["outline"], doc.sections)
        comp["headings_text_layer"] = heading_recall(truth["outline"], ref_doc.sections)["recall"]
        meta = truth["metadata"]
        comp["title_ok"] = fold_case(norm(doc.metadata.title)) == fold_case(norm(meta["title"]))
        want = {norm(a["name"]) for a in meta["authors"]}
        comp["authors_ok"] = f"{len(want & {norm(a.name) for a in doc.metadata.authors})}/{len(want)}"
        comp["references_truth"] = len(truth["references"])
    out["compile"] = comp
    return out


def parse_configs(spec: str) -> list[tuple[str, dict]]:
    """``name=VAR=value,VAR=value;name2=...`` -> [(name, {VAR: value})]; ``name`` alone: no settings."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(";"))):
        name, _, rest = part.partition("=")
        env = dict(kv.split("=", 1) for kv in rest.split(",") if "=" in kv)
        out.append((name, env))
    return out


class Timeline:
    """Which Tesseract processes (reading pages: ``hocr`` on their command line) run under one
    command, sampled every 50 ms from /proc (Linux) in a thread: when the first starts, when the
    last ends, and the worker-seconds in between with fewer of them alive than there are cores.
    That idle share is a property of how pages are scheduled, so it holds on a loaded machine,
    where wall and CPU seconds do not. Also the share of the processes' samples in which one is
    asleep (state S): a process that stays up for the document sleeps only while it waits for
    its next page, so this is the time the pages' hand-over costs the engine."""

    def __init__(self, root: int, every: float = 0.05):
        import threading

        self.root, self.every, self.samples = root, every, []  # (seconds since start, OCR processes alive)
        self.waiting = 0  # samples of an OCR process asleep: waiting for its next page (or for a file)
        self.t0 = time.perf_counter()
        self._done = threading.Event()
        self._cpu = 0.0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _children(self, pid: int) -> list[int]:
        out = []
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    out += [int(x) for x in f.read().split()]
        except OSError:
            pass
        return out

    def _ocr_alive(self) -> int:
        n, todo = 0, [self.root]
        while todo:
            pid = todo.pop()
            kids = self._children(pid)
            todo += kids
            if pid != self.root:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        args = f.read().split(b"\0")
                except OSError:
                    continue
                if args[0].endswith(b"tesseract") and b"hocr" in args:
                    n += 1
                    try:
                        with open(f"/proc/{pid}/stat", "rb") as f:
                            # R: running or waiting for a core; S: asleep, i.e. waiting for input
                            self.waiting += f.read().rpartition(b")")[2].split()[0] == b"S"
                    except OSError:
                        pass
        return n

    def _run(self) -> None:
        c0 = time.thread_time()
        while not self._done.wait(self.every):
            self.samples.append((time.perf_counter() - self.t0, self._ocr_alive()))
        self._cpu = time.thread_time() - c0

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return self._cpu

    def summary(self, wall: float, cores: int) -> dict:
        busy = [t for t, n in self.samples if n]
        if not busy:
            return {"ocr_processes_seen": False}
        first, last = busy[0], busy[-1]
        idle = sum(max(0, cores - n) * self.every for t, n in self.samples if first <= t <= last)
        span = last - first
        return {"before_ocr_s": round(first, 2), "ocr_s": round(span, 2), "after_ocr_s": round(wall - last, 2),
                "ocr_idle_worker_s": round(idle, 2),  # cores x seconds with a core's OCR process missing
                "ocr_idle_share": round(idle / (cores * span), 4) if span else None,
                # share of the OCR processes' samples asleep: a process waiting for its next page
                "ocr_waiting_share": round(self.waiting / max(1, sum(n for _, n in self.samples)), 4)}


def time_command(scan: Path, n_pages: int, truth: dict | None, env_extra: dict, src: str | None,
                 reference_md: str | None = None, timeline: bool = False) -> dict:
    """One ``ctxmill compile`` of the scan through the installed command, as a user runs it."""
    from types import SimpleNamespace

    env = dict(os.environ, **env_extra)
    if src:  # another checkout's code first (its sandbox child uses its own src too)
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    command = Path(sys.executable).with_name("ctxmill")
    with tempfile.TemporaryDirectory() as out:
        c0, t0 = cpu_seconds(), time.perf_counter()
        proc = subprocess.Popen([str(command), "compile", str(scan), "-o", out, "--json"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sampler = Timeline(proc.pid) if timeline else None
        stdout, stderr = proc.communicate(timeout=3600)
        wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
        if sampler:
            cpu -= sampler.stop()  # the sampler's own CPU (this process) is not the command's
        if proc.returncode != 0:
            return {"error": f"exit {proc.returncode}: {stderr.strip()[-300:]}"}
        meta = json.loads(Path(out, "metadata.json").read_text())
        sections = json.loads(Path(out, "sections.json").read_text())
        document = Path(out, "document.md").read_text()
        warnings = json.loads(stdout).get("warnings", [])
    row = {"seconds": round(wall, 2), "cpu_seconds_per_page": round(cpu / n_pages, 3),
           "pages_per_second": round(n_pages / wall, 3),
           "pages_per_second_if_cores_free": round(len(os.sched_getaffinity(0)) * n_pages / cpu, 3),
           "cores_used": round(cpu / wall, 2),  # what the shared machine gave this run
           "ocr_warnings": [w for w in warnings if "OCR" in w][:3]}
    if sampler:
        row["timeline"] = sampler.summary(wall, len(os.sched_getaffinity(0)))
    if reference_md is not None:
        # document.md against the text-layer compile's document.md (same renderer, so markup cancels)
        e, c = cer(document, reference_md)
        row["document_cer"] = round(e / c, 4) if c else None
    if truth:
        row["title_ok"] = fold_case(norm(meta.get("title") or "")) == fold_case(norm(truth["metadata"]["title"]))
        want = {norm(a["name"]) for a in truth["metadata"]["authors"]}
        got = {norm(a["name"]) for a in meta.get("authors", [])}
        row["authors_ok"] = f"{len(want & got)}/{len(want)}"
        row["headings_recall"] = heading_recall(truth["outline"], [SimpleNamespace(title=s["title"])
                                                                  for s in sections])["recall"]
    return row


def engine_version(env_extra: dict, src: str | None) -> str:
    env = dict(os.environ, **env_extra, PYTHONPATH=src or str(REPO / "src"))
    proc = subprocess.run([sys.executable, "-c", "from ctxmill.sources import ocr; print(ocr.get_engine().version())"],
                          env=env, capture_output=True, text=True, timeout=120)
    return (proc.stdout.strip() or proc.stderr.strip()[-200:])


def command_table(scan: Path, original: Path, n_pages: int, truth: dict | None, configs: list[tuple[str, dict]],
                  peer_src: str | None, peer_configs: set[str] | None, runs: int, reverse_first: bool = False,
                  timeline: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as out:  # the reference: the original's text layer, same command
        subprocess.run([str(Path(sys.executable).with_name("ctxmill")), "compile", str(original), "-o", out,
                        "--ocr", "never"], capture_output=True, timeout=600, check=True)
        reference_md = Path(out, "document.md").read_text()
    todo = [(name, env, None) for name, env in configs]
    if peer_src:
        todo += [(f"peer:{name}", env, peer_src) for name, env in configs if not peer_configs or name in peer_configs]
    rows: dict[str, list[dict]] = {name: [] for name, _, _ in todo}
    loads = []
    for run in range(runs):
        # interleaved, every other run in reverse order, so a change in load hits every configuration alike
        for name, env, src in (todo if (run + reverse_first) % 2 == 0 else todo[::-1]):
            loads.append(os.getloadavg()[0])
            rows[name].append(time_command(scan, n_pages, truth, env, src, reference_md, timeline))
    out = {}
    for name, env, src in todo:
        ok = [r for r in rows[name] if "error" not in r]
        if not ok:
            out[name] = {"settings": env, "error": rows[name][0]["error"]}
            continue
        med = {k: round(statistics.median(r[k] for r in ok), 3)
               for k in ("seconds", "cpu_seconds_per_page", "pages_per_second", "pages_per_second_if_cores_free",
                         "cores_used")}
        out[name] = {"settings": env, "src": src or str(REPO / "src"), "engine": engine_version(env, src),
                     "runs": len(ok), **med,
                     "cpu_seconds_per_page_each": [r["cpu_seconds_per_page"] for r in ok],
                     **({"timeline_each": [r["timeline"] for r in ok]} if timeline else {}),
                     **{k: ok[-1][k] for k in ("document_cer", "title_ok", "authors_ok", "headings_recall", "ocr_warnings")
                        if k in ok[-1]}}
    out["load_average_during"] = [round(min(loads), 2), round(max(loads), 2)] if loads else None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdf", type=Path, default=CORPUS / "paper.pdf")
    ap.add_argument("--scan-dpi", type=int, default=200, help="resolution of the image-only copy")
    ap.add_argument("--pages", type=int, help="only the first N pages (while developing)")
    ap.add_argument("--compare", default="", help="pages for the engine table, e.g. 1,3,20,40")
    ap.add_argument("--compare-dpi", default="200,300")
    ap.add_argument("--engines", default="tesseract-api,tesseract-cli,rapidocr", help="engines for the table")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--command", action="store_true", help="also time `ctxmill compile` of the scan as a user runs it")
    ap.add_argument("--configs", default="default",
                    help="for --command: 'name=VAR=value,VAR=value;name2=...' (e.g. api=CTXMILL_OCR_TESSERACT=api)")
    ap.add_argument("--peer-src", help="for --command: also run each config with this src folder first on PYTHONPATH")
    ap.add_argument("--peer-configs", help="for --command: only these configs (comma-separated) for the peer")
    ap.add_argument("--runs", type=int, default=1,
                    help="for --command: runs per configuration (interleaved, every other run in reverse order)")
    ap.add_argument("--reverse-first", action="store_true", help="for --command: start with the reversed order")
    ap.add_argument("--timeline", action="store_true",
                    help="for --command: sample the command's Tesseract processes (Linux /proc): time before, "
                         "during and after OCR, and the share of the OCR span with a core's process missing")
    args = ap.parse_args()
    os.environ.setdefault("CTXMILL_OCR_CACHE", "off")  # timings: every page read by the engine, none from the OCR cache
    # a speed benchmark on a shared machine must not be cut short by the sandbox's wall clock
    # (at load 12 the default 360 s leaves the last pages of the 46-page scan unread)
    os.environ.setdefault("CTXMILL_PDF_TIMEOUT_SECONDS", "7200")
    os.environ.setdefault("CTXMILL_PDF_CPU_SECONDS", "7200")
    if not args.pdf.is_file():
        print(json.dumps({"skipped": f"{args.pdf} not found"}))
        return
    from ctxmill.sources import ocr

    truth_path = args.pdf.parent / "truth.json"
    truth = json.loads(truth_path.read_text()) if truth_path.is_file() and args.pages is None else None
    result: dict = {"input": str(args.pdf), "scan_dpi": args.scan_dpi, "settings": ocr.settings(),
                    "sandbox_limits": {k: os.environ[k] for k in ("CTXMILL_PDF_TIMEOUT_SECONDS", "CTXMILL_PDF_CPU_SECONDS")},
                    "cores": len(os.sched_getaffinity(0))}
    try:
        result["settings"]["engine_version"] = ocr.get_engine().version()
    except ocr.OcrUnavailable as exc:
        result["settings"]["engine_version"] = f"unavailable: {exc}"
    with tempfile.TemporaryDirectory() as tmp:
        scan = Path(tmp) / "scan.pdf"
        n = make_image_pdf(args.pdf, scan, args.scan_dpi, args.pages)
        result["pages"] = n
        result["load_before"] = [round(x, 2) for x in os.getloadavg()]
        if args.compare:
            pages = [int(x) for x in args.compare.split(",") if int(x) <= n]
            result["engines"] = compare_engines(args.pdf, scan, pages, [int(x) for x in args.compare_dpi.split(",")],
                                                 args.engines.split(","))
        original = args.pdf
        if args.pages is not None:
            original = Path(tmp) / "original.pdf"
            first_pages(args.pdf, original, n)
        if args.command:
            peers = set(args.peer_configs.split(",")) if args.peer_configs else None
            result["command"] = command_table(scan, original, n, truth, parse_configs(args.configs), args.peer_src,
                                              peers, args.runs, args.reverse_first, args.timeline)
        if not args.no_compile:
            result.update(score(original, scan, n, truth))
        result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
