"""CPU seconds per compile stage of fuzz.py's text shapes, this tree against a peer tree, in
process (issue 26). Through the command the stage splits of metrics.json are wall seconds, which
the load of a shared machine moves by more than a change to one stage; here each stage is timed
with time.process_time() on a fresh Document (the source stage on the bytes), the least of
--repeat, each side in its own process, the sides in turn (peer, this, peer, this).

    python benchmarks/stage_cpu.py --shapes soup,latex_tables --peer /work/peer/src --this src

--pieces adds where the chunks stage's CPU goes: chunks.jsonl written (`chunks_write`), and
document.md cut into pre-tokenizer pieces once from an empty cache (`tokenized`, the stage's own
token_pieces.Tokenized), with the counts that work follows: pieces, distinct pieces (each run
through the BPE once), n_blocks and n_chunks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

# one side: the stages of the pipeline in order over each shape, least of `repeat` per stage
_SIDE = """
import gc, json, random, sys, time
src, bench, here, shapes, size, repeat, pieces = sys.argv[1:8]
sys.path = [src, bench] + [p for p in sys.path if p.rstrip("/") != here]  # (ctxmill is a namespace package)
import fuzz
from ctxmill.compile import pipeline
from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document
from ctxmill.sources import load_source
options = CompileOptions()


def _pieces(doc):
    import tempfile
    from ctxmill.render import chunks, token_pieces
    c = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        chunks.write(doc, folder, options)
    got = {"chunks_write": time.process_time() - c}
    token_pieces._count.clear()
    token_pieces._ends.clear()
    c = time.process_time()
    whole = token_pieces.Tokenized(doc.markdown)
    got["tokenized"] = time.process_time() - c
    got.update(pieces=len(whole.pieces), distinct_pieces=len(set(whole.pieces)), n_blocks=len(doc.block_spans),
               n_chunks=len(doc.chunks))
    return got


pipeline.compile_document(b"Title\\n\\nSome words of text, here.\\n", options, name="warm.txt")
out = {}
for shape in shapes.split(","):
    data = fuzz.text_shape(random.Random(0), shape, int(size))
    best = {}
    for _ in range(int(repeat)):
        gc.collect()
        c = time.process_time()
        stream = load_source(data, options, name=shape + ".txt")
        runs = {"source": time.process_time() - c}
        doc = Document(stream=stream)
        for name, target, when in pipeline.STAGES:
            if when(options) and name != "llm":
                c = time.process_time()
                pipeline._resolve(target)(doc, options)
                runs[name] = time.process_time() - c
        runs["total"] = sum(runs.values())
        if pieces == "1":
            runs.update(_pieces(doc))
        best = {k: min(v, best.get(k, v)) for k, v in runs.items()}
    out[shape] = {k: round(v, 3) if isinstance(v, float) else v for k, v in best.items()}
print(json.dumps(out))
"""


def side(src: str, shapes: str, size: int, repeat: int, pieces: bool = False) -> dict:
    bench = Path(__file__).resolve().parent
    p = subprocess.run([sys.executable, "-c", _SIDE, str(Path(src).resolve()), str(bench), str(bench.parent / "src"),
                        shapes, str(size), str(repeat), "1" if pieces else "0"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="prose,soup,latex_tables", help="fuzz.py text shapes, comma-separated")
    ap.add_argument("--size", type=int, default=4_000_000, help="bytes of each input")
    ap.add_argument("--repeat", type=int, default=3, help="runs per side and round (the least is kept)")
    ap.add_argument("--rounds", type=int, default=2, help="peer, this in turn, this many times")
    ap.add_argument("--peer", required=True, help="src/ folder of the tree to compare with")
    ap.add_argument("--this", default=str(Path(__file__).resolve().parents[1] / "src"), help="src/ folder of this side")
    ap.add_argument("--pieces", action="store_true", help="also the chunks stage's parts and piece counts")
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {"peer": [], "this": []}
    for _ in range(args.rounds):
        for name, src in (("peer", args.peer), ("this", args.this)):
            runs[name].append(side(src, args.shapes, args.size, args.repeat, args.pieces))
    least = {name: {shape: {k: min(r[shape][k] for r in rs) for k in rs[0][shape]} for shape in rs[0]}
             for name, rs in runs.items()}
    ratio = {shape: {k: round(least["this"][shape][k] / v, 3) if v else None for k, v in st.items()
                     if isinstance(v, float)} for shape, st in least["peer"].items()}
    print(json.dumps({"size": args.size, "repeat": args.repeat, "rounds": args.rounds, "peer_src": args.peer,
                      "this_src": args.this, "stat": "min", "cpu_seconds": least, "this_over_peer": ratio}, indent=1))


if __name__ == "__main__":
    main()
