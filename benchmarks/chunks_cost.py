"""What the chunks stage pays per text shape, beside a peer tree, in process; prints JSON.

    .venv/bin/python benchmarks/chunks_cost.py --peer /work/peer-s22/src [--this SRC]
        [--shapes prose,table_rows,...] [--size 4000000] [--repeat 3]

Each shape of benchmarks/fuzz.py's text_shape is compiled up to the chunks stage in a fresh
process per tree and run (both trees in turn, the order alternating, the least of --repeat
kept); then the chunks stage (render.chunks.run + write) is timed in CPU seconds, and, to say
where that goes, document.md cut into pieces once (token_pieces.Tokenized, the stage's own
class, from an empty cache), with the counts the stage's work follows: the pieces of the
text, the distinct ones (each run through the BPE once), the blocks (units) and the chunks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = """
import json, random, sys, tempfile, time
src, bench, shape, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [src, bench]
from fuzz import text_shape
from ctxmill.compile import pipeline
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document
from ctxmill.render import chunks, token_pieces
from ctxmill.sources import load_source
from ctxmill.tokens import get_tokenizer

get_tokenizer()
options = CompileOptions()
doc = Document(stream=load_source(text_shape(random.Random(0), shape, size), options, name=shape + ".txt"))
for name, target, when in pipeline.STAGES:
    if name == "chunks":
        break
    if when(options):
        pipeline._resolve(target)(doc, options)
cpu = time.process_time
t = cpu()
chunks.run(doc, options)
chunks.write(doc, tempfile.mkdtemp(), options)
stage = cpu() - t
token_pieces._count.clear()
token_pieces._ends.clear()
t = cpu()
whole = token_pieces.Tokenized(doc.markdown)
cut = cpu() - t
print(json.dumps({"stage_cpu": stage, "tokenized_cpu": cut, "md_chars": len(doc.markdown),
                  "pieces": len(whole.pieces), "distinct_pieces": len(set(whole.pieces)),
                  "blocks": len(doc.block_spans), "chunks": len(doc.chunks)}))
"""


def measure(src: str, shape: str, size: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, src, str(REPO / "benchmarks"), shape, str(size)],
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--this", default=str(REPO / "src"), help="src/ folder of the tree measured")
    ap.add_argument("--peer", required=True, help="src/ folder of the peer tree, measured in the same run")
    ap.add_argument("--shapes", default="prose,table_rows,one_char_refs,code_comments,refs,emails,urls")
    ap.add_argument("--size", type=int, default=4_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sides = {"this": str(Path(args.this).resolve()), "peer": str(Path(args.peer).resolve())}
    shapes = [s for s in args.shapes.split(",") if s]
    result: dict = {"size": args.size, "repeat": args.repeat, "stat": "min", **{k + "_src": v for k, v in sides.items()},
                    "shapes": {}}
    for shape in shapes:
        runs: dict = {side: [] for side in sides}
        for r in range(args.repeat):
            for side in list(sides) if r % 2 == 0 else list(reversed(sides)):  # (neither always first)
                runs[side].append(measure(sides[side], shape, args.size))
        row = {}
        for side, got in runs.items():
            best = dict(got[0])
            best["stage_cpu"] = round(min(g["stage_cpu"] for g in got), 3)
            best["tokenized_cpu"] = round(min(g["tokenized_cpu"] for g in got), 3)
            best["us_per_piece_of_tokenized"] = round(best["tokenized_cpu"] / best["pieces"] * 1e6, 3)
            row[side] = best
        row["stage_this_over_peer"] = round(row["this"]["stage_cpu"] / row["peer"]["stage_cpu"], 3)
        result["shapes"][shape] = row
        print(json.dumps({shape: row}), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
