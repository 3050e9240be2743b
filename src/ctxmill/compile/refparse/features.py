"""Features of each token for the CRF: what the token looks like and what is around it.

Features are UTF-8 bytes (b"w=phys."): pycrfsuite takes bytes as they are and encodes every
str on every call, which was a tenth of the time of a parse.

A token's own features (its shape, the lexicons it is in, what kind of punctuation it is) are
computed once per distinct token text and cached, since bibliographies repeat the same
words and punctuation; only the position features and the copies of the neighbours'
features are built per occurrence, which keeps parsing well above 2,000 strings a second.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ctxmill.compile.refparse.lexicon import (
    JOURNAL,
    MARKERS,
    MONTHS,
    PARTICLES,
    PUBLISHER,
    gazetteers,
    lexkey,
)

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
    if tok[:1].isupper():  # "Smith" and "Mary" are names; "smith" in a title is a word
        g = gazetteers()
        if bare in g.family:
            f.append("family")
        if bare in g.given:
            f.append("given")
    return tuple(f)


@lru_cache(maxsize=65536)
def _near(tok: str, tag: str) -> tuple[str, ...]:
    # a neighbour's features as seen from a token: its word and shape two away, more one away
    nf = token_features(tok)
    out = [f"{tag}:{nf[0]}", f"{tag}:{nf[1]}"]
    if tag in ("p1", "n1"):
        out.extend(f"{tag}:{x}" for x in nf[3:] if not x.startswith("len="))
    return tuple(out)


_NONE = {tag: (f"{tag}:none".encode(),) for tag in ("p1", "n1", "p2", "n2")}

# Everything about one token text that does not depend on where it stands, looked up once
# per occurrence (one dict lookup instead of a dozen cached calls): its features, the views
# of it its neighbours get, whether it is a year, its gazetteer key, its traits in a stretch.
_INFO: dict[str, tuple] = {}


def _enc(f: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(x.encode() for x in f)


def _info(tok: str) -> tuple:
    own = token_features(tok)
    r = (_enc(own), _enc(_near(tok, "p1")), _enc(_near(tok, "n1")), _enc(_near(tok, "p2")),
         _enc(_near(tok, "n2")), "year" in own, _jkey(tok), _traits(tok))
    if len(_INFO) >= 65536:  # bounded, as the lru_caches are
        _INFO.clear()
    _INFO[tok] = r
    return r


_QUOTES = frozenset("\"“”„«»")
_SEPARATORS = frozenset(",;()[]\"“”„«».")


@lru_cache(maxsize=65536)
def _traits(tok: str) -> tuple[int, bool, bool]:
    # what a stretch counts of its tokens: a lower-case word, an abbreviation, a number
    return (tok[:1].islower() and len(tok) > 1), (tok.endswith(".") and len(tok) > 2), tok[:1].isdigit()


@lru_cache(maxsize=4096)
def _chunk_features(length: int, lower: int, idx: int, abbr: bool, digit: bool, end: str,
                    journal: bool) -> tuple[bytes, ...]:
    return _enc((f"c_len={length}", f"c_lower={lower}", f"c_idx={idx}", "c_abbr" if abbr else "c_noabbr",
                 "c_digit" if digit else "c_nodigit", f"c_end={end}", "c_journal" if journal else "c_nojournal"))


@lru_cache(maxsize=16384)
def _with_next(f: tuple[bytes, ...], nxt: tuple[bytes, ...] | None, prev: tuple[bytes, ...] | None) -> tuple[bytes, ...]:
    return (f + ((b"cn_" + nxt[3], b"cn_" + nxt[4], b"cn_" + nxt[1], b"cn_" + nxt[6]) if nxt else (b"cn_none",))
            + ((b"cp_" + prev[0], b"cp_" + prev[3], b"cp_" + prev[1]) if prev else (b"cp_none",)))


def _chunks(tokens: list[str], journals: list[str | None], infos: list[tuple]) -> list[tuple[bytes, ...]]:
    """Features of the stretch between separators (commas, full stops, brackets, quotes) each
    token sits in. A CRF sees only neighbours; whether the stretch reads like a title (a few
    lower-case words), a journal (abbreviations, a volume number) or a name list is what
    tells "A. Author, Softly broken symmetry, Nucl. Phys. B 193" apart."""
    n = len(tokens)
    out: list[tuple[bytes, ...]] = [()] * n
    spans: list[tuple[int, int, tuple[bytes, ...]]] = []
    start = 0
    # the traits as three lists, so that a stretch is summed by slices, not generators
    lower, abbr, digit = zip(*[x[7] for x in infos], strict=True) if n else ((), (), ())
    for i in [i for i, t in enumerate(tokens) if t in _SEPARATORS] + [n]:
        if i > start:
            f = _chunk_features(min(i - start, 7), min(sum(lower[start:i]), 3), min(len(spans), 6),
                                any(abbr[start:i]), any(digit[start:i]), tokens[i] if i < n else "eos",
                                journals[start] in ("jB", "j1"))
            spans.append((start, i, f))
        start = i + 1
    # and what the stretches either side are like: a title is followed by its journal
    # ("Softly broken symmetry, Nucl. Phys. B 193"), a journal by its volume or year; a
    # title follows a list of short stretches of names and initials
    for k, (a, b, f) in enumerate(spans):
        nxt = spans[k + 1][2] if k + 1 < len(spans) else None
        out[a:b] = [_with_next(f, nxt, spans[k - 1][2] if k else None)] * (b - a)
    return out


@lru_cache(maxsize=65536)
def _jkey(tok: str) -> str | None:
    # a word as the journal names are stored, None for punctuation (skipped when matching)
    return lexkey(tok) if tok[:1].isalnum() else None


_HEX = {format(k, "x"): k for k in range(1, 16)}  # the name lengths of journal_first


def journal_marks(tokens: list[str], jkeys: list[str | None] | None = None) -> list[str | None]:
    """Which tokens lie in the name of a known journal or proceedings (the longest match from
    each capitalised word, punctuation skipped): "jB" for its first word, "jI" for the rest,
    "j1" for a name of one word ("Nature"), which is as often a word of a title."""
    g = gazetteers()
    out: list[str | None] = [None] * len(tokens)
    if not g.journal:
        return out
    if jkeys is None:
        jkeys = [_jkey(t) for t in tokens]
    at = [i for i, k in enumerate(jkeys) if k is not None]
    keys = [jkeys[i] for i in at]
    first = g.journal_first
    k, m = 0, len(at)
    journal = g.journal
    while k < m:
        lengths = first.get(keys[k])
        if not lengths or not tokens[at[k]][:1].isupper():
            k += 1
            continue
        for c in lengths:  # longest first: the longest name that matches
            n = _HEX[c]
            if n <= m - k and " ".join(keys[k : k + n]) in journal:
                break
        else:
            k += 1
            continue
        i = at[k]
        if n == 1:
            out[i] = "j1"
        else:
            out[i] = "jB"
            for j in range(i + 1, at[k + n - 1] + 1):
                out[j] = "jI"
        k += n
    return out


_POS = tuple(f"pos={k}".encode() for k in range(10))
_FIRST = (b"first0", b"first1", b"first2")
_GLUE = ((b"g=__", b"g=_n"), (b"g=p_", b"g=pn"))  # touches the previous / the next token
# what has been seen before a token (a year, an open quote, a colon, a journal), as the
# features it adds, by the bits of the state in sequence_features
_STATES = tuple(tuple(name for bit, name in ((1, b"after_year"), (2, b"after_quote"), (4, b"after_colon"),
                                             (8, b"after_journal")) if k & bit) for k in range(16))
_SENT = (b"sent=0", b"sent=1", b"sent=2", b"sent=3")
_MARKS = {"jB": b"jB", "jI": b"jI", "j1": b"j1"}


def features_of(toks: list[tuple[str, int, int]]) -> list[list[bytes]]:
    """The features of tokenize()'s tokens, with where they touch their neighbours."""
    return sequence_features([t for t, _, _ in toks], [i > 0 and toks[i - 1][2] == s for i, (_, s, _) in enumerate(toks)])


