"""The team store: ``ctxmill.index.backend.IndexStore`` on PostgreSQL + pgvector.

What the server gets (docs/team.md has every column): per (repo, branch) the files with their
content hashes and the Merkle folder nodes, paths as keyed HMACs of each component; per file
content a blob of chunks with line ranges, kind, language, content hash, the symbol and context
sealed with the team key, and the chunk's terms as keyed hashes in a tsvector; one embedding
per chunk content hash. Never the code: chunk text only with ``store_text`` (``--store-text``).

Writes: a batch of files commits in one transaction (blobs and their chunks are inserted once,
``ON CONFLICT DO NOTHING``, so two clients that upload the same content write it once; the file
rows are upserts on (repo, branch, path)); vectors are upserts keyed on content. The Merkle
nodes are recomputed from the committed file rows under an advisory lock per (repo, branch),
so clients that sync different edits at once leave the tree of the union.

Reads: lexical (keyed term hashes, ts_rank with the symbol and path weighted above the body)
and vector (HNSW, cosine) candidates fused by weighted reciprocal rank in one SQL statement,
then ``ctxmill.index.rank.rerank`` as for the local index. Hits come back as (keyed path,
lines, hash); the client maps them to its files through the paths of its last walk, reads the
lines from its own checkout and drops a hit whose local content no longer has that hash.

Local state (per root and store, beside the SQLite indexes): the stat cache of the last walk
and the sync's bookkeeping (``dirty``, counters), in ``<name>.team-<id>.json``/``.stats``, and
the byte range of each chunk of the files this machine uploaded (``.ranges``), which a search
preads a hit's lines from.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import math
import os
import re
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from ctxmill.errors import InputRefused, UsageError
from ctxmill.index.backend import BODY, END, EXTRA, HASH, START, SYMBOL, SYMBOL_FTS, TEXT, embed_text
from ctxmill.index.terms import query_terms
from ctxmill.team import keys as keys_mod
from ctxmill.team import need_psycopg
from ctxmill.team import schema as schema_mod

# A repository of up to this many chunks is searched exactly (its own rows, every distance, a few
# ms), as the local index scans up to search.EXACT_MAX vectors exactly; a larger one through HNSW
# (the ordering `distance + 0` is not the index's, so the planner cannot take HNSW for the small ones)
EXACT_MAX = 60_000
EF_SEARCH = 200  # HNSW candidate list; at least the number of vector candidates asked for
MAX_TF = 240  # a tsvector keeps at most 256 positions per term
_FTS_TOKEN = re.compile(r"\w+")  # SQLite's unicode61 tokenizer with "_" as a token character
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's
_POS = [str(i) for i in range(16384)]  # tsvector positions run 1..16383
# bookkeeping that describes the (repo, branch) on the server rather than this machine's view of
# it: the chunker that cut its files (a second machine must not re-chunk them all)
SERVER_KEYS = frozenset({"chunker_version"})
TOP_POSTINGS = 300  # per query term, the chunks a large repository's lexical leg looks at
WIDEN = 2  # of those, the best WIDEN x (candidates wanted) by impact are scored exactly
BM25_WEIGHTS_SQL = ("1.0", "4.0", "2.0")  # body, symbol, path: search.BM25_WEIGHTS
HNSW_BUILD_MAX_MB = 4096  # the most a client asks the server for while it builds the HNSW index
BULK_INDEX_MB = 1024  # maintenance_work_mem for building a bulk load's indexes (each sorts in memory up to it)
RACY_NS = 2_000_000_000  # a file modified this recently at its sync gets no byte ranges (_record_ranges)
NAMES_KEPT = 200_000  # blobs' file names kept by a long-lived process (the warm server)


def masked(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for messages: never log a password)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    return url


# Idle sync connections kept per URL in this process: a long-lived process (the watcher, the
# agent, the web page, a benchmark) that syncs again skips the connection set-up, which costs
# 10-25 ms (a backend process started and a SCRAM exchange) - more than a no-op sync's work.
_idle: dict[str, list] = {}
_idle_lock = threading.Lock()
IDLE_KEPT = 2


def _take_idle(url: str):
    with _idle_lock:
        conns = _idle.get(url)
        while conns:
            conn = conns.pop()
            if not conn.closed and conn._pid == os.getpid():  # not one a forked child inherited
                return conn
    return None


def _park(url: str, conn) -> None:
    """Keep ``conn`` for the next store of ``url`` in this process, or close it."""
    psycopg = need_psycopg()
    keep = (not conn.closed and conn.autocommit
            and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
    if keep:
        conn._pid = os.getpid()
        with _idle_lock:
            conns = _idle.setdefault(url, [])
            if len(conns) < IDLE_KEPT:
                conns.append(conn)
                return
    conn.close()


def connect(url: str, *, autocommit: bool = True):
    """A connection to the team store, or one line that says why not (exit 3)."""
    psycopg = need_psycopg()
    if not url.startswith(("postgresql://", "postgres://")):
        raise InputRefused(f"{masked(url)}: not a PostgreSQL URL (postgresql://USER[:PASSWORD]@HOST[:PORT]/DB)")
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise InputRefused(f"{masked(url)}: bad store URL ({exc})") from None
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=10, application_name="ctxmill")
    except psycopg.ProgrammingError as exc:
        raise InputRefused(f"{masked(url)}: bad store URL ({_line(exc)})") from None
    except psycopg.OperationalError as exc:
        raise InputRefused(f"cannot use the team store {masked(url)}: {_why(exc)}") from None


def _line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if "password authentication failed" in text:
        return "password authentication failed (password from the URL, PGPASSWORD or ~/.pgpass)"
    if "no password supplied" in text:
        return "the server wants a password (put it in the URL, PGPASSWORD or ~/.pgpass)"
    if "Connection refused" in text or "could not connect" in text:
        return "connection refused (is the server running? `ctxmill store status`)"
    if "does not exist" in text:
        m = re.search(r'(database|role) "[^"]*" does not exist', text)
        return m.group(0) if m else _line(exc)
    if "timeout" in text.lower():
        return "connection timed out"
    m = re.search(r"failed: (.*)$", text)
    return (m.group(1) if m else text)[:200]


def repo_identity(root: str) -> tuple[str, str]:
    """(repository name, branch) of ``root``: ``$CTXMILL_STORE_REPO`` / ``$CTXMILL_STORE_BRANCH``,
    else git's origin URL and current branch, else the folder's name and ``main``. Every
    machine of a team that checks out the same repository gets the same pair."""
    repo = os.environ.get("CTXMILL_STORE_REPO")
    branch = os.environ.get("CTXMILL_STORE_BRANCH")
    git = Path(root) / ".git"
    if repo is None:
        try:
            config = (git / "config").read_text(errors="replace")
            m = re.search(r'\[remote "origin"\][^\[]*?url\s*=\s*(\S+)', config)
            if m:
                repo = re.sub(r"(\.git)?/*$", "", m.group(1))
        except OSError:
            pass
    if branch is None:
        try:
            head = (git / "HEAD").read_text().strip()
            if head.startswith("ref: refs/heads/"):
                branch = head[len("ref: refs/heads/"):]
        except OSError:
            pass
    return repo or os.path.basename(os.path.abspath(root).rstrip("/")) or "root", branch or "main"


def state_path(root: str, url: str, repo: str, branch: str) -> Path:
    """Where this machine keeps its bookkeeping of ``root`` in the store at ``url``."""
    from ctxmill.locations import default_db_path

    parts = urlsplit(url)
    ident = f"{parts.hostname}:{parts.port}/{parts.path}\0{parts.username}\0{repo}\0{branch}"
    digest = hashlib.sha1(ident.encode()).hexdigest()[:12]
    base = default_db_path(root)
    # no dot in the name: the record files are this path with a suffix (.json, .stats), and a dot
    # would make the digest a suffix that with_suffix replaces (every store of a root sharing one)
    return base.with_name(f"{base.stem}-team-{digest}")


def _write_stats(record: Path, stats: dict) -> None:
    """The local record's file stats beside it (``<record>.stats``), written whole or not at all."""
    record.parent.mkdir(parents=True, exist_ok=True)
    target = record.with_suffix(".stats")
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        marshal.dump(stats, fh)
    os.replace(tmp, target)


def _read_ranges(path: Path) -> dict:
    """path -> (size, mtime_ns, inode, packed chunk_ranges) of the record's ranges file."""
    import sqlite3

    if not path.exists():
        return {}
    try:
        db = sqlite3.connect(path, timeout=30)
        try:
            rows = db.execute("SELECT path, size, mtime_ns, inode, packed FROM ranges").fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return {}  # (none yet, or damaged: hits are read by their lines until the next sync writes it)
    return {p: (size, mtime, inode, packed) for p, size, mtime, inode, packed in rows}



