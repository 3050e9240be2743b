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

# The GPT-2 pattern of the ByteLevel pre-tokenizer, with its Unicode classes spelled for ASCII
# (its seven contractions 's|'t|'re|'ve|'m|'ll|'d as one branch: the same matches, in the same
# order, and one test of "'" at each position instead of seven).
_WS = r"\t\n\x0b\x0c\r "
_PIECE = re.compile(
    rf"'(?:s|t|re|ve|m|ll|d)| ?[A-Za-z]+| ?[0-9]+| ?[^{_WS}A-Za-z0-9]+|[{_WS}]+(?![^{_WS}])|[{_WS}]+"
)
_value = attrgetter("value")
# piece -> end offsets of its tokens within it (one entry per token; the last is its length)
_ends: dict[str, tuple[int, ...]] = {}
_count: dict[str, int] = {}
_CACHE_MAX = 500_000
_LONG = 256  # characters: a piece this long has its token ends kept when it is first counted
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


def _learn(pieces, readable: bool = False, unread: re.Pattern | None = None) -> None:
    """Count the tokens of each ASCII piece not seen yet with the tokenizer's own BPE model
    (what the pipeline runs on each pre-token; the pipeline around it costs ~5x the BPE on short
    pieces). Only counts: the tokens' lengths are asked of :func:`_ends_of` when a cut needs
    them (a text of 100,000 distinct numbers needs a few hundred). Pieces that are not ASCII
    (:class:`Tokenized` of a text with some) are left out: no count of theirs is ever read --
    unless ``readable``: pieces of a text :func:`read_as` vouched for, whose every character
    is in ``_map`` (its bytes as the pre-tokenizer maps them) but those ``unread`` finds."""
    global _map
    # Where many pieces are distinct (more than one in 8 of every 61st: a prime stride, not a
    # multiple of a short period of pieces as a generated text has), in the order of first
    # sight: a text's pieces are then looked up in _count in about the order they were put
    # there; for 375,000 distinct numbers a third less than set order, which the dict's own
    # order then was. Where most repeat (prose: 31 distinct in 800,000) the set is cheaper.
    sample = pieces[::61] if type(pieces) is list and len(pieces) > 4096 else ()
    if sample and 8 * len(set(sample)) > len(sample):
        uniq = dict.fromkeys(pieces)
        new = list(uniq) if not _count else [p for p in uniq if p not in _count]
    else:
        uniq = set(pieces)
        new = uniq.difference(_count)
    if not new:
        return
    if len(_count) + len(new) > _CACHE_MAX:  # a bound on memory; this call's pieces are kept
        _count.clear()
        _ends.clear()
        new = list(uniq)
    if _map is None:
        _map = _byte_map()
    if readable:
        new = list(new) if unread is None else [p for p in new if p.isascii() or not unread.search(p)]
    else:
        new = [p for p in new if p.isascii()] if not all(map(str.isascii, new)) else list(new)
    if max(map(len, new), default=0) > _LONG:  # (a long piece is cut in all likelihood: its ends now)
        for p in [p for p in new if len(p) > _LONG]:
            _count[p] = len(_ends_of(p))
        new = [p for p in new if len(p) <= _LONG]
    bpe = get_tokenizer().model.tokenize
    # (one C-level pass: the Python loop it replaced cost as much again as the BPE calls)
    _count.update(zip(new, map(len, map(bpe, _mapped(new))), strict=True))


_changed: re.Pattern | None = None


def _asis() -> re.Pattern:
    """A pattern of the ASCII characters the byte map changes, but the space and \x01 (the
    printable ones it leaves as they are, as GPT-2's byte map does)."""
    global _changed
    if _changed is None:
        chars = "".join(chr(c) for c in range(128) if _map[c] != chr(c) and c not in (1, 32))
        _changed = re.compile(f"[{re.escape(chars)}]") if chars else re.compile(r"(?!)")
    return _changed


