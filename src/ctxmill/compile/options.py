"""Options of one compile, shared by the CLI, the web page, MCP and the Python API."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CompileOptions:
    chunks: bool = True  # chunks.jsonl
    citations: bool = True  # references/citations/graph
    fast: bool = False  # skip chunks and the citation graph
    include_source_text: bool = False  # add the source text to bundle.zip
    chunk_tokens: int = 400  # token budget per retrieval chunk
    ignore_pdf_links: bool = False  # build citations from the text alone, as for OCR input
    ocr: str = "auto"  # never | auto | always
    ocr_cache: bool = True  # keep/read each OCR'd page's engine output on disk (sources/ocr_cache.py)
    llm_url: str | None = None  # OpenAI-compatible base URL; None = no LLM
    llm_model: str | None = None
    llm_max_tokens: int = 8192  # per call; 8192-40960 is the useful range
    llm_api_key: str | None = None  # never written to any output
    engine: str | None = None  # raw OCR text: the engine that wrote it (--from); None = sniff it

    def __post_init__(self) -> None:
        if self.fast:
            self.chunks = False
            self.citations = False
        if self.ocr not in ("never", "auto", "always"):
            raise ValueError(f"ocr must be never, auto or always, not {self.ocr!r}")
        if self.engine is not None:
            from ctxmill.sources.engines import ENGINES

            if self.engine not in ENGINES:
                raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {self.engine!r}")
        if self.chunk_tokens < 32:
            raise ValueError("chunk_tokens must be at least 32")