class PgStore:
    """A (repo, branch) of the team store at ``url``, as seen from the checkout at ``root``."""

    def __init__(self, url: str, root: str | Path, *, repo: str | None = None, branch: str | None = None,
                 store_text: bool = False, key: bytes | None = None, create: bool = True,
                 local: Path | None = None):
        self.url = url
        reused = _take_idle(url) if create else None
        self.conn = reused or connect(url)  # first: a bad URL is refused before anything else reads it
        self.root = os.path.abspath(root)
        name, br = repo_identity(self.root)
        self.repo_name, self.branch_name = repo or name, branch or br
        try:
            self.keyed = keys_mod.keyed_for(key if key is not None else keys_mod.load_key(create=create))
        except Exception:
            self.conn.close()
            raise
        self.repo = self.keyed.repo(self.repo_name)
        self.branch = self.keyed.repo("branch\0" + self.branch_name)
        self._mask = _signed(int(self.repo[:16], 16))  # a postings term is the keyed term XOR this
        self._term_ints: dict[str, int] = {}  # keyed term -> its postings bigint, for this sync's rows
        self.store_text = store_text
        self.path = Path(local) if local else state_path(self.root, url, self.repo_name, self.branch_name)
        self._todo_key = f"names_todo:{self.repo}:{self.branch}"  # blobs of schema < 5 to give names (_fill_names)
        try:
            try:
                opened = self._open(create)
            except need_psycopg().OperationalError:
                if reused is None:
                    raise
                self.conn.close()  # a kept connection the server has dropped meanwhile: once more, fresh
                self.conn = connect(url)
                opened = self._open(create)
        except Exception:
            self.conn.close()
            raise
        self.embedder_name, dim, self._server_chunker, self.server_root, count, self._have_hnsw, todo, bulk = opened
        self._bulk = False  # this client's bulk load holds the store's chunk and postings indexes dropped
        if bulk and create:
            self._heal_bulk()  # a first load that died with the indexes dropped (or one still running)
        self._names_todo = bool(todo)
        self.dim = int(dim or 0)
        self._local = self._read_local()
        self._chunks_at_open: int | None = None if count is None else int(count)
        # a machine with no record of this (repo, branch) that the server already holds: its
        # first sync compares Merkle trees instead of asking about every file (_adopt)
        self._adopting = bool(create and self.server_root and not self._local.get("root")
                              and not self.path.with_suffix(".stats").exists())
        self._adopted: set[str] = set()
        self._hpaths: dict[str, str] | None = None  # keyed path -> local path
        self._ranges: dict | None = None  # path -> its chunks' byte ranges (_local_ranges)
        self._new_ranges: dict = {}  # the ranges of the files this sync wrote, until its stats are
        self._delta: dict = {}
        self.pool = None
        self._have_vectors = False
        self._written = 0  # rows this sync wrote
        self._names: dict[str, object] = {}  # the facade index, until this machine syncs again
        # blob -> rank.FileNames packed: a blob is one (path, content), so its names hold across syncs
        self._blob_names: dict[str, tuple] = {}

    # -- plumbing

    _OPEN_SQL = """SELECT
        (SELECT value FROM ctx_meta WHERE key = 'schema_version'),
        (SELECT value FROM ctx_meta WHERE key = 'key_check'),
        (SELECT value FROM ctx_meta WHERE key = 'embedder_name'),
        (SELECT value FROM ctx_meta WHERE key = 'embedder_dim'),
        (SELECT value FROM ctx_meta WHERE key = %(cv)s),
        (SELECT hash FROM ctx_nodes WHERE repo = %(repo)s AND branch = %(branch)s AND path = ''),
        CASE WHEN %(count)s THEN (SELECT coalesce(sum(chunks), 0) FROM ctx_files
                                  WHERE repo = %(repo)s AND branch = %(branch)s) END,
        to_regclass('ctx_vectors_hnsw') IS NOT NULL,
        (SELECT value FROM ctx_meta WHERE key = %(nt)s),
        (SELECT value FROM ctx_meta WHERE key = 'bulk_load')"""

    def _open(self, create: bool) -> tuple:
        """Everything a sync or search needs to know of the server at the start, in one round
        trip: schema version, key check, embedder, this (repo, branch)'s chunker version,
        Merkle root and chunk count, whether the HNSW index exists. The schema steps and the
        key's first write run only when that query says they are needed (a fresh database),
        so a no-op sync costs this one query."""
        psycopg = need_psycopg()
        args = {"cv": f"chunker_version:{self.repo}:{self.branch}", "repo": self.repo, "branch": self.branch,
                "count": create, "nt": self._todo_key}
        row = None
        try:
            row = self.conn.execute(self._OPEN_SQL, args).fetchone()
        except psycopg.errors.UndefinedTable:  # an empty database (autocommit: nothing to roll back)
            pass
        if row is None or row[0] != str(schema_mod.SCHEMA_VERSION) or row[1] is None:
            if create:
                schema_mod.ensure(self.conn)
            else:  # searches write nothing: a read replica serves them
                schema_mod.check(self.conn)
            self._check_key(write=create)
            row = self.conn.execute(self._OPEN_SQL, args).fetchone()
        elif row[1] != self.keyed.check:
            self._check_key(write=False)  # refuses
        return tuple(row[2:])

    def _check_key(self, *, write: bool = True) -> None:
        with self.conn.transaction():
            if write:
                self.conn.execute("INSERT INTO ctx_meta(key, value) VALUES ('key_check', %s) ON CONFLICT DO NOTHING",
                                  (self.keyed.check,))
            row = self.conn.execute("SELECT value FROM ctx_meta WHERE key = 'key_check'").fetchone()
        if row is not None and row[0] != self.keyed.check:
            raise InputRefused(f"the team store {masked(self.url)} was written with another team key; use the "
                               f"team's key ({keys_mod.KEY_ENV} or {keys_mod.key_path()})")

    def _server_meta_pooled(self, key: str) -> str | None:
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM ctx_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def _server_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM ctx_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def _read_local(self) -> dict:
        try:
            return json.loads(self.path.with_suffix(".json").read_text())
        except (OSError, ValueError):
            return {}

    def _write_local(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        target = self.path.with_suffix(".json")
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self._local))
        os.replace(tmp, target)

    def transaction(self):
        return _Transaction(self)

    def close(self) -> None:
        if self.conn is None:
            return
        if self.pool is None and not self._bulk:
            _park(self.url, self.conn)
        else:
            self.conn.close()
        self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get_meta(self, key: str) -> str | None:
        if key == "chunks_total":
            # the server's count as this sync found it (other machines add to it too)
            if self._chunks_at_open is None:
                self._chunks_at_open = self.count_chunks()
            return str(self._chunks_at_open)
        if key == "chunker_version":
            return self._server_chunker
        if self._adopting and key in ("root", "dirty"):
            # no record here, but the server holds this (repo, branch): not a cold build and
            # nothing of this machine's is half-written; stat_cache compares the trees
            return self.root if key == "root" else "0"
        return self._local.get(key)

    def set_meta(self, key: str, value: str) -> None:
        if key in SERVER_KEYS:
            if key == "chunker_version" and value == self._server_chunker:
                return  # unchanged: no write (a no-op sync is one round trip)
            self.conn.execute("INSERT INTO ctx_meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                              "SET value = excluded.value", (f"{key}:{self.repo}:{self.branch}", value))
            self._server_chunker = value
            return
        changed = self._local.get(key) != value
        self._local[key] = value
        if key == "dirty" and value == "1" and changed:
            self._write_local()  # before the server commits: a kill after it still heals

    # -- embedder and vectors

    def ensure_embedder(self, name: str, dim: int) -> bool:
        if (self.embedder_name, self.dim) == (name, dim):
            return False
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema_mod.LOCK_ID,))
            have = self._server_meta("embedder_name"), int(self._server_meta("embedder_dim") or 0)
            if have[0] is not None and have != (name, dim):
                raise InputRefused(f"the team store holds vectors of embedder {have[0]} ({have[1]} dims), not "
                                   f"{name} ({dim}); every machine of a team uses one embedder")
            for statement in schema_mod.vector_table(dim):
                self.conn.execute(statement)
            for k, v in (("embedder_name", name), ("embedder_dim", str(dim))):
                self.conn.execute("INSERT INTO ctx_meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                                  "SET value = excluded.value", (k, v))
        self.embedder_name, self.dim = name, dim
        return False

    def _vectors_exist(self) -> bool:
        if not self._have_vectors:  # once there, the table stays
            with self._reading() as conn:
                self._have_vectors = conn.execute("SELECT to_regclass('ctx_vectors') IS NOT NULL").fetchone()[0]
        return self._have_vectors

    def has_vectors(self) -> bool:
        # The vector table is made with the store's embedder row; the vectors follow in the same
        # sync. When a sync died in between, True here only costs a lookup per batch (the
        # driver then asks missing_vectors instead of assuming every vector is missing).
        return bool(self.embedder_name)

    def missing_vectors(self, hashes: Iterable[str]) -> list[str]:
        wanted = list(dict.fromkeys(hashes))
        if not wanted:
            return []
        have = {r[0] for r in self.conn.execute("SELECT hash FROM ctx_vectors WHERE hash = ANY(%s)", (wanted,))}
        return [h for h in wanted if h not in have]

    def add_vectors(self, hashes: list[str], matrix: np.ndarray, sync_no: int) -> None:
        """Upsert vectors keyed on content (call inside a transaction): binary COPY into a
        temporary table, then INSERT ... ON CONFLICT DO NOTHING, so a vector another client
        wrote meanwhile is kept and nothing is duplicated."""
        if not hashes:
            return
        mat = np.ascontiguousarray(matrix, dtype=">f4")
        c = self.conn
        c.execute(f"CREATE TEMP TABLE IF NOT EXISTS ctx_vec_in(hash text, embedding vector({self.dim})) "
                  "ON COMMIT DELETE ROWS")
        out = bytearray(b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0))
        vec_len = 4 + 4 * self.dim
        for h, row in zip(hashes, mat, strict=True):
            hb = h.encode()
            out += struct.pack(">hi", 2, len(hb)) + hb
            out += struct.pack(">ihh", vec_len, self.dim, 0) + row.tobytes()
        out += struct.pack(">h", -1)
        with c.cursor().copy("COPY ctx_vec_in(hash, embedding) FROM STDIN (FORMAT BINARY)") as cp:
            cp.write(bytes(out))
        c.execute("INSERT INTO ctx_vectors(hash, embedding) SELECT hash, embedding FROM ctx_vec_in "
                  "ON CONFLICT (hash) DO NOTHING")
        c.execute("DELETE FROM ctx_vec_in")

    def touch_vectors(self, hashes: Iterable[str], sync_no: int) -> None:
        pass  # vectors are shared by the team: kept while any chunk row uses them (gc_vectors)

    def hashes_without_vectors(self) -> list[str]:
        if not self._vectors_exist():
            return []
        # only this checkout's chunks: it can embed only what it has
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT c.hash FROM ctx_files f JOIN ctx_chunks c ON c.blob = f.blob "
            "LEFT JOIN ctx_vectors v ON v.hash = c.hash WHERE f.repo = %s AND f.branch = %s AND v.hash IS NULL",
            (self.repo, self.branch))]

    def texts_for_hashes(self, hashes: list[str]) -> dict[str, str]:
        """Chunk texts to embed for ``hashes``, read from this checkout (the server has none)."""
        want = set(hashes)
        out: dict[str, str] = {}
        if not want:
            return out
        by_path = self._local_paths()
        rows = self.conn.execute(
            "SELECT f.path, c.start_line, c.end_line, c.hash, c.context FROM ctx_files f JOIN ctx_chunks c "
            "ON c.blob = f.blob WHERE f.repo = %s AND f.branch = %s AND c.hash = ANY(%s)",
            (self.repo, self.branch, list(want))).fetchall()
        reader = _LocalReader(self.root)
        for hpath, start, end, h, ctx in rows:
            path = by_path.get(hpath)
            if path is None or h in out:
                continue
            got = reader.chunk(path, start, end, self.keyed.open(ctx), h)
            if got is not None:
                out[h] = got
        return out

    def gc_vectors(self, sync_no: int) -> int:
        """Drop blobs no file row uses and vectors no chunk uses (another machine may still
        need a blob a moment later: it then uploads it again, nothing is lost)."""
        with self.conn.transaction():
            dead = "SELECT blob FROM ctx_blobs b WHERE NOT EXISTS (SELECT 1 FROM ctx_files f WHERE f.blob = b.blob) " \
                   "AND b.created_at < now() - interval '1 hour'"
            self.conn.execute(f"DELETE FROM ctx_postings p USING ctx_chunks c WHERE c.id = p.chunk "
                              f"AND c.blob IN ({dead})")
            self.conn.execute(f"DELETE FROM ctx_blobs WHERE blob IN ({dead})")
            cur = self.conn.execute("DELETE FROM ctx_vectors v WHERE NOT EXISTS "
                                    "(SELECT 1 FROM ctx_chunks c WHERE c.hash = v.hash) "
                                    "AND v.created_at < now() - interval '1 hour'") if self._vectors_exist() else None
        return cur.rowcount if cur is not None else 0

    # -- files and chunks

    def has_files(self) -> bool:
        return self.conn.execute("SELECT 1 FROM ctx_files WHERE repo = %s AND branch = %s LIMIT 1",
                                 (self.repo, self.branch)).fetchone() is not None

    def stat_cache(self, *, trust: bool = True) -> dict[str, tuple[int, int, int]]:
        self._delta = {}
        if not trust:
            return {}  # after an interrupted sync: ask the server about every file
        if self._adopting:
            return self._adopt()
        try:
            with open(self.path.with_suffix(".stats"), "rb") as fh:
                return marshal.load(fh)
        except (OSError, ValueError, EOFError, TypeError):
            return {}

    def _adopt(self) -> dict[str, tuple[int, int, int]]:
        """The first sync of a checkout whose (repo, branch) the server already holds (another
        machine indexed it): read and hash this checkout's files, build its Merkle tree over
        keyed paths, and compare it with the server's from the root down - one query per level,
        and only for the folders whose hashes differ. Files equal to the server's are this
        machine's record from now on (their stats are returned and kept, so the sync driver
        never reads them again); the rest are left to the driver, which chunks and uploads
        them (embedding only contents the server has no vector for). A tree equal to the
        server's costs no query beyond the one at open."""
        from ctxmill.index.merkle import content_hash, folder_hash, parent_of
        from ctxmill.sources.repo import fs_name, walk

        self._adopting = False
        t0 = time.perf_counter()
        walked = walk(self.root, sort=False)
        root = self.root

        def leaf(e) -> str | None:
            try:
                with open(os.path.join(root, fs_name(e.path)), "rb") as fh:
                    return content_hash(fh.read())
            except OSError:
                return None  # the driver meets it again and says why

        # (two threads reading and hashing were slower on this project's loaded 2-core machine)
        leaves = [leaf(e) for e in walked.files]
        hashes: dict[str, str] = {}
        stats: dict[str, tuple[int, int, int]] = {}
        for e, h in zip(walked.files, leaves, strict=True):
            if h is not None:
                hashes[e.path] = h
                stats[e.path] = (e.size, e.mtime_ns, e.inode)
        keyed = {p: self.keyed.path(p) for p in hashes}
        children: dict[str, list] = {"": []}
        for p, k in keyed.items():
            d = parent_of(k)
            children.setdefault(d, []).append((k.rsplit("/", 1)[-1], "f", hashes[p]))
            while d and parent_of(d) not in children:
                d = parent_of(d)
                children.setdefault(d, [])
        # deepest folders first, so a parent sees its children's hashes (as update_merkle)
        node: dict[str, str] = {}
        for folder in sorted(children, key=lambda f: (-f.count("/") - (1 if f else 0), f)):
            node[folder] = folder_hash(children[folder])
            if folder:
                children[parent_of(folder)].append((folder.rsplit("/", 1)[-1], "d", node[folder]))
        differ: set[str] = set()  # folders whose hash differs from the server's
        same: set[str] = set()  # files in those folders whose hash equals the server's row
        level = [""] if node[""] != self.server_root else []
        queries = 0
        while level:
            differ.update(level)
            server = dict(self.conn.execute(
                "SELECT path, hash FROM ctx_nodes WHERE repo = %(r)s AND branch = %(b)s AND parent = ANY(%(l)s) "
                "UNION ALL SELECT path, hash FROM ctx_files WHERE repo = %(r)s AND branch = %(b)s AND dir = ANY(%(l)s)",
                {"r": self.repo, "b": self.branch, "l": level}).fetchall())
            queries += 1
            nxt = []
            for folder in level:
                for name, kind, h in children[folder]:
                    k = f"{folder}/{name}" if folder else name
                    if server.get(k) == h:
                        if kind == "f":
                            same.add(k)
                    elif kind == "d":
                        nxt.append(k)
            level = nxt
        adopted = {p: stats[p] for p, k in keyed.items() if parent_of(k) not in differ or k in same}
        self._adopted = set(adopted)
        self.adoption = {"files": len(hashes), "equal": len(adopted), "folders_differing": len(differ),
                         "queries": queries, "seconds": round(time.perf_counter() - t0, 4)}
        # this machine's record from now on: the files it has just as the server has them
        _write_stats(self.path, adopted)
        self._local.update(root=self.root, dirty="0", merkle_root=node[""] if not differ else "",
                           last_check=time.time())
        self._write_local()
        self._checked = True
        return dict(adopted)

    def write_stat_cache(self, stats: dict, changes: dict | None = None) -> None:
        self._pending_stats = dict(stats)
        self._pending_changes = None if changes is None else dict(changes)

    def file_hashes(self, paths: list[str]) -> dict[str, str]:
        if not paths:
            return {}
        keyed = {self.keyed.path(p): p for p in paths}
        out: dict[str, str] = {}
        for hpath, h in self.conn.execute("SELECT path, hash FROM ctx_files WHERE repo = %s AND branch = %s "
                                          "AND path = ANY(%s)", (self.repo, self.branch, list(keyed))):
            out[keyed[hpath]] = h
        return out

    def update_stat(self, path: str, size: int, mtime_ns: int, inode: int) -> None:
        pass  # stats are this machine's: kept in the local stat cache only

    def _blob_key(self, hpath: str, file_hash: str) -> str:
        from ctxmill.index.chunk_code import CHUNKER_VERSION

        ident = f"{self.repo}\0{hpath}\0{file_hash}\0{CHUNKER_VERSION}\0{int(self.store_text)}\0{self.embedder_name}"
        return hashlib.blake2b(ident.encode(), digest_size=16).hexdigest()

    def replace_files(self, files: list) -> int:
        """Point each file's row at a blob holding its chunks (call inside a transaction)."""
        if not files:
            return 0
        c = self.conn
        rows, blobs = [], {}
        for f in files:
            hpath = self.keyed.path(f.path)
            blob = self._blob_key(hpath, f.hash)
            blobs.setdefault(blob, f)
            rows.append((hpath, blob, f))
        old = dict(c.execute("SELECT path, chunks FROM ctx_files WHERE repo = %s AND branch = %s AND path = ANY(%s) "
                             "FOR UPDATE", (self.repo, self.branch, [r[0] for r in rows])).fetchall())
        new = {r[0] for r in c.execute(
            "INSERT INTO ctx_blobs(blob, chunks, names) SELECT * FROM unnest(%s::text[], %s::int[], %s::bytea[]) "
            "ON CONFLICT (blob) DO NOTHING RETURNING blob",
            (list(blobs), [len(f.chunks) for f in blobs.values()], [self._sealed_names(f) for f in blobs.values()]))}
        n = sum(len(blobs[b].chunks) for b in new)
        if n:
            self._write_chunks(c, [(b, blobs[b]) for b in new], n)
        c.cursor().executemany(
            "INSERT INTO ctx_files(repo, branch, path, dir, hash, blob, status, language, chunks) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (repo, branch, path) DO UPDATE SET "
            "dir = excluded.dir, hash = excluded.hash, blob = excluded.blob, status = excluded.status, "
            "language = excluded.language, chunks = excluded.chunks, updated_at = now()",
            [(self.repo, self.branch, hpath, hpath.rsplit("/", 1)[0] if "/" in hpath else "", f.hash, blob,
              f.status, f.language, len(f.chunks)) for hpath, blob, f in rows])
        self._written += sum(len(f.chunks) + 1 for f in files)
        self._record_ranges(files)
        return sum(len(f.chunks) for _, _, f in rows) - sum(old.values())

    def _record_ranges(self, files: list) -> None:
        """Each written file's chunk byte ranges, kept with the stat it was walked at, for the
        local record (``<record>.ranges``, written with its stats): a search then preads a hit's
        lines instead of reading the whole file and finding its newlines. The file is read again
        here (the parse worker that chunked it keeps no offsets) and recorded only when it still
        has the content that was chunked."""
        from ctxmill.index.merkle import content_hash
        from ctxmill.sources.repo import fs_name

        for f in files:
            if f.status != "ok" or f.language == "pdf" or not f.chunks:
                continue
            if time.time_ns() - f.stat[1] < RACY_NS:
                # written a moment ago: an edit within the file system's clock tick could leave
                # its stat as recorded, and the ranges would point at moved lines (git's racy
                # clean entries): such a file is read by its lines until it changes again
                continue
            try:
                with open(os.path.join(self.root, fs_name(f.path)), "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if content_hash(data) == f.hash:
                self._new_ranges[f.path] = (*f.stat, chunk_ranges(data, f.chunks))

    def _write_ranges(self, stats: dict, changes: dict | None) -> None:
        """This sync's ranges into the record's (a SQLite file: a sync writes the rows of the
        files it changed, not the whole record, 47 MB at 1.24M chunks): upserts of the files it
        recorded, and away with the rows of the others it changed (deleted, edited without
        ranges, touched) or, after a full sync (``changes`` None), of every file whose stat is
        not the one walked. A row is used only while its file's stat is still its own."""
        import sqlite3

        new, self._new_ranges = self._new_ranges, {}
        if not new and changes is not None and not changes:
            return
        target = self.path.with_suffix(".ranges")
        target.parent.mkdir(parents=True, exist_ok=True)
        for attempt in (1, 2):
            db = sqlite3.connect(target, timeout=30)
            try:
                with db:
                    db.execute("CREATE TABLE IF NOT EXISTS ranges(path TEXT PRIMARY KEY, size INTEGER, "
                               "mtime_ns INTEGER, inode INTEGER, packed BLOB)")
                    if changes is None:
                        drop = [p for p, *st in db.execute("SELECT path, size, mtime_ns, inode FROM ranges")
                                if p not in new and stats.get(p) != tuple(st)]
                    else:
                        drop = [p for p in changes if p not in new]
                    db.executemany("DELETE FROM ranges WHERE path = ?", [(p,) for p in drop])
                    db.executemany("INSERT OR REPLACE INTO ranges VALUES (?, ?, ?, ?, ?)",
                                   [(p, *r) for p, r in new.items()])
                return
            except sqlite3.DatabaseError:
                if attempt == 2:
                    raise
                target.unlink(missing_ok=True)  # not a ranges file (damaged, another format): begin anew
                changes = None
            finally:
                db.close()

    def _write_chunks(self, c, new: list[tuple[str, object]], n: int) -> None:
        """The chunk rows of the new blobs (text COPY: the tsvector is parsed by the server), their
        postings (one binary COPY built with numpy, not a row at a time) and the repository's
        document frequencies."""
        # the chunks' ids first (one query), so their postings are written beside them
        ids = [r[0] for r in c.execute("SELECT nextval(pg_get_serial_sequence('ctx_chunks', 'id')) "
                                       "FROM generate_series(1, %s)", (n,))]
        avgdl = self._avgdl(c)
        k1, b = BM25_K1, BM25_B
        df: Counter = Counter()
        length_sum = 0
        p_terms: list[int] = []  # the postings, as columns
        p_tfs: list[int] = []
        p_counts: list[int] = []  # postings per chunk
        norms: list[float] = []
        tint = self._term_ints
        seal = self.keyed.seal
        it = iter(ids)
        # (COPY writes an identity column's given values, as OVERRIDING SYSTEM VALUE)
        with c.cursor().copy("COPY ctx_chunks(id, blob, start_line, end_line, kind, language, hash, symbol, "
                             "context, text, terms, doclen) FROM STDIN") as cp:
            for blob, f in new:
                pterms = self._path_terms(f.path)
                for r in f.chunks:
                    tsv, tfs, length = self._tsvector(r, pterms)
                    df.update(tsv.keys())
                    length_sum += length
                    p_counts.append(len(tfs))
                    norms.append(k1 * (1 - b + b * length / avgdl))
                    p_tfs.extend(tfs.values())
                    for h in tfs:
                        got = tint.get(h)
                        if got is None:
                            got = tint[h] = _signed(int(h, 16)) ^ self._mask
                        p_terms.append(got)
                    cp.write_row((next(it), blob, r[0], r[1], r[2], r[4], r[HASH], seal(r[SYMBOL]), seal(r[6]),
                                  r[5] if self.store_text else None,
                                  " ".join(f"{h}:{p}" for h, p in tsv.items()), length))
        counts = np.asarray(p_counts, dtype=np.int64)
        rows = np.empty(len(p_terms), dtype=_POSTING_ROW)
        rows["ncols"], rows["l_chunk"], rows["l_term"], rows["l_tf"], rows["l_impact"] = 4, 8, 8, 4, 4
        rows["chunk"] = np.repeat(np.asarray(ids, dtype=np.int64), counts)
        rows["term"] = np.asarray(p_terms, dtype=np.int64)
        tf = np.asarray(p_tfs, dtype=np.float64)
        rows["tf"] = tf
        # the term's BM25 saturation, as tf * (k1 + 1) / (tf + norm) in Python floats (the same
        # operations in the same order, then rounded to float4 as the row-by-row COPY did)
        rows["impact"] = tf * (k1 + 1) / (tf + np.repeat(np.asarray(norms, dtype=np.float64), counts))
        with c.cursor().copy("COPY ctx_postings(chunk, term, tf, impact) FROM STDIN (FORMAT BINARY)") as cp:
            cp.write(_COPY_HEADER + rows.tobytes() + _COPY_TRAILER)
        df["#len"] = length_sum
        df[""] = n
        terms = sorted(df)  # one lock order for every client: concurrent upserts cannot deadlock
        c.execute("INSERT INTO ctx_terms(repo, term, df) SELECT %s, * FROM unnest(%s::text[], %s::bigint[]) "
                  "ON CONFLICT (repo, term) DO UPDATE SET df = ctx_terms.df + excluded.df",
                  (self.repo, terms, [df[t] for t in terms]))

    def _sealed_names(self, f) -> bytes | None:
        """The file's ``rank.FileNames`` (its path's, symbols' and head comment's identifiers),
        sealed: what the local index reads from its chunk rows for the ranker (the symbols, the
        first chunk's text up to 3,000 characters), computed once here from the same rows."""
        if not f.chunks:
            return None  # no chunk: never a hit
        from ctxmill.index.rank import FileNames, head_doc

        first = min(f.chunks, key=lambda r: r[START])
        return self._seal_names(FileNames(f.path, [r[SYMBOL] for r in f.chunks if r[SYMBOL]],
                                          head_doc((first[TEXT] or "")[:3000])))

    def _seal_names(self, names) -> bytes:
        """``ctx_blobs.names``: a FileNames packed as compact JSON, sealed with the team key."""
        return self.keyed.seal(json.dumps(names.packed(), separators=(",", ":")))

    def _fill_names(self) -> int:
        """Names for this (repo, branch)'s blobs written before schema 5 (``names_todo``): their
        symbols from the chunk rows, the head from this checkout (redacted, as a chunk's text is).
        Blobs of files this checkout lacks keep none (a search reads their chunk rows instead)."""
        from ctxmill.index.rank import FileNames, head_doc
        from ctxmill.redact import redact

        local = self._local_paths()
        reader = _LocalReader(self.root)
        path_of: dict[str, str] = {}
        rows = []
        for hpath, blob, sym, start, end in self.conn.execute(
                "SELECT f.path, f.blob, c.symbol, c.start_line, c.end_line FROM ctx_files f "
                "JOIN ctx_blobs b ON b.blob = f.blob JOIN ctx_chunks c ON c.blob = f.blob "
                "WHERE f.repo = %s AND f.branch = %s AND b.names IS NULL ORDER BY c.id",  # (the file's order)
                (self.repo, self.branch)):
            path = local.get(hpath)
            if path is not None:
                path_of.setdefault(blob, path)
                rows.append((blob, sym, start, end))
        got = {blob: (path_of[blob], symbols, first) for blob, (symbols, first) in self._chunk_names(rows).items()}
        done = 0
        items = list(got.items())
        for i in range(0, len(items), 2000):
            part = items[i:i + 2000]
            sealed = []
            for _blob, (path, symbols, (start, end)) in part:
                head = redact(reader.raw_lines(path, start, end)).text[:3000]
                reader._files.clear()  # one file at a time: nothing kept
                names = FileNames(path, symbols, head_doc(head))
                sealed.append(self._seal_names(names))
            self.conn.execute("UPDATE ctx_blobs b SET names = u.names FROM unnest(%s::text[], %s::bytea[]) "
                              "u(blob, names) WHERE b.blob = u.blob AND b.names IS NULL",
                              ([b for b, _ in part], sealed))
            done += len(part)
        self.conn.execute("DELETE FROM ctx_meta WHERE key = %s", (self._todo_key,))
        self._names_todo = False
        return done

    def _avgdl(self, c) -> float:
        """The repository's average chunk length in terms (BM25), for the postings' impacts; for
        a repository's first batch, that batch's own."""
        got = dict(c.execute("SELECT term, df FROM ctx_terms WHERE repo = %s AND term IN ('', '#len')",
                             (self.repo,)).fetchall())
        if got.get(""):
            return max(float(got.get("#len", 0)) / got[""], 1.0)
        return 100.0  # no chunk counted yet: a typical code chunk's length (only orders a term's postings)

    def _path_terms(self, path: str) -> dict[str, int]:
        """The path column of the local index (the path and its identifier parts), counted."""
        from ctxmill.index.terms import expand

        got = Counter(_FTS_TOKEN.findall(f"{path}\n{expand(path)}".lower()))
        return {self.keyed.term(t): n for t, n in got.items()}

    def _tsvector(self, row: tuple, pterms: dict[str, int]) -> tuple[dict[str, str], dict[str, int], int]:
        """The chunk's terms as keyed hashes for a tsvector (term -> its positions), each term's
        weighted frequency (what the postings' ``tf`` holds: a body position counts 1, a path
        position 2, a symbol position 4), and the chunk's length in terms: what the local index's
        FTS5 columns hold, counted the same way (unicode61 tokens, lower-cased; the body's
        identifier parts once each), with the body at weight D, the symbol at A and the path at
        B, which the lexical score counts 1 : 4 : 2 as the local BM25 does."""
        term = self.keyed.term
        weights: dict[str, str] = {}
        tfs: dict[str, int] = {}
        body = Counter(_FTS_TOKEN.findall(row[BODY].lower()))
        if row[EXTRA]:
            body.update(row[EXTRA].split())
        length = sum(body.values())
        pos = 1
        for t, n in body.items():
            n = n if n < MAX_TF else MAX_TF
            if pos + n > 16000:
                break
            h = term(t)
            weights[h] = _POS[pos] if n == 1 else ",".join(_POS[pos:pos + n])  # (most terms: once)
            tfs[h] = n
            pos += n
        sym = Counter(_FTS_TOKEN.findall(row[SYMBOL_FTS].lower())) if row[SYMBOL_FTS] else {}
        length += sum(sym.values()) + sum(pterms.values())
        for h, n, w, f in [(term(t), n, "A", 4) for t, n in sym.items()] + [(h, n, "B", 2) for h, n in pterms.items()]:
            m = n if n < 8 else 8
            p = ",".join(f"{_POS[min(pos + i, 16383)]}{w}" for i in range(m))
            got = weights.get(h)
            weights[h] = f"{got},{p}" if got else p
            tfs[h] = tfs.get(h, 0) + f * m
            pos += n
        return weights, tfs, length

    def delete_file(self, path: str) -> int:
        if path in self._adopted:
            # a file of the server's tree this sync's own walk left out (other walk options
            # than _adopt's): this machine never uploaded it, so it does not take it away
            return 0
        row = self.conn.execute("DELETE FROM ctx_files WHERE repo = %s AND branch = %s AND path = %s RETURNING chunks",
                                (self.repo, self.branch, self.keyed.path(path))).fetchone()
        return row[0] if row else 0

    def count_chunks(self) -> int:
        return int(self.conn.execute("SELECT coalesce(sum(chunks), 0) FROM ctx_files WHERE repo = %s AND branch = %s",
                                     (self.repo, self.branch)).fetchone()[0])

    def update_merkle(self, changed_paths: list[str], *, full: bool = False) -> str:
        """Recompute the folder nodes above ``changed_paths`` (all when ``full``) from the
        committed file rows, under a lock per (repo, branch): whichever client updates last
        sees every file the others committed."""
        from ctxmill.index.merkle import folder_hash, parent_of

        c, rb = self.conn, (self.repo, self.branch)
        c.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.repo + self.branch,))
        if full:
            dirs = [r[0] for r in c.execute("SELECT DISTINCT dir FROM ctx_files WHERE repo = %s AND branch = %s", rb)]
            folders = {""}
            for d in dirs:
                while d:
                    folders.add(d)
                    d = parent_of(d)
            c.execute("DELETE FROM ctx_nodes WHERE repo = %s AND branch = %s", rb)
        else:
            folders = {""}
            for p in changed_paths:
                d = parent_of(self.keyed.path(p))
                while d and d not in folders:
                    folders.add(d)
                    d = parent_of(d)
        fl = list(folders)
        files: dict[str, list] = {f: [] for f in fl}
        for path, d, h in c.execute("SELECT path, dir, hash FROM ctx_files WHERE repo = %s AND branch = %s "
                                    "AND dir = ANY(%s)", (*rb, fl)):
            files[d].append((path.rsplit("/", 1)[-1], "f", h))
        nodes: dict[str, str] = {}
        sub: dict[str, set] = {f: set() for f in fl}
        for path, parent, h in c.execute("SELECT path, parent, hash FROM ctx_nodes WHERE repo = %s AND branch = %s "
                                         "AND parent = ANY(%s)", (*rb, fl)):
            nodes[path] = h
            sub[parent].add(path)
        for f in fl:
            if f:
                sub.setdefault(parent_of(f), set()).add(f)
        upserts, deletes = [], []
        for folder in sorted(fl, key=lambda f: (-f.count("/") - (1 if f else 0), f)):
            children = list(files[folder])
            children += [(p.rsplit("/", 1)[-1], "d", nodes[p]) for p in sub.get(folder, ()) if p in nodes]
            if not children and folder:
                nodes.pop(folder, None)
                deletes.append(folder)
                continue
            nodes[folder] = folder_hash(children)
            upserts.append((*rb, folder, None if folder == "" else parent_of(folder), nodes[folder]))
        if deletes:
            c.execute("DELETE FROM ctx_nodes WHERE repo = %s AND branch = %s AND path = ANY(%s)", (*rb, deletes))
        c.cursor().executemany("INSERT INTO ctx_nodes(repo, branch, path, parent, hash) VALUES (%s, %s, %s, %s, %s) "
                      "ON CONFLICT (repo, branch, path) DO UPDATE SET hash = excluded.hash", upserts)
        return nodes.get("", "")

    def server_tree(self) -> dict[str, str]:
        """The server's Merkle nodes of this (repo, branch): keyed folder path -> hash."""
        return dict(self.conn.execute("SELECT path, hash FROM ctx_nodes WHERE repo = %s AND branch = %s",
                                      (self.repo, self.branch)).fetchall())

    def mark_checked(self) -> None:
        if self._names_todo:  # (a no-op sync ends here, not in finish_sync)
            self._fill_names()
        if getattr(self, "_checked", False):
            return  # _adopt wrote the record a moment ago
        self._local["last_check"] = time.time()
        self._write_local()

    def fts_bulk_mode(self, on: bool) -> None:
        """A first sync (``on``): when the store holds no chunk at all, its chunk and postings
        indexes (schema.DEFERRED) are dropped for the load and built once, from a sort, when it
        ends (finish_sync): ~7 index entries a chunk and 2 a posting are otherwise written one
        at a time, at random places of indexes that outgrow the buffers. Only an empty store:
        another repository's searches need those indexes meanwhile. The client holds a
        session-level advisory lock for the load; a load that dies leaves ``bulk_load`` in
        ctx_meta, and the next client that syncs builds the indexes (_heal_bulk). Searches
        during the load are right but slower (no index to read)."""
        if not on or self._bulk:
            return  # (the indexes are built in finish_sync, after the load's last commit)
        c = self.conn
        with c.transaction():
            c.execute("SELECT pg_advisory_xact_lock(%s)", (schema_mod.LOCK_ID,))
            if c.execute("SELECT EXISTS (SELECT 1 FROM ctx_chunks)").fetchone()[0]:
                return
            if not c.execute("SELECT pg_try_advisory_lock(%s)", (schema_mod.BULK_LOCK,)).fetchone()[0]:
                return  # another client's bulk load
            self._bulk = True  # (from here on close() drops the connection, and with it the lock)
            c.execute("INSERT INTO ctx_meta(key, value) VALUES (%s, '1') ON CONFLICT (key) DO NOTHING",
                      (schema_mod.BULK_KEY,))
            for _name, drop, _create in schema_mod.DEFERRED:
                c.execute(drop)

    def _build_deferred(self) -> None:
        """Build the indexes a bulk load dropped (each once, from a sort, with memory for it),
        then clear the marker; the caller holds BULK_LOCK, released here."""
        c = self.conn
        c.execute(f"SET maintenance_work_mem = '{BULK_INDEX_MB}MB'")
        try:
            for _name, _drop, create in schema_mod.DEFERRED:
                c.execute(create)
            c.execute("DELETE FROM ctx_meta WHERE key = %s", (schema_mod.BULK_KEY,))
        finally:
            c.execute("RESET maintenance_work_mem")
            c.execute("SELECT pg_advisory_unlock(%s)", (schema_mod.BULK_LOCK,))
        self._bulk = False

    def _heal_bulk(self) -> None:
        """``bulk_load`` is set: when no client holds the bulk lock, the load that set it died
        before building the indexes: build them now (else it is still running: leave it)."""
        if self.conn.execute("SELECT pg_try_advisory_lock(%s)", (schema_mod.BULK_LOCK,)).fetchone()[0]:
            self._bulk = True
            self._build_deferred()

    def build_journal(self, on: bool) -> bool:
        return False

    def refresh_common_terms(self, total: int, share: float) -> None:
        pass

    def finish_sync(self) -> None:
        """After a sync: fresh planner statistics when it wrote much (the search plans depend on
        them: which repository's rows to start from), and the HNSW index (built once, after
        the first load)."""
        if self._names_todo:
            self._fill_names()
        if self._bulk:
            self._build_deferred()
        if self._written >= 1000:
            for table in ("ctx_files", "ctx_blobs", "ctx_chunks", "ctx_vectors", "ctx_terms"):
                self.conn.execute(f"ANALYZE {table}")
        if not self._have_hnsw and self._vectors_exist() and \
                self.conn.execute("SELECT to_regclass('ctx_vectors_hnsw')").fetchone()[0] is None:
            with self.conn.transaction():
                self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (schema_mod.LOCK_ID,))
                self.conn.execute(f"SET LOCAL maintenance_work_mem = '{self._hnsw_build_mb()}MB'")
                self.conn.execute(schema_mod.HNSW_INDEX)
        self._have_hnsw = True

    def _hnsw_build_mb(self) -> int:
        """Memory for building the HNSW graph: all of it, so the build never spills (pgvector
        builds several times slower once the graph outgrows maintenance_work_mem): each vector
        (4 bytes a dimension) and its neighbour lists (m = 16: 2m at level 0, ~6 bytes each, and
        the element's header), a quarter more for slack; at least 256 MB, at most HNSW_BUILD_MAX_MB."""
        self.conn.execute("ANALYZE ctx_vectors")  # (a first bulk load: the row estimate is fresh)
        rows = self.conn.execute("SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'ctx_vectors'::regclass"
                                 ).fetchone()[0]
        need = rows * (4 * max(self.dim, 1) + 2 * 16 * 6 + 100) * 1.25 / 2**20
        return int(min(max(256, need + 64), HNSW_BUILD_MAX_MB))

    def counts(self) -> dict[str, int]:
        rb = (self.repo, self.branch)
        files, chunks = self.conn.execute("SELECT count(*), coalesce(sum(chunks), 0) FROM ctx_files WHERE repo = %s "
                                          "AND branch = %s", rb).fetchone()
        vectors = self.conn.execute("SELECT count(*) FROM ctx_vectors").fetchone()[0] if self._vectors_exist() else 0
        return {"files": files, "chunks": int(chunks), "vectors": vectors}

    # -- search

    def _local_paths(self) -> dict[str, str]:
        """keyed path -> path, for the files of this checkout's last walk."""
        if self._hpaths is None:
            paths = self.stat_cache()
            self._hpaths = {self.keyed.path(p): p for p in paths}
            self._ranges = None
        return self._hpaths

    def _local_ranges(self) -> dict:
        """path -> the byte ranges of its chunks recorded at the last sync (``_record_ranges``),
        read with the paths of the record (once per synced state in a long-lived process)."""
        if self._ranges is None:
            self._ranges = _read_ranges(self.path.with_suffix(".ranges"))
        return self._ranges

    def search(self, query: str, embedder, *, path_prefix: str | None = None, k: int = 10) -> list:
        from ctxmill.index import rank
        from ctxmill.index.rank import DEFAULT_WEIGHTS, FileNames, head_doc
        from ctxmill.index.search import PHASES, Hit, _Marks, _prefix_bounds

        if not query or not query.strip():
            raise UsageError("empty query")
        if k < 1:
            raise UsageError("k must be at least 1")
        mark = _Marks(PHASES.get())  # per-phase timings, as the local search keeps (`server timings`)
        local = self._local_paths()
        mark("state")
        bounds = _prefix_bounds(path_prefix)
        only = None
        if bounds is not None:
            only = [h for h, p in local.items() if bounds[0] <= p < bounds[1]]
        n = max(rank.CANDIDATES, k * 5)
        pool = max(rank.POOL, k * 3)
        terms, avgdl, total = self._query_terms(query)
        mark("terms")
        same = self.dim == embedder.dim and self.embedder_name in (None, getattr(embedder, "name", None))
        qvec = None
        if same and self._vectors_exist():
            q = np.asarray(embedder.embed_query(query), dtype=np.float32)
            qvec = "[" + ",".join(f"{x:.6g}" for x in q.tolist()) + "]"
        mark("embed")
        # a small repository (or a path prefix: a part of one) is scored exactly from its own
        # rows; a large one's lexical leg reads the postings index, a bounded amount of work
        exact = total <= EXACT_MAX or only is not None
        rows = self._candidates(terms, qvec, only, n, pool, DEFAULT_WEIGHTS, avgdl, exact=exact)
        mark("sql")
        reader = _LocalReader(self.root, self._local_ranges())
        try:
            hits = []
            blob_of: dict[str, str] = {}
            for cid, score, lr, vr, hpath, start, end, kind, language, h, sym, ctx, text, blob in rows:
                path = local.get(hpath)
                if path is None:
                    continue  # a file this checkout does not have (or has not synced)
                blob_of[path] = blob
                context = self.keyed.open(ctx) or ""
                if language == "pdf":
                    body = text or ""  # page ranges: the text is the compiled document's, not lines
                else:
                    body = reader.lines(path, start, end, context, h)
                    if body is None:
                        continue  # changed here since the store was synced: the hit would point at other text
                hits.append(Hit(path, start, end, float(score), kind, self.keyed.open(sym), body, language, cid,
                                context, lr, vr))
            mark("read_local")
            names = self._hit_names({x.path: blob_of[x.path] for x in hits}, reader, head_doc, FileNames)
            qstems = rank.query_stems(query)
            files = {p: f.matching(qstems) for p, f in names.items()}
            mark("file_names")
            facades = self._facades(local, reader) if hasattr(rank, "facade_index") else None
            mark("facades")
        finally:
            reader.close()  # (the descriptors of the files it preads from)
        got = rank.rerank(query, hits, k=k, files=files, **({"facades": facades} if facades else {}))
        mark("rerank")
        return got

    def _facades(self, local: dict[str, str], reader) -> dict:
        """``rank.facade_index`` of this checkout's forwarding files (chunks of kind ``facade``,
        read from the checkout like any hit), as the local index gives its ranker: a header of
        #includes follows the file it forwards to. Read once per synced state of this store
        (the names cache's life)."""
        got = self._names.get("\0facades")
        if got is None:
            from ctxmill.index.rank import FACADE_KIND, facade_index

            with self._reading() as conn:
                found = conn.execute(FACADES_SQL, (self.repo, self.branch)).fetchall()
            rows = []
            for hpath, start, end, sym, language, h, ctx, cid in found:
                path = local.get(hpath)
                context = self.keyed.open(ctx) or ""
                text = reader.lines(path, start, end, context, h) if path is not None else None
                if text is not None:  # only files this checkout has, as the store holds them
                    rows.append({"path": path, "start_line": start, "end_line": end, "kind": FACADE_KIND,
                                 "symbol": self.keyed.open(sym), "language": language, "text": text,
                                 "context": context, "id": cid})
            got = self._names["\0facades"] = facade_index(rows)
        return got

    def _query_terms(self, query: str) -> tuple[list[tuple[str, float]], float, int]:
        """(keyed term, idf) of the query's terms and the average chunk length, from the
        repository's document frequencies (FTS5's BM25 idf); near-universal terms are left out
        unless nothing else is left, as search.py does (they weigh almost nothing and cost the
        most to score)."""
        from ctxmill.index.search import COMMON_SHARE

        terms = list(dict.fromkeys(self.keyed.term(t) for t in query_terms(query)))
        with self._reading() as conn:
            got = dict(conn.execute("SELECT term, df FROM ctx_terms WHERE repo = %s AND term = ANY(%s)",
                                    (self.repo, terms + ["", "#len"])).fetchall())
        total = max(int(got.get("", 0)), 1)
        avgdl = max(float(got.get("#len", 0)) / total, 1.0)
        terms = [t for t in terms if got.get(t)]  # a term no chunk has cannot match
        # (the local index lists its common terms from 1,000 chunks on: the same rule here)
        kept = [t for t in terms if got[t] <= COMMON_SHARE * total] or terms[:2] if total >= 1000 else terms
        return [(t, max(math.log((total - got[t] + 0.5) / (got[t] + 0.5)), 1e-6)) for t in kept], avgdl, total

    def _candidates(self, terms: list[tuple[str, float]], qvec: str | None, only, n: int, pool: int,
                    w, avgdl: float = 1.0, exact: bool = False) -> list[tuple]:
        scale = (w.lex + w.vec) / (w.rrf_k + 1) or 1.0
        args: dict = {"repo": self.repo, "branch": self.branch, "n": n, "pool": pool, "k": w.rrf_k,
                      "wl": w.lex / scale, "wv": w.vec / scale, "only": only}
        where = "f.repo = %(repo)s AND f.branch = %(branch)s" + (" AND f.path = ANY(%(only)s)" if only is not None else "")

        def chunks(cols: str, cond: str = "") -> str:
            # A small repository starts from its file rows and reaches its chunks through the
            # blob index (a nested loop the planner is not allowed to turn into a scan of every
            # repository's chunks: OFFSET 0 keeps the subquery whole); a large one lets the
            # planner start from the GIN or HNSW index.
            if exact:
                return (f"ctx_files f CROSS JOIN LATERAL (SELECT {cols} FROM ctx_chunks c WHERE c.blob = f.blob"
                        f"{' AND ' + cond if cond else ''} OFFSET 0) c WHERE {where}")
            return f"ctx_chunks c JOIN ctx_files f ON f.blob = c.blob WHERE {where}{' AND ' + cond if cond else ''}"

        legs = []
        if terms and not exact:
            # Bounded at any size: each query term's TOP_POSTINGS best chunks by impact (one range
            # of the postings index each, read from the index alone), ranked by the sum of their
            # impacts; the best WIDEN * n of those that belong to this (repo, branch) are scored by
            # FTS5's BM25 over every query term (one primary-key probe per chunk for its query
            # terms) with the repository's current average length
            mask = _signed(int(self.repo[:16], 16))
            args.update(tk=[_signed(int(t, 16)) ^ mask for t, _ in terms], idfs=[i for _, i in terms],
                        avgdl=avgdl, k1=BM25_K1, b=BM25_B, top=max(TOP_POSTINGS, n), wide=WIDEN * n)
            legs.append(f"""lex AS (
                SELECT id, row_number() OVER (ORDER BY s DESC, id) AS r FROM (
                    SELECT l.id, sum(q.idf * p.tf * (%(k1)s + 1) /
                                     (p.tf + %(k1)s * (1 - %(b)s + %(b)s * l.doclen / %(avgdl)s))) AS s
                    FROM (SELECT c.id, c.doclen
                          FROM (SELECT t.chunk, sum(q0.idf * t.impact) AS a
                                FROM unnest(%(tk)s::bigint[], %(idfs)s::float8[]) q0(term, idf)
                                CROSS JOIN LATERAL (SELECT chunk, impact FROM ctx_postings WHERE term = q0.term
                                                    ORDER BY impact DESC LIMIT %(top)s) t
                                GROUP BY t.chunk ORDER BY a DESC LIMIT %(wide)s) cand
                          JOIN ctx_chunks c ON c.id = cand.chunk JOIN ctx_files f ON f.blob = c.blob
                          WHERE {where} OFFSET 0) l
                    CROSS JOIN LATERAL (SELECT p.term, p.tf FROM ctx_postings p  -- a probe per chunk
                                        WHERE p.chunk = l.id AND p.term = ANY(%(tk)s::bigint[]) OFFSET 0) p
                    JOIN unnest(%(tk)s::bigint[], %(idfs)s::float8[]) q(term, idf) ON q.term = p.term
                    GROUP BY l.id ORDER BY s DESC, l.id LIMIT %(n)s) x)""")
        elif terms:
            # FTS5's BM25, computed from the matching chunks' tsvectors: per query term, its
            # weighted frequency (body 1, symbol 4, path 2) saturated against the chunk's length
            args.update(tsq=" | ".join(t for t, _ in terms), qterms=[t for t, _ in terms],
                        idfs=[i for _, i in terms], avgdl=avgdl, k1=BM25_K1, b=BM25_B)
            wb, ws, wp = BM25_WEIGHTS_SQL
            legs.append(f"""lex AS (
                SELECT id, row_number() OVER (ORDER BY s DESC, id) AS r FROM (
                    SELECT m.id, sum(q.idf * (u.tf * (%(k1)s + 1)) /
                                     (u.tf + %(k1)s * (1 - %(b)s + %(b)s * m.doclen / %(avgdl)s))) AS s
                    FROM (SELECT c.id, c.terms, c.doclen
                          FROM {chunks("c.id, c.terms, c.doclen", "c.terms @@ %(tsq)s::tsquery")}) m
                    CROSS JOIN LATERAL (
                        SELECT e.lexeme, (SELECT sum(CASE x WHEN 'A' THEN {ws} WHEN 'B' THEN {wp} ELSE {wb} END)
                                          FROM unnest(e.weights) x) AS tf
                        FROM unnest(m.terms) e WHERE e.lexeme = ANY(%(qterms)s) OFFSET 0) u
                    JOIN unnest(%(qterms)s::text[], %(idfs)s::float8[]) q(term, idf) ON q.term = u.lexeme
                    GROUP BY m.id ORDER BY s DESC, m.id LIMIT %(n)s) x)""")
        else:
            legs.append("lex AS (SELECT NULL::bigint AS id, NULL::bigint AS r WHERE false)")
        if qvec is not None:
            args["qv"] = qvec
            args["nv"] = n
            # this (repo, branch)'s nearest chunks: HNSW with pgvector's iterative scan, which
            # keeps walking the graph until enough rows pass the filter (other repositories
            # and branches share the vector table)
            if exact:  # every distance of this repository's chunks
                near = f"""SELECT c.id, v.d FROM {chunks("c.id, c.hash")[:-len(" WHERE " + where)]}
                    CROSS JOIN LATERAL (SELECT v.embedding <=> %(qv)s::vector AS d FROM ctx_vectors v
                                        WHERE v.hash = c.hash OFFSET 0) v
                    WHERE {where} ORDER BY v.d LIMIT %(n)s"""
            else:
                near = f"""SELECT c.id, v.embedding <=> %(qv)s::vector AS d
                    FROM ctx_vectors v JOIN ctx_chunks c ON c.hash = v.hash JOIN ctx_files f ON f.blob = c.blob
                    WHERE {where} ORDER BY v.embedding <=> %(qv)s::vector LIMIT %(n)s"""
            legs.append(f"""vec AS (SELECT id, row_number() OVER (ORDER BY d, id) AS r FROM ({near}) y)""")
        else:
            legs.append("vec AS (SELECT NULL::bigint AS id, NULL::bigint AS r WHERE false)")
        sql = f"""WITH {', '.join(legs)},
            fused AS (
                SELECT coalesce(l.id, v.id) AS id, l.r AS lr, v.r AS vr,
                       coalesce(%(wl)s / (%(k)s + l.r), 0) + coalesce(%(wv)s / (%(k)s + v.r), 0) AS score
                FROM lex l FULL JOIN vec v ON l.id = v.id
                ORDER BY score DESC, lr NULLS LAST, vr LIMIT %(pool)s)
            SELECT fu.id, fu.score, fu.lr, fu.vr, f.path, c.start_line, c.end_line, c.kind, c.language,
                   c.hash, c.symbol, c.context, c.text, c.blob
            FROM fused fu JOIN ctx_chunks c ON c.id = fu.id JOIN ctx_files f ON f.blob = c.blob
            WHERE f.repo = %(repo)s AND f.branch = %(branch)s
            ORDER BY fu.score DESC, fu.lr NULLS LAST, fu.vr"""
        ef = min(1000, max(EF_SEARCH, int(args.get("nv", 0))))
        with self._reading() as conn:
            if ef == EF_SEARCH:  # the session's settings (see _session): one round trip
                return conn.execute(sql, args).fetchall()
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                return conn.execute(sql, args).fetchall()

    def _reading(self):
        """A connection for a search: from the pool when this store has one (a long-lived
        process answering many searches from several threads), else the store's own."""
        if self.pool is not None:
            return self.pool.connection()
        if not getattr(self, "_session_set", False):
            _session(self.conn)
            self._session_set = True
        return contextlib.nullcontext(self.conn)

    def _hit_names(self, blob_of: dict[str, str], reader, head_doc, FileNames) -> dict:
        """``rank.FileNames`` of the hit files (path -> blob): kept per blob for the process's
        life (a blob is one path's one content), else read sealed from the blob rows (schema 5),
        else - a blob written before and not filled yet - built from the file's chunk rows."""
        cache = self._blob_names
        need = {b for b in blob_of.values() if b not in cache}
        if need:
            with self._reading() as conn:
                for blob, sealed in conn.execute("SELECT blob, names FROM ctx_blobs WHERE blob = ANY(%s) "
                                                 "AND names IS NOT NULL", (list(need),)):
                    raw = self.keyed.open(sealed)
                    if raw is not None:
                        raw, flat, starts = json.loads(raw)
                        cache[blob] = (raw, flat, tuple(starts))
            old = {p for p, b in blob_of.items() if b not in cache}
            if old:
                for p, names in self._file_names(old, reader, head_doc, FileNames).items():
                    cache[blob_of[p]] = names.packed()
        got = {p: FileNames.unpack(cache[b]) for p, b in blob_of.items()}
        if len(cache) > NAMES_KEPT:  # a bound on a long-lived process's memory (~1 KB a file)
            for b in list(cache)[:len(cache) // 2]:
                del cache[b]
        return got

    def _file_names(self, paths: set[str], reader, head_doc, FileNames) -> dict:
        """``rank.FileNames`` of hit files whose blob holds no sealed names yet: symbols from their
        chunk rows, the head from this checkout."""
        if not paths:
            return {}
        keyed = {self.keyed.path(p): p for p in paths}
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT f.path, c.symbol, c.start_line, c.end_line FROM ctx_files f JOIN ctx_chunks c "
                "ON c.blob = f.blob WHERE f.repo = %s AND f.branch = %s AND f.path = ANY(%s) ORDER BY c.id",
                (self.repo, self.branch, list(keyed))).fetchall()
        got = self._chunk_names((keyed[hpath], sym, start, end) for hpath, sym, start, end in rows)
        out = {}
        for p in paths:
            symbols, first = got.get(p, ([], None))
            head = reader.raw_lines(p, *first)[:3000] if first else ""
            out[p] = FileNames(p, symbols, head_doc(head or ""))
        return out

    def _chunk_names(self, rows) -> dict:
        """key -> (the symbols of its chunks, opened, in row order; its first chunk's (start, end)),
        from (key, sealed symbol, start, end) chunk rows: what a file's ``rank.FileNames`` is built of."""
        got: dict = {}
        for key, sym, start, end in rows:
            symbols, first = got.setdefault(key, ([], (start, end)))
            s = self.keyed.open(sym) if sym is not None else None
            if s:
                symbols.append(s)
            if start < first[0]:
                got[key] = (symbols, (start, end))
        return got


