"""Identifier-aware terms shared by the lexical index, the query parser and the hash embedder.

SQLite's unicode61 tokenizer (with ``_`` as a token character) keeps ``parse_user_record`` and
``parseUserRecord`` whole. Code search also wants the parts, so the FTS text of a chunk is its
text plus the parts of every compound identifier (``parse user record``), and a query is
expanded the same way: a search for ``userRecord`` finds ``user_record`` and ``UserRecord``.
"""

from __future__ import annotations

import re
from collections import Counter

_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORDS = re.compile(r"[A-Za-z0-9_]+|[^\W\d_]+", re.UNICODE)
_part_cache: dict[str, list[str]] = {}


def is_compound(word: str) -> bool:
    """``parse_user``, ``parseUser``, ``HTTPServer``: more than one identifier part."""
    if "_" in word.strip("_"):
        return True
    return not (word.islower() or word.isupper() or word.isdigit() or word[1:].islower())


def identifier_parts(word: str) -> list[str]:
    """``getHTTPResponse_code`` -> ``['get', 'http', 'response', 'code']``."""
    parts = _part_cache.get(word)
    if parts is None:
        parts = [p.lower() for p in _PARTS.findall(word)]
        if len(_part_cache) < 200_000:
            _part_cache[word] = parts
    return parts


_compound_parts: dict[str, tuple[str, ...]] = {}


def compound_parts(word: str) -> tuple[str, ...]:
    """The parts of ``word`` when it is a compound identifier, else ``()`` (cached: code
    repeats its identifiers, so most calls are one dict lookup)."""
    got = _compound_parts.get(word)
    if got is None:
        got = tuple(identifier_parts(word)) if is_compound(word) else ()
        if len(got) < 2:
            got = ()
        if len(_compound_parts) < 500_000:
            _compound_parts[word] = got
    return got


def expand(text: str) -> str:
    """The parts of the compound identifiers in ``text``, once each, space-separated."""
    seen: dict[str, None] = {}
    get = _compound_parts.get
    for word in set(_TOKEN.findall(text)):
        parts = get(word)
        if parts is None:
            parts = compound_parts(word)
        for part in parts:
            seen[part] = None
    return " ".join(seen)


def fts_text(text: str) -> str:
    """What goes into the FTS body column: the text itself and its identifier parts."""
    extra = expand(text)
    return f"{text}\n{extra}" if extra else text


def query_terms(query: str) -> list[str]:
    """Lower-cased terms of a query: whole words, and the parts of compound identifiers."""
    terms: dict[str, None] = {}
    for word in _WORDS.findall(query):
        terms[word.lower()] = None
        if is_compound(word):
            for part in identifier_parts(word):
                terms[part] = None
    return [t for t in terms if t.strip("_")]


def word_counts(text: str) -> dict[str, int]:
    """Lower-cased words and identifier parts with their counts (for the hash embedder)."""
    counts: dict[str, int] = {}
    get = _compound_parts.get
    for word, n in Counter(_WORDS.findall(text)).items():
        low = word.lower()
        counts[low] = counts.get(low, 0) + n
        parts = get(word)
        if parts is None:
            parts = compound_parts(word)
        for part in parts:
            counts[part] = counts.get(part, 0) + n
    return counts
