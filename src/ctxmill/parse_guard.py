"""Grammar work in a child process: a crash in a grammar's C code costs one file, not the process.

tree-sitter grammars are C (and C++ external scanners) run inside our process: a segfault there
(tree-sitter-ruby 0.23.1 on generated syntax soup, issue 26 case 968) cannot be caught by
``except``, it ends ``ctxmill index`` or ``apply`` on the spot. So the parse and everything that
reads the tree (chunking, the syntax check) runs in one long-lived child, forked from this
process on first use (it has every module and grammar already loaded: nothing to start), and
sends back only plain results (chunks, a line number). When the child dies, the call raises
:class:`GrammarCrashed`, the caller reads that one input another way, and the next call forks a
fresh child.

Why one persistent child rather than a fork per parse: a fork of a process with the grammars and
numpy loaded and its first answer take ~5-8 ms, more than chunking a typical source file; a
message through a pipe and back ~0.05-0.08 ms. The child ends when this process does (it sees its request pipe close).
"""

from __future__ import annotations

import gc
import os
import pickle
import select
import signal
import struct
import threading
import time

# A child that answers nothing for this long is stopped (an endless loop in a scanner): the
# parse itself is bounded in work (grammars.parse_bounded), so a real answer takes far less.
ANSWER_SECONDS = 120.0
# CTXMILL_PARSE_GUARD=0 runs grammar work in process, as before this module (a debugger, or
# a platform without fork); =all sends every parse to the child, small files too.
_MODE = os.environ.get("CTXMILL_PARSE_GUARD", "1")
ENABLED = _MODE != "0" and hasattr(os, "fork")
EVERY_PARSE = _MODE == "all"

# Grammars seen crashing (a signal inside their own parse), every file of theirs goes to the
# child: tree-sitter-ruby 0.23.1 (SIGSEGV on syntax soup, issue 26 case 968, seed 1412).
CRASH_PRONE = frozenset({"ruby"})
# Files of other grammars go to the child from this size on. A message to the child and back
# costs ~0.05-0.08 ms plus ~15 us a KB (pickling the text both ways), against ~0.5 ms to chunk
# a KB: a few percent on large files, but 5-15% on the small files most trees are made of, so
# those (the size parse_bounded parses unbounded) stay in process; hostile input (syntax
# soup, generated files) is large. Measured on the 11 trees of ../shared/search: guarding every
# file cost +17% chunking CPU; see docs/limits.md.
GUARD_BYTES = 8192


def needed(language: str | None, size: int) -> bool:
    """Does a parse of ``size`` bytes in ``language`` go to the child? The one rule for grammar
    work that sends back plain results (the index's chunking, apply's syntax check, with
    ``size`` the larger of the two texts it compares): a grammar seen crashing, or an input
    over ``GUARD_BYTES`` (hostile input is large), goes to the child; the rest is parsed in
    process, bounded in work by grammars.parse_bounded. Work that reads the tree in this
    process (next edits) follows :func:`needed_for_tree` instead."""
    return ENABLED and (EVERY_PARSE or size > GUARD_BYTES or language in CRASH_PRONE)


def needed_for_tree(language: str | None) -> bool:
    """Does a parse whose tree is read in this process (next edits) go to the child first?
    Such a parse is done twice (the child's only says it survives), and a next-edit command
    is short, so the fork and the second parse of every large file cost it 13-14% of its
    latency (p50 111.6 vs 97.8 ms at load 3): only the grammars seen crashing pay it."""
    return ENABLED and (EVERY_PARSE or language in CRASH_PRONE)


_HEAD = struct.Struct("<Q")


