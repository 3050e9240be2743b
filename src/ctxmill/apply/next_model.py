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


_LEARN_INPUTS = ("ctx_edit_", "hold_")  # (features next_edit computes only for a model that reads them)


def reads_learn_inputs(model: dict) -> bool:
    """Whether ``model`` reads the edit's own features or the hand rules' places (weights named
    after them, or a case model): one fitted without them (the shipped ``fill``) spares
    next_edit.candidates computing them."""
    got = model.get("_learn_inputs")
    if got is None:
        got = model["_learn_inputs"] = "case_weights" in model or any(
            k.partition(".")[2].startswith(_LEARN_INPUTS) for k in model["weights"])
    return got


# the case model's inputs (case_features): named here so the fit and the tool read the same ones
CASE_KINDS = ("rename", "repeated", "signature", "import", "shape")


def case_features(ranked: list, found: list) -> dict[str, float]:
    """What says whether an edit's top suggestion (``ranked[0]``, of all its candidates
    ``found``, each with features["p"]) is worth showing at all: how sure it is and how far ahead
    of the case's next best, how many candidates and kinds of them there are, which propagator
    made it, and what the edit was (next_edit.edit_features). Half the wrong suggestions of the
    training cases were in edits where no candidate was right (docs/apply.md)."""
    top = ranked[0]
    f = top.features
    ps = sorted((s.features.get("p", 0.0) for s in found), reverse=True)
    second = ps[1] if len(ps) > 1 else 0.0
    out = {"top_p": f.get("p", 0.0), "gap": f.get("p", 0.0) - second, "second_p": second,
           "cands_log": math.log1p(len(found)), "likely_log": math.log1p(sum(1 for p in ps if p >= 0.3)),
           "kinds": float(len({s.kind for s in found})), "shown_log": math.log1p(len(ranked)),
           "top_hand": float(f.get("hand", 0.0)), "top_agree": float(f.get("ctx_agree", 0.0)),
           "top_same_file": float(f.get("ctx_same_file", 0.0)), "top_dist_log": float(f.get("ctx_dist_log", 0.0))}
    for k in CASE_KINDS:
        out["top=" + k] = float(top.kind == k)
    for k, v in f.items():
        if k.startswith("ctx_edit_"):
            out[k[4:]] = float(v)
    return out


def case_probability(model: dict, ranked: list, found: list) -> float:
    """The case model's probability that the top suggestion is right (logistic weights
    model["case_weights"] over case_features)."""
    w = model["case_weights"]
    z = w.get("bias", 0.0) + sum(w.get(k, 0.0) * v for k, v in case_features(ranked, found).items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
