"""Fusion of lexical and vector candidates, then a ranker that reads code like a programmer.

:func:`fuse` merges the two candidate lists (weighted reciprocal-rank fusion: robust to the
very different score scales of BM25 and cosine similarity). :func:`rerank` then adjusts each
candidate's fused score with what a programmer looks at:

- **query shape**: a bare identifier (``ClientSession``, ``field_validator``) is a symbol
  lookup, so the definition of that name wins; a question ("how does X work") wants the file
  where most of the matching code lives (the *central* file), so a file's other matching chunks
  lend it weight;
- **symbol names**: exact matches of an identifier in the query, and partial matches of its
  words, with definitions (class, function, interface...) above mere uses;
- **path and file name** terms (``routing`` in ``fastapi/routing.py``), which are the
  author's own summary of a file;
- **coverage**: the share of the query's words the chunk contains (text, docstring/comments,
  symbol, path) - BM25 rewards repetition of one word, a reader rewards answering all of them;
- **tests, examples, vendored code** step back unless the query asks for them;
- **near-duplicates** are dropped and **one file cannot flood** the top: each further chunk of
  a file already listed counts for less.

All weights live in :class:`Weights`; the defaults were tuned on the semble-derived dev set
(``benchmarks/code_search.py --tune``) and checked on held-out halves, see docs/search.md.
Nothing here knows about any particular repository.
"""

from __future__ import annotations

import hashlib
import math
import re
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from itertools import accumulate
from typing import Any

from ctxmill.index.textsplit import split_identifier

# Words that carry no search intent in a question about code.
STOP = frozenset("""
a an the and or of for to in on at by with from into is are was were be been being it its this that these
those how does do did what where which who whom why when can could should would will shall may might
must there here than then so such as if else not no yes any all each every some work works working
handled handle handles handling implemented implement implementation implements used use uses using
code function functions method methods class classes logic defined define defines definition happens
me my we our you your i about between via get gets
through before after during within across whole right internals mechanism mechanisms system systems
functionality feature features support supports supported responsible happen done take takes place
""".split())

DEFINITION_KINDS = frozenset({
    "class", "function", "method", "interface", "type", "struct", "enum", "trait", "impl", "module",
    "constant", "variable", "protocol", "object", "record", "union", "namespace", "macro",
})
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_TESTISH = re.compile(r"(^|/)_?(tests?|__tests__|spec|specs|testing|examples?|benchmarks?|fixtures?|vendor|"
                      r"third_party|node_modules|docs?)(/|$)|(^|/)(test_[^/]*|[^/]*_test\.[a-z]+|[^/]*\.(test|spec)\.[a-z]+)$")

# File names that only say "this folder's module": the folder is the name.
INDEX_NAMES = frozenset({"mod", "index", "init"})

# Declaration files describe shapes for tooling (TypeScript .d.ts, Python .pyi stubs, LuaLS
# `---@meta` files, which the chunker marks with STUB_MARK as their chunks' context): the
# implementation a question is about lives elsewhere.
_STUB_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".pyi")
STUB_MARK = "---@meta"

_PROSE = re.compile(r"\.(md|markdown|rst|txt|adoc)$", re.I)


@dataclass(frozen=True)
class Weights:
    """Defaults tuned on the dev set (benchmarks/code_search.py --tune; docs/search.md)."""

    # fusion: score = lex / (rrf_k + rank_lex) + vec / (rrf_k + rank_vec), scaled so rank 1 of both = 1
    lex: float = 2.0
    vec: float = 1.0
    rrf_k: float = 5.0
    # ranker (added to the fused score, which lies in [0, 1])
    exact_symbol: float = 0.6  # the chunk defines an identifier the query names
    exact_symbol_use: float = 0.15  # the chunk's symbol is that identifier but it is not a definition kind
    text_definition: float = 0.3  # "class X" / "def X" / "function X" ... inside the chunk text
    reexport: float = 1.0  # `pub use a::{X}` / `export { X } from`: X's definition is not among the candidates
    symbol_parts: float = 0.25  # share of the symbol's words found in the query
    file_stem: float = 1.0  # share of the file name's words found in the query
    path_dirs: float = 0.3  # share of query words found in the folder names
    coverage: float = 0.6  # share of query words present in the chunk (text, symbol, path)
    central: float = 0.6  # weight of the file's other matching chunks (questions only)
    central_symbol: float = 0.1  # ... for symbol lookups
    file_coverage: float = 0.6  # share of query words found anywhere in the file's candidates
    testish: float = 1.0  # step back for tests/examples/vendored code
    prose: float = 0.4  # step back for Markdown/text chunks when the query is about code
    file_decay: float = 0.2  # each further chunk of one file keeps this share of its score
    # file level (needs ``files=``: each candidate file's name terms, see :func:`file_terms`)
    file_names: float = 1.0  # idf-weighted share of the query's words among the file's names
    phrase_symbol: float = 0.4  # the symbol's words appear in this order in the query
    old_version: float = 1.0  # step back for code under v1/ when a sibling v2/ exists (query names neither)
    acronym: float = 1.0  # 1: a file-name part that is the initials of query words (hf ~ Hugging Face) counts
    abbrev: float = 1.0  # 1: a file-name part that abbreviates a query word (config ~ configuration) counts
    name_idf: float = 1.0  # a file-name word in the paths of most candidates counts this much less
    qualifier: float = 0.7  # a file-name match on a query word after the first preposition counts this much
    stub: float = 1.0  # step back for declaration files (.d.ts, .pyi, Lua ---@meta) unless types are asked for
    # a forwarding file (fmt/core.h is `#include "base.h"`, an index.ts of `export * from`) takes
    # this share of the best final score of a file it forwards to, divided by facade_fanout ** the
    # number of files it forwards to beyond the first (needs ``facades=``, see facade_index)
    facade: float = 0.9
    facade_fanout: float = 0.5


