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


_ASCII_SHAPE = str.maketrans({**{c: "X" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                              **{c: "x" for c in "abcdefghijklmnopqrstuvwxyz"}, **{c: "d" for c in "0123456789"}})


def _shape(tok: str) -> str:
    # "Phys." -> "Xx.", "J.N." -> "X.X.", "1992" -> "d", "McGraw-Hill" -> "XxXx-Xx"
    if tok.isascii():  # the common case, without four regex passes
        s = tok.translate(_ASCII_SHAPE)
        return "".join(c for i, c in enumerate(s) if i == 0 or c != s[i - 1])[:8]
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


@lru_cache(maxsize=65536)
def _near(tok: str, tag: str) -> tuple[str, ...]:
    # a neighbour's features as seen from a token: its word and shape two away, more one away
    nf = token_features(tok)
    out = [f"{tag}:{nf[0]}", f"{tag}:{nf[1]}"]
    if tag in ("p1", "n1"):
        out.extend(f"{tag}:{x}" for x in nf[3:] if not x.startswith("len="))
    return tuple(out)


_NONE = {tag: (f"{tag}:none",) for tag in ("p1", "n1", "p2", "n2")}


_QUOTES = frozenset("\"“”„«»")
_SEPARATORS = frozenset(",;()[]\"“”„«».")


def _chunks(tokens: list[str]) -> list[tuple[str, ...]]:
    """Features of the stretch between separators (commas, full stops, brackets, quotes) each
    token sits in. A CRF sees only neighbours; whether the stretch reads like a title (a few
    lower-case words), a journal (abbreviations, a volume number) or a name list is what
    tells "A. Author, Softly broken symmetry, Nucl. Phys. B 193" apart."""
    out: list[tuple[str, ...]] = [()] * len(tokens)
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    start, idx = 0, 0
    for i in range(len(tokens) + 1):
        if i < len(tokens) and tokens[i] not in _SEPARATORS:
            continue
        if i > start:
            part = tokens[start:i]
            lower = sum(1 for t in part if t[:1].islower() and len(t) > 1)
            f = (f"c_len={min(len(part), 7)}", f"c_lower={min(lower, 3)}", f"c_idx={min(idx, 6)}",
                 "c_abbr" if any(t.endswith(".") and len(t) > 2 for t in part) else "c_noabbr",
                 "c_digit" if any(t[:1].isdigit() for t in part) else "c_nodigit",
                 f"c_end={tokens[i] if i < len(tokens) else 'eos'}")
            spans.append((start, i, f))
            idx += 1
        start = i + 1
    # and what the next stretch is like: a title is followed by its journal ("Softly broken
    # symmetry, Nucl. Phys. B 193"), a journal by its volume or year
    for k, (a, b, f) in enumerate(spans):
        nxt = spans[k + 1][2] if k + 1 < len(spans) else None
        g = f + ((f"cn_{nxt[3]}", f"cn_{nxt[4]}", f"cn_{nxt[1]}") if nxt else ("cn_none",))
        for j in range(a, b):
            out[j] = g
    return out


def sequence_features(tokens: list[str]) -> list[list[str]]:
    """One feature list per token: its own, its neighbours' (two each side), its position,
    the stretch it sits in."""
    n = len(tokens)
    chunks = _chunks(tokens)
    out: list[list[str]] = []
    # Which punctuation has been seen so far: a quote opened, a year passed, a colon ...
    seen_year = seen_quote = seen_colon = False
    for i, t in enumerate(tokens):
        own = token_features(t)
        f = [*own, f"pos={min(10 * i // n, 9)}",
             *(_near(tokens[i - 1], "p1") if i >= 1 else _NONE["p1"]),
             *(_near(tokens[i + 1], "n1") if i + 1 < n else _NONE["n1"]),
             *(_near(tokens[i - 2], "p2") if i >= 2 else _NONE["p2"]),
             *(_near(tokens[i + 2], "n2") if i + 2 < n else _NONE["n2"]), *chunks[i]]
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
        if "year" in own:
            seen_year = True
        elif t in _QUOTES:
            seen_quote = not seen_quote
        elif t == ":":
            seen_colon = True
        out.append(f)
    return out
