"""Whether two source trees' reference labellers give the same output, string by string.

For a speed change that must not change any output (issue 26's twelfth round): every string of
the GROBID held-out set, AnyStyle's gold set, the GROBID and AnyStyle training files (all of
them, not only those train_refparse.py keeps), the bibliographies of the corpus papers and OCR
texts (../shared/corpus, segmented by this tree's compile), the 2,000 labelled entries of
benchmarks/fuzz.py's reference list and a few hostile strings go through each tree's labeller
in one process per tree, in the same order (so the caches fill and start again alike), and
for each string these are compared as JSON:

- ``label(text)``: every token and its label;
- the tagger's confidence unrounded (``repr`` of the float), as parse() gets it (``tag_tokens``, or
  ``tag_scores(scores_of(...))`` in a tree without it);
- ``parse(raw)`` and ``reference_fields(raw, parse_entry)``: every field, as ``ctxmill compile``
  writes them.

    .venv/bin/python benchmarks/refparse_identical.py --grobid /tmp/grobid --anystyle /tmp/anystyle \\
        --peer /work/peer-s14/src --bibs-cache /tmp/bibs.json

Prints one JSON object: strings per source, how many differ, the first few that do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpus"

HOSTILE = ["", " ", ".", "[1]", "(12)", "1.", ",,,,", "A", "A.", "—", "10.1000/xyz", "arXiv:2101.00001v2",
           "x" * 5000, "A. B. " * 400, "1, " * 700, "Smith, J. (2020). " * 60, "https://example.org/" + "a/" * 300,
           "Ünïcödé Ñame, Ø. Tïtle. J. Phys. 1 (2020) 1–2.", "\u200b\u00a0 Smith J.  2020 \t Title \n Journal"]


def fuzz_refs() -> list[str]:
    """The labelled entries of benchmarks/fuzz.py's `refs` shape, as the command hands them over."""
    return [f"[{i}] A. Author, B. Writer. A title {i}. In Proc. X, 2020." for i in range(2000)]


def bibliographies(cache: Path | None) -> dict[str, list[str]]:
    """{input: [entry raw text]} of the corpus papers and OCR texts, compiled by this tree."""
    if cache and cache.exists():
        return json.loads(cache.read_text())
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    inputs = sorted(SHARED.glob("papers/*/paper.pdf")) + sorted(SHARED.glob("ocr/*/source.md")) \
        + sorted(SHARED.glob("dive-into-claude-code/*.txt"))
    out = {}
    for path in inputs:
        try:
            doc = compile_document(path, CompileOptions(chunks=False))
            out[str(path.relative_to(SHARED))] = [r.raw for r in doc.references]
        except Exception as e:  # a refused input has no bibliography
            print(f"{path}: {type(e).__name__}: {e}", file=sys.stderr)
    if cache:
        cache.write_text(json.dumps(out))
    return out


def strings(grobid: Path, anystyle: Path, bibs: dict[str, list[str]]) -> dict[str, list[str]]:
    sys.path.insert(0, str(REPO / "scripts"))
    from train_refparse import held_out, read_anystyle, read_tei, training_files

    out = {name: [t for t, _ in exs] for name, exs in held_out(grobid, anystyle).items()}
    seen: set[str] = set()
    train = []
    for f in training_files(grobid, anystyle):
        for t, _ in (read_anystyle(f) if f.parent.name == "parser" else read_tei(f)):
            if t not in seen:
                seen.add(t)
                train.append(t)
    out["training"] = train
    out["bibliographies"] = [r for raws in bibs.values() for r in raws]
    out["fuzz_refs"] = fuzz_refs()
    out["hostile"] = HOSTILE
    return out


def dump(source: Path, target: Path) -> None:
    """Run in the tree under test: one digest per string and source, and the outputs of the first
    strings that a comparison may want to show."""
    from ctxmill.compile.references import parse_entry
    from ctxmill.compile.refparse import _LABEL, label, parse, reference_fields
    from ctxmill.compile.refparse.tokens import tokenize
    try:  # what parse() tags with (its confidence unrounded), where the tree has it
        from ctxmill.compile.refparse.features import tag_tokens
    except ImportError:
        from ctxmill.compile.refparse.features import scores_of
        from ctxmill.compile.refparse.model import tag_scores

        def tag_tokens(toks):
            return tag_scores(scores_of(toks))

    sets = json.loads(source.read_text())
    out = {}
    for name, texts in sets.items():
        rows = []
        for raw in texts:
            text = " ".join(raw.split())
            m = _LABEL.match(text)
            text = text[m.end():] if m else text
            _, conf = tag_tokens(tokenize(text))
            row = json.dumps([label(text), repr(conf), parse(raw), reference_fields(raw, parse_entry)],
                             sort_keys=True, ensure_ascii=False, default=repr)
            rows.append(row)
        out[name] = rows
    target.write_text(json.dumps(out))


def run_tree(src: Path | None, source: Path) -> dict[str, list[str]]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d:
        target = Path(d) / "out.json"
        subprocess.run([sys.executable, __file__, "--dump", str(source), str(target)], env=env, check=True)
        return json.loads(target.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grobid", type=Path, help="a GROBID checkout")
    ap.add_argument("--anystyle", type=Path, help="an AnyStyle checkout")
    ap.add_argument("--peer", type=Path, help="the other tree's src folder")
    ap.add_argument("--this", type=Path, help="this tree's src folder (default: the one this script is in)")
    ap.add_argument("--bibs-cache", type=Path, help="keep the corpus bibliographies here between runs")
    ap.add_argument("--dump", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        dump(*args.dump)
        return
    if not (args.grobid and args.anystyle and args.peer):
        ap.error("--grobid, --anystyle and --peer are required")
    sets = strings(args.grobid, args.anystyle, bibliographies(args.bibs_cache) if SHARED.is_dir() else {})
    with tempfile.TemporaryDirectory() as d:
        source = Path(d) / "strings.json"
        source.write_text(json.dumps(sets))
        this, peer = run_tree(args.this, source), run_tree(args.peer, source)
    result: dict = {"this": str(args.this or REPO / "src"), "peer": str(args.peer), "sources": {}, "differing": 0, "examples": []}
    for name, texts in sets.items():
        diff = [i for i, (a, b) in enumerate(zip(this[name], peer[name], strict=True)) if a != b]
        digest = hashlib.sha256("\n".join(this[name]).encode()).hexdigest()[:16]
        result["sources"][name] = {"strings": len(texts), "differing": len(diff), "sha256_16": digest}
        result["differing"] += len(diff)
        for i in diff[:3]:
            result["examples"].append({"source": name, "text": texts[i][:300], "this": this[name][i][:2000],
                                       "peer": peer[name][i][:2000]})
    result["strings"] = sum(len(t) for t in sets.values())
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
