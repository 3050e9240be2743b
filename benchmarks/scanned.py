"""Scanned PDFs on a corpus mean: every corpus paper as an image-only copy, compiled and scored like the original.

The OCR road (a PDF with no text layer: ``ctxmill compile`` runs Tesseract) was measured on the sample
paper only (benchmarks/ocr.py, ocr_scans.py). This script makes a copy of each paper with LaTeX-derived
truth as a scanner would (each page rendered with pypdfium2 at --dpi, greyscale, JPEG quality --quality,
into a new PDF with no text layer; optional seeded --skew / --noise), compiles the copy through the
``ctxmill compile`` command as a user would (the same call benchmarks/corpus.py makes, --src too), and
scores it with benchmarks/corpus_score.py against the same truth as the original. The original is
compiled and scored in the same run (or read from a corpus.py JSON, --text-json), so each field has its
gap. The reference titles a paper never prints are judged on the ORIGINAL's text layer (the copy has
none). Prints one JSON object: per paper rows (scan and text layer side by side) and the means.

    .venv/bin/python benchmarks/scanned.py --only iclr            # one paper
    nice -n 19 .venv/bin/python benchmarks/scanned.py --src /work/s36-start/src > out.json
    .venv/bin/python benchmarks/scanned.py --papers benchmarks/.cache/unseen --only aaai24
    .venv/bin/python benchmarks/scanned.py --ocr-cache /tmp/ocr-cache > out.json   # scores; layout-only once warm

The copies are cached under benchmarks/.cache/scanned/ (named by the original's hash and the settings).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import corpus  # noqa: E402

CACHE = REPO / "benchmarks" / ".cache" / "scanned"
_EPOCH = time.gmtime(946684800)  # 2000-01-01, the copies' fixed creation date


def scan_copy(pdf: Path, dest: Path, dpi: int = 150, quality: int = 75, skew: float = 0.0,
              noise: float = 0.0, seed: int = 0) -> Path:
    """Write an image-only copy of ``pdf`` to ``dest``: one greyscale JPEG per page at ``dpi``, page
    sizes kept, no text layer. ``skew`` rotates each page by up to that many degrees (sign and size
    drawn per page from ``seed``), ``noise`` adds Gaussian noise of that standard deviation (0-255
    grey levels). Deterministic: the same arguments give the same bytes."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image

    rng = np.random.default_rng(seed)
    with corpus._PDFIUM:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            imgs = [page.render(scale=dpi / 72.0, grayscale=True).to_pil().convert("L") for page in doc]
        finally:
            doc.close()
    out = []
    for img in imgs:
        if skew:
            img = img.rotate(float(rng.uniform(-skew, skew)), resample=Image.BICUBIC, fillcolor=255)
        if noise:
            a = np.asarray(img, dtype=np.float32) + rng.normal(0.0, noise, (img.height, img.width))
            img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
        out.append(img)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    # Pillow writes an "L" image into a PDF as a DCT (JPEG) stream: the page is a picture, nothing more
    out[0].save(str(tmp), "PDF", resolution=float(dpi), save_all=True, append_images=out[1:], quality=quality,
                title="scan", creationDate=_EPOCH, modDate=_EPOCH)  # default: file name and now; same args, same bytes
    tmp.replace(dest)
    return dest


def cached_copy(slug: str, pdf: Path, args) -> Path:
    h = hashlib.sha256(pdf.read_bytes()).hexdigest()[:12]
    name = f"{slug}-{h}-d{args.dpi}-q{args.quality}"
    if args.skew or args.noise:
        name += f"-s{args.skew:g}-n{args.noise:g}-r{args.seed}"
    dest = CACHE / f"{name}.pdf"
    if not dest.exists():
        scan_copy(pdf, dest, args.dpi, args.quality, args.skew, args.noise, args.seed)
    return dest


def ocr_info(out: Path) -> dict:
    """Pages read by OCR and their mean confidence, from the QA report's ocr_pages check."""
    try:
        qa = json.loads((out / "qa.json").read_text())
    except (OSError, ValueError):
        return {}
    info: dict = {"low_confidence_pages": 0}
    for c in qa.get("checks", []):
        name = c.get("name") or c.get("id")
        if name == "ocr_pages":
            m = re.match(r"(\d+) page\(s\) read by OCR .*mean confidence ([\d.]+)", c.get("message", ""))
            if m:
                info["ocr_pages"], info["ocr_confidence_mean"] = int(m.group(1)), float(m.group(2))
        elif name == "ocr_low_confidence":
            info["low_confidence_pages"] += 1
        elif "unread" in (name or "") or "left unread" in c.get("message", ""):
            info["unread"] = c.get("message")
    return info


def compile_and_score(slug: str, pdf: Path, truth: dict, printed: str, out_root: Path, timeout: float,
                      src: Path | None) -> dict:
    """corpus.run_one, with the printed text taken from the original (a scan has no text layer)."""
    return corpus.run_one(slug, pdf, truth, out_root, timeout, src, printed=printed)


def page_count(pdf: Path) -> int:
    import pypdfium2 as pdfium

    with corpus._PDFIUM:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            return len(doc)
        finally:
            doc.close()


