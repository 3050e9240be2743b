"""The codebase index: public API.

    from ctxmill.index import sync_index, search, index_status

    report = sync_index("path/to/repo")          # walk + Merkle sync + chunk + embed + store
    hits = search("parse user record", "path/to/repo", k=5)
    index_status("path/to/repo")                 # what is indexed and how fresh

Each indexed folder has one SQLite database. By default it lives under the user cache folder
(``~/.cache/ctxmill/index/<folder name>-<hash of its absolute path>.db`` on Linux); the
``CTXMILL_INDEX_DIR`` environment variable moves that folder, and ``db_path=`` (``--db``)
names the database file directly.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ctxmill.errors import InputRefused
from ctxmill.index.search import Hit
from ctxmill.locations import default_db_path

if TYPE_CHECKING:
    from ctxmill.index.sync import Progress, SyncReport

__all__ = ["Hit", "SyncReport", "default_db_path", "index_status", "related", "search", "symbol_references",
           "sync_index"]


def __getattr__(name: str):
    # the sync side (walk, ignore rules, tree-sitter: ~0.2-0.4 s of imports) loads when first
    # used, not on a search's path: a server's first answer waits for every import on it
    if name in ("Progress", "SyncReport"):
        from ctxmill.index import sync

        return getattr(sync, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sync_index(
    root: str | Path,
    *,
    db_path: str | Path | None = None,
    embedder=None,
    progress: Progress | None = None,
    max_file_bytes: int | None = None,
    extra_ignore=(),
    workers: int | None = None,
    store: str | None = None,
    store_text: bool = False,
) -> SyncReport:
    """Build or bring up to date the index of ``root``; returns the counts of what happened.
    ``store``: a postgresql:// URL (or ``$CTXMILL_STORE``): sync into that team store instead
    of the local SQLite index (ctxmill.team)."""
    from ctxmill.index.backend import store_url
    from ctxmill.index.embedders import get_embedder
    from ctxmill.index.sync import sync
    from ctxmill.sources.repo import DEFAULT_MAX_FILE_BYTES

    if max_file_bytes is None:
        max_file_bytes = DEFAULT_MAX_FILE_BYTES
    if embedder is None or isinstance(embedder, str):
        embedder = get_embedder(embedder)
    url = store_url(store, root) if db_path is None else store
    if url:
        from ctxmill.team.pgstore import PgStore

        opened = PgStore(url, root, store_text=store_text, create=True)  # refuses early, before the lock
        return sync(Path(root), opened.path, embedder, progress=progress, max_file_bytes=max_file_bytes,
                    extra_ignore=extra_ignore, workers=workers, open_store=lambda: opened)
    db = Path(db_path) if db_path else default_db_path(root)
    return sync(Path(root), db, embedder, progress=progress, max_file_bytes=max_file_bytes,
                extra_ignore=extra_ignore, workers=workers)


def _db_for(root: str | Path | None, db_path: str | Path | None) -> Path:
    root = root if root is not None else os.getcwd()
    db = Path(db_path) if db_path else default_db_path(root)
    if not db.exists():
        raise InputRefused(f"{root} is not indexed yet (no {db}); run `ctxmill index {root}` first")
    return db


def _open(root: str | Path | None, db_path: str | Path | None):
    from ctxmill.index.store import Store

    return Store(_db_for(root, db_path), create=False)


# Open read connections kept per (database, thread): a server answering many searches skips
# reconnecting and keeps SQLite's page cache warm. A rebuilt database (new inode) reopens.
_readers: dict[tuple[str, int], tuple[tuple[int, int], object]] = {}
_readers_lock = threading.Lock()


@contextlib.contextmanager
def _reader(root: str | Path | None, db_path: str | Path | None):
    from ctxmill.index.store import SCHEMA_VERSION, Store

    db = _db_for(root, db_path)
    st = os.stat(db)
    ident = (st.st_dev, st.st_ino)
    key = (str(db.resolve()), threading.get_ident())
    with _readers_lock:
        got = _readers.get(key)
    # state_key() also re-reads the embedder's name, which a sync elsewhere may have changed
    if got is not None and got[0] == ident and got[1].state_key()[1] == str(SCHEMA_VERSION):
        yield got[1]
        return
    store = Store(db, create=False)  # checks the schema version, refuses a newer one
    with _readers_lock:
        old = _readers.pop(key, None)
        if len(_readers) >= 32:  # threads come and go: forget the oldest
            _readers.pop(next(iter(_readers)))
        _readers[key] = (ident, store)
    if old is not None:
        old[1].close()
    yield store


def search(
    query: str,
    root: str | Path | None = None,
    *,
    db_path: str | Path | None = None,
    path_prefix: str | None = None,
    k: int = 10,
    embedder=None,
    store: str | None = None,
) -> list[Hit]:
    """Hits best first; ``path`` relative to ``root``, lines 1-based inclusive. ``store``: a
    postgresql:// URL (or ``$CTXMILL_STORE``): search that team store (ctxmill.team)."""
    import importlib

    from ctxmill.index.backend import store_url
    from ctxmill.index.embedders import get_embedder

    url = store_url(store, root if root is not None else os.getcwd()) if db_path is None else store
    if url:
        from ctxmill.team.pgstore import team_store

        st = team_store(url, root if root is not None else os.getcwd())
        if embedder is None or isinstance(embedder, str):
            embedder = get_embedder(embedder or st.embedder_name)
        return st.search(query, embedder, path_prefix=path_prefix, k=k)

    # The module shares its name with this function, so fetch it by its full name.
    search_mod = importlib.import_module("ctxmill.index.search")

    with _reader(root, db_path) as store:
        if embedder is None:
            # Query with the embedder the index was built with, when it is known here.
            try:
                embedder = get_embedder(store.embedder_name)
            except Exception:
                embedder = get_embedder(None)
        elif isinstance(embedder, str):
            embedder = get_embedder(embedder)
        return search_mod.search(store, query, embedder, path_prefix=path_prefix, k=k)


