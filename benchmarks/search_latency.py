"""Search latency on an index of >= 100,000 chunks.

Generates a tree of Python files (5 functions each, identifiers drawn from the standard
library's own vocabulary so posting lists look like real code), indexes it, then times the
same queries in two fresh processes, one after the other:

- ``api``: the public API, ``ctxmill.index.search(q, root, db_path=...)``, as the CLI, the MCP
  server and the web app call it (it finds and checks the index on every call);
- ``open_index``: ``ctxmill.index.search.search(store, ...)`` on a Store held open, with the
  lexical leg alone (FTS5 BM25: the peer) and the vector leg alone timed on the same queries;
  ``vector_scan``: the scan searches run against the exact scan (recall@10, recall@200, CPU).

Each process loads the index, answers 10 other queries (the vector matrix and SQLite's pages
loaded), then the measured ones: first sightings of their candidate files, as a server meets
new questions. ``api_repeat`` is the API process asking the same queries again (every cache
warm). The target: API p50 <= 20 ms on >= 100,000 chunks.

    .venv/bin/python benchmarks/search_latency.py [--files 20100] [--queries 200] [--keep DIR]

With ``--keep DIR`` the tree and the index are built once in DIR and reused (a no-op sync
checks them).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from ctxmill.index import search, sync_index
from ctxmill.index.embedders import get_embedder
from ctxmill.index.store import Store
from ctxmill.index.terms import query_terms

TARGET_P50_MS = 20
MIN_CHUNKS = 100_000


def vocabulary(limit: int = 6000) -> list[str]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    words: dict[str, int] = {}
    for p in sorted(lib.glob("*.py"))[:200]:
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", p.read_text(errors="replace")):
            words[w] = words.get(w, 0) + 1
    return [w for w, _ in sorted(words.items(), key=lambda kv: -kv[1])[:limit]]


def make_tree(root: Path, files: int, vocab: list[str], rng: random.Random) -> None:
    for i in range(files):
        d = root / f"pkg{i // 1000:02d}" / f"mod{(i // 100) % 10}"
        if i % 100 == 0:
            d.mkdir(parents=True, exist_ok=True)
        funcs = []
        for j in range(5):
            w = [rng.choice(vocab) for _ in range(14)]
            funcs.append(
                f"def {w[0]}_{w[1]}_{i}_{j}({w[2]}, {w[3]}=None):\n"
                f'    """{w[4].capitalize()} the {w[5]} of {w[6]} with {w[7]}."""\n'
                f"    {w[8]} = {w[2]}.{w[9]}({w[3]})\n"
                f"    if {w[8]} is None:\n"
                f"        raise ValueError('{w[10]} {w[11]}')\n"
                f"    return {w[12]}({w[8]}, {w[13]}={j})\n"
            )
        (d / f"m{i}.py").write_text("\n\n".join(funcs))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def summary(xs: list[float]) -> dict:
    return {"p50_ms": round(1000 * statistics.median(xs), 2), "p95_ms": round(1000 * pct(xs, 0.95), 2),
            "p99_ms": round(1000 * pct(xs, 0.99), 2), "n": len(xs)}


def make_queries(vocab: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0:  # a bare identifier
            out.append(f"{rng.choice(vocab)}_{rng.choice(vocab)}")
        elif kind == 1:  # a few words
            out.append(" ".join(rng.choice(vocab[:2000]) for _ in range(3)))
        else:  # a question
            out.append(f"how does {rng.choice(vocab)} handle {rng.choice(vocab)}")
    return out


def timed(fn, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append(time.perf_counter() - t)
    return out


def run_leg(leg: str, root: Path, db: Path, queries: list[str], warmup: list[str]) -> dict:
    """One leg in this (fresh) process; returns its timings."""
    if leg == "api":
        def api(q):
            return search(q, root, db_path=db, k=10)

        timed(api, warmup)
        first = timed(api, queries)
        return {"api": summary(first), "api_repeat": summary(timed(api, queries))}
    search_mod = importlib.import_module("ctxmill.index.search")
    with Store(db, create=False) as store:
        emb = get_embedder(store.embedder_name)

        def full(q):
            return search_mod.search(store, q, emb, k=10)

        timed(full, warmup)
        out = {"open_index": summary(timed(full, queries))}
        out["peer_fts5_bm25_only"] = summary(timed(lambda q: search_mod.lexical(store, query_terms(q), None, 50),
                                                   queries))
        out["vector_leg_only"] = summary(timed(lambda q: search_mod.vector(store, emb.embed_query(q), None, 50),
                                               queries))
        out["vector_scan"] = scan_recall(search_mod, store, emb, queries)
        out["counts"] = store.counts()
    return out


def scan_recall(search_mod, store, emb, queries: list[str]) -> dict:
    """The vector scan as searches run it (above EXACT_MAX rows: sign bits, then the nearest
    share rescored exactly) against the exact scan of every row: recall of the top 10 and of
    the top 200 (the list fusion takes), and CPU milliseconds a query for each."""
    import numpy as np

    vecs = search_mod._cached(store).vectors(store)
    exact = search_mod._Vectors(None, vecs.ids, vecs.mat, vecs.hashes, codes=None)
    exact.codes = None
    r10, r200, cpu_fast, cpu_exact = [], [], [], []
    for q in queries:
        qv = np.ascontiguousarray(emb.embed_query(q), dtype=np.float32)
        t = time.thread_time()
        fast = vecs.top(qv, 200)
        cpu_fast.append(time.thread_time() - t)
        t = time.thread_time()
        full = exact.top(qv, 200)
        cpu_exact.append(time.thread_time() - t)
        r10.append(len(set(fast[:10]) & set(full[:10])) / 10)
        r200.append(len(set(fast) & set(full)) / len(full))
    return {"rows": len(vecs.ids), "approximate": vecs.codes is not None,
            "recall_at_10": round(statistics.mean(r10), 4), "recall_at_200": round(statistics.mean(r200), 4),
            "cpu_ms": round(1000 * statistics.mean(cpu_fast), 2), "exact_cpu_ms": round(1000 * statistics.mean(cpu_exact), 2)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20_100)  # 5 chunks a file: just over 100k
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", help="build the tree and index in DIR and reuse them when present")
    ap.add_argument("--leg", choices=["api", "open"], help=argparse.SUPPRESS)  # internal: one timed leg
    ap.add_argument("--dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    vocab = vocabulary()
    queries = make_queries(vocab, args.queries, seed=11)
    warmup = make_queries(vocab, 10, seed=12)
    if args.leg:
        base = Path(args.dir)
        print(json.dumps(run_leg(args.leg, base / "tree", base / "index.db", queries, warmup)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        root = base / "tree"
        if not root.exists():
            make_tree(root, args.files, vocab, random.Random(7))
        db = base / "index.db"
        reused = db.exists()  # --keep: then the sync below only checks the index
        t = time.perf_counter()
        rep = sync_index(root, db_path=db)
        index_s = time.perf_counter() - t
        legs: dict = {}
        for leg in ("open", "api"):
            out = subprocess.run([sys.executable, __file__, "--leg", leg, "--dir", str(base),
                                  "--queries", str(args.queries)],
                                 capture_output=True, text=True, timeout=1200, check=True)
            legs.update(json.loads(out.stdout))
        counts = legs.pop("counts")
        api, warm = legs["api"], legs["open_index"]
        print(json.dumps({
            "benchmark": "search_latency", "files": args.files, "chunks": counts["chunks"],
            "vectors": counts["vectors"], "index_reused": reused, "index_seconds": round(index_s, 1),
            "index_embed_seconds": round(rep.embed_seconds, 1), "queries": len(queries),
            "target": {"api_p50_ms_at_most": TARGET_P50_MS, "chunks_at_least": MIN_CHUNKS},
            "meets_target": api["p50_ms"] <= TARGET_P50_MS and counts["chunks"] >= MIN_CHUNKS,
            "api_p50_ms": api["p50_ms"], "api_p99_ms": api["p99_ms"],
            "open_index_p50_ms": warm["p50_ms"], "open_index_p99_ms": warm["p99_ms"],
            "peer_fts5_bm25_only_p50_ms": legs["peer_fts5_bm25_only"]["p50_ms"],
            **legs,
            "db_mb": round(db.stat().st_size / 1e6, 1), "cpus": os.cpu_count(), "loadavg": os.getloadavg(),
        }, indent=2))


if __name__ == "__main__":
    main()
