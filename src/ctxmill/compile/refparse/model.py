"""The trained CRF (src/ctxmill/data/refparse.crfsuite), loaded once per process.

The file is written by scripts/train_refparse.py. CRFsuite memory-maps it, so opening it
costs a few milliseconds, and tagging is deterministic: the same string always gets the
same labels and the same confidence.
"""

from __future__ import annotations

import threading
from importlib import resources
from pathlib import Path

import pycrfsuite

_lock = threading.Lock()
_tagger: pycrfsuite.Tagger | None = None


def model_path() -> Path:
    return Path(str(resources.files("ctxmill") / "data" / "refparse.crfsuite"))


def tagger() -> pycrfsuite.Tagger:
    global _tagger
    if _tagger is None:
        with _lock:
            if _tagger is None:
                t = pycrfsuite.Tagger()
                t.open(str(model_path()))
                _tagger = t
    return _tagger


def tag(features: list[list[str]]) -> tuple[list[str], float]:
    """Best labels for one sequence and its confidence: the mean marginal probability of the
    labels chosen (on the held-out sets it tells wrong parses from right ones better than the
    probability of the whole sequence or the least sure token)."""
    if not features:
        return [], 0.0
    t = tagger()
    with _lock:  # a Tagger holds the sequence it last tagged: one sequence at a time
        labels = t.tag(features)
        total = sum(map(t.marginal, labels, range(len(labels))))  # the same sum, without a generator
    return labels, total / len(labels)