# The forwarding files' chunks of a (repo, branch), from the few rows of the partial index
# ctx_chunks_facade (schema 3) up to their file rows; the kind is written out, not a parameter,
# so the planner can prove the index's predicate under any plan
FACADES_SQL = ("SELECT f.path, c.start_line, c.end_line, c.symbol, c.language, c.hash, c.context, c.id "
               "FROM ctx_chunks c JOIN ctx_files f ON f.blob = c.blob "
               "WHERE c.kind = 'facade' AND f.repo = %s AND f.branch = %s")


# one ctx_postings row of a binary COPY: the field count, then each field's length and value
_POSTING_ROW = np.dtype([("ncols", ">i2"), ("l_chunk", ">i4"), ("chunk", ">i8"), ("l_term", ">i4"), ("term", ">i8"),
                         ("l_tf", ">i4"), ("tf", ">f4"), ("l_impact", ">i4"), ("impact", ">f4")])
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_COPY_TRAILER = struct.pack(">h", -1)


def _signed(v: int) -> int:
    """A 64-bit unsigned value as PostgreSQL's bigint (two's complement)."""
    return v - (1 << 64) if v >= 1 << 63 else v


def _span(nl: np.ndarray, size: int, start: int, end: int) -> tuple[int, int] | None:
    """The bytes of lines ``start``..``end`` (1-based, inclusive) of a file of ``size`` bytes whose
    newlines are at ``nl``: ``(a, b)`` with ``data[a:b]`` those lines without the last newline;
    None when the file has fewer than ``end`` lines."""
    count = len(nl) + 1
    if end > count:
        return None
    a = 0 if start <= 1 else int(nl[start - 2]) + 1
    b = size if end >= count else int(nl[end - 1])
    return a, b


