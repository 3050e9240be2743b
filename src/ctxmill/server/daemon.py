"""The background server process: ``python -m ctxmill.server.daemon`` (the client starts it).

One server per user, listening on ``ctxmill.server.socket_path()``. Requests and replies are
marshal frames (see ``ctxmill.server``): ``{"op": "search" | "sync" | "status" | "stop", ...}``.
Each root that was synced or searched through the server is watched (``watch.RootWatcher``,
inotify on Linux); a batch of changes marks the root dirty and a sync runs at once in the
background, so a search a moment after a save sees the saved content (a search on a dirty root
waits for that sync, or runs it). A ``sync`` of a watched root that no change has touched
since its last full sync is answered from that state, after the watcher has caught up with
the request (any change at all, even one the index ignores, means a real stat walk).
Searches run on a small pool of threads (``jobs.Pool``): one while they come one at a time, so
the index readers, their vectors and the embedder stay warm on it; another only when a search
arrives while every thread is busy, so a slow search does not hold up the ones behind it. A
search whose client has gone, or that has run past ``CTXMILL_SERVER_SEARCH_SECONDS`` (then
answered with a refusal naming that limit), is stopped (``jobs``).

``search`` and ``sync`` take ``print`` ("text" or "json"): the reply then carries ``out`` and
``err``, the exact bytes the command prints, so the thin client (``ctxmill.entry``) imports
neither json nor the formatting code.
"""

from __future__ import annotations

import collections
import gc
import os
import resource
import signal
import socketserver
import struct
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from ctxmill.server import PROTOCOL, jobs, recv_frame, runtime_dir, send_frame, socket_path

IDLE_SECONDS = float(os.environ.get("CTXMILL_SERVER_IDLE", "3600"))
MAX_REQUEST_BYTES = 1 << 20
REQUEST_READ_SECONDS = 30.0
CATCH_UP_SECONDS = 1.0  # how long a sync waits for the watcher to see what came before it
# Each watched root holds one inotify instance, and a user has 128 in all (fs.inotify.
# max_user_instances), shared with editors and every other watcher: a server asked about
# hundreds of folders (a script, a fuzzing run) watches only the roots used most recently.
MAX_WATCHED_ROOTS = max(1, int(os.environ.get("CTXMILL_SERVER_MAX_WATCHED", "32")))
WARM_IDLE_SECONDS = 0.02  # warm_loop works after this long without a search
SWITCH_INTERVAL = 0.001  # seconds: how long a search waits at most for a busy thread to let go of the GIL
# A search runs at most this long (seconds, from its hand-off to the search threads: a sync it
# waits for first is not counted); then it is stopped and its client told so (exit 3, naming
# the setting). Ordinary searches take milliseconds, the first of a 1M-chunk index seconds.
SEARCH_SECONDS = float(os.environ.get("CTXMILL_SERVER_SEARCH_SECONDS", "60"))
# Threads searches may use at once: a slow search keeps one; the others answer the rest.
SEARCH_THREADS = max(1, int(os.environ.get("CTXMILL_SERVER_SEARCH_THREADS", "4")))
TIMINGS_KEPT = 5000  # requests whose phase timings ``ctxmill server timings`` can show
_RUSAGE_THREAD = getattr(resource, "RUSAGE_THREAD", None)  # Linux: this thread's faults and switches


class RootState:
    """One watched index: its root, database, whether changes wait for a sync."""

    def __init__(self, root: str, db: str | None):
        self.root = root
        self.db = db
        self.lock = threading.Lock()  # one sync of this index at a time in this server
        self.generation = 0  # bumped by every batch of file changes
        self.synced_generation = -1  # the generation the last finished sync started from
        self.watched_sync = False  # that sync started after the watcher was in place
        self.max_file_bytes: int | None = None  # what that sync was asked for
        self.last_sync: float | None = None
        self.last_report: dict | None = None
        self.error: str | None = None
        self.watcher = None  # watch.RootWatcher once watching
        self.db_ident: tuple | None = None  # (device, inode) of the database that sync wrote
        self.names_ready = False  # every file's naming terms are in the search cache (warm_loop)
        self.used = time.monotonic()  # when a request last named this index (which watchers to keep)

    @property
    def db_key(self) -> tuple:
        return self.root, self.db

    @property
    def dirty(self) -> bool:
        return self.synced_generation != self.generation

    @property
    def watching(self) -> bool:
        return self.watcher is not None and self.watcher.alive

    def changed(self) -> None:
        self.generation += 1


