"""``ctxmill index --watch ROOT``: the server's watch-and-sync loop in the foreground."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def watch_foreground(root: Path, *, db_path: Path | None = None, max_file_bytes: int | None = None,
                     quiet: bool = False) -> None:
    """Sync ``root``, then sync again after each batch of saves until interrupted (Ctrl-C)."""
    try:
        import watchfiles
    except ImportError:
        from ctxmill.errors import InputRefused

        raise InputRefused("--watch needs the watchfiles package (pip install watchfiles)") from None
    from ctxmill.index import sync_index

    kwargs = {"max_file_bytes": max_file_bytes} if max_file_bytes else {}

    def once() -> None:
        t = time.perf_counter()
        r = sync_index(root, db_path=db_path, **kwargs)
        if not quiet:
            print(f"{time.strftime('%H:%M:%S')} synced {r.files_changed} changed, {r.files_deleted} deleted, "
                  f"{r.chunks_embedded} embedded in {time.perf_counter() - t:.2f}s", file=sys.stderr, flush=True)
            for w in r.warnings:
                print(f"ctxmill: warning: {w}", file=sys.stderr, flush=True)

    once()
    if not quiet:
        print(f"watching {root} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        for _changes in watchfiles.watch(root, debounce=100, step=20, raise_interrupt=True):
            once()
    except KeyboardInterrupt:
        return
