"""The index's system of record: one SQLite database (WAL) per indexed folder.

Tables:

* ``meta``     key/value: schema version, root, embedder name and dim, sync counter, ``dirty``
* ``files``    one row per indexed file: stat (size, mtime_ns, inode) for the fast path, the
               content hash (the Merkle leaf), status (ok | binary | failed) and language
* ``nodes``    Merkle nodes of folders: hash of the sorted (name, child hash) list; root is ``""``
* ``chunks``   path, 1-based inclusive lines, kind, symbol, language, text, context and the
               content hash of what is embedded (context + text)
* ``chunks_fts`` FTS5 over the chunk text plus identifier parts, the symbol and the path
* ``vectors``  one row per distinct chunk content hash with its embedding as a float32 blob.
               Search scans them with numpy from an in-process cache (see search.py): measured
               here, sqlite-vec's brute-force vec0 scan took 160 ms (float) / 54 ms (bit) per
               query over 100k on-disk vectors, a cached numpy matrix a few ms

Because vectors are keyed by content hash, identical chunks are embedded once, and a rename or
a revert finds its vectors already there. Vectors no chunk uses any more are kept for
``VECTOR_GRACE_SYNCS`` syncs (so reverting a change is free) and then dropped.
"""

from __future__ import annotations

import json
import marshal
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ctxmill.errors import InputRefused
from ctxmill.index.backend import embed_text, fts_body  # noqa: F401  (embed_text: re-exported)

try:  # sqlean.py: SQLite 3.50 with extension loading, which the stdlib build may lack
    import sqlean as sqlite3  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised only where sqlean.py is missing
    import sqlite3  # type: ignore[no-redef]

SCHEMA_VERSION = 2  # older versions are upgraded in place (ctxmill.index.migrate)
VECTOR_GRACE_SYNCS = 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, dir TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, inode INTEGER,
    hash TEXT NOT NULL, status TEXT NOT NULL, language TEXT, indexed_at REAL);
CREATE INDEX IF NOT EXISTS files_dir ON files(dir);
CREATE TABLE IF NOT EXISTS nodes(path TEXT PRIMARY KEY, parent TEXT, hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS nodes_parent ON nodes(parent);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
    kind TEXT, symbol TEXT, language TEXT, text TEXT NOT NULL, context TEXT, hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, symbol, path, tokenize = "unicode61 tokenchars '_'"{fts_options});
