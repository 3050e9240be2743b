"""Plain Markdown -> pages. One page, or one per form feed (``\\f``); lines kept verbatim."""

from __future__ import annotations

from collections.abc import Iterable

from ctxmill.model import Line, Page, PageStream


def text_lines(texts: Iterable[str]) -> list[Line]:
    """One :class:`Line` per text line, lines of equal text sharing one object where most repeat.

    A line of text input has no geometry, spans or confidence, and no stage changes a Line in
    place (only the PDF road rebuilds its own lines), so equal lines are equal objects: blank
    lines, and the repeated lines of generated or hostile input (a million ``word`` lines),
    then cost a dict lookup instead of an object each (~1 us, most of reading such a file).
    """
    texts = texts if type(texts) is list else list(texts)
    if len(set(texts)) * 2 > len(texts):
        # mostly distinct lines (a file of 100,000 headings): the memo would only cost its
        # lookups and its growth, twice what the objects themselves cost
        return [Line(t) for t in texts]
    memo: dict[str, Line] = {}
    return [memo[t] if t in memo else memo.setdefault(t, Line(t)) for t in texts]


def read_markdown(text: str) -> PageStream:
    chunks = text.split("\f")
    pages = []
    for i, chunk in enumerate(chunks):
        # (split on "\n": no piece holds one, so each is its line verbatim)
        pages.append(Page(number=i + 1, lines=text_lines(chunk.split("\n"))))
    return PageStream(pages=pages, kind="markdown", declared_pages=len(pages), input_chars=len(text))
