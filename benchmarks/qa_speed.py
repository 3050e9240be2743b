"""QA share of a compile: per-stage seconds and the quality stage's share of the total.

Each run is a fresh Python process that compiles one input with every stage and writes every
output, as ``ctxmill compile`` does, so one-off import costs land in the stage that pays them
(a stage that imports numpy cold pays ~0.3 s; that is what made QA 340 ms of a 402 ms compile).
Prints one JSON object: per input the median seconds of each stage over ``--runs`` runs, the
median total, ``qa_share`` (median quality seconds / median total) and whether the goal
(QA <= 10% of the compile) is met; ``max_qa_share`` over all inputs.

Inputs: the README's sample text (src/ctxmill/samples/tidal-caching.txt) always; with
../shared present also the 46-page sample PDF and the corpus papers (``--papers N`` of them,
default 3, ``--papers 0`` for all 17).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpus"
GOAL = 0.10

CHILD = r"""
import json, sys, tempfile
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs
options = CompileOptions()
doc = compile_document(sys.argv[1], options)
write_outputs(doc, tempfile.mkdtemp(prefix="ctxmill-qa-speed-"), options)
print(json.dumps({"stages": doc.metrics.stages, "total": doc.metrics.total_seconds, "pages": doc.pages,
                  "qa_score": doc.qa.score}))
"""


def measure(path: Path, runs: int) -> dict:
    results = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
                              timeout=600, cwd=tempfile.gettempdir())
        if proc.returncode != 0:
            return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    stages = {name: round(statistics.median(r["stages"].get(name, 0.0) for r in results), 4)
              for name in results[0]["stages"]}
    total = statistics.median(r["total"] for r in results)
    share = stages.get("quality", 0.0) / total if total else 0.0
    return {"pages": results[0]["pages"], "qa_score": results[0]["qa_score"], "runs": runs,
            "median_total_seconds": round(total, 4), "stages_median_seconds": stages,
            "qa_share": round(share, 4), "goal_met": share <= GOAL}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--papers", type=int, default=3, help="corpus papers to include (0 = all)")
    args = ap.parse_args()
    inputs = {"sample-text": REPO / "src" / "ctxmill" / "samples" / "tidal-caching.txt"}
    if (SHARED / "dive-into-claude-code" / "paper.pdf").is_file():
        inputs["dive-into-claude-code"] = SHARED / "dive-into-claude-code" / "paper.pdf"
    papers = sorted((SHARED / "papers").glob("*/paper.pdf"))
    for pdf in papers[: args.papers or None]:
        inputs[pdf.parent.name] = pdf
    out = {name: measure(path, args.runs) for name, path in inputs.items()}
    shares = [r["qa_share"] for r in out.values() if "qa_share" in r]
    print(json.dumps({"goal_qa_share": GOAL, "max_qa_share": max(shares, default=None),
                      "all_goals_met": all(r.get("goal_met") for r in out.values()), "inputs": out}, indent=2))


if __name__ == "__main__":
    main()