def _own_team_settings(req: dict) -> bool:
    """Whether the caller's settings that pick a team store's key, repository, branch and local
    state (ctxmill.team.settings.REQUEST_ENV) are this server's own: only then may it answer."""
    from ctxmill.team.settings import REQUEST_ENV

    env = req.get("env") or {}
    return set(env) == set(REQUEST_ENV) and all(os.environ.get(k) == env[k] for k in REQUEST_ENV)


class Server:
    def __init__(self) -> None:
        self.started = time.time()
        self.last_request = time.monotonic()
        self.states: dict[tuple[str, str | None], RootState] = {}
        self.states_lock = threading.Lock()
        self.search_pool = jobs.Pool(SEARCH_THREADS)
        self.sync_pool = ThreadPoolExecutor(2, thread_name_prefix="ctxmill-sync")
        self.busy = 0
        self.busy_lock = threading.Lock()
        self.searching = 0  # searches in flight (warm_loop works only while there are none)
        self.last_search_end = 0.0
        self.warm_wanted = threading.Event()
        self.frozen = False  # gc.freeze() done after the first warm-up
        self.prepared: set = set()  # indexes whose first search has loaded what searches need (_prepare)
        # every request's timings, phase by phase, for finding what the slowest ones waited on
        self.timings: collections.deque = collections.deque(maxlen=TIMINGS_KEPT)
        self.gc_seconds = 0.0  # time spent in the garbage collector, all threads
        self.gc_collections = [0, 0, 0]
        self.background_seconds = 0.0  # time spent in warm_loop batches
        self._gc_started = 0.0
        gc.callbacks.append(self._gc_clock)
        self.unix: socketserver.UnixStreamServer | None = None
        self.sock_path: str | None = None  # the socket it listens on, and its inode (release_socket)
        self.sock_ino = 0

    # ------------------------------------------------------------------ requests

    def _gc_clock(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc_seconds += time.perf_counter() - self._gc_started
            self.gc_collections[info["generation"]] += 1

    def handle(self, req: dict, rec: dict | None = None, conn=None) -> dict:
        """The reply to ``req``; ``conn``, the client's socket, is watched while a search runs
        (one whose client has gone is stopped)."""
        rec = {} if rec is None else rec
        op = req.get("op")
        if req.get("protocol") != PROTOCOL:
            return {"ok": False, "error": f"client protocol {req.get('protocol')} is not the server's {PROTOCOL}"}
        if op == "status":
            return {"ok": True, **self.status()}
        if op == "timings":
            got = list(self.timings)
            if req.get("clear"):
                self.timings.clear()
            return {"ok": True, "timings": got}
        if op == "stop":
            # the socket goes now, so no new command reaches this server; the shutdown starts
            # once the reply is sent (_Handler): a server stopped during a sync exits at once,
            # and it must not take the unsent reply with it
            self.release_socket()
            return {"ok": True, "stopping": True}
        if op == "sync":
            return self._sync_op(req)
        if op == "search":
            st = self.state(req["root"], req.get("db"))
            if req.get("fresh") and not (st.watched_sync and st.watching) and self._known(st):
                self.sync(st, force=True)  # edits made before the watcher was in place: walk once
            elif st.dirty and st.last_sync is not None:
                self.sync(st)  # a save the watcher saw: search what is on disk now
            rec["pre"] = time.perf_counter() - rec.get("t", time.perf_counter()) - rec.get("read", 0.0)
            rec["submitted"] = time.perf_counter()
            hits = self._run_search(lambda: self._search(st, req, rec), rec, conn)
            rec["handoff"] = time.perf_counter() - rec.pop("search_end", time.perf_counter())
            t = time.perf_counter()
            reply = {"ok": True, "hits": hits, "fresh": not st.dirty, "watching": st.watching}
            if req.get("print"):
                from ctxmill.hits import hits_json, hits_text

                out = hits_json(hits) if req["print"] == "json" else hits_text(hits, bold=bool(req.get("bold")))
                reply["out"] = out + "\n"
                reply["err"] = "" if reply["fresh"] else STALE_NOTE
                del reply["hits"]
            rec["format"] = time.perf_counter() - t
            return reply
        if op == "team_search":
            return self._team_search(req, rec, conn)
        if op == "team_sync":
            return self._team_sync(req)
        return {"ok": False, "error": f"unknown op {op!r}"}

    def _run_search(self, fn, rec: dict, conn) -> list[dict]:
        """``fn()`` on the search pool, stopped when the client goes away or the time limit
        passes (counted from here: a sync the search waited for first is not in it, its wait
        for a thread is)."""
        deadline = time.monotonic() + SEARCH_SECONDS
        with self.busy_lock:
            self.searching += 1
        try:
            job = self.search_pool.submit(fn, on_stop=_interrupt_sqlite)
            why = jobs.wait(job, conn, deadline)
        finally:
            with self.busy_lock:
                self.searching -= 1
            self.last_search_end = time.monotonic()
            self.warm_wanted.set()
        if why is not None:
            rec["stopped"] = why
            if why == "time limit":
                from ctxmill.errors import InputRefused

                raise InputRefused(f"the search ran over CTXMILL_SERVER_SEARCH_SECONDS ({SEARCH_SECONDS:g} s) "
                                   "and was stopped")
            raise _ClientGone(why)
        return job.result()

    def _team_search(self, req: dict, rec: dict | None = None, conn=None) -> dict:
        """A search of a team store (ctxmill.team, issue 25), so its pooled connection, embedder
        and caches stay warm in this process. Answered only when the caller's settings that pick
        the key, repository, branch and local state are this server's own; otherwise the caller
        searches in-process (``unknown``)."""
        if not _own_team_settings(req):
            return {"ok": True, "unknown": True}
        from ctxmill import index
        from ctxmill.index.search import PHASES

        rec = {} if rec is None else rec
        submitted = time.perf_counter()

        def run() -> list[dict]:
            t = time.perf_counter()
            rec["queued"] = t - submitted
            token = PHASES.set(rec.setdefault("phases", {}))  # the same per-phase timings as a local search
            try:
                hits = index.search(req["query"], req["root"], store=req["store"], path_prefix=req.get("path"),
                                    k=int(req.get("k") or 10))
            finally:
                PHASES.reset(token)
                rec["search"] = time.perf_counter() - t
            return [h.to_dict() for h in hits]

        hits = self._run_search(run, rec, conn)
        reply = {"ok": True, "hits": hits, "pid": os.getpid()}
        if req.get("print"):
            from ctxmill.hits import hits_json, hits_text

            reply["out"] = (hits_json(hits) if req["print"] == "json" else hits_text(hits, bold=bool(req.get("bold")))) + "\n"
            del reply["hits"]
        return reply

    def _team_sync(self, req: dict) -> dict:
        """``ctxmill index ROOT --store URL`` of a (repository, branch) this machine or the store
        already knows (ctxmill.team.pgstore.sync_known), so the command skips importing the
        sync code, psycopg and the embedder and connecting; the same settings rule as
        ``team_search``, and a first build runs in the command (``unknown``)."""
        if not _own_team_settings(req):
            return {"ok": True, "unknown": True}
        from ctxmill.team.pgstore import sync_known

        report = sync_known(req["store"], req["root"], max_file_bytes=req.get("max_file_bytes"))
        if report is None:
            return {"ok": True, "unknown": True}
        d = report.to_dict()
        reply = {"ok": True, "report": d}
        if req.get("print"):
            from ctxmill.hits import sync_counts, sync_json

            if req["print"] == "json":
                out = sync_json(d) + "\n"
            elif req.get("quiet"):
                out = ""
            else:  # the team store's summary line (cli.index_cmd): no local index file to name
                out = sync_counts(d) + "\n"
            reply.update(out=out, err="")  # (the command's team path prints no warnings either)
            del reply["report"]
        return reply

    def _sync_op(self, req: dict) -> dict:
        arrived = time.monotonic()
        st = self.state(req["root"], req.get("db"))
        if req.get("known_only") and not self._known(st):
            return {"ok": True, "unknown": True}  # a first build runs in the command, with its progress bar
        max_bytes = req.get("max_file_bytes")
        report = self._unchanged_report(st, arrived, max_bytes)
        from_watcher = report is not None
        if report is None:
            report = self.sync(st, max_file_bytes=max_bytes, force=True)
        reply = {"ok": True, "report": report, "watching": st.watching, "from_watcher": from_watcher}
        if req.get("print"):
            from ctxmill.hits import sync_json, sync_text

            d = dict(report)
            db_file = d.pop("db_path", None)
            warn = "".join(f"ctxmill: warning: {w}\n" for w in d.get("warnings", [])) if not req.get("quiet") else ""
            if req["print"] == "json":
                out = sync_json(d) + "\n"
            else:
                out = "" if req.get("quiet") else sync_text(d, db_file) + "\n"
            reply.update(out=out, err=warn)
            del reply["report"]
        return reply

    def _known(self, st: RootState) -> bool:
        if st.last_report is not None:
            return True
        if st.db:
            return os.path.exists(st.db)
        from ctxmill.locations import default_db_path

        return default_db_path(st.root).exists()

    def _unchanged_report(self, st: RootState, arrived: float, max_bytes) -> dict | None:
        """The last sync's report, as a no-op, when the watcher has seen no change since it
        (it stat-walked the whole tree after the watcher was in place, with the same limits)."""
        if not (st.watching and st.watched_sync and st.error is None and st.last_report is not None
                and st.max_file_bytes == max_bytes):
            return None
        if not st.watcher.caught_up(arrived, CATCH_UP_SECONDS) or st.dirty or st.lock.locked():
            return None
        if _ident(st.last_report["db_path"]) != st.db_ident:
            return None  # the index was deleted or rebuilt by someone else: walk again
        report = {**st.last_report, "files_changed": 0, "files_deleted": 0, "chunks_embedded": 0,
                  "seconds": round(time.monotonic() - arrived, 4)}
        try:
            os.utime(str(report["db_path"]) + ".lock")  # `ctxmill status`: when the folder was last checked
        except OSError:
            pass
        return report

    def _prepare(self, st: RootState, phases: dict) -> None:
        """The first search of an index in this server: load what it needs with the embedder
        built on a thread of its own beside the rest (the bundled one's table and tokenizer
        take ~0.1 s, decompressing and parsing outside the GIL in part) - the mapped vectors,
        the ranker, the index's common terms."""
        import importlib

        from ctxmill import index
        from ctxmill.index.embedders import get_embedder

        def embedder(name):
            try:
                get_embedder(name)  # kept by the registry: the search below finds it built
            except Exception:  # noqa: BLE001 - the search itself reports what is wrong
                pass

        t = time.perf_counter()
        search = importlib.import_module("ctxmill.index.search")
        try:
            with index._reader(st.root, st.db) as store:
                phases["open"] = time.perf_counter() - t
                t = time.perf_counter()
                loading = threading.Thread(target=embedder, args=(store.embedder_name,), daemon=True)
                loading.start()
                importlib.import_module("ctxmill.index.rank")
                importlib.import_module("ctxmill.hits")
                cache = search._cached(store)
                cache.vectors(store)
                cache.common_terms(store)
                phases["prepare"] = time.perf_counter() - t
                t = time.perf_counter()
                loading.join()
                phases["embedder_wait"] = time.perf_counter() - t
        except Exception:  # noqa: BLE001 - not indexed, refused: the search gives the reason
            return
        self.prepared.add(st.db_key)

    def _search(self, st: RootState, req: dict, rec: dict | None = None) -> list[dict]:
        t0 = time.perf_counter()
        rec = {} if rec is None else rec
        rec["queued"] = t0 - rec.pop("submitted", t0)
        from ctxmill import index
        from ctxmill.index.search import PHASES

        t, cpu = time.perf_counter(), time.thread_time()
        usage = resource.getrusage(_RUSAGE_THREAD) if _RUSAGE_THREAD is not None else None
        phases = rec["phases"] = {"import": t - t0}
        if st.db_key not in self.prepared:
            self._prepare(st, phases)
        token = PHASES.set(phases)
        try:
            hits = index.search(req["query"], st.root, db_path=st.db, path_prefix=req.get("path"),
                                k=int(req.get("k", 10)))
        finally:
            PHASES.reset(token)
            rec["search"] = time.perf_counter() - t
            rec["search_cpu"] = time.thread_time() - cpu
            if usage is not None:
                after = resource.getrusage(_RUSAGE_THREAD)
                # page faults (a cold page of the index or the matrix) and context switches
                # (involuntary: another process had the core; voluntary: a lock, I/O, the GIL)
                rec["minflt"] = after.ru_minflt - usage.ru_minflt
                rec["majflt"] = after.ru_majflt - usage.ru_majflt
                rec["nvcsw"] = after.ru_nvcsw - usage.ru_nvcsw
                rec["nivcsw"] = after.ru_nivcsw - usage.ru_nivcsw
            rec["search_end"] = time.perf_counter()
        if st.last_sync is None:  # searched an index synced elsewhere: watch it from now on
            st.last_sync = time.time()
            st.synced_generation = st.generation
            self.sync_pool.submit(self._watch_and_catch_up, st)
        if req.get("full"):  # every field, for callers that rebuild ``Hit`` objects (server.warm)
            import dataclasses

            return [{**dataclasses.asdict(h), "score": float(h.score)} for h in hits]  # marshal: no numpy
        return [h.to_dict() for h in hits]

    def _watch_and_catch_up(self, st: RootState) -> None:
        """Watch a root first met by a search, after that search has answered (starting the
        watcher on a 50,000-file tree took ~1 s of the first search), then sync it once with
        the watcher in place: what changed before - while no server ran, or in that second -
        is then in the index, and the changes after it come from the watcher."""
        try:
            self.sync(st, force=True)  # starts the watcher before it walks
        except Exception:
            traceback.print_exc()

    def state(self, root: str, db: str | None) -> RootState:
        root = os.path.realpath(root)
        key = (root, db)
        with self.states_lock:
            st = self.states.get(key)
            if st is None:
                st = self.states[key] = RootState(root, db)
            st.used = time.monotonic()
            return st

    def sync(self, st: RootState, *, max_file_bytes: int | None = None, force: bool = False) -> dict | None:
        from ctxmill import index

        # watch first: a save during the walk below is then a change that makes the root dirty
        self.watch(st)
        with st.lock:
            if not force and not st.dirty:
                return st.last_report  # another request synced while this one waited
            gen = st.generation
            watched = st.watching
            if max_file_bytes is None:  # a sync the watcher started: the limit the user last asked for
                max_file_bytes = st.max_file_bytes
            kwargs = {"max_file_bytes": max_file_bytes} if max_file_bytes else {}
            try:
                report = index.sync_index(st.root, db_path=st.db, **kwargs)
            except Exception as exc:
                st.error = f"{type(exc).__name__}: {exc}"
                raise
            st.error = None
            st.synced_generation = gen
            st.watched_sync = watched
            st.max_file_bytes = max_file_bytes
            st.last_sync = time.time()
            st.last_report = {**report.to_dict(), "db_path": str(report.db_path)}
            st.db_ident = _ident(st.last_report["db_path"])
        return st.last_report

    # ------------------------------------------------------------------ watching

    def watch(self, st: RootState) -> None:
        if st.watcher is not None:
            return
        from ctxmill.server.watch import RootWatcher

        self._make_room_to_watch(st)
        st.watcher = RootWatcher(st.root, ignore=[st.db] if st.db else [], on_change=lambda: self._changed(st))
        if not st.watcher.start():
            st.error = st.watcher.error  # no watcher: searches still sync when asked

    def _make_room_to_watch(self, new: RootState) -> None:
        """Stop the watchers of roots that are gone or ended, then of the least recently used
        roots until ``new`` fits under MAX_WATCHED_ROOTS. An unwatched root stays correct: its
        next sync walks the tree (``watched_sync`` is false), and a later request watches it again."""
        with self.states_lock:
            watched = [st for st in self.states.values() if st.watcher is not None and st is not new]
        for st in watched:
            if not st.watcher.alive or not os.path.isdir(st.root):
                self._unwatch(st)
        watched = sorted((st for st in watched if st.watcher is not None), key=lambda st: st.used)
        for st in watched[:max(0, len(watched) - MAX_WATCHED_ROOTS + 1)]:
            self._unwatch(st)

    @staticmethod
    def _unwatch(st: RootState) -> None:
        watcher, st.watcher = st.watcher, None
        st.watched_sync = False  # what the watcher vouched for no longer holds
        if watcher is not None:
            watcher.stop()

    def _changed(self, st: RootState) -> None:
        st.changed()
        self.sync_pool.submit(self._background_sync, st)

    def _background_sync(self, st: RootState) -> None:
        try:
            self.sync(st)
        except Exception:
            traceback.print_exc()

    # ------------------------------------------------------------------ warming

    def warm_loop(self) -> None:
        """Between searches, read ahead what a search needs of each index it has searched:
        every file's naming terms (``search.warm_file_names``), a few milliseconds at a time
        and only while no search is running, so a search never waits behind more than one
        batch. A search whose candidates come from files no search met before then skips
        reading their chunks."""
        while True:
            self.warm_wanted.wait()
            self.warm_wanted.clear()
            for st in list(self.states.values()):
                while st.last_sync is not None and not st.error:
                    if self.searching or st.lock.locked() or time.monotonic() - self.last_search_end < WARM_IDLE_SECONDS:
                        time.sleep(WARM_IDLE_SECONDS)
                        continue
                    t = time.perf_counter()
                    try:
                        st.names_ready = self._warm_once(st)
                    except Exception:  # a warm cache is a nicety: a search reads what it needs itself
                        traceback.print_exc()
                        st.names_ready = True
                    self.background_seconds += time.perf_counter() - t
                    if st.names_ready:
                        if not self.frozen:
                            # what the warm indexes hold lives as long as the server: out of the
                            # collector's sight, a full collection no longer walks it (a p99 cost)
                            gc.collect()
                            gc.freeze()
                            self.frozen = True
                        break

    def _warm_once(self, st: RootState) -> bool:
        import importlib

        from ctxmill import index

        search = importlib.import_module("ctxmill.index.search")
        with index._reader(st.root, st.db) as store:
            # the mapped vectors' pages first (a search otherwise faults them in as it meets
            # them), then every file's names; one slice a call
            return search.warm_vectors(store) and search.warm_file_names(store)

    # ------------------------------------------------------------------ life

    def status(self) -> dict:
        roots = []
        for st in list(self.states.values()):
            err = st.error or (st.watcher.error if st.watcher is not None else None)
            last = st.last_report or {}
            roots.append({"root": st.root, "db": st.db, "watching": st.watching, "in_sync": not st.dirty,
                          "syncing": st.lock.locked(), "last_sync": st.last_sync, "error": err,
                          "names_ready": st.names_ready,
                          "last_sync_counts": {k: last[k] for k in ("files_changed", "files_deleted",
                                                                     "chunks_embedded", "seconds") if k in last}})
        return {"pid": os.getpid(), "uptime_seconds": round(time.time() - self.started, 1),
                "cpu_seconds": round(time.process_time(), 4),  # what it has cost the machine (benchmarks)
                "idle_seconds": round(time.monotonic() - self.last_request, 1), "idle_limit_seconds": IDLE_SECONDS,
                "socket": str(socket_path()), "roots": roots}

    def release_socket(self) -> None:
        """Remove this server's socket (not one a newer server put in its place): a command
        run while this server winds down then starts a new one instead of reaching a server
        that closes its connection unanswered."""
        if self.sock_path is None:
            return
        try:
            if os.stat(self.sock_path).st_ino == self.sock_ino:
                os.unlink(self.sock_path)
        except OSError:
            pass

    def shutdown(self) -> None:
        self.release_socket()
        for st in self.states.values():
            if st.watcher is not None:
                st.watcher.stop()
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


class _ClientGone(Exception):
    """The client of a search closed its connection: the search was stopped, no reply is sent."""


def _interrupt_sqlite(tid: int) -> None:
    """Interrupt the SQLite statements of thread ``tid``'s index readers (a stopped search may be
    inside one: the Python exception reaches it only when SQLite returns)."""
    from ctxmill import index

    for (_db, t), (_, store) in list(index._readers.items()):
        if t == tid:
            store.conn.interrupt()


def _ident(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


STALE_NOTE = "ctxmill: note: the index is syncing changes; results may miss the newest edits\n"


class _Handler(socketserver.BaseRequestHandler):
    server: _UnixServer

    def handle(self) -> None:
        import socket

        srv = self.server.app
        rec = {"t": time.perf_counter(), "at": time.time()}
        cred = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", cred)
        if uid != os.getuid():  # the folder is private already; this is the second lock
            self._reply({"ok": False, "error": "this server serves its own user only"})
            self._drain()
            return
        self.request.settimeout(REQUEST_READ_SECONDS)  # a caller that connects and says nothing
        try:
            req = recv_frame(self.request, MAX_REQUEST_BYTES)
        except (OSError, EOFError, ValueError):
            return
        if not isinstance(req, dict):
            return
        self.request.settimeout(None)
        with srv.busy_lock:  # counted from here: a silent connection does not keep the server up
            srv.busy += 1
        srv.last_request = time.monotonic()
        rec["read"] = time.perf_counter() - rec["t"]
        rec["op"] = req.get("op")
        rec["server_age"] = rec["at"] - srv.started  # a first request: how long the server took to be ready
        gc_before, gcs_before, bg_before = srv.gc_seconds, list(srv.gc_collections), srv.background_seconds
        syncing = any(st.lock.locked() for st in list(srv.states.values()))
        try:
            reply = srv.handle(req, rec, self.request)
        except _ClientGone:
            reply = None  # nobody to answer
        except Exception as exc:
            from ctxmill.errors import InputRefused

            kind = "refused" if isinstance(exc, InputRefused) else "error"
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            reply = {"ok": False, "kind": kind, "error": first if kind == "refused" else f"{type(exc).__name__}: {first}"}
        finally:
            with srv.busy_lock:
                srv.busy -= 1
            srv.last_request = time.monotonic()
        t = time.perf_counter()
        if reply is not None:
            self._reply(reply)
        now = time.perf_counter()
        if rec["op"] == "stop" and reply.get("ok"):
            threading.Thread(target=srv.shutdown, daemon=True).start()
        if rec["op"] in ("search", "sync", "team_search", "team_sync"):
            rec["send"] = now - t
            rec["total"] = now - rec.pop("t")
            rec["gc"] = srv.gc_seconds - gc_before
            rec["gc_collections"] = [a - b for a, b in zip(srv.gc_collections, gcs_before, strict=True)]
            rec["background"] = srv.background_seconds - bg_before  # warm_loop batches meanwhile
            rec["syncing"] = syncing or any(st.lock.locked() for st in list(srv.states.values()))
            srv.timings.append(rec)

    def _drain(self) -> None:
        """Read and drop what the caller sends until it closes (bounded, never decoded): a
        socket closed with the request unread fails the caller's send (EPIPE) before it can
        read the refusal already waiting for it."""
        self.request.settimeout(5)
        left = MAX_REQUEST_BYTES
        try:
            while left > 0:
                got = self.request.recv(min(1 << 16, left))
                if not got:
                    return
                left -= len(got)
        except OSError:
            pass

    def _reply(self, reply: dict) -> None:
        try:
            send_frame(self.request, reply)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout, Ctrl-C): nothing to tell


class _UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    app: Server


def _preload() -> None:
    import importlib

    try:
        importlib.import_module("ctxmill.index.search")
    except Exception:  # noqa: BLE001 - the request that needs it reports the error
        pass


def main() -> None:
    import socket

    runtime_dir()
    path = socket_path()
    # A search shares the interpreter with background work (the watcher's syncs, a catch-up
    # walk of a big tree, the read-ahead): each time its thread takes the GIL back after a
    # SQLite call or a numpy scan it may wait for a busy thread to let go, up to the switch
    # interval (5 ms by default), dozens of times a search. 1 ms bounds that wait; the cost,
    # more switches, is paid only while two threads want to run.
    sys.setswitchinterval(SWITCH_INTERVAL)
    # the first request (the command that started this server is about to send it) needs numpy
    # and the search code: import them while the socket is set up and the request is on its way
    threading.Thread(target=_preload, daemon=True, name="preload").start()
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
    app.sock_path, app.sock_ino = str(path), ours
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=app.shutdown, daemon=True).start())
    threading.Thread(target=app.idle_loop, daemon=True, name="idle").start()
    threading.Thread(target=app.warm_loop, daemon=True, name="warm").start()
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
    # A sync still running (the watcher's, a catch-up walk of a big tree) is not waited for:
    # the interpreter would join its thread for seconds while a new server already starts. An
    # index left mid-sync is what a kill leaves, and the next sync finishes it.
    if any(st.lock.locked() for st in app.states.values()):
        print(f"ctxmill server {os.getpid()}: stopped during a sync", file=sys.stderr, flush=True)
        os._exit(0)


if __name__ == "__main__":
    main()
