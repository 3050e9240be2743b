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
    ("ctxmill.render.graph:write", lambda o: o.citations),  # references/citations/graph(.graphml)
    ("ctxmill.render.bibtex:write", lambda o: o.citations),  # references.bib
    ("ctxmill.render.csl_json:write", lambda o: o.citations),  # references.csl.json
    ("ctxmill.render.report:write", lambda o: True),  # qa.json, qa.md, metrics.json
    ("ctxmill.render.removed:write", lambda o: True),  # removed.json (text left out on purpose)
    ("ctxmill.render.bundle:write", lambda o: True),  # bundle.zip (last)
]


def _resolve(target: str):
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


def render_to(doc: Document, folder: Path, options: CompileOptions) -> list[str]:
    """Run every enabled renderer into an existing folder; return the file names written."""
    names: list[str] = []
    for target, when in RENDERERS:
        if when(options):
            names.extend(_resolve(target)(doc, folder, options))
    return names


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
