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
from itertools import groupby, repeat
from typing import TYPE_CHECKING

from ctxmill.compile.refparse.lexicon import (
    JOURNAL,
    MARKERS,
    MONTHS,
    PARTICLES,
    PUBLISHER,
    gazetteers,
    lexkey,
)

if TYPE_CHECKING:
    import numpy as np

_YEAR = re.compile(r"^(?:1[5-9]\d\d|20\d\d)[a-z]?$")
_RANGE = re.compile(r"^[A-Za-z]?\d+[-–][A-Za-z]?\d+$")
_INITIAL = re.compile(r"(?:[^\W\d_]\.)+|[A-Z]{1,3}")
_OLD_ARXIV = re.compile(r"[a-z-]+(?:\.[a-z]{2})?/\d{7}(?:v\d+)?")


_ASCII_SHAPE = str.maketrans({**{c: "X" for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
                              **{c: "x" for c in "abcdefghijklmnopqrstuvwxyz"}, **{c: "d" for c in "0123456789"}})


def _shape(tok: str) -> str:
    # "Phys." -> "Xx.", "J.N." -> "X.X.", "1992" -> "d", "McGraw-Hill" -> "XxXx-Xx"
    if tok.isascii():  # the common case, without four regex passes
        # each run of one character once (groupby, not a generator a character)
        return "".join(c for c, _ in groupby(tok.translate(_ASCII_SHAPE)))[:8]
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
    if not tok.isalpha() and any(map(str.isdigit, tok)):  # (a letter is never a digit)
        f.append("digit")
        if tok.isdigit():
            f.append(f"ndig={min(len(tok), 5)}")
        if _YEAR.match(tok):
            f.append("year")
        if _RANGE.match(tok):
            f.append("range")
    if _INITIAL.fullmatch(tok):
        f.append("initial")
    if "/" in tok and ("://" in tok or tok.startswith("www.")):
        f.append("url")
    if low.startswith(("10.", "doi:")) and "/" in tok:
        f.append("doi")
    if low.startswith("arxiv:") or ("/" in low and _OLD_ARXIV.fullmatch(low)):
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
    g = gazetteers()
    if tok[:1].isupper():  # "Smith" and "Mary" are names; "smith" in a title is a word
        if bare in g.family:
            f.append("family")
        if bare in g.given:
            f.append("given")
    lx = g.word_label.get(bare)
    if lx:  # the field that holds this word most in the training strings (--word-labels)
        f.append(f"lx={lx}")
    cl = g.cluster.get(bare)
    if cl:  # its word classes (--clusters); its neighbours see them too (the p1/n1 views)
        f.extend(cl)
    return tuple(f)


# A longer word's first three and four letters and last four ("-tion", "-ology", "Phys",
# "Astro") as features of its own view: tried for issue 22 (scripts/train_refparse.py
# --affixes), not in the shipped model, which did better without them on the dev split.
AFFIXES = False
# Each stretch's kind (_chunk_features) as a feature of its own and of the stretches either side:
# tried for issue 22 (train_refparse.py --stretch-kinds; benchmarks/references.py --stretch-kinds
# scores such a model), not in the shipped model. Set through use_stretch_kinds.
STRETCH_KINDS = False


def use_stretch_kinds(on: bool) -> None:
    """Turn the stretch-kind features on or off for this process (the caches built with the
    other setting go)."""
    global STRETCH_KINDS, _rows, _blobs
    STRETCH_KINDS = on
    _INFO.clear()  # (a token's traits count initials only with them)
    _chunk_features.cache_clear()
    _with_next.cache_clear()
    _rows = _blobs = None


def _affixes(tok: str) -> tuple[str, ...]:
    if not AFFIXES or len(tok) < 5 or not tok[:1].isalpha():
        return ()
    low = tok.lower()
    return (f"p3={low[:3]}", f"p4={low[:4]}", f"s4={low[-4:]}")


_NONE = {tag: (f"{tag}:none".encode(),) for tag in ("p1", "n1", "p2", "n2")}
# what a token sees past either end of the string, in _info's order
_EDGE = ((), _NONE["p1"], _NONE["n1"], _NONE["p2"], _NONE["n2"])

# Everything about one token text that does not depend on where it stands, looked up once
# per occurrence (one dict lookup instead of a dozen cached calls): its features, the views
# of it its neighbours get, whether it is a year, its gazetteer key, its traits in a stretch.
_INFO: dict[str, tuple] = {}


def _enc(f: tuple[str, ...]) -> tuple[bytes, ...]:
    return tuple(map(str.encode, f))


def _info(tok: str) -> tuple:
    own = token_features(tok)
    key = _jkey(tok)
    # the views of _near, made from the encoded features (b"p1:" + x is f"p1:{x}".encode())
    enc = _enc(own)
    wide = (enc[0], enc[1], *[x for x in enc[3:] if not x.startswith(b"len=")])
    # [8]: whether a journal name can begin here (a capitalised word that begins some name)
    r = ((enc + _enc(_affixes(tok))) if AFFIXES else enc, tuple(map(b"p1:".__add__, wide)),
         tuple(map(b"n1:".__add__, wide)), (b"p2:" + enc[0], b"p2:" + enc[1]), (b"n2:" + enc[0], b"n2:" + enc[1]),
         "year" in own, key, _traits(tok),
         key is not None and key in gazetteers().journal_first and tok[:1].isupper())
    if len(_INFO) >= 65536:  # bounded, as the lru_caches are
        _INFO.clear()
    _INFO[tok] = r
    return r


_QUOTES = frozenset("\"“”„«»")
_SEPARATORS = frozenset(",;()[]\"“”„«».")


_WIDE = 1 << 32
_WIDE2, _WIDE3 = _WIDE * _WIDE, _WIDE * _WIDE * _WIDE


def _traits(tok: str) -> int:
    # what a stretch counts of its tokens, in one number so that a stretch sums them in one
    # call: lower-case words (the low 32 bits), abbreviations (the next 32), numbers (the
    # next), initials ("J.", "J.N.", "AB": above)
    return (tok[:1].islower() and len(tok) > 1) + (tok.endswith(".") and len(tok) > 2) * _WIDE \
        + tok[:1].isdigit() * _WIDE * _WIDE + (STRETCH_KINDS and bool(_INITIAL.fullmatch(tok))) * _WIDE3


@lru_cache(maxsize=4096)
def _chunk_features(length: int, lower: int, idx: int, abbr: bool, digit: bool, end: str,
                    journal: bool, initial: bool) -> tuple[bytes, ...]:
    # [7], the stretch's kind: its length, lower-case words, abbreviations, numbers and
    # initials in one feature. Each alone says little of a boundary; together they tell a
    # Title Case title ("4 words, none lower-case, no abbreviation") from a journal name
    # ("Phys. Rev.": abbreviations) and from a list of names ("Smith J", initials)
    # (--stretch-kinds, STRETCH_KINDS: tried for issue 22, not in the shipped model)
    f = (f"c_len={length}", f"c_lower={lower}", f"c_idx={idx}", "c_abbr" if abbr else "c_noabbr",
         "c_digit" if digit else "c_nodigit", f"c_end={end}", "c_journal" if journal else "c_nojournal")
    if STRETCH_KINDS:
        f += (f"c_kind={length}{lower}{'a' if abbr else ''}{'d' if digit else ''}{'i' if initial else ''}",)
    return _enc(f)


@lru_cache(maxsize=16384)
def _with_next(f: tuple[bytes, ...], nxt: tuple[bytes, ...] | None, prev: tuple[bytes, ...] | None) -> tuple[bytes, ...]:
    if STRETCH_KINDS:  # and the kinds of both: a title's stretch before a journal's, names' before a title's
        return (f + ((b"cn_" + nxt[3], b"cn_" + nxt[4], b"cn_" + nxt[1], b"cn_" + nxt[6], b"cn_" + nxt[7])
                     if nxt else (b"cn_none",))
                + ((b"cp_" + prev[0], b"cp_" + prev[3], b"cp_" + prev[1], b"cp_" + prev[7]) if prev else (b"cp_none",)))
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
                                c // _WIDE2 % _WIDE > 0, tokens[i] if i < n else "eos", journals[start] in ("jB", "j1"),
                                c >= _WIDE3)
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
    # only capitalised words that begin some name can begin a match
    return _match(out, at, keys, [k for k, w in enumerate(keys) if w in first and tokens[at[k]][:1].isupper()], g)


