"""Documents in the tree: PDFs go through the document compiler, Markdown by headings."""

from __future__ import annotations

from pathlib import Path

from ctxmill.index import search, sync_index
from ctxmill.index.store import Store


def test_pdf_in_tree_is_compiled_into_document_chunks(tmp_path: Path):
    from _pdfgen import make_pdf

    root = tmp_path / "repo"
    root.mkdir()
    make_pdf(root / "spec.pdf", [[
        ("1 Introduction", 72, 72, 16, "Helvetica-Bold"),
        ("The flux capacitor stores temporal displacement energy for later use.", 72, 110, 11),
        ("It must be recharged after every jump through the continuum.", 72, 126, 11),
    ]])
    (root / "main.py").write_text("def jump():\n    return 88\n")
    r = sync_index(root, db_path=tmp_path / "i.db")
    assert r.files_scanned == 2 and not r.warnings
    with Store(tmp_path / "i.db") as s:
        rows = s.conn.execute("SELECT kind, language, start_line, end_line, text FROM chunks WHERE path='spec.pdf'").fetchall()
    assert rows and all(k == "document" and lang == "pdf" for k, lang, *_ in rows)
    assert all(a == b == 1 for _, _, a, b, _ in rows)  # page numbers
    hit = search("flux capacitor temporal energy", root, db_path=tmp_path / "i.db", k=1)[0]
    assert hit.path == "spec.pdf" and "flux capacitor" in hit.text


def test_broken_pdf_is_recorded_not_fatal(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "broken.pdf").write_bytes(b"%PDF-1.7\n this is not really a pdf \x00\x01")
    (root / "ok.md").write_text("# Title\n\nSome words here.\n")
    r = sync_index(root, db_path=tmp_path / "i.db")
    assert any(w.startswith("broken.pdf: document not compiled") for w in r.warnings)
    with Store(tmp_path / "i.db") as s:
        assert s.file_rows()["broken.pdf"][4] == "failed"
    again = sync_index(root, db_path=tmp_path / "i.db")
    assert again.files_changed == 0 and not again.warnings  # not retried until it changes


def test_markdown_sections_with_heading_path(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    body = "word " * 40
    (root / "guide.md").write_text(f"# Guide\n\n{body}\n\n## Install\n\n{body} pip install\n\n## Usage\n\n{body}\n")
    sync_index(root, db_path=tmp_path / "i.db")
    hits = search("pip install", root, db_path=tmp_path / "i.db", k=3)
    assert hits[0].symbol == "Guide > Install" and hits[0].kind == "document"
    assert (hits[0].start_line, hits[0].end_line) == (5, 7)
