"""One sync of a folder into its index: walk, compare, chunk what changed, embed what is new.

1. Walk the folder (ignore rules, size cap) and stat every file.
2. Stat fast path: a file whose (size, mtime_ns, inode) equals the stored row is unchanged and
   is never read. Otherwise read and hash it; equal hash means only the stat is refreshed.
3. Changed files are chunked; each chunk's text is finalised in :func:`finalize_chunk` (the
   one place text is fixed before it is stored or embedded); only chunk contents without a
   stored vector reach the embedder.
4. Files are written in batches; every file's old chunks, new chunks, FTS rows, vectors and
   file row commit in one transaction, so a kill at any moment leaves each file either fully
   old or fully new. A ``dirty`` flag set in those transactions and cleared at the very end
   tells the next sync to recompute the whole Merkle tree and embed any chunk left without a
   vector, so an interrupted sync always converges to what a fresh index would be.
5. Deleted files lose their rows; the Merkle folders above changed paths are recomputed.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ctxmill.errors import CtxmillError, InputRefused
from ctxmill.index import merkle
from ctxmill.index import store as store_mod
from ctxmill.index.backend import (  # noqa: F401  (the row layout, re-exported for older imports)
    BODY,
    CONTEXT,
    END,
    EXTRA,
    HASH,
    KIND,
    LANGUAGE,
    START,
    SYMBOL,
    SYMBOL_FTS,
    TEXT,
    IndexStore,
    embed_text,
    fts_body,
)
from ctxmill.index.chunk_code import CHUNKER_VERSION, FACADE_KIND, CodeChunk, chunk_file, language_for
from ctxmill.index.search import COMMON_SHARE
from ctxmill.index.store import Store
from ctxmill.index.terms import _PARTS, _TOKEN
from ctxmill.sources.repo import DEFAULT_MAX_FILE_BYTES, DOCUMENT_SUFFIXES, fs_name, is_binary, walk

BATCH_FILES = 1024  # files per write transaction (each commit costs a WAL write; fewer is faster)
BATCH_BYTES = 16_000_000
# The first batch is small and each next one twice as big (up to BATCH_FILES): the writer and
# the embedder start while the workers are still parsing, instead of idling until 1,024 files
# are parsed, and later batches still get the big transactions' lower cost per file. 16 (the
# pool's chunk size) rather than 64: on CPython's Lib/ the writer's first wait fell from
# ~0.25 s to ~0.1 s.
FIRST_BATCH_FILES = 16
EMBED_BATCH = 512
PARALLEL_MIN_FILES = 200  # below this a process pool costs more than it saves
# A re-sync of at least this many known files stats them in forked children (see walk()):
# two forks cost ~2 ms, half of 10,000 stats saves ~10 ms.
FORKED_WALK_MIN_FILES = 10_000

Progress = Callable[[int, int, str], None]  # (files done, files to do, current path)


@dataclass
class SyncReport:
    files_scanned: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    chunks_total: int = 0
    chunks_embedded: int = 0
    seconds: float = 0.0
    root: str = ""
    db_path: str = ""
    merkle_root: str = ""
    embed_seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # one line each: "path: reason"
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks_delta: int = 0  # chunks added minus chunks removed by this sync

    def to_dict(self) -> dict:
        return {
            "files_scanned": self.files_scanned,
            "files_changed": self.files_changed,
            "files_deleted": self.files_deleted,
            "chunks_total": self.chunks_total,
            "chunks_embedded": self.chunks_embedded,
            "seconds": round(self.seconds, 4),
            "warnings": list(self.warnings),
        }


@dataclass
class _Prepared:
    path: str
    stat: tuple[int, int, int]
    hash: str
    status: str  # ok | binary | failed
    language: str | None
    chunks: list[tuple]  # finalised rows (see finalize_chunk)
    existed: bool = True  # the index may hold rows for this path


# A chunk as it crosses from a worker process to the writer: the row layout of
# ctxmill.index.backend (BODY is embedded and hashed; the writer appends EXTRA to it for the
# lexical index, so the text does not cross the pipe twice).


def finalize_chunk(chunk: CodeChunk, *, text_clean: bool = False, context: str | None = None) -> tuple:
    """The one place a chunk's text is fixed before it is stored, indexed and embedded.

    Returns the chunk as the row the store writes (see the field indexes above): what the
    store needs is added here, the content hash of what gets embedded and the FTS texts.
    Secret redaction belongs here, before the hash, so a redacted secret never reaches the
    database or an embedder. ``text_clean``: the caller knows redaction would not change the
    text (see :func:`finalize_file`); ``context``: the context already redacted.
    """
    from ctxmill.redact import redact

    # Secret redaction (ctxmill.redact, issue 8): the stored, searched and embedded text is the
    # redacted one; line breaks are kept, so line ranges stay exact.
    text = chunk.text if text_clean else redact(chunk.text).text
    if context is None:
        context = redact(chunk.context).text if chunk.context else chunk.context
    body = embed_text(context, text)
    sym = chunk.symbol or ""
    symbol_fts = f"{sym} {_expand(sym)}".strip() if sym else ""
    return (chunk.start_line, chunk.end_line, chunk.kind, chunk.symbol, chunk.language, text, context,
            merkle.content_hash(body.encode("utf-8", "surrogatepass")), body, _expand(body), symbol_fts)


def finalize_file(chunks: list[CodeChunk], text: str) -> list[tuple]:
    """:func:`finalize_chunk` for every chunk cut from the lines of ``text``, with one scan of
    the whole file for redaction triggers: only the chunks whose lines hold one are redacted
    (``redact.trigger_lines`` says why the others cannot change), which spares a lower-cased
    copy and a regex scan per chunk. Contexts, made of the file's lines too, are redacted once
    each, and only when the file has a trigger at all."""
    from ctxmill.redact import redact, trigger_lines

    hits = trigger_lines(text)
    if not hits:
        return [finalize_chunk(c, text_clean=True, context=c.context) for c in chunks]
    done: dict[str, str] = {}
    out = []
    for c in chunks:
        i = bisect_left(hits, c.start_line)
        context = c.context
        if context:
            got = done.get(context)
            if got is None:
                got = done[context] = redact(context).text
            context = got
        out.append(finalize_chunk(c, text_clean=i == len(hits) or hits[i] > c.end_line, context=context))
    return out


_simple_words: set[str] = set()  # words with no identifier parts (most words of code)
_word_parts: dict[str, tuple[str, ...]] = {}  # compound word -> its parts
_MAX_SIMPLE, _MAX_COMPOUND = 1_000_000, 500_000  # cache caps (memory of a long-lived process)


def _expand(text: str) -> str:
    """terms.expand(text), the same parts, faster: every step over the chunk's words is a
    C-level set operation (minus the known simple words, minus the known compound words, a
    union of the cached part tuples), so Python only loops over words never seen before.
    (The order of the parts is set order, as in terms.expand; FTS5's BM25 ignores order.)"""
    words = set(_TOKEN.findall(text))
    words = words.difference(_simple_words)
    if not words:
        return ""
    parts_of = _word_parts
    new = words.difference(parts_of)  # a dict argument: one lookup per word, in C
    local: dict[str, tuple[str, ...]] | None = None  # compound words past the cache cap
    for word in new:
        # terms.compound_parts inlined: most new words are simple (lower, UPPER, Capitalised,
        # digits, no inner "_"), and two string tests are cheaper than two calls and a cache.
        if "_" not in word.strip("_") and (word.islower() or word.isupper() or word.isdigit()
                                           or word[1:].islower()):
            parts = ()
        else:
            parts = tuple(p.lower() for p in _PARTS.findall(word))
            if len(parts) < 2:
                parts = ()
        if not parts:
            words.discard(word)
            if len(_simple_words) < _MAX_SIMPLE:
                _simple_words.add(word)
        elif len(parts_of) < _MAX_COMPOUND:
            parts_of[word] = parts
        else:
            if local is None:
                local = {}
            local[word] = parts
    if not words:
        return ""
    if local is None:
        return " ".join(set().union(*map(parts_of.__getitem__, words)))
    return " ".join(set().union(*(local[w] if w in local else parts_of[w] for w in words)))


def _read(abs_path: str) -> bytes:
    with open(abs_path, "rb") as fh:
        return fh.read()


def _decode(data: bytes, path: str, warnings: list[str]) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        warnings.append(f"{path}: invalid UTF-8, undecodable bytes replaced")
        return data.decode("utf-8", "replace")


def _document_chunks(abs_path: str, path: str) -> list[CodeChunk]:
    """A PDF through the document compiler; lines of its chunks are page numbers."""
    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document

    doc = compile_document(Path(abs_path), CompileOptions(citations=False), name=path)
    out = []
    for ch in doc.chunks:
        first, last = (ch.pages or (1, 1))[:2]
        section = " > ".join(ch.section_path) if ch.section_path else None
        out.append(CodeChunk(path, int(first), int(last), "document", section, "pdf", ch.text))
    return out


def _prepare_job(job) -> tuple[object, list[str]]:
    """Worker-process entry: ``_prepare`` with its warnings sent back."""
    root, entry, stored_hash = job
    warnings: list[str] = []
    return _prepare(root, entry, stored_hash, warnings), warnings


def _prepared(root: str, todo: list, hashes: dict, warnings: list[str], workers: int):
    """(entry, prepared) for each file to look at, in order; parsed in worker processes when
    there are enough files for the pool to pay for itself."""
    if workers <= 1 or len(todo) < PARALLEL_MIN_FILES:
        for e in todo:
            yield e, _prepare(root, e, hashes.get(e.path), warnings)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    jobs = [(root, e, hashes.get(e.path)) for e in todo]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init) as pool:
        for e, (prep, warns) in zip(todo, pool.map(_prepare_job, jobs, chunksize=16), strict=True):
            warnings.extend(warns)
            yield e, prep


