"""The Form XObject count (``sources/pdf._form_fanout``) on the corpus papers, in process,
beside a peer checkout measured in the same run.

    .venv/bin/python benchmarks/pdf_form_scan.py --peer-src /work/peer-s17/src --repeat 15

Each side runs in its own child (its ``src/`` first on sys.path), the sides in turn, ``--repeat``
rounds; per paper the least CPU time of the rounds (a CPU-bound call on a shared machine: the
least disturbed run) and the median wall time, then the sums over the papers and this/peer
ratios. Each side also reports, once and untimed, the pages over the limit and the per-page
draw counts it finds (they must be identical) and the peak of Python allocations during the call
(tracemalloc: a copy of the file shows as its size; an mmap does not). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "papers"

_CHILD = r"""
import json, sys, time, tracemalloc
src, repeat = sys.argv[1], int(sys.argv[2])
papers = json.loads(sys.stdin.read())
sys.path.insert(0, src)
import pypdfium2 as pdfium
from ctxmill.sources import pdf as pdfmod
from ctxmill.sources import pdf_forms
assert pdfmod.__file__.startswith(src), pdfmod.__file__
out = {}
for p in papers:
    doc = pdfium.PdfDocument(p)
    n = len(doc)
    doc.close()
    pdfmod._form_fanout(p, n)  # warm: the page cache and the imports
    tracemalloc.start()
    verdict = pdfmod._form_fanout(p, n)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    data = open(p, "rb").read()
    draws = pdf_forms.page_form_draws(data, pdfmod.MAX_PAGE_FORM_DRAWS)
    cpu, wall = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        pdfmod._form_fanout(p, n)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - t)
    out[p] = {"pages": n, "over": sorted(verdict), "draws": draws, "peak_alloc": peak, "cpu": cpu, "wall": wall}
print(json.dumps(out))
"""


def run_side(src: str, papers: list[str], repeat: int) -> dict:
    p = subprocess.run([sys.executable, "-c", _CHILD, src, str(repeat)], input=json.dumps(papers),
                       capture_output=True, text=True, timeout=1800)
    if p.returncode:
        raise SystemExit(f"side {src} failed: {p.stderr.strip().splitlines()[-1:]}")
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer-src", required=True, help="the peer checkout's src/ folder")
    ap.add_argument("--this-src", default=str(REPO / "src"))
    ap.add_argument("--repeat", type=int, default=15, help="timed calls per paper per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of this side then the peer")
    args = ap.parse_args()
    papers = [str(p) for p in sorted(CORPUS.glob("*/paper.pdf"))]
    if not papers:
        raise SystemExit("no papers under ../shared/corpus/papers")
    sides = {"this": args.this_src, "peer": args.peer_src}
    got: dict[str, dict] = {"this": {}, "peer": {}}
    for _ in range(args.rounds):
        for side, src in sides.items():
            for p, row in run_side(src, papers, args.repeat).items():
                acc = got[side].setdefault(p, {**row, "cpu": [], "wall": []})
                acc["cpu"] += row["cpu"]
                acc["wall"] += row["wall"]
    rows = []
    same = True
    for p in papers:
        t, q = got["this"][p], got["peer"][p]
        ident = t["over"] == q["over"] and t["draws"] == q["draws"]
        same = same and ident
        rows.append({"paper": Path(p).parent.name, "bytes": Path(p).stat().st_size, "pages": t["pages"],
                     "identical": ident, "forms_counted": t["draws"] is not None,
                     "this_cpu_ms": round(1e3 * min(t["cpu"]), 3), "peer_cpu_ms": round(1e3 * min(q["cpu"]), 3),
                     "this_wall_ms": round(1e3 * statistics.median(t["wall"]), 3),
                     "peer_wall_ms": round(1e3 * statistics.median(q["wall"]), 3),
                     "this_peak_alloc": t["peak_alloc"], "peer_peak_alloc": q["peak_alloc"]})
    tot = {k: round(sum(r[k] for r in rows), 3) for k in ("this_cpu_ms", "peer_cpu_ms", "this_wall_ms", "peer_wall_ms")}
    print(json.dumps({"papers": len(rows), "rounds": args.rounds, "repeat": args.repeat, "outputs_identical": same,
                      "sum": tot, "cpu_ratio": round(tot["this_cpu_ms"] / tot["peer_cpu_ms"], 3),
                      "wall_ratio": round(tot["this_wall_ms"] / tot["peer_wall_ms"], 3),
                      "peak_alloc_sum": {"this": sum(r["this_peak_alloc"] for r in rows),
                                         "peer": sum(r["peer_peak_alloc"] for r in rows)},
                      "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
