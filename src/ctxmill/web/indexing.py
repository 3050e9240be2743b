"""Index a folder from the page (the Search tab of a server started without ``--index``).

One indexing run at a time, on a thread of the server, through the same
:func:`ctxmill.index.sync_index` the ``ctxmill index`` command uses; its progress callback
(files prepared so far, of how many) is what the page polls. When the run ends the folder
becomes the server's search root. Only a server bound to the loopback interface offers this:
the folder is a path on the machine the server runs on.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


class Indexer:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root  # the folder search answers from (set at start, or by a finished run)
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {"state": "ready" if root else "none", "root": str(root) if root else None}

    def status(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._state)

    def start(self, folder: str) -> dict[str, Any]:
        """Begin indexing ``folder``; raises ValueError with a plain reason the page shows."""
        path = Path(os.path.expanduser(folder.strip())).resolve() if folder.strip() else None
        if path is None:
            raise ValueError("Type the path of a folder on this computer.")
        if not path.is_dir():
            raise ValueError(f"{path} is not a folder on this computer.")
        with self._lock:
            if self._state["state"] == "running":
                raise ValueError(f"Already indexing {self._state['root']}: wait for it to finish.")
            self._state = {"state": "running", "root": str(path), "done": 0, "total": None, "file": None,
                           "started": time.time()}
        threading.Thread(target=self._run, args=(path,), daemon=True, name="ctxmill-web-index").start()
        return self.status()

    def _progress(self, done: int, total: int, path: str) -> None:
        with self._lock:
            self._state.update(done=done, total=total, file=path)

    def _run(self, path: Path) -> None:
        from ctxmill.index import sync_index

        t0 = time.perf_counter()
        try:
            report = sync_index(path, progress=self._progress)
        except Exception as exc:  # noqa: BLE001 -- shown on the page in one line; the server keeps running
            with self._lock:
                self._state.update(state="failed", error=str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)
            return
        with self._lock:
            self.root = path
            self._state.update(state="done", seconds=round(time.perf_counter() - t0, 2),
                               files_scanned=report.files_scanned, files_changed=report.files_changed,
                               chunks_total=report.chunks_total)
