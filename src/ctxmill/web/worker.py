"""One web compile job, run as its own process: ``python -m ctxmill.web.worker [JOB_DIR]``.

Without JOB_DIR it starts as a warm spare: it imports the pipeline, then reads one line
``{"job_dir", "api_key"}`` from stdin and runs that job (the job store keeps one spare ready
so a job does not wait for Python to start).

Reads ``JOB_DIR/job.json``, compiles ``JOB_DIR/<input>`` with the same core functions as the
CLI, writes the outputs into ``JOB_DIR/out`` (atomically, via ``write_outputs``) and prints
one JSON object per line on stdout: ``{"event": "stage", "stage", "state", "t"}`` while it
runs, then ``{"event": "done", "files", "summary"}`` or ``{"event": "error", "kind",
"message"}``. Exit 0 done, 3 input refused, 1 anything else.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

from ctxmill.procs import collect_rarely


def _emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _limit(res: int, value: int) -> None:
    # Only ever lower a limit: the server may already run under tighter ones.
    soft, hard = resource.getrlimit(res)
    if hard != resource.RLIM_INFINITY and value > hard:
        value = hard
    if soft == resource.RLIM_INFINITY or value < soft:
        resource.setrlimit(res, (value, hard))


def _warm_up() -> None:
    """Import every stage and renderer (and load the tokenizer) before a job arrives."""
    import importlib

    from ctxmill.compile.pipeline import STAGES
    from ctxmill.render import RENDERERS

    for target in [t for _, t, _ in STAGES] + [t for t, _ in RENDERERS]:
        try:
            importlib.import_module(target.split(":")[0])
        except Exception:  # a stage that cannot import fails its job later, with the reason
            pass
    try:
        from ctxmill.tokens import preload

        preload()
    except Exception:
        pass


def main(argv: list[str]) -> int:
    # One compile, then exit, as `ctxmill compile` (entry.py): collect cyclic garbage less
    # often. At the default threshold (700) the collector took 10-40% more CPU on 1 MB of raw
    # OCR lines (millions of short-lived objects, almost no cycles).
    collect_rarely()
    api_key = os.environ.get("CTXMILL_LLM_API_KEY") or None
    if argv:
        job_dir = Path(argv[0])
    else:
        # A warm spare: get ready, then wait for {"job_dir", "api_key"} on stdin (the key
        # travels this way so that it is never in a file or in the environment).
        _warm_up()
        line = sys.stdin.readline()
        if not line.strip():
            return 0
        order = json.loads(line)
        job_dir = Path(order["job_dir"])
        api_key = order.get("api_key") or None
    spec = json.loads((job_dir / "job.json").read_text())
    if spec.get("memory_limit_mb"):
        _limit(resource.RLIMIT_AS, int(spec["memory_limit_mb"]) * 1024 * 1024)
    if spec.get("cpu_limit_s"):
        _limit(resource.RLIMIT_CPU, int(spec["cpu_limit_s"]))

    from ctxmill.compile.options import CompileOptions
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.counts import counts
    from ctxmill.errors import CtxmillError, InputRefused
    from ctxmill.render import write_outputs

    def progress(stage: str, state: str) -> None:
        _emit({"event": "stage", "stage": stage, "state": state, "t": time.time()})

    try:
        options = CompileOptions(**spec["options"], llm_api_key=api_key)
        source = job_dir / spec["input"]
        from ctxmill.sources.sandbox import page_progress

        def pages(what: str, done: int, total: int) -> None:
            _emit({"event": "pages", "what": what, "done": done, "total": total, "t": time.time()})

        with page_progress(pages):  # a PDF's pages read and OCRed, as the sandbox reads them
            doc = compile_document(source, options, progress, kind=spec.get("kind"), name=spec.get("name"))
        progress("write", "start")
        written = write_outputs(doc, job_dir / "out", options)
        progress("write", "done")
    except InputRefused as exc:
        _emit({"event": "error", "kind": "refused", "message": str(exc)})
        return 3
    except CtxmillError as exc:
        _emit({"event": "error", "kind": "failed", "message": str(exc)})
        return 1
    except MemoryError:
        _emit({"event": "error", "kind": "failed", "message": "the compile ran out of memory"})
        return 1
    except Exception as exc:  # report one readable line; the traceback goes to worker.log
        import traceback

        traceback.print_exc()
        _emit({"event": "error", "kind": "failed", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    _emit({
        "event": "done",
        "files": sorted(written),
        "summary": {
            "title": doc.metadata.title,
            "declared_pages": doc.stream.declared_pages,
            "source_kind": doc.stream.kind,
            **counts(doc),  # the same counts as the CLI summary and metrics.json
            "seconds": round(doc.metrics.total_seconds, 4),
        },
    })
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Outputs are written and closed by now; skip the interpreter's teardown (it took a few
    # hundred ms: thread pools, module finalisers) so the job is seen as done at once.
    os._exit(code)
