"""The per-user background server: warm indexes, file watching, and the thin client the CLI uses.

``ctxmill search`` and ``ctxmill index`` pay an interpreter start, numpy and the index code on
every call when they work in-process. The server (``ctxmill server start``, or started on
demand by the first command that wants it, the way gopls or the Gradle daemon are) keeps each
index open, watches its root for saves and syncs them within about a second, and answers over
a Unix socket in the user's runtime folder (a folder of mode 0700 owned by the user; the
server also checks each caller's uid). The SQLite index stays the truth: a killed server
loses nothing, and the next command starts a new one.

This module is the client: it imports only the standard library, so the CLI's hot path stays
light. ``CTXMILL_SERVER=0`` turns the server off (every command works in-process, as before);
``CTXMILL_SERVER_IDLE`` is the idle time in seconds after which the server exits (default 3600).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

PROTOCOL = 1
START_WAIT_SECONDS = 5.0


class ServerUnavailable(Exception):
    """No server could be reached or started: the caller works in-process instead."""


class ServerError(Exception):
    """The server answered with an error (its message is the user's one-line reason)."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind  # "refused" (bad input, exit 3) or "error"


def enabled() -> bool:
    return os.environ.get("CTXMILL_SERVER", "1") not in ("0", "off", "no", "false") and hasattr(socket, "AF_UNIX")


def runtime_dir() -> Path:
    """This user's folder for the socket: $XDG_RUNTIME_DIR/ctxmill, else /tmp/ctxmill-<uid>;
    created with mode 0700 and refused when someone else owns it or others may enter it."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    d = Path(base) / "ctxmill" if base and os.path.isdir(base) else Path(f"/tmp/ctxmill-{os.getuid()}")
    try:
        d.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise ServerUnavailable(f"cannot create {d}: {exc}") from None
    st = d.lstat()
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or not d.is_dir() or d.is_symlink():
        raise ServerUnavailable(f"{d} is not a private folder of this user; not using the server")
    return d


def env_key() -> str:
    """Which server serves this caller: one per installation and configuration. The server
    resolves index locations and the embedder from its own environment, so a caller whose
    ``CTXMILL_*`` settings (or cache folder) differ gets a server of its own."""
    import hashlib

    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith("CTXMILL_") and k not in ("CTXMILL_SERVER", "CTXMILL_SERVER_IDLE", "CTXMILL_DEBUG"))
                 or k in ("XDG_CACHE_HOME", "HOME"))
    return hashlib.sha1(json.dumps([sys.executable, env]).encode()).hexdigest()[:10]


def socket_path() -> Path:
    return runtime_dir() / f"server-{env_key()}.sock"


def _connect(timeout: float) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(str(socket_path()))
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
    try:
        conn = _connect(timeout)
    except OSError:
        if not start:
            raise ServerUnavailable("no server running") from None
        conn = _start_and_connect(timeout)
    with conn:
        conn.sendall((json.dumps({"op": op, "protocol": PROTOCOL, **args}) + "\n").encode())
        buf = bytearray()
        while not buf.endswith(b"\n"):
            try:
                part = conn.recv(1 << 20)
            except TimeoutError:
                raise ServerUnavailable(f"the server did not answer {op!r} in {timeout:.0f} s") from None
            if not part:
                raise ServerUnavailable("the server closed the connection (it may have been stopped)")
            buf += part
    reply = json.loads(buf)
    if not reply.get("ok"):
        raise ServerError(reply.get("error") or "server error", reply.get("kind", "error"))
    return reply


def _start_and_connect(timeout: float) -> socket.socket:
    """Start a server (one at a time: the start lock) and wait for its socket."""
    import fcntl
    import subprocess

    d = runtime_dir()
    key = env_key()
    with open(d / f"start-{key}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _connect(timeout)  # another command started it while we waited
        except OSError:
            pass
        sock = socket_path()
        if sock.exists():
            sock.unlink()  # left by a killed server: nobody listens on it
        log = open(d / f"server-{key}.log", "ab")
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])  # works from a checkout without install too
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        subprocess.Popen([sys.executable, "-m", "ctxmill.server.daemon"], stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True, env=env, close_fds=True)
        log.close()
        deadline = time.monotonic() + START_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                return _connect(timeout)
            except OSError:
                time.sleep(0.02)
    raise ServerUnavailable(f"the server did not start within {START_WAIT_SECONDS:.0f} s "
                            f"(see {d / f'server-{key}.log'})")


def running() -> dict | None:
    """The server's status, or None when none is running (never starts one)."""
    try:
        return call("status", start=False, timeout=5)
    except (ServerUnavailable, ServerError):
        return None
