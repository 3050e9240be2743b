"""Raw OCR text from any engine (issue 14): compile every ../shared/corpus/ocr/<doc>/source.* and
the sample's OCR text through the ``ctxmill compile`` command and score the output folders.

Per document and as a mean: leftover engine markup in document.md (``leftover`` below: any HTML
tag or comment, grounding tag or box, page marker, LaTeX environment or OCR math delimiter
outside math, escaped ``\\#``, internal link, entity), heading recall / precision / level
accuracy, title, authors and reference count against benchmarks/data/ocr_truth/<doc>.json
(written by reading each document; scored by benchmarks/corpus_score.py's definitions), plus
the engine recognised (metadata ``source.engine``) and the seconds of the compile.

    .venv/bin/python benchmarks/ocr_text.py               # all, JSON on stdout
    .venv/bin/python benchmarks/ocr_text.py --only nougat # documents whose slug contains it
    .venv/bin/python benchmarks/ocr_text.py --keep /tmp/o # keep the output folders
    .venv/bin/python benchmarks/ocr_text.py --dir benchmarks/.cache/ocr_heldout \
        --truth benchmarks/data/ocr_heldout_truth           # any folder of <slug>/source.* + truth folder
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from corpus_score import score  # noqa: E402

OCR = REPO.parent / "shared" / "corpus" / "ocr"
SAMPLE = REPO.parent / "shared" / "corpus" / "dive-into-claude-code" / "ocr-pages-1-16.txt"
TRUTH = REPO / "benchmarks" / "data" / "ocr_truth"
CTXMILL = Path(sys.executable).with_name("ctxmill")

# What counts as engine markup left in document.md (outside code and math).
LEFTOVER = {
    # a tag name may carry an XML namespace prefix: PAGE's <pc:TextLine>, ALTO's <alto:String>, TEI's <tei:p>
    "html_tag": re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?::[A-Za-z][A-Za-z0-9]*)?"
                           r"(?:\s+[A-Za-z_:][-\w:.]*(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"),
    "html_comment": re.compile(r"<!--.*?-->", re.S),
    "entity": re.compile(r"&(?:[a-z]{2,8}|#\d{2,5}|#x[0-9a-f]{2,4});", re.I),
    "grounding": re.compile(r"<\|[a-z_/]+\|>|\[\[\s*\d+(?:\.\d+)?\s*,\s*\d+(?:\.\d+)?\s*,\s*\d+(?:\.\d+)?\s*,"),
    "page_marker": re.compile(r"<-+\s*Page Split\s*-+>|^#{1,6}\s*Page\s+\d+\s*$|[─━]\s*PAGE\s+\d+|\f|"
                              r"\[MISSING_PAGE[^\]]*\]|^\{\d+\}-{8,}$", re.I | re.M),
    "latex_env": re.compile(r"\\(?:begin|end)\{[a-zA-Z*]+\}|\\(?:caption|label|hline|toprule|midrule)\b"),
    "latex_delim": re.compile(r"\\\(|\\\)|\\\[|\\\]"),
    "escaped_md": re.compile(r"\\#|^\\[-*>|]", re.M),
    "internal_link": re.compile(r"\]\(#[^)]*\)"),
    "superscript_math": re.compile(r"\$\{\s*\}\^"),
}
_MATH = re.compile(r"\$\$.*?\$\$|(?<![\\$])\$[^$\n]+\$", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)


def leftover(md: str) -> dict[str, int]:
    text = _CODE.sub(" ", md)
    text = _MATH.sub(" ", text)
    return {k: n for k, rx in LEFTOVER.items() if (n := len(rx.findall(text)))}


def documents(only: str | None, folder: Path | None = None, truth_dir: Path | None = None) -> list[tuple[str, Path, dict]]:
    """(slug, engine output, truth) of the dev set, or of ``folder``'s <slug>/source.* scored
    against ``truth_dir``/<slug>.json (there an engine output may be JSON itself: dots.ocr)."""
    out = []
    for d in sorted((folder or OCR).glob("*/")):
        src = sorted(p for p in d.glob("source.*") if p.suffix != ".json" or folder)
        truth = (truth_dir or TRUTH) / f"{d.name}.json"
        if src and truth.exists() and (not only or only in d.name):
            out.append((d.name, src[0], json.loads(truth.read_text())))
    if folder:
        return out
    if SAMPLE.exists() and (TRUTH / "dive-into-claude-code-ocr.json").exists() and (not only or only in "dive"):
        out.append(("dive-into-claude-code-ocr", SAMPLE, json.loads((TRUTH / "dive-into-claude-code-ocr.json").read_text())))
    return out


def run_one(slug: str, src: Path, truth: dict, out_root: Path) -> dict:
    out = out_root / slug
    t0 = time.perf_counter()
    proc = subprocess.run([str(CTXMILL), "compile", str(src), "-o", str(out), "--json"],
                          capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"slug": slug, "status": "refused" if proc.returncode == 3 else "failed",
                "reason": (proc.stderr.strip().splitlines() or [""])[-1][:200]}
    s = score(out, truth)
    md = (out / "document.md").read_text()
    meta = json.loads((out / "metadata.json").read_text())
    left = leftover(md)
    refs = s["references"]
    return {
        "slug": slug, "status": "done", "engine": meta.get("source", {}).get("engine"),
        "leftover": sum(left.values()), "leftover_kinds": left,
        "headings": {k: s["headings"][k] for k in ("truth", "ours", "recall", "precision", "level_accuracy",
                                                     "missing", "extra")},
        "title": s["title"], "title_expected": truth.get("title") or None,
        "title_ok": s["title_ok"] if truth.get("title") else not s["title"],
        "authors": s["authors"],
        "references": {"printed": refs["printed"], "ours": refs["ours"],
                       "count_ok": refs["count_ok"] if refs["printed"] else refs["ours"] == 0},
        "qa_score": s["qa_score"], "seconds": round(seconds, 3),
    }


def mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 3) if xs else None


def summarise(rows: list[dict]) -> dict:
    done = [r for r in rows if r["status"] == "done"]
    return {
        "documents": len(rows), "compiled": len(done),
        "leftover_total": sum(r["leftover"] for r in done),
        "documents_with_leftover": sum(1 for r in done if r["leftover"]),
        "heading_recall_mean": mean(r["headings"]["recall"] for r in done),
        "heading_precision_mean": mean(r["headings"]["precision"] for r in done),
        "level_accuracy_mean": mean(r["headings"]["level_accuracy"] for r in done),
        "titles_ok": f"{sum(r['title_ok'] for r in done)}/{len(done)}",
        "authors_found": f"{sum(r['authors']['found'] for r in done)}/{sum(r['authors']['truth'] for r in done)}",
        "reference_counts_within_10pct": f"{sum(r['references']['count_ok'] for r in done)}/{len(done)}",
        "engines_recognised": {r["slug"]: r["engine"] for r in done},
        "seconds_median": sorted(r["seconds"] for r in done)[len(done) // 2] if done else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="only documents whose slug contains this")
    ap.add_argument("--keep", type=Path, help="keep output folders here")
    ap.add_argument("--brief", action="store_true", help="print only the summary")
    ap.add_argument("--dir", type=Path, help="score this folder of <slug>/source.* instead of the dev set")
    ap.add_argument("--truth", type=Path, help="truth folder (<slug>.json) for --dir")
    args = ap.parse_args()
    docs = documents(args.only, args.dir, args.truth if args.dir else None)
    if not docs:
        print(json.dumps({"skipped": f"no OCR documents with truth under {args.dir or OCR}"}))
        return
    out_root = args.keep or Path(tempfile.mkdtemp(prefix="ctxmill-ocr-"))
    try:
        rows = [run_one(slug, src, truth, out_root) for slug, src, truth in docs]
    finally:
        if not args.keep:
            shutil.rmtree(out_root, ignore_errors=True)
    result = {"summary": summarise(rows)}
    if not args.brief:
        result["documents"] = rows
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