DEFAULT_WEIGHTS = Weights()
CANDIDATES = 200  # taken from each of the lexical and the vector list
POOL = 120  # fused candidates the ranker looks at


# ------------------------------------------------------------------------------ helpers


def _get(hit: Any, name: str, default=None):
    if isinstance(hit, dict):
        return hit.get(name, default)
    return getattr(hit, name, default)


def _set_score(hit: Any, score: float):
    if isinstance(hit, dict):
        out = dict(hit)
        out["score"] = score
        return out
    try:
        return replace(hit, score=score)
    except TypeError:
        hit.score = score
        return hit


def _key(hit: Any) -> tuple:
    return (_get(hit, "path"), _get(hit, "start_line"), _get(hit, "end_line"))


@dataclass
class Query:
    text: str
    words: list[str]  # content words (split identifiers, lower-case, no stop words), unique, in order
    idents: set[str]  # identifiers written as such in the query (case kept): CamelCase, snake_case, dotted
    symbol_lookup: bool  # the whole query is one identifier
    wants_tests: bool
    wants_prose: bool
    wants_types: bool = False  # asks about type declarations / stubs themselves


_QUALIFIED = re.compile(r"\b[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*::([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\(\)")


def parse_query(text: str) -> Query:
    toks = _IDENT.findall(text)
    idents = {t for t in toks if _looks_like_identifier(t)}
    bare = text.strip()
    # a bare name, dotted or with the :: of Rust, C++, Ruby and PHP (Rack::Builder, fmt::format)
    symbol_lookup = bool(re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_$][A-Za-z0-9_$]*)*", bare))
    if symbol_lookup:
        idents |= {p for p in re.split(r"\.|::", bare) if p}
    else:
        # a qualified name inside a question (fmt::format, std::ostream, Rack::Builder) names
        # its last part (the namespace only places it); so does a call, use() or at()
        idents |= {m.group(1) or m.group(2) for m in _QUALIFIED.finditer(text)}
    seen: dict[str, None] = {}
    for t in toks:
        for w in split_identifier(t) or [t.lower()]:
            if w not in STOP and len(w) > 1:
                seen[w] = None
        if t in idents and len(split_identifier(t)) > 1:
            seen[t.lower()] = None
        elif re.fullmatch(r"[A-Za-z]+[0-9]+", t):  # v3, oauth2, base64: the digits belong to the word
            seen[t.lower()] = None
    wants_tests = bool(re.search(r"\b(tests?|testing|spec|example|examples|benchmark)\b", text, re.I))
    wants_prose = bool(re.search(r"\b(docs?|documentation|readme|guide|tutorial|paper|section|chapter|spec)\b",
                                 text, re.I))
    wants_types = bool(re.search(r"\b(types?|typing|typings|stubs?|annotations?|declarations?|signatures?)\b", text,
                                 re.I))
    return Query(text, list(seen), idents, symbol_lookup, wants_tests, wants_prose, wants_types)


_MEMOS: list = []  # (function, size limit) of every _memo cache


def _memo(limit: int):
    """Cache a pure function of one string: ``lru_cache(maxsize=None)``, emptied by
    :func:`_trim_memos` once it holds ``limit`` entries.

    Not a bounded ``lru_cache`` for the big caches here: the collector visits every entry of
    a bounded one at each full collection, while the plain dict behind an unbounded one, when
    it holds only strings (or tuples of them), is not tracked at all. With bounded lru_caches
    each full collection took ~80 ms on a 100k-chunk index: the p99 of a search."""

    def wrap(fn):
        cached = lru_cache(maxsize=None)(fn)
        _MEMOS.append((cached, limit))
        return cached

    return wrap


def _trim_memos() -> None:
    """Empty the caches that reached their limit (called once a query)."""
    for fn, limit in _MEMOS:
        if fn.cache_info().currsize >= limit:
            fn.cache_clear()


_SUFFIXES = ("ational", "ations", "ation", "ators", "ator", "ated", "ating", "ates", "ate", "ings", "ing", "ers", "er", "ied",
             "es", "ed", "ly", "s", "e")


