"""Are two trees' outputs the same? Compiles the corpus inputs and the fuzz text shapes through
the ``ctxmill compile`` command with this tree's ``src`` and a peer's, and compares every output
file byte for byte (metrics.json, which holds timings, and bundle.zip, which holds metrics.json,
aside). The check a speed-only change must pass before it lands.

    git worktree add --detach ../peer <commit>
    .venv/bin/python benchmarks/outputs_identical.py --peer ../peer/src [--only shapes-]

Inputs: the 17 papers of ../shared/corpus/papers, the sample PDF and its OCR text, the 10
OCR-engine texts of ../shared/corpus/ocr (those skipped without ../shared), and fuzz.py's
SCALING_SHAPES at ``--bytes`` (seed 0). Prints JSON: per input the two exit codes, the files
compared and those that differ; ``identical`` counts the inputs whose outputs all agree.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import fuzz  # noqa: E402

SHARED = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared"))
_SKIP = {"metrics.json", "bundle.zip"}
# the command as a user runs it (ctxmill.entry), from whichever src/ PYTHONPATH names
_CLI = "import sys; from ctxmill.entry import main; sys.argv[0] = 'ctxmill'; sys.exit(main())"


def inputs(shapes_dir: Path, size: int) -> list[tuple[str, Path]]:
    out = []
    corpus = SHARED / "corpus"
    if corpus.is_dir():
        out += [("corpus-" + p.name, p / "paper.pdf") for p in sorted((corpus / "papers").iterdir())
                if (p / "paper.pdf").is_file()]
        sample = corpus / "dive-into-claude-code"
        out += [("corpus-sample-pdf", sample / "paper.pdf"), ("corpus-sample-ocr", sample / "ocr-pages-1-16.txt")]
        for p in sorted((corpus / "ocr").iterdir()):
            src = sorted(p.glob("source.m*")) if p.is_dir() else []
            if src:
                out.append(("corpus-ocr-" + p.name, src[0]))
    for shape in fuzz.SCALING_SHAPES:
        f = shapes_dir / f"{shape}.txt"
        f.write_bytes(fuzz.text_shape(random.Random(0), shape, size))
        out.append(("shapes-" + shape, f))
    return out


def compile_with(src: Path, path: Path, out: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(src))
    return subprocess.run([sys.executable, "-c", _CLI, "compile", str(path), "-o", str(out)], env=env,
                          capture_output=True, timeout=1800).returncode


def differences(a: Path, b: Path) -> tuple[int, list[str]]:
    """(files compared, the files that differ or exist on one side only)."""
    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name not in _SKIP}

    fa, fb = files(a) if a.is_dir() else set(), files(b) if b.is_dir() else set()
    diff = sorted(fa ^ fb) + sorted(n for n in fa & fb if not filecmp.cmp(a / n, b / n, shallow=False))
    return len(fa | fb), diff


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", type=Path, required=True, help="the other tree's src/ folder")
    ap.add_argument("--this", type=Path, default=REPO / "src", help="this side's src/ folder (default: this tree's)")
    ap.add_argument("--only", default="", help="only the inputs whose name holds this text (corpus-, shapes-, ...)")
    ap.add_argument("--bytes", type=int, default=1_000_000, help="size of each fuzz shape")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    for src in (args.this, args.peer):  # (a missing folder would run the installed ctxmill on that side)
        if not (src / "ctxmill").is_dir():
            ap.error(f"{src}: no ctxmill package there (give a tree's src/ folder)")
    with tempfile.TemporaryDirectory(prefix="ctxmill-identical-") as tmp:
        work = Path(tmp)
        (work / "shapes").mkdir()
        todo = [i for i in inputs(work / "shapes", args.bytes) if args.only in i[0]]

        def one(item: tuple[str, Path]) -> dict:
            name, path = item
            codes = [compile_with(src, path, work / side / name) for side, src in (("this", args.this),
                                                                                   ("peer", args.peer))]
            n, diff = differences(work / "this" / name, work / "peer" / name)
            return {"input": name, "exit": codes, "files": n, "differ": diff}

        with ThreadPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(one, todo))
    same = [r for r in rows if r["exit"][0] == r["exit"][1] and not r["differ"]]
    print(json.dumps({"this": str(args.this), "peer": str(args.peer), "inputs": len(rows),
                      "identical": len(same), "files": sum(r["files"] for r in rows),
                      "not_identical": [r for r in rows if r not in same]}, indent=1))


if __name__ == "__main__":
    main()
