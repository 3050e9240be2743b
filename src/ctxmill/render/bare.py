"""Bare references: entries that hold their printed text and nothing the labeller found.

Every entry of a bibliography past ``MAX_PARSED_REFERENCES`` is one (its id, its raw text, its
page), and a long list is mostly such entries: 14,666 of a 1 MB list of 16,666. The exports
(references.json, references.csl.json, references.bib) write a bare entry from one template
filled with its id, text and page, instead of building a dict of 25 keys and walking it; an entry
holding anything more takes the ordinary road. Same text either way (tests/test_render_bare.py).
"""

from __future__ import annotations

from operator import attrgetter

from ctxmill.model import Reference

# Every field an export reads but id, raw, page and block_id (references.json's keys, in order,
# then the one the others read besides them)
_REST_NAMES = ("authors", "year", "title", "venue", "doi", "url", "arxiv_id", "people", "editors", "container",
               "collection", "volume", "issue", "pages", "publisher", "location", "edition", "isbn", "note",
               "type", "confidence", "doubtful")
_REST = attrgetter(*_REST_NAMES)
_LISTS = frozenset(("authors", "people", "editors"))
_EMPTY = tuple([] if n in _LISTS else None for n in _REST_NAMES)


def is_bare(ref: Reference) -> bool:
    """``ref`` holds an id and a raw text that are plain ``str``, a page that is None or a plain
    ``int``, and no other field: empty lists and None (an empty string or tuple is no bare
    entry: the templates are asked only where they write exactly what the ordinary road does)."""
    return (type(ref.id) is str and type(ref.raw) is str and (ref.page is None or type(ref.page) is int)
            and _REST(ref) == _EMPTY)
