"""The Ray engine: the same batch as Ray tasks, on a local Ray or a cluster you already run.

Every document is one task running :func:`ctxmill.batch.job.compile_one` (what a pool worker
runs), so outputs and manifest records are the same as with the local engine. Workers read
the inputs and write OUT themselves, so on a cluster both must be on a path every node sees
(NFS, a shared volume) and ctxmill must be installed on the nodes. The driver keeps as many
tasks in flight as the cluster has CPUs (a million inputs never become a million pending
objects), writes the manifest as results arrive, and:

- retries a task whose worker process died (``max_retries``; Ray re-runs it elsewhere);
- cancels a task past the per-document time limit (force: its worker is killed) -> timeout;
- asks ``num_cpus`` per task (``CTXMILL_RAY_NUM_CPUS``, default 1).
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable

from ctxmill.batch.job import compile_one, one_line
from ctxmill.errors import UsageError

RETRIES = 3  # re-runs of a task whose worker died before the document is called failed


def _remote_compile(t: dict) -> dict:
    return compile_one(t)


def _connect(address: str | None, jobs: int):
    try:
        import ray
    except ImportError:
        raise UsageError("--engine ray needs Ray: pip install 'ctxmill[ray]'") from None
    if ray.is_initialized():
        return ray, False
    kwargs = {"logging_level": logging.WARNING, "log_to_driver": False}
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:  # a local Ray, started and stopped here, with the cores --jobs asks for ("local":
            # never a cluster a `ray start` left behind on this machine)
            ray.init(address="local", num_cpus=jobs, include_dashboard=False, **kwargs)
    except (ValueError, ConnectionError, RuntimeError) as exc:
        raise UsageError(one_line(f"cannot start or reach Ray at {address or 'a local instance'}: {exc}")) from None
    return ray, True


def run(tasks: list[dict], jobs: int, timeout: float, on_record: Callable[[dict], None],
        address: str | None = None, num_cpus: float | None = None) -> None:
    ray, started = _connect(address, jobs)
    try:
        num_cpus = num_cpus or float(os.environ.get("CTXMILL_RAY_NUM_CPUS", "1"))
        remote = ray.remote(num_cpus=num_cpus, max_retries=RETRIES, retry_exceptions=False)(_remote_compile)
        slots = max(1, int(ray.cluster_resources().get("CPU", jobs) // num_cpus))
        pending = deque(tasks)
        flying: dict = {}  # ObjectRef -> (task, submitted)
        while pending or flying:
            while pending and len(flying) < slots:
                t = pending.popleft()
                flying[remote.remote(t)] = (t, time.monotonic())
            wait = max(0.05, min(s + timeout for _, s in flying.values()) - time.monotonic())
            ready, _ = ray.wait(list(flying), num_returns=1, timeout=min(wait, 5.0))
            for ref in ready:
                t, s = flying.pop(ref)
                try:
                    rec = ray.get(ref)
                except Exception as exc:  # the worker died RETRIES + 1 times, or Ray failed
                    rec = _failed(t, "failed", one_line(f"Ray task failed: {type(exc).__name__}: {exc}"), s)
                on_record(rec)
            now = time.monotonic()
            for ref, (t, s) in list(flying.items()):
                if now - s >= timeout:
                    ray.cancel(ref, force=True)
                    del flying[ref]
                    on_record(_failed(t, "timeout", f"compile exceeded the {timeout:g} s time limit per "
                                      "document", s))
    finally:
        if started:
            ray.shutdown()


def _failed(t: dict, status: str, reason: str, submitted: float) -> dict:
    return {"input": t["name"], "sha256": None, "status": status, "reason": reason, "pages": 0,
            "output": None, "seconds": round(time.monotonic() - submitted, 3), "_task": t}
