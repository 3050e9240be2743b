"""What one compile pays for its bibliography's labeller, from a fresh process: the import of
``ctxmill.compile.refparse`` (numpy and pycrfsuite among it), the model's load (weights,
lattice, gazetteers) and a first pass over a list of entries with every cache empty, as
``compile/references.py``'s ``_label_all`` runs it (``reference_fields`` with the rule parser as
fallback). benchmarks/references.py measures warm passes (the same strings three times in one
process); a compile labels each entry once, so new token texts, stretches and positions, whose
score rows are built on first sight, are most of its cost.

Lists: ``refs`` (benchmarks/fuzz.py's reference list, its 2,000 entries the command labels),
``held_out`` (the 1,996 GROBID and AnyStyle held-out strings, with --grobid/--anystyle), and
``paper`` (the first 60 of them: a paper's bibliography). Each tree (this checkout, or --this,
and --peer) runs in fresh processes taking turns, --rounds times; CPU seconds of the process
(one thread), the least and the median. With ``--compile FILE``: that input compiled in process (no
chunks), the references stage's CPU (this thread's) and the whole compile's.

    flock /tmp/ctxmill-bench.lock .venv/bin/python benchmarks/refparse_speed.py --peer /work/peer-s14/src \\
        --grobid /tmp/grobid --anystyle /tmp/anystyle --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def refs() -> list[str]:
    return [f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020." for i in range(2000)]


def one(kind: str, strings_file: Path | None) -> dict:
    """In the process under test: import, load and one pass, each by this process's CPU time."""
    import time

    clock = time.process_time
    t0 = clock()
    import ctxmill.compile.refparse  # noqa: F401
    from ctxmill.compile.refparse import model
    t1 = clock()
    model.load()
    t2 = clock()
    from ctxmill.compile.references import _label_all
    texts = refs() if kind == "refs" else json.loads(strings_file.read_text())
    if kind == "paper":
        texts = texts[:60]
    t3 = clock()
    _label_all(texts)
    t4 = clock()
    return {"import": t1 - t0, "load": t2 - t1, "label": t4 - t3, "strings": len(texts),
            "numpy_imported": "numpy" in sys.modules}


def one_compile(path: Path) -> dict:
    """In the process under test: compile ``path`` (no chunks) and time its references stage by
    this thread's CPU (the labeller's import, load and every entry), and the whole by the process's."""
    import time

    from ctxmill.compile import references
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    stage = references.run
    got = {}

    def timed(doc, options):
        t = time.thread_time()
        stage(doc, options)
        got["references"] = time.thread_time() - t

    references.run = timed
    t0 = time.process_time()
    compile_document(path, CompileOptions(chunks=False))
    return {"references": got.get("references", 0.0), "compile": time.process_time() - t0,
            "numpy_imported": "numpy" in sys.modules}


def run(src: Path | None, kind: str, strings_file: Path | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable, __file__, "--one", kind] + ([str(strings_file)] if strings_file else [])
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout)


def summary(runs: list[dict]) -> dict:
    out = {}
    for k in ("import", "load", "label"):
        v = [r[k] for r in runs]
        out[k] = {"min": round(min(v), 4), "median": round(statistics.median(v), 4)}
    total = [r["import"] + r["load"] + r["label"] for r in runs]
    out["total"] = {"min": round(min(total), 4), "median": round(statistics.median(total), 4)}
    n = runs[0]["strings"]
    out["strings"] = n
    out["label_us_a_string"] = {"min": round(1e6 * out["label"]["min"] / n, 1),
                                "median": round(1e6 * out["label"]["median"] / n, 1)}
    out["numpy_imported"] = runs[0]["numpy_imported"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", type=Path, help="another src/ folder measured in turn")
    ap.add_argument("--this", type=Path, help="this side's src/ folder (default: this checkout)")
    ap.add_argument("--grobid", type=Path, help="a GROBID checkout (held_out and paper lists)")
    ap.add_argument("--anystyle", type=Path, help="an AnyStyle checkout")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compile", type=Path, help="instead: compile this input (no chunks) in fresh processes, "
                    "the references stage's CPU and the compile's")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one and args.one[0] == "compile":
        print(json.dumps(one_compile(Path(args.one[1]))))
        return
    if args.compile:
        trees = {"this": args.this, **({"peer": args.peer} if args.peer else {})}
        runs = {name: [] for name in trees}
        for i in range(args.rounds):
            for name, src in (list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]):
                env = dict(os.environ)
                if src is not None:
                    env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
                runs[name].append(json.loads(subprocess.run(
                    [sys.executable, __file__, "--one", "compile", str(args.compile)], capture_output=True, text=True,
                    check=True, env=env).stdout))
        print(json.dumps({"input": str(args.compile), "rounds": args.rounds, "load_average": os.getloadavg(),
                          **{name: {k: {"min": round(min(r[k] for r in v), 4),
                                        "median": round(statistics.median(r[k] for r in v), 4)}
                                    for k in ("references", "compile")} | {"numpy_imported": v[0]["numpy_imported"]}
                             for name, v in runs.items()}}, indent=1))
        return
    if args.one:
        print(json.dumps(one(args.one[0], Path(args.one[1]) if len(args.one) > 1 else None)))
        return
    kinds = ["refs"]
    strings_file = None
    if args.grobid and args.anystyle:
        sys.path.insert(0, str(REPO / "scripts"))
        import tempfile

        from train_refparse import held_out
        strings_file = Path(tempfile.mkdtemp()) / "held_out.json"
        strings_file.write_text(json.dumps([t for exs in held_out(args.grobid, args.anystyle).values()
                                            for t, _ in exs]))
        kinds += ["held_out", "paper"]
    trees = {"this": args.this, **({"peer": args.peer} if args.peer else {})}
    runs: dict = {name: {k: [] for k in kinds} for name in trees}
    for _ in range(args.rounds):
        for kind in kinds:
            for name, src in trees.items():
                runs[name][kind].append(run(src, kind, strings_file if kind != "refs" else None))
    result = {"rounds": args.rounds, "load_average": os.getloadavg(),
              **{name: {k: summary(v) for k, v in r.items()} for name, r in runs.items()}}
    if args.peer:
        result["ratio_total_min"] = {k: round(result["this"][k]["total"]["min"] / result["peer"][k]["total"]["min"], 3)
                                     for k in kinds}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
