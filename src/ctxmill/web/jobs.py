"""Compile jobs for the web page: a small pool, one child process per job, a temp area.

Why a child process per job (and not a ProcessPoolExecutor): a hostile PDF that crashes or
exhausts its worker must not break the pool for the other jobs, and a job past its time
limit must be killable on its own. The child (``python -m ctxmill.web.worker``, one started
ahead as a warm spare and handed the job on stdin) reads ``job.json``, runs the same
``compile_document`` + ``write_outputs`` the CLI runs, and reports progress as JSON lines on
stdout; this module turns those lines into the job's event list, which the HTTP layer polls
or streams.

Lifetime of the temp area: every job lives in ``<root>/<job id>/`` (``input.pdf`` or
``input.txt`` under our own fixed names, ``out/`` with the outputs). A finished job is kept
for ``ttl`` seconds (default one hour) after it ends, and at most ``max_jobs`` jobs are kept
(the oldest finished ones go first); a sweep runs every minute (or a quarter of ``ttl``).
The whole root is removed when the server stops.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Stages in the order the pipeline reports them (renderers are reported as "write").
STAGE_ORDER = [
    "source", "blocks", "normalize", "structure", "metadata", "references", "figures",
    "markdown", "chunks", "citations", "conservation", "quality", "llm", "write",
]


@dataclass
class Job:
    id: str
    dir: Path
    kind: str  # "pdf" | "image" | "text"
    display_name: str  # shown to the user only, never used as a path
    options: dict[str, Any]
    status: str = "queued"  # queued | running | done | failed | cancelled
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None  # refused | failed | timeout | cancelled
    files: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    proc: subprocess.Popen | None = None

    @property
    def out_dir(self) -> Path:
        return self.dir / "out"

    @property
    def ended(self) -> bool:
        return self.status in ("done", "failed", "cancelled")

    def stages(self) -> list[dict[str, Any]]:
        """Per-stage state from the events: [{name, state, seconds?}] in pipeline order."""
        seen: dict[str, dict[str, Any]] = {}
        for ev in self.events:
            if ev.get("event") != "stage":
                continue
            st = seen.setdefault(ev["stage"], {"name": ev["stage"], "state": "start", "t0": ev["t"]})
            st["state"] = ev["state"]
            if ev["state"] == "done":
                st["seconds"] = round(ev["t"] - st["t0"], 4)
        out = []
        for st in seen.values():
            st = dict(st)
            st.pop("t0", None)
            out.append(st)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "kind": self.kind,
            "name": self.display_name,
            "options": self.options,
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "stages": self.stages(),
            "error": self.error,
            "error_kind": self.error_kind,
            "files": self.files,
            "summary": self.summary,
        }


# the job store's defaults, create_app's too (web/app.py hands them on): said once here; whole
# numbers, as the web app has always reported them (/api/config: "job_ttl_seconds": 3600)
WORKERS = 2
JOB_TTL_S = 3600
MAX_JOBS = 100
JOB_TIMEOUT_S = 600


class JobStore:
    """Holds jobs, runs them ``workers`` at a time, and cleans the temp area."""

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        workers: int = WORKERS,
        ttl: float = JOB_TTL_S,
        max_jobs: int = MAX_JOBS,
        job_timeout: float = JOB_TIMEOUT_S,
        memory_limit_mb: int = 4096,
        prestart: bool = True,
    ) -> None:
        self._own_root = root is None
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="ctxmill-web-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.workers = max(1, workers)
        self.ttl = ttl
        self.max_jobs = max_jobs
        self.job_timeout = job_timeout
        self.memory_limit_mb = memory_limit_mb
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ctxmill-job")
        self._closed = False
        # One warm spare worker (already imported, waiting on stdin) so that a job does not
        # pay for Python's start; it is still one fresh process per job.
        self.prestart = prestart
        self._spare: tuple[subprocess.Popen, Path] | None = None
        self._spare_lock = threading.Lock()
        if prestart:
            self._refill()
        # Expire finished jobs on time even when no new job comes in.
        self._stop = threading.Event()
        self._janitor = threading.Thread(target=self._sweep, name="ctxmill-job-janitor", daemon=True)
        self._janitor.start()
        # Also when the app is mounted inside another one whose lifespan never calls close().
        atexit.register(self.close)

    def _sweep(self) -> None:
        interval = max(1.0, min(60.0, self.ttl / 4))
        while not self._stop.wait(interval):
            self.cleanup()

    # ------------------------------------------------------------------ submit / query

    def submit(self, data: bytes, kind: str, options: dict[str, Any], *, display_name: str = "",
               api_key: str | None = None) -> Job:
        """Store the input under our own file name and queue the compile."""
        if self._closed:
            raise RuntimeError("job store is closed")
        self.cleanup()
        job_id = uuid.uuid4().hex
        job_dir = self.root / job_id
        job_dir.mkdir()
        input_name = {"pdf": "input.pdf", "image": "input.image"}.get(kind, "input.txt")
        (job_dir / input_name).write_bytes(data)
        job = Job(id=job_id, dir=job_dir, kind=kind, display_name=display_name, options=options)
        (job_dir / "job.json").write_text(json.dumps({
            "input": input_name,
            "kind": "pdf" if kind == "pdf" else None,  # text, image: the source tells which road
            "name": display_name or input_name,
            "options": options,
            "memory_limit_mb": self.memory_limit_mb,
            "cpu_limit_s": int(self.job_timeout) + 5,
        }))
        with self._lock:
            self._jobs[job_id] = job
        self._pool.submit(self._run, job, api_key)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def list(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.created, reverse=True)

    def file_path(self, job: Job, name: str) -> Path | None:
        """The path of one output, only for names the compile itself reported writing."""
        if name not in job.files:
            return None
        path = job.out_dir / name
        return path if path.is_file() else None

    def cancel(self, job_id: str) -> bool:
        """Stop a job (if running) and delete its files."""
        with self._lock:
            job = self._jobs.pop(job_id, None)
        if job is None:
            return False
        if not job.ended:
            job.status = "cancelled"
            job.error_kind = "cancelled"
            job.error = "cancelled"
            job.finished = time.time()
            self._kill(job)
        shutil.rmtree(job.dir, ignore_errors=True)
        return True

    # ------------------------------------------------------------------ running

    def _event(self, job: Job, ev: dict[str, Any]) -> None:
        ev.setdefault("t", time.time())
        job.events.append(ev)

    def _kill(self, job: Job) -> None:
        proc = job.proc
        if proc is not None and proc.poll() is None:
            # The PDF sandbox (and OCR) children run in sessions of their own, so killing the
            # worker's process group is not enough: find its descendants first.
            others = _descendants(proc.pid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
            for pid in others:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def _spawn(self) -> tuple[subprocess.Popen, Path]:
        log = self.root / f".worker-{uuid.uuid4().hex}.log"
        with open(log, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "ctxmill.web.worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                env={k: v for k, v in os.environ.items() if k != "CTXMILL_LLM_API_KEY"},
                start_new_session=True,  # its own process group: a kill takes its children too
            )
        return proc, log

    def _refill(self) -> None:
        with self._spare_lock:
            if self._spare is None and not self._closed:
                self._spare = self._spawn()

    def _take(self) -> tuple[subprocess.Popen, Path]:
        with self._spare_lock:
            spare, self._spare = self._spare, None
        if spare is not None and spare[0].poll() is None:
            return spare
        if spare is not None:
            spare[1].unlink(missing_ok=True)
        return self._spawn()

    def _start(self, job: Job, api_key: str | None) -> subprocess.Popen:
        """A worker process with the job handed to it on stdin."""
        for attempt in (1, 2):
            proc, log = self._take()
            if self.prestart:
                self._refill()
            os.replace(log, job.dir / "worker.log")
            try:
                assert proc.stdin is not None
                proc.stdin.write((json.dumps({"job_dir": str(job.dir), "api_key": api_key}) + "\n").encode())
                proc.stdin.close()
                return proc
            except (BrokenPipeError, OSError):  # the spare died while waiting: use a fresh one
                proc.kill()
                proc.wait()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _run(self, job: Job, api_key: str | None) -> None:
        if job.status == "cancelled" or self._closed:
            return
        job.status = "running"
        job.started = time.time()
        self._event(job, {"event": "status", "status": "running"})
        final: dict[str, Any] | None = None
        timed_out = threading.Event()
        try:
            job.proc = self._start(job, api_key)
            timer = threading.Timer(self.job_timeout, lambda: (timed_out.set(), self._kill(job)))
            timer.daemon = True
            timer.start()
            try:
                assert job.proc.stdout is not None
                for raw in job.proc.stdout:
                    try:
                        ev = json.loads(raw)
                    except ValueError:
                        continue
                    if ev.get("event") in ("stage", "pages"):  # pages: of a PDF read / OCRed so far
                        self._event(job, ev)
                    elif ev.get("event") in ("done", "error"):
                        final = ev
                rc = job.proc.wait()
            finally:
                timer.cancel()
        except Exception as exc:  # could not even start the worker
            rc, final = -1, {"event": "error", "kind": "failed", "message": f"could not start the compile: {exc}"}
        job.finished = time.time()
        if job.status == "cancelled":
            return
        if rc == 0 and final and final.get("event") == "done":
            job.files = list(final.get("files", []))
            job.summary = final.get("summary", {})
            job.status = "done"
        else:
            job.status = "failed"
            if timed_out.is_set():
                job.error_kind = "timeout"
                job.error = f"the compile took longer than {self.job_timeout:.0f} s and was stopped"
            elif final and final.get("event") == "error":
                job.error_kind = final.get("kind", "failed")
                job.error = final.get("message") or "the compile failed"
            elif rc is not None and rc < 0:
                job.error_kind = "failed"
                job.error = (f"the compile was stopped by signal {-rc} "
                             "(it probably ran out of memory or CPU time); the server is fine")
            else:
                job.error_kind = "failed"
                job.error = f"the compile failed unexpectedly (exit {rc}); see the server log"
                tail = _tail(job.dir / "worker.log")
                if tail:
                    job.error += f": {tail}"
        self._event(job, {"event": "status", "status": job.status, "error": job.error})

    # ------------------------------------------------------------------ lifetime

    def cleanup(self, now: float | None = None) -> int:
        """Drop finished jobs older than ``ttl`` and the oldest beyond ``max_jobs``."""
        now = now or time.time()
        with self._lock:
            ended = sorted((j for j in self._jobs.values() if j.ended), key=lambda j: j.finished or 0)
            drop = [j for j in ended if now - (j.finished or now) > self.ttl]
            excess = len(self._jobs) - len(drop) - self.max_jobs + 1  # +1: room for the next one
            keep = [j for j in ended if j not in drop]
            drop.extend(keep[: max(0, excess)])
            for j in drop:
                self._jobs.pop(j.id, None)
        for j in drop:
            shutil.rmtree(j.dir, ignore_errors=True)
        return len(drop)

    def close(self) -> None:
        """Stop every running job and remove the temp area (when we created it)."""
        self._stop.set()
        with self._spare_lock:
            if self._closed:
                return
            self._closed = True
            spare, self._spare = self._spare, None
        if spare is not None:
            spare[0].kill()
            spare[0].wait()
            spare[1].unlink(missing_ok=True)
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            if not job.ended:
                job.status = "cancelled"
                job.error_kind = "cancelled"
                job.error = "the server stopped"
                self._kill(job)
        self._pool.shutdown(wait=True, cancel_futures=True)
        atexit.unregister(self.close)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)
        else:
            for job in jobs:
                shutil.rmtree(job.dir, ignore_errors=True)


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _tail(path: Path, limit: int = 300) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:limit] if lines else ""
