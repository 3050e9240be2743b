"""Stage order of one compile: source -> blocks -> refining stages -> rendered model.

Each stage is ``run(doc, options) -> None`` over the shared :class:`Document`; this module
only decides the order, which stages an option turns off, and times each one.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from pathlib import Path

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, PageStream

# progress(stage_name, state) where state is "start" or "done"
Progress = Callable[[str, str], None]

# (name, "module:function", when) -- `when` decides from the options whether the stage runs.
STAGES: list[tuple[str, str, Callable[[CompileOptions], bool]]] = [
    ("slides", "ctxmill.compile.slides:run", lambda o: True),  # a deck's overlay pages merged (slides.py)
    ("blocks", "ctxmill.compile.blocks:run", lambda o: True),
    ("normalize", "ctxmill.compile.normalize:run", lambda o: True),
    ("structure", "ctxmill.compile.structure:run", lambda o: True),
    ("metadata", "ctxmill.compile.metadata:run", lambda o: True),
    ("references", "ctxmill.compile.references:run", lambda o: o.citations),
    ("figures", "ctxmill.compile.figures:run", lambda o: True),  # names the PDF child's figure crops
    ("markdown", "ctxmill.render.markdown:run", lambda o: True),
    ("chunks", "ctxmill.render.chunks:run", lambda o: o.chunks),
    ("citations", "ctxmill.compile.citations:run", lambda o: o.citations),
    ("conservation", "ctxmill.compile.conservation:run", lambda o: True),  # words in vs out (issue 21)
    ("quality", "ctxmill.compile.quality:run", lambda o: True),
    # Optional: LLM repair of QA-flagged paragraphs + chunk context headers (re-runs markdown..quality).
    ("llm", "ctxmill.compile.llm_enhance:run", lambda o: bool(o.llm_url)),
]


def _resolve(target: str) -> Callable[[Document, CompileOptions], None]:
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


def import_stages(options: CompileOptions) -> None:
    """Import the modules of the stages ``options`` enables and of the renderers, and load the
    reference parser's model (no stage runs): what a process's first compile would otherwise
    load on its way, one after the other (the parser and numpy alone ~0.35 G instructions)."""
    for _, target, when in STAGES:
        if when(options):
            importlib.import_module(target.split(":")[0])
    from ctxmill.render import RENDERERS

    for target, when in RENDERERS:
        if when(options):
            importlib.import_module(target.split(":")[0])
    if options.citations:
        from ctxmill.compile.refparse import model

        model.load()  # its weights and word lists, read once per process


def compile_stream(
    stream: PageStream, options: CompileOptions | None = None, progress: Progress | None = None
) -> Document:
    """Run every enabled stage over a page stream and return the finished Document."""
    options = options or CompileOptions()
    doc = Document(stream=stream)
    for name, target, when in STAGES:
        if not when(options):
            continue
        if progress:
            progress(name, "start")
        t0 = time.perf_counter()
        _resolve(target)(doc, options)
        doc.metrics.stages[name] = time.perf_counter() - t0
        if progress:
            progress(name, "done")
    return doc


def compile_document(
    source: str | Path | bytes,
    options: CompileOptions | None = None,
    progress: Progress | None = None,
    *,
    kind: str | None = None,
    name: str | None = None,
) -> Document:
    """Compile a PDF, raw OCR text or Markdown (a path, or the bytes themselves).

    Raises :class:`ctxmill.errors.InputRefused` for input that cannot be compiled.
    """
    from ctxmill.sources import load_source

    options = options or CompileOptions()
    t0 = time.perf_counter()
    preloaded: list[bool] = []

    def preload() -> None:  # the chunk tokenizer loads on a thread while other work goes on
        if options.chunks and not preloaded:
            from ctxmill.tokens import preload as start

            start()
            preloaded.append(True)

    def meanwhile() -> None:
        preload()
        import_stages(options)

    if progress:
        progress("source", "start")
    # a PDF is read in a child process; this process imports its stages meanwhile (a fresh
    # `ctxmill compile` otherwise imports them after the source, one after the other)
    stream = load_source(source, options, kind=kind, name=name, meanwhile=meanwhile)
    # Text (and a PDF read without a child, CTXMILL_PDF_SANDBOX=0) starts the load only now:
    # started before, it ran beside the reading of text the limits then refused, and a refusal
    # cost twice the CPU whenever the thread got in first; read in this thread, the text gains
    # nothing from it. A PDF read by the child starts it in meanwhile() above, after the child's
    # request is written: tokenizers' Rust load holds the GIL for its whole ~0.4 G instructions,
    # so started earlier it could keep this thread from writing that request while the child waited
    preload()
    source_seconds = time.perf_counter() - t0
    if progress:
        progress("source", "done")
    doc = compile_stream(stream, options, progress)
    doc.metrics.stages = {"source": source_seconds, **doc.metrics.stages}
    doc.metrics.total_seconds = time.perf_counter() - t0
    doc.metrics.pages = doc.pages
    doc.metrics.input_chars = stream.input_chars
    doc.metrics.chunks = len(doc.chunks)
    return doc
