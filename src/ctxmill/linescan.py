"""The lines of a text a pattern can start on, found in one search.

Raw OCR text has ~47,000 lines a MB, and most passes of the compile want the few lines a rule
could fire on. A pattern here is a line break followed by a lookahead that reads no further
than its line (``\\n(?=...)``), searched in the lines joined by line breaks after a first one:
Python's re looks for the break's character, where ``^`` under re.M is tried at every position
of the text (about 10x slower).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, compress, repeat
from operator import add


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


def text_hits(texts: list[str], pattern: re.Pattern | None, folded: re.Pattern | None = None) -> list[int]:
    """Indices (ascending, once each) of the ``texts`` holding a match of ``pattern``, or of
    ``folded`` in their lower-case form, searched once in the texts joined by line breaks after
    a first one, not a step per text. A pattern matches no line break but perhaps the one
    before its line (``\\n(?=...)``, reading no further than its line); a text of several lines
    is always returned (and every text where lower-casing would move a character)."""
    if not texts:
        return []
    joined = "\n" + "\n".join(texts)
    found: set[int] = set()
    one_line = joined.count("\n") == len(texts)  # one line each: a text's index is its line's
    starts = None if one_line else list(map(add, accumulate(map(len, texts), initial=0), range(len(texts) + 1)))
    for pat, text in ((pattern, joined), (folded, None)):
        if pat is None:
            continue
        if text is None:
            text = joined.replace("\u0130", "I").lower()  # (the one character whose lower case is two)
            if len(text) != len(joined):
                return list(range(len(texts)))
        if one_line:
            at = k = 0
            for m in pat.finditer(text):
                p = m.start() + 1
                k += text.count("\n", at, p)  # (the breaks up to p's line's own: its number + 1)
                at = p
                found.add(k - 1)
        else:
            found.update(bisect_right(starts, m.start()) - 1 for m in pat.finditer(text))
    if not one_line:
        found.update(compress(range(len(texts)), map(str.__contains__, texts, repeat("\n"))))
    return sorted(found)
