"""Identifier-aware word splitting shared by the static embedder, the ranker and the benchmark.

Code names glue words together (``getUserName``, ``parse_http_header``, ``HTTPServer``); a
programmer reads them as words, so search should too. ``words("getHTTPHeader_v2")`` gives
``["get", "http", "header", "v2"]``.
"""

from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
# camelCase / PascalCase / ACRONYMWord boundaries inside one identifier
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(name: str) -> list[str]:
    """``parseHTTPResponse`` -> ``["parse", "http", "response"]`` (lower-cased)."""
    # One findall over the whole name: no pattern matches "_" or looks past one, so this is
    # the same as splitting at "_" first, at less than half the cost (the ranker calls it a lot).
    return [w.lower() for w in _CAMEL.findall(name)]


def words(text: str) -> list[str]:
    """All lower-cased words of ``text`` with identifiers split into their parts."""
    out: list[str] = []
    for m in _IDENT.finditer(text):
        out.extend(split_identifier(m.group(0)))
    return out


# Two C-level passes instead of a Python callback per identifier: this runs on every chunk.
_CAMEL_GAP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_identifiers(text: str) -> str:
    """``text`` with identifiers broken into words (``getUserName`` -> ``get User Name``,
    ``a_b`` -> ``a b``) for word-piece tokenizers; case is left to the tokenizer."""
    return _CAMEL_GAP.sub(" ", text).replace("_", " ")


def identifiers(text: str) -> list[str]:
    """Whole identifiers (unsplit, original case) in order of appearance."""
    return [m.group(0) for m in _IDENT.finditer(text) if not m.group(0).isdigit()]
