"""Tesseract command settings: the same pages read under each setting, interleaved, many times.

    .venv/bin/python benchmarks/ocr_settings.py [--pages 20] [--reps 12] [--scan-dpi 150] \
        "native=-c dotproduct=native" "thp=GLIBC_TUNABLES=glibc.malloc.hugetlb=1" ...

Each setting is ``NAME=ARGS``: ``-c name=value`` pairs go to the command, ``VAR=value`` words to
its environment; ``auto`` (ctxmill's own command line) always runs first and is the reference.
The pages are those of the sample paper made into a ``--scan-dpi`` image-only copy, rendered,
cleaned and cropped to their ink as ctxmill hands them over (``--pages 1,3,9,20,40`` reads them
as one multi-page TIFF in one process, as a batch). Every repetition runs each setting once, in
alternate order; per setting: median CPU seconds of the process (user + system), the median of
its ratio to ``auto`` in the same repetition (which cancels slow drift of a shared machine),
minor page faults, and whether the hOCR is byte for byte ``auto``'s. Only CPU, no hardware
counters: on a shared machine run it under ``flock /tmp/ctxmill-bench.lock`` and read the
spread of two identical settings (``again=``) as the noise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))


def engine_pages(scan: Path, numbers: list[int], dpi: int) -> list:
    """The pages as ctxmill's OCR gives them to the engine (render, despeckle, crop to ink)."""
    import pypdfium2 as pdfium

    from ctxmill.sources import ocr

    pdf = pdfium.PdfDocument(str(scan))
    images = []
    for n in numbers:
        page = pdf[n - 1]
        width, height = page.get_size()
        image = ocr.prepare(ocr.render(page, ocr.page_dpi(width, height, dpi)))
        page.close()
        images.append(ocr._crop_to_ink(image, dpi)[0])
    pdf.close()
    return images


def parse_setting(spec: str) -> tuple[str, list[str], dict]:
    name, _, rest = spec.partition("=")
    args, env, words = [], {}, rest.split()
    i = 0
    while i < len(words):
        if words[i] == "-c" and i + 1 < len(words):
            args += ["-c", words[i + 1]]
            i += 2
            continue
        key, _, value = words[i].partition("=")
        env[key] = value
        i += 1
    return name, args, env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("settings", nargs="*", help='NAME="-c var=value ENVVAR=value ..."')
    ap.add_argument("--pages", default="20", help="page numbers of the sample, read in one process")
    ap.add_argument("--reps", type=int, default=12)
    ap.add_argument("--scan-dpi", type=int, default=150)
    args = ap.parse_args()
    os.environ.setdefault("CTXMILL_OCR_CACHE", "off")  # timings: every page read by the engine, none from the OCR cache

    import ocr as bench
    from ctxmill.sources import ocr

    engine = ocr.TesseractEngine(backend="cli")
    dpi = ocr.settings()["dpi"]
    numbers = [int(x) for x in args.pages.split(",")]
    settings = [("auto", [], {})] + [parse_setting(s) for s in args.settings]
    with tempfile.TemporaryDirectory() as tmp:
        scan = Path(tmp) / "scan.pdf"
        bench.make_image_pdf(bench.CORPUS / "paper.pdf", scan, args.scan_dpi, max(numbers))
        tif = str(Path(tmp) / "pages.tif")
        ocr._write_tiff(engine_pages(scan, numbers, dpi), tif)
        # ctxmill's own command line (TesseractEngine._run_cli), reading the TIFF file
        base = [engine.binary, tif, "stdout", *engine._tessdata_arg(engine.tessdata), "--dpi", str(dpi),
                "-l", engine.lang, "--psm", str(engine.psm), "-c", "hocr_char_boxes=1", "-c", "tessedit_do_invert=0",
                *[a for k, v in ocr._SKIP_WORK.items() for a in ("-c", f"{k}={v}")]]
        runs: dict[str, list[dict]] = {name: [] for name, _, _ in settings}
        load = [os.getloadavg()[0]]
        for rep in range(args.reps):
            for name, extra, env in settings if rep % 2 == 0 else settings[::-1]:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.run([*base, *extra, "quiet", "hocr"], capture_output=True,
                                      env=dict(os.environ, OMP_THREAD_LIMIT="1", **env))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                runs[name].append({"cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                                   "faults": after.ru_minflt - before.ru_minflt,
                                   "md5": hashlib.md5(proc.stdout).hexdigest(), "rc": proc.returncode})
            load.append(os.getloadavg()[0])
    ref = runs["auto"]
    out = {}
    for name, rows in runs.items():
        ratios = sorted(r["cpu"] / a["cpu"] for r, a in zip(rows, ref, strict=True))
        out[name] = {"cpu_s_median": round(statistics.median(r["cpu"] for r in rows), 3),
                     "ratio_to_auto_median": round(statistics.median(ratios), 3),
                     "ratio_to_auto_quartiles": [round(ratios[len(ratios) // 4], 3),
                                                 round(ratios[(3 * len(ratios)) // 4], 3)],
                     "minor_faults_median": statistics.median(r["faults"] for r in rows),
                     "cpu_s_each": [round(r["cpu"], 2) for r in rows],
                     "hocr_same_as_auto": all(r["md5"] == ref[0]["md5"] for r in rows),
                     "failed": sum(r["rc"] != 0 for r in rows)}
    print(json.dumps({"engine": engine.version(), "pages": numbers, "reps": args.reps,
                      "load_average": [round(min(load), 2), round(max(load), 2)], "settings": out}, indent=2))


if __name__ == "__main__":
    main()
