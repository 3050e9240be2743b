"""Features of each token for the CRF: what the token looks like and what is around it.

Features are UTF-8 bytes (b"w=phys."): pycrfsuite takes bytes as they are and encodes every
str on every call, which was a tenth of the time of a parse.

A token's own features (its shape, the lexicons it is in, what kind of punctuation it is) are
computed once per distinct token text and cached, since bibliographies repeat the same
words and punctuation (",", "J.", "Phys.", years); only the position features and the copies
of the neighbours' features are built per occurrence.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import numpy as np

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
# what a token sees past either end of the string, in _info's order
_EDGE = ((), _NONE["p1"], _NONE["n1"], _NONE["p2"], _NONE["n2"])

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


_WIDE = 1 << 32


def _traits(tok: str) -> int:
    # what a stretch counts of its tokens, in one number so that a stretch sums them in one
    # call: lower-case words (the low 32 bits), abbreviations (the next 32), numbers (above)
    return (tok[:1].islower() and len(tok) > 1) + (tok.endswith(".") and len(tok) > 2) * _WIDE \
        + tok[:1].isdigit() * _WIDE * _WIDE


@lru_cache(maxsize=4096)
def _chunk_features(length: int, lower: int, idx: int, abbr: bool, digit: bool, end: str,
                    journal: bool) -> tuple[bytes, ...]:
    return _enc((f"c_len={length}", f"c_lower={lower}", f"c_idx={idx}", "c_abbr" if abbr else "c_noabbr",
                 "c_digit" if digit else "c_nodigit", f"c_end={end}", "c_journal" if journal else "c_nojournal"))


@lru_cache(maxsize=16384)
def _with_next(f: tuple[bytes, ...], nxt: tuple[bytes, ...] | None, prev: tuple[bytes, ...] | None) -> tuple[bytes, ...]:
    return (f + ((b"cn_" + nxt[3], b"cn_" + nxt[4], b"cn_" + nxt[1], b"cn_" + nxt[6]) if nxt else (b"cn_none",))
            + ((b"cp_" + prev[0], b"cp_" + prev[3], b"cp_" + prev[1]) if prev else (b"cp_none",)))


def _spans(tokens: list[str], journals: list[str | None], infos: list[tuple]) -> list[tuple[int, int, tuple[bytes, ...]]]:
    """Features of the stretch between separators (commas, full stops, brackets, quotes) each
    token sits in, as (first token, end, features) per stretch. A CRF sees only neighbours;
    whether the stretch reads like a title (a few lower-case words), a journal (abbreviations,
    a volume number) or a name list is what tells "A. Author, Softly broken symmetry, Nucl.
    Phys. B 193" apart."""
    n = len(tokens)
    spans: list[tuple[int, int, tuple[bytes, ...]]] = []
    start = 0
    traits = [x[7] for x in infos]
    for i in [i for i, t in enumerate(tokens) if t in _SEPARATORS] + [n]:
        if i > start:
            c = sum(traits[start:i])
            f = _chunk_features(min(i - start, 7), min(c % _WIDE, 3), min(len(spans), 6), c // _WIDE % _WIDE > 0,
                                c >= _WIDE * _WIDE, tokens[i] if i < n else "eos", journals[start] in ("jB", "j1"))
            spans.append((start, i, f))
        start = i + 1
    # and what the stretches either side are like: a title is followed by its journal
    # ("Softly broken symmetry, Nucl. Phys. B 193"), a journal by its volume or year; a
    # title follows a list of short stretches of names and initials
    return [(a, b, _with_next(f, spans[k + 1][2] if k + 1 < len(spans) else None, spans[k - 1][2] if k else None))
            for k, (a, b, f) in enumerate(spans)]


def _chunks(tokens: list[str], journals: list[str | None], infos: list[tuple]) -> list[tuple[bytes, ...]]:
    """_spans' features per token (a separator has none)."""
    out: list[tuple[bytes, ...]] = [()] * len(tokens)
    for a, b, f in _spans(tokens, journals, infos):
        out[a:b] = [f] * (b - a)
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
    journal = g.journal
    m = len(at)
    free = 0  # the first word not yet inside a name found
    # only capitalised words that begin some name can begin a match
    for k in [k for k, w in enumerate(keys) if w in first and tokens[at[k]][:1].isupper()]:
        if k < free:
            continue
        for c in first[keys[k]]:  # longest first: the longest name that matches
            n = _HEX[c]
            if n <= m - k and " ".join(keys[k : k + n]) in journal:
                break
        else:
            continue
        i = at[k]
        if n == 1:
            out[i] = "j1"
        else:
            out[i] = "jB"
            for j in range(i + 1, at[k + n - 1] + 1):
                out[j] = "jI"
        free = k + n
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
    return sequence_features([t for t, _, _ in toks], _glued(toks))


