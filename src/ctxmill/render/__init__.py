"""Write a compiled Document to its output folder, all or nothing.

Each renderer is ``write(doc, folder, options) -> list[str]`` (the file names it wrote) and
only reads the model. Files are first written into a temporary sibling folder which then
replaces OUT in one rename, so a failed or killed compile never leaves half-written outputs.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document

# Order matters only for the bundle, which zips what the others wrote.
RENDERERS: list[tuple[str, Callable[[CompileOptions], bool]]] = [
    ("ctxmill.render.markdown:write", lambda o: True),  # document.md
    ("ctxmill.render.json_files:write", lambda o: True),  # metadata.json, sections.json
    ("ctxmill.render.chunks:write", lambda o: o.chunks),  # chunks.jsonl
    ("ctxmill.render.graph:write_references", lambda o: o.citations),  # references.json
    ("ctxmill.render.graph:write", lambda o: o.citations),  # citations.json, graph.json, graph.graphml
    ("ctxmill.render.bibtex:write", lambda o: o.citations),  # references.bib
    ("ctxmill.render.csl_json:write", lambda o: o.citations),  # references.csl.json
    ("ctxmill.render.report:write", lambda o: True),  # qa.json, qa.md, metrics.json
    ("ctxmill.render.removed:write", lambda o: True),  # removed.json (text left out on purpose)
    ("ctxmill.render.bundle:write", lambda o: True),  # bundle.zip (last)
]


def _resolve(target: str):
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


# With CTXMILL_BESIDE=1, a document with this many references has its references.json and
# references.csl.json written by a forked child while this process writes the other files
# (issue 26: a 16,666-entry list's exports are ~0.4 CPU-s, these two about half of it); fewer,
# and a fork would cost more than it saves. Off by default: see ctxmill.beside.
PARALLEL_MIN_REFERENCES = 2000
_BESIDE = ("ctxmill.render.graph:write_references", "ctxmill.render.csl_json:write")


def _render_some(doc: Document, folder: Path, options: CompileOptions, targets: list[str]) -> dict[str, list[str]]:
    return {t: _resolve(t)(doc, folder, options) for t in targets}


def render_to(doc: Document, folder: Path, options: CompileOptions) -> list[str]:
    """Run every enabled renderer into an existing folder; return the file names written."""
    targets = [target for target, when in RENDERERS if when(options)]
    done: dict[str, list[str]] = {}
    child = None
    if len(doc.references) >= PARALLEL_MIN_REFERENCES:
        from ctxmill import beside

        side = [t for t in targets if t in _BESIDE]
        child = beside.start(_render_some, doc, folder, options, side) if side else None
    try:
        for target in targets:
            if child is not None and target in side:
                continue
            if child is not None and target == "ctxmill.render.bundle:write":  # (zips what the others wrote)
                got = child.result()
                child = None
                done.update(_render_some(doc, folder, options, side) if got is beside.FAILED else got)
            done[target] = _resolve(target)(doc, folder, options)
    except BaseException:
        if child is not None:
            child.result()  # no child left writing into a folder the caller removes
        raise
    if child is not None:
        got = child.result()
        done.update(_render_some(doc, folder, options, side) if got is beside.FAILED else got)
    return [name for t in targets for name in done[t]]


def write_outputs(doc: Document, out_dir: str | Path, options: CompileOptions | None = None) -> dict[str, Path]:
    """Render every output into ``out_dir`` atomically; return {file name: path}."""
    options = options or CompileOptions()
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        names = render_to(doc, tmp, options)
        old = None
        if out_dir.exists():
            old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
            os.replace(out_dir, old)
        os.replace(tmp, out_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {name: out_dir / name for name in names}