def sequence_features(tokens: list[str], glued: list[bool] | None = None) -> list[list[bytes]]:
    """One feature list per token: its own, its neighbours' (two each side), its position,
    the stretch it sits in; ``glued[i]``: token i touches token i-1 (no space between them:
    the "B" of "Nucl. Phys. B262" belongs to the volume, the "B" of "Phys. Rev. B 94" to the
    journal, in GROBID's labels)."""
    n = len(tokens)
    if glued is None:
        glued = [False] * n
    get = _INFO.get
    infos = [get(t) or _info(t) for t in tokens]
    journals = journal_marks(tokens, [x[6] for x in infos])
    chunks = _chunks(tokens, journals, infos)
    # the neighbours' views, shifted: p1[i] is token i-1 seen from token i
    p1 = [_NONE["p1"]] + [x[1] for x in infos[:-1]]
    n1 = [x[2] for x in infos[1:]] + [_NONE["n1"]]
    p2 = ([_NONE["p2"], _NONE["p2"]] + [x[3] for x in infos[:-2]])[:n]
    n2 = ([x[4] for x in infos[2:]] + [_NONE["n2"], _NONE["n2"]])[-n:] if n else []
    out: list[list[bytes]] = []
    # How many sentences have ended before each token (a "." token before a capital: the
    # tokenizer keeps the full stop of initials and abbreviations on their word), and whether
    # a year is still to come: in "Authors. Title. Journal" and "Authors (Year) Title"
    # styles these place a token in its field better than its neighbours do
    sentence = 0
    last_year = max((i for i, x in enumerate(infos) if x[5]), default=-1)
    # the journal features of each token, where it has any ("... broken symmetry , Nucl. Phys.")
    jx: list[tuple[bytes, ...]] = [()] * n
    for k, mark in enumerate(journals):
        if mark in ("jB", "j1"):
            if k >= 1:
                jx[k - 1] = (*jx[k - 1], b"before_journal")
            if k >= 2 and not tokens[k - 1][:1].isalnum() and journals[k - 1] not in ("jB", "j1"):
                jx[k - 2] = (*jx[k - 2], b"before_journal2")
    for k, mark in enumerate(journals):
        if mark:
            jx[k] = (_MARKS[mark], *jx[k])
    state = 0  # bits: a year passed, a quote open, a colon passed, a journal passed
    for i, t in enumerate(tokens):
        if i and tokens[i - 1] == "." and t[:1].isupper() and sentence < 3:
            sentence += 1
        f = [*infos[i][0], _POS[10 * i // n], *p1[i], *n1[i], *p2[i], *n2[i], *chunks[i], _SENT[sentence],
             b"year_ahead" if i < last_year else b"no_year_ahead", _GLUE[glued[i]][i + 1 < n and glued[i + 1]]]
        if jx[i]:
            f.extend(jx[i])
        if i < 3:
            f.append(_FIRST[i])
        if i == n - 1:
            f.append(b"last")
        if state:
            f.extend(_STATES[state])
        mark = journals[i]
        if mark == "jB" or mark == "j1":  # a title comes before its journal, rarely after
            state |= 8
        if t in _QUOTES:
            state ^= 2
        elif t == ":":
            state |= 4
        elif not state & 1 and infos[i][5]:
            state |= 1
        out.append(f)
    return out
