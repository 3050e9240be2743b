"""Upgrades of index databases written by older ctxmill versions.

``meta.schema_version`` says which layout a database has. ``Store`` refuses a newer one and
calls :func:`upgrade` for an older one: every step from that version to ``SCHEMA_VERSION`` runs
in one transaction, so a database is either fully upgraded or left as it was. A layout that
cannot be brought forward (its full-text index cannot score, a table is missing or has other
columns) is refused with a message that says to delete the index and rebuild it - never with
a bare SQLite error.

Versions:

1. every layout before versioning was kept up: the tables ``meta``, ``files``, ``nodes``,
   ``chunks``, ``chunks_fts`` and ``vectors``, then ``statcache`` and the ``vectors_last_sync``
   index added without a new version number; the earliest kept embeddings in a sqlite-vec
   ``vec_index`` table and left ``vectors.vec`` empty, one kept FTS5 ``detail=column``
   (bm25() scores every match 0).
2. the layout of ``store._SCHEMA``: all of the above tables and indexes, embeddings in
   ``vectors.vec``.
"""

from __future__ import annotations

from ctxmill.errors import InputRefused

# Tables every migratable layout has, with the columns this version reads and writes.
_COLUMNS = {
    "meta": {"key", "value"},
    "files": {"path", "dir", "size", "mtime_ns", "inode", "hash", "status", "language", "indexed_at"},
    "nodes": {"path", "parent", "hash"},
    "chunks": {"id", "path", "start_line", "end_line", "kind", "symbol", "language", "text", "context", "hash"},
    "vectors": {"id", "hash", "last_sync", "vec"},
}


def refusal(path, why: str) -> InputRefused:
    return InputRefused(f"{path}: index written by an older ctxmill cannot be upgraded ({why}); "
                        f"delete it and run `ctxmill index` on the folder to rebuild it")


def upgrade(store, version: int, target: int, create_statements: list[str]) -> None:
    """Bring ``store`` from ``version`` to ``target`` in one transaction (or refuse)."""
    conn = store.conn
    with store.transaction():
        # another process may have upgraded it while this one waited for the write lock
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = int(row[0]) if row else version
        if version >= target:
            return
        if version < 1:
            raise refusal(store.path, f"unknown schema version {version}")
        for step in range(version, target):
            _STEPS[step](store, create_statements)
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", (str(target),))


def _v1_to_v2(store, create_statements: list[str]) -> None:
    conn = store.conn
    tables = {name: sql or "" for name, sql in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type='table'")}
    for table, wanted in _COLUMNS.items():
        if table not in tables:
            raise refusal(store.path, f"no {table} table")
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        if not wanted <= have:
            raise refusal(store.path, f"{table} lacks {', '.join(sorted(wanted - have))}")
    fts = tables.get("chunks_fts", "")
    if "fts5" not in fts.lower():
        raise refusal(store.path, "no FTS5 chunks_fts table")
    if "detail=column" in fts.replace(" ", "").lower() or "detail=none" in fts.replace(" ", "").lower():
        raise refusal(store.path, "its full-text index was built without positions and cannot rank")
    # Missing tables and indexes (statcache, vectors_last_sync, ...): every statement of the
    # current schema is CREATE ... IF NOT EXISTS, so what is there is left alone.
    for statement in create_statements:
        conn.execute(statement)
    # (A missing stat cache needs nothing more: a sync without one reads the files' rows.)
    if "vec_index" in tables:
        # sqlite-vec era: the embeddings lived in vec_index. Forget the empty vector rows and
        # mark the index as an interrupted sync would leave it, so the next sync embeds those
        # chunks again; drop vec_index where sqlite-vec can be loaded to do it (without the
        # module SQLite cannot drop it: it then only takes room).
        conn.execute("DELETE FROM vectors WHERE vec IS NULL")
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('dirty', '1')")
        _drop_vec_index(conn)


def _drop_vec_index(conn) -> None:
    try:
        import sqlite_vec  # type: ignore[import-not-found]

        conn.enable_load_extension(True)
        try:
            sqlite_vec.load(conn)
        finally:
            conn.enable_load_extension(False)
        conn.execute("DROP TABLE vec_index")
    except Exception:  # no sqlite-vec here, or no extension loading: leave the table
        pass


_STEPS = {1: _v1_to_v2}
