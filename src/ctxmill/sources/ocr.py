"""Placeholder for OCR of image-only pages (issue 9 replaces it).

``apply(pdf_path, pages, options)`` gets the pages extracted from a PDF's text layer and
returns the page list to use: today it returns them unchanged (pages without a text layer
stay empty and are reported by QA).
"""

from __future__ import annotations

from ctxmill.compile.options import CompileOptions
from ctxmill.model import Page


def apply(pdf_path: str, pages: list[Page], options: CompileOptions, progress=None) -> list[Page]:
    return pages