class GrammarCrashed(Exception):
    """The child died (a signal, or no answer) while working on one input."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int, deadline: float | None = None) -> bytes | None:
    """n bytes from fd, or None at end of file; TimeoutError past ``deadline`` (time.monotonic)."""
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _send(fd: int, obj) -> None:
    body = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    _write_all(fd, _HEAD.pack(len(body)) + body)


def _serve(req: int, ans: int) -> None:
    """The child's loop: (function, args) in, ("ok", result) or ("err", exception) out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent; we end on EOF
    while True:
        head = _read_exact(req, _HEAD.size)
        if head is None:
            return
        body = _read_exact(req, _HEAD.unpack(head)[0])
        if body is None:
            return
        try:
            func, args = pickle.loads(body)
            out = ("ok", func(*args))
        except Exception as exc:  # our own bug on this input: the caller's exception handling sees it
            out = ("err", exc)
        try:
            _send(ans, out)
        except (pickle.PicklingError, TypeError, AttributeError):
            _send(ans, ("err", RuntimeError(f"{type(out[1]).__name__}: {out[1]}")))


class _Child:
    def __init__(self) -> None:
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: only its two pipe ends stay open (no index lock, no database)
            # The objects inherited from the parent are never collected here: a collection
            # would write to every page holding one (their headers), copying the parent's
            # whole heap page by page.
            gc.freeze()
            code = 0
            try:
                keep = sorted((req_r, ans_w))
                os.closerange(3, keep[0])
                os.closerange(keep[0] + 1, keep[1])
                os.closerange(keep[1] + 1, _max_fd())
                _serve(req_r, ans_w)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(ans_w)
        self.pid, self.req, self.ans = pid, req_w, ans_r
        self.owner = os.getpid()
        self.dead = False

    def call(self, func, args: tuple):
        try:
            try:
                _send(self.req, (func, args))
            except BrokenPipeError:
                return self._died()
            try:
                head = _read_exact(self.ans, _HEAD.size, time.monotonic() + ANSWER_SECONDS)
            except TimeoutError:
                return self._died(hung=True)
            body = _read_exact(self.ans, _HEAD.unpack(head)[0]) if head is not None else None
            if body is None:
                return self._died()
        except GrammarCrashed:
            raise
        except BaseException:  # interrupted mid-message (Ctrl-C): the pipe is out of step, end it
            self.close(kill=True)
            self.dead = True
            raise
        status, value = pickle.loads(body)
        if status == "err":
            raise value
        return value

    def _died(self, hung: bool = False):
        """The child is gone (or ``hung``): reap it and say how it ended."""
        self.close(kill=True)
        self.dead = True
        if hung:
            raise GrammarCrashed(f"the grammar did not answer in {ANSWER_SECONDS:.0f} s")
        raise GrammarCrashed(self.how)

    def close(self, kill: bool = False) -> None:
        self.how = "the parser process ended"
        for fd in (self.req, self.ans):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)  # (a no-op for a child already dead)
            except ProcessLookupError:
                pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            self.how = f"the grammar crashed ({name})"
        else:
            self.how = f"the parser process exited ({os.WEXITSTATUS(status)})"


def _max_fd() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 65536


_child: _Child | None = None
_lock = threading.Lock()


def call(func, *args):
    """``func(*args)`` in the grammar child; raises :class:`GrammarCrashed` when the child dies
    on it. ``func`` must be a module-level function and its result picklable. In process when
    the guard is off or this platform cannot fork."""
    global _child
    if not ENABLED:
        return func(*args)
    with _lock:  # one request at a time on the one pipe (threads of a server)
        if _child is None or _child.dead or _child.owner != os.getpid():
            try:
                _child = _Child()
            except OSError:  # no fork here (process limit): unguarded, as before
                return func(*args)
        try:
            return _child.call(func, args)
        except GrammarCrashed:
            _child = None
            raise


def stop() -> None:
    """End the child now (the next call forks a fresh one): a test that changed the code the
    child runs, or a server that wants no idle process."""
    global _child
    with _lock:
        if _child is not None and _child.owner == os.getpid():
            _child.close()
        _child = None


def _forget_in_child() -> None:
    """After a fork (a parse pool's worker, the PDF sandbox), the parent's child is not ours:
    close our copies of its pipes so that it still sees EOF when the parent goes."""
    global _child, _lock
    _lock = threading.Lock()
    if _child is not None:
        for fd in (_child.req, _child.ans):
            try:
                os.close(fd)
            except OSError:
                pass
        _child = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
