"""Logos typeset from letters of several sizes, read back as the word they print.

TeX's ``\\LaTeX`` is an 'L', a small capital 'A' raised over it, then 'T', a lowered 'E' and 'X':
a text layer gives the three runs 'L', 'A' (in smaller type, above the baseline: flagged as a
superscript) and 'TEX'. Read as a superscript the 'A' becomes a note's mark ('L[^A]TEX') or,
on a title page, an author's mark that splits the title ('L' ... 'TEX'). Both stages that read
a line's runs (blocks.span_text, front._tline) put the logo back first.
"""

from __future__ import annotations

from dataclasses import replace

from ctxmill.model import Line, Span


def _logo_at(spans: list[Span], k: int) -> bool:
    """spans[k] is the raised 'A' of a LaTeX logo: after a run ending in 'L' and before one
    opening with 'TEX' (or 'TeX'), in smaller type than both and touching them (the logo's
    kerning overlaps the boxes)."""
    if not 0 < k < len(spans) - 1:
        return False
    a, left, right = spans[k], spans[k - 1], spans[k + 1]
    if a.text.strip() != "A" or not left.text.endswith("L") or not right.text.startswith(("TEX", "TeX")):
        return False
    if left.superscript or right.superscript or not (a.size < 0.9 * left.size and a.size < 0.9 * right.size):
        return False
    if a.bbox is None or left.bbox is None or right.bbox is None:
        return False
    near = 0.25 * left.size
    return a.bbox[0] - left.bbox[2] < near and right.bbox[0] - a.bbox[2] < near


def latex_spans(spans: list[Span]) -> list[Span]:
    """``spans`` with each LaTeX logo's three runs one run reading 'LaTeX' (the same list, no
    copy, where there is none)."""
    if not any(s.superscript and s.text.strip() == "A" for s in spans):
        return spans
    out: list[Span] = []
    k = 0
    while k < len(spans):
        if _logo_at(spans, k) and out and out[-1] is spans[k - 1]:
            left, right = out.pop(), spans[k + 1]
            box = (min(left.bbox[0], right.bbox[0]), min(left.bbox[1], right.bbox[1]),
                   max(left.bbox[2], right.bbox[2]), max(left.bbox[3], right.bbox[3]))
            out.append(replace(left, text=left.text + "a" + "Te" + right.text[2:], bbox=box))
            k += 2
            continue
        out.append(spans[k])
        k += 1
    return out


def latex_line(line: Line) -> Line:
    """``line`` with its LaTeX logos read as the word (the line itself where it prints none).
    The line's text follows its runs: each logo's 'LATEX' there becomes 'LaTeX'."""
    spans = latex_spans(line.spans)
    if spans is line.spans:
        return line
    n = len(line.spans) - len(spans)  # two runs fewer a logo
    text = line.text
    for _ in range(n // 2):
        at = text.find("LATEX") if "LATEX" in text else text.find("LATeX")
        if at < 0:
            break
        text = text[:at] + "LaTeX" + text[at + 5:]
    return replace(line, text=text, spans=spans)
