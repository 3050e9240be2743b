"""What an index shows a search, independent of row ids and sync history: crash tests
compare a healed index with a fresh one through it."""

from __future__ import annotations

from pathlib import Path

from ctxmill.index.store import Store


def snapshot(db: Path, probe: str) -> dict:
    """Files, chunks, Merkle nodes and one FTS query for ``probe``, checked for consistency."""
    with Store(db) as s:
        c = s.conn
        chunks = sorted(c.execute(
            "SELECT path, start_line, end_line, kind, symbol, language, text, context, hash FROM chunks"))
        assert {r[8] for r in chunks} <= {r[0] for r in c.execute("SELECT hash FROM vectors")}, \
            "a chunk without a vector"
        assert c.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == len(chunks), \
            "FTS out of step with chunks"
        assert int(s.get_meta("chunks_total")) == len(chunks), "chunk count out of step"
        hits = sorted(r[0] for r in c.execute(
            "SELECT c.path FROM chunks_fts f JOIN chunks c ON c.id = f.rowid WHERE chunks_fts MATCH ?",
            (probe,)))
        return {
            "files": sorted(c.execute("SELECT path, hash, status, language FROM files")),
            "chunks": chunks,
            "nodes": sorted(c.execute("SELECT path, parent, hash FROM nodes")),
            "merkle_root": s.get_meta("merkle_root"),
            "dirty": s.get_meta("dirty"),
            "probe": hits,
        }
