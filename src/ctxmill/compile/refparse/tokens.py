"""Split one reference string into tokens with their character offsets.

The tokens are what the labeller labels, so training (scripts/train_refparse.py) and
parsing use this one function. URLs, DOIs and arXiv ids stay one token each, so they are
kept exactly. A full stop stays on an initial ("J.") and on a known abbreviation ("Phys.",
"pp.", "al."), where it says "abbreviation"; after any other word it is a token of its own,
where it usually ends a field ("... in mouse epidermis. Oncogene").

Text layers and OCR glue fields together: "Phys. Rev. D94" (journal + volume), "Tisserand
P2015" (initial + year), "Strings.JHEP" (title + journal). Words therefore end where a
letter meets a digit, so each part can take its own label; a field is a slice of the string
from its first token to its last, so the parts of one value ("S08003", "Phys.Rev") come back
together as printed. A number glued to a word keeps its digits ("2013Interferometer",
"76TeV" -> "2013" + "Interferometer"), the regex not backtracking into them.
"""

from __future__ import annotations

import re

from ctxmill.compile.refparse.lexicon import ABBREVIATIONS


def _trie(words) -> str:
    """One regex alternative per first letter ("p(?:hys|roc|p|)"): the regex engine tries a
    plain alternation of 150 words one by one at every word of every string."""
    by: dict[str, list[str]] = {}
    for w in words:
        by.setdefault(w[0], []).append(w[1:])
    parts = []
    for c, rests in sorted(by.items()):
        alts = "|".join(re.escape(r) for r in sorted(rests, key=len, reverse=True))  # longest first
        parts.append(re.escape(c) + (f"(?:{alts})" if alts != "" else ""))
    return "|".join(parts)


_ABBR = _trie(ABBREVIATIONS)
_UPPER, _LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
# A word ends where two lower-case letters meet a capitalised word: the text layer glued
# "isotopesBraz. J. Phys." and "(ClarendonPress, Oxford)" ("McGraw", "iPhone", "ApJ" stay whole).
# Only a capital can end a word, so the letters between capitals are taken in one step and the
# test is made at the capitals alone.
_WORD = (rf"[^\W\d_][^\W\d_{_UPPER}]*(?:(?:(?<![{_LOWER}]{{2}})[{_UPPER}]|[{_UPPER}](?![{_LOWER}]))"
         rf"[^\W\d_{_UPPER}]*)*")
# URLs, DOIs and arXiv ids: each needs a "/", "www." or "arXiv:" in the string
_IDS = r"""
      (?:https?|ftp)://[^\s<>"]*[^\s<>".,;:)\]]           # a URL, whole, without the closing punctuation
    | www\.[^\s<>"]*[^\s<>".,;:)\]]
    | (?:doi:\s?)?10\.\d{4,9}/[^\s"<>]*[^\s"<>.,;:)\]]    # a DOI, whole
    | arXiv:\s?[\w./-]*\d                                  # arXiv:2101.00001v2, arXiv:hep-th/0603057
    | [a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?                # old arXiv ids: hep-th/0603057
    |"""
# The commonest tokens first, where no earlier pattern can take them: a comma, a bracket, a
# plain word that ends at a space or a separator (the patterns below would try the initials,
# the abbreviations and the initial before taking it as a word, and reach the same token)
_COMMON = r"""
      [,;:()\[\]]                                          # no other pattern begins with these
    | [A-Za-z][a-z]*(?=[\s,;:)\]]|$)                       # "Physics", "the" (not "Phys." nor "McGraw")
    |"""
_REST = _COMMON + rf"""
      (?:[^\W\d_]\.){{2,}}                                 # initials run together: "J.N."
    | (?i:{_ABBR})\.(?![^\W\d_])                           # "Phys.", "pp.", "al."
    | [A-ZÀ-Þ]\.(?![^\W\d_]{{2}})                         # an initial: "J." (not "Xu.", a name ending a sentence)
    | {_WORD}(?:[-'’]{_WORD})*                             # a word: "McGraw-Hill", "O'Neil"
    | ['’]t(?=\s[A-Z])                                     # the particle of "G. 't Hooft"
    | (?>\d+(?:[.,]\d+(?!\d*[-–—]))?(?:\s?[-–—]+\s?\d+)*(?:st|nd|rd|th|[a-z])?)(?![^\W\d_]{{2}})  # 1992, 546-550, 1.5, 2015a, 35th
    | \d+
    | [^\w\s]                                              # any other character is a token of its own
    """
_TOKEN = re.compile(_IDS + _REST, re.VERBOSE)
# most strings hold no identifier: their tokens without trying its patterns at every word
# (the old arXiv pattern reads every lower-case word to its end)
_PLAIN = re.compile(_REST, re.VERBOSE)
# arXiv ids as DBLP and Semantic Scholar print them, "CoRR, abs/1706.03762", "ArXiv,
# abs/1909.01326": one token where ABS_IDS is set, else "abs" "/" "1909.01326", whose
# "1909" a model may take for a year. Training only (train_refparse.py --abs-ids, scored with
# benchmarks/references.py --abs-ids) until a model trained so ships: the tokens are what the
# model was trained on, so the product's never change without a new model.
_ABS_ID = r"""
      (?<![\w/])abs/\d{4}\.\d{4,5}(?:v\d+)?(?![\w/])          # "abs/1909.01326", "abs/1706.03762v2"
    |"""
ABS_IDS = False


def use_abs_ids(on: bool) -> None:
    """Tokenize "abs/NNNN.NNNNN" as one token (on) or as today (off)."""
    global ABS_IDS, _TOKEN
    ABS_IDS = on
    _TOKEN = re.compile((_ABS_ID if on else "") + _IDS + _REST, re.VERBOSE)


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """[(token, start, end)] over ``text``; offsets index into ``text``."""
    r = _TOKEN if "/" in text or "www." in text or "arXiv:" in text else _PLAIN
    return [(m[0], *m.span()) for m in r.finditer(text)]  # (m.group(), m.start(), m.end()): 3 calls