def _mapped(pieces: list[str]) -> list[str]:
    """The pieces as the byte-level pre-tokenizer maps them (each character through ``_map``):
    many at once joined by \x01 and translated in one call (a third less than a call a piece
    for 375,000 distinct numbers), unless a piece holds an \x01 itself."""
    if len(pieces) < 64:
        return list(map(str.translate, pieces, repeat(_map)))
    joined = "\x01".join(pieces)
    if joined.isascii() and _asis().search(joined) is None:  # (only spaces change: one replace)
        out = joined.replace(" ", _map[32]).split("\x01")
    else:
        out = joined.translate(_map).split(_map[1])
    return out if len(out) == len(pieces) else list(map(str.translate, pieces, repeat(_map)))


def _count_new(piece: str) -> int:
    """The count of one piece not seen yet (ASCII, or read in a text :func:`read_as` vouched for)."""
    _learn((piece,), True)
    return _count[piece]


def _ends_of(piece: str) -> tuple[int, ...]:
    """End offsets of the tokens of one ASCII piece within it (the last is the piece's length;
    one mapped character per byte, one byte per ASCII character). Asked only where a cut
    falls, so each piece is tokenized a second time at most once (a 1 MB word of letters too:
    then its cuts are one lookup each)."""
    got = _ends.get(piece)
    if got is None:
        global _map
        if _map is None:
            _map = _byte_map()
        mapped = piece.translate(_map)
        got = _spliced_ends(mapped) if len(mapped) > _SPLICE_MIN and _spliceable() else None
        if got is None:
            toks = get_tokenizer().model.tokenize(mapped)
            got = (len(piece),) if len(toks) == 1 else tuple(accumulate(map(len, map(_value, toks))))
        if len(_ends) >= _CACHE_MAX:
            _ends.clear()
        _ends[piece] = got
    return got


# A long piece (a 2.7 MB word of letters: hyphen-ended lines re-flowed) is run through the BPE
# in overlapping windows, spliced where both windows have the same token. Exact, by two facts
# about BPE (merges applied lowest rank first, leftmost first; github.com/github/rust-gems,
# crates/bpe/README.md, "Properties of BPE"):
#   (II)  any run of tokens e_i..e_j of a text's BPE is the BPE of the text it covers: a merge of
#         the whole run is never between two of its final tokens, and inside the run each was the
#         lowest-ranked, leftmost pair of all pairs, so of the run's own pairs too;
#   (III) if e_0..e_i is the BPE of X+Y and e_i..e_n the BPE of Y+Z, where e_i covers Y, then
#         e_0..e_n is the BPE of X+Y+Z: by (II)'s argument, the first merge of X+Y+Z that crossed a
#         boundary of e_0..e_n would be made by the BPE of X+Y or of Y+Z too (every boundary lies
#         inside one of them), which ends with that boundary; and when no pair of X+Y+Z merges,
#         none of X+Y or Y+Z does.
# So window k's tokens up to the shared token, then window k+1's from it, are the BPE of the
# whole. Where two windows share no token the piece is run whole. The BPE of one long word
# costs ~2.5x the windows' (its heap and its token list grow with the word).
_SPLICE_MIN = 16_384  # characters: shorter pieces are run whole
_SPAN, _OVERLAP = 2048, 128
_can_splice: bool | None = None


def _spliceable() -> bool:
    """The bundled model is a plain BPE (no dropout, no word prefix or suffix, no whole-word
    vocabulary lookup before the merges): the facts above hold for it."""
    global _can_splice
    if _can_splice is None:
        m = get_tokenizer().model
        _can_splice = (type(m).__name__ == "BPE" and m.dropout in (None, 0)
                       and not m.continuing_subword_prefix and not m.end_of_word_suffix
                       and not getattr(m, "ignore_merges", True))
    return _can_splice