def _newlines(data: bytes) -> np.ndarray:
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)


_RANGE_KEY = struct.Struct("=qq")  # two fields of a packed row of chunk_ranges (native int64, as numpy's)
_RANGE_ROW = 32


def chunk_ranges(data: bytes, chunks: list[tuple]) -> bytes:
    """The byte range of each chunk row's lines in the file ``data``: int64 (start line, end
    line, a, b) per chunk, packed (what ``_LocalReader`` preads at search time)."""
    nl = _newlines(data)
    out = []
    for row in chunks:
        got = _span(nl, len(data), row[START], row[END])
        if got is not None:
            out.append((row[START], row[END], *got))
    return np.asarray(out, dtype=np.int64).tobytes()


class _LocalReader:
    """Reads hit lines from the checkout and checks them against the content hash the store
    holds (text redacted as at index time).

    A hit's lines are one pread of the byte range this machine recorded for them when it synced
    the file (``ranges``: path -> (size, mtime_ns, inode, packed ``chunk_ranges``)), when the
    file's stat is still the one recorded. Otherwise - no record (a second machine's adopted
    files, a PDF), a file changed since, lines that do not hash as they are - the file is read
    once per search and kept with the offsets of its newlines (found by numpy), and only a
    hit's own lines are decoded. (A slice that starts after a newline decodes as that part of
    the whole file does: in UTF-8 the newline byte is never inside a character.)"""

    def __init__(self, root: str, ranges: dict | None = None):
        self.root = root
        self.ranges = ranges or {}
        self._files: dict[str, tuple[bytes, np.ndarray] | None] = {}
        self._ranged: dict[str, tuple[int, bytes] | None] = {}

    def _abs(self, path: str) -> str:
        from ctxmill.sources.repo import fs_name

        return os.path.join(self.root, fs_name(path))

    def _file(self, path: str) -> tuple[bytes, np.ndarray] | None:
        if path not in self._files:
            try:
                with open(self._abs(path), "rb") as fh:
                    data = fh.read()
                self._files[path] = data, _newlines(data)
            except OSError:
                self._files[path] = None
        return self._files[path]

    def _open_ranged(self, path: str) -> tuple[int, bytes] | None:
        """(descriptor, packed ranges) of a file whose stat is the one its ranges were recorded
        at, else None."""
        rec = self.ranges.get(path)
        if rec is None:
            return None
        try:
            fd = os.open(self._abs(path), os.O_RDONLY)
        except OSError:
            return None
        st = os.fstat(fd)
        if (st.st_size, st.st_mtime_ns, st.st_ino) != tuple(rec[:3]):
            os.close(fd)
            return None
        return fd, rec[3]

    def _pread(self, path: str, start: int, end: int) -> str | None:
        if path not in self._ranged:
            self._ranged[path] = self._open_ranged(path)
        got = self._ranged[path]
        if got is None:
            return None
        # the chunk's (start, end) found in the packed rows by a byte search (most hit files
        # have one or two hits: unpacking every row of the file would cost more)
        packed, key = got[1], _RANGE_KEY.pack(start, end)
        i = packed.find(key)
        while i > 0 and i % _RANGE_ROW:  # (a match across two fields of the rows)
            i = packed.find(key, i + 1)
        if i < 0:
            return None
        a, b = _RANGE_KEY.unpack_from(packed, i + _RANGE_KEY.size)
        data = os.pread(got[0], b - a, a)
        return data.decode("utf-8", "replace") if len(data) == b - a else None

    def close(self) -> None:
        for got in self._ranged.values():
            if got is not None:
                os.close(got[0])
        self._ranged.clear()

    def _slice(self, path: str, start: int, end: int, *, whole: bool) -> str | None:
        """Lines ``start``..``end`` (1-based, inclusive) joined by newlines, as
        ``"\n".join(text.split("\n")[start - 1:end])``; None when the file cannot be read or,
        with ``whole``, has fewer than ``end`` lines."""
        got = self._file(path)
        if got is None:
            return None
        data, nl = got
        if end > len(nl) + 1:
            if whole:
                return None
            end = len(nl) + 1
        if start > end:
            return ""
        a, b = _span(nl, len(data), start, end)
        return data[a:b].decode("utf-8", "replace")

    def raw_lines(self, path: str, start: int, end: int) -> str:
        return self._slice(path, start, end, whole=False) or ""

    def lines(self, path: str, start: int, end: int, context: str, h: str) -> str | None:
        """The chunk's text when the local lines still hash to ``h``, else None."""
        from ctxmill.index.merkle import content_hash
        from ctxmill.redact import redact

        def same(text: str) -> bool:
            return content_hash(embed_text(context or None, text).encode("utf-8", "surrogatepass")) == h

        raw = self._pread(path, start, end)
        if raw is not None and same(raw):
            return raw
        raw = self._slice(path, start, end, whole=True)
        if raw is None:
            return None
        # Lines that hash to h as they are were stored as they are (nothing to redact in them):
        # the redaction pass, the larger cost, is needed only when they do not
        if same(raw):
            return raw
        text = redact(raw).text
        if text == raw or not same(text):
            return None
        return text

    def chunk(self, path: str, start: int, end: int, context: str | None, h: str) -> str | None:
        text = self.lines(path, start, end, context or "", h)
        return None if text is None else embed_text(context, text)


