"""The per-user background server: warm indexes, file watching, and the thin client the CLI uses.

``ctxmill search`` and ``ctxmill index`` pay an interpreter start, numpy and the index code on
every call when they work in-process. The server (``ctxmill server start``, or started on
demand by the first command that wants it, the way gopls or the Gradle daemon are) keeps each
index open, watches its root for saves and syncs them within about a second, and answers over
a Unix socket in the user's runtime folder (a folder of mode 0700 owned by the user; the
server also checks each caller's uid). The SQLite index stays the truth: a killed server
loses nothing, and the next command starts a new one.

This module is the client, and it is on the hot path of every warm ``ctxmill search``: at
module level it imports only what the interpreter has loaded at start anyway plus the C
modules ``_socket`` and ``marshal``. ``json``, ``socket``, ``pathlib`` and ``hashlib`` each
cost 10-30 ms of imports on a loaded machine (``re``, ``enum``, OpenSSL), as much as the
search itself, so requests and replies are marshal frames: a 4-byte length, then
``marshal.dumps`` of a dict of plain values. marshal is safe here because only this user's
processes can reach the socket (private folder, and the server checks the peer's uid before
reading a byte) and client and server run the same interpreter (``env_key``).

``CTXMILL_SERVER=0`` turns the server off (every command works in-process, as before);
``CTXMILL_SERVER_IDLE`` is the idle time in seconds after which the server exits (default 3600).
"""

from __future__ import annotations

import marshal
import os
import sys
import time

try:
    import _socket as _sock  # the C module alone: ``socket`` adds enum and selectors (~20 ms)
except ImportError:  # pragma: no cover - not CPython
    import socket as _sock

PROTOCOL = 2
START_WAIT_SECONDS = 5.0
MAX_FRAME_BYTES = 256 << 20  # a reply of 1000 long hits is a few MB; anything larger is not ours


class ServerUnavailable(Exception):
    """No server could be reached or started: the caller works in-process instead."""


class ServerError(Exception):
    """The server answered with an error (its message is the user's one-line reason)."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind  # "refused" (bad input, exit 3) or "error"


def enabled() -> bool:
    return os.environ.get("CTXMILL_SERVER", "1") not in ("0", "off", "no", "false") and hasattr(_sock, "AF_UNIX")


def _runtime_dir() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR")
    d = os.path.join(base, "ctxmill") if base and os.path.isdir(base) else f"/tmp/ctxmill-{os.getuid()}"
    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ServerUnavailable(f"cannot create {d}: {exc}") from None
    st = os.lstat(d)
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or (st.st_mode & 0o170000) != 0o040000:
        raise ServerUnavailable(f"{d} is not a private folder of this user; not using the server")
    return d


def runtime_dir():
    """This user's folder for the socket: $XDG_RUNTIME_DIR/ctxmill, else /tmp/ctxmill-<uid>;
    created with mode 0700 and refused when someone else owns it, others may enter it, or it
    is not a folder (a symlink planted by someone else)."""
    from pathlib import Path

    return Path(_runtime_dir())


def env_key() -> str:
    """Which server serves this caller: one per installation and configuration. The server
    resolves index locations and the embedder from its own environment, so a caller whose
    ``CTXMILL_*`` settings (or cache folder) differ gets a server of its own; the interpreter
    is part of the key, so client and server always agree on the marshal format."""
    try:
        from _sha1 import sha1  # built in; hashlib loads OpenSSL (~10 ms)
    except ImportError:  # pragma: no cover
        from hashlib import sha1
    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith("CTXMILL_") and k not in ("CTXMILL_SERVER", "CTXMILL_SERVER_IDLE", "CTXMILL_DEBUG"))
                 or k in ("XDG_CACHE_HOME", "HOME"))
    raw = repr((sys.executable, sys.version, env)).encode("utf-8", "surrogateescape")
    return sha1(raw).hexdigest()[:12]


def _socket_path() -> str:
    return os.path.join(_runtime_dir(), f"server-{env_key()}.sock")


def socket_path():
    from pathlib import Path

    return Path(_socket_path())


def send_frame(conn, obj) -> None:
    data = marshal.dumps(obj)
    conn.sendall(len(data).to_bytes(4, "big") + data)


def recv_frame(conn, limit: int = MAX_FRAME_BYTES):
    """One frame from ``conn``; None when the peer closed before sending one."""
    head = _recv_exact(conn, 4)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    if size > limit:
        raise ValueError(f"frame of {size} bytes is over the limit")
    body = _recv_exact(conn, size)
    if body is None:
        raise EOFError("connection closed mid-frame")
    return marshal.loads(body)


def _recv_exact(conn, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        part = conn.recv(min(n - len(buf), 1 << 20))
        if not part:
            if not buf:
                return None
            raise EOFError("connection closed mid-frame")
        buf += part
    return bytes(buf)


def _connect(path: str, timeout: float):
    s = _sock.socket(_sock.AF_UNIX, _sock.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
    except OSError:
        s.close()
        raise
    return s


def call(op: str, *, start: bool = True, timeout: float = 600.0, **args) -> dict:
    """Send one request; start the server first when none answers and ``start`` is set.

    Raises ServerUnavailable when there is no server to talk to, ServerError for its answers.
    """
    if not enabled():
        raise ServerUnavailable("CTXMILL_SERVER=0")
    path = _socket_path()
    for attempt in (1, 2):
        try:
            conn = _connect(path, timeout)
        except OSError:
            if not start:
                raise ServerUnavailable("no server running") from None
            conn = _start_and_connect(path, timeout)
        why = "it may have been stopped"
        try:
            try:
                send_frame(conn, {"op": op, "protocol": PROTOCOL, **args})
            except (BrokenPipeError, ConnectionResetError):
                pass  # it answered without reading (a refusal) and closed: its answer may still be there
            reply = recv_frame(conn)
        except TimeoutError:
            raise ServerUnavailable(f"the server did not answer {op!r} in {timeout:.0f} s") from None
        except (OSError, EOFError, ValueError) as exc:
            reply, why = None, str(exc)
        finally:
            conn.close()
        if isinstance(reply, dict):
            break
        if not start or attempt == 2:
            raise ServerUnavailable(f"the server closed the connection ({why})")
        # a server winding down (stopped, idle) took the connection and closed it unanswered:
        # once more, which starts a new server if its socket is gone
    if not reply.get("ok"):
        raise ServerError(reply.get("error") or "server error", reply.get("kind", "error"))
    return reply


def _start_and_connect(path: str, timeout: float):
    """Start a server (one at a time: the start lock) and wait for its socket."""
    import fcntl
    import subprocess

    d = os.path.dirname(path)
    key = env_key()
    with open(os.path.join(d, f"start-{key}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _connect(path, timeout)  # another command started it while we waited
        except OSError:
            pass
        if os.path.lexists(path):
            os.unlink(path)  # left by a killed server: nobody listens on it
        log_path = os.path.join(d, f"server-{key}.log")
        log = open(log_path, "ab")
        env = dict(os.environ)
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        subprocess.Popen([sys.executable, "-m", "ctxmill.server.daemon"], stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True, env=env, close_fds=True)
        log.close()
        deadline = time.monotonic() + START_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                return _connect(path, timeout)
            except OSError:
                time.sleep(0.005)  # a connect attempt costs microseconds; the wait is the user's
    raise ServerUnavailable(f"the server did not start within {START_WAIT_SECONDS:.0f} s (see {log_path})")


def running() -> dict | None:
    """The server's status, or None when none is running (never starts one)."""
    try:
        return call("status", start=False, timeout=5)
    except (ServerUnavailable, ServerError):
        return None
