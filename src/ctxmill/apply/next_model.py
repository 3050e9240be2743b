"""The learned confidence of a next-edit suggestion: a logistic model over what the propagators
report (their own features, namespaced by propagator), the hand-set confidence they computed,
and where the suggestion sits against the edit (next_edit._context_features).

The weights, the promotion threshold and the two gates (the top suggestion, every further one)
are fitted by benchmarks/next_edit_train_fit.py on training cases cut from repositories other
than the dev cases' (benchmarks/data/next_edit_train.json) and shipped as
data/next_edit_model.json (read by next_edit.suggest(learned=True)). Scoring
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
        if k in ("hand", "p") or not isinstance(v, (int, float)):
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


_SET_ABOVE = frozenset(("hand", "p", "hand_shown", "hand_more", "same_file", "_base"))


def probability(model: dict, kind: str, feats: dict) -> float:
    """The model's probability that the suggestion is the commit's own change: the weights of
    ``features``, read per propagator without building that dict (all candidates of one edit:
    median 0.08 ms, p95 1.4 ms over every 4th dev case)."""
    per = model.get("_per_kind")
    if per is None:
        per = model["_per_kind"] = {}
    w = per.get(kind)
    if w is None:
        prefix = kind + "."
        w = per[kind] = {k[len(prefix):]: v for k, v in model["weights"].items() if k.startswith(prefix)}
        w["_base"] = model["weights"].get("bias", 0.0) + model["weights"].get("kind=" + kind, 0.0)
    hand = float(feats.get("hand", 0.0))
    same = feats.get("same_file")  # a propagator's own same_file stands in for ctx_same_file (as in features)
    if not isinstance(same, (int, float)):
        same = feats.get("ctx_same_file", 0.0)
    z = w["_base"] + w.get("hand", 0.0) * hand + w.get("hand_shown", 0.0) * (hand >= 0.25) \
        + w.get("hand_more", 0.0) * (hand >= 0.4) + w.get("same_file", 0.0) * float(same)
    for k, v in feats.items():
        if k in w and k not in _SET_ABOVE and isinstance(v, (int, float)):
            z += w[k] * v
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)
