"""Searches the server can give up on: a small pool of threads, and a job that can be stopped.

A search used to run on the server's one search thread until it finished, whoever was still
waiting for it: a slow search (a hostile query shape, a ranker bug) kept every search behind
it waiting - 88.8 s for ``good_function`` behind fuzz seed 1414's case 387 - and went on using
the CPU after its client had given up (Ctrl-C, the client's own timeout).

Now each search is a :class:`Job` run by a :class:`Pool` of up to ``threads`` threads (one in
the ordinary case, so the index's reader connection stays warm on it; another only when a
search arrives while every thread is busy). The request's handler waits for the job and
meanwhile watches its client and its deadline (:func:`wait`); when the client has gone or the
time is up, it stops the job:

- a job still queued never starts;
- a running one gets :class:`Abandoned` raised in its thread
  (``PyThreadState_SetAsyncExc``, the C API's way to stop a Python thread from another: the
  exception arrives at the thread's next bytecode, so a loop in Python code - the ranker -
  stops within microseconds), and the thread's SQLite statements are interrupted
  (``sqlite3.Connection.interrupt``, meant to be called from another thread).

A call into C that never returns to Python (a regular expression that backtracks without end)
is not stopped by either: its thread stays busy, which is why the pool may grow, and it holds
the GIL, which no thread can take from it (docs/limits.md). :class:`Abandoned` derives from
BaseException, so no ``except Exception`` on the way swallows it; caches a search fills are
written a whole entry at a time, so one stopped half way leaves nothing half-made.
"""

from __future__ import annotations

import ctypes
import queue
import select
import socket
import threading
import time

POLL_SECONDS = 0.05  # how often a waiting handler looks at its client and its deadline


class Abandoned(BaseException):
    """Raised in a search's thread when its client has gone or its time is up."""


# PyThreadState_SetAsyncExc(thread id, exception or NULL): two prototypes of the one function,
# so that clearing passes NULL (a py_object argument would pass None, which it would raise)
_SET = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(("PyThreadState_SetAsyncExc",
                                                                          ctypes.pythonapi))
_CLEAR = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(("PyThreadState_SetAsyncExc",
                                                                           ctypes.pythonapi))


def _raise_in(tid: int) -> None:
    _SET(tid, Abandoned)


def _clear_own() -> None:
    """Drop an :class:`Abandoned` sent to this thread that has not arrived yet."""
    _CLEAR(threading.get_ident(), None)


class Job:
    """One piece of work for the pool: ``fn()``'s value or exception, or why it was stopped."""

    __slots__ = ("fn", "lock", "done", "tid", "stopped", "finished", "abandoned", "value", "error", "on_stop")

    def __init__(self, fn, on_stop=None):
        self.fn = fn
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.tid: int | None = None  # the thread running it, while it runs
        self.stopped: str | None = None  # why it was stopped ("client gone", "time limit")
        self.finished = False
        self.abandoned = False  # it ended by Abandoned (never started, or stopped while running)
        self.value = None
        self.error: BaseException | None = None
        self.on_stop = on_stop  # called with the thread id when a running job is stopped (SQLite interrupt)

    def stop(self, why: str) -> bool:
        """Stop the job (queued: it never starts; running: Abandoned in its thread). True when
        it had not finished."""
        with self.lock:  # (held until done: the job cannot finish and its thread take the next one meanwhile)
            if self.finished or self.stopped:
                return not self.finished
            self.stopped = why
            tid = self.tid
            if tid is not None:
                _raise_in(tid)
                if self.on_stop is not None:
                    try:
                        self.on_stop(tid)
                    except Exception:  # noqa: BLE001 - the exception above stops it anyway
                        pass
        return True

    def run(self) -> None:
        """Run ``fn`` on this thread. Nothing raised in it, Abandoned included, leaves this call."""
        try:
            try:
                with self.lock:
                    if self.stopped:
                        raise Abandoned
                    self.tid = threading.get_ident()
                self.value = self.fn()
            except Abandoned:
                self.abandoned = True
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting handler
                self.error = exc
        except Abandoned:  # arrived while the handlers above ran
            self.abandoned = True
        finally:
            self._settle()
            self.done.set()

    def _settle(self) -> None:
        # Once ``finished`` is set under the lock no Abandoned can be sent; one sent before may
        # still be on its way: cleared here, or caught if it arrives first.
        while True:
            try:
                with self.lock:
                    self.finished = True
                    self.tid = None
                _clear_own()
                return
            except Abandoned:
                continue

    def result(self):
        if self.error is not None:
            raise self.error
        return self.value


class Pool:
    """Up to ``threads`` daemon threads taking jobs in order; a thread starts only when a job
    arrives while every thread is busy (so one search at a time stays on one warm thread)."""

    def __init__(self, threads: int, name: str = "ctxmill-search"):
        self.max = max(1, threads)
        self.name = name
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        self.idle = 0

    def submit(self, fn, on_stop=None) -> Job:
        job = Job(fn, on_stop)
        with self.lock:
            if self.idle <= 0 and len(self.threads) < self.max:
                t = threading.Thread(target=self._work, daemon=True, name=f"{self.name}-{len(self.threads)}")
                self.threads.append(t)
                self.idle += 1
                t.start()
            self.idle -= 1  # (a thread that is idle now takes it)
        self.jobs.put(job)
        return job

    def _work(self) -> None:
        while True:
            job = self.jobs.get()
            job.run()
            with self.lock:
                self.idle += 1


def client_gone(conn: socket.socket) -> bool:
    """Whether the peer of ``conn`` has closed its end (it sends nothing after its request: any
    readable state is its end of the stream, or an error)."""
    try:
        p = select.poll()
        p.register(conn, select.POLLIN | getattr(select, "POLLRDHUP", 0))
        events = p.poll(0)
    except (OSError, ValueError):
        return True
    if not events:
        return False
    ev = events[0][1]
    if ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL | getattr(select, "POLLRDHUP", 0)):
        return True
    try:
        return conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def wait(job: Job, conn: socket.socket | None, deadline: float) -> str | None:
    """Wait for ``job``; None when it finished, else why it was stopped ("client gone" or
    "time limit"). Costs a finished search nothing: the wait ends the moment the job does."""
    while not job.done.wait(POLL_SECONDS):
        why = None
        if conn is not None and client_gone(conn):
            why = "client gone"
        elif time.monotonic() >= deadline:
            why = "time limit"
        if why is not None and job.stop(why):
            return why
    return job.stopped if job.abandoned else None
