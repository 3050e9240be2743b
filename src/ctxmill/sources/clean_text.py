"""Make whatever text a PDF library returns a valid Python ``str`` for every later stage.

pdfium reports characters outside the Basic Multilingual Plane (math italic letters such as
U+1D461, emoji) as two UTF-16 code units, one index each, so a word read from it holds a
surrogate *pair* that Python keeps as two lone surrogates; a broken font can give a truly lone
one. Such a string cannot be encoded as UTF-8 (the sandbox reply, document.md, SQLite), so it
is repaired once here, at extraction: pairs are recombined into their character, lone halves
become U+FFFD, and control characters (other than tab, which becomes a space) are dropped.
Private-use glyphs are kept: they are valid text and the OCR check counts them as unmapped.
"""

from __future__ import annotations

import re

from ctxmill.model import OutlineEntry, Page

# What needs repair: any surrogate, or a C0/C1 control character (the text layer has no
# line breaks of its own; lines are built from geometry).
_NEEDS_REPAIR = re.compile("[\ud800-\udfff\x00-\x1f\x7f-\x9f]")
_CONTROLS = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """``text`` with surrogate pairs joined, lone surrogates as U+FFFD, controls removed."""
    if not _NEEDS_REPAIR.search(text):  # the common case: one regex scan, no copy
        return text
    if any("\ud800" <= c <= "\udfff" for c in text):
        # UTF-16 round trip: surrogatepass keeps both halves, the decoder joins a valid pair
        # and replaces what is left alone
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return _CONTROLS.sub("", text.replace("\t", " "))


def clean_pages(pages: list[Page]) -> None:
    """Repair every line and span text in place."""
    for page in pages:
        for line in page.lines:
            line.text = clean(line.text)
            for span in line.spans:
                span.text = clean(span.text)


def clean_outline(outline: list[OutlineEntry]) -> None:
    for entry in outline:
        entry.title = clean(entry.title)


def clean_info(info: dict) -> dict:
    return {clean(str(k)): clean(v) if isinstance(v, str) else v for k, v in info.items()}
