"""Watching an indexed folder for saves: the server's ``RootWatcher`` and
``ctxmill index --watch ROOT``, the same loop in the foreground.

The watcher is watchfiles' Rust core (``RustNotify``: inotify on Linux, FSEvents on macOS)
driven directly rather than through ``watchfiles.watch``, for two things the server needs:
to know when the watches are in place (a sync that starts after that misses no save), and
a regular tick, so a request can wait until the watcher has looked at everything that
happened before it arrived (``caught_up``). Any change below the root counts, except inside
hidden folders (the index never enters them) and the index's own files: the sync that follows
stat-walks the whole tree, so a change the index ignores costs a walk, never a stale answer.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

DEBOUNCE_MS = 100  # a burst of writes (a checkout, a formatter) becomes one sync
STEP_MS = 10  # quiet time that ends a burst: a save is seen ~10 ms after it
TICK_MS = 50  # the loop comes back at least this often, so ``caught_up`` waits at most ~this
CATCH_UP_MARGIN = 0.01  # seconds for the notify thread to read what the kernel queued


class RootWatcher:
    def __init__(self, root: str, *, on_change: Callable[[], None], ignore: list[str] | tuple = ()):
        self.root = os.path.realpath(root)
        self.on_change = on_change
        self.ignore = tuple(str(p) for p in ignore if p)  # the index's files, when they live in the root
        self.alive = False
        self.error: str | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._tick = threading.Condition()
        self.ticked = 0.0  # monotonic time the loop last came back from the notify core
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 30.0) -> bool:
        """Start watching; True once the watches are in place."""
        try:
            from watchfiles._rust_notify import RustNotify  # noqa: F401
        except ImportError:
            self.error = "watchfiles is not installed: saves are synced when a command asks"
            return False
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"watch {self.root}")
        self._thread.start()
        self._ready.wait(timeout)
        return self.alive

    def stop(self) -> None:
        self._stop.set()

    def relevant(self, path: str) -> bool:
        if self.ignore and path.startswith(self.ignore):
            return False
        rel = os.path.relpath(path, self.root)
        if rel.startswith(".."):
            return False
        parts = rel.split(os.sep)
        if any(p.startswith(".") and p != "." for p in parts[:-1]):  # inside a hidden folder
            return rel == os.path.join(".git", "info", "exclude")  # the root's extra ignore file
        return True

    def caught_up(self, since: float, timeout: float) -> bool:
        """Wait until the loop has come back after ``since`` (plus a margin): every change
        made before ``since`` has then been seen (and marked the root dirty)."""
        deadline = time.monotonic() + timeout
        with self._tick:
            while self.ticked < since + CATCH_UP_MARGIN:
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    return False
                self._tick.wait(left)
        return True

    def _run(self) -> None:
        from watchfiles._rust_notify import RustNotify

        try:
            notify = RustNotify([self.root], False, False, 300, True, True)
        except Exception as exc:  # a root deleted, too many watches (fs.inotify.max_user_watches)
            self.error = f"not watching: {type(exc).__name__}: {exc}"
            self._ready.set()
            return
        self.alive = True
        self._ready.set()
        try:
            with notify:
                while not self._stop.is_set():
                    raw = notify.watch(DEBOUNCE_MS, STEP_MS, TICK_MS, self._stop)
                    if raw == "stop":
                        break
                    if isinstance(raw, set) and any(self.relevant(p) for _, p in raw):
                        self.on_change()
                    with self._tick:
                        self.ticked = time.monotonic()
                        self._tick.notify_all()
        except Exception as exc:
            self.error = f"watcher stopped: {type(exc).__name__}: {exc}"
        finally:
            self.alive = False
            with self._tick:
                self._tick.notify_all()


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