def run_paper(slug: str, pdf: Path, truth: dict, args, out_root: Path, text_rows: dict) -> dict:
    truth = dict(truth)
    truth.setdefault("pages", page_count(pdf))
    printed = corpus.pdf_text(pdf)
    t0 = time.perf_counter()
    copy = cached_copy(slug, pdf, args)
    made = round(time.perf_counter() - t0, 3)
    scan = compile_and_score(slug, copy, truth, printed, out_root / "scan", args.timeout, args.src)
    scan.update(ocr_info(out_root / "scan" / slug))
    scan["copy_seconds"] = made
    if args.text_json is None:
        text = compile_and_score(slug, pdf, truth, printed, out_root / "text", args.timeout, args.src)
    else:
        text = text_rows.get(slug)
    return {"slug": slug, "pages": truth["pages"], "scan": scan, "text": text}


def gaps(scan: dict, text: dict) -> dict:
    """Per field: text layer minus scan (numbers), or both sides (fractions 'a/b')."""
    out = {}
    for k, v in scan.items():
        t = text.get(k)
        if isinstance(v, (int, float)) and isinstance(t, (int, float)) and not isinstance(v, bool):
            out[k] = round(t - v, 3)
        elif isinstance(v, str) and "/" in v:
            out[k] = f"{t} -> {v}"
    return out


def _cache_entries(folder: Path | None) -> int | None:
    """Entries in an OCR cache folder (sources/ocr_cache.py names them <key>.z)."""
    return sum(1 for _ in folder.rglob("*.z")) if folder and folder.is_dir() else (0 if folder else None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only slugs containing this text")
    ap.add_argument("--papers", type=Path, help="a folder of <slug>/paper.pdf + truth.json (default: the corpus)")
    ap.add_argument("--src", type=Path, help="run ctxmill from this src/ folder (e.g. a peer worktree's)")
    ap.add_argument("--jobs", type=int, default=1, help="papers at once (each OCR already uses every core)")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per compile")
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--quality", type=int, default=75, help="JPEG quality of the page images")
    ap.add_argument("--skew", type=float, default=0.0, help="rotate each page by up to this many degrees")
    ap.add_argument("--noise", type=float, default=0.0, help="Gaussian noise, standard deviation in grey levels")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--text-json", type=Path,
                    help="take the text-layer scores from this corpus.py JSON instead of compiling the originals")
    ap.add_argument("--keep", type=Path, help="write the output folders here and keep them")
    ap.add_argument("--ocr-cache", type=Path, metavar="DIR",
                    help="keep and read each page's OCR output in DIR (sources/ocr_cache.py): a scoring run, "
                         "after the first one layout only; pages/s is then not reported. Default: no cache, "
                         "every page read by the engine (a cold run, pages/s reported)")
    args = ap.parse_args()
    # the compiles inherit this: cold (every page read by Tesseract) unless a cache folder is given
    os.environ["CTXMILL_OCR_CACHE"] = str(args.ocr_cache.resolve()) if args.ocr_cache else "off"
    cached_before = _cache_entries(args.ocr_cache)

    todo = [t for t in corpus.papers(args.only, args.papers) if t[0] != "dive-into-claude-code"]
    if not todo:
        print(json.dumps({"skipped": f"no papers under {args.papers or corpus.CORPUS}"}))
        return
    text_rows = {}
    if args.text_json is not None:
        text_rows = {r["slug"]: r for r in json.loads(args.text_json.read_text())["papers"]}
    out_root = args.keep or Path(tempfile.mkdtemp(prefix="ctxmill-scanned-"))
    out_root.mkdir(parents=True, exist_ok=True)
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda t: run_paper(*t, args, out_root, text_rows), todo))
    finally:
        if not args.keep:
            shutil.rmtree(out_root, ignore_errors=True)
    scan_rows = [r["scan"] for r in rows]
    text_rows_here = [r["text"] for r in rows if r["text"]]
    scan_sum = corpus.summarise(scan_rows)
    text_sum = corpus.summarise(text_rows_here) if len(text_rows_here) == len(rows) else None
    if text_sum and args.text_json is not None:
        text_sum["pages_per_second_through_cli"] = None  # timings from another run are not comparable
    if args.ocr_cache:
        scan_sum["pages_per_second_through_cli"] = None  # pages may come from the OCR cache: no speed
    pages = sum(r["pages"] or 0 for r in rows)
    ocr_pages = [r["scan"].get("ocr_pages") for r in rows]
    confs = [r["scan"]["ocr_confidence_mean"] for r in rows if "ocr_confidence_mean" in r["scan"]]
    scan_sum.update({
        "pages": pages,
        "pages_read_by_ocr": sum(p or 0 for p in ocr_pages),
        "papers_without_ocr": sum(p is None for p in ocr_pages),
        "ocr_confidence_mean": corpus.mean(confs),
        "low_confidence_pages": sum(r["scan"].get("low_confidence_pages", 0) for r in rows),
    })
    result = {
        "settings": {"dpi": args.dpi, "jpeg_quality": args.quality, "skew": args.skew, "noise": args.noise,
                     "seed": args.seed, "papers": str(args.papers or corpus.CORPUS / "papers")},
        "scan": scan_sum,
        "text_layer": text_sum,
        "gap_text_minus_scan": gaps(scan_sum, text_sum) if text_sum else None,
        "text_layer_from": str(args.text_json) if args.text_json else "this run",
        # cold: every page read by the engine (pages/s reported); cached: scores only
        "ocr_cache": ({"dir": str(args.ocr_cache), "entries_before": cached_before,
                       "entries_after": _cache_entries(args.ocr_cache), "timing": "not reported (cached run)"}
                      if args.ocr_cache else {"dir": None, "timing": "cold: every page read by the engine"}),
        "cpus": os.cpu_count(), "src": str(args.src or "installed"), "load_average": os.getloadavg()[0],
        "papers": rows,
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
