"""The learned confidence of a next-edit suggestion: a logistic model over what the propagators
report (their own features, namespaced by propagator), the hand-set confidence they computed,
and where the suggestion sits against the edit (next_edit._context_features).

The weights and the two thresholds (the top suggestion, every further one) are fitted by
benchmarks/next_edit_train_fit.py on training cases cut from repositories other than the dev
cases' (benchmarks/data/next_edit_train.json) and shipped as data/next_edit_model.json. Scoring
is a dot product over a few dozen numbers per suggestion (microseconds), deterministic.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

MODEL_PATH = Path(__file__).resolve().parents[1] / "data" / "next_edit_model.json"


def features(kind: str, feats: dict) -> dict[str, float]:
    """The model's inputs for one suggestion of propagator ``kind`` with features ``feats``."""
    hand = float(feats.get("hand", 0.0))
    out = {"kind=" + kind: 1.0, kind + ".hand": hand, kind + ".hand_shown": float(hand >= 0.25),
           kind + ".hand_more": float(hand >= 0.4), kind + ".same_file": float(feats.get("ctx_same_file", 0.0))}
    for k, v in feats.items():
        if k == "hand" or not isinstance(v, (int, float)):
            continue
        out[kind + "." + k] = float(v)
    return out


@functools.lru_cache(maxsize=1)
def load() -> dict | None:
    """The shipped model, or None where the package has none (then the hand-set confidences stand)."""
    try:
        return json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def probability(model: dict, kind: str, feats: dict) -> float:
    w = model["weights"]
    z = w.get("bias", 0.0) + sum(w.get(k, 0.0) * v for k, v in features(kind, feats).items())
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)
