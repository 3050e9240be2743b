"""Doubt signals of the labeller, compared on the cross-validation folds (issue 22).

Today's doubt is the parse's confidence, the mean marginal of the labels chosen
(``refparse.DOUBTFUL``). This compares it with other signals from the same marginals, on the dev
strings of the four dev models of ``scripts/train_refparse.py --cv -o MODEL`` (each on the fold it
was trained without, with its own gazetteers): the least marginal of the title's tokens, their
mean, the least marginal of the tokens at a field's edge, and the least of all. Each signal flags
as many entries as the mean marginal does under the threshold (and twice as many); what counts
is how many of the flagged entries are wrong (title, container, first author or year, as
``benchmarks/references.py --cv --cv-out`` records them). No held-out set is read.

    .venv/bin/python benchmarks/references.py --grobid /tmp/grobid --anystyle /tmp/anystyle \\
        --cv /tmp/cv/base.crfsuite --cv-out /tmp/cv/base_out.json
    .venv/bin/python benchmarks/refparse_doubt.py --grobid /tmp/grobid --anystyle /tmp/anystyle \\
        --cv /tmp/cv/base.crfsuite --outcomes /tmp/cv/base_out.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

SIGNALS = ("mean", "title_min", "title_mean", "edge_min", "min")


def signals(args) -> list[dict]:
    import pycrfsuite
    import train_refparse as T

    from ctxmill.compile.refparse import lexicon
    from ctxmill.compile.refparse.features import features_of
    from ctxmill.compile.refparse.model import field_label
    from ctxmill.compile.refparse.tokens import tokenize

    outcomes = json.loads(args.outcomes.read_text())
    examples, _ = T.load_training(args.grobid, args.anystyle, with_files=True)
    rows = []
    for k in range(T.FOLDS):
        model = T.cv_path(args.cv, k)
        lex = T.dev_lexicon_path(model)
        lexicon.gazetteer_path = lambda lex=lex: lex  # the features read the fold's gazetteers
        lexicon.gazetteers.cache_clear()
        tagger = pycrfsuite.Tagger()
        tagger.open(str(model))
        _, dev = T.split(examples, "docs", k)
        for text, _, src in dev:
            o = outcomes.get(f"{k} {'G' if src.startswith('grobid/') else 'A'} {text}")
            toks = tokenize(text)
            if not o or len(o) < 5 or not toks:
                continue
            tagger.set(features_of(toks))
            labels = tagger.tag()
            m = [tagger.marginal(lab, i) for i, lab in enumerate(labels)]
            f = [field_label(lab) for lab in labels]
            title = [m[i] for i in range(len(f)) if f[i] == "title"]
            edge = [m[i] for i in range(len(f)) if (i and f[i] != f[i - 1]) or (i + 1 < len(f) and f[i] != f[i + 1])]
            rows.append({"right": o[4], "confidence": o[3], "mean": sum(m) / len(m),
                         "title_min": min(title, default=1.0), "title_mean": sum(title) / len(title) if title else 1.0,
                         "edge_min": min(edge, default=1.0), "min": min(m)})
    return rows


def compare(rows: list[dict], threshold: float) -> dict:
    wrong = sum(not r["right"] for r in rows)
    n = sum(r["confidence"] < threshold for r in rows)
    out = {"strings": len(rows), "wrong_entries": wrong, "flagged_at_threshold": n, "signals": {}}
    for sig in SIGNALS:
        order = sorted(rows, key=lambda r: r[sig])
        out["signals"][sig] = []
        for k in (n, 2 * n):
            w = sum(not r["right"] for r in order[:k])
            out["signals"][sig].append({"flagged": k, "wrong": w, "precision": round(w / k, 4) if k else None,
                                        "recall": round(w / wrong, 4) if wrong else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grobid", type=Path, required=True)
    ap.add_argument("--anystyle", type=Path, required=True)
    ap.add_argument("--cv", type=Path, required=True, metavar="MODEL", help="train_refparse.py --cv -o MODEL")
    ap.add_argument("--outcomes", type=Path, required=True, help="references.py --cv MODEL --cv-out FILE")
    ap.add_argument("--threshold", type=float, default=0.85, help="the doubtful threshold of the mean marginal")
    args = ap.parse_args()
    print(json.dumps(compare(signals(args), args.threshold), indent=1))


if __name__ == "__main__":
    main()