def _spliced_ends(mapped: str, span: int = _SPAN, overlap: int = _OVERLAP) -> tuple[int, ...] | None:
    """End offsets of the tokens of ``mapped`` (a piece as the byte-level pre-tokenizer maps it)
    from overlapping windows of ``span + overlap`` characters, ``span`` apart; None where two
    windows share no token (the caller runs the piece whole)."""
    bpe = get_tokenizer().model.tokenize
    n = len(mapped)
    out: list[int] = []
    taken = 0  # where the tokens not yet in out begin
    a, prev = 0, None  # this window's start; the last window's token ends
    seen: dict[str, list[int]] = {}  # window text -> its token ends (a word that repeats: once each)
    while True:
        b = min(n, a + span + overlap)
        window = mapped[a:b]
        rel = seen.get(window)
        if rel is None:
            rel = seen[window] = list(accumulate(map(len, map(_value, bpe(window))), initial=0))
        ends = list(map(a.__add__, rel))  # (its start first)
        if prev is not None:
            k = bisect_right(prev, a) - 1  # the last window's tokens that end past this one's start
            starts = dict(zip(prev[k + 1 :], prev[k:], strict=False))  # end -> start
            last, cut = prev[-1], None
            for i in range(1, len(ends)):  # the first token of this window the last one has too
                e = ends[i]
                if e > last:
                    break
                if starts.get(e) == ends[i - 1]:
                    cut = i
                    break
            if cut is None:
                return None
            out.extend(prev[bisect_right(prev, taken) : bisect_right(prev, ends[cut])])
            taken = ends[cut]
        if b >= n:
            out.extend(ends[bisect_right(ends, taken) :])
            return tuple(out)
        prev = ends
        a += span


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
    # each distinct piece's token lengths once; then one C-level running sum over the text
    lens = {p: (ends[0], *map(sub, ends[1:], ends)) for p in set(pieces) for ends in (_ends_of(p),)}
    return list(accumulate(chain.from_iterable(map(lens.__getitem__, pieces))))


_WS_CHARS = frozenset("\t\n\x0b\x0c\r ")

# Non-ASCII characters asked of the tokenizer so far: char -> its class in the GPT-2 pattern
# ("L" letter, "N" number, "S" white space, "O" other; None: never read piece by piece -- the
# tokenizer's normalizer makes it something read otherwise, or the probes disagree)
_classes: dict[str, str | None] = {}
# characters NFKC makes one other character of, a number or a mark (superscript and
# full-width digits, ...): char -> that character; read as it, in its class
_images: dict[str, str] = {}
_patterns: dict[tuple[str, str, str], tuple[re.Pattern, frozenset]] = {}
_Reading = tuple  # (pattern, white space, unread: a pattern of the characters never read, or None)
_last: list = [None, None]  # (the last text asked of read_as(), its answer: asked twice a compile)


def _probe(chars) -> None:
    """Ask the tokenizer's own normalizer what NFKC makes of each character alone, and its
    pre-tokenizer the class of what it makes (a character joins the piece of a letter before it
    only if it is a letter, ...; one call a probe); record its bytes as the pre-tokenizer maps
    them. A character NFKC changes is read as its image where that is one character of
    class N or O other than ``'`` (the image of a letter could end a contraction: ``'ｓ``
    is ``'s``; a space's image could start a piece)."""
    global _map
    tok = get_tokenizer()
    pre, norm = tok.pre_tokenizer, tok.normalizer
    if _map is None:
        _map = _byte_map()
    for c in chars:
        got = None
        try:
            d = c if norm is None else norm.normalize_str(c)
            if len(d) == 1:
                joins = [len(pre.pre_tokenize_str(lead + d)) == 1 for lead in ("a", "1", "\t", "!")]
                if sum(joins) == 1:
                    got = "LNSO"[joins.index(True)]
                    if d != c and (got not in "NO" or d == "'"):
                        got = None
                    else:
                        (mapped, _), = pre.pre_tokenize_str(d)
                        _map[ord(c)] = mapped
                        if d != c:
                            _images[c] = d
        except Exception:  # (a lone surrogate cannot reach Rust: not readable)
            got = None
        _classes[c] = got


def read_as(text: str) -> _Reading | None:
    """The GPT-2 pattern, its classes spelled for the characters of ``text``, when every
    non-ASCII character of it either has a class the pre-tokenizer confirmed and is left alone
    by the tokenizer's NFKC (:func:`_probe`), or is *unread* (a character NFKC changes, as
    ``¹`` or ``ﬁ``), and the text between the unread ones is its own NFKC form; else None.
    A slice holding no unread character is then cut by Python's ``re`` exactly as the
    tokenizer cuts it (the classes are the tokenizer's own answers, and NFKC, the identity on
    the text around it, is the identity on the slice: a character composes only with the
    nearest starter before it, which a slice keeps or cuts off along with it), and its pieces
    are counted by the BPE as ASCII pieces are (tests: against the tokenizer, on every slice
    of random texts of accents, letters of other scripts, marks, ligatures, digits and spaces
    that are not ASCII). With the pattern: the white space characters of the text as the
    pattern reads them, and a pattern of the unread characters (None: there are none)."""
    if text.isascii():
        return _PIECE, _WS_CHARS, None
    if _last[0] is text:
        return _last[1]
    got = _read_as(text)
    _last[:] = text, got
    return got


