"""The one interface the sync driver and search use, whichever store holds the index.

Two stores implement it: the local SQLite one (``ctxmill.index.store.Store``, the default) and
the team store on PostgreSQL + pgvector (``ctxmill.team.pgstore.PgStore``, ``--store URL``).
The sync driver (``ctxmill.index.sync``) only calls the methods listed in :class:`IndexStore`;
a search goes through :meth:`IndexStore.search`, so neither knows which store it has.

Also here: what both the stores and the driver need to agree on about a chunk - the layout of
a finalised chunk row (the tuple ``sync.finalize_chunk`` returns), the text an embedder sees
(:func:`embed_text`, which the content hash covers) and the lexical body (:func:`fts_body`). A
store reads these rows; it never imports the driver that wrote them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

# A finalised chunk row, as it crosses from a worker process to the writer (a plain tuple:
# it pickles in a fraction of a dataclass's time and size). BODY is what is embedded and hashed
# (context + text; the same object as TEXT when there is no context); EXTRA is the identifier
# parts for the lexical body; SYMBOL_FTS the symbol and its parts.
START, END, KIND, SYMBOL, LANGUAGE, TEXT, CONTEXT, HASH, BODY, EXTRA, SYMBOL_FTS = range(11)

STORE_ENV = "CTXMILL_STORE"  # a postgresql:// URL: the team store instead of the local SQLite one


def embed_text(context: str | None, text: str) -> str:
    """What the embedder sees for a chunk (and what its content hash covers)."""
    return f"{context}\n{text}" if context else text


def fts_body(row: tuple) -> str:
    """The lexical body of a finalised chunk: its text and its identifier parts (what
    terms.fts_text(body) returns)."""
    extra = row[EXTRA]
    return f"{row[BODY]}\n{extra}" if extra else row[BODY]


@runtime_checkable
class IndexStore(Protocol):
    """What the sync driver and search ask of a store.

    Writes happen inside ``with store.transaction():``; every file's old chunks, new chunks,
    vectors and file row commit together, so a reader never sees half a file.
    """

    path: Path  # where this store keeps its local state (the sync lock sits beside it)
    embedder_name: str | None
    dim: int

    def transaction(self) -> Any: ...
    def close(self) -> None: ...
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...

    # vectors, keyed by content hash
    def ensure_embedder(self, name: str, dim: int) -> bool: ...
    def has_vectors(self) -> bool: ...
    def missing_vectors(self, hashes: Iterable[str]) -> list[str]: ...
    def add_vectors(self, hashes: list[str], matrix: np.ndarray, sync_no: int) -> None: ...
    def touch_vectors(self, hashes: Iterable[str], sync_no: int) -> None: ...
    def hashes_without_vectors(self) -> list[str]: ...
    def texts_for_hashes(self, hashes: list[str]) -> dict[str, str]: ...
    def gc_vectors(self, sync_no: int) -> int: ...

    # files, chunks and the Merkle tree
    def has_files(self) -> bool: ...
    def stat_cache(self, *, trust: bool = True) -> dict[str, tuple[int, int, int]]: ...
    def write_stat_cache(self, stats: dict, changes: dict | None = None) -> None: ...
    def file_hashes(self, paths: list[str]) -> dict[str, str]: ...
    def update_stat(self, path: str, size: int, mtime_ns: int, inode: int) -> None: ...
    def replace_files(self, files: list) -> int: ...
    def delete_file(self, path: str) -> int: ...
    def count_chunks(self) -> int: ...
    def update_merkle(self, changed_paths: list[str], *, full: bool = False) -> str: ...
    def mark_checked(self) -> None: ...

    # bulk-load hints (a store may ignore them)
    def fts_bulk_mode(self, on: bool) -> None: ...
    def build_journal(self, on: bool) -> bool: ...
    def refresh_common_terms(self, total: int, share: float) -> None: ...
    def finish_sync(self) -> None: ...

    def search(self, query: str, embedder, *, path_prefix: str | None = None, k: int = 10) -> list: ...


def store_url(explicit: str | None = None, root: str | Path | None = None) -> str | None:
    """The team store to use: ``--store URL``, else ``CTXMILL_STORE``, else ROOT's project
    settings (``[team] store`` in ``ROOT/.ctxmill/settings.toml``, never with a password: see
    ctxmill.team.settings); None means the local SQLite index."""
    from ctxmill.team.settings import store_url as resolve

    return resolve(explicit, root)


def is_team_url(target: str | None) -> bool:
    return bool(target) and str(target).startswith(("postgresql://", "postgres://"))
