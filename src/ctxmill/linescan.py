"""The lines of a text a pattern can start on, found in one search.

Raw OCR text has ~47,000 lines a MB, and most passes of the compile want the few lines a rule
could fire on. A pattern here is a line break followed by a lookahead that reads no further
than its line (``\\n(?=...)``), searched in the lines joined by line breaks after a first one:
Python's re looks for the break's character, where ``^`` under re.M is tried at every position
of the text (about 10x slower).
"""

from __future__ import annotations

import re


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
