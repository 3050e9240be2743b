"""Issue 26, cost per item: the large exports of a text with many items (references.json,
citations.json, graph.json, graph.graphml, references.csl.json, references.bib) are written from
their pieces, never held as one whole string (each copy of a 36 MB citations.json was fresh
memory: ~0.2-0.5 s of system time a file). Measured as memory, not time: the most Python holds
at once while a file is written, against the file's size. Same text as the *_text functions."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import pytest

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Document, PageStream, Reference, Unresolved
from ctxmill.render import bibtex, csl_json, graph, textfile


def _doc(**kw) -> Document:
    return Document(stream=PageStream(pages=[], kind="markdown"), **kw)


def _peak(write) -> int:
    """The most memory Python held at once (bytes, above what it held before) while ``write`` ran."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        write()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def test_citations_json_is_written_in_pieces(tmp_path: Path):
    # a page of cross-references to nothing: an unresolved item a reference (fuzz.py's crossrefs)
    doc = _doc()
    doc.unresolved = [Unresolved(text=f"Section {i} " + "and its subsection " * 8, kind="crossref",
                                 reason=f"no section numbered {i}", page=1 + i // 500, section_id=None)
                      for i in range(20_000)]
    peak = _peak(lambda: graph.write(doc, tmp_path, CompileOptions()))
    path = tmp_path / "citations.json"
    text = path.read_text(encoding="utf-8")
    assert text == graph.citations_text(doc) + "\n"
    assert len(json.loads(text)["unresolved"]) == 20_000
    # the rows' texts are held (about the file's size), the whole text never (cf96838: ~2x the file)
    assert peak < 1.6 * path.stat().st_size, (peak, path.stat().st_size)


def test_reference_exports_are_written_in_pieces(tmp_path: Path):
    # a long list: every entry past the labeller's limit is a bare one (fuzz.py's refs)
    doc = _doc(references=[Reference(id=f"ref-{i}", raw=f"[{i}] A. Author, B. Writer. A title {i}. "
                                     + "In Proc. X, 2020. " * 15, page=1) for i in range(20_000)])
    for write, name, whole in ((graph.write, "references.json", lambda: graph.references_text(doc) + "\n"),
                               (csl_json.write, "references.csl.json", lambda: csl_json.csl_text(doc) + "\n"),
                               (bibtex.write, "references.bib", lambda: bibtex.bibtex(doc))):
        peak = _peak(lambda write=write: write(doc, tmp_path, CompileOptions()))
        path = tmp_path / name
        assert path.read_text(encoding="utf-8") == whole(), name
        # (cf96838: 2.1-2.4x the file; now 1.1-1.4x: the entries' texts and one batch of them)
        assert peak < 1.6 * path.stat().st_size, (name, peak, path.stat().st_size)
    graphml = (tmp_path / "graph.graphml").read_text(encoding="utf-8")
    assert graphml == graph._graphml(*graph._parts(doc))
    assert graphml.count("<node ") == 20_001


@pytest.mark.parametrize("seed", range(5))
def test_textfile_writes_what_text_gives(tmp_path: Path, seed: int):
    rnd = random.Random(seed)
    words = ["", "a", "\n", "é東", "\r\n", "\ud7ff", "x" * 700, ",\n  "]
    segments = []
    for _ in range(rnd.randrange(1, 8)):
        if rnd.random() < 0.4:
            segments.append(rnd.choice(words))
        else:
            n = rnd.choice([0, 1, 2, 511, 512, 513, 1500])
            segments.append(([rnd.choice(words) for _ in range(n)], rnd.choice(["", "\n", ",\n    "])))
    path = tmp_path / "out.txt"
    textfile.write(path, segments)
    assert path.read_bytes() == textfile.text(segments).encode("utf-8")
