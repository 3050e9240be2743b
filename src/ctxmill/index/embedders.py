"""Embedding backends behind the :class:`~ctxmill.index.embed.Embedder` protocol, by name.

The default is ``static`` (``ctxmill.index.embedders_extra.StaticEmbedder``: a token table
distilled from all-MiniLM-L6-v2 and shipped in ctxmill/data; docs/search.md has the
comparison). ``hash-256`` was the first index's default: feature hashing of words and
identifier parts into 256 signed buckets with sublinear term weights. It needs no model, is
deterministic across processes and machines, and is fast (tens of thousands of chunks per
second); it finds chunks that share vocabulary with the query, not paraphrases. Stronger
backends register here under their own names; the index records ``name`` and ``dim`` and
re-embeds everything when either changes.
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Callable

import numpy as np

from ctxmill.errors import UsageError
from ctxmill.index.embed import Embedder
from ctxmill.index.terms import word_counts

DEFAULT_EMBEDDER = "static"  # distilled static model: best dev-set NDCG of the fast backends (docs/search.md)
_LOG = [0.0] + [1.0 + math.log(tf) for tf in range(1, 64)]  # sublinear term weight, tabulated


class HashEmbedder:
    """Feature hashing (the "hashing trick") of words and identifier parts."""

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.name = f"hash-{dim}"
        self._slots: dict[str, tuple[int, float]] = {}

    def _slot(self, token: str) -> tuple[int, float]:
        slot = self._slots.get(token)
        if slot is None:
            h = zlib.crc32(token.encode("utf-8"))  # stable across processes, unlike hash()
            slot = (h % self.dim, 1.0 if (h >> 31) & 1 else -1.0)
            if len(self._slots) < 500_000:
                self._slots[token] = slot
        return slot

    def embed(self, texts: list[str]) -> np.ndarray:
        # Collect (row, bucket, signed weight) for the whole batch, then one scatter-add.
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        slots = self._slots
        log = _LOG
        for i, text in enumerate(texts):
            for token, tf in word_counts(text).items():
                slot = slots.get(token) or self._slot(token)
                rows.append(i)
                cols.append(slot[0])
                vals.append(slot[1] * (log[tf] if tf < len(log) else 1.0 + math.log(tf)))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if rows:
            np.add.at(out, (np.array(rows), np.array(cols)), np.array(vals, dtype=np.float32))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def _static() -> Embedder:
    from ctxmill.index.embedders_extra import make_embedder

    return make_embedder("static")  # loaded once per process (cached there)


_REGISTRY: dict[str, Callable[[], Embedder]] = {
    "hash-256": lambda: HashEmbedder(256),
    "static": _static,  # the bundled distilled table (ctxmill/data/static-code-256)
    "static:ctxmill-code-256-v2": _static,  # ... as the index records it
}


def register(name: str, factory: Callable[[], Embedder]) -> None:
    """Add a backend; ``factory()`` builds it when first asked for."""
    _REGISTRY[name] = factory


def available() -> list[str]:
    return sorted(_REGISTRY)


def get_embedder(name: str | None = None) -> Embedder:
    """The embedder called ``name`` (default: $CTXMILL_EMBEDDER, else the bundled static model)."""
    name = name or os.environ.get("CTXMILL_EMBEDDER") or DEFAULT_EMBEDDER
    factory = _REGISTRY.get(name)
    if factory is None:
        # spec strings: static:PATH, onnx[:PATH], st:PATH, openai:MODEL@URL
        from ctxmill.index.embedders_extra import make_embedder

        made = make_embedder(name)
        if made is not None:
            return made
        raise UsageError(f"unknown embedder {name!r}; known: {', '.join(available())}")
    return factory()