def _marks(tokens: list[str], infos: list[tuple]) -> list[str | None]:
    """journal_marks from the tokens' cached infos (their keys, and whether a name can begin there)."""
    g = gazetteers()
    out: list[str | None] = [None] * len(tokens)
    if not g.journal:
        return out
    at = [i for i, x in enumerate(infos) if x[6] is not None]
    starts = [k for k, i in enumerate(at) if infos[i][8]]
    if not starts:
        return out
    return _match(out, at, [infos[i][6] for i in at], starts, g)


def _match(out: list[str | None], at: list[int], keys: list[str], starts: list[int], g) -> list[str | None]:
    first = g.journal_first
    journal = g.journal
    m = len(at)
    free = 0  # the first word not yet inside a name found
    for k in starts:
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


_TURNS = frozenset((".", ":", *_QUOTES))
_J_START = ("jB", "j1")  # the marks that begin a name
_TENTHS: dict[int, list[int]] = {}


def _tenths(n: int) -> list[int]:
    # each position's tenth of a string of n tokens (kept for the lengths references have: a
    # list per length, so not for every length of a pathological text)
    r = [10 * i // n for i in range(n)]
    if n <= 512:
        _TENTHS[n] = r
    return r


_gazetteers_seen: list = [None]


def _forget(g) -> None:
    """Other gazetteers than the token features were cached with (a dev model's, the training
    script's, a test's): what was cached from the old ones goes."""
    global _rows, _blobs
    _INFO.clear()
    token_features.cache_clear()
    _jkey.cache_clear()
    _rows = _blobs = None  # (their token rows were summed from the old features)
    _gazetteers_seen[0] = g


def _layout(tokens: list[str], glued: list[bool] | None) -> tuple[list[tuple], list[str | None], list[int]]:
    """What both sequence_features and sequence_scores read: each token's cached info, its
    journal mark, and its position features packed into one number."""
    n = len(tokens)
    if glued is None:
        glued = [False] * n
    if gazetteers() is not _gazetteers_seen[0]:
        _forget(gazetteers())
    get = _INFO.get
    infos = [get(t) or _info(t) for t in tokens]
    journals = _marks(tokens, infos)
    # Everything else about a token depends on where it stands: its tenth of the string, how
    # many sentences have ended before it (a "." token before a capital: the tokenizer keeps
    # the full stop of initials and abbreviations on their word), whether a year is still to
    # come (in "Authors. Title. Journal" and "Authors (Year) Title" styles these place a token
    # in its field better than its neighbours do), whether it touches its neighbours, and what
    # has been seen before it (a year, an open quote, a colon, a journal). These are packed
    # into one number per token, and each number's features are built once per process.
    # The sentences and what has been seen change at a few tokens only: those are found first,
    # and the tokens between two of them take one value (no Python step per token for them).
    glue = [*glued[1:], False]
    codes = [p | a << 11 | b << 12 for p, a, b in zip(_TENTHS.get(n) or _tenths(n), glued, glue, strict=True)]
    years = [i for i, x in enumerate(infos) if x[5]]
    if years and years[-1]:
        last = years[-1]
        codes[:last] = [c | 1024 for c in codes[:last]]  # a year ahead
    # (position from which a change holds, the change): sentences 1 << 4 (added), a quote 2 << 6
    # (flipped), a colon 4 << 6, a year 1 << 6, a journal 8 << 6 (set)
    changes = []
    sentence = 0
    for i in [i for i, t in enumerate(tokens) if t in _TURNS]:
        t = tokens[i]
        if t == ".":
            if sentence < 3 and i + 1 < n and tokens[i + 1][:1].isupper():
                sentence += 1
                changes.append((i + 1, 16))
        elif t == ":":
            changes.append((i + 1, 256))
        else:
            changes.append((i + 1, -128))  # a quote: flipped
    if years:
        changes.append((years[0] + 1, 64))
    if "jB" in journals or "j1" in journals:
        changes.append((min(journals.index(x) if x in journals else n for x in _J_START) + 1, 512))
    if changes:
        changes.sort()
        value = 0
        for k, (at, change) in enumerate(changes):
            if change == -128:
                value ^= 128
            elif change == 16:
                value += 16
            else:
                value |= change
            end = changes[k + 1][0] if k + 1 < len(changes) else n
            if value and end > at:
                codes[at:end] = [c | value for c in codes[at:end]]
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
# the four views its neighbours get of it (a block of five rows per token text), a stretch's
# features with those of the stretches either side (keyed by one number, not by the feature
# tuple, whose hash would be computed again at every lookup), and the position features with
# the journal marks, first/last, packed into one number. A string's scores are one gather of
# the token blocks, one of the other rows, and seven additions in the order CRFsuite's sum of
# the feature lists takes them (own, p1, n1, p2, n2, stretch, position).
_MARK_BITS = {None: 0, "jB": 1 << 13, "jI": 2 << 13, "j1": 3 << 13}
_BEFORE, _BEFORE2, _LAST = 1 << 15, 1 << 16, 1 << 19
# 18 float64 a row: at most 24,576 token blocks of five rows (17.7 MB) and 16,384 other rows
# (2.4 MB), then the caches start again
_TOKENS_MAX, _OTHER_MAX = 24576, 16384
# a stretch as one number: length (3 bits), lower-case words (2), index (3), abbreviation,
# number, journal, then the separator that ends it (4 bits), initials (bit 15)
_ENDS = (*sorted(_SEPARATORS), "eos")
_END_CODE = {c: k << 11 for k, c in enumerate(_ENDS)}


def _span_features(key: int) -> tuple[bytes, ...]:
    """_spans' features of a stretch from its number (own | next + 1 << 16 | previous + 1 << 32)."""

    def own(k: int) -> tuple[bytes, ...]:
        return _chunk_features(k & 7, k >> 3 & 3, k >> 5 & 7, bool(k >> 8 & 1), bool(k >> 9 & 1),
                               _ENDS[k >> 11 & 15], bool(k >> 10 & 1), bool(k >> 15 & 1))

    nxt, prev = key >> 16 & 0xFFFF, key >> 32
    return _with_next(own(key & 0xFFFF), own(nxt - 1) if nxt else None, own(prev - 1) if prev else None)


def _span_keys(tokens: list[str], journals: list[str | None], infos: list[tuple]) -> list[tuple[int, int, int]]:
    """_spans as (first token, end, the stretch's number with its neighbours')."""
    n = len(tokens)
    traits = [x[7] for x in infos]
    found: list[tuple[int, int, int]] = []
    start = 0
    for i in [i for i, t in enumerate(tokens) if t in _SEPARATORS] + [n]:
        if i > start:
            c = sum(traits[start:i])
            k = len(found)
            found.append((start, i, min(i - start, 7) | min(c % _WIDE, 3) << 3 | (k if k < 6 else 6) << 5
                          | (c // _WIDE % _WIDE > 0) << 8 | (c // _WIDE2 % _WIDE > 0) << 9 | (STRETCH_KINDS and c >= _WIDE3) << 15
                          | (journals[start] in _J_START) << 10 | _END_CODE[tokens[i] if i < n else "eos"]))
        start = i + 1
    last = len(found) - 1
    return [(a, b, k | ((found[j + 1][2] + 1) << 16 if j < last else 0) | ((found[j - 1][2] + 1) << 32 if j else 0))
            for j, (a, b, k) in enumerate(found)]


class _Rows:
    def __init__(self) -> None:
        import numpy as np

        from ctxmill.compile.refparse.model import weights

        w = weights()
        self.index, self.matrix, self.absent = w.index, w.matrix, w.absent
        labels = self.matrix.shape[1]
        self.blocks = np.zeros((1024, 5, labels))  # per token text: its own features and four views
        self.other = np.zeros((1024, labels))      # stretches and positions; row 0 zeros
        self.used_blocks = 0
        self.used_other = 1
        self.lock = threading.Lock()
        self.tokens: dict[str, int] = {}
        self.spans: dict[int, int] = {}
        self.tails: dict[int, int] = {}
        # past either end of the string: block 0, so that no other block is 0 (``get(x) or add``);
        # its own group is empty (zeros), which _sums does not take
        with self.lock:
            self.blocks[0, 1:] = self._sums(_EDGE[1:])
            self.used_blocks = 1
        self.edge = 0

    def _sums(self, groups) -> np.ndarray:
        """Each group's features summed in their order, one row a group, as ``matrix[ids].sum(0)``
        of each group does (one row after another), for all groups at once: one gather of the
        model's rows, the groups padded to one length with the model's zero row (x + 0.0 is x),
        and one addition per position. (np.add.reduceat does not add in that order.)"""
        get, absent = self.index.get, self.absent
        width = max(map(len, groups))
        pad = [absent] * width
        ids: list[int] = []
        for g in groups:
            ids += map(get, g, repeat(absent))
            if len(g) < width:
                ids += pad[len(g):]
        rows = self.matrix.take(ids, 0).reshape(len(groups), width, -1)  # groups x width x labels
        acc = rows[:, 0].copy()
        for j in range(1, width):
            acc += rows[:, j]
        return acc

    def _grow(self, table: np.ndarray, need: int, most: int) -> np.ndarray:
        import numpy as np

        # (the rows are copied before any id of the new ones is handed out; no more than the
        # most sequence_scores keeps, unless one string needs more)
        while len(table) < need:
            more = min(len(table), most - len(table))
            if more <= 0:
                more = need - len(table)
            table = np.concatenate([table, np.zeros((more, *table.shape[1:]))])
        return table

    def add_tokens(self, toks: list[str]) -> None:
        """Blocks for token texts not seen before (distinct), all in one gather."""
        infos = [_INFO.get(t) or _info(t) for t in toks]
        sums = self._sums([g for x in infos for g in x[:5]]).reshape(len(toks), 5, -1)
        with self.lock:  # parses in threads share the rows: each new group gets rows of its own
            at = self.used_blocks
            self.blocks = self._grow(self.blocks, at + len(toks), _TOKENS_MAX)
            self.blocks[at:at + len(toks)] = sums
            self.used_blocks = at + len(toks)
        self.tokens.update(zip(toks, range(at, at + len(toks)), strict=True))

    def add_rows(self, table: dict[int, int], keys: list[int], groups: list) -> None:
        """Rows for stretches or positions not seen before (distinct keys), in one gather."""
        sums = self._sums(groups)
        with self.lock:
            at = self.used_other
            self.other = self._grow(self.other, at + len(keys), _OTHER_MAX)
            self.other[at:at + len(keys)] = sums
            self.used_other = at + len(keys)
        table.update(zip(keys, range(at, at + len(keys)), strict=True))


def _tail_features(code: int) -> list[bytes]:
    """The position features of a number of sequence_scores (positions, marks, first, last)."""
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
    return f


def _filled(store, tokens: list[str], spans: list, codes: list[int]) -> tuple[list, dict, list]:
    """Each token's block, the stretch table and each position's row, from ``store``'s caches
    (keyed by token text, stretch key, position number), what this string adds to them made
    first, distinct and in one go. The two stores of the sums, _Rows (numpy) and _Blobs
    (CRFsuite's own rows), keep the same three caches and fill them alike, through here."""
    get = store.tokens.get
    blocks = [get(t) for t in tokens]
    if None in blocks:  # token texts not seen before: their blocks in one go
        store.add_tokens(list(dict.fromkeys(t for t, x in zip(tokens, blocks, strict=True) if x is None)))
        blocks = [get(t) for t in tokens]
    span_rows = store.spans
    new = [k for _, _, k in spans if k not in span_rows]
    if new:
        new = list(dict.fromkeys(new))
        store.add_rows(span_rows, new, [_span_features(k) for k in new])
    get = store.tails.get
    tails = [get(c) for c in codes]
    if None in tails:
        new = list(dict.fromkeys(c for c, x in zip(codes, tails, strict=True) if x is None))
        store.add_rows(store.tails, new, [_tail_features(c) for c in new])
        tails = [get(c) for c in codes]
    return blocks, span_rows, tails


_rows: _Rows | None = None


def _positions(tokens: list[str], glued: list[bool] | None) -> tuple[list[tuple], list[str | None], list[int]]:
    """_layout with the journal marks, first and last packed into the position numbers."""
    n = len(tokens)
    infos, journals, codes = _layout(tokens, glued)
    # the journal marks, first and last, into the position numbers
    for k, mark in enumerate(journals):
        if mark:
            codes[k] |= _MARK_BITS[mark]
            if mark != "jI":
                if k >= 1:
                    codes[k - 1] |= _BEFORE
                if k >= 2 and not tokens[k - 1][:1].isalnum() and journals[k - 1] not in _J_START:
                    codes[k - 2] |= _BEFORE2
    for i in range(min(n, 3)):
        codes[i] |= (i + 1) << 17
    codes[-1] |= _LAST
    return infos, journals, codes


def sequence_scores(tokens: list[str], glued: list[bool] | None = None) -> np.ndarray:
    """Per token and label, the sum of the model's weights of sequence_features' features:
    what CRFsuite computes from those lists, without building them (tokens x labels)."""
    import numpy as np

    global _rows
    n = len(tokens)
    if not n:
        from ctxmill.compile.refparse.model import weights

        return np.zeros((0, weights().matrix.shape[1]))
    infos, journals, codes = _positions(tokens, glued)  # (first: it may let the rows go)
    rows = _rows
    if rows is None or rows.used_blocks + n > _TOKENS_MAX or rows.used_other + 2 * n > _OTHER_MAX:
        rows = _rows = _Rows()  # (at most one new block a token, two other rows)
    spans = _span_keys(tokens, journals, infos)
    ids, span_rows, tails = _filled(rows, tokens, spans, codes)
    edge = rows.edge
    pad = [edge, edge, *ids, edge, edge]
    other = [0] * n  # a separator has no stretch features: row 0 is zeros
    for a, b, key in spans:
        other[a:b] = [span_rows[key]] * (b - a)
    other += tails
    g = rows.blocks[pad]
    o = rows.other[other]
    # (the order of CRFsuite's sum of the feature lists: own, p1, n1, p2, n2, stretch, position)
    s = g[2:n + 2, 0] + g[1:n + 1, 1]
    s += g[3:n + 3, 2]
    s += g[0:n, 3]
    s += g[4:n + 4, 4]
    s += o[:n]
    s += o[n:]
    return s


# --- the same sums in CRFsuite, without numpy (model.py says how) -------------------------------
# Per token text its five group rows, per stretch and position number one row, each as the
# contents of an item of the scores model (18 x attribute id and value); a string is the join of
# its tokens' seven rows each. At most this many are kept, then the caches start again.
_BLOBS_MAX = 16384


class _Blobs:
    def __init__(self, native) -> None:
        self.native = native
        self.tokens: dict[str, tuple[bytes, ...]] = {}
        self.spans: dict[int, bytes] = {}
        self.tails: dict[int, bytes] = {}
        zero = native.rows([0.0] * native.n, 1)[0]
        self.zero = zero  # a separator's stretch: nothing (numpy's row 0)
        self.edge = (zero, *native.sums(list(_EDGE[1:])))

    def add_tokens(self, toks: list[str]) -> None:
        infos = [_INFO.get(t) or _info(t) for t in toks]
        rows = self.native.sums([g for x in infos for g in x[:5]])
        self.tokens.update((t, tuple(rows[5 * k:5 * k + 5])) for k, t in enumerate(toks))

    def add_rows(self, table: dict, keys: list[int], groups: list) -> None:
        table.update(zip(keys, self.native.sums(groups), strict=True))


_blobs: _Blobs | None = None


def tag_tokens(toks: list[tuple[str, int, int]]) -> tuple[list[str], float]:
    """Labels and confidence of tokenize()'s tokens: ``model.tag_scores(scores_of(toks))``, to the
    bit, summed and tagged in CRFsuite where model.native() is there (no numpy), else that."""
    from ctxmill.compile.refparse import model

    nat = model.native()
    if nat is None:
        return model.tag_scores(scores_of(toks))
    n = len(toks)
    if not n:
        return [], 0.0
    tokens = [t for t, _, _ in toks]
    infos, journals, codes = _positions(tokens, _glued(toks))
    spans = _span_keys(tokens, journals, infos)
    global _blobs
    with model._lock:  # the CRFsuite buffers are shared: one string at a time
        b = _blobs
        if b is None or b.native is not nat or len(b.tokens) + n > _BLOBS_MAX \
                or len(b.spans) + len(b.tails) + 2 * n > _BLOBS_MAX:
            b = _blobs = _Blobs(nat)
        blocks, span_rows, tails = _filled(b, tokens, spans, codes)
        stretch = [b.zero] * n
        for a, e, key in spans:
            stretch[a:e] = [span_rows[key]] * (e - a)
        edge = b.edge
        pad = [edge, edge, *blocks, edge, edge]
        # each token's rows in the order numpy adds them: own, p1, n1, p2, n2, stretch, position
        contents = b"".join([x for own, p1, n1, p2, n2, st, tl in zip(pad[2:], pad[1:], pad[3:], pad, pad[4:],
                                                                       stretch, tails, strict=False)
                             for x in (own[0], p1[1], n1[2], p2[3], n2[4], st, tl)])
        return nat.tag(contents, n)
