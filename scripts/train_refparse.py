"""Train the reference-string labeller shipped as src/ctxmill/data/refparse.crfsuite.

    git clone --depth 1 https://github.com/kermitt2/grobid   /tmp/grobid
    git clone --depth 1 https://github.com/inukshuk/anystyle /tmp/anystyle
    .venv/bin/python scripts/train_refparse.py --grobid /tmp/grobid --anystyle /tmp/anystyle

Training data (sources and licences in NOTICE):
- GROBID's citation corpus, grobid-trainer/resources/dataset/citation/corpus/*.xml
  (Apache-2.0), without its evaluation files (evaluation-*.xml, whose copies also sit in
  corpus/) and without the kisti test/valid splits;
- AnyStyle's parser data, res/parser/{core,good,ugly,bad}.xml (BSD-2-Clause), without gold.xml.
Any training string that equals a held-out string (GROBID evaluation/, AnyStyle gold.xml),
case and punctuation aside, is dropped too. The held-out sets are what
benchmarks/references.py reports on. The same inputs give the same model: files are read in
sorted order and CRFsuite's L-BFGS training has no randomness.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pycrfsuite

from ctxmill.compile.refparse.datasets import norm_key, read_anystyle, read_tei, token_labels
from ctxmill.compile.refparse.features import sequence_features

MODEL = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "data" / "refparse.crfsuite"
GROBID_SUB = "grobid-trainer/resources/dataset/citation"
ANYSTYLE_SUB = "res/parser"


def grobid_dir(root: Path) -> Path:
    return root / GROBID_SUB if (root / GROBID_SUB).is_dir() else root


def anystyle_dir(root: Path) -> Path:
    return root / ANYSTYLE_SUB if (root / ANYSTYLE_SUB).is_dir() else root


def held_out(grobid: Path, anystyle: Path) -> dict[str, list]:
    g = grobid_dir(grobid) / "evaluation"
    return {
        "grobid_evaluation": [ex for f in sorted(g.glob("*.xml")) for ex in read_tei(f)],
        "anystyle_gold": read_anystyle(anystyle_dir(anystyle) / "gold.xml"),
    }


def training_files(grobid: Path, anystyle: Path) -> list[Path]:
    corpus = sorted((grobid_dir(grobid) / "corpus").glob("*.xml"))
    keep = [p for p in corpus if not p.name.startswith("evaluation") and not p.name.startswith(("kisti_test", "kisti_valid"))]
    a = anystyle_dir(anystyle)
    return keep + [a / f"{n}.xml" for n in ("core", "good", "ugly", "bad")]


def load_training(grobid: Path, anystyle: Path) -> tuple[list, dict]:
    banned = {norm_key(t) for exs in held_out(grobid, anystyle).values() for t, _ in exs}
    examples, stats = [], {"files": 0, "strings": 0, "dropped_as_held_out": 0, "duplicates": 0}
    seen: set[str] = set()
    for f in training_files(grobid, anystyle):
        exs = read_anystyle(f) if f.parent.name == "parser" else read_tei(f)
        stats["files"] += 1
        for text, spans in exs:
            key = norm_key(text)
            if key in banned:
                stats["dropped_as_held_out"] += 1
                continue
            if key in seen:
                stats["duplicates"] += 1
                continue
            seen.add(key)
            examples.append((text, spans))
    stats["strings"] = len(examples)
    return examples, stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grobid", type=Path, required=True, help="a GROBID checkout (or its dataset/citation folder)")
    ap.add_argument("--anystyle", type=Path, required=True, help="an AnyStyle checkout (or its res/parser folder)")
    ap.add_argument("-o", "--output", type=Path, default=MODEL)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--c1", type=float, default=0.3, help="L1 weight: prunes features, keeps the model small")
    ap.add_argument("--c2", type=float, default=0.01)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    examples, stats = load_training(args.grobid, args.anystyle)
    trainer = pycrfsuite.Trainer(verbose=False)
    for text, spans in examples:
        words, labels = token_labels(text, spans)
        if words:
            trainer.append(sequence_features(words), labels)
    trainer.set_params({"c1": args.c1, "c2": args.c2, "max_iterations": args.iterations,
                        "feature.possible_transitions": True, "feature.minfreq": 2})
    args.output.parent.mkdir(parents=True, exist_ok=True)
    trainer.train(str(args.output))
    stats.update(seconds=round(time.perf_counter() - t0, 1), model_bytes=args.output.stat().st_size,
                 model=str(args.output), iterations=args.iterations, c1=args.c1, c2=args.c2)
    json.dump(stats, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
