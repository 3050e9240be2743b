"""The background server process: ``python -m ctxmill.server.daemon`` (the client starts it).

One server per user, listening on ``ctxmill.server.socket_path()``. Requests are one JSON line
each way (``{"op": "search" | "sync" | "status" | "stop", ...}``). Each root that was synced or
searched through the server is watched (watchfiles, inotify on Linux); a batch of changes marks
the root dirty and a sync runs at once in the background, so a search a moment after a save
sees the saved content (a search on a dirty root waits for that sync, or runs it). Searches run
on one thread, so the index readers, their vectors and the embedder stay warm between calls.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from ctxmill.server import PROTOCOL, runtime_dir, socket_path

IDLE_SECONDS = float(os.environ.get("CTXMILL_SERVER_IDLE", "3600"))
MAX_REQUEST_BYTES = 1 << 20


class RootState:
    """One watched index: its root, database, whether changes wait for a sync."""

    def __init__(self, root: str, db: str | None):
        self.root = root
        self.db = db
        self.lock = threading.Lock()  # one sync of this index at a time in this server
        self.generation = 0  # bumped by every batch of file changes
        self.synced_generation = -1  # the generation the last finished sync started from
        self.last_sync: float | None = None
        self.last_report: dict | None = None
        self.error: str | None = None
        self.stop = threading.Event()
        self.watcher: threading.Thread | None = None

    @property
    def dirty(self) -> bool:
        return self.synced_generation != self.generation


class Server:
    def __init__(self) -> None:
        self.started = time.time()
        self.last_request = time.monotonic()
        self.states: dict[tuple[str, str | None], RootState] = {}
        self.states_lock = threading.Lock()
        self.search_pool = ThreadPoolExecutor(1, thread_name_prefix="ctxmill-search")
        self.sync_pool = ThreadPoolExecutor(2, thread_name_prefix="ctxmill-sync")
        self.busy = 0
        self.busy_lock = threading.Lock()
        self.unix: socketserver.UnixStreamServer | None = None

    # ------------------------------------------------------------------ requests

    def handle(self, req: dict) -> dict:
        op = req.get("op")
        if req.get("protocol") != PROTOCOL:
            return {"ok": False, "error": f"client protocol {req.get('protocol')} is not the server's {PROTOCOL}"}
        if op == "status":
            return {"ok": True, **self.status()}
        if op == "stop":
            threading.Thread(target=self.shutdown, daemon=True).start()
            return {"ok": True, "stopping": True}
        if op == "sync":
            st = self.state(req["root"], req.get("db"))
            report = self.sync(st, max_file_bytes=req.get("max_file_bytes"), force=True)
            return {"ok": True, "report": report, "watching": st.watcher is not None}
        if op == "search":
            st = self.state(req["root"], req.get("db"))
            if st.dirty and st.last_sync is not None:
                self.sync(st)  # a save the watcher saw: search what is on disk now
            hits = self.search_pool.submit(self._search, st, req).result()
            return {"ok": True, "hits": hits, "fresh": not st.dirty, "watching": st.watcher is not None}
        return {"ok": False, "error": f"unknown op {op!r}"}

    def _search(self, st: RootState, req: dict) -> list[dict]:
        from ctxmill import index

        hits = index.search(req["query"], st.root, db_path=st.db, path_prefix=req.get("path"), k=int(req.get("k", 10)))
        if st.last_sync is None:  # searched an index synced elsewhere: watch it from now on
            st.last_sync = time.time()
            st.synced_generation = st.generation
            self.watch(st)
        return [h.to_dict() for h in hits]

    def state(self, root: str, db: str | None) -> RootState:
        root = os.path.realpath(root)
        key = (root, db)
        with self.states_lock:
            st = self.states.get(key)
            if st is None:
                st = self.states[key] = RootState(root, db)
            return st

    def sync(self, st: RootState, *, max_file_bytes: int | None = None, force: bool = False) -> dict | None:
        from ctxmill import index

        with st.lock:
            if not force and not st.dirty:
                return st.last_report  # another request synced while this one waited
            gen = st.generation
            kwargs = {"max_file_bytes": max_file_bytes} if max_file_bytes else {}
            try:
                report = index.sync_index(st.root, db_path=st.db, **kwargs)
            except Exception as exc:
                st.error = f"{type(exc).__name__}: {exc}"
                raise
            st.error = None
            st.synced_generation = gen
            st.last_sync = time.time()
            st.last_report = {**report.to_dict(), "db_path": str(report.db_path)}
        self.watch(st)
        return st.last_report

    # ------------------------------------------------------------------ watching

    def watch(self, st: RootState) -> None:
        if st.watcher is not None:
            return
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            return  # no watcher: searches still sync when asked
        st.watcher = threading.Thread(target=self._watch, args=(st,), daemon=True, name=f"watch {st.root}")
        st.watcher.start()

    def _watch(self, st: RootState) -> None:
        import watchfiles

        index_files = (str(st.db) if st.db else "",)

        def relevant(change, path: str) -> bool:
            if path.startswith(index_files) and index_files[0]:
                return False
            return watchfiles.DefaultFilter()(change, path)

        try:
            for _changes in watchfiles.watch(st.root, watch_filter=relevant, debounce=100, step=20,
                                             stop_event=st.stop, raise_interrupt=False):
                st.generation += 1
                self.sync_pool.submit(self._background_sync, st)
        except Exception as exc:  # a root deleted, too many watches: searches still sync when asked
            st.error = f"watcher stopped: {type(exc).__name__}: {exc}"
            st.watcher = None

    def _background_sync(self, st: RootState) -> None:
        try:
            self.sync(st)
        except Exception:
            traceback.print_exc()

    # ------------------------------------------------------------------ life

    def status(self) -> dict:
        roots = []
        for st in list(self.states.values()):
            roots.append({"root": st.root, "db": st.db, "watching": st.watcher is not None, "in_sync": not st.dirty,
                          "syncing": st.lock.locked(), "last_sync": st.last_sync, "error": st.error})
        return {"pid": os.getpid(), "uptime_seconds": round(time.time() - self.started, 1),
                "idle_seconds": round(time.monotonic() - self.last_request, 1), "idle_limit_seconds": IDLE_SECONDS,
                "socket": str(socket_path()), "roots": roots}

    def shutdown(self) -> None:
        for st in self.states.values():
            st.stop.set()
        if self.unix is not None:
            self.unix.shutdown()

    def idle_loop(self) -> None:
        while True:
            time.sleep(min(5.0, max(0.5, IDLE_SECONDS / 10)))
            quiet = time.monotonic() - self.last_request > IDLE_SECONDS
            syncing = any(st.lock.locked() for st in self.states.values())
            if quiet and not syncing and not self.busy:
                self.shutdown()
                return


class _Handler(socketserver.StreamRequestHandler):
    server: _UnixServer

    def handle(self) -> None:
        srv = self.server.app
        cred = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", cred)
        if uid != os.getuid():  # the folder is private already; this is the second lock
            self._reply({"ok": False, "error": "this server serves its own user only"})
            return
        line = self.rfile.readline(MAX_REQUEST_BYTES)
        with srv.busy_lock:
            srv.busy += 1
        srv.last_request = time.monotonic()
        try:
            req = json.loads(line)
            reply = srv.handle(req)
        except Exception as exc:
            from ctxmill.errors import InputRefused

            kind = "refused" if isinstance(exc, InputRefused) else "error"
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            reply = {"ok": False, "kind": kind, "error": first if kind == "refused" else f"{type(exc).__name__}: {first}"}
        finally:
            with srv.busy_lock:
                srv.busy -= 1
            srv.last_request = time.monotonic()
        self._reply(reply)

    def _reply(self, reply: dict) -> None:
        try:
            self.wfile.write((json.dumps(reply) + "\n").encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout, Ctrl-C): nothing to tell


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    app: Server


def main() -> None:
    runtime_dir()
    path = socket_path()
    app = Server()
    # Bind to a temporary name and rename into place: a client never sees a half-made socket,
    # and a second server started in a race loses the rename, not the first one's socket.
    tmp = path.with_name(f".server-{os.getpid()}.sock")
    old = os.umask(0o177)  # the socket file itself: 0600
    try:
        unix = _UnixServer(str(tmp), _Handler)
    finally:
        os.umask(old)
    unix.app = app
    app.unix = unix
    try:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.connect(str(path))
        probe.close()
        tmp.unlink()
        print("ctxmill server: another server is running; exiting", file=sys.stderr)
        return
    except OSError:
        pass
    os.replace(tmp, path)
    ours = path.stat().st_ino  # at exit, remove the socket only if a newer server has not replaced it
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=app.shutdown, daemon=True).start())
    threading.Thread(target=app.idle_loop, daemon=True, name="idle").start()
    print(f"ctxmill server {os.getpid()} listening on {path}", file=sys.stderr, flush=True)
    try:
        unix.serve_forever(poll_interval=0.2)
    finally:
        unix.server_close()
        try:
            if path.stat().st_ino == ours:
                path.unlink()
        except OSError:
            pass


if __name__ == "__main__":
    main()
