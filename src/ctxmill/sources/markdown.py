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
# round34_ocr_rule.md G1: GOT-OCR writes a subsection's number on a line of its own above its title
_NUMBER_ONLY = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,3}")


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
        if fence or not t or out[i] is not line or len(t) > 80 or t[-1] in ".,;" or line != line.lstrip() or "|" in t:
            continue
        if _NUMBER_ONLY.fullmatch(t):
            _number_line(lines, out, blank, nxt, para, i)
            continue
        upper = t.isupper() and sum(map(str.isupper, t)) >= 4  # (no lower-case letter)
        numbered = _NUMBERED.fullmatch(t)
        if not (upper or numbered):
            continue
        alone = (i == 0 or blank[i - 1]) and i + 1 < n and blank[i + 1]
        if upper and not alone and (i == 0 or blank[i - 1]) and i + 1 < n and _glued_prose(lines[i + 1], para[i + 1]):
            # the heading line written directly above its paragraph's first line (no blank between)
            out[i] = "## " + t + "\n"
            continue
        j = nxt[i + 1]  # the next non-blank line
        prose = alone and j < n and para[j] >= 100  # a one-line paragraph, then a paragraph of prose
        if upper and (prose or (j < n and _LIST_START.match(lines[j].strip()))):
            out[i] = "## " + t
            if not prose:
                _bare_entries(lines, out, j)
        elif numbered and prose:
            out[i] = "#" * (numbered.group(1).count(".") + 2) + " " + t
    if out != lines:
        _title_line(lines, out, blank, nxt)
    return "\n".join(out)


_CAPTION = re.compile(r"(?:fig(?:ure)?|table|tab|algorithm|listing)\.?\s*[\dIVX]", re.I)


def _title_line(lines: list[str], out: list[str], blank: list[bool], nxt: list[int]) -> None:
    """Once a heading is marked, the structure stage takes a title only from a "#" line: the text's
    first line is marked "#" when it is the title of an article's top, a one-line paragraph that
    reads like a title (a capital first, 3-25 words, no sentence end but "?" or "!", no caption,
    address or number) over a one-line byline (2-8 words, no sentence end), then more text
    (the plain-text title a glued heading under it would otherwise have cost)."""
    n = len(lines)
    i = nxt[0]
    if i >= n or out[i] is not lines[i] or i + 1 >= n or not blank[i + 1]:
        return
    t = lines[i].strip()
    words = t.split()
    if not (3 <= len(words) <= 25 and len(t) <= 200 and t[0].isupper() and any(c.islower() for c in t)) \
            or t[-1] in ".,;:" or "@" in t or "http" in t.lower() or _CAPTION.match(t) or _NUMBERED.fullmatch(t) \
            or t.startswith(("#", "|", "-", "*", ">", "!")) or t[0].isdigit():
        return
    j = nxt[i + 1]
    if j >= n or out[j] is not lines[j] or j + 1 >= n or not blank[j + 1] or nxt[j + 1] >= n:
        return
    b = lines[j].strip()
    if not (2 <= len(b.split()) <= 8 and len(b) <= 80 and b[0].isupper()) or b[-1] in ".!?:;" or "@" in b:
        return
    out[i] = "# " + t


def _glued_prose(line: str, rest: int) -> bool:
    """A line that starts a sentence of prose (a capital, then a lower-case word) and the paragraph
    it opens holds 100 characters or more: the text under a heading line glued to it."""
    words = line.split()
    return rest >= 100 and len(words) >= 4 and words[0][:1].isupper() and any(c.islower() for c in words[0] + words[1])


def _number_line(lines: list[str], out: list[str], blank: list[bool], nxt: list[int], para: list[int],
                 i: int) -> None:
    """A dotted section number alone on its line ("2.1.1"), after a sentence's end (or a blank or
    the start), then its title line and a paragraph of prose: one heading of both lines' words,
    at the number's depth; the title line is emptied (round34_ocr_rule.md G1)."""
    n = len(lines)
    before = lines[i - 1].rstrip() if i else ""
    if before and before[-1] not in ".!?:":
        return
    j = nxt[i + 1] if i + 1 < n else n  # the title line
    if j >= n:
        return
    u = lines[j].strip()
    k = nxt[j + 1] if j + 1 < n else n  # the prose after it
    if not (2 <= len(u) <= 80 and u[0].isupper() and u[-1] not in ".,;" and "|" not in u) \
            or _NUMBER_ONLY.fullmatch(u) or k >= n or para[k] < 100:
        return
    t = lines[i].strip()
    out[i] = "#" * (t.count(".") + 2) + " " + t + " " + u
    out[j] = ""


_BARE_NUMBER = re.compile(r"(\d{1,3})(?:\s+(.*))?")


def _bare_entries(lines: list[str], out: list[str], j: int) -> None:
    """The list under an upper-case heading, numbered with bare numbers ("1 British ...", or
    "1" alone on its line above the entry: GOT-OCR), which the references stage reads as running
    text: one paragraph an entry, labelled "[n]" (round34_ocr_rule.md O2). A line opens an entry
    only with the next number in sequence ("17 http://..." is the wrap of "May 17"); other lines
    go on the entry before; the list ends at a blank line or an upper-case line."""
    m = _BARE_NUMBER.fullmatch(lines[j].strip())
    if m is None:
        return  # ("1." and "[1]" lists the references stage reads as they are)
    expect = int(m.group(1))
    entry = -1
    parts: list[str] = []  # the open entry's pieces, joined once (+= on a list item copies it each time)
    for k in range(j, len(lines)):
        s = lines[k].strip()
        m = _BARE_NUMBER.fullmatch(s)
        if m and int(m.group(1)) == expect:
            if entry >= 0:
                out[entry] = " ".join(parts)
            parts = [("\n" if entry >= 0 else "") + f"[{expect}]"] + ([m.group(2)] if m.group(2) else [])
            entry, expect = k, expect + 1
        elif not s or (s.isupper() and sum(map(str.isupper, s)) >= 4):
            if s:
                out[k] = "\n" + lines[k]  # (a paragraph of its own, not the last entry's end)
            break
        else:
            parts.append(s)
            out[k] = ""
    out[entry] = " ".join(parts)