CREATE TABLE IF NOT EXISTS statcache(id INTEGER PRIMARY KEY CHECK (id = 1), data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, last_sync INTEGER NOT NULL, vec BLOB);
CREATE INDEX IF NOT EXISTS vectors_last_sync ON vectors(last_sync);
"""

_STATE_SQL = ("SELECT " + ", ".join(f"(SELECT value FROM meta WHERE key='{k}')" for k in (
    "created_at", "schema_version", "sync_count", "embedder_name", "embedder_dim", "dirty"))
    + ", (SELECT max(id) FROM chunks), (SELECT max(id) FROM vectors)")


class Store:
    """An open index database. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise InputRefused(f"no index at {self.path}; run `ctxmill index ROOT` first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # check_same_thread off: a cached reader (ctxmill.index._reader) may be closed by
            # another thread; no connection is ever used by two threads at once.
            self.conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None,
                                        check_same_thread=False)
            _ask_for_wal(self.conn)
        except sqlite3.DatabaseError as exc:
            raise InputRefused(f"{self.path}: not a ctxmill index ({exc})") from exc
        c = self.conn
        c.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at checkpoints, never corrupt
        c.execute("PRAGMA temp_store=MEMORY")
        c.execute("PRAGMA cache_size=-65536")
        # Checkpoint the WAL every ~32 MB instead of every 4 MB: a cold index of a big tree
        # otherwise spends much of its time copying pages and waiting for fsync.
        c.execute("PRAGMA wal_autocheckpoint=8192")
        self.has_vec = False  # vectors are float32 blobs scanned by numpy (see the module doc)
        try:
            version = self._schema_version()
        except (sqlite3.DatabaseError, ValueError) as exc:
            self.conn.close()
            raise InputRefused(f"{self.path}: not a ctxmill index ({exc})") from exc
        if version is not None and version > SCHEMA_VERSION:
            self.conn.close()
            raise InputRefused(
                f"{self.path}: index schema version {version} is newer than this ctxmill supports "
                f"({SCHEMA_VERSION}); upgrade ctxmill or remove the index to rebuild it"
            )
        if version is None:
            with self.transaction():
                for statement in _schema_statements():
                    c.execute(statement)
                self.set_meta("schema_version", str(SCHEMA_VERSION))
                self.set_meta("created_at", str(time.time()))
        elif version < SCHEMA_VERSION:
            self._upgrade(version)
        # Document frequency of terms, for dropping near-universal query terms (search.py).
        c.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, row)")
        self.dim = int(self.get_meta("embedder_dim") or 0)
        self.embedder_name = self.get_meta("embedder_name")

    # -- plumbing

    def _upgrade(self, version: int) -> None:
        from ctxmill.index.migrate import refusal, upgrade

        try:
            upgrade(self, version, SCHEMA_VERSION, _schema_statements())
        except InputRefused:
            self.conn.close()
            raise
        except (sqlite3.Error, ValueError) as exc:  # e.g. a read-only file: refused, never a bare SQLite error
            self.conn.close()
            raise refusal(self.path, str(exc)) from exc

    def _schema_version(self) -> int | None:
        row = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        if row is None:
            return None
        got = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(got[0]) if got else None

    def transaction(self):
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def state_key(self) -> tuple:
        """What the index's content is now, in one small read: every sync that commits changes
        it (``sync_count`` in its last transaction, the largest chunk/vector ids in the ones
        before), and a rebuilt database has another ``created_at``. In-process search caches
        are keyed on it. Also refreshes ``embedder_name``/``dim``, which a sync by another
        connection may have changed since this one opened."""
        key = self.conn.execute(_STATE_SQL).fetchone()
        self.embedder_name, self.dim = key[3], int(key[4] or 0)
        return key

    # -- embedder and vector table

    def ensure_embedder(self, name: str, dim: int) -> bool:
        """Make the vector table fit ``name``/``dim``; True when old vectors were dropped."""
        changed = (self.embedder_name, self.dim) != (name, dim)
        had_vectors = self.embedder_name is not None
        with self.transaction():
            if changed:
                self.conn.execute("DELETE FROM vectors")
                self.set_meta("embedder_name", name)
                self.set_meta("embedder_dim", str(dim))
        self.embedder_name, self.dim = name, dim
        return changed and had_vectors

    def missing_vectors(self, hashes: Iterable[str]) -> list[str]:
        """Which of ``hashes`` have no stored vector (order kept, duplicates dropped)."""
        wanted = list(dict.fromkeys(hashes))
        have: set[str] = set()
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            marks = ",".join("?" * len(part))
            have.update(r[0] for r in self.conn.execute(
                f"SELECT hash FROM vectors WHERE hash IN ({marks})", part))
        return [h for h in wanted if h not in have]

    def add_vectors(self, hashes: list[str], matrix: np.ndarray, sync_no: int) -> None:
        """Store vectors for hashes that have none (call inside a transaction)."""
        c = self.conn
        mat = np.ascontiguousarray(matrix, dtype=np.float32)
        first = c.execute("SELECT coalesce(max(id), 0) + 1 FROM vectors").fetchone()[0]
        ids = range(first, first + len(hashes))
        blobs = [row.tobytes() for row in mat]
        c.executemany("INSERT INTO vectors(id, hash, last_sync, vec) VALUES (?, ?, ?, ?)",
                      zip(ids, hashes, [sync_no] * len(hashes), blobs, strict=True))

    def touch_vectors(self, hashes: Iterable[str], sync_no: int) -> None:
        self.conn.executemany("UPDATE vectors SET last_sync=? WHERE hash=?", ((sync_no, h) for h in hashes))

    def hashes_without_vectors(self) -> list[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT c.hash FROM chunks c LEFT JOIN vectors v ON v.hash = c.hash WHERE v.id IS NULL")
        return [r[0] for r in rows]

    def texts_for_hashes(self, hashes: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for h in hashes:
            row = self.conn.execute("SELECT context, text FROM chunks WHERE hash=? LIMIT 1", (h,)).fetchone()
            if row:
                out[h] = embed_text(row[0], row[1])
        return out

    def gc_vectors(self, sync_no: int) -> int:
        """Drop vectors no chunk has used for ``VECTOR_GRACE_SYNCS`` syncs."""
        c = self.conn
        with self.transaction():
            ids = [r[0] for r in c.execute(
                "SELECT v.id FROM vectors v WHERE v.last_sync < ? AND NOT EXISTS "
                "(SELECT 1 FROM chunks c WHERE c.hash = v.hash)", (sync_no - VECTOR_GRACE_SYNCS,))]
            c.executemany("DELETE FROM vectors WHERE id=?", ((i,) for i in ids))
        return len(ids)

    # -- files and chunks

    def file_rows(self) -> dict[str, tuple[int, int, int, str, str]]:
        """path -> (size, mtime_ns, inode, hash, status)."""
        return {r[0]: r[1:] for r in self.conn.execute(
            "SELECT path, size, mtime_ns, inode, hash, status FROM files")}

    def stat_cache(self, *, trust: bool = True) -> dict[str, tuple[int, int, int]]:
        """path -> (size, mtime_ns, inode) of every indexed file.

        Read from one marshalled blob (what git's index file is to `git status`): loading it
        costs a fraction of reading a row per file. Small syncs add their changes to a delta
        blob in ``meta`` instead of rewriting the whole thing. After an interrupted sync
        (``trust=False``) the rows themselves are read.
        """
        self._delta: dict = {}
        if trust:
            row = self.conn.execute("SELECT data FROM statcache WHERE id=1").fetchone()
            if row is not None:
                try:
                    stats = marshal.loads(row[0])
                    raw = self.get_meta("statcache_delta")
                    if raw:
                        self._delta = marshal.loads(raw)
                        for path, st in self._delta.items():
                            if st is None:
                                stats.pop(path, None)
                            else:
                                stats[path] = st
                    return stats
                except (ValueError, EOFError, TypeError):
                    self._delta = {}
        return {r[0]: (r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT path, size, mtime_ns, inode FROM files")}

    def write_stat_cache(self, stats: dict[str, tuple[int, int, int]], changes: dict | None = None) -> None:
        """Store ``stats`` (call inside a transaction). With ``changes`` (path -> stat, None for
        removed) since the last :meth:`stat_cache`, only those are written while few."""
        if changes is not None:
            merged = {**getattr(self, "_delta", {}), **changes}
            if len(merged) <= max(512, len(stats) // 50):
                self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('statcache_delta', ?)",
                                  (marshal.dumps(merged),))
                return
        self.conn.execute("INSERT OR REPLACE INTO statcache(id, data) VALUES (1, ?)", (marshal.dumps(stats),))
        self.conn.execute("DELETE FROM meta WHERE key='statcache_delta'")

    def file_hashes(self, paths: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(0, len(paths), 500):
            part = paths[i:i + 500]
            marks = ",".join("?" * len(part))
            out.update(self.conn.execute(f"SELECT path, hash FROM files WHERE path IN ({marks})", part))
        return out

    def update_stat(self, path: str, size: int, mtime_ns: int, inode: int) -> None:
        self.conn.execute("UPDATE files SET size=?, mtime_ns=?, inode=? WHERE path=?",
                          (size, mtime_ns, inode, path))

    def replace_files(self, files: list) -> int:
        """Replace everything stored for each file (call inside a transaction).

        ``files``: objects with path, stat (size, mtime_ns, inode), hash, status, language,
        chunks (rows from ctxmill.index.sync.finalize_chunk) and existed (True if rows may exist).
        Returns the change in the number of chunks.
        """
        c = self.conn
        removed = 0
        for f in files:
            if f.existed:
                removed += self._delete_chunks(f.path)
        next_id = c.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0]
        chunk_rows, fts_rows, file_rows = [], [], []
        now = time.time()
        for f in files:
            path = f.path
            pterms = path_terms(path)
            for r in f.chunks:  # (start, end, kind, symbol, language, text, context, hash, ...)
                chunk_rows.append((next_id, path, *r[:8]))
                fts_rows.append((next_id, fts_body(r), r[10], pterms))
                next_id += 1
            d = path.rsplit("/", 1)[0] if "/" in path else ""
            file_rows.append((path, d, *f.stat, f.hash, f.status, f.language, now))
        c.executemany(
            "INSERT INTO chunks(id, path, start_line, end_line, kind, symbol, language, text, context, hash)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)", chunk_rows)
        c.executemany("INSERT INTO chunks_fts(rowid, body, symbol, path) VALUES (?,?,?,?)", fts_rows)
        c.executemany(
            "INSERT OR REPLACE INTO files(path, dir, size, mtime_ns, inode, hash, status, language, indexed_at)"
            " VALUES (?,?,?,?,?,?,?,?,?)", file_rows)
        return len(chunk_rows) - removed  # change in the number of chunks

    def delete_file(self, path: str) -> int:
        """Remove a file and its chunks (call inside a transaction); returns chunks removed."""
        n = self._delete_chunks(path)
        self.conn.execute("DELETE FROM files WHERE path=?", (path,))
        return n

    def _delete_chunks(self, path: str) -> int:
        c = self.conn
        ids = [r[0] for r in c.execute("SELECT id FROM chunks WHERE path=?", (path,))]
        if ids:
            c.executemany("DELETE FROM chunks_fts WHERE rowid=?", ((i,) for i in ids))
            c.execute("DELETE FROM chunks WHERE path=?", (path,))
        return len(ids)

    def fts_bulk_mode(self, on: bool) -> None:
        """FTS5 settings for a first build of an empty index, and back to the defaults.

        A bigger in-memory term buffer ('hashsize', default 1 MB) flushes fewer level-0
        segments, and 'automerge' 8 (default 4) merges them less eagerly: measured on CPython's
        Lib/ (60k chunks), FTS inserts cost ~20% less with the same query times. The defaults
        come back in the build's last transaction, so later syncs merge as usual; a build
        killed half-way leaves them set until the next sync finishes (harmless: it only moves
        FTS merge work around, never what is indexed).
        """
        hashsize, automerge = (32 * 1024 * 1024, 8) if on else (1024 * 1024, 4)
        with self.transaction() if not self.conn.in_transaction else _Nothing():
            self.conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', ?)", (hashsize,))
            self.conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', ?)", (automerge,))

    def build_journal(self, on: bool) -> bool:
        """Rollback-journal mode for the first build of an empty index, and back to WAL.

        In WAL mode every page is written twice, into the WAL and again into the database at
        the next checkpoint, with a checksum per page. In rollback mode pages appended to the
        file need no journal, so a first build writes its ~150 MB once: measured on CPython's
        Lib/, about 0.3 s less CPU in the writer. Commits stay atomic (a killed build leaves a
        hot journal, which the next open rolls back), and every open of a Store asks for WAL
        again. Returns False when the mode could not change (another connection is open); the
        build then simply runs in WAL mode.
        """
        want = "delete" if on else "wal"
        try:
            got = self.conn.execute(f"PRAGMA journal_mode={want}").fetchone()[0]
        except sqlite3.OperationalError:  # "database is locked": another connection uses it
            return False
        return str(got).lower() == want

    def refresh_common_terms(self, total: int, share: float) -> None:
        """Record the terms found in more than ``share`` of the chunks (see search.py), when the
        chunk count moved by more than 10% since the last time: it reads the whole FTS index."""
        last = int(self.get_meta("common_terms_total") or 0)
        if total < 1000 or (last and abs(total - last) <= 0.1 * last):
            return
        terms = [r[0] for r in self.conn.execute(
            "SELECT term FROM temp.chunks_vocab WHERE doc > ?", (int(share * total),))]
        self.set_meta("common_terms", json.dumps(sorted(terms)))
        self.set_meta("common_terms_total", str(total))

    # -- the rest of the store interface (ctxmill.index.backend.IndexStore)

    def has_vectors(self) -> bool:
        return self.conn.execute("SELECT 1 FROM vectors LIMIT 1").fetchone() is not None

    def has_files(self) -> bool:
        return self.conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def count_chunks(self) -> int:
        return self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def update_merkle(self, changed_paths: list[str], *, full: bool = False) -> str:
        from ctxmill.index import merkle

        return merkle.update(self.conn, changed_paths, full=full)

    def mark_checked(self) -> None:
        """A no-op sync writes nothing; the lock file's mtime records when it looked."""
        import os

        os.utime(str(self.path) + ".lock")

    def finish_sync(self) -> None:
        pass

    def search(self, query: str, embedder, *, path_prefix: str | None = None, k: int = 10) -> list:
        from ctxmill.index.search import search

        return search(self, query, embedder, path_prefix=path_prefix, k=k)

    # -- summaries

    def counts(self) -> dict[str, int]:
        c = self.conn
        return {
            "files": c.execute("SELECT count(*) FROM files").fetchone()[0],
            "chunks": c.execute("SELECT count(*) FROM chunks").fetchone()[0],
            "vectors": c.execute("SELECT count(*) FROM vectors").fetchone()[0],
        }


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception (nothing half-written)."""

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.conn.execute("COMMIT")
        else:
            self.conn.execute("ROLLBACK")
        return False


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _schema_statements() -> list[str]:
    # Contentless: the text lives in `chunks`; FTS keeps only what BM25 needs. Not
    # detail=column: with contentless_delete it makes bm25() return 0 for every row, so
    # lexical results came back in rowid order.
    fts_options = ", content='', contentless_delete=1" if sqlite3.sqlite_version_info >= (3, 43, 0) else ""
    return _statements(_SCHEMA.replace("{fts_options}", fts_options))


def _ask_for_wal(conn) -> None:
    """Switch the database to WAL mode. A first build runs in rollback-journal mode (see
    Store.build_journal), and while it writes, the switch cannot take the lock it needs:
    "database is locked" at once. A connection opened then (a status or search call) reads
    the database in its current mode, as SQLite allows, and the build switches it to WAL when
    it ends."""
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def path_terms(path: str) -> str:
    """The path and its parts for the FTS ``path`` column (``src/fooBar.py`` -> ... foo bar)."""
    from ctxmill.index.terms import expand

    return f"{path}\n{expand(path)}"