@_memo(65536)
def stem(word: str) -> str:
    """A light suffix stripper so that parse/parses/parser/parsing, validate/validator/validation
    and test/tests meet; keeps at least 3 letters."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 5:
        return w[:-3] + "y"
    if w.endswith("ery") and len(w) >= 7:  # recovery ~ recover(er), discovery, delivery
        return w[:-1]
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            # formatting -> formatt -> format, as format; running -> run
            if suf in ("ing", "ings", "ed", "er", "ers") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            # aliases -> alias -> alia, as alias -> alia; classes -> class -> clas, as class
            if suf == "es" and w.endswith("s") and w[-2] in "aiosu" and len(w) > 4:
                w = w[:-1]
            return w
    return w


# Words programmers use for one thing: a file named for one of them answers a query with the other.
_SYNONYMS = {"util": frozenset({"help"}), "help": frozenset({"util", "utility"})}


def _abbrev(a: str, b: str) -> bool:
    """One word is a truncation of the other, as programmers abbreviate: config ~ configuration,
    util ~ utility, param ~ parameters, token ~ tokenizer. The short one has at least 4 letters
    and more than half the stem of the long one (name is not namespaces), and at least two
    letters are cut (mode is not model)."""
    return _abbrev_pair(f"{a}\n{b}")  # words never hold a newline


@_memo(65536)
def _abbrev_pair(pair: str) -> bool:
    a, b = pair.split("\n")
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return (len(short) >= 4 and len(long_) - len(short) >= 2 and long_.startswith(short)
            and 2 * len(short) > len(stem(long_)))


def _stems(words) -> set[str]:
    return {stem(w) for w in words}


# The cached sets below are tuples of distinct stems (see _memo: tuples of strings cost the
# garbage collector nothing); _overlap() counts what ``len(a & b)`` of the sets would.


def _overlap(distinct: tuple[str, ...], stems) -> int:
    return sum(1 for x in distinct if x in stems)


@_memo(16384)
def _path_features(path: str) -> tuple[str, str, tuple[str, ...], tuple[str, ...], bool, bool]:
    """(file name without extension, folder, stems of the name's words, stems of the folders'
    words, tests/examples/vendored?, prose?) - cached: the same files come back query after query."""
    fname = path.rsplit("/", 1)[-1].split(".", 1)[0]
    dirs = path.rsplit("/", 1)[0] if "/" in path else ""
    if fname.lower() in INDEX_NAMES and dirs:
        # a module's index file (mod.rs, __init__.py, index.ts, init.lua): the name says
        # nothing, the folder names the module (axum/src/routing/mod.rs is "routing")
        fname = dirs.rsplit("/", 1)[-1]
    parts = split_identifier(fname)
    # a one-letter part says nothing about the file: value_t is "value" (C's _t for a type)
    parts = [x for x in parts if len(x) > 1] or parts
    return (fname, dirs, tuple(_stems(parts)), _dir_stems(dirs),
            bool(_TESTISH.search(path)), bool(_PROSE.search(path)))


@_memo(16384)
def _dir_stems(dirs: str) -> tuple[str, ...]:
    return tuple(_stems(_terms(dirs)))  # a folder's files share it


@_memo(16384)
def _name_parts(fname: str) -> tuple[str, ...]:
    return tuple(split_identifier(fname))


@_memo(65536)
def _symbol_stems(leaf: str) -> tuple[str, ...]:
    return tuple(_stems(split_identifier(leaf)))


@_memo(65536)
def _symbol_seq(leaf: str) -> tuple[str, ...]:
    return tuple(stem(p) for p in split_identifier(leaf))


@lru_cache(maxsize=1024)
def _runs(text: str) -> tuple[tuple[str, ...], ...]:
    """Runs of consecutive content words of the query, identifiers split, lower-case: a stop word
    or punctuation other than a hyphen ends a run ("server-sent events" is one run)."""
    runs: list[list[str]] = [[]]
    for t in re.findall(r"[A-Za-z0-9_$]+|[^\sA-Za-z0-9_$'-]", re.sub(r"'s\b", "", text)):
        parts = split_identifier(t) if t[0].isalnum() or t[0] in "_$" else []
        if not parts or any(p in STOP for p in parts):
            runs.append([])
            continue
        runs[-1].extend(parts)
    return tuple(tuple(r) for r in runs if r)


def _phrases(text: str) -> frozenset[tuple[str, ...]]:
    """Runs of 2-3 consecutive content words of the query, stemmed."""
    out = set()
    for run in _runs(text):
        st = [stem(p) for p in run]
        for n in (2, 3):
            out.update(tuple(st[i : i + n]) for i in range(len(st) - n + 1))
    return frozenset(out)


def _initials(text: str) -> frozenset[str]:
    """The acronyms a file may be named by: initials of the parts of one compound word
    (HuggingFace ~ hf, WebSocket ~ ws) or of 3-4 consecutive query words (server-sent events ~
    sse). Two letters across separate words would be too loose (es, cs, vi are locale files)."""
    out = set()
    for t in _IDENT.findall(text):
        parts = split_identifier(t)
        if 2 <= len(parts) <= 4:
            out.add("".join(w[0] for w in parts))
    for run in _runs(text):
        for n in (3, 4):
            out.update("".join(w[0] for w in run[i : i + n]) for i in range(len(run) - n + 1))
    return frozenset(out)


def _looks_like_identifier(t: str) -> bool:
    """CamelCase, camelCase, snake_case or ALLCAPS_WITH_UNDERSCORE - not an ordinary word."""
    if "_" in t.strip("_") or "$" in t:
        return True
    return any(c.isupper() for c in t[1:]) and any(c.islower() for c in t)


@lru_cache(maxsize=1024)
def _def_pattern(name: str) -> re.Pattern:
    n = re.escape(name)
    return re.compile(
        rf"(^|\n)[ \t]*(export\s+)?(default\s+)?(abstract\s+)?(public\s+|private\s+|protected\s+)?(static\s+)?"
        rf"(async\s+)?(def|class|function\*?|interface|type|struct|enum|trait|fn|func|const|let|var|"
        rf"object|module|namespace|protocol)\s+{n}\b"
        rf"|(^|\n)[ \t]*(export\s+)?{n}\s*(:[^=\n]*)?=(?!=)",
    )


_GENERICS = re.compile(r"<[^<>]*>")


def _implementor(symbol: str) -> str:
    """A Rust ``impl Trait for Type`` names the type it adds to, not the trait: a file full
    of ``impl FromRequest for X`` does not define FromRequest (generics dropped, too)."""
    if " for " not in symbol and "<" not in symbol:
        return symbol
    for _ in range(3):  # nested generics, innermost first
        symbol = _GENERICS.sub("", symbol)
    return ".".join(_after_for(part) for part in symbol.split("."))


def _after_for(part: str) -> str:
    """What ``re.sub(r"[^.]*? for ", "", part)`` leaves of one dot-free part, in linear time: that
    regex retried its lazy scan from every start, quadratic in a long name without `` for `` (a
    one-line Markdown file's 104 KB title held a search for minutes, fuzz seed 1414 case 387)."""
    pos = 0
    while (j := part.find(" for ", pos)) >= 0:
        pos = j + 5
    return part[pos:]


def _leaf(symbol: str) -> str:
    """The name a symbol defines: its last part, the type an ``impl ... for`` adds to, without
    the leading ``_``/``$`` that mark a private or core variant of the same name."""
    if not symbol:
        return ""
    leaf = _implementor(symbol).split(".")[-1].split(" > ")[-1]
    return leaf.lstrip("_$") or leaf


@lru_cache(maxsize=1024)
def _reexport_pattern(name: str) -> re.Pattern:
    """A re-export of ``name``: Rust ``pub use a::b::{X, Y}`` / ``pub use a::X``, JS/TS
    ``export { X } from`` / ``export * as X from``, Python ``from .a import X`` (an __init__.py's
    public names), Go ``X = pkg.X``."""
    n = re.escape(name)
    return re.compile(
        rf"\bpub(?:\([^)]*\))?\s+use\s+[^;]*\b{n}\b"
        rf"|\bexport\s+(?:type\s+)?\{{[^}}]*\b{n}\b[^}}]*\}}\s*from\b|\bexport\s+\*\s+as\s+{n}\b"
        rf"|^[^\S\n]*from\s+\.[\w.]*\s+import\s+[^\n]*\b{n}\b",
        re.M,
    )


def _terms(text: str) -> set[str]:
    out: set[str] = set()
    for t in _IDENT.findall(text):
        parts = split_identifier(t)
        out.update(parts)
        if len(parts) > 1:
            out.add(t.lower())
    return out


# ------------------------------------------------------------------------------ file level

_HEAD_COMMENT = re.compile(r'\A\s*(?:"""(.*?)"""|\'\'\'(.*?)\'\'\'|/\*\*?!?(.*?)\*/|((?:[ \t]*(?://|#)[^\n]*\n?)+))', re.S)
_BOILERPLATE = re.compile(r"copyright|licen[cs]e|eslint|@ts-|prettier|coding[:=]|!/usr/bin|spdx", re.I)


def head_doc(text: str) -> str:
    """The leading docstring or comment block of a file's first chunk (licence headers and
    tool pragmas skipped): the author's one-paragraph summary of the file, when there is one."""
    out = []
    rest = text
    for _ in range(3):  # a licence block, then the real summary
        m = _HEAD_COMMENT.match(rest)
        if not m:
            break
        body = next(g for g in m.groups() if g is not None)
        if not _BOILERPLATE.search(body):
            out.append(body)
        rest = rest[m.end():]
        rest = re.sub(r"\A\s*(['\"]use strict['\"];?|from __future__ import [^\n]*)", "", rest)
    return "\n".join(out)[:1000]


def file_terms(path: str, symbols, head: str = "") -> frozenset[str]:
    """Stems of what names a file as a whole: its path parts, the names it defines (every part
    of dotted names) and its leading docstring/comment. Adjacent parts of one identifier are
    also joined (``web``+``socket``), so the query word ``websocket`` meets ``WebSocketReader``."""
    return FileNames(path, symbols, head).terms()


def _naming_idents(path: str, symbols, head: str) -> list[str]:
    """The identifiers :func:`file_terms` reads: the path's (without the file extension), the
    defined symbols' and the head comment's (stop words left out), each once."""
    idents = _IDENT.findall(path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path)
    for sym in symbols:
        if sym:
            idents.extend(_IDENT.findall(_implementor(sym)))
    if head:
        idents.extend(i for i in _IDENT.findall(head) if i.lower() not in STOP)
    return list(dict.fromkeys(idents))


@_memo(65536)
def _ident_stems(ident: str) -> tuple[str, ...]:
    """Stems of an identifier's parts (longer than one letter) and of each adjacent pair joined."""
    parts = split_identifier(ident)
    out = {stem(x) for x in parts if len(x) > 1}
    out.update(stem(a + b) for a, b in zip(parts, parts[1:], strict=False))
    return tuple(out)


def _needle(s: str) -> str:
    """What a name must contain to have the stem ``s`` (see :class:`FileNames`)."""
    return s[:-1] if s.endswith("y") else s


def _squash(text: str) -> str:
    return text.lower().replace("_", "").replace("$", "")


class FileNames:
    """:func:`file_terms` of one file, answered per query: ``matching(qstems)`` is exactly
    ``file_terms(path, symbols, head) & qstems``.

    Building a file's whole term set (splitting and stemming every name it defines) was most of
    a search's time whenever its candidates came from files not seen before. Only names that
    could stem to a query word are split here. Why the filter loses nothing: every term is the
    stem of a part or of two adjacent parts of an identifier, and those are substrings of the
    identifier lower-cased with ``_`` and ``$`` removed (the parts cover every letter and digit
    between them); :func:`stem` only cuts a suffix, so a stem is a prefix of its word - except
    ``-ies`` -> ``-y``, whose stem less its last letter is.
    """

    __slots__ = ("raw", "flat", "starts")

    def __init__(self, path: str, symbols, head: str = ""):
        idents = _naming_idents(path, symbols, head)
        self.raw = "\n".join(idents)  # identifiers never hold a newline
        squashed = [_squash(i) for i in idents]
        self.flat = "\n".join(squashed)
        self.starts = tuple(accumulate((len(x) + 1 for x in squashed[:-1]), initial=0))

    def packed(self) -> tuple[str, str, tuple[int, ...]]:
        """Strings and ints only, to keep: the garbage collector skips such tuples (see _memo)."""
        return self.raw, self.flat, self.starts

    @classmethod
    def unpack(cls, packed: tuple[str, str, tuple[int, ...]]) -> FileNames:
        out = cls.__new__(cls)
        out.raw, out.flat, out.starts = packed
        return out

    @property
    def idents(self) -> list[str]:
        return self.raw.split("\n") if self.raw else []

    def terms(self) -> frozenset[str]:
        """The whole set, as :func:`file_terms` gives it."""
        out: set[str] = set()
        for ident in self.idents:
            out.update(_ident_stems(ident))
        return frozenset(out)

    def matching(self, qstems) -> frozenset[str]:
        if not self.raw:
            return frozenset()
        flat, starts = self.flat, self.starts
        which: set[int] = set()
        for needle in map(_needle, qstems):
            at = flat.find(needle)
            while at >= 0:  # each identifier that holds the needle (it never spans a newline)
                i = bisect_right(starts, at) - 1
                which.add(i)
                at = flat.find(needle, starts[i + 1]) if i + 1 < len(starts) else -1
        if not which:
            return frozenset()
        idents = self.idents
        out: set[str] = set()
        for i in which:
            out.update(_ident_stems(idents[i]))
        return frozenset(out.intersection(qstems))


def query_stems(query: str) -> frozenset[str]:
    """The stems :func:`rerank` compares file names with (``FileNames.matching`` takes them)."""
    return frozenset(_stems(parse_query(query).words))


def _file_scores(qstems: set[str], paths, files) -> dict[str, float]:
    """Per file, the idf-weighted share of the query's words among its names (idf over the
    candidate files, so a word every candidate file has says little)."""
    if not files or not qstems:
        return {}
    sets = {p: files.get(p, frozenset()) & qstems for p in paths}
    n = len(sets)
    df: dict[str, int] = defaultdict(int)
    for got in sets.values():
        for w in got:
            df[w] += 1
    idf = {w: math.log(1 + n / (df.get(w, 0) + 1)) for w in qstems}
    total = sum(idf.values()) or 1.0
    return {p: sum(idf[w] for w in got) / total for p, got in sets.items()}


_VERSION_DIR = re.compile(r"^v(\d+)$", re.I)


def _superseded(paths, query: str) -> dict[str, float]:
    """Paths under a version folder (``v3/``) kept for an older API: a newer sibling (``v4/``)
    is among the candidates, or a file of the same name outside any version folder of the same
    parent (``pkg/v1/fields.py`` next to ``pkg/fields.py``). 1.0 for each such path, unless the
    query names that version ("v3 errors"). A lone ``api/v1/`` is the current API and is left alone."""
    newest: dict[str, int] = {}
    found: list[tuple[str, str, int]] = []
    plain: set[tuple[str, str]] = set()  # (ancestor folder, file name) of files in no version folder
    for p in paths:
        parts = p.split("/")
        for i, d in enumerate(parts[:-1]):
            m = _VERSION_DIR.match(d)
            if m:
                parent, n = "/".join(parts[:i]), int(m.group(1))
                newest[parent] = max(newest.get(parent, n), n)
                found.append((p, parent, n))
                break
        else:
            for i in range(len(parts)):
                plain.add(("/".join(parts[:i]), parts[-1]))
    named = {int(x) for x in re.findall(r"\bv(\d+)\b", query, re.I)}
    return {p: 1.0 for p, parent, n in found
            if n not in named and (n < newest[parent] or (parent, p.rsplit("/", 1)[-1]) in plain)}


# ------------------------------------------------------------------------------ fusion


def fuse_ids(lexical: list, vector: list, weights: Weights = DEFAULT_WEIGHTS) -> list[tuple[Any, float]]:
    """Weighted reciprocal-rank fusion of two best-first lists of chunk ids; returns
    ``(id, score)`` best first, score scaled so that rank 1 in both lists is 1.0."""
    k = weights.rrf_k
    scale = (weights.lex + weights.vec) / (k + 1) or 1.0
    scores: dict[Any, float] = defaultdict(float)
    for w, ranked in ((weights.lex, lexical), (weights.vec, vector)):
        if w:
            for r, cid in enumerate(ranked):
                scores[cid] += w / (k + r + 1)
    return sorted(((cid, sc / scale) for cid, sc in scores.items()), key=lambda kv: -kv[1])


def fuse(lexical: list, vector: list, weights: Weights = DEFAULT_WEIGHTS) -> list:
    """Weighted reciprocal-rank fusion of two best-first candidate lists (hits with path and
    lines); returns hits with ``score`` set, best first. A hit in both lists keeps the first
    list's object."""
    objs: dict[tuple, Any] = {}
    for hit in list(lexical) + list(vector):
        objs.setdefault(_key(hit), hit)
    fused = fuse_ids([_key(h) for h in lexical], [_key(h) for h in vector], weights)
    return [_set_score(objs[key], score) for key, score in fused]


# ------------------------------------------------------------------------------ ranking


def rerank(query: str, hits: list, k: int | None = None, weights: Weights = DEFAULT_WEIGHTS,
           files: dict[str, frozenset[str]] | None = None, facades: dict[str, list] | None = None) -> list:
    """Re-order fused candidates (best first, ``score`` in [0, 1]) with code-aware evidence;
    returns at most ``k`` hits, near-duplicates removed, with their final ``score``. ``files``
    maps a candidate's path to its :func:`file_terms` (file-level evidence; optional);
    ``facades`` is :func:`facade_index` of the index's forwarding files (optional)."""
    if not hits:
        return []
    _trim_memos()
    q = parse_query(query)
    qstems = _stems(q.words)  # compared on stems: parse ~ parser ~ parsing
    nq = max(len(qstems), 1)
    phrases = _phrases(query) if weights.phrase_symbol else frozenset()
    initials = _initials(query)
    idents_lower = {i.lower() for i in q.idents}
    # In a qualified lookup (Rack::Response, fmt.Println) the last part is the name asked for;
    # the qualifiers only place it (module Rack is not what "Rack::Response" wants).
    named = q.idents
    parts = re.split(r"\.|::", query.strip()) if q.symbol_lookup else []
    if len(parts) > 1 and parts[-1]:
        named = {parts[-1]}
    def_names = list(named)  # their patterns are compiled only for texts that hold the name
    # compared as _leaf() gives symbols: without the leading _ or $ of private and core
    # variants (zod's $ZodType is the core ZodType, Python's _parse a private parse)
    named = {n.lstrip("_$") or n for n in named}
    named_lower = {i.lower() for i in named}
    # Names no candidate defines: their definition lives outside the tree (axum's FromRequest is
    # axum-core's), so the module that re-exports them is where a reader meets them.
    defined = {_leaf(_get(h, "symbol") or "") for h in hits
               if (_get(h, "kind") or "").lower() in DEFINITION_KINDS} if def_names else set()
    undefined = [n for n in def_names if (n.lstrip("_$") or n) not in defined and len(n) > 2] if weights.reexport else []
    # names a candidate defines in the query's own spelling: then `eventMonitor` (a property)
    # is only a use of the `EventMonitor` asked for, not another definition of it
    case_defined = {n.lower() for n in named if n in defined}
    abbreviated: dict[str, bool] = {}  # file-name part -> abbreviates a query word (asked once a query)

    def _abbreviates(part: str) -> bool:
        got = abbreviated.get(part)
        if got is None:
            got = abbreviated[part] = any(_abbrev(part, w) or _abbrev(stem(part), w) for w in q.words) or (
                stem(part) in _SYNONYMS and not _SYNONYMS[stem(part)].isdisjoint(qstems))
        return got

    # the words before the first preposition name the topic ("alias handling for field names"
    # is about aliases): a file named by one of them is more to the point than a file named by
    # a word of the qualifier
    tail_w = _qualifier_words(query, qstems, weights.qualifier) if weights.qualifier != 1 and not q.symbol_lookup \
        else {}
    # file-level evidence, given to every chunk of the file (the flooding limit keeps one file
    # from taking the whole top; its best chunk leads it)
    fscore: dict[str, float] = defaultdict(float)
    if weights.file_names:
        for p, x in _file_scores(qstems, {_get(h, "path", "") or "" for h in hits}, files).items():
            fscore[p] += weights.file_names * x
    if weights.old_version:
        for p, x in _superseded({_get(h, "path", "") or "" for h in hits}, query).items():
            fscore[p] -= weights.old_version * x
    # how many candidate files carry each query word in their path: "middleware" in a folder of
    # middleware says little about which file of it is meant
    name_w: dict[str, float] = {}
    if weights.name_idf and qstems:
        paths = {_get(h, "path", "") or "" for h in hits}
        pdf: dict[str, int] = defaultdict(int)
        for p in paths:
            feats = _path_features(p)
            for w in qstems.intersection(feats[2] + feats[3]):
                pdf[w] += 1
        name_w = {w: 1.0 - weights.name_idf * pdf[w] / len(paths) for w in pdf}
    path_terms: dict[str, float] = {}  # path -> its file-name and folder evidence
    scored = []
    for hit in hits:
        base = float(_get(hit, "score", 0.0) or 0.0)
        path = _get(hit, "path", "") or ""
        text = _get(hit, "text", "") or ""
        symbol = _get(hit, "symbol") or ""
        kind = (_get(hit, "kind") or "").lower()
        leaf = _leaf(symbol)
        fname, dirs, fparts, dparts, testish, prose = _path_features(path)
        s = base
        filewide = fscore.get(path, 0.0)  # what every chunk of the file gets: kept out of `central`

        # exact identifier matches: symbol field first, then a definition in the text
        if leaf and named_lower and (leaf in named or leaf.lower() in named_lower):
            if kind in DEFINITION_KINDS and (leaf in named or leaf.lower() not in case_defined):
                s += weights.exact_symbol
            elif kind not in ("code", FACADE_KIND) or leaf not in defined:
                # statements inside a class body carry the class's name: the class's own
                # chunk (its header and doc) is the definition, when it is a candidate
                s += weights.exact_symbol_use
        elif def_names and any(name in text and _def_pattern(name).search(text) for name in def_names):
            s += weights.text_definition
        elif undefined and any(name in text and _reexport_pattern(name).search(text) for name in undefined):
            s += weights.reexport
        # partial symbol match: the symbol's words that the query names
        if leaf and qstems:
            parts = _symbol_stems(leaf)
            if parts:
                s += weights.symbol_parts * _overlap(parts, qstems) / len(parts)
            # the query spells the name out in words: "field validators" ~ field_validator
            if phrases and _symbol_seq(leaf) in phrases:
                s += weights.phrase_symbol
        # file name and folders (the same for every chunk of the file: computed once a query)
        named_by = path_terms.get(path)
        if named_by is None:
            named_by = 0.0
            if fparts and qstems:
                # whole parts, or query words inside an all-lowercase compound (modelcards, reqrep)
                low_name = fname.lower()
                inside = sum(tail_w.get(w, 1.0) for w in qstems if len(w) >= 4 and w in low_name)
                exact = sum(name_w.get(x, 1.0) * tail_w.get(x, 1.0) for x in fparts if x in qstems)
                if _overlap(fparts, qstems) < len(fparts) and weights.abbrev:
                    exact += sum(1 for part in _name_parts(fname) if stem(part) not in qstems
                                 and (_abbreviates(part)
                                      or (weights.acronym and 2 <= len(part) <= 4 and part in initials)))
                matched = max(exact, min(inside, len(fparts)), 1 if low_name in idents_lower else 0)
                named_by += weights.file_stem * matched / len(fparts)
            if dparts and qstems:
                named_by += weights.path_dirs * _overlap(dparts, qstems) / nq
            path_terms[path] = named_by
        filewide += named_by
        # coverage of the query's words anywhere in the chunk
        found: frozenset[str] = frozenset()
        if qstems:
            # substring test: identifier parts live inside compound names (user in getUserName)
            low = f"{path}\n{symbol}\n{text}".lower()
            found = frozenset(w for w in qstems if w in low)
            s += weights.coverage * len(found) / nq
        if weights.stub and not q.wants_types and (
                path.endswith(_STUB_SUFFIXES) or (_get(hit, "context") or "").startswith(STUB_MARK)):
            filewide -= weights.stub
        if testish and not q.wants_tests:
            filewide -= weights.testish
        if not q.wants_prose and (prose or kind == "document"):
            filewide -= weights.prose
        scored.append([s + filewide, hit, path, text, found, s])

    # central file: a file whose several chunks match is what "how does X work" is about
    by_file: dict[str, list[float]] = defaultdict(list)
    file_found: dict[str, set[str]] = defaultdict(set)
    for _s, _hit, path, _text, found, local in scored:
        # the chunk's own evidence: the file-wide part would count the file's name once per chunk
        by_file[path].append(local)
        file_found[path] |= found
    w_central = weights.central_symbol if q.symbol_lookup else weights.central
    if w_central:
        for row in scored:
            rest = list(by_file[row[2]])
            rest.remove(row[5])  # the file's other chunks
            rest.sort(reverse=True)
            # diminishing returns: the 2nd-best other chunk counts half, the 3rd a third...
            bonus = sum(max(x, 0.0) / (i + 1) for i, x in enumerate(rest[:4]))
            row[0] += w_central * min(bonus, 1.0)

    if weights.file_coverage and qstems:
        # the file as a whole answers all of the question, even if no one chunk does
        for row in scored:
            row[0] += weights.file_coverage * len(file_found[row[2]]) / nq

    scored.sort(key=lambda r: r[0], reverse=True)

    # near-duplicates (same text up to whitespace) and file flooding
    seen_text: set[bytes] = set()
    per_file: dict[str, int] = defaultdict(int)
    out = []
    for s, hit, path, text, _found, _local in scored:
        digest = hashlib.blake2b(" ".join(text.split()).encode(), digest_size=12).digest()
        if digest in seen_text:
            continue
        seen_text.add(digest)
        n = per_file[path]
        per_file[path] += 1
        out.append((s * (weights.file_decay**n) if s > 0 else s - n, hit))
    if facades and weights.facade:
        out = _with_facades(out, facades, weights)
    out.sort(key=lambda r: r[0], reverse=True)
    if k is not None:
        out = out[:k]
    return [_set_score(hit, round(s, 6)) for s, hit in out]


# ------------------------------------------------------------------------------ forwarding files

FACADE_KIND = "facade"  # the kind ctxmill.index.chunk_code gives a forwarding file's chunks (facades.KIND)


def facade_index(rows) -> dict[str, list[tuple]]:
    """Map each path a forwarding file may point to -> the forwarding files' first chunks.

    ``rows``: the chunks of kind ``facade`` as dicts or objects with path, start_line, end_line,
    kind, symbol, language, text (context, id optional). The value's tuples are
    ``(fan-out, row)``: the number of files the forwarding file points to, and its first chunk."""
    first: dict[str, Any] = {}
    for r in rows:
        p = _get(r, "path")
        if p not in first or _get(r, "start_line") < _get(first[p], "start_line"):
            first[p] = r
    out: dict[str, list[tuple]] = defaultdict(list)
    for p, r in first.items():
        n, groups = _forwards(f"{p}\0{_get(r, 'language') or ''}\0{_get(r, 'text') or ''}")
        for g in groups:
            for t in g:
                out[t].append((n, r))
    return dict(out)


@_memo(20_000)
def _forwards(key: str) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """(fan-out, target paths) of one forwarding chunk, ``path\0language\0text``: kept across
    index states (a sync changes few of them; ~0.1 ms each to resolve)."""
    from ctxmill.index.facades import fanout, targets

    path, language, text = key.split("\0", 2)
    groups = targets(path, text, language)
    return fanout(text, language, len(groups)), tuple(tuple(g) for g in groups)


def _with_facades(out: list, facades: dict[str, list], weights: Weights) -> list:
    """A forwarding file follows the file it forwards to: fmt/core.h (``#include "base.h"``)
    right after base.h's best chunk. The reader who asks for the API a facade exposes is served
    by both; its own text names none of it, so nothing else could rank it."""
    best: dict[str, float] = {}
    for s, hit in out:
        p = _get(hit, "path")
        if p not in best or s > best[p]:
            best[p] = s
    inherit: dict[str, tuple[float, Any, Any]] = {}  # facade path -> (score, its chunk, a template hit)
    for s, hit in out:
        p = _get(hit, "path")
        if s <= 0 or best[p] != s:
            continue
        d = p.rpartition("/")[0]
        for fanout, row in (*facades.get(p, ()), *(facades.get(d + "/", ()) if d else ())):
            fp = _get(row, "path")
            got = s * weights.facade * weights.facade_fanout ** (fanout - 1)
            if fp != p and (fp not in inherit or got > inherit[fp][0]):
                inherit[fp] = (got, row, hit)
    if not inherit:
        return out
    kept = []
    for s, hit in out:
        p = _get(hit, "path")
        if p in inherit and best[p] == s:
            # the facade is a candidate already: its best chunk keeps the better of both scores
            s = max(s, inherit.pop(p)[0])
        kept.append((s, hit))
    for fp, (s, row, template) in inherit.items():
        if fp not in best:
            kept.append((s, _facade_hit(template, row)))
    return kept


_HIT_FIELDS = ("path", "start_line", "end_line", "kind", "symbol", "language", "text", "context", "id")


def _facade_hit(template: Any, row: Any) -> Any:
    """A hit of the same type as the candidates, for a forwarding file's chunk."""
    values = {f: _get(row, f) for f in _HIT_FIELDS}
    values["context"] = values["context"] or ""
    if isinstance(template, dict):
        out = {key: None for key in template}
        out.update(values)
        return out
    names = {f.name for f in fields(template)} if hasattr(template, "__dataclass_fields__") else set(values)
    extra = {f: None for f in ("lexical_rank", "vector_rank") if f in names}
    return replace(template, **{f: v for f, v in values.items() if f in names}, **extra)


_PREPOSITION = re.compile(r"(?<!how )\b(?:for|of|with|from|via|during|into|onto|on|in|to|by|at|across|through|inside|within|"
                          r"using)\b", re.I)


def _qualifier_words(query: str, qstems: set[str], weight: float) -> dict[str, float]:
    """``weight`` for each query stem that appears only after the first preposition."""
    m = _PREPOSITION.search(query)
    if not m:
        return {}
    head = _stems(parse_query(query[: m.start()]).words)
    return {w: weight for w in qstems - head}


def weights_from(overrides: dict[str, float] | None) -> Weights:
    """Weights with some fields replaced (for tuning); unknown names are an error."""
    if not overrides:
        return DEFAULT_WEIGHTS
    names = {f.name for f in fields(Weights)}
    bad = set(overrides) - names
    if bad:
        raise ValueError(f"unknown weights: {sorted(bad)}")
    return replace(DEFAULT_WEIGHTS, **overrides)


__all__ = ["CANDIDATES", "DEFAULT_WEIGHTS", "POOL", "FileNames", "Weights", "file_terms", "fuse", "fuse_ids", "head_doc",
           "parse_query", "query_stems", "rerank", "weights_from"]
