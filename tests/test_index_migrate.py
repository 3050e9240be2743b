"""Index databases written by older ctxmill versions: upgraded in place, or refused with a
message that says to rebuild - never a bare SQLite error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlean as sqlite3

from ctxmill.errors import InputRefused
from ctxmill.index import search, sync_index
from ctxmill.index.store import SCHEMA_VERSION, Store

# The layout of schema version 1 as the first index shipped it (commit 02656cd), FTS5
# contentless as from d92887f; before the statcache table and the vectors_last_sync index.
V1_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(
    path TEXT PRIMARY KEY, dir TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, inode INTEGER,
    hash TEXT NOT NULL, status TEXT NOT NULL, language TEXT, indexed_at REAL);
CREATE INDEX files_dir ON files(dir);
CREATE TABLE nodes(path TEXT PRIMARY KEY, parent TEXT, hash TEXT NOT NULL);
CREATE INDEX nodes_parent ON nodes(parent);
CREATE TABLE chunks(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER, end_line INTEGER,
    kind TEXT, symbol TEXT, language TEXT, text TEXT NOT NULL, context TEXT, hash TEXT NOT NULL);
CREATE INDEX chunks_path ON chunks(path);
CREATE INDEX chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    body, symbol, path, tokenize = "unicode61 tokenchars '_'"{fts_options});
CREATE TABLE vectors(
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, last_sync INTEGER NOT NULL, vec BLOB);
INSERT INTO meta VALUES ('schema_version', '1'), ('created_at', '1764480000.0');
"""


def _tables(db: Path) -> set[str]:
    conn = sqlite3.connect(str(db))
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def _content(db: Path) -> list:
    """The schema and every row of every stored table (FTS5 shadow tables included)."""
    conn = sqlite3.connect(str(db))
    try:
        master = sorted(conn.execute("SELECT type, name, sql FROM sqlite_master"))
        out: list = [master]
        for _type, name, sql in master:
            if _type == "table" and not (sql or "").upper().startswith("CREATE VIRTUAL"):
                out.append((name, sorted(map(repr, conn.execute(f'SELECT * FROM "{name}"')))))
        return out
    finally:
        conn.close()


def _meta(db: Path, key: str) -> str | None:
    conn = sqlite3.connect(str(db))
    try:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def _by_hand(db: Path, fts_options: str = ", content='', contentless_delete=1") -> None:
    conn = sqlite3.connect(str(db))
    conn.executescript(V1_SCHEMA.replace("{fts_options}", fts_options))
    conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ledger.py").write_text(
        'def post_ledger_entry(account, amount):\n    """Book an amount to an account."""\n'
        "    account.balance += amount\n    return account\n")
    (root / "route.py").write_text("def shortest_route(graph, start, goal):\n    return dijkstra(graph, start, goal)\n")
    return root


def _downgrade_to_v1(db: Path) -> None:
    """What a database of the statcache-less era looks like: built here, then the table and
    index added since dropped and the version set back to 1."""
    conn = sqlite3.connect(str(db))
    conn.executescript("DROP TABLE statcache; DROP INDEX vectors_last_sync; "
                       "UPDATE meta SET value='1' WHERE key='schema_version';")
    conn.close()


def test_a_version_1_index_without_statcache_is_upgraded_and_syncs(repo, tmp_path):
    db = tmp_path / "i.db"
    sync_index(repo, db_path=db, embedder="hash-256")
    _downgrade_to_v1(db)
    assert "statcache" not in _tables(db)
    Store(db, create=False).close()  # the upgrade: nothing to heal, so not marked dirty
    assert "statcache" in _tables(db) and _meta(db, "dirty") == "0"
    _downgrade_to_v1(db)
    (repo / "tax.py").write_text("def compute_vat(net_price):\n    return net_price * 0.2\n")
    (repo / "route.py").unlink()
    report = sync_index(repo, db_path=db, embedder="hash-256")
    assert report.files_changed == 1 and report.files_deleted == 1
    assert {"statcache", "vectors_last_sync"} <= _tables(db)
    assert _meta(db, "schema_version") == str(SCHEMA_VERSION) == "2"
    assert search("compute vat", repo, db_path=db)[0].path == "tax.py"
    assert search("post ledger entry", repo, db_path=db)[0].path == "ledger.py"
    assert "route.py" not in {h.path for h in search("shortest route graph", repo, db_path=db)}
    # and the next no-op sync takes the fast path through the new stat cache
    again = sync_index(repo, db_path=db, embedder="hash-256")
    assert again.files_changed == 0 and again.files_deleted == 0


