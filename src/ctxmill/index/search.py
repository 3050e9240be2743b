"""Hybrid search over one index: lexical (FTS5 BM25) and vector candidates, fused by rank.

Lexical: the query's words and identifier parts ORed (near-universal terms dropped), scored by
BM25 with the symbol and path columns weighted above the body. Vector: nearest chunk contents
to the query embedding, scanned with numpy from an in-process matrix cache (see _Vectors). The
two lists are fused (``ctxmill.index.rank.fuse_ids`` when that module provides it, else
reciprocal-rank fusion here) and handed to ``ctxmill.index.rank.rerank``: that is where
code-aware ranking lives.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import json
import threading
import time
from dataclasses import dataclass

import numpy as np

from ctxmill.errors import UsageError
from ctxmill.index.store import Store
from ctxmill.index.terms import query_terms

RRF_K = 60  # reciprocal-rank fusion constant
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
BM25_WEIGHTS = (1.0, 4.0, 2.0)  # body, symbol, path

# Where a search's time goes, phase by phase (seconds), for a caller that sets a dict here: the
# server records every request's phases so that the slowest ones can be looked at afterwards
# (``ctxmill server timings``). Unset, the marks cost one context-variable read per search.
PHASES: contextvars.ContextVar[dict | None] = contextvars.ContextVar("ctxmill_search_phases", default=None)


class _Marks:
    """``mark(name)`` adds the time since the previous mark to ``phases[name]``."""

    __slots__ = ("phases", "last")

    def __init__(self, phases: dict | None):
        self.phases = phases
        self.last = time.perf_counter()

    def __call__(self, name: str) -> None:
        if self.phases is not None:
            now = time.perf_counter()
            self.phases[name] = self.phases.get(name, 0.0) + now - self.last
            self.last = now


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


COMMON_SHARE = 0.1  # a term in more than this share of chunks says little (BM25 idf ~ 0)


def _prune_common(store: Store, terms: list[str], cache: _Cached | None = None) -> list[str]:
    """Drop near-universal terms ("self", "return", "the") unless nothing else is left: BM25
    gives them almost no weight, yet scoring every chunk they occur in costs the most time.
    The list of such terms is computed by the sync (``common_terms`` in the index's meta):
    asking FTS5 for one common term's document count reads its whole posting list."""
    if len(terms) < 2:
        return terms
    common = (cache or _cached(store)).common_terms(store)
    if not common:
        return terms
    kept = [t for t in terms if t not in common]
    if not kept:  # every term is common: the first two still rank something
        kept = terms[:2]
    return kept


def lexical(store: Store, terms: list[str], bounds, limit: int, cache: _Cached | None = None) -> list[int]:
    terms = _prune_common(store, terms, cache)
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


# Above EXACT_MAX vectors the scan first compares one bit per dimension (the sign of each
# value: 32 bytes a row instead of 1 KB) by Hamming distance, then rescores the nearest
# CANDIDATE_SHARE of the rows exactly. Measured on the 100k-chunk latency benchmark's index
# (200 queries, against the exact scan): recall@10 0.998, recall@200 0.945, 4.0 CPU-ms a query
# against 7.7 for the exact scan; the 128-dim random projection it replaced had 0.987 / 0.803
# at 5.0 CPU-ms. The sign is taken against zero, not a mean of the rows: a row's code then
# depends on nothing else, so a matrix extended after a sync equals a fresh one.
EXACT_MAX = 60_000
CANDIDATE_SHARE = 0.08
RESCORE_BLOCK = 512  # rows gathered at a time for the exact rescoring: they stay in the CPU cache
TAIL_SHARE = 0.1  # rows appended after a load are kept apart until they are this share of the matrix

_popcount = getattr(np, "bitwise_count", None)  # numpy >= 2.0
_BYTE_BITS = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _codes(mat: np.ndarray) -> np.ndarray:
    """Sign bits of each row, as (words, rows) uint64: one contiguous array per 64 dimensions,
    so the distance is a few whole-array XORs and popcounts."""
    words = -(-mat.shape[1] // 64)
    out = np.zeros((len(mat), words * 8), dtype=np.uint8)
    for i in range(0, len(mat), 16384):  # a bool copy of 16k rows at a time, not of all of them
        packed = np.packbits(mat[i:i + 16384] > 0, axis=1)
        out[i:i + 16384, :packed.shape[1]] = packed
    return np.ascontiguousarray(out.view(np.uint64).T)


def _hamming(codes: np.ndarray, qcode: np.ndarray) -> np.ndarray:
    if _popcount is not None:
        d = _popcount(codes[0] ^ qcode[0]).astype(np.uint16)  # up to 64 a word: uint8 would wrap
        for w in range(1, len(codes)):
            d += _popcount(codes[w] ^ qcode[w])
        return d
    d = np.zeros(codes.shape[1], dtype=np.uint16)
    for w in range(len(codes)):
        d += _BYTE_BITS[(codes[w] ^ qcode[w]).view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint16)
    return d


def _nearest_rows(dist: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` rows of least distance, in row order (the gathers that follow then stream
    through memory); of the rows tied at the cut, the first ones. Distances are small whole
    numbers, so a histogram finds the cut: a fraction of the cost of argpartition + sort."""
    counts = np.cumsum(np.bincount(dist))
    cut = int(np.searchsorted(counts, n))  # rows at distance <= cut: n or more
    take = dist < cut
    take[np.flatnonzero(dist == cut)[: n - int(counts[cut - 1] if cut else 0)]] = True
    return np.flatnonzero(take)


class _Hashes:
    """The content hash of each row of a matrix, as one array of fixed-width bytes (from a
    mapped snapshot: nothing is decoded until a row is asked for), read like a list of str."""

    __slots__ = ("arr",)

    def __init__(self, arr: np.ndarray):
        self.arr = arr

    @classmethod
    def of(cls, hashes) -> _Hashes:
        if isinstance(hashes, _Hashes):
            return hashes
        hashes = list(hashes)
        return cls(np.array([h.encode() for h in hashes], dtype="S") if hashes else np.zeros(0, dtype="S32"))

    def __len__(self) -> int:
        return len(self.arr)

    def __getitem__(self, i: int) -> str:
        return self.arr[i].decode()

    def __iter__(self):
        return (h.decode() for h in self.arr.tolist())

    def __contains__(self, h) -> bool:
        return bool(len(self.arr)) and bool((self.arr == h.encode()).any())

    def __add__(self, other) -> _Hashes:
        return _Hashes(np.concatenate([self.arr, _Hashes.of(other).arr]))

    def take(self, keep: np.ndarray) -> _Hashes:
        return _Hashes(self.arr[keep])


class _Vectors:
    """All vectors of one index as one float32 matrix, kept while the index is unchanged.

    Scores use ``np.einsum``, which runs numpy's own single-threaded SIMD loop: BLAS matmul
    spreads a matrix-vector product over threads, which on a busy 2-core machine was 4-30x
    slower. Very large indexes first compare sign bits (``_codes``), then rescore the best
    ``CANDIDATE_SHARE`` of rows exactly. The arrays may be mapped from a snapshot file
    (``_read_snapshot``): only the rows a scan touches are then read.
    """

    def __init__(self, key, ids: np.ndarray, mat: np.ndarray, hashes, *, codes=None, tail=None):
        self.key, self.ids = key, ids
        # the rows as ``base`` (the mapped snapshot, or rows read at once) then ``tail`` (rows
        # syncs appended since, in memory): extending a 100 MB matrix by a save's few rows then
        # copies those rows, not the matrix (``extended``)
        self.base = mat
        self.tail = tail if tail is not None else np.zeros((0, mat.shape[1]), dtype=np.float32)
        self.hashes = _Hashes.of(hashes)  # content hash of each row: its chunks are found without the vectors table
        self.codes = codes
        if len(ids) > EXACT_MAX and codes is None:
            self.codes = _codes(self.mat)

    @property
    def mat(self) -> np.ndarray:
        """Every row as one matrix (a copy when rows were appended)."""
        return self.base if not len(self.tail) else np.concatenate([self.base, self.tail])

    def extended(self, key, ids: np.ndarray, mat: np.ndarray, hashes) -> _Vectors:
        """These rows plus newer ones (a sync appended them): only the new rows are coded and
        copied, until they are ``TAIL_SHARE`` of the matrix (then it is made one again)."""
        if len(ids) == 0:  # a sync that changed chunks, not vectors: the same arrays
            return _Vectors(key, self.ids, self.base, self.hashes, codes=self.codes, tail=self.tail)
        base, tail = self.base, np.concatenate([self.tail, mat])
        if len(tail) > TAIL_SHARE * len(base):
            base, tail = np.concatenate([base, tail]), None
        codes = None if self.codes is None else np.concatenate([self.codes, _codes(mat)], axis=1)
        return _Vectors(key, np.concatenate([self.ids, ids]), base, self.hashes + hashes, codes=codes, tail=tail)

    def subset(self, keep: np.ndarray) -> _Vectors:
        """The rows where ``keep`` is true, in the same order (codes only above EXACT_MAX, as
        a fresh load of those rows would have them)."""
        ids = self.ids[keep]
        codes = self.codes[:, keep] if self.codes is not None and len(ids) > EXACT_MAX else None
        nb = len(self.base)
        mat = np.concatenate([self.base[keep[:nb]], self.tail[keep[nb:]]])
        return _Vectors(self.key, ids, mat, self.hashes.take(keep), codes=codes)

    def top(self, q: np.ndarray, want: int) -> np.ndarray:
        """Indices of the ``want`` best rows, best first."""
        nb = len(self.base)
        if self.codes is None:
            sims = np.einsum("ij,j->i", self.base, q)
            if len(self.tail):
                sims = np.concatenate([sims, np.einsum("ij,j->i", self.tail, q)])
            rows = np.arange(len(sims))
        else:
            dist = _hamming(self.codes, _codes(q[None, :])[:, 0])
            n = min(max(int(CANDIDATE_SHARE * len(dist)), want * 4), len(dist))
            rows = _nearest_rows(dist, n)  # in row order: the base's rows, then the tail's
            sims = np.empty(len(rows), dtype=np.float32)
            in_base = int(np.searchsorted(rows, nb))
            for i in range(0, in_base, RESCORE_BLOCK):
                part = rows[i:min(i + RESCORE_BLOCK, in_base)]
                sims[i:i + len(part)] = np.einsum("ij,j->i", self.base[part], q)
            if in_base < len(rows):
                sims[in_base:] = np.einsum("ij,j->i", self.tail[rows[in_base:] - nb], q)
        want = min(want, len(sims))
        best = np.argpartition(-sims, want - 1)[:want]
        best = best[np.argsort(-sims[best])]
        return rows[best]


def _read_vectors(store: Store, after: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    ids, hashes, rows = [], [], []
    for vid, h, blob in store.conn.execute("SELECT id, hash, vec FROM vectors WHERE id > ? ORDER BY id", (after,)):
        if blob is not None and len(blob) == 4 * store.dim:
            ids.append(vid)
            hashes.append(h)
            rows.append(blob)
    mat = np.frombuffer(b"".join(rows), dtype=np.float32).reshape(len(ids), store.dim)
    return np.array(ids, dtype=np.int64), mat, hashes


SNAPSHOT_MIN = 20_000  # vectors: below this SQLite reads them about as fast as the snapshot
SNAPSHOT_STALE = 0.1  # a sync writes the snapshot anew once this share of its rows was added or dropped
SNAPSHOT_MAGIC = b"ctxmill-vectors 3\n"


def _snapshot_path(store: Store) -> str:
    return str(store.path) + ".vecs"


def _legacy_snapshot_path(store: Store) -> str:
    return str(store.path) + ".vectors"  # the layout before the mapped one: read whole, rewritten


def _read_snapshot(store: Store) -> _Vectors | None:
    """The matrix as the last sync or search saved it (``_write_snapshot``), mapped, not read:
    the ids, content hashes, sign-bit codes and rows are arrays at known offsets of one file,
    so opening it costs a few small reads whatever its size, and a scan pages in the rows it
    touches (the kernel is asked to read the rest ahead). None when there is none, or it is torn
    or foreign. It may be older than the index: ``_load_vectors`` then extends it like a cached one."""
    import mmap
    import os

    path = _snapshot_path(store)
    if not os.path.exists(path):
        return None
    fmt = np.lib.format
    try:
        with open(path, "rb") as fh:
            if fh.read(len(SNAPSHOT_MAGIC)) != SNAPSHOT_MAGIC:
                return None
            arrays = []
            for i in range(5):
                version = fmt.read_magic(fh)
                if version == (1, 0):
                    shape, fortran, dtype = fmt.read_array_header_1_0(fh)
                elif version == (2, 0):
                    shape, fortran, dtype = fmt.read_array_header_2_0(fh)
                else:
                    return None
                if fortran or dtype.hasobject:
                    return None
                offset = fh.tell()
                count = int(np.prod(shape, dtype=np.int64))
                if i < 4:
                    # key, ids, hashes, codes: a few MB that every scan reads whole: one
                    # sequential read (outside the GIL), not a page fault per page
                    got = np.fromfile(fh, dtype=dtype, count=count)
                    if len(got) != count:
                        return None
                    arrays.append(got.reshape(shape))
                else:
                    arrays.append(np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape) if count else
                                  np.zeros(shape, dtype=dtype))
                fh.seek(offset + count * dtype.itemsize)
            size = fh.tell()
        if os.path.getsize(path) != size:
            return None  # torn (or something appended): SQLite is the truth
        raw_key, ids, hashes, codes, mat = arrays
        key = tuple(json.loads(bytes(raw_key)))
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if (len(hashes) != len(ids) or mat.shape != (len(ids), store.dim) or mat.dtype != np.float32
            or ids.dtype != np.int64 or hashes.dtype.kind != "S"):
        return None
    if len(ids) > EXACT_MAX:
        if codes.shape != (-(-store.dim // 64), len(ids)) or codes.dtype != np.uint64:
            return None
    else:
        codes = None
    with contextlib.suppress(AttributeError, OSError, ValueError):
        mat._mmap.madvise(mmap.MADV_WILLNEED)  # read ahead in the background: the scan then finds it in memory
    return _Vectors(key, ids, mat, _Hashes(hashes), codes=codes)


def _write_snapshot(store: Store, vecs: _Vectors) -> None:
    """Save the matrix beside the index (written whole, then renamed into place: a process
    that has the old one mapped keeps reading the old file), so the next process - a server
    started by a command, an in-process search - maps it instead of reading 100k SQLite rows."""
    import os

    path = _snapshot_path(store)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    codes = vecs.codes if vecs.codes is not None else np.zeros((0, 0), np.uint64)
    try:
        with open(tmp, "wb") as fh:
            fh.write(SNAPSHOT_MAGIC)
            for arr in (np.frombuffer(json.dumps(list(vecs.key)).encode(), dtype=np.uint8), vecs.ids,
                        vecs.hashes.arr, codes, vecs.mat):
                np.lib.format.write_array(fh, np.ascontiguousarray(arr), allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    with contextlib.suppress(OSError):
        os.unlink(_legacy_snapshot_path(store))  # an earlier version's, read whole: dead weight now


def _load_vectors(store: Store, key, prev: _Vectors | None = None) -> _Vectors | None:
    """The index's vectors; from ``prev`` (the matrix before the last sync) plus the rows added
    since, when that is all the sync did: a save on a 100k-chunk index then costs its own few
    rows, not a 100 MB re-read (vector ids only grow; a sync that dropped rows - the garbage
    collection of unused vectors, another embedder - shows in the row count: full reload).
    With no matrix in memory, the snapshot saved beside the index is ``prev`` (the sync writes
    it, ``refresh_snapshot``); a matrix of ``SNAPSHOT_MIN`` rows or more read whole from SQLite
    is saved for the next process."""
    if prev is None:
        prev = _read_snapshot(store)
        if prev is not None and tuple(prev.key) == tuple(key):
            return prev
    vecs, read = _load_rows(store, key, prev)
    if vecs is not None and read >= SNAPSHOT_MIN:
        _write_snapshot(store, vecs)
    return vecs


def refresh_snapshot(store: Store) -> bool:
    """Called at the end of a sync: write the snapshot of the vectors when there is none (and
    there are ``SNAPSHOT_MIN`` or more), when ``SNAPSHOT_STALE`` of its rows have been added
    since, or when any was dropped, so that the first search of the next process maps the matrix instead of
    reading it from SQLite (a second, at 100k vectors on a busy machine). A few small queries
    when nothing is to be written. True when it wrote one."""
    key = store.state_key()
    snap = _read_snapshot(store)
    if snap is not None and tuple(snap.key) == tuple(key):
        return False
    total = store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    if total < SNAPSHOT_MIN:
        return False
    if snap is not None and len(snap.ids):
        newer = store.conn.execute("SELECT count(*) FROM vectors WHERE id > ?", (int(snap.ids[-1]),)).fetchone()[0]
        dropped = len(snap.ids) + newer - total
        # rows added since: a search reads those few; any row dropped (the garbage collection
        # of unused vectors) would make every new process copy the whole matrix without them
        if dropped == 0 and newer < SNAPSHOT_STALE * len(snap.ids):
            return False
    vecs, _read = _load_rows(store, key, snap)
    if vecs is None:
        return False
    _write_snapshot(store, vecs)
    return True


def _load_rows(store: Store, key, prev: _Vectors | None) -> tuple[_Vectors | None, int]:
    """The vectors and how many rows were read from SQLite for them."""
    if prev is not None and _appended_only(store, prev, key):
        last = store.conn.execute("SELECT hash FROM vectors WHERE id = ?", (int(prev.ids[-1]),)).fetchone()
        ids, mat, hashes = _read_vectors(store, int(prev.ids[-1]))
        total = store.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        # the last cached row still there (its id is not reused) and no row gone: only appended
        if last is not None and last[0] == prev.hashes[-1]:
            if len(prev.ids) + len(ids) == total:
                return prev.extended(key, ids, mat, hashes), len(ids)
            # rows gone (a sync's garbage collection of unused vectors): while the last cached
            # row is there, every id up to it is an old row, so the cached rows still present
            # plus the new ones are the index's - an id list read instead of 100 MB of rows
            kept = np.fromiter((r[0] for r in store.conn.execute(
                "SELECT id FROM vectors WHERE id <= ?", (int(prev.ids[-1]),))), dtype=np.int64)
            if len(kept) + len(ids) == total:
                return prev.subset(np.isin(prev.ids, kept)).extended(key, ids, mat, hashes), len(ids)
    ids, mat, hashes = _read_vectors(store)
    if not len(ids):
        return None, 0
    return _Vectors(key, ids, mat, hashes), len(ids)


def _appended_only(store: Store, prev: _Vectors, key) -> bool:
    # the same database (created_at), schema and embedder (name, dim) as the cached matrix
    old = prev.key
    return (old is not None and len(prev.ids) > 0 and tuple(old[:2]) == tuple(key[:2])
            and tuple(old[3:5]) == tuple(key[3:5]) and prev.base.shape[1] == store.dim
            and (key[7] or 0) >= int(prev.ids[-1]))


class _Cached:
    """What searches of one index keep between queries (the vector matrix, the common terms,
    each file's naming terms), valid while ``Store.state_key()`` is unchanged: a sync that
    commits anything - in this process or another - changes the key, so the next search
    starts over, from what the last state had where it still holds (the matrix is extended,
    a file's naming terms are kept while its content hash is the same). Read lazily, each
    part when first needed, or ahead of need by ``warm_file_names``."""

    def __init__(self, key, prev: _Vectors | None = None, carried: dict | None = None, warm_after: str | None = ""):
        self.key = key
        self._vectors: _Vectors | None | bool = False  # False: not loaded yet
        self._prev = prev  # the matrix of the index's previous state, to extend
        self._common: frozenset[str] | None = None
        # path -> (the file's content hash, rank.FileNames packed), read in this state
        self.files: dict[str, tuple] = {}
        # the same from earlier states: used once the file's hash is checked (see _file_names)
        self.carried: dict[str, tuple] = carried or {}
        self.warm_after = warm_after  # the last path warm_file_names did ("": none yet, None: all)

    def vectors(self, store: Store) -> _Vectors | None:
        if self._vectors is False:
            self._vectors = _load_vectors(store, self.key, self._prev)
            self._prev = None
        return self._vectors

    def common_terms(self, store: Store) -> frozenset[str]:
        if self._common is None:
            raw = store.get_meta("common_terms")
            self._common = frozenset(json.loads(raw)) if raw else frozenset()
        return self._common


_caches: dict[str, _Cached] = {}
_caches_lock = threading.Lock()


def _cached(store: Store) -> _Cached:
    """The cache of ``store``'s index, checked against the index's state (one small query)."""
    key = store.state_key()
    name = str(store.path)
    with _caches_lock:
        got = _caches.get(name)
        if got is None or got.key != key:
            if len(_caches) >= 4 and name not in _caches:
                _caches.pop(next(iter(_caches)))  # the oldest index
            prev = got._vectors if got is not None and isinstance(got._vectors, _Vectors) else None
            if got is not None and tuple(got.key[:2]) == tuple(key[:2]):  # the same database and schema
                got = _caches[name] = _Cached(key, prev, {**got.carried, **got.files}, got.warm_after)
            else:
                got = _caches[name] = _Cached(key, prev)
    return got


def _matrix(store: Store) -> _Vectors | None:
    return _cached(store).vectors(store)


def _common_terms(store: Store) -> frozenset[str]:
    return _cached(store).common_terms(store)


def vector(store: Store, qvec: np.ndarray, bounds, limit: int) -> list[int]:
    """Chunk ids nearest to ``qvec`` (chunks sharing a content hash share a rank)."""
    vecs = _cached(store).vectors(store)
    if vecs is None or len(vecs.ids) == 0:
        return []
    want = limit if bounds is None else min(limit * 20, 2000)
    return _vector_chunks(store, vecs, vecs.top(np.ascontiguousarray(qvec, dtype=np.float32), want),
                          bounds, limit)


def _vector_chunks(store: Store, vecs: _Vectors, top: np.ndarray, bounds, limit: int) -> list[int]:
    hashes = [vecs.hashes[int(i)] for i in top]
    if not hashes:
        return []
    marks = ",".join("?" * len(hashes))
    sql = f"SELECT hash, id FROM chunks WHERE hash IN ({marks})"
    args: list = list(hashes)
    if bounds is not None:
        sql += " AND path >= ? AND path < ?"
        args += [bounds[0], bounds[1]]
    by_hash: dict[str, list[int]] = {}
    for h, cid in store.conn.execute(sql, args):
        by_hash.setdefault(h, []).append(cid)
    out: list[int] = []
    for h in hashes:
        out.extend(sorted(by_hash.get(h, ())))
        if len(out) >= limit:
            break
    return out[:limit]


_pool = None


def _legs(store: Store, query: str, embedder, bounds, n: int, cache: _Cached | None = None,
          while_waiting=None, mark: _Marks | None = None) -> tuple[list[int], list[int]]:
    """Lexical and vector candidates. The vector scan (numpy, no GIL) runs in a helper thread
    while SQLite answers the lexical query here; all SQL stays on this thread. When the scan
    is still running after that, ``while_waiting(lexical ids)`` uses the wait."""
    global _pool
    cache = cache or _cached(store)
    mark = mark or _Marks(None)
    # vectors from another embedder (or another version of one) are not comparable, even at
    # the same dim: lexical only until the next sync re-embeds
    same = store.dim == embedder.dim and store.embedder_name in (None, getattr(embedder, "name", None))
    vecs = cache.vectors(store) if same else None
    mark("vectors_load")
    if vecs is None or len(vecs.ids) == 0:
        lex = lexical(store, query_terms(query), bounds, n, cache)
        mark("lexical")
        return lex, []
    want = n if bounds is None else min(n * 20, 2000)
    q = np.ascontiguousarray(embedder.embed_query(query), dtype=np.float32)
    mark("embed")
    if len(vecs.ids) < 20_000:  # small: a thread hand-off costs more than it saves
        lex = lexical(store, query_terms(query), bounds, n, cache)
        mark("lexical")
        top = vecs.top(q, want)
        mark("vector_scan")
    else:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(1, thread_name_prefix="ctxmill-vec")
        phases = mark.phases

        def scan():
            t, c = time.perf_counter(), time.thread_time()
            got = vecs.top(q, want)
            if phases is not None:  # the scan's own time on its thread, beside this one's wait
                phases["vector_scan"] = time.perf_counter() - t
                phases["vector_scan_cpu"] = time.thread_time() - c
            return got

        fut = _pool.submit(scan)
        lex = lexical(store, query_terms(query), bounds, n, cache)
        mark("lexical")
        if while_waiting is not None and not fut.done():
            while_waiting(lex)
            mark("prefetch")
        top = fut.result()
        mark("vector_wait")
    got = _vector_chunks(store, vecs, top, bounds, n)
    mark("vector_rows")
    return lex, got


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
    if not query.isascii():
        try:
            query.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: a byte that is not UTF-8 in argv, a "\ud800" in
            # JSON (MCP, web); the tokenizer and SQLite refuse it (exit 1): it becomes U+FFFD
            query = query.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if k < 1:
        raise UsageError("k must be at least 1")
    mark = _Marks(PHASES.get())
    bounds = _prefix_bounds(path_prefix)
    rank = _rank_module()
    n = max(getattr(rank, "CANDIDATES", 50), k * 5)
    cache = _cached(store)
    mark("state")
    rows: dict[int, tuple] = {}
    pool = max(getattr(rank, "POOL", 0), k * 3)

    def prefetch(lex: list[int]) -> None:
        # the best lexical candidates nearly all reach the ranker: read their rows and their
        # files' names now, while the vector scan runs on the other core
        rows.update(_rows(store, lex[:pool]))
        if hasattr(rank, "FileNames"):
            _file_names(store, cache, {r[1] for r in rows.values()})

    lex, vec = _legs(store, query, embedder, bounds, n, cache, prefetch, mark)
    lex_rank = {cid: i for i, cid in enumerate(lex, 1)}
    vec_rank = {cid: i for i, cid in enumerate(vec, 1)}
    if rank is not None and hasattr(rank, "fuse_ids"):
        # weighted fusion + code-aware ranking (ctxmill.index.rank, weights tuned on the dev set)
        top = rank.fuse_ids(lex, vec)[:pool]
        mark("fuse")
        hits = _hits(store, top, lex_rank, vec_rank, rows)
        mark("rows")
        files = None
        if hasattr(rank, "FileNames"):
            # only the query's own words matter in a file's naming terms (rank._file_scores)
            qstems = rank.query_stems(query)
            files = {p: f.matching(qstems) for p, f in _file_names(store, cache, {h.path for h in hits}).items()}
            mark("names")
        facades = _facades(store, cache) if hasattr(rank, "facade_index") else None
        out = rank.rerank(query, hits, k=k, files=files, **({"facades": facades} if facades else {}))
        mark("rerank")
        return out
    fused = fuse([(lex, LEXICAL_WEIGHT), (vec, VECTOR_WEIGHT)])
    top = fused[: max(k * 3, 30)]
    hits = _hits(store, top, lex_rank, vec_rank)
    if rank is not None and hasattr(rank, "rerank"):
        hits = rank.rerank(query, hits)
    return hits[:k]


def _facades(store: Store, cache: _Cached) -> dict:
    """``rank.facade_index`` of the index's forwarding files (meta ``facades``, kept by each
    sync), read once per index state: a few rows by path."""
    got = getattr(cache, "facades", None)
    if got is None:
        from ctxmill.index.rank import FACADE_KIND, facade_index

        paths = json.loads(store.get_meta("facades") or "[]")
        rows = []
        for i in range(0, len(paths), 500):
            part = paths[i : i + 500]
            rows.extend(dict(zip(("path", "start_line", "end_line", "kind", "symbol", "language", "text", "context",
                                  "id"), r, strict=True)) for r in store.conn.execute(
                "SELECT path, start_line, end_line, kind, symbol, language, text, context, id FROM chunks "
                f"WHERE kind = ? AND path IN ({','.join('?' * len(part))})", (FACADE_KIND, *part)))
        got = cache.facades = facade_index(rows)
    return got


def file_terms(store: Store, paths) -> dict[str, frozenset[str]]:
    """``rank.file_terms`` of each path: its path parts, the names its chunks define and its
    leading docstring/comment - what names the file as a whole (whole sets: for tests and the
    tuning benchmark; a search asks only which query words they hold, see ``FileNames``)."""
    got = _file_names(store, _cached(store), paths)
    return {p: got[p].terms() for p in paths}


def _file_names(store: Store, cache: _Cached, paths, *, tag: bool = False) -> dict:
    """``rank.FileNames`` of each path, read from the index on first need and kept in the
    index's cache (the same candidate files come back query after query). After a sync, the
    names a file had are kept when its content hash is unchanged: one small query instead of
    reading its chunks again. The hashes are read when there are names to check against them
    or ``tag`` is set (the server's read-ahead); a one-off search in a command skips them."""
    from ctxmill.index.rank import FileNames, head_doc

    known, carried = cache.files, cache.carried
    # with ``tag``, names a search read without the hash are read again with it (tagging them
    # now could pair a newer hash with older names)
    missing = [p for p in paths if p not in known or (tag and known[p][0] is None)]
    for i in range(0, len(missing), 500):
        part = missing[i : i + 500]
        marks = ",".join("?" * len(part))
        # hashes first: names read from newer chunks than the hash never pass as current
        hashes = dict(store.conn.execute(f"SELECT path, hash FROM files WHERE path IN ({marks})", part)) \
            if tag or carried else {}
        todo = []
        for p in part:
            old = carried.get(p)
            if old is not None and old[0] is not None and old[0] == hashes.get(p):
                known[p] = old
            else:
                todo.append(p)
        if not todo:
            continue
        marks = ",".join("?" * len(todo))
        symbols: dict[str, list[str]] = {p: [] for p in todo}
        for path, symbol in store.conn.execute(
                f"SELECT path, symbol FROM chunks WHERE path IN ({marks}) AND symbol IS NOT NULL", todo):
            symbols[path].append(symbol)
        heads = {}
        # the first chunk of each file (SQLite returns the bare columns of the min() row)
        for path, head, _first in store.conn.execute(
                f"SELECT path, substr(text, 1, 3000), min(start_line) FROM chunks WHERE path IN ({marks}) "
                f"GROUP BY path", todo):
            heads[path] = head
        for p in todo:
            known[p] = (hashes.get(p), FileNames(p, symbols[p], head_doc(heads.get(p) or "")).packed())
    return {p: FileNames.unpack(known[p][1]) for p in paths}


WARM_BATCH = 256  # files a call of warm_file_names reads: a few milliseconds, so a search never waits long
WARM_MAX_FILES = 100_000  # beyond this many files, names are read on first need only (~1 KB a file)


WARM_PAGES = 2048  # pages of a mapped matrix touched by one call of warm_vectors (~1 ms)


def warm_vectors(store: Store, pages: int = WARM_PAGES) -> bool:
    """Bring the next ``pages`` pages of the index's mapped vector matrix into memory and into
    this process's page tables; True when all are. A mapped matrix is read where a scan first
    touches it: each query's rescoring then takes a page fault per new page - a disk read,
    with the GIL held, when the page is not cached. A server calls this while idle, a slice at
    a time: the slice is read with ``readinto`` (a system call that lets go of the GIL, so a
    search never waits behind the disk here), then one byte a page is touched (in memory by
    then: a fraction of a millisecond). A matrix held in memory needs nothing."""
    vecs = _cached(store).vectors(store)
    mat = None if vecs is None else vecs.base
    mm = getattr(mat, "_mmap", None) if isinstance(mat, np.memmap) else None
    if mm is None:
        return True
    total = -(-len(mm) // 4096)
    done = getattr(vecs, "warm_done", 0)
    if done >= total:
        return True
    take = min(pages, total - done)
    start = mat.offset - mat.offset % mmap_granularity()  # where the mapping begins in the file
    scratch = bytearray(take * 4096)
    try:
        with open(mat.filename, "rb", buffering=0) as fh:
            fh.seek(start + done * 4096)
            fh.readinto(scratch)
    except OSError:
        pass  # gone (a newer snapshot replaced it): the mapping still holds the old pages
    flat = np.frombuffer(mm, dtype=np.uint8)
    int(flat[done * 4096:(done + take) * 4096:4096].sum())  # one byte a page: in the page tables now
    vecs.warm_done = done + take
    return vecs.warm_done >= total


def mmap_granularity() -> int:
    import mmap

    return mmap.ALLOCATIONGRANULARITY


def warm_file_names(store: Store, batch: int = WARM_BATCH) -> bool:
    """Read the naming terms of the next ``batch`` indexed files that the cache does not hold
    yet; True when there are none left. A server calls it while idle, so that a search whose
    candidates come from files no search has met yet finds their names ready: at 100k chunks
    reading them took ~15% of such a search's CPU. Files a sync changes later are read again
    on first need (their old names are dropped by the hash check)."""
    rank = _rank_module()
    if rank is None or not hasattr(rank, "FileNames"):
        return True
    cache = _cached(store)
    after = cache.warm_after
    if after is None:
        return True
    if len(cache.files) + len(cache.carried) >= WARM_MAX_FILES:
        cache.warm_after = None
        return True
    paths = [r[0] for r in store.conn.execute(
        "SELECT DISTINCT path FROM chunks WHERE path > ? ORDER BY path LIMIT ?", (after, batch))]
    if paths:
        _file_names(store, cache, paths, tag=True)
    cache.warm_after = paths[-1] if len(paths) == batch else None
    return cache.warm_after is None


def _rows(store: Store, ids: list[int]) -> dict[int, tuple]:
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    return {r[0]: r for r in store.conn.execute(
        f"SELECT id, path, start_line, end_line, kind, symbol, text, language, context FROM chunks "
        f"WHERE id IN ({marks})", ids)}


def _hits(store: Store, top, lex_rank, vec_rank, rows: dict[int, tuple] | None = None) -> list[Hit]:
    """Hits for ``top`` ((id, score) best first); ``rows`` may hold some already read."""
    if not top:
        return []
    rows = dict(rows or {})
    rows.update(_rows(store, [cid for cid, _ in top if cid not in rows]))
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
