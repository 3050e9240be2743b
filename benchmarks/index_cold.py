"""Cold index of CPython's standard library (the running interpreter's Lib/).

Prints JSON: files/s for walk + parse + chunk + store (embedding time reported separately),
the stage split, and peers measured in the same run: plain walk + read of the same files, and
read + tree-sitter parse alone of its Python files (the floor for any tree-sitter indexer).
site-packages/ and __pycache__/ are ignored (a CPython checkout's Lib/ has neither).

The timed runs use the default embedder, whose time is subtracted; the workers keep parsing
while the main process embeds, so those numbers also say how well the pipeline overlaps. The
``no_embed`` runs use an embedder that returns zero vectors at once (vectors are still stored),
so their files/s is walk + parse + chunk + store with nothing to hide behind. CPU seconds of
the main process and of the worker processes are reported per run: on a shared machine they
move less than wall time.

    .venv/bin/python benchmarks/index_cold.py [--runs 3] [--root PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from ctxmill.index import sync_index
from ctxmill.sources.repo import walk

IGNORE = ["site-packages/", "__pycache__/"]


class NoEmbedder:
    """Zero vectors, no work: isolates the indexing pipeline from the embedder."""

    name = "none-256"
    dim = 256

    def embed(self, texts):
        import numpy as np

        return np.zeros((len(texts), self.dim), dtype=np.float32)


def _cpu() -> tuple[float, float]:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def one_run(root: str, db: Path, embedder=None) -> dict:
    c0 = _cpu()
    r = sync_index(root, db_path=db, extra_ignore=IGNORE, embedder=embedder)
    c1 = _cpu()
    index_s = r.seconds - r.embed_seconds
    return {
        "files": r.files_scanned, "chunks": r.chunks_total, "chunks_embedded": r.chunks_embedded,
        "seconds_total": round(r.seconds, 3), "seconds_embed": round(r.embed_seconds, 3),
        "seconds_index": round(index_s, 3), "files_per_s": round(r.files_scanned / index_s, 1),
        "cpu_main_s": round(c1[0] - c0[0], 3), "cpu_workers_s": round(c1[1] - c0[1], 3),
        "stages": {k: round(v, 3) for k, v in r.stages.items()},
        "db_mb": round(db.stat().st_size / 1e6, 1), "warnings": len(r.warnings),
    }


def plain_read(root: str) -> tuple[int, float]:
    files = [os.path.join(root, f.path) for f in walk(root, extra_ignore=IGNORE).files]
    t = time.perf_counter()
    n = 0
    for p in files:
        with open(p, "rb") as fh:
            n += len(fh.read())
    return len(files), time.perf_counter() - t


def parse_only(root: str) -> tuple[int, float]:
    """Peer: read + tree-sitter parse of the same Python files, nothing else, one process."""
    from ctxmill.index.chunk_code import get_parser

    parser = get_parser("python")
    files = [os.path.join(root, f.path) for f in walk(root, extra_ignore=IGNORE).files if f.path.endswith(".py")]
    t = time.perf_counter()
    for p in files:
        with open(p, "rb") as fh:
            parser.parse(fh.read())
    return len(files), time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--root", default=sysconfig.get_paths()["stdlib"])
    args = ap.parse_args()
    runs, bare = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            runs.append(one_run(args.root, Path(tmp) / f"cold-{i}.db"))
            bare.append(one_run(args.root, Path(tmp) / f"bare-{i}.db", NoEmbedder()))
    n, read_s = plain_read(args.root)
    n_py, parse_s = parse_only(args.root)
    med = statistics.median(x["files_per_s"] for x in runs)
    print(json.dumps({
        "benchmark": "index_cold", "root": args.root, "ignored": IGNORE, "runs": runs,
        "median_files_per_s": med,
        "median_seconds_embed": statistics.median(x["seconds_embed"] for x in runs),
        "no_embed_runs": bare,
        "no_embed_median_files_per_s": statistics.median(x["files_per_s"] for x in bare),
        "target_files_per_s": 1000, "meets_target": med >= 1000,
        "peer_plain_walk_read": {"files": n, "seconds": round(read_s, 3), "files_per_s": round(n / read_s, 1)},
        "peer_tree_sitter_parse_only_py": {"files": n_py, "seconds": round(parse_s, 3),
                                           "files_per_s": round(n_py / parse_s, 1)},
        "cpus": os.cpu_count(), "loadavg": os.getloadavg(),
    }, indent=2))


if __name__ == "__main__":
    main()