def _prepare(root: str, entry, stored_hash: str | None, warnings: list[str]) -> _Prepared | None | str:
    """Read, hash and chunk one file. None: unreadable (kept as it was); "same": content unchanged."""
    path = entry.path
    abs_path = os.path.join(root, fs_name(path))
    try:
        data = _read(abs_path)
    except FileNotFoundError:
        return None  # vanished since the walk: the next sync deletes it
    except OSError as exc:
        warnings.append(f"{path}: unreadable ({exc.strerror or exc})")
        return None
    h = merkle.content_hash(data)
    stat = (entry.size, entry.mtime_ns, entry.inode)
    if stored_hash == h:
        return "same"
    language = language_for(path)
    if path.lower().endswith(DOCUMENT_SUFFIXES):
        try:
            chunks = _document_chunks(abs_path, path)
            return _Prepared(path, stat, h, "ok", "pdf", [finalize_chunk(c) for c in chunks])
        except Exception as exc:  # a broken document must not stop the sync
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            warnings.append(f"{path}: document not compiled ({reason})")
            return _Prepared(path, stat, h, "failed", "pdf", [])
    if is_binary(data):
        return _Prepared(path, stat, h, "binary", None, [])
    text = _decode(data, path, warnings)
    try:
        chunks = chunk_file(path, data, text)
    except Exception as exc:  # a grammar crash on odd input: fall back to line windows
        from ctxmill.index.chunk_code import chunk_text

        warnings.append(f"{path}: parser failed ({exc}); indexed as plain text")
        chunks = chunk_text(path, text, language or "text")
    return _Prepared(path, stat, h, "ok", language, finalize_file(chunks, text))


