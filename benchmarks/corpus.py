"""Document quality on the whole corpus: every ../shared/corpus/papers/*/paper.pdf and the sample.

Each PDF is compiled as a user meets it, through the ``ctxmill compile`` command (interpreter
start included), and the output folder is scored by benchmarks/corpus_score.py against the
paper's LaTeX-derived truth. Prints one JSON object: per paper (heading recall / precision /
level accuracy, title, authors, abstract, references and reference titles, QA score and its
errors, seconds) and the means the issues quote.

    .venv/bin/python benchmarks/corpus.py                 # all papers, 2 at a time
    .venv/bin/python benchmarks/corpus.py --only ieee     # slugs containing "ieee"
    .venv/bin/python benchmarks/corpus.py --keep /tmp/out # keep the output folders
    .venv/bin/python benchmarks/corpus.py --papers benchmarks/.cache/unseen   # another set (unseen_truth.py)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from corpus_score import score  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
CTXMILL = Path(sys.executable).with_name("ctxmill")


def sample_truth(path: Path) -> dict:
    """The sample's hyperref truth in the papers' truth shape."""
    t = json.loads(path.read_text())
    return {
        "title": t["metadata"]["title"],
        "authors": [a["name"] for a in t["metadata"]["authors"]],
        "sections": [{"level": o["level"], "title": o["title"]} for o in t["outline"]],
        "n_references": len(t["references"]),
        "pages": t["pages"],
    }


def papers(only: str | None, folder: Path | None = None) -> list[tuple[str, Path, dict]]:
    """<folder>/*/paper.pdf with its truth.json (default: the shared corpus, plus the sample paper)."""
    out = []
    for d in sorted((folder or CORPUS / "papers").glob("*/")):
        if (d / "paper.pdf").exists() and (not only or only in d.name):
            out.append((d.name, d / "paper.pdf", json.loads((d / "truth.json").read_text())))
    if folder is not None:
        return out
    dive = CORPUS / "dive-into-claude-code"
    if (dive / "paper.pdf").exists() and (not only or only in "dive-into-claude-code"):
        out.append(("dive-into-claude-code", dive / "paper.pdf", sample_truth(dive / "truth.json")))
    return out


def command(src: Path | None) -> tuple[list[str], dict | None]:
    """The ctxmill command: the installed one, or the same entry point run from another source tree (a peer
    worktree of an earlier commit, measured in the same run)."""
    if src is None:
        return [str(CTXMILL)], None
    env = dict(os.environ, PYTHONPATH=str(src))
    return [sys.executable, "-c", "import sys; from ctxmill.entry import main; sys.exit(main())"], env


def run_one(slug: str, pdf: Path, truth: dict, out_root: Path, timeout: float, src: Path | None = None,
            printed: str | None = None) -> dict:
    """Compile one PDF through the command and score it; ``printed`` is the text the paper prints (default: its own
    text layer; benchmarks/scanned.py passes the original's, as a scan has none)."""
    out = out_root / slug
    t0 = time.perf_counter()
    cmd, env = command(src)
    try:
        p = subprocess.run([*cmd, "compile", str(pdf), "-o", str(out), "--json"],
                           capture_output=True, text=True, timeout=timeout, env=env)
        rc, err = p.returncode, p.stderr.strip()[-300:]
    except subprocess.TimeoutExpired:
        rc, err = 124, "timeout"
    seconds = time.perf_counter() - t0
    res = {"slug": slug, "exit": rc, "seconds": round(seconds, 3), "pages": truth.get("pages")}
    if rc != 0:
        res["error"] = err
    res.update(score(out, truth, printed_text=pdf_text(pdf) if printed is None else printed))
    return res


_PDFIUM = threading.Lock()  # pdfium is not thread-safe, and --jobs runs papers on threads


def pdf_text(pdf: Path) -> str:
    """The PDF's own text layer (pdfium), to tell which truth reference titles the paper prints."""
    import pypdfium2

    with _PDFIUM:
        doc = pypdfium2.PdfDocument(str(pdf))
        try:
            return "\n".join(page.get_textpage().get_text_range() for page in doc)
        finally:
            doc.close()


def mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(statistics.fmean(xs), 3) if xs else None


def summarise(rows: list[dict]) -> dict:
    papers_only = [r for r in rows if r["slug"] != "dive-into-claude-code"]
    with_titles = [r for r in papers_only if r["references"].get("titles_truth")]
    with_authors = [r for r in papers_only if r["authors"]["truth"]]
    pages = sum(r["pages"] or 0 for r in rows)
    return {
        "papers": len(papers_only),
        "refused_or_failed": sum(r["exit"] != 0 for r in rows),
        "heading_recall_mean": mean(r["headings"]["recall"] for r in papers_only),
        "heading_recall_min": min((r["headings"]["recall"] for r in papers_only), default=None),
        "heading_precision_mean": mean(r["headings"]["precision"] for r in papers_only),
        "heading_level_accuracy_mean": mean(r["headings"]["level_accuracy"] for r in papers_only),
        "titles_exact": f"{sum(r['title_ok'] for r in papers_only)}/{len(papers_only)}",
        "authors_found": f"{sum(r['authors']['found'] for r in with_authors)}/"
                         f"{sum(r['authors']['truth'] for r in with_authors)}",
        "authors_extra": sum(r["authors"]["extra"] for r in papers_only),
        "abstracts": f"{sum(r['abstract'] for r in papers_only)}/{len(papers_only)}",
        "abstracts_agree": f"{sum(bool(r.get('abstract_agrees')) for r in papers_only)}/"
                           f"{sum('abstract_agrees' in r for r in papers_only)}",
        "reference_counts_within_10pct": f"{sum(r['references']['count_ok'] for r in papers_only)}/{len(papers_only)}",
        "reference_titles_parsed": f"{sum(r['references']['titles_parsed'] for r in with_titles)}/"
                                   f"{sum(r['references']['titles_truth'] for r in with_titles)}",
        "reference_titles_not_printed": sum(r["references"].get("titles_not_printed", 0) for r in papers_only),
        "qa_score_mean": mean(r["qa_score"] for r in papers_only),
        "pages_per_second_through_cli": round(pages / sum(r["seconds"] for r in rows), 2) if rows else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only slugs containing this text")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--keep", type=Path, help="write output folders here and keep them")
    ap.add_argument("--brief", action="store_true", help="print only the summary")
    ap.add_argument("--papers", type=Path, help="score this folder of <slug>/paper.pdf + truth.json instead")
    ap.add_argument("--src", type=Path, help="run ctxmill from this src/ folder (e.g. a peer worktree's)")
    args = ap.parse_args()
    todo = papers(args.only, args.papers)
    if not todo:
        print(json.dumps({"skipped": f"no papers under {args.papers or CORPUS}"}))
        return
    out_root = args.keep or Path(tempfile.mkdtemp(prefix="ctxmill-corpus-"))
    out_root.mkdir(parents=True, exist_ok=True)
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(lambda t: run_one(*t, out_root, args.timeout, args.src), todo))
    finally:
        if not args.keep:
            shutil.rmtree(out_root, ignore_errors=True)
    result = {"summary": summarise(rows), "cpus": os.cpu_count(), "src": str(args.src or "installed"),
              "load_average": os.getloadavg()[0]}
    if not args.brief:
        result["papers"] = rows
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