class _Transaction:
    """A server transaction; the local record is written after it commits."""

    def __init__(self, store: PgStore):
        self.store = store

    def __enter__(self):
        self._tx = self.store.conn.transaction()
        self._tx.__enter__()
        return self.store.conn

    def __exit__(self, exc_type, exc, tb):
        self._tx.__exit__(exc_type, exc, tb)
        if exc_type is None:
            s = self.store
            pending = getattr(s, "_pending_stats", None)
            if pending is not None:
                s._write_ranges(pending, s._pending_changes)  # (first: a reader of the new stats reloads both)
                _write_stats(s.path, pending)
                s._pending_stats = None
                s._hpaths = None
            s._write_local()
        return False



_stores: dict[tuple[str, str], PgStore] = {}
_stores_lock = threading.Lock()


def team_store(url: str, root: str | Path) -> PgStore:
    """The store of ``root`` at ``url`` for searches, kept per process with a connection pool
    (psycopg_pool): the MCP server, the web page and the background server answer many
    searches without reconnecting. Its map of keyed paths is re-read when a sync here changed
    the local record."""
    key = (url, os.path.abspath(root))
    with _stores_lock:
        st = _stores.get(key)
        if st is not None:
            stamp = _stamp(st.path)
            if stamp != st._stamp:
                st._hpaths, st._stamp, st._names = None, stamp, {}  # (_blob_names hold: keyed by content)
                st.embedder_name = st._server_meta_pooled("embedder_name")
                st.dim = int(st._server_meta_pooled("embedder_dim") or 0)
            return st
        st = PgStore(url, root, create=False)
        st._stamp = _stamp(st.path)
        try:
            from psycopg_pool import ConnectionPool

            st.pool = ConnectionPool(url, min_size=1, max_size=8, open=True, name="ctxmill", configure=_session,
                                     kwargs={"autocommit": True, "application_name": "ctxmill"})
            st.conn.close()
            st.conn = None
        except ImportError:  # the pool package is part of the extra; without it one connection serves
            pass
        _stores[key] = st
        return st


