"""Cold index of CPython's standard library (the running interpreter's Lib/).

Prints JSON: files/s for walk + parse + chunk + store (embedding time reported separately),
the stage split, and peers measured in the same run: plain walk + read of the same files, and
read + tree-sitter parse alone of its Python files (the floor for any tree-sitter indexer).
site-packages/ and __pycache__/ are ignored (a CPython checkout's Lib/ has neither).

Two kinds of runs, alternating. ``no_embed`` runs use an embedder that returns zero vectors at
once (the vectors are still stored), so their files/s is walk + parse + chunk + store with
nothing to hide behind: the headline figure. ``default_embedder`` runs use the default
embedder and subtract its time; the workers keep parsing while the main process embeds, so
that figure also says how well the pipeline overlaps. CPU seconds of the main process and of
the worker processes are reported per run and as medians: on a shared machine they move less
than wall time.

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
from ctxmill.index.sync import default_workers
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
    from ctxmill.grammars import get_parser

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
    bare_fps = statistics.median(x["files_per_s"] for x in bare)
    emb_fps = statistics.median(x["files_per_s"] for x in runs)
    print(json.dumps({
        "benchmark": "index_cold", "root": args.root, "ignored": IGNORE,
        "files": bare[0]["files"] if bare else None, "chunks": bare[0]["chunks"] if bare else None,
        # The honest figure: walk + parse + chunk + store with an embedder that costs nothing,
        # so no embedding time is subtracted and nothing overlaps with it.
        "no_embed": _summary(bare),
        # The default embedder, its time subtracted: the workers keep parsing while the main
        # process embeds, so this also says how well the pipeline overlaps.
        "default_embedder": {**_summary(runs),
                             "median_seconds_embed": statistics.median(x["seconds_embed"] for x in runs)},
        "target_files_per_s": 1000, "no_embed_meets_target": bare_fps >= 1000,
        "default_embedder_meets_target": emb_fps >= 1000,
        "peer_plain_walk_read": {"files": n, "seconds": round(read_s, 3), "files_per_s": round(n / read_s, 1)},
        "peer_tree_sitter_parse_only_py": {"files": n_py, "seconds": round(parse_s, 3),
                                           "files_per_s": round(n_py / parse_s, 1)},
        # The bound that parsing alone sets: all files, the parse shared evenly by the workers
        # and nothing else done at all.
        "parse_alone_bound_files_per_s": round(n / (parse_s / max(1, min(default_workers(), os.cpu_count() or 1))), 1),
        "cpus": os.cpu_count(), "workers": default_workers(), "loadavg": os.getloadavg(),
        "no_embed_runs": bare, "default_embedder_runs": runs,
    }, indent=2))


def _summary(runs: list[dict]) -> dict:
    """Medians over runs: files/s, wall seconds without embedding, CPU seconds per process kind."""
    def med(key):
        return round(statistics.median(x[key] for x in runs), 3)

    return {"median_files_per_s": med("files_per_s"), "median_seconds_index": med("seconds_index"),
            "median_cpu_main_s": med("cpu_main_s"), "median_cpu_workers_s": med("cpu_workers_s"),
            "median_cpu_total_s": round(statistics.median(x["cpu_main_s"] + x["cpu_workers_s"] for x in runs), 3)}

if __name__ == "__main__":
    main()
