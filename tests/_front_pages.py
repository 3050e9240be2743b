"""Title pages for the tests of compile/front.py: a page's rows (text, x, top, size, font) made
into a PDF with pdfium (tests/_pdfgen.make_pdf) and compiled the fast way, and the names the
compile read as authors. Each test file adds its own body under the title page's rows."""

from __future__ import annotations

from _pdfgen import make_pdf
from ctxmill.compile.options import CompileOptions
from ctxmill.compile.pipeline import compile_document

BODY = ("Running text of the introduction, long enough to read as the body of a paper and not as a "
        "title or a name, which goes on for a line or two.")


def compile_pages(tmp_path, pages):
    return compile_document(make_pdf(tmp_path / "p.pdf", pages), CompileOptions(fast=True))


def names(doc):
    return [a.name for a in doc.metadata.authors]