def _session(conn) -> None:
    """Search settings of a reading connection, set once: HNSW's candidate list, and its
    iterative scan (pgvector 0.8), which keeps walking the graph until enough rows pass the
    (repo, branch) filter."""
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    # psycopg prepares a statement run five times; PostgreSQL may then switch to a generic plan,
    # which for the search statement (arrays of terms, per-repository row counts) was 3x slower
    # at the median and 4x at the worst on the 131k-chunk benchmark: plan each search, keep the parse
    conn.execute("SET plan_cache_mode = force_custom_plan")


def _stamp(path: Path):
    try:
        return os.stat(path.with_suffix(".stats")).st_mtime_ns
    except OSError:
        return None


def sync_known(url: str, root: str, *, max_file_bytes: int | None = None):
    """``ctxmill index ROOT --store URL`` in a long-lived process (the warm server): the sync's
    report, or None when this is a first build (neither this machine nor the server knows the
    (repository, branch) yet: the command runs it, with its progress bar). A known one - this
    machine's record is there, or the server holds the tree and this is a second machine's first
    sync - syncs here, on a kept connection with the sync code and embedder already loaded."""
    from ctxmill.index.embedders import get_embedder
    from ctxmill.index.sync import sync
    from ctxmill.sources.repo import DEFAULT_MAX_FILE_BYTES

    st = PgStore(url, root, create=True)
    if not st.server_root and not st.path.with_suffix(".json").exists():
        st.close()
        return None
    embedder = get_embedder(None)  # as sync_index: the shipped one (a store of another is refused)
    return sync(Path(st.root), st.path, embedder, progress=None,
                max_file_bytes=DEFAULT_MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes,
                open_store=lambda: st)
