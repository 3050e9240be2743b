"""Run one function in a forked child beside this process, its result sent back pickled.

The compile is one Python process, and where a large input's work splits into independent
parts (a long bibliography's entries, its export files) the machine's second core can take
one of them (issue 26). A fork inherits everything already imported and loaded (the labeller's
model, the compiled document), so the child starts at once and imports nothing.

A fork is only made where it is safe and can help: on a system with ``os.fork``, at least
two CPUs for this process, one of them idle (:func:`idle_cpu`), and no other thread running (a
fork copies only the calling thread, and a lock another thread held would stay held in the
child). Otherwise :func:`start` returns None and the caller does the work itself; it does the
same when :meth:`Beside.result` says the child failed, so a result never depends on whether a
child ran. ``CTXMILL_BESIDE=0`` turns the children off, ``CTXMILL_BESIDE=1`` starts them
whatever the load.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable

_FAILED = object()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def idle_cpu() -> bool:
    """Whether a CPU is free for a child: the last minute's load average is under the CPUs
    less one half (this process's own work counts one). On a busy machine (a batch of
    compiles, other jobs) a child only competes with them and its fork costs more than it
    gives (measured on a 2-CPU machine at load 7: the 1 MB reference list 8.6 -> 10.0 s)."""
    try:
        return os.getloadavg()[0] < _cpus() - 0.5
    except (AttributeError, OSError):
        return True


def can_fork() -> bool:
    """``CTXMILL_BESIDE``: ``0`` never, ``1`` whenever it is safe (whatever the load), unset:
    when it is safe and a CPU is idle."""
    asked = os.environ.get("CTXMILL_BESIDE")
    if not hasattr(os, "fork") or threading.active_count() > 1 or asked == "0":
        return False
    return _cpus() >= 2 and (asked == "1" or idle_cpu())


class Beside:
    """A started child: :meth:`result` waits for it."""

    def __init__(self, pid: int, fd: int):
        self.pid, self.fd = pid, fd

    def result(self):
        """The child's return value, or ``FAILED`` (it raised, was killed, or sent no whole reply)."""
        try:
            with os.fdopen(self.fd, "rb") as fh:
                data = fh.read()
        finally:
            try:
                _, status = os.waitpid(self.pid, 0)
            except ChildProcessError:  # reaped already (SIGCHLD ignored): the reply tells
                status = 0
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return FAILED
        try:
            return pickle.loads(data)
        except Exception:  # a reply cut short
            return FAILED


FAILED = _FAILED


def start(fn: Callable, *args) -> Beside | None:
    """Fork a child that runs ``fn(*args)`` and sends its result back; None where no child
    was started (see the module's notes)."""
    if not can_fork():
        return None
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid:
        os.close(w)
        return Beside(pid, r)
    # the child: work, send, and leave at once (no atexit handlers, no buffered output of the
    # parent written twice, no interpreter teardown)
    code = 1
    try:
        os.close(r)
        from ctxmill.procs import die_with_parent

        die_with_parent()  # a killed compile leaves no child working on
        data = pickle.dumps(fn(*args), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(w, "wb") as fh:
            fh.write(data)
        code = 0
    finally:
        os._exit(code)
