"""Split one reference string into tokens with their character offsets.

The tokens are what the labeller labels, so training (scripts/train_refparse.py) and
parsing use this one function. URLs, DOIs and arXiv ids stay one token each, so they are
kept exactly; a full stop stays on the word it ends ("Phys.", "J.") because abbreviations
and initials are what tells a journal or a name apart, but it is split off a number
("1992." -> "1992" "."), whose value we want clean.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"""
      (?:https?|ftp)://\S+                       # a URL, whole
    | www\.\S+
    | (?:doi:\s?)?10\.\d{4,9}/\S+                 # a DOI, whole
    | arXiv:\s?[\w./-]+\d                         # arXiv:2101.00001v2, arXiv:hep-th/0603057
    | [a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?       # old arXiv ids: hep-th/0603057
    | (?:[^\W\d_]\.){2,}(?=[\s,;:)\]]|$)          # initials run together: "J.N."
    | \w+(?:[-–'’.]\w+)*\.?                       # a word, number range, "Phys.Rev", "1761–1800"
    | [^\w\s]                                     # any other character is a token of its own
    """,
    re.VERBOSE,
)
_TRAIL = re.compile(r"[.,;:)\]}>\"'”’]+$")


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """[(token, start, end)] over ``text``; offsets index into ``text``."""
    out: list[tuple[str, int, int]] = []
    for m in _TOKEN.finditer(text):
        tok, s, e = m.group(0), m.start(), m.end()
        if tok[0] in "hfwd1a" and ("/" in tok or tok.startswith(("10.", "doi:"))):
            # punctuation that closes the sentence is not part of a URL or DOI
            t = _TRAIL.search(tok)
            if t and len(tok) - len(t.group(0)) > 4:
                cut = len(tok) - len(t.group(0))
                out.append((tok[:cut], s, s + cut))
                for k, ch in enumerate(tok[cut:]):
                    out.append((ch, s + cut + k, s + cut + k + 1))
                continue
        if len(tok) > 1 and tok.endswith(".") and tok[-2].isdigit():
            out.append((tok[:-1], s, e - 1))
            out.append((".", e - 1, e))
            continue
        out.append((tok, s, e))
    return out
