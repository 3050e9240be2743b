"""Identifier-aware terms shared by the lexical index, the query parser and the hash embedder.

SQLite's unicode61 tokenizer (with ``_`` as a token character) keeps ``parse_user_record`` and
``parseUserRecord`` whole. Code search also wants the parts, so the FTS text of a chunk is its
text plus the parts of every compound identifier (``parse user record``), and a query is
expanded the same way: a search for ``userRecord`` finds ``user_record`` and ``UserRecord``.
"""

from __future__ import annotations

import re

# A compound identifier: has an underscore, a lower->upper step, or letters around digits.
_COMPOUND = re.compile(r"[A-Za-z0-9_]*(?:_[A-Za-z0-9]|[a-z][A-Z]|[A-Z]{2}[a-z])[A-Za-z0-9_]*")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORDS = re.compile(r"[A-Za-z0-9_]+|[^\W\d_]+", re.UNICODE)


def identifier_parts(word: str) -> list[str]:
    """``getHTTPResponse_code`` -> ``['get', 'http', 'response', 'code']``."""
    return [p.lower() for p in _PARTS.findall(word)]


def expand(text: str) -> str:
    """The parts of the compound identifiers in ``text``, once each, space-separated."""
    seen: dict[str, None] = {}
    for word in set(_COMPOUND.findall(text)):
        for part in identifier_parts(word):
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
        if _COMPOUND.fullmatch(word):
            for part in identifier_parts(word):
                terms[part] = None
    return [t for t in terms if t.strip("_")]


def words(text: str) -> list[str]:
    """Lower-cased words and identifier parts (for the hash embedder)."""
    out = []
    for word in _WORDS.findall(text):
        low = word.lower()
        out.append(low)
        if "_" in word or (not word.islower() and not word.isupper()):
            parts = identifier_parts(word)
            if len(parts) > 1:
                out.extend(parts)
    return out