def symbol_references(name: str, root: str | Path | None = None, *, db_path: str | Path | None = None,
                      limit: int = 50) -> dict:
    """Where the identifier ``name`` is defined and used in the index of ``root``."""
    from ctxmill.index.symbols import find_symbol

    with _reader(root, db_path) as store:
        got = find_symbol(store, name, limit)
    return {"definitions": [p.to_dict() for p in got["definitions"]], "uses": [p.to_dict() for p in got["uses"]],
            "definitions_total": got["definitions_total"], "uses_total": got["uses_total"]}


def related(path: str, line: int, root: str | Path | None = None, *, db_path: str | Path | None = None,
            k: int = 10, embedder=None) -> list[Hit]:
    """Code and document passages related to ``path``:``line``: the index's chunk there is the
    query; hits overlapping that chunk are left out."""
    from ctxmill.index.symbols import chunk_at

    with _reader(root, db_path) as store:
        at = chunk_at(store, path, line)
    if at is None:
        raise InputRefused(f"{path}:{line} is not in the index of {root or '.'} (a path relative to the root; "
                           "sync first if the file is new)")
    start, end, text = at
    hits = search(text[:2000], root, db_path=db_path, k=k + 5, embedder=embedder)
    out = [h for h in hits if not (h.path == path and h.start_line <= end and h.end_line >= start)]
    return out[:k]


def index_status(root: str | Path | None = None, *, db_path: str | Path | None = None) -> dict:
    """What is indexed and how fresh: counts, languages, embedder, Merkle root, last sync."""
    with _open(root, db_path) as store:
        c = store.conn
        counts = store.counts()
        last = store.get_meta("last_sync")
        try:  # a no-op sync writes nothing to the database; it touches the lock file
            checked = os.stat(str(store.path) + ".lock").st_mtime
            last = str(max(float(last or 0), checked)) if last else last
        except OSError:
            pass
        languages = dict(c.execute(
            "SELECT coalesce(language, 'other'), count(*) FROM files WHERE status='ok' "
            "GROUP BY 1 ORDER BY 2 DESC"))
        statuses = dict(c.execute("SELECT status, count(*) FROM files GROUP BY 1"))
        kinds = dict(c.execute("SELECT kind, count(*) FROM chunks GROUP BY 1 ORDER BY 2 DESC"))
        return {
            "root": store.get_meta("root"),
            "db_path": str(store.path),
            "db_bytes": store.path.stat().st_size,
            "files": counts["files"],
            "chunks": counts["chunks"],
            "vectors": counts["vectors"],
            "files_by_status": statuses,
            "languages": languages,
            "chunk_kinds": kinds,
            "embedder": {"name": store.embedder_name, "dim": store.dim},
            "merkle_root": store.get_meta("merkle_root"),
            "syncs": int(store.get_meta("sync_count") or 0),
            "last_sync": float(last) if last else None,
            "age_seconds": round(time.time() - float(last), 1) if last else None,
            "complete": store.get_meta("dirty") == "0",
            "vector_backend": "numpy",
            "redactions": _redactions(c),
            "warnings": json.loads(store.get_meta("warnings") or "[]"),
        }


def _redactions(conn) -> dict:
    """Secrets redacted at index time, listed as {path, line, rule} from the stored chunks."""
    from ctxmill.redact import markers, summarize

    found = []
    for path, start, text in conn.execute(
            "SELECT path, start_line, text FROM chunks WHERE instr(text, '[REDACTED:') > 0 ORDER BY path, start_line"):
        found.extend(markers(text, path=path, first_line=int(start or 1)))
    return summarize(sorted(set(found), key=lambda f: (f.path or "", f.line, f.rule)))