def _read_as(text: str) -> _Reading | None:
    # Each run of non-ASCII characters with the character before it: NFKC changes nothing else
    # (an ASCII character has no decomposition, is never the second of a composition and
    # blocks any composition across it), so the text is its own NFKC form just when these are;
    # a line end between them is such a character too. (A 4 MB text with a few accents: one
    # search instead of its whole NFKC, 0.16 s.)
    near = "\n".join([text[max(m.start() - 1, 0) : m.end()] for m in _NOT_ASCII.finditer(text)])
    chars = {c for c in set(near) if c > "\x7f"}
    new = chars.difference(_classes)
    if new:
        _probe(new)
    bad = "".join(sorted(c for c in chars if _classes[c] is None))
    unread = re.compile(f"[{re.escape(bad)}]+") if bad else None
    tok = get_tokenizer()
    try:
        # (each unread run made a line end: a starter NFKC composes with nothing on either
        # side, so the text is its own NFKC form just when each stretch between them is)
        rest = near if unread is None else unread.sub("\n", near)
        images = {ord(c): _images[c] for c in chars if c in _images}
        if tok.normalizer is not None and tok.normalizer.normalize_str(rest) != (
                rest.translate(images) if images else rest):
            return None
    except Exception:  # (a lone surrogate cannot reach Rust: left to the tokenizer)
        return None
    by = {k: "".join(sorted(c for c in chars if _classes[c] == k)) for k in "LNS"}
    key = (by["L"], by["N"], by["S"])
    got = _patterns.get(key)
    if got is None:
        if len(_patterns) > 64:
            _patterns.clear()
        L, N, S = ("A-Za-z" + re.escape(by["L"]), "0-9" + re.escape(by["N"]), _WS + re.escape(by["S"]))
        got = (re.compile(rf"'(?:s|t|re|ve|m|ll|d)| ?[{L}]+| ?[{N}]+| ?[^{S}{L}{N}]+|[{S}]+(?![^{S}])|[{S}]+"),
               _WS_CHARS.union(by["S"]))
        _patterns[key] = got
    return (*got, unread)


_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def non_ascii(text: str) -> list[int]:
    """Start and end of each run of non-ASCII characters of ``text``, in one flat sorted list."""
    return [] if text.isascii() else [x for m in _NOT_ASCII.finditer(text) for x in m.span()]


def all_ascii(runs: list[int], s: int, e: int) -> bool:
    """``text[s:e]`` holds none of the non-ASCII ``runs`` (of :func:`non_ascii`): a bisection."""
    if not runs:
        return True
    k = bisect_right(runs, s)  # odd: s inside a run; even: the next run starts at runs[k]
    return k % 2 == 0 and (k == len(runs) or runs[k] >= e)


def _own_ends(pieces: list[str], at: int, want: int, done: int, step: int, out: list[int]) -> tuple[int, int]:
    """Append the end offsets of the tokens number ``want``, ``want + step``, ... that lie in
    ``pieces`` (which start at offset ``at``, after ``done`` tokens); the next token wanted and
    the tokens done after them."""
    for piece in pieces:
        n = _count[piece]
        if want < done + n:
            ends = _ends_of(piece)
            while want < done + n:
                out.append(at + ends[want - done])
                want += step
        done += n
        at += len(piece)
    return want, done


