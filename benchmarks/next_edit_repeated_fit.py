"""Fit the repeated propagator's hand-set confidence (next_edit.MODELS["repeated"]) on the TRAINING
cases with the resemblance features (next_repeated.resemblance: how much a site looks like the
place the example was made, and whether the example's change makes of it what it made of the
example), and report it out of fold against the shipped ranking, per class.

    NEXT_EDIT_CANDS=DIR .venv/bin/python benchmarks/next_edit_train_fit.py --dump train   # candidates, once
    NEXT_EDIT_CANDS=DIR .venv/bin/python benchmarks/next_edit_repeated_fit.py [--variant sim] [--write-weights]
    NEXT_EDIT_CANDS=DIR .venv/bin/python benchmarks/next_edit_repeated_fit.py --variant site --offset --permute
                        # sites ordered by the site features on top of the shipped confidence's weights
                        # (next_edit.MODELS["repeated_order"]; passed out of fold, fell on dev: docs/apply.md)

Out of fold means: the training repositories in ``--folds`` folds (every k-th by name, as
next_edit_train_fit does); for each fold the repeated confidence weights AND the learned gate
(next_model, the shipped mode and settings) are fitted on the other folds, and the fold's cases
are ranked with them (suggest(learned=True), replayed over the dumped candidates). The baseline
is the shipped repeated weights with the learned gate refitted per fold the same way. Prints
JSON: overall and per-class precision@1, recall@5, wrong rate, suggestions per negative, both
rankings, and the weights fitted on every training case (``--write-weights`` prints them in the
form of next_edit.MODELS).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import next_edit_train_fit as tf  # noqa: E402

# the repeated propagator's features the shipped weights read, and the resemblance ones
BASE_INPUTS = ("both_sides", "evidence", "evidence_sum", "holes", "insertion", "left", "lines", "right", "rule_weight",
               "rules_share", "same_file", "sites_log")
SIM_INPUTS = ("sim_line", "sim_shape", "sim_stmt", "sim_indent", "sim_parent", "sim_parent_first", "sim_result",
              "sim_result_ratio", "sim_gap", "sim_top", "sim_top_many", "sim_gap_many")
# how a site matches the example and how far the change has gone in the tree (next_repeated.suggest_repeated)
SITE_INPUTS = ("context_share", "holes_id", "holes_lit", "ex_dist_log", "same_scope", "done_log", "done_share",
               "site_done")
VARIANTS = {"base": BASE_INPUTS, "sim": BASE_INPUTS + SIM_INPUTS, "site": BASE_INPUTS + SITE_INPUTS,
            "sim_site": BASE_INPUTS + SIM_INPUTS + SITE_INPUTS}


def derived(f: dict) -> dict[str, float]:
    """Inputs made of two features (next_repeated.derived_inputs; a dump made before they were)."""
    from ctxmill.apply.next_repeated import derived_inputs

    return derived_inputs(f)


def hand_of(weights: dict, f: dict) -> float:
    """next_edit.confidence("repeated") and the caps of next_edit.candidates."""
    from ctxmill.apply import next_edit

    z = weights.get("bias", 0.0) + sum(w * f.get(k, 0.0) for k, w in weights.items() if k != "bias")
    c = round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)
    if f.get("other_holes") or f.get("unbound"):
        c = min(c, next_edit.HELD_REPEATED)
    if f.get("resigned"):
        c = min(c, next_edit.RESIGNED_REPEATED)
    return c


def fit_hand(cases: list[dict], inputs: tuple, l2: float, base: dict | None = None) -> dict:
    """The repeated confidence's weights over ``inputs``; with ``base`` (weights kept as they are),
    only the inputs it lacks, fitted on top of it (its bias moved by the fit's)."""
    rows, offsets = [], []
    for case in cases:
        for c in case["cands"]:
            if c["kind"] == "repeated":
                f = {**c["features"], **derived(c["features"])}
                rows.append(({k: float(f.get(k, 0.0)) for k in inputs if base is None or k not in base}, bool(c["hits"])))
                if base is not None:
                    offsets.append(base.get("bias", 0.0) + sum(w * f.get(k, 0.0) for k, w in base.items() if k != "bias"))
    fitted = tf.fit_rows(rows, l2, offsets if base is not None else None)["weights"]
    return fitted if base is None else {**base, **fitted, "bias": round(base.get("bias", 0.0) + fitted["bias"], 4)}


def with_site(weights: dict, cases: list[dict], l2: float) -> dict:
    """The learned gate's ``weights`` kept as they are, and weights for the repeated candidates'
    SITE_INPUTS fitted on top of them over ``cases`` (the repeated candidates alone: the bias
    moved is the repeated kind's)."""
    from ctxmill.apply.next_model import features

    rows, offsets = [], []
    for case in cases:
        for c in case["cands"]:
            if c["kind"] == "repeated":
                f = features("repeated", c["features"])
                offsets.append(weights.get("bias", 0.0) + sum(weights.get(k, 0.0) * v for k, v in f.items()))
                rows.append(({"repeated." + k: float(c["features"].get(k, 0.0)) for k in SITE_INPUTS}, bool(c["hits"])))
    fitted = tf.fit_rows(rows, l2, offsets)["weights"]
    bias = fitted.pop("bias")
    return {**weights, **fitted, "kind=repeated": round(weights.get("kind=repeated", 0.0) + bias, 4)}


_MISSING = object()


def rehand(cases: list[dict], weights: dict | None, permute: bool = False, promote: bool = False) -> None:
    """Every repeated candidate's hand-set confidence under ``weights`` (None: as dumped), and the
    features computed from the confidences recomputed (next_edit._place_features, _cross_features,
    _hold_features), as candidates() would have them."""
    from ctxmill.apply import next_edit
    from ctxmill.apply.next_edit import Suggestion, _cross_features, _hold_features, _place_features

    saved = next_edit.MODELS["repeated"]
    # (put back as found: an in-process caller keeps the shipped order, or its own absence of one)
    saved_order = next_edit.MODELS.get("repeated_order", _MISSING)
    if weights is not None and not permute and not promote:
        next_edit.MODELS["repeated"] = weights
    next_edit.MODELS["repeated_order"] = weights if permute else None
    try:
        for case in cases:
            sugs = []
            for c in case["cands"]:
                f = c["features"]
                f.setdefault("hand0", f["hand"])
                if c["kind"] == "repeated" and weights is not None:
                    f.update(derived(f))
                    conf = f["hand0"] if permute else hand_of(weights, f)
                    if promote:  # only a rule's most-alike site may rise; every other keeps its own
                        # (as next_edit.candidates: not a rule that only swaps one name for another)
                        top = f.get("sim_rank") == 0.0 and not f.get("name_swap")
                        conf = max(f["hand0"], conf) if top else f["hand0"]
                else:
                    conf = f["hand0"]
                sugs.append(Suggestion(c["path"], c["start_line"], c["end_line"], "", "", conf, c["kind"], f))
            if permute and weights is not None:
                # the shipped confidences kept, handed out again in the order of resemblance
                next_edit.resemblance_order([s for s in sugs if s.kind == "repeated"])
            _place_features(sugs, case["nearest"])
            _cross_features(sugs)
            _hold_features(sugs, case["nearest"])
    finally:
        next_edit.MODELS["repeated"] = saved
        if saved_order is _MISSING:
            next_edit.MODELS.pop("repeated_order", None)
        else:
            next_edit.MODELS["repeated_order"] = saved_order


def oof(train: list[dict], shipped: dict, inputs: tuple | None, folds: int, l2: float, gate_inputs: set,
        permute: bool = False, promote: bool = False, keep_gate: bool = False, offset: bool = False,
        gate_site: bool = False) -> dict:
    """Out-of-fold metrics: per fold, the repeated weights (``inputs``; None: the shipped ones) and
    the learned gate fitted on the other folds (``keep_gate``: the shipped gate, as the product
    would run with new repeated confidences and no refit); ``offset``: the repeated weights are the
    shipped ones and those of the inputs they lack, fitted on top; ``gate_site``: the gate's weights
    for SITE_INPUTS fitted on top of the fold's gate (with_site)."""
    from ctxmill.apply import next_edit
    from ctxmill.apply.next_model import probability

    repos = sorted({c["repo"] for c in train})
    for k in range(folds):
        fold = set(repos[k::folds])
        rest = [c for c in train if c["repo"] not in fold]
        w = None if inputs is None else fit_hand(rest, inputs, l2, _shipped_hand() if offset else None)
        rehand(train, w, permute, promote)
        gate = shipped if keep_gate else {"weights": tf.fit_model(rest, shipped.get("l2", 1.0), gate_inputs)["weights"]}
        if gate_site:
            gate = {"weights": with_site(gate["weights"], rest, shipped.get("l2", 1.0))}
        for case in train:
            if case["repo"] in fold:
                for c in case["cands"]:
                    c["features"]["p_oof"] = probability(gate, c["kind"], c["features"])
                    c["features"]["hand_oof"] = c["features"]["hand"]
    for case in train:  # each candidate as its own fold's models made it
        for c in case["cands"]:
            c["features"]["p"] = c["features"]["p_oof"]
    conf = lambda case, c: c["features"]["hand_oof"]  # noqa: E731
    return tf.replay(train, conf, next_edit.THRESHOLD, next_edit.THRESHOLD_MORE,
                     learned=(shipped, shipped["mode"], shipped["level"], shipped["gate_top"], shipped["gate_more"]))


def _shipped_hand() -> dict:
    from ctxmill.apply import next_edit

    return dict(next_edit.MODELS["repeated"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default="sim", choices=sorted(VARIANTS))
    ap.add_argument("--baseline", action="store_true", help="only the shipped weights, out of fold")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--permute", action="store_true", help="keep each case's shipped repeated confidences, handed "
                    "out in the fitted model's order (next_edit.resemblance_order)")
    ap.add_argument("--promote", action="store_true", help="keep the shipped repeated confidences but a rule's "
                    "most-alike site (sim_rank 0), which takes the fitted one where higher")
    ap.add_argument("--keep-gate", action="store_true", help="the shipped learned gate in every fold (no refit)")
    ap.add_argument("--gate-sim", action="store_true", help="the learned gate also reads the resemblance features")
    ap.add_argument("--gate-site", action="store_true", help="the learned gate also reads the site features (SITE_INPUTS)")
    ap.add_argument("--gate-offset", action="store_true", help="the gate's weights for SITE_INPUTS fitted on top of "
                    "the rest of it, kept as fitted (with --write: the shipped gate's own weights kept)")
    ap.add_argument("--offset", action="store_true", help="the shipped repeated weights kept, those of the variant's "
                    "other inputs fitted on top")
    ap.add_argument("--write", action="store_true", help="refit the learned gate on every training case under the "
                    "new confidences (the shipped settings kept) and store it in the package; print the order weights")
    args = ap.parse_args()
    if not (tf.TAB / "dev.jsonl").exists():
        print(json.dumps({"skipped": f"{tf.TAB} not present"}))
        return
    shipped = json.loads(tf.MODEL.read_text())
    gate_inputs = set(shipped["weights"]) | {"bias"}
    if args.gate_sim:
        gate_inputs |= {"repeated." + k for k in SIM_INPUTS}
    if args.gate_site:
        gate_inputs |= {"repeated." + k for k in SITE_INPUTS}
    train = tf.load("train")
    out: dict = {"cases": len(train), "variant": "shipped" if args.baseline else args.variant, "folds": args.folds}
    inputs = None if args.baseline else VARIANTS[args.variant]
    out["permute"] = args.permute
    out["promote"] = args.promote
    out["keep_gate"] = args.keep_gate
    out["offset"] = args.offset
    out["gate_offset"] = args.gate_offset
    out["train_out_of_fold"] = oof(train, shipped, inputs, args.folds, args.l2, gate_inputs, args.permute, args.promote,
                                   args.keep_gate, args.offset, args.gate_offset)
    if inputs is not None:
        out["weights"] = fit_hand(train, inputs, args.l2, _shipped_hand() if args.offset else None)
    if args.write and inputs is None and args.gate_offset:
        # the shipped repeated confidences and the shipped gate as they are; the gate's weights for
        # SITE_INPUTS fitted on top of it over every training case
        rehand(train, None)
        model = {**{k: v for k, v in shipped.items() if k != "train_out_of_fold"},
                 "weights": with_site(shipped["weights"], train, shipped.get("l2", 1.0)),
                 "train_out_of_fold": {k: out["train_out_of_fold"][k] for k in
                                       ("precision_at_1", "recall_at_5", "wrong_suggestion_rate", "suggestions_per_negative")}}
        tf.MODEL.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        out["written"] = str(tf.MODEL)
    if args.write and inputs is not None:
        # as each fold was made above, from every training case: the order (or confidence) weights,
        # then the gate over the confidences they give
        rehand(train, out["weights"], args.permute, args.promote)
        gate = tf.fit_model(train, shipped.get("l2", 1.0), gate_inputs)["weights"]
        model = {**{k: v for k, v in shipped.items() if k not in ("weights", "train_out_of_fold")}, "weights": gate,
                 "train_out_of_fold": {k: out["train_out_of_fold"][k] for k in
                                       ("precision_at_1", "recall_at_5", "wrong_suggestion_rate", "suggestions_per_negative")}}
        tf.MODEL.write_text(json.dumps(model, indent=1, sort_keys=True) + "\n")
        out["written"] = str(tf.MODEL)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
