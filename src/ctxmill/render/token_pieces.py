"""Exact token counts and offsets of ASCII text, one tokenizer call per distinct piece.

The chunk tokenizer (:mod:`ctxmill.tokens`) is a byte-level BPE: NFKC, then the GPT-2
pre-tokenizer regex cuts the text into pieces, then BPE runs inside each piece alone. So the
tokens of a text are the tokens of its pieces, one after another, and a piece's tokens do not
depend on what is around it. Text that is all ASCII is its own NFKC form, and for ASCII the
regex's classes are plain (``\\p{L}`` is ``[A-Za-z]``, ``\\p{N}`` is ``[0-9]``, ``\\s`` is
``[\\t\\n\\v\\f\\r ]``), so Python's ``re`` cuts it exactly as the tokenizer does. The
tokenizer then runs once per *distinct* piece (in one batch) instead of over every byte:
hostile shapes (a million lines of ``word``) and prose alike repeat a few thousand pieces.

Everything else (non-ASCII text, another tokenizer) goes to the tokenizer itself. The tests
(tests/test_linear_cost.py) hold the two to the same counts and offsets.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from itertools import accumulate, chain, repeat
from operator import attrgetter, sub

from ctxmill.tokens import get_tokenizer

# The GPT-2 pattern of the ByteLevel pre-tokenizer, with its Unicode classes spelled for ASCII.
_WS = r"\t\n\x0b\x0c\r "
_PIECE = re.compile(
    rf"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^{_WS}A-Za-z0-9]+|[{_WS}]+(?![^{_WS}])|[{_WS}]+"
)
# piece -> character lengths of its tokens (one entry per token; they add up to the piece)
_lens: dict[str, tuple[int, ...]] = {}
_count: dict[str, int] = {}
_CACHE_MAX = 500_000
_usable: bool | None = None
_map: dict[int, str] | None = None


def tokenizer_setup() -> tuple[dict, dict]:
    """The bundled tokenizer's pre-tokenizer and normalizer settings (what cutting text into
    pieces or windows depends on)."""
    tok = get_tokenizer()
    pre = json.loads(tok.pre_tokenizer.__getstate__()) if tok.pre_tokenizer is not None else {}
    norm = json.loads(tok.normalizer.__getstate__()) if tok.normalizer is not None else {"type": "NFKC"}
    return pre, norm


def usable() -> bool:
    """The bundled tokenizer is the byte-level BPE this module reproduces the cutting of."""
    global _usable
    if _usable is None:
        pre, norm = tokenizer_setup()
        _usable = (pre.get("type") == "ByteLevel" and pre.get("use_regex", True)
                   and not pre.get("add_prefix_space", False)
                   and norm.get("type") in ("NFKC", "NFC")
                   and type(get_tokenizer().model).__name__ == "BPE" and get_tokenizer().post_processor is None)
    return _usable


def _byte_map() -> dict[int, str]:
    """ASCII character -> the character the byte-level pre-tokenizer maps it to (asked of the
    pre-tokenizer itself, one character at a time)."""
    pre = get_tokenizer().pre_tokenizer
    return {c: pre.pre_tokenize_str(chr(c))[0][0] for c in range(128)}


def _learn(pieces) -> None:
    """Tokenize each piece not seen yet with the tokenizer's own BPE model (what the pipeline
    runs on each pre-token; the pipeline around it costs ~5x the BPE on short pieces)."""
    global _map
    uniq = set(pieces)
    new = [p for p in uniq if p not in _count]
    if not new:
        return
    if len(_count) + len(new) > _CACHE_MAX:  # a bound on memory; this call's pieces are kept
        _count.clear()
        _lens.clear()
        new = list(uniq)
    if _map is None:
        _map = _byte_map()
    bpe = get_tokenizer().model.tokenize
    value = attrgetter("value")
    for p in new:
        toks = bpe(p.translate(_map))
        # one mapped character per byte, one byte per ASCII character
        _lens[p] = (len(p),) if len(toks) == 1 else tuple(map(len, map(value, toks)))
        _count[p] = len(toks)


def count_ascii(texts: list[str]) -> list[int]:
    """Token counts of ASCII ``texts`` (the caller checks ``str.isascii`` and :func:`usable`)."""
    split = [_PIECE.findall(t) for t in texts]
    _learn(chain.from_iterable(split))
    get = _count.__getitem__
    return [sum(map(get, ps)) for ps in split]


def ends_ascii(text: str) -> list[int]:
    """End offset of every token of an ASCII ``text``, as the tokenizer gives them for the
    whole text. The pieces tile the text, so the ends are the running sum of token lengths."""
    pieces = _PIECE.findall(text)
    _learn(pieces)
    return list(accumulate(chain.from_iterable(map(_lens.__getitem__, pieces))))


_WS_CHARS = frozenset("\t\n\x0b\x0c\r ")


class Tokenized:
    """One ASCII text cut into pieces and tokens once; the tokens of any slice of it that ends
    in a non-space character are then read from that, not tokenized again.

    A slice ``text[s:e]`` tokenized alone has the pieces of the whole text, except near its
    ends: from ``s`` its own pieces are taken (a few regex matches) until one ends where a
    piece of the whole text ends; from there on they are the whole text's pieces up to the last
    piece boundary ``q <= e`` (the regex reads no further than the piece it matches, and its
    one lookahead, ``\\s+(?!\\S)``, sees the same character inside the slice, because the
    slice ends in a non-space); from ``q`` to ``e`` its own pieces again. Each piece's tokens
    are its own. So a slice costs two bisections and its first and last pieces, whatever its
    length (tests: against the tokenizer, on every slice of random texts)."""

    def __init__(self, text: str):
        pieces = _PIECE.findall(text)
        _learn(pieces)
        self.text = text
        self.pieces = pieces
        self.bounds = [0, *accumulate(map(len, pieces))]  # where the whole text's pieces end
        # tokens before each bound (a count between two bounds is one subtraction)
        self.before = [0, *accumulate(map(_count.__getitem__, pieces))]
        self._ends: list[int] | None = None

    @property
    def ends(self) -> list[int]:
        """End offset of every token of the whole text (built when a slice's ends are asked)."""
        if self._ends is None:
            self._ends = list(accumulate(chain.from_iterable(map(_lens.__getitem__, self.pieces))))
        return self._ends

    def _scan(self, p: int, e: int, stop: bool) -> tuple[int, list[str]]:
        """The slice's own pieces from ``p``: up to ``e``, or with ``stop`` up to the first
        position that is also a piece boundary of the whole text."""
        text, bounds, out = self.text, self.bounds, []
        while p < e:
            if stop:
                k = bisect_left(bounds, p)
                if k < len(bounds) and bounds[k] == p:
                    break
            m = _PIECE.match(text, p, e)
            out.append(m.group())
            p = m.end()
        return p, out

    def ends_of(self, s: int, e: int) -> list[int] | None:
        """Token end offsets (relative to ``s``) of ``text[s:e]`` tokenized alone; None when
        the slice ends in whitespace (the caller tokenizes it)."""
        if e <= s:
            return []
        if self.text[e - 1] in _WS_CHARS:
            return None
        p, head = self._scan(s, e, True)
        q = self.bounds[bisect_right(self.bounds, e) - 1] if p < e else e
        q = max(q, p)
        _, tail = self._scan(q, e, False)
        _learn(head + tail)
        out = list(accumulate(chain.from_iterable(map(_lens.__getitem__, head))))
        i, j = bisect_right(self.ends, p), bisect_right(self.ends, q)
        out.extend(map(sub, self.ends[i:j], repeat(s, j - i)))
        if tail:
            out.extend(list(accumulate(chain.from_iterable(map(_lens.__getitem__, tail)), initial=q - s))[1:])
        return out

    def count_any(self, s: int, e: int) -> int:
        """Number of tokens of ``text[s:e]`` tokenized alone, whatever its end: a slice ending in
        white space is the slice up to its last non-space (:meth:`count`) and then that white
        space, one piece of its own at the end of a text (the pattern's ``[ws]+`` takes it whole;
        the pieces before it are those of the slice without it, none of which reaches past a
        non-space into white space)."""
        text = self.text
        q = e
        while q > s and text[q - 1] in _WS_CHARS:
            q -= 1
        n = self.count(s, q) if q > s else 0
        if q < e:
            n += count_ascii([text[q:e]])[0]
        return n

    def count(self, s: int, e: int) -> int | None:
        """Number of tokens of ``text[s:e]`` tokenized alone (None: see :meth:`ends_of`)."""
        if e <= s:
            return 0
        if self.text[e - 1] in _WS_CHARS:
            return None
        bounds, before = self.bounds, self.before
        k, m = bisect_left(bounds, s), bisect_left(bounds, e)
        if bounds[k] == s and m < len(bounds) and bounds[m] == e:  # (most units: whole pieces)
            return before[m] - before[k]
        p, head = self._scan(s, e, True)
        q = bounds[bisect_right(bounds, e) - 1] if p < e else e
        q = max(q, p)
        _, tail = self._scan(q, e, False)
        _learn(head + tail)
        get = _count.__getitem__
        # p < q: both are bounds of the whole text (the scan from s stopped at one)
        middle = before[bisect_left(bounds, q)] - before[bisect_left(bounds, p)] if p < q else 0
        return sum(map(get, head)) + middle + sum(map(get, tail))
