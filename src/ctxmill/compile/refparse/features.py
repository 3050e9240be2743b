"""Features of each token for the CRF: what the token looks like and what is around it.

A token's own features (its shape, the lexicons it is in, what kind of punctuation it is) are
computed once per distinct token text and cached, since bibliographies repeat the same
words and punctuation; only the position features and the copies of the neighbours'
features are built per occurrence, which keeps parsing well above 2,000 strings a second.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ctxmill.compile.refparse.lexicon import JOURNAL, MARKERS, MONTHS, PARTICLES, PUBLISHER

_YEAR = re.compile(r"^(?:1[5-9]\d\d|20\d\d)[a-z]?$")
_RANGE = re.compile(r"^[A-Za-z]?\d+[-–][A-Za-z]?\d+$")


def _shape(tok: str) -> str:
    # "Phys." -> "Xx.", "J.N." -> "X.X.", "1992" -> "d", "McGraw-Hill" -> "XxXx-Xx"
    s = re.sub(r"[A-ZÀ-ÖØ-Þ]", "X", tok)
    s = re.sub(r"[a-zß-öø-ÿ]", "x", s)
    s = re.sub(r"\d", "d", s)
    return re.sub(r"(.)\1+", r"\1", s)[:8]


@lru_cache(maxsize=65536)
def token_features(tok: str) -> tuple[str, ...]:
    low = tok.lower()
    bare = low.rstrip(".")
    f = [f"w={low}", f"sh={_shape(tok)}", f"suf={low[-3:]}"]
    if len(tok) == 1 and not tok.isalnum():
        f.append(f"punct={tok}")
        return tuple(f)
    n = len(bare)
    f.append(f"len={min(n, 8)}")
    if tok[:1].isupper():
        f.append("cap")
    if tok.isupper() and n > 1:
        f.append("allcap")
    if tok.endswith("."):
        f.append("dot")
    if any(c.isdigit() for c in tok):
        f.append("digit")
        if tok.isdigit():
            f.append(f"ndig={min(len(tok), 5)}")
        if _YEAR.match(tok):
            f.append("year")
        if _RANGE.match(tok):
            f.append("range")
    if re.fullmatch(r"(?:[^\W\d_]\.)+|[A-Z]{1,3}", tok):
        f.append("initial")
    if "/" in tok and ("://" in tok or tok.startswith("www.")):
        f.append("url")
    if tok.lower().startswith(("10.", "doi:")) and "/" in tok:
        f.append("doi")
    if low.startswith("arxiv:") or re.fullmatch(r"[a-z-]+(?:\.[a-z]{2})?/\d{7}(?:v\d+)?", low):
        f.append("arxiv")
    if bare in MONTHS:
        f.append("month")
    if bare in PARTICLES:
        f.append("particle")
    if bare in JOURNAL:
        f.append("journal")
    if bare in PUBLISHER:
        f.append("publisher")
    m = MARKERS.get(bare)
    if m:
        f.append(f"mark={m}")
    return tuple(f)


def sequence_features(tokens: list[str]) -> list[list[str]]:
    """One feature list per token: its own, its neighbours' (two each side), its position."""
    own = [token_features(t) for t in tokens]
    n = len(tokens)
    out: list[list[str]] = []
    # Which punctuation has been seen so far: a quote opened, a year passed, a colon ...
    seen_year = seen_quote = seen_colon = False
    for i in range(n):
        f = list(own[i])
        f.append(f"pos={min(10 * i // max(n, 1), 9)}")
        if i < 3:
            f.append(f"first{i}")
        if i == n - 1:
            f.append("last")
        if seen_year:
            f.append("after_year")
        if seen_quote:
            f.append("after_quote")
        if seen_colon:
            f.append("after_colon")
        for d, tag in ((-1, "p1"), (1, "n1"), (-2, "p2"), (2, "n2")):
            j = i + d
            if 0 <= j < n:
                nf = own[j]
                f.append(f"{tag}:{nf[0]}")
                f.append(f"{tag}:{nf[1]}")
                if d in (-1, 1):
                    f.extend(f"{tag}:{x}" for x in nf[3:] if not x.startswith("len="))
            else:
                f.append(f"{tag}:none")
        t = tokens[i]
        if "year" in own[i]:
            seen_year = True
        elif t in "\"“”":
            seen_quote = not seen_quote
        elif t == ":":
            seen_colon = True
        out.append(f)
    return out
