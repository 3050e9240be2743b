"""Process helpers shared by everything that forks workers (the PDF sandbox, the indexer)."""

from __future__ import annotations

import gc
import signal
import sys

# Allocations between collections of the youngest generation in a one-shot compile or merge:
# they allocate millions of short-lived objects and almost no cycles, and at the default (700)
# the cyclic collector took 10-40% of the CPU of 1 MB of raw OCR lines and ~20% of a 4.6 MB merge.
GC_THRESHOLD = 50_000


def collect_rarely() -> None:
    """Collect cyclic garbage rarely for the rest of this process (a compile, then exit)."""
    gc.set_threshold(GC_THRESHOLD, 20, 20)


def exit_now(code: int, *, run_atexit: bool) -> None:
    """End this process at once, without the interpreter's shutdown (tearing down every module
    and a last full collection of what a compile built: ~0.1 G instructions that change nothing
    on disk), once the standard streams are flushed; the atexit handlers first when asked.
    Returns, for the ordinary exit, when a thread is still working or a stream cannot be
    flushed (a closed pipe: the ordinary exit reports it)."""
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    if run_atexit:
        import atexit

        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies, so that a killed caller leaves
    no worker running on (holding files or locks). No-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