# Lock files this process holds: a forked parse worker closes its copies at once, or a worker
# left running by a killed sync would keep the index locked (flock belongs to the open file,
# which fork shares).
_HELD_LOCKS: set[int] = set()
LOCK_NOTICE_SECONDS = 2.0  # a wait longer than this is reported, with who holds the lock


class _Lock:
    """One sync per index at a time: a second one waits, and says so when the wait is long.

    The holder writes its pid into the lock file. A lock whose recorded holder is gone but
    which is still held belongs to processes a killed sync left behind: that is an error that
    names them (from /proc/locks), never a silent wait.
    """

    def __init__(self, db_path: Path, notice: Callable[[str], None] | None = None):
        self.path = str(db_path) + ".lock"
        self.notice = notice

    def __enter__(self):
        self.fh = open(self.path, "a+")
        t0 = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                pass
            holder = self._holder_pid()
            if holder is not None and not _alive(holder):
                others = [p for p in _flock_holders(self.fh.fileno()) if p != os.getpid()]
                if others:
                    self.fh.close()
                    raise CtxmillError(
                        f"{self.path} is held by process(es) {', '.join(map(str, others))} left by a killed sync "
                        f"(its pid {holder} is gone); stop them, then sync again")
            if not told and time.monotonic() - t0 > LOCK_NOTICE_SECONDS:
                told = True
                if self.notice is not None:
                    self.notice(f"waiting for another sync of this index (pid {holder or '?'}) to finish")
            time.sleep(0.05)
        self.fh.seek(0)
        self.fh.truncate()
        self.fh.write(f"{os.getpid()}\n")
        self.fh.flush()
        _HELD_LOCKS.add(self.fh.fileno())
        return self

    def _holder_pid(self) -> int | None:
        try:
            with open(self.path) as fh:
                return int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def __exit__(self, *exc):
        _HELD_LOCKS.discard(self.fh.fileno())
        fcntl.flock(self.fh, fcntl.LOCK_UN)
        self.fh.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _flock_holders(fd: int) -> list[int]:
    """Pids holding a flock on the file behind ``fd`` (Linux /proc/locks; [] elsewhere)."""
    st = os.fstat(fd)
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    out = []
    try:
        with open("/proc/locks") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) > 5 and parts[1] == "FLOCK" and parts[5] == want:
                    out.append(int(parts[4]))
    except (OSError, ValueError):
        pass
    return out