class Tokenized:
    """One text cut into pieces and tokens once; the tokens of any ASCII slice of it that ends
    in a non-space character are then read from that, not tokenized again.

    A slice ``text[s:e]`` tokenized alone has the pieces of the whole text, except near its
    ends: from ``s`` its own pieces are taken (a few regex matches) until one ends where a
    piece of the whole text ends; from there on they are the whole text's pieces up to the last
    piece boundary ``q <= e`` (the regex reads no further than the piece it matches, and its
    one lookahead, ``\\s+(?!\\S)``, sees the same character inside the slice, because the
    slice ends in a non-space); from ``q`` to ``e`` its own pieces again. Each piece's tokens
    are its own. So a slice costs two bisections and its first and last pieces, whatever its
    length (tests: against the tokenizer, on every slice of random texts).

    That argument is about the regex alone, so it holds in a text that is not all ASCII too:
    the whole text is cut with the same (ASCII) pattern, and a slice that is all ASCII -- whose
    pieces are then the tokenizer's own -- is read from the cut as above; the pieces in it are
    ASCII. Slices that hold a non-ASCII character get None (the caller asks the tokenizer):
    a paper with a few accents or dashes is still counted from its one cut."""

    def __init__(self, text: str):
        # A text that is not all ASCII but :func:`read_as` can read is cut with its own classes
        # and counted but where it has unread characters (a paper with accents, a text in
        # another script); any other text is cut with the ASCII pattern, and only its ASCII
        # slices are counted from the cut.
        got = read_as(text)
        self._other = non_ascii(text)  # (where its non-ASCII runs start and end)
        # the pattern, white space as it reads it (what a slice must not end in), and the
        # characters no count is read over
        self.piece, self.ws, unread = got or (_PIECE, _WS_CHARS, None)
        if got is None:
            self._unread = self._other
        else:
            self._unread = [] if unread is None else [x for m in unread.finditer(text) for x in m.span()]
        pieces = self.piece.findall(text)
        _learn(pieces, got is not None, unread)
        self.text = text
        self.pieces = pieces
        self.bounds = [0, *accumulate(map(len, pieces))]  # where the whole text's pieces end
        # tokens before each bound (a count between two bounds is one subtraction; a piece
        # that is not read counts 0 here and lies in no slice that is read)
        if not self._unread:
            self.before = [0, *accumulate(map(_count.__getitem__, pieces))]
        else:
            self.before = [0, *accumulate(map(_count.get, pieces, repeat(0)))]

    def is_ascii(self, s: int, e: int) -> bool:
        """``text[s:e]`` holds no non-ASCII character."""
        return all_ascii(self._other, s, e)

    def can_count(self, s: int, e: int) -> bool:
        """``text[s:e]``'s count can be read from the cut (it is ASCII, or the text is read by
        :func:`read_as` and the slice holds none of its unread characters)."""
        return all_ascii(self._unread, s, e)

    def _scan(self, p: int, e: int, stop: bool) -> tuple[int, list[str]]:
        """The slice's own pieces from ``p``: up to ``e``, or with ``stop`` up to the first
        position that is also a piece boundary of the whole text."""
        text, bounds, out = self.text, self.bounds, []
        while p < e:
            if stop:
                k = bisect_left(bounds, p)
                if k < len(bounds) and bounds[k] == p:
                    break
            m = self.piece.match(text, p, e)
            out.append(m.group())
            p = m.end()
        return p, out

    def _parts(self, s: int, e: int) -> tuple[list[str], int, int, list[str]]:
        """The slice's own pieces from ``s`` (head), the bounds ``p <= q`` of the whole text's
        pieces it shares, and its own pieces from ``q`` to ``e`` (tail)."""
        p, head = self._scan(s, e, True)
        q = self.bounds[bisect_right(self.bounds, e) - 1] if p < e else e
        q = max(q, p)
        _, tail = self._scan(q, e, False)
        _learn(head + tail)
        return head, p, q, tail

    def ends_every(self, s: int, e: int, first: int, step: int, any_end: bool = False) -> list[int] | None:
        """End offsets (relative to ``s``) of the tokens number ``first``, ``first + step``, ...
        (0-based) of ``text[s:e]`` tokenized alone; None when the slice is not all ASCII or,
        unless ``any_end``, ends in white space (the caller tokenizes it). Only the tokens
        asked for are looked at: the shared pieces' counts say which piece holds one (a
        bisection), and only that piece's token lengths are needed, so cutting a long text
        every 500 tokens costs its cuts, not its tokens. With ``any_end`` a slice ending in
        white space is read as :meth:`count_any` reads it: up to its last non-space, then that
        white space as one piece."""
        if e <= s:
            return []
        text = self.text
        if not self.is_ascii(s, e):
            return None
        if text[e - 1] in _WS_CHARS:
            if not any_end:
                return None
            q = e
            while q > s and text[q - 1] in _WS_CHARS:
                q -= 1
            out: list[int] = []
            want, done = self._ends(s, q, first, step, out) if q > s else (first, 0)
            space = [text[q:e]]
            _learn(space)
            _own_ends(space, q - s, want, done, step, out)
            return out
        out = []
        self._ends(s, e, first, step, out)
        return out

    def _ends(self, s: int, e: int, first: int, step: int, out: list[int]) -> tuple[int, int]:
        """:meth:`ends_every` of a slice that ends in a non-space, appended to ``out``; the next
        token wanted and the slice's count."""
        head, p, q, tail = self._parts(s, e)
        want, done = _own_ends(head, 0, first, 0, step, out)  # (want: the next token asked for)
        bounds, before = self.bounds, self.before
        kp, kq = bisect_left(bounds, p), bisect_left(bounds, q)
        shift = before[kp] - done  # a shared token's number in the whole text minus its number here
        n = before[kq] - before[kp]
        while want < done + n:
            g = want + shift
            i = bisect_right(before, g, kp, kq) - 1  # the piece holding token g (each has >= 1)
            out.append(bounds[i] - s + _ends_of(self.pieces[i])[g - before[i]])
            want += step
        return _own_ends(tail, q - s, want, done + n, step, out)

    def ends_of(self, s: int, e: int) -> list[int] | None:
        """Token end offsets (relative to ``s``) of ``text[s:e]`` tokenized alone; None when
        the slice ends in whitespace or is not all ASCII (the caller tokenizes it)."""
        return self.ends_every(s, e, 0, 1)

    def count_any(self, s: int, e: int) -> int | None:
        """Number of tokens of ``text[s:e]`` tokenized alone, whatever its end (None: a slice
        that is not all ASCII): a slice ending in white space is the slice up to its last
        non-space (:meth:`count`) and then that white space, one piece of its own at the end of
        a text (the pattern's ``[ws]+`` takes it whole; the pieces before it are those of the
        slice without it, none of which reaches past a non-space into white space)."""
        text, ws = self.text, self.ws
        q = e
        while q > s and text[q - 1] in ws:
            q -= 1
        n = self.count(s, q) if q > s else 0
        if q < e and n is not None:
            n += _count.get(text[q:e]) or _count_new(text[q:e])
        return n

    def count(self, s: int, e: int) -> int | None:
        """Number of tokens of ``text[s:e]`` tokenized alone (None: see :meth:`ends_of`)."""
        if e <= s:
            return 0
        if self.text[e - 1] in self.ws or (self._unread and not self.can_count(s, e)):
            return None
        bounds, before = self.bounds, self.before
        k, m = bisect_left(bounds, s), bisect_left(bounds, e)
        if bounds[k] == s and m < len(bounds) and bounds[m] == e:  # (most units: whole pieces)
            return before[m] - before[k]
        # (what _parts does, without its lists: a slice cut between sentences is read so, one
        # for every sentence of a long paragraph)
        text, match, nb = self.text, self.piece.match, len(bounds)
        n, p = 0, s
        if k and bounds[k - 1] == s - 1 and bounds[k] <= e:
            # (a slice that starts after a space the whole text's piece began with, as a
            # sentence does: its first piece is that piece without the space -- the same run of
            # one class -- unless that leaves white space or a quote a contraction could take)
            whole = self.pieces[k - 1]
            if len(whole) > 1 and whole[0] == " " and whole[1] != "'" and whole[1] not in self.ws:
                piece = whole[1:]
                n, p = _count.get(piece) or _count_new(piece), bounds[k]
        hi = m + 1 if m < nb else nb  # (the bound a piece of the slice ends at is at most m)
        while bounds[k] != p:  # its own pieces until one ends where a whole-text piece ends
            piece = match(text, p, e).group()
            n += _count.get(piece) or _count_new(piece)
            p += len(piece)
            if p >= e:
                return n
            k = bisect_left(bounds, p, k, hi)
        j = m if m < nb and bounds[m] == e else m - 1  # the last whole-text bound <= e (>= k)
        n += before[j] - before[k]
        q = bounds[j]
        while q < e:  # its own pieces again
            piece = match(text, q, e).group()
            n += _count.get(piece) or _count_new(piece)
            q += len(piece)
        return n
