"""Run one function in a forked child beside this process, its result sent back pickled.

The compile is one Python process, and where a large input's work splits into independent
parts (a long bibliography's entries, its export files) the machine's second core can take
one of them (issue 26). A fork inherits everything already imported and loaded (the labeller's
model, the compiled document), so the child starts at once and imports nothing.

Off unless asked for (``CTXMILL_BESIDE=1``): measured on the 2-CPU development machine (a
sandboxed kernel), a fork made the compile of the 1 MB reference list slower, not faster, at
every load tried (4-8, median of 5): after a fork each page of the heap that either process writes is copied,
and there a copy costs ~20 us a page (a pass over 300 MB of objects: 0.16 s before the fork,
1.6 s after it, in the parent as in the child), which is more than the half of the labeller a
child takes off (docs/limits.md, round ten). Where copy-on-write is cheap (~1-2 us a page on an
ordinary Linux kernel) and a CPU is idle, it can pay; ``CTXMILL_BESIDE=1`` is there to measure it.

Even when asked for, a fork is only made where it is safe: on a system with ``os.fork``, at
least two CPUs for this process, and no other thread running (a fork copies only the calling
thread, and a lock another thread held would stay held in the child). Otherwise :func:`start`
returns None and the caller does the work itself; it does the same when
:meth:`Beside.result` says the child failed, so a result never depends on whether a child ran.
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


def can_fork() -> bool:
    if os.environ.get("CTXMILL_BESIDE") != "1" or not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    return _cpus() >= 2


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
