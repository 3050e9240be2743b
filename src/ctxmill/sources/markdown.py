"""Plain Markdown -> pages. One page, or one per form feed (``\\f``); lines kept verbatim."""

from __future__ import annotations

import re
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


# round33_ocr_rule.md O: an OCR engine that writes plain text (olmOCR, GOT-OCR) prints a heading as a
# line of its own, never as "#". Where the text has no Markdown heading at all, such a line is read
# as one: upper case before a numbered list or a prose paragraph, or "4.2 Title" before prose.
_ANY_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)|^[^\S\n]*(?:=+|-+)[^\S\n]*$", re.M)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,2}){1,3})\.? +[A-Z]\S*(?: +\S+)*")
_LIST_START = re.compile(r"\d{1,3}\.?(?: +\S|$)")


def plain_headings(text: str) -> str:
    """Mark the lone heading lines of Markdown that has no heading with "#" (nothing else changes)."""
    if _ANY_HEADING.search(text):
        return text
    lines = text.split("\n")
    n = len(lines)
    blank = [not ln.strip() for ln in lines]
    # (one backward pass, so the whole costs linear time on any input: the next non-blank line,
    # and the length of the paragraph that starts at each line)
    nxt = [n] * (n + 1)
    para = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        nxt[i] = nxt[i + 1] if blank[i] else i
        para[i] = 0 if blank[i] else len(lines[i]) + (1 + para[i + 1] if para[i + 1] else 0)
    out = list(lines)
    fence = ""  # the open code fence's marker: a line inside a fenced block is code, never a heading
    for i, line in enumerate(lines):
        t = line.strip()
        if t.startswith(("```", "~~~")):
            fence = "" if fence and t.startswith(fence) else fence or t[:3]
            continue
        if fence or not t or len(t) > 80 or t[-1] in ".,;" or line != line.lstrip() or "|" in t:
            continue
        upper = t.isupper() and sum(map(str.isupper, t)) >= 4  # (no lower-case letter)
        numbered = _NUMBERED.fullmatch(t)
        if not (upper or numbered):
            continue
        alone = (i == 0 or blank[i - 1]) and i + 1 < n and blank[i + 1]
        j = nxt[i + 1]  # the next non-blank line
        prose = alone and j < n and para[j] >= 100  # a one-line paragraph, then a paragraph of prose
        if upper and (prose or (j < n and _LIST_START.match(lines[j].strip()))):
            out[i] = "## " + t
        elif numbered and prose:
            out[i] = "#" * (numbered.group(1).count(".") + 2) + " " + t
    return "\n".join(out)
