"""Compile speed: ctxmill's full compile of a PDF vs pymupdf4llm's ``to_markdown``.

Prints one JSON object: pages/s of the full compile (every stage and every output file, as
``ctxmill compile`` does it), of ``--fast``, and of pymupdf4llm measured in the same run, each the
median of ``--runs`` runs (default 3), plus the speed-up and whether the goals (>= 30 pages/s,
>= 10x pymupdf4llm) are met.

pymupdf4llm is AGPL and never a dependency of ctxmill. The benchmark uses it when it can be
imported here, or from another interpreter given with ``--peer-python`` (or the environment
variable ``CTXMILL_PEER_PYTHON``), e.g. a throwaway venv::

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install pymupdf4llm   # pymupdf >= 2 carries it
    python benchmarks/compile_speed.py --peer-python /tmp/peer/bin/python

``--cpus N`` pins this process (and its children) to N cores, so a big machine can stand in
for the 2-core target.
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
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PDF = REPO.parent / "shared" / "corpus" / "dive-into-claude-code" / "paper.pdf"

PEER_SCRIPT = r"""
import json, sys, time
path, runs, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    import pymupdf4llm as m
    version = getattr(m, "__version__", None) or getattr(m, "VERSION", None)
except ImportError:
    import pymupdf
    m = pymupdf.pymupdf4llm
    version = getattr(m, "VERSION", None) or pymupdf.VersionBind
if mode == "legacy" and hasattr(m, "use_layout"):
    m.use_layout(False)
elif mode == "legacy":
    print(json.dumps({"skipped": "no layout switch in this version"})); sys.exit(0)
import pymupdf
pages = pymupdf.open(path).page_count
times = []
for _ in range(runs):
    t = time.perf_counter()
    md = m.to_markdown(path)
    times.append(time.perf_counter() - t)
print(json.dumps({"version": str(version), "pages": pages, "runs": times, "chars": len(md)}))
"""


def _median_block(times: list[float], pages: int) -> dict:
    med = statistics.median(times)
    return {"median_seconds": round(med, 4), "pages_per_second": round(pages / med, 2),
            "runs": [round(t, 4) for t in times]}


def run_ctxmill(pdf: Path, runs: int, fast: bool) -> dict:
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    times: list[float] = []
    stages: dict[str, list[float]] = {}
    pages = 0
    tmp = Path(tempfile.mkdtemp(prefix="ctxmill-bench-"))
    try:
        for i in range(runs):
            options = CompileOptions(fast=fast)
            t = time.perf_counter()
            doc = compile_document(pdf, options)
            write_outputs(doc, tmp / f"out{i}", options)
            times.append(time.perf_counter() - t)
            pages = doc.pages
            for name, sec in doc.metrics.stages.items():
                stages.setdefault(name, []).append(sec)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = _median_block(times, pages)
    out["pages"] = pages
    out["stages_median_seconds"] = {k: round(statistics.median(v), 4) for k, v in stages.items()}
    return out


def find_peer(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    if os.environ.get("CTXMILL_PEER_PYTHON"):
        return os.environ["CTXMILL_PEER_PYTHON"]
    probe = subprocess.run([sys.executable, "-c", "import pymupdf4llm"], capture_output=True)
    return sys.executable if probe.returncode == 0 else None


def run_peer(python: str, pdf: Path, runs: int, mode: str) -> dict:
    proc = subprocess.run([python, "-c", PEER_SCRIPT, str(pdf), str(runs), mode], capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return {"available": False, "reason": last[:300]}
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skipped" in data:
        return {"available": False, "reason": data["skipped"]}
    out = _median_block(data["runs"], data["pages"])
    out.update({"available": True, "version": data["version"], "mode": mode})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, default=DEFAULT_PDF)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cpus", type=int, default=None, help="pin to this many cores (default: all)")
    ap.add_argument("--peer-python", default=None, help="interpreter that can import pymupdf4llm")
    ap.add_argument("--no-peer", action="store_true", help="skip pymupdf4llm")
    args = ap.parse_args(argv)
    if not args.pdf.is_file():
        print(json.dumps({"error": f"{args.pdf} not found"}))
        return 2
    if args.cpus:
        cores = sorted(os.sched_getaffinity(0))[: args.cpus]
        os.sched_setaffinity(0, cores)
    runs = max(3, args.runs)
    result: dict = {
        "pdf": str(args.pdf),
        "cpus": len(os.sched_getaffinity(0)),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "runs": runs,
    }
    run_ctxmill(args.pdf, 1, False)  # warm-up: imports, page cache
    result["ctxmill_full"] = run_ctxmill(args.pdf, runs, False)
    result["ctxmill_fast"] = run_ctxmill(args.pdf, runs, True)
    peer = None if args.no_peer else find_peer(args.peer_python)
    if peer is None:
        result["pymupdf4llm"] = {"available": False, "reason": "pymupdf4llm is not installed (AGPL: not a ctxmill "
                                                                  "dependency; pass --peer-python to measure it)"}
    else:
        result["pymupdf4llm"] = run_peer(peer, args.pdf, runs, "default")
        legacy = run_peer(peer, args.pdf, runs, "legacy")
        if legacy.get("available"):
            result["pymupdf4llm_no_layout"] = legacy
    full = result["ctxmill_full"]["pages_per_second"]
    result["goal"] = {"pages_per_second": 30, "speedup_vs_pymupdf4llm": 10}
    met = {"pages_per_second": full >= 30}
    if result["pymupdf4llm"].get("available"):
        result["speedup_vs_pymupdf4llm"] = round(full / result["pymupdf4llm"]["pages_per_second"], 2)
        met["speedup_vs_pymupdf4llm"] = result["speedup_vs_pymupdf4llm"] >= 10
        if "pymupdf4llm_no_layout" in result:
            result["speedup_vs_pymupdf4llm_no_layout"] = round(
                full / result["pymupdf4llm_no_layout"]["pages_per_second"], 2)
    result["met"] = met
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
