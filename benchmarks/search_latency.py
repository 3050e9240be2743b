"""Search latency on an index of >= 100,000 chunks.

Generates a tree of Python files (5 functions each, identifiers drawn from the standard
library's own vocabulary so posting lists look like real code), indexes it, then times
queries: through the public API (opens the index per query, as the CLI does) and on an
open index, with the lexical leg alone (FTS5 BM25) as the peer measured in the same run.

    .venv/bin/python benchmarks/search_latency.py [--files 20100] [--queries 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sysconfig
import tempfile
import time
from pathlib import Path

from ctxmill.index import search, sync_index
from ctxmill.index.embedders import get_embedder
from ctxmill.index.store import Store
from ctxmill.index.terms import query_terms


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20_100)  # 5 chunks a file: just over 100k
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", help="build the tree and index in DIR and reuse them when present")
    args = ap.parse_args()
    rng = random.Random(7)
    vocab = vocabulary()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        root = base / "tree"
        if not root.exists():
            make_tree(root, args.files, vocab, rng)
        db = base / "index.db"
        t = time.perf_counter()
        rep = sync_index(root, db_path=db)
        index_s = time.perf_counter() - t
        queries = []
        for i in range(args.queries):
            kind = i % 3
            if kind == 0:  # a bare identifier
                queries.append(f"{rng.choice(vocab)}_{rng.choice(vocab)}")
            elif kind == 1:  # a few words
                queries.append(" ".join(rng.choice(vocab[:2000]) for _ in range(3)))
            else:  # a question
                queries.append(f"how does {rng.choice(vocab)} handle {rng.choice(vocab)}")
        for q in queries[:10]:  # warm the page cache
            search(q, root, db_path=db)
        api = []
        for q in queries:
            t = time.perf_counter()
            search(q, root, db_path=db, k=10)
            api.append(time.perf_counter() - t)
        import importlib

        search_mod = importlib.import_module("ctxmill.index.search")
        emb = get_embedder()
        warm, lexical, vector = [], [], []
        with Store(db) as store:
            for q in queries:
                t = time.perf_counter()
                search_mod.search(store, q, emb, k=10)
                warm.append(time.perf_counter() - t)
                t = time.perf_counter()
                search_mod.lexical(store, query_terms(q), None, 50)
                lexical.append(time.perf_counter() - t)
                t = time.perf_counter()
                search_mod.vector(store, emb.embed_query(q), None, 50)
                vector.append(time.perf_counter() - t)
            counts = store.counts()

        def summary(xs):
            return {"p50_ms": round(1000 * statistics.median(xs), 2), "p95_ms": round(1000 * pct(xs, 0.95), 2),
                    "p99_ms": round(1000 * pct(xs, 0.99), 2)}

        p50 = statistics.median(api)
        print(json.dumps({
            "benchmark": "search_latency", "files": args.files, "chunks": counts["chunks"],
            "vectors": counts["vectors"], "index_seconds": round(index_s, 1),
            "index_embed_seconds": round(rep.embed_seconds, 1), "queries": len(queries),
            "api_open_per_query": summary(api), "open_index": summary(warm),
            "peer_fts5_bm25_only": summary(lexical),
            "vector_leg_only": summary(vector),
            "target_p50_ms": 20, "meets_target": p50 <= 0.020 and counts["chunks"] >= 100_000,
            "db_mb": round(db.stat().st_size / 1e6, 1), "cpus": os.cpu_count(), "loadavg": os.getloadavg(),
        }, indent=2))


if __name__ == "__main__":
    main()
