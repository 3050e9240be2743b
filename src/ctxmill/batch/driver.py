"""Compile a collection: expand the inputs, skip what a resumed batch already has, run the
rest on an engine (the local process pool or Ray), record each document as it finishes, then
export the corpus as Parquet.

OUT/ holds one folder per document (``<stem>-<short hash>``), ``manifest.jsonl`` and the
Parquet files. One batch at a time writes into an OUT (a lock file says so).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from ctxmill.batch import manifest
from ctxmill.batch.inputs import Input, expand
from ctxmill.batch.job import task
from ctxmill.batch.progress import Progress
from ctxmill.compile.options import CompileOptions
from ctxmill.errors import InputRefused, UsageError

ENGINES = ("local", "ray")


def default_timeout() -> float:
    """Per document: the PDF sandbox's own wall clock, plus a minute for the stages after it."""
    from ctxmill.sources.sandbox import limits

    return float(limits()["timeout_seconds"]) + 60.0


def _lock(out_dir: Path):
    fh = open(out_dir / ".batch.lock", "w")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        raise InputRefused(f"{out_dir}: another batch is writing into this folder") from None
    return fh


def _clean_leftovers(out_dir: Path, folder: str | None = None) -> None:
    """What a compile or an export killed mid-write left: write_outputs' .X.tmp-* / .X.old-*
    folders, the export's .chunks.parquet.tmp-* files."""
    pattern = f".{folder}." if folder else "."
    for p in out_dir.iterdir():
        if p.name.startswith(pattern) and (".tmp-" in p.name or ".old-" in p.name):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def _unchanged(rec: dict | None, inp: Input, out_dir: Path) -> bool:
    """Is this input done already? The stat fast path first (size + mtime as recorded), the
    content hash only when the stat changed: a touched but identical file is not redone."""
    if not rec or rec.get("status") != "done" or not rec.get("output"):
        return False
    if not (out_dir / rec["output"] / "document.md").is_file():
        return False
    try:
        st = inp.path.stat()
    except OSError:
        return False
    if rec.get("size") == st.st_size and rec.get("mtime_ns") == st.st_mtime_ns:
        return True
    return manifest.sha256_file(inp.path) == rec.get("sha256")