def _notice(message: str) -> None:
    import sys

    print(f"ctxmill: {message}", file=sys.stderr, flush=True)


def _worker_init() -> None:
    """A parse worker: dies with the sync that forked it and drops the index lock it inherited."""
    from ctxmill.procs import die_with_parent

    die_with_parent()
    for fd in list(_HELD_LOCKS):
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD_LOCKS.clear()


def default_workers() -> int:
    env = os.environ.get("CTXMILL_INDEX_WORKERS")
    if env:
        return max(1, int(env))
    return max(1, min(2, os.cpu_count() or 1))


def sync(root: Path, db_path: Path, embedder, *, progress: Progress | None = None,
         max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, extra_ignore=(), workers: int | None = None,
         open_store: Callable[[], IndexStore] | None = None) -> SyncReport:
    """Sync ``root`` into the SQLite index at ``db_path``, or into the store ``open_store()``
    returns (the team store: ``db_path`` is then its local state file, where the lock sits)."""
    t0 = time.perf_counter()
    root_abs = os.path.abspath(root)
    if not os.path.isdir(root_abs):
        raise InputRefused(f"{root}: not a folder")
    report = SyncReport(root=root_abs, db_path=str(db_path))
    db_path.parent.mkdir(parents=True, exist_ok=True)
    with _Lock(db_path, _notice), (open_store() if open_store else Store(db_path)) as store:
        _sync(store, root_abs, embedder, report, progress, max_file_bytes, extra_ignore,
              workers if workers is not None else default_workers())
    report.seconds = time.perf_counter() - t0
    return report


