"""The one interface every embedding backend implements.

Vectors are L2-normalised float32 rows so that a dot product is the cosine similarity.
Backends are chosen by name (see :func:`get_embedder`); the index stores the embedder's
``name`` and ``dim`` and re-embeds when they change.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    name: str  # stable identifier stored in the index, e.g. "hash-256" or "static:ctxmill-code-256"
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents/chunks: shape (len(texts), dim), float32, rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query: shape (dim,), float32, L2-normalised."""
        ...
