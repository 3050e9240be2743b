"""One document of a batch: compile it into its folder and say how it went.

The process pool's workers and the Ray tasks both call :func:`compile_one`, so a document
comes out the same whichever engine ran it, and the same as ``ctxmill compile FILE -o DIR``:
the same ``compile_document`` + ``write_outputs`` (all or nothing), and the same name in
metadata.json's source.path.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import fields
from pathlib import Path

from ctxmill.batch.manifest import sha256_file
from ctxmill.compile.options import CompileOptions
from ctxmill.errors import InputRefused


def options_to_dict(options: CompileOptions) -> dict:
    return {f.name: getattr(options, f.name) for f in fields(options)}


def options_from_dict(d: dict) -> CompileOptions:
    return CompileOptions(**d)


def task(name: str, path: Path, out_root: Path, folder: str, options: CompileOptions,
         env: dict[str, str] | None = None) -> dict:
    """What a worker needs, as plain JSON (it crosses a pipe or the Ray object store); ``env``:
    settings for the compile, put into the worker's environment first."""
    return {"name": name, "path": str(path), "out": str(out_root / folder), "folder": folder,
            "options": options_to_dict(options), "env": env or {}}


def one_line(text: str, limit: int = 300) -> str:
    first = " ".join(str(text).split())
    return first[:limit]


def compile_one(t: dict) -> dict:
    """Compile ``t`` (see :func:`task`); return its manifest record (all but what only the
    driver knows). Refused input and our own exceptions are verdicts, never raised."""
    from ctxmill.compile.pipeline import compile_document
    from ctxmill.render import write_outputs

    os.environ.update(t.get("env") or {})
    path, out = Path(t["path"]), Path(t["out"])
    t0 = time.perf_counter()
    rec: dict = {"input": t["name"], "sha256": None, "pages": 0, "output": None}
    try:
        st = path.stat()
        rec["size"], rec["mtime_ns"] = st.st_size, st.st_mtime_ns
        rec["sha256"] = sha256_file(path)
        options = options_from_dict(t["options"])
        doc = compile_document(path, options, name=t["name"])
        write_outputs(doc, out, options)
        rec.update(status="done", pages=doc.pages, qa_score=doc.qa.score, output=t["folder"])
    except InputRefused as exc:
        rec.update(status="refused", reason=one_line(exc))
    except FileNotFoundError as exc:
        rec.update(status="refused", reason=one_line(f"{t['name']}: no such file ({exc.strerror})"))
    except Exception as exc:  # a bug in our code: this document fails, the batch goes on
        rec.update(status="failed", reason=one_line(f"{type(exc).__name__}: {exc}"))
    if rec["status"] != "done" and out.exists():
        shutil.rmtree(out, ignore_errors=True)  # no stale outputs of an earlier version of the file
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec
