"""The lines of a text a pattern can start on, found in one search.

Raw OCR text has ~47,000 lines a MB, and most passes of the compile want the few lines a rule
could fire on. A pattern here is a line break followed by a lookahead that reads no further
than its line (``\\n(?=...)``), searched in the lines joined by line breaks after a first one:
Python's re looks for the break's character, where ``^`` under re.M is tried at every position
of the text (about 10x slower).

Two helpers give a whole-text ``^\\s*X`` pattern under re.M its exact answer without reading a run of
blank lines once per line start (N^2/2 steps): :func:`sub_at_line_starts` (``re.sub``) and
:func:`finditer_lines` (``re.finditer``).
"""

from __future__ import annotations

import functools
import re
from itertools import compress, repeat


def line_hits(pattern: re.Pattern, joined: str) -> list[int]:
    """Indices (ascending) of the lines whose line break ``pattern`` matches, in ``joined`` =
    ``"\\n" + "\\n".join(lines)``: line 0 is the one after the first break."""
    out = []
    at = k = 0
    for m in pattern.finditer(joined):
        p = m.start()
        k += joined.count("\n", at, p)  # (the breaks before p, the first one included: p's line)
        at = p
        out.append(k)
    return out


def line_hits_group(pattern: re.Pattern, joined: str) -> tuple[list[int], list[int]]:
    """:func:`line_hits`, and the indices among them where the pattern's one group took part in
    the match (one search answers two questions: a rule a line may meet, and which rule)."""
    out: list[int] = []
    marked: list[int] = []
    at = k = 0
    for m in pattern.finditer(joined):
        p = m.start()
        k += joined.count("\n", at, p)  # (as line_hits)
        at = p
        out.append(k)
        if m.lastindex:  # (an attribute: no method call per line)
            marked.append(k)
    return out, marked


def one_line_each(texts: list[str]) -> tuple[str, list[int]]:
    """``"\\n" + "\\n".join(texts)``, with each text of several lines joined as an empty line, and
    the indices of those texts: every other text is then one line and its index its line's. A
    search places no match inside such a text by a bisection only to throw it away (a LaTeX or
    HTML soup has a match or more at most of its lines): the callers return those texts whatever
    is found in them."""
    several = list(compress(range(len(texts)), map(str.__contains__, texts, repeat("\n"))))
    if several:
        texts = texts[:]
        for k in several:
            texts[k] = ""
    return "\n" + "\n".join(texts), several


def text_hits(texts: list[str], pattern: re.Pattern | None, folded: re.Pattern | None = None) -> list[int]:
    """Indices (ascending, once each) of the ``texts`` holding a match of ``pattern``, or of
    ``folded`` in their lower-case form, searched once in the texts joined by line breaks after
    a first one, not a step per text. A pattern matches no line break but perhaps the one
    before its line (``\\n(?=...)``, reading no further than its line); a text of several lines
    is always returned (and every text where lower-casing would move a character)."""
    if not texts:
        return []
    joined, several = one_line_each(texts)
    if several and folded is not None and any(len(texts[k].replace("\u0130", "I").lower()) != len(texts[k])
                                              for k in several):
        return list(range(len(texts)))
    found: set[int] = set(several)
    for pat, text in ((pattern, joined), (folded, None)):
        if pat is None:
            continue
        if text is None:
            text = joined.replace("\u0130", "I").lower()  # (the one character whose lower case is two)
            if len(text) != len(joined):
                return list(range(len(texts)))
        at = k = 0
        for m in pat.finditer(text):
            p = m.start() + 1
            k += text.count("\n", at, p)  # (the breaks up to p's line's own: its number + 1)
            at = p
            found.add(k - 1)
    return sorted(found)


