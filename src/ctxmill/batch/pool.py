"""The local engine: a pool of long-lived worker processes, one document each at a time.

Why not ``concurrent.futures``: a document that runs past its time limit must be stopped
without stopping the batch, and a worker that dies (out of memory, a native crash) must cost
only its document. Here each worker is a child process of its own (``ctxmill.batch.worker``);
the driver waits on their pipes with the nearest deadline as the timeout, kills an overdue
worker's process group, records ``timeout``, and starts a fresh worker for the next document.
The PDF sandbox inside each compile keeps its own memory/CPU/wall limits
(``CTXMILL_PDF_*``); this limit covers the whole compile of one document.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from ctxmill.batch.job import one_line


class _Worker:
    def __init__(self):
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.log = tempfile.TemporaryFile()  # its stderr, read back only when it dies
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctxmill.batch.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.log, env=env, start_new_session=True, text=True, encoding="utf-8", bufsize=1,
        )
        self.task: dict | None = None
        self.started = 0.0

    def send(self, task: dict) -> None:
        self.task, self.started = task, time.monotonic()
        self.proc.stdin.write(json.dumps(task, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()

    def last_error(self) -> str:
        self.log.seek(0)
        lines = [ln for ln in self.log.read().decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1] if lines else ""

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.log.close()

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # end of input: the worker's loop ends
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def _died(w: _Worker) -> str:
    rc = w.proc.wait()
    how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit code {rc}"
    last = w.last_error()
    return one_line(f"the worker compiling it died ({how})" + (f": {last}" if last else ""))


def run(tasks: Iterable[dict], jobs: int, timeout: float, on_record: Callable[[dict], None]) -> None:
    """Compile every task on ``jobs`` workers; call ``on_record(record)`` in this process as
    each document finishes (in finishing order)."""
    pending = deque(tasks)
    jobs = max(1, min(jobs, len(pending)))
    sel = selectors.DefaultSelector()
    idle: list[_Worker] = []
    busy: dict[int, _Worker] = {}

    def fresh() -> _Worker:
        return _Worker()

    try:
        idle = [fresh() for _ in range(jobs)]
        while pending or busy:
            while pending and idle:
                w = idle.pop()
                w.send(pending.popleft())
                busy[w.proc.stdout.fileno()] = w
                sel.register(w.proc.stdout, selectors.EVENT_READ, w)
            now = time.monotonic()
            wait = max(0.0, min(w.started + timeout for w in busy.values()) - now)
            for key, _ in sel.select(timeout=wait):
                w = key.data
                line = w.proc.stdout.readline()
                sel.unregister(w.proc.stdout)
                del busy[w.proc.stdout.fileno()]
                task, w.task = w.task, None
                if line:
                    rec = json.loads(line)
                    idle.append(w)
                else:  # the worker died mid-document: only this document fails
                    rec = _record(task, "failed", _died(w), time.monotonic() - w.started)
                    w.kill()
                    if pending:
                        idle.append(fresh())
                on_record(rec)
            now = time.monotonic()
            for fd, w in list(busy.items()):
                if now - w.started >= timeout:
                    sel.unregister(w.proc.stdout)
                    del busy[fd]
                    task = w.task
                    w.kill()
                    on_record(_record(task, "timeout", f"compile exceeded the {timeout:g} s time limit "
                                      "per document", now - w.started))
                    if pending:
                        idle.append(fresh())
    finally:
        for w in list(busy.values()) + idle:
            w.kill() if w.task is not None else w.close()
        sel.close()


def _record(task: dict, status: str, reason: str, seconds: float) -> dict:
    """A record the worker could not write itself (the driver adds the file's hash)."""
    return {"input": task["name"], "sha256": None, "status": status, "reason": reason, "pages": 0,
            "output": None, "seconds": round(seconds, 3), "_task": task}
