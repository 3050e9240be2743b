"""Batch compile (issue 17): a folder, glob or list of documents through `ctxmill compile`,
one folder each, identical to compiling each file alone; the manifest, --resume, Parquet;
poison documents fail alone; a driver killed with SIGKILL resumes with every document done
exactly once. All inputs are generated here (no ../shared)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from _pdfgen import _assemble, make_pdf
from ctxmill.batch import manifest
from ctxmill.batch.compare import differences
from ctxmill.batch.inputs import expand, is_batch
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document
from ctxmill.render import write_outputs

CTXMILL = Path(sys.executable).with_name("ctxmill")
SAMPLE = Path(__file__).resolve().parents[1] / "src" / "ctxmill" / "samples" / "tidal-caching.txt"


def _paper(path: Path, title: str, words: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = f"The {words} method is described in this paragraph, which is long enough to be body text."
    return make_pdf(path, [
        [(title, 72, 80, 20, "Helvetica-Bold"), ("1 Introduction", 72, 140, 13, "Helvetica-Bold"),
         (body, 72, 170, 10), ("It continues on a second line and ends here with a full stop.", 72, 182, 10)],
        [("2 Results", 72, 80, 13, "Helvetica-Bold"), (body.replace("described", "measured"), 72, 110, 10)],
    ])


def _notes(path: Path, topic: str) -> Path:
    path.write_text(f"# Notes on {topic}\n\n## Background\n\nWhy {topic} matters, in a few plain sentences "
                    f"that make a paragraph.\n\n## Findings\n\nWhat we found about {topic} so far.\n")
    return path


def run(*args, env=None, timeout=240):
    return subprocess.run([str(CTXMILL), "compile", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def manifest_lines(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / "manifest.jsonl").read_text().splitlines() if ln.strip()]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """Two PDFs both called paper.pdf, the packaged OCR-text sample, a Markdown file; one batch."""
    root = tmp_path_factory.mktemp("batch")
    docs = root / "docs"
    _paper(docs / "a" / "paper.pdf", "Tidal Flow Sensors", "tidal")
    _paper(docs / "b" / "paper.pdf", "Granite Weathering Rates", "granite")
    shutil.copy(SAMPLE, docs / "tidal-caching.txt")
    _notes(docs / "notes.md", "batch compiles")
    (docs / "ignored.bib").write_text("@article{x, title={not an input}}\n")
    out = root / "out"
    r = run(docs, "-o", out, "--jobs", "2", "--json")
    return {"root": root, "docs": docs, "out": out, "r": r}


def test_a_folder_compiles_each_document_like_a_single_compile(collection):
    r, out, docs = collection["r"], collection["out"], collection["docs"]
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert (s["inputs"], s["done"], s["compiled"], s["skipped"]) == (4, 4, 4, 0)
    recs = manifest_lines(out)
    assert sorted(x["input"] for x in recs) == sorted(str(p) for p in [
        docs / "a" / "paper.pdf", docs / "b" / "paper.pdf", docs / "notes.md", docs / "tidal-caching.txt"])
    folders = {x["output"] for x in recs}
    assert len(folders) == 4 and all(f.startswith(("paper-", "notes-", "tidal-caching-")) for f in folders)
    for rec in recs:
        assert rec["status"] == "done" and len(rec["sha256"]) == 64 and rec["pages"] >= 1
        assert 0 <= rec["qa_score"] <= 100
        alone = collection["root"] / "alone" / rec["output"]
        options = CompileOptions()
        write_outputs(compile_document(Path(rec["input"]), options, name=rec["input"]), alone, options)
        assert differences(out / rec["output"], alone) == [], rec["input"]
    meta = json.loads((out / next(f for f in folders if f.startswith("notes-")) / "metadata.json").read_text())
    assert meta["source"]["path"] == str(docs / "notes.md")


def test_chunks_parquet_is_the_chunks_jsonl(collection):
    pq = pytest.importorskip("pyarrow.parquet")
    out = collection["out"]
    table = pq.read_table(out / "chunks.parquet").to_pylist()
    by_doc: dict[str, list[dict]] = {}
    for row in table:
        by_doc.setdefault(row["document_id"], []).append(row)
    recs = manifest_lines(out)
    assert set(by_doc) == {x["output"] for x in recs}
    for rec in recs:
        want = [json.loads(ln) for ln in (out / rec["output"] / "chunks.jsonl").read_text().splitlines()]
        got = []
        for row in by_doc[rec["output"]]:
            assert row["input"] == rec["input"] and row["sha256"] == rec["sha256"]
            c = {"id": row["chunk_id"], "text": row["text"], "tokens": row["tokens"], "kind": row["kind"],
                 "section_path": row["section_path"], "pages": [row["page_start"], row["page_end"]],
                 "char_span": [row["char_start"], row["char_end"]], "citations": row["citations"]}
            if row["context"] is not None:
                c["context"], c["context_llm"] = row["context"], row["context_llm"]
            got.append(c)
        assert got == want
        title = json.loads((out / rec["output"] / "metadata.json").read_text())["title"]
        assert {row["title"] for row in by_doc[rec["output"]]} == {title}
    refs = pq.read_table(out / "references.parquet")
    n_refs = sum(len(json.loads((out / x["output"] / "references.json").read_text())) for x in recs)
    assert refs.num_rows == n_refs > 0  # the OCR sample has a bibliography
    edges = pq.read_table(out / "citations.parquet").to_pylist()
    ids = {r["reference_id"] for r in refs.to_pylist()}
    assert edges and all(e["reference_id"] in ids for e in edges)


def test_a_fresh_batch_starts_a_new_manifest_and_a_torn_line_is_closed_off(tmp_path):
    path = tmp_path / "manifest.jsonl"
    with manifest.Writer(path) as w:
        w.append({"input": "a.pdf", "status": "done", "sha256": "1"})
    with open(path, "a") as fh:
        fh.write('{"input": "b.pdf", "sta')  # a line torn by power loss
    assert list(manifest.read(path)) == ["a.pdf"]
    with manifest.Writer(path) as w:
        w.append({"input": "b.pdf", "status": "refused", "sha256": "2", "reason": "junk"})
    assert manifest.read(path) == {"a.pdf": {"input": "a.pdf", "status": "done", "sha256": "1"},
                                   "b.pdf": {"input": "b.pdf", "status": "refused", "sha256": "2", "reason": "junk"}}
    with manifest.Writer(path, fresh=True) as w:
        w.append({"input": "c.pdf", "status": "done", "sha256": "3"})
    assert list(manifest.read(path)) == ["c.pdf"]


def test_glob_and_list_inputs_and_a_single_file_stays_single(collection, tmp_path):
    docs = collection["docs"]
    assert is_batch(str(docs)) and is_batch(str(docs / "*" / "*.pdf"))
    assert not is_batch(str(SAMPLE))  # an OCR text file is a document, not a list
    lst = tmp_path / "inputs.txt"
    lst.write_text(f"# two of them\n{docs / 'notes.md'}\n\n{os.path.relpath(docs / 'a' / 'paper.pdf', tmp_path)}\n")
    assert is_batch(str(lst)) and [i.path.name for i in expand(str(lst))] == ["notes.md", "paper.pdf"]
    assert len(expand(str(docs / "**" / "*.pdf"))) == 2
    out = tmp_path / "out"
    r = run(lst, "-o", out, "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "2 documents: 2 done" in r.stdout and len(manifest_lines(out)) == 2
    r = run(docs / "notes.md", "-o", tmp_path / "single")
    assert r.returncode == 0 and (tmp_path / "single" / "document.md").is_file()
    assert not (tmp_path / "single" / "manifest.jsonl").exists()
    r = run(docs / "notes.md", "-o", tmp_path / "x", "--jobs", "2")
    assert r.returncode == 2 and "many documents" in r.stderr
    r = run(str(tmp_path / "nothing-*.pdf"), "-o", tmp_path / "y")
    assert r.returncode == 3 and "no file matches" in r.stderr


def test_resume_skips_what_is_done_and_redoes_a_changed_file(collection):
    """Last of the tests on the shared collection: it changes the inputs."""
    docs, out = collection["docs"], collection["out"]
    exported = (out / "chunks.parquet").stat().st_mtime_ns
    r = run(docs, "-o", out, "--resume", "--json")
    s = json.loads(r.stdout)
    assert r.returncode == 0 and (s["skipped"], s["compiled"], s["done"]) == (4, 0, 4)
    assert (out / "chunks.parquet").stat().st_mtime_ns == exported  # up to date: not written again
    pq = pytest.importorskip("pyarrow.parquet")
    s = json.loads(run(docs, "-o", out, "--resume", "--embed", "--json").stdout)
    assert s["compiled"] == 0 and s["exported"]["chunks"]["embedder"]
    from ctxmill.index.embedders import get_embedder

    table = pq.read_table(out / "chunks.parquet").to_pylist()
    embedder = get_embedder(s["exported"]["chunks"]["embedder"])
    want = embedder.embed([row["text"] for row in table])
    assert [len(row["embedding"]) for row in table] == [embedder.dim] * len(table)
    assert max(abs(a - b) for row, w in zip(table, want, strict=True) for a, b in zip(row["embedding"], w, strict=True)) < 1e-6
    os.utime(docs / "notes.md")  # touched, same bytes: the hash says it is done
    _notes(docs / "notes2.md", "resumes")  # a new input
    s = json.loads(run(docs, "-o", out, "--resume", "--json").stdout)
    assert (s["skipped"], s["compiled"], s["done"]) == (4, 1, 5)
    _notes(docs / "notes.md", "changed minds")  # new bytes: compiled again into the same folder
    s = json.loads(run(docs, "-o", out, "--resume", "--json").stdout)
    assert (s["skipped"], s["compiled"]) == (4, 1)
    recs = manifest_lines(out)
    mine = [x for x in recs if x["input"] == str(docs / "notes.md")]
    assert len(mine) == 2 and mine[0]["output"] == mine[1]["output"] and mine[0]["sha256"] != mine[1]["sha256"]
    assert "changed minds" in (out / mine[1]["output"] / "document.md").read_text()


def _bomb(path: Path) -> Path:
    """1 MB of PDF whose page content inflates to 1 GB of spaces. Built in milliseconds: after a
    full flush deflate restarts, so every 1 MB block compresses to the same bytes; the zlib
    checksum of n spaces has a closed form."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = co.compress(b" " * (1 << 20)) + co.flush(zlib.Z_FULL_FLUSH)
    n = 1 << 30
    adler = ((n + 32 * n * (n + 1) // 2) % 65521) << 16 | (1 + 32 * n) % 65521
    data = b"\x78\xda" + block * 1024 + co.flush() + adler.to_bytes(4, "big")
    path.write_bytes(_assemble([
        b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1/MediaBox[0 0 612 792]>>",
        b"<</Type/Page/Parent 2 0 R/Contents 4 0 R>>",
        b"<</Length %d/Filter/FlateDecode>>stream\n" % len(data) + data + b"\nendstream"]))
    return path


def _endless(path: Path) -> Path:
    """One page of 200,000 text objects: parsing it takes minutes (here: past the time limit)."""
    ops = b"".join(b"BT /F1 9 Tf %d %d Td (w%d) Tj ET\n" % (i % 600, (i // 600) % 790, i) for i in range(200_000))
    data = zlib.compress(ops, 1)
    path.write_bytes(_assemble([
        b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1/MediaBox[0 0 612 792]>>",
        b"<</Type/Page/Parent 2 0 R/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
        b"<</Length %d/Filter/FlateDecode>>stream\n" % len(data) + data + b"\nendstream",
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>"]))
    return path


def _marked(mark: str) -> list[int]:
    """Processes whose environment carries ``mark``: the batch's workers and their PDF parsers
    (they inherit it), told apart from anyone else's on the machine."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if f"CTXMILL_TEST_MARK={mark}".encode() in (d / "environ").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def test_poison_documents_fail_alone_with_their_reason(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    _notes(docs / "good.md", "good input")
    (docs / "junk.txt").write_bytes(random.Random(7).randbytes(5000))
    _bomb(docs / "bomb.pdf")
    _endless(docs / "endless.pdf")
    out = tmp_path / "out"
    mark = f"poison-{os.getpid()}-{time.time()}"
    # 12 s: under a loaded CI machine the bomb needs seconds of CPU to reach its memory limit
    r = run(docs, "-o", out, "--jobs", "2", "--timeout", "12",
            env={"CTXMILL_PDF_MEMORY_MB": "512", "CTXMILL_TEST_MARK": mark})
    assert r.returncode == 3, r.stderr  # some refused or out of time, none failed
    by = {Path(x["input"]).name: x for x in manifest_lines(out)}
    assert by["good.md"]["status"] == "done"
    assert by["junk.txt"]["status"] == "refused" and "binary data" in by["junk.txt"]["reason"]
    assert by["bomb.pdf"]["status"] == "refused" and "memory" in by["bomb.pdf"]["reason"]
    assert by["endless.pdf"]["status"] == "timeout" and "12 s time limit" in by["endless.pdf"]["reason"]
    assert by["endless.pdf"]["sha256"] and by["endless.pdf"]["output"] is None
    assert "4 documents: 1 done (0 already done), 2 refused, 0 failed, 1 out of time" in r.stdout
    assert sorted(ln.split(":")[1].strip() for ln in r.stderr.splitlines() if ln.startswith("ctxmill: ")) == [
        "refused", "refused", "timeout"]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(
        ["manifest.jsonl", "chunks.parquet", "references.parquet", "citations.parquet", by["good.md"]["output"]])
    time.sleep(0.2)
    assert _marked(mark) == []  # the endless parse was stopped with its worker, nothing left running


@pytest.mark.parametrize("trial", range(2))  # benchmarks/batch.py does 10
def test_a_killed_driver_resumes_with_every_document_done_once(tmp_path, trial):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(8):
        _notes(docs / f"note{i}.md", f"topic number {i} " * (1 + i % 3))
    shutil.copy(SAMPLE, docs / "sample.txt")
    out = tmp_path / "out"
    proc = subprocess.Popen([str(CTXMILL), "compile", str(docs), "-o", str(out), "--jobs", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.Random(trial).uniform(0.5, 4.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    time.sleep(0.3)  # its workers die with it (PR_SET_PDEATHSIG)
    r = run(docs, "-o", out, "--resume", "--json")
    assert r.returncode == 0, r.stderr
    recs = manifest_lines(out)  # every line whole
    done = [x["input"] for x in recs if x["status"] == "done"]
    assert sorted(done) == sorted(str(p) for p in docs.iterdir())  # each exactly once
    assert not [p for p in out.iterdir() if ".tmp-" in p.name or ".old-" in p.name]
    for x in recs:
        folder = out / x["output"]
        assert json.loads((folder / "qa.json").read_text())["score"] == x["qa_score"]
        assert (folder / "bundle.zip").is_file() and (folder / "document.md").read_text().startswith("# ")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = pq.read_table(out / "chunks.parquet").num_rows
    assert rows == sum(len((out / x["output"] / "chunks.jsonl").read_text().splitlines()) for x in recs)


def test_jobs_counts_cores_so_page_workers_take_only_spare_ones(monkeypatch):
    """`--jobs N` uses N cores: one document per core, the PDF page workers only on cores no
    document needs (--jobs 1 must not spread a parse over a second core)."""
    from ctxmill.batch.driver import _worker_env

    monkeypatch.delenv("CTXMILL_PDF_WORKERS", raising=False)
    assert _worker_env(1, "local", 100) == {"CTXMILL_PDF_WORKERS": "1"}
    assert _worker_env(2, "local", 100) == {"CTXMILL_PDF_WORKERS": "1"}
    assert _worker_env(4, "local", 1) == {"CTXMILL_PDF_WORKERS": "4"}   # one long PDF: all four cores
    assert _worker_env(4, "local", 2) == {"CTXMILL_PDF_WORKERS": "2"}
    monkeypatch.setenv("CTXMILL_RAY_NUM_CPUS", "3")
    assert _worker_env(8, "ray", 100) == {"CTXMILL_PDF_WORKERS": "3"}
    monkeypatch.setenv("CTXMILL_PDF_WORKERS", "5")  # the user's own setting is kept
    assert _worker_env(1, "local", 100) == {}
