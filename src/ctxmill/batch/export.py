"""The batch as a corpus: every document's chunks, references and citation edges as Parquet.

``OUT/chunks.parquet`` (one row per chunk, with the document it came from), and
``OUT/references.parquet`` / ``OUT/citations.parquet`` (one row per bibliography entry, one
per (mention, reference) edge). Columns are plain Arrow types, so LanceDB, DuckDB, pgvector
loaders, Qdrant clients, pandas or polars read them as they are. Built from the documents'
own output files (chunks.jsonl, references.json, citations.json): the Parquet is the same
data, and a resumed batch exports without compiling anything again. Rows are streamed one
row group per few documents and each file is written beside its place, then renamed, so a
million-chunk corpus never sits in memory whole and a killed export leaves the old file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

_STR_LIST = pa.list_(pa.string())

CHUNKS = pa.schema([
    ("document_id", pa.string()),  # the document's output folder, <stem>-<short hash>
    ("input", pa.string()),
    ("sha256", pa.string()),
    ("title", pa.string()),
    ("chunk_id", pa.string()),
    ("kind", pa.string()),
    ("section_path", _STR_LIST),
    ("text", pa.string()),
    ("char_start", pa.int64()),  # span in the document's document.md
    ("char_end", pa.int64()),
    ("page_start", pa.int32()),
    ("page_end", pa.int32()),
    ("tokens", pa.int32()),
    ("citations", _STR_LIST),  # reference ids (references.parquet's reference_id)
    ("context", pa.string()),
    ("context_llm", pa.bool_()),
])

REFERENCES = pa.schema([
    ("document_id", pa.string()),
    ("reference_id", pa.string()),
    ("raw", pa.string()),
    ("authors", _STR_LIST),
    ("year", pa.string()),
    ("title", pa.string()),
    ("venue", pa.string()),
    ("doi", pa.string()),
    ("url", pa.string()),
    ("arxiv_id", pa.string()),
])

CITATIONS = pa.schema([
    ("document_id", pa.string()),
    ("chunk_id", pa.string()),
    ("reference_id", pa.string()),
    ("text", pa.string()),
    ("section_id", pa.string()),
    ("page", pa.int32()),
])

_ROWS_PER_GROUP = 50_000


def _s(v):
    return None if v is None else str(v)


def chunk_rows(doc_id: str, rec: dict, title: str | None, folder: Path) -> list[dict]:
    rows = []
    path = folder / "chunks.jsonl"
    if not path.exists():  # compiled with --no-chunks / --fast
        return rows
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            c = json.loads(line)
            rows.append({
                "document_id": doc_id, "input": rec["input"], "sha256": rec.get("sha256"), "title": title,
                "chunk_id": c["id"], "kind": c["kind"], "section_path": c["section_path"], "text": c["text"],
                "char_start": c["char_span"][0], "char_end": c["char_span"][1],
                "page_start": c["pages"][0], "page_end": c["pages"][1], "tokens": c["tokens"],
                "citations": c["citations"], "context": c.get("context"), "context_llm": c.get("context_llm"),
            })
    return rows


def reference_rows(doc_id: str, folder: Path) -> list[dict]:
    path = folder / "references.json"
    if not path.exists():
        return []
    return [{"document_id": doc_id, "reference_id": r["id"], "raw": r.get("raw"), "authors": r.get("authors") or [],
             "year": _s(r.get("year")), "title": r.get("title"), "venue": r.get("venue"), "doi": r.get("doi"),
             "url": r.get("url"), "arxiv_id": r.get("arxiv_id")}
            for r in json.loads(path.read_text("utf-8"))]


def citation_rows(doc_id: str, folder: Path) -> list[dict]:
    path = folder / "citations.json"
    if not path.exists():
        return []
    return [{"document_id": doc_id, "chunk_id": m.get("chunk_id"), "reference_id": rid, "text": m.get("text"),
             "section_id": m.get("section_id"), "page": m.get("page")}
            for m in json.loads(path.read_text("utf-8"))["mentions"] for rid in m.get("reference_ids") or []]


class _Sink:
    """One Parquet file written to a temporary name, row groups as rows pile up, then renamed."""

    def __init__(self, path: Path, schema: pa.Schema):
        self.path, self.schema = path, schema
        self.tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        self.writer = pq.ParquetWriter(self.tmp, schema, compression="zstd")
        self.rows: list[dict] = []
        self.count = 0

    def add(self, rows: list[dict]) -> None:
        self.rows.extend(rows)
        if len(self.rows) >= _ROWS_PER_GROUP:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.count += len(self.rows)
            self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        try:
            self.writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)


def _embedding_sink(path: Path, embedder, schema: pa.Schema) -> _Sink:
    return _Sink(path, schema.append(pa.field("embedding", pa.list_(pa.float32(), embedder.dim))))


def current(out_dir: Path, records: list[dict], embed: bool) -> dict | None:
    """The export as it stands when it is up to date: every file written after the manifest's
    last record, with the same documents and the embedding column as asked; else None."""
    try:
        since = (out_dir / "manifest.jsonl").stat().st_mtime_ns
        files = {name: out_dir / f"{name}.parquet" for name in ("chunks", "references", "citations")}
        if any(p.stat().st_mtime_ns < since for p in files.values()):
            return None
        meta = {name: pq.read_metadata(p) for name, p in files.items()}
    except (OSError, pa.ArrowException):
        return None
    chunks = meta["chunks"]
    if ("embedding" in chunks.schema.to_arrow_schema().names) != embed:
        return None
    stored = (chunks.metadata or {}).get(b"ctxmill.documents")
    if stored != _documents_key(records):
        return None
    return {name: {"path": str(files[name]), "rows": m.num_rows} for name, m in meta.items()}


def _documents_key(records: list[dict]) -> bytes:
    """Which document versions an export holds (stored in chunks.parquet's metadata)."""
    import hashlib

    h = hashlib.sha256()
    for r in records:
        h.update(f"{r['output']}\0{r.get('sha256')}\n".encode())
    return h.hexdigest().encode()


def write(out_dir: Path, records: list[dict], embed: bool = False) -> dict:
    """Export the done documents ``records`` (manifest records, in batch order)."""
    embedder = None
    if embed:
        from ctxmill.index.embedders import get_embedder

        embedder = get_embedder()
    chunks_schema = CHUNKS.with_metadata({b"ctxmill.documents": _documents_key(records)})
    sinks = {
        "chunks": _embedding_sink(out_dir / "chunks.parquet", embedder, chunks_schema) if embedder
        else _Sink(out_dir / "chunks.parquet", chunks_schema),
        "references": _Sink(out_dir / "references.parquet", REFERENCES),
        "citations": _Sink(out_dir / "citations.parquet", CITATIONS),
    }
    try:
        for rec in records:
            folder = out_dir / rec["output"]
            doc_id = rec["output"]
            try:
                title = json.loads((folder / "metadata.json").read_text("utf-8")).get("title")
            except (OSError, ValueError):
                title = None
            rows = chunk_rows(doc_id, rec, title, folder)
            if embedder is not None and rows:
                vectors = embedder.embed([r["text"] for r in rows])
                for r, v in zip(rows, vectors, strict=True):
                    r["embedding"] = v.tolist()
            sinks["chunks"].add(rows)
            sinks["references"].add(reference_rows(doc_id, folder))
            sinks["citations"].add(citation_rows(doc_id, folder))
        for s in sinks.values():
            s.close()
    except BaseException:
        for s in sinks.values():
            s.abort()
        raise
    out = {name: {"path": str(s.path), "rows": s.count} for name, s in sinks.items()}
    if embedder is not None:
        out["chunks"]["embedder"] = embedder.name
    return out