def _sync(store: IndexStore, root: str, embedder, report: SyncReport, progress, max_file_bytes, extra_ignore,
          workers: int):
    stages = report.stages
    recorded_root = store.get_meta("root")
    sync_no = int(store.get_meta("sync_count") or 0) + 1
    dirty = store.get_meta("dirty") == "1" or recorded_root is None
    if (store.embedder_name, store.dim) != (embedder.name, embedder.dim) and store.ensure_embedder(
            embedder.name, embedder.dim):
        dirty = True  # every chunk needs a vector from the new embedder

    cold = recorded_root is None and not stats_exist(store)
    # built by another chunker version: every file is read and chunked again (see CHUNKER_VERSION)
    rechunk = not cold and store.get_meta("chunker_version") != CHUNKER_VERSION
    if cold:
        store.fts_bulk_mode(True)
        store.build_journal(True)
    # While the vector table starts empty, the vectors there are exactly the ones this sync
    # added: which contents still need one is a set lookup, not a query per batch.
    added: set[str] | None = None if store.has_vectors() else set()

    t = time.perf_counter()
    # path -> (size, mtime_ns, inode): one blob read instead of a row per file (see Store).
    stats = store.stat_cache(trust=not dirty)
    stages["compare"] = time.perf_counter() - t

    t = time.perf_counter()
    # The walk compares each stat with the last sync's: only changed files come back whole.
    walked = walk(root, max_file_bytes=max_file_bytes, extra_ignore=extra_ignore, sort=False,
                  known={} if rechunk else stats,
                  processes=min(4, os.cpu_count() or 1) if len(stats) >= FORKED_WALK_MIN_FILES else 1)
    report.skipped = walked.skipped
    # Skipped on purpose (too large, a link out of the root) is not news; a broken rule is.
    report.warnings.extend(f"{p}: {why}" for p, why in walked.skipped if why.startswith("invalid ignore pattern"))
    todo = walked.files
    report.files_scanned = len(todo) + len(walked.unchanged)
    stages["walk"] = time.perf_counter() - t

    t = time.perf_counter()
    known_todo = [e.path for e in todo if e.path in stats]
    if len(walked.unchanged) + len(known_todo) < len(stats):  # something is gone
        seen = set(walked.unchanged)
        seen.update(e.path for e in todo)
        deleted = [p for p in stats if p not in seen]
    else:
        deleted = []
    if not stats and not cold and not rechunk:
        # a store with files but no local record of them (a team store this machine never
        # synced): ask it about every file, so what it already holds is not chunked again
        known_todo = [e.path for e in todo]
    hashes = {} if rechunk else store.file_hashes(known_todo)
    stages["compare"] += time.perf_counter() - t

    changed_paths: list[str] = []
    delta: dict[str, tuple[int, int, int] | None] = {}  # stat cache changes of this sync
    stat_changed = False
    done = 0
    batch: list[_Prepared] = []
    batch_bytes = 0
    batch_limit = min(BATCH_FILES, FIRST_BATCH_FILES)
    stages.setdefault("chunk", 0.0)
    stages.setdefault("store", 0.0)
    t = time.perf_counter()
    for entry, prep in _prepared(root, todo, hashes, report.warnings, workers):
        stages["chunk"] += time.perf_counter() - t
        done += 1
        if progress is not None:
            progress(done, len(todo), entry.path)
        if prep is None:
            t = time.perf_counter()
            continue
        if prep == "same":
            store.update_stat(entry.path, entry.size, entry.mtime_ns, entry.inode)
            stats[entry.path] = delta[entry.path] = (entry.size, entry.mtime_ns, entry.inode)
            stat_changed = True
            t = time.perf_counter()
            continue
        prep.existed = entry.path in stats
        stats[entry.path] = delta[entry.path] = prep.stat
        batch.append(prep)
        batch_bytes += entry.size
        t = time.perf_counter()
        if len(batch) >= batch_limit or batch_bytes >= BATCH_BYTES:
            _write_batch(store, batch, embedder, sync_no, report, added)
            changed_paths.extend(p.path for p in batch)
            batch, batch_bytes = [], 0
            batch_limit = min(BATCH_FILES, batch_limit * 2)
        t = time.perf_counter()
    if batch:
        _write_batch(store, batch, embedder, sync_no, report, added)
        changed_paths.extend(p.path for p in batch)
    report.files_changed = len(changed_paths)

    t = time.perf_counter()
    if deleted:
        with store.transaction():
            store.set_meta("dirty", "1")
            for p in deleted:
                report.chunks_delta -= store.delete_file(p)
                stats.pop(p, None)
                delta[p] = None
    report.files_deleted = len(deleted)

    if dirty:  # an earlier sync stopped half-way, or the embedder changed: heal
        missing = store.hashes_without_vectors()
        if missing:
            texts = store.texts_for_hashes(missing)
            _embed_and_store(store, list(texts), list(texts.values()), embedder, sync_no, report)

    if not (dirty or changed_paths or deleted or stat_changed) and store.get_meta("chunks_total"):
        # Nothing changed: write nothing (a write would cost a WAL checkpoint when the
        # database closes); the lock file's mtime records when the folder was last checked.
        report.merkle_root = store.get_meta("merkle_root") or ""
        report.chunks_total = int(store.get_meta("chunks_total") or 0)
        store.mark_checked()
        if isinstance(store, Store):
            _refresh_snapshot(store)  # an index from before the snapshot, or with none yet
        stages["store"] += time.perf_counter() - t
        return
    with store.transaction():
        if dirty or changed_paths or deleted:
            report.merkle_root = store.update_merkle(changed_paths + deleted, full=dirty)
        else:
            report.merkle_root = store.get_meta("merkle_root") or ""
        before = store.get_meta("chunks_total")
        if dirty or before is None:  # after an interrupted sync, count; else add up the changes
            report.chunks_total = store.count_chunks()
        else:
            report.chunks_total = int(before) + report.chunks_delta
        store.set_meta("chunks_total", str(report.chunks_total))
        store.refresh_common_terms(report.chunks_total, COMMON_SHARE)
        store.set_meta("merkle_root", report.merkle_root)
        store.set_meta("root", root)
        store.set_meta("sync_count", str(sync_no))
        store.set_meta("last_sync", str(time.time()))
        store.set_meta("warnings", json.dumps(report.warnings[:1000]))
        store.write_stat_cache(stats, None if dirty else delta)
        _record_facades(store, changed_paths, deleted, full=dirty)
        store.set_meta("dirty", "0")
        store.set_meta("chunker_version", CHUNKER_VERSION)
        if cold:
            store.fts_bulk_mode(False)
    if cold:
        store.build_journal(False)
    store.finish_sync()
    if (changed_paths or deleted) and sync_no % max(1, store_mod.VECTOR_GRACE_SYNCS // 4) == 0:
        store.gc_vectors(sync_no)  # every few syncs: unused vectors wait VECTOR_GRACE_SYNCS anyway
    if isinstance(store, Store):
        _refresh_snapshot(store)
    stages["store"] += time.perf_counter() - t


def _refresh_snapshot(store: Store) -> None:
    """The vectors as one mapped file for the next process's first search (skipped while the
    one there lags by less than a tenth: that search reads the few rows since)."""
    from ctxmill.index.search import refresh_snapshot

    refresh_snapshot(store)


def _record_facades(store: IndexStore, changed: list[str], deleted: list[str], *, full: bool) -> None:
    """Keep meta ``facades``, the paths of the forwarding files (chunks of kind ``facade``, see
    ctxmill.index.facades), current from the files this sync changed, so that a search reads
    their few chunks by path instead of scanning every chunk for the kind (100 ms at 100k)."""
    if not isinstance(store, store_mod.Store):  # SQLite only: the team store's ranker is given none
        return
    conn = store.conn
    raw = store.get_meta("facades")
    if full or raw is None:
        paths = {r[0] for r in conn.execute("SELECT DISTINCT path FROM chunks WHERE kind = ?", (FACADE_KIND,))}
    else:
        paths = set(json.loads(raw)).difference(changed, deleted)
        for i in range(0, len(changed), 500):
            part = changed[i : i + 500]
            paths.update(r[0] for r in conn.execute(
                f"SELECT DISTINCT path FROM chunks WHERE kind = ? AND path IN ({','.join('?' * len(part))})",
                (FACADE_KIND, *part)))
    got = json.dumps(sorted(paths))
    if got != raw:
        store.set_meta("facades", got)


def stats_exist(store: IndexStore) -> bool:
    return store.has_files()


def _embed_and_store(store: Store, hashes: list[str], texts: list[str], embedder, sync_no, report) -> None:
    for i in range(0, len(hashes), EMBED_BATCH):
        t = time.perf_counter()
        mat = embedder.embed(texts[i:i + EMBED_BATCH])
        report.embed_seconds += time.perf_counter() - t
        with store.transaction():
            store.add_vectors(hashes[i:i + EMBED_BATCH], mat, sync_no)
        report.chunks_embedded += len(mat)


def _write_batch(store: Store, batch: list[_Prepared], embedder, sync_no: int, report: SyncReport,
                 added: set[str] | None = None) -> None:
    t = time.perf_counter()
    text_of: dict[str, str] = {}
    for prep in batch:
        for row in prep.chunks:
            text_of.setdefault(row[HASH], row[BODY])
    if added is None:
        missing = store.missing_vectors(text_of)
    else:
        missing = [h for h in text_of if h not in added]
        added.update(missing)
    report.stages["store"] += time.perf_counter() - t
    mat = None
    if missing:
        t = time.perf_counter()
        mat = embedder.embed([text_of[h] for h in missing])
        report.embed_seconds += time.perf_counter() - t
        report.chunks_embedded += len(missing)
    t = time.perf_counter()
    with store.transaction():
        store.set_meta("dirty", "1")
        if mat is not None:
            store.add_vectors(missing, mat, sync_no)
        if len(missing) < len(text_of):  # reused contents: keep them from garbage collection
            fresh = set(missing)
            store.touch_vectors((h for h in text_of if h not in fresh), sync_no)
        report.chunks_delta += store.replace_files(batch)
    report.stages["store"] += time.perf_counter() - t