def run_batch(
    arg: str,
    out_dir: Path,
    options: CompileOptions | None = None,
    *,
    jobs: int | None = None,
    resume: bool = False,
    engine: str = "local",
    address: str | None = None,
    timeout: float | None = None,
    parquet: bool = True,
    embed: bool = False,
    show_progress: bool = True,
    on_record: Callable[[dict], None] | None = None,
) -> dict:
    """Compile every input ARG names into OUT; return the batch summary (see docs/batch.md)."""
    options = options or CompileOptions()
    if engine not in ENGINES:
        raise UsageError(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if address and engine != "ray":
        raise UsageError("--address is for --engine ray")
    jobs = jobs or _cores()
    timeout = timeout or default_timeout()
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise InputRefused(f"{out_dir}: is a file, not an output folder")
    inputs = expand(arg, out_dir)
    folders: dict[str, str] = {}
    for inp in inputs:  # two stems that sanitise alike still differ by their path hash
        folders[inp.name] = inp.folder
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    lock = _lock(out_dir)
    try:
        _clean_leftovers(out_dir)
        mpath = out_dir / manifest.NAME
        prior = manifest.read(mpath) if resume else {}
        final: dict[str, dict] = {}
        todo: list[Input] = []
        for inp in inputs:
            if resume and _unchanged(prior.get(inp.name), inp, out_dir):
                final[inp.name] = prior[inp.name]
            else:
                todo.append(inp)
        skipped = len(final)
        # largest first: the long documents start early instead of ending the batch alone
        todo.sort(key=lambda i: -_size(i.path))
        # absolute: a Ray worker on another node writes there too (OUT on a shared path)
        env = _worker_env(jobs, engine, len(todo))
        tasks = [task(i.name, i.path, out_dir.resolve(), folders[i.name], options, env) for i in todo]
        bar = Progress(len(tasks), skipped, enabled=show_progress)
        ran_pages = [0]
        with manifest.Writer(mpath, fresh=not resume) as writer:
            def record(rec: dict) -> None:
                t = rec.pop("_task", None)
                if t is not None:  # the worker died or ran out of time: the driver fills in
                    _fill(rec, Path(t["path"]))
                    _clean_leftovers(out_dir, t["folder"])
                    shutil.rmtree(Path(t["out"]), ignore_errors=True)
                rec = {k: v for k, v in rec.items() if v is not None or k in ("sha256", "output")}
                writer.append(rec)
                final[rec["input"]] = rec
                ran_pages[0] += rec.get("pages") or 0
                bar.update(rec)
                if on_record:
                    on_record(rec)

            try:
                if tasks:
                    if engine == "ray":
                        from ctxmill.batch import ray_engine

                        ray_engine.run(tasks, jobs=jobs, timeout=timeout, on_record=record, address=address)
                    else:
                        from ctxmill.batch import pool

                        pool.run(tasks, jobs=jobs, timeout=timeout, on_record=record)
            finally:
                bar.close()
        compile_seconds = time.perf_counter() - t0
        records = [final[i.name] for i in inputs if i.name in final]
        exported = _export(out_dir, records, parquet, embed, nothing_new=not tasks)
    finally:
        lock.close()
    return _summary(out_dir, inputs, records, skipped, len(tasks), ran_pages[0], compile_seconds,
                    time.perf_counter() - t0, exported, engine, jobs)


def _worker_env(jobs: int, engine: str, documents: int) -> dict[str, str]:
    """``--jobs N`` is the number of cores the batch uses, as ``make -j`` counts them: N
    documents at a time, each parsed on one core. Only when there are fewer documents than N
    does each get the spare cores for its PDF page workers (``CTXMILL_PDF_WORKERS``), so
    ``--jobs 1`` never takes a second core for page workers and ``--jobs N`` never starts
    N x cores processes. A Ray task gets its num_cpus. A value the user set is kept."""
    if os.environ.get("CTXMILL_PDF_WORKERS"):
        return {}
    if engine == "ray":
        share = float(os.environ.get("CTXMILL_RAY_NUM_CPUS", "1"))
    else:
        share = jobs / max(1, min(jobs, documents))
    return {"CTXMILL_PDF_WORKERS": str(max(1, int(share)))}


def _cores() -> int:
    """The cores this process may run on (a container's CPU set, not the host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _fill(rec: dict, path: Path) -> None:
    try:
        st = path.stat()
        rec["size"], rec["mtime_ns"] = st.st_size, st.st_mtime_ns
        rec["sha256"] = manifest.sha256_file(path)
    except OSError:
        pass


def _export(out_dir: Path, records: list[dict], parquet: bool, embed: bool, nothing_new: bool) -> dict:
    if not parquet:
        return {}
    try:
        from ctxmill.batch import export
    except ImportError:
        return {"note": "pyarrow is not installed: no Parquet export (pip install 'ctxmill[batch]')"}
    done = [r for r in records if r["status"] == "done"]
    if nothing_new:  # a resumed complete batch: the export written after the last record stands
        current = export.current(out_dir, done, embed)
        if current is not None:
            return current
    return export.write(out_dir, done, embed=embed)


def _summary(out_dir, inputs, records, skipped, ran, ran_pages, compile_seconds, seconds, exported, engine,
             jobs) -> dict:
    by = {s: 0 for s in manifest.STATUSES}
    for r in records:
        by[r["status"]] += 1
    pages = sum(r.get("pages") or 0 for r in records)
    return {
        "out": str(out_dir),
        "manifest": str(out_dir / manifest.NAME),
        "engine": engine,
        "jobs": jobs,
        "inputs": len(inputs),
        "skipped": skipped,
        "compiled": ran,
        **by,
        "pages": pages,
        "seconds": round(seconds, 3),
        "compile_seconds": round(compile_seconds, 3),
        # of the documents compiled by this run (a resumed batch skips the others)
        "documents_per_second": round(ran / compile_seconds, 3) if ran and compile_seconds else 0.0,
        "pages_per_second": round(ran_pages / compile_seconds, 2) if ran and compile_seconds else 0.0,
        "not_done": [{"input": r["input"], "status": r["status"], "reason": r.get("reason", "")}
                     for r in records if r["status"] != "done"],
        "exported": exported,
    }
