"""Chunk quality and speed on the dive paper (PDF and OCR text); prints JSON.

    .venv/bin/python benchmarks/chunks.py [--shared ../shared] [--runs 3]

For each input and budget: chunk count, token statistics, chunks over budget (and whether
each is a lone atomic block), heading-only chunks, char_span exactness against document.md,
ids stable across two compiles, and the chunk stage's median seconds. The peer, measured in
the same run on the same document.md and tokenizer, is a plain fixed window of ``budget``
tokens (what a structure-blind splitter does); we report its speed and how many of its
chunks straddle a section boundary or cut a table row.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ctxmill.compile.options import CompileOptions  # noqa: E402
from ctxmill.compile.pipeline import compile_document  # noqa: E402
from ctxmill.model import BlockKind  # noqa: E402
from ctxmill.render import chunks as chunk_stage  # noqa: E402
from ctxmill.tokens import count_tokens, get_tokenizer  # noqa: E402


def fixed_window(md: str, budget: int) -> list[tuple[int, int]]:
    offs = get_tokenizer().encode(md, add_special_tokens=False).offsets
    spans = []
    for i in range(0, len(offs), budget):
        part = offs[i : i + budget]
        spans.append((part[0][0], part[-1][1]))
    return spans


def heading_starts(doc) -> list[int]:
    return sorted(doc.block_spans[b.id][0] for b in doc.blocks if b.kind is BlockKind.HEADING and b.id in doc.block_spans)


def straddles(spans, starts) -> int:
    import bisect

    n = 0
    for s, e in spans:
        i = bisect.bisect_right(starts, s)
        if i < len(starts) and starts[i] < e:
            n += 1
    return n


def measure(path: Path, budget: int, runs: int) -> dict:
    opts = CompileOptions(chunk_tokens=budget, ignore_pdf_links=True)
    d1 = compile_document(path, opts)
    d2 = compile_document(path, opts)
    md = d1.markdown
    atomic = {BlockKind.TABLE, BlockKind.FIGURE, BlockKind.CODE, BlockKind.EQUATION}
    over = [c for c in d1.chunks if c.tokens > budget]
    exact = sum(md[c.char_span[0] : c.char_span[1]] == c.text for c in d1.chunks)
    heading_only = sum(all(ln.startswith("#") or not ln.strip() for ln in c.text.splitlines()) for c in d1.chunks)
    recount = sum(c.tokens == count_tokens((c.context + "\n" + c.text) if c.context else c.text) for c in d1.chunks)
    toks = [c.tokens for c in d1.chunks]
    ours, peer = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        chunk_stage.run(d1, opts)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fixed = fixed_window(md, budget)
        peer.append(time.perf_counter() - t0)
    starts = heading_starts(d1)
    return {
        "input": path.name, "budget": budget, "chunks": len(d1.chunks),
        "tokens": {"min": min(toks), "median": statistics.median(toks), "max": max(toks)},
        "over_budget": len(over),
        "over_budget_lone_atomic": sum(1 for c in over if c.kind in ("table", "figure", "code", "equation")),
        "heading_only": heading_only, "char_span_exact": f"{exact}/{len(d1.chunks)}",
        "token_count_exact": f"{recount}/{len(d1.chunks)}",
        "ids_stable_across_runs": [c.id for c in d1.chunks] == [c.id for c in d2.chunks],
        "ids_unique": len({c.id for c in d1.chunks}) == len(d1.chunks),
        "table_parts_with_header_context": sum(1 for c in d1.chunks if c.context),
        "straddling_sections": straddles([c.char_span for c in d1.chunks], starts),
        "chunk_stage_seconds_median": round(statistics.median(ours), 4),
        "peer_fixed_window": {
            "chunks": len(fixed), "seconds_median": round(statistics.median(peer), 4),
            "straddling_sections": straddles(fixed, starts),
        },
        "atomic_blocks": sum(1 for b in d1.blocks if b.kind in atomic),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(REPO.parent / "shared"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    corpus = Path(args.shared) / "corpus" / "dive-into-claude-code"
    out = {"tokenizer": "ctxmill.tokens (bundled BPE, offline)", "results": []}
    for path in (corpus / "paper.pdf", corpus / "ocr-pages-1-16.txt"):
        for budget in (200, 400, 800):
            out["results"].append(measure(path, budget, args.runs))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