def test_a_search_is_the_first_to_open_an_old_index(repo, tmp_path):
    """The API's cached reader upgrades too; the search answers from the old data."""
    db = tmp_path / "i.db"
    sync_index(repo, db_path=db, embedder="hash-256")
    search("ledger", repo, db_path=db)  # a reader is cached for this database ...
    _downgrade_to_v1(db)  # ... when another (older) process rewrites the layout
    assert search("post ledger entry", repo, db_path=db)[0].path == "ledger.py"
    assert _meta(db, "schema_version") == "2"


def test_a_hand_built_version_1_database_is_upgraded(repo, tmp_path):
    db = tmp_path / "old.db"
    _by_hand(db)
    report = sync_index(repo, db_path=db, embedder="hash-256")
    assert report.files_changed == 2
    assert _meta(db, "schema_version") == "2" and "statcache" in _tables(db)
    assert search("shortest route", repo, db_path=db)[0].path == "route.py"


def test_the_sqlite_vec_layout_is_re_embedded(repo, tmp_path):
    """The earliest indexes kept embeddings in a sqlite-vec table, vectors.vec empty: the
    upgrade forgets the empty rows and the next sync embeds those chunks again."""
    sqlite_vec = pytest.importorskip("sqlite_vec")
    db = tmp_path / "i.db"
    sync_index(repo, db_path=db, embedder="hash-256")
    _downgrade_to_v1(db)
    conn = sqlite3.connect(str(db))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.execute("CREATE VIRTUAL TABLE vec_index USING vec0(embedding float[256])")
    conn.execute("INSERT INTO vec_index(rowid, embedding) SELECT id, vec FROM vectors")
    conn.execute("UPDATE vectors SET vec = NULL")
    conn.commit()
    conn.close()
    Store(db, create=False).close()
    assert _meta(db, "dirty") == "1"  # the next sync embeds what lost its vectors
    sync_index(repo, db_path=db, embedder="hash-256")
    assert "vec_index" not in _tables(db)
    with Store(db, create=False) as st:
        nulls, total = st.conn.execute("SELECT sum(vec IS NULL), count(*) FROM vectors").fetchone()
        chunks = st.conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
    assert nulls == 0 and total == chunks > 0
    hits = search("book an amount to an account", repo, db_path=db)
    assert hits[0].path == "ledger.py" and hits[0].vector_rank is not None


@pytest.mark.parametrize("why, make", [
    ("without positions", lambda db: _by_hand(db, ", content='', contentless_delete=1, detail=column")),
    ("no nodes table", lambda db: (_by_hand(db), _drop(db, "DROP TABLE nodes"))),
    ("chunks lacks context", lambda db: (_by_hand(db), _drop(db, "ALTER TABLE chunks DROP COLUMN context"))),
    ("unknown schema version 0", lambda db: (_by_hand(db), _drop(db, "UPDATE meta SET value='0' "
                                                                     "WHERE key='schema_version'"))),
])
def test_layouts_that_cannot_be_upgraded_are_refused_and_left_alone(repo, tmp_path, why, make):
    db = tmp_path / "old.db"
    make(db)
    before = _content(db)
    with pytest.raises(InputRefused, match="cannot be upgraded") as err:
        sync_index(repo, db_path=db, embedder="hash-256")
    assert why in str(err.value) and "rebuild" in str(err.value)
    with pytest.raises(InputRefused, match="cannot be upgraded"):
        search("ledger", repo, db_path=db)
    assert _content(db) == before  # opening may switch it to WAL; nothing else changes
    out = subprocess.run([sys.executable, "-m", "ctxmill.cli", "index", str(repo), "--db", str(db)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 3 and "cannot be upgraded" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_an_upgrade_that_fails_half_way_leaves_the_old_database(repo, tmp_path, monkeypatch):
    """One transaction: a step that fails after creating tables undoes them, and the SQLite
    error comes back as a refusal that says to rebuild."""
    import ctxmill.index.migrate as migrate

    db = tmp_path / "i.db"
    sync_index(repo, db_path=db, embedder="hash-256")
    _downgrade_to_v1(db)
    before = _content(db)

    def failing(store, statements):
        migrate._v1_to_v2(store, statements)  # statcache created ...
        store.conn.execute("INSERT INTO no_such_table VALUES (1)")  # ... then an SQLite error

    monkeypatch.setitem(migrate._STEPS, 1, failing)
    with pytest.raises(InputRefused, match="no such table: no_such_table.*rebuild"):
        search("ledger", repo, db_path=db)
    assert _content(db) == before and "statcache" not in _tables(db)
    monkeypatch.undo()
    assert search("post ledger entry", repo, db_path=db)[0].path == "ledger.py"


def _drop(db: Path, sql: str) -> None:
    conn = sqlite3.connect(str(db))
    conn.execute(sql)
    conn.commit()
    conn.close()
