"""Hybrid search over one index: lexical (FTS5 BM25) and vector candidates, fused by rank.

Lexical: the query's words and identifier parts ORed, scored by BM25 with the symbol and path
columns weighted above the body. Vector: nearest chunk contents to the query embedding
(sqlite-vec, or numpy where the SQLite build cannot load it). The two lists are fused with
reciprocal-rank fusion, then handed to ``ctxmill.index.rank.rerank(query, hits)`` when that
module exists: that is where code-aware ranking lives.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from ctxmill.errors import UsageError
from ctxmill.index.store import Store
from ctxmill.index.terms import query_terms

RRF_K = 60  # reciprocal-rank fusion constant
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
BM25_WEIGHTS = (1.0, 4.0, 2.0)  # body, symbol, path


@dataclass
class Hit:
    path: str
    start_line: int
    end_line: int
    score: float
    kind: str
    symbol: str | None
    text: str
    language: str | None = None
    id: int | None = None  # chunk row id
    context: str = ""
    lexical_rank: int | None = None  # 1-based rank in the lexical list (None: not there)
    vector_rank: int | None = None

    def to_dict(self) -> dict:
        out = {"path": self.path, "start_line": self.start_line, "end_line": self.end_line,
               "score": round(float(self.score), 6), "kind": self.kind}
        if self.symbol:
            out["symbol"] = self.symbol
        out["text"] = self.text
        return out


def _prefix_bounds(prefix: str | None) -> tuple[str, str] | None:
    if not prefix:
        return None
    prefix = prefix.replace("\\", "/")
    while prefix.startswith("./"):
        prefix = prefix[2:]
    prefix = prefix.lstrip("/")
    if not prefix or prefix == ".":
        return None
    return prefix, prefix + "\U0010ffff"


def lexical(store: Store, terms: list[str], bounds, limit: int) -> list[int]:
    if not terms:
        return []
    match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    w = BM25_WEIGHTS
    if bounds is None:
        sql = (f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
               f"ORDER BY bm25(chunks_fts, {w[0]}, {w[1]}, {w[2]}) LIMIT ?")
        args: tuple = (match, limit)
    else:
        sql = (f"SELECT f.rowid FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
               f"WHERE chunks_fts MATCH ? AND c.path >= ? AND c.path < ? "
               f"ORDER BY bm25(chunks_fts, {w[0]}, {w[1]}, {w[2]}) LIMIT ?")
        args = (match, bounds[0], bounds[1], limit)
    return [r[0] for r in store.conn.execute(sql, args)]


_np_cache: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}


def vector(store: Store, qvec: np.ndarray, bounds, limit: int) -> list[int]:
    """Chunk ids nearest to ``qvec`` (chunks sharing a content hash share a rank)."""
    conn = store.conn
    want = limit if bounds is None else min(limit * 20, 2000)
    q = np.ascontiguousarray(qvec, dtype=np.float32)
    if store.has_vec:
        try:
            vids = [r[0] for r in conn.execute(
                "SELECT rowid FROM vec_index WHERE embedding MATCH ? AND k = ?", (q.tobytes(), want))]
        except Exception:  # no vector table yet (empty index)
            return []
    else:
        vids = _numpy_knn(store, q, want)
    out: list[int] = []
    for vid in vids:
        if bounds is None:
            rows = conn.execute(
                "SELECT c.id FROM vectors v JOIN chunks c ON c.hash = v.hash WHERE v.id = ?", (vid,))
        else:
            rows = conn.execute(
                "SELECT c.id FROM vectors v JOIN chunks c ON c.hash = v.hash WHERE v.id = ? "
                "AND c.path >= ? AND c.path < ?", (vid, bounds[0], bounds[1]))
        out.extend(r[0] for r in rows)
        if len(out) >= limit:
            break
    return out[:limit]


def _numpy_knn(store: Store, q: np.ndarray, want: int) -> list[int]:
    key = (str(store.path), store.conn.execute("SELECT count(*), max(id) FROM vectors").fetchone()[1] or 0)
    cached = _np_cache.get(key)
    if cached is None:
        rows = store.conn.execute("SELECT id, vec FROM vectors WHERE vec IS NOT NULL").fetchall()
        if not rows:
            return []
        ids = np.array([r[0] for r in rows])
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        _np_cache.clear()
        _np_cache[key] = cached = (ids, mat)
    ids, mat = cached
    sims = mat @ q
    top = np.argsort(-sims)[:want]
    return [int(ids[i]) for i in top]


def fuse(lists: list[tuple[list[int], float]]) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of ranked id lists with weights."""
    scores: dict[int, float] = {}
    for ids, weight in lists:
        for rank, cid in enumerate(ids, 1):
            scores[cid] = scores.get(cid, 0.0) + weight / (RRF_K + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def search(store: Store, query: str, embedder, *, path_prefix: str | None = None, k: int = 10) -> list[Hit]:
    if not query or not query.strip():
        raise UsageError("empty query")
    if k < 1:
        raise UsageError("k must be at least 1")
    bounds = _prefix_bounds(path_prefix)
    rank = _rank_module()
    n = max(getattr(rank, "CANDIDATES", 50), k * 5)
    lex = lexical(store, query_terms(query), bounds, n)
    vec = vector(store, embedder.embed_query(query), bounds, n) if store.dim == embedder.dim else []
    lex_rank = {cid: i for i, cid in enumerate(lex, 1)}
    vec_rank = {cid: i for i, cid in enumerate(vec, 1)}
    if rank is not None and hasattr(rank, "fuse_ids"):
        # weighted fusion + code-aware ranking (ctxmill.index.rank, weights tuned on the dev set)
        top = rank.fuse_ids(lex, vec)[: max(rank.POOL, k * 3)]
        return rank.rerank(query, _hits(store, top, lex_rank, vec_rank), k=k)
    fused = fuse([(lex, LEXICAL_WEIGHT), (vec, VECTOR_WEIGHT)])
    top = fused[: max(k * 3, 30)]
    hits = _hits(store, top, lex_rank, vec_rank)
    if rank is not None and hasattr(rank, "rerank"):
        hits = rank.rerank(query, hits)
    return hits[:k]


def _hits(store: Store, top, lex_rank, vec_rank) -> list[Hit]:
    if not top:
        return []
    ids = [cid for cid, _ in top]
    marks = ",".join("?" * len(ids))
    rows = {r[0]: r for r in store.conn.execute(
        f"SELECT id, path, start_line, end_line, kind, symbol, text, language, context FROM chunks "
        f"WHERE id IN ({marks})", ids)}
    hits = []
    for cid, score in top:
        r = rows.get(cid)
        if r is None:
            continue
        hits.append(Hit(r[1], r[2], r[3], score, r[4], r[5], r[6], r[7], cid, r[8] or "",
                        lex_rank.get(cid), vec_rank.get(cid)))
    return hits


def _rank_module():
    try:
        return importlib.import_module("ctxmill.index.rank")
    except ModuleNotFoundError as exc:
        if exc.name != "ctxmill.index.rank":
            raise
        return None