def scores_of(toks: list[tuple[str, int, int]]) -> np.ndarray:
    """sequence_scores of tokenize()'s tokens: what parsing hands the model (model.tag_scores)."""
    return sequence_scores([t for t, _, _ in toks], _glued(toks))


def _glued(toks: list[tuple[str, int, int]]) -> list[bool]:
    return [i > 0 and toks[i - 1][2] == s for i, (_, s, _) in enumerate(toks)]


def _layout(tokens: list[str], glued: list[bool] | None) -> tuple[list[tuple], list[str | None], list[int]]:
    """What both sequence_features and sequence_scores read: each token's cached info, its
    journal mark, and its position features packed into one number."""
    n = len(tokens)
    if glued is None:
        glued = [False] * n
    get = _INFO.get
    infos = [get(t) or _info(t) for t in tokens]
    journals = journal_marks(tokens, [x[6] for x in infos])
    # Everything else about a token depends on where it stands: its tenth of the string, how
    # many sentences have ended before it (a "." token before a capital: the tokenizer keeps
    # the full stop of initials and abbreviations on their word), whether a year is still to
    # come (in "Authors. Title. Journal" and "Authors (Year) Title" styles these place a token
    # in its field better than its neighbours do), whether it touches its neighbours, and what
    # has been seen before it (a year, an open quote, a colon, a journal). These are packed
    # into one number per token, and each number's features are built once per process.
    last_year = max((i for i, x in enumerate(infos) if x[5]), default=-1)
    glue = [*glued[1:], False]
    codes = []
    sentence = state = 0
    prev = ""
    for i, t in enumerate(tokens):
        if prev == "." and sentence < 3 and t[:1].isupper():
            sentence += 1
        codes.append(10 * i // n | sentence << 4 | state << 6 | (i < last_year) << 10 | glued[i] << 11 | glue[i] << 12)
        mark = journals[i]
        if mark == "jB" or mark == "j1":  # a title comes before its journal, rarely after
            state |= 8
        if t in _QUOTES:
            state ^= 2
        elif t == ":":
            state |= 4
        elif not state & 1 and infos[i][5]:
            state |= 1
        prev = t
    return infos, journals, codes


def sequence_features(tokens: list[str], glued: list[bool] | None = None) -> list[list[bytes]]:
    """One feature list per token: its own, its neighbours' (two each side), its position,
    the stretch it sits in; ``glued[i]``: token i touches token i-1 (no space between them:
    the "B" of "Nucl. Phys. B262" belongs to the volume, the "B" of "Phys. Rev. B 94" to the
    journal, in GROBID's labels)."""
    n = len(tokens)
    if not n:
        return []
    infos, journals, codes = _layout(tokens, glued)
    chunks = _chunks(tokens, journals, infos)
    tget = _TAILS.get
    # each token with the two before and after it (_EDGE past the ends): its own features,
    # then the views its neighbours give of themselves (pad runs two past the end: not strict)
    pad = [_EDGE, _EDGE, *infos, _EDGE, _EDGE]
    out = [[*c[0], *b[1], *d[2], *a[3], *e[4], *ch, *(tget(k) or _tail(k))]
           for a, b, c, d, e, ch, k in zip(pad, pad[1:], infos, pad[3:], pad[4:], chunks, codes, strict=False)]
    # the journal features of a few tokens ("... broken symmetry , Nucl. Phys.")
    for k, mark in enumerate(journals):
        if mark:
            out[k].append(_MARKS[mark])
            if mark != "jI":
                if k >= 1:
                    out[k - 1].append(b"before_journal")
                if k >= 2 and not tokens[k - 1][:1].isalnum() and journals[k - 1] not in ("jB", "j1"):
                    out[k - 2].append(b"before_journal2")
    for i in range(min(n, 3)):
        out[i].append(_FIRST[i])
    out[-1].append(b"last")
    return out


_TAILS: dict[int, tuple[bytes, ...]] = {}


def _tail(code: int) -> tuple[bytes, ...]:
    """The position features packed by sequence_features into ``code``."""
    state = code >> 6 & 15
    f = (_POS[code & 15], _SENT[code >> 4 & 3], _GLUE[code >> 11 & 1][code >> 12 & 1],
         b"year_ahead" if code >> 10 & 1 else b"no_year_ahead", *_STATES[state])
    _TAILS[code] = f
    return f


# --- the same features as label scores (model.py's module doc says why) ------------------------
# sequence_scores gives, per token, the sum of the model's weights of the features
# sequence_features lists for it, from sums cached per group: a token text's own features and
# the four views its neighbours get of it (five rows, in that order, from the row of the text),
# a stretch's features, and the position features with the journal marks, first/last, packed
# into one number. The rows live in one growing matrix, so a string's scores are one gather
# and one sum.
_MARK_BITS = {None: 0, "jB": 1 << 13, "jI": 2 << 13, "j1": 3 << 13}
_BEFORE, _BEFORE2, _LAST = 1 << 15, 1 << 16, 1 << 19
_ROWS_MAX = 1 << 17  # 18 float64 a row: 19 MB, then the caches start again


class _Rows:
    def __init__(self) -> None:
        from ctxmill.compile.refparse.model import weights

        w = weights()
        self.index, self.matrix, self.absent = w.index, w.matrix, w.absent
        self.table = np.zeros((4096, self.matrix.shape[1]))
        self.used = 0
        self.lock = threading.Lock()
        self.tokens: dict[str, int] = {}
        self.spans: dict[tuple[bytes, ...], int] = {}
        self.tails: dict[int, int] = {}
        # past either end of the string; row 0, so that no other row is 0 (``get(x) or add``)
        self.edge = self.add([(), *_EDGE[1:]])

    def add(self, groups) -> int:
        """Rows for the weight sums of ``groups`` (lists of features); the first one's index."""
        get, absent, matrix = self.index.get, self.absent, self.matrix
        k = len(groups)
        with self.lock:  # parses in threads share the rows: each new group gets rows of its own
            while self.used + k > len(self.table):
                # (the rows are copied before any id of the new ones is handed out)
                self.table = np.concatenate([self.table, np.zeros_like(self.table)])
            at = self.used
            for j, g in enumerate(groups):
                # a group's features summed in their order (numpy adds the rows one after another)
                self.table[at + j] = matrix[[get(f, absent) for f in g]].sum(0) if g else 0.0
            self.used += k
        return at

    def token(self, tok: str) -> int:
        x = _INFO.get(tok) or _info(tok)
        r = self.tokens[tok] = self.add(x[:5])
        return r

    def span(self, f: tuple[bytes, ...]) -> int:
        r = self.spans[f] = self.add([f])
        return r

    def tail(self, code: int) -> int:
        f = list(_TAILS.get(code & 0x1FFF) or _tail(code & 0x1FFF))
        mark = code >> 13 & 3
        if mark:
            f.append((b"jB", b"jI", b"j1")[mark - 1])
        if code & _BEFORE:
            f.append(b"before_journal")
        if code & _BEFORE2:
            f.append(b"before_journal2")
        first = code >> 17 & 3
        if first:
            f.append(_FIRST[first - 1])
        if code & _LAST:
            f.append(b"last")
        r = self.tails[code] = self.add([f])
        return r


_rows: _Rows | None = None


def sequence_scores(tokens: list[str], glued: list[bool] | None = None) -> np.ndarray:
    """Per token and label, the sum of the model's weights of sequence_features' features:
    what CRFsuite computes from those lists, without building them (tokens x labels)."""
    global _rows
    n = len(tokens)
    if _rows is None or _rows.used + 7 * n > _ROWS_MAX:  # (at most 7 new rows a token)
        _rows = _Rows()
    rows = _rows
    if not n:
        return np.zeros((0, rows.matrix.shape[1]))
    infos, journals, codes = _layout(tokens, glued)
    tok_get, span_get, tail_get = rows.tokens.get, rows.spans.get, rows.tails.get
    base = [tok_get(t) or rows.token(t) for t in tokens]
    # the journal marks, first and last, into the position numbers
    for k, mark in enumerate(journals):
        if mark:
            codes[k] |= _MARK_BITS[mark]
            if mark != "jI":
                if k >= 1:
                    codes[k - 1] |= _BEFORE
                if k >= 2 and not tokens[k - 1][:1].isalnum() and journals[k - 1] not in ("jB", "j1"):
                    codes[k - 2] |= _BEFORE2
    for i in range(min(n, 3)):
        codes[i] |= (i + 1) << 17
    codes[-1] |= _LAST
    idx = np.empty((7, n), np.intp)
    edge = rows.edge
    pad = np.array([edge, edge, *base, edge, edge])
    idx[0] = pad[2:n + 2]
    idx[1] = pad[1:n + 1] + 1   # the token before, as token i's p1 view of it
    idx[2] = pad[3:n + 3] + 2   # the token after (n1)
    idx[3] = pad[0:n] + 3       # two before (p2)
    idx[4] = pad[4:n + 4] + 4   # two after (n2)
    span_rows = [edge] * n  # a separator has no stretch features: the edge's own row is zeros
    for a, b, f in _spans(tokens, journals, infos):
        span_rows[a:b] = [span_get(f) or rows.span(f)] * (b - a)
    idx[5] = span_rows
    idx[6] = [tail_get(c) or rows.tail(c) for c in codes]
    return rows.table[idx].sum(0)
