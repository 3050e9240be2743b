"""Plain Markdown -> pages. One page, or one per form feed (``\\f``); lines kept verbatim."""

from __future__ import annotations

from ctxmill.model import Line, Page, PageStream


def read_markdown(text: str) -> PageStream:
    chunks = text.split("\f")
    pages = []
    for i, chunk in enumerate(chunks):
        # (split on "\n": no piece holds one, so each is its line verbatim)
        pages.append(Page(number=i + 1, lines=list(map(Line, chunk.split("\n")))))
    return PageStream(pages=pages, kind="markdown", declared_pages=len(pages), input_chars=len(text))