def sub_at_line_starts(rx: re.Pattern, lead: str, repl, text: str) -> str:
    """``rx.sub(repl, text)`` for ``rx`` under re.M of the form ``^\\s*`` (or ``^(\\s*)``) then a
    part every match of which starts with a match of the regex ``lead`` (its first character no
    blank). Only a ``lead`` with nothing but blanks before it on its line can be matched; the regex
    engine's leftmost match for it starts at the first line start of the blanks before it (a try at
    a later line start of them reads the same ``lead`` and ends the same way): that one place is
    tried, and the search goes on after the match, as re.sub's does."""
    out: list[str] = []
    pos = 0  # where the last match ended (re.sub searches on from there)
    seen = 0  # where the last such ``lead`` ended: no blank run reaches back past it
    for f in _line_lead(lead).finditer(text):
        at = f.start(1)
        if at >= pos:
            lo = max(pos, seen)
            run = lo + len(text[lo:at].rstrip())  # the blanks right before ``lead`` start here
            if run == lo and (lo == 0 or text[lo - 1] == "\n"):
                start = lo
            else:
                # (0: the line start is before ``lo``, inside the last match: re.sub reads on from there)
                start = text.find("\n", run, at) + 1
            m = rx.match(text, start) if start or lo == 0 else None
            if m:
                out.append(text[pos:m.start()])
                out.append(repl(m) if callable(repl) else m.expand(repl))
                pos = m.end()
        seen = f.end()
    out.append(text[pos:])
    return "".join(out)


@functools.lru_cache(maxsize=16)
def _line_lead(lead: str) -> re.Pattern:
    """``lead`` where only blanks come before it on its line (each line's own blanks: linear)."""
    return re.compile(r"^[^\S\n]*(" + lead + ")", re.M)


_ANCHOR = r"^\s*"
# a `^\s*` branch kept only on a line that is not whitespace-only (there `\s*` cannot cross its end)
_ANCHOR_ON_A_LINE = r"^(?![^\S\n]*(?:\n|\Z))[^\S\n]*"
_BLANK_LINE = re.compile(r"^[^\S\n]*(?:\n|\Z)", re.M)
_BLANKS = re.compile(r"\s*")
_RUN_LINES = 32
_LONG_RUN = re.compile(rf"\n(?:[^\S\n]*\n){{{_RUN_LINES}}}")
_LONG_RUN_FIRST = re.compile(rf"(?:[^\S\n]*\n){{{_RUN_LINES}}}")


@functools.lru_cache(maxsize=256)
def _finditer_full(pattern: str, flags: int) -> re.Pattern:
    if re.search(r"(?<![\[\\])\^(?!\\s\*)", pattern):
        raise ValueError("every '^' of the pattern must open a '^\\s*' branch")
    return re.compile(pattern, flags | re.M)


@functools.lru_cache(maxsize=64)
def _finditer_lines(pattern: str, flags: int) -> re.Pattern:
    return re.compile(pattern.replace(_ANCHOR, _ANCHOR_ON_A_LINE), flags | re.M)


def finditer_lines(pattern: str, text: str, flags: int = 0):
    """The Match objects of ``re.finditer(pattern, text, flags | re.M)`` (the same spans and
    groups, each the pattern's own match at its start), for a pattern that matches no empty string
    and holds ``^`` only as ``^\\s*``, without reading a run of blank lines once per line start.

    Among the line starts of a run of whitespace-only lines at or after the scan position, a
    ``^\\s*`` branch can only succeed at the first (as in :func:`sub_at_line_starts`: from there
    ``\\s*`` consumes all a later one's does, and the rest of the pattern reads the same text), so
    that line start alone is tried with the whole pattern; everywhere else ``^\\s*`` is a line's own
    blanks on a line that is not whitespace-only (the same tries), searched in one pass."""
    full = _finditer_full(pattern, flags)
    if not (_LONG_RUN.search(text) or _LONG_RUN_FIRST.match(text)):
        # no run of more blank lines than _RUN_LINES: re.finditer reads each run at most that many
        # times (linear), in one pass of the regex engine (the scan below costs ordinary files
        # ~1.3-1.5x CPU: a Python step per blank run, round34_f3_rule.md)
        yield from full.finditer(text)
        return
    lines = _finditer_lines(pattern, flags)
    pos, size = 0, len(text)
    while pos <= size:
        other = lines.search(text, pos)
        limit = other.start() if other else size + 1
        found = None
        blank = _BLANK_LINE.search(text, pos)
        while blank is not None and blank.start() < limit:
            found = full.match(text, blank.start())
            if found:
                break
            # the run's other line starts fail as this one did: the next try is the next blank line
            # after the first line that is not whitespace-only
            end = text.find("\n", _BLANKS.match(text, blank.start()).end())
            blank = _BLANK_LINE.search(text, end + 1) if end >= 0 else None
        if found is None and other is not None:
            found = full.match(text, other.start())
        if found is None:
            return
        yield found
        pos = found.end() if found.end() > found.start() else found.end() + 1
