"""The warm server's vector cache after a sync: the rows a sync appended are added to the
cached matrix (a save on a big index must not re-read every vector), and anything else - rows
dropped, an id reused - reloads it. Either way searches equal those of a fresh process."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from ctxmill.index import search, sync_index
from ctxmill.index.store import Store

sm = importlib.import_module("ctxmill.index.search")


def _handlers_repo(tmp_path):
    """120 one-function files: over the patched EXACT_MAX, so the sign-bit scan is used."""
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(120):
        (root / f"m{i}.py").write_text(f"def handler_{i}(request):\n    return request.get('id_{i}', {i})\n")
    return root


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    monkeypatch.setattr(sm, "EXACT_MAX", 50)  # the sign-bit codes are extended too
    sm._caches.clear()
    root = _handlers_repo(tmp_path)
    db = tmp_path / "index.db"
    sync_index(root, db_path=db)
    search("handler 7", root, db_path=db, k=5)  # the matrix is cached now
    yield root, db
    sm._caches.clear()


def _cached_vectors(db):
    return sm._caches[str(db)]._vectors


def _same_as_fresh(root, db, query):
    warm = [h.to_dict() for h in search(query, root, db_path=db, k=5)]
    vecs = _cached_vectors(db)
    sm._caches.clear()
    fresh = [h.to_dict() for h in search(query, root, db_path=db, k=5)]
    full = _cached_vectors(db)
    assert warm == fresh
    order_w, order_f = np.argsort(vecs.ids), np.argsort(full.ids)
    assert (vecs.ids[order_w] == full.ids[order_f]).all()
    assert np.allclose(vecs.mat[order_w], full.mat[order_f])
    assert vecs.codes is not None and (vecs.codes[:, order_w] == full.codes[:, order_f]).all()


def test_a_sync_that_adds_rows_extends_the_cached_matrix(indexed, monkeypatch):
    root, db = indexed
    calls = []
    extend = sm._Vectors.extended
    monkeypatch.setattr(sm._Vectors, "extended", lambda self, *a: calls.append(len(a[1])) or extend(self, *a))
    (root / "m7.py").write_text("def reconcile_ledger_entries(book):\n    return sorted(book)\n")
    (root / "new.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    sync_index(root, db_path=db)
    assert search("reconcile ledger entries", root, db_path=db, k=1)[0].path == "m7.py"
    assert calls == [2]  # two new chunk contents, two rows read
    assert len(_cached_vectors(db).tail) == 2  # kept beside the matrix, which is not copied
    _same_as_fresh(root, db, "compute invoice total")


@pytest.mark.parametrize("exact_max", [10, 10_000])
def test_rows_kept_beside_the_matrix_rank_as_one_matrix_would(monkeypatch, exact_max):
    """A matrix extended by appended rows (kept apart until they are a tenth of it, then made
    one) ranks exactly as the whole matrix does, with the sign-bit prefilter and without."""
    monkeypatch.setattr(sm, "EXACT_MAX", exact_max)
    rng = np.random.default_rng(3)
    mat = rng.standard_normal((400, 64)).astype(np.float32)
    ids, hashes = np.arange(400, dtype=np.int64), [f"h{i}" for i in range(400)]
    whole = sm._Vectors(None, ids, mat, hashes)
    grown = sm._Vectors(None, ids[:370], mat[:370], hashes[:370])
    for a, b in ((370, 380), (380, 381), (381, 381), (381, 400)):
        grown = grown.extended(None, ids[a:b], mat[a:b], hashes[a:b])
        assert len(grown.tail) == (b - 370 if b - 370 <= 37 else 0)
    assert len(grown.tail) == 30 and list(grown.hashes) == hashes and (grown.mat == mat).all()
    for _ in range(20):
        q = rng.standard_normal(64).astype(np.float32)
        assert (grown.top(q, 25) == whole.top(q, 25)).all()
    keep = rng.random(400) > 0.2
    assert (grown.subset(keep).mat == mat[keep]).all()
    grown = grown.extended(None, ids[:10] + 400, mat[:10], [f"x{i}" for i in range(10)])
    assert len(grown.tail) == 0 and len(grown.base) == 410  # over a tenth: one matrix again


def test_a_reused_vector_id_reloads_the_matrix(indexed, monkeypatch):
    root, db = indexed
    calls = []
    extend = sm._Vectors.extended
    monkeypatch.setattr(sm._Vectors, "extended", lambda self, *a: calls.append(1) or extend(self, *a))
    with Store(db) as s, s.transaction():
        last, dim = s.conn.execute("SELECT max(id) FROM vectors").fetchone()[0], s.dim
        s.conn.execute("DELETE FROM vectors WHERE id = ?", (last,))  # what the garbage collection does
        s.conn.execute("INSERT INTO vectors(id, hash, last_sync, vec) VALUES (?, 'other', 99, ?)",
                       (last, np.ones(dim, dtype=np.float32).tobytes()))
        s.conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'sync_count'")
    search("handler 9", root, db_path=db, k=5)
    assert calls == []  # not extended: reloaded
    assert "other" in _cached_vectors(db).hashes
    _same_as_fresh(root, db, "handler 9")


def test_a_snapshot_beside_the_index_spares_the_next_process_the_rows(indexed, monkeypatch):
    """A server started by a command (or an in-process search) maps the matrix the last
    process saved instead of reading rows; after a sync it reads only the rows added since; a
    torn snapshot is ignored."""
    root, db = indexed
    monkeypatch.setattr(sm, "SNAPSHOT_MIN", 50)
    rows_read = []
    read = sm._read_vectors
    monkeypatch.setattr(sm, "_read_vectors", lambda store, after=0: rows_read.append(r := read(store, after)) or r)
    sm._caches.clear()
    want = [h.to_dict() for h in search("handler 42", root, db_path=db, k=5)]
    snap = Path(str(db) + ".vecs")
    assert snap.exists() and len(rows_read[-1][0]) == 120  # a full read, saved
    rows_read.clear()
    sm._caches.clear()  # as a new process
    assert [h.to_dict() for h in search("handler 42", root, db_path=db, k=5)] == want
    assert rows_read == []  # nothing read from SQLite
    vecs = _cached_vectors(db)
    assert isinstance(vecs.mat, np.memmap)  # mapped, not read (the small arrays are read whole)
    (root / "new.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    sync_index(root, db_path=db)
    sm._caches.clear()
    got = search("compute invoice total", root, db_path=db, k=1)
    assert got[0].path == "new.py" and [len(r[0]) for r in rows_read] == [1]  # the snapshot plus one row
    snap.write_bytes(snap.read_bytes()[:1000])  # torn (a full disk, a crash mid-write)
    rows_read.clear()
    sm._caches.clear()
    _same_as_fresh(root, db, "compute invoice total")
    assert len(rows_read[0][0]) == 121


def test_warm_vectors_maps_every_page_of_the_snapshot_a_slice_at_a_time(indexed, monkeypatch):
    """What the server does while idle: the mapped matrix's pages, a few per call, until all
    are in place; searches are unchanged, and a matrix in memory needs nothing."""
    root, db = indexed
    monkeypatch.setattr(sm, "SNAPSHOT_MIN", 50)
    with Store(db, create=False) as store:
        assert sm.warm_vectors(store, pages=1)  # read from SQLite: in memory already
    sm._caches.clear()
    want = [h.to_dict() for h in search("handler 42", root, db_path=db, k=5)]  # saved it
    sm._caches.clear()
    with Store(db, create=False) as store:
        vecs = sm._cached(store).vectors(store)
        assert isinstance(vecs.mat, np.memmap)
        pages = -(-len(vecs.mat._mmap) // 4096)
        calls = 1
        while not sm.warm_vectors(store, pages=3):
            calls += 1
        assert calls == -(-pages // 3) and vecs.warm_done == pages
        assert sm.warm_vectors(store, pages=3)
    assert [h.to_dict() for h in search("handler 42", root, db_path=db, k=5)] == want


def _snapshot_rows(snap: Path) -> int:
    with open(snap, "rb") as fh:
        assert fh.read(len(sm.SNAPSHOT_MAGIC)) == sm.SNAPSHOT_MAGIC
        np.load(fh)  # the key
        return len(np.load(fh))  # the ids


def test_the_sign_bit_prefilter_keeps_the_exact_nearest_rows(monkeypatch):
    """Above EXACT_MAX rows the scan compares sign bits first and rescores the nearest share
    exactly. On real embeddings (12-line windows of the standard library, the bundled
    embedder) its top 10 are nearly the exact top 10 - more so on bigger indexes, where the
    share is more rows: 0.998 at 100k - and the popcount fallback for numpy < 2 ranks the
    same rows."""
    import sysconfig

    from ctxmill.index.embedders import get_embedder

    monkeypatch.setattr(sm, "EXACT_MAX", 100)
    lib = Path(sysconfig.get_paths()["stdlib"])
    texts = []
    for p in sorted(lib.glob("*.py"))[:200]:
        lines = p.read_text(errors="replace").splitlines()
        texts += ["\n".join(lines[i:i + 12]) for i in range(0, len(lines), 12)]
    emb = get_embedder()
    mat = emb.embed(texts)
    vecs = sm._Vectors(None, np.arange(len(mat)), mat, [str(i) for i in range(len(mat))])
    assert len(mat) > 4000 and vecs.codes is not None and vecs.codes.shape == (-(-mat.shape[1] // 64), len(mat))
    words = sorted({w for t in texts[:300] for w in re.findall(r"[a-z]{4,}", t)})
    rng = np.random.default_rng(5)
    recall, first = [], 0
    for _ in range(60):
        q = emb.embed_query(" ".join(rng.choice(words, 3)))
        exact = np.argsort(-(mat @ q))[:10]
        got = vecs.top(q, 10)
        recall.append(len(set(got) & set(exact)) / 10)
        first += got[0] == exact[0]
        with monkeypatch.context() as m:
            m.setattr(sm, "_popcount", None)
            assert (vecs.top(q, 10) == got).all()
    assert np.mean(recall) >= 0.85 and first >= 54
    row = mat[123]  # a stored row is its own nearest
    assert vecs.top(row, 1)[0] == 123 or float(mat[vecs.top(row, 1)[0]] @ row) >= float(row @ row) - 1e-6


def test_hamming_distances_do_not_wrap_and_the_cut_keeps_the_nearest():
    """256 and more dimensions: a row whose every sign differs is the farthest, not distance 0
    (the per-word popcounts are uint8); the cut takes exactly n rows, none farther than any
    row it leaves, in row order."""
    rng = np.random.default_rng(1)
    for dim in (64, 256, 384, 1536):
        v = rng.standard_normal(dim).astype(np.float32)
        codes = sm._codes(np.stack([v, -v, v]))
        d = sm._hamming(codes, sm._codes(v[None, :])[:, 0])
        assert list(d) == [0, dim, 0]
    dist = rng.integers(0, 30, 5000).astype(np.uint16)
    for n in (1, 7, 400, 4999, 5000):
        got = sm._nearest_rows(dist, n)
        rest = np.setdiff1d(np.arange(5000), got)
        assert len(got) == n and (np.diff(got) > 0).all()
        assert not len(rest) or dist[got].max() <= dist[rest].min()


def test_file_names_are_warmed_ahead_and_kept_across_a_sync_while_the_file_is_unchanged(indexed, monkeypatch):
    """warm_file_names reads every file's naming terms in batches (what the server does while
    idle); after a sync only the changed file's are read again, and searches equal those of
    a cold cache."""
    root, db = indexed
    with Store(db, create=False) as store:
        calls = 0
        while not sm.warm_file_names(store, batch=50):
            calls += 1
        assert calls == 2  # 120 files: batches of 50, 50, then 20 and done
        cache = sm._cached(store)
        assert len(cache.files) == 120 and cache.warm_after is None
        assert sm.warm_file_names(store)  # nothing left
    (root / "m7.py").write_text("def reconcile_ledger_entries(book):\n    return sorted(book)\n")
    sync_index(root, db_path=db)
    read_chunks = []
    with Store(db, create=False) as store:
        real = store.conn

        class Spy:  # records which files' chunks are read for their names
            def execute(self, sql, args=()):
                if sql.startswith("SELECT path, symbol FROM chunks"):
                    read_chunks.extend(args)
                return real.execute(sql, args)

            def __getattr__(self, name):
                return getattr(real, name)

        monkeypatch.setattr(store, "conn", Spy())
        terms = sm.file_terms(store, ["m7.py", "m8.py"])
        assert read_chunks == ["m7.py"]  # m8.py's names carried over, m7.py's read again
        from ctxmill.index.rank import stem

        assert stem("reconcile") in terms["m7.py"] and stem("handler") not in terms["m7.py"]
        assert stem("handler") in terms["m8.py"]
    warm = [h.to_dict() for h in search("reconcile ledger entries", root, db_path=db, k=5)]
    sm._caches.clear()
    assert warm == [h.to_dict() for h in search("reconcile ledger entries", root, db_path=db, k=5)]


def test_the_sync_writes_the_snapshot_and_rewrites_it_once_it_lags(tmp_path, monkeypatch):
    """The sync saves the vectors beside the index, so the first search of the next process
    reads no vector row from SQLite; a sync that adds fewer than a tenth of its rows leaves it
    (a search reads those few), one that adds more writes it anew. An earlier version's
    snapshot (read whole) is removed when the new one is written. Searches are unchanged."""
    monkeypatch.setattr(sm, "EXACT_MAX", 50)
    monkeypatch.setattr(sm, "SNAPSHOT_MIN", 50)
    sm._caches.clear()
    root = _handlers_repo(tmp_path)
    db = tmp_path / "index.db"
    legacy = Path(str(db) + ".vectors")
    legacy.write_bytes(b"an older version's snapshot")
    sync_index(root, db_path=db)
    snap = Path(str(db) + ".vecs")
    assert _snapshot_rows(snap) == 120 and not legacy.exists()
    rows_read = []
    read = sm._read_vectors
    monkeypatch.setattr(sm, "_read_vectors", lambda store, after=0: rows_read.append(r := read(store, after)) or r)
    search("handler 3", root, db_path=db, k=5)
    assert rows_read == []
    for i in range(5):  # 5 new rows: less than a tenth of 120
        (root / f"few_{i}.py").write_text(f"def invoice_line_{i}(lines):\n    return len(lines) * {i}\n")
    sync_index(root, db_path=db)
    assert _snapshot_rows(snap) == 120
    for i in range(15):  # 20 new rows in all: more than a tenth
        (root / f"new_{i}.py").write_text(f"def ledger_total_{i}(lines):\n    return sum(lines) + {i}\n")
    sync_index(root, db_path=db)
    assert _snapshot_rows(snap) == 140
    sm._caches.clear()
    rows_read.clear()
    queries = ["ledger total 7", "handler 3", "invoice line"]
    got = [[h.to_dict() for h in search(q, root, db_path=db, k=5)] for q in queries]
    assert rows_read == []
    with Store(db) as s, s.transaction():  # what the garbage collection of unused vectors does
        s.conn.execute("DELETE FROM vectors WHERE id = (SELECT min(id) FROM vectors)")
    (root / "gc.py").write_text("def after_collection(x):\n    return x\n")
    sync_index(root, db_path=db)
    assert _snapshot_rows(snap) == 140  # one dropped, one added: written anew
    sm._caches.clear()
    rows_read.clear()  # (the sync read the added row to write it)
    got = [[h.to_dict() for h in search(q, root, db_path=db, k=5)] for q in queries]
    assert rows_read == []
    sm._caches.clear()
    monkeypatch.setattr(sm, "_read_snapshot", lambda store: None)  # SQLite alone: the same hits
    assert [[h.to_dict() for h in search(q, root, db_path=db, k=5)] for q in queries] == got
    sm._caches.clear()


def test_rows_dropped_by_a_sync_are_cut_from_the_cached_matrix_not_reloaded(indexed, monkeypatch):
    """A sync that drops unused vector rows (its garbage collection) and adds others: the
    cached matrix loses those rows and takes the new ones, without reading every row again,
    and searches equal a fresh process's."""
    root, db = indexed
    rows_read = []
    read = sm._read_vectors
    monkeypatch.setattr(sm, "_read_vectors", lambda store, after=0: rows_read.append(r := read(store, after)) or r)
    with Store(db) as s, s.transaction():
        gone = [r[0] for r in s.conn.execute("SELECT id FROM vectors ORDER BY id LIMIT 5 OFFSET 10")]
        s.conn.executemany("DELETE FROM vectors WHERE id = ?", [(i,) for i in gone])
        s.conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'sync_count'")
    (root / "new.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    sync_index(root, db_path=db)
    got = search("compute invoice total", root, db_path=db, k=1)
    assert got[0].path == "new.py"
    assert [len(r[0]) for r in rows_read] == [1]  # only the new row was read
    vecs = _cached_vectors(db)
    assert not set(gone) & set(vecs.ids.tolist())
    _same_as_fresh(root, db, "compute invoice total")
